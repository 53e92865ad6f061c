"""docs/importers.md's printed sheet, filled photo and the record it gives: made here, and checked current.

``make sheet-images`` runs this with PRIZECHECK_SHEET_IMAGES=docs/img: it writes docs/img/sheet-printed.png
(the sheet ``sheet print`` writes, at 100 dpi), docs/img/sheet-photo.jpg (a generated phone photo of it,
filled, reduced to 1000 px for the page; the reader reads the full-size one) and prints the record block.
Without the variable, the test checks that the block in docs/importers.md is what the photo gives now.
"""

from __future__ import annotations

import json
import os
import random
import re
from pathlib import Path

import cv2
import numpy as np

from replay.engine.game import Game
from replay.generators.scan import fill, photograph
from replay.sources.scan.layout import Header
from replay.sources.scan.photo import SheetScan, import_scan
from replay.sources.scan.printer import pdf_pages_png, sheets_pdf
from tests.paths import ROOT
from tests.scan.helpers import raster

HEADER = Header(
    match="thursday-2026-03-r2-t4",
    players=("Mara", "Teodor"),
    ruleset="play-2026",
    sheet=4,
    count=12,
    context={"event": "Thursday League", "round": 2, "table": 4},
)
MARKS = {
    "r1.who": {"A"},
    "r2.who": {"B"},
    "r3.who": {"A"},
    "r3.ko.B": {"active"},
    "r3.prizes.A": {"2"},
    "r4.who": {"B"},
    "r4.ko.A": {"active"},
    "r4.prizes.B": {"1"},
    "r5.who": {"A"},
    "r6.who": {"B"},
    "r6.ko.A": {"active", "bench2"},
    "r6.prizes.B": {"3"},
    "r7.who": {"A"},
    "r7.ko.B": {"active"},
    "r7.prizes.A": {"2"},
    "r7.pen.side": {"B"},
    "r7.pen.kind": {"warning"},
    "r8.who": {"B"},
    "r9.who": {"A"},
    "r9.ko.B": {"active"},
    "r9.prizes.A": {"2"},
    "end.reason": {"prizes"},
    "end.winner": {"A"},
}
DOC = ROOT / "docs" / "importers.md"
BLOCK = re.compile(r"<!-- scan-record -->\n```json\n(.*?)\n```", re.S)


def photo() -> bytes:
    rng = random.Random(4)
    filled = fill(
        raster(HEADER, "a4", 200), 200, "a4", {k: frozenset(v) for k, v in MARKS.items()}, rng, scribbles=0
    )
    return photograph(filled.channels, rng)[0]


def summary(res: SheetScan) -> str:
    game = Game()
    for ev in res.result.events:
        game.apply(ev)
    rec = game.record()
    shown = {
        "match": rec["match"],
        "result": rec["result"],
        "agrees": rec["agrees"],
        "prizes": rec["prizes"],
        "knockouts": [{k: ko[k] for k in ("pid", "owner", "card", "prizes")} for ko in rec["knockouts"]],
        "findings": [f"{f['severity']} {f['code']}" for f in rec["findings"]],
    }
    return json.dumps(shown, ensure_ascii=False)


def test_the_documented_photo_gives_the_documented_record() -> None:
    data = photo()
    [res] = import_scan(data, "table4.jpg")
    assert isinstance(res, SheetScan)
    text = summary(res)
    out = os.environ.get("PRIZECHECK_SHEET_IMAGES")
    if out:
        target = Path(out)
        target.mkdir(parents=True, exist_ok=True)
        [printed] = pdf_pages_png(sheets_pdf([HEADER], "a4"), 100)
        (target / "sheet-printed.png").write_bytes(printed)
        img = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
        f = 1000 / max(img.shape[:2])
        small = cv2.resize(img, None, fx=f, fy=f, interpolation=cv2.INTER_AREA)
        (target / "sheet-photo.jpg").write_bytes(
            cv2.imencode(".jpg", small, [cv2.IMWRITE_JPEG_QUALITY, 82])[1].tobytes()
        )
        print(f"\n<!-- scan-record -->\n```json\n{text}\n```")
        return
    found = BLOCK.search(DOC.read_text("utf-8"))
    assert found is not None, "docs/importers.md has no scan-record block (make sheet-images prints it)"
    assert json.loads(found.group(1)) == json.loads(text), "make sheet-images, and paste the block it prints"
