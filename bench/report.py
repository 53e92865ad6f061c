"""``prizecheck report`` at season scale: 100,000 records in Redis, and 1,000,000 events in files.

    python bench/report.py [--records 100000] [--events 1000000] [--redis-url URL] [--skip-files]
                           [--before REV | --no-before] [--formats json,text,html,csv]
    python bench/report.py --parquet 1000000 [--formats json,text,html,csv] [--parquet-before html,csv]

Store: simulated league events (``replay.generators.league``) are replayed into records, and the records
copied into as many events ("Bench Cup 001", ...) as it takes to reach ``--records``, then written to
Redis under a key prefix of this run's own (record + league index, as the service stores them), by a
child process that first measures the server's memory per record and refuses a run that would leave it
less than 4 GiB (its ``maxmemory``, else this machine's available memory). Then, each in a fresh process
so that its peak resident memory is its own (``os.wait4``):

- baseline: read every record back the way the report does (index, a batch of 1,000 per round trip,
  unpack) and do nothing with it;
- ``prizecheck report --from-store --league ... --format FORMAT`` for every form of ``--formats`` (issue
  40 item 1: text, HTML, CSV and JSON; default all four), with the load average after each.

The run's keys are deleted at the end whatever happens (an error, Ctrl-C, SIGTERM, SIGHUP); ``--drop
PREFIX`` deletes the keys of a run that was killed outright.

Files: simulated league events until ``--events`` events, as JSON Lines; then ``prizecheck replay --json``
(the baseline: the same reading and folding, a record per game printed) and ``prizecheck report --format
json``, each in a fresh process.

Before and after (issue 21 item 4: one typed record): every command also runs from a copy of the code at
``--before`` (default :data:`BEFORE`, the last commit whose readers took records as dicts; ``git archive``
into a temporary directory, the compiled engine copied over when its sources are the same), alternating
with this tree's, over the same records and files; the ratio printed is after / before. The store part
also reads every record into its typed value and nothing else (``replay.records.from_msgpack``): the
decode's own cost beside the baseline's.

Targets: from the store, 100,000 records under 10 s and under 500 MB resident (issue 13), 1,000,000
under 60 s and 1 GB in every form (issue 40 item 1). Prints wall time and
peak RSS of every process, and the ratios to the baselines measured in the same run.

Parquet (``--parquet N[,N...]``, issue 24): the same records written as the cold archive's records files
(``streams.store.parquet.write_files``, 50,000 rows a file, one league and season partition), then, each
in a fresh process: the baseline, DuckDB scanning the same files counting rows and then grouping them by
outcome (run as the report runs DuckDB: ``replay.report.parquet``'s scan, memory limit and threads); DuckDB
fetching every stored record's bytes (what the report reads before its own work); and ``prizecheck report
--parquet DIR --league ... --format json``. Targets: 100,000 records under 5 s and 300 MB, 1,000,000
under 60 s and 1 GB, in every form (``--formats``; issue 40 item 1: text, HTML and CSV streamed as JSON
is), each beside DuckDB fetching the records, and with ``--parquet-before FORMATS`` beside the code at
``--before`` too. The archive's manifest is signed with a key ring made for the run (the report refuses
an archive its manifest does not cover). The load average is printed: the machine is shared.
"""

from __future__ import annotations

import argparse
import asyncio
import filecmp
import os
import resource
import shutil
import signal
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
import msgspec  # noqa: E402
from redis.asyncio import Redis  # noqa: E402

from replay import replay_records  # noqa: E402
from replay.generators.league import LeagueSim  # noqa: E402
from streams.store import IndexEntry, RedisStore, keys  # noqa: E402

