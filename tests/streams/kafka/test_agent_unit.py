"""The ingest agent under Faust's ``Agent.test_context()``: no broker, a memory store, a memory DLQ.

``put(value, key, partition)`` feeds a record through the real agent function (batching included); the
records the store ends with must be the engine's offline replay, byte for byte.
"""

from __future__ import annotations

import asyncio
import json
import random
from collections.abc import AsyncIterator
from typing import Any

import msgpack
import pytest

from replay import replay_records
from replay.engine.chain import canonical_bytes
from replay.engine.record import dumps
from replay.generators.simulate import simulate_corpus
from replay.records import unpack_record
from streams.ingest import IngestCore
from streams.kafka.agents import Handled, Pipeline, install
from streams.kafka.app import create_app
from streams.kafka.batching import Batching
from streams.kafka.dlq import DeadLetter, MemoryDeadLetters
from streams.settings import Settings
from streams.store import MemoryStore
from tests.paths import ROOT

faust = pytest.importorskip("faust")

SETTINGS = Settings(partitions=4, worker_id="unit")


class Harness:
    def __init__(self, gap_timeout: float = 5.0) -> None:
        self.store = MemoryStore()
        self.core = IngestCore(self.store, gap_timeout=gap_timeout)
        self.dlq = MemoryDeadLetters()
        self.pipeline = Pipeline(self.core, self.dlq, worker_id="unit")
        self.app = create_app(SETTINGS, app_id=f"unit-{random.getrandbits(32):x}")
        self.agent = install(self.app, self.pipeline, SETTINGS, batching=Batching(within=0.005))
        self.ctx: Any = None

    async def put(self, value: bytes, key: bytes | None, partition: int = 0) -> list[Handled]:
        before = len(self.ctx.results)
        await self.ctx.put(value, key=key, partition=partition)
        out: list[Handled] = []
        for i in range(before, len(self.ctx.results)):
            out.extend(self.ctx.results[i])
        return out

    async def put_event(self, event: dict[str, Any], partition: int = 0) -> list[Handled]:
        return await self.put(msgpack.packb(event), event["match"].encode(), partition)

    async def record(self, match: str) -> bytes:
        record = unpack_record(await self.store.record(match))
        assert record is not None, match
        return dumps(record)


@pytest.fixture
async def h() -> AsyncIterator[Harness]:
    harness = Harness()
    async with harness.agent.test_context() as ctx:
        harness.ctx = ctx
        yield harness


def corpus(n: int = 3, seed: int = 7) -> list[dict[str, Any]]:
    return [e for stream in simulate_corpus(n, seed) for e in stream]


def offline(events: list[dict[str, Any]]) -> dict[str, bytes]:
    return {m: dumps(r) for m, r in replay_records(events).items()}


async def test_events_are_applied_and_records_match_the_offline_replay(h: Harness) -> None:
    events = corpus()
    for e in events:
        (handled,) = await h.put_event(e, partition=hash(e["match"]) % 4)
        assert handled.status == "applied", handled
        assert (handled.match, handled.seq) == (e["match"], e["seq"])
    expected = offline(events)
    assert expected
    for match, line in expected.items():
        assert await h.record(match) == line
    assert h.pipeline.counts["applied"] == len(events)
    assert h.dlq.letters == []


async def test_duplicates_are_ignored(h: Harness) -> None:
    events = corpus(1)
    for e in events:
        await h.put_event(e)
    for e in events[:5]:
        (handled,) = await h.put_event(e)
        assert handled.status == "duplicate"
    assert h.pipeline.counts["duplicate"] == 5
    assert await h.record(events[0]["match"]) == offline(events)[events[0]["match"]]


async def test_reordered_events_wait_in_the_buffer(h: Harness) -> None:
    events = corpus(1)
    head, (a, b, c), tail = events[:3], events[3:6], events[6:]
    for e in head:
        await h.put_event(e)
    assert [x.status for x in await h.put_event(c)] == ["buffered"]
    assert [x.status for x in await h.put_event(b)] == ["buffered"]
    assert [x.status for x in await h.put_event(a)] == ["applied"]
    for e in tail:
        await h.put_event(e)
    match = events[0]["match"]
    assert await h.record(match) == offline(events)[match]


