// The scan part beside a scanned sheet's low_confidence finding on the review page (docs/importers.md,
// "Scanned game sheets"; docs/web.md, "Unclear marks"): the finding's text (its judge-only detail) ends
// with "check the crop <name>", and GET /scans/<name> serves that crop to judges. Beside it, the judge confirms the reading
// (a note, authored by the judge) or corrects it (the judge's form opens at the row's first event, to
// amend it or void it): each an event written through POST /review/<match>/act (static/review-act.js).
// Added through the review page's own hook (review.js: window.prizecheckFindingExtras[code](finding)).
(function () {
  "use strict";
  const CROP = /check the crop ([0-9a-f]{16}-[0-9]{1,3}\/(?:r[0-9]{1,2}|head|end))$/;
  const extras = (window.prizecheckFindingExtras = window.prizecheckFindingExtras || {});
  const match = () => document.body.dataset.match || "";
  const enc = (m) => m.split("/").map(encodeURIComponent).join("/");

  // the first event read from this crop's row (its "scan" field names the crop), else the finding's own
  function rowEvent(crop, finding) {
    const frames = (window.__review && window.__review.frames) || [];
    const hit = frames.find((f) => f.event && f.event.scan === crop);
    return hit ? hit.event : frames.find((f) => f.seq === finding.seq)?.event || null;
  }

  async function confirm(crop, finding, said) {
    const event = rowEvent(crop, finding);
    const at = event ? event.seq : finding.seq;
    said.textContent = _("recording…");
    const answer = await fetch("/review/" + enc(match()) + "/act", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      credentials: "same-origin",
      body: JSON.stringify({ action: "note", at, text: "the judge confirms the sheet's reading (crop " + crop + "): " +
        (finding.detail || finding.message) }),
    }).catch((err) => ({ ok: false, json: async () => ({ error: err.message }) }));
    const reply = await answer.json().catch(() => ({}));
    if (!answer.ok) {
      said.textContent = _("Not recorded: {why}.", { why: reply.error || _("the service could not be reached") });
      return;
    }
    location.hash = "#seq=" + reply.seq;
    location.reload();
  }

  function correct(crop, finding, said) {
    const event = rowEvent(crop, finding);
    if (!event) {
      said.textContent = _("No event of this row to correct: add a note with what the sheet says.");
      return;
    }
    location.hash = "#seq=" + event.seq; // the judge's form acts at the event on screen
    const form = document.getElementById("judge-act");
    if (!form) return;
    form.open = true;
    const action = document.getElementById("act-action");
    action.value = "amend";
    action.dispatchEvent(new Event("change"));
    const { match: _m, seq: _s, ...rest } = event;
    document.getElementById("act-event").value = JSON.stringify(rest, null, 1);
    said.textContent = _("Correct the event below (or choose void), then record it.");
    form.scrollIntoView({ block: "nearest" });
  }

  extras.low_confidence = (finding) => {
    // the note's text, which names the crop, is the finding's judge-only detail (docs/records.md)
    const text = finding.detail || finding.message || "";
    const found = CROP.exec(text);
    if (!found) return null;
    const box = document.createElement("div");
    box.className = "scan-check";
    const img = document.createElement("img");
    img.className = "scan-crop";
    img.src = "/scans/" + found[1];
    img.alt = _("the sheet's crop {name}", { name: found[1] });
    const said = document.createElement("span");
    said.className = "scan-said";
    said.setAttribute("role", "status");
    const yes = document.createElement("button");
    yes.type = "button";
    yes.className = "scan-confirm";
    yes.textContent = _("confirm the reading");
    yes.addEventListener("click", () => confirm(found[1], finding, said));
    const fix = document.createElement("button");
    fix.type = "button";
    fix.className = "scan-correct";
    fix.textContent = _("correct it…");
    fix.addEventListener("click", () => correct(found[1], finding, said));
    box.append(img, " ", yes, " ", fix, " ", said);
    return box;
  };
})();
