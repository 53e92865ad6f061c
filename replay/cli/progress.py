"""The command line's progress bars (rich): on stderr, and only when stderr is a terminal.

One bar for every long command (``replay``, ``report``, ``import`` of many files, ``produce``). Nothing is
drawn in a pipe, a file or a CI log, so scripts read exactly what they read without it, and nothing at all
for work that ends within half a second (rich is not even imported then): a bar that flashes for a tenth
of a second helps no one. ``PRIZECHECK_PROGRESS_AFTER`` changes that delay (seconds; ``never``: no bar).
The bar is transient: once the work is done the terminal keeps only what the command printed; records
printed to stdout meanwhile go above the bar when stdout is the same terminal, untouched into a pipe.
"""

from __future__ import annotations

import math
import os
import sys
import time
from collections.abc import Iterable, Iterator
from typing import IO, Any, TypeVar

from replay.i18n import N_

T = TypeVar("T")

#: The units a bar counts in, shown in the command line's language (the callers name them in English).
UNITS: frozenset[str] = frozenset((N_("files"), N_("events"), N_("records"), N_("bytes")))

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


class Bar:
    """One bar through the stages of a command: ``with Bar("importing", total=n, unit="files") as bar:``
    then ``bar.advance()`` per item, ``bar.phase("replaying", total)`` for a new stage (``total`` None:
    not known yet). ``games`` counts what is finished, when the command says so (``advance(n, games=1)``).
    """

    def __init__(
        self,
        what: str = "",
        total: int | None = None,
        *,
        unit: str = "",
        stream: IO[str] | None = None,
        after: float | None = None,
    ) -> None:
        self.stream = sys.stderr if stream is None else stream
        self.enabled = _is_terminal(self.stream)
        self.after = _after() if after is None else after
        self.started_at = time.monotonic()
        self.unit = unit
        self.bar: Any = None  # rich.progress.Progress, once drawn
        self.task: Any = None
        self.what = what
        self.total = total
        self.done = 0
        self.games = 0

    def __enter__(self) -> Bar:
        if self.after <= 0:
            self._advance(0, 0)
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def phase(self, what: str, total: int | None = None) -> None:
        """A new stage: its description and how many steps it has (None: not known)."""
        self.what, self.total, self.done = what, total, 0
        if self.bar is not None:
            self.bar.remove_task(self.task)
            self._add_task()
        else:
            self._advance(0, 0)

    def advance(self, n: int = 1, *, games: int = 0) -> None:
        """``n`` more steps done (and ``games`` more games finished)."""
        self._advance(n, games)

    def stop(self) -> None:
        """Clear the bar (it is transient: the terminal keeps only what the command printed)."""
        if self.bar is not None:
            self.bar.stop()
            self.bar = None

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
            self.bar.update(self.task, completed=self.done, extra=self._extra())

    def _extra(self) -> str:
        """What the bar says beside it: the count in the command's unit, and the games done."""
        from replay.cli.common import tr

        parts = []
        if self.unit:
            unit = tr(self.unit) if self.unit in UNITS else self.unit
            parts.append(f"{self.done}/{self.total} {unit}" if self.total else f"{self.done} {unit}")
        if self.games:
            parts.append(tr("{n} games done", n=self.games))
        return " · ".join(parts)

    def _draw(self) -> None:
        from rich.console import Console
        from rich.progress import BarColumn, Progress, TaskProgressColumn, TextColumn, TimeRemainingColumn

        self.bar = Progress(
            TextColumn("{task.description}"),
            BarColumn(),
            TaskProgressColumn(),
            TextColumn("{task.fields[extra]}"),
            TimeRemainingColumn(),
            console=Console(file=self.stream),
            transient=True,
            # records printed to a terminal go above the bar; into a pipe they are not touched
            redirect_stdout=_is_terminal(sys.stdout),
            redirect_stderr=False,
        )
        self.bar.start()
        self._add_task()

    def _add_task(self) -> None:
        self.task = self.bar.add_task(self.what, total=self.total, completed=self.done, extra=self._extra())


class TerminalProgress(Bar):
    """:class:`replay.files.Progress` drawn as a :class:`Bar`: checking (bytes), then replaying (events,
    and the games done)."""

    def __init__(self, stream: IO[str] | None = None, *, after: float | None = None) -> None:
        super().__init__(stream=stream, after=after)

    def checking(self, total: int) -> None:
        from replay.cli.common import tr

        self.phase(tr("checking"), total)

    def checked(self, size: int) -> None:
        self.advance(size)

    def folding(self, total: int) -> None:
        from replay.cli.common import tr

        self.phase(tr("replaying"), total)

    def folded(self, events: int, games: int) -> None:
        self.advance(events, games=games)


def track(items: Iterable[T], what: str, total: int | None = None, *, unit: str = "") -> Iterator[T]:
    """``items``, advancing a :class:`Bar` by one for each."""
    with Bar(what, total, unit=unit) as bar:
        for item in items:
            yield item
            bar.advance()


def _is_terminal(stream: Any) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):  # closed, or not a real file
        return False