LEAGUE = "Bench League"
PRIZECHECK = [sys.executable, "-m", "replay.cli"]
#: The store part's Redis: a database of its own on the local server, not db 0 where the tests and the
#: service keep their keys. A SCAN walks its whole database: every test's clean-up (``delete_all``) in db 0
#: walked the bench's two million keys of a 1,000,000-record run, 4,000 round trips each, and the server
#: spent most of a core on it (measured during the first runs of issue 40 item 1 from the store).
BENCH_REDIS = "redis://127.0.0.1:6379/9"
#: The code before the typed record (issue 21 item 4): main when the branch began, readers on dicts.
BEFORE = "33cd5a0"

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
# The same reading, each record decoded into its typed value (replay.records): what the report now does
READ_TYPED = READ_ONLY.replace(
    "decode = msgspec.msgpack.Decoder().decode", "from replay.records import from_msgpack as decode"
)


# The report's own work on records in memory, without Redis: decode each stored record the way this code's
# report does (the typed value where replay.records exists, a dict before it) and fold it in; best of 5 of
# each part, CPU seconds. Run in each tree over the same bytes: the steadiest before/after figure.
FOLD = """
import sys, time, msgspec
blobs = msgspec.msgpack.decode(open(sys.argv[1], "rb").read())
from replay.report import Filters, ReportBuilder
try:
    from replay.records import from_msgpack as decode
except ImportError:
    decode = msgspec.msgpack.Decoder().decode
best = {}
for _ in range(5):
    t0 = time.process_time(); recs = [decode(b) for b in blobs]; t1 = time.process_time()
    builder = ReportBuilder(Filters(league=sys.argv[2]))
    for rec in recs:
        builder.add(rec)
    t2 = time.process_time(); builder.finish(); t3 = time.process_time()
    for k, v in (("decode", t1 - t0), ("fold", t2 - t1), ("finish", t3 - t2)):
        best[k] = min(best.get(k, 1e9), v)
print(msgspec.json.encode(best).decode())
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


#: What the Redis server must keep free beyond the run's records (the measured processes, the others' work
#: on a shared machine): the loader stops before it would leave less.
HEADROOM = 4 << 30


def redis_room(url: str) -> tuple[int, str]:
    """Bytes the Redis server at ``url`` can still take, and where that figure comes from: its
    ``maxmemory`` less what it uses when it has one, else (a server on this machine) the memory this
    machine has available; -1 when neither is known (a remote server without ``maxmemory``)."""
    from urllib.parse import urlparse

    import redis

    client = redis.Redis.from_url(url)
    try:
        info = client.info("memory")
    finally:
        client.close()
    used, limit = int(info["used_memory"]), int(info.get("maxmemory") or 0)
    if limit:
        return limit - used, f"maxmemory {limit / 2**30:.1f} GiB, {used / 2**30:.2f} GiB used"
    if (urlparse(url).hostname or "") in ("127.0.0.1", "localhost", "::1"):
        meminfo = dict(line.split(":", 1) for line in Path("/proc/meminfo").read_text().splitlines())
        available = int(meminfo["MemAvailable"].split()[0]) * 1024
        return available, f"no maxmemory; this machine has {available / 2**30:.1f} GiB available"
    return -1, "no maxmemory, and the server is not on this machine"


async def load(url: str, prefix: str, records: Iterator[dict[str, Any]], total: int) -> int:
    """Write records and their index entries as the service does; returns how many. After the first
    batch, the server's memory per record is measured and the run refused (SystemExit) when ``total``
    records would leave the server less than :data:`HEADROOM` (``redis_room``)."""
    store = RedisStore(Redis.from_url(url), prefix=prefix)
    n = 0
    batch: list[dict[str, Any]] = []
    start = await store.used_memory()

    async def flush() -> None:
        async with store._r.pipeline(transaction=False) as pipe:
            for rec in batch:
                pipe.set(store.key(rec["match"], keys.RECORD), msgpack.packb(rec))
            await pipe.execute()
        for i in range(
            0, len(batch), 50
        ):  # 50 index steps at a time: the client's connection pool is bounded
            chunk = batch[i : i + 50]
            await asyncio.gather(
                *(store.index(IndexEntry.from_record(r, r["chain"]["events"])) for r in chunk)
            )
        batch.clear()

    try:
        for rec in records:
            batch.append(rec)
            n += 1
            if len(batch) == 1000:
                await flush()
                if n == 1000:
                    per = max(0, await store.used_memory() - start) / n
                    room, where = redis_room(url)
                    need = per * (total - n)
                    print(f"  {per:.0f} bytes of Redis memory per record: {total} records need "
                          f"{per * total / 2**30:.2f} GiB ({where})", file=sys.stderr)  # fmt: skip
                    if room >= 0 and need > room - HEADROOM:
                        raise SystemExit(
                            f"not enough room in Redis for {total} records: {need / 2**30:.2f} GiB more "
                            f"needed, {room / 2**30:.2f} GiB free, {HEADROOM / 2**30:.0f} GiB kept"
                        )
        if batch:
            await flush()
        print(f"  Redis used_memory after the load: {await store.used_memory() / 2**30:.2f} GiB",
              file=sys.stderr)  # fmt: skip
    finally:
        await store.close()
    return n


async def drop(url: str, prefix: str) -> int:
    """Delete every key under ``prefix``: SCAN and UNLINK 10,000 at a time (a million records' keys in
    seconds, not a round trip per key); how many."""
    client = Redis.from_url(url)
    n = 0
    try:
        cursor: int = 0
        while True:
            cursor, found = await client.scan(cursor, match=keys.everything(prefix), count=10_000)
            if found:
                n += await client.unlink(*found)
            if cursor == 0:
                return n
    finally:
        await client.aclose()


def measured(
    cmd: list[str], env: dict[str, str] | None = None, stdout: Any = subprocess.DEVNULL, cwd: Path = ROOT
) -> tuple[float, float, float]:
    """Wall seconds, CPU seconds (user + system: what the load of a shared machine changes least) and peak
    resident MB of one process (run in ``cwd``: this tree, or the code before)."""
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=stdout, stderr=subprocess.PIPE, env=env, cwd=cwd)
    try:
        _, status, usage = os.wait4(proc.pid, 0)
    except BaseException:  # Ctrl-C, SIGTERM: the command goes too (the store part then drops its keys)
        proc.kill()
        proc.wait()
        raise
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
    print(f"  {label:<58} {wall:6.2f} s wall {cpu:6.2f} s CPU {rss:6.0f} MB{ratio}")


class Before:
    """The code at a revision, exported into a temporary directory, to run the same commands with."""

    def __init__(self, rev: str, tmp: Path) -> None:
        self.rev = rev
        self.root = tmp / "before"
        self.root.mkdir()
        archive = subprocess.run(["git", "-C", str(ROOT), "archive", rev], capture_output=True, check=True)
        subprocess.run(["tar", "-x", "-C", str(self.root)], input=archive.stdout, check=True)
        # The compiled engine (make install builds it in place, outside git) goes with it when the sources
        # it was compiled from are the same there: else the before would run as plain Python, unfairly.
        engine, theirs = ROOT / "replay" / "engine", self.root / "replay" / "engine"
        built = sorted(engine.glob("*.so"))
        sources = [p for p in (engine / "_compiled.manifest",) if p.exists()]
        same = all(
            filecmp.cmp(engine / f"{so.name.split('.')[0]}.py", theirs / f"{so.name.split('.')[0]}.py", False)
            for so in built
            if (engine / f"{so.name.split('.')[0]}.py").exists()
        )
        self.compiled = bool(built) and same
        if self.compiled:
            for path in [*built, *sources]:
                shutil.copy2(path, theirs / path.name)

    def env(self, env: dict[str, str] | None = None) -> dict[str, str]:
        """``env`` with the exported code first on the path (before this tree's editable install)."""
        return {**(env or os.environ), "PYTHONPATH": str(self.root)}

    def label(self, what: str) -> str:
        return f"before ({self.rev}{'' if self.compiled else ', pure Python'}): {what}"


Figures = tuple[float, float, float]


def pair(
    cmd: list[str], before: Before | None, repeat: int, env: dict[str, str] | None = None, stdout: Any = None
) -> tuple[Figures | None, Figures]:
    """``cmd`` run by the code before and by this tree, alternating ``repeat`` times so that the machine's
    load falls on both alike; each one's best run (least CPU)."""
    old: list[Figures] = []
    new: list[Figures] = []
    for _ in range(repeat):
        if before is not None:
            old.append(measured(cmd, before.env(env), stdout or subprocess.DEVNULL, cwd=before.root))
        new.append(measured(cmd, env, stdout or subprocess.DEVNULL))

    def best(runs: list[Figures]) -> Figures:
        return min(runs, key=lambda r: r[1])

    return (best(old) if old else None), best(new)


def before_of(args: argparse.Namespace, tmp: Path) -> Before | None:
    """The code to compare with, or None (``--no-before``, or no git history here: said so)."""
    if args.no_before:
        return None
    try:
        before = Before(args.before, tmp)
    except (OSError, subprocess.CalledProcessError) as exc:
        print(f"  (no before figures: cannot export {args.before} from git: {exc})")
        return None
    if not before.compiled:
        print(f"  (the compiled engine's sources differ at {args.before}: the before runs as plain Python)")
    return before


def server_cpu(url: str) -> float:
    """The Redis server's CPU seconds so far (user + system, every client's work: it is shared)."""
    import redis

    client = redis.Redis.from_url(url)
    try:
        info = client.info("cpu")
    finally:
        client.close()
    return float(info["used_cpu_user"]) + float(info["used_cpu_sys"])


def server_line(url: str, since: float, runs: int) -> None:
    """What the Redis server spent meanwhile: its work for the command does not show in the command's CPU
    time, but it takes a core of the two too (a bound on it: other clients' work counts as well)."""
    spent = server_cpu(url) - since
    print(f"    (Redis server meanwhile: {spent:.2f} s CPU{f' over {runs} runs' if runs > 1 else ''})")


def load_average() -> str:
    one, five, _ = os.getloadavg()
    return f"load average {one:.1f} (5 min {five:.1f}) on {os.cpu_count()} cores"


def _terminated(signum: int, _frame: Any) -> None:
    """SIGTERM and SIGHUP as Ctrl-C: the ``finally`` that drops the run's keys runs."""
    raise KeyboardInterrupt(f"signal {signum}")


def bench_store(args: argparse.Namespace) -> None:
    """The store part: ``--records`` records loaded (by a child process: the records it handles would
    count in the measured processes' peak memory, which starts with their parent's), then the baselines
    and ``prizecheck report --from-store`` in every form of ``--formats``; the run's keys dropped at the
    end, whatever happened (an error, Ctrl-C, SIGTERM)."""
    prefix = f"pcbench-{uuid.uuid4().hex[:10]}"
    _, where = redis_room(args.redis_url)
    print(f"store: Redis at {args.redis_url}: {where}; {load_average()}")
    env = {**os.environ, "REDIS_URL": args.redis_url}
    for sig in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, _terminated)
    try:
        t0 = time.perf_counter()
        out = subprocess.run(
            [sys.executable, __file__, "--load-store", prefix, "--records", str(args.records),
             "--seed", str(args.seed), "--redis-url", args.redis_url],
            check=False, stdout=subprocess.PIPE, text=True,
        )  # fmt: skip
        if out.returncode != 0:
            raise SystemExit(f"store: the load failed (exit {out.returncode})")
        n, per_event = (int(x) for x in out.stdout.split())
        print(f"  {n} records ({per_event} per event, {-(-n // per_event)} events) written under {prefix} "
              f"in {time.perf_counter() - t0:.1f} s; {load_average()}")  # fmt: skip
        # a child's peak resident memory starts with its parent's (ru_maxrss is kept across the exec)
        floor = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        print(f"  (this bench's own peak, the floor of every figure below: {floor:.0f} MB)")
        limit = (10, 500) if n <= 100_000 else (60, 1024)  # issue 13; issue 40 item 1
        with tempfile.TemporaryDirectory(prefix="pcbench-before-") as tmp:
            before = before_of(args, Path(tmp))
            since = server_cpu(args.redis_url)
            read = measured([sys.executable, "-c", READ_ONLY, args.redis_url, prefix, LEAGUE], env)
            line("baseline: read and unpack every record", *read)
            server_line(args.redis_url, since, 1)
            since = server_cpu(args.redis_url)
            typed = measured([sys.executable, "-c", READ_TYPED, args.redis_url, prefix, LEAGUE], env)
            line("read, each record into its typed value", *typed, read)
            server_line(args.redis_url, since, 1)
            if before is not None:
                print(f"  (before and after alternate, each the best of {args.repeat} runs by CPU)")
            elif args.repeat > 1:
                print(f"  (each the best of {args.repeat} runs by CPU)")
            for fmt in args.formats.split(","):
                cmd = [*PRIZECHECK, "report", "--from-store", "--redis-prefix", prefix, "--league", LEAGUE]
                cmd += ["--format", fmt, "--out", os.devnull]
                since = server_cpu(args.redis_url)
                old, (wall, cpu, rss) = pair(cmd, before, args.repeat, env)
                if before is not None and old is not None:
                    line(before.label(f"report --from-store --format {fmt}"), *old, read)
                line(f"prizecheck report --from-store --format {fmt}", wall, cpu, rss, read)
                server_line(args.redis_url, since, args.repeat * (1 if before is None else 2))
                if old is not None:
                    line("  after / before", wall, cpu, rss, old)
                v = {
                    k: "met" if ok else "NOT met"
                    for k, ok in (("w", wall < limit[0]), ("c", cpu < limit[0]), ("m", rss < limit[1]))
                }
                print(f"  target (< {limit[0]} s, < {limit[1]} MB): wall {v['w']}, CPU {v['c']}, memory "
                      f"{v['m']}; {load_average()}")  # fmt: skip
    finally:
        t0 = time.perf_counter()
        dropped = asyncio.run(drop(args.redis_url, prefix))
        print(f"  {dropped} keys under {prefix} dropped in {time.perf_counter() - t0:.1f} s")


