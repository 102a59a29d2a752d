// Live pages (tournament/caching.py LiveMixin): every few seconds (data-refresh on <body>), while
// the tab is visible, the page asks itself whether the event's version moved, saying the state
// of each live region it holds (data-live), in one request. When it moved, the answer carries
// each region's changes since that state (tournament/live.py): the pieces that changed, those
// gone, and where moved ones now stand; or the whole region when the server no longer knows
// that state (a region the answer cannot bring up to date asks again alone). The reader keeps
// their scroll position and nothing else is reloaded. "live-changed" is fired on <body> too:
// the stage clock (static/js/clock.js) reads clock.json again unless the check said its clock
// is as it holds it, and htmx regions (a table's own entry page) fetch themselves.
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
  let stream = null; // the page's stream while one is open (below)
  // detail: what the check said besides the regions (the clock's mark: static/js/clock.js).
  function changed(detail) {
    if (window.htmx) window.htmx.trigger(body, "live-changed", detail);
    else body.dispatchEvent(new CustomEvent("live-changed", { bubbles: true, detail: detail }));
  }

  function byKey(root, attribute, key) {
    if (root.getAttribute(attribute) === key) return root;
    return root.querySelector("[" + attribute + '="' + CSS.escape(key) + '"]');
  }

  function make(html) {
    const template = document.createElement("template");
    template.innerHTML = html;
    return template.content.firstElementChild;
  }

  // One container's pieces in their new order: its present order, with the pieces whose
  // previous sibling changed (order: key -> previous key, "" for the first) put where they
  // now stand. False when the answer does not fit what the page holds.
  function reorder(box, order, moving, nodes) {
    const previous = new Map();
    let last = "";
    for (const child of Array.from(box.children)) {
      const key = child.dataset.k;
      if (key === undefined) return false;
      previous.set(key, last);
      last = key;
      nodes.set(key, child);
    }
    for (const key of moving) if (!(key in order)) previous.delete(key);
    for (const key in order) previous.set(key, order[key]);
    const next = new Map();
    for (const [key, before] of previous) {
      if (next.has(before) || !nodes.has(key)) return false;
      next.set(before, key);
    }
    const sequence = [];
    for (let key = next.get(""); key !== undefined; key = next.get(key)) sequence.push(key);
    if (sequence.length !== previous.size) return false;
    let at = box.firstElementChild;
    for (const key of sequence) {
      const node = nodes.get(key);
      if (node === at) at = at.nextElementSibling;
      else box.insertBefore(node, at);
    }
    return true;
  }

  function apply(region, answer) {
    for (const key of answer.gone || []) {
      const old = byKey(region, "data-k", key);
      if (old) old.remove();
    }
    const nodes = new Map();
    for (const [key, html] of Object.entries(answer.pieces || {})) {
      const node = make(html);
      if (!node) return false;
      const old = byKey(region, "data-k", key);
      if (old) old.replaceWith(node);
      nodes.set(key, node);
    }
    const order = answer.order || {};
    const moving = new Set();
    for (const name in order) for (const key in order[name]) moving.add(key);
    for (const key of moving) {
      const node = nodes.get(key) || byKey(region, "data-k", key);
      if (node) nodes.set(key, node);
    }
    for (const name in order) {
      const box = byKey(region, "data-kc", name);
      if (!box || !reorder(box, order[name], moving, nodes)) return false;
    }
    return true;
  }

  // Places from ranks (tournament/live.py): one more than the rows ranked lower, shared when
  // equal, written as the container's data-places says ("T%s").
  function number(region) {
    const boxes = Array.from(region.querySelectorAll("[data-places]"));
    if (region.dataset.places !== undefined) boxes.push(region);
    for (const box of boxes) {
      const rows = Array.from(box.children).filter((row) => row.dataset.rank !== undefined);
      const ranks = rows.map((row) => Number(row.dataset.rank)).sort((a, b) => a - b);
      const below = (rank, strict) => {
        let low = 0;
        let high = ranks.length;
        while (low < high) {
          const middle = (low + high) >> 1;
          if (ranks[middle] < rank || (!strict && ranks[middle] === rank)) low = middle + 1;
          else high = middle;
        }
        return low;
      };
      for (const row of rows) {
        const rank = Number(row.dataset.rank);
        const lower = below(rank, true);
        const place = String(lower + 1);
        const text = below(rank, false) - lower > 1 ? box.dataset.places.replace("%s", place) : place;
        const cell = row.querySelector("[data-place]");
        if (cell && cell.textContent !== text) cell.textContent = text;
      }
    }
  }

  // The page itself (or ``where``) asked with ``headers``: its JSON answer.
  function ask(headers, where) {
    return fetch(where || window.location.pathname + window.location.search, {
      credentials: "same-origin",
      cache: "no-store",
      headers: headers,
    }).then((response) => {
      if (!response.ok) throw new Error("live " + response.status);
      return response.json();
    });
  }

  // A region brought to the state answered; false when the answer does not fit what it holds.
  function take(region, answer) {
    if (answer.html !== undefined) region.innerHTML = answer.html;
    else if (answer.state !== region.dataset.live && !apply(region, answer)) return false;
    region.dataset.live = answer.state;
    number(region);
    region.dispatchEvent(new CustomEvent("live-updated", { bubbles: true }));
    return true;
  }

  async function refresh(region, whole) {
    const headers = { "X-Live-Region": region.id };
    if (!whole && region.dataset.live) headers["X-Live-State"] = region.dataset.live;
    const answer = await ask(headers);
    if (answer.reload) {
      window.location.reload();
      return;
    }
    if (take(region, answer)) return;
    if (whole) throw new Error("live region: no whole answer");
    return refresh(region, true);
  }

  // One request: the version, and each region's changes since the state it holds (a page
  // without regions, a clock's, asks the version alone).
  function read(regions) {
    if (!regions.length) return ask({}, url);
    return ask({
      "X-Live-Version": shown,
      "X-Live-States": regions.map((region) => region.id + "=" + (region.dataset.live || "")).join(","),
    });
  }

  // An answer (a check's, or a stream's message) applied: the clock told, each region brought
  // to its new state. False when a region had to be asked alone (its state is then not the one
  // the answer gave: a stream reopens from what the page holds).
  async function settle(answer, regions) {
    const version = String(answer.version);
    if (version === shown) return true;
    // A page saying "not published yet" (or a page whose stage became a draft again): loaded
    // again once the event moves.
    if (answer.reload || source.dataset.liveReload !== undefined) {
      window.location.reload();
      return true;
    }
    changed({ clock: answer.clock });
    // A region the answer could not bring up to date asks alone; one that still cannot
    // is asked again at the next check.
    const answers = answer.regions || {};
    const taken = await Promise.all(
      regions.map((region) =>
        answers[region.id] && take(region, answers[region.id])
          ? true
          : refresh(region, false).then(() => false),
      ),
    );
    shown = version;
    source.dataset.version = version;
    return taken.every(Boolean);
  }

  async function check() {
    if (busy || stream || document.visibilityState !== "visible") return;
    busy = true;
    try {
      const regions = Array.from(document.querySelectorAll("[data-live]"));
      await settle(await read(regions), regions);
    } catch (error) {
      // Offline for a moment: the next check tries again.
    } finally {
      busy = false;
    }
  }

  // Pushed instead of asked (tournament/streams.py), where the page names a stream: the same
  // answers, sent when something changed. The stream says what the page holds when it opens;
  // after an answer the page could not take whole, a dropped line, a refusal (204: the
  // server serves no more streams) or the server's "poll" (its beat failed), it is closed, the
  // page asks as above, and a stream is opened again later (after one interval, then twice as
  // long each time, up to 5 minutes).
  const streamUrl = source.dataset.streamUrl;
  let pause = seconds * 1000;
  let work = Promise.resolve();

  function closeStream(again) {
    if (stream) stream.close();
    stream = null;
    if (again) window.setTimeout(openStream, again);
  }

  function openStream() {
    if (stream || !streamUrl || !window.EventSource) return;
    const regions = Array.from(document.querySelectorAll("[data-live]"));
    const query = new URLSearchParams({
      page: window.location.pathname + window.location.search,
      v: shown,
      s: regions.map((region) => region.id + "=" + (region.dataset.live || "")).join(","),
    });
    const opened = new EventSource(streamUrl + "?" + query.toString());
    stream = opened;
    opened.onopen = () => {
      pause = seconds * 1000;
    };
    opened.onmessage = (message) => {
      work = work.then(async () => {
        if (stream !== opened) return;
        let whole = false;
        try {
          whole = await settle(JSON.parse(message.data), regions);
        } catch (error) {
          whole = false;
        }
        if (!whole && stream === opened) closeStream(1);
      });
    };
    const poll = () => {
      if (stream !== opened) return;
      closeStream(pause);
      pause = Math.min(pause * 2, 300000);
      check();
    };
    opened.onerror = poll;
    opened.addEventListener("poll", poll);
  }

  window.setInterval(check, seconds * 1000);
  document.addEventListener("visibilitychange", check);
  openStream();
})();
