"""``prizecheck report`` at season scale: 100,000 records in Redis, and 1,000,000 events in files.

    python bench/report.py [--records 100000] [--events 1000000] [--redis-url URL] [--skip-files]

Store: simulated league events (``replay.sources.league``) are replayed into records, and the records
copied into as many events ("Bench Cup 001", ...) as it takes to reach ``--records``, then written to
Redis under a key prefix of this run's own (record + league index, as the service stores them). Then,
each in a fresh process so that its peak resident memory is its own (``os.wait4``):

- baseline: read every record back the way the report does (index, a batch of 1,000 per round trip,
  unpack) and do nothing with it;
- ``prizecheck report --from-store --league ... --format json`` (and ``--format html``).

Files: simulated league events until ``--events`` events, as JSON Lines; then ``prizecheck replay --json``
(the baseline: the same reading and folding, a record per game printed) and ``prizecheck report --format
json``, each in a fresh process.

Targets (issue 13): from the store, under 10 s and under 500 MB resident, streamed. Prints wall time and
peak RSS of every process, and the ratios to the baselines measured in the same run.

Parquet (``--parquet N[,N...]``, issue 24): the same records written as the cold archive's records files
(``streams.store.parquet.write_files``, 50,000 rows a file, one league and season partition), then, each
in a fresh process: the baseline, DuckDB scanning the same files counting rows and then grouping them by
outcome; and ``prizecheck report --parquet DIR --league ... --format json``. Targets: 100,000 records
under 5 s and 300 MB, 1,000,000 under 60 s and 1 GB.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT)]

import msgpack  # noqa: E402
from redis.asyncio import Redis  # noqa: E402

from replay import replay_records  # noqa: E402
from replay.sources.league import LeagueSim  # noqa: E402
from streams.store import IndexEntry, RedisStore  # noqa: E402

LEAGUE = "Bench League"
PRIZECHECK = [sys.executable, "-m", "replay.cli"]

READ_ONLY = """
import asyncio, sys, msgspec
from redis.asyncio import Redis
from streams.store import RedisStore
async def main():
    store = RedisStore(Redis.from_url(sys.argv[1]), prefix=sys.argv[2])
    matches = await store.matches(league=sys.argv[3])
    n = 0
    decode = msgspec.msgpack.Decoder().decode
    for start in range(0, len(matches), 1000):
        for data in await store.records(matches[start:start + 1000]):
            rec = decode(data)
            n += rec is not None
    await store.close()
    print(n)
asyncio.run(main())
"""


def base_records(seed: int) -> list[dict[str, Any]]:
    """One simulated league event's records: 64 players, 6 Swiss rounds, a top 8."""
    sim = LeagueSim(LEAGUE, 64, 6, seed=seed, top_cut=8)
    events = [e for stream in sim.streams() for e in stream]
    return list(replay_records(events).values())


def _rename(rec: dict[str, Any], k: int) -> dict[str, Any]:
    def name(match: str | None) -> str | None:
        return None if match is None else f"b{k:03d}/{match}"

    out = dict(rec, match=name(rec["match"]), parent=name(rec.get("parent")))
    out["children"] = [name(c) for c in rec.get("children") or ()]
    out["context"] = {**rec["context"], "event": f"Bench Cup {k:03d}"}
    if rec.get("playoff"):
        out["playoff"] = {**rec["playoff"], "child": name(rec["playoff"].get("child"))}
    if rec.get("playoff_of"):
        out["playoff_of"] = {**rec["playoff_of"], "parent": name(rec["playoff_of"].get("parent"))}
    return out


def season(n: int, base: list[dict[str, Any]]) -> Iterator[dict[str, Any]]:
    """``n`` records: copies of ``base``, each copy its own event."""
    k = 0
    made = 0
    while made < n:
        k += 1
        for rec in base:
            if made == n:
                return
            yield _rename(rec, k)
            made += 1


