"""The engine's typed outputs: a record is built once as a Record and read back from its JSON unchanged."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest

from replay import link_records, replay_events
from replay.contract.validate import validate_record
from replay.engine.chain import sign
from replay.engine.outputs import Finding, Knockout, Record, Result
from replay.engine.playoff import playoff_stub
from replay.engine.record import dumps
from replay.generators import simulate
from tests.builder import Stream, card, drawn_game


@pytest.fixture(scope="module")
def records() -> list[dict[str, Any]]:
    streams = list(simulate.simulate_corpus(150, seed=99))
    streams += [s for n in range(4) for s in simulate.simulate_series(n, scenario="playoff")]
    return [g.record() for g in replay_events(e for s in streams for e in s).values()]


def test_every_record_reads_back_as_the_same_typed_value(records: list[dict[str, Any]]) -> None:
    """Record.from_json(record).to_json() is the record, byte for byte (the types msgspec reads are the
    Structs' own: the module is not compiled, see tools/compile_engine.py)."""
    kinds = set()
    for record in records:
        typed = Record.from_json(record)
        assert dumps(typed.to_json()) == dumps(record)
        assert isinstance(typed.result, Result | None)
        assert all(isinstance(k, Knockout) for k in typed.knockouts)
        assert all(isinstance(f, Finding) for f in typed.findings)
        kinds.add(record["status"])
        signed = sign(record, b"k", "k1")
        assert dumps(Record.from_json(signed).to_json()) == dumps(signed)
    assert {"finished", "awaiting_playoff"} <= kinds


def test_every_record_is_valid_against_the_schema(records: list[dict[str, Any]]) -> None:
    for record in records:
        validate_record(record)
    s = Stream()
    s.setup("ash", ("a1", card("Pikachu", 30)))
    s.setup("misty", ("m1", card("Staryu", 30)))
    s.add("penalty", player="ash", kind="warning")  # no reason given: null in the record
    record = s.record()
    assert record["penalties"] == [{"seq": 4, "player": "ash", "kind": "warning", "reason": None}]
    validate_record(record)


def test_a_record_that_is_not_one_is_refused_by_from_json_and_passed_through_by_link_records() -> None:
    with pytest.raises(msgspec.ValidationError):
        Record.from_json({"match": "m1", "knockouts": [{"pid": 3}]})
    odd = {"match": "m1", "status": "awaiting_playoff", "playoff": "tb1"}
    assert link_records({"m1": odd}) == {"m1": odd}


def test_a_playoff_stub_is_a_valid_record_of_the_announced_game() -> None:
    parent = drawn_game("g1", "kr-1.0", context={"league": "L1"}).record()
    stub = playoff_stub(parent, "g1/tb1")
    validate_record(stub)
    assert (stub["match"], stub["parent"], stub["status"], stub["stub"]) == (
        "g1/tb1",
        "g1",
        "in_progress",
        True,
    )
    assert stub["playoff_of"] == {"kind": "sudden_death", "parent": "g1"}
    assert stub["context"] == {"league": "L1"} and stub["players"] == ["ash", "misty"]
    assert stub["chain"] == {"alg": "sha256", "head": "0" * 64, "events": 0}
    assert stub["result"] is None and stub["knockouts"] == [] and stub["findings"] == []
    with pytest.raises(ValueError):
        playoff_stub(stub, "g1/tb1/tb1")  # a game that awaits no playoff announces none
