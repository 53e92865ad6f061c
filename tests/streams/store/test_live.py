"""The :class:`~streams.store.roles.Live` contract (the live feed), on memory, a Redis server and a Redis
Cluster (``any_store``); and the update's wire form."""

from __future__ import annotations

import asyncio
from dataclasses import replace

import msgpack
import pytest
from redis.asyncio.cluster import RedisCluster

from streams.store import LiveUpdate, RedisStore, Store
from tests.streams.store.contract import app, ev


class TestLive:
    """Every backend announces each write to a match's record or board."""

    async def test_live_updates_per_match_and_global(self, any_store: Store) -> None:
        one = await any_store.subscribe("m1")
        every = await any_store.subscribe()
        try:
            await any_store.append(app("m1", 1, 0))
            await any_store.append(app("m2", 1, 0))
            await any_store.append(app("m1", 1, 1))  # duplicate: nothing published
            await any_store.append(app("m1", 2, 1))
            it_one, it_every = aiter(one), aiter(every)
            got_one = [await asyncio.wait_for(anext(it_one), 5) for _ in range(2)]
            got_every = [await asyncio.wait_for(anext(it_every), 5) for _ in range(3)]
            # each update carries the board its write stored (a live hub shows it without reading it back)
            board = {seq: msgpack.packb({"seq": seq}) for seq in (1, 2)}
            assert got_one == [LiveUpdate("m1", 1, board[1]), LiveUpdate("m1", 2, board[2])]
            # each match's updates in its writes' order; across matches only one server orders them (on a
            # cluster each match's node publishes its own, and the nodes' messages interleave as they come)
            assert [u for u in got_every if u.match == "m1"] == got_one
            assert [u for u in got_every if u.match == "m2"] == [LiveUpdate("m2", 1, board[1])]
            if not (isinstance(any_store, RedisStore) and isinstance(any_store.client, RedisCluster)):
                assert [u.match for u in got_every] == ["m1", "m2", "m1"]
            assert got_one[-1].board == await any_store.board("m1")
        finally:
            await one.aclose()
            await every.aclose()

    async def test_a_write_that_leaves_the_board_carries_no_board(self, any_store: Store) -> None:
        """An event archived as a conflict, and a record written alone, leave the stored board as it was:
        their updates carry none, so that a hub reads the board instead of showing one that was never
        stored."""
        every = await any_store.subscribe()
        try:
            await any_store.append(app("m1", 1, 0))
            other = ev("m1", 1, text="other")
            kept = await any_store.append(replace(app("m1", 1, 1, data=other, conflict=True), board=b"\x80"))
            assert kept.status == "conflict"
            assert await any_store.put_record("m1", msgpack.packb({"match": "m1", "head": 1}))
            it = aiter(every)
            got = [await asyncio.wait_for(anext(it), 5) for _ in range(3)]
            assert got == [
                LiveUpdate("m1", 1, msgpack.packb({"seq": 1})),
                LiveUpdate("m1", 1),
                LiveUpdate("m1", 1),
            ]
            assert await any_store.board("m1") == msgpack.packb({"seq": 1})
        finally:
            await every.aclose()


@pytest.mark.parametrize("match", ["m1", 'league 7/table "3"'])
@pytest.mark.parametrize("board", [None, b"", b'\n\x00{"seq":1}\n', msgpack.packb({"seq": 3, "a": "x\ny"})])
def test_a_live_update_reads_back_as_it_was_sent(match: str, board: bytes | None) -> None:
    """The wire form (a JSON header, then the board's bytes after the first newline) keeps any match id and
    any board bytes, newlines and an empty board included."""
    update = LiveUpdate(match, 12, board)
    assert LiveUpdate.decode(update.encode()) == update
