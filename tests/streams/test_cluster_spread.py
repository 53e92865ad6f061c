"""No hot slot (issue 24 item 2): on the tests' three-node Redis Cluster, a season of many leagues ingested
through the service's own client spreads its commands over the nodes, the league indexes included.

Every node's ``INFO commandstats`` is reset, the games are ingested (``IngestCore``, as serve and the
workers do), and the calls each node served are counted: no node may serve more than 1.5 times its share
(a third). The figures are printed (``pytest -s``) and docs/storage.md quotes them.
"""

from __future__ import annotations

import asyncio
import json
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
import redis

from replay.generators.simulate import simulate_corpus
from streams.ingest import IngestCore
from streams.settings import Settings
from streams.store import IndexEntry, RedisStore, keys
from streams.store.connection import connect
from streams.store.keys import INDEX_BUCKETS, index_bucket

pytestmark = [pytest.mark.redis]

LEAGUES = 40
GAMES = 100
#: Commands a node answers for the test itself, not for the service's work
NOT_WORK = {"info", "config|resetstat", "config", "cluster|slots", "cluster|nodes", "cluster|shards", "ping"}


def nodes_of(port: int) -> list[int]:
    client = redis.Redis(port=port)
    try:
        return sorted({int(shard[2][1]) for shard in client.execute_command("CLUSTER", "SLOTS")})
    finally:
        client.close()


def calls(port: int) -> dict[str, int]:
    """Calls per command since the last reset, as the node counts them."""
    client = redis.Redis(port=port)
    try:
        stats: dict[str, Any] = client.info("commandstats")
    finally:
        client.close()
    return {name.removeprefix("cmdstat_"): int(v["calls"]) for name, v in stats.items()}


def buckets() -> int:
    return keys.INDEX_BUCKETS


def work(counts: dict[str, int]) -> int:
    return sum(n for name, n in counts.items() if name not in NOT_WORK)


def leagued(tag: str) -> Iterator[dict[str, Any]]:
    """Simulated games, each in one of ``LEAGUES`` leagues (its match_started's context), interleaved."""
    streams = []
    for i, stream in enumerate(simulate_corpus(GAMES, seed=2024)):
        out = []
        for e in stream:
            e = json.loads(json.dumps(e).replace('"sim-', f'"{tag}-sim-'))
            if e["type"] == "match_started":
                e["context"] = {
                    **e.get("context", {}),
                    "league": f"league-{i % LEAGUES:02d}",
                    "season": "2026",
                }
            out.append(e)
        streams.append(out)
    for i in range(max(len(s) for s in streams)):
        yield from (s[i] for s in streams if i < len(s))


async def season_on_the_cluster(ports: list[int]) -> tuple[int, dict[int, dict[str, int]]]:
    """Ingest the leagued season on the cluster; the events and each node's calls meanwhile."""
    url = "redis+cluster://" + ",".join(f"127.0.0.1:{p}" for p in ports)
    conn = await connect(Settings.from_env({"REDIS_URL": url}))
    store = RedisStore(conn.client, prefix=f"spread-{uuid.uuid4().hex[:8]}")
    try:
        core = IngestCore(store)
        events = list(leagued(uuid.uuid4().hex[:6]))
        for port in ports:
            redis.Redis(port=port).config_resetstat()
        for i in range(0, len(events), 500):
            await core.ingest_many(events[i : i + 500])
        per_node = {port: calls(port) for port in ports}
        # the indexes hold every league, each in many buckets: a league's matches are not in one slot
        league = await store.matches(league="league-07")
        assert len(league) >= GAMES // LEAGUES
        if buckets() > 1:
            assert len({index_bucket(m) for m in league}) > 1
        page = await store.index_page(league="league-07", limit=1000)
        assert [e.match for e in page.entries] == league
    finally:
        await store.delete_all()
        await conn.close()
    return len(events), per_node


def figures(label: str, what: str, per_node: dict[int, dict[str, int]]) -> float:
    """Print each node's commands and share; the largest share."""
    totals = {port: work(c) for port, c in per_node.items()}
    share = sum(totals.values()) / len(totals)
    print(f"\n{label}: {what}, {LEAGUES} leagues")
    for port, n in totals.items():
        scripts = per_node[port].get("evalsha", 0) + per_node[port].get("eval", 0)
        print(f"  node {port}: {n} commands ({n / share:.2f}x its share), {scripts} scripts")
    return max(totals.values()) / share


async def index_writes_on_the_cluster(ports: list[int], n: int) -> dict[int, dict[str, int]]:
    """Index ``n`` finished matches of ``LEAGUES`` leagues (one ``Store.index`` each, what the ingest core
    does when a match's summary changes) and read one league's first page; each node's calls meanwhile."""
    url = "redis+cluster://" + ",".join(f"127.0.0.1:{p}" for p in ports)
    conn = await connect(Settings.from_env({"REDIS_URL": url}))
    store = RedisStore(conn.client, prefix=f"spread-{uuid.uuid4().hex[:8]}")
    run = uuid.uuid4().hex[:6]
    entries = [
        IndexEntry(
            f"{run}-{i:05d}", 90, "finished", f"league-{i % LEAGUES:02d}", "2026", (f"a{i}", f"b{i}"), {}
        )
        for i in range(n)
    ]
    try:
        await store.ping()
        for port in ports:
            redis.Redis(port=port).config_resetstat()
        for i in range(0, n, 64):
            await asyncio.gather(*(store.index(e) for e in entries[i : i + 64]))
        page = await store.index_page(league="league-03", limit=20)
        assert page.total == len(range(3, n, LEAGUES))
        assert [e.match for e in page.entries] == [e.match for e in entries[3::LEAGUES]][:20]
        return {port: calls(port) for port in ports}
    finally:
        await store.delete_all()
        await conn.close()


async def test_a_season_of_many_leagues_spreads_its_commands_over_the_cluster_nodes(
    redis_cluster_port: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    ports = nodes_of(redis_cluster_port)
    assert len(ports) == 3
    events, per_node = await season_on_the_cluster(ports)
    label = f"the season ingested, {INDEX_BUCKETS} index buckets"
    assert figures(label, f"{events} events", per_node) <= 1.5, per_node
    # the index step alone, where the hot slot was: sharded, then in one slot (the layout before issue 24,
    # the baseline measured in the same run)
    per_node = await index_writes_on_the_cluster(ports, 3000)
    assert figures(f"{INDEX_BUCKETS} index buckets", "3000 index writes", per_node) <= 1.5, per_node
    monkeypatch.setattr("streams.store.keys.INDEX_BUCKETS", 1)
    per_node = await index_writes_on_the_cluster(ports, 3000)
    assert figures("baseline: 1 index bucket (one slot)", "3000 index writes", per_node) > 2.5
