"""The match list's search over a large index (issue 36 item 6), against a plain read of every entry.

    python bench/search.py [--url redis://HOST:PORT/0] [--entries 100000] [--runs 5]

Indexes ``--entries`` matches (the real index.lua, pipelined) under a fresh key prefix of a private
``redis-server`` this script starts (or of the Redis at ``--url``: a shared server's other keys slow the
baseline's SCAN down, which walks them all), with players, events, rounds and tables in Latin, Japanese
and Korean, then times one page (50 rows) of ``Store.index_page(search=...)`` for a rare search, a broad
one and one narrowed by a league: median and max of ``--runs``, with the Python heap's peak during the
call (tracemalloc).

Baseline, in the same run: what a search costs done the plain way, a ``SCAN`` of every entry key and an
``HGETALL`` of each (pipelined, 1,000 at a time), every entry folded and matched in Python. The prefix is
deleted at the end. Compare within one run: the machine is shared and noisy.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import shutil
import socket
import statistics
import subprocess
import sys
import time
import tracemalloc
import uuid
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from redis.asyncio import BlockingConnectionPool, Redis

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT)]

from streams.store import IndexEntry, RedisStore  # noqa: E402
from streams.store.base import TopFinding, search_needle  # noqa: E402
from streams.store.keys import entry_match, entry_scan, everything  # noqa: E402

FIRST = ["Satoshi", "カスミ", "タケシ", "지우", "이슬", "Misty", "Brock", "Gary", "Ｓｅｒｅｎａ", "Dawn"]
LAST = ["", "-jp", "-kr", "_77", "2", "ｘ"]
EVENTS = ["Spring Cup", "チャンピオンズリーグ 横浜", "서울 리그", "City League Paris", "Regional Cup"]


def entry(i: int) -> IndexEntry:
    league = f"L{i % 20}"
    names = (
        f"{FIRST[i % 10]}{LAST[i % 6]}{i % 5000}",
        f"{FIRST[(i * 7 + 3) % 10]}{LAST[(i // 6) % 6]}{i % 4999}",
    )
    warnings = i % 4
    return IndexEntry(
        f"{league}/r{i % 9 + 1}-t{i:06d}",
        1,
        "finished",
        league,
        "2026",
        names,
        {"seq_gap": warnings} if warnings else {},
        {"warning": warnings} if warnings else {},
        event=EVENTS[i % len(EVENTS)],
        round=str(i % 9 + 1),
        table=str(i % 400),
        date=f"2026-{i % 12 + 1:02d}-{i % 28 + 1:02d}",
        top=TopFinding("warning", "seq_gap", 10, "events missing") if warnings else None,
    )


async def load(store: RedisStore, n: int) -> float:
    started = time.perf_counter()
    for lo in range(0, n, 1000):
        await asyncio.gather(
            *(store.index(entry(i), last=None, guess=True) for i in range(lo, min(n, lo + 1000)))
        )
    return time.perf_counter() - started


async def plain_search(client: Any, prefix: str, search: str, league: str | None) -> list[str]:
    """The baseline: every entry read into Python (SCAN + HGETALL), folded and matched there."""
    needle = search_needle(search)
    found: list[str] = []
    keys: list[bytes] = []

    async def flush() -> None:
        async with client.pipeline(transaction=False) as pipe:
            for k in keys:
                pipe.hgetall(k)
            rows = await pipe.execute()
        for k, raw in zip(keys, rows, strict=True):
            match = entry_match(k.decode())
            if league is not None and raw.get(b"league", b"").decode() != league:
                continue
            if needle in RedisStore._entry(match, raw).search_text():  # the same fields, folded the same
                found.append(match)
        keys.clear()

    async for key in client.scan_iter(match=entry_scan(prefix), count=1000):
        keys.append(key)
        if len(keys) >= 1000:
            await flush()
    await flush()
    return sorted(found)[:50]


async def timed(call: Callable[[], Awaitable[Any]], runs: int) -> tuple[list[float], int, Any]:
    """Seconds of each run, the Python heap's peak (bytes) over them, and the last answer."""
    times: list[float] = []
    tracemalloc.start()
    answer = None
    for _ in range(runs):
        started = time.perf_counter()
        answer = await call()
        times.append(time.perf_counter() - started)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return times, peak, answer


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--url", help="a Redis to use (default: a private redis-server)")
    parser.add_argument("--entries", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    server = None
    if args.url is None:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        binary = shutil.which("redis-server") or str(ROOT / ".venv" / "bin" / "redis-server")
        server = subprocess.Popen(
            [binary, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
            stdout=subprocess.DEVNULL,
        )
        args.url = f"redis://127.0.0.1:{port}/0"
        for _ in range(100):
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=0.1):
                break
            time.sleep(0.05)
    client = Redis(connection_pool=BlockingConnectionPool.from_url(args.url, max_connections=50, timeout=60))
    prefix = f"bench-search-{uuid.uuid4().hex[:8]}"
    store = RedisStore(client, prefix=prefix)
    try:
        took = await load(store, args.entries)
        print(f"indexed {args.entries:,} matches in {took:.1f} s ({args.entries / took:,.0f}/s)")
        cases: list[tuple[str, str, str | None]] = [
            ("rare: one player's name", "ｶｽﾐ-jp17", None),
            ("broad: an event, thousands of rows", "横浜", None),
            ("narrowed by a league", "서울", "L2"),
        ]
        print(f"\n{'search (a page of 50)':<38} {'index_page':>22} {'SCAN + HGETALL':>22} {'x':>6}")
        print(f"{'':<38} {'median / max ms, heap':>22} {'median / max ms, heap':>22}")
        for label, search, league in cases:
            ours, ours_heap, page = await timed(
                lambda s=search, lg=league: store.index_page(search=s, league=lg, limit=50), args.runs
            )
            plain, plain_heap, rows = await timed(
                lambda s=search, lg=league: plain_search(client, prefix, s, lg), max(1, args.runs // 2)
            )
            assert [e.match for e in page.entries] == rows, (
                label,
                [e.match for e in page.entries][:5],
                rows[:5],
            )
            a, b = statistics.median(ours), statistics.median(plain)
            print(
                f"{label:<38} {a * 1e3:7.1f} / {max(ours) * 1e3:6.1f} {ours_heap / 1e6:5.1f}MB"
                f" {b * 1e3:7.1f} / {max(plain) * 1e3:6.1f} {plain_heap / 1e6:5.1f}MB {b / a:5.1f}x"
                f"   ({page.total:,} found)"
            )
        # a deep page by cursor costs what the first does
        first = await store.index_page(search="横浜", sort="-findings", limit=50)
        cursor, pages = first.next, 1
        started = time.perf_counter()
        while cursor is not None and pages < 40:
            cursor = (await store.index_page(search="横浜", sort="-findings", limit=50, cursor=cursor)).next
            pages += 1
        each = (time.perf_counter() - started) / max(1, pages - 1)
        print(f"\nwalking the broad search by cursor: {each * 1e3:.1f} ms a page over {pages} pages")
    finally:
        n = 0
        async for key in client.scan_iter(match=everything(prefix), count=5000):
            n += await client.unlink(key)
        await client.aclose()
        if server is not None:
            server.terminate()
            server.wait()


if __name__ == "__main__":
    asyncio.run(main())
