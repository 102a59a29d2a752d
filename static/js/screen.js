// The hall screen (templates/scoring/hall_screen.html): each panel in turn for data-seconds,
// a panel of rows (the standings, the seating) a screenful at a time; the seating only until
// the clock starts. live.js keeps the panels' content up to date ("live-changed").
(function () {
  "use strict";
  const body = document.body;
  const seconds = Math.max(5, parseInt(body.dataset.seconds || "15", 10));
  const panels = Array.from(document.querySelectorAll("[data-panel]"));
  if (!panels.length) return;
  let index = 0;
  let page = 0;

  function clockStarted() {
    const clock = document.querySelector("[data-clock]");
    const state = clock ? clock.dataset.state : body.dataset.clockState;
    return Boolean(state) && state !== "not_started";
  }

  function shown(panel) {
    return !(panel.dataset.panel === "seating" && clockStarted());
  }

  function rowsOf(panel) {
    return Array.from(panel.querySelectorAll(".screen-rows tbody tr"));
  }

  // Rows that fit below the panel's top on this screen.
  function perPage(panel, rows) {
    rows.forEach((row) => { row.hidden = false; });
    const first = rows[0];
    if (!first) return 1;
    const room = window.innerHeight - first.getBoundingClientRect().top - 16;
    return Math.max(1, Math.floor(room / Math.max(1, first.getBoundingClientRect().height)));
  }

  function pagesOf(panel) {
    const rows = rowsOf(panel);
    return rows.length ? Math.ceil(rows.length / perPage(panel, rows)) : 1;
  }

  function apply() {
    panels.forEach((panel, i) => { panel.hidden = i !== index; });
    const panel = panels[index];
    const rows = rowsOf(panel);
    const label = panel.querySelector("[data-page-label]");
    if (!rows.length) {
      if (label) label.textContent = "";
      return;
    }
    const per = perPage(panel, rows);
    const pages = Math.ceil(rows.length / per);
    page = Math.min(page, pages - 1);
    rows.forEach((row, i) => { row.hidden = i < page * per || i >= (page + 1) * per; });
    if (label) label.textContent = pages > 1 ? `${page + 1} / ${pages}` : "";
  }

  function next() {
    if (page + 1 < pagesOf(panels[index])) {
      page += 1;
    } else {
      page = 0;
      for (let step = 0; step < panels.length; step += 1) {
        index = (index + 1) % panels.length;
        if (shown(panels[index])) break;
      }
    }
    apply();
  }

  if (!shown(panels[index])) next();
  else apply();
  window.setInterval(next, seconds * 1000);
  body.addEventListener("live-changed", () => window.requestAnimationFrame(apply));
  window.addEventListener("resize", apply);
})();
