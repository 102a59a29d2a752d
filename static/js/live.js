// Live pages (tournament/caching.py): every few seconds (data-refresh on <body>), while the tab
// is visible, ask the event's version (data-version-url, a few bytes). When it moved, fire
// "live-changed" on <body>: each region marked hx-trigger="live-changed from:body" has htmx
// fetch its own part of the page (the server answers with that part only) and swap it in
// place, so the reader keeps their scroll position and nothing else is reloaded.
(function () {
  "use strict";
  const body = document.body;
  const seconds = parseInt(body.dataset.refresh || "0", 10);
  const url = body.dataset.versionUrl;
  if (!seconds || !url || !window.htmx) return;
  let shown = body.dataset.version;
  let busy = false;
  async function check() {
    if (busy || document.visibilityState !== "visible") return;
    busy = true;
    try {
      const response = await fetch(url, { credentials: "same-origin", cache: "no-store" });
      if (!response.ok) return;
      const version = String((await response.json()).version);
      if (version !== shown) {
        shown = version;
        body.dataset.version = version;
        window.htmx.trigger(body, "live-changed");
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
