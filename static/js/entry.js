// The round form (entry, playoff, correction): keyboard first, checked as it is typed, sent once.
//
// - The rules come from the page (json_script "entry-config", built by
//   tournament.game.rules.round_checks from the event's RuleSet): the same bounds and messages as
//   the server, which still checks everything.
// - Enter in a cell moves to the next one; Enter in the last saves.
// - The form is sent with its key ("once"): a repeat is answered with the saved round.
// - No connection: the round is kept on this device ("waiting to send") and sent again, with
//   the same key, when the connection returns. A refusal says why and keeps the values.
// - A kept round the server refuses for good (any 4xx: the table has a new code, its stage is
//   closed, table entry is off, too many tries) is sent no more: it moves to this device's
//   "refused" list, shown on every entry page with its pips and the reason, until it is put in
//   the right table's form (saved there by the normal submit) or dismissed.
// - A round another device saved first: one message with what it saved, the sheet reloaded
//   in place, Save disabled (the form is out of date) and a button to the next round.
// - A phone's table page (scoring/table_terminal.html) is live: its waiting rounds and totals
//   are swapped in by htmx (static/js/live.js); when the sheet moved on (a round confirmed,
//   sent back or saved elsewhere) the page reloads itself, unless a value is typed in it.
// - "Are you sure?" (issue 33): a count above what 999 losing hands in 1,000 leave at this
//   table (config.plausible, from simulated play) asks before it is sent, naming the player,
//   the typical range and the likely typo; "Yes, save N" sends it with sure=cell:N, as the
//   server's form asks for when the page did not know (it answers with "questions"). A kept
//   round the server asks about is kept on the refused list until it is answered on its page.
(function () {
  "use strict";
  const QUEUE = "mexican-train-rounds-to-send";
  const REFUSED = "mexican-train-rounds-refused";
  const refusedBox = document.getElementById("refused-rounds");
  const form = document.querySelector("form[data-round-form]");
  const configNode = document.getElementById("entry-config");
  let restoring = null; // the refused round put in the form, until it is sent

  function stored(name) {
    try { return JSON.parse(localStorage.getItem(name) || "[]"); } catch (e) { return []; }
  }

  function store(name, items) {
    try { localStorage.setItem(name, JSON.stringify(items)); } catch (e) { /* full: shown */ }
  }

  // -- the rounds the server refused ----------------------------------------------------------

  function canRestore(item) {
    if (!form || !refusedBox || item.place !== refusedBox.dataset.place) return false;
    return item.url !== form.action || item.status !== 404; // never back into a dead code's form
  }

  function showRefused() {
    if (!refusedBox) return;
    const list = document.getElementById("refused-list");
    const items = stored(REFUSED);
    list.replaceChildren();
    items.forEach(function (item) {
      const entry = document.createElement("li");
      entry.className = "card card-body mb-2 text-body refused-round";
      const label = document.createElement("p");
      label.className = "fw-bold mb-1";
      label.textContent = item.label;
      const pips = document.createElement("p");
      pips.className = "fs-5 mb-1 refused-pips";
      pips.textContent = item.values;
      const reason = document.createElement("p");
      reason.className = "mb-2 refused-reason";
      reason.textContent = item.reason;
      entry.append(label, pips, reason);
      const buttons = document.createElement("div");
      buttons.className = "d-flex flex-wrap gap-2";
      if (canRestore(item)) {
        const fill = document.createElement("button");
        fill.type = "button";
        fill.className = "btn btn-primary";
        fill.textContent = refusedBox.dataset.fill;
        fill.addEventListener("click", function () { restore(item); });
        buttons.appendChild(fill);
      }
      const dismiss = document.createElement("button");
      dismiss.type = "button";
      dismiss.className = "btn btn-outline-secondary";
      dismiss.textContent = refusedBox.dataset.dismiss;
      dismiss.addEventListener("click", function () {
        store(REFUSED, stored(REFUSED).filter(function (other) { return other.key !== item.key; }));
        showRefused();
      });
      buttons.appendChild(dismiss);
      entry.appendChild(buttons);
      list.appendChild(entry);
    });
    refusedBox.hidden = items.length === 0;
  }

  // A kept round the server will never take at its address: kept here, shown, sent no more.
  function refuse(item, status, reason) {
    store(QUEUE, stored(QUEUE).filter(function (other) { return other.key !== item.key; }));
    const others = stored(REFUSED).filter(function (other) { return other.key !== item.key; });
    store(REFUSED, others.concat([Object.assign({}, item, { status: status, reason: reason })]));
    showRefused();
  }

  let restore = function () {};
  showRefused();

  // -- the phone's live table page ------------------------------------------------------------

  const live = document.querySelector("[data-terminal-live]");
  let stale = false; // another device moved the sheet on: this form's round is not the next
  let onStale = function () {};
  function nextRound() {
    const marker = live && live.querySelector("[data-next-round]");
    return marker ? marker.dataset.nextRound + "/" + marker.dataset.gameOver : null;
  }
  function typed() {
    return Array.from(document.querySelectorAll("input.pips")).some(function (cell) {
      return cell.value.trim() !== "";
    });
  }
  if (live) {
    const shownRound = nextRound();
    live.addEventListener("htmx:beforeRequest", function (event) {
      // Someone is typing a note in a waiting round: leave it be until the next change.
      const note = Array.from(live.querySelectorAll("input")).some(function (input) {
        return input.type !== "hidden" && input.value.trim() !== "";
      });
      if (note || live.contains(document.activeElement)) event.preventDefault();
    });
    live.addEventListener("htmx:afterSwap", function () {
      if (nextRound() === shownRound) return;
      if (!typed()) window.location.reload(); // nothing typed: the page of the round to enter
      else onStale();
    });
    live.addEventListener("htmx:responseError", function (event) {
      // The code opens nothing any more: the stage is over (a playoff decided). Its result.
      if (event.detail.xhr.status === 404) window.location.assign(live.dataset.finalUrl);
    });
  }

  if (!form || !configNode) return;
  const config = JSON.parse(configNode.textContent);
  const cells = config.cells.map(function (name) { return form.elements[name]; });
  const save = document.getElementById("save-round");
  const why = document.getElementById("save-why");
  const errorsBox = document.getElementById("round-errors");
  const statusBox = document.getElementById("entry-status");
  let sending = false;
  let refusal = [];  // the server's last answer (nodes), shown until the scorekeeper types
  const questionBox = document.getElementById("plausible-question");
  const sure = {}; // cell name -> the count "Yes, save N" confirmed for it

  function format(template, values) {
    return template.replace(/\{(\w+)\}/g, function (_, key) { return values[key]; });
  }

  function checks() {
    const select = form.elements.engine;
    const engine = select && select.tagName === "SELECT" ? select.value : String(config.engine);
    return config.engines[engine];
  }

  // -- checking as the scorekeeper types ----------------------------------------------------

  function fieldError(cell, rules, showMissing) {
    const raw = cell.value.trim();
    if (raw === "") return showMissing ? config.messages.enter : null;
    if (!/^[0-9]+$/.test(raw)) {
      if (/^-[0-9]+$/.test(raw)) return format(config.messages.negative, { value: raw });
      return format(config.messages.not_whole, { value: "'" + raw + "'" });
    }
    const value = parseInt(raw, 10);
    if (value > rules.max) return format(config.messages.above, { value: value, max: rules.max });
    return null;
  }

  function showAtField(cell, message) {
    let feedback = cell.parentElement.querySelector(".invalid-feedback.from-script");
    const serverFeedback = cell.parentElement.querySelector(".invalid-feedback:not(.from-script)");
    if (serverFeedback) serverFeedback.remove();
    if (!message) {
      cell.classList.remove("is-invalid");
      cell.removeAttribute("aria-invalid");
      if (feedback) feedback.remove();
      return;
    }
    if (!feedback) {
      feedback = document.createElement("div");
      feedback.className = "invalid-feedback from-script";
      feedback.id = cell.id + "-error";
      cell.insertAdjacentElement("afterend", feedback);
      cell.setAttribute("aria-describedby", feedback.id);
    }
    feedback.textContent = message;
    clearSaved();
    cell.classList.add("is-invalid");
    cell.setAttribute("aria-invalid", "true");
  }

  // A "Round 12-12 saved." left from the round before is stale once this round shows a
  // problem: one message at a time, never a green one above a red one.
  function clearSaved() {
    document.querySelectorAll("main > .alert-success").forEach(function (node) { node.remove(); });
  }

  function showWhole(messages) {
    if (messages.length || refusal.length) clearSaved();
    if (!errorsBox) return;
    errorsBox.replaceChildren();
    messages.forEach(function (message) {
      const line = document.createElement("div");
      line.textContent = message;
      errorsBox.appendChild(line);
    });
    refusal.forEach(function (node) { errorsBox.appendChild(node); });
    errorsBox.hidden = messages.length === 0 && refusal.length === 0;
  }

  // Returns the problems of the round as typed; shows them unless ``quiet``.
  function check(showMissing) {
    const rules = checks();
    let bad = 0;
    let missing = 0;
    const values = [];
    cells.forEach(function (cell) {
      const message = fieldError(cell, rules, showMissing);
      if (cell.value.trim() === "") missing += 1;
      if (message) bad += 1;
      if (message || cell.value.trim() !== "" || showMissing) showAtField(cell, message);
      else showAtField(cell, null);
      if (!message && cell.value.trim() !== "") values.push(parseInt(cell.value, 10));
    });
    const whole = [];
    if (bad === 0) {
      const zeros = values.filter(function (v) { return v === 0; }).length;
      if (zeros > rules.max_zeros) {
        whole.push(format(config.messages.zeros, { n: zeros, why: rules.zeros_why }));
      }
      const sum = values.reduce(function (a, b) { return a + b; }, 0);
      if (missing === 0 && sum > rules.round_max) {
        whole.push(format(config.messages.round_sum, { sum: sum, max: rules.round_max }));
      }
    }
    showWhole(whole);
    let reason = "";
    const tick = form.elements.played_before_call;
    if (stale) reason = config.texts.stale;
    else if (bad || whole.length) reason = config.texts.fix;
    else if (missing) reason = config.texts.fill;
    else if (tick && !tick.checked && config.texts.tick) reason = config.texts.tick;
    if (save) {
      save.disabled = sending || Boolean(reason);
      if (why) why.textContent = sending ? config.texts.sending : reason;
    }
    return !reason;
  }

  // -- "are you sure?" -----------------------------------------------------------------------

  // The counts one digit dropped gives, in the typical range (287 -> 28, 27), as the server's.
  function typos(value, typical) {
    const digits = String(value);
    const out = [];
    for (let i = digits.length - 1; i >= 0; i -= 1) {
      const rest = digits.slice(0, i) + digits.slice(i + 1);
      const n = parseInt(rest, 10);
      if (rest !== "" && n > 0 && n <= typical && out.indexOf(n) < 0) {
        out.push(n);
      }
    }
    return out;
  }

  function either(values) {
    if (values.length < 2) return values.join("");
    return format(config.plausible.or, { some: values.slice(0, -1).join(", "), last: values[values.length - 1] });
  }

  // The typed counts above the threshold (a correction: only those it changes).
  function unsure() {
    const p = config.plausible;
    if (!p) return [];
    const out = [];
    cells.forEach(function (cell) {
      const raw = cell.value.trim();
      if (!/^[0-9]+$/.test(raw) || parseInt(raw, 10) <= p.rare) return;
      if (raw === cell.defaultValue.trim()) return;
      const value = parseInt(raw, 10);
      const found = typos(value, p.typical);
      const values = { name: config.names[cell.name], value: value, typical: p.typical, typos: either(found) };
      out.push({
        cell: cell.name,
        value: value,
        typos: found,
        text: format(found.length ? p.question : p.question_no_typo, values),
      });
    });
    return out;
  }

  function hideQuestion() {
    if (!questionBox) return;
    questionBox.replaceChildren();
    questionBox.hidden = true;
  }

  // The question, one paragraph per count, with a button per likely count and "Yes, save N".
  function ask(items) {
    if (!questionBox) return;
    questionBox.replaceChildren();
    items.forEach(function (item) {
      const cell = form.elements[item.cell];
      const line = document.createElement("p");
      line.className = "mb-2 plausible-text";
      line.textContent = item.text;
      const buttons = document.createElement("div");
      buttons.className = "d-flex flex-wrap gap-2 mb-2";
      (item.typos || []).forEach(function (value) {
        const fix = document.createElement("button");
        fix.type = "button";
        fix.className = "btn btn-outline-primary plausible-typo";
        fix.textContent = String(value);
        fix.addEventListener("click", function () {
          if (cell) cell.value = String(value);
          hideQuestion();
          check(false);
          if (cell) cell.focus();
        });
        buttons.appendChild(fix);
      });
      const yes = document.createElement("button");
      yes.type = "button";
      yes.className = "btn btn-warning plausible-yes";
      yes.textContent = item.yes || format(config.plausible.yes, { value: item.value });
      yes.addEventListener("click", function () {
        sure[item.cell] = item.value;
        line.remove();
        buttons.remove();
        if (!questionBox.querySelector(".plausible-yes")) {
          hideQuestion();
          form.requestSubmit();
        }
      });
      buttons.appendChild(yes);
      questionBox.append(line, buttons);
    });
    questionBox.hidden = items.length === 0;
    clearSaved();
    if (why) why.textContent = config.plausible ? config.plausible.sure : "";
    const first = items.length && form.elements[items[0].cell];
    if (first) { first.focus(); first.select(); }
  }

  // -- the keyboard ---------------------------------------------------------------------------

  cells.forEach(function (cell, i) {
    cell.addEventListener("input", function () {
      refusal = [];
      hideQuestion();
      check(false);
    });
    cell.addEventListener("keydown", function (event) {
      if (event.key !== "Enter") return;
      event.preventDefault();
      if (i < cells.length - 1) cells[i + 1].focus();
      else form.requestSubmit();
    });
  });
  if (form.elements.engine && form.elements.engine.tagName === "SELECT") {
    form.elements.engine.addEventListener("change", function () { check(false); });
  }
  if (form.elements.played_before_call) {
    form.elements.played_before_call.addEventListener("change", function () {
      refusal = [];
      check(false);
    });
  }

  // -- sending once, and keeping what could not be sent ---------------------------------------

  function queue() { return stored(QUEUE); }

  function storeQueue(items) { store(QUEUE, items); }

  // "Put these numbers in the form": the refused round's pips in this table's cells, to be
  // checked and saved with this page's form (its own key: saved once).
  restore = function (item) {
    item.body.forEach(function (pair) {
      const cell = cells.find(function (c) { return c.name === pair[0]; });
      if (cell) cell.value = pair[1];
      const select = form.elements.engine;
      if (pair[0] === "engine" && select && select.tagName === "SELECT") select.value = pair[1];
    });
    restoring = item.key;
    refusal = [];
    check(false);
    showStatus(refusedBox.dataset.filled, "info");
    if (save) save.focus();
  };

  function describe(body) {
    return config.cells.map(function (name) {
      const pair = body.find(function (kv) { return kv[0] === name; });
      return config.names[name] + " " + (pair ? pair[1] : "");
    }).join(", ");
  }

  function showStatus(text, kind) {
    if (!statusBox) return;
    statusBox.className = "alert alert-" + (kind || "info");
    statusBox.textContent = text;
    statusBox.hidden = !text;
  }

  // The sheet as the server has it now, in place of this page's (the typed values stay).
  async function reloadSheet() {
    try {
      const response = await fetch(window.location.href, { credentials: "same-origin" });
      if (!response.ok) return;
      const fresh = new DOMParser().parseFromString(await response.text(), "text/html");
      ["sheet", "running-totals", "remove-last-round"].forEach(function (id) {
        const mine = document.getElementById(id);
        const theirs = fresh.getElementById(id);
        if (mine && theirs) mine.replaceWith(document.adoptNode(theirs));
      });
    } catch (error) {
      // No connection: the link to the next round still loads it.
    }
  }

  // This form's round is saved already (by another device): say so once, offer the next.
  function showStale(message, nextUrl) {
    stale = true;
    refusal = [];
    showWhole([]);
    showStatus(message + " ", "warning");
    const next = document.createElement("a");
    next.href = nextUrl || window.location.pathname;
    next.className = "btn btn-sm btn-primary ms-1";
    next.id = "next-round";
    next.textContent = config.texts.next;
    if (statusBox) statusBox.appendChild(next);
    check(false);
  }
  onStale = function () { showStale(config.texts.stale); };

  function showWaiting() {
    const mine = queue().filter(function (item) { return item.url === form.action; });
    if (!mine.length) return;
    showStatus(mine.map(function (item) {
      return config.texts.waiting + " " + item.label + config.texts.colon + " " + item.values;
    }).join(" "), "warning");
  }

  function showRefusal(item, answer) {
    const fields = answer.fields || {};
    Object.keys(fields).forEach(function (name) {
      const cell = form.elements[name];
      if (cell && name !== "__all__") showAtField(cell, fields[name].join(" "));
    });
    refusal = (fields.__all__ || []).map(function (message) {
      const line = document.createElement("div");
      line.textContent = message;
      return line;
    });
    showWhole([]);
    showStatus(config.texts.refused + " " + item.label + " (" + item.values + ")", "danger");
  }

  // Send one kept or typed round (``live``: just typed here); true when the server answered
  // (saved, refused, or asking about a count).
  async function send(item, live) {
    let response;
    try {
      response = await fetch(item.url, {
        method: "POST",
        body: new URLSearchParams(item.body),
        headers: { Accept: "application/json" },
        credentials: "same-origin",
      });
    } catch (error) {
      return false; // no connection: keep it
    }
    if (response.status >= 500) return false;
    let answer;
    try { answer = await response.json(); } catch (error) { answer = null; }
    if (response.status >= 400) { // refused for good: never sent again, shown with its pips
      const reason = answer && answer.refused
        ? answer.refused
        : format(refusedBox ? refusedBox.dataset.unknown : "{status}", { status: response.status });
      refuse(item, response.status, reason);
      if (item.url === form.action) showStatus(config.texts.refused + " " + reason, "danger");
      return true;
    }
    if (answer === null) return false;
    const questions = answer.questions || [];
    const here = item.url === form.action && questions.every(function (q) {
      return form.elements[q.cell] && form.elements[q.cell].value.trim() === String(q.value);
    });
    if (questions.length && !(live && here)) {
      // A kept round the server asks about: never lost, on the refused list until answered
      // on its page ("put these numbers in the form", then "Yes, save N").
      refuse(item, response.status, questions.map(function (q) { return q.text; }).join(" "));
      if (!here) return true;
      restoring = item.key;
      showStatus("", "info");
      ask(questions);
      return true;
    }
    storeQueue(queue().filter(function (other) { return other.key !== item.key; }));
    if (item.url !== form.action) return true; // another page's round: it is settled
    if (answer.saved) {
      refusal = [];
      showWhole([]);
      showStatus(config.texts.saved, "success");
      window.location.assign(answer.next_url);
    } else if (answer.taken) {
      showStale(answer.message, answer.next_url);
      reloadSheet();
    } else if (questions.length) {
      showStatus("", "info");
      ask(questions);
    } else if (answer.preview_html) {
      const effects = document.getElementById("correction-effects");
      if (effects) effects.innerHTML = answer.preview_html; // rendered by the server
      const reseat = document.getElementById("correction-reseat");
      if (reseat) reseat.innerHTML = answer.reseat_html || "";
      if (save && save.dataset.confirmText) save.textContent = save.dataset.confirmText;
      showStatus("", "info");
    } else {
      showRefusal(item, answer);
    }
    return true;
  }

  // One pass at a time: the browser's "online", the page's retry every 15 s and a reload may
  // come together, and each kept round is sent once per pass (its key saves it once anyway).
  let flushing = false;
  async function sendKept() {
    if (flushing) return;
    flushing = true;
    try {
      const items = queue();
      for (const item of items) {
        if (!(await send(item))) break;
      }
    } finally {
      flushing = false;
    }
    showWaiting();
  }

  form.addEventListener("submit", async function (event) {
    event.preventDefault();
    if (sending || !check(true)) {
      const tick = form.elements.played_before_call;
      const firstBad = cells.find(function (cell) { return cell.classList.contains("is-invalid"); })
        || (tick && !tick.checked && !stale ? tick : null); // the box to tick, said at Save
      if (firstBad) firstBad.focus();
      return;
    }
    const asked = unsure().filter(function (item) { return sure[item.cell] !== item.value; });
    if (asked.length) { // "are you sure?" before anything is sent
      ask(asked);
      return;
    }
    hideQuestion();
    const body = Array.from(new FormData(form).entries()).filter(function (kv) { return kv[0] !== "sure"; });
    const pressed = event.submitter; // a correction's "Save and reseat" says which stage
    if (pressed && pressed.name) body.push([pressed.name, pressed.value]);
    Object.keys(sure).forEach(function (name) {
      const cell = form.elements[name];
      if (cell && cell.value.trim() === String(sure[name])) body.push(["sure", name + ":" + sure[name]]);
    });
    const key = (body.find(function (kv) { return kv[0] === "once"; }) || [null, ""])[1];
    const round = form.dataset.roundLabel;
    const item = {
      key: key || String(Date.now()),
      url: form.action,
      place: refusedBox ? refusedBox.dataset.place : "",
      body: body,
      label: round ? config.label + " · " + round : config.label,
      values: describe(body),
      at: new Date().toISOString(),
    };
    sending = true;
    check(false);
    const kept = queue().filter(function (other) { return other.key !== item.key; });
    storeQueue(kept.concat([item]));
    if (restoring) { // the refused round is kept in the queue now: off the refused list
      const put = restoring;
      restoring = null;
      store(REFUSED, stored(REFUSED).filter(function (other) { return other.key !== put; }));
      showRefused();
    }
    const answered = await send(item, true);
    sending = false;
    if (!answered) showWaiting();
    check(false);
  });

  window.addEventListener("online", sendKept);
  window.setInterval(function () { if (queue().length) sendKept(); }, 15000);

  // A round kept on this device for this page: show it in the cells and try to send it.
  const mine = queue().filter(function (item) { return item.url === form.action; });
  if (mine.length) {
    mine[0].body.forEach(function (pair) {
      const cell = cells.find(function (c) { return c.name === pair[0]; });
      if (cell && cell.value === "") cell.value = pair[1];
    });
  }
  showWaiting();
  if (queue().length) sendKept();
  check(false);
})();
