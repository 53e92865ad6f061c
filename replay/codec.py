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

from replay.engine.errors import InputError
from replay.engine.validate import validate_event

JSON_SUFFIXES = (".jsonl", ".json", ".ndjson")
MSGPACK_SUFFIXES = (".msgpack", ".mpk", ".msgp")


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
        items = value if isinstance(value, list) else [value]
        for item in items:
            yield lineno, _checked(item, name, lineno, validate)


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
        except (ValueError, msgpack.UnpackException) as exc:
            raise InputError(
                f"not valid MessagePack at event {index + 1}: {exc}", file=name, line=index + 1
            ) from None
        index += 1
        end = unpacker.tell()
        yield index, _checked(item, name, index, validate)


def _number(text: str) -> float | int:
    """JSON numbers: an integral one written with a fraction (``1.0``) is the integer it equals, as JSON
    Schema counts it, so the same event has the same canonical bytes however it was written."""
    value = float(text)
    return int(value) if value.is_integer() and abs(value) < 2**53 else value


def _checked(item: object, name: str, line: int, validate: bool) -> dict[str, Any]:
    if validate:
        validate_event(item, file=name, line=line)
    elif not isinstance(item, dict):
        raise InputError("an event must be a map", file=name, line=line)
    assert isinstance(item, dict)
    return item


def encode_jsonl(events: list[dict[str, Any]]) -> bytes:
    """Events as JSON Lines (UTF-8, one event per line)."""
    return b"".join(json.dumps(e, ensure_ascii=False).encode("utf-8") + b"\n" for e in events)


def encode_msgpack(events: list[dict[str, Any]]) -> bytes:
    """Events as a MessagePack stream (concatenated maps)."""
    packer = msgpack.Packer()
    return b"".join(packer.pack(e) for e in events)
