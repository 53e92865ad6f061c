"""The playoff family (streams/ingest/playoffs.py): a playoff game's finish settles its parent in the store,
byte for byte what the offline replay gives (docs/rules.md §6); stubs written and withdrawn."""

from __future__ import annotations

import asyncio

import pytest

from replay import Game, replay_records
from replay.engine.record import dumps
from replay.records import unpack_record
from streams.ingest import IngestCore
from streams.store import MemoryStore, Store
from tests.builder import drawn_game, sudden_death
from tests.streams.ingest.support import (
    Paused,
    drawn,
    in_process,
    ingest_all,
    offline,
    playoff,
    playoff_family,
    stored,
    stored_record,
)


async def test_playoff_children_are_linked_and_settle_the_parent(any_store: Store) -> None:
    parent, tb1, tb2 = drawn(), playoff("g1/tb1", "g1", False), playoff("g1/tb2", "g1", True)
    parent_core, child_core = IngestCore(any_store), IngestCore(any_store)  # different owners
    for e in parent.events:
        await parent_core.ingest(e)
    root = unpack_record(await any_store.record("g1"))
    assert root is not None and root["status"] == "awaiting_playoff"
    assert root["children"] == ["g1/tb1"]
    stub = unpack_record(await any_store.record("g1/tb1"))
    assert stub is not None
    assert (stub["status"], stub["parent"], stub["stub"]) == ("in_progress", "g1", True)
    assert await any_store.matches(status="in_progress") == ["g1/tb1"]
    for e in tb1.events:
        await child_core.ingest(e)
    assert (unpack_record(await any_store.record("g1")) or {})["status"] == "awaiting_playoff"
    assert unpack_record(await any_store.record("g1/tb2")) is not None  # the next stub
    for e in tb2.events:
        await child_core.ingest(e)
    everything = parent.events + tb1.events + tb2.events
    expected = offline(everything)
    for match in ("g1", "g1/tb1", "g1/tb2"):
        assert await stored(any_store, match) == expected[match], match
    settled = unpack_record(await any_store.record("g1"))
    assert settled is not None
    assert (settled["status"], settled["result"]["reason"], settled["result"]["winner"]) == (
        "finished",
        "playoff",
        "ash",
    )
    assert await any_store.matches(status="finished") == ["g1", "g1/tb1", "g1/tb2"]  # /tb1 settled too
    # the parent's owner restarts and goes on: still settled, still what the CLI prints
    again = IngestCore(any_store)
    note = {"match": "g1", "seq": len(parent.events) + 1, "type": "note", "text": "signed off"}
    assert (await again.ingest(note)).status == "applied"
    assert await stored(any_store, "g1") == offline([*everything, note])["g1"]


async def test_a_child_decided_only_while_an_effect_resolves_does_not_settle_its_parent(
    any_store: Store,
) -> None:
    """A playoff child whose record reads "won" after the first of two simultaneous knockouts, and
    "drawn" after the second: the parent must be settled by the final outcome (here by ``/tb2``)."""
    from replay.generators.simulate import simulate_corpus

    events = [e for s in simulate_corpus(40, 3) for e in s if e["match"].startswith("sim-3-000008")]
    root, tb1 = "sim-3-000008", "sim-3-000008/tb1"
    g = Game()
    seen = []
    for e in [e for e in events if e["match"] == tb1]:
        g.apply(e)
        seen.append((g.record()["status"], g.effect_pending))
    assert ("finished", True) in seen and seen[-1][0] == "awaiting_playoff"  # the scenario holds
    expected = in_process(events)
    for batch in (False, True):
        store: Store = MemoryStore() if batch else any_store
        core = IngestCore(store)
        if batch:
            await core.ingest_many(events)
        else:
            for e in events:
                await core.ingest(e)
        for m in sorted({e["match"] for e in events}):
            assert await stored(store, m) == expected[m], (batch, m)
    record = unpack_record(await any_store.record(root))
    assert record is not None and record["result"]["playoff"] == "sim-3-000008/tb2"


async def test_a_child_without_the_playoff_field_settles_its_parent(any_store: Store) -> None:
    parent = drawn_game("g1", "kr-1.0", context={"league": "L1"})
    child = sudden_death("g1/tb1", decided=True)
    assert "playoff" not in child.events[0]
    events = await ingest_all(any_store, parent, child)
    expected = replay_records(events)
    for match in ("g1", "g1/tb1"):
        assert dumps(await stored_record(any_store, match)) == dumps(expected[match]), match
    root = await stored_record(any_store, "g1")
    assert (root["status"], root["result"]["winner"], root["result"]["reason"]) == (
        "finished",
        "ash",
        "playoff",
    )
    assert (await stored_record(any_store, "g1/tb1"))["playoff_of"] == {
        "kind": "sudden_death",
        "parent": "g1",
    }
    assert await any_store.matches(status="finished") == ["g1", "g1/tb1"]


