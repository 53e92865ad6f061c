"""Playoffs: sudden death and the six-prize playoffs, a game naming its parent, time in a playoff, settling a
drawn game by its chain of playoffs [docs/rules.md §6] (replay/engine/playoff.py, judgment.py).
"""

from __future__ import annotations

from typing import Any

import pytest

from replay import link_records, replay_events
from tests.builder import drawn_game
from tests.engine.games import child, drawn, playoff_game, result_of


def test_kr_sudden_death_first_prize_wins_and_a_drawn_one_is_followed_by_another() -> None:
    parent = drawn("kr-1.0")
    pr = parent.record()
    assert pr["status"] == "awaiting_playoff"
    assert pr["playoff"] == {"kind": "sudden_death", "prizes": 1, "child": "g1/tb1"}
    tb1 = child("kr-1.0", "g1/tb1", "g1", "sudden_death", 1)
    tb1.turn("misty")
    tb1.add("turn_ended", player="misty")
    tb1.add("checkup_started")
    tb1.add("damage", pid="a1", amount=30)
    tb1.add("damage", pid="m1", amount=30)
    tb1.add("checkup_ended")
    r1 = tb1.record()
    assert r1["status"] == "awaiting_playoff" and r1["playoff"]["child"] == "g1/tb2"
    tb2 = child("kr-1.0", "g1/tb2", "g1", "sudden_death", 1)
    tb2.turn("misty")
    tb2.add("turn_ended", player="misty")
    tb2.turn("ash")
    tb2.attack("ash", "a1", ("m1", 30), claims=("m1",))
    r2 = tb2.record()
    assert (r2["result"]["winner"], r2["result"]["reason"]) == ("ash", "prizes")
    games = replay_events(parent.events + tb1.events + tb2.events)
    linked = link_records({m: g.record() for m, g in games.items()})
    root = linked["g1"]
    assert root["status"] == "finished"
    assert (root["result"]["winner"], root["result"]["reason"]) == ("ash", "playoff")
    assert root["children"] == ["g1/tb1", "g1/tb2"]
    assert root["playoff"]["child"] == "g1/tb2"


@pytest.mark.parametrize(("ruleset", "kind"), [("jp-3.4", "tiebreak"), ("play-2026", "tiebreaker_game")])
def test_six_prize_playoff_is_won_by_the_first_prize_lead(ruleset: str, kind: str) -> None:
    parent = drawn(ruleset)
    assert parent.record()["playoff"] == {"kind": kind, "prizes": 6, "child": "g1/tb1"}
    tb = child(ruleset, "g1/tb1", "g1", kind, 6)
    tb.turn("misty")
    tb.add("turn_ended", player="misty")
    tb.turn("ash")
    tb.attack("ash", "a1", ("m1", 30), claims=("m1",))
    r = tb.record()
    assert (r["result"]["winner"], r["result"]["reason"]) == ("ash", "prizes")
    assert r["prizes"]["ash"]["taken"] == 1 and r["result"]["decided_at"] == len(tb.events)
    root = link_records({"g1": parent.record(), "g1/tb1": r})["g1"]
    assert (root["result"]["winner"], root["result"]["reason"], root["status"]) == (
        "ash",
        "playoff",
        "finished",
    )


def test_a_record_mid_effect_is_provisional_and_never_settles_a_parent() -> None:
    parent = drawn("play-2026")
    tb = child("play-2026", "g1/tb1", "g1", "tiebreaker_game", 6)
    tb.turn("misty")
    tb.add("damage", pid="m1", amount=30)  # an effect: the first of two simultaneous knockouts
    g = tb.game()
    early = g.record()
    assert early["provisional"] is True and early["result"]["winner"] == "ash"  # so far...
    assert g.effect_pending  # reading the record resolved a copy, not the game
    root = link_records({"g1": parent.record(), "g1/tb1": early})["g1"]
    assert root["status"] == "awaiting_playoff" and root["result"]["outcome"] == "draw"
    tb.add("damage", pid="a1", amount=30)  # ...the same effect knocks out ash's Active too: level again
    tb.add("turn_ended", player="misty")
    final = tb.record()
    assert final["provisional"] is False and final["result"] is None
    assert [k["batch"] for k in final["knockouts"]] == [1, 1]


