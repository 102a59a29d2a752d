// A page that follows work done in the background (templates/tournament/
// players_import_reading.html): every 2 s it asks for itself again, and when the answer leads
// elsewhere (the list was read: its preview) it goes there, or when the step changed (the list
// was refused) it shows the new page. Without this script the page says to reload it, and a
// <noscript> refresh does it.
(function () {
  "use strict";
  const followed = document.querySelector("[data-follow]");
  if (!followed) return;
  const step = followed.getAttribute("value");
  function ask() {
    fetch(window.location.href, { credentials: "same-origin" })
      .then(function (response) {
        if (response.redirected) {
          window.location.assign(response.url);
          return null;
        }
        return response.text();
      })
      .then(function (html) {
        if (html === null) return;
        const page = new DOMParser().parseFromString(html, "text/html");
        const now = page.querySelector("[data-follow]");
        if (!now || now.getAttribute("value") !== step) {
          window.location.reload();
        } else {
          window.setTimeout(ask, 2000);
        }
      })
      .catch(function () {
        window.setTimeout(ask, 2000);
      });
  }
  window.setTimeout(ask, 2000);
})();
