"""``prizecheck import ptcgl|sheet``: output formats, findings on stderr, --strict, exit 2 on bad input."""

from __future__ import annotations

import json
from pathlib import Path

import msgpack
import pytest

from replay.cli import main
from tests.paths import DATA, ROOT

LOG = str(DATA / "ptcgl" / "prizes_numbered.txt")


def read_jsonl(path: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in path.read_text("utf-8").splitlines()]


def test_jsonl_to_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "ev.jsonl"
    assert main(["import", "ptcgl", LOG, "--out", str(out), "--ruleset", "jp-3.4"]) == 0
    events = read_jsonl(out)
    assert events[0]["match"] == "prizes_numbered" and events[0]["ruleset"] == "jp-3.4"
    err = capsys.readouterr().err
    assert "prizes_numbered.txt: match prizes_numbered:" in err and "0 unmatched" in err


def test_jsonl_lines_are_the_json_module_s_bytes(tmp_path: Path) -> None:
    """The JSON Lines a user's tools read: one compact object a line, keys in the event's order, UTF-8 as is
    (card names in every language), control characters escaped, byte for byte what ``json.dumps`` wrote
    before the writer moved to msgspec (issue 40 item 2)."""
    from replay.cli.common import write_events

    out = tmp_path / "ev.jsonl"
    assert main(["import", "ptcgl", str(DATA / "ptcgl" / "lang_de.txt"), "-o", str(out), "-q"]) == 0
    events = read_jsonl(out)
    events.append(
        {
            "type": "note",
            "text": 'Glurak-ex \u2019 "x"\\ \t\n\x00\x1f \u2028 リザードン',
            "n": [-1, True, None],
        }
    )
    with (tmp_path / "again.jsonl").open("wb") as fh:
        write_events(events, fh, "jsonl")
    expected = b"".join(
        json.dumps(ev, ensure_ascii=False, separators=(",", ":")).encode("utf-8") + b"\n" for ev in events
    )
    assert (tmp_path / "again.jsonl").read_bytes() == expected
    assert out.read_bytes() == expected[: len(out.read_bytes())]


def test_msgpack_to_stdout(capsysbinary: pytest.CaptureFixture[bytes]) -> None:
    assert main(["import", "ptcgl", LOG, "--format", "msgpack", "--match", "g:1", "-q"]) == 0
    data = capsysbinary.readouterr().out
    unpacker = msgpack.Unpacker(raw=False)
    unpacker.feed(data)
    events = list(unpacker)
    assert events[0]["match"] == "g:1" and events[-1]["type"] == "game_ended"