async def test_malformed_bytes_go_to_the_dlq_with_their_coordinates(h: Harness) -> None:
    garbage = b"\xc1\xff not msgpack"
    (handled,) = await h.put(garbage, b"m-bad", partition=2)
    assert handled.status == "dead_letter"
    (letter,) = h.dlq.letters
    assert letter.value == garbage
    assert letter.key == b"m-bad"
    assert letter.partition == 2
    assert letter.offset == handled.offset
    assert "msgpack" in letter.reason
    assert letter.worker == "unit"
    # the headers carry everything and read back to the same letter
    again = DeadLetter.from_record(letter.key, letter.value, letter.headers())
    assert (again.partition, again.offset, again.reason) == (2, letter.offset, letter.reason)


async def test_schema_invalid_events_and_wrong_keys_are_dead_lettered(h: Harness) -> None:
    events = corpus(1)
    match = events[0]["match"]
    await h.put_event(events[0])
    bad = {**events[1], "seq": "two"}
    raw = msgpack.packb(bad)
    (handled,) = await h.put(raw, match.encode(), partition=1)
    assert handled.status == "dead_letter"
    assert h.dlq.letters[-1].value == raw
    assert h.dlq.letters[-1].field is not None
    # an event keyed by something else than its match breaks partition ownership: quarantined
    (handled,) = await h.put(msgpack.packb(events[1]), b"other-match", partition=1)
    assert handled.status == "dead_letter"
    assert "keyed by match" in (handled.reason or "")
    # a list is msgpack but not an event
    (handled,) = await h.put(msgpack.packb([1, 2, 3]), None, partition=1)
    assert handled.status == "dead_letter"
    assert h.pipeline.counts["dead_letter"] == 3
    # none of it touched the match
    assert await h.record(match) == offline(events[:1])[match]


async def test_a_different_event_reusing_a_seq_is_quarantined(h: Harness) -> None:
    events = corpus(1)
    for e in events[:4]:
        await h.put_event(e)
    forged = {**events[2], "id": "forged"}
    (handled,) = await h.put_event(forged)
    assert handled.status == "dead_letter"
    assert "duplicate_seq" in (handled.reason or "")
    assert h.dlq.letters[-1].seq == events[2]["seq"]


async def test_a_batch_runs_matches_concurrently_but_each_match_in_order() -> None:
    harness = Harness()
    events = corpus(4, seed=11)
    # interleave the matches' streams as a partition would deliver them
    streams: dict[str, list[dict[str, Any]]] = {}
    for e in events:
        streams.setdefault(e["match"], []).append(e)
    order: list[dict[str, Any]] = []
    iters = [iter(s) for s in streams.values()]
    while iters:
        for it in list(iters):
            nxt = next(it, None)
            if nxt is None:
                iters.remove(it)
            else:
                order.append(nxt)

    class Msg:
        def __init__(self, offset: int) -> None:
            self.topic, self.partition, self.offset = "prizecheck.events", 0, offset

    class Ev:
        def __init__(self, offset: int, e: dict[str, Any]) -> None:
            self.key, self.value, self.message = e["match"].encode(), msgpack.packb(e), Msg(offset)

    handled = await harness.pipeline.handle_batch([Ev(i, e) for i, e in enumerate(order)])  # type: ignore[misc]
    assert [x.offset for x in handled] == list(range(len(order)))
    assert {x.status for x in handled} == {"applied"}
    for match, line in offline(events).items():
        assert await harness.record(match) == line


async def test_flush_gaps_reports_a_gap_after_the_timeout() -> None:
    harness = Harness(gap_timeout=0.0)
    events = corpus(1)
    async with harness.agent.test_context() as ctx:
        harness.ctx = ctx
        for e in events[:3]:
            await harness.put_event(e)
        assert [x.status for x in await harness.put_event(events[4])] == ["buffered"]
        outcomes = await harness.pipeline.flush_gaps()
        assert [o.applied for o in outcomes] == [[events[4]["seq"]]]
    assert harness.pipeline.counts["gaps_reported"] == 1
    record = unpack_record(await harness.store.record(events[0]["match"]))
    assert record is not None
    assert "seq_gap" in {f["code"] for f in record["findings"]}


