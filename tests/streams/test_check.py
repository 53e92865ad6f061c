"""``prizecheck check`` (streams/check.py): each invariant holds on a store the ingest core wrote, and each
kind of breach is found and named, on the real Redis (a private prefix per test) and the real broker."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import msgpack
import pytest

from replay.engine.chain import canonical_bytes
from replay.engine.errors import EventError
from replay.generators.simulate import simulate_corpus
from streams.check import Report, acknowledged_events, check, read_topic
from streams.ingest import IngestCore
from streams.kafka.dlq import DeadLetter
from streams.kafka.produce import encode
from streams.store import RedisStore
from streams.store.checkpoint import HELD_PREFIX, CheckpointKey
from tests.fixtures_kafka import TansuBroker, free_port
from tests.paths import ROOT
from tests.tamper import drop_event, rewrite_event

pytestmark = pytest.mark.redis

KEY, KEY_ID = b"check-key", "k1"
PRIZECHECK = [sys.executable, "-m", "replay.cli"]

Event = dict[str, Any]


def games(n: int, seed: int) -> dict[str, list[Event]]:
    """Simulated games by match (seed 1 with 6 games has one playoff game, ``sim-1-000001/tb1``)."""
    return {g[0]["match"]: g for g in map(list, simulate_corpus(n, seed))}


def codes(report: Report) -> set[tuple[str, str | None]]:
    return {(b.code, b.match) for b in report.breaches}


@pytest.fixture
async def stored(
    redis_store: RedisStore,
) -> AsyncIterator[tuple[RedisStore, IngestCore, dict[str, list[Event]]]]:
    """Six games (a playoff family among them) ingested in batches, records signed."""
    by_match = games(6, seed=1)
    core = IngestCore(redis_store, signing_key=KEY, key_id=KEY_ID)
    events = [e for g in by_match.values() for e in g]
    for i in range(0, len(events), 250):
        outcomes = await core.ingest_many(events[i : i + 250])
        assert {o.status for o in outcomes} == {"applied"}
    yield redis_store, core, by_match


async def test_a_store_the_core_wrote_holds_every_invariant(stored: Any) -> None:
    store, _, by_match = stored
    report = await check(store, signing_key=KEY, key_id=KEY_ID)
    assert report.ok, report.breaches
    n = sum(len(g) for g in by_match.values())
    assert (report.matches, report.events, report.applied, report.pending) == (len(by_match), n, n, 0)
    assert report.produced is None and report.duplicates is None and report.dead_letters is None
    assert any("Redis only" in note for note in report.notes)
    # without the key, signed records are compared without their signatures, and the report says so
    unkeyed = await check(store)
    assert unkeyed.ok and any("signing key" in note for note in unkeyed.notes)
    # with another key, every record is wrong
    wrong = await check(store, signing_key=b"another", key_id=KEY_ID)
    assert {b.code for b in wrong.breaches} == {"record_mismatch"}
    assert len(wrong.breaches) == len(by_match)


async def test_many_matches_are_read_within_the_connection_pool(redis_store: RedisStore) -> None:
    """More matches than redis-py's pool has connections (100): read a chunk at a time."""
    core = IngestCore(redis_store)
    starts = [{**next(iter(games(1, seed=2).values()))[0], "match": f"many-{i:03d}"} for i in range(150)]
    assert {o.status for o in await core.ingest_many(starts)} == {"applied"}
    report = await check(redis_store)
    assert report.ok, report.breaches
    assert report.matches == report.applied == 150


async def test_a_playoff_game_announced_but_not_started_is_a_stub_not_an_orphan(
    redis_store: RedisStore,
) -> None:
    by_match = games(6, seed=1)
    child = "sim-1-000001/tb1"
    core = IngestCore(redis_store)
    await core.ingest_many([e for m, g in by_match.items() if m != child for e in g])
    assert (await redis_store.record(child)) is not None  # the stub
    report = await check(redis_store)
    assert report.ok, report.breaches
    await redis_store.put_record("ghost-match", canonical_bytes({"match": "ghost-match"}))
    assert codes(await check(redis_store)) == {("orphan_record", "ghost-match")}


