"""The shape of one decoded event at the edge, before anything else reads it (docs/events.md, "Limits").

The same rules for files (``replay.codec``), HTTP bodies and Kafka messages: string keys at every level,
nesting at most :data:`MAX_DEPTH` deep, integral floats taken as the integers they equal, 64-bit
integers, finite floats, Unicode text. The schema comes after (:mod:`replay.contract.validate`).
"""

from __future__ import annotations

from typing import Any

from replay.contract.validate import BAD_KEY, NOT_A_MAP, TOO_DEEP, scalar_problem
from replay.engine import EventError

#: The deepest nesting an event may have: a value at most this many maps and lists below the event
#: itself (the contract's own events nest 3 deep; extra fields may go further). The same bound as the C
#: check of canonical messages (``replay/engine/_link.c``), so every transport refuses the same events.
MAX_DEPTH = 64
_EXACT_INT_FLOAT = 2.0**53
_INT_BOUND = 2**63  # MessagePack's integers: -2^63 to 2^64-1


def edge_event(obj: object, *, file: str | None = None, line: int | None = None) -> dict[str, Any]:
    """Check the shape of one decoded event at the edge, before anything else reads it.

    The same rules for files, HTTP bodies and Kafka messages (docs/events.md, "Limits"): an event is a map
    whose keys are strings at every level, nested at most :data:`MAX_DEPTH` deep; an integral number
    written as a float (``2.0``) is the integer it equals, as JSON Schema counts it, so an event has the
    same canonical bytes however it was written (the JSON reader already parses numbers so; MessagePack
    carries floats as they were sent, and they are turned into ints here, in place); every integer fits
    in 64 bits, every float is finite and every text is Unicode, wherever it is
    (:func:`replay.contract.validate.scalar_problem`: an extra field too, so that every event is archived
    in one encoding and every record is JSON). Raises :class:`replay.engine.errors.EventError` naming the
    field; the schema itself is checked later (``validate_event``). The walk is iterative: no input can
    exhaust the interpreter's stack.
    """
    if not isinstance(obj, dict):
        raise EventError(NOT_A_MAP.format(kind=_kind(obj)), file=file, line=line)
    stack: list[tuple[Any, int, str]] = [(obj, 0, "")]
    while stack:
        node, depth, path = stack.pop()
        if depth > MAX_DEPTH:
            raise EventError(
                TOO_DEEP.format(depth=MAX_DEPTH), field=path or None, file=file, line=line, **_id(obj)
            )
        if isinstance(node, dict):
            for key, value in node.items():
                if type(key) is not str or (not key.isascii() and scalar_problem(key)):
                    raise EventError(
                        BAD_KEY.format(kind=_kind(key), key=f"{key!r:.40}"),
                        field=path or None,
                        file=file,
                        line=line,
                        **_id(obj),
                    )
                kind = type(value)
                if kind is float and value.is_integer() and abs(value) < _EXACT_INT_FLOAT:
                    node[key] = int(value)
                elif kind is dict or kind is list:
                    stack.append((value, depth + 1, f"{path}.{key}" if path else key))
                elif _suspect(kind, value):
                    _scalar_ok(value, f"{path}.{key}" if path else key, obj, file, line)
        else:  # a list
            for i, value in enumerate(node):
                kind = type(value)
                if kind is float and value.is_integer() and abs(value) < _EXACT_INT_FLOAT:
                    node[i] = int(value)
                elif kind is dict or kind is list:
                    stack.append((value, depth + 1, f"{path}[{i}]"))
                elif _suspect(kind, value):
                    _scalar_ok(value, f"{path}[{i}]", obj, file, line)
    return obj


def _suspect(kind: type, value: Any) -> bool:
    """Whether a scalar needs :func:`scalar_problem` (cheap tests first: most values are small integers,
    ASCII text or finite floats)."""
    if kind is int:
        return not -_INT_BOUND <= value < 2 * _INT_BOUND
    if kind is str:
        return not value.isascii()
    return kind is float


def _scalar_ok(value: Any, path: str, event: dict[Any, Any], file: str | None, line: int | None) -> None:
    why = scalar_problem(value)
    if why is not None:
        raise EventError(why, field=path, file=file, line=line, **_id(event))


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
