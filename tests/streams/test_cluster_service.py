"""The service on a real Redis Cluster, configured as a user configures it: ``REDIS_URL=redis+cluster://...``.

The three-node cluster ``tests/fixtures_redis.py`` starts; ``prizecheck serve`` ingesting over HTTP,
two ``prizecheck worker`` processes consuming the Tansu broker, and ``prizecheck check`` over each, all
as subprocesses that know the cluster only through the environment (issue 24 item 1).
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import urllib.request
import uuid
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from streams.settings import Settings
from streams.store import RedisStore
from streams.store.connection import connect
from tests.faults.harness import (
    Client,
    assert_holds,
    base_env,
    games,
    interleave,
    logs,
    offline,
    run_check,
    start_serve,
    start_worker,
    wait_assigned,
    wait_records,
)
from tests.fixtures_kafka import TansuBroker, free_port
from tests.paths import ROOT

pytestmark = [pytest.mark.redis]

PARTITIONS = 4


def cluster_nodes(port: int) -> list[int]:
    """The ports of every master of the cluster one of whose nodes listens on ``port``."""
    import redis

    client = redis.Redis(port=port)
    try:
        shards = client.execute_command("CLUSTER", "SLOTS")
    finally:
        client.close()
    return sorted({int(shard[2][1]) for shard in shards})


@pytest.fixture
def cluster_url(redis_cluster_port: int) -> str:
    """``REDIS_URL`` of the test cluster, every node named (as a user writes it)."""
    nodes = ",".join(f"127.0.0.1:{p}" for p in cluster_nodes(redis_cluster_port))
    return f"redis+cluster://{nodes}"


@pytest.fixture
async def cluster_store(cluster_url: str) -> AsyncIterator[RedisStore]:
    """The service's own client of the cluster (``streams.store.connection.connect``), prefix ``pc``."""
    conn = await connect(Settings.from_env({"REDIS_URL": cluster_url}))
    store = RedisStore(conn.client, prefix="pc")
    try:
        yield store
    finally:
        await store.delete_all()
        await conn.close()


async def keys_per_node(store: RedisStore, prefix: str) -> dict[str, int]:
    """How many of the prefix's keys each primary holds (each node asked on its own)."""
    from redis.asyncio import Redis
    from redis.asyncio.cluster import RedisCluster

    assert isinstance(store.client, RedisCluster)
    out: dict[str, int] = {}
    for node in store.client.get_primaries():
        direct = Redis(host=node.host, port=node.port)
        try:
            out[node.name] = len([k async for k in direct.scan_iter(match=f"{prefix}:*", count=1000)])
        finally:
            await direct.aclose()
    return out


@pytest.mark.parametrize(
    ("url", "nodes", "user", "password", "tls"),
    [
        ("redis+cluster://a:7000", (("a", 7000),), None, None, False),
        (
            "redis+cluster://a:7000,b:7001, c:7002/",
            (("a", 7000), ("b", 7001), ("c", 7002)),
            None,
            None,
            False,
        ),
        ("rediss+cluster://u:p%40ss@[::1]:7000/0", (("::1", 7000),), "u", "p@ss", True),
        ("redis+cluster://:secret@h:1", (("h", 1),), None, "secret", False),
    ],
)
def test_cluster_urls_name_their_nodes_and_credentials(
    url: str, nodes: tuple[tuple[str, int], ...], user: str | None, password: str | None, tls: bool
) -> None:
    from streams.settings import ClusterURL, cluster_url

    assert cluster_url(url) == ClusterURL(nodes, user, password, tls)


@pytest.mark.parametrize(
    "url",
    [
        "redis+cluster://",
        "redis+cluster://h",
        "redis+cluster://h:0",
        "redis+cluster://h:1/2",
        "redis+cluster://h:1,",
    ],
)
def test_malformed_cluster_urls_say_what_is_wrong(url: str) -> None:
    from streams.settings import cluster_url

    with pytest.raises(ValueError, match="cluster"):
        cluster_url(url)


def test_one_server_urls_are_not_clusters() -> None:
    from streams.settings import cluster_url

    assert [cluster_url(u) for u in ("redis://h:1/0", "unix:///tmp/r.sock", None, "h:1")] == [None] * 4