def test_import_then_replay_command(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "g.jsonl"
    assert main(["import", "ptcgl", str(DATA / "ptcgl" / "spread_checkup.txt"), "-o", str(out)]) == 0
    capsys.readouterr()
    assert main(["replay", str(out), "--json"]) == 0
    rec = json.loads(capsys.readouterr().out.splitlines()[0])
    assert rec["result"]["winner"] == "Rin" and rec["agrees"] is True


def test_cards_option_sets_hp(tmp_path: Path) -> None:
    out = tmp_path / "g.jsonl"
    cards = str(DATA / "ptcgl" / "cards.csv")
    assert main(["import", "ptcgl", LOG, "--cards", cards, "-o", str(out), "-q"]) == 0
    assert read_jsonl(out)[0]["source"]["hp_known"] is True


def test_several_logs_get_distinct_matches(tmp_path: Path) -> None:
    out = tmp_path / "g.jsonl"
    logs = [LOG, str(DATA / "ptcgl" / "deck_out.txt")]
    assert main(["import", "ptcgl", *logs, "--match", "day1", "-o", str(out), "-q"]) == 0
    assert {e["match"] for e in read_jsonl(out)} == {"day1.1", "day1.2"}


def test_findings_go_to_stderr_with_file_and_line(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert (
        main(["import", "ptcgl", str(DATA / "ptcgl" / "concede_midturn.txt"), "-o", str(tmp_path / "o")]) == 0
    )
    err = capsys.readouterr().err
    assert "concede_midturn.txt:30: info: unmatched_line" in err
    assert "2 unmatched line(s) (30, 31)" in err


def test_strict_fails_on_unmatched_lines(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    out = tmp_path / "o.jsonl"
    code = main(["import", "ptcgl", str(DATA / "ptcgl" / "concede_midturn.txt"), "--strict", "-o", str(out)])
    assert code == 1 and not out.exists()
    assert "--strict" in capsys.readouterr().err
    assert main(["import", "ptcgl", LOG, "--strict", "-o", str(out), "-q"]) == 0


def test_sheet_subcommand(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "s.jsonl"
    assert main(["import", "sheet", str(DATA / "sheets" / "league_game.json"), "-o", str(out)]) == 0
    events = read_jsonl(out)
    assert events[0]["source"]["kind"] == "scanned"
    err = capsys.readouterr().err
    assert "league_game.json:20: warning: low_confidence" in err and "2 low-confidence row(s)" in err
    assert (
        main(["import", "sheet", str(DATA / "sheets" / "league_game.csv"), "--strict", "-o", str(out)]) == 1
    )
    assert main(["import", "sheet", str(DATA / "sheets" / "league_game.csv"), "--min-confidence", "0.5",
                 "--strict", "-o", str(out)]) == 0  # fmt: skip


@pytest.mark.parametrize(
    ("content", "line", "words"),
    [
        (b"", None, "is empty: nothing to import"),  # as an empty event file: no line to name
        (b"Setup\n\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", 4, "binary"),
        (b"Setup\nAsh won the coin toss.\n\xff\xfe bad bytes\n", 3, "not UTF-8"),
        ((DATA / "ptcgl" / "truncated.txt").read_bytes(), 14, "truncated"),
        ((DATA / "ptcgl" / "other_game.txt").read_bytes(), 1, "not a Pokémon TCG Live battle log"),
        ((DATA / "ptcgl" / "lang_ja_unsupported.txt").read_bytes(), 6, "unsupported language"),
    ],
)
def test_bad_input_exits_2_naming_file_and_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: bytes, line: int | None, words: str
) -> None:
    path = tmp_path / "bad.txt"
    path.write_bytes(content)
    assert main(["import", "ptcgl", str(path)]) == 2
    err = capsys.readouterr().err
    assert (f"{path}:{line}:" if line else f"{path}: ") in err and words in err
    assert "Traceback" not in err


def test_missing_file_and_bad_options(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["import", "ptcgl", str(tmp_path / "nope.txt")]) == 2
    assert "nope.txt" in capsys.readouterr().err
    assert main(["import", "ptcgl", LOG, "--match", "bad id!"]) == 2
    assert "--match" in capsys.readouterr().err
    bad_cards = tmp_path / "cards.csv"
    bad_cards.write_text("name,hp\nPidgey,lots\n")
    assert main(["import", "ptcgl", LOG, "--cards", str(bad_cards)]) == 2
    assert f"{bad_cards}:2: field hp" in capsys.readouterr().err
    assert main(["import", "sheet", str(DATA / "ptcgl" / "deck_out.txt")]) == 2


def test_partial(tmp_path: Path) -> None:
    out = tmp_path / "p.jsonl"
    assert (
        main(["import", "ptcgl", str(DATA / "ptcgl" / "truncated.txt"), "--partial", "-o", str(out), "-q"])
        == 0
    )
    assert read_jsonl(out)[-1]["type"] != "game_ended"


def test_stdin_and_a_real_process(tmp_path: Path) -> None:
    import subprocess
    import sys

    log = (DATA / "ptcgl" / "inactive.txt").read_bytes()
    done = subprocess.run(
        [sys.executable, "-m", "replay.cli", "import", "ptcgl", "-", "--match", "from-stdin"],
        input=log,
        capture_output=True,
        check=False,
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stderr
    events = [json.loads(line) for line in done.stdout.splitlines()]
    assert events[0]["match"] == "from-stdin" and events[-1]["reason"] == "timeout"
    junk = subprocess.run(
        [sys.executable, "-m", "replay.cli", "import", "ptcgl", "-"],
        input=bytes(range(256)) * 4,
        capture_output=True,
        check=False,
        cwd=ROOT,
    )
    assert junk.returncode == 2 and b"-:1: binary data" in junk.stderr and b"Traceback" not in junk.stderr


def test_a_60_mb_log_is_refused_early_within_the_memory_bound(tmp_path: Path) -> None:
    """A 60 MB "battle log" is refused with the limit named, before it is read: the process stays far
    below 300 MB (measured in a fresh interpreter, not this test process)."""
    import subprocess
    import sys

    big = tmp_path / "huge.txt"
    line = "Ash's Pikachu used Thunder Shock on Misty's Staryu for 20 damage.\n"
    with big.open("w", encoding="utf-8") as fh:
        fh.write("Setup\n")
        for _ in range(60 * 1024 * 1024 // len(line) + 1):
            fh.write(line)
    assert big.stat().st_size > 60 * 1024 * 1024
    # The peak is VmHWM, the high-water mark of this process's own memory: ru_maxrss would also count the
    # parent's (a process started by vfork + exec inherits the parent's peak: an xdist worker's hundreds
    # of MB).
    code = (
        "from replay.cli import main\n"
        f"rc = main(['import', 'ptcgl', {str(big)!r}, '-o', {str(tmp_path / 'out.jsonl')!r}])\n"
        "hwm = [line.split()[1] for line in open('/proc/self/status') if line.startswith('VmHWM:')]\n"
        "print(rc, hwm[0])\n"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    rc, peak_kb = run.stdout.split()
    assert rc == "2"
    assert "larger than the 4 MiB limit for a battle log" in run.stderr and "huge.txt" in run.stderr
    assert int(peak_kb) < 300 * 1024