async def test_revoked_partitions_drop_their_matches_from_memory(h: Harness) -> None:
    events = corpus(1)
    for e in events[:3]:
        await h.put_event(e, partition=3)
    match = events[0]["match"]
    assert match in h.core._matches
    assert h.pipeline.revoke({("prizecheck.events", 3)}) == 1
    assert match not in h.core._matches
    # the next event rebuilds the match from the store and carries on
    for e in events[3:]:
        (handled,) = await h.put_event(e, partition=3)
        assert handled.status == "applied"
    assert await h.record(match) == offline(events)[match]


async def test_store_outage_is_retried_not_skipped() -> None:
    harness = Harness()
    events = corpus(1)
    calls = {"n": 0}
    real = harness.core.ingest_many

    async def flaky(batch: Any, raws: Any = None) -> Any:
        calls["n"] += 1
        if calls["n"] in (2, 3):
            raise ConnectionError("redis went away")
        return await real(batch, raws)

    harness.core.ingest_many = flaky  # type: ignore[method-assign,assignment]
    harness.pipeline.max_backoff = 0.01
    async with harness.agent.test_context() as ctx:
        harness.ctx = ctx
        for e in events:
            (handled,) = await harness.put_event(e)
            assert handled.status == "applied"
    assert harness.pipeline.counts["retries"] == 2
    match = events[0]["match"]
    assert await harness.record(match) == offline(events)[match]


async def test_a_stored_batch_retried_after_an_outage_comes_back_as_duplicates() -> None:
    # the store fails after the batch was written (e.g. the reply is lost): the retry finds it archived
    harness = Harness()
    events = corpus(1)
    real = harness.core.ingest_many
    failed = {"done": False}

    async def lost_reply(batch: Any, raws: Any = None) -> Any:
        out = await real(batch, raws)
        if not failed["done"]:
            failed["done"] = True
            raise ConnectionError("reply lost")
        return out

    harness.core.ingest_many = lost_reply  # type: ignore[method-assign,assignment]
    harness.pipeline.max_backoff = 0.01
    handled = await harness.pipeline.handle_batch(batch_of(events[:10]))
    assert [x.status for x in handled] == ["duplicate"] * 10
    handled = await harness.pipeline.handle_batch(batch_of(events[10:], offset=10))
    assert {x.status for x in handled} == {"applied"}
    match = events[0]["match"]
    assert await harness.record(match) == offline(events)[match]


async def test_a_batch_that_keeps_failing_is_ingested_one_by_one_and_only_the_poison_is_quarantined() -> None:
    harness = Harness()
    events = corpus(2, seed=5)
    poison = events[7]
    real = harness.core.ingest_many

    async def bad_many(batch: Any, raws: Any = None) -> Any:
        # a bug that a batch of several events meets, and one poison event alone (ingest is a batch of one)
        if len(batch) > 1:
            raise RuntimeError("bug in the batch path")
        return await real(batch, raws)

    async def bad_one(event: Any) -> Any:
        if event == poison:
            raise RuntimeError("bug on this event")
        return (await bad_many([event]))[0]

    harness.core.ingest_many = bad_many  # type: ignore[method-assign,assignment]
    harness.core.ingest = bad_one  # type: ignore[method-assign]
    harness.pipeline.max_backoff = 0.01
    handled = await harness.pipeline.handle_batch(batch_of(events))
    assert [x.offset for x in handled] == list(range(len(events)))
    dead = [x for x in handled if x.status == "dead_letter"]
    assert [(x.match, x.offset) for x in dead] == [(poison["match"], 7)]
    assert "bug on this event" in (dead[0].reason or "")
    assert harness.dlq.letters[-1].value == msgpack.packb(poison)
    # the poison's match waits behind it (its seq is missing); the other match is complete
    others = [e for e in events if e["match"] != poison["match"]]
    assert others
    assert await harness.record(others[0]["match"]) == offline(others)[others[0]["match"]]


class _Msg:
    def __init__(self, offset: int) -> None:
        self.topic, self.partition, self.offset = "prizecheck.events", 0, offset


class _Ev:
    def __init__(self, offset: int, e: dict[str, Any]) -> None:
        self.key, self.value, self.message = e["match"].encode(), msgpack.packb(e), _Msg(offset)


