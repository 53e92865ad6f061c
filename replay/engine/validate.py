"""Validation at the edge: events, records and rulesets against the JSON Schemas in ``schemas/``.

The schemas are compiled with fastjsonschema once, at import. An event is checked by the validator of its own
type (``$defs/<type>`` of ``events.schema.json``, envelope included), found by a dict lookup on ``type``; only
an event whose type is missing or unknown goes through the envelope validator alone. So a valid event costs
one generated function call, and an error names the one field at fault instead of "matched none of 29
alternatives".

A fast path comes first (``validate_event`` only): msgspec ``Struct`` types generated at import from the
same ``$defs`` (envelope merged in; ``const``/``enum`` as ``Literal``; ``minimum``, ``minLength`` as
``Meta``; ``pattern`` and ``format: date-time`` as one ``Meta`` pattern made of fastjsonschema's own
compiled expressions, ``$`` already rewritten to "end of string"), one per event type, checked with
``msgspec.convert(event, Struct)``. It may only say "valid": whatever it does not accept, for any reason,
goes to the fastjsonschema validator, which decides and words the error exactly as before. So it must
never accept what the schema rejects, and it is built to be stricter where the two differ: floats such as
``3.0`` and huge-int edge cases are ints for JSON Schema but not for msgspec (slow path then), and every
value in a constrained place must be of an exact JSON type (``str``, ``int``, ``bool``, ``float``,
``None``, ``dict``, ``list``: a subclass could make ``len`` or ``==`` answer the generated code
differently from msgspec's C reading). The translator handles a small keyword set and gives up on a type
with anything else (today ``match_started`` and ``setup``: arrays of objects, ``uniqueItems``): a schema
change can make the fast path cover less, never accept more. A game's ``match`` id is the same on every
event: it is checked once by the schema's regex, then remembered (a bounded set of exact strings).
``tests/engine/test_validate_fast.py`` checks soundness (fuzzing, every single-field mutation of every
example, subclasses, timestamps) and that a deliberately loosened fast path is caught.

Measured with ``bench/validation.py`` (300 simulated games, 54,584 events, 98% of a fast-path type; one
core of the project's noisy 2-core machine, CPython 3.11.7, fastjsonschema 2.22.3, msgspec 0.23; best of 5,
three runs, "before" = the fastjsonschema path alone in the same run): events as simulated 6.9 to 10.8
µs -> 2.2 to 3.9 µs (2.8x to 3.5x); with ``at`` and ``id`` as a digital client sends them, 8.4 to 14.3 µs
-> 3.7 to 6.8 µs (2.1x to 2.8x; the date-time check is two regular expressions, as before). msgpack
decoding of the same events: 1.2 to 3.0 µs. The reference ``jsonschema`` validator on the whole document is
about two orders of magnitude slower. Compiling the validators and Structs costs about 0.1 s, at import.

Errors are :class:`replay.engine.errors.EventError` (events), :class:`RecordError` and
:class:`RulesetError`, all :class:`replay.engine.errors.InputError`: ``message`` says what is wrong in
plain words, ``field`` is the path of the offending value (``card.hp``, ``bench[0].pid``, ``players``),
and ``match`` / ``seq`` are filled from the event when they are themselves valid. ``str(exc)`` reads e.g.
``match m1 seq 0: field seq: must be an integer >= 1 (got 0)``. Nothing from fastjsonschema ever escapes.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Mapping
from typing import Annotated, Any, Final, Literal, TypeAlias, cast, get_origin

import fastjsonschema
from fastjsonschema import JsonSchemaValueException
from msgspec import Meta, Struct, convert, defstruct

from replay.engine.errors import EventError, InputError
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


# ---------------------------------------------------------------------------------------------- fast path
#
# msgspec types generated from the same $defs, for the common case only (see the module docstring). A type
# the translator does not fully understand gets no fast path: the schema is the single source of truth, so a
# change to it can make the fast path cover less, never accept more.

# Keywords that constrain nothing for fastjsonschema (use_default=False: "default" is never applied).
_NOTES: Final = frozenset({"description", "title", "default", "$comment", "examples"})
# Value types whose every operation the generated validator uses (isinstance, len, ==, <, keys, [key],
# iteration) behaves like msgspec's C-level reading of the same value. A subclass could override those, so
# anything else (subclasses, tuples, bytes, Decimal...) anywhere in a constrained place goes the slow way.
_PLAIN: Final[frozenset[type]] = frozenset({str, int, bool, float, type(None), dict, list})
# fastjsonschema's own compiled regular expressions ("$" rewritten to "\Z"), taken from the validator
# it generated, so both sides run exactly the same expressions.
_REGEX: Final[dict[str, re.Pattern[str]]] = {
    key: regex
    for check in (_ENVELOPE, *_BY_TYPE.values())
    for key, regex in getattr(check, "__globals__", {}).get("REGEX_PATTERNS", {}).items()
}

# A nested check for values msgspec reads in C: (wire key, is_list, nested checks of the value's items).
_Nested: TypeAlias = tuple[tuple[str, bool, "_Nested"], ...]


class _Unsupported(Exception):
    """The translator met a keyword or a combination it does not handle: no fast path for that type."""


def _literal(values: list[Any]) -> Any:
    if not values or not all(type(v) is str for v in values):
        raise _Unsupported("enum/const of non-strings")
    return cast(Any, Literal)[tuple(values)]


def _deref(node: Mapping[str, Any], defs: Mapping[str, Any]) -> Mapping[str, Any]:
    """A node that is only a $ref (plus notes) is its target; a single-item allOf likewise."""
    while True:
        rest = {k: v for k, v in node.items() if k not in _NOTES}
        if set(rest) == {"$ref"}:
            ref = rest["$ref"]
            if not isinstance(ref, str) or not ref.startswith("#/$defs/"):
                raise _Unsupported(f"$ref {ref!r}")
            node = defs[ref[len("#/$defs/") :]]
        elif set(rest) == {"allOf"} and len(rest["allOf"]) == 1:
            node = rest["allOf"][0]
        else:
            return node


def _scalar(node: Mapping[str, Any], defs: Mapping[str, Any], name: str) -> tuple[Any, _Nested | None]:
    """msgspec type for a schema node, and the nested plain-type checks for its items or fields.

    The nested part is None for a scalar and a tuple for a container (checked with `_nested_plain`).
    """
    node = _deref(node, defs)
    keys = set(node) - _NOTES
    kind = node.get("type")
    if "enum" in node or "const" in node:
        if keys - {"enum", "const", "type"} or kind not in (None, "string") or {"enum", "const"} <= keys:
            raise _Unsupported("enum with other keywords")
        return _literal(list(node["enum"]) if "enum" in node else [node["const"]]), None
    if kind == "string":
        if keys - {"type", "minLength", "pattern", "format"}:
            raise _Unsupported(f"string keywords {sorted(keys)}")
        meta: dict[str, Any] = {}
        patterns = []
        if "minLength" in node:
            meta["min_length"] = node["minLength"]
        if "pattern" in node:
            patterns.append(_REGEX[node["pattern"]].pattern)
        if "format" in node:
            if node["format"] != "date-time":
                raise _Unsupported(f"format {node['format']}")
            patterns.append(_REGEX["date-time_re_pattern"].pattern)
        if patterns:
            # fastjsonschema calls .search on patterns and .match on formats; all of them here must match
            # at the start (lookaheads after \A): the same as theirs for "^..." patterns, never looser.
            meta["pattern"] = "\\A" + "".join(f"(?=(?:{p}))" for p in patterns)
        return (cast(Any, Annotated)[str, Meta(**meta)] if meta else str), None
    if kind == "integer":
        if keys - {"type", "minimum", "maximum"}:
            raise _Unsupported(f"integer keywords {sorted(keys)}")
        for keyword in ("minimum", "maximum"):
            if keyword in node and type(node[keyword]) is not int:
                raise _Unsupported(f"non-integer {keyword}")
        if keys & {"minimum", "maximum"}:
            return cast(Any, Annotated)[int, Meta(ge=node.get("minimum"), le=node.get("maximum"))], None
        return int, None
    if kind == "boolean" and keys == {"type"}:
        return bool, None
    if kind == "array" and keys <= {"type", "items"}:
        item, nested = _scalar(node["items"], defs, name) if "items" in node else (Any, None)
        if nested is not None:
            raise _Unsupported("array of containers")
        return cast(Any, list)[item], ()
    if kind == "object":
        if keys == {"type"}:
            return dict[Any, Any], ()
        return _struct(node, defs, name)
    raise _Unsupported(f"node {sorted(keys)}")


def _merge(into: dict[str, Any], node: Mapping[str, Any], defs: Mapping[str, Any]) -> None:
    """Collect properties and required keys of an object node and of its allOf parts (all must hold)."""
    node = _deref(node, defs)
    keys = set(node) - _NOTES
    if node.get("type") != "object" or keys - {"type", "allOf", "required", "properties"}:
        raise _Unsupported(f"object keywords {sorted(keys)}")
    for part in node.get("allOf", []):
        _merge(into, part, defs)
    into["required"].update(node.get("required", []))
    for name, prop in node.get("properties", {}).items():
        into["properties"].setdefault(name, []).append(_deref(prop, defs))


def _struct(
    node: Mapping[str, Any], defs: Mapping[str, Any], name: str, *, match: bool = False
) -> tuple[type[Struct], _Nested]:
    """A Struct for an object node (its allOf parts merged) and the plain-type checks of its containers.

    ``match``: the "match" property is declared a plain str, checked by the caller (``_match_ok``); it must
    then be required and be exactly the match_id definition.
    """
    merged: dict[str, Any] = {"required": set(), "properties": {}}
    _merge(merged, node, defs)
    fields: list[tuple[str, Any] | tuple[str, Any, Any]] = []
    rename: dict[str, str] = {}
    nested: list[tuple[str, bool, _Nested]] = []
    for i, (key, parts) in enumerate(sorted(merged["properties"].items())):
        if match and key == "match":
            if parts != [defs["match_id"]] or key not in merged["required"]:
                raise _Unsupported("match is not the required match_id")
            ftype, inner = str, None
        elif len(parts) == 1:
            ftype, inner = _scalar(parts[0], defs, f"{name}.{key}")
        else:  # the envelope's "type" enum and the event's const: the intersection
            sets = [_one_of(p) for p in parts]
            ftype, inner = _literal(sorted(set.intersection(*sets))), None
        attr = f"f{i}"
        rename[attr] = key
        if inner is not None:
            nested.append((key, get_origin(ftype) is list, inner))
        if key in merged["required"]:
            fields.append((attr, ftype))
        else:
            fields.append((attr, ftype, None))  # never checked: an absent field stays absent
    if set(merged["required"]) - set(merged["properties"]):
        raise _Unsupported("required key without a property")  # msgspec could not require it
    struct = defstruct(f"_Fast_{name}", fields, rename=rename, kw_only=True, gc=False)
    return struct, tuple(nested)


def _one_of(node: Mapping[str, Any]) -> set[str]:
    keys = set(node) - _NOTES
    if keys == {"const"} and type(node["const"]) is str:
        return {node["const"]}
    if (
        keys in ({"enum"}, {"enum", "type"})
        and node.get("type", "string") == "string"
        and all(type(v) is str for v in node["enum"])
    ):
        return set(node["enum"])
    raise _Unsupported("two definitions of one property")


def _fast_types(names: Collection[str], defs: Mapping[str, Any]) -> dict[str, tuple[type[Struct], _Nested]]:
    """The fast-path Struct of each event type in ``names`` the translator fully understands."""
    out = {}
    for name in names:
        try:
            out[name] = _struct(defs[name], defs, name, match=True)
        except (_Unsupported, KeyError, TypeError, ValueError, re.error):
            continue
    return out


def _nested_plain(value: Any, nested: _Nested) -> bool:
    for key, is_list, inner in nested:
        if key in value:
            items = value[key] if is_list else value[key].values()
            if not _PLAIN.issuperset(map(type, items)):
                return False
            if inner and not is_list and not _nested_plain(value[key], inner):
                return False
    return True


def _match_ok(match: str) -> bool:
    """A stream key passes the schema's own regex; a game's key is checked once, then remembered."""
    if match in _MATCHES:
        return True
    if _MATCH_ID.search(match) is None:
        return False
    if len(_MATCHES) >= 10_000:  # a worker sees many games: keep the memory bounded
        _MATCHES.clear()
    _MATCHES.add(match)
    return True


_MATCH_ID: Final = _REGEX[_EVENTS_SCHEMA["$defs"]["match_id"]["pattern"]]
_MATCHES: Final[set[str]] = set()  # exact str values that passed _MATCH_ID
_FAST: Final = _fast_types(EVENT_TYPES, _EVENTS_SCHEMA["$defs"])


def validate_event(event: object, *, file: str | None = None, line: int | None = None) -> None:
    """Check one event against ``schemas/events.schema.json`` (contract §1).

    Returns ``None`` if the event is valid; unknown extra fields are allowed. Otherwise raises
    :class:`replay.engine.errors.EventError` naming the field (``card.hp``), and the event's match and seq
    when
    those are valid; ``file`` and ``line`` are passed through for the message. The event is never modified.
    """
    if type(event) is dict:
        # The fast path: it only ever says "valid"; anything it does not accept is decided below.
        kind = event.get("type")
        fast = _FAST.get(kind) if type(kind) is str else None
        if fast is not None and _PLAIN.issuperset(map(type, event.values())):
            try:
                convert(event, fast[0])
            except Exception:  # msgspec said no (or could not say): the schema decides, below
                pass
            else:
                match = event["match"]
                if (match in _MATCHES or _match_ok(match)) and (not fast[1] or _nested_plain(event, fast[1])):
                    return
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
    """Check a ruleset document (``replay/engine/rulesets/*.json``) against ``schemas/ruleset.schema.json``.

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
                words += f"{' and' if 'minimum' in definition else ''} <= {definition['maximum']}"
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
