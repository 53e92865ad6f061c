"""The msgspec fast path of ``replay.contract.validate.validate_event``: used for the common case, and sound.

Sound means: whenever the fast path accepts an event, the fastjsonschema validator of its type accepts it
too; and ``validate_event`` accepts and rejects exactly what the fastjsonschema path alone does, with the
same error (message, field, match, seq). The fast path is observed directly: the slow validators are swapped
for recorders, so "accepted by the fast path" means validate_event returned without calling them.
"""

from __future__ import annotations

import copy
import datetime
import math
import re
import uuid
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import replay.contract.validate as V
from replay.engine.errors import EventError
from replay.generators.simulate import simulate_corpus
from tests.sampling import examples
from tests.test_schemas import EVENTS_REF, VALID

# The event types of a real game the fast path must cover (the brief's list, ~97% of a simulated corpus).
HOT = [
    "moved",
    "attached",
    "turn_started",
    "drew",
    "damage",
    "attack",
    "turn_ended",
    "attack_ended",
    "played",
    "switched",
    "checkup_started",
    "checkup_ended",
    "condition",
    "healed",
    "evolved",
    "promoted",
    "knocked_out",
    "prize_taken",
]
COVERED = sorted(V._FAST)


# ---------------------------------------------------------------------------------------------- helpers


@contextmanager
def slow_path_recorded() -> Iterator[list[str]]:
    """Swap the fastjsonschema validators for recorders that accept everything."""
    calls: list[str] = []
    saved = V._BY_TYPE, V._ENVELOPE

    def recorder(name: str) -> Callable[[Any], Any]:
        def record(data: Any) -> Any:
            calls.append(name)
            return data

        return record

    V._BY_TYPE = {name: recorder(name) for name in saved[0]}  # type: ignore[misc]
    V._ENVELOPE = recorder("envelope")  # type: ignore[misc]
    try:
        yield calls
    finally:
        V._BY_TYPE, V._ENVELOPE = saved  # type: ignore[misc]


def fast_accepts(event: Any) -> bool:
    """True if validate_event accepted ``event`` without calling any fastjsonschema validator."""
    with slow_path_recorded() as calls:
        try:
            V.validate_event(event)
        except EventError:
            return False
    return not calls


@contextmanager
def no_fast_path() -> Iterator[None]:
    saved = V._FAST
    V._FAST = {}  # type: ignore[misc]
    try:
        yield
    finally:
        V._FAST = saved  # type: ignore[misc]


def outcome(event: Any) -> tuple[str, ...] | None:
    """None if validate_event accepts, else everything its EventError says."""
    try:
        V.validate_event(event, file="f.jsonl", line=3)
    except EventError as err:
        return (str(err), err.message, repr(err.field), repr(err.match), repr(err.seq), repr(err.line))
    return None


def schema_accepts(event: Any) -> bool:
    """The fastjsonschema validator of the event's own type (what the fast path must never contradict)."""
    try:
        V._BY_TYPE[event["type"]](event)
    except Exception:
        return False
    return True


def snap(value: Any) -> Any:
    """What a value holds, read without its own methods (OddStr is not even equal to itself)."""
    if isinstance(value, dict):
        return type(value), tuple((snap(k), snap(v)) for k, v in dict.items(value))
    if isinstance(value, list | tuple):
        return type(value), tuple(snap(v) for v in value)
    if isinstance(value, str):
        return type(value), str.__str__(value)
    if isinstance(value, int):
        return type(value), int.__repr__(value) if abs(value) < 10**100 else int.__hash__(value)
    return type(value), repr(value)


def check(event: Any) -> None:
    """The soundness property, on one event."""
    before = snap(event)
    fast = fast_accepts(event)
    assert snap(event) == before, "validation modified the event"
    if fast:
        assert schema_accepts(event), f"fast path accepted an event the schema rejects: {snap(event)}"
    with no_fast_path():
        expected = outcome(event)
    assert outcome(event) == expected, event
    assert snap(event) == before, "validation modified the event"


