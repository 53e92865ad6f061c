"""Issue 10's defects in the ingest core, against both stores: events held behind a gap are released after
a restart with no further event; a changed archive raises a tamper alarm instead of being re-signed; a
finished record that changes is a new version; two owners of one playoff family never overwrite each
other's record writes (docs/reliability.md)."""

from __future__ import annotations

import asyncio
from typing import Any

import msgpack
import pytest

from replay import replay_records
from replay.engine.chain import canonical_bytes
from replay.engine.errors import EventError
from replay.engine.record import dumps
from replay.records import unpack_record
from streams.ingest import IngestCore
from streams.store import AppendResult, AppendRun, ArchivedEvent, MemoryStore, RedisStore, Store
from tests.builder import Stream, card, drawn_game
from tests.streams.test_ingest_playoffs import playoff


def short_game(match: str = "m1") -> Stream:
    """A play-2026 game won by ash knocking out misty's only Pokémon."""
    s = Stream(match, ruleset="play-2026")
    s.setup("ash", ("a1", card("Pikachu", 60)))
    s.setup("misty", ("m1", card("Staryu", 30)))
    s.turn("ash", draw=False)
    s.attack("ash", "a1", ("m1", 30), claims=("m1",))
    return s


async def tamper(store: Store, match: str, seq: int, event: dict[str, Any]) -> None:
    """Change the archived event at ``seq`` behind the service's back (what an attacker with Redis access
    does), keeping every entry's position."""
    data = canonical_bytes(event)
    if isinstance(store, MemoryStore):
        m = store._matches[match]
        m.log = [ArchivedEvent(e.position, data, e.kind) if e.position == (seq, 0) else e for e in m.log]
        m.by_seq[seq] = data
        return
    assert isinstance(store, RedisStore)
    key = store.key(match, "events")
    entries = await store.client.xrange(key)
    await store.client.delete(key)
    for entry_id, fields in entries:
        if entry_id == f"{seq}-0".encode():
            fields = {**fields, b"e": data}
        await store.client.xadd(key, fields, id=entry_id)


async def test_events_held_behind_a_gap_are_released_after_a_restart_with_no_further_event(
    any_store: Store,
) -> None:
    events = short_game().events
    first = IngestCore(any_store, gap_timeout=5.0)
    for e in events[:3] + events[4:]:
        await first.ingest(e)
    assert await any_store.head("m1") == 3
    assert await any_store.pending_matches() == ["m1"]
    # the process dies; a new one starts: nothing else for m1 ever arrives
    clock = [100.0]
    second = IngestCore(any_store, gap_timeout=5.0, clock=lambda: clock[0])
    assert await second.recover() == ["m1"]
    assert await second.flush_gaps() == []  # the wait starts at recovery, not at the first arrival
    clock[0] += 5.0
    [outcome] = await second.flush_gaps()
    assert (outcome.status, outcome.seq, outcome.applied) == ("applied", 5, list(range(5, len(events) + 1)))
    record = unpack_record(await any_store.record("m1"))
    assert record is not None and record["status"] == "finished"
    assert "seq_gap" in {f["code"] for f in record["findings"]}
    assert await any_store.pending_matches() == []


async def test_recovery_takes_only_the_matches_this_owner_owns(any_store: Store) -> None:
    for name in ("m1", "m2"):
        events = short_game(name).events
        core = IngestCore(any_store)
        for e in events[:2] + events[3:4]:
            await core.ingest(e)
    assert await IngestCore(any_store).recover(lambda m: m == "m2") == ["m2"]


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


async def test_every_change_to_a_finished_record_is_a_version_naming_its_event(any_store: Store) -> None:
    s = short_game()
    end = len(s.events)  # the game is decided by the knockout batch that the attack's end closes
    s.add("knocked_out", pid="a1")  # a claim the board does not support: a finding, after the end
    s.add("note", text="judge: reviewed")
    core = IngestCore(any_store)
    for e in s.events:
        await core.ingest(e)
    versions = await any_store.versions("m1")
    assert [(v.version, v.cause_match) for v in versions][:1] == [(1, "m1")]
    assert len(versions) >= 2, "the claim after the end changed the finished record"
    first, second = versions[0], versions[1]
    assert first.cause_seq <= end < second.cause_seq
    # the last version is the live record; the first is the record as it was when the game ended
    assert versions[-1].record == await any_store.record("m1")
    ended = Stream("m1")
    ended.events = s.events[: first.cause_seq]
    assert dumps(unpack_record(first.record)) == dumps(ended.record())
    # ingesting it all again changes nothing: no new version from a redelivery
    for e in s.events:
        await core.ingest(e)
    assert len(await any_store.versions("m1")) == len(versions)


