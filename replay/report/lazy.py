"""The report as it is made: plain data whose long lists are made while they are written.

A season's report lists every record's integrity line and every match of every event: at a million records
it is larger than the records' own counters. :meth:`replay.report.ReportBuilder.finish` makes it whole
(plain data, for the HTML, text and CSV forms and for the callers that read it); the JSON form is written
from the same parts as they are made (:func:`write_json`), each event's part and each integrity line
dropped once written, so the report is never whole in memory.

Two kinds of part stand in for a value: :class:`Items`, a list given by an iterator, and :class:`Later`, a
value worked out when it is reached (a summary of the items before it). Dict keys are reached in sorted
order, by :func:`settle` and :func:`write_json` alike (the JSON's key order), so a :class:`Later` may count
on the :class:`Items` of a key that sorts before its own. Both give the bytes ``msgspec.json.encode(report,
order="sorted")`` gives for the settled report (``tests/report/test_report_stream.py``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import IO, Any

import msgspec

#: Small items encoded per call of msgspec (a call per item costs more than the encoding of a small one).
CHUNK = 2000

_ENCODE = msgspec.json.Encoder(order="sorted").encode


class Parts(dict[str, Any]):
    """A dict of the report some of whose values are parts still to be made (:class:`Items`,
    :class:`Later`, other :class:`Parts`); any other value is plain data, written whole."""


class Items:
    """A list of the report given by ``items`` (an iterator of plain data or :class:`Parts`), made while it
    is written or settled; once. ``chunk``: how many items are encoded at a time (one for large ones, such
    as an event's part; :data:`CHUNK` for small lines). ``heads``: what a page must say of the items before
    they are made (the sections' league and season, for the HTML page's contents), never written."""

    __slots__ = ("_items", "chunk", "heads")

    def __init__(
        self, items: Iterable[Any], chunk: int | None = None, heads: list[Any] | None = None
    ) -> None:
        self._items: Iterator[Any] | None = iter(items)
        self.chunk = CHUNK if chunk is None else chunk
        self.heads = heads

    def __iter__(self) -> Iterator[Any]:
        items, self._items = self._items, None
        if items is None:
            raise RuntimeError("a report's Items are made once")
        return items


class Later:
    """A value of the report worked out by ``make`` when it is reached (keys in sorted order)."""

    __slots__ = ("make",)

    def __init__(self, make: Callable[[], Any]) -> None:
        self.make = make


_DEFERRED = (Parts, Items, Later)


def settle(value: Any) -> Any:
    """``value`` with every part made: plain data (a :class:`Parts` becomes a dict, keys in sorted order)."""
    if isinstance(value, Later):
        return settle(value.make())
    if isinstance(value, Items):
        return [settle(v) if isinstance(v, _DEFERRED) else v for v in value]
    if isinstance(value, Parts):
        return {k: settle(value[k]) for k in sorted(value)}
    return value


def write_json(value: Any, out: IO[bytes]) -> None:
    """``value`` as the report's JSON (compact, keys sorted, UTF-8, a newline after), written to ``out``
    part by part."""
    _write(value, out)
    out.write(b"\n")


def _write(value: Any, out: IO[bytes]) -> None:
    if isinstance(value, Later):
        _write(value.make(), out)
    elif isinstance(value, Items):
        out.write(b"[")
        first = True
        chunk: list[Any] = []
        for item in value:
            if isinstance(item, _DEFERRED):
                first = _flush(chunk, first, out)
                if not first:
                    out.write(b",")
                _write(item, out)
                first = False
                continue
            chunk.append(item)
            if len(chunk) >= value.chunk:
                first = _flush(chunk, first, out)
        _flush(chunk, first, out)
        out.write(b"]")
    elif isinstance(value, Parts):
        sep = b"{"
        for key in sorted(value):
            out.write(sep + _ENCODE(key) + b":")
            _write(value[key], out)
            sep = b","
        out.write(b"}" if value else b"{}")
    else:
        out.write(_ENCODE(value))


def _flush(chunk: list[Any], first: bool, out: IO[bytes]) -> bool:
    """Write the chunk's items (after a comma unless they are the list's first); whether none was yet."""
    if not chunk:
        return first
    if not first:
        out.write(b",")
    out.write(_ENCODE(chunk)[1:-1])
    chunk.clear()
    return False