def stamp(event: dict[str, Any], base: datetime.datetime) -> dict[str, Any]:
    """As a digital client sends it (bench/engine.py): with a source time and the producer's event id."""
    at = base + datetime.timedelta(seconds=7 * event["seq"])
    return {
        **event,
        "at": event.get("at") or at.strftime("%Y-%m-%dT%H:%M:%S.000Z"),
        "id": event.get("id") or str(uuid.uuid5(uuid.NAMESPACE_URL, f"{event['match']}/{event['seq']}")),
    }


# ---------------------------------------------------------------------------------------------- coverage


def test_fast_path_covers_the_hot_types() -> None:
    assert set(HOT) <= set(V._FAST), sorted(set(HOT) - set(V._FAST))
    # match_started (two distinct players: minItems, maxItems, uniqueItems) and setup (a list of objects)
    # too: every type of today's contract
    assert set(V.EVENT_TYPES) == set(V._FAST)


def test_the_regular_expressions_are_fastjsonschemas_own() -> None:
    """The fast path's expressions are written without compiling a validator: they must be exactly the ones
    the compiled validators run (fastjsonschema's REGEX_PATTERNS, "$" rewritten to "\\Z")."""
    compiled: dict[str, re.Pattern[str]] = {}
    for name in ("envelope", *V.EVENT_TYPES):
        check = V._compile(V._EVENTS_SCHEMA, name)
        compiled.update(getattr(check, "__globals__", {}).get("REGEX_PATTERNS", {}))
    assert compiled, "fastjsonschema no longer exposes its expressions: check _REGEX by hand"
    assert set(compiled) <= set(V._REGEX)
    for key, regex in compiled.items():
        assert V._REGEX[key].pattern == regex.pattern, key


def test_two_players_that_are_one_are_refused_by_both_paths() -> None:
    (base,) = VALID["match_started"][:1]
    same = {**base, "players": [base["players"][0]] * 2}
    assert not fast_accepts(same)
    assert outcome(same) is not None
    check(same)
    check({**base, "players": [base["players"][0]]})
    check({**base, "players": [*base["players"], "third"]})


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_simulated_corpus_takes_the_fast_path(seed: int) -> None:
    events = [e for stream in simulate_corpus(300, seed) for e in stream]
    if seed == 1:  # also as a digital client sends them, with "at" and "id" on every event
        base = datetime.datetime(2026, 2, 28, 23, 59, 0)
        events += [stamp(e, base) for e in events[:20_000]]
    seen = set()
    for event in events:
        if event["type"] in V._FAST:
            assert fast_accepts(event), event
            seen.add(event["type"])
        else:
            V.validate_event(event)
    assert seen >= set(HOT), sorted(set(HOT) - seen)


def test_schema_examples_take_the_fast_path() -> None:
    for name in COVERED:
        for event in VALID[name]:
            # an extra field (this example's source.device) goes the dict way, where the edge checks its
            # keys, depth and numbers (replay.contract.shape.edge_event); every other example takes the fast
            # path
            extra = "device" in (event.get("source") or {})
            assert fast_accepts(event) is not extra, event
            check(event)


# ---------------------------------------------------------------------------------------------- fuzzing


class OddStr(str):
    """A str that lies about its length and equality: fastjsonschema asks it, msgspec reads its data."""

    def __len__(self) -> int:
        return 0

    def __eq__(self, other: object) -> bool:
        return False

    __hash__ = str.__hash__


class OddInt(int):
    def __lt__(self, other: object) -> bool:
        return True


class OddDict(dict):  # type: ignore[type-arg]
    def __getitem__(self, key: Any) -> Any:
        return None


class PlainStr(str):
    pass


