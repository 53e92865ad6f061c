// The match list: a changed select applies at once; typing waits for Enter or "show".
"use strict";
for (const s of document.querySelectorAll("#filters select")) s.addEventListener("change", () => s.form.submit());
