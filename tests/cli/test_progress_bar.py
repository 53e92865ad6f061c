"""Progress bars: drawn on a terminal's stderr for work over many files or events, never into a pipe."""

from __future__ import annotations

import io
import os
import pty
import select
import subprocess
import sys
from pathlib import Path

from replay.cli.progress import Bar, track
from tests.paths import DATA, ROOT

LOGS = sorted(str(p) for p in (DATA / "ptcgl").glob("*.txt"))[:6]


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_a_bar_is_drawn_on_a_terminal_and_nothing_elsewhere() -> None:
    screen, pipe = Terminal(), io.StringIO()
    for stream in (screen, pipe):
        with Bar("sending", 3, unit="events", stream=stream, after=0) as bar:
            for _ in range(3):
                bar.advance()
    assert "sending" in screen.getvalue() and "3/3" in screen.getvalue()
    assert pipe.getvalue() == ""
    assert list(track(iter("abc"), "x", 3)) == ["a", "b", "c"]  # the items pass through unchanged


def _import(tty: bool, out: Path) -> tuple[int, str]:
    """``prizecheck import ptcgl`` of several logs with stderr on a pseudo-terminal or a pipe."""
    cmd = [sys.executable, "-m", "replay.cli", "import", "ptcgl", *LOGS, "--out", str(out), "-q"]
    # a bar for any work, however short (the default waits half a second)
    env = {**os.environ, "COLUMNS": "100", "TERM": "xterm-256color", "PRIZECHECK_PROGRESS_AFTER": "0"}
    if not tty:
        done = subprocess.run(
            cmd, cwd=ROOT, env=env, stdin=subprocess.DEVNULL, capture_output=True, timeout=120
        )
        return done.returncode, done.stderr.decode()
    master, slave = pty.openpty()
    proc = subprocess.Popen(
        cmd, cwd=ROOT, env=env, stdin=subprocess.DEVNULL, stderr=slave, stdout=subprocess.DEVNULL
    )
    os.close(slave)
    chunks = []
    while True:
        ready, _, _ = select.select([master], [], [], 60)
        if not ready:
            break
        try:
            data = os.read(master, 65536)
        except OSError:  # the child closed the terminal
            break
        if not data:
            break
        chunks.append(data)
    os.close(master)
    return proc.wait(timeout=60), b"".join(chunks).decode(errors="replace")


def test_import_of_many_files_shows_progress_on_a_terminal_only(tmp_path: Path) -> None:
    assert len(LOGS) > 1
    code, screen = _import(True, tmp_path / "a.jsonl")
    assert code == 0 and "importing" in screen, screen[-500:]
    code, piped = _import(False, tmp_path / "b.jsonl")
    assert code == 0 and "importing" not in piped and "\x1b[" not in piped
    assert (tmp_path / "a.jsonl").read_bytes() == (tmp_path / "b.jsonl").read_bytes()