async def test_a_tampered_archive_entry_is_found(stored: Any) -> None:
    store, _, by_match = stored
    match = next(iter(by_match))
    await rewrite_event(store, match, 30)
    report = await check(store, signing_key=KEY, key_id=KEY_ID)
    assert ("record_mismatch", match) in codes(report)
    assert ("chain_mismatch", match) in codes(report)
    assert {m for _, m in codes(report)} == {match}


async def test_a_missing_event_is_found(stored: Any) -> None:
    store, _, by_match = stored
    first, second = list(by_match)[:2]
    last = len(by_match[first])
    await drop_event(store, first, last)  # the head key still says `last`
    await drop_event(store, second, 12)  # a hole in the middle
    report = await check(store, signing_key=KEY, key_id=KEY_ID)
    found = {(b.code, b.match, b.seq) for b in report.breaches}
    assert ("head_mismatch", first, last) in found
    assert ("record_mismatch", second) in codes(report)
    # events a client was told were taken: the dropped ones are lost, the others are there
    acked = acknowledged_events(by_match[first] + by_match[second])
    report = await check(store, signing_key=KEY, key_id=KEY_ID, acknowledged=acked)
    lost = {(b.match, b.seq) for b in report.breaches if b.code == "lost"}
    assert lost == {(first, last), (second, 12)}


async def test_a_wrong_or_missing_record_is_found(stored: Any) -> None:
    store, _, by_match = stored
    a, b, c = list(by_match)[:3]
    await store.client.set(store.key(a, "record"), await store.record(b))
    await store.client.delete(store.key(c, "record"))
    report = await check(store, signing_key=KEY, key_id=KEY_ID)
    # and neither is the record their signed checkpoints name
    assert codes(report) == {
        ("record_mismatch", a),
        ("record_missing", c),
        ("checkpoint_mismatch", a),
        ("checkpoint_mismatch", c),
    }
    assert all(b.detail for b in report.breaches)


async def test_a_rebuild_from_a_tampered_archive_is_a_chain_mismatch_and_an_alarm(stored: Any) -> None:
    """The attacker's best case: the archive is edited, and the service rebuilds the match from it."""
    store, core, by_match = stored
    match = list(by_match)[3]
    before = await store.record(match)
    await rewrite_event(store, match, 20)
    with pytest.raises(EventError, match="changed outside the service"):
        await core.rebuild(match)
    assert await store.record(match) == before, "a tampered match was signed again"
    report = await check(store, signing_key=KEY, key_id=KEY_ID)
    assert ("chain_mismatch", match) in codes(report)
    assert ("tamper_alarm", match) in codes(report)
    assert report.alarms >= 1


async def test_held_events_are_pending_above_the_head_and_a_breach_below(stored: Any) -> None:
    store, _, by_match = stored
    a, b = list(by_match)[:2]
    head = len(by_match[a])
    ahead = {**by_match[a][-1], "seq": head + 2}
    await store.hold(a, head + 2, canonical_bytes(ahead))
    report = await check(store, signing_key=KEY, key_id=KEY_ID)
    assert report.ok and report.pending == 1
    await store.hold(b, 5, canonical_bytes(by_match[b][4]))  # already archived at 5
    report = await check(store, signing_key=KEY, key_id=KEY_ID)
    assert {(x.code, x.match, x.seq) for x in report.breaches} == {("pending_stale", b, 5)}


