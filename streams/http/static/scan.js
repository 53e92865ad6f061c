// The scan part's crop beside a scanned sheet's low_confidence finding on the review page
// (docs/importers.md, "Scanned game sheets"): the finding's message ends with "check the crop <name>",
// and GET /scans/<name> serves that crop to judges. Added through the review page's own hook
// (review.js: window.prizecheckFindingExtras[code](finding) -> Node).
(function () {
  "use strict";
  const CROP = /check the crop ([0-9a-f]{16}-[0-9]{1,3}\/(?:r[0-9]{1,2}|head|end))$/;
  const extras = (window.prizecheckFindingExtras = window.prizecheckFindingExtras || {});
  extras.low_confidence = (finding) => {
    const found = CROP.exec(finding.message || "");
    if (!found) return null;
    const img = document.createElement("img");
    img.className = "scan-crop";
    img.src = "/scans/" + found[1];
    img.alt = "the sheet's crop " + found[1];
    return img;
  };
})();
