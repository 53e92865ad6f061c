"""The game sheet in Japanese and Korean (issue 34 items 5-6): printed with Noto Sans CJK embedded in the
PDF (its font dictionaries say so), the PNG drawn with real glyphs (no tofu box), and a Japanese sheet
printed, filled by hand, photographed by a phone and read back by ``prizecheck import scan``."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path

import numpy as np
import pypdfium2 as pdfium
import pytest

from replay.cli import main
from replay.engine.game import Game
from replay.generators.scan import Sample, fill, photograph, random_game, truth_events
from replay.sources.scan import printer
from replay.sources.scan.layout import Header
from replay.sources.scan.photo import strip_scan

pytestmark = pytest.mark.skipif(
    printer.cjk_font() is None, reason="Noto Sans CJK (make browser) not installed"
)

TITLE = {"ja": "対戦記録シート", "ko": "게임 기록지"}
FACE = {"ja": b"NotoSansCJKJP", "ko": b"NotoSansCJKKR"}


def fonts(pdf: bytes) -> list[dict[str, bytes | bool]]:
    """Each font dictionary of ``pdf`` (fpdf2 writes them uncompressed): its subtype, its base font and
    whether its descriptor embeds the font's program (``/FontFile2``, TrueType outlines, or ``/FontFile3``,
    CFF outlines: Noto Sans CJK's)."""
    objects = dict(re.findall(rb"(\d+) 0 obj\s*(.*?)endobj", pdf, re.S))
    out: list[dict[str, bytes | bool]] = []
    for body in objects.values():
        if not re.search(rb"/Type\s*/Font\b", body):
            continue
        base = re.search(rb"/BaseFont\s*/([^\s/<>\[\]]+)", body)
        subtype = re.search(rb"/Subtype\s*/(\w+)", body)
        embedded = False
        for ref in re.findall(rb"/FontDescriptor\s+(\d+) 0 R", body):
            descriptor = objects.get(ref, b"")
            embedded = embedded or b"/FontFile2" in descriptor or b"/FontFile3" in descriptor
        out.append(
            {
                "subtype": subtype.group(1) if subtype else b"",
                "base": base.group(1) if base else b"",
                "embedded": embedded,
            }
        )
    return out


@pytest.mark.parametrize("lang", ["ja", "ko"])
def test_a_japanese_or_korean_sheet_embeds_a_cjk_font(tmp_path: Path, lang: str) -> None:
    out = tmp_path / f"{lang}.pdf"
    assert main(["sheet", "print", "--lang", lang, "--players", "田中,김민수", "--out", str(out)]) == 0
    pdf = out.read_bytes()
    found = fonts(pdf)
    # each CIDFont (a Type 0 font's descendant) carries a descriptor: Noto Sans CJK of the language's region,
    # a subset (ABCDEF+ prefix), its outlines in the file
    cids = [f for f in found if f["subtype"] in (b"CIDFontType0", b"CIDFontType2")]
    assert cids and all(FACE[lang] in f["base"] and f["embedded"] for f in cids), found  # type: ignore[operator]
    assert all(re.match(rb"[A-Z]{6}\+", f["base"]) for f in cids), found  # type: ignore[arg-type]
    # no font that a printer would have to supply (a core font is never embedded)
    assert all(f["subtype"] in (b"Type0", b"CIDFontType0", b"CIDFontType2") for f in found), found
    doc = pdfium.PdfDocument(pdf)
    try:
        text = doc[0].get_textpage().get_text_range()  # the glyphs map back to the words (ToUnicode)
    finally:
        doc.close()
    assert TITLE[lang] in text and "田中" in text and "김민수" in text, text[:300]


def _drawn(text: str, lang: str) -> bytes:
    """``text`` drawn alone by the sheet's own font and rasterized as the PNG is (PDFium)."""
    sheet = printer._Sheet("a4", lang)
    sheet.add_page()
    sheet.text_at(10, 10, text, 24)
    [page] = printer.pdf_pages_png(bytes(sheet.output()), 72)
    return page