async def test_an_acknowledged_held_event_is_held_not_lost(redis_store: RedisStore) -> None:
    """Issue 32 item 10: the held value is sealed (``pcH1``, a MAC, the bytes); compared as stored with the
    event's bytes, a held event was reported lost while the same run counted it pending."""
    game = next(iter(games(1, seed=3).values()))
    ahead = game[12]  # seq 13, behind the gap of seq 12
    core = IngestCore(redis_store, signing_key=KEY, key_id=KEY_ID)
    assert {o.status for o in await core.ingest_many(game[:11])} == {"applied"}
    assert (await core.ingest(ahead)).status == "buffered"
    (sealed,) = (await redis_store.held(ahead["match"])).values()
    assert sealed.startswith(HELD_PREFIX)  # what the store holds is not the event's bytes
    acked = acknowledged_events([*game[:11], ahead])
    for key in (CheckpointKey(KEY, KEY_ID), None):
        report = await check(
            redis_store, signing_key=KEY, key_id=KEY_ID, acknowledged=acked, checkpoint_key=key
        )
        assert report.ok, report.breaches
        assert report.pending == 1
    # a held event whose seal does not open is not the acknowledged event held: lost (and a breach)
    await redis_store.client.hset(
        f"{redis_store.prefix}:{{{ahead['match']}}}:pending", str(ahead["seq"]), canonical_bytes(ahead)
    )
    report = await check(
        redis_store,
        signing_key=KEY,
        key_id=KEY_ID,
        acknowledged=acked,
        checkpoint_key=CheckpointKey(KEY, KEY_ID),
    )
    found = {(b.code, b.seq) for b in report.breaches}
    assert found == {("pending_entry", ahead["seq"]), ("lost", ahead["seq"])}


async def test_an_entry_at_a_wrong_id_or_of_another_match_is_found(stored: Any) -> None:
    store, _, by_match = stored
    a, b = list(by_match)[:2]
    head = len(by_match[a])
    # a "conflict" entry that claims a head the match never had
    await store.client.xadd(
        store.key(a, "events"), {"e": canonical_bytes(by_match[a][3]), "k": "conflict"}, id=f"{head + 5}-1"
    )
    # an in-order entry holding another match's event
    await store.client.xadd(
        store.key(b, "events"), {"e": canonical_bytes(by_match[a][0])}, id=f"{len(by_match[b]) + 1}-0"
    )
    found = {(x.code, x.match) for x in (await check(store, signing_key=KEY, key_id=KEY_ID)).breaches}
    assert ("archive_id", a) in found
    assert ("archive_entry", b) in found


# ----------------------------------------------------------------------------------------- the command


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PRIZECHECK_", "KAFKA_", "REDIS_"))}
    env["PYTHONPATH"] = str(ROOT)
    env.update(extra)
    return env


def run_check(
    *args: str, env: dict[str, str] | None = None, timeout: float = 120
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*PRIZECHECK, "check", *args],
        cwd=ROOT,
        env=env or _env(),
        capture_output=True,
        text=True,
        timeout=timeout,
    )


async def test_the_command_exits_1_naming_each_breach_and_0_when_all_holds(
    stored: Any, redis_url: str
) -> None:
    store, _, by_match = stored
    env = _env(REDIS_URL=redis_url, PRIZECHECK_SIGNING_KEY=KEY.decode(), PRIZECHECK_KEY_ID=KEY_ID)
    ok = run_check("--redis-prefix", store.prefix, env=env)
    assert ok.returncode == 0, ok.stdout + ok.stderr
    assert "every invariant holds" in ok.stdout and "Redis only" in ok.stdout
    match = list(by_match)[1]
    await rewrite_event(store, match, 7)
    bad = run_check("--redis-prefix", store.prefix, env=env)
    assert bad.returncode == 1, bad.stdout + bad.stderr
    assert f"BREACH record_mismatch {match} seq {len(by_match[match])}:" in bad.stdout
    assert "Traceback" not in bad.stdout + bad.stderr
    as_json = run_check("--redis-prefix", store.prefix, "--json", env=env)
    assert as_json.returncode == 1
    obj = json.loads(as_json.stdout)
    assert set(obj) >= {
        "ok", "matches", "events", "produced", "applied", "duplicates", "dead_letters", "pending", "alarms",
        "breaches",
    }  # fmt: skip
    assert obj["ok"] is False and obj["produced"] is None and obj["matches"] == len(by_match)
    assert {"code": "record_mismatch", "match": match, "seq": len(by_match[match])}.items() <= obj[
        "breaches"
    ][0].items()


