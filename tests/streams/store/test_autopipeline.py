"""``streams.store.autopipeline``: concurrent commands share round trips, keep their own results and errors.

The ingest core runs on it in the workers, so the core's reference check (records byte for byte equal to
the offline replay) runs here too, with many matches at once.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator

import pytest
from redis.asyncio import Redis
from redis.exceptions import ResponseError

from replay import replay_records
from replay.engine.record import dumps
from replay.generators.simulate import simulate_corpus
from replay.records import unpack_record
from streams.ingest import IngestCore
from streams.store import RedisStore
from streams.store.autopipeline import AutoPipelineRedis

pytestmark = pytest.mark.redis


@pytest.fixture
async def client(redis_url: str) -> AsyncIterator[AutoPipelineRedis]:
    base = Redis.from_url(redis_url)
    auto = AutoPipelineRedis(connection_pool=base.connection_pool)
    try:
        yield auto
    finally:
        await base.aclose()


async def test_concurrent_commands_share_pipelines(client: AutoPipelineRedis) -> None:
    key = f"pctest-ap-{uuid.uuid4().hex}"
    try:
        results = await asyncio.gather(*(client.incr(key) for _ in range(200)))
        assert sorted(results) == list(range(1, 201))
        assert client.pipelines < 20  # not one round trip per command
        assert client.commands == 200
    finally:
        await client.delete(key)


async def test_each_caller_gets_its_own_error(client: AutoPipelineRedis) -> None:
    key = f"pctest-ap-{uuid.uuid4().hex}"
    try:
        await client.set(key, "not a number")
        ok, bad = await asyncio.gather(client.get(key), client.incr(key), return_exceptions=True)
        assert ok == b"not a number"
        assert isinstance(bad, ResponseError)
    finally:
        await client.delete(key)


async def test_scripts_work_and_reload_after_noscript(client: AutoPipelineRedis) -> None:
    script = client.register_script(f"-- {uuid.uuid4().hex}\nreturn ARGV[1]")
    # the server has never seen this script: EVALSHA fails with NOSCRIPT, the script loads itself
    assert await script(args=["x"]) == b"x"
    assert await asyncio.gather(*(script(args=[str(i)]) for i in range(50))) == [
        str(i).encode() for i in range(50)
    ]


async def test_the_ingest_core_on_it_stores_the_offline_records(redis_url: str) -> None:
    base = Redis.from_url(redis_url)
    store = RedisStore(
        AutoPipelineRedis(connection_pool=base.connection_pool), prefix=f"pctest-{uuid.uuid4().hex}"
    )
    try:
        core = IngestCore(store)
        streams = list(simulate_corpus(12, seed=21))

        async def feed(stream: list[dict[str, object]]) -> None:
            for e in stream:
                assert (await core.ingest(dict(e))).status == "applied"

        await asyncio.gather(*(feed(s) for s in streams))
        expected = replay_records([e for s in streams for e in s])
        for match, record in expected.items():
            stored = unpack_record(await store.record(match))
            assert stored is not None and dumps(stored) == dumps(record), match
    finally:
        await store.delete_all()
        await base.aclose()
