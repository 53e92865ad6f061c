"""The :class:`~streams.store.roles.Archive` contract (what ``prizecheck check`` and ``prizecheck archive``
need beside the reads), on a Redis server and a Redis Cluster (``any_redis``): the in-process backend has no
server to scan and no cold archive, and does not take this role."""

from __future__ import annotations

import pytest

from streams.store import IndexEntry, RedisStore
from tests.streams.store.contract import app, run_of

pytestmark = [pytest.mark.redis]


class TestArchive:
    """Every Redis deployment lists what it holds and swaps a verified stream for its cold copy's marker."""

    async def test_every_match_with_data_is_listed_and_nothing_else(self, any_redis: RedisStore) -> None:
        await any_redis.append(app("m1", 1, 0))
        await any_redis.append_run(run_of("league-7/t3", range(1, 4), 0))
        await any_redis.put_record("m2/tb1", b"stub", if_absent=True)
        await any_redis.hold("m3", 4, b"held")
        # an index entry, an owner or a lease alone is no data of a match's (check finds such entries)
        await any_redis.index(IndexEntry("ghost", 1, "finished", "L", None, ("p",), {}))
        await any_redis.claim(["owned"], b"producer")
        await any_redis.lease("leased", "console", "take", 60)
        await any_redis.alarm("m1", "changed")
        other = RedisStore(any_redis.client, prefix=any_redis.prefix + "x")
        await other.append(app("elsewhere", 1, 0))
        try:
            assert await any_redis.match_names() == ["league-7/t3", "m1", "m2/tb1", "m3"]
        finally:
            await other.delete_all()

    async def test_a_stream_is_swapped_for_its_marker_only_as_verified(self, any_redis: RedisStore) -> None:
        await any_redis.append_run(run_of("m1", range(1, 4), 0))
        assert await any_redis.archive_marker("m1") is None
        # moved since it was verified: two entries, or another last one
        assert not await any_redis.archive_swap("m1", b"marker", 2, (3, 0))
        assert not await any_redis.archive_swap("m1", b"marker", 3, (2, 0))
        assert await any_redis.archive_marker("m1") is None
        assert len((await any_redis.snapshot("m1")).events) == 3
        assert await any_redis.archive_swap("m1", b"marker", 3, (3, 0))
        assert await any_redis.archive_marker("m1") == b"marker"
        assert not await any_redis.archive_swap("m1", b"again", 0, (0, 0))  # archived already
        assert await any_redis.archive_marker("m1") == b"marker"
        # what stays beside the marker: the head, the record, the board
        assert await any_redis.head("m1") == 3 and await any_redis.record("m1") is not None
        assert await any_redis.match_names() == ["m1"]

    async def test_the_servers_memory_is_counted(self, any_redis: RedisStore) -> None:
        before = await any_redis.used_memory()
        assert before > 0
        await any_redis.append_run(run_of("m1", range(1, 200), 0))
        assert await any_redis.used_memory() > 0
