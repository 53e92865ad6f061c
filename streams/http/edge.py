"""The HTTP edge: a POST body split into events, with every bound checked before the core sees them.

The same rules as files and Kafka messages (:func:`replay.contract.shape.edge_event`: string keys, nesting,
integral numbers), plus the request's own bounds: at most ``max_events`` events (the body size itself is
bounded by aiohttp's ``client_max_size``, a 413). Decoding is pure CPU: :func:`read_events` runs it in a
worker thread for any body above :data:`INLINE_BYTES`, so one big body never stalls the event loop (the
loop keeps its turns at the interpreter's switch interval).
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import msgpack
from aiohttp import web

from replay import i18n
from replay.codec import loads_json, shallow_json
from replay.contract.shape import edge_event
from replay.engine import EventError, InputError
from replay.i18n import N_
from replay.i18n.errors import JSON_REASONS, MSGPACK_REASONS
from streams.http.routes import Problem

MSGPACK_TYPES = frozenset({"application/msgpack", "application/x-msgpack", "application/vnd.msgpack"})
#: Bodies up to this size are decoded on the event loop (a thread hand-off costs more than they do).
INLINE_BYTES = 64 * 1024

#: Seconds a request body may take to arrive (``make_app(body_timeout=)``): then 408.
BODY_TIMEOUT: web.AppKey[float] = web.AppKey("body_timeout", float)

Item = tuple[dict[str, Any], Any]  # (where: {"index": i[, "line": n]}, event dict or Exception)

# Why a body's bytes are not events: each sentence written in English from its template (the answer's
# ``reason``), said in the reader's language by :func:`reason_in`, the position (line, column, byte) kept.
TRUNCATED_MSGPACK = N_("truncated msgpack: {count} bytes after event {index} end mid-map")
MSGPACK_TOO_DEEP = N_("not msgpack we accept from here on: nested too deep")
NOT_MSGPACK = N_("not msgpack from here on ({reason})")
NOT_UTF8 = N_("body is not UTF-8 ({reason} at byte {start})")
NOT_ARRAY = N_("not a JSON array: {reason}")
NOT_JSON_AT = N_("line {line}: not JSON ({reason} at column {column})")
NOT_JSON = N_("line {line}: not JSON ({reason})")
DECODE: tuple[str, ...] = (
    TRUNCATED_MSGPACK,
    MSGPACK_TOO_DEEP,
    NOT_MSGPACK,
    NOT_UTF8,
    NOT_ARRAY,
    NOT_JSON_AT,
    NOT_JSON,
)
#: The parsers' own words inside them (Python's JSON and UTF-8 decoders, msgpack), said again too.
DECODE_PIECES: tuple[str, ...] = (
    *JSON_REASONS,
    *MSGPACK_REASONS,
    N_("{reason}: line {line} column {column} (char {char})"),  # str(json.JSONDecodeError)
    N_("invalid start byte"),
    N_("invalid continuation byte"),
    N_("unexpected end of data"),
)


def reason_in(lang: str, reason: str, error: Exception | None = None) -> str:
    """Why an event was refused (an answer's ``reason``) in ``lang``: the contract's refusal by
    replay.i18n.errors (where, and the contract's reason, the field's name and the value as they are), a
    body that is not events by :data:`DECODE`; as it is in English or when no template wrote it."""
    if lang == i18n.DEFAULT:
        return reason
    if isinstance(error, InputError):
        from replay.i18n.errors import line

        return line(lang, error)
    from replay.i18n.sentences import translate

    return translate(lang, DECODE, reason, DECODE_PIECES) or reason


class TooManyEvents(Exception):
    """The body holds more events than one request may carry."""

    def __init__(self, limit: int) -> None:
        super().__init__(f"more than {limit} events in one request; send them in several requests")
        self.limit = limit


def parse_events(body: bytes, content_type: str, max_events: int = 10_000) -> list[Item]:
    """Split a POST body into (where, item) pairs; an item that cannot be an event is an Exception.

    ``where`` locates the item for the answer: ``{"index": i}`` plus ``{"line": n}`` for JSON Lines.
    Raises :class:`TooManyEvents` beyond ``max_events`` (checked while reading: the rest is not parsed).
    """
    items: list[Item] = []

    def add(where: dict[str, Any], obj: Any, shallow: bool = False) -> None:
        if len(items) >= max_events:
            raise TooManyEvents(max_events)
        if not isinstance(obj, Exception) and not (shallow and type(obj) is dict):
            try:
                obj = edge_event(obj, line=where.get("line"))
            except EventError as exc:
                obj = exc
        items.append((where, obj))

    if content_type in MSGPACK_TYPES:
        unpacker = msgpack.Unpacker(raw=False, strict_map_key=False, max_buffer_size=max(len(body), 1))
        unpacker.feed(body)
        end = 0
        while True:
            try:
                obj = unpacker.unpack()
            except msgpack.OutOfData:
                if end < len(body):  # a map cut short at the end of the body: never dropped silently
                    add(
                        {"index": len(items)},
                        ValueError(TRUNCATED_MSGPACK.format(count=len(body) - end, index=len(items))),
                    )
                return items
            except (msgpack.StackError, RecursionError):
                add({"index": len(items)}, ValueError(MSGPACK_TOO_DEEP))
                return items
            except Exception as exc:
                add({"index": len(items)}, ValueError(NOT_MSGPACK.format(reason=exc)))
                return items
            end = unpacker.tell()
            add({"index": len(items)}, obj)
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError as exc:
        return [({"index": 0}, ValueError(NOT_UTF8.format(reason=exc.reason, start=exc.start)))]
    stripped = text.strip()
    if not stripped:
        return []
    if stripped.startswith("["):
        try:
            array = loads_json(stripped)
        except ValueError as exc:
            return [({"index": 0}, ValueError(NOT_ARRAY.format(reason=exc)))]
        if len(array) > max_events:
            raise TooManyEvents(max_events)
        for i, obj in enumerate(array):
            add({"index": i}, obj)
        return items
    try:
        add({"index": 0}, loads_json(stripped), shallow_json(stripped))
        return items
    except ValueError:
        pass  # JSON Lines
    for n, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        where = {"index": len(items), "line": n}
        try:
            obj = loads_json(line)
        except json.JSONDecodeError as exc:
            obj = ValueError(NOT_JSON_AT.format(line=n, reason=exc.msg, column=exc.colno))
        except ValueError as exc:
            obj = ValueError(NOT_JSON.format(line=n, reason=exc))
        add(where, obj, shallow_json(line))
    return items


async def read_events(body: bytes, content_type: str, max_events: int) -> list[Item]:
    """:func:`parse_events`, off the event loop for a body above :data:`INLINE_BYTES`."""
    if len(body) <= INLINE_BYTES:
        return parse_events(body, content_type, max_events)
    return await asyncio.to_thread(parse_events, body, content_type, max_events)


async def read_body(request: web.Request, timeout: float, limit: int | None = None) -> bytes:
    """The request's body, which must arrive within ``timeout`` seconds (else 408 ``body_timeout``: a
    client that sends its head and then nothing never holds a connection, and a worker, for long) and,
    with ``limit``, hold at most that many bytes (else 413; aiohttp's ``client_max_size`` bounds the
    rest)."""
    try:
        async with asyncio.timeout(timeout):
            if limit is None:
                return await request.read()
            body = await request.content.read(limit + 1)
    except TimeoutError:
        raise Problem.said(
            408, "body_timeout", "the body did not arrive within {timeout} s", timeout=format(timeout, "g")
        ) from None
    if len(body) > limit:
        raise Problem.said(413, "body_too_large", "the body is larger than {limit} bytes", limit=limit)
    return body
