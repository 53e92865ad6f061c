"""A faint pencil mark beside dark ones (issue 39): read, or flagged with its crop; never a confident empty.

The photos are the harder set's (tests/scan/hall.py, made apart from the reader): a sheet filled in ink,
a fifth of its marks made in faint pencil (pressure 0.12-0.3, graphite grain) in the same rows as the ink.
Before, what may be a mark was judged against the sheet's own ink (a tenth of its typical mark), so such a
pencil mark beside black ink read as confidently empty, and in a row holding an ink mark, silently.
"""

from __future__ import annotations

import pytest

from replay.sources.scan.layout import LAYOUT
from replay.sources.scan.photo import SheetScan, import_scan
from tests.scan.hall import take


@pytest.mark.parametrize("seed", [7, 8, 10])
def test_a_faint_pencil_mark_beside_ink_is_read_or_flagged_never_confidently_empty(seed: int) -> None:
    shot = take("beside", seed)
    [truth] = shot.sheets
    assert len(truth.faint) >= 4 and truth.pen != "pencil"
    [scan] = import_scan(shot.photo, f"beside-{seed}.jpg")
    assert isinstance(scan, SheetScan) and scan.read is not None
    flagged = {
        e["finding"]["sheet_region"]
        for e in scan.result.events
        if e["type"] == "note" and e.get("finding", {}).get("code") == "low_confidence"
    }
    for key, value in sorted(truth.faint):
        g = LAYOUT.group(key)
        box = scan.read.boxes[key][g.choices.index(value)]
        region = f"r{g.row}" if g.row is not None else ("head" if key.startswith("mull") else "end")
        if value not in scan.read.reads[key].chosen:  # not read: a finding on its region, with the crop
            assert region in flagged, (key, value, box)
            assert f"{scan.key}/{region}" in scan.crops


def test_a_faint_marks_flag_reads_in_the_language() -> None:
    """What the reader says of a faint box (read as marked, or as empty) is a sentence of the catalogues:
    on a Japanese or Korean page the note reads wholly in that language but for the box's own label."""
    from replay.i18n import notes

    shot = take("beside", 7)
    [scan] = import_scan(shot.photo, "beside-7.jpg")
    said = [
        e["text"]
        for e in scan.result.events
        if e["type"] == "note" and e.get("finding", {}).get("code") == "low_confidence"
    ]
    assert any("faint, read as marked" in s for s in said), said  # the case this checks is in the photo
    for lang in ("ja", "ko"):
        for text in said:
            shown = notes.text(lang, text)
            assert "faint" not in shown and "read as" not in shown, (lang, shown)
