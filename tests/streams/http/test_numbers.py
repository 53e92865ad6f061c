"""Numbers at the edges (issue 18 item 4): every integer field of the contract has a range the schema
enforces at the edge, non-finite floats and integers beyond 64 bits are refused wherever they are, and no
value can make a stored match unreadable or a record unparseable.

The fields are read from ``schemas/events.schema.json`` itself (a field added later is covered), and each
one's edges go through the real service (a real port, a real Redis) as JSON and as MessagePack, through
the bytes path the Kafka workers take, and through ``prizecheck replay``; then the service restarts, every
match takes one more event, every record parses as strict JSON and ``prizecheck check`` finds nothing.
A hypothesis property does the same with any integer or float in any numeric place.
"""

from __future__ import annotations

import copy
import json
import math
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import msgpack
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from replay.cli import main
from schemas import load_schema
from streams.check import check
from streams.ingest import IngestCore
from streams.store import RedisStore
from tests.streams.http.served import Served, start_served
from tests.test_schemas import VALID

pytestmark = pytest.mark.redis

Event = dict[str, Any]
SCHEMA = load_schema("events")
DEFS = SCHEMA["$defs"]
BIGINT_MAP = {"$bigint": "18446744073709551616"}


# ------------------------------------------------------------------------------------ the fields
def _resolve(node: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in node:
        node = {**DEFS[node["$ref"].rsplit("/", 1)[1]], **{k: v for k, v in node.items() if k != "$ref"}}
    return node


def _numeric(node: dict[str, Any], path: tuple[str, ...]) -> Iterator[tuple[tuple[str, ...], dict[str, Any]]]:
    node = _resolve(node)
    kind = node.get("type")
    kinds = kind if isinstance(kind, list) else [kind]
    if "integer" in kinds or "number" in kinds:
        yield path, node
    for part in node.get("allOf", []):
        yield from _numeric(part, path)
    for key, prop in node.get("properties", {}).items():
        if path == () and key in ("match", "type"):
            continue
        yield from _numeric(prop, (*path, key))


def numeric_fields() -> list[tuple[str, tuple[str, ...], dict[str, Any]]]:
    """Every numeric field of every event type, with its schema node (objects inside lists are reached
    through the same definitions elsewhere: ``bench[i].card`` is ``active.card``'s ``pokemon_card``)."""
    out = []
    for kind in DEFS["envelope"]["properties"]["type"]["enum"]:
        for path, node in _numeric(DEFS[kind], ()):
            if path == ("seq",) and kind != "note":
                continue  # the envelope's: once is enough
            out.append((kind, path, node))
    return out


FIELDS = numeric_fields()


def test_the_schema_bounds_every_integer_field() -> None:
    """Every integer field has a documented range (a maximum as well as a minimum)."""
    assert len(FIELDS) >= 25
    for kind, path, node in FIELDS:
        assert "minimum" in node and "maximum" in node, (kind, path)
        assert node["maximum"] <= 1_000_000 and node["minimum"] >= -1_000_000, (kind, path)


def carrier(kind: str) -> Event:
    """A valid event of ``kind`` (the contract's own examples) to carry a value."""
    base = next(e for e in VALID[kind] if e["type"] == kind)
    return copy.deepcopy(base)


def put(event: Event, path: tuple[str, ...], value: Any) -> Event:
    node = event
    for key in path[:-1]:
        node = node.setdefault(key, {})
    node[path[-1]] = value
    return event


def edges(node: dict[str, Any]) -> list[tuple[Any, bool]]:
    """(value, accepted?) at and around a field's range, and the values no field takes."""
    lo, hi = node["minimum"], node["maximum"]
    text_too = "string" in (node["type"] if isinstance(node["type"], list) else [node["type"]])
    return [
        (lo, True),
        (hi, True),
        (float(lo), True),  # an integral float is the integer it equals
        (lo - 1, False),
        (hi + 1, False),
        (hi + 0.5, False),
        (2**63 - 1, False),
        (2**63, False),
        (2**64 - 1, False),
        (2**64, False),
        (-(2**63), False),
        (-(2**63) - 1, False),
        (10**30, False),
        (math.nan, False),
        (math.inf, False),
        (-math.inf, False),
        (1e308, False),
        (True, False),
        ("1", text_too),  # context.table may be a string
        (BIGINT_MAP, False),
    ]


#: Places the contract leaves open (extra fields at any level, context beyond its named fields, a
#: correction's replacement event): any number MessagePack and JSON both carry, nothing else.
OPEN_PLACES: list[tuple[str, tuple[str, ...]]] = [
    ("note", ("x",)),
    ("note", ("vendor", "reading", "n")),
    ("match_started", ("context", "v")),
    ("correction", ("event", "amount")),
]
OPEN_EDGES: list[tuple[Any, bool]] = [
    (2**64 - 1, True),
    (-(2**63), True),
    (2**64, False),
    (-(2**63) - 1, False),
    (10**30, False),
    (1.5, True),
    (1e308, True),
    (-0.0, True),
    (math.nan, False),
    (math.inf, False),
    (-math.inf, False),
    (BIGINT_MAP, True),  # only a map: no integer is ever archived as one
    (True, True),
]


#: make test: every field at its bounds and just past them, and at 2^64 and NaN; every edge of every
#: field with PRIZECHECK_NUMBER_EDGES=full (make test-long).
FULL = os.environ.get("PRIZECHECK_NUMBER_EDGES") == "full"
SAMPLED = {0, 1, 2, 3, 4, 9, 13}


def cases() -> list[tuple[str, str, tuple[str, ...], Any, bool]]:
    out = []
    for kind, path, node in FIELDS:
        for i, (value, ok) in enumerate(edges(node)):
            if FULL or i in SAMPLED:
                out.append((f"{kind}.{'.'.join(path)}={value!r}", kind, path, value, ok))
    for kind, path in OPEN_PLACES:
        for value, ok in OPEN_EDGES:
            out.append((f"{kind}.{'.'.join(path)}={value!r}", kind, path, value, ok))
    return out


CASES = cases()


def stream(n: int, kind: str, path: tuple[str, ...], value: Any) -> list[Event]:
    """A match of its own: its match_started, and the carrier of ``value`` at seq 2 (or the
    match_started itself carries it)."""
    match = f"num{n}"
    start = {**carrier("match_started"), "match": match, "players": ["ash", "misty"], "first": "ash"}
    if kind == "match_started":
        return [put(start, path, value)]
    if path == ("seq",):  # alone: seq 1 would otherwise be a second event at seq 1
        return [put({**carrier(kind), "match": match}, path, value)]
    event = {**carrier(kind), "match": match, "seq": 2}
    return [start, put(event, path, value)]


def msgpack_ok(value: Any) -> bool:
    return not (type(value) is int and not -(2**63) <= value < 2**64)


# ------------------------------------------------------------------------------ through the service
def strict_json(text: str) -> Any:
    def refuse(name: str) -> Any:
        raise AssertionError(f"not JSON: {name}")

    return json.loads(text, parse_constant=refuse)


async def post_raw(s: Served, body: bytes, content_type: str) -> tuple[int, dict[str, Any]]:
    r = await s.http.post(
        f"{s.url}/events", data=body, headers={**s.auth("admin"), "Content-Type": content_type}
    )
    assert r.status in (200, 400), await r.text()  # never a 500
    return r.status, await r.json()


async def test_every_numeric_edge_through_http_and_the_kafka_path_then_restart_and_check(
    redis_store: RedisStore, tmp_path: Path
) -> None:
    s, server = await start_served(redis_store, tmp_path)
    core = IngestCore(redis_store)  # the Kafka workers' path: msgpack bytes into the core
    live: list[str] = []
    try:
        for t, transport in enumerate(("json", "msgpack", "kafka")):
            # every case of one transport in one body: each its own match, its outcome found by position
            batch: list[tuple[str, bool, list[Event]]] = []
            for n, (name, kind, path, value, ok) in enumerate(CASES):
                if transport == "json" or msgpack_ok(value):  # else MessagePack cannot even carry it
                    batch.append((name, ok, stream(n * 3 + t, kind, path, value)))
            events = [e for _, _, evs in batch for e in evs]
            if transport == "json":
                body = "\n".join(json.dumps(e) for e in events).encode()  # NaN, Infinity as Python writes
                _, answer = await post_raw(s, body, "application/x-ndjson")
                statuses = [o["status"] for o in answer["outcomes"]]
                fields = [o.get("field") for o in answer["outcomes"]]
            elif transport == "msgpack":
                _, answer = await post_raw(s, b"".join(map(msgpack.packb, events)), "application/msgpack")
                statuses = [o["status"] for o in answer["outcomes"]]
                fields = [o.get("field") for o in answer["outcomes"]]
            else:
                outcomes = await core.ingest_many([msgpack.packb(e) for e in events])
                statuses = [o.status for o in outcomes]
                fields = [o.field for o in outcomes]
            at = 0
            for name, ok, evs in batch:
                at += len(evs)
                got = statuses[at - 1] != "rejected"
                assert got == ok, (transport, name, statuses[at - 1])
                if not got:
                    assert fields[at - 1] is not None, (transport, name)  # the field is named
                elif statuses[0] != "rejected":
                    live.append(evs[0]["match"])
    finally:
        await s.http.close()
        await server.close()
    # a restart: a new process, nothing in memory; every match takes one more event and reads back
    s, server = await start_served(redis_store, tmp_path / "again")
    try:
        notes = [
            {"match": m, "seq": await redis_store.head(m) + 1, "type": "note", "text": "after the restart"}
            for m in live
        ]
        r = await s.post(notes)
        assert r.status == 200, await r.text()
        for n, match in enumerate(live):
            r = await s.http.get(f"{s.url}/matches/{match}/record")
            assert r.status == 200, match
            strict_json(await r.text())
            if n % 10 == 0:
                r = await s.http.get(f"{s.url}/matches/{match}/board")
                strict_json(await r.text())
                r = await s.http.get(f"{s.url}/matches/{match}/events", headers=s.auth("judge"))
                for line in (await r.text()).splitlines():
                    strict_json(line)
    finally:
        await s.http.close()
        await server.close()
    report = await check(redis_store)
    assert report.ok, report.breaches[:5]


async def test_a_big_integer_is_refused_and_the_map_that_looked_like_it_is_only_a_map(served: Served) -> None:
    s = served
    start = {**carrier("match_started"), "match": "big", "players": ["ash", "misty"], "first": "ash"}
    assert (await s.post([start])).status == 200
    big = {"match": "big", "seq": 2, "type": "note", "text": "n", "x": 2**64}
    r = await s.post([big])
    body = await r.json()
    assert (
        r.status == 400 and body["outcomes"][0]["field"] == "x" and "64 bits" in body["outcomes"][0]["reason"]
    )
    r = await s.post([{**big, "x": BIGINT_MAP}])
    assert r.status == 200 and (await r.json())["outcomes"][0]["status"] == "applied"  # not a "duplicate"
    amount = {"match": "big", "seq": 3, "type": "damage", "pid": "b1", "amount": 2**64}
    r = await s.post([amount])
    assert r.status == 400 and (await r.json())["outcomes"][0]["field"] == "amount"


async def test_nan_in_context_is_refused_and_every_record_stays_json(served: Served) -> None:
    s = served
    start = {**carrier("match_started"), "match": "nan1", "context": {"league": "L1", "v": math.nan}}
    for body, ctype in (
        (json.dumps(start).encode(), "application/json"),
        (msgpack.packb(start), "application/msgpack"),
    ):
        status, answer = await post_raw(s, body, ctype)
        assert status == 400 and answer["outcomes"][0]["field"] == "context.v", answer
    assert (await s.http.get(f"{s.url}/matches/nan1/record")).status == 404


@pytest.mark.parametrize(
    ("name", "kind", "path", "value", "ok"), [c for c in CASES if msgpack_ok(c[3]) or True][::7]
)
def test_prizecheck_replay_refuses_the_same_values_naming_the_field(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    name: str,
    kind: str,
    path: tuple[str, ...],
    value: Any,
    ok: bool,
) -> None:
    events = stream(0, kind, path, value)
    file = tmp_path / "edge.jsonl"
    file.write_text("".join(json.dumps(e) + "\n" for e in events))
    code = main(["replay", str(file), "--json"])
    out, err = capsys.readouterr()
    assert code == (0 if ok else 2), (name, err)
    if ok:
        strict_json(out.splitlines()[-1])
    else:
        assert "Traceback" not in err and f"{file}:" in err and "field" in err, err


# ------------------------------------------------------------------------------------- the property
_numbers = st.one_of(
    st.integers(),
    st.integers(min_value=-(2**64), max_value=2**65),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from([0, -1, 1, 2**53, 2**63, 2**64, -(2**63) - 1, math.nan, math.inf]),
)
_places = st.one_of(st.sampled_from([(k, p) for k, p, _ in FIELDS]), st.sampled_from(OPEN_PLACES))
_counter = iter(range(10**9))


def _expected(kind: str, path: tuple[str, ...], value: Any) -> bool:
    node = next((n for k, p, n in FIELDS if (k, p) == (kind, path)), None)
    if type(value) is float:
        if not math.isfinite(value):
            return False
        if value.is_integer() and abs(value) < 2**53:
            value = int(value)
    if node is None:  # an open place
        return type(value) is float or -(2**63) <= value < 2**64
    if node.get("maxLength") and type(value) is str:
        return len(value) <= node["maxLength"]
    return type(value) is int and node["minimum"] <= value <= node["maximum"]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(place=_places, value=_numbers, as_msgpack=st.booleans())
async def test_property_any_number_anywhere_is_kept_exactly_when_in_range_and_reads_back_as_json(
    served: Served, place: tuple[str, tuple[str, ...]], value: Any, as_msgpack: bool
) -> None:
    kind, path = place
    if as_msgpack and not msgpack_ok(value):
        as_msgpack = False
    events = stream(100_000 + next(_counter), kind, path, value)
    if as_msgpack:
        _, answer = await post_raw(served, b"".join(map(msgpack.packb, events)), "application/msgpack")
    else:
        body = "\n".join(json.dumps(e) for e in events).encode()
        _, answer = await post_raw(served, body, "application/x-ndjson")
    got = answer["outcomes"][-1]["status"] != "rejected"
    assert got == _expected(kind, path, value), answer
    match = events[0]["match"]
    r = await served.http.get(f"{served.url}/matches/{match}/record")
    if r.status == 200:
        record = strict_json(await r.text())
        assert record["match"] == match
