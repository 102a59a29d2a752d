/* The stage clock between server readings (PRODUCT.md §5).
 *
 * The server owns the clock. Each [data-clock] element carries the server's last reading in a
 * json_script: {clock: {state, timed, remaining, elapsed, label, ...}, url, labels,
 * last_seconds}. From it this counts down (or up, untimed) with the browser's monotonic clock,
 * and re-syncs from clock.json whenever the event changed ("live-changed" on <body>, fired by
 * static/js/live.js, which asks the event's version every LIVE_REFRESH_SECONDS: every clock
 * button a director presses moves it) unless the page's check said the clock's mark (what it
 * is apart from the time passing) is the one it holds; when the tab comes back, when the
 * countdown reaches zero (the server then says "time called"), when the page's reading is old
 * (a page the browser kept), and every 15 seconds in case a change was missed (not on a page
 * whose checks say the clock's mark, data-marked: there no change can be missed).
 *
 * Buttons with data-confirm ask before they submit (static/js/site.js): calling time cannot be
 * undone.
 */
(() => {
  "use strict";
  if (window.stageClockStarted) return; // the include may be on a page more than once
  window.stageClockStarted = true;

  const POLL_MS = 15000;
  const TICK_MS = 250;
  const ZERO_RESYNC_MS = 3000;
  const STALE_MS = 10000;

  const digits = (seconds) => {
    const s = Math.max(0, seconds);
    const rest = s % 60;
    return `${Math.floor(s / 60)}:${rest < 10 ? "0" : ""}${rest}`;
  };

  function bind(root) {
    const config = JSON.parse(root.querySelector("script[type='application/json']").textContent);
    const face = root.querySelector("[data-clock-digits]");
    const label = root.querySelector("[data-clock-label]");
    const finished = root.querySelector("[data-clock-finished]");
    const finishedCount = root.querySelector("[data-clock-finished-count]");
    const added = root.querySelector("[data-clock-added]");
    const extraBox = root.querySelector("[data-clock-extra-box]");
    const extra = root.querySelector("[data-clock-extra]");
    let reading = config.clock;
    let readAt = performance.now();
    let syncing = false;
    let lastZeroSync = 0;

    // What the face shows now: the server's reading moved on by the time since it came.
    function current() {
      const passed = (performance.now() - readAt) / 1000;
      let state = reading.state;
      let text = reading.label;
      if (!reading.timed) {
        const elapsed = reading.elapsed + (state === "untimed" ? passed : 0);
        return { state, text, seconds: Math.floor(elapsed), last: false };
      }
      let remaining = reading.remaining;
      if (state === "running") {
        remaining = Math.max(0, remaining - passed);
        if (remaining <= 0) {
          state = "time_called";
          text = config.labels.time_called;
        }
      }
      const last = (state === "running" || state === "paused") && remaining <= config.last_seconds;
      return { state, text, seconds: Math.ceil(remaining), last };
    }

    function render() {
      const now = current();
      face.textContent = digits(now.seconds);
      label.textContent = now.text;
      root.dataset.state = now.state;
      root.toggleAttribute("data-last", now.last);
      if (now.state !== reading.state && performance.now() - lastZeroSync > ZERO_RESYNC_MS) {
        lastZeroSync = performance.now();
        sync(); // ran out here: ask the server, which calls time by itself
      }
    }

    function renderTables() {
      if (!finished || !reading.finished_tables) return;
      const items = reading.finished_tables.map((number) => {
        const li = document.createElement("li");
        li.textContent = number;
        return li;
      });
      finished.replaceChildren(...items);
      if (finishedCount) finishedCount.textContent = reading.finished_tables.length;
    }

    // A table's own minutes (its phone), and on the room's clock the tables that have some.
    function renderExtra() {
      if (added) {
        const minutes = reading.added_minutes || 0;
        added.hidden = !minutes;
        added.textContent = minutes ? config.added_label.replace("%(m)s", minutes) : "";
      }
      if (extra && extraBox) {
        const texts = reading.extra_tables || [];
        extra.replaceChildren(
          ...texts.map((text) => {
            const li = document.createElement("li");
            li.textContent = text;
            return li;
          }),
        );
        extraBox.hidden = !texts.length;
      }
    }

    // A change announced while a reading is on its way may be newer than that reading: ask
    // once more when it arrives.
    let again = false;

    function sync() {
      if (syncing) {
        again = true;
        return;
      }
      syncing = true;
      again = false;
      fetch(config.url, { cache: "no-store", headers: { Accept: "application/json" } })
        .then((response) => (response.ok ? response.json() : Promise.reject(response.status)))
        .then((data) => {
          reading = data;
          readAt = performance.now();
          root.removeAttribute("data-stale");
          renderTables();
          renderExtra();
          render();
        })
        .catch(() => root.setAttribute("data-stale", "")) // keep counting from the last reading
        .finally(() => {
          syncing = false;
          if (again) sync();
        });
    }

    render();
    // A page the browser kept (a reload answered 304 while the event did not change, say)
    // carries the reading of when it was drawn: ask for the reading of now.
    if (Math.abs(Date.now() - Date.parse(reading.server_time)) > STALE_MS) sync();
    setInterval(render, TICK_MS);
    // A live page whose checks say its clock's mark (data-marked: the standings) reads it
    // only when the mark changed: a saved round leaves the clock as it is, and no change can
    // be missed (every change of the clock moves the event's version, which the page asks
    // every few seconds). Elsewhere, every 15 seconds "in case".
    if (!root.hasAttribute("data-marked")) setInterval(sync, POLL_MS);
    document.body.addEventListener("live-changed", (event) => {
      const mark = event.detail && event.detail.clock;
      if (!mark || mark !== reading.mark) sync();
    });
    document.addEventListener("visibilitychange", () => {
      if (!document.hidden) sync();
    });
  }

  document.querySelectorAll("[data-clock]").forEach(bind);
})();
