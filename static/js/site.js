// Small behaviours of every page, here rather than in inline attributes (the site's
// Content-Security-Policy runs no inline script):
//   data-confirm="Question?"   a button asks before it submits
//   data-select-all=".pick"    a checkbox ticks or clears every checkbox the selector names
//   data-print                 a button prints the page
(function () {
  "use strict";
  document.addEventListener("click", function (event) {
    const confirming = event.target.closest("[data-confirm]");
    if (confirming && !window.confirm(confirming.dataset.confirm)) {
      event.preventDefault();
      return;
    }
    const all = event.target.closest("[data-select-all]");
    if (all) {
      document.querySelectorAll(all.dataset.selectAll).forEach(function (box) {
        box.checked = all.checked;
      });
    }
    if (event.target.closest("[data-print]")) window.print();
  });
})();
