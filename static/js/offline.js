// Offline copies (issue 33): registers the site's service worker (static/js/sw.js, served at
// /sw.js) from the pages it may keep, and says so on a copy shown with no connection.
//
// - Registered only from a page that may be kept (<meta name="offline" content="keep">: a
//   visitor not logged in); a director's pages never register it, and are never kept.
// - A page shown before the worker took it in hand (the first visit) asks it to keep the page
//   and its files now (once they are all loaded), so that the table's page opened once is there
//   offline.
// - A copy served offline (data-offline-at on <body>, set by the worker) shows "As of HH:MM,
//   offline" at the top of the page (role="status"); a public page reloads itself when the
//   connection returns (a round's form does not: entry.js sends what it kept, then moves on).
(function () {
  "use strict";
  const script = document.currentScript;
  const at = document.body.dataset.offlineAt;

  if (at && script) {
    const when = new Date(at);
    const time = when.toLocaleTimeString(document.documentElement.lang || undefined, {
      hour: "2-digit",
      minute: "2-digit",
    });
    const banner = document.createElement("div");
    banner.id = "offline-copy";
    banner.className = "alert alert-warning";
    banner.setAttribute("role", "status");
    banner.textContent = script.dataset.banner.replace("{time}", time);
    const main = document.querySelector("main") || document.body;
    main.prepend(banner);
    window.addEventListener("online", function () {
      if (!document.querySelector("form[data-round-form]")) window.location.reload();
    });
  }

  if (!("serviceWorker" in navigator) || !script) return;
  if (!document.querySelector('meta[name="offline"][content="keep"]')) return;
  const controlled = Boolean(navigator.serviceWorker.controller);
  const worker = script.dataset.worker + "?static=" + encodeURIComponent(script.dataset.static);
  // Once every file of the page is loaded (a deferred script may still be on its way when this
  // one runs), so that the list of files to keep is whole.
  const loaded = new Promise(function (resolve) {
    if (document.readyState === "complete") resolve();
    else window.addEventListener("load", resolve, { once: true });
  });
  navigator.serviceWorker.register(worker).then(function () {
    return Promise.all([navigator.serviceWorker.ready, loaded]);
  }).then(function (ready) {
    const registration = ready[0];
    if (controlled || at || !registration.active) return;
    const files = performance.getEntriesByType("resource").map(function (entry) {
      return entry.name;
    }).filter(function (name) {
      return new URL(name).pathname.startsWith(script.dataset.static);
    });
    const page = window.location.href.split("#")[0];
    const channel = new MessageChannel();
    channel.port1.onmessage = function () { document.documentElement.dataset.offlineKept = "1"; };
    registration.active.postMessage({ type: "keep", page: page, urls: [page].concat(files) }, [channel.port2]);
  }).catch(function () {
    // No worker (a private window, an old browser): the site works as before, online.
  });
})();
