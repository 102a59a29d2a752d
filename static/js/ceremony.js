// The medal ceremony (templates/scoring/ceremony.html): the keys a presenter's remote sends
// (page down / up) and the arrows and space bar follow the page's own Next and Back links.
document.addEventListener("keydown", (event) => {
  if (event.altKey || event.ctrlKey || event.metaKey || event.target.closest("input, select, textarea")) {
    return;
  }
  const forward = ["ArrowRight", "PageDown", " ", "Enter"].includes(event.key);
  const back = ["ArrowLeft", "PageUp", "Backspace"].includes(event.key);
  const link = document.getElementById(forward ? "ceremony-next" : back ? "ceremony-back" : "");
  if (link && (forward || back)) {
    if (event.key === "Enter" && event.target.closest("a, button")) return;
    event.preventDefault();
    window.location.assign(link.href);
  }
});
