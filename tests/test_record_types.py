"""The typed record (``replay.engine.outputs``) and ``schemas/record.schema.json`` say the same thing.

Walked together from ``Record`` and the schema's root: every property of the schema is a field of the
Struct and every field a property (by name, at every level the schema describes), each with the same JSON
types (``null`` included); every field the Struct cannot do without is one the schema requires, so a
record the schema accepts always decodes. Then real records (simulated games of every ending, a league
with playoffs, a real PTCGL log, a playoff stub, the public projection) decode from their JSON and from
their MessagePack into the typed value and give the same bytes back.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import Any

import msgpack
import msgspec
import msgspec.inspect as mi
import pytest

from replay import replay_records
from replay.contract.validate import validate_record
from replay.engine.errors import RecordError
from replay.engine.outputs import Output, Record
from replay.engine.playoff import playoff_stub
from replay.engine.public import public_record
from replay.engine.record import dumps
from replay.records import from_json_line, from_mapping, from_msgpack
from tests.paths import ROOT

SCHEMA = json.loads((ROOT / "schemas" / "record.schema.json").read_text(encoding="utf-8"))

#: Fields the Struct reads more widely than the schema allows, and why (the schema is what is written).
WIDER = {
    # a Game read before its match_started has no match id yet (Game.match is None until then)
    "match": {"null"},
}


def _resolve(node: dict[str, Any], root: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in node:
        ref = node["$ref"]
        assert ref.startswith("#/"), ref
        target: Any = root
        for part in ref[2:].split("/"):
            target = target[part]
        node = {**{k: v for k, v in node.items() if k != "$ref"}, **target}
    return node


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, str):
        return "string"
    return "array" if isinstance(value, list) else "object"


def schema_types(node: dict[str, Any], root: dict[str, Any]) -> set[str]:
    """The JSON types a schema node allows."""
    node = _resolve(node, root)
    if "anyOf" in node:
        return set().union(*(schema_types(n, root) for n in node["anyOf"]))
    if "const" in node:
        return {_json_type(node["const"])}
    if "enum" in node:
        return {_json_type(v) for v in node["enum"]}
    kind = node.get("type")
    if kind is None:
        return {"null", "boolean", "integer", "string", "array", "object"}
    return {kind} if isinstance(kind, str) else set(kind)


def struct_types(t: mi.Type) -> set[str]:
    """The JSON types a Struct field's type reads (UNSET is absence, not a type)."""
    if isinstance(t, mi.UnionType):
        return set().union(*(struct_types(x) for x in t.types))
    simple = {
        mi.StrType: "string",
        mi.IntType: "integer",
        mi.BoolType: "boolean",
        mi.NoneType: "null",
        mi.ListType: "array",
        mi.DictType: "object",
        mi.StructType: "object",
    }
    for kind, name in simple.items():
        if isinstance(t, kind):
            return {name}
    if isinstance(t, mi.AnyType):
        return {"null", "boolean", "integer", "string", "array", "object"}
    raise AssertionError(f"a field type the check does not know: {t}")


def _members(t: mi.Type) -> list[mi.Type]:
    return list(t.types) if isinstance(t, mi.UnionType) else [t]


def compare(
    struct: type[Any], node: dict[str, Any], root: dict[str, Any], where: str, wider: dict[str, set[str]]
) -> Iterator[str]:
    """Every disagreement between ``struct`` and the object schema ``node``, as a sentence."""
    node = _resolve(node, root)
    props: dict[str, Any] = node.get("properties") or {}
    required = set(node.get("required") or ())
    info = mi.type_info(struct)
    assert isinstance(info, mi.StructType)
    fields = {f.encode_name: f for f in info.fields}
    for name in sorted(set(props) - set(fields)):
        yield f"{where}.{name}: in the schema, not a field of {struct.__name__}"
    for name in sorted(set(fields) - set(props)):
        yield f"{where}.{name}: a field of {struct.__name__}, not in the schema"
    for name in sorted(set(fields) & set(props)):
        f, sub, at = fields[name], props[name], f"{where}.{name}"
        want = schema_types(sub, root)
        got = struct_types(f.type)
        extra = wider.get(at.removeprefix("record."), set())
        if got != want | extra:
            yield f"{at}: the schema allows {sorted(want)}, {struct.__name__} reads {sorted(got)}"
        if f.required and name not in required:
            yield f"{at}: {struct.__name__} needs it, the schema does not require it"
        yield from _inner(f.type, sub, root, at, wider)


