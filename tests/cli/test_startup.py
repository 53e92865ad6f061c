"""A command line is parsed without importing what the command runs on (issue 40 item 2): ``prizecheck
--help`` and a command's ``--help`` import neither the engine, msgspec, asyncio nor the service (aiohttp,
redis), and the command, run, imports what it runs on (its usage line is the same either way). Counted in
a fresh interpreter (``sys.modules``), never timed: bench/startup.py measures the time."""

from __future__ import annotations

import os
import pathlib
import subprocess
import sys

import pytest

from tests.paths import ROOT

HEAVY = (
    "msgspec",
    "replay.engine.game",
    "replay.contract.validate",
    "asyncio",
    "aiohttp",
    "redis",
    "duckdb",
    "rich",
)

# Nor, for a usage line, what only running needs: OpenSSL's hashing, the rules (the compiled engine's shared
# library), the card catalogue, the token book.
USAGE_HEAVY = (*HEAVY, "hashlib", "replay.engine.ruleset", "replay.sources.cards", "streams.tokens")

PROBE = """
import contextlib, io, sys
from replay.cli import main
with contextlib.redirect_stdout(io.StringIO()) as out:
    code = main(sys.argv[1:])
assert code == 0 and "usage: prizecheck" in out.getvalue(), (code, out.getvalue())
print(" ".join(name for name in sys.argv[0].split(",") if name in sys.modules))
"""


def _imported(*argv: str) -> list[str]:
    done = subprocess.run(
        [sys.executable, "-c", PROBE.replace("sys.argv[0]", repr(",".join(USAGE_HEAVY))), *argv],
        capture_output=True, text=True, timeout=120, cwd=ROOT,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return done.stdout.split()


@pytest.mark.parametrize(
    "argv",
    [
        ["--help"],
        ["replay", "--help"],
        ["report", "--help"],
        ["import", "--help"],
        ["import", "ptcgl", "--help"],
        ["import", "sheet", "--help"],
        ["import", "scan", "--help"],
        ["serve", "--help"],
        ["sheet", "--help"],
        ["simulate", "--help"],
        ["archive", "--help"],
        ["verify", "--help"],
        ["show", "--help"],
        ["keys", "--help"],
        ["alarms", "--help"],
        ["audit-log", "--help"],
        ["check", "--help"],
        ["demo", "--help"],
        ["token", "--help"],
        ["produce", "--help"],
        ["decks", "--help"],
        ["worker", "--help"],
    ],
)
def test_a_usage_line_imports_nothing_the_command_runs_on(argv: list[str]) -> None:
    assert _imported(*argv) == []


RUN = """
import sys
from replay.cli import main
assert main(sys.argv[2:]) == 0
print(" ".join(name for name in sys.argv[1].split(",") if name in sys.modules))
"""


def test_the_command_run_imports_what_it_needs() -> None:
    """The command run in the same way imports what it runs on: a battle log's import reads the card
    catalogue with msgspec (the probe's check of the heavy names would pass vacuously if it could not see
    them), and needs neither the engine nor the event schemas (issue 40 item 2: 0.1 s of its start-up), nor
    hashlib (OpenSSL's 2-3 ms: only a file name that must be hashed into a match id needs it)."""
    log = ROOT / "tests" / "data" / "ptcgl" / "deck_out.txt"
    names = ",".join((*HEAVY, "hashlib"))
    done = subprocess.run(
        [sys.executable, "-c", RUN, names, "import", "ptcgl", str(log), "-q", "-o", "/dev/null"],
        capture_output=True, text=True, timeout=120, cwd=ROOT,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["msgspec"]


def test_a_sheet_import_does_not_import_the_battle_log_reader() -> None:
    """``import sheet`` runs without the battle log's reader (its seven languages' tables were half of a
    sheet's start-up, issue 40 item 2), and a log's import still brings it: the probe can see it."""
    sheet = ROOT / "tests" / "data" / "sheets" / "league_game.csv"
    log = ROOT / "tests" / "data" / "ptcgl" / "deck_out.txt"
    seen = []
    for argv in (["sheet", str(sheet)], ["ptcgl", str(log)]):
        done = subprocess.run(
            [sys.executable, "-c", RUN, "replay.sources.ptcgl", "import", *argv, "-q", "-o", "/dev/null"],
            capture_output=True, text=True, timeout=120, cwd=ROOT,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
        seen.append(done.stdout.split())
    assert seen == [[], ["replay.sources.ptcgl"]]


SIGN_PROBE = """
import contextlib, io, sys
from replay.cli import main
with contextlib.redirect_stdout(io.StringIO()) as out:
    assert main(sys.argv[2:]) == 0
lines = out.getvalue().splitlines()
signed = sum('"signature":null' not in line for line in lines)
print(len(lines), signed, *(name for name in sys.argv[1].split(",") if name in sys.modules))
"""


def test_a_replay_signs_with_a_key_and_loads_no_signing_module_without_one(tmp_path: pathlib.Path) -> None:
    """``replay --json`` signs its records when a key directory is named; without one it loads neither
    the key ring's module nor cryptography (~40 ms of its start), which it used to import for every
    record."""
    from replay.codec import encode_msgpack
    from replay.generators.simulate import simulate_corpus
    from replay.signing import KeyRing

    path = tmp_path / "games.msgpack"
    path.write_bytes(encode_msgpack([e for s in simulate_corpus(3, 4) for e in s]))
    KeyRing.open(str(tmp_path / "keys"), create=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith("PRIZECHECK_")}

    def run(**extra: str) -> list[str]:
        done = subprocess.run(
            [sys.executable, "-c", SIGN_PROBE, "replay.signing,cryptography", "replay", "--json", str(path)],
            capture_output=True, text=True, timeout=120, cwd=ROOT, env={**env, **extra},
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
        return done.stdout.split()

    records, signed, *loaded = run()
    assert int(records) >= 3 and signed == "0" and loaded == []
    records, signed, *loaded = run(PRIZECHECK_KEYS_DIR=str(tmp_path / "keys"))
    assert signed == records and loaded == ["replay.signing", "cryptography"]
