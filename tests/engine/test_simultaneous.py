"""Simultaneous results: every one of the 16 combinations of the JP3.4 §I-E table, from real events.

A: I (ash) took all the prizes I need; B: the opponent (misty) took all; C: I cannot put out an Active;
D: the opponent cannot. One checkup knockout batch produces exactly the combination.
"""

from __future__ import annotations

import pytest

from tests.builder import Stream, card

# The table as printed in docs/rules.md §4 (JP3.4), plus the five rows it leaves to the counting rule.
# (A, B, C, D) -> result for me (ash): "win" | "loss" | "draw" | None (game goes on).
TABLE = [
    ((1, 0, 1, 0), "draw"),
    ((0, 1, 0, 1), "draw"),
    ((1, 1, 1, 1), "draw"),
    ((1, 1, 0, 0), "draw"),
    ((0, 0, 1, 1), "draw"),
    ((1, 1, 0, 1), "win"),
    ((1, 0, 1, 1), "win"),
    ((1, 0, 0, 1), "win"),
    ((1, 1, 1, 0), "loss"),
    ((0, 1, 1, 1), "loss"),
    ((0, 1, 1, 0), "loss"),
    ((0, 0, 0, 0), None),
    ((1, 0, 0, 0), "win"),
    ((0, 0, 0, 1), "win"),
    ((0, 1, 0, 0), "loss"),
    ((0, 0, 1, 0), "loss"),
]


def test_table_has_all_16_combinations() -> None:
    assert sorted(row for row, _ in TABLE) == sorted(
        (a, b, c, d) for a in (0, 1) for b in (0, 1) for c in (0, 1) for d in (0, 1)
    )


def _stream(a: int, b: int, c: int, d: int) -> Stream:
    # Who is knocked out, what their Active is worth (1 prize = all that is needed, 0 = none), and whether
    # a Benched Pokémon is left to promote.
    my_ko, my_value, my_bench = bool(b or c), 1 if b else 0, not c
    opp_ko, opp_value, opp_bench = bool(a or d), 1 if a else 0, not d
    s = Stream(prizes=1)
    s.setup(
        "ash", ("a1", card("Pikachu", 30, prizes=my_value)), *([("a2", card("Eevee"))] if my_bench else [])
    )
    s.setup(
        "misty",
        ("m1", card("Staryu", 30, prizes=opp_value)),
        *([("m2", card("Psyduck"))] if opp_bench else []),
    )
    s.turn("ash")
    s.add("turn_ended", player="ash")
    s.add("checkup_started")
    if my_ko:
        s.add("damage", pid="a1", amount=30)
    if opp_ko:
        s.add("damage", pid="m1", amount=30)
    s.add("checkup_ended")
    return s


@pytest.mark.parametrize(("row", "expected"), TABLE, ids=[f"A{r[0]}B{r[1]}C{r[2]}D{r[3]}" for r, _ in TABLE])
def test_simultaneous_row(row: tuple[int, int, int, int], expected: str | None) -> None:
    s = _stream(*row)
    record = s.record()
    res = record["result"]
    a, b, c, d = row
    if expected is None:
        assert res is None and record["status"] == "in_progress"
        return
    assert res is not None
    assert res["decided_at"] == len(s.events)  # decided at checkup_ended, the knockout's judgment
    mine = res["conditions"]["ash"]
    theirs = res["conditions"]["misty"]
    assert ("prizes" in mine) == bool(a) and ("prizes" in theirs) == bool(b)
    assert ("no_active_opponent" in theirs) == bool(c) and ("no_active_opponent" in mine) == bool(d)
    if expected == "draw":
        assert res["outcome"] == "draw" and res["winner"] is None
        assert res["reason"] == "simultaneous"
    else:
        assert res["outcome"] == "win"
        assert res["winner"] == ("ash" if expected == "win" else "misty")


def test_draw_that_must_be_decided_awaits_playoff() -> None:
    s = _stream(1, 1, 0, 0)
    s.events[0]["must_decide"] = True
    record = s.record()
    assert record["status"] == "awaiting_playoff"
    assert record["playoff"] == {"kind": "tiebreaker_game", "prizes": 6, "child": "m1/tb1"}
    assert record["children"] == ["m1/tb1"]
