"""The spare QR code (issue 39): a sheet whose main QR code is lost to glare, a crease or the photo's edge
is still read, through ``prizecheck import scan``, from its second code, and says so; a photo where both
codes are lost is refused naming the photo, never read as a guess."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from replay.cli import main
from replay.sources.scan.layout import QR_BOX, SPARE_QR_BOX, frame_origin
from tests.scan.helpers import HEADER, Header, marked, phone

DPI = 200
MARKS = {
    "r1.who": {"A"},
    "r2.who": {"B"},
    "r2.ko.A": {"active"},
    "r2.prizes.B": {"1"},
    "r3.who": {"A"},
    "r3.ko.B": {"active"},
    "r3.prizes.A": {"2"},
    "end.reason": {"concession"},
    "end.winner": {"A"},
}


def _px(x_mm: float, y_mm: float) -> tuple[int, int]:
    """Frame millimetres -> the A4 raster's pixels at :data:`DPI`."""
    ox, oy = frame_origin("a4")
    k = DPI / 25.4
    return round((ox + x_mm) * k), round((oy + y_mm) * k)


def _centre(place: tuple[float, float, float]) -> tuple[tuple[int, int], int]:
    x, y, side = place
    return _px(x + side / 2, y + side / 2), round(side / 2 * DPI / 25.4)


def glare(sheet: Any, place: tuple[float, float, float] = QR_BOX) -> Any:
    """A lamp's reflection burnt out over the code at ``place``: white, soft-edged."""
    (cx, cy), r = _centre(place)
    mask = np.zeros(sheet.shape[:2], np.float32)
    cv2.ellipse(mask, (cx + r // 5, cy), (round(r * 0.85), round(r * 0.7)), 20, 0, 360, 1.0, -1)
    mask = cv2.GaussianBlur(mask, (0, 0), r / 6)[..., None]
    return (sheet * (1 - mask) + 255 * mask).astype(np.uint8)


def crease(sheet: Any) -> Any:
    """A fold across the main code: a dark, wide line from its top left to its bottom right."""
    x, y, side = QR_BOX
    out = sheet.copy()
    cv2.line(out, _px(x - 2, y + 3), _px(x + side + 2, y + side - 3), (60, 60, 60), round(3.5 * DPI / 25.4))
    return out


def cut_off(sheet: Any) -> Any:
    """The photo's edge across the sheet's top right corner: its marker and most of the main code are
    table, not paper."""
    out = sheet.copy()
    x, y, side = QR_BOX
    corner = [_px(x - 2, -15), _px(205, -15), _px(205, y + side + 4)]
    cv2.fillPoly(out, [np.array(corner, np.int32)], (150, 110, 70))
    return out


def _import(tmp_path: Path, name: str, sheet: Any, *extra: str) -> tuple[int, list[dict[str, Any]], str]:
    (tmp_path / name).write_bytes(phone(sheet, seed=11))
    out = tmp_path / f"{name}.jsonl"
    code = main(
        ["import", "scan", str(tmp_path / name), "--out", str(out), "--crops", str(tmp_path / "c"), *extra]
    )
    events = [json.loads(line) for line in out.read_text("utf-8").splitlines()] if out.exists() else []
    return code, events, ""


@pytest.mark.parametrize("damage", [glare, crease, cut_off], ids=["glare", "crease", "cut-off"])
def test_a_lost_main_code_is_read_from_the_spare_one_and_the_lost_context_is_flagged(
    damage: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, events, _ = _import(tmp_path, "table.jpg", damage(marked(MARKS)))
    err = capsys.readouterr().err
    assert code == 0, err
    start = events[0]
    assert start["match"] == HEADER.match and start["players"] == list(HEADER.players or ())
    assert start["source"]["scan"]["number"] == HEADER.sheet
    # the context (event, round, table) is only in the main code: not invented, and said to be missing
    assert "context" not in start or not start["context"].get("event")
    notes = [e["text"] for e in events if e["type"] == "note"]
    assert any(t.startswith("the sheet's main QR code could not be read") for t in notes), notes
    flagged = [t for t in notes if "the event, round and table are in the unread main QR code only" in t]
    assert flagged and "check the crop" in flagged[0], notes
    # the marks are read as always
    assert [e["player"] for e in events if e["type"] == "turn_started"] == ["Mara", "Teodor", "Mara"]


def test_a_sheet_without_a_context_read_from_its_spare_code_is_only_noted(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bare = Header(match="spare-2", players=("Kai", "Yuki"), ruleset="jp-3.4")
    code, events, _ = _import(tmp_path, "t.jpg", glare(marked(MARKS, header=bare)))
    assert code == 0, capsys.readouterr().err
    assert events[0]["match"] == "spare-2" and events[0]["players"] == ["Kai", "Yuki"]
    assert events[0]["ruleset"] == "jp-3.4"  # not the default a payload without one would mean
    notes = [e for e in events if e["type"] == "note" and e["author"] == "sheet"]
    assert [n["text"][:44] for n in notes] == ["the sheet's main QR code could not be read: "]
    assert not [e for e in events if (e.get("finding") or {}).get("code") == "low_confidence"]


def test_both_codes_lost_is_refused_naming_the_photo_when_the_printed_id_cannot_be_read_either(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # (a sheet whose printed id reads is named from it: tests/scan/test_scan_printed.py)
    from replay.sources.scan import printed

    monkeypatch.setattr(printed, "_ocr", lambda grey, zoom=2.0: [])
    code, events, _ = _import(tmp_path, "glare.jpg", glare(glare(marked(MARKS)), SPARE_QR_BOX))
    err = capsys.readouterr().err
    assert code == 2 and events == []
    assert (
        f"prizecheck import: {tmp_path / 'glare.jpg'}: neither of the game sheet's QR codes can be read, nor "
        "the match id printed at its top left, for certain" in err
    )
    assert "retake the photo" in err and "Traceback" not in err


@pytest.mark.parametrize(
    ("retouch", "says"),
    [
        (
            lambda img: cv2.resize(img, None, fx=0.2, fy=0.2, interpolation=cv2.INTER_AREA),
            "the sheet is too small in the photo",
        ),
        # shaken every way at once (9 x 9 px): a straight shake of 9 px is undone and read now, until
        # the markers themselves go (test_scan_hall); no straight blur undoes this one
        (lambda img: cv2.filter2D(img, -1, np.full((9, 9), 1 / 81, np.float32)), "the photo is shaken"),
    ],
    ids=["far", "shaken"],
)
def test_a_photo_too_far_or_too_shaken_is_refused_saying_which(
    retouch: Any, says: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    photo = cv2.imdecode(np.frombuffer(phone(marked(MARKS), seed=11), np.uint8), cv2.IMREAD_COLOR)
    ok, buf = cv2.imencode(".jpg", retouch(photo), [cv2.IMWRITE_JPEG_QUALITY, 90])
    assert ok
    (tmp_path / "t.jpg").write_bytes(buf.tobytes())
    code = main(["import", "scan", str(tmp_path / "t.jpg"), "--crops", str(tmp_path / "c")])
    err = capsys.readouterr().err
    assert code == 2
    # nor is the printed match id read (too small, too smeared): the sentence says both, and how to retake
    assert (
        f"prizecheck import: {tmp_path / 't.jpg'}: neither of the game sheet's QR codes can be read, nor the "
        f"match id printed at its top left, for certain: {says}" in err
    )
    assert "retake the photo" in err and "Traceback" not in err
