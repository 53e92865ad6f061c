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

import shutil
import tempfile
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import IO, Any

from replay.report.lazy import settle

#: A spool of a section's events is kept in memory up to this size, then in a temporary file.
SPOOL_IN_MEMORY = 16 << 20
#: Pieces gathered before they are joined, encoded and written (one write per block, not per piece).
BLOCK = 4096

#: The parts of a section that each form reads as an iterator, once, never as a list
LONG = {"findings": "items", "integrity": "records"}


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

    def copy_to(self, w: Writer) -> None:
        """Everything written to the spool, after what ``w`` has written so far; the spool is then closed."""
        w.flush()
        self.w.flush()
        self._file.seek(0)
        shutil.copyfileobj(self._file, w.out)
        self._file.close()


#: How a form writes a section's events: into the writer, from the section (its plain values: league,
#: season; the rest still parts) and its events, each a settled event, made as it is reached.
EventsWriter = Callable[[Writer, Mapping[str, Any], Iterator[Mapping[str, Any]]], None]


def sections(report: Mapping[str, Any], write_events: EventsWriter) -> Iterator[tuple[dict[str, Any], Spool]]:
    """Each section of ``report`` (a report as it is made, or settled) with its events already written
    into a spool by ``write_events``: the section's other values settled but its :data:`LONG` parts,
    which stay iterables (each read once)."""
    for sec in report["sections"]:
        spool = Spool()
        write_events(spool.w, sec, (settle(ev) for ev in sec["events"]))
        plain: dict[str, Any] = {}
        for key in sorted(sec):  # sorted, as the parts count on (matches after events)
            if key == "events":
                continue
            value = sec[key]
            if key in LONG:
                value = {k: v if k == LONG[key] else settle(v) for k, v in sorted(value.items())}
            plain[key] = settle(value)
        yield plain, spool


def counted(
    items: Iterable[Any], keep: int, first: Callable[[Any], bool] | None = None
) -> tuple[list[Any], int]:
    """The first ``keep`` of ``items`` and how many there were, read once. With ``first``: those it says
    yes to ahead of the others (each in their order), as a stable sort by it would give them."""
    ahead: list[Any] = []
    rest: list[Any] = []
    n = 0
    for item in items:
        n += 1
        if first is None or first(item):
            if len(ahead) < keep:
                ahead.append(item)
        elif len(rest) < keep:
            rest.append(item)
    return (ahead + rest)[:keep], n
