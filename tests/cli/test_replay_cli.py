"""``prizecheck replay`` as a user runs it: empty input, the progress bar (terminal only), streaming."""

from __future__ import annotations

import io
import os
import pathlib
import pty
import select
import subprocess
import sys
import time

from replay.cli.progress import TerminalProgress
from replay.codec import encode_msgpack
from replay.engine.record import dumps
from replay.files import replay_files
from replay.generators.simulate import simulate_corpus
from tests.cli.test_cli import PRIZECHECK, run


def games_file(tmp: pathlib.Path, games: int, seed: int = 3) -> pathlib.Path:
    """Simulated games (and the playoff games of those drawn), one after the other."""
    path = tmp / f"games-{games}.msgpack"
    path.write_bytes(encode_msgpack([e for s in simulate_corpus(games, seed) for e in s]))
    return path


def matches_in(path: pathlib.Path) -> int:
    return len(list(replay_files([str(path)])))


def test_an_empty_input_exits_2_with_one_line(tmp_path: pathlib.Path) -> None:
    empty = tmp_path / "empty.jsonl"
    empty.write_bytes(b"")
    for args, stdin, where in [
        ([str(empty)], None, f"{empty}: is empty"),
        (["-"], b"", "<stdin>: is empty"),
        (["-"], b"\n\n  \n", "<stdin>: is empty"),  # blank lines only: the same message
    ]:
        p = run("replay", *args, stdin=stdin)
        assert p.returncode == 2 and p.stdout == b""
        assert p.stderr.decode() == f"prizecheck replay: {where}: no events\n"
    p = run("report", str(empty))
    assert p.returncode == 2 and p.stderr.count(b"\n") == 1 and b"is empty: no events" in p.stderr


def test_a_pipe_gets_records_and_no_progress(tmp_path: pathlib.Path) -> None:
    path = games_file(tmp_path, 30)
    p = run("replay", "--json", str(path), env={"PRIZECHECK_PROGRESS_AFTER": "0"})
    assert p.returncode == 0 and p.stderr == b""  # stderr is a pipe here: no bar, whatever the delay
    assert p.stdout.count(b"\n") == matches_in(path)


class FakeTerminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_the_bar_on_a_terminal_shows_checking_then_replaying(tmp_path: pathlib.Path) -> None:
    path = games_file(tmp_path, 12)
    screen = FakeTerminal()
    progress = TerminalProgress(screen, after=0)
    try:
        out = [done.match for done in replay_files([str(path)], progress=progress)]
    finally:
        progress.stop()
    drawn = screen.getvalue()
    assert "checking" in drawn and "replaying" in drawn and "games done" in drawn
    assert len(out) == matches_in(path)


def test_no_bar_for_short_work_or_off_a_terminal(tmp_path: pathlib.Path) -> None:
    path = games_file(tmp_path, 3)
    for screen, after in ((FakeTerminal(), 60.0), (io.StringIO(), 0.0)):
        progress = TerminalProgress(screen, after=after)
        for _ in replay_files([str(path)], progress=progress):
            pass
        progress.stop()
        assert screen.getvalue() == ""
        assert progress.bar is None


def on_a_terminal(args: list[str], env: dict[str, str]) -> tuple[int, bytes, bytes]:
    """Run with stderr on a pseudo-terminal and stdout a pipe: (exit status, stdout, what the terminal got).
    Both are drained as they come (a full terminal buffer would block the command)."""
    main, side = pty.openpty()
    proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=side, env={**os.environ, **env})
    os.close(side)
    assert proc.stdout is not None
    out = screen = b""
    streams = {proc.stdout.fileno(): "out", main: "tty"}
    deadline = time.monotonic() + 120
    while streams and time.monotonic() < deadline:
        ready, _, _ = select.select(list(streams), [], [], 1.0)
        for fd in ready:
            try:
                chunk = os.read(fd, 65536)
            except OSError:  # the terminal's other side is closed: the command is gone
                chunk = b""
            if not chunk:
                del streams[fd]
            elif streams[fd] == "out":
                out += chunk
            else:
                screen += chunk
    os.close(main)
    return proc.wait(timeout=60), out, screen


def test_a_real_terminal_gets_the_bar_and_stdout_only_records(tmp_path: pathlib.Path) -> None:
    """stderr on a pseudo-terminal, stdout a pipe: the bar goes to the terminal, the records untouched."""
    path = games_file(tmp_path, 40)
    expected = run("replay", "--json", str(path)).stdout
    env = {"PRIZECHECK_PROGRESS_AFTER": "0", "COLUMNS": "100", "TERM": "xterm"}
    status, out, screen = on_a_terminal([*PRIZECHECK, "replay", "--json", str(path)], env)
    assert status == 0
    assert out == expected
    assert b"replaying" in screen and b"games done" in screen
    off = {"PRIZECHECK_PROGRESS_AFTER": "never", "TERM": "xterm"}
    status, out, screen = on_a_terminal([*PRIZECHECK, "replay", "--json", str(path)], off)
    assert (status, out, screen) == (0, expected, b"")


def test_records_stream_out_and_a_closed_pipe_ends_quietly(tmp_path: pathlib.Path) -> None:
    """The reader takes one record and goes away (| head -1): exit 0, nothing on stderr."""
    path = games_file(tmp_path, 80)
    proc = subprocess.Popen(
        [*PRIZECHECK, "replay", "--json", str(path)], stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    assert proc.stdout is not None and proc.stderr is not None
    first = proc.stdout.readline()
    proc.stdout.close()  # 80 records do not fit in a pipe's buffer: the command is still writing
    err = proc.stderr.read()
    assert proc.wait(timeout=60) == 0, err
    assert err == b""
    (done, *_) = replay_files([str(path)])
    assert first == dumps(done.record.to_json()) + b"\n"


def test_help_lists_every_command_without_importing_them() -> None:
    code = (
        "import sys, replay.cli as c\n"
        "try:\n    c.main(['--help'])\nexcept SystemExit:\n    pass\n"
        "print(sorted(m for m in sys.modules if m.startswith(('streams', 'faust', 'aiohttp'))))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60).stdout
    assert "replay" in out and "serve" in out and out.rstrip().endswith("[]")
