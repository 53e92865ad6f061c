"""``import scan --match`` (issue 39): a judge names by hand a sheet that cannot name itself (neither QR code
nor the printed match id reads, its corner markers found): read with that id, flagged; a sheet whose own id
is read and is another is left out naming both ids; one id a sheet in the batch's order, as ``--players``,
the count checked."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import cv2
import pytest

from replay.cli import main
from replay.sources.scan import printed
from replay.sources.scan.layout import Header
from tests.sampling import LONG
from tests.scan.helpers import HEADER, marked, phone
from tests.scan.test_scan_printed import both_lost
from tests.scan.test_scan_spare import MARKS, _import, _px

needs_ocr = pytest.mark.skipif(not printed.available(), reason="tesseract-ocr is not installed (make ocr)")
long_only = pytest.mark.skipif(not LONG, reason="make test-long: a second read of a sheet named from print")


def thumbed(sheet: Any, *, ruleset: bool = False) -> Any:
    """Both codes lost to glare, a thumb over the printed id's last characters (and over the ruleset
    line, when ``ruleset``)."""
    out = both_lost(sheet)
    cv2.rectangle(out, _px(30, 10.8), _px(40, 16), (90, 80, 70), -1)
    if ruleset:
        cv2.rectangle(out, _px(8, 20.8), _px(40, 24.6), (90, 80, 70), -1)
    return out


def _notes(events: list[dict[str, Any]]) -> list[str]:
    return [e["text"] for e in events if e["type"] == "note"]


def _given_flag(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [
        e
        for e in events
        if (e.get("finding") or {}).get("code") == "low_confidence"
        and "was given with --match, not read from the sheet" in e["text"]
    ]


@needs_ocr
def test_a_sheet_that_cannot_name_itself_is_read_with_the_match_given_and_flagged(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, events, _ = _import(tmp_path, "thumb.jpg", thumbed(marked(MARKS)), "--match", "hall-12.3")
    err = capsys.readouterr().err
    assert code == 0, err
    start = events[0]
    assert start["match"] == "hall-12.3" and start["ruleset"] == HEADER.ruleset  # the ruleset from print
    assert [e["player"] for e in events if e["type"] == "turn_started"][:1] == [start["players"][0]]
    notes = _notes(events)
    assert any(
        t.startswith(
            "neither of the sheet's QR codes could be read, nor its printed match id: the match id hall-12.3 "
            "was given with --match, not read from the sheet, the ruleset is play-2026"
        )
        for t in notes
    ), notes
    # the rest of the header is still read from print: the players' names, flagged with the id; the
    # sheet's number (1 of 2) is not the given id's .3, so it is not taken
    assert start["players"] == ["Mara", "Teodor"]
    assert any("the players' names Mara and Teodor were read from the text printed" in t for t in notes)
    assert "number" not in start["source"]["scan"]
    [flag] = _given_flag(events)
    assert "the players' names Mara and Teodor were read from the printed text" in flag["text"]
    assert flag["finding"]["sheet_region"] == "head"
    assert (tmp_path / "c" / flag["finding"]["scan"]).with_suffix(".jpg").exists()
    assert "low_confidence" in err


def test_without_tesseract_a_sheet_named_by_hand_is_read_and_its_ruleset_told_from_print(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # the ruleset line is compared with the printer's drawings (no Tesseract needed): the id given names it
    monkeypatch.setattr(printed, "available", lambda: False)
    sheet = thumbed(marked(MARKS, header=Header(match="x-1", ruleset="jp-3.4")))
    code, events, _ = _import(tmp_path, "t.jpg", sheet, "--match", "judge/named-1")
    err = capsys.readouterr().err
    assert code == 0, err
    assert events[0]["match"] == "judge/named-1" and events[0]["ruleset"] == "jp-3.4"
    assert events[0]["players"] == ["A", "B"] and _given_flag(events)
    # without --match: refused, the sentence says --match is the other way
    code, events, _ = _import(tmp_path, "t.jpg", sheet)
    err = capsys.readouterr().err
    assert code == 2 and events == []
    assert f"{tmp_path / 't.jpg'}: no readable QR code where a game sheet has its two" in err
    assert "retake the photo" in err and "or give its match id by hand: --match ID" in err


def test_a_sheet_named_by_hand_whose_ruleset_is_not_read_either_needs_ruleset(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(printed, "available", lambda: False)
    sheet = thumbed(marked(MARKS), ruleset=True)
    code, events, _ = _import(tmp_path, "t.jpg", sheet, "--match", "m-7")
    err = capsys.readouterr().err
    assert code == 2 and events == []
    assert (
        f"{tmp_path / 't.jpg'}: match m-7 (given with --match): the ruleset printed on the sheet cannot be "
        "read either: give it with --ruleset" in err
    )
    code, events, _ = _import(tmp_path, "t.jpg", sheet, "--match", "m-7", "--ruleset", "kr-1.0")
    assert code == 0, capsys.readouterr().err
    assert events[0]["match"] == "m-7" and events[0]["ruleset"] == "kr-1.0"
    assert any("the ruleset is kr-1.0" in t for t in _notes(events))


def test_a_sheet_whose_qr_code_names_another_match_is_left_out_naming_both_ids(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, events, _ = _import(tmp_path, "s.jpg", marked(MARKS), "--match", "other-9")
    err = capsys.readouterr().err
    assert code == 2 and events == []
    assert (
        f"prizecheck import: {tmp_path / 's.jpg'}: the sheet's QR code says match scan-test-1, not other-9 "
        "as --match gives it: left out" in err
    )
    # the same id: read as always, nothing said about --match
    code, events, _ = _import(tmp_path, "s.jpg", marked(MARKS), "--match", "scan-test-1")
    assert code == 0, capsys.readouterr().err
    assert events[0]["match"] == "scan-test-1" and not _given_flag(events)
    assert not [t for t in _notes(events) if "--match" in t]


def test_match_is_given_once_per_sheet_in_the_batch_order_and_its_count_checked(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for name, match in (("a.jpg", "batch-1"), ("b.jpg", "batch-2")):
        (tmp_path / name).write_bytes(phone(marked(MARKS, header=Header(match=match)), seed=11))
    files = [str(tmp_path / "a.jpg"), str(tmp_path / "b.jpg")]
    out = tmp_path / "out.jsonl"
    base = ["import", "scan", *files, "--out", str(out), "--crops", str(tmp_path / "c")]
    # once for two sheets: which sheet it names would be a guess; nothing written
    assert main([*base, "--match", "batch-1"]) == 2
    err = capsys.readouterr().err
    assert "--match was given 1 times for 2 sheet(s) in the batch" in err and "no events written" in err
    assert not out.exists()
    # once a sheet, - for a sheet's own id: each checked against its own sheet's
    assert main([*base, "--match", "-", "--match", "batch-2"]) == 0, capsys.readouterr().err
    starts = [json.loads(line) for line in out.read_text("utf-8").splitlines()]
    assert [e["match"] for e in starts if e["type"] == "match_started"] == ["batch-1", "batch-2"]
    # not a match id: refused before anything is read
    assert main([*base, "--match", "no spaces", "--match", "-"]) == 2
    assert "argument --match: a match id of 1-128 characters" in capsys.readouterr().err


@needs_ocr
def test_a_sheet_whose_printed_id_reads_another_match_is_left_out(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, events, _ = _import(tmp_path, "g.jpg", both_lost(marked(MARKS)), "--match", "other-9")
    err = capsys.readouterr().err
    assert code == 2 and events == []
    assert (
        f"{tmp_path / 'g.jpg'}: the match id printed on the sheet reads scan-test-1, not other-9 as --match "
        "gives it: left out" in err
    )


@needs_ocr
@long_only
def test_a_sheet_whose_printed_id_reads_the_match_given_is_named_from_print(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, events, _ = _import(tmp_path, "g.jpg", both_lost(marked(MARKS)), "--match", "scan-test-1")
    assert code == 0, capsys.readouterr().err
    assert events[0]["match"] == "scan-test-1" and not _given_flag(events)
    assert any("was read from the printed text, not the QR code" in t for t in _notes(events))
