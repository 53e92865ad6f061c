"""Scans in bounded memory (issue 32 item 4; replay/sources/scan/budget.py).

Each file the audit named (a 50,000 x 50,000 PNG, a 48 KB 20,000 x 20,000 PNG, a JPEG declaring 65,000 x
65,000, a 12-page PDF of 200 x 200 inch pages) is refused from its header or its page sizes: exit 2, one
line naming it, and nothing decoded or rendered (the decoder and the renderer are made to fail here, so a
refusal that decodes first fails the test). Peak memory and time are measured by bench/scan.py (section
(d), beside a real sheet's read in the same run), not here: a timed test would only measure the machine.
"""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

import cv2
import numpy as np
import pypdfium2 as pdfium
import pytest

from replay.engine.errors import InputError
from replay.generators.scan import hostile_scans, jpeg_claiming, pdf_of_pages, png_bomb
from replay.sources.scan.budget import MAX_PIXELS, header_size, page_scale, reduction
from replay.sources.scan.photo import SheetScan, import_scan
from tests.paths import ROOT
from tests.scan.helpers import marked, pdf_of

HOSTILE = hostile_scans()
PNG = "megapixels): larger than 48 megapixels for a PNG, not decoded"
JPEG = "megapixels): larger than 80 megapixels, not decoded"
SAYS = {
    "bomb-50000.png": f"image of 50000 x 50000 pixels (2500 {PNG}",
    "bomb-20000.png": f"image of 20000 x 20000 pixels (400 {PNG}",
    "bomb-65000.jpg": f"image of 65000 x 65000 pixels (4225 {JPEG}",
    "huge-pages.pdf": "12 pages, none a game sheet: page 1 is 200 x 200 inches: larger than a game sheet",
}


@pytest.fixture
def no_decoding(monkeypatch: pytest.MonkeyPatch) -> None:
    """Decoding an image or rendering a page fails the test: a refusal must come from the header."""

    def refused(*args: object, **kwargs: object) -> None:
        raise AssertionError("decoded before the size was checked")

    monkeypatch.setattr(cv2, "imdecode", refused)
    monkeypatch.setattr(pdfium.PdfPage, "render", refused)


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_a_file_over_the_budget_is_refused_before_any_decode(name: str, no_decoding: None) -> None:
    with pytest.raises(InputError) as err:
        list(import_scan(HOSTILE[name], name))
    assert err.value.file == name and str(err.value).startswith(f"{name}: {SAYS[name]}")


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_import_scan_refuses_it_with_exit_2_and_one_line(name: str, tmp_path: Path) -> None:
    path = tmp_path / name
    path.write_bytes(HOSTILE[name])
    p = subprocess.run(
        [sys.executable, "-m", "replay.cli", "import", "scan", str(path), "-o", str(tmp_path / "out.jsonl")],
        cwd=ROOT, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert p.returncode == 2, p.stderr
    assert p.stderr.splitlines() == [f"prizecheck import: {path}: {p.stderr.split(': ', 2)[2].rstrip()}"]
    assert SAYS[name] in p.stderr and "Traceback" not in p.stderr


def test_the_header_sizes_are_the_decoded_sizes() -> None:
    image = np.full((1234, 567, 3), 200, np.uint8)
    for ext, kind in ((".png", "png"), (".jpg", "jpeg")):
        data = cv2.imencode(ext, image)[1].tobytes()
        assert header_size(data, kind) == (567, 1234)
    assert header_size(png_bomb(20_000, 20_000), "png") == (20_000, 20_000)
    assert header_size(jpeg_claiming(300, 200), "jpeg") == (300, 200)
    assert header_size(b"\xff\xd8\xff\xe0" + b"\x00" * 64, "jpeg") is None  # no frame header: damaged


def test_a_photo_over_the_read_budget_is_decoded_reduced_and_reads_the_same() -> None:
    """A 48 MP JPEG (a phone's largest) is accepted, decoded at half its size (the reader gets 12 MP,
    never the full 144 MB of BGR), and reads the same marks as the sheet itself."""
    marks = {"r1.who": {"A"}, "r2.who": {"B"}, "r3.ko.B": {"active"}}
    sheet = marked(marks, dpi=300)  # 2480 x 3508
    big = cv2.resize(sheet, (5800, 8200), interpolation=cv2.INTER_CUBIC)  # 47.6 MP
    assert MAX_PIXELS >= 5800 * 8200 and reduction(5800, 8200) == 2
    [res] = import_scan(cv2.imencode(".jpg", big, [cv2.IMWRITE_JPEG_QUALITY, 90])[1].tobytes(), "big.jpg")
    assert isinstance(res, SheetScan) and res.read is not None
    assert res.read.photo.shape[:2] == (4100, 2900)  # what the reader was given
    assert {k: set(r.chosen) for k, r in res.read.reads.items() if r.chosen} == marks


def test_a_png_is_bounded_by_its_whole_size() -> None:
    with pytest.raises(InputError, match="larger than 48 megapixels for a PNG, not decoded"):
        list(import_scan(png_bomb(8000, 7000), "scan.png"))


def test_the_guard_catches_a_read_that_renders(no_decoding: None) -> None:
    with pytest.raises(AssertionError, match="decoded before"):  # the fixture above is armed
        list(import_scan(pdf_of(marked({"r1.who": {"A"}})), "one.pdf"))


def test_a_mixed_pdf_reads_its_sheet_pages_and_names_the_huge_one() -> None:
    sheet = pdfium.PdfDocument(pdf_of(marked({"r1.who": {"A"}})))
    doc = pdfium.PdfDocument(pdf_of_pages([(14_400.0, 14_400.0)]))
    doc.import_pages(sheet)
    out = io.BytesIO()
    doc.save(out)
    doc.close()
    sheet.close()
    huge, read = import_scan(out.getvalue(), "mixed.pdf")
    assert isinstance(huge, InputError) and str(huge).startswith("mixed.pdf: page 1 is 200 x 200 inches")
    assert isinstance(read, SheetScan) and read.page == 2


def test_pdf_pages_are_rendered_within_the_pixel_budget() -> None:
    a4 = page_scale(595, 842)
    assert a4 == pytest.approx(200 / 72)  # a sheet at 200 dpi
    big = page_scale(2000, 2000)  # 28 x 28 inches: lower dpi, within 12 megapixels
    assert (2000 * big) ** 2 <= 12_000_000 and big >= 100 / 72


def test_an_error_of_the_decoder_itself_is_a_refusal(monkeypatch: pytest.MonkeyPatch) -> None:
    """OpenCV raises for what passes its own limits (CV_IO_MAX_IMAGE_PIXELS): one line, not a traceback."""

    def too_big(*args: object, **kwargs: object) -> None:
        raise cv2.error("imdecode: CV_IO_MAX_IMAGE_PIXELS exceeded")

    monkeypatch.setattr(cv2, "imdecode", too_big)
    with pytest.raises(InputError, match=r"^x\.png: a damaged PNG file \(it does not decode\)$"):
        list(import_scan(cv2.imencode(".png", np.zeros((10, 10, 3), np.uint8))[1].tobytes(), "x.png"))
