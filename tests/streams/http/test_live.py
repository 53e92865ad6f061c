"""Live boards for many viewers against the real thing (the app on a real port, a real Redis): one pub/sub
subscription per process whatever the number of viewers, no board read per update (each update carries its
board; before, one read per update, and before that one per viewer),
writes unaffected by readers, and the CI-sized run of ``bench/serve.py`` (no 5xx with viewers and writers
at once). Issue 10 item 5: before, each viewer held its own Redis connection and writes failed at ~99."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from streams.http.live import HUB
from streams.store import RedisStore
from tests.paths import ROOT
from tests.streams.http.served import Served, start_served
from tests.streams.ingest.support import game


@pytest.fixture
async def live(redis_store: RedisStore, tmp_path: Path) -> AsyncIterator[Served]:
    s, server = await start_served(redis_store, tmp_path, max_client_streams=1000, heartbeat=5.0)
    try:
        yield s
    finally:
        await s.http.close()
        await server.close()


async def watch(http: aiohttp.ClientSession, url: str, until_seq: int, seen: list[int]) -> None:
    async with http.get(url, timeout=aiohttp.ClientTimeout(total=60)) as r:
        assert r.status == 200, await r.text()
        async for raw in r.content:
            if raw.startswith(b"id: "):
                seen.append(int(raw[4:]))
                if seen[-1] >= until_seq:
                    return


async def test_many_viewers_share_one_subscription_and_no_board_read_per_update(live: Served) -> None:
    s = live
    matches = [f"v{i}" for i in range(4)]
    games = {m: game(m) for m in matches}
    for m in matches:
        assert (await s.post(games[m][:3])).status == 200
    hub = s.app[HUB]
    await hub.ready()
    connector = aiohttp.TCPConnector(limit=0)
    async with aiohttp.ClientSession(connector=connector) as viewers_http:
        seen: list[list[int]] = [[] for _ in range(120)]
        tasks = [
            asyncio.create_task(
                watch(
                    viewers_http,
                    f"{s.url}/matches/{matches[i % 4]}/live",
                    len(games[matches[i % 4]]),
                    seen[i],
                )
            )
            for i in range(120)
        ]
        for _ in range(200):
            if hub.count == 120:
                break
            await asyncio.sleep(0.05)
        assert hub.count == 120
        # one pub/sub connection for the process: the global channel has one subscriber, no match channel any
        numsub = await s.store.client.pubsub_numsub(
            s.store.channel(None), *(s.store.channel(m) for m in matches)
        )
        assert [n for _, n in numsub] == [1, 0, 0, 0, 0]
        reads_before = hub.fetches
        writes = 0
        for m in matches:  # the rest of each game, one event per request, as writers send them
            for e in games[m][3:]:
                r = await s.post([e])
                assert r.status == 200
                writes += 1
        await asyncio.wait_for(asyncio.gather(*tasks), 30)
    for i, got in enumerate(seen):
        assert got[-1] == len(games[matches[i % 4]]) and got == sorted(got)
    # no board read per update: each update carries its board (plus each match's first read if still under
    # way when counting started, and one more if an update came during it); never one per viewer
    assert writes > 100 and hub.fetches - reads_before <= 2 * len(matches)
    stats = await (await s.http.get(f"{s.url}/stats", headers=s.auth("organizer"))).json()
    assert stats["live"]["streams"] == 0


async def test_live_boards_never_show_hidden_cards_to_any_viewer(live: Served) -> None:
    s = live
    events = game("h1")
    await s.post(events[:3])
    seen: list[Any] = []

    async def one() -> None:
        async with s.http.get(f"{s.url}/matches/h1/live") as r:
            async for raw in r.content:
                if raw.startswith(b"data: "):
                    seen.append(json.loads(raw[6:]))
                    if seen[-1]["seq"] >= len(events):
                        return

    task = asyncio.create_task(one())
    await asyncio.sleep(0.2)
    for e in events[3:]:
        await s.post([e])
    await asyncio.wait_for(task, 20)
    assert all("Thunder Stone" not in json.dumps(b) for b in seen)  # drew.cards of the game: hidden


def test_bench_serve_ci_run_has_no_5xx() -> None:
    """The CI-sized run of bench/serve.py: 100 viewers and 8 writers against a real serve process."""
    done = subprocess.run(
        [
            sys.executable,
            "bench/serve.py",
            "--viewers",
            "100",
            "--writers",
            "8",
            "--seconds",
            "2",
            "--probes",
            "4",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "load    :   104 viewers" in done.stdout and "viewers without a board 0" in done.stdout
