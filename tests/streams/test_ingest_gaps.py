"""A single event with a huge seq through the ingest core: one gap, bounded memory (issue 10 item 1: the
engine recorded every missing seq, and the service died once the gap timeout handed it the event)."""

from __future__ import annotations

import tracemalloc

import pytest

from replay import replay_records
from replay.engine.record import dumps
from replay.records import unpack_record
from streams.ingest import IngestCore
from streams.store import Store
from tests.builder import Stream, card

# the contract's largest seq is 100,000 (a larger one is refused at the edge); the gap before it is one
# range however long (the engine's own test, tests/engine/test_gaps.py, goes far beyond)
HUGE = 99_999


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


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
