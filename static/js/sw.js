// The site's service worker (issue 33): a phone that opened its table, or a public page, keeps
// its last copy for when the hall's Wi-Fi is gone. Served at /sw.js (tournament/views/offline.py)
// so that its scope is the whole site; registered by static/js/offline.js.
//
// - Network first, always: online, every page and file is exactly what the site sends.
// - A page is kept only when it says so (<meta name="offline" content="keep">, which base.html
//   writes for visitors who are not logged in), answered 200 as HTML, and its Cache-Control says
//   neither private nor no-store. Never kept: POSTs (never answered here at all), /director/
//   (but for a scorekeeper's entry page of their table, which carries the meta),
//   /accounts/, /admin/, /i18n/ (never answered here either: offline, the browser's own error),
//   a logged-in director's page (no meta: its old copy is deleted), redirects.
// - Offline, a kept page is served with data-offline-at on its <body> (when it was kept): the
//   page shows "as of HH:MM, offline" (offline.js). The site's files (/static/) are kept too.
// - Rounds typed offline are not this worker's business: static/js/entry.js keeps them on the
//   device and sends them, with their form key, when the connection returns.
"use strict";

const CACHE = "mexican-train-offline-1";
const PAGES_KEPT = 60; // the oldest kept pages beyond these are dropped
const NEVER = ["/director/", "/accounts/", "/admin/", "/i18n/"];
// But a scorekeeper's entry page for their table, which says it may be kept.
const ENTRY = /^\/director\/e\/[^/]+\/\d+\/table\/\d+\/enter\/$/;
const KEEP = '<meta name="offline" content="keep">';
const STATIC = new URL(self.location.href).searchParams.get("static") || "/static/";

self.addEventListener("install", function () {
  self.skipWaiting();
});

self.addEventListener("activate", function (event) {
  event.waitUntil(
    caches.keys().then(function (names) {
      return Promise.all(names.filter(function (name) {
        return name.startsWith("mexican-train-offline-") && name !== CACHE;
      }).map(function (name) { return caches.delete(name); }));
    }).then(function () { return self.clients.claim(); })
  );
});

function ours(url) {
  return url.origin === self.location.origin && (ENTRY.test(url.pathname)
    || !NEVER.some(function (prefix) { return url.pathname.startsWith(prefix); }));
}

function isStatic(url) {
  return url.origin === self.location.origin && url.pathname.startsWith(STATIC);
}

function keepable(response) {
  const control = response.headers.get("Cache-Control") || "";
  const type = response.headers.get("Content-Type") || "";
  return response.status === 200 && response.type === "basic" && !response.redirected
    && !/private|no-store/i.test(control) && type.startsWith("text/html");
}

async function trim(cache) {
  const pages = (await cache.keys()).filter(function (request) {
    return !isStatic(new URL(request.url));
  });
  const extra = pages.slice(0, Math.max(0, pages.length - PAGES_KEPT));
  await Promise.all(extra.map(function (request) { return cache.delete(request); }));
}

// Keep a page the site answered, or forget the copy of one it no longer may keep.
async function keepPage(url, response) {
  const cache = await caches.open(CACHE);
  if (response.status >= 500) return; // a passing failure: the last copy stays
  if (!keepable(response)) { await cache.delete(url); return; }
  const text = await response.text();
  if (text.indexOf(KEEP) < 0) { await cache.delete(url); return; }
  const headers = new Headers({
    "Content-Type": response.headers.get("Content-Type"),
    "X-Kept-At": new Date().toISOString(),
  });
  await cache.put(url, new Response(text, { status: 200, headers: headers }));
  await trim(cache);
}

async function keepFile(url, response) {
  if (response.status !== 200 || response.type !== "basic") return;
  const cache = await caches.open(CACHE);
  await cache.put(url, response);
}

// The kept copy, marked on its <body> with when it was kept.
async function offlineCopy(kept) {
  const at = kept.headers.get("X-Kept-At") || "";
  const text = (await kept.text()).replace("<body", '<body data-offline-at="' + at + '"');
  return new Response(text, { status: 200, headers: { "Content-Type": kept.headers.get("Content-Type") } });
}

async function page(event) {
  const url = event.request.url.split("#")[0];
  let response;
  try {
    response = await fetch(event.request);
  } catch (error) {
    const kept = await caches.match(url, { cacheName: CACHE, ignoreVary: true });
    if (!kept) return Response.error(); // never kept here: the browser's own offline error
    return offlineCopy(kept);
  }
  event.waitUntil(keepPage(url, response.clone()));
  return response;
}

async function file(event) {
  let response;
  try {
    response = await fetch(event.request);
  } catch (error) {
    const kept = await caches.match(event.request.url, { cacheName: CACHE, ignoreVary: true });
    return kept || Response.error();
  }
  event.waitUntil(keepFile(event.request.url, response.clone()));
  return response;
}

self.addEventListener("fetch", function (event) {
  const request = event.request;
  if (request.method !== "GET") return; // a form sent, a round: straight to the site
  const url = new URL(request.url);
  if (!ours(url)) return;
  if (request.mode === "navigate") event.respondWith(page(event));
  else if (isStatic(url)) event.respondWith(file(event));
  // Anything else (version.json, htmx's parts, clock.json, photos): straight to the site.
});

// offline.js, on a page shown before this worker took it in hand: keep it and its files now.
// Answers on the message's port once they are kept (or could not be).
self.addEventListener("message", function (event) {
  const data = event.data || {};
  if (data.type !== "keep") return;
  const work = Promise.all((data.urls || []).map(async function (href) {
    const url = new URL(href, self.location.href);
    const stat = isStatic(url);
    if (!ours(url) || (!stat && url.href !== (data.page || ""))) return;
    if (stat && (await caches.match(url.href, { cacheName: CACHE }))) return;
    try {
      const response = await fetch(url.href, { credentials: "same-origin" });
      if (stat) await keepFile(url.href, response);
      else if (!response.redirected) await keepPage(url.href.split("#")[0], response);
    } catch (error) {
      // No connection: kept the next time.
    }
  }));
  event.waitUntil(work.then(function () {
    if (event.ports[0]) event.ports[0].postMessage("kept");
  }));
});
