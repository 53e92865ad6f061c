// POST the token as a form; on success the service has set the session cookie: go where we were going,
// to the same moment (the fragment of the address, #seq=40, which the server never sees: the browser
// kept it through the redirect to this page, or the chrome's log-in link put it into "next").
"use strict";
(() => {
  const params = new URLSearchParams(location.search);
  let next = params.get("next") || "/ui";
  let fragment = location.hash;
  const at = next.indexOf("#");
  if (at >= 0) {
    fragment = fragment || next.slice(at);
    next = next.slice(0, at);
  }
  document.getElementById("login").addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const body = new URLSearchParams({ token: document.getElementById("token").value, next });
    const error = document.getElementById("error");
    error.hidden = true;
    const r = await fetch("/login", { method: "POST", body, credentials: "same-origin" });
    const answer = await r.json().catch(() => ({ error: `HTTP ${r.status}` }));
    if (r.ok) {
      // the table console writes with the token as a bearer token (never the cookie): it is given once,
      // here, and kept in this tab only (docs/console.md, "Opening it")
      const to = answer.next || "/ui";
      if (to.startsWith("/console/")) sessionStorage.setItem("pc-console-token", document.getElementById("token").value);
      location.assign(to + fragment);
    } else {
      error.textContent = answer.error || `HTTP ${r.status}`;
      error.hidden = false;
    }
  });
})();