def _inner(
    t: mi.Type, node: dict[str, Any], root: dict[str, Any], at: str, wider: dict[str, set[str]]
) -> Iterator[str]:
    """Into the Structs, lists and maps a field holds, with the schema nodes that describe them."""
    node = _resolve(node, root)
    for member in _members(t):
        if isinstance(member, mi.StructType):
            yield from compare(member.cls, node, root, at, wider)
        elif isinstance(member, mi.ListType) and "items" in node:
            yield from _inner(member.item_type, node["items"], root, f"{at}[]", wider)
        elif isinstance(member, mi.DictType) and isinstance(node.get("additionalProperties"), dict):
            sub = node["additionalProperties"]
            want, got = schema_types(sub, root), struct_types(member.value_type)
            if got != want:
                yield f"{at}{{}}: the schema allows {sorted(want)}, the Struct reads {sorted(got)}"
            yield from _inner(member.value_type, sub, root, f"{at}{{}}", wider)


def test_the_typed_record_and_the_schema_agree_field_for_field() -> None:
    problems = list(compare(Record, SCHEMA, SCHEMA, "record", WIDER))
    assert problems == []


def test_every_output_struct_is_reached_by_the_check() -> None:
    """Each Struct of replay.engine.outputs is compared with a part of the schema (none is left out)."""
    reached: set[type[Any]] = set()

    def walk(t: mi.Type) -> None:
        for member in _members(t):
            if isinstance(member, mi.StructType) and member.cls not in reached:
                reached.add(member.cls)
                for f in member.fields:
                    walk(f.type)
            elif isinstance(member, mi.ListType):
                walk(member.item_type)
            elif isinstance(member, mi.DictType):
                walk(member.value_type)

    walk(mi.type_info(Record))
    assert reached == {cls for cls in _subclasses(Output)}


def _subclasses(cls: type[Any]) -> set[type[Any]]:
    out = set()
    for sub in cls.__subclasses__():
        out |= {sub} | _subclasses(sub)
    return out


def test_the_check_finds_a_renamed_field_a_missing_one_and_a_wrong_type() -> None:
    """The comparison is not vacuous: a Struct that drifted from its schema is named, field by field."""

    class Drifted(msgspec.Struct):
        winner: int  # the schema says string or null
        loser: str | None  # renamed in the schema
        seq: int

    schema = {
        "type": "object",
        "required": ["winner", "seq"],
        "properties": {
            "winner": {"type": ["string", "null"]},
            "looser": {"type": ["string", "null"]},
            "seq": {"type": "integer"},
        },
    }
    assert list(compare(Drifted, schema, schema, "x", {})) == [
        "x.looser: in the schema, not a field of Drifted",
        "x.loser: a field of Drifted, not in the schema",
        "x.winner: the schema allows ['null', 'string'], Drifted reads ['integer']",
    ]
    schema["required"] = ["winner"]
    assert "x.seq: Drifted needs it, the schema does not require it" in compare(
        Drifted, schema, schema, "x", {}
    )


# ------------------------------------------------------------------------------------ real records
@cache
def real_records() -> dict[str, dict[str, Any]]:
    """Records the engine made: simulated games of every ending (playoffs settled), a league event, a
    real PTCGL log, a playoff stub."""
    from replay.generators.league import LeagueSim
    from replay.generators.simulate import simulate_series
    from replay.sources.ptcgl import parse_ptcgl

    events: list[dict[str, Any]] = []
    for i, scenario in enumerate(("prizes", "simultaneous", "deck_out", "playoff", "concession")):
        for stream in simulate_series(
            7 + i, f"sim-{scenario}", ("play-2026", "jp-3.4", "kr-1.0")[i % 3], scenario=scenario
        ):
            events.extend(stream)
    sim = LeagueSim("Typed League", 8, 3, seed=3, top_cut=4)
    events.extend(e for stream in sim.streams() for e in stream)
    log = sorted((ROOT / "tests" / "data" / "ptcgl").rglob("*.txt"))[0]
    events.extend(parse_ptcgl(log.read_text(encoding="utf-8"), match="real-log", filename=log.name).events)
    records = replay_records(events)
    parent = next(r for r in records.values() if r["playoff"] is not None)
    records["stub"] = playoff_stub(parent, parent["playoff"]["child"] + "-next")
    return records


