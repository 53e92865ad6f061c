"""Validation at the edge: events, records and rulesets against the JSON Schemas in ``schemas/``.

The schemas are compiled with fastjsonschema, each validator on its first use (compiling all 32 costs
0.1-0.3 s, more than a small replay). An event is checked by the validator of its own type
(``$defs/<type>`` of ``events.schema.json``, envelope included), found by a dict lookup on ``type``; only
an event whose type is missing or unknown goes through the envelope validator alone. So an error names the
one field at fault instead of "matched none of 29 alternatives".

A fast path comes first: msgspec ``Struct`` types generated at import from the same ``$defs`` (envelope
merged in; each tagged by its ``type``, so they form one tagged union; ``const``/``enum`` as ``Literal``;
``minimum``, ``minLength``/``maxLength``, ``minItems``/``maxItems`` as ``Meta``; ``uniqueItems`` of strings in
``__post_init__``; ``pattern`` and ``format: date-time`` as one ``Meta`` pattern made of the expressions
fastjsonschema compiles, ``$`` rewritten to "end of string", except the event timestamp, below). It may
only say "valid": whatever it does not accept, for any reason, goes to the fastjsonschema validator, which
decides and words the error exactly as before. So it must never accept what the schema rejects, and it is
built to be stricter where the two differ: floats such as ``3.0`` and huge-int edge cases are ints for
JSON Schema but not for msgspec (slow path then), and, for a dict, every value in a constrained place must
be of an exact JSON type (``str``, ``int``, ``bool``, ``float``, ``None``, ``dict``, ``list``: a subclass
could make ``len`` or ``==`` answer the generated code differently from msgspec's C reading). The
translator handles a small keyword set and gives up on a type with anything else: a schema change can make
the fast path cover less, never accept more (today it covers all 29 types). A game's ``match`` id is the
same on every event: it is checked once by the schema's regex, then remembered (a bounded set of exact
strings). The event timestamp (``at``: the schema's pattern and the date-time format) is checked in C
(``timestamps`` of ``replay/engine/_link.c``), a list at a time: its two regular expressions cost more than
decoding the event; without the C extension, the expressions.

The fast path runs two ways. :func:`validate_event` converts a dict (``msgspec.convert``), as the service
receives events. :func:`event_decoders` reads bytes straight into the Structs (MessagePack or JSON, a whole
chunk of events per call) and :meth:`EventDecoders.accepts` checks the rest (match ids, timestamps): that is
how ``prizecheck replay`` reads a file, without a dict per event (``replay/codec.py``).
``tests/engine/test_validate_fast.py`` and ``tests/engine/test_decode_fast.py`` check soundness (fuzzing,
every single-field mutation of every example, subclasses, timestamps against the regular expressions) and
that a deliberately loosened fast path is caught.

Measured with ``bench/validation.py`` before the fast path covered every type and before the C timestamp
(300 simulated games, 54,584 events, 98% of a fast-path type; one core of the project's noisy 2-core
machine, CPython 3.11.7, fastjsonschema 2.22.3, msgspec 0.23; best of 5, three runs, "before" = the
fastjsonschema path alone in the same run): events as simulated 6.9 to 10.8 µs -> 2.2 to 3.9 µs (2.8x to
3.5x); with ``at`` and ``id`` as a digital client sends them, 8.4 to 14.3 µs -> 3.7 to 6.8 µs (2.1x to
2.8x; the date-time check was then two regular expressions, about 70% of a typed decode). msgpack decoding
of the same events: 1.2 to 3.0 µs. The reference ``jsonschema`` validator on the whole document is about
two orders of magnitude slower. Building the Structs costs about 10 ms, at import.

Errors are :class:`replay.engine.errors.EventError` (events), :class:`RecordError` and
:class:`RulesetError`, all :class:`replay.engine.errors.InputError`: ``message`` says what is wrong in
plain words, ``field`` is the path of the offending value (``card.hp``, ``bench[0].pid``, ``players``),
and ``match`` / ``seq`` are filled from the event when they are themselves valid. ``str(exc)`` reads e.g.
``match m1 seq 0: field seq: must be an integer >= 1 (got 0)``. Nothing from fastjsonschema ever escapes.
"""

from __future__ import annotations

import contextlib
import math
import os
import re
import sys
from collections.abc import Callable, Collection, Iterator, Mapping
from functools import cache
from operator import attrgetter
from pathlib import Path
from types import CodeType
from typing import Annotated, Any, Final, Literal, NamedTuple, TypeAlias, Union, cast

import msgspec
from msgspec import Meta, Struct, convert, defstruct

from replay.engine import EventError, Game, InputError, RecordError, RulesetError
from schemas import load_schema

__all__ = [
    "EVENT_TYPES",
    "EventDecoders",
    "RecordError",
    "RulesetError",
    "event_decoders",
    "match_id_ok",
    "validate_event",
    "validate_record",
    "validate_ruleset",
]


_Validator = Callable[[Any], Any]

_MATCH_RE: Final = re.compile(r"[A-Za-z0-9._:/-]{1,128}")


