"""The README's commands, run as written: a renamed command or flag fails the build, not a newcomer.

Every line of the README's ``sh`` blocks runs here, in order, from a fresh directory standing for the
checkout: ``make demo`` as the Makefile's recipe (checked to be what it says), ``.venv/bin/prizecheck`` as
this installation's script, ``serve`` until it answers ``/ui`` with the demo's matches (then Ctrl-C),
``make test`` not at all (it is what runs this). The other blocks each run as one script; they begin in a
scratch directory (``mktemp -d``) and must leave nothing in the checkout. The embedded store lives in the
test's own data directory.
"""

from __future__ import annotations

import os
import re
import shlex
import signal
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest

from tests.paths import ROOT

BIN = Path(sys.executable).parent


def readme_blocks(page: Path = ROOT / "README.md") -> list[list[str]]:
    """The command lines of a page's ``sh`` blocks (README.md's), block by block, comments stripped."""
    text = page.read_text("utf-8")
    blocks = []
    for block in re.findall(r"```sh\n(.*?)```", text, flags=re.S):
        lines = [re.sub(r"\s+#.*$", "", line).strip() for line in block.splitlines()]
        blocks.append([line for line in lines if line])
    return blocks


def readme_commands() -> list[str]:
    """Every command line of README.md's ``sh`` blocks, in order."""
    return [line for block in readme_blocks() for line in block]


def test_the_readme_names_the_venv_script_the_makefile_installs() -> None:
    first, *others = readme_blocks()
    assert first[0] == "make demo" and "make test" in first
    makefile = (ROOT / "Makefile").read_text()
    recipe = re.search(r"^demo:.*\n((?:\t.*\n|ifeq.*\n|endif\n)+)", makefile, flags=re.M)
    assert recipe and recipe[1].splitlines()[-1] == "\t$(BIN)/prizecheck demo"  # what the test runs
    for command in first:
        if not command.startswith("make "):
            assert command.startswith(".venv/bin/prizecheck "), command  # never a bare `prizecheck`
    for block in others:  # a scratch directory first, with the checkout's prizecheck on PATH
        assert block[0].startswith('PATH="$PWD/.venv/bin:$PATH"; cd "$(mktemp -d)"'), block[0]


def test_make_demo_compiles_the_engine_when_it_can() -> None:
    """make demo builds the compiled engine when an engine source is newer than the build (and falls back
    to plain Python, saying so, when it cannot); PRIZECHECK_COMPILE=0 skips it."""

    def dry(*args: str) -> str:
        return subprocess.run(["make", "-n", "-s", *args], cwd=ROOT, capture_output=True, text=True).stdout

    planned = dry("demo").splitlines()
    assert planned[-1] == ".venv/bin/prizecheck demo"
    assert any(re.match(r"make .*\bcompile \|\| echo .*plain Python", line) for line in planned), planned
    # the compile step builds the engine again when a source changed (a stale .so would shadow it)
    assert ".venv/bin/python tools/compile_engine.py" in dry("-W", "replay/engine/game.py", "compile")
    plain = dry("demo", "PRIZECHECK_COMPILE=0")
    assert "compile" not in plain and plain.rstrip().endswith("prizecheck demo")


def test_make_clean_says_where_the_store_is(tmp_path: Path) -> None:
    """make clean leaves the embedded store (data, not a build product) and says where it is and how to
    remove it: the checkout's prizecheck-data/, or PRIZECHECK_DATA_DIR."""
    (tmp_path / "prizecheck-data").mkdir()
    built = ["build/lib/replay", "dist", ".import_linter_cache", ".mypy_cache", ".venv", ".venv-latest"]
    for folder in built:
        (tmp_path / folder).mkdir(parents=True)
    env = {k: v for k, v in os.environ.items() if k != "PRIZECHECK_DATA_DIR"}
    clean = ["make", "-s", "-f", str(ROOT / "Makefile"), "-C", str(tmp_path), "clean"]
    said = subprocess.run(clean, capture_output=True, text=True, env=env, timeout=60)
    store = tmp_path / "prizecheck-data"
    assert said.returncode == 0 and store.exists()
    assert [p.name for p in tmp_path.iterdir()] == ["prizecheck-data"]  # every build product is gone
    assert f"keeps the embedded store (the games make demo and serve stored) in {store}" in said.stdout
    assert f"remove it with: rm -rf {store}" in said.stdout
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    said = subprocess.run(
        clean, capture_output=True, text=True, env={**env, "PRIZECHECK_DATA_DIR": str(elsewhere)}
    )
    assert f"rm -rf {elsewhere}" in said.stdout


def _serve(command: str, cwd: Path, env: dict[str, str]) -> None:
    proc = subprocess.Popen(
        "exec " + command, shell=True, cwd=cwd, env={**env, "PRIZECHECK_PORT": "0"}, text=True,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True,
    )  # fmt: skip
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        assert "listening on http://" in line, (line, proc.stderr.read() if proc.stderr else "")
        url = line.split("listening on ")[1].split()[0]
        with urllib.request.urlopen(f"{url}/ui", timeout=30) as answer:
            page = answer.read().decode()
        assert answer.status == 200 and "demo-prizes" in page  # the demo's games, stored by `make demo`
    finally:
        os.killpg(proc.pid, signal.SIGINT)  # Ctrl-C
        code = proc.wait(timeout=60)
    assert code == 0


@pytest.mark.redis
def test_the_readme_commands_run_as_written(tmp_path: Path) -> None:
    """The first block line by line (make demo, serve, make test), each other block as one shell script:
    they start with a scratch directory, so they leave nothing where they are run."""
    env = {k: v for k, v in os.environ.items() if k != "REDIS_URL"}
    env["PRIZECHECK_DATA_DIR"] = str(tmp_path / "prizecheck-data")  # the embedded store, private to the test
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    env["TMPDIR"] = str(scratch)  # where mktemp -d makes the blocks' scratch directories
    checkout = tmp_path / "checkout"
    checkout.mkdir()
    (checkout / ".venv").symlink_to(BIN.parent)  # `.venv/bin/prizecheck` from the test's "checkout"
    first, *others = readme_blocks()
    for command in first:
        if command == "make test":
            continue
        if command == "make demo":
            command = ".venv/bin/prizecheck demo"
        if shlex.split(command)[1] == "serve":
            _serve(command, checkout, env)
            continue
        done = subprocess.run(
            command, shell=True, cwd=checkout, env=env, capture_output=True, text=True, timeout=300
        )
        assert done.returncode == 0, (command, done.stderr[-2000:])
        assert "Traceback" not in done.stderr, command
        if command.endswith(" demo"):
            last = done.stdout.strip().splitlines()[-1]
            assert last == "browse them: .venv/bin/prizecheck serve, then open http://127.0.0.1:8080/ui", last
    before = sorted(p.name for p in checkout.iterdir())
    for block in others:
        script = "set -e\n" + "\n".join(block) + "\n"
        done = subprocess.run(
            ["bash", "-c", script], cwd=checkout, env=env, capture_output=True, text=True, timeout=300
        )
        assert done.returncode == 0, (block, done.stderr[-2000:])
        assert "Traceback" not in done.stderr, block
    assert sorted(p.name for p in checkout.iterdir()) == before  # nothing left in the checkout
    (made,) = scratch.iterdir()
    assert (made / "games.jsonl").stat().st_size > 0 and (made / "records.jsonl").stat().st_size > 0
