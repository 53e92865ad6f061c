"""``prizecheck import scan FILE...``: a batch of photos and scans: what is written, what is said."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from replay.cli import main
from replay.engine.game import Game
from tests.scan.helpers import Header, jpeg, marked, pdf_of, phone, png

MARKS = {
    "r1.who": {"B"},
    "r2.who": {"A"},
    "r2.ko.B": {"active"},
    "r2.prizes.A": {"1"},
    "r3.who": {"B"},
    "r3.ko.A": {"active"},
    "r3.prizes.B": {"2"},
    "end.reason": {"concession"},
    "end.winner": {"B"},
}


@pytest.fixture(scope="module")
def batch(tmp_path_factory: pytest.TempPathFactory) -> Path:
    d = tmp_path_factory.mktemp("batch")
    sheet = marked(MARKS)
    (d / "table4.jpg").write_bytes(phone(sheet, seed=5))
    (d / "cat.png").write_bytes(png(np.random.default_rng(3).integers(0, 255, (900, 700, 3), np.uint8)))
    other = marked(
        {"r1.who": {"A"}, "r1.prizes.A": {"2", "3"}},
        header=Header(match="scan-test-9", players=("Kai", "Yuki")),
    )
    blank = np.full((2339, 1654, 3), 246, np.uint8)
    (d / "scans.pdf").write_bytes(pdf_of(other, blank))
    (d / "notes.txt").write_text("not a photo\n")
    return d


def events_of(out: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in out.read_text("utf-8").splitlines()]


def test_a_batch_keeps_every_sheet_read_and_names_each_file_that_is_not_one(
    batch: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out, crops = tmp_path / "ev.jsonl", tmp_path / "crops"
    files = [str(batch / n) for n in ("table4.jpg", "cat.png", "scans.pdf", "notes.txt")]
    code = main(["import", "scan", *files, "--out", str(out), "--crops", str(crops)])
    err = capsys.readouterr().err
    assert code == 2
    assert f"{batch / 'cat.png'}: no game sheet here: 0 of its 4 corner markers found" in err
    assert f"{batch / 'scans.pdf'} page 2: no game sheet here" in err
    assert f"{batch / 'notes.txt'}: not a JPEG, PNG or PDF file" in err
    assert "3 file(s) or page(s) not read as game sheets; 2 sheet(s) written" in err
    assert "Traceback" not in err
    evs = events_of(out)
    matches = sorted({str(e["match"]) for e in evs})
    assert matches == ["scan-test-1", "scan-test-9"]
    games: dict[str, Game] = {}
    for ev in evs:
        games.setdefault(str(ev["match"]), Game()).apply(ev)
    rec = games["scan-test-1"].record()
    assert rec["result"]["winner"] == "Teodor" and rec["result"]["reason"] == "concession" and rec["agrees"]
    # the unclear prizes of scan-test-9's row 1: a finding on stderr naming the row and the crop, and a
    # crop on disk by that name
    line = next(x for x in err.splitlines() if "low_confidence" in x)
    assert f"{batch / 'scans.pdf'} page 1: row 1: warning: low_confidence: sheet row 1: prizes A took" in line
    ref = line.rsplit("check the crop ", 1)[1]
    assert (crops / f"{ref}.jpg").is_file()
    for ev in evs:
        if "scan" in ev:
            assert (crops / f"{ev['scan']}.jpg").is_file()


def test_strict_refuses_a_batch_with_a_low_confidence_row(
    batch: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "ev.jsonl"
    code = main(
        ["import", "scan", str(batch / "scans.pdf"), "--strict", "--out", str(out), "--crops", str(tmp_path)]
    )
    assert code == 1 and not out.exists()
    assert "--strict: low-confidence rows; no events written" in capsys.readouterr().err


def test_a_clean_batch_exits_0_and_writes_msgpack_too(batch: Path, tmp_path: Path) -> None:
    out = tmp_path / "ev.msgpack"
    args = ["import", "scan", str(batch / "table4.jpg"), "--format", "msgpack", "--out", str(out), "-q"]
    assert main([*args, "--crops", str(tmp_path / "c")]) == 0
    import msgpack

    evs = list(msgpack.Unpacker(open(out, "rb"), raw=False))  # noqa: SIM115
    assert evs[0]["type"] == "match_started" and evs[0]["source"]["kind"] == "scanned"


def test_the_same_sheet_twice_in_a_batch_is_read_once_and_said(
    batch: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    again = tmp_path / "again.jpg"
    again.write_bytes(jpeg(marked(MARKS)))
    out = tmp_path / "ev.jsonl"
    code = main(
        ["import", "scan", str(batch / "table4.jpg"), str(again), "--out", str(out), "--crops", str(tmp_path)]
    )
    assert code == 2
    assert "match scan-test-1 was already read from" in capsys.readouterr().err
    assert {e["match"] for e in events_of(out)} == {"scan-test-1"}


def test_players_and_options_are_checked(batch: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["import", "scan", str(batch / "table4.jpg"), "--players", "Kai"]) == 2
    assert main(["import", "scan", str(batch / "table4.jpg"), "--min-confidence", "2"]) == 2
    assert main(["import", "scan", str(batch / "missing.jpg")]) == 2
    err = capsys.readouterr().err
    assert "--players" in err and "--min-confidence" in err and "missing.jpg: no such file" in err


def test_players_given_per_sheet_name_each_page_of_a_batch(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    one, two = (marked({"r1.who": {"A"}}, header=Header(match=f"hand-{n}")) for n in (1, 2))
    (tmp_path / "stack.pdf").write_bytes(pdf_of(one, two))
    out = tmp_path / "ev.jsonl"
    base = ["import", "scan", str(tmp_path / "stack.pdf"), "--crops", str(tmp_path / "c"), "--out", str(out)]
    assert main([*base, "--players", "Kai,Yuki", "--players", "Mara,Teodor"]) == 0
    starts = [e for e in events_of(out) if e["type"] == "match_started"]
    assert [(e["match"], e["players"]) for e in starts] == [
        ("hand-1", ["Kai", "Yuki"]),
        ("hand-2", ["Mara", "Teodor"]),
    ]
    # three pairs for two sheets: no pairing is guessed, nothing is written
    out.unlink()
    assert main([*base, "--players", "A1,B1", "--players", "A2,B2", "--players", "A3,B3"]) == 2
    assert "--players was given 3 times for 2 sheet(s)" in capsys.readouterr().err
    assert not out.exists() or not out.read_text()


@pytest.mark.parametrize(
    ("lang", "says"),
    [
        ("ja_JP.UTF-8", ("ゲームシートが見つかりません", "四隅の四角を含めてシート全体を枠に入れ")),
        ("ko_KR.UTF-8", ("게임 시트가 없습니다", "네 모서리의 사각형이 모두 들어가도록")),
        ("C.UTF-8", ("no game sheet here", "all four corner squares, the phone held steady")),
    ],
)
def test_a_photo_that_cannot_be_read_says_how_to_retake_it_in_the_users_language(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    lang: str,
    says: tuple[str, str],
) -> None:
    for name in ("LC_ALL", "LC_MESSAGES", "LANG"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("LANG", lang)
    (tmp_path / "table.jpg").write_bytes(jpeg(np.full((1200, 900, 3), (70, 110, 150), np.uint8)))
    assert main(["import", "scan", str(tmp_path / "table.jpg"), "--crops", str(tmp_path / "c")]) == 2
    err = capsys.readouterr().err
    assert f"prizecheck import: {tmp_path / 'table.jpg'}: " in err
    assert all(s in err for s in says), err


def test_a_players_file_names_each_sheet_of_a_stack_and_keeps_printed_names_where_it_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    one, three = (marked({"r1.who": {"A"}}, header=Header(match=f"hand-{n}")) for n in (1, 3))
    printed = marked({"r1.who": {"B"}}, header=Header(match="hand-2", players=("Ana", "Ines")))
    (tmp_path / "stack.pdf").write_bytes(pdf_of(one, printed, three))
    names = tmp_path / "names.txt"
    names.write_text("# table 4, in page order\nKai,Yuki\n-\n\nMara, Teodor\n", "utf-8")
    out = tmp_path / "ev.jsonl"
    base = ["import", "scan", str(tmp_path / "stack.pdf"), "--crops", str(tmp_path / "c"), "--out", str(out)]
    assert main([*base, "--players-file", str(names)]) == 0
    starts = [e for e in events_of(out) if e["type"] == "match_started"]
    assert [(e["match"], e["players"]) for e in starts] == [
        ("hand-1", ["Kai", "Yuki"]),
        ("hand-2", ["Ana", "Ines"]),
        ("hand-3", ["Mara", "Teodor"]),
    ]
    capsys.readouterr()
    # a line that is not two names: the file and the line, before any photo is read
    names.write_text("Kai,Yuki\nKai\n-\n", "utf-8")
    out.unlink()
    assert main([*base, "--players-file", str(names)]) == 2
    assert f"{names}:2: two different names" in capsys.readouterr().err and not out.exists()
    # two lines for three sheets: no pairing is guessed, nothing is written
    names.write_text("Kai,Yuki\n-\n", "utf-8")
    assert main([*base, "--players-file", str(names)]) == 2
    assert f"{names}: 2 line(s) of names for 3 sheet(s)" in capsys.readouterr().err
    assert not out.exists() or not out.read_text()
