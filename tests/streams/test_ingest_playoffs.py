"""Playoff games through the ingest core, against both stores: what the store holds for a parent and its
playoff games is, byte for byte, what the offline replay of the same events gives (docs/rules.md §6)."""

from __future__ import annotations

from typing import Any

import pytest

from replay import replay_records
from replay.engine.record import dumps
from streams.ingest import IngestCore, unpack_record
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