@pytest.mark.parametrize(
    "order", ["parent, tb1, tb2", "parent, tb2, tb1", "tb1, tb2, parent", "tb2, tb1, parent"]
)
async def test_a_drawn_playoff_is_settled_in_the_store_with_its_parent(any_store: Store, order: str) -> None:
    """/tb1 drawn, /tb2 decided: the stored /tb1 and root are both settled (in whatever order the games
    arrive), byte for byte as the offline replay settles them."""
    parent, tb1, tb2 = playoff_family()
    games = {"parent": parent, "tb1": tb1, "tb2": tb2}
    events = await ingest_all(any_store, *(games[name] for name in order.split(", ")))
    expected = replay_records(events)
    for match in ("g1", "g1/tb1", "g1/tb2"):
        assert dumps(await stored_record(any_store, match)) == dumps(expected[match]), match
    for match in ("g1", "g1/tb1"):
        rec = await stored_record(any_store, match)
        assert (rec["status"], rec["result"]["reason"], rec["result"]["playoff"]) == (
            "finished",
            "playoff",
            "g1/tb2",
        )
    assert await any_store.matches(status="awaiting_playoff") == []
    assert await any_store.matches(status="finished") == ["g1", "g1/tb1", "g1/tb2"]


async def test_a_stub_is_withdrawn_when_a_game_loss_decides_the_drawn_game(any_store: Store) -> None:
    """Issue 32 item 11: a judge's game loss decides a drawn game that waits for its playoff; the playoff's
    stub stayed, served as in progress (and check found a record no playoff announces)."""
    parent = drawn_game("g1", "kr-1.0", context={"league": "L1"})
    core = IngestCore(any_store, signing_key=b"k", key_id="k1")
    for e in parent.events:
        await core.ingest(e)
    assert (await stored_record(any_store, "g1/tb1"))["stub"] is True
    assert await any_store.matches(status="in_progress") == ["g1/tb1"]
    loss = parent.add("penalty", player="misty", kind="game_loss", reason="unsporting conduct")
    assert (await core.ingest(loss)).status == "applied"
    root = await stored_record(any_store, "g1")
    assert (root["status"], root["result"]["winner"], root["result"]["reason"]) == (
        "finished",
        "ash",
        "penalty",
    )
    assert await any_store.record("g1/tb1") is None
    assert await any_store.index_entry("g1/tb1") is None
    assert await any_store.matches() == ["g1"] and await any_store.matches(status="in_progress") == []
    # a restarted owner rebuilds both without an alarm; the same penalty again is a duplicate
    fresh = IngestCore(any_store, signing_key=b"k", key_id="k1")
    assert await fresh.rebuild("g1") is not None
    assert (await fresh.ingest(loss)).status == "duplicate"
    assert await any_store.alarms() == {}
    # the game loss voided on appeal: the game awaits its playoff again, and its stub is back
    void = parent.add("correction", target=loss["seq"], action="void")
    assert (await fresh.ingest(void)).status == "applied"
    assert (await stored_record(any_store, "g1"))["status"] == "awaiting_playoff"
    assert (await stored_record(any_store, "g1/tb1"))["stub"] is True
    assert await any_store.matches(status="in_progress") == ["g1/tb1"]
    assert await any_store.alarms() == {}


async def test_a_parents_owner_never_overwrites_the_settlement_of_its_playoff(any_store: Store) -> None:
    # Issue 10 item 7, the Kafka two-worker flake, reproduced deterministically: the parent's owner builds
    # its record while the playoff is unfinished; the playoff's owner finishes it and settles the parent;
    # then the parent's owner writes. Without the write fence the parent stays awaiting_playoff forever.
    parent = drawn_game("g1", "kr-1.0")
    child = sudden_death("g1/tb1", decided=True)
    parent.add("note", text="scoresheet signed")  # an event for the parent after its draw
    owner = IngestCore(any_store)
    for e in parent.events[:-1]:
        await owner.ingest(e)
    for e in child.events[:-1]:
        await IngestCore(any_store).ingest(e)
    paused = Paused(any_store, "g1")
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
