"""A match rebuilt from the archive (streams/ingest/rebuild.py): fast, and a changed archive raises a tamper
alarm instead of being re-signed."""

from __future__ import annotations

import time

import pytest

from replay.engine.errors import EventError
from streams.ingest import IngestCore
from streams.store import Store
from tests.streams.ingest.support import (
    game,
    in_process,
    short_game,
    stored,
    tamper,
)


@pytest.mark.redis
async def test_rebuild_of_a_400_event_game_is_fast(redis_store: Store) -> None:
    events = game("long", turns=60, notes=4)
    assert len(events) >= 400
    core = IngestCore(redis_store)
    t0 = time.perf_counter()
    for e in events:
        await core.ingest(e)
    ingest_s = time.perf_counter() - t0
    fresh = IngestCore(redis_store)
    t0 = time.perf_counter()
    await fresh.rebuild("long")
    rebuild_s = time.perf_counter() - t0
    assert await stored(redis_store, "long") == in_process(events)["long"]
    rate = len(events) / ingest_s
    print(f"\n{len(events)} events: ingest {rate:.0f} events/s, rebuild {rebuild_s * 1e3:.1f} ms")
    assert rebuild_s < 1.0


async def test_a_changed_archive_raises_a_tamper_alarm_and_is_not_re_signed(any_store: Store) -> None:
    key = b"k" * 32
    events = short_game().events
    core = IngestCore(any_store, signing_key=key)
    for e in events[:-1]:
        await core.ingest(e)
    signed = await any_store.record("m1")
    # an attacker turns the 30 damage into 10 (the knockout would no longer follow from it)
    changed = next(e for e in events if e["type"] == "damage")
    await tamper(any_store, "m1", changed["seq"], {**changed, "amount": 10})
    restarted = IngestCore(any_store, signing_key=key)
    outcome = await restarted.ingest(events[-1])
    assert outcome.status == "rejected" and "tamper alarm" in (outcome.reason or "")
    assert await any_store.record("m1") == signed  # kept as it was: not rebuilt, not re-signed
    assert await any_store.head("m1") == len(events) - 1  # the refused event was not archived
    alarms = await any_store.alarms()
    assert list(alarms) == ["m1"] and "chain head" in alarms["m1"]
    [audit] = [a for a in await any_store.audit_log() if a.action == "tamper_alarm"]
    assert audit.target == "m1" and audit.actor == "ingest"
    entry = await any_store.index_entry("m1")
    assert entry is not None and entry.findings.get("archive_tampered") == 1
    with pytest.raises(EventError, match="chain head"):
        await IngestCore(any_store, signing_key=key).rebuild("m1")
    assert await any_store.record("m1") == signed


async def test_an_untouched_archive_rebuilds_without_an_alarm(any_store: Store) -> None:
    events = short_game().events
    core = IngestCore(any_store)
    for e in events:
        await core.ingest(e)
    record = await IngestCore(any_store).rebuild("m1")
    assert record is not None and record["status"] == "finished"
    assert await any_store.alarms() == {}
