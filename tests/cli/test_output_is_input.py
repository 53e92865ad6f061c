"""An output that is one of the command's inputs is refused before any work (issue 31 item 3): the same
path, a symbolic link to it or a hard link to it. Exit 2, one line naming the option, and the input's bytes
exactly as they were."""

from __future__ import annotations

import os
import pathlib
import shutil
import subprocess
import sys
from collections.abc import Callable

import pytest

from tests.paths import ROOT

PRIZECHECK = [sys.executable, "-m", "replay.cli"]
LOG = ROOT / "tests" / "data" / "ptcgl" / "deck_out.txt"
SHEET = ROOT / "tests" / "data" / "sheets" / "league_game.csv"
TDF = ROOT / "tests" / "data" / "tdf" / "pallet-league-cup.tdf"


def _prizecheck(*args: str, cwd: pathlib.Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*PRIZECHECK, *args], capture_output=True, text=True, timeout=120, cwd=cwd)


def _same(path: pathlib.Path) -> pathlib.Path:
    return path


def _symlink(path: pathlib.Path) -> pathlib.Path:
    link = path.with_name("link-" + path.name)
    link.symlink_to(path)
    return link


def _hardlink(path: pathlib.Path) -> pathlib.Path:
    link = path.with_name("hard-" + path.name)
    os.link(path, link)
    return link


LINKS: dict[str, Callable[[pathlib.Path], pathlib.Path]] = {
    "same path": _same,
    "symbolic link": _symlink,
    "hard link": _hardlink,
}


def _events(tmp_path: pathlib.Path) -> pathlib.Path:
    events = tmp_path / "events.jsonl"
    done = _prizecheck("import", "ptcgl", str(LOG), "--out", str(events), "-q", cwd=tmp_path)
    assert done.returncode in (0, 1), done.stderr
    return events


# (command, the input it reads): the output is pointed at that input
CASES: dict[str, Callable[[pathlib.Path, pathlib.Path], list[str]]] = {
    "import ptcgl -o": lambda tmp, out: ["import", "ptcgl", str(tmp / "log.txt"), "-o", str(out)],
    "import sheet --out": lambda tmp, out: ["import", "sheet", str(tmp / "sheet.csv"), "--out", str(out)],
    "report --out onto an event file": lambda tmp, out: [
        "report",
        str(tmp / "events.jsonl"),
        "--out",
        str(out),
    ],
    "report --out onto --tdf": lambda tmp, out: [
        "report",
        str(tmp / "events.jsonl"),
        "--tdf",
        str(tmp / "cup.tdf"),
        "--out",
        str(out),
    ],
}
CASES["report --out onto --decks"] = lambda tmp, out: [
    "report",
    str(tmp / "events.jsonl"),
    "--decks",
    str(tmp / "decks.json"),
    "--out",
    str(out),
]
TARGET = {
    "report --out onto --decks": "decks.json",
    "import ptcgl -o": "log.txt",
    "import sheet --out": "sheet.csv",
    "report --out onto an event file": "events.jsonl",
    "report --out onto --tdf": "cup.tdf",
}


@pytest.mark.parametrize("link", LINKS)
@pytest.mark.parametrize("case", CASES)
def test_an_output_onto_an_input_is_refused_and_the_input_untouched(
    tmp_path: pathlib.Path, case: str, link: str
) -> None:
    shutil.copy(LOG, tmp_path / "log.txt")
    shutil.copy(SHEET, tmp_path / "sheet.csv")
    shutil.copy(TDF, tmp_path / "cup.tdf")
    (tmp_path / "decks.json").write_text('{"decks": []}')
    _events(tmp_path)
    target = tmp_path / TARGET[case]
    before = target.read_bytes()
    out = LINKS[link](target)
    done = _prizecheck(*CASES[case](tmp_path, out), cwd=tmp_path)
    assert done.returncode == 2, (done.stdout, done.stderr)
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert "--out" in lines[0] and "same file as" in lines[0] and "Traceback" not in done.stderr
    assert target.read_bytes() == before  # the input, byte for byte
    assert done.stdout == ""
    assert not list(tmp_path.glob(".*.part"))  # nothing half-written beside it


def test_simulate_refuses_one_file_for_both_outputs(tmp_path: pathlib.Path) -> None:
    same = tmp_path / "league.out"
    done = _prizecheck(
        "simulate", "--league", "L", "--players", "8", "--rounds", "3", "--out", str(same), "--tdf-out",
        str(same), cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 2, done.stderr
    assert "--tdf-out" in done.stderr and "same file as" in done.stderr
    assert not same.exists()


def test_an_output_inside_the_parquet_archive_is_refused(tmp_path: pathlib.Path) -> None:
    archive = tmp_path / "archive"
    archive.mkdir()
    done = _prizecheck("report", "--parquet", str(archive), "--out", str(archive / "r.html"), cwd=tmp_path)
    assert done.returncode == 2, done.stderr
    assert "same file as" in done.stderr and "--out" in done.stderr
    assert list(archive.iterdir()) == []


def test_another_output_file_is_still_written(tmp_path: pathlib.Path) -> None:
    shutil.copy(LOG, tmp_path / "log.txt")
    done = _prizecheck("import", "ptcgl", "log.txt", "-o", "log.jsonl", "-q", cwd=tmp_path)
    assert done.returncode in (0, 1), done.stderr
    assert (tmp_path / "log.jsonl").read_bytes().startswith(b"{")