@pytest.mark.parametrize(
    ("locale", "record", "invalid", "note"),
    [
        ("ja_JP.UTF-8", "保存された記録が", "は有効なイベントではない: ", "Redis のみ: "),
        ("ko_KR.UTF-8", "저장된 기록이", "은 유효한 이벤트가 아님: ", "Redis만 검사: "),
    ],
)
async def test_the_command_says_each_breach_in_the_environments_language(
    stored: Any, redis_url: str, locale: str, record: str, invalid: str, note: str
) -> None:
    """Issue 34 item 5: a breach's sentence and the notes in the reader's language; ``BREACH``, the code,
    the match and the seq as they are (what a script greps for); ``--json`` in English, byte for byte as
    an English environment gives it."""
    store, _, by_match = stored
    env = _env(REDIS_URL=redis_url, PRIZECHECK_SIGNING_KEY=KEY.decode(), PRIZECHECK_KEY_ID=KEY_ID)
    a, b = list(by_match)[:2]
    await rewrite_event(store, a, 7)
    # an in-order entry the contract refuses: its reason is quoted in the sentence
    bad = {**by_match[b][0], "seq": len(by_match[b]) + 1, "type": "no_such_type"}
    await store.client.xadd(store.key(b, "events"), {"e": canonical_bytes(bad)}, id=f"{bad['seq']}-0")
    english = run_check("--redis-prefix", store.prefix, env={**env, "LC_ALL": "C.UTF-8"})
    said = run_check("--redis-prefix", store.prefix, env={**env, "LC_ALL": locale})
    assert said.returncode == english.returncode == 1, said.stdout + said.stderr
    lines = {line.partition(":")[0]: line for line in said.stdout.splitlines() if line.startswith("BREACH")}
    en_lines = {
        line.partition(":")[0]: line for line in english.stdout.splitlines() if line.startswith("BREACH")
    }
    assert lines.keys() == en_lines.keys()  # the greppable heads are the same in every language
    head = f"BREACH record_mismatch {a} seq {len(by_match[a])}"
    assert lines[head].startswith(f"{head}: {record}"), said.stdout
    assert "the stored record" in en_lines[head]
    entry = f"BREACH archive_entry {b} seq {bad['seq']}"
    assert invalid in lines[entry] and "is not a valid event" in en_lines[entry]
    # the contract's reason quoted in it is said again too (replay.i18n.errors)
    assert "unknown event type" in en_lines[entry] and "unknown event type" not in lines[entry]
    assert note in said.stdout and "Redis only" not in said.stdout
    for line in lines.values():  # no breach of these is left in English
        assert not line.partition(": ")[2][:1].isascii() or line.partition(": ")[2][:1].isdigit(), line
    as_json = run_check("--redis-prefix", store.prefix, "--json", env={**env, "LC_ALL": locale})
    in_english = run_check("--redis-prefix", store.prefix, "--json", env={**env, "LC_ALL": "C.UTF-8"})
    assert as_json.stdout == in_english.stdout and "is not a valid event" in as_json.stdout


def test_a_check_that_cannot_run_says_why_in_the_environments_language(
    tmp_path: Path, redis_url: str
) -> None:
    missing = tmp_path / "none.log"
    env = _env(REDIS_URL=redis_url, LC_ALL="ja_JP.UTF-8")
    said = run_check("--redis-only", "--checkpoints", str(missing), env=env)
    assert said.returncode == 2
    assert said.stderr == f"prizecheck check: {missing}: そのチェックポイントログはない（--checkpoints）\n"
    english = run_check("--redis-only", "--checkpoints", str(missing), env={**env, "LC_ALL": "C"})
    assert english.stderr == f"prizecheck check: {missing}: no such checkpoint log (--checkpoints)\n"


def test_the_command_exits_2_with_a_message_when_it_cannot_run(
    tmp_path: Path, tansu: TansuBroker, redis_url: str
) -> None:
    cases = [
        (["--redis", f"redis://127.0.0.1:{free_port()}/0"], "cannot"),
        (["--redis", redis_url, "--kafka", f"127.0.0.1:{free_port()}", "--timeout", "5"], "Kafka"),
        (
            ["--redis", redis_url, "--kafka", tansu.url, "--topic", f"nothing-{uuid.uuid4().hex[:8]}"],
            "does not exist",
        ),
        (["--redis", redis_url, "--timeout", "0"], "--timeout"),
    ]
    for args, words in cases:
        out = run_check(*args)
        assert out.returncode == 2, (args, out.stdout, out.stderr)
        assert words in out.stderr and "Traceback" not in out.stderr, (args, out.stderr)
    empty = run_check(env=_env(PRIZECHECK_DATA_DIR=str(tmp_path / "none")))
    assert empty.returncode == 2 and "nothing to check" in empty.stderr