@pytest.mark.parametrize("lang", ["ja", "ko"])
def test_the_png_sheet_draws_each_glyph_not_a_tofu_box(tmp_path: Path, lang: str) -> None:
    out = tmp_path / f"{lang}.png"
    assert main(["sheet", "print", "--lang", lang, "--format", "png", "--dpi", "100", "--out", str(out)]) == 0
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    # each character of the title against the font's missing-glyph box (a private-use code point no
    # font draws): a glyph of its own, and none the same as another's
    tofu = _drawn("\U000f0000", lang)
    chars = sorted(set(TITLE[lang].replace(" ", "")))
    drawn = {c: _drawn(c, lang) for c in chars}
    assert all(bitmap != tofu for bitmap in drawn.values())
    assert len(set(drawn.values())) == len(chars)


def test_a_missing_cjk_font_is_said_not_printed_as_boxes(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    monkeypatch.setattr(printer, "_CJK_PATHS", ("/nonexistent/NotoSansCJK-Regular.ttc",))
    assert main(["sheet", "print", "--lang", "ja", "--out", str(tmp_path / "s.pdf")]) == 2
    err = capsys.readouterr().err
    assert "needs Noto Sans CJK: install Debian's fonts-noto-cjk" in err and "Traceback" not in err
    assert not (tmp_path / "s.pdf").exists()
    # said in the command line's language (replay.i18n.inputs), the package's name as it is
    for env, words in (
        ("ja_JP.UTF-8", "のシートには Noto Sans CJK が必要です"),
        ("ko_KR.UTF-8", "시트에는 Noto Sans CJK가"),
    ):
        monkeypatch.setenv("LANG", env)
        monkeypatch.setenv("LC_ALL", "")
        monkeypatch.setenv("LC_MESSAGES", "")
        assert main(["sheet", "print", "--lang", "ko", "--out", str(tmp_path / "s.pdf")]) == 2
        err = capsys.readouterr().err
        assert words in err and "fonts-noto-cjk" in err and "needs Noto" not in err, err


def test_a_japanese_sheet_printed_filled_photographed_and_read_back(tmp_path: Path) -> None:
    sheet = tmp_path / "ja.pdf"
    header = Header(
        match="ja-table-3",
        players=("田中", "佐藤"),
        ruleset="jp-3.4",
        context={"event": "ジムバトル", "table": 3},
    )
    code = main(
        [
            *("sheet", "print", "--lang", "ja", "--players", "田中,佐藤", "--match", header.match),
            *("--ruleset", "jp-3.4", "--event", "ジムバトル", "--table", "3", "--out", str(sheet)),
        ]
    )
    assert code == 0
    dpi, rng = 200, random.Random(34)
    doc = pdfium.PdfDocument(sheet.read_bytes())
    try:
        gray = doc[0].render(scale=dpi / 72, grayscale=True).to_numpy()
    finally:
        doc.close()
    page = np.ascontiguousarray(gray[:, :, 0] if gray.ndim == 3 else gray)
    game = random_game(rng, "jp-3.4")
    filled = fill(page, dpi, "a4", game.marks, rng, scribbles=0.0)
    photo, spec = photograph(filled.channels, rng)
    (tmp_path / "table3.jpg").write_bytes(photo)
    out = tmp_path / "events.jsonl"
    crops = tmp_path / "crops"  # the low-confidence regions' crops, if any: never into the working directory
    assert (
        main(["import", "scan", str(tmp_path / "table3.jpg"), "--out", str(out), "--crops", str(crops)]) == 0
    ), spec
    events = [json.loads(line) for line in out.read_text("utf-8").splitlines()]
    started = events[0]
    assert started["type"] == "match_started" and started["match"] == "ja-table-3"
    assert started["players"] == ["田中", "佐藤"] and started["ruleset"] == "jp-3.4"
    assert started["context"]["event"] == "ジムバトル"
    # the game read back is the game filled in: the same record as the marks' own events
    sample = Sample(header, game, photo, dpi, "a4", spec, filled.scribbled, filled.pen)

    def record(evs: list[dict[str, object]]) -> dict[str, object]:
        g = Game()
        for ev in evs:
            g.apply(dict(ev))
        return g.record()

    assert record(strip_scan(events)) == record(strip_scan(truth_events(sample))), spec