def test_real_records_decode_and_give_the_same_bytes_back() -> None:
    records = real_records()
    kinds = {r["status"] for r in records.values()}
    assert "finished" in kinds
    assert any(r.get("stub") for r in records.values())
    assert any((r["result"] or {}).get("reason") == "playoff" for r in records.values())
    assert any(r["knockouts"] for r in records.values()) and any(r["findings"] for r in records.values())
    for match, doc in records.items():
        validate_record(doc)
        line = dumps(doc)
        typed = from_json_line(line)
        assert typed == from_msgpack(msgpack.packb(doc)) == from_mapping(doc), match
        assert dumps(typed.to_json()) == line, match  # nothing lost, nothing added


def test_the_public_projection_decodes_too() -> None:
    redacted = [public_record(r) for r in real_records().values() if r["findings"]]
    assert any(p.get("redacted") for p in redacted)
    for doc in redacted:
        typed = from_mapping(doc)
        assert dumps(typed.to_json()) == dumps(doc)
        assert typed.redacted is (True if doc.get("redacted") else msgspec.UNSET)


@pytest.mark.parametrize(
    ("doc", "field"),
    [
        ({"match": "m1", "chain": {"alg": "sha256", "head": "00", "events": "three"}}, "chain.events"),
        ({"match": "m1", "result": {"outcome": "win"}}, "result.winner"),
        ({"match": 5}, "match"),
        ({"players": ["ash", "misty"]}, "match"),
        ({"match": "m1", "knockouts": [{"seq": 3}]}, "knockouts[0].pid"),
    ],
)
def test_a_record_that_is_not_one_is_an_error_naming_the_field(
    doc: dict[str, Any], field: str | None
) -> None:
    data = msgpack.packb(doc)
    with pytest.raises(RecordError) as err:
        from_msgpack(data, match="m1")
    assert err.value.field == field and err.value.match == "m1"
    assert str(err.value).startswith("match m1") and "not a Prizecheck record" in str(err.value)
    with pytest.raises(RecordError) as err:
        from_json_line(json.dumps(doc).encode(), file="r.jsonl", line=3)
    assert str(err.value).startswith("r.jsonl:3") and err.value.field == field


def test_bytes_that_are_no_record_at_all_are_an_error_too(tmp_path: Path) -> None:
    with pytest.raises(RecordError, match="not a record"):
        from_msgpack(b"\xc1", match="m1")
    with pytest.raises(RecordError, match="not a Prizecheck record"):
        from_msgpack(msgpack.packb([1, 2]), match="m1")


def test_the_schemas_own_examples_decode() -> None:
    """The hand-written records the schema's tests accept (a knockout whose card is the card itself, one
    without a batch, a result without its turn) are read by the typed record too, and give the same JSON
    back: only a result's ``decided_at`` and ``turn``, which the engine always writes, are filled in
    (null) when a record lacks them."""
    from tests.test_schemas import AWAITING, IN_PROGRESS, PLAYOFF_CHILD, RECORD

    for doc in (RECORD, IN_PROGRESS, AWAITING, PLAYOFF_CHILD):
        validate_record(doc)
        expected = dict(doc)
        if doc["result"] is not None:
            expected["result"] = {"decided_at": None, "turn": None, **doc["result"]}
        assert dumps(from_mapping(doc).to_json()) == dumps(expected), doc["match"]
    assert "turn" not in AWAITING["result"]  # the case of a filled-in field is among them
