"""A progress bar for commands that work through many files or events (rich, on stderr, terminals only).

Nothing is drawn when stderr is not a terminal (a pipe, a file, a CI log), so scripts read exactly what
they read before; the bar is transient: once the work is done the terminal keeps only what the command
printed.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Iterator
from typing import IO, Any, TypeVar

T = TypeVar("T")


class Bar:
    """``with Bar("importing", total=len(files)) as bar: ... bar.advance()``."""

    def __init__(self, what: str, total: int, *, unit: str = "", stream: IO[str] | None = None) -> None:
        self.what = what
        self.total = total
        self.unit = unit
        self.stream = sys.stderr if stream is None else stream
        self._progress: Any = None
        self._task: Any = None

    def __enter__(self) -> Bar:
        if not _is_terminal(self.stream):
            return self
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

        self._progress = Progress(
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn(self.unit),
            TimeRemainingColumn(),
            console=Console(file=self.stream),
            transient=True,
        )
        self._progress.start()
        self._task = self._progress.add_task(self.what, total=self.total)
        return self

    def advance(self, n: int = 1) -> None:
        """``n`` more done."""
        if self._progress is not None:
            self._progress.advance(self._task, n)

    def __exit__(self, *exc: object) -> None:
        if self._progress is not None:
            self._progress.stop()
            self._progress = None


def track(items: Iterable[T], what: str, total: int, *, unit: str = "") -> Iterator[T]:
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