def cache_dir() -> Path | None:
    """Where compiled validators are kept between processes: ``PRIZECHECK_CACHE_DIR`` (empty: nowhere),
    else ``$XDG_CACHE_HOME/prizecheck``, else ``~/.cache/prizecheck``; a ``validators`` folder in it."""
    root = os.environ.get("PRIZECHECK_CACHE_DIR")
    if root is None:
        home = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
        root = os.path.join(home, "prizecheck")
    return Path(root, "validators") if root else None


def _compile(schema: dict[str, Any], ref: str | None = None, digest: str | None = None) -> _Validator:
    """Compile ``schema`` (or only ``#/$defs/<ref>`` of it, with every ``$defs`` in reach).

    ``use_default=False``: fastjsonschema would otherwise write ``default`` values into the validated data,
    and an event must reach the engine (and its hash chain) exactly as it was sent.

    The generated code is kept compiled in :func:`cache_dir` (issue 40 item 2: generating and compiling
    the validators a sheet's 14 event types need was 30-40 ms of a 166 ms ``import sheet``; loading them
    back, under a millisecond), named by the digest of what makes it: the schema, fastjsonschema's
    version and the interpreter's bytecode. The same code either way, as ``pycache`` keeps a module's: a
    file that does not load is made again, and a folder that cannot be written is only not used.
    ``digest``: the SHA-256 of ``schema``'s JSON text (sorted keys), when the caller already has it.
    """
    import hashlib
    import json
    import marshal
    from importlib.util import MAGIC_NUMBER

    import fastjsonschema

    digest = digest or _digest(schema)
    if ref is not None:
        schema = {"$schema": schema["$schema"], "$defs": schema["$defs"], "$ref": f"#/$defs/{ref}"}
    made = json.dumps([digest, ref, fastjsonschema.VERSION, sys.implementation.cache_tag])
    folder = cache_dir()
    path = folder / f"{hashlib.sha256(made.encode() + MAGIC_NUMBER).hexdigest()}.bin" if folder else None
    code: CodeType | None = None
    if path is not None:
        try:
            loaded = marshal.loads(path.read_bytes())
            code = loaded if isinstance(loaded, CodeType) else None
        except (OSError, ValueError, EOFError, TypeError):
            code = None
    if code is None:
        source = fastjsonschema.compile_to_code(schema, use_default=False)
        code = compile(source, f"<schema {ref or 'root'}>", "exec")
        if path is not None:
            _keep(path, marshal.dumps(code))
    scope: dict[str, Any] = {}
    exec(code, scope)  # fastjsonschema's own generated module (compile_to_code): its globals, then validate
    validator: _Validator = scope["validate"]
    return validator


def _digest(schema: dict[str, Any]) -> str:
    """The SHA-256 of ``schema``'s JSON text, keys sorted: what names the validators kept from it."""
    import hashlib
    import json

    return hashlib.sha256(json.dumps(schema, sort_keys=True).encode()).hexdigest()


@cache
def _document(name: str) -> tuple[dict[str, Any], str]:
    """Schema ``name`` read once for all its validators (never changed by compiling them), and its digest:
    a sheet's 14 event types had the events schema read and serialised 14 times."""
    schema = load_schema(name)
    return schema, _digest(schema)