async def load(url: str, prefix: str, records: Iterator[dict[str, Any]]) -> int:
    """Write records and their index entries as the service does; returns how many."""
    store = RedisStore(Redis.from_url(url), prefix=prefix)
    n = 0
    batch: list[dict[str, Any]] = []

    async def flush() -> None:
        async with store._r.pipeline(transaction=False) as pipe:
            for rec in batch:
                pipe.set(store.key(rec["match"], "record"), msgpack.packb(rec))
            await pipe.execute()
        for i in range(
            0, len(batch), 50
        ):  # 50 index steps at a time: the client's connection pool is bounded
            chunk = batch[i : i + 50]
            await asyncio.gather(
                *(store.index(IndexEntry.from_record(r, r["chain"]["events"])) for r in chunk)
            )
        batch.clear()

    for rec in records:
        batch.append(rec)
        n += 1
        if len(batch) == 1000:
            await flush()
    if batch:
        await flush()
    await store.close()
    return n


async def drop(url: str, prefix: str) -> None:
    store = RedisStore(Redis.from_url(url), prefix=prefix)
    await store.delete_all()
    await store.close()


def measured(
    cmd: list[str], env: dict[str, str] | None = None, stdout: Any = subprocess.DEVNULL
) -> tuple[float, float, float]:
    """Wall seconds, CPU seconds (user + system: what the load of a shared machine changes least) and peak
    resident MB of one process."""
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=stdout, stderr=subprocess.PIPE, env=env, cwd=ROOT)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    err = proc.stderr.read().decode() if proc.stderr else ""
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{' '.join(cmd[2:])} failed: {err[-2000:]}")
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


def line(
    label: str, wall: float, cpu: float, rss: float, base: tuple[float, float, float] | None = None
) -> None:
    ratio = ""
    if base:
        ratio = f"   {wall / base[0]:.2f}x wall, {cpu / base[1]:.2f}x CPU, {rss / base[2]:.2f}x memory"
    print(f"  {label:<46} {wall:6.2f} s wall {cpu:6.2f} s CPU {rss:6.0f} MB{ratio}")


