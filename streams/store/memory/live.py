"""The in-process backend's :class:`~streams.store.roles.Live`: a queue per subscriber."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator

from streams.store.base import LiveUpdate, Subscription
from streams.store.memory.common import MemoryBase


class MemoryLive(MemoryBase):
    """Live updates of a match or of all (:class:`Live`)."""

    async def subscribe(self, match: str | None = None) -> Subscription:
        queue: asyncio.Queue[LiveUpdate] = asyncio.Queue()
        item = (match, queue)
        self._subscribers.append(item)
        return _MemorySubscription(self, item)


class _MemorySubscription:
    def __init__(self, store: MemoryBase, item: tuple[str | None, asyncio.Queue[LiveUpdate]]) -> None:
        self._store = store
        self._item = item

    def __aiter__(self) -> AsyncIterator[LiveUpdate]:
        return self._iterate()

    async def _iterate(self) -> AsyncIterator[LiveUpdate]:
        while True:
            yield await self._item[1].get()

    async def aclose(self) -> None:
        with contextlib.suppress(ValueError):
            self._store._subscribers.remove(self._item)
