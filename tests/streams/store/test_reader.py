"""The :class:`~streams.store.roles.Reader` contract (what the HTTP service and the command line read), on
memory, a Redis server and a Redis Cluster (``any_store``); the extent the Redis backend keeps beside its
stream, on a Redis server and a Redis Cluster (``any_redis``)."""

from __future__ import annotations

import time
from dataclasses import replace

import msgpack

from streams.store import (
    AppendRun,
    ArchivedEvent,
    ArchiveExtent,
    MatchState,
    RedisStore,
    Snapshot,
    Store,
    keys,
)
from streams.store.base import extent_of
from tests.streams.store.contract import app, ev, run_of


class TestReader:
    """Every backend reads a match back as it was written."""

    async def test_many_records_at_once_in_the_order_asked(self, any_store: Store) -> None:
        # matches of different hash slots in one call (a cluster splits it by node)
        names = [f"league/r{i}/t{i % 7}/g1" for i in range(40)]
        for i, m in enumerate(names):
            if i % 3:
                await any_store.put_record(m, f"rec-{i}".encode())
        got = await any_store.records([*reversed(names), "unknown"])
        assert got == [f"rec-{i}".encode() if i % 3 else None for i in reversed(range(40))] + [None]
        assert await any_store.records([]) == []

    async def test_a_finished_record_that_changes_is_a_new_version(self, any_store: Store) -> None:
        def rec(status: str, winner: str | None) -> bytes:
            return msgpack.packb({"status": status, "winner": winner})

        # in progress: no versions
        await any_store.append(replace(app("m1", 1, 0), record=rec("in_progress", None)))
        assert await any_store.versions("m1") == []
        # the game ends at seq 2: version 1, caused by seq 2
        await any_store.append(replace(app("m1", 2, 1), record=rec("finished", "p1"), cause="m1 2"))
        # an event that leaves the record as it is makes no version
        await any_store.append(replace(app("m1", 3, 2), record=rec("finished", "p1"), cause="m1 3"))
        # a penalty after the end changes the winner: version 2, caused by seq 4
        await any_store.append_run(
            replace(run_of("m1", range(4, 5), 3), record=rec("finished", "p2"), cause="m1 4")
        )
        # a playoff game settling it names its own event
        assert await any_store.put_record("m1", rec("finished", "p1"), cause="m1/tb1 9")
        versions = await any_store.versions("m1")
        assert [(v.version, v.cause_match, v.cause_seq) for v in versions] == [
            (1, "m1", 2),
            (2, "m1", 4),
            (3, "m1/tb1", 9),
        ]
        assert [msgpack.unpackb(v.record)["winner"] for v in versions] == ["p1", "p2", "p1"]
        assert await any_store.version("m1", 2) == versions[1]
        assert await any_store.version("m1", 0) is None
        assert await any_store.version("m1", 4) is None
        assert await any_store.versions("nope") == []

    async def test_each_entry_keeps_when_it_arrived_beside_its_bytes(self, any_store: Store) -> None:
        """What a broadcast delay reads (streams/http/delay.py): the store's clock at the append, kept
        beside the event (its bytes and the archive's positions unchanged), for events, runs, conflicts and
        snapshots."""

        before = time.time() - 1
        await any_store.append(app("m1", 1, 0))
        run = AppendRun("m1", 1, ((2, ev("m1", 2)), (3, ev("m1", 3))), msgpack.packb({}), msgpack.packb({}))
        await any_store.append_run(run)
        await any_store.append(app("m1", 2, 3, data=ev("m1", 2, text="else"), conflict=True))
        after = time.time() + 1
        for log in (await any_store.events("m1"), (await any_store.snapshot("m1")).events):
            assert [e.position for e in log] == [(1, 0), (2, 0), (3, 0), (3, 1)]
            assert log[1].data == ev("m1", 2)
            times = [e.at for e in log]
            assert all(t is not None and before <= t <= after for t in times), times
            assert times == sorted(times)  # type: ignore[type-var]

    async def test_the_archive_read_a_range_at_a_time_is_the_whole_archive(self, any_store: Store) -> None:
        """What the review of a long game reads (streams/http/review_window.py): the archive's extent
        without its entries, then its entries a range at a time; a conflict archived at the head is that
        seq's step, a gap is no step."""
        assert await any_store.extent("m1") == ArchiveExtent()
        assert await any_store.events_after("m1", None, 10) == []
        await any_store.append(app("m1", 1, 0))
        await any_store.append_run(run_of("m1", range(2, 6), 1))
        await any_store.append(app("m1", 3, 5, data=ev("m1", 3, text="else"), conflict=True))
        await any_store.append(replace(app("m1", 8, 5), allow_gap=True))
        whole = await any_store.events("m1")
        assert [e.position for e in whole] == [(1, 0), (2, 0), (3, 0), (4, 0), (5, 0), (5, 1), (8, 0)]
        assert await any_store.extent("m1") == ArchiveExtent(7, 6, (1, 0), (8, 0))
        for size in (1, 2, 3, 7, 100):
            read: list[ArchivedEvent] = []
            while batch := await any_store.events_after("m1", read[-1].position if read else None, size):
                assert len(batch) <= size
                read.extend(batch)
            assert read == whole, size
        assert await any_store.events_after("m1", (5, 0), 2) == whole[5:7]
        assert await any_store.events_after("m1", (8, 0), 5) == []

    async def test_the_extent_follows_every_kind_of_append(self, any_store: Store) -> None:
        """The extent is the archive's, whatever wrote it: appends, runs, conflicts archived at the head
        (one after another at the same head), a gap, an event filling it late."""
        writes = [
            app("m1", 1, 0),
            run_of("m1", range(2, 6), 1),
            app("m1", 3, 5, data=ev("m1", 3, text="else"), conflict=True),
            app("m1", 2, 5, data=ev("m1", 2, text="else"), conflict=True),
            replace(app("m1", 8, 5), allow_gap=True),
            app("m1", 6, 8, conflict=True),
            run_of("m1", range(9, 12), 8),
        ]
        for write in writes:
            if isinstance(write, AppendRun):
                await any_store.append_run(write)
            else:
                await any_store.append(write)
            assert await any_store.extent("m1") == extent_of(await any_store.events("m1")), write
        positions = [e.position for e in await any_store.events("m1")]
        assert positions[5:9] == [(5, 1), (5, 2), (8, 0), (8, 1)]
        assert await any_store.extent("m1") == ArchiveExtent(12, 9, (1, 0), (11, 0))

    async def test_ping(self, any_store: Store) -> None:
        assert await any_store.ping()

    async def test_a_snapshot_reads_the_whole_slot_together(self, any_store: Store) -> None:
        """What a rebuild and ``prizecheck check`` read in one step: the archive, the held events, the
        head, write count, chain head and checkpoint, the record, the board and the versions."""
        assert await any_store.snapshot("nope") == Snapshot([], {}, MatchState(), None, None, [])
        await any_store.append(app("m1", 1, 0, chain="c1", checkpoint=b"ck1"))
        await any_store.append(app("m1", 2, 1, chain="c2", cause="m1 2", checkpoint=b"ck2"))
        await any_store.hold("m1", 5, ev("m1", 5))
        snap = await any_store.snapshot("m1")
        assert [(e.position, e.data) for e in snap.events] == [((1, 0), ev("m1", 1)), ((2, 0), ev("m1", 2))]
        assert snap.held == {5: ev("m1", 5)}
        assert snap.state == MatchState(2, 2, "c2", b"ck2") == await any_store.state("m1")
        assert snap.record == await any_store.record("m1") == msgpack.packb({"match": "m1", "head": 2})
        assert snap.board == await any_store.board("m1") == msgpack.packb({"seq": 2})
        assert [(v.version, v.cause_match, v.cause_seq) for v in snap.versions] == [(1, "m1", 2)]
        assert snap.versions == await any_store.versions("m1") and snap.copy_problem is None
        assert await any_store.version("m1", 1) == snap.versions[0]
        assert await any_store.version("m1", 2) is None and await any_store.version("m1", 0) is None
        assert await any_store.event("m1", 2) == ev("m1", 2) and await any_store.head("m1") == 2


