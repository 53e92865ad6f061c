"""The text, HTML and CSV forms written as the report is made, as the JSON form is
(:mod:`replay.report.lazy`).

Each form is written section by section. A section's events come first (the report's keys in sorted order:
its ``matches`` summary counts the events' matches as they are made), so each form renders them, one event
at a time, into a spool (:class:`Spool`: memory, then a temporary file past :data:`SPOOL_IN_MEMORY`) and
copies it to its place once the section's head is written; the records' integrity lines and the findings
stay iterators (:class:`replay.report.lazy.Items`) that each form reads once. The whole report, settled
(:meth:`replay.report.ReportBuilder.finish`), goes through the same code: its lists are iterables too.
"""

from __future__ import annotations

import codecs
import shutil
import tempfile
from collections.abc import Callable, Iterable, Iterator
from typing import IO, TypeVar

from replay.report.document import Event, Report, Section

#: A spool of a section's events is kept in memory up to this size, then in a temporary file.
SPOOL_IN_MEMORY = 16 << 20
#: Bytes of a spool read at a time when it is copied into a page as text.
COPY_BLOCK = 64 << 10
#: Pieces gathered before they are joined, encoded and written (one write per block, not per piece).
BLOCK = 4096

T = TypeVar("T")


class Writer:
    """Text to a binary file as UTF-8, in blocks: ``w(*pieces)`` adds pieces, :meth:`flush` writes them."""

    __slots__ = ("_pieces", "out")

    def __init__(self, out: IO[bytes]) -> None:
        self.out = out
        self._pieces: list[str] = []

    def __call__(self, *pieces: str) -> None:
        self._pieces.extend(pieces)
        if len(self._pieces) >= BLOCK:
            self.flush()

    def flush(self) -> None:
        if self._pieces:
            self.out.write("".join(self._pieces).encode("utf-8"))
            self._pieces.clear()


class Spool:
    """What a form writes of a section's events before the section's head, copied in after it."""

    def __init__(self) -> None:
        self._file = tempfile.SpooledTemporaryFile(max_size=SPOOL_IN_MEMORY, mode="w+b")  # noqa: SIM115
        self.w = Writer(self._file)

    def pieces(self) -> Iterator[str]:
        """Everything written to the spool, as text, a block at a time (a character split between two
        blocks is whole in the second); the spool is then closed."""
        self.w.flush()
        self._file.seek(0)
        decoder = codecs.getincrementaldecoder("utf-8")()
        while block := self._file.read(COPY_BLOCK):
            yield decoder.decode(block)
        yield decoder.decode(b"", final=True)
        self._file.close()

    def copy_to(self, w: Writer) -> None:
        """Everything written to the spool, after what ``w`` has written so far; the spool is then closed."""
        w.flush()
        self.w.flush()
        self._file.seek(0)
        shutil.copyfileobj(self._file, w.out)
        self._file.close()


#: How a form writes a section's events: into the writer, from the section (its plain values: league,
#: season; the rest still parts) and its events, each made as it is reached.
EventsWriter = Callable[[Writer, Section, Iterator[Event]], None]


def sections(report: Report, write_events: EventsWriter) -> Iterator[tuple[Section, Spool]]:
    """Each section of ``report`` (a report as it is made, or settled) with its events already written
    into a spool by ``write_events`` (and so its ``matches`` summary whole): the section's findings'
    items and integrity lines stay iterables, each read once."""
    for sec in report.sections:
        spool = Spool()
        write_events(spool.w, sec, iter(sec.events))
        yield sec, spool


def counted(items: Iterable[T], keep: int, first: Callable[[T], bool] | None = None) -> tuple[list[T], int]:
    """The first ``keep`` of ``items`` and how many there were, read once. With ``first``: those it says
    yes to ahead of the others (each in their order), as a stable sort by it would give them."""
    ahead: list[T] = []
    rest: list[T] = []
    n = 0
    for item in items:
        n += 1
        if first is None or first(item):
            if len(ahead) < keep:
                ahead.append(item)
        elif len(rest) < keep:
            rest.append(item)
    return (ahead + rest)[:keep], n
