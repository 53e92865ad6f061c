"""A mark cancelled every way the sheet's printed rule allows ("scribble it out past the box's edges"), in
ink and in pencil, is recognised as cancelled: read as not marked, its row flagged with its crop.

The photos are the harder set's (tests/scan/hall.py, made apart from the reader), with many marks first
made in a wrong box and cancelled: a loop scribble, an up-and-down zigzag, a cross-hatch and a hatching of
horizontal lines, each past the box's edges by 0.5-1.3 mm. Before, a zigzag that only just passed the
edges and a hatching of horizontal lines were often read as "inked past its edges: scribbled out? read as
marked", a cross-hatch as a shadow's edge, and one hatching in blue ink as a mark, with no finding.
"""

from __future__ import annotations

import pytest

from replay.sources.scan.layout import LAYOUT
from replay.sources.scan.photo import SheetScan, import_scan
from tests.scan.hall import take


@pytest.mark.parametrize(("pen", "seed"), [("pencil", 1), ("ink", 14)])
def test_every_way_of_cancelling_a_mark_is_recognised_in_ink_and_pencil(pen: str, seed: int) -> None:
    shot = take(f"cancel-{pen}", seed)
    [truth] = shot.sheets
    assert len(truth.cancelled) >= 4
    [scan] = import_scan(shot.photo, f"cancel-{seed}.jpg")
    assert isinstance(scan, SheetScan) and scan.read is not None
    flagged = {f.line for f in scan.result.findings if f.code == "low_confidence"}
    for key, value in sorted(truth.cancelled):
        g = LAYOUT.group(key)
        box = scan.read.boxes[key][g.choices.index(value)]
        way = truth.kind_of[(key, value)]
        assert box.state == "scribbled", (key, value, way, box)
        assert value not in scan.read.reads[key].chosen, (key, value, way)
        assert g.row is None or g.row in flagged, (key, value, way)
