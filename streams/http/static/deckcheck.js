// The deck check beside the game on the review page (docs/decks.md, "Deck checks"): for a judge, each card
// a player put into play against their registered deck list, linked to its event (#seq=N, which the
// review page steps to). GET /matches/<match>/deck-check answers judges only; anyone else gets a 401 or a
// 403 and this shows nothing, so the page stays the same for the public.
(function () {
  "use strict";
  const match = document.body.dataset.match;
  if (!match) return;
  // in the page's language (?lang= passed on, as the review page's own calls do)
  const lang = new URLSearchParams(location.search).get("lang");
  const query = lang ? "?lang=" + encodeURIComponent(lang) : "";
  // Asked once the review shows its first step (body[data-open], static/review.js) or could not
  // (data-ready): the deck check reads and decodes the whole archive, seconds of the server's time for a
  // 50,000-event game, which held up the page's first window when both were asked at once.
  const body = document.body;
  const opened = () => body.dataset.open === "1" || body.dataset.ready !== undefined;
  new Promise((resolve) => {
    if (opened()) { resolve(); return; }
    const watch = new MutationObserver(() => { if (opened()) { watch.disconnect(); resolve(); } });
    watch.observe(body, { attributes: true, attributeFilter: ["data-open", "data-ready"] });
  })
    .then(() => fetch("/matches/" + match + "/deck-check" + query, { credentials: "same-origin" }))
    .then((r) => (r.ok ? r.json() : null))
    .then((answer) => {
      if (!answer || !answer.checks || !answer.checks.length) return;
      const box = document.createElement("section");
      box.id = "deck-checks";
      box.className = "deck-checks";
      const title = document.createElement("h2");
      title.textContent = _("Deck check, judges only ({n})", { n: answer.checks.length });
      box.appendChild(title);
      const list = document.createElement("ul");
      for (const c of answer.checks) {
        const item = document.createElement("li");
        const link = document.createElement("a");
        link.href = "#seq=" + c.seq;
        link.textContent = "#" + c.seq;
        item.appendChild(link);
        item.appendChild(document.createTextNode(" " + c.code + ": " + (c.text || c.message)));
        list.appendChild(item);
      }
      box.appendChild(list);
      const error = document.getElementById("error");
      (error && error.parentNode ? error.parentNode : document.body).insertBefore(box, error ? error.nextSibling : null);
    })
    .catch(() => {});
})();
