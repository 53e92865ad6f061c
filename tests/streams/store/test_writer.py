"""The :class:`~streams.store.roles.Writer` contract (the ingest core's write path), on memory, a Redis
server and a Redis Cluster (``any_store``): the append rule, runs, held events, records written outside
an append, the write fence, the trusted chain head, tamper alarms (docs/storage.md)."""

from __future__ import annotations

import asyncio
from dataclasses import replace

import msgpack

from streams.store import LiveUpdate, MatchState, Store
from tests.streams.store.contract import app, ev, run_of


class TestWriter:
    """Every backend writes a match as the ingest core relies on."""

    async def test_append_in_order_and_read_back(self, any_store: Store) -> None:
        for seq in (1, 2, 3):
            result = await any_store.append(app("m1", seq, seq - 1))
            assert (result.status, result.head, result.archived) == ("applied", seq, True)
        assert await any_store.head("m1") == 3
        assert await any_store.head("other") == 0
        assert await any_store.event("m1", 2) == ev("m1", 2)
        assert await any_store.event("m1", 9) is None
        log = await any_store.events("m1")
        assert [e.position for e in log] == [(1, 0), (2, 0), (3, 0)]
        assert [e.data for e in log] == [ev("m1", s) for s in (1, 2, 3)]
        assert {e.kind for e in log} == {"event"}
        assert msgpack.unpackb(await any_store.board("m1")) == {"seq": 3}
        assert msgpack.unpackb(await any_store.record("m1")) == {"match": "m1", "head": 3}
        assert await any_store.events("nope") == []
        assert await any_store.record("nope") is None

    async def test_exact_duplicate_is_a_noop(self, any_store: Store) -> None:
        await any_store.append(app("m1", 1, 0))
        await any_store.append(app("m1", 2, 1))
        # a redelivery, even with a stale prev and in either mode, is recognised by its bytes
        for conflict in (False, True):
            result = await any_store.append(app("m1", 1, 0, conflict=conflict))
            assert (result.status, result.head, result.archived) == ("duplicate", 2, False)
        assert len(await any_store.events("m1")) == 2
        assert msgpack.unpackb(await any_store.record("m1"))["head"] == 2

    async def test_conflict_is_refused_then_archived_after_the_head(self, any_store: Store) -> None:
        await any_store.append(app("m1", 1, 0))
        await any_store.append(app("m1", 2, 1))
        other = ev("m1", 1, text="something else")
        refused = await any_store.append(app("m1", 1, 2, data=other))
        assert (refused.status, refused.archived) == ("conflict", False)
        assert len(await any_store.events("m1")) == 2
        # in conflict mode (the engine already made it a finding) it is archived after the head, in order
        for _ in (1, 2):
            kept = await any_store.append(app("m1", 1, 2, data=other, conflict=True))
            assert (kept.status, kept.head, kept.archived) == ("conflict", 2, True)
        log = await any_store.events("m1")
        assert [(e.position, e.kind) for e in log] == [
            ((1, 0), "event"),
            ((2, 0), "event"),
            ((2, 1), "conflict"),
            ((2, 2), "conflict"),
        ]
        assert await any_store.event("m1", 1) == ev("m1", 1)  # the original stays the event at seq 1
        assert await any_store.head("m1") == 2

    async def test_stale_prev_and_undeclared_gaps_are_refused(self, any_store: Store) -> None:
        await any_store.append(app("m1", 1, 0))
        assert (await any_store.append(app("m1", 2, 0))).status == "stale"
        assert (await any_store.append(app("m1", 3, 1))).status == "gap"
        assert (
            await any_store.append(app("m1", 1, 0, data=ev("m1", 1, text="y"), conflict=True))
        ).status == ("stale")
        gap = await any_store.append(app("m1", 4, 1, allow_gap=True))
        assert (gap.status, gap.head) == ("applied", 4)
        # seq 2 now fills a gap already reported: a "late" entry, archived only in conflict mode
        assert (await any_store.append(app("m1", 2, 4))).status == "conflict"
        late = await any_store.append(app("m1", 2, 4, conflict=True))
        assert late.archived
        assert [(e.position, e.kind) for e in await any_store.events("m1")] == [
            ((1, 0), "event"),
            ((4, 0), "event"),
            ((4, 1), "late"),
        ]

    async def test_held_events_leave_when_appended(self, any_store: Store) -> None:
        assert await any_store.hold("m1", 3, ev("m1", 3))
        assert not await any_store.hold("m1", 3, ev("m1", 3, text="other"))
        assert await any_store.hold("m1", 2, ev("m1", 2))
        assert await any_store.held("m1") == {2: ev("m1", 2), 3: ev("m1", 3)}
        await any_store.append(app("m1", 1, 0))
        await any_store.append(app("m1", 2, 1))
        assert await any_store.held("m1") == {3: ev("m1", 3)}
        assert await any_store.held("nope") == {}

    async def test_put_record(self, any_store: Store) -> None:
        assert await any_store.put_record("m1/tb1", b"stub", if_absent=True)
        assert not await any_store.put_record("m1/tb1", b"other", if_absent=True)
        assert await any_store.record("m1/tb1") == b"stub"
        assert await any_store.put_record("m1/tb1", b"linked")
        assert await any_store.record("m1/tb1") == b"linked"

    async def test_a_run_is_appended_atomically_with_one_live_update(self, any_store: Store) -> None:
        every = await any_store.subscribe()
        try:
            await any_store.append(app("m1", 1, 0))
            assert await any_store.hold("m1", 3, ev("m1", 3))
            assert await any_store.hold("m1", 9, ev("m1", 9))
            result = await any_store.append_run(run_of("m1", range(2, 6), 1))
            assert (result.status, result.head, result.archived) == ("applied", 5, True)
            # refused as a whole: a stale prev, seqs that do not follow the head
            assert (await any_store.append_run(run_of("m1", range(6, 8), 4))).status == "stale"
            assert (await any_store.append_run(run_of("m1", range(7, 9), 5))).status == "gap"
            assert (await any_store.append_run(run_of("m1", range(5, 7), 5))).status == "gap"
            it = aiter(every)
            got = [await asyncio.wait_for(anext(it), 5) for _ in range(2)]
            assert got == [
                LiveUpdate("m1", 1, msgpack.packb({"seq": 1})),
                LiveUpdate("m1", 5, msgpack.packb({"seq": 5})),
            ]
        finally:
            await every.aclose()
        log = await any_store.events("m1")
        expected = [((s, 0), ev("m1", s), "event") for s in range(1, 6)]
        assert [(e.position, e.data, e.kind) for e in log] == expected
        assert await any_store.head("m1") == 5
        assert await any_store.held("m1") == {9: ev("m1", 9)}
        assert msgpack.unpackb(await any_store.board("m1")) == {"seq": 5}
        assert msgpack.unpackb(await any_store.record("m1")) == {"match": "m1", "head": 5}
        # and per-event appends carry on from the run's head
        assert (await any_store.append(app("m1", 6, 5))).status == "applied"
        assert (await any_store.append(app("m1", 3, 6))).status == "duplicate"

    async def test_every_record_write_is_fenced_by_the_write_count(self, any_store: Store) -> None:
        # The flake of issue 10 item 7: a playoff child's owner settled the parent's record while the parent's
        # owner wrote it from an older view. Every record write names the write count it built on.
        first = await any_store.append(app("m1", 1, 0))
        assert (first.status, first.writes) == ("applied", 1)
        record, writes = await any_store.record_state("m1")
        assert (record, writes) == (msgpack.packb({"match": "m1", "head": 1}), 1)
        # another writer (the child settling it) writes the record at that count...
        assert await any_store.put_record("m1", b"settled", writes=1)
        assert not await any_store.put_record("m1", b"late", writes=1)  # ...and a second one at it is refused
        # the owner's append built on count 1 is stale now, and changes nothing
        stale = await any_store.append_run(replace(run_of("m1", range(2, 3), 1), writes=1))
        assert (stale.status, stale.head, stale.writes) == ("stale", 1, 2)
        assert (await any_store.append(replace(app("m1", 2, 1), writes=1))).status == "stale"
        assert await any_store.record("m1") == b"settled"
        assert await any_store.head("m1") == 1
        # built on the current count it goes through, and the next fence is handed back
        done = await any_store.append_run(replace(run_of("m1", range(2, 3), 1), writes=2))
        assert (done.status, done.head, done.writes) == ("applied", 2, 3)
        assert (await any_store.state("m1")).writes == 3

    async def test_the_trusted_chain_head_is_kept_with_every_append(self, any_store: Store) -> None:
        assert await any_store.state("m1") == MatchState(0, 0, None)
        await any_store.append(replace(app("m1", 1, 0), chain="aa"))
        await any_store.append_run(replace(run_of("m1", range(2, 4), 1), chain="bb"))
        assert await any_store.state("m1") == MatchState(3, 2, "bb")
        assert await any_store.put_record("m1", b"linked")  # a record alone leaves the chain head as it is
        assert await any_store.state("m1") == MatchState(3, 3, "bb")

    async def test_matches_with_held_events_and_alarms_are_listed(self, any_store: Store) -> None:
        await any_store.append(app("m1", 1, 0))
        assert await any_store.hold("m1", 3, ev("m1", 3))
        assert await any_store.hold("g/tb1", 5, ev("g/tb1", 5))
        assert await any_store.pending_matches() == ["g/tb1", "m1"]
        await any_store.append(app("m1", 2, 1))
        await any_store.append(app("m1", 3, 2))  # the held event is archived: m1 waits for nothing now
        assert await any_store.pending_matches() == ["g/tb1"]
        assert await any_store.alarms() == {}
        await any_store.alarm("m1", "chain head differs")
        assert await any_store.alarms() == {"m1": "chain head differs"}
