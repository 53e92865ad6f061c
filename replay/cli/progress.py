"""A progress bar for long commands (rich): on stderr, and only when stderr is a terminal.

Nothing is drawn in a pipe, a file or a CI log, and nothing at all for work that ends within half a second
(rich is not even imported then): a bar that flashes for a tenth of a second helps no one.
``PRIZECHECK_PROGRESS_AFTER`` changes that delay (seconds; ``never``: no bar). Records
printed to stdout meanwhile go above the bar when stdout is the same terminal, and untouched into a pipe.
"""

from __future__ import annotations

import math
import os
import sys
import time
from typing import IO, Any

AFTER = 0.5
"""Seconds of work before a bar is drawn (``PRIZECHECK_PROGRESS_AFTER`` sets it; ``never`` turns bars off)."""


def _after() -> float:
    value = os.environ.get("PRIZECHECK_PROGRESS_AFTER", "").strip().lower()
    if value in ("never", "off"):
        return math.inf
    try:
        return max(0.0, float(value)) if value else AFTER
    except ValueError:
        return AFTER


class TerminalProgress:
    """:class:`replay.files.Progress` drawn with rich: checking (bytes), then replaying (events, games)."""

    def __init__(self, stream: IO[str] | None = None, *, after: float | None = None) -> None:
        self.stream = sys.stderr if stream is None else stream
        self.enabled = _is_terminal(self.stream)
        self.after = _after() if after is None else after
        self.started_at = time.monotonic()
        self.bar: Any = None  # rich.progress.Progress, once drawn
        self.task: Any = None
        self.phase = ""
        self.total = 0
        self.done = 0
        self.games = 0

    # replay.files.Progress
    def checking(self, total: int) -> None:
        self._phase("checking", total)

    def checked(self, size: int) -> None:
        self._advance(size, 0)

    def folding(self, total: int) -> None:
        self._phase("replaying", total)

    def folded(self, events: int, games: int) -> None:
        self._advance(events, games)

    def stop(self) -> None:
        """Clear the bar (it is transient: the terminal keeps only what the command printed)."""
        if self.bar is not None:
            self.bar.stop()
            self.bar = None

    def _phase(self, phase: str, total: int) -> None:
        self.phase, self.total, self.done = phase, total, 0
        if self.bar is not None:
            self.bar.remove_task(self.task)
            self._add_task()

    def _advance(self, n: int, games: int) -> None:
        self.done += n
        self.games += games
        if not self.enabled:
            return
        if self.bar is None:
            if time.monotonic() - self.started_at < self.after:
                return
            self._draw()
        else:
            self.bar.update(self.task, completed=self.done, games=self.games)

    def _draw(self) -> None:
        from rich.console import Console
        from rich.progress import BarColumn, Progress, TaskProgressColumn, TextColumn, TimeRemainingColumn

        console = Console(file=self.stream)
        self.bar = Progress(
            TextColumn("{task.description}"),
            BarColumn(),
            TaskProgressColumn(),
            TextColumn("{task.fields[games]} games done"),
            TimeRemainingColumn(),
            console=console,
            transient=True,
            # records printed to a terminal go above the bar; into a pipe they are not touched
            redirect_stdout=_is_terminal(sys.stdout),
            redirect_stderr=False,
        )
        self.bar.start()
        self._add_task()

    def _add_task(self) -> None:
        self.task = self.bar.add_task(self.phase, total=self.total, completed=self.done, games=self.games)


def _is_terminal(stream: Any) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):  # closed, or not a real file
        return False