# ------------------------------------------------------------------------------------------- the topic


async def _send(
    broker: TansuBroker, topic: str, records: list[tuple[bytes | None, bytes]], headers: Any = None
) -> list[tuple[int, int]]:
    from aiokafka import AIOKafkaProducer

    producer = AIOKafkaProducer(bootstrap_servers=broker.bootstrap, acks="all")
    await producer.start()
    try:
        futs = [
            await producer.send(topic, v, key=k, headers=headers(i) if headers else None)
            for i, (k, v) in enumerate(records)
        ]
        return [(m.partition, m.offset) for m in [await f for f in futs]]
    finally:
        await producer.stop()


async def _worker(broker: TansuBroker, store: RedisStore, topic: str, dlq: str, core: IngestCore) -> None:
    """What a worker does with the topic, in one pass: the core takes each message, rejects go to the DLQ."""
    snapshot = await read_topic(broker.bootstrap, topic, dlq)
    letters: list[DeadLetter] = []
    for msg in snapshot.messages:
        from streams.check import admit_message

        verdict = admit_message(msg.key, msg.value)
        reason = verdict if isinstance(verdict, str) else None
        if reason is None:
            outcome = await core.ingest(msg.value)
            reason = outcome.reason if outcome.status == "rejected" else None
        if reason is not None:
            letters.append(DeadLetter(msg.value, msg.key, topic, msg.partition, msg.offset, reason))
    if letters:
        await _send(broker, dlq, [(x.key, x.value) for x in letters], headers=lambda i: letters[i].headers())


async def _topics(broker: TansuBroker, partitions: int) -> tuple[str, str]:
    """A fresh events topic and its dead-letter topic, ``partitions`` each."""
    run = uuid.uuid4().hex[:8]
    topic, dlq = f"pccheck-{run}", f"pccheck-{run}.dlq"
    await broker.create_topics({topic: partitions, dlq: partitions})
    return topic, dlq


@pytest.mark.kafka
async def test_the_topic_is_accounted_for_message_by_message(
    tansu: TansuBroker, redis_store: RedisStore
) -> None:
    topic, dlq = await _topics(tansu, 3)
    by_match = games(4, seed=9)  # sim-9-000001/tb1 is a playoff game
    events = [e for g in by_match.values() for e in g]
    a = next(iter(by_match))
    conflict = {**by_match[a][10], "seq": 5}
    records = [encode(e) for e in events]
    records += [encode(e) for e in events[:40]]  # a producer's retry: 40 duplicates
    records += [
        encode(conflict),  # a different event reusing a seq: archived after the head, quarantined
        (a.encode(), b"\xc1 not msgpack"),
        (b"another-key", canonical_bytes(by_match[a][3])),  # keyed by something else than its match
        (a.encode(), msgpack.packb({**by_match[a][2], "type": "teleported"})),
    ]
    await _send(tansu, topic, records)
    core = IngestCore(redis_store, signing_key=KEY, key_id=KEY_ID)
    await _worker(tansu, redis_store, topic, dlq, core)
    snapshot = await read_topic(tansu.bootstrap, topic, dlq)
    report = await check(redis_store, signing_key=KEY, key_id=KEY_ID, topic=snapshot)
    assert report.ok, report.breaches
    assert report.mode == "kafka"
    assert (report.produced, report.applied, report.duplicates, report.dead_letters, report.pending) == (
        len(records),
        len(events),
        40,
        4,
        0,
    )
    assert report.events == len(events) + 1  # the conflict, archived after the head

    # an event produced but never taken, and a malformed message nobody quarantined
    b = list(by_match)[1]
    extra = {**by_match[b][-1], "seq": len(by_match[b]) + 1}
    coords = await _send(tansu, topic, [encode(extra), (b.encode(), b"\x93\x01\x02")])
    # an archived event no producer sent
    c = list(by_match)[2]
    stray = {**by_match[c][-1], "seq": len(by_match[c]) + 1}
    await core.ingest(stray)
    report = await check(
        redis_store, signing_key=KEY, key_id=KEY_ID, topic=await read_topic(tansu.bootstrap, topic, dlq)
    )
    found = {(x.code, x.match, x.seq) for x in report.breaches}
    assert ("lost", b, extra["seq"]) in found
    assert ("not_quarantined", None, None) in found
    assert ("unproduced", c, stray["seq"]) in found
    assert any(x.code == "count_mismatch" for x in report.breaches)
    assert any(str(coords[1][1]) in x.detail for x in report.breaches if x.code == "not_quarantined")


