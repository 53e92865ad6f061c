"""Playoff games through the ingest core, against both stores: what the store holds for a parent and its
playoff games is, byte for byte, what the offline replay of the same events gives (docs/rules.md §6)."""

from __future__ import annotations

from typing import Any

import pytest

from replay import replay_records
from replay.engine.record import dumps
from replay.records import unpack_record
from streams.ingest import IngestCore
from streams.store import Store
from tests.builder import Stream, drawn_game, sudden_death

playoff = sudden_death


async def stored(store: Store, match: str) -> dict[str, Any]:
    record = unpack_record(await store.record(match))
    assert record is not None, f"no record for {match}"
    return record


async def ingest_all(store: Store, *streams: Stream) -> list[dict[str, Any]]:
    events = [e for s in streams for e in s.events]
    cores = {s.match: IngestCore(store) for s in streams}  # a different owner for each game
    for s in streams:
        for e in s.events:
            await cores[s.match].ingest(e)
    return events


async def test_a_child_without_the_playoff_field_settles_its_parent(any_store: Store) -> None:
    parent = drawn_game("g1", "kr-1.0", context={"league": "L1"})
    child = playoff("g1/tb1", decided=True)
    assert "playoff" not in child.events[0]
    events = await ingest_all(any_store, parent, child)
    expected = replay_records(events)
    for match in ("g1", "g1/tb1"):
        assert dumps(await stored(any_store, match)) == dumps(expected[match]), match
    root = await stored(any_store, "g1")
    assert (root["status"], root["result"]["winner"], root["result"]["reason"]) == (
        "finished",
        "ash",
        "playoff",
    )
    assert (await stored(any_store, "g1/tb1"))["playoff_of"] == {"kind": "sudden_death", "parent": "g1"}
    assert await any_store.matches(status="finished") == ["g1", "g1/tb1"]


def _family() -> tuple[Stream, Stream, Stream]:
    parent = drawn_game("g1", "kr-1.0", context={"league": "L1"})
    return parent, playoff("g1/tb1", decided=False, playoff="sudden_death"), playoff("g1/tb2", decided=True)


@pytest.mark.parametrize(
    "order", ["parent, tb1, tb2", "parent, tb2, tb1", "tb1, tb2, parent", "tb2, tb1, parent"]
)
async def test_a_drawn_playoff_is_settled_in_the_store_with_its_parent(any_store: Store, order: str) -> None:
    """/tb1 drawn, /tb2 decided: the stored /tb1 and root are both settled (in whatever order the games
    arrive), byte for byte as the offline replay settles them."""
    parent, tb1, tb2 = _family()
    games = {"parent": parent, "tb1": tb1, "tb2": tb2}
    events = await ingest_all(any_store, *(games[name] for name in order.split(", ")))
    expected = replay_records(events)
    for match in ("g1", "g1/tb1", "g1/tb2"):
        assert dumps(await stored(any_store, match)) == dumps(expected[match]), match
    for match in ("g1", "g1/tb1"):
        rec = await stored(any_store, match)
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
    assert (await stored(any_store, "g1/tb1"))["stub"] is True
    assert await any_store.matches(status="in_progress") == ["g1/tb1"]
    loss = parent.add("penalty", player="misty", kind="game_loss", reason="unsporting conduct")
    assert (await core.ingest(loss)).status == "applied"
    root = await stored(any_store, "g1")
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
    assert (await stored(any_store, "g1"))["status"] == "awaiting_playoff"
    assert (await stored(any_store, "g1/tb1"))["stub"] is True
    assert await any_store.matches(status="in_progress") == ["g1/tb1"]
    assert await any_store.alarms() == {}
