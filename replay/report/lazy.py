"""The report as it is made: a typed document (:mod:`replay.report.document`) whose long lists are made
while they are written.

A season's report lists every record's integrity line and every match of every event: at a million records
it is larger than the records' own counters. :meth:`replay.report.ReportBuilder.finish` makes it whole
(:func:`settle`: every list a list, for the callers that read it); every form is written from the same
parts as they are made (:func:`write_json`, :mod:`replay.report.stream`), each event's part and each
integrity line dropped once written, so the report is never whole in memory.

A list still to be made is an :class:`Items`, given by an iterator. The Structs that may hold one are
:class:`replay.report.document.Parts`, reached field by field in the sorted order of their JSON keys, by
:func:`settle` and :func:`write_json` alike (the JSON's key order): a section's ``matches`` summary is
filled in as its ``events`` are made, which sort before it. Both give the bytes
``msgspec.json.encode(report, order="sorted")`` gives for the settled report
(``tests/report/test_report_stream.py``).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from functools import cache
from typing import IO, Any, Generic, TypeVar

import msgspec

from replay.report.document import Parts

#: Small items encoded per call of msgspec (a call per item costs more than the encoding of a small one).
CHUNK = 2000

_ENCODE = msgspec.json.Encoder(order="sorted").encode

T = TypeVar("T")
P = TypeVar("P", bound=Parts)


class Items(Generic[T]):
    """A list of the report given by ``items`` (an iterator of plain data or :class:`Parts`), made while it
    is written or settled; once. ``chunk``: how many items are encoded at a time (one for large ones, such
    as an event's part; :data:`CHUNK` for small lines). ``heads``: what a page must say of the items before
    they are made (the sections' league and season, for the HTML page's contents), never written."""

    __slots__ = ("_items", "chunk", "heads")

    def __init__(
        self, items: Iterable[T], chunk: int | None = None, heads: list[tuple[str, str]] | None = None
    ) -> None:
        self._items: Iterator[T] | None = iter(items)
        self.chunk = CHUNK if chunk is None else chunk
        self.heads = heads

    def __iter__(self) -> Iterator[T]:
        items, self._items = self._items, None
        if items is None:
            raise RuntimeError("a report's Items are made once")
        return items


@cache
def fields(cls: type[Parts]) -> tuple[tuple[str, bytes], ...]:
    """A :class:`Parts` class's fields in the order of their JSON keys (sorted), each with its key as
    JSON followed by ``:``."""
    info = msgspec.structs.fields(cls)
    return tuple((f.name, _ENCODE(f.encode_name) + b":") for f in sorted(info, key=lambda f: f.encode_name))


def settle(value: P) -> P:
    """``value`` with every part made, in the order of its JSON keys: every :class:`Items` a list."""
    made: dict[str, Any] = {}
    for name, _key in fields(type(value)):
        made[name] = _settled(getattr(value, name))
    return msgspec.structs.replace(value, **made)


def _settled(value: Any) -> Any:
    if isinstance(value, Items):
        return [settle(v) if isinstance(v, Parts) else v for v in value]
    if isinstance(value, Parts):
        return settle(value)
    return value


def write_json(value: Parts, out: IO[bytes]) -> None:
    """``value`` as the report's JSON (compact, keys sorted, UTF-8, a newline after), written to ``out``
    part by part."""
    _write(value, out)
    out.write(b"\n")


def _write(value: Any, out: IO[bytes]) -> None:
    if isinstance(value, Items):
        out.write(b"[")
        first = True
        chunk: list[Any] = []
        for item in value:
            if isinstance(item, Parts):
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
        for name, key in fields(type(value)):
            out.write(sep + key)
            _write(getattr(value, name), out)
            sep = b","
        out.write(b"}" if sep == b"," else b"{}")
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