def batch_of(events: list[dict[str, Any]], offset: int = 0) -> Any:
    return [_Ev(offset + i, e) for i, e in enumerate(events)]


def test_the_app_never_asks_for_transactions_or_idempotence() -> None:
    app = create_app(SETTINGS, app_id="unit-conf")
    assert str(app.conf.processing_guarantee.value) == "at_least_once"
    assert app.conf.value_serializer == "raw"
    assert not app.conf.web_enabled
    producer: Any = app.producer
    extra = producer._settings_extra()
    assert "enable_idempotence" not in extra
    assert asyncio.iscoroutinefunction(producer.send)


async def test_the_consumer_waits_at_most_fetch_max_wait_for_data() -> None:
    # Faust 0.15 hard-codes fetch_max_wait_ms=1500; Tansu holds a fetch for much of it (latency)
    app = create_app(SETTINGS, app_id="unit-fetch", fetch_max_wait=0.05)
    thread: Any = app.consumer._thread  # type: ignore[attr-defined]
    kafka_consumer = thread._create_worker_consumer(app.transport)
    try:
        assert kafka_consumer._fetch_max_wait_ms == 50
    finally:
        kafka_consumer._closed = True  # never started: nothing to close


async def test_a_record_without_a_key_is_dead_lettered(h: Harness) -> None:
    events = corpus(1)
    (handled,) = await h.put(msgpack.packb(events[0]), None, partition=1)
    assert handled.status == "dead_letter"
    assert "no key" in (handled.reason or "")
    assert h.dlq.letters[-1].key is None
    assert await h.store.record(events[0]["match"]) is None


async def test_idle_matches_are_dropped_from_memory_and_rebuilt_on_return() -> None:
    now = [1000.0]
    harness = Harness()
    harness.pipeline = Pipeline(harness.core, harness.dlq, max_idle=600.0, clock=lambda: now[0])
    harness.agent = install(harness.app, harness.pipeline, SETTINGS, batching=Batching(within=0.005))
    events = corpus(2, seed=3)
    matches = sorted({e["match"] for e in events})
    a = matches[0]
    async with harness.agent.test_context() as ctx:
        harness.ctx = ctx
        for e in events:
            if e["match"] == a and e["seq"] > 10:
                continue
            await harness.put_event(e)
        now[0] += 599.0
        assert harness.pipeline.evict_idle() == 0
        now[0] += 1.0
        assert harness.pipeline.evict_idle() == len(matches)
        assert not harness.core._matches
        for e in events:
            if e["match"] == a and e["seq"] > 10:
                (handled,) = await harness.put_event(e)
                assert handled.status == "applied"
    assert harness.pipeline.counts["evicted"] == len(matches)
    expected = offline(events)
    for match in matches:
        assert await harness.record(match) == expected[match]


def test_produce_checks_every_file_before_sending_anything(tmp_path: Any) -> None:
    import subprocess
    import sys

    good = tmp_path / "good.jsonl"
    good.write_text("".join(json.dumps(e) + "\n" for e in corpus(1)))
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps(corpus(1, seed=2)[0]) + "\n{not json\n")
    # an unreachable broker: a bad file must fail before any connection is tried
    env = {"KAFKA_URL": "kafka://127.0.0.1:9", "PATH": "/usr/bin:/bin"}
    out = subprocess.run(
        [sys.executable, "-m", "replay.cli", "produce", str(good), str(bad)],
        capture_output=True,
        env=env,
        cwd=ROOT,
        timeout=60,
    )
    assert out.returncode == 2
    assert b"bad.jsonl:2" in out.stderr
    assert b"Traceback" not in out.stderr


async def test_a_dlq_outage_is_retried_so_no_record_is_lost(h: Harness) -> None:
    failures = {"left": 2}
    real = h.dlq.send

    async def flaky(letter: DeadLetter) -> None:
        if failures["left"]:
            failures["left"] -= 1
            raise ConnectionError("broker away")
        await real(letter)

    h.dlq.send = flaky  # type: ignore[method-assign]
    h.pipeline.max_backoff = 0.01
    (handled,) = await h.put(b"\xc1", b"m-x", partition=0)
    assert handled.status == "dead_letter"
    assert [letter.value for letter in h.dlq.letters] == [b"\xc1"]
    assert h.pipeline.counts["retries"] == 2


