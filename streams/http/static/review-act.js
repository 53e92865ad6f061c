// A judge acts from the review page (docs/web.md, "Judges act from the review page"): at the event on
// screen (body[data-seq], which review.js keeps), a note, a ruling, a penalty, or a correction of that
// event, sent as POST /review/<match>/act. The service writes it at the match's next seq with the judge
// as its author; the page then opens at that new event, so the battle log and the findings show it.
(function () {
  "use strict";
  const $ = (id) => document.getElementById(id);
  const form = $("act-form");
  if (!form) return;
  const match = document.body.dataset.match;
  const said = $("act-said");

  function shown() {
    const action = $("act-action").value;
    for (const el of form.querySelectorAll(".act-for")) el.hidden = !el.classList.contains("act-" + action);
    // a prize penalty's count (JP: the judge's number, usually 1 or 3) only with that kind
    const prizes = form.querySelector(".act-prizes");
    if (prizes) prizes.hidden = action !== "penalty" || $("act-kind").value !== "prize_penalty";
    $("act-at").textContent = document.body.dataset.seq || "?";
  }
  $("act-action").addEventListener("change", shown);
  $("act-kind").addEventListener("change", shown);
  $("judge-act").addEventListener("toggle", shown);
  new MutationObserver(shown).observe(document.body, { attributes: true, attributeFilter: ["data-seq"] });

  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    const action = $("act-action").value;
    const body = { action, at: Number(document.body.dataset.seq) };
    if (action === "note" || action === "ruling") body.text = $("act-text").value;
    if (action === "ruling") body.section = $("act-section").value;
    if (action === "penalty") {
      body.player = $("act-player").value;
      body.kind = $("act-kind").value;
      if (body.kind === "prize_penalty") body.prizes = Number($("act-prizes").value);
      body.reason = $("act-reason").value;
    }
    if (action === "amend") {
      try {
        body.event = JSON.parse($("act-event").value);
      } catch (err) {
        said.textContent = "Not recorded: the amended event is not JSON (" + err.message + ").";
        return;
      }
    }
    said.textContent = "recording…";
    let answer;
    try {
      answer = await fetch("/review/" + match.split("/").map(encodeURIComponent).join("/") + "/act", {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        credentials: "same-origin",
        body: JSON.stringify(body),
      });
    } catch (err) {
      said.textContent = "Not recorded: the service could not be reached (" + err.message + "). Try again.";
      return;
    }
    const reply = await answer.json().catch(() => ({}));
    if (!answer.ok) {
      said.textContent = "Not recorded: " + (reply.error || "the service answered " + answer.status) + ".";
      return;
    }
    said.textContent = "Recorded as seq " + reply.seq + ".";
    location.hash = "#seq=" + reply.seq;
    location.reload();
  });
  shown();
})();
