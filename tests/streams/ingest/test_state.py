"""The ingest core's shared state (streams/ingest/state.py): the per-event answer the HTTP API gives, and
which playoff family a match belongs to (the unit the core decides one match after the other), and
``both``, the two store steps of a write at once."""

from __future__ import annotations

import asyncio

import pytest

from streams.ingest import Outcome
from streams.ingest.state import both, family_of


def test_an_outcome_answers_only_what_it_knows() -> None:
    # docs/http-api.md, "POST /events": status, match and seq always; reason, field and applied when set
    assert Outcome("duplicate", "m1", 3).as_json() == {"status": "duplicate", "match": "m1", "seq": 3}
    rejected = Outcome("rejected", "m1", 4, "match m1 seq 4: not applied", field="seq")
    assert rejected.as_json() == {
        "status": "rejected",
        "match": "m1",
        "seq": 4,
        "reason": "match m1 seq 4: not applied",
        "field": "seq",
    }
    applied = Outcome("applied", "m1", 5, applied=[5, 6, 7])
    assert applied.as_json()["applied"] == [5, 6, 7]
    assert applied.as_json()["applied"] is not applied.applied  # the answer is a copy


def test_a_playoff_game_is_in_its_root_games_family() -> None:
    assert family_of("g1") == "g1"
    assert family_of("g1/tb1") == "g1"
    assert family_of("league/r1/g1/tb12") == "league/r1/g1"
    assert family_of("g1/tbx") == "g1/tbx"  # not a playoff game's name: its own family


async def test_both_runs_the_two_steps_at_once_and_gives_their_results() -> None:
    # what the ownership check reads (owners, records) comes back in the order asked
    order: list[str] = []

    async def step(name: str, value: int) -> int:
        order.append(f"{name} starts")
        await asyncio.sleep(0.01)
        order.append(f"{name} ends")
        return value

    assert await both(step("first", 1), step("second", 2)) == (1, 2)
    # at once: the second starts before the first ends (their commands share round trips), and the
    # first starts first, as asyncio.gather started them
    assert order[:2] == ["first starts", "second starts"]


async def test_both_raises_only_once_both_steps_have_finished() -> None:
    # nothing is still writing behind a retry: the first's error comes after the second is done, and is
    # the one raised (as gather gave it) when both fail
    done: list[str] = []

    async def fails(why: str, after: float) -> None:
        await asyncio.sleep(after)
        done.append(why)
        raise ValueError(why)

    async def slow() -> None:
        await asyncio.sleep(0.05)
        done.append("slow")

    with pytest.raises(ValueError, match="first"):
        await both(fails("first", 0), slow())
    assert done == ["first", "slow"]
    done.clear()
    with pytest.raises(ValueError, match="first"):
        await both(fails("first", 0.02), fails("second", 0))
    assert done == ["second", "first"]
    with pytest.raises(ValueError, match="second"):
        await both(slow(), fails("second", 0))


async def test_a_cancelled_both_cancels_both_steps() -> None:
    ended: list[str] = []

    async def waits(name: str) -> None:
        try:
            await asyncio.sleep(10)
        except asyncio.CancelledError:
            ended.append(name)
            raise

    task = asyncio.create_task(both(waits("first"), waits("second")))
    await asyncio.sleep(0.01)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    await asyncio.sleep(0)
    assert sorted(ended) == ["first", "second"]
