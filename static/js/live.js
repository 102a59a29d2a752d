// Live pages (tournament/caching.py): every few seconds (data-refresh on <body>), while the tab
// is visible, ask the event's version (data-version-url, a few bytes). When it moved, fire
// "live-changed" on <body>: each region marked hx-trigger="live-changed from:body" has htmx
// fetch its own part of the page (the server answers with that part only) and swap it in
// place, so the reader keeps their scroll position and nothing else is reloaded; the stage
// clock (static/js/clock.js) reads clock.json again.
//
// A page that is not otherwise live but shows a clock (the big screen, an entry page) carries
// the same three data- attributes on its clock (tournament/_clock.html): this asks from there,
// so that a director's clock button shows on every screen within one interval. Included more
// than once on a page (by the page and by its clock), it runs once.
(function () {
  "use strict";
  if (window.liveVersionStarted) return;
  window.liveVersionStarted = true;
  const body = document.body;
  const source = [body, document.querySelector("[data-clock][data-version-url]")].find(
    (element) => element && element.dataset.versionUrl,
  );
  if (!source) return;
  const seconds = parseInt(source.dataset.refresh || "0", 10);
  const url = source.dataset.versionUrl;
  if (!seconds || !url) return;
  let shown = source.dataset.version;
  let busy = false;
  function changed() {
    if (window.htmx) window.htmx.trigger(body, "live-changed");
    else body.dispatchEvent(new CustomEvent("live-changed", { bubbles: true }));
  }
  async function check() {
    if (busy || document.visibilityState !== "visible") return;
    busy = true;
    try {
      const response = await fetch(url, { credentials: "same-origin", cache: "no-store" });
      if (!response.ok) return;
      const version = String((await response.json()).version);
      if (version !== shown) {
        shown = version;
        source.dataset.version = version;
        changed();
      }
    } catch (error) {
      // Offline for a moment: the next check tries again.
    } finally {
      busy = false;
    }
  }
  window.setInterval(check, seconds * 1000);
  document.addEventListener("visibilitychange", check);
})();
