"""The README's commands, run as written: a renamed command or flag fails the build, not a newcomer.

Every line of the README's ``sh`` blocks runs here, in order, in a fresh directory: ``make demo`` as the
Makefile's recipe (checked to be what it says), ``.venv/bin/prizecheck`` as this installation's script,
``serve`` until it answers ``/ui`` with the demo's matches (then Ctrl-C), ``make test`` not at all (it is
what runs this). The embedded store lives in the test's own data directory.
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


def readme_commands() -> list[str]:
    """The command lines of README.md's ``sh`` blocks, comments stripped."""
    text = (ROOT / "README.md").read_text("utf-8")
    lines = []
    for block in re.findall(r"```sh\n(.*?)```", text, flags=re.S):
        for line in block.splitlines():
            command = re.sub(r"\s+#.*$", "", line).strip()
            if command:
                lines.append(command)
    return lines


def test_the_readme_names_the_venv_script_the_makefile_installs() -> None:
    commands = readme_commands()
    assert commands[0] == "make demo" and "make test" in commands
    recipe = re.search(r"^demo:.*\n\t(.+)$", (ROOT / "Makefile").read_text(), flags=re.M)
    assert recipe and recipe[1] == "$(BIN)/prizecheck demo"  # what the test runs for `make demo`
    for command in commands:
        if not command.startswith("make "):
            assert command.startswith(".venv/bin/prizecheck "), command  # never a bare `prizecheck`


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
    env = {k: v for k, v in os.environ.items() if k != "REDIS_URL"}
    env["PRIZECHECK_DATA_DIR"] = str(tmp_path / "prizecheck-data")  # the embedded store, private to the test
    (tmp_path / ".venv").symlink_to(BIN.parent)  # `.venv/bin/prizecheck` from the test's directory
    for command in readme_commands():
        if command == "make test":
            continue
        if command == "make demo":
            command = ".venv/bin/prizecheck demo"
        if shlex.split(command)[1] == "serve":
            _serve(command, tmp_path, env)
            continue
        done = subprocess.run(
            command, shell=True, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300
        )
        assert done.returncode == 0, (command, done.stderr[-2000:])
        assert "Traceback" not in done.stderr, command
        if command.endswith(" demo"):
            last = done.stdout.strip().splitlines()[-1]
            assert last == "browse them: .venv/bin/prizecheck serve, then open http://127.0.0.1:8080/ui", last
    assert (tmp_path / "games.jsonl").stat().st_size > 0 and (tmp_path / "records.jsonl").stat().st_size > 0
