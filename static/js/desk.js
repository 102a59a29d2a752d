// The check-in desk (templates/tournament/desk.html): the list filters itself as one types
// (names compared without case, accents, punctuation or spaces, like the server's name key:
// tournament/text.py name_key), and a tap checks a
// player in without reloading the page (a second tap changes nothing); "Undo check-in" is its
// own button. Without this script the page still works: the
// search goes to the server and each tap posts its form.
(function () {
  "use strict";
  const list = document.getElementById("desk-list");
  if (!list) return;
  const texts = JSON.parse(document.getElementById("desk-texts").textContent);
  const input = document.getElementById("desk-q");
  const none = document.getElementById("desk-none");
  const rows = Array.from(list.querySelectorAll(".desk-row"));
  const FOLD = { "ß": "ss", "æ": "ae", "œ": "oe", "ø": "o", "đ": "d", "ð": "d", "þ": "th", "ł": "l", "ı": "i" };

  function key(text) {
    return text
      .toLowerCase()
      .replace(/[ßæœøđðþłı]/g, function (c) { return FOLD[c]; })
      .normalize("NFKD")
      .replace(/[^\p{L}\p{N}]|[\u02b9\u02bb-\u02bf]/gu, "");
  }

  function filter() {
    const wanted = key(input.value);
    let shown = 0;
    rows.forEach(function (row) {
      const match = !wanted || row.dataset.key.indexOf(wanted) !== -1;
      row.classList.toggle("d-none", !match);
      if (match) shown += 1;
    });
    none.classList.toggle("d-none", shown > 0);
  }
  input.addEventListener("input", filter);
  document.getElementById("desk-search").addEventListener("submit", function (event) {
    event.preventDefault();
    filter();
  });

  const status = document.getElementById("desk-status");

  // The row's state: its Check in button (which only ever checks in, so a second tap changes
  // nothing) and, once in, the Undo check-in button placed away from it; what the row says of
  // the player as they are in or out (a registrant on the waitlist checked in is a standby; a
  // no-show once Game 1 is drawn), and its late-arrival link.
  function show(row, checkedIn) {
    const entry = row.querySelector(".desk-entry");
    if (entry) {
      const said = checkedIn ? entry.dataset.in : entry.dataset.out;
      entry.textContent = said;
      entry.classList.toggle("d-none", !said);
    }
    const late = row.querySelector(".desk-late");
    if (late) late.classList.toggle("d-none", !checkedIn);
    const button = row.querySelector(".desk-button");
    button.setAttribute("aria-pressed", checkedIn ? "true" : "false");
    button.querySelector(".desk-state").textContent = checkedIn ? texts.in : texts.out;
    button.classList.toggle("btn-success", checkedIn);
    button.classList.toggle("btn-outline-primary", !checkedIn);
    row.querySelector(".desk-undo-form").classList.toggle("d-none", !checkedIn);
  }

  function say(text) {
    status.textContent = text;
    status.classList.remove("d-none");
  }

  list.addEventListener("submit", function (event) {
    const form = event.target.closest(".desk-tap, .desk-undo-form");
    if (!form) return;
    event.preventDefault();
    const row = form.closest(".desk-row");
    const button = form.querySelector("button");
    if (button.disabled) return; // a second tap while the first is on its way
    const data = new FormData(form);
    data.set("checked_in", button.value);
    button.disabled = true;
    fetch(form.action, {
      method: "POST",
      body: data,
      headers: { Accept: "application/json" },
      credentials: "same-origin",
    })
      .then(function (response) {
        if (!response.ok) throw new Error(response.status);
        return response.json();
      })
      .then(function (answer) {
        show(row, answer.state);
        const name = row.querySelector("a").textContent;
        say((answer.state ? texts.checked_in : texts.checked_out).replace("%(name)s", name));
        // Each count's whole phrase, as the server words it for the new number ("1 présent",
        // "2 présents"): the number in bold between its words.
        Object.keys(answer.phrases || {}).forEach(function (name) {
          const phrase = document.querySelector('[data-count-phrase="' + name + '"]');
          if (!phrase) return;
          const words = answer.phrases[name];
          const number = document.createElement("strong");
          number.dataset.count = name;
          number.textContent = words[1];
          phrase.replaceChildren(words[0], number, words[2]);
        });
      })
      .catch(function () {
        window.alert(texts.failed);
      })
      .finally(function () {
        button.disabled = false;
      });
  });
  filter();
})();