def test_a_cluster_url_is_refused_with_the_field_named_when_malformed(tmp_path: Path) -> None:
    env = base_env(REDIS_URL="redis+cluster://127.0.0.1", PRIZECHECK_DATA_DIR=str(tmp_path))
    out = subprocess.run(
        [sys.executable, "-m", "replay.cli", "show", "m1"], cwd=ROOT, env=env, capture_output=True, text=True
    )
    assert out.returncode == 2, out.stderr
    assert "field REDIS_URL: not a Redis URL: 'redis+cluster://127.0.0.1'" in out.stderr
    assert "Traceback" not in out.stderr


async def test_serve_and_check_run_on_the_cluster_from_redis_url(
    cluster_url: str, cluster_store: RedisStore, tmp_path: Path
) -> None:
    env = base_env(REDIS_URL=cluster_url, PRIZECHECK_DATA_DIR=str(tmp_path / "data"))
    port = free_port()
    serve = start_serve(env, tmp_path, "serve", port)
    try:
        streams = games(12, seed=24, tag=f"cl{uuid.uuid4().hex[:6]}")
        events = interleave(streams)
        async with Client(f"http://127.0.0.1:{port}") as client:
            for i in range(0, len(events), 200):
                await client.send(events[i : i + 200], logs=serve.tail)
        expected = offline(events)
        await wait_records(cluster_store, expected, 60, serve.tail)
        # the match list reads the league indexes through the same client
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/matches?limit=500") as resp:
            listed = json.loads(resp.read())
        assert {m["match"] for m in listed["matches"]} >= set(expected)
        assert any(f"(store: {cluster_url})" in line for line in serve.lines()), serve.tail()
    finally:
        serve.stop()
    spread = await keys_per_node(cluster_store, "pc")
    assert len(spread) == 3 and all(n > 0 for n in spread.values()), spread  # every node holds matches
    run = await asyncio.to_thread(run_check, env, "--redis-only")
    assert_holds(run)
    assert run.report["matches"] >= len(expected) >= 12


@pytest.mark.kafka
async def test_workers_and_check_run_on_the_cluster_from_redis_url(
    cluster_url: str, tansu: TansuBroker, tmp_path: Path
) -> None:
    run_id = uuid.uuid4().hex[:8]
    prefix, topic, dlq = f"pcw-{run_id}", f"pcw-{run_id}.events", f"pcw-{run_id}.events.dlq"
    await tansu.create_topics({topic: PARTITIONS, dlq: PARTITIONS})
    env = base_env(
        REDIS_URL=cluster_url,
        KAFKA_URL=tansu.url,
        PRIZECHECK_TOPIC=topic,
        PRIZECHECK_DLQ_TOPIC=dlq,
        PRIZECHECK_PARTITIONS=str(PARTITIONS),
        PRIZECHECK_DATA_DIR=str(tmp_path / "data"),
        BROKER_REBALANCE_TIMEOUT="3",
    )
    workers = [start_worker(env, tmp_path, f"w{i}", prefix, prefix) for i in (1, 2)]
    conn = await connect(Settings.from_env({"REDIS_URL": cluster_url}))
    store = RedisStore(conn.client, prefix=prefix)
    try:
        await asyncio.to_thread(wait_assigned, workers, PARTITIONS)
        streams = games(16, seed=42, tag=f"kw{run_id}")
        events = interleave(streams)
        path = tmp_path / "events.jsonl"
        path.write_text("".join(json.dumps(e) + "\n" for e in events))
        sent = subprocess.run(
            [sys.executable, "-m", "replay.cli", "produce", str(path)],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert sent.returncode == 0, sent.stderr
        await wait_records(store, offline(events), 90, lambda: logs(workers))
        spread = await keys_per_node(store, prefix)
        assert all(n > 0 for n in spread.values()), spread
        run = await asyncio.to_thread(run_check, env, "--redis-prefix", prefix)
        assert_holds(run)
    finally:
        for w in workers:
            w.stop()
        await store.delete_all()
        await conn.close()