def _keep(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` whole or not at all (another process may read it meanwhile)."""
    tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp.write_bytes(data)
        os.replace(tmp, path)
    except OSError:  # a read-only home, a full disk: compiled again next time
        with contextlib.suppress(OSError):
            tmp.unlink(missing_ok=True)


class _Compiled:
    """A fastjsonschema validator compiled on its first call.

    Compiling all 32 costs about 0.1-0.3 s, more than a whole command's work on a small file, and a valid
    event never needs its validator when the fast path accepts it (``prizecheck replay`` of a simulated
    corpus compiles none of them).
    """

    def __init__(self, schema: str, ref: str | None = None) -> None:
        self.schema = schema
        self.ref = ref
        self.check: _Validator | None = None

    def __call__(self, data: Any) -> Any:
        if self.check is None:
            schema, digest = _document(self.schema)
            self.check = _compile(schema, self.ref, digest)
        return self.check(data)


_EVENTS_SCHEMA: Final = load_schema("events")
EVENT_TYPES: Final[tuple[str, ...]] = tuple(_EVENTS_SCHEMA["$defs"]["envelope"]["properties"]["type"]["enum"])
"""Every event type of the contract, in contract order."""

_ENVELOPE: Final[_Validator] = _Compiled("events", "envelope")
_BY_TYPE: Final[dict[str, _Validator]] = {name: _Compiled("events", name) for name in EVENT_TYPES}
_RECORD: Final[_Validator] = _Compiled("record")
_RULESET: Final[_Validator] = _Compiled("ruleset")


def N_(message: str) -> str:
    """Marks ``message`` for the catalogues (replay.i18n.N_: the contract sits below replay.i18n)."""
    return message


# The reasons a value is refused, as templates: the English message is ``template.format(...)``, the same
# everywhere (logs, the dead-letter topic, an English reader); where a person reads it in another
# language, replay.i18n.reasons reads the fields back out of the English by these templates and says the
# template's translation (issue 34 item 5). A field named ``expected`` or ``kind`` holds words of
# :data:`EXPECTED` (said again in the language); the others are the value, the names, the choices as they
# are.
MISSING_FIELD: Final = N_("missing required field {names}")
MISSING_FIELDS: Final = N_("missing required fields {names}")
UNKNOWN_TYPE: Final = N_("unknown event type {value}")
MUST_BE: Final = N_("must be {expected} (got {value})")
ONE_OF: Final = N_("must be one of {choices} (got {value})")
MATCH_PATTERN: Final = N_("must match the pattern {pattern} (got {value})")
VALID_FORMAT: Final = N_("must be a valid {format} (got {value})")
AT_MOST_CHARACTERS: Final = N_("must be at most {count} characters long (got {value})")
#: minItems / maxItems: (how, one item) -> the sentence.
ITEMS: Final[Mapping[tuple[str, bool], str]] = {
    ("exactly", True): N_("must be a list of exactly {size} item (got {count})"),
    ("exactly", False): N_("must be a list of exactly {size} items (got {count})"),
    ("at least", True): N_("must be a list of at least {size} item (got {count})"),
    ("at least", False): N_("must be a list of at least {size} items (got {count})"),
    ("at most", True): N_("must be a list of at most {size} item (got {count})"),
    ("at most", False): N_("must be a list of at most {size} items (got {count})"),
}
TWICE: Final = N_("must not list the same item twice (got {value})")
UNKNOWN_FIELD: Final = N_("unknown field {name} (allowed: {allowed})")
UNKNOWN_FIELDS: Final = N_("has unknown fields")
NOT_A_MAP: Final = N_("an event must be an object (a map), got {kind}")
NOT_VALIDATED: Final = N_("cannot be validated ({error})")
# what no encoding of an event can keep (scalar_problem, value_problem; the shape check,
# replay.contract.shape)
TOO_DEEP: Final = N_("nested deeper than {depth} levels")
BAD_KEY: Final = N_("map keys must be strings of Unicode text, got {kind} {key}")
BEYOND_64_BITS: Final = N_("must be an integer within 64 bits (-2^63 to 2^64-1)")
NOT_FINITE: Final = N_("must be a finite number (got {value})")
SURROGATE: Final = N_("must be Unicode text (it holds a lone surrogate)")
KEY_SURROGATE: Final = N_("keys must be Unicode text (one holds a lone surrogate)")

# Patterns and formats that deserve a sentence rather than a regular expression.
_FORMAT_WORDS: Final = {
    "date-time": N_("must be an RFC 3339 date-time such as 2026-03-14T10:05:00Z (got {value})"),
    "date": N_("must be a date such as 2026-03-14 (got {value})"),
}
_PATTERN_WORDS: Final = {
    "^[A-Za-z0-9._:/-]{1,128}$": N_("must be 1 to 128 characters from A-Z a-z 0-9 . _ : / - (got {value})"),
    "^[0-9a-f]{64}$": N_("must be 64 lowercase hex digits (got {value})"),
    "^[a-z][a-z0-9_]*$": N_("must be a snake_case code (got {value})"),
    "^prizecheck [^ ]+$": N_("must read 'prizecheck <version>' (got {value})"),
    "^[a-z0-9][a-z0-9._-]*$": N_("must be lowercase letters, digits, '.', '_' or '-' (got {value})"),
    _EVENTS_SCHEMA["$defs"]["timestamp"]["pattern"]: _FORMAT_WORDS["date-time"],
    "^[0-9]{4}-[0-9]{2}-[0-9]{2}$": _FORMAT_WORDS["date"],
}
_TYPE_WORDS: Final = {
    "integer": N_("an integer"),
    "number": N_("a number"),
    "string": N_("a string"),
    "boolean": N_("true or false"),
    "object": N_("an object"),
    "array": N_("a list"),
    "null": N_("null"),
}
#: What a value must be, as :func:`_expected` words it (``{kind}`` one of the type words), the longest
#: first: several are joined by :data:`OR`.
BETWEEN: Final = N_("{kind} >= {minimum} and <= {maximum}")
AT_LEAST: Final = N_("{kind} >= {minimum}")
AT_MOST: Final = N_("{kind} <= {maximum}")
NON_EMPTY: Final = N_("a non-empty string")
CHARACTERS: Final = N_("{kind} of at least {count} characters")
VALID_VALUE: Final = N_("a valid value")
VALID: Final = N_("a valid {name}")
OR: Final = N_(" or ")
EXPECTED: Final[tuple[str, ...]] = (
    BETWEEN,
    AT_LEAST,
    AT_MOST,
    NON_EMPTY,
    CHARACTERS,
    VALID_VALUE,
    VALID,
    *_TYPE_WORDS.values(),
    N_("a map"),
    N_("a boolean"),
    N_("bytes"),
)
#: Every reason this module (and the shape check, replay.contract.shape) writes, for reading them back.
REASONS: Final[tuple[str, ...]] = (
    MISSING_FIELD,
    MISSING_FIELDS,
    UNKNOWN_TYPE,
    *_PATTERN_WORDS.values(),
    *_FORMAT_WORDS.values(),
    ONE_OF,
    MATCH_PATTERN,
    VALID_FORMAT,
    AT_MOST_CHARACTERS,
    *ITEMS.values(),
    TWICE,
    UNKNOWN_FIELD,
    UNKNOWN_FIELDS,
    NOT_A_MAP,
    NOT_VALIDATED,
    TOO_DEEP,
    BAD_KEY,
    BEYOND_64_BITS,
    NOT_FINITE,
    SURROGATE,
    KEY_SURROGATE,
    MUST_BE,  # last: "must be {expected} (got ...)" reads any "must be ..." sentence above
)


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
# fastjsonschema's regular expressions, written as its code generator writes them (every unescaped "$" of
# a pattern rewritten to "\Z"; the date-time format's own expression), without compiling a validator. A
# test checks them against the REGEX_PATTERNS of the validators it compiles, so both sides run exactly the
# same expressions.
_DOLLAR: Final = re.compile(r"(?<!\\)\$")  # fastjsonschema.draft04.DOLLAR_FINDER
_DATE_TIME: Final = (  # fastjsonschema.draft04.CodeGeneratorDraft04.FORMAT_REGEXS["date-time"]
    r"^(?:\d{4}-(?:(?:0[13578]|1[02])-(?:0[1-9]|[12]\d|3[01])|(?:0[469]|11)-(?:0[1-9]|[12]\d|30)|02-(?"
    r":0[1-9]|1\d|2[0-8]))|(?:\d\d(?:0[48]|[2468][048]|[13579][26])|(?:[02468][048]|[13579][26])00)-02"
    r"-29)(t|T)(?:[01]\d|2[0-3]):[0-5]\d:(?:[0-5]\d|60)(?:\.\d+)?(?:[+-](?:[01]\d|2[0-3]):[0-5]\d|[+-]"
    r"(?:[01]\d|2[0-3])[0-5]\d|z|Z)\Z"
)


def _patterns(node: Any) -> Iterator[str]:
    """Every ``pattern`` in a schema document."""
    if isinstance(node, dict):
        if isinstance(node.get("pattern"), str):
            yield node["pattern"]
        for value in node.values():
            yield from _patterns(value)
    elif isinstance(node, list):
        for value in node:
            yield from _patterns(value)


_REGEX: Final[dict[str, re.Pattern[str]]] = {
    **{p: re.compile(_DOLLAR.sub(r"\\Z", p)) for p in _patterns(_EVENTS_SCHEMA)},
    "date-time_re_pattern": re.compile(_DATE_TIME),
}

# A nested check for values msgspec reads in C: (wire key, is_list, nested checks of the value's items).
_Nested: TypeAlias = tuple[tuple[str, bool, "_Nested"], ...]
# An event type's fast path: its Struct, the nested plain-type checks, its timestamp fields (checked in C).
_FastType: TypeAlias = tuple[type[Struct], _Nested, tuple[str, ...]]


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


_SIMPLE: Final[dict[str, Any]] = {"integer": int, "string": str, "boolean": bool, "null": None}

# The event timestamp (``$defs/timestamp``: this pattern and the date-time format) is checked in C,
# ``timestamps`` of replay/engine/_link.c, a whole chunk of events at a time: its two regular expressions
# cost more than decoding the event. The C check implements exactly this pattern string (and
# fastjsonschema's date-time format, see _DATE_TIME); a timestamp written any other way in the schema, or
# no C extension, gets the regular expressions, as every other pattern does.
_TIMESTAMP_PATTERN: Final = (
    "^[0-9]{4}-[0-9]{2}-[0-9]{2}[Tt][0-9]{2}:[0-9]{2}:[0-9]{2}(\\.[0-9]+)?([Zz]|[+-][0-9]{2}:[0-9]{2})$"
)


def _c_timestamps() -> Callable[[list[Any]], int] | None:
    try:
        from replay.engine import timestamps
    except ImportError:
        return None
    return timestamps


_C_TIMESTAMPS: Final = _c_timestamps()


def _is_timestamp(node: Mapping[str, Any], defs: Mapping[str, Any]) -> bool:
    node = _deref(node, defs)
    return (
        _C_TIMESTAMPS is not None
        and set(node) - _NOTES == {"type", "format", "pattern"}
        and node["type"] == "string"
        and node["format"] == "date-time"
        and node["pattern"] == _TIMESTAMP_PATTERN
    )


def _timestamps_ok(event: Mapping[str, Any], keys: tuple[str, ...]) -> bool:
    """The event's timestamps (top-level fields ``keys``) where it has them, checked in C."""
    assert _C_TIMESTAMPS is not None
    return _C_TIMESTAMPS([event.get(key) for key in keys]) < 0


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
    if isinstance(kind, list):
        # "type": ["integer", "string"]: one of plain JSON types, each with its own bounds (JSON Schema
        # applies minimum/maximum to numbers only, minLength/maxLength to strings only)
        if (
            keys - {"type", "minimum", "maximum", "minLength", "maxLength"}
            or not kind
            or not all(isinstance(k, str) and k in _SIMPLE for k in kind)
        ):
            raise _Unsupported(f"type list {kind}")
        if keys & {"minimum", "maximum"} and "integer" not in kind:
            raise _Unsupported("bounds of a type list without integer")
        if keys & {"minLength", "maxLength"} and "string" not in kind:
            raise _Unsupported("lengths of a type list without string")
        return cast(Any, Union)[tuple(_bounded(k, node) for k in kind)], None
    if kind == "string":
        if keys - {"type", "minLength", "maxLength", "pattern", "format"}:
            raise _Unsupported(f"string keywords {sorted(keys)}")
        meta: dict[str, Any] = {}
        patterns = []
        # lengths in code points, as JSON Schema counts them (and fastjsonschema, with len() of a str)
        for keyword, option in (("minLength", "min_length"), ("maxLength", "max_length")):
            if keyword in node:
                if type(node[keyword]) is not int:
                    raise _Unsupported(f"non-integer {keyword}")
                meta[option] = node[keyword]
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
    if kind == "array" and keys <= {"type", "items", "minItems", "maxItems", "uniqueItems"}:
        item, nested = _scalar(node["items"], defs, name) if "items" in node else (Any, None)
        if node.get("uniqueItems") not in (None, False) and (node["uniqueItems"] is not True or nested):
            raise _Unsupported("uniqueItems of containers")  # checked in _unique: plain strings only
        meta = {}
        for key, option in (("minItems", "min_length"), ("maxItems", "max_length")):
            if key in node:
                if type(node[key]) is not int:
                    raise _Unsupported(f"non-integer {key}")
                meta[option] = node[key]
        array = cast(Any, list)[item]
        return (cast(Any, Annotated)[array, Meta(**meta)] if meta else array), nested or ()
    if kind == "object":
        if keys == {"type"}:
            return dict[Any, Any], ()
        struct, nested, _ = _struct(node, defs, name)
        return struct, nested
    raise _Unsupported(f"node {sorted(keys)}")


def _bounded(kind: str, node: Mapping[str, Any]) -> Any:
    """The msgspec type of one plain type of a type list, with the node's bounds that apply to it."""
    meta: dict[str, Any] = {}
    if kind == "integer":
        meta = {"ge": node.get("minimum"), "le": node.get("maximum")}
    elif kind == "string":
        meta = {"min_length": node.get("minLength"), "max_length": node.get("maxLength")}
    if any(type(v) is not int for v in meta.values() if v is not None):
        raise _Unsupported("non-integer bound")
    meta = {k: v for k, v in meta.items() if v is not None}
    return cast(Any, Annotated)[_SIMPLE[kind], Meta(**meta)] if meta else _SIMPLE[kind]


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


def _unique(attrs: list[str]) -> Callable[[Any], None]:
    """A ``__post_init__`` for ``uniqueItems``: no string twice in any of the lists ``attrs``.

    The lists hold strings only (the translator refuses uniqueItems of anything else), so equality is
    JSON Schema's. msgspec calls it when it decodes or converts, and turns the ValueError into its own
    ValidationError; for a str subclass the result does not count (``_nested_plain`` refuses it after).
    """

    def __post_init__(self: Any) -> None:
        for attr in attrs:
            items = getattr(self, attr)
            if items is not None and len(set(items)) != len(items):
                raise ValueError("the same item twice")

    return __post_init__


def _struct(
    node: Mapping[str, Any], defs: Mapping[str, Any], name: str, *, event: bool = False
) -> tuple[type[Struct], _Nested, tuple[str, ...]]:
    """A Struct for an object node (its allOf parts merged), the plain-type checks of its containers, and
    the top-level fields that are timestamps checked by ``_timestamps_ok`` (``event`` only, with the C
    extension), not by a pattern.

    ``event``: ``name`` is an event type. Its Struct is then tagged by ``type`` (the envelope's enum and the
    type's const must allow exactly ``name``), so that the Structs of all types form one tagged union a
    decoder can read bytes into; and the "match" property is declared a plain str, checked by the caller
    (``_match_ok``): it must then be required and be exactly the match_id definition. ``match`` and
    ``seq`` keep their names as attributes; the other fields are ``f<i>`` (wire keys need not be names).
    """
    merged: dict[str, Any] = {"required": set(), "properties": {}}
    _merge(merged, node, defs)
    fields: list[tuple[str, Any] | tuple[str, Any, Any]] = []
    rename: dict[str, str] = {}
    nested: list[tuple[str, bool, _Nested]] = []
    unique: list[str] = []
    stamps: list[str] = []
    for i, (key, parts) in enumerate(sorted(merged["properties"].items())):
        attr = key if event and key in ("match", "seq") else f"f{i}"
        if event and key == "type":
            if set.intersection(*(_one_of(p) for p in parts)) != {name} or key not in merged["required"]:
                raise _Unsupported("type does not allow exactly this event type")
            continue  # the tag
        if event and key == "match":
            if parts != [defs["match_id"]] or key not in merged["required"]:
                raise _Unsupported("match is not the required match_id")
            ftype, inner = str, None
        elif event and len(parts) == 1 and _is_timestamp(parts[0], defs) and key.isidentifier():
            attr, ftype, inner = key, str, None  # read by name, checked by _timestamps_ok
            stamps.append(key)
        elif len(parts) == 1:
            ftype, inner = _scalar(parts[0], defs, f"{name}.{key}")
            if parts[0].get("uniqueItems") is True:
                unique.append(attr)
        else:
            raise _Unsupported(f"two definitions of {key}")
        rename[attr] = key
        if inner is not None:
            nested.append((key, parts[0].get("type") == "array", inner))
        if key in merged["required"]:
            fields.append((attr, ftype))
        else:
            fields.append((attr, ftype, None))  # never checked: an absent field stays absent
    if set(merged["required"]) - set(merged["properties"]):
        raise _Unsupported("required key without a property")  # msgspec could not require it
    struct = defstruct(
        f"_Fast_{name}",
        fields,
        rename=rename,
        kw_only=True,
        gc=False,
        namespace={"__post_init__": _unique(unique)} if unique else None,
        tag_field="type" if event else None,
        tag=name if event else None,
        # An extra field (the contract keeps them) goes the dict way: there the edge checks its keys, its
        # depth and its integral floats (replay.codec.edge_event), which a skipped field would escape.
        forbid_unknown_fields=True,
    )
    return struct, tuple(nested), tuple(stamps)


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


def _fast_types(names: Collection[str], defs: Mapping[str, Any]) -> dict[str, _FastType]:
    """The fast-path Struct of each event type in ``names`` the translator fully understands."""
    out = {}
    for name in names:
        try:
            out[name] = _struct(defs[name], defs, name, event=True)
        except (_Unsupported, KeyError, TypeError, ValueError, re.error):
            continue
    return out


def _nested_plain(value: Any, nested: _Nested) -> bool:
    for key, is_list, inner in nested:
        if key in value:
            items = value[key] if is_list else value[key].values()
            if not _PLAIN.issuperset(map(type, items)):
                return False
            if inner and not all(
                _nested_plain(item, inner) for item in (value[key] if is_list else [value[key]])
            ):
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


def _open_fields(fast: Mapping[str, _FastType]) -> dict[str, tuple[str, ...]]:
    """Each fast type's fields that hold an open object (``dict[Any, Any]``: a correction's ``event``),
    whose values the Struct does not check."""
    out: dict[str, tuple[str, ...]] = {}
    for name, (struct, _, _) in fast.items():
        hints = msgspec.structs.fields(struct)
        keys = tuple(f.encode_name for f in hints if f.type == dict[Any, Any])
        if keys:
            out[name] = keys
    return out


_OPEN_FIELDS: Final = _open_fields(_FAST)
_OPEN_ATTRS: Final[dict[type, tuple[str, ...]]] = {
    _FAST[name][0]: tuple(f.name for f in msgspec.structs.fields(_FAST[name][0]) if f.encode_name in keys)
    for name, keys in _OPEN_FIELDS.items()
}


def match_id_ok(match: str) -> bool:
    """True when ``match`` (a str read by :class:`EventDecoders`) is a valid match id (``match_id``)."""
    return match in _MATCHES or _match_ok(match)


class EventDecoders(NamedTuple):
    """The fast path straight from bytes: decoders that read events into its Structs, checked in C.

    ``prizecheck replay`` reads a file this way without building a dict per event first. What they
    return is a valid event (``validate_event`` would accept the same bytes decoded as a dict) once
    :meth:`accepts` says so of it: the Structs read the match id as a plain str (a reader checks each
    distinct id once) and leave the timestamps to one C call per chunk. Decoded values are always of exact
    JSON types, so the plain-type guard of the dict path has nothing to check. What they refuse is not
    necessarily invalid (``seq`` written ``5.0``, a JSON Lines line holding a list of events): decode it as
    a dict and call :func:`validate_event`, which decides and words the error. Every Struct has ``match``
    and ``seq`` attributes.
    """

    msgpack: msgspec.msgpack.Decoder[Any]
    """One event from one MessagePack message."""
    msgpack_array: msgspec.msgpack.Decoder[list[Any]]
    """Several events from a MessagePack array of them (a stream's messages behind an array header)."""
    json: msgspec.json.Decoder[Any]
    """One event from one JSON text; ``decode_lines`` reads JSON Lines (blank lines skipped)."""
    stamps: tuple[tuple[str, bool], ...]
    """Each timestamp field some type has, and whether every type has it."""

    def accepts(self, events: list[Any], matches: list[str] | None = None) -> bool:
        """True when the decoded ``events`` are valid: their match ids and timestamps are, and the values
        of their open objects (a correction's ``event``: :func:`value_problem`). ``matches``: the events'
        match ids, when the caller has them already (a reader keeps them)."""
        if matches is None:
            matches = list(map(_match_attr, events))
        if not all(map(match_id_ok, set(matches))):
            return False
        if _OPEN_ATTRS and not _OPEN_ATTRS.keys().isdisjoint(set(map(type, events))):
            for e in events:
                for attr in _OPEN_ATTRS.get(type(e), ()):
                    if value_problem(getattr(e, attr)) is not None:
                        return False  # the dict way words it
        for key, everywhere in self.stamps:
            values = (
                list(map(attrgetter(key), events)) if everywhere else [getattr(e, key, None) for e in events]
            )
            if _C_TIMESTAMPS is not None and _C_TIMESTAMPS(values) >= 0:
                return False
        return True


_match_attr: Final = attrgetter("match")
_DECODERS: list[EventDecoders] = []


def event_decoders() -> EventDecoders:
    """The decoders of every fast-path type (built on first use)."""
    if not _DECODERS:
        union = cast(Any, Union)[tuple(struct for struct, _, _ in _FAST.values())]
        keys = sorted({key for _, _, stamps in _FAST.values() for key in stamps})
        _DECODERS.append(
            EventDecoders(
                msgspec.msgpack.Decoder(union),
                msgspec.msgpack.Decoder(list[union]),  # type: ignore[valid-type]
                msgspec.json.Decoder(union),
                tuple((key, all(key in stamps for _, _, stamps in _FAST.values())) for key in keys),
            )
        )
    return _DECODERS[0]


# The edge's rule on every value of an event (``replay.codec.edge_event``, and the typed decoders' open
# objects below): what MessagePack and JSON can both carry, exactly.
_INT_LOW: Final = -(2**63)
_INT_HIGH: Final = 2**64  # exclusive: MessagePack's integers are int64 and uint64
_SURROGATE: Final = re.compile(r"[\ud800-\udfff]")


def scalar_problem(value: object) -> str | None:
    """Why one value (not a map or a list) cannot be kept in an event, or None: an integer beyond 64
    bits (MessagePack cannot encode it: the archive would need a second encoding of numbers, which a map
    could imitate), a float that is not finite (``NaN`` and infinities are not JSON: a record holding one
    would not parse), or text that is not Unicode (a lone surrogate: it has no UTF-8)."""
    kind = type(value)
    if kind is int:
        if not _INT_LOW <= cast(int, value) < _INT_HIGH:
            return BEYOND_64_BITS
    elif kind is float:
        if not math.isfinite(cast(float, value)):
            return NOT_FINITE.format(value=repr(value))
    elif kind is str:
        text = cast(str, value)
        if not text.isascii() and _SURROGATE.search(text):
            return SURROGATE
    return None


def value_problem(value: object, path: str = "") -> tuple[str | None, str] | None:
    """Where (a field path, None for ``value`` itself) and why (:func:`scalar_problem`) some value inside
    ``value`` cannot be kept, or None. Iterative: no depth can exhaust the stack."""
    stack: list[tuple[object, str]] = [(value, path)]
    while stack:
        node, where = stack.pop()
        if type(node) is dict:
            for key, item in node.items():
                name = str(key)
                if scalar_problem(name) is not None:
                    return where or None, KEY_SURROGATE
                stack.append((item, f"{where}.{name}" if where else name))
        elif type(node) is list:
            stack.extend((item, f"{where}[{i}]") for i, item in enumerate(node))
        else:
            why = scalar_problem(node)
            if why is not None:
                return where or None, why
    return None


def validate_event(event: object, *, file: str | None = None, line: int | None = None) -> None:
    """Check one event against ``schemas/events.schema.json`` (docs/events.md).

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
                if (
                    (match in _MATCHES or _match_ok(match))
                    and (not fast[1] or _nested_plain(event, fast[1]))
                    and (not fast[2] or _timestamps_ok(event, fast[2]))
                ):
                    return
    if not isinstance(event, dict):
        raise EventError(NOT_A_MAP.format(kind=_kind(event)), file=file, line=line)
    kind = event.get("type")
    check = _BY_TYPE.get(kind) if isinstance(kind, str) else None
    try:
        if check is not None:
            check(event)
            return
        _ENVELOPE(event)
    except Exception as exc:
        if _schema_said_no(exc):
            message, field = _explain(exc, "event")
            raise EventError(message, field=field, file=file, line=line, **_where(event)) from None
        # a value the generated code cannot handle (e.g. absurdly deep nesting)
        raise EventError(
            NOT_VALIDATED.format(error=type(exc).__name__), file=file, line=line, **_where(event)
        ) from None
    # The envelope passed, so "type" is a known type and was dispatched above; kept as a safety net.
    raise EventError(
        UNKNOWN_TYPE.format(value=_show(kind)), field="type", file=file, line=line, **_where(event)
    )


def validate_record(record: object) -> None:
    """Check an end-of-game record against ``schemas/record.schema.json`` (docs/records.md).

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
    except Exception as exc:
        if _schema_said_no(exc):
            message, field = _explain(exc, what)
            raise error(message, field=field, **where) from None
        raise error(NOT_VALIDATED.format(error=type(exc).__name__), **where) from None


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


def _schema_said_no(exc: Exception) -> bool:
    """True for fastjsonschema's "invalid" (imported here: only a compiled validator raises it)."""
    from fastjsonschema import JsonSchemaValueException

    return isinstance(exc, JsonSchemaValueException)


def _explain(exc: Any, what: str) -> tuple[str, str | None]:
    """Turn fastjsonschema's exception into (plain message, field path)."""
    name = exc.name or "data"
    field = name[5:] if name.startswith("data.") else None if name == "data" else name
    rule = exc.rule
    value = exc.value
    definition = exc.definition if isinstance(exc.definition, dict) else {}

    if rule == "required":
        required = definition.get("required", [])
        have = value if isinstance(value, dict) else {}
        missing = [key for key in required if key not in have] or list(required)[:1]
        path = [f"{field}.{key}" if field else key for key in missing]
        template = MISSING_FIELD if len(missing) == 1 else MISSING_FIELDS
        names = ", ".join(repr(key) for key in missing)
        return template.format(names=names), path[0] if path else field
    shown = _show(value)
    if rule == "enum" and field == "type" and what == "event" and isinstance(value, str):
        return UNKNOWN_TYPE.format(value=shown), field
    if rule in ("type", "minimum", "maximum", "minLength"):
        return MUST_BE.format(expected=_expected(definition), value=shown), field
    if rule == "enum":
        choices = ", ".join(str(c) for c in definition.get("enum", []))
        return ONE_OF.format(choices=choices, value=shown), field
    if rule == "const":
        return MUST_BE.format(expected=_show(definition.get("const")), value=shown), field
    if rule == "pattern":
        pattern = definition.get("pattern", "")
        words = _PATTERN_WORDS.get(pattern)
        if words is not None:
            return words.format(value=shown), field
        return MATCH_PATTERN.format(pattern=pattern, value=shown), field
    if rule == "format":
        fmt = definition.get("format", "")
        words = _FORMAT_WORDS.get(fmt)
        if words is not None:
            return words.format(value=shown), field
        return VALID_FORMAT.format(format=fmt, value=shown), field
    if rule == "maxLength":
        return AT_MOST_CHARACTERS.format(count=definition.get("maxLength"), value=shown), field
    if rule in ("minItems", "maxItems"):
        low, high = definition.get("minItems"), definition.get("maxItems")
        if low is not None and low == high:
            how, size = "exactly", low
        elif rule == "minItems":
            how, size = "at least", low
        else:
            how, size = "at most", high
        count = len(value) if isinstance(value, list | tuple) else "?"
        return ITEMS[how, size == 1].format(size=size, count=count), field
    if rule == "uniqueItems":
        return TWICE.format(value=shown), field
    if rule == "additionalProperties":
        known = definition.get("properties", {})
        extra = sorted(str(k) for k in value if k not in known) if isinstance(value, dict) else []
        if extra:
            where = f"{field}.{extra[0]}" if field else extra[0]
            return UNKNOWN_FIELD.format(name=repr(extra[0]), allowed=", ".join(known)), where
        return UNKNOWN_FIELDS, field
    if rule in ("anyOf", "oneOf"):
        return MUST_BE.format(expected=_any_of(definition), value=shown), field
    # Any other keyword: fastjsonschema's own words, without its "data." prefix.
    text = str(exc.message)
    return (text[len(name) + 1 :] if text.startswith(name + " ") else text), field


def _expected(definition: Mapping[str, Any]) -> str:
    """What a value of ``definition`` looks like, e.g. "an integer >= 1", "a non-empty string or null"
    (words of :data:`EXPECTED`)."""
    types = definition.get("type", [])
    names = [types] if isinstance(types, str) else list(types)
    parts = []
    for name in names:
        words = _TYPE_WORDS.get(name, str(name))
        if name in ("integer", "number"):
            low, high = definition.get("minimum"), definition.get("maximum")
            if "minimum" in definition and "maximum" in definition:
                words = BETWEEN.format(kind=words, minimum=low, maximum=high)
            elif "minimum" in definition:
                words = AT_LEAST.format(kind=words, minimum=low)
            elif "maximum" in definition:
                words = AT_MOST.format(kind=words, maximum=high)
        elif name == "string" and definition.get("minLength") == 1:
            words = NON_EMPTY
        elif name == "string" and "minLength" in definition:
            words = CHARACTERS.format(kind=words, count=definition["minLength"])
        parts.append(words)
    return OR.join(parts) or VALID_VALUE


def _any_of(definition: Mapping[str, Any]) -> str:
    """anyOf is only used for "X or null" (and record cards): name the alternatives."""
    options = definition.get("anyOf") or definition.get("oneOf") or []
    words = []
    for option in options:
        if isinstance(option, dict) and "type" in option:
            words.append(_expected(option))
        elif isinstance(option, dict) and "$ref" in option:
            words.append(VALID.format(name=str(option["$ref"]).rsplit("/", 1)[-1].replace("_", " ")))
        else:
            words.append(VALID_VALUE)
    return OR.join(words)


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


def checked_game() -> Game:
    """A new game that checks each amended event against the contract (:func:`validate_event`): the game
    every fold of events from outside starts with (files, the service, the archive, the report). The engine
    imports nothing of the contract (pyproject.toml, the layers contract), so the check is handed in here."""
    return Game(check_amendment=validate_event)