async def test_an_unexpected_error_quarantines_the_record_instead_of_losing_the_batch(h: Harness) -> None:
    events = corpus(1)

    def broken(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("bug")

    h.pipeline._admit = broken  # type: ignore[method-assign]
    (handled,) = await h.put_event(events[0])
    assert handled.status == "dead_letter"
    assert "internal error" in (handled.reason or "")


def test_worker_exits_2_with_a_message_when_redis_is_unreachable() -> None:
    # Redis is reached first (then Kafka, within --connect-wait): one line, its password hidden, exit 2
    # (tests/cli/test_faults.py runs the worker with each fault of Redis and of Kafka)
    import subprocess
    import sys

    env = {
        "KAFKA_URL": "kafka://127.0.0.1:9",
        "REDIS_URL": "redis://:secret@127.0.0.1:9/0",
        "PATH": "/usr/bin:/bin",
    }
    out = subprocess.run(
        [sys.executable, "-m", "replay.cli", "worker", "--connect-wait", "0"],
        capture_output=True,
        env=env,
        cwd=ROOT,
        timeout=120,
    )
    assert out.returncode == 2
    assert (
        out.stderr
        == b"prizecheck worker: cannot reach Redis at redis://:***@127.0.0.1:9/0: connection refused\n"
    )
    assert b"secret" not in out.stdout + out.stderr


async def test_assigned_partitions_recover_only_their_matches_held_events() -> None:
    # Issue 10 item 2: a worker assigned a partition picks up the events its previous owner left waiting
    # behind a gap (held in the store), for that partition's matches only, so the gap timeout runs for them.
    from aiokafka.partitioner import DefaultPartitioner

    clock = [0.0]
    harness = Harness()
    harness.core.clock = lambda: clock[0]
    names = [f"m{i}" for i in range(12)]
    for name in names:
        # what the core holds for an event ahead of a gap (it is checked again when it is loaded)
        note = {"match": name, "seq": 5, "type": "note", "text": "held"}
        assert await harness.store.hold(name, 5, canonical_bytes(note))

    def partition(match: str) -> int:
        return int(DefaultPartitioner()(match.encode(), [0, 1, 2, 3], []))

    mine = [m for m in names if partition(m) == 2]
    assert mine and len(mine) < len(names)
    found = await harness.pipeline.recover({(SETTINGS.topic, 2)}, 4)
    assert sorted(found) == sorted(mine)
    assert harness.core.stats()["buffered"] == len(mine)
    # revoking the partition forgets them again; the events stay held in the store
    assert harness.pipeline.revoke({(SETTINGS.topic, 2)}) == len(mine)
    assert sorted(await harness.store.pending_matches()) == sorted(names)


async def test_no_batch_is_handled_between_a_rebalance_and_its_partitions_checkpoints() -> None:
    # A fresh clone (2026-12-07): Faust's recovery service resumed the flow while the assignment signal was
    # still reading the checkpoint topic, so a match was rebuilt from a rolled-back Redis before its newest
    # checkpoint was known and no rollback alarm was raised. A batch now waits for the assignment's recover.
    harness = Harness()
    reading = asyncio.Event()
    read = asyncio.Event()

    async def slow_recover(assigned: set[tuple[str, int]], partitions: int) -> list[str]:
        reading.set()
        await read.wait()  # the checkpoint topic, read over the network
        return []

    harness.pipeline.recover = slow_recover  # type: ignore[method-assign]
    event = corpus(1)[0]
    async with harness.agent.test_context() as ctx:
        harness.ctx = ctx
        await harness.app.on_partitions_revoked.send(set())  # a rebalance begins (the first one too)
        assigning = asyncio.create_task(harness.app.on_partitions_assigned.send(set()))
        await reading.wait()
        putting = asyncio.create_task(harness.put_event(event))
        await asyncio.sleep(0.3)
        assert not putting.done() and harness.pipeline.counts["received"] == 0
        read.set()
        await assigning
        (handled,) = await asyncio.wait_for(putting, 10)
        assert handled.status == "applied"