def bench_fold(args: argparse.Namespace) -> None:
    """The report's decode and fold of ``--fold`` records in memory, this tree's and the code before's."""
    base = base_records(args.seed)
    enc = msgspec.msgpack.Encoder()
    with tempfile.TemporaryDirectory(prefix="pcbench-fold-") as tmp:
        path = Path(tmp) / "records.bin"
        path.write_bytes(msgspec.msgpack.encode([enc.encode(r) for r in season(args.fold, base)]))
        print(f"in memory: {args.fold} stored records decoded and folded into the report, best of 5 (CPU)")
        before = before_of(args, Path(tmp))
        runs: list[tuple[str, Path, dict[str, str] | None]] = [("after (this tree)", ROOT, None)]
        if before is not None:
            runs.insert(0, (before.label("dict records"), before.root, before.env()))
        got = {}
        for label, cwd, env in runs:
            out = subprocess.run(
                [sys.executable, "-c", FOLD, str(path), LEAGUE],
                cwd=cwd,
                env=env,
                capture_output=True,
                check=True,
            )
            got[label] = parts = msgspec.json.decode(out.stdout)
            total = sum(parts.values())
            print(f"  {label:<58} decode {parts['decode']:6.3f} s  fold {parts['fold']:6.3f} s  "
                  f"finish {parts['finish']:6.3f} s  total {total:6.3f} s")  # fmt: skip
        if before is not None:
            (old, new) = got.values()
            ratios = ", ".join(f"{k} {new[k] / old[k]:.2f}x" for k in ("decode", "fold", "finish"))
            print(f"    after / before: {ratios}, total {sum(new.values()) / sum(old.values()):.2f}x")