# docs/rules.md §6: a game whose match_started names `parent` is a playoff game even without `playoff`.
@pytest.mark.parametrize(
    ("ruleset", "kind", "prizes"),
    [("kr-1.0", "sudden_death", 1), ("jp-3.4", "tiebreak", 6), ("play-2026", "tiebreaker_game", 6)],
)
def test_a_game_naming_its_parent_is_a_playoff_without_the_playoff_field(
    ruleset: str, kind: str, prizes: int
) -> None:
    parent = drawn_game("g1", ruleset)
    tb = playoff_game(ruleset)  # no "playoff" field
    assert "playoff" not in tb.events[0]
    assert tb.game().state.p["ash"].needed == prizes
    tb.turn("misty")
    tb.add("turn_ended", player="misty")
    tb.turn("ash")
    tb.attack("ash", "a1", ("m1", 30), claims=("m1",))  # the first prize: a lead, or all there is
    r = tb.record()
    assert result_of(tb) == ("win", "ash", "prizes", len(tb.events))
    assert r["playoff_of"] == {"kind": kind, "parent": "g1"}
    root = link_records({"g1": parent.record(), "g1/tb1": r})["g1"]
    assert (root["status"], root["result"]["winner"], root["result"]["reason"]) == (
        "finished",
        "ash",
        "playoff",
    )


# TTH §7.4.3.1: a tiebreaker decides its parent game; when its time runs out it stays unresolved until a
# player takes the lead. Whatever context.stage says (the contract's playoff example has none).
@pytest.mark.parametrize("context", [None, {"stage": "swiss"}, {"stage": "single_elimination"}])
@pytest.mark.parametrize("named", [True, False])
def test_time_running_out_in_a_tiebreaker_starts_no_second_one(context: Any, named: bool) -> None:
    started: dict[str, Any] = {"at": "2025-10-01T10:00:00Z"}  # +1 turn era
    if context is not None:
        started["context"] = context
    if named:
        started["playoff"] = "tiebreaker_game"
    s = playoff_game("play-2026", **started)
    s.turn("misty")
    s.add("time_called")
    s.add("turn_ended", player="misty")
    s.turn("ash")
    s.add("turn_ended", player="ash")
    s.turn("misty")  # time is over: no result, no playoff
    r = s.record()
    assert r["result"] is None and r["status"] == "in_progress" and r["playoff"] is None
    assert [o for o in s.game().timeline if o["type"] in ("game_over", "playoff_required")] == []
    s.attack("misty", "m1", ("a1", 30), claims=("a1",))  # the first prize decides it
    assert result_of(s) == ("win", "misty", "prizes", len(s.events))


# docs/rules.md §6: every drawn game above the deciding playoff takes its winner.
def test_a_drawn_playoff_is_settled_by_the_next_one_too() -> None:
    parent = drawn_game("g1", "kr-1.0")
    tb1 = drawn_game("g1/tb1", "kr-1.0", parent="g1", playoff="sudden_death")
    tb2 = playoff_game("kr-1.0", match="g1/tb2", playoff="sudden_death")
    tb2.turn("misty")
    tb2.attack("misty", "m1", ("a1", 30), claims=("a1",))
    games = replay_events(parent.events + tb1.events + tb2.events)
    linked = link_records({m: g.record() for m, g in games.items()})
    for match in ("g1", "g1/tb1"):
        rec = linked[match]
        assert (rec["status"], rec["result"]["winner"], rec["result"]["reason"]) == (
            "finished",
            "misty",
            "playoff",
        )
        assert rec["result"]["playoff"] == "g1/tb2" and rec["playoff"]["child"] == "g1/tb2"
        assert rec["result"]["drawn"]["reason"] == "simultaneous"
    assert linked["g1"]["children"] == ["g1/tb1", "g1/tb2"] and linked["g1/tb1"]["children"] == ["g1/tb2"]
    assert linked["g1/tb2"] == games["g1/tb2"].record()
    # while /tb2 is still being played, both wait for it
    early = link_records({m: g.record() for m, g in replay_events(parent.events + tb1.events).items()})
    assert early["g1/tb1"]["status"] == early["g1"]["status"] == "awaiting_playoff"


def test_records_settled_already_settle_the_same_way() -> None:
    """link_records over records some of which it settled before (what a store holds) gives the same."""
    parent = drawn_game("g1", "kr-1.0")
    tb1 = drawn_game("g1/tb1", "kr-1.0", parent="g1", playoff="sudden_death")
    tb2 = playoff_game("kr-1.0", match="g1/tb2", playoff="sudden_death")
    tb2.turn("misty")
    tb2.attack("misty", "m1", ("a1", 30), claims=("a1",))
    records = {m: g.record() for m, g in replay_events(parent.events + tb1.events + tb2.events).items()}
    linked = link_records(records)
    assert link_records(linked) == linked
    assert link_records({**records, "g1/tb1": linked["g1/tb1"]}) == linked
