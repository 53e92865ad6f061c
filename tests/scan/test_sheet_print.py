"""``prizecheck sheet print``: PDF and PNG, A4 and Letter, the header and the QR code, numbered batches."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pypdfium2 as pdfium
import pytest

from replay.cli import main
from replay.sources.scan.layout import PAPERS
from replay.sources.scan.photo import import_page, pages
from replay.sources.scan.reader import read_sheet_image


def pdf_pages(path: Path) -> list[tuple[float, float, str]]:
    """Each page's size (mm) and text."""
    doc = pdfium.PdfDocument(path.read_bytes())
    try:
        out = []
        for i in range(len(doc)):
            page = doc[i]
            w, h = page.get_size()
            out.append((w / 72 * 25.4, h / 72 * 25.4, page.get_textpage().get_text_range()))
        return out
    finally:
        doc.close()


@pytest.mark.parametrize("paper", ["a4", "letter"])
def test_a_sheet_is_a_pdf_page_of_its_paper_with_the_header_printed(tmp_path: Path, paper: str) -> None:
    out = tmp_path / "s.pdf"
    code = main(
        [
            "sheet",
            "print",
            "--paper",
            paper,
            "--players",
            "Łucja,Zoë",
            "--match",
            "thu-r2-t4",
            "--ruleset",
            "jp-3.4",
            "--event",
            "Thursday League",
            "--round",
            "2",
            "--table",
            "4",
            "--out",
            str(out),
        ]
    )
    assert code == 0
    [(w, h, text)] = pdf_pages(out)
    assert (round(w, 1), round(h, 1)) == PAPERS[paper]
    for printed in (
        "thu-r2-t4",
        "Łucja",
        "Zoë",
        "Ruleset jp-3.4",
        "Event Thursday League",
        "Round 2",
        "Table 4",
    ):
        assert printed in text, printed
    # and the same sheet read back: its QR code says what was printed
    [(_, image)] = pages(out.read_bytes(), "s.pdf")
    header = read_sheet_image(image).header
    assert header.match == "thu-r2-t4" and header.players == ("Łucja", "Zoë") and header.ruleset == "jp-3.4"
    assert header.context == {"event": "Thursday League", "round": 2, "table": 4} and header.layout == 1


def test_count_prints_a_numbered_batch_for_an_event(tmp_path: Path) -> None:
    out = tmp_path / "batch.pdf"
    assert (
        main(["sheet", "print", "--match", "open-r1", "--count", "3", "--table", "7", "--out", str(out)]) == 0
    )
    found = pdf_pages(out)
    assert len(found) == 3
    for n, (_, _, text) in enumerate(found, 1):
        assert f"open-r1.{n}" in text and f"sheet {n} of 3" in text and f"Table {6 + n}" in text
    headers = [read_sheet_image(img).header for _, img in pages(out.read_bytes(), "batch.pdf")]
    assert [(h.match, h.sheet, h.count, h.context["table"]) for h in headers] == [
        ("open-r1.1", 1, 3, 7),
        ("open-r1.2", 2, 3, 8),
        ("open-r1.3", 3, 3, 9),
    ]
    assert all(h.players is None for h in headers)  # names to be written in by hand


def test_png_pages_at_the_dpi_asked(tmp_path: Path) -> None:
    out = tmp_path / "s.png"
    assert (
        main(["sheet", "print", "--format", "png", "--dpi", "150", "--match", "m1", "--out", str(out)]) == 0
    )
    img = cv2.imread(str(out), cv2.IMREAD_GRAYSCALE)
    assert abs(img.shape[0] - 297 / 25.4 * 150) <= 1 and abs(img.shape[1] - 210 / 25.4 * 150) <= 1
    key = "0" * 16 + "-1"
    with pytest.raises(Exception, match="unused game sheet"):  # a clean sheet, nothing marked yet
        import_page(cv2.cvtColor(img, cv2.COLOR_GRAY2BGR), filename="s.png", page=None, key=key)
    out = tmp_path / "b.png"
    assert main(["sheet", "print", "--format", "png", "--count", "2", "--match", "m", "--out", str(out)]) == 0
    assert sorted(p.name for p in tmp_path.glob("b-*.png")) == ["b-1.png", "b-2.png"]


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--players", "Mara"], "two names"),
        (["--players", "Mara,Mara"], "must differ"),
        (["--players", "Mara," + "x" * 41], "at most 40"),
        (["--match", "bad id!"], "match id"),
        (["--count", "0"], "--count"),
        (["--dpi", "50", "--format", "png"], "--dpi"),
        (["--round", "0"], "--round"),
    ],
)
def test_bad_options_are_errors_naming_the_option(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str], says: str
) -> None:
    assert main(["sheet", "print", *args, "--out", str(tmp_path / "x.pdf")]) == 2
    err = capsys.readouterr().err
    assert says in err and "Traceback" not in err
    assert not (tmp_path / "x.pdf").exists()


def test_the_sheet_is_drawn_once_for_both_forms(tmp_path: Path) -> None:
    pdf, png = tmp_path / "s.pdf", tmp_path / "s.png"
    args = ["sheet", "print", "--match", "same", "--players", "A1,B1"]
    assert main([*args, "--out", str(pdf)]) == 0 and main([*args, "--format", "png", "--out", str(png)]) == 0
    [(_, from_pdf)] = pages(pdf.read_bytes(), "s.pdf")
    as_png = cv2.imread(str(png), cv2.IMREAD_GRAYSCALE)
    grey = cv2.cvtColor(from_pdf, cv2.COLOR_BGR2GRAY)
    assert grey.shape == as_png.shape
    assert float(np.abs(grey.astype(int) - as_png.astype(int)).mean()) < 1.0


def test_a_header_line_is_drawn_once_a_process_with_one_font_and_the_same_pixels(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # issue 39: reading a sheet from print drew every candidate in a new PDF with both of its fonts
    # parsed, subset and embedded (~0.7 s for a Japanese line); a text is drawn once now, in its style only
    from replay.sources.scan import printer
    from replay.sources.scan.layout import Rect

    made: list[tuple[str, ...]] = []

    class Counted(printer._Sheet):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            made.append(tuple(self.fonts))

    monkeypatch.setattr(printer, "_Sheet", Counted)
    band = Rect(10.0, 10.4, 106.0, 5.4)
    texts = ["once-test-1", "once-test-2"]
    first = printer.header_lines("match", texts, "en", 10.0, band)
    again = printer.header_lines("match", [texts[1], "once-test-3", texts[0]], "en", 10.0, band)
    assert len(made) == 2 and all(len(fonts) == 1 for fonts in made), made
    assert again[0] is first[1] and again[2] is first[0]
    # the text drawn alone, in a PDF of its own, is the same pixels as drawn beside others
    monkeypatch.setattr(printer, "_drawn", type(printer._drawn)())
    alone = printer.header_lines("match", ["once-test-3"], "en", 10.0, band)[0]
    assert alone is not again[1] and np.array_equal(alone, again[1])
    assert not alone.flags.writeable
