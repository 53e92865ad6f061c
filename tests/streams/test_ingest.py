"""The ingest core against both stores (memory and a real Redis): ordering, duplicates, gaps, playoffs.

The reference is always the engine's offline replay: what ``prizecheck replay --json`` prints for the same
events must be, byte for byte, the record stored in the store.
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import subprocess
import sys
import time
from collections.abc import AsyncIterator
from itertools import pairwise
from typing import Any

import msgpack
import pytest

from replay import Game, replay_records
from replay.engine.chain import canonical_bytes, verify_signature
from replay.engine.record import dumps
from replay.records import unpack_record
from streams.ingest import IngestCore
from streams.store import MemoryStore, Store
from tests.builder import Stream, card, drawn_game, sudden_death
from tests.paths import ROOT


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def game(
    match: str = "m1", *, turns: int = 6, notes: int = 0, season: str = "2026", **started: Any
) -> list[dict[str, Any]]:
    """A full game with knockouts, prizes, promotions and a claimed result."""
    s = Stream(match, context={"league": "L1", "season": season, "round": 1}, **started)
    s.setup("ash", ("a1", card("Pikachu", 30)), ("a2", card("Raichu", 120)))
    s.setup("misty", ("m1", card("Staryu", 30)), ("m2", card("Starmie", 90)))
    s.turn("ash")
    s.add("drew", player="ash", cards=["Thunder Stone"], count=1)
    s.add("attached", player="ash", pid="a1", card={"name": "Lightning Energy", "kind": "energy"})
    s.add("turn_ended", player="ash")
    for n in range(turns):
        player = "misty" if n % 2 == 0 else "ash"
        s.turn(player)
        for i in range(notes):
            s.add("note", text=f"turn {n} note {i}", author="judge")
        s.add("turn_ended", player=player)
    s.turn("misty" if turns % 2 == 0 else "ash")
    attacker, target, promote = ("m1", "a1", "a2") if turns % 2 == 0 else ("a1", "m1", "m2")
    who = "misty" if turns % 2 == 0 else "ash"
    other = "ash" if who == "misty" else "misty"
    s.attack(who, attacker, (target, 30), claims=(target,))
    s.add("prize_taken", player=who, count=1)
    s.add("promoted", player=other, pid=promote)
    s.add("turn_ended", player=who)
    s.add("conceded", player=other)
    s.add("game_ended", outcome="win", winner=who, reason="concession")
    return s.events


def offline(events: list[dict[str, Any]], *, env: dict[str, str] | None = None) -> dict[str, bytes]:
    """``prizecheck replay --json`` run for real on a file of these events: match -> JSON line."""
    path = ROOT / ".pytest_cache" / f"ingest-{os.getpid()}-{time.monotonic_ns()}.jsonl"
    path.parent.mkdir(exist_ok=True)
    path.write_text("".join(json.dumps(e) + "\n" for e in events))
    try:
        run_env = {k: v for k, v in os.environ.items() if not k.startswith("PRIZECHECK_")}
        run_env.update(env or {})
        out = subprocess.run(
            [sys.executable, "-m", "replay.cli", "replay", str(path), "--json"],
            cwd=ROOT,
            env=run_env,
            capture_output=True,
            check=True,
        ).stdout
    finally:
        path.unlink()
    lines = [line for line in out.split(b"\n") if line]
    return {json.loads(line)["match"]: line for line in lines}


def in_process(events: list[dict[str, Any]]) -> dict[str, bytes]:
    """The same as :func:`offline` without the subprocess (for the many small checks)."""
    return {m: dumps(r) for m, r in replay_records(events).items()}


async def stored(store: Store, match: str) -> bytes:
    record = unpack_record(await store.record(match))
    assert record is not None, f"no record for {match}"
    return dumps(record)


async def test_records_equal_the_cli_replay_byte_for_byte(any_store: Store) -> None:
    events = game("m1") + game("m2", turns=7)
    core = IngestCore(any_store)
    for e in events:
        outcome = await core.ingest(e)
        assert (outcome.status, outcome.applied) == ("applied", [e["seq"]])
    expected = offline(events)
    assert await stored(any_store, "m1") == expected["m1"]
    assert await stored(any_store, "m2") == expected["m2"]
    # the board is the engine's public view after the last event
    g = Game()
    for e in game("m1"):
        g.apply(e)
    board = msgpack.unpackb(await any_store.board("m1"))
    assert dumps(board) == dumps(g.board())
    # the archive holds the events, in order, as their canonical msgpack
    log = await any_store.events("m1")
    assert [msgpack.unpackb(e.data) for e in log] == game("m1")
    assert core.stats()["applied"] == len(events)


async def test_duplicates_are_no_ops(any_store: Store) -> None:
    events = game("m1")
    core = IngestCore(any_store)
    for e in events:
        await core.ingest(e)
    before = await stored(any_store, "m1")
    for e in [*events[::3], msgpack.packb(events[1])]:
        outcome = await core.ingest(e)
        assert (outcome.status, outcome.applied) == ("duplicate", [])
    assert await stored(any_store, "m1") == before
    assert len(await any_store.events("m1")) == len(events)
    # a fresh owner (after a restart) recognises them from the archive too
    again = IngestCore(any_store)
    assert (await again.ingest(events[4])).status == "duplicate"
    stats = core.stats()
    assert (stats["applied"], stats["duplicate"], stats["rejected"]) == (len(events), len(events[::3]) + 1, 0)


async def test_reordering_within_the_buffer_is_invisible(any_store: Store) -> None:
    events = game("m1", turns=9)
    shuffled = [events[0]]
    rest = events[1:]
    rng = random.Random(7)
    for i in range(0, len(rest), 5):  # shuffle within windows of 5
        window = rest[i : i + 5]
        rng.shuffle(window)
        shuffled += window
    core = IngestCore(any_store)
    statuses = [(await core.ingest(e)).status for e in shuffled]
    assert "buffered" in statuses and set(statuses) <= {"applied", "buffered"}
    assert core.stats()["buffered"] == 0
    assert await any_store.held("m1") == {}
    assert await stored(any_store, "m1") == in_process(events)["m1"]
    assert [msgpack.unpackb(e.data)["seq"] for e in await any_store.events("m1")] == [
        e["seq"] for e in events
    ]


async def test_a_gap_that_times_out_is_reported_and_a_late_event_is_kept(any_store: Store) -> None:
    events = game("m1")
    missing = events[5]
    clock = Clock()
    core = IngestCore(any_store, gap_timeout=5.0, clock=clock)
    for e in events[:5]:
        await core.ingest(e)
    for e in events[6:9]:
        assert (await core.ingest(e)).status == "buffered"
        clock.now += 1
    assert core.stats()["buffered"] == 3
    assert await core.flush_gaps() == []  # the oldest has waited 3 s
    clock.now += 2
    flushed = await core.flush_gaps()
    assert [(o.status, o.seq, o.applied) for o in flushed] == [("applied", 7, [7, 8, 9])]
    assert "seq 6" in (flushed[0].reason or "")
    for e in events[9:]:
        assert (await core.ingest(e)).status == "applied"
    without = [e for e in events if e is not missing]
    assert await stored(any_store, "m1") == offline(without)["m1"]
    record = unpack_record(await any_store.record("m1"))
    assert record is not None
    assert [f["code"] for f in record["findings"]].count("seq_gap") == 1

    late = await core.ingest(missing)
    assert late.status == "rejected" and "late_event" in (late.reason or "")
    record = unpack_record(await any_store.record("m1"))
    assert record is not None and "late_event" in [f["code"] for f in record["findings"]]
    # the late event is in the archive (after the head), and a restarted owner rebuilds the same record
    log = await any_store.events("m1")
    assert log[-1].kind == "late" and msgpack.unpackb(log[-1].data) == missing
    before = await stored(any_store, "m1")
    fresh = IngestCore(any_store)
    assert (await fresh.ingest(missing)).status == "duplicate"  # redelivered: no second finding
    assert await fresh.rebuild("m1") is not None
    assert await stored(any_store, "m1") == before
    stats = core.stats()
    assert stats["applied"] + stats["duplicate"] + stats["rejected"] == len(events)


async def test_the_gap_buffer_is_bounded(any_store: Store) -> None:
    events = game("m1")
    core = IngestCore(any_store, gap_limit=3, gap_timeout=3600)
    await core.ingest(events[0])
    outcomes = [await core.ingest(e) for e in events[2:6]]
    assert [o.status for o in outcomes] == ["buffered", "buffered", "buffered", "applied"]
    assert outcomes[-1].applied == [3, 4, 5, 6]
    record = unpack_record(await any_store.record("m1"))
    assert record is not None and [f["code"] for f in record["findings"]] == ["seq_gap"]


async def test_buffered_events_survive_a_restart(any_store: Store) -> None:
    events = game("m1")
    first = IngestCore(any_store)
    for e in events[:3] + events[4:7]:
        await first.ingest(e)
    assert set(await any_store.held("m1")) == {5, 6, 7}
    # the owner dies; its successor picks the held events up and the missing one releases them
    second = IngestCore(any_store)
    outcome = await second.ingest(events[3])
    assert (outcome.status, outcome.applied) == ("applied", [4, 5, 6, 7])
    for e in events[7:]:
        await second.ingest(e)
    assert await stored(any_store, "m1") == in_process(events)["m1"]


async def test_held_events_left_contiguous_by_a_dead_owner_are_drained(any_store: Store) -> None:
    events = game("m1")
    first = IngestCore(any_store)
    for e in events[:3] + events[4:6]:
        await first.ingest(e)
    # the owner appended seq 4 and died before draining 5 and 6 (simulated: the append it makes, with
    # the checkpoint it signs, written by hand)
    from streams.store import Append, IndexEntry

    g = Game()
    for e in events[:4]:
        g.apply(e)
    st = first._matches["m1"]
    record, board = canonical_bytes(g.record()), canonical_bytes(g.board())
    entry = IndexEntry.from_record(g.record(), 4)
    ck = first._next_checkpoint(st, "m1", record, "", entry, board, g, 1)
    await any_store.append(
        Append(
            "m1",
            4,
            canonical_bytes(events[3]),
            3,
            board,
            record,
            writes=st.writes,
            chain=g.log.head.hex(),  # as every append does: the trusted head a rebuild must reach
            expect=first._expect(st),
            checkpoint=ck.encode(),
        )
    )
    second = IngestCore(any_store)
    outcome = await second.ingest(events[6])
    assert (outcome.status, outcome.applied) == ("applied", [7])
    assert await any_store.held("m1") == {}
    for e in events[7:]:
        await second.ingest(e)
    assert await stored(any_store, "m1") == in_process(events)["m1"]


async def test_malformed_input_is_rejected_with_a_clear_reason(any_store: Store) -> None:
    core = IngestCore(any_store)
    e1 = game("m1")[0]
    int_key: dict[Any, Any] = {**e1, 1: "x"}  # a non-string key (msgpack allows it)
    cases: list[tuple[Any, str]] = [
        (b"\xc1", "not msgpack"),
        (msgpack.packb([1, 2]), "must be a msgpack map, got list"),
        (msgpack.packb(e1) + b"\x01", "trailing bytes"),
        (b"", "not msgpack"),
        ({**e1, "seq": 0}, "match m1 seq"),
        ({**e1, "players": ["ash"]}, "field players"),
        ({"seq": 2, "type": "note", "text": "x"}, "match"),
        ([e1], "must be a map"),
        (msgpack.packb(int_key), "map keys must be strings"),
    ]
    for raw, words in cases:
        outcome = await core.ingest(raw)
        assert outcome.status == "rejected", raw
        assert words in (outcome.reason or ""), (raw, outcome.reason)
    bad = await core.ingest({**e1, "players": ["ash"]})
    assert (bad.match, bad.seq, bad.field) == ("m1", 1, "players")
    assert await any_store.events("m1") == []
    assert core.stats()["rejected"] == len(cases) + 1


async def test_a_different_event_reusing_a_seq_is_a_finding_and_survives_a_rebuild(any_store: Store) -> None:
    events = game("m1")
    core = IngestCore(any_store)
    for e in events[:8]:
        await core.ingest(e)
    impostor = {**events[3], "player": "misty"}
    outcome = await core.ingest(impostor)
    assert outcome.status == "rejected" and "duplicate_seq" in (outcome.reason or "")
    assert (outcome.match, outcome.seq, outcome.field) == ("m1", 4, "seq")
    for e in events[8:]:
        await core.ingest(e)
    record = unpack_record(await any_store.record("m1"))
    assert record is not None and "duplicate_seq" in [f["code"] for f in record["findings"]]
    assert msgpack.unpackb(await any_store.event("m1", 4)) == events[3]
    before = await stored(any_store, "m1")
    fresh = IngestCore(any_store)
    await fresh.rebuild("m1")
    assert await stored(any_store, "m1") == before
    # a redelivered impostor is recognised as the conflict already archived and reported
    assert (await fresh.ingest(impostor)).status == "duplicate"
    assert await stored(any_store, "m1") == before


async def test_two_owners_during_a_rebalance_do_not_fork_the_archive(any_store: Store) -> None:
    events = game("m1")
    a, b = IngestCore(any_store), IngestCore(any_store)
    for e in events[:4]:
        await a.ingest(e)
    for e in events[4:8]:
        await b.ingest(e)  # b rebuilt m1 from the archive
    for e in events[8:]:
        outcome = await a.ingest(e)  # a's head is stale: it rebuilds and goes on
        assert outcome.status == "applied"
    assert await stored(any_store, "m1") == in_process(events)["m1"]


async def test_indexes_follow_the_records(any_store: Store) -> None:
    core = IngestCore(any_store)
    g1 = game("m1")
    for e in g1[:-3]:
        await core.ingest(e)
    assert await any_store.matches(status="in_progress", league="L1") == ["m1"]
    for e in g1[-3:] + game("m2", season="2027")[:2]:
        await core.ingest(e)
    assert await any_store.matches(status="finished") == ["m1"]
    assert await any_store.matches(player="ash") == ["m1", "m2"]
    assert await any_store.matches(season="2026") == ["m1"]
    assert await any_store.matches(season="2027", league="L1") == ["m2"]
    counts = await any_store.findings_counts()
    record = unpack_record(await any_store.record("m1"))
    assert record is not None
    assert sum(counts.values()) == len(record["findings"])


def drawn(match: str = "g1") -> Stream:
    return drawn_game(match, "kr-1.0", context={"league": "L1"})


def playoff(name: str, parent: str, decided: bool) -> Stream:
    return sudden_death(name, decided=decided, parent=parent, playoff="sudden_death")


async def test_playoff_children_are_linked_and_settle_the_parent(any_store: Store) -> None:
    parent, tb1, tb2 = drawn(), playoff("g1/tb1", "g1", False), playoff("g1/tb2", "g1", True)
    parent_core, child_core = IngestCore(any_store), IngestCore(any_store)  # different owners
    for e in parent.events:
        await parent_core.ingest(e)
    root = unpack_record(await any_store.record("g1"))
    assert root is not None and root["status"] == "awaiting_playoff"
    assert root["children"] == ["g1/tb1"]
    stub = unpack_record(await any_store.record("g1/tb1"))
    assert stub is not None
    assert (stub["status"], stub["parent"], stub["stub"]) == ("in_progress", "g1", True)
    assert await any_store.matches(status="in_progress") == ["g1/tb1"]
    for e in tb1.events:
        await child_core.ingest(e)
    assert (unpack_record(await any_store.record("g1")) or {})["status"] == "awaiting_playoff"
    assert unpack_record(await any_store.record("g1/tb2")) is not None  # the next stub
    for e in tb2.events:
        await child_core.ingest(e)
    everything = parent.events + tb1.events + tb2.events
    expected = offline(everything)
    for match in ("g1", "g1/tb1", "g1/tb2"):
        assert await stored(any_store, match) == expected[match], match
    settled = unpack_record(await any_store.record("g1"))
    assert settled is not None
    assert (settled["status"], settled["result"]["reason"], settled["result"]["winner"]) == (
        "finished",
        "playoff",
        "ash",
    )
    assert await any_store.matches(status="finished") == ["g1", "g1/tb1", "g1/tb2"]  # /tb1 settled too
    # the parent's owner restarts and goes on: still settled, still what the CLI prints
    again = IngestCore(any_store)
    note = {"match": "g1", "seq": len(parent.events) + 1, "type": "note", "text": "signed off"}
    assert (await again.ingest(note)).status == "applied"
    assert await stored(any_store, "g1") == offline([*everything, note])["g1"]


async def test_records_are_signed_like_the_cli_signs_them(any_store: Store) -> None:
    events = game("m1")
    core = IngestCore(any_store, signing_key=b"s3cret", key_id="k7")
    for e in events:
        await core.ingest(e)
    record = unpack_record(await any_store.record("m1"))
    assert record is not None
    assert record["signature"]["key_id"] == "k7" and verify_signature(record, b"s3cret")
    cli = offline(events, env={"PRIZECHECK_SIGNING_KEY": "s3cret", "PRIZECHECK_KEY_ID": "k7"})
    assert dumps(record) == cli["m1"]


async def test_many_matches_concurrently() -> None:
    import asyncio

    store = MemoryStore()
    core = IngestCore(store)
    games = {f"c{i}": game(f"c{i}", turns=i % 4) for i in range(20)}
    rng = random.Random(3)

    async def feed(events: list[dict[str, Any]]) -> None:
        for e in events:
            await core.ingest(msgpack.packb(e))
            if rng.random() < 0.3:
                await asyncio.sleep(0)

    await asyncio.gather(*(feed(evs) for evs in games.values()))
    expected = in_process([e for evs in games.values() for e in evs])
    for match in games:
        assert await stored(store, match) == expected[match]


@pytest.mark.redis
async def test_rebuild_of_a_400_event_game_is_fast(redis_store: Store) -> None:
    events = game("long", turns=60, notes=4)
    assert len(events) >= 400
    core = IngestCore(redis_store)
    t0 = time.perf_counter()
    for e in events:
        await core.ingest(e)
    ingest_s = time.perf_counter() - t0
    fresh = IngestCore(redis_store)
    t0 = time.perf_counter()
    await fresh.rebuild("long")
    rebuild_s = time.perf_counter() - t0
    assert await stored(redis_store, "long") == in_process(events)["long"]
    rate = len(events) / ingest_s
    print(f"\n{len(events)} events: ingest {rate:.0f} events/s, rebuild {rebuild_s * 1e3:.1f} ms")
    assert rebuild_s < 1.0


async def test_idle_games_are_evicted_from_memory_and_rebuilt(any_store: Store) -> None:
    core = IngestCore(any_store, max_matches=3)
    games = {f"e{i}": game(f"e{i}") for i in range(6)}
    for i in range(0, 37, 6):  # interleave the matches so each is evicted and rebuilt many times
        for evs in games.values():
            for e in evs[i : i + 6]:
                assert (await core.ingest(e)).status == "applied"
    assert core.stats()["matches"] <= 3
    expected = in_process([e for evs in games.values() for e in evs])
    for match in games:
        assert await stored(any_store, match) == expected[match]


# ---------------------------------------------------------------------------------- property
@contextlib.asynccontextmanager
async def _fresh_stores(backend: str, n: int, redis_url: str, tag: str) -> AsyncIterator[list[Store]]:
    """``n`` empty stores of one backend (``memory`` or ``redis``: each under its own prefix, deleted
    afterwards), for tests that compare what different ingest paths leave behind."""
    from redis.asyncio import Redis

    from streams.store import RedisStore

    stores: list[Store] = []
    for _ in range(n):
        if backend == "redis":
            prefix = f"pctest-{tag}-{os.getpid()}-{time.monotonic_ns()}"
            stores.append(RedisStore(Redis.from_url(redis_url), prefix=prefix))
        else:
            stores.append(MemoryStore())
    try:
        yield stores
    finally:
        for store in stores:
            if isinstance(store, RedisStore):
                await store.delete_all()
                await store.close()


def _deliveries(events: list[dict[str, Any]], data: Any) -> list[Any]:
    """A delivery of ``events``: locally reordered, some redelivered, as dicts or msgpack bytes."""
    from hypothesis import strategies as st

    keys = [i + data.draw(st.floats(min_value=0, max_value=4)) for i in range(len(events))]
    order = [e for _, e in sorted(zip(keys, events, strict=True), key=lambda kv: kv[0])]
    out: list[Any] = []
    for e in order:
        out.append(msgpack.packb(e) if data.draw(st.booleans()) else dict(e))
        if data.draw(st.integers(0, 9)) == 0:
            out.append(dict(e))  # at-least-once: a redelivery, right away or later
        if out and data.draw(st.integers(0, 14)) == 0:
            out.append(data.draw(st.sampled_from(out)))
    return out


def test_any_local_reordering_and_redelivery_gives_the_offline_record(redis_url: str) -> None:
    """Property: reordering within the buffer and duplicates never change the stored record."""
    import asyncio

    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st

    events = game("p1", turns=5) + game("p2", turns=4)
    expected = in_process(events)

    @settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
    @given(data=st.data(), backend=st.sampled_from(["memory", "redis"]))
    def check(data: Any, backend: str) -> None:
        delivery = _deliveries(events, data)

        async def run() -> None:
            async with _fresh_stores(backend, 1, redis_url, "prop") as (store,):
                core = IngestCore(store, gap_timeout=3600)
                statuses = [(await core.ingest(e)).status for e in delivery]
                assert "rejected" not in statuses
                stats = core.stats()
                assert stats["buffered"] == 0 and stats["applied"] == len(events)
                assert stats["duplicate"] == statuses.count("duplicate") == len(delivery) - len(events)
                for match in ("p1", "p2"):
                    assert await stored(store, match) == expected[match]

        asyncio.run(run())

    check()


def test_decoding_never_raises_on_any_bytes() -> None:
    """Fuzz: whatever bytes arrive (Kafka values, HTTP bodies), ingest answers with an outcome."""
    import asyncio

    from hypothesis import given, settings
    from hypothesis import strategies as st

    valid = msgpack.packb(game("f1")[0])
    core = IngestCore(MemoryStore())

    @settings(max_examples=300, deadline=None)
    @given(
        st.one_of(
            st.binary(max_size=200),
            st.binary(max_size=40).map(lambda b: valid[: len(b) % (len(valid) + 1)] + b),
            st.recursive(
                st.none()
                | st.booleans()
                | st.integers(-(2**63), 2**64 - 1)
                | st.text(max_size=10)
                | st.binary(max_size=5),
                lambda inner: (
                    st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3)
                ),
                max_leaves=10,
            ).map(lambda obj: msgpack.packb(obj)),
        )
    )
    def check(raw: bytes) -> None:
        outcome = asyncio.run(core.ingest(raw))
        assert outcome.status in ("applied", "duplicate", "buffered", "rejected")
        if outcome.status == "rejected":
            assert outcome.reason

    check()


# ---------------------------------------------------------------------------------- batch path
def _round_robin(*streams: list[dict[str, Any]]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    queues = [list(s) for s in streams]
    while any(queues):
        for q in queues:
            if q:
                out.append(q.pop(0))
    return out


async def _snapshot(store: Store, matches: list[str]) -> dict[str, Any]:
    """Everything a reader can see of these matches: archive, head, read models, pending, indexes."""
    out: dict[str, Any] = {}
    for m in matches:
        entry = await store.index_entry(m)
        out[m] = (
            [(e.position, e.data, e.kind) for e in await store.events(m)],
            await store.head(m),
            await store.record(m),
            await store.board(m),
            await store.held(m),
            entry.as_json() if entry is not None else None,  # as_json: without the internal seq
        )
    out["*"] = (
        await store.matches(),
        [await store.matches(status=s) for s in ("in_progress", "finished", "awaiting_playoff")],
        await store.matches(league="L1"),
        await store.matches(player="ash"),
        await store.findings_counts(),
    )
    return out


def _shape(o: Any) -> tuple[Any, ...]:
    return (o.status, o.match, o.seq, o.reason, o.field, list(o.applied))


def test_a_batch_stores_byte_for_byte_what_per_event_ingest_stores(redis_url: str) -> None:
    """Property: ingest_many over any chunking of any delivery (reordered, redelivered, conflicting,
    invalid, across a playoff family) leaves the store as ingest() one event at a time does, and answers
    with the same outcomes."""
    import asyncio

    from hypothesis import HealthCheck, Phase, given, settings
    from hypothesis import strategies as st

    family = drawn().events + playoff("g1/tb1", "g1", False).events + playoff("g1/tb2", "g1", True).events
    events = _round_robin(game("p1", turns=5), game("p2", turns=4, notes=1), family)
    matches = ["p1", "p2", "g1", "g1/tb1", "g1/tb2"]
    impostor = {**events[6], "text": "forged"} if events[6]["type"] == "note" else {**events[6], "id": "x"}
    invalid = {**events[3], "seq": 0}

    @settings(
        max_examples=30,
        deadline=None,
        suppress_health_check=list(HealthCheck),
        phases=[Phase.explicit, Phase.reuse, Phase.generate],  # shrinking these takes minutes
    )
    @given(
        data=st.data(),
        backend=st.sampled_from(["memory", "redis"]),
        gap_limit=st.sampled_from([2, 1000]),
    )
    def check(data: Any, backend: str, gap_limit: int) -> None:
        delivery = _deliveries(events, data)
        for extra in (impostor, invalid, b"\xc1"):
            delivery.insert(data.draw(st.integers(0, len(delivery))), extra)
        cuts = sorted(data.draw(st.lists(st.integers(0, len(delivery)), max_size=12)))
        bounds = [0, *cuts, len(delivery)]
        batches = [delivery[a:b] for a, b in pairwise(bounds) if b > a]

        async def run() -> None:
            async with _fresh_stores(backend, 2, redis_url, "batch") as stores:
                one = IngestCore(stores[0], gap_limit=gap_limit, gap_timeout=3600)
                many = IngestCore(stores[1], gap_limit=gap_limit, gap_timeout=3600)
                singles = [_shape(await one.ingest(e)) for e in delivery]
                batched = [_shape(o) for b in batches for o in await many.ingest_many(b)]
                assert batched == singles
                assert many.stats() == one.stats()
                assert await _snapshot(stores[1], matches) == await _snapshot(stores[0], matches)

        asyncio.run(run())

    check()


async def test_a_batch_writes_each_match_once(any_store: Store) -> None:
    """One append per match per batch for a run of in-line events; one live update with the last seq."""
    g1, g2 = game("b1", turns=3), game("b2", turns=3)
    core = IngestCore(any_store)
    sub = await any_store.subscribe()
    try:
        out = await core.ingest_many(_round_robin(g1[:10], g2[:10]))
        assert [o.status for o in out] == ["applied"] * 20
        assert [o.applied for o in out[:4]] == [[1], [1], [2], [2]]
        it = aiter(sub)
        got = {(await anext(it)).match for _ in range(2)}
        assert got == {"b1", "b2"}
        assert await any_store.head("b1") == await any_store.head("b2") == 10
        assert msgpack.unpackb(await any_store.board("b1"))["seq"] == 10
        # the rest, with a redelivery and the game's end: records as the offline replay
        out = await core.ingest_many([*g1[10:], g1[3], *g2[10:]])
        assert [o.status for o in out].count("duplicate") == 1
    finally:
        await sub.aclose()
    expected = in_process(g1 + g2)
    for m in ("b1", "b2"):
        assert await stored(any_store, m) == expected[m]
    assert await any_store.matches(status="finished") == ["b1", "b2"]


async def test_a_child_decided_only_while_an_effect_resolves_does_not_settle_its_parent(
    any_store: Store,
) -> None:
    """A playoff child whose record reads "won" after the first of two simultaneous knockouts, and
    "drawn" after the second: the parent must be settled by the final outcome (here by ``/tb2``)."""
    from replay.sources.simulate import simulate_corpus

    events = [e for s in simulate_corpus(40, 3) for e in s if e["match"].startswith("sim-3-000008")]
    root, tb1 = "sim-3-000008", "sim-3-000008/tb1"
    g = Game()
    seen = []
    for e in [e for e in events if e["match"] == tb1]:
        g.apply(e)
        seen.append((g.record()["status"], g.effect_pending))
    assert ("finished", True) in seen and seen[-1][0] == "awaiting_playoff"  # the scenario holds
    expected = in_process(events)
    for batch in (False, True):
        store: Store = MemoryStore() if batch else any_store
        core = IngestCore(store)
        if batch:
            await core.ingest_many(events)
        else:
            for e in events:
                await core.ingest(e)
        for m in sorted({e["match"] for e in events}):
            assert await stored(store, m) == expected[m], (batch, m)
    record = unpack_record(await any_store.record(root))
    assert record is not None and record["result"]["playoff"] == "sim-3-000008/tb2"


async def test_a_long_run_is_written_in_bounded_pieces(any_store: Store, monkeypatch: Any) -> None:
    import streams.ingest.write

    monkeypatch.setattr(streams.ingest.write, "MAX_RUN", 7)  # the write path cuts runs at MAX_RUN
    events = game("long", turns=8, notes=2)
    sub = await any_store.subscribe("long")
    try:
        out = await IngestCore(any_store).ingest_many(events)
        assert [o.status for o in out] == ["applied"] * len(events)
        it = aiter(sub)
        first = await anext(it)
        assert first.seq == 7  # the first piece: seqs 1..7
    finally:
        await sub.aclose()
    assert await stored(any_store, "long") == in_process(events)["long"]
    assert [msgpack.unpackb(e.data) for e in await any_store.events("long")] == events


@pytest.mark.parametrize("backend", ["memory", "redis"])
def test_simulated_seasons_in_batches_store_what_per_event_ingest_stores(
    backend: str, redis_url: str
) -> None:
    """Whole simulated games (draws and their playoffs, claims and notes after the end, multi-knockouts)
    interleaved as on a partition and ingested in batches of several sizes leave the store byte for byte
    as per-event ingest does: the batch path's cuts (``_run_ends``) must not lose a link or a write."""
    import asyncio

    from replay.sources.simulate import simulate_corpus

    streams = [s for s in simulate_corpus(40, 11)]
    matches = [s[0]["match"] for s in streams]
    assert any("/tb" in m for m in matches), "the corpus must hold a playoff family"
    events = _round_robin(*streams[:20]) + _round_robin(*streams[20:])

    async def run() -> None:
        async with _fresh_stores(backend, 4, redis_url, "sim") as stores:
            one = IngestCore(stores[0])
            for e in events:
                assert (await one.ingest(e)).status == "applied"
            expected = await _snapshot(stores[0], matches)
            for size, s in zip((len(events), 997, 61), stores[1:], strict=True):
                many = IngestCore(s)
                for i in range(0, len(events), size):
                    outcomes = await many.ingest_many(events[i : i + size])
                    assert {o.status for o in outcomes} == {"applied"}
                assert await _snapshot(s, matches) == expected, f"batches of {size}"

    asyncio.run(run())