def bench_files(args: argparse.Namespace) -> None:
    with tempfile.TemporaryDirectory(prefix="pcbench-") as tmp:
        path = Path(tmp) / "season.jsonl"
        enc = msgspec.json.Encoder()
        events = games = 0
        seed = args.seed
        t0 = time.perf_counter()
        played: dict[tuple[str, str], set[str]] = {}  # (event, player) -> the cards they put into play
        with path.open("wb") as out:
            while events < args.events:
                seed += 1
                for stream in LeagueSim(f"{LEAGUE} {seed}", 64, 6, seed=seed, top_cut=8).streams():
                    out.write(b"".join(enc.encode(e) + b"\n" for e in stream))
                    events += len(stream)
                    games += 1
                    _cards_played(stream, played)
        decks = Path(tmp) / "decks.json"
        decks.write_bytes(_deck_lists(played))
        size = path.stat().st_size / 1e6
        print(f"files: {events} events of {games} games, {size:.0f} MB of JSON Lines, simulated in "
              f"{time.perf_counter() - t0:.1f} s")  # fmt: skip
        before = before_of(args, Path(tmp))
        print(f"  (before and after alternate, each the best of {args.repeat} runs by CPU)")
        replay_cmd = [*PRIZECHECK, "replay", "--json", str(path)]
        report_cmd = [*PRIZECHECK, "report", str(path), "--format", "json", "--out", os.devnull]
        with open(os.devnull, "wb") as null:
            old_replay, replay = pair(replay_cmd, before, args.repeat, stdout=null)
        if before is not None and old_replay is not None:
            line(before.label("replay --json"), *old_replay)
        line("baseline: prizecheck replay --json (a record per game)", *replay)
        if old_replay is not None:
            line("  after / before", *replay, old_replay)
        old_report, (wall, cpu, rss) = pair(report_cmd, before, args.repeat)
        if before is not None and old_report is not None:
            line(before.label("report FILE --format json"), *old_report, replay)
        line("prizecheck report FILE --format json", wall, cpu, rss, replay)
        if old_report is not None:
            line("  after / before", wall, cpu, rss, old_report)
        # the deck check on (issue 38): every player's list registered, one card of each left out, so
        # every game is checked and most have a finding; --decks exists only in this tree
        checked = [*report_cmd, "--decks", str(decks)]
        _, (wall, cpu, rss) = pair(checked, None, args.repeat)
        line("prizecheck report FILE --format json --decks (deck checks on)", wall, cpu, rss, replay)


