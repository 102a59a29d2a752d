// The import preview's confirm button counts the players it will register: the new rows and
// the ticked ones (a registered player or a repeated row added anyway), as the boxes change.
(function () {
  "use strict";
  const button = document.getElementById("confirm-import");
  if (!button) return;
  const boxes = document.querySelectorAll("#import-rows input[data-adds]");
  function recount() {
    let n = Number(button.dataset.new);
    boxes.forEach(function (box) {
      if (box.checked) n += 1;
    });
    const text = n === 0 ? button.dataset.zero : n === 1 ? button.dataset.one : button.dataset.many;
    button.textContent = text.replace(/\d+/, String(n));
  }
  boxes.forEach(function (box) {
    box.addEventListener("change", recount);
  });
})();
