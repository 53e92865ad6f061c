"""A sheet whose two QR codes cannot be read (issue 39: the QR code is not a single point of failure) is
named from its printed header: the match id read by Tesseract and checked against the printer's own
drawing of it, the ruleset told apart from the few known ones; always with a ``low_confidence`` finding
and the header's crop, so a judge checks it. An id not read for certain is a refusal saying how to
retake the photo, never a guess."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from replay.cli import main
from replay.sources.scan import printed
from replay.sources.scan.layout import QR_BOX, SPARE_QR_BOX, frame_origin
from tests.sampling import LONG
from tests.scan.helpers import HEADER, Header, marked
from tests.scan.test_scan_spare import MARKS, _import, _px, glare

pytestmark = pytest.mark.skipif(not printed.available(), reason="tesseract-ocr is not installed (make ocr)")
# A photo named from its printed header is read for 10-40 s on the shared 2-core machine (Tesseract and the
# printer's drawings): make test reads an English and a Japanese sheet and the refusals; make test-long
# (PRIZECHECK_LONG=1) also reads these, the 15-minute bar's price.
long_only = pytest.mark.skipif(not LONG, reason="make test-long: a second read of a sheet named from print")


def both_lost(sheet: Any) -> Any:
    """Glare burnt out over both codes: the main one and the spare one."""
    return glare(glare(sheet), SPARE_QR_BOX)


def _notes(events: list[dict[str, Any]]) -> list[str]:
    return [e["text"] for e in events if e["type"] == "note"]


def test_both_codes_lost_is_named_from_the_printed_id_and_flagged(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, events, _ = _import(tmp_path, "glare.jpg", both_lost(marked(MARKS)))
    err = capsys.readouterr().err
    assert code == 0, err
    start = events[0]
    assert start["match"] == HEADER.match and start["ruleset"] == HEADER.ruleset
    # the printed names are read the same way (Tesseract proposes, the printer's drawing decides), flagged
    assert start["players"] == ["Mara", "Teodor"]
    assert [e["player"] for e in events if e["type"] == "turn_started"] == ["Mara", "Teodor", "Mara"]
    notes = _notes(events)
    assert (
        "neither of the sheet's QR codes could be read: the match id scan-test-1, the ruleset play-2026 and "
        "the players' names Mara and Teodor were read from the text printed at its top" in notes
    ), notes
    low = [e for e in events if (e.get("finding") or {}).get("code") == "low_confidence"]
    said = [e for e in low if "was read from the printed text, not the QR code" in e["text"]]
    assert said and said[0]["finding"]["sheet_region"] == "head", notes
    assert "the players' names Mara and Teodor were read from the printed text" in said[0]["text"]
    # and its number in the batch ("sheet 1 of 2", the id's .1 would say the same on a batch's sheet)
    assert start["source"]["scan"]["number"] == 1
    assert "the sheet's number, 1 of 2, was read from the printed text" in said[0]["text"]
    assert (tmp_path / "c" / said[0]["finding"]["scan"]).with_suffix(".jpg").exists()
    assert "low_confidence" in err and "check it against the crop" in err


@long_only
def test_players_given_name_a_sheet_named_from_its_printed_id(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, events, _ = _import(tmp_path, "g.jpg", both_lost(marked(MARKS)), "--players", "Mara,Teodor")
    assert code == 0, capsys.readouterr().err
    assert events[0]["players"] == ["Mara", "Teodor"]
    assert any("the players' names are those given with --players" in t for t in _notes(events))
    # --strict refuses it: a sheet named from printed text is always a low-confidence row
    out = tmp_path / "strict.jsonl"
    assert main(["import", "scan", str(tmp_path / "g.jpg"), "--strict", "--out", str(out)]) == 1


@pytest.mark.parametrize("lang", [pytest.param("en", marks=long_only), "ja"])
def test_an_id_of_hyphens_slashes_and_digits_reads_exactly_on_a_sheet_in_any_language(
    lang: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    header = Header(match="AB-12/x9.3", players=("Kai", "Yuki"), ruleset="jp-3.4", sheet=3, count=12)
    code, events, _ = _import(tmp_path, "t.jpg", both_lost(marked(MARKS, header=header, lang=lang)))
    assert code == 0, capsys.readouterr().err
    assert events[0]["match"] == "AB-12/x9.3" and events[0]["ruleset"] == "jp-3.4"
    assert events[0]["players"] == ["Kai", "Yuki"]  # Latin names, in the sheet's own font
    assert events[0]["source"]["scan"]["number"] == 3  # "シート 3/12" on a Japanese sheet


@pytest.mark.skipif(
    not {"jpn", "kor"} <= printed.models(), reason="tesseract-ocr-jpn and -kor are not installed (make ocr)"
)
@pytest.mark.parametrize(
    ("lang", "players", "context"),
    [
        ("ja", ("山田花子", "ユキ"), {"event": "木曜リーグ", "round": 2, "table": 4}),
        pytest.param(
            "ko", ("김민준", "이서연"), {"event": "목요일 리그", "round": 3, "table": 12}, marks=long_only
        ),
    ],
)
def test_names_and_context_printed_in_japanese_or_korean_are_read_from_print(
    lang: str,
    players: tuple[str, str],
    context: dict[str, Any],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    # the context's labels are printed in the sheet's language (イベント, ラウンド, 卓; 이벤트, 라운드,
    # 테이블) and its values may be too: read with the language's model, checked against the printer's drawing
    header = Header(match="kr-cup.2", players=players, ruleset="kr-1.0", context=context)
    code, events, _ = _import(tmp_path, "t.jpg", both_lost(marked(MARKS, header=header, lang=lang)))
    assert code == 0, capsys.readouterr().err
    assert events[0]["match"] == "kr-cup.2" and events[0]["players"] == list(players)
    assert events[0]["context"] == context
    assert any(f"players' names {players[0]} and {players[1]}" in t for t in _notes(events)), _notes(events)
    said = ", ".join(f"{k} {v}" for k, v in context.items())
    assert any(f"the context ({said}) was read from the printed text" in t for t in _notes(events))


def test_a_scan_whose_codes_are_lost_has_its_printed_context_read_too(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # a flatbed scan (sharp: the 8 pt context line is legible), both codes covered: the event, round
    # and table are read as the id is (issue 39 item 3), flagged with it
    sheet = marked(MARKS)
    for x, y, side in (QR_BOX, SPARE_QR_BOX):  # a sticker over each code: a scan reads through glare
        cv2.rectangle(sheet, _px(x, y), _px(x + side, y + side), (255, 255, 255), -1)
    ok, jpeg = cv2.imencode(".jpg", sheet, [cv2.IMWRITE_JPEG_QUALITY, 90])
    assert ok
    (tmp_path / "scan.jpg").write_bytes(jpeg.tobytes())
    out = tmp_path / "scan.jsonl"
    code = main(["import", "scan", str(tmp_path / "scan.jpg"), "--out", str(out), "--crops", str(tmp_path)])
    assert code == 0, capsys.readouterr().err
    events = [json.loads(line) for line in out.read_text("utf-8").splitlines()]
    start = events[0]
    assert start["match"] == HEADER.match and start["players"] == ["Mara", "Teodor"]
    assert {k: start["context"][k] for k in ("event", "round", "table")} == HEADER.context
    flag = [e["text"] for e in events if (e.get("finding") or {}).get("code") == "low_confidence"]
    assert any(
        "the context (event Thursday League, round 2, table 4) was read from the printed text" in t
        for t in flag
    ), flag


@long_only
def test_a_sheet_printed_without_names_named_from_print_is_a_and_b(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # the names are written in by hand on such a sheet: never read, the players are the sides' letters
    header = Header(match="hand-7", ruleset="play-2026")
    code, events, _ = _import(tmp_path, "t.jpg", both_lost(marked(MARKS, header=header)))
    assert code == 0, capsys.readouterr().err
    assert events[0]["match"] == "hand-7" and events[0]["players"] == ["A", "B"]
    assert "number" not in events[0]["source"]["scan"]  # none printed: none read
    assert any("the players are named A and B (--players names them)" in t for t in _notes(events))


def test_a_misread_of_tesseract_is_caught_by_the_printed_check(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Tesseract reading the last digit wrong: the printer's drawing of scan-test-1 (one confused
    # character away) fits the photo better, and it was not Tesseract's reading: not read, refused
    monkeypatch.setattr(printed, "_ocr", lambda grey, zoom=2.0: ["scan-test-7"])
    code, events, _ = _import(tmp_path, "t.jpg", both_lost(marked(MARKS)))
    err = capsys.readouterr().err
    assert code == 2 and events == []
    assert "nor the match id printed at its top left, for certain" in err and "retake the photo" in err


def test_between_twin_glyphs_the_printed_check_decides(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Tesseract's 1 or l is a coin toss in a bold sans (this machine's DejaVu read scan-test-1 as
    # scan-test-l): the drawing tells the twins apart, so the id is the one printed, still flagged
    monkeypatch.setattr(printed, "_ocr", lambda grey, zoom=2.0: ["scan-test-l"])
    code, events, _ = _import(tmp_path, "t.jpg", both_lost(marked(MARKS)))
    assert code == 0, capsys.readouterr().err
    assert events[0]["match"] == HEADER.match
    assert any(
        "was read from the printed text, not the QR code" in e["text"]
        for e in events
        if (e.get("finding") or {}).get("code") == "low_confidence"
    )


def test_glare_beside_the_id_is_made_even_before_tesseract_reads_it() -> None:
    # a glare's grey beside the id made Tesseract drop most of it (scan-test-1 read as st-l1): the line
    # is divided by its paper first, so the ink stays and the glare goes
    line = printed._templates("match", [HEADER.match], "en", printed.MATCH_BAND)[0]
    grey = (255.0 * (1.0 - line)).astype(np.float32)
    grey[:, grey.shape[1] // 3 :] *= np.linspace(1.0, 0.35, grey.shape[1] - grey.shape[1] // 3)
    flat = printed.flat(grey.astype(np.uint8))
    paper = flat[line < 0.05]
    assert float(paper.min()) > 200 and float(np.percentile(flat[line > 0.5], 90)) < 120


def test_an_id_partly_covered_is_refused_not_guessed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sheet = both_lost(marked(MARKS))
    # a thumb over the id's last characters
    cv2.rectangle(sheet, _px(30, 10.8), _px(40, 16), (90, 80, 70), -1)
    code, events, _ = _import(tmp_path, "thumb.jpg", sheet)
    err = capsys.readouterr().err
    assert code == 2 and events == [], err
    assert (
        f"{tmp_path / 'thumb.jpg'}: neither of the game sheet's QR codes can be read, nor the match id" in err
    )


def test_without_tesseract_both_codes_lost_is_refused_as_before(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(printed, "available", lambda: False)
    code, events, _ = _import(tmp_path, "glare.jpg", both_lost(marked(MARKS)))
    err = capsys.readouterr().err
    assert code == 2 and events == []
    assert "no readable QR code where a game sheet has its two" in err and "retake the photo" in err


def test_the_printed_check_tells_the_true_id_from_its_confusions() -> None:
    # the printer's own line, blurred as a shaken photo is: the true id is surely the best
    line = printed._templates("match", ["hall-7.3"], "en", printed.MATCH_BAND)[0]
    blur = printed.Camera(None, 3.0)
    reach = round(printed.REACH * printed.SCALE)
    photo = cv2.copyMakeBorder(blur.apply(line), reach, reach, reach, reach, cv2.BORDER_CONSTANT, value=0.0)
    photo = photo + np.random.default_rng(1).normal(0, 0.03, photo.shape).astype(np.float32)
    texts = ["hall-7.3", "hail-7.3", "ha1l-7.3", "hall-7.8", "hal-7.3"]
    rank, sure = printed._ranked(
        photo, texts, printed._templates("match", texts, "en", printed.MATCH_BAND), blur
    )
    assert rank[0][1] == "hall-7.3" and sure >= printed.SURE
    # and a photo of another id is not taken for it
    rank, sure = printed._ranked(
        photo, texts[1:], printed._templates("match", texts[1:], "en", printed.MATCH_BAND), blur
    )
    assert rank[0][1] != "hall-7.3"


def test_the_check_draws_the_line_where_the_printed_sheet_has_it() -> None:
    # the check's drawing is the printer's own: the sheet rasterized at the check's scale shows the same
    # ink in the same place (a drawing of its own, a pixel off, would be a worse rival than the truth)
    from tests.scan.helpers import raster

    dpi = round(printed.SCALE * 25.4)
    sheet = raster(HEADER, dpi=dpi).astype(np.float32)
    band = printed.MATCH_BAND
    ox, oy = frame_origin("a4")
    y, x = round((oy + band.y) * printed.SCALE), round((ox + band.x) * printed.SCALE)
    crop = 1.0 - sheet[y : y + round(band.h * printed.SCALE), x : x + round(band.w * printed.SCALE)] / 255.0
    line = printed._templates("match", [HEADER.match], "en", band)[0]
    assert crop.shape == line.shape
    assert float(np.corrcoef(crop.ravel(), line.ravel())[0, 1]) > 0.95
