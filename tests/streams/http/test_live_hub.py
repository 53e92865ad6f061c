"""The live hub shows the board each update carries, in the writes' order, and reads the store only when it
must (the first board of a match, an update without a board). Unit tests on the hub itself over the
in-memory store; ``test_live.py`` runs the same paths through a real port and a real Redis."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Any

import msgpack
import pytest

from streams.http.live import LiveHub, Viewer
from streams.ingest import IngestCore
from streams.store import MemoryStore
from tests.streams.ingest.support import game


class SlowBoards(MemoryStore):
    """A memory store whose board reads wait until ``release`` is set (a read under way)."""

    def __init__(self) -> None:
        super().__init__()
        self.release = asyncio.Event()
        self.release.set()
        self.reads = 0

    async def board(self, match: str) -> bytes | None:
        self.reads += 1
        board = await super().board(match)  # read now: what the store held when the read was sent
        await self.release.wait()
        return board


@pytest.fixture
async def hub() -> AsyncIterator[LiveHub]:
    h = LiveHub(SlowBoards())
    await h.start()
    await h.ready()
    try:
        yield h
    finally:
        await h.stop()


def shown(viewer: Viewer) -> int:
    """The seq of the newest board offered to ``viewer`` (0: none)."""
    if viewer.latest is None:
        return 0
    data = viewer.latest.split(b"data: ", 1)[1]
    return int(json.loads(data)["seq"])


async def settle() -> None:
    for _ in range(5):  # the subscription's queue, the hub's tasks
        await asyncio.sleep(0)


def recorder(hub: LiveHub) -> list[int]:
    """Every board the hub hands its viewers, as seqs, in order."""
    order: list[int] = []
    deliver = hub._deliver

    def spy(match: str, data: bytes) -> None:
        order.append(int(json.loads(data.split(b"data: ", 1)[1])["seq"]))
        deliver(match, data)

    hub._deliver = spy  # type: ignore[method-assign]
    return order


async def watched(
    hub: LiveHub, match: str, ingested: int
) -> tuple[SlowBoards, IngestCore, list[dict[str, Any]], Viewer]:
    """A game of ``match`` whose first ``ingested`` events are stored, and a viewer of it (not yet read)."""
    store = hub.store
    assert isinstance(store, SlowBoards)
    core = IngestCore(store)
    events = game(match)
    for e in events[:ingested]:
        await core.ingest(e)
    return store, core, events, hub.join(match, "client")


async def test_carried_boards_are_shown_in_order_without_reading_the_store(hub: LiveHub) -> None:
    store, core, events, viewer = await watched(hub, "c1", 1)
    order = recorder(hub)
    hub._changed("c1")  # what a stream does for the first viewer of a match: one read (and its delay)
    await settle()
    assert (store.reads, shown(viewer)) == (1, 1)
    for e in events[1:]:
        await core.ingest(e)
        await settle()
        assert shown(viewer) == e["seq"]
        assert viewer.latest is not None and viewer.latest.endswith(b"\n\n")
    assert store.reads == 1  # every later board came with its update
    assert order == list(range(1, len(events) + 1))
    board = await store.board("c1")
    assert board is not None and msgpack.unpackb(board)["seq"] == len(events)


async def test_an_update_without_a_board_is_read_from_the_store(hub: LiveHub) -> None:
    store, _, _, viewer = await watched(hub, "c2", 3)
    hub._changed("c2")
    await settle()
    reads = store.reads
    record = await store.record("c2")
    assert record is not None
    assert await store.put_record("c2", record)  # a record written alone: its update carries no board
    await settle()
    assert store.reads == reads + 1 and shown(viewer) == 3


async def test_a_carried_board_never_overtakes_a_read_under_way(hub: LiveHub) -> None:
    """A read sent before a write can answer after that write's update arrives: the hub holds the carried
    board back until the read is in, then reads once more, so no viewer sees a board go back."""
    store, core, events, viewer = await watched(hub, "c3", 1)
    order = recorder(hub)
    store.release.clear()
    hub._changed("c3")  # the read of seq 1's board is under way
    await settle()
    for e in events[1:4]:
        await core.ingest(e)
    await settle()
    assert order == [] and shown(viewer) == 0  # nothing shown before the read answers
    store.release.set()
    await settle()
    assert order == [1, 4]  # the old read, then one read of the newest board: never 4 before 1
    assert shown(viewer) == 4
    await core.ingest(events[4])
    await settle()
    assert order[-1] == 5


async def test_the_broadcast_delay_holds_carried_boards_back(hub: LiveHub) -> None:
    store = hub.store
    core = IngestCore(store)
    started: dict[str, Any] = {**game("c4")[0], "console": {"delay": 1.0}}
    events = [started, *game("c4")[1:]]
    await core.ingest(events[0])
    viewer = hub.join("c4", "client")
    hub._changed("c4")
    await asyncio.sleep(0.05)
    assert hub.delays["c4"] == 1.0 and shown(viewer) == 0  # the first board is held back too
    await core.ingest(events[1])
    await settle()
    assert shown(viewer) == 0
    await asyncio.sleep(1.2)  # timers fire in time order: both boards, due at about 1.0 s, are out
    assert shown(viewer) == 2
