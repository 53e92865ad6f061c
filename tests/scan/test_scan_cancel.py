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
from replay.sources.scan.reader import SHARP
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


@pytest.mark.parametrize("seed", [7, 13])
def test_a_pencil_zigzag_only_just_past_the_edges_of_a_sharp_photo_is_recognised(seed: int) -> None:
    # Each of these sharp phone photos (blur under 2 px) holds a pencil zigzag whose tips pass the box's
    # top and bottom by only a few tenths of a millimetre: before, read as "inked past its edges:
    # scribbled out? read as marked" (flagged, but read wrong). No true mark of theirs is taken for one.
    shot = take("cancel-pencil", seed)
    [truth] = shot.sheets
    zigzags = sorted(k for k, way in truth.kind_of.items() if way == "zigzag")
    assert zigzags and shot.blur < 2
    [scan] = import_scan(shot.photo, f"cancel-pencil-{seed}.jpg")
    assert isinstance(scan, SheetScan) and scan.read is not None
    assert scan.read.meta["ink"].bleed <= SHARP
    flagged = {f.line for f in scan.result.findings if f.code == "low_confidence"}
    for key, value in zigzags:
        g = LAYOUT.group(key)
        box = scan.read.boxes[key][g.choices.index(value)]
        assert box.state == "scribbled", (key, value, box)
        assert value not in scan.read.reads[key].chosen, (key, value)
        assert g.row is None or g.row in flagged, (key, value)
    for key, values in truth.game.marks.items():
        assert values <= scan.read.reads[key].chosen, (key, values)


def _box_with_tips(bleed: float) -> str:
    """The state of one box inked solid whose strokes' ends pass its top and bottom edges by 0.2-0.55 mm
    in each third, as dark as a third of its strokes (a zigzag only just past the edges, or a mark's own
    strokes blurred out past them), on a photo that spreads a printed line by ``bleed``."""
    import numpy as np

    from replay.sources.scan import reader
    from replay.sources.scan.layout import Rect

    s = reader.SCALE
    b = Rect(4.0, 4.0, 3.4, 3.4)
    dark = np.zeros((round(12 * s), round(12 * s)), np.float32)
    x0, y0, x1, y1 = (round(v * s) for v in (b.x, b.y, b.x + b.w, b.y + b.h))
    dark[y0 + 1 : y1, x0 + 1 : x1] = 0.35  # the box inked solid, with stronger strokes down it
    dark[y0 + 1 : y1, x0 + 2 : x1 : 4] = 0.5
    for y in (y0, y1):  # the printed box
        dark[y - 1 : y + 2, x0 - 1 : x1 + 2] = 0.45
    for x in (x0 - 1, x1):
        dark[y0 - 1 : y1 + 2, x - 1 : x + 2] = 0.45
    third = (x1 - x0) / 3
    for k in range(3):  # a stroke's end 0.55 mm past each third of the top and the bottom
        x = round(x0 + (k + 0.5) * third)
        dark[y0 - round(0.55 * s) : y0, x : x + 2] = 0.175
        dark[y1 + 1 : y1 + 1 + round(0.55 * s), x : x + 2] = 0.175
    mono = np.asarray(np.round(200 * (1 - dark)), np.uint8)
    light = reader._Light(mono, np.full(dark.shape, 200, np.float32), dark)
    ink = reader._Ink(0.005, 0.05, 0.1, 0.3, pale=0.01, grain=0.05, bleed=bleed)
    return reader._box(light, b, (0.0, 0.0), ink).state


def test_a_zigzags_tips_cancel_a_box_on_a_sharp_photo_not_on_a_blurred_one() -> None:
    # The same strokes' ends past the edges: on a sharp photo (a printed line spreads a quarter of its
    # darkness 0.2-0.55 mm out) only a zigzag's tips reach there, so the box is cancelled; on a blurred one
    # (half and more) a true mark's strokes blur out there too: unclear (read as marked, flagged), never
    # cancelled on its tips alone.
    assert _box_with_tips(0.25) == "scribbled"
    assert _box_with_tips(0.7) == "unclear"
