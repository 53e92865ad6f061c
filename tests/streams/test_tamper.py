"""Tampering by someone who can write to Redis (issue 18 item 3), against the ingest core on a real Redis.

Each case is one attack of the audit, done with Redis commands only (``tests/tamper.py``), and what the
service must do: raise a tamper alarm before it writes anything over the changed data, and never apply
or sign what it did not write. ``tests/streams/test_check_tamper.py`` checks that ``prizecheck check``
finds the same; ``tests/faults`` does it with the real processes.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import msgpack

from replay.engine.chain import canonical_bytes
from replay.records import unpack_record
from streams.ingest import IngestCore
from streams.store import RedisStore
from streams.store.checkpoint import CheckpointKey, FileCheckpoints, MemoryCheckpoints, seal_held
from tests import tamper
from tests.streams.ingest.support import Clock, game

KEY = CheckpointKey(b"tamper-test-key-0123456789", "t1")


def core(store: RedisStore, log: Any = None, clock: Clock | None = None) -> IngestCore:
    return IngestCore(store, checkpoint_key=KEY, checkpoints=log, clock=clock or Clock(), gap_timeout=5.0)


async def alarm(store: RedisStore, match: str) -> str:
    alarms = await store.alarms()
    assert match in alarms, f"no tamper alarm for {match} (alarms: {alarms})"
    return alarms[match]


async def test_a_forged_held_event_is_an_alarm_and_is_never_applied(redis_store: RedisStore) -> None:
    events = game("m1")
    await core(redis_store).ingest_many(events[:10])
    # a forged game loss for the winner-to-be, written into the held events behind a gap (seq 11 missing)
    await tamper.forge_held(redis_store, "m1", 12, tamper.penalty_game_loss("m1", 12, "misty"))
    before = await redis_store.record("m1")
    clock = Clock()
    restarted = core(redis_store, clock=clock)
    assert await restarted.recover() == ["m1"]
    assert "held" in await alarm(redis_store, "m1")
    clock.now += 60  # long past the gap timeout: a held event would be applied now
    await restarted.flush_gaps()
    archived = [msgpack.unpackb(e.data) for e in await redis_store.events("m1")]
    assert [e["seq"] for e in archived] == list(range(1, 11))
    assert await redis_store.record("m1") == before  # nothing re-signed
    outcome = await restarted.ingest(events[10])
    assert outcome.status == "rejected" and "tamper alarm" in (outcome.reason or "")


async def test_held_events_are_validated_again_when_loaded(redis_store: RedisStore) -> None:
    # Even sealed with the service's key (a stolen key, or a bug that held it), an invalid held event is
    # refused when it is loaded: it is never archived, so no permanent archive_entry breach follows.
    events = game("m1")
    await core(redis_store).ingest_many(events[:10])
    bad = canonical_bytes({"match": "m1", "seq": 12, "type": "penalty", "player": None, "kind": "game_loss"})
    await redis_store.client.hset(redis_store.key("m1", "pending"), "12", seal_held(KEY, "m1", 12, bad))
    clock = Clock()
    restarted = core(redis_store, clock=clock)
    await restarted.recover()
    assert "player" in await alarm(redis_store, "m1")
    clock.now += 60
    await restarted.flush_gaps()
    assert len(await redis_store.events("m1")) == 10


async def test_an_unkeyed_core_still_checks_held_events_again(redis_store: RedisStore) -> None:
    # The audit's case, as it was: no key, an invalid event (player: null) written into the held hash.
    events = game("m1")
    await IngestCore(redis_store).ingest_many(events[:10])
    bad = {"match": "m1", "seq": 12, "type": "penalty", "player": None, "kind": "game_loss"}
    await tamper.forge_held(redis_store, "m1", 12, bad)
    clock = Clock()
    restarted = IngestCore(redis_store, clock=clock)
    await restarted.recover()
    clock.now += 60
    await restarted.flush_gaps()
    assert len(await redis_store.events("m1")) == 10
    assert "m1" in await redis_store.alarms()


async def test_a_swapped_record_is_an_alarm_before_it_is_rewritten(redis_store: RedisStore) -> None:
    events, other = game("m1"), game("m2", turns=4)
    running = core(redis_store)
    await running.ingest_many(events[:12] + other)
    await tamper.swap(redis_store, "m1", "m2", "record")
    forged = await redis_store.record("m1")
    outcome = await running.ingest(events[12])  # the owner has m1 in memory: its next write
    assert outcome.status == "rejected"
    assert "record" in await alarm(redis_store, "m1")
    assert await redis_store.record("m1") == forged  # left as found, for the operator
    assert await redis_store.head("m1") == 12


async def test_an_old_board_put_back_is_an_alarm_before_it_is_rewritten(redis_store: RedisStore) -> None:
    events = game("m1")
    running = core(redis_store)
    await running.ingest_many(events[:6])
    old_board = await redis_store.board("m1")
    await running.ingest_many(events[6:12])
    assert old_board is not None
    await redis_store.client.set(redis_store.key("m1", "board"), old_board)
    assert (await running.ingest(events[12])).status == "rejected"
    assert "board" in await alarm(redis_store, "m1")
    assert await redis_store.board("m1") == old_board


async def test_a_swapped_index_entry_is_an_alarm_not_rewritten(redis_store: RedisStore) -> None:
    events, other = game("m1"), game("m2", turns=4, season="2025")
    running = core(redis_store)
    await running.ingest_many(events[:-3] + other)
    await tamper.swap_index_entry(redis_store, "m1", "m2")
    await running.ingest_many(events[-3:])  # the game ends: its index entry changes
    assert "index" in await alarm(redis_store, "m1")
    # not silently rewritten: the alarm marks the match's entry (as every alarm does), nothing else
    entry = await redis_store.index_entry("m1")
    assert entry is not None and entry.findings.get("archive_tampered") == 1


async def test_a_swapped_index_entry_is_found_by_the_next_owner(redis_store: RedisStore) -> None:
    events, other = game("m1"), game("m2", turns=4, season="2025")
    await core(redis_store).ingest_many(events[:-3] + other)
    await tamper.swap_index_entry(redis_store, "m1", "m2")
    outcome = await core(redis_store).ingest(events[-3])
    assert outcome.status == "rejected"
    assert "index" in await alarm(redis_store, "m1")


async def test_an_injected_conflict_is_an_alarm_not_a_finding(redis_store: RedisStore) -> None:
    events = game("m1")
    await core(redis_store).ingest_many(events[:12])
    await tamper.inject_conflict(redis_store, "m1", 5)  # the chain head does not cover conflicts
    outcome = await core(redis_store).ingest(events[12])
    assert outcome.status == "rejected"
    assert "archive" in await alarm(redis_store, "m1")
    record = unpack_record(await redis_store.record("m1"))
    assert record is not None
    assert "duplicate_seq" not in {f["code"] for f in record["findings"]}


async def test_a_deleted_last_event_with_its_chain_head_recomputed_is_an_alarm(
    redis_store: RedisStore,
) -> None:
    events = game("m1")
    await core(redis_store).ingest_many(events[:12])
    deleted = await tamper.delete_last_event(redis_store, "m1")
    assert deleted == 12
    outcome = await core(redis_store).ingest(events[12])
    assert outcome.status == "rejected"
    assert "archive" in await alarm(redis_store, "m1")


async def test_a_rollback_under_the_running_owner_is_an_alarm(redis_store: RedisStore) -> None:
    events = game("m1")
    running = core(redis_store)
    await running.ingest_many(events[:8])
    saved = await tamper.snapshot(redis_store, "m1")  # a whole older state, every part signed
    await running.ingest_many(events[8:12])
    await tamper.put_back(redis_store, saved)
    assert (await running.ingest(events[12])).status == "rejected"
    assert "rolled back" in await alarm(redis_store, "m1")


async def test_a_rollback_is_an_alarm_after_a_restart_with_the_file_log(
    redis_store: RedisStore, tmp_path: Path
) -> None:
    events = game("m1")
    path = str(tmp_path / "checkpoints.log")
    log = FileCheckpoints(path, KEY, store=redis_store.prefix)
    running = core(redis_store, log)
    await running.ingest_many(events[:8])
    saved = await tamper.snapshot(redis_store, "m1")
    await running.ingest_many(events[8:12])
    await log.close()
    await tamper.put_back(redis_store, saved)
    reopened = FileCheckpoints(path, KEY, store=redis_store.prefix)
    assert reopened.latest("m1") is not None and reopened.latest("m1").seq == 12  # type: ignore[union-attr]
    assert (await core(redis_store, reopened).ingest(events[12])).status == "rejected"
    assert "rolled back" in await alarm(redis_store, "m1")
    await reopened.close()


async def versions_game(store: RedisStore, running: IngestCore) -> list[dict[str, Any]]:
    """A finished game whose record then changes twice (two penalties after the end): versions."""
    events = game("m1")
    n = len(events)
    after = [
        {"match": "m1", "seq": n + 1, "type": "penalty", "player": "ash", "kind": "warning"},
        {"match": "m1", "seq": n + 2, "type": "penalty", "player": "misty", "kind": "warning"},
    ]
    for e in events + after:
        await running.ingest(e)
    assert len(await store.versions("m1")) >= 3
    return events + after


async def test_a_truncated_version_list_is_an_alarm(redis_store: RedisStore) -> None:
    await versions_game(redis_store, core(redis_store))
    await tamper.truncate_versions(redis_store, "m1", 1)
    note = {"match": "m1", "seq": 99, "type": "note", "text": "x"}
    restarted = core(redis_store)
    await restarted.ingest(note)
    assert "version list" in await alarm(redis_store, "m1")


async def test_an_edited_version_is_an_alarm(redis_store: RedisStore) -> None:
    await versions_game(redis_store, core(redis_store))
    first = await redis_store.version("m1", 1)
    assert first is not None
    await tamper.edit_version(redis_store, "m1", 2, first.record)
    restarted = core(redis_store)
    outcome = await restarted.ingest({"match": "m1", "seq": 99, "type": "note", "text": "x"})
    assert outcome.status == "rejected"
    assert "version list" in await alarm(redis_store, "m1")


async def test_a_truncated_version_list_under_the_running_owner_is_refused(redis_store: RedisStore) -> None:
    running = core(redis_store)
    events = await versions_game(redis_store, running)
    await tamper.truncate_versions(redis_store, "m1", 1)
    n = len(events)
    penalty = {"match": "m1", "seq": n + 1, "type": "penalty", "player": "ash", "kind": "caution"}
    assert (await running.ingest(penalty)).status == "rejected"
    assert "versions" in await alarm(redis_store, "m1")
    assert len(await redis_store.versions("m1")) == 1


async def test_a_removed_checkpoint_is_an_alarm_for_an_owner_that_knows_the_match(
    redis_store: RedisStore,
) -> None:
    events = game("m1")
    log = MemoryCheckpoints(redis_store.prefix)
    await core(redis_store, log).ingest_many(events[:12])
    await redis_store.client.hdel(redis_store.key("m1", "state"), "ck")
    assert (await core(redis_store, log).ingest(events[12])).status == "rejected"
    assert "no checkpoint" in await alarm(redis_store, "m1")


async def test_honest_restarts_and_playoffs_raise_no_alarm(redis_store: RedisStore, tmp_path: Path) -> None:
    # The same store, owned in turn by cores that restart between batches, through held events, a
    # conflict and versions: every rebuild checks the stored state and finds what was written.
    events = game("m1")
    path = str(tmp_path / "checkpoints.log")
    order = (
        events[:5] + events[6:9] + [events[5]] + [{**events[2], "at": "2001-01-01T00:00:00Z"}] + events[9:]
    )
    for i in range(0, len(order), 4):
        log = FileCheckpoints(path, KEY, store=redis_store.prefix)
        c = core(redis_store, log)
        await c.recover()
        await c.ingest_many(order[i : i + 4])
        await log.close()
    assert await redis_store.alarms() == {}
    final = core(redis_store, FileCheckpoints(path, KEY, store=redis_store.prefix))
    assert await final.rebuild("m1") is not None
    assert await redis_store.alarms() == {}
