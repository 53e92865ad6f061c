"""Events held behind a gap (streams/ingest/held.py): they wait in order, durably, are released when the gap
closes or times out, and survive a restart."""

from __future__ import annotations

import asyncio
import random
import tracemalloc
from typing import Any

import msgpack
import pytest

from replay import Game, replay_records
from replay.engine.chain import canonical_bytes
from replay.engine.record import dumps
from replay.records import unpack_record
from streams.ingest import IngestCore
from streams.store import Store
from tests.builder import Stream, card
from tests.streams.ingest.support import (
    Clock,
    deliveries,
    fresh_stores,
    game,
    in_process,
    offline,
    short_game,
    stored,
)


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


def test_any_local_reordering_and_redelivery_gives_the_offline_record(redis_url: str) -> None:
    """Property: reordering within the buffer and duplicates never change the stored record."""

    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st

    events = game("p1", turns=5) + game("p2", turns=4)
    expected = in_process(events)

    @settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
    @given(data=st.data(), backend=st.sampled_from(["memory", "redis"]))
    def check(data: Any, backend: str) -> None:
        delivery = deliveries(events, data)

        async def run() -> None:
            async with fresh_stores(backend, 1, redis_url, "prop") as (store,):
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


# the contract's largest seq is 100,000 (a larger one is refused at the edge); the gap before it is one
# range however long (the engine's own test, tests/engine/test_stream.py, goes far beyond)
HUGE = 99_999


async def test_a_huge_seq_is_one_gap_once_it_times_out(any_store: Store) -> None:
    s = Stream()
    s.setup("ash", ("a1", card("Pikachu", 60)))
    s.setup("misty", ("m1", card("Staryu", 50)))
    far = {"match": "m1", "seq": HUGE, "type": "note", "text": "far away"}
    clock = Clock()
    core = IngestCore(any_store, gap_timeout=5.0, clock=clock)
    for e in s.events:
        assert (await core.ingest(e)).status == "applied"
    assert (await core.ingest(far)).status == "buffered"
    clock.now += 10
    tracemalloc.start()
    try:
        flushed = await core.flush_gaps()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert [(o.status, o.applied) for o in flushed] == [("applied", [HUGE])]
    assert peak < 5_000_000, f"{peak} bytes to report one gap"
    record = unpack_record(await any_store.record("m1"))
    assert record is not None
    assert dumps(record) == dumps(replay_records([*s.events, far])["m1"])
    assert [f["code"] for f in record["findings"]] == ["seq_gap"] and record["chain"]["events"] == 4
    # the next event of the match goes on from there; a restarted owner rebuilds the same record
    nxt = {"match": "m1", "seq": HUGE + 1, "type": "note", "text": "next"}
    assert (await core.ingest(nxt)).status == "applied"
    rebuilt = await IngestCore(any_store).rebuild("m1")
    assert rebuilt is not None and rebuilt["chain"]["events"] == 5


class _Outage:
    """The store, with its appends failing as a Redis that went away fails them while ``down``."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.down = False

    def __getattr__(self, name: str) -> object:
        return getattr(self.store, name)

    async def append_run(self, a: object) -> object:
        if self.down:
            raise ConnectionError("Connection refused (the test's outage)")
        return await self.store.append_run(a)  # type: ignore[arg-type]


async def test_a_gap_that_times_out_while_the_store_is_down_is_released_once_it_is_back(
    redis_store: Store,
) -> None:
    """Issue 32 item 9: the release took the held event out of memory before writing it, and the store
    error left it out, so flush_gaps never tried again (the event stayed held until another event or a
    restart)."""
    s = Stream()
    s.setup("ash", ("a1", card("Pikachu", 60)))
    s.setup("misty", ("m1", card("Staryu", 50)))
    for text in ("one", "two", "three"):
        s.add("note", text=text)
    *first, _, ahead = s.events  # the one before last never arrives
    outage = _Outage(redis_store)
    clock = Clock()
    core = IngestCore(outage, gap_timeout=2.0, clock=clock)  # type: ignore[arg-type]
    for e in first:
        assert (await core.ingest(e)).status == "applied"
    assert (await core.ingest(ahead)).status == "buffered"
    clock.now += 3
    outage.down = True
    with pytest.raises(ConnectionError):
        await core.flush_gaps()
    assert await redis_store.held("m1"), "the event must still be held in the store"
    outage.down = False
    clock.now += 1
    flushed = await core.flush_gaps()
    assert [(o.status, o.applied) for o in flushed] == [("applied", [ahead["seq"]])]
    assert await redis_store.held("m1") == {}
    record = unpack_record(await redis_store.record("m1"))
    assert record is not None
    assert dumps(record) == dumps(replay_records([*first, ahead])["m1"])
    assert [f["code"] for f in record["findings"]] == ["seq_gap"]


async def test_events_held_behind_a_gap_are_released_after_a_restart_with_no_further_event(
    any_store: Store,
) -> None:
    events = short_game().events
    first = IngestCore(any_store, gap_timeout=5.0)
    for e in events[:3] + events[4:]:
        await first.ingest(e)
    assert await any_store.head("m1") == 3
    assert await any_store.pending_matches() == ["m1"]
    # the process dies; a new one starts: nothing else for m1 ever arrives
    clock = [100.0]
    second = IngestCore(any_store, gap_timeout=5.0, clock=lambda: clock[0])
    assert await second.recover() == ["m1"]
    assert await second.flush_gaps() == []  # the wait starts at recovery, not at the first arrival
    clock[0] += 5.0
    [outcome] = await second.flush_gaps()
    assert (outcome.status, outcome.seq, outcome.applied) == ("applied", 5, list(range(5, len(events) + 1)))
    record = unpack_record(await any_store.record("m1"))
    assert record is not None and record["status"] == "finished"
    assert "seq_gap" in {f["code"] for f in record["findings"]}
    assert await any_store.pending_matches() == []


async def test_recovery_takes_only_the_matches_this_owner_owns(any_store: Store) -> None:
    for name in ("m1", "m2"):
        events = short_game(name).events
        core = IngestCore(any_store)
        for e in events[:2] + events[3:4]:
            await core.ingest(e)
    assert await IngestCore(any_store).recover(lambda m: m == "m2") == ["m2"]


async def test_events_behind_a_gap_wait_in_the_store_not_only_in_memory(any_store: Store) -> None:
    events = short_game().events
    core = IngestCore(any_store)
    for e in events[:2] + events[3:]:
        assert (await core.ingest(e)).status in ("applied", "buffered")
    held = await any_store.held("m1")
    assert sorted(held) == list(range(4, len(events) + 1))
    assert all(msgpack.unpackb(v)["seq"] == k for k, v in held.items())


async def test_the_furthest_seq_allowed_costs_one_gap_not_one_entry_per_missing_seq(any_store: Store) -> None:
    core = IngestCore(any_store, gap_timeout=0.0)
    assert (await core.ingest(short_game().events[0])).status == "applied"
    far = {"match": "m1", "seq": 100_000, "type": "note", "text": "far away"}
    assert (await core.ingest(far)).status == "buffered"
    [released] = await core.flush_gaps()
    assert released.applied == [100_000]
    record = unpack_record(await any_store.record("m1"))
    assert record is not None
    [gap] = [f for f in record["findings"] if f["code"] == "seq_gap"]
    assert "2..99999" in gap["message"]