def _cards_played(stream: list[dict[str, Any]], played: dict[tuple[str, str], set[str]]) -> None:
    """The cards each player of ``stream`` put into play, by event (what their deck list must hold)."""
    event = str((stream[0].get("context") or {}).get("event") or "")
    for e in stream:
        kind = e["type"]
        if kind == "setup":
            slots = [e["active"], *e.get("bench", ())]
            names = [slot["card"]["name"] for slot in slots]
        elif kind in ("played", "evolved", "attached", "trainer_played"):
            names = [e["card"]["name"]]
        else:
            continue
        played.setdefault((event, e["player"]), set()).update(names)


def _deck_lists(played: dict[tuple[str, str], set[str]]) -> bytes:
    """Deck lists as GET /decks/{event} gives them: 4 of every card each player put into play, less the
    first by name, for the deck check to find."""
    decks = [
        {"player": player, "event": event, "format": "ptcgl",
         "cards": [{"count": 4, "name": name} for name in sorted(names)[1:]]}
        for (event, player), names in sorted(played.items())
    ]  # fmt: skip
    return msgspec.json.encode({"decks": decks})


# The baselines run DuckDB as the report does (replay.report.parquet: the same scan, memory limit and
# threads) over the same files: counting the stored records, then grouping them by outcome (the columns
# the archive writes beside each record); and fetching every stored record's bytes, which is what the
# report reads before its own work (decoding and folding each record, writing the report).
PARQUET_BASELINE = """
import sys
from replay.report.parquet import connect, scan
con = connect()
src = scan(sys.argv[1], None, None)
n = con.sql(f"SELECT count(*) {src}").fetchall()[0][0]
by = con.sql(f"SELECT outcome, count(*) {src} GROUP BY outcome ORDER BY 1").fetchall()
print(n, by)
"""
PARQUET_FETCH = """
import sys
from replay.report.parquet import archived_records
print(sum(len(batch) for batch in archived_records(sys.argv[1], sys.argv[2])))
"""


