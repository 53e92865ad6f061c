"""Printed and filled sheets for the scan tests: the real printer's PDF, rasterized, marked by hand."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import cv2
import numpy as np
import pypdfium2 as pdfium

from replay.generators.scan import PENS, _Canvas, _draw_mark, _scribble_out, photograph
from replay.sources.scan.layout import LAYOUT, Header
from replay.sources.scan.printer import sheets_pdf

HEADER = Header(
    match="scan-test-1",
    players=("Mara", "Teodor"),
    ruleset="play-2026",
    sheet=1,
    count=2,
    context={"event": "Thursday League", "round": 2, "table": 4},
)


def raster(header: Header = HEADER, paper: str = "a4", dpi: int = 200, lang: str = "en") -> Any:
    """The printed sheet (grey), its words in ``lang``, as a scanner at ``dpi`` sees it."""
    doc = pdfium.PdfDocument(sheets_pdf([header], paper, lang))
    try:
        img = doc[0].render(scale=dpi / 72, grayscale=True).to_numpy()
    finally:
        doc.close()
    return np.ascontiguousarray(img[:, :, 0] if img.ndim == 3 else img)


def marked(
    marks: dict[str, set[str]],
    *,
    header: Header = HEADER,
    paper: str = "a4",
    dpi: int = 200,
    kind: str = "cross",
    pen: str = "blue",
    extra: Callable[[_Canvas, random.Random], None] | None = None,
    lang: str = "en",
) -> Any:
    """The sheet (printed in ``lang``) with ``marks`` made (one kind of mark, one pen), then ``extra``
    drawn; BGR."""
    rng = random.Random(7)
    c = _Canvas(raster(header, paper, dpi, lang), dpi, paper)
    for key, values in sorted(marks.items()):
        g = LAYOUT.group(key)
        for v in sorted(values):
            _draw_mark(c, g.boxes[g.choices.index(v)], kind, rng, 0.45, 0.95)
    if extra is not None:
        extra(c, rng)
    return c.apply(PENS[pen])


def box(key: str, value: str) -> Any:
    g = LAYOUT.group(key)
    return g.boxes[g.choices.index(value)]


def scribble(key: str, value: str) -> Callable[[_Canvas, random.Random], None]:
    """A mark made in ``key``'s box ``value`` and then scribbled out (the sheet's rule for cancelling)."""

    def draw(c: _Canvas, rng: random.Random) -> None:
        _draw_mark(c, box(key, value), "tick", rng, 0.45, 0.95)
        _scribble_out(c, box(key, value), rng, 0.45, 0.95)

    return draw


def jpeg(image: Any, quality: int = 85) -> bytes:
    ok, buf = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, quality])
    assert ok
    return bytes(buf.tobytes())


def png(image: Any) -> bytes:
    ok, buf = cv2.imencode(".png", image)
    assert ok
    return bytes(buf.tobytes())


def phone(image: Any, seed: int = 3, *, hard: bool = False) -> bytes:
    """A phone photo of ``image`` on a table (the generator's camera)."""
    return photograph(image, random.Random(seed), hard=hard)[0]


def pdf_of(*images: Any, dpi: int = 200) -> bytes:
    """A scanner's PDF: each image a page (JPEG inside, as scanners write them)."""
    from fpdf import FPDF

    pdf = FPDF(unit="mm", format=(210, 297))
    pdf.set_auto_page_break(False)
    for img in images:
        pdf.add_page()
        h, w = img.shape[:2]
        import io

        from PIL import Image

        rgb = cv2.cvtColor(img, cv2.COLOR_BGR2RGB) if img.ndim == 3 else img
        buf = io.BytesIO()
        Image.fromarray(rgb).save(buf, format="JPEG", quality=85)
        buf.seek(0)
        pdf.image(buf, x=0, y=0, w=min(210, w / dpi * 25.4), h=min(297, h / dpi * 25.4))
    return bytes(pdf.output())


def check_generated(seed: int, default: int) -> dict[str, int]:
    """Generate sheets (``PRIZECHECK_SCAN_SHEETS`` of them, else ``default``), photograph them, read them
    back, and hold the reader to the issue's bar: every sheet read, no misread mark without a
    ``low_confidence`` finding on its row, >= 99.5 % of the marks read exactly, every scribbled-out box
    flagged, and each sheet's record equal to the record of the events it was filled from (a sheet
    with a flagged misread apart: that finding is what tells the judge)."""
    import os

    from replay.generators.scan import samples, score
    from replay.sources.scan.photo import SheetScan, import_scan

    n = int(os.environ.get("PRIZECHECK_SCAN_SHEETS", default))
    totals = {
        "sheets": 0,
        "marks": 0,
        "marks_exact": 0,
        "boxes": 0,
        "boxes_exact": 0,
        "misread": 0,
        "scribbled": 0,
        "records_equal": 0,
        "flagged": 0,
    }
    problems: list[str] = []
    for k, s in enumerate(samples(n, seed)):
        [res] = import_scan(s.photo, f"gen-{seed}-{k}.jpg")
        if not isinstance(res, SheetScan):
            problems.append(f"sheet {k} ({s.dpi} dpi, {s.spec}): not read: {res}")
            continue
        sc = score(s, res)
        totals["sheets"] += 1
        for key in ("marks", "marks_exact", "boxes", "boxes_exact", "scribbled"):
            totals[key] += getattr(sc, key)
        totals["misread"] += len(sc.misread)
        totals["flagged"] += sc.flagged_regions
        if sc.silent:
            problems.append(f"sheet {k} ({s.dpi} dpi, {s.pen}, {s.spec}): silent misreads {sc.silent}")
        if sc.scribbled_flagged != sc.scribbled:
            problems.append(
                f"sheet {k}: {sc.scribbled - sc.scribbled_flagged} scribbled-out box(es) not flagged"
            )
        if sc.record_equal:
            totals["records_equal"] += 1
        elif not sc.misread:
            problems.append(f"sheet {k}: every mark read, yet the record differs from the truth's")
    assert not problems, "\n".join(problems)
    assert totals["marks_exact"] >= 0.995 * totals["marks"], totals
    assert totals["records_equal"] >= totals["sheets"] - totals["misread"], totals
    return totals