def bench_store(args: argparse.Namespace) -> None:
    prefix = f"pcbench-{uuid.uuid4().hex[:10]}"
    t0 = time.perf_counter()
    base = base_records(args.seed)
    n = asyncio.run(load(args.redis_url, prefix, season(args.records, base)))
    events = -(-n // len(base))
    print(f"store: {n} records ({len(base)} per event, {events} events) written to {args.redis_url} "
          f"under {prefix}: in {time.perf_counter() - t0:.1f} s")  # fmt: skip
    env = {**os.environ, "REDIS_URL": args.redis_url}
    try:
        read = measured([sys.executable, "-c", READ_ONLY, args.redis_url, prefix, LEAGUE], env)
        line("baseline: read and unpack every record", *read)
        for fmt in ("json", "html"):
            cmd = [*PRIZECHECK, "report", "--from-store", "--redis-prefix", prefix, "--league", LEAGUE]
            wall, cpu, rss = measured([*cmd, "--format", fmt, "--out", os.devnull], env)
            line(f"prizecheck report --from-store --format {fmt}", wall, cpu, rss, read)
            if fmt == "json":
                v = {
                    k: "met" if ok else "NOT met"
                    for k, ok in (("w", wall < 10), ("c", cpu < 10), ("m", rss < 500))
                }
                print(f"  target (< 10 s, < 500 MB): wall {v['w']}, CPU {v['c']}, memory {v['m']}")
    finally:
        asyncio.run(drop(args.redis_url, prefix))


def bench_files(args: argparse.Namespace) -> None:
    with tempfile.TemporaryDirectory(prefix="pcbench-") as tmp:
        path = Path(tmp) / "season.jsonl"
        import msgspec

        enc = msgspec.json.Encoder()
        events = games = 0
        seed = args.seed
        t0 = time.perf_counter()
        with path.open("wb") as out:
            while events < args.events:
                seed += 1
                for stream in LeagueSim(f"{LEAGUE} {seed}", 64, 6, seed=seed, top_cut=8).streams():
                    out.write(b"".join(enc.encode(e) + b"\n" for e in stream))
                    events += len(stream)
                    games += 1
        size = path.stat().st_size / 1e6
        print(f"files: {events} events of {games} games, {size:.0f} MB of JSON Lines, simulated in "
              f"{time.perf_counter() - t0:.1f} s")  # fmt: skip
        with open(os.devnull, "wb") as null:
            replay = measured([*PRIZECHECK, "replay", "--json", str(path)], stdout=null)
        line("baseline: prizecheck replay --json (a record per game)", *replay)
        wall, cpu, rss = measured([*PRIZECHECK, "report", str(path), "--format", "json", "--out", os.devnull])
        line("prizecheck report FILE --format json", wall, cpu, rss, replay)


PARQUET_BASELINE = """
import sys, duckdb
con = duckdb.connect(config={"memory_limit": "256MB", "threads": 2})
glob = f"{sys.argv[1]}/records/**/*.parquet"
src = f"read_parquet('{glob}', hive_partitioning = true, hive_types_autocast = false)"
n = con.sql(f"SELECT count(*) FROM {src} WHERE version = 0").fetchall()[0][0]
by = con.sql(f"SELECT outcome, count(*) FROM {src} WHERE version = 0 GROUP BY outcome ORDER BY 1").fetchall()
print(n, by)
"""


def write_parquet(root: str, n: int, base: list[dict[str, Any]]) -> int:
    """``n`` records as the archive's records files under ``root`` (50,000 a file); how many."""
    from streams.archive import _summary
    from streams.store.parquet import RecordRow, write_files

    rows: list[RecordRow] = []
    made = 0
    for rec in season(n, base):
        data = msgpack.packb(rec)
        rows.append(RecordRow(rec["match"], 0, "", data, rec["chain"]["head"], 0, _summary(rec)))
        made += 1
        if len(rows) == 50_000:
            write_files(root, LEAGUE, "2026", [], rows)
            rows = []
    if rows:
        write_files(root, LEAGUE, "2026", [], rows)
    return made


def bench_parquet(args: argparse.Namespace) -> None:
    for n in [int(x) for x in args.parquet.split(",")]:
        with tempfile.TemporaryDirectory(prefix="pcbench-parquet-") as root:
            t0 = time.perf_counter()
            # written by a child process: the records held meanwhile would count in the measured processes'
            # peak memory (a child's ru_maxrss starts with its parent's resident set at the fork)
            out = subprocess.run(
                [sys.executable, __file__, "--write-parquet", root, "--records", str(n),
                 "--seed", str(args.seed)],
                check=True, capture_output=True, text=True,
            )  # fmt: skip
            made = int(out.stdout.split()[-1])
            size = sum(f.stat().st_size for f in Path(root, "records").rglob("*.parquet")) / 1e6
            print(f"parquet: {made} records, {size:.0f} MB of Parquet (zstd), written in "
                  f"{time.perf_counter() - t0:.1f} s")  # fmt: skip
            scan = measured([sys.executable, "-c", PARQUET_BASELINE, root])
            line("baseline: DuckDB counts, then groups by outcome", *scan)
            cmd = [*PRIZECHECK, "report", "--parquet", root, "--league", LEAGUE, "--format", "json"]
            wall, cpu, rss = measured([*cmd, "--out", os.devnull])
            line("prizecheck report --parquet --format json", wall, cpu, rss, scan)
            limit = (5, 300) if n <= 100_000 else (60, 1024)
            met = {k: "met" if ok else "NOT met" for k, ok in (("w", wall < limit[0]), ("m", rss < limit[1]))}
            print(f"  target (< {limit[0]} s, < {limit[1]} MB): wall {met['w']}, memory {met['m']}")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--records", type=int, default=100_000)
    parser.add_argument("--events", type=int, default=1_000_000)
    parser.add_argument("--redis-url", default=os.environ.get("REDIS_URL") or "redis://127.0.0.1:6379/0")
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument("--skip-files", action="store_true")
    parser.add_argument("--skip-store", action="store_true")
    parser.add_argument(
        "--parquet", metavar="N[,N]", help="only the Parquet bench, for these record counts (100000,1000000)"
    )
    parser.add_argument("--write-parquet", metavar="DIR", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.write_parquet:
        print(write_parquet(args.write_parquet, args.records, base_records(args.seed)))
        return
    from replay import compiled

    print(f"bench/report.py: engine {'compiled' if compiled() else 'pure Python'}, {os.cpu_count()} cores")
    if args.parquet:
        bench_parquet(args)
        return
    if not args.skip_store:
        bench_store(args)
    if not args.skip_files:
        bench_files(args)


if __name__ == "__main__":
    main()