class _Paused:
    """A store whose first append_run of ``match`` waits until ``go`` is set (the window where another
    process writes the same record)."""

    def __init__(self, store: Store, match: str) -> None:
        self._store = store
        self.match = match
        self.reached = asyncio.Event()
        self.go = asyncio.Event()
        self.paused = False

    def __getattr__(self, name: str) -> Any:
        return getattr(self._store, name)

    async def append_run(self, a: AppendRun) -> AppendResult:
        if a.match == self.match and not self.paused:
            self.paused = True
            self.reached.set()
            await self.go.wait()
        return await self._store.append_run(a)


async def test_a_parents_owner_never_overwrites_the_settlement_of_its_playoff(any_store: Store) -> None:
    # Issue 10 item 7, the Kafka two-worker flake, reproduced deterministically: the parent's owner builds
    # its record while the playoff is unfinished; the playoff's owner finishes it and settles the parent;
    # then the parent's owner writes. Without the write fence the parent stays awaiting_playoff forever.
    parent = drawn_game("g1", "kr-1.0")
    child = playoff("g1/tb1", decided=True)
    parent.add("note", text="scoresheet signed")  # an event for the parent after its draw
    owner = IngestCore(any_store)
    for e in parent.events[:-1]:
        await owner.ingest(e)
    for e in child.events[:-1]:
        await IngestCore(any_store).ingest(e)
    paused = _Paused(any_store, "g1")
    parent_owner = IngestCore(paused)  # type: ignore[arg-type]
    late = asyncio.create_task(parent_owner.ingest(parent.events[-1]))
    await asyncio.wait_for(paused.reached.wait(), 10)  # its record is built: the playoff is unfinished
    assert (await IngestCore(any_store).ingest(child.events[-1])).status == "applied"  # settles g1
    settled = unpack_record(await any_store.record("g1"))
    assert settled is not None and settled["status"] == "finished"
    paused.go.set()
    assert (await asyncio.wait_for(late, 10)).status == "applied"
    expected = replay_records(parent.events + child.events)
    for match in ("g1", "g1/tb1"):
        assert dumps(unpack_record(await any_store.record(match))) == dumps(expected[match]), match


async def test_events_behind_a_gap_wait_in_the_store_not_only_in_memory(any_store: Store) -> None:
    events = short_game().events
    core = IngestCore(any_store)
    for e in events[:2] + events[3:]:
        assert (await core.ingest(e)).status in ("applied", "buffered")
    held = await any_store.held("m1")
    assert sorted(held) == list(range(4, len(events) + 1))
    assert all(msgpack.unpackb(v)["seq"] == k for k, v in held.items())


@pytest.mark.parametrize("seq", [100_001, 10**12, 2**63 - 1])
async def test_a_seq_far_beyond_any_game_is_refused_at_the_edge(any_store: Store, seq: int) -> None:
    # Issue 10 item 1: one such event made the engine record every missing seq, and the kernel killed the
    # process once the gap timeout fired; the event stayed pending and the next one did it again.
    core = IngestCore(any_store, gap_timeout=0.0)
    first = short_game().events[0]
    assert (await core.ingest(first)).status == "applied"
    outcome = await core.ingest({"match": "m1", "seq": seq, "type": "note", "text": "far away"})
    assert (outcome.status, outcome.field) == ("rejected", "seq")
    assert str(seq) in (outcome.reason or "")
    assert await any_store.held("m1") == {} and await core.flush_gaps() == []


async def test_the_furthest_seq_allowed_costs_one_gap_not_one_entry_per_missing_seq(any_store: Store) -> None:
    core = IngestCore(any_store, gap_timeout=0.0)
    assert (await core.ingest(short_game().events[0])).status == "applied"
    far = {"match": "m1", "seq": 100_000, "type": "note", "text": "far away"}
    assert (await core.ingest(far)).status == "buffered"
    [released] = await core.flush_gaps()
    assert released.applied == [100_000]
    record = unpack_record(await any_store.record("m1"))
    assert record is not None
    [gap] = [f for f in record["findings"] if f["code"] == "seq_gap"]
    assert "2..99999" in gap["message"]


async def test_versions_do_not_depend_on_how_the_events_were_batched() -> None:
    s = short_game()
    s.add("knocked_out", pid="a1")
    s.add("note", text="judge: reviewed")
    s.add("penalty", player="ash", kind="game_loss", reason="unsporting conduct")
    one, many = MemoryStore(), MemoryStore()
    core = IngestCore(one)
    for e in s.events:
        await core.ingest(e)
    await IngestCore(many).ingest_many(s.events)
    by_one = [(v.cause_seq, v.record) for v in await one.versions("m1")]
    assert by_one == [(v.cause_seq, v.record) for v in await many.versions("m1")]
    assert len(by_one) >= 3
