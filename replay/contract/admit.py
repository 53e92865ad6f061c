"""One edge for every event: decode, shape, schema, canonical bytes (:func:`admit`).

Every transport hands an event here before it is applied or archived: the HTTP edge and the console (the
events they post go through the ingest core, :mod:`streams.ingest`), the Kafka workers (the same core),
the events held behind a gap when they are read back from the store, and ``prizecheck check`` reading a
topic. Each step raises :class:`replay.engine.errors.EventError` naming the match, the seq and the field,
worded the same whichever transport brought the event.
"""

from __future__ import annotations

from typing import Any

import msgpack
import msgspec

from replay.contract.shape import MAX_DEPTH, edge_event
from replay.contract.validate import validate_event
from replay.engine import C_CANONICAL, EventError, canonical_bytes, canonical_of

__all__ = ["admit", "archive_bytes", "decode_event"]

_decode_map = msgspec.msgpack.Decoder(dict[str, Any]).decode  # decode_event's path for canonical bytes


def admit(event: dict[str, Any] | bytes, raw: object = None) -> tuple[dict[str, Any], bytes]:
    """The event, checked, and the canonical bytes it is archived as: :func:`decode_event` (bytes: one
    msgpack map, its shape checked), :func:`replay.contract.validate.validate_event` (the JSON Schema),
    :func:`archive_bytes`. ``raw``: the message ``event`` was decoded from, when it was (archived as it
    came when it is canonical); bytes given as ``event`` are their own. Raises EventError."""
    ev = decode_event(event)
    validate_event(ev)
    return ev, archive_bytes(ev, event if raw is None else raw)


def archive_bytes(ev: dict[str, Any], raw: object = None) -> bytes:
    """The archived bytes; an event the canonical encoding cannot take (non-string keys in an extra
    field, integers beyond 64 bits) is rejected here rather than failing later in the engine.

    ``raw``: the msgpack bytes ``ev`` was decoded from, if any: archived as they are when they are
    canonical already (``prizecheck produce`` sends them so), without encoding the event again."""
    try:
        return canonical_of(raw, ev) if type(raw) is bytes else canonical_bytes(ev)
    except (TypeError, ValueError, OverflowError) as exc:
        raise EventError(
            f"cannot be archived as canonical msgpack ({exc})", match=ev.get("match"), seq=ev.get("seq")
        ) from None


def decode_event(event: dict[str, Any] | bytes | bytearray | memoryview) -> dict[str, Any]:
    """The event as a dict: bytes must hold exactly one msgpack map. Raises EventError otherwise.

    Bytes are the edge (Kafka messages, HTTP msgpack bodies): their shape is checked by
    :func:`replay.contract.shape.edge_event`, the same rules as files. A dict comes from this process's
    own edge (the HTTP body parser) or code, and is taken as it is.
    """
    if type(event) is bytes and C_CANONICAL is not None and C_CANONICAL(event):
        # Canonical msgpack (as prizecheck produce sends it): one map, string keys, no ext types, nesting
        # within MAX_DEPTH (the C check's own bound), which msgspec decodes to just what msgpack.unpackb
        # gives, in about half the time. Only a float (0xcb) may still need the edge's integral rule.
        try:
            decoded = _decode_map(event)
        except msgspec.MsgspecError:  # not a map, or not UTF-8: worded below
            pass
        else:
            return edge_event(decoded) if b"\xcb" in event else decoded
    if isinstance(event, dict):
        return event
    if not isinstance(event, bytes | bytearray | memoryview):
        raise EventError(f"an event must be a map or msgpack bytes, got {type(event).__name__}")
    try:
        obj = msgpack.unpackb(bytes(event), raw=False, strict_map_key=False)
    except (msgpack.StackError, RecursionError):
        raise EventError(f"not msgpack we accept: nested deeper than {MAX_DEPTH} levels") from None
    except msgpack.ExtraData:
        raise EventError("not one msgpack map: trailing bytes after the first object") from None
    except Exception as exc:
        raise EventError(f"not msgpack ({type(exc).__name__}: {exc}); {len(event)} bytes") from None
    if not isinstance(obj, dict):
        kind = type(obj).__name__
        raise EventError(f"an event must be a msgpack map, got {kind}")
    return edge_event(obj)