@pytest.mark.kafka
async def test_a_topic_whose_replay_differs_from_the_store_is_found(
    tansu: TansuBroker, redis_store: RedisStore
) -> None:
    """Every message accounted for, yet the topic says more than the store: a valid event quarantined
    (as after an internal error) is in the topic's replay and not in the record."""
    topic, dlq = await _topics(tansu, 2)
    by_match = games(2, seed=4)
    a = next(iter(by_match))
    events = by_match[a]
    await _send(tansu, topic, [encode(e) for e in events])
    core = IngestCore(redis_store)
    await core.ingest_many(events[:-1])
    snapshot = await read_topic(tansu.bootstrap, topic, dlq)
    last = snapshot.messages[-1]
    letter = DeadLetter(last.value, last.key, topic, last.partition, last.offset, "internal error (test)")
    await _send(tansu, dlq, [(letter.key, letter.value)], headers=lambda i: letter.headers())
    report = await check(redis_store, topic=await read_topic(tansu.bootstrap, topic, dlq))
    assert {(x.code, x.match) for x in report.breaches} == {("topic_replay_mismatch", a)}
    assert report.produced == len(events) and report.dead_letters == 1


@pytest.mark.kafka
async def test_a_held_message_of_the_topic_is_held_not_lost(
    tansu: TansuBroker, redis_store: RedisStore
) -> None:
    """Issue 32 item 10, on the topic: a message whose event waits behind a gap is pending, not lost."""
    topic, dlq = await _topics(tansu, 1)
    game = next(iter(games(1, seed=3).values()))
    await _send(tansu, topic, [encode(e) for e in [*game[:11], game[12]]])  # seq 12 never produced
    core = IngestCore(redis_store, signing_key=KEY, key_id=KEY_ID)
    await _worker(tansu, redis_store, topic, dlq, core)
    report = await check(
        redis_store,
        signing_key=KEY,
        key_id=KEY_ID,
        topic=await read_topic(tansu.bootstrap, topic, dlq),
        checkpoint_key=CheckpointKey(KEY, KEY_ID),
    )
    assert report.ok, report.breaches
    assert (report.produced, report.applied, report.pending) == (12, 11, 1)


async def test_a_stub_withdrawn_by_a_game_loss_is_neither_orphan_nor_a_breach(
    redis_store: RedisStore,
) -> None:
    """Issue 32 item 11, as check sees it: the stub of a playoff that a game loss made moot was an
    ``orphan_record``; it is taken away, with a signed checkpoint of its own."""
    from tests.builder import drawn_game

    parent = drawn_game("g1", "kr-1.0")
    core = IngestCore(redis_store, signing_key=KEY, key_id=KEY_ID)
    for e in parent.events:
        await core.ingest(e)
    loss = parent.add("penalty", player="misty", kind="game_loss")
    await core.ingest(loss)
    key = CheckpointKey(KEY, KEY_ID)
    report = await check(redis_store, signing_key=KEY, key_id=KEY_ID, checkpoint_key=key)
    assert report.ok, report.breaches
    assert report.matches == 1
    # voided on appeal: the stub is back, written over the withdrawn one's signed state
    await core.ingest(parent.add("correction", target=loss["seq"], action="void"))
    report = await check(redis_store, signing_key=KEY, key_id=KEY_ID, checkpoint_key=key)
    assert report.ok, report.breaches
    assert report.matches == 2
