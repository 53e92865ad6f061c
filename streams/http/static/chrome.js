// The chrome every page shares (templates/who.html): who is logged in, a log-out, a log-in link that
// comes back to this very address. The address's fragment (#seq=40) never reaches the server, so the
// link gets it here; the login page carries it through (login.js).
"use strict";
(() => {
  const login = document.getElementById("login-link");
  if (login) {
    login.addEventListener("click", () => {
      const url = new URL(login.href, location.href);
      url.searchParams.set("next", location.pathname + location.search + location.hash);
      login.href = url.pathname + url.search;
    });
  }
  const logout = document.getElementById("logout");
  if (logout) {
    logout.addEventListener("submit", async (ev) => {
      ev.preventDefault();
      try {
        await fetch("/logout", { method: "POST", credentials: "same-origin" });
      } finally {
        location.reload(); // a page that needs the role sends the browser to the login
      }
    });
  }
})();
