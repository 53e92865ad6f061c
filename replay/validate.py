"""Validation at the edge: events, records and rulesets against the JSON Schemas in ``schemas/``.

The schemas are compiled with fastjsonschema once, at import. An event is checked by the validator of its own
type (``$defs/<type>`` of ``events.schema.json``, envelope included), found by a dict lookup on ``type``; only
an event whose type is missing or unknown goes through the envelope validator alone. So a valid event costs
one generated function call, and an error names the one field at fault instead of "matched none of 29
alternatives".

Measured on the project's 2-core machine (one core, CPython 3.11.7, fastjsonschema 2.22.3): 320,000 to
350,000 valid events per second (about 3 µs each) on a mix of every contract type weighted like a real game
(``bench/validation.py`` prints the figure against msgpack decoding in the same run). The
reference ``jsonschema`` validator on the whole document is about two orders of magnitude slower. Compiling
the 32 validators costs about 0.1 s, once, at import.

Errors are :class:`replay.errors.EventError` (events), :class:`RecordError` and :class:`RulesetError`, all
:class:`replay.errors.InputError`: ``message`` says what is wrong in plain words, ``field`` is the path of
the offending value (``card.hp``, ``bench[0].pid``, ``players``), and ``match`` / ``seq`` are filled from the
event when they are themselves valid. ``str(exc)`` reads e.g.
``match m1 seq 0: field seq: must be an integer >= 1 (got 0)``. Nothing from fastjsonschema ever escapes.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any, Final

import fastjsonschema
from fastjsonschema import JsonSchemaValueException

from replay.errors import EventError, InputError
from schemas import load_schema

__all__ = [
    "EVENT_TYPES",
    "RecordError",
    "RulesetError",
    "validate_event",
    "validate_record",
    "validate_ruleset",
]


class RecordError(InputError):
    """An end-of-game record that does not satisfy ``schemas/record.schema.json``."""


class RulesetError(InputError):
    """A ruleset document that does not satisfy ``schemas/ruleset.schema.json``."""


_Validator = Callable[[Any], Any]

_MATCH_RE: Final = re.compile(r"[A-Za-z0-9._:/-]{1,128}")


def _compile(schema: dict[str, Any], ref: str | None = None) -> _Validator:
    """Compile ``schema`` (or only ``#/$defs/<ref>`` of it, with every ``$defs`` in reach).

    ``use_default=False``: fastjsonschema would otherwise write ``default`` values into the validated data,
    and an event must reach the engine (and its hash chain) exactly as it was sent.
    """
    if ref is not None:
        schema = {"$schema": schema["$schema"], "$defs": schema["$defs"], "$ref": f"#/$defs/{ref}"}
    validator: _Validator = fastjsonschema.compile(schema, use_default=False)
    return validator


_EVENTS_SCHEMA: Final = load_schema("events")
EVENT_TYPES: Final[tuple[str, ...]] = tuple(_EVENTS_SCHEMA["$defs"]["envelope"]["properties"]["type"]["enum"])
"""Every event type of the contract, in contract order."""

_ENVELOPE: Final = _compile(_EVENTS_SCHEMA, "envelope")
_BY_TYPE: Final[dict[str, _Validator]] = {name: _compile(_EVENTS_SCHEMA, name) for name in EVENT_TYPES}
_RECORD: Final = _compile(load_schema("record"))
_RULESET: Final = _compile(load_schema("ruleset"))

# Patterns and formats that deserve a sentence rather than a regular expression.
_FORMAT_WORDS: Final = {
    "date-time": "must be an RFC 3339 date-time such as 2026-03-14T10:05:00Z",
    "date": "must be a date such as 2026-03-14",
}
_PATTERN_WORDS: Final = {
    "^[A-Za-z0-9._:/-]{1,128}$": "must be 1 to 128 characters from A-Z a-z 0-9 . _ : / -",
    "^[0-9a-f]{64}$": "must be 64 lowercase hex digits",
    "^[a-z][a-z0-9_]*$": "must be a snake_case code",
    "^prizecheck [^ ]+$": "must read 'prizecheck <version>'",
    "^[a-z0-9][a-z0-9._-]*$": "must be lowercase letters, digits, '.', '_' or '-'",
    _EVENTS_SCHEMA["$defs"]["timestamp"]["pattern"]: _FORMAT_WORDS["date-time"],
    "^[0-9]{4}-[0-9]{2}-[0-9]{2}$": _FORMAT_WORDS["date"],
}
_TYPE_WORDS: Final = {
    "integer": "an integer",
    "number": "a number",
    "string": "a string",
    "boolean": "true or false",
    "object": "an object",
    "array": "a list",
    "null": "null",
}


def validate_event(event: object, *, file: str | None = None, line: int | None = None) -> None:
    """Check one event against ``schemas/events.schema.json`` (contract §1).

    Returns ``None`` if the event is valid; unknown extra fields are allowed. Otherwise raises
    :class:`replay.errors.EventError` naming the field (``card.hp``), and the event's match and seq when
    those are valid; ``file`` and ``line`` are passed through for the message. The event is never modified.
    """
    if not isinstance(event, dict):
        raise EventError(f"an event must be an object (a map), got {_kind(event)}", file=file, line=line)
    kind = event.get("type")
    check = _BY_TYPE.get(kind) if isinstance(kind, str) else None
    try:
        if check is not None:
            check(event)
            return
        _ENVELOPE(event)
    except JsonSchemaValueException as exc:
        message, field = _explain(exc, "event")
        raise EventError(message, field=field, file=file, line=line, **_where(event)) from None
    except Exception as exc:  # a value the generated code cannot handle (e.g. absurdly deep nesting)
        raise EventError(
            f"cannot be validated ({type(exc).__name__})", file=file, line=line, **_where(event)
        ) from None
    # The envelope passed, so "type" is a known type and was dispatched above; kept as a safety net.
    raise EventError(f"unknown event type {_show(kind)}", field="type", file=file, line=line, **_where(event))


def validate_record(record: object) -> None:
    """Check an end-of-game record against ``schemas/record.schema.json`` (contract §3).

    Raises :class:`RecordError` naming the field (``result.reason``, ``knockouts[2].window``) and the
    record's match.
    """
    where: dict[str, Any] = {}
    if isinstance(record, dict):
        match = record.get("match")
        if isinstance(match, str) and _MATCH_RE.fullmatch(match):
            where["match"] = match
    _run(_RECORD, record, RecordError, "record", where)


def validate_ruleset(doc: object, *, file: str | None = None) -> None:
    """Check a ruleset document (``replay/rulesets/*.json``) against ``schemas/ruleset.schema.json``.

    Raises :class:`RulesetError` naming the field (``playoff.won_by``) and ``file`` if given.
    """
    _run(_RULESET, doc, RulesetError, "ruleset", {"file": file})


def _run(
    validator: _Validator, doc: object, error: type[InputError], what: str, where: dict[str, Any]
) -> None:
    try:
        validator(doc)
    except JsonSchemaValueException as exc:
        message, field = _explain(exc, what)
        raise error(message, field=field, **where) from None
    except Exception as exc:
        raise error(f"cannot be validated ({type(exc).__name__})", **where) from None


def _where(event: Mapping[Any, Any]) -> dict[str, Any]:
    """The event's match and seq for the error, only when they are valid themselves."""
    where: dict[str, Any] = {}
    match = event.get("match")
    if isinstance(match, str) and _MATCH_RE.fullmatch(match):
        where["match"] = match
    seq = event.get("seq")
    if isinstance(seq, int) and not isinstance(seq, bool) and -(10**18) < seq < 10**18:
        where["seq"] = seq
    return where


def _explain(exc: JsonSchemaValueException, what: str) -> tuple[str, str | None]:
    """Turn fastjsonschema's exception into (plain message, field path)."""
    name = exc.name or "data"
    field = name[5:] if name.startswith("data.") else None if name == "data" else name
    rule = exc.rule
    value = exc.value
    definition = exc.definition if isinstance(exc.definition, dict) else {}
    got = f" (got {_show(value)})"

    if rule == "required":
        required = definition.get("required", [])
        have = value if isinstance(value, dict) else {}
        missing = [key for key in required if key not in have] or list(required)[:1]
        path = [f"{field}.{key}" if field else key for key in missing]
        noun = "field" if len(missing) == 1 else "fields"
        return f"missing required {noun} " + ", ".join(repr(key) for key in missing), path[
            0
        ] if path else field
    if rule == "enum" and field == "type" and what == "event" and isinstance(value, str):
        return f"unknown event type {_show(value)}", field
    if rule in ("type", "minimum", "maximum", "minLength"):
        return "must be " + _expected(definition) + got, field
    if rule == "enum":
        choices = definition.get("enum", [])
        return "must be one of " + ", ".join(str(c) for c in choices) + got, field
    if rule == "const":
        return f"must be {_show(definition.get('const'))}" + got, field
    if rule == "pattern":
        pattern = definition.get("pattern", "")
        return _PATTERN_WORDS.get(pattern, f"must match the pattern {pattern}") + got, field
    if rule == "format":
        fmt = definition.get("format", "")
        return _FORMAT_WORDS.get(fmt, f"must be a valid {fmt}") + got, field
    if rule == "maxLength":
        return f"must be at most {definition.get('maxLength')} characters long" + got, field
    if rule in ("minItems", "maxItems"):
        low, high = definition.get("minItems"), definition.get("maxItems")
        if low is not None and low == high:
            size = f"exactly {low} item" + ("" if low == 1 else "s")
        elif rule == "minItems":
            size = f"at least {low} item" + ("" if low == 1 else "s")
        else:
            size = f"at most {high} item" + ("" if high == 1 else "s")
        count = len(value) if isinstance(value, list | tuple) else "?"
        return f"must be a list of {size} (got {count})", field
    if rule == "uniqueItems":
        return "must not list the same item twice" + got, field
    if rule == "additionalProperties":
        known = definition.get("properties", {})
        extra = sorted(str(k) for k in value if k not in known) if isinstance(value, dict) else []
        if extra:
            where = f"{field}.{extra[0]}" if field else extra[0]
            return f"unknown field {extra[0]!r} (allowed: {', '.join(known)})", where
        return "has unknown fields", field
    if rule in ("anyOf", "oneOf"):
        return _any_of(definition, value, got), field
    # Any other keyword: fastjsonschema's own words, without its "data." prefix.
    text = str(exc.message)
    return (text[len(name) + 1 :] if text.startswith(name + " ") else text), field


def _expected(definition: Mapping[str, Any]) -> str:
    """What a value of ``definition`` looks like, e.g. "an integer >= 1", "a non-empty string or null"."""
    types = definition.get("type", [])
    names = [types] if isinstance(types, str) else list(types)
    parts = []
    for name in names:
        words = _TYPE_WORDS.get(name, str(name))
        if name in ("integer", "number"):
            if "minimum" in definition:
                words += f" >= {definition['minimum']}"
            if "maximum" in definition:
                words += f" <= {definition['maximum']}"
        elif name == "string" and definition.get("minLength") == 1:
            words = "a non-empty string"
        elif name == "string" and "minLength" in definition:
            words += f" of at least {definition['minLength']} characters"
        parts.append(words)
    return " or ".join(parts) or "a valid value"


def _any_of(definition: Mapping[str, Any], value: object, got: str) -> str:
    """anyOf is only used for "X or null" (and record cards): name the alternatives."""
    options = definition.get("anyOf") or definition.get("oneOf") or []
    words = []
    for option in options:
        if isinstance(option, dict) and "type" in option:
            words.append(_expected(option))
        elif isinstance(option, dict) and "$ref" in option:
            words.append("a valid " + str(option["$ref"]).rsplit("/", 1)[-1].replace("_", " "))
        else:
            words.append("a valid value")
    return "must be " + " or ".join(words) + got


def _kind(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list | tuple):
        return "a list"
    if isinstance(value, bytes | bytearray):
        return "bytes"
    return type(value).__name__


def _show(value: object) -> str:
    """A short, safe rendering of a user value for a message (never huge, never raising)."""
    text = _render(value, 2)
    return text if len(text) <= 60 else text[:57] + "..."


def _render(value: object, depth: int) -> str:
    if isinstance(value, bool) or value is None:
        return "true" if value is True else "false" if value is False else "null"
    if isinstance(value, int):
        return str(value) if -(10**30) < value < 10**30 else "a very large integer"
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, str):
        return repr(value[:61])
    if isinstance(value, list | tuple):
        if depth == 0:
            return "[...]"
        return (
            "["
            + ", ".join(_render(item, depth - 1) for item in value[:5])
            + (", ...]" if len(value) > 5 else "]")
        )
    if isinstance(value, dict):
        return "{...}"
    return _kind(value)
