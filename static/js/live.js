// Live pages: every few seconds (data-refresh on <body>), while the tab is visible, fetch this
// same page and swap in the fresh contents of each element marked class="live" with an id.
(function () {
  "use strict";
  const seconds = parseInt(document.body.dataset.refresh || "0", 10);
  if (!seconds || !document.querySelector(".live[id]")) return;
  async function refresh() {
    if (document.visibilityState !== "visible") return;
    try {
      const response = await fetch(window.location.href, { credentials: "same-origin" });
      if (!response.ok) return;
      const fresh = new DOMParser().parseFromString(await response.text(), "text/html");
      document.querySelectorAll(".live[id]").forEach(function (region) {
        const replacement = fresh.getElementById(region.id);
        if (replacement) region.innerHTML = replacement.innerHTML;
      });
    } catch (error) {
      // Offline for a moment: the next refresh tries again.
    }
  }
  window.setInterval(refresh, seconds * 1000);
})();
