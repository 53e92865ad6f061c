"""Reading event files: JSON Lines (``.jsonl``, ``.json``), MessagePack streams (``.msgpack``) and stdin.

Every event is validated against the contract as it is read; a problem raises
:class:`replay.engine.errors.InputError` naming the file, the line (or the event's position in a MessagePack
stream) and the field, so nothing is silently dropped and no traceback reaches a user.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import msgpack

from replay.engine.chain import C_CANONICAL
from replay.engine.errors import EventError, InputError
from replay.engine.validate import validate_event

JSON_SUFFIXES = (".jsonl", ".json", ".ndjson")
MSGPACK_SUFFIXES = (".msgpack", ".mpk", ".msgp")

#: The deepest nesting an event may have: a value at most this many maps and lists below the event
#: itself (the contract's own events nest 3 deep; extra fields may go further). The same bound as the C
#: check of canonical messages (``replay/engine/_link.c``), so every transport refuses the same events.
MAX_DEPTH = 64
_EXACT_INT_FLOAT = 2.0**53


def shallow_json(text: str | bytes) -> bool:
    """True when JSON ``text`` cannot nest deeper than :data:`MAX_DEPTH` (it has no more brackets than
    that, strings included). Its events, as :func:`loads_json` reads them, then pass :func:`edge_event`
    without a walk: JSON keys are strings, and integral numbers are ints already."""
    if isinstance(text, str):
        return text.count("{") + text.count("[") <= MAX_DEPTH
    return text.count(b"{") + text.count(b"[") <= MAX_DEPTH


def edge_event(obj: object, *, file: str | None = None, line: int | None = None) -> dict[str, Any]:
    """Check the shape of one decoded event at the edge, before anything else reads it.

    The same rules for files, HTTP bodies and Kafka messages (docs/events.md, "Limits"): an event is a map
    whose keys are strings at every level, nested at most :data:`MAX_DEPTH` deep; an integral number
    written as a float (``2.0``) is the integer it equals, as JSON Schema counts it, so an event has the
    same canonical bytes however it was written (the JSON reader already parses numbers so; MessagePack
    carries floats as they were sent, and they are turned into ints here, in place). Raises
    :class:`replay.engine.errors.EventError` naming the field; the schema itself is checked later
    (``validate_event``). The walk is iterative: no input can exhaust the interpreter's stack.
    """
    if not isinstance(obj, dict):
        raise EventError(f"an event must be an object (a map), got {_kind(obj)}", file=file, line=line)
    stack: list[tuple[Any, int, str]] = [(obj, 0, "")]
    while stack:
        node, depth, path = stack.pop()
        if depth > MAX_DEPTH:
            raise EventError(
                f"nested deeper than {MAX_DEPTH} levels", field=path or None, file=file, line=line, **_id(obj)
            )
        if isinstance(node, dict):
            for key, value in node.items():
                if type(key) is not str:
                    raise EventError(
                        f"map keys must be strings, got {_kind(key)} {key!r:.40}",
                        field=path or None,
                        file=file,
                        line=line,
                        **_id(obj),
                    )
                if type(value) is float and value.is_integer() and abs(value) < _EXACT_INT_FLOAT:
                    node[key] = int(value)
                elif isinstance(value, dict | list):
                    stack.append((value, depth + 1, f"{path}.{key}" if path else key))
        else:  # a list
            for i, value in enumerate(node):
                if type(value) is float and value.is_integer() and abs(value) < _EXACT_INT_FLOAT:
                    node[i] = int(value)
                elif isinstance(value, dict | list):
                    stack.append((value, depth + 1, f"{path}[{i}]"))
    return obj


def _kind(value: object) -> str:
    return {dict: "a map", list: "a list", str: "a string", int: "an integer", float: "a number"}.get(
        type(value), type(value).__name__
    )


def _id(event: dict[Any, Any]) -> dict[str, Any]:
    """The event's match and seq for an error message, when they look right."""
    where: dict[str, Any] = {}
    match, seq = event.get("match"), event.get("seq")
    if type(match) is str and 0 < len(match) <= 128:
        where["match"] = match
    if type(seq) is int and 0 < seq < 2**63:
        where["seq"] = seq
    return where


def read_events(path: str, *, validate: bool = True) -> Iterator[tuple[int, dict[str, Any]]]:
    """Yield ``(line, event)`` from ``path`` (``-`` is stdin; the format is sniffed there).

    For MessagePack the "line" is the event's 1-based position in the stream.
    """
    name = "<stdin>" if path == "-" else path
    if path == "-":
        data = sys.stdin.buffer.read()
    else:
        try:
            data = Path(path).read_bytes()
        except FileNotFoundError:
            raise InputError("no such file", file=name) from None
        except IsADirectoryError:
            raise InputError("is a directory, not an event file", file=name) from None
        except OSError as exc:
            raise InputError(f"cannot read: {exc.strerror}", file=name) from None
    yield from decode_events(data, name=name, validate=validate)