def write_parquet(root: str, n: int, base: list[dict[str, Any]]) -> int:
    """``n`` records as the archive's records files under ``root`` (50,000 a file), listed in a manifest
    signed with the key ring of the data directory ``PRIZECHECK_DATA_DIR`` (made here), as ``prizecheck
    archive`` leaves them: the report refuses an archive its manifest does not cover; how many."""
    from streams.store import manifest
    from streams.store.checkpoint import configured_key
    from streams.store.manifest import ArchivedMatch
    from streams.store.parquet import RecordRow, report_summary, write_files

    key = configured_key(None, None, os.environ["PRIZECHECK_DATA_DIR"], create=True)
    rows: list[RecordRow] = []
    made = 0

    def flush() -> None:
        files = write_files(root, LEAGUE, "2026", [], rows)
        events, records = (os.path.relpath(p, os.path.abspath(root)) for p in files)
        listed = {r.match: ArchivedMatch.of(events, records, 1, 0, r.record, []) for r in rows}
        manifest.add(root, key, "pcbench", files, listed)
        rows.clear()

    for rec in season(n, base):
        data = msgpack.packb(rec)
        rows.append(RecordRow(rec["match"], 0, "", data, rec["chain"]["head"], 0, report_summary(rec)))
        made += 1
        if len(rows) == 50_000:
            flush()
    if rows:
        flush()
    return made