BAD_TIMES = [
    "2026-02-29T10:05:00Z",  # not a leap year
    "2026-02-30T10:05:00Z",
    "2026-04-31T10:05:00Z",
    "2026-13-01T10:05:00Z",
    "2026-00-10T10:05:00Z",
    "2026-03-14T24:00:00Z",
    "2026-03-14T10:60:00Z",
    "2026-03-14T10:05:61Z",
    "2026-03-14T10:05:00",
    "2026-03-14 10:05:00Z",
    "2026-03-14T10:05:00+0900",  # the format allows it, the pattern does not
    "2026-03-14T10:05:00+24:00",
    "2026-03-14T10:05:00.Z",
    "2026-03-14T10:05:00Z\n",
    "\u0662026-03-14T10:05:00Z",  # an Arabic-Indic digit: \\d matches it, [0-9] does not
    "1900-02-29T10:05:00Z",
    "x2026-03-14T10:05:00Z",
    "",
]
GOOD_TIMES = [
    "2024-02-29T23:59:60+09:00",
    "2000-02-29T00:00:00z",
    "2026-03-14t10:05:00.250-05:30",
    "2026-12-31T23:59:59.123456789Z",
]
BAD_MATCHES = ["", "m" * 129, "m 1", "m1\n", "tablé", "\nm1", "m1\r"]
WORDS = [
    "deck", "hand", "discard", "prizes", "lost_zone", "stadium", "lost", "Hand", "bench", "active",
    "energy", "tool", "other", "ex", "none", "V", "poisoned", "confused", "win", "void", "amend",
    "caution", "moved", "damage", "note", "attack_ended",
]  # fmt: skip
NASTY: list[Any] = [
    None, True, False, 0, 1, -1, 2, 60, 3.0, 1.0, 0.0, -0.0, 2.5, math.nan, math.inf, -math.inf,
    10**30, -(10**30), 2**63, -(2**63) - 1, 10**5000, "", " ", "1", "a", "0", "null", "true",
    [], ["x"], [1], [None], ("x",), {}, {"name": "x"}, {"name": ""}, b"x",
    OddStr("hand"), OddStr("a"), PlainStr("hand"), PlainStr("x"), OddInt(3), OddInt(0),
    OddDict(name="Pikachu", kind="energy"), {"name": "Pikachu", "kind": "energy"},
    {"name": "Pikachu", "hp": 0}, {"name": "Pikachu", "hp": True}, {"name": "P", "rule": "EXX"},
    {"name": "P", "prizes": -1}, {"name": "P", "prizes": 1.0}, {"kind": "tool"},
    *BAD_TIMES, *GOOD_TIMES, *BAD_MATCHES, *WORDS,
]  # fmt: skip
KEYS = [
    "match", "seq", "type", "at", "id", "player", "pid", "card", "count", "cards", "from", "to", "turn",
    "deck", "amount", "by", "name", "kind", "hp", "rule", "prizes", "condition", "on", "effect", "delta",
    "reason", "outcome", "winner", "target", "action", "event", "text", "author", "wins", "x_vendor",
]  # fmt: skip

BASES = [e for name in COVERED for e in VALID[name]] + [
    stamp(e, datetime.datetime(2026, 3, 1)) for name in COVERED for e in VALID[name][:1]
]


def mutate(event: dict[str, Any], choose: Callable[[Sequence[Any]], Any]) -> dict[str, Any]:
    """1 to 3 changes: drop a key, or set one (known or not) to a nasty value, at the top or one level in."""
    out = copy.deepcopy(event)
    for _ in range(choose([1, 1, 2, 3])):
        node: dict[str, Any] = out
        nested = [k for k, v in node.items() if type(v) is dict]
        if nested and choose([False, False, True]):
            node = node[choose(nested)]
        if node and choose([True, False, False]):
            del node[choose(sorted(node))]
        else:
            key = choose(sorted(node)) if node and choose([True, False]) else choose(KEYS)
            node[key] = copy.copy(choose(NASTY))
    return out


@settings(max_examples=examples(1500), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(BASES), st.data())
def test_fuzz_fast_path_is_sound(event: dict[str, Any], data: st.DataObject) -> None:
    check(mutate(event, lambda seq: data.draw(st.sampled_from(list(seq)))))


@settings(max_examples=examples(300), deadline=None)
@given(st.sampled_from(BASES), st.sampled_from(KEYS), st.from_type(object) | st.text() | st.integers())
def test_fuzz_any_value_is_sound(event: dict[str, Any], key: str, value: Any) -> None:
    check({**event, key: value})


