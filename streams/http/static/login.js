// POST the token as a form; on success the service has set the session cookie: go where we were going.
document.getElementById("login").addEventListener("submit", async (ev) => {
  ev.preventDefault();
  const params = new URLSearchParams(location.search);
  const body = new URLSearchParams({ token: document.getElementById("token").value, next: params.get("next") || "/ui" });
  const error = document.getElementById("error");
  error.hidden = true;
  const r = await fetch("/login", { method: "POST", body, credentials: "same-origin" });
  const answer = await r.json().catch(() => ({ error: `HTTP ${r.status}` }));
  if (r.ok) {
    location.assign(answer.next);
  } else {
    error.textContent = answer.error || `HTTP ${r.status}`;
    error.hidden = false;
  }
});