def bench_parquet(args: argparse.Namespace) -> None:
    for n in [int(x) for x in args.parquet.split(",")]:
        with tempfile.TemporaryDirectory(prefix="pcbench-parquet-") as root:
            t0 = time.perf_counter()
            # written by a child process: the records held meanwhile would count in the measured processes'
            # peak memory (a child's ru_maxrss starts with its parent's resident set at the fork)
            data_dir = os.path.join(root, "data")  # its key ring signs the archive's manifest
            env = {**os.environ, "PRIZECHECK_DATA_DIR": data_dir}
            for name in ("PRIZECHECK_SIGNING_KEY", "PRIZECHECK_KEY_ID", "PRIZECHECK_KEYS_DIR"):
                env.pop(name, None)
            out = subprocess.run(
                [sys.executable, __file__, "--write-parquet", root, "--records", str(n),
                 "--seed", str(args.seed)],
                check=True, capture_output=True, text=True, env=env,
            )  # fmt: skip
            made = int(out.stdout.split()[-1])
            size = sum(f.stat().st_size for f in Path(root, "records").rglob("*.parquet")) / 1e6
            print(f"parquet: {made} records, {size:.0f} MB of Parquet (zstd), written in "
                  f"{time.perf_counter() - t0:.1f} s")  # fmt: skip
            scan = measured([sys.executable, "-c", PARQUET_BASELINE, root])
            line("baseline: DuckDB counts, then groups by outcome", *scan)
            fetch = measured([sys.executable, "-c", PARQUET_FETCH, root, LEAGUE])
            line("DuckDB fetches every stored record's bytes", *fetch, scan)
            limit = (5, 300) if n <= 100_000 else (60, 1024)
            before = (
                before_of(args, Path(tempfile.mkdtemp(prefix="pcbench-before-")))
                if args.parquet_before
                else None
            )
            for fmt in args.formats.split(","):
                cmd = [*PRIZECHECK, "report", "--parquet", root, "--league", LEAGUE, "--format", fmt]
                if before is not None and fmt in args.parquet_before.split(","):  # alternating with ours
                    old = measured([*cmd, "--out", os.devnull], before.env(env), cwd=before.root)
                    line(before.label(f"report --parquet --format {fmt}"), *old, fetch)
                wall, cpu, rss = measured([*cmd, "--out", os.devnull], env)
                line(f"prizecheck report --parquet --format {fmt}", wall, cpu, rss, fetch)
                met = {
                    k: "met" if ok else "NOT met" for k, ok in (("w", wall < limit[0]), ("m", rss < limit[1]))
                }
                print(f"  target (< {limit[0]} s, < {limit[1]} MB): wall {met['w']}, memory {met['m']}")
            print(f"  (load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores after the runs)")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--records", type=int, default=100_000)
    parser.add_argument("--events", type=int, default=1_000_000)
    parser.add_argument(
        "--redis-url",
        default=BENCH_REDIS,
        help=f"the Redis the store part loads (default {BENCH_REDIS}: a database of its own)",
    )
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument("--skip-files", action="store_true")
    parser.add_argument("--skip-store", action="store_true")
    parser.add_argument("--before", default=BEFORE, help=f"the code to compare with (default {BEFORE})")
    parser.add_argument("--no-before", action="store_true", help="this tree's figures only")
    parser.add_argument(
        "--fold", type=int, default=20_000, help="records decoded and folded in memory (0: none)"
    )
    parser.add_argument("--repeat", type=int, default=3, help="runs of each command before and after (best)")
    parser.add_argument(
        "--parquet", metavar="N[,N]", help="only the Parquet bench, for these record counts (100000,1000000)"
    )
    parser.add_argument(
        "--formats",
        default="json,text,html,csv",
        help="the report's forms measured, from the store and from Parquet (default: all four)",
    )
    parser.add_argument(
        "--parquet-before",
        metavar="FORMAT[,FORMAT]",
        default="",
        help="with --parquet: these forms also by the code at --before, alternating with this tree's",
    )
    parser.add_argument("--write-parquet", metavar="DIR", help=argparse.SUPPRESS)
    parser.add_argument("--load-store", metavar="PREFIX", help=argparse.SUPPRESS)
    parser.add_argument(
        "--drop", metavar="PREFIX", help="only delete the keys a run left under PREFIX (pcbench-...)"
    )
    args = parser.parse_args()
    from replay.report import FORMATS

    unknown = [f for f in args.formats.split(",") if f not in FORMATS]
    if unknown:
        parser.error(f"--formats: unknown {', '.join(unknown)} (known: {', '.join(FORMATS)})")
    if args.write_parquet:
        print(write_parquet(args.write_parquet, args.records, base_records(args.seed)))
        return
    if args.load_store:
        base = base_records(args.seed)
        n = asyncio.run(load(args.redis_url, args.load_store, season(args.records, base), args.records))
        print(n, len(base))
        return
    if args.drop:
        if not args.drop.startswith("pcbench-"):
            parser.error("--drop takes a prefix this bench made (pcbench-...)")
        print(f"{asyncio.run(drop(args.redis_url, args.drop))} keys under {args.drop} dropped")
        return
    from replay import compiled

    print(f"bench/report.py: engine {'compiled' if compiled() else 'pure Python'}, {os.cpu_count()} cores")
    if args.parquet:
        bench_parquet(args)
        return
    if args.fold:
        bench_fold(args)
    if not args.skip_store:
        bench_store(args)
    if not args.skip_files:
        bench_files(args)


if __name__ == "__main__":
    main()