@pytest.mark.parametrize("value", BAD_TIMES + GOOD_TIMES)
def test_timestamps(value: str) -> None:
    for base in BASES[:6]:
        event = {**base, "at": value}
        check(event)
        assert fast_accepts(event) == (value in GOOD_TIMES)
        assert EVENTS_REF.is_valid(event) == (value in GOOD_TIMES) or value.endswith("+0900")


@pytest.mark.parametrize("value", BAD_MATCHES)
def test_bad_match_ids(value: str) -> None:
    for base in BASES[:6]:
        check({**base, "match": value})
        assert not fast_accepts({**base, "match": value})


def test_subclasses_and_lookalikes_go_the_slow_way() -> None:
    base = VALID["attached"][0]
    for event in [
        {**base, "player": OddStr("ash")},
        {**base, "player": PlainStr("ash")},
        {**base, "seq": OddInt(9)},
        {**base, "card": OddDict(base["card"])},
        {**base, "card": {**base["card"], "name": OddStr("x")}},
        OddDict(base),
        {**base, "seq": 9.0},  # an integer for the schema, not for msgspec: the slow path says yes
        {**base, "x": (1, 2)},
    ]:
        assert not fast_accepts(event), event
        check(event)


# ------------------------------------------------------------------------------------ the tests can fail


def single_mutations() -> Iterator[dict[str, Any]]:
    """Every base with one of its keys (top level or one level in) dropped or set to each nasty value."""
    for base in BASES:
        paths = [(k,) for k in base] + [(k, j) for k, v in base.items() if type(v) is dict for j in v]
        for path in paths:
            for value in [DROP, *NASTY]:
                event = copy.deepcopy(base)
                node = event if len(path) == 1 else event[path[0]]
                if value is DROP:
                    del node[path[-1]]
                else:
                    node[path[-1]] = copy.copy(value)
                yield event


DROP = object()


def sweep(*, first: bool = False) -> list[dict[str, Any]]:
    """The events among all single mutations that fail the soundness check (``first``: stop at one)."""
    failures = []
    for event in single_mutations():
        try:
            check(event)
        except AssertionError:
            failures.append(event)
            if first:
                break
    return failures


def test_sweep_passes() -> None:
    assert sweep() == []


def _loosened(change: Callable[[dict[str, Any]], None]) -> dict[str, Any]:
    defs = copy.deepcopy(V._EVENTS_SCHEMA["$defs"])
    change(defs)
    return V._fast_types(V.EVENT_TYPES, defs)


@pytest.mark.parametrize(
    "loosen",
    [
        pytest.param(lambda d: d["damage"]["properties"]["amount"].pop("minimum"), id="no-minimum"),
        pytest.param(lambda d: d["timestamp"].pop("format"), id="no-date-time-format"),
        pytest.param(lambda d: d["pid"].pop("minLength"), id="no-minLength"),
        pytest.param(lambda d: d["zone"]["enum"].append("lost"), id="wider-enum"),
        pytest.param(lambda d: d["attached"]["properties"]["card"]["required"].remove("kind"), id="card"),
        pytest.param(lambda d: d["envelope"]["properties"]["id"].update(type="integer"), id="id-type"),
    ],
)
def test_a_loosened_fast_path_is_caught(loosen: Callable[[dict[str, Any]], None]) -> None:
    saved = V._FAST
    V._FAST = _loosened(loosen)  # type: ignore[misc]
    try:
        assert sweep(first=True), "the soundness check did not notice a loosened fast path"
    finally:
        V._FAST = saved  # type: ignore[misc]


def test_a_missing_guard_or_dollar_is_caught() -> None:
    saved = V._PLAIN, V._MATCH_ID
    try:
        V._PLAIN = V._PLAIN | {OddStr, OddInt, OddDict}  # type: ignore[misc]
        assert sweep(first=True)
        V._PLAIN = saved[0]  # type: ignore[misc]
        V._MATCH_ID = re.compile(V._EVENTS_SCHEMA["$defs"]["match_id"]["pattern"])  # "$" takes "m1\n"
        V._MATCHES.clear()
        assert sweep(first=True)
    finally:
        V._PLAIN, V._MATCH_ID = saved  # type: ignore[misc]
        V._MATCHES.clear()