class TestKeptExtent:
    """The Redis backend keeps the archive stream's extent in the match's state hash as it appends
    (``xlen``, ``xlate``, ``xlast``: write.lua's keep_extent), so that the extent of a 50,000-entry stream is
    read, not walked (scripts.py ``LUA_EXTENT``); a stream whose count is not kept (written before it
    was, or changed outside the service) is walked, and its count kept from then on."""

    @staticmethod
    async def kept(store: RedisStore, match: str) -> list[bytes | None]:
        got: list[bytes | None] = await store.client.hmget(
            store.key(match, keys.STATE), ["xlen", "xlate", "xlast"]
        )
        return got

    @staticmethod
    async def walked(store: RedisStore, match: str) -> list[bytes]:
        """What the count should be, from the stream itself."""
        ids = [i for i, _ in await store.client.xrange(store.key(match, keys.EVENTS))]
        late = sum(1 for i in ids if not i.endswith(b"-0"))
        return [str(len(ids)).encode(), str(late).encode(), ids[-1]]

    async def test_the_appends_keep_the_count(self, any_redis: RedisStore) -> None:
        await any_redis.append(app("m1", 1, 0))
        assert await self.kept(any_redis, "m1") == [b"1", b"0", b"1-0"]
        await any_redis.append_run(run_of("m1", range(2, 5), 1))
        await any_redis.append(app("m1", 2, 4, data=ev("m1", 2, text="else"), conflict=True))
        assert await self.kept(any_redis, "m1") == await self.walked(any_redis, "m1") == [b"5", b"1", b"4-1"]

    async def test_a_stream_without_the_count_is_walked_then_kept(self, any_redis: RedisStore) -> None:
        """A match written before the count was kept: its extent is right, and kept from its first read
        (or, read later, its appends keep none until then)."""
        await any_redis.append_run(run_of("m1", range(1, 6), 0))
        await any_redis.append(app("m1", 3, 5, data=ev("m1", 3, text="else"), conflict=True))
        state = any_redis.key("m1", keys.STATE)
        await any_redis.client.hdel(state, "xlen", "xlate", "xlast")
        await any_redis.append(app("m1", 6, 5))  # no count to go on from: none kept
        assert await self.kept(any_redis, "m1") == [None, None, None]
        assert await any_redis.extent("m1") == extent_of(await any_redis.events("m1"))
        assert await self.kept(any_redis, "m1") == await self.walked(any_redis, "m1") == [b"7", b"1", b"6-0"]
        await any_redis.append(app("m1", 4, 6, data=ev("m1", 4, text="else"), conflict=True))
        assert await self.kept(any_redis, "m1") == await self.walked(any_redis, "m1")
        assert await any_redis.extent("m1") == ArchiveExtent(8, 6, (1, 0), (6, 1))

    async def test_a_stream_changed_outside_the_service_is_walked(self, any_redis: RedisStore) -> None:
        await any_redis.append_run(run_of("m1", range(1, 6), 0))
        await any_redis.append(app("m1", 3, 5, data=ev("m1", 3, text="else"), conflict=True))
        events = any_redis.key("m1", keys.EVENTS)
        await any_redis.client.xdel(events, "2-0")  # the count kept is no longer the stream's length
        assert await any_redis.extent("m1") == extent_of(await any_redis.events("m1"))
        assert await any_redis.extent("m1") == ArchiveExtent(5, 4, (1, 0), (5, 1))
        await any_redis.client.xdel(events, "5-1")  # its length and its last entry
        assert await any_redis.extent("m1") == ArchiveExtent(4, 4, (1, 0), (5, 0))
        # the stream gone (as the cold archive's swap takes it) and appended to again: counted afresh
        await any_redis.client.delete(events)
        await any_redis.append(app("m1", 6, 5))
        assert await self.kept(any_redis, "m1") == [b"1", b"0", b"6-0"]
        assert await any_redis.extent("m1") == ArchiveExtent(1, 1, (6, 0), (6, 0))
