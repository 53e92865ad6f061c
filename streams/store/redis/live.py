"""The Redis backend's :class:`~streams.store.roles.Live`: one pub/sub subscription per caller (a web
process fans it out to its SSE clients: streams/http/live.py). Channels: docs/storage.md, "Live".
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator

from redis.asyncio.client import PubSub

from streams.store.base import LiveUpdate, Subscription
from streams.store.redis.common import RedisBase


class RedisLive(RedisBase):
    """Live updates of a match or of all (:class:`Live`)."""

    async def subscribe(self, match: str | None = None) -> Subscription:
        pubsub = self._r.pubsub()
        await pubsub.subscribe(self.channel(match))
        # Wait for the server's confirmation: updates published after this call returns are delivered.
        while True:
            message = await pubsub.get_message(ignore_subscribe_messages=False, timeout=5.0)
            if message is None:
                raise TimeoutError("redis did not confirm the subscription")
            if message["type"] == "subscribe":
                break
        return _RedisSubscription(pubsub)


class _RedisSubscription:
    def __init__(self, pubsub: PubSub) -> None:
        self._pubsub = pubsub

    def __aiter__(self) -> AsyncIterator[LiveUpdate]:
        return self._iterate()

    async def _iterate(self) -> AsyncIterator[LiveUpdate]:
        while True:
            # A bounded wait, again and again: a read blocked without a timeout holds the pub/sub lock
            # and is not reliably cancelled by redis-py (redis/redis-py#3941), so closing could hang.
            message = await self._pubsub.get_message(ignore_subscribe_messages=True, timeout=1.0)
            if message is not None and message["type"] == "message":
                yield LiveUpdate.decode(message["data"])

    async def aclose(self) -> None:
        with contextlib.suppress(Exception):
            await self._pubsub.unsubscribe()
        await self._pubsub.aclose()
