"""The write path (streams/ingest/write.py): runs of events stored byte for byte as one event at a time
would be, fenced against a second writer; conflicts archived as findings; versions of finished records."""

from __future__ import annotations

import asyncio
from itertools import pairwise
from typing import Any

import msgpack
import pytest

from replay.engine.record import dumps
from replay.records import unpack_record
from streams.ingest import IngestCore
from streams.store import MemoryStore, Store
from tests.builder import Stream
from tests.streams.ingest.support import (
    deliveries,
    drawn,
    fresh_stores,
    game,
    in_process,
    playoff,
    round_robin,
    shape,
    short_game,
    snapshot,
    stored,
)


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


def test_a_batch_stores_byte_for_byte_what_per_event_ingest_stores(redis_url: str) -> None:
    """Property: ingest_many over any chunking of any delivery (reordered, redelivered, conflicting,
    invalid, across a playoff family) leaves the store as ingest() one event at a time does, and answers
    with the same outcomes."""

    from hypothesis import HealthCheck, Phase, given, settings
    from hypothesis import strategies as st

    family = drawn().events + playoff("g1/tb1", "g1", False).events + playoff("g1/tb2", "g1", True).events
    events = round_robin(game("p1", turns=5), game("p2", turns=4, notes=1), family)
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
        delivery = deliveries(events, data)
        for extra in (impostor, invalid, b"\xc1"):
            delivery.insert(data.draw(st.integers(0, len(delivery))), extra)
        cuts = sorted(data.draw(st.lists(st.integers(0, len(delivery)), max_size=12)))
        bounds = [0, *cuts, len(delivery)]
        batches = [delivery[a:b] for a, b in pairwise(bounds) if b > a]

        async def run() -> None:
            async with fresh_stores(backend, 2, redis_url, "batch") as stores:
                one = IngestCore(stores[0], gap_limit=gap_limit, gap_timeout=3600)
                many = IngestCore(stores[1], gap_limit=gap_limit, gap_timeout=3600)
                singles = [shape(await one.ingest(e)) for e in delivery]
                batched = [shape(o) for b in batches for o in await many.ingest_many(b)]
                assert batched == singles
                assert many.stats() == one.stats()
                assert await snapshot(stores[1], matches) == await snapshot(stores[0], matches)

        asyncio.run(run())

    check()


async def test_a_batch_writes_each_match_once(any_store: Store) -> None:
    """One append per match per batch for a run of in-line events; one live update with the last seq."""
    g1, g2 = game("b1", turns=3), game("b2", turns=3)
    core = IngestCore(any_store)
    sub = await any_store.subscribe()
    try:
        out = await core.ingest_many(round_robin(g1[:10], g2[:10]))
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

    from replay.generators.simulate import simulate_corpus

    streams = [s for s in simulate_corpus(40, 11)]
    matches = [s[0]["match"] for s in streams]
    assert any("/tb" in m for m in matches), "the corpus must hold a playoff family"
    events = round_robin(*streams[:20]) + round_robin(*streams[20:])

    async def run() -> None:
        async with fresh_stores(backend, 4, redis_url, "sim") as stores:
            one = IngestCore(stores[0])
            for e in events:
                assert (await one.ingest(e)).status == "applied"
            expected = await snapshot(stores[0], matches)
            for size, s in zip((len(events), 997, 61), stores[1:], strict=True):
                many = IngestCore(s)
                for i in range(0, len(events), size):
                    outcomes = await many.ingest_many(events[i : i + size])
                    assert {o.status for o in outcomes} == {"applied"}
                assert await snapshot(s, matches) == expected, f"batches of {size}"

    asyncio.run(run())


async def test_every_change_to_a_finished_record_is_a_version_naming_its_event(any_store: Store) -> None:
    s = short_game()
    end = len(s.events)  # the game is decided by the knockout batch that the attack's end closes
    s.add("knocked_out", pid="a1")  # a claim the board does not support: a finding, after the end
    s.add("note", text="judge: reviewed")
    core = IngestCore(any_store)
    for e in s.events:
        await core.ingest(e)
    versions = await any_store.versions("m1")
    assert [(v.version, v.cause_match) for v in versions][:1] == [(1, "m1")]
    assert len(versions) >= 2, "the claim after the end changed the finished record"
    first, second = versions[0], versions[1]
    assert first.cause_seq <= end < second.cause_seq
    # the last version is the live record; the first is the record as it was when the game ended
    assert versions[-1].record == await any_store.record("m1")
    ended = Stream("m1")
    ended.events = s.events[: first.cause_seq]
    assert dumps(unpack_record(first.record)) == dumps(ended.record())
    # ingesting it all again changes nothing: no new version from a redelivery
    for e in s.events:
        await core.ingest(e)
    assert len(await any_store.versions("m1")) == len(versions)


async def test_versions_do_not_depend_on_how_the_events_were_batched() -> None:
    s = short_game()
    s.add("knocked_out", pid="a1")
    s.add("note", text="judge: reviewed")
    s.add("penalty", player="ash", kind="game_loss", reason="unsporting conduct")
    one, many = MemoryStore(), MemoryStore()
    core = IngestCore(one)
    for e in s.events:
        await core.ingest(e)
    await IngestCore(many).ingest_many(s.events)
    by_one = [(v.cause_seq, v.record) for v in await one.versions("m1")]
    assert by_one == [(v.cause_seq, v.record) for v in await many.versions("m1")]
    assert len(by_one) >= 3