def sniff_msgpack(name: str, data: bytes) -> bool:
    """True when ``data`` should be read as MessagePack (by suffix, else by its first byte)."""
    lower = name.lower()
    if lower.endswith(MSGPACK_SUFFIXES):
        return True
    if lower.endswith(JSON_SUFFIXES):
        return False
    head = data.lstrip()[:1]
    return bool(head) and head not in (b"{", b"[")


def decode_events(
    data: bytes, *, name: str = "<input>", validate: bool = True
) -> Iterator[tuple[int, dict[str, Any]]]:
    """Decode a whole file's bytes into events (see :func:`read_events`)."""
    if sniff_msgpack(name, data):
        yield from _msgpack_events(data, name, validate)
    else:
        yield from _jsonl_events(data, name, validate)


def _jsonl_events(data: bytes, name: str, validate: bool) -> Iterator[tuple[int, dict[str, Any]]]:
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    for lineno, raw in enumerate(data.split(b"\n"), 1):
        raw = raw.strip()
        if not raw:
            continue
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            raise InputError(
                "not UTF-8 text (is this a MessagePack file? name it .msgpack)", file=name, line=lineno
            ) from None
        try:
            value = json.loads(text, parse_float=_number)
        except json.JSONDecodeError as exc:
            raise InputError(
                f"not valid JSON: {exc.msg} at column {exc.colno}", file=name, line=lineno
            ) from None
        except RecursionError:  # the C parser's own bound, far above MAX_DEPTH
            raise InputError(f"nested deeper than {MAX_DEPTH} levels", file=name, line=lineno) from None
        items = value if isinstance(value, list) else [value]
        shallow = shallow_json(raw)
        for item in items:
            yield lineno, _checked(item, name, lineno, validate, shallow=shallow)


def _msgpack_events(data: bytes, name: str, validate: bool) -> Iterator[tuple[int, dict[str, Any]]]:
    unpacker = msgpack.Unpacker(raw=False, strict_map_key=False)
    unpacker.feed(data)
    index = 0
    end = 0  # byte offset just past the last whole event
    while True:
        try:
            item = unpacker.unpack()
        except msgpack.OutOfData:
            if end < len(data):
                raise InputError(
                    f"truncated MessagePack after event {index} (byte {end})", file=name, line=index + 1
                ) from None
            return
        except (msgpack.StackError, RecursionError):
            raise InputError(
                f"not valid MessagePack at event {index + 1}: nested deeper than {MAX_DEPTH} levels",
                file=name,
                line=index + 1,
            ) from None
        except (ValueError, msgpack.UnpackException) as exc:
            raise InputError(
                f"not valid MessagePack at event {index + 1}: {exc}", file=name, line=index + 1
            ) from None
        index += 1
        start, end = end, unpacker.tell()
        # Canonical bytes (what prizecheck produce writes) without a float: shape and depth are known good
        # (the C check bounds nesting at MAX_DEPTH and allows string keys only), as on the Kafka path.
        known = C_CANONICAL is not None and b"\xcb" not in data[start:end] and C_CANONICAL(data[start:end])
        yield index, _checked(item, name, index, validate, shallow=known)


def loads_json(text: str | bytes) -> Any:
    """One JSON value, numbers read as :func:`_number` reads them (the JSON reader of every transport).

    Raises ``ValueError`` (``json.JSONDecodeError``) for bad JSON, and ``ValueError`` naming the depth
    when the nesting is beyond the parser's own stack (the edge then refuses anything over MAX_DEPTH).
    """
    try:
        return json.loads(text, parse_float=_number)
    except RecursionError:
        raise ValueError(f"nested deeper than {MAX_DEPTH} levels") from None


def _number(text: str) -> float | int:
    """JSON numbers: an integral one written with a fraction (``1.0``) is the integer it equals, as JSON
    Schema counts it, so the same event has the same canonical bytes however it was written."""
    value = float(text)
    return int(value) if value.is_integer() and abs(value) < 2**53 else value


def _checked(item: object, name: str, line: int, validate: bool, *, shallow: bool = False) -> dict[str, Any]:
    event = item if shallow and type(item) is dict else edge_event(item, file=name, line=line)
    if validate:
        validate_event(event, file=name, line=line)
    return event


def encode_jsonl(events: list[dict[str, Any]]) -> bytes:
    """Events as JSON Lines (UTF-8, one event per line)."""
    return b"".join(json.dumps(e, ensure_ascii=False).encode("utf-8") + b"\n" for e in events)


def encode_msgpack(events: list[dict[str, Any]]) -> bytes:
    """Events as a MessagePack stream (concatenated maps)."""
    packer = msgpack.Packer()
    return b"".join(packer.pack(e) for e in events)
