"""The rulings of issue 9 §1, each against the rule it implements (docs/rules.md)."""

from __future__ import annotations

from typing import Any

import pytest

from replay import link_records, replay_events
from tests.builder import Stream, card, codes, drawn_game

# ---------------------------------------------------------------- helpers


def playoff_game(ruleset: str, *, match: str = "g1/tb1", parent: str = "g1", **started: Any) -> Stream:
    """A playoff game of ``parent``: ash and misty each with an Active and a Benched Pokémon of 30 HP."""
    s = Stream(match, ruleset=ruleset, parent=parent, first="misty", **started)
    s.setup("ash", ("a1", card("Pikachu", 30)), ("a2", card("Pichu", 30)))
    s.setup("misty", ("m1", card("Staryu", 30)), ("m2", card("Starmie", 30)))
    return s


def result_of(s: Stream) -> tuple[Any, ...]:
    res = s.record()["result"]
    return (res["outcome"], res["winner"], res["reason"], res["decided_at"]) if res else ()


# ---------------------------------------------------------------- 1. a lead made by a prize penalty
# docs/rules.md §6: where fewer prizes remaining wins, the lead a Double/Quadruple Prize Card penalty
# makes is judged when the penalty is given (what each player still needs: needed - taken).


@pytest.mark.parametrize(
    ("ruleset", "kind"),
    [("jp-3.4", "tiebreak"), ("play-2026", "tiebreaker_game"), ("kr-1.0", "sudden_death")],
)
def test_a_prize_penalty_in_a_playoff_decides_it_when_given(ruleset: str, kind: str) -> None:
    # kr-1.0's sudden death is won by the first prize; with 3 prizes (an explicit count) a penalty is the
    # first lead too.
    s = playoff_game(ruleset, playoff=kind, prizes=3)
    s.turn("misty")
    s.add("penalty", player="ash", kind="double_prize", reason="marked cards")  # misty needs 1 (ash 3)
    decided = len(s.events)
    assert result_of(s) == ("win", "misty", "penalty", decided)
    assert s.record()["result"]["detail"].startswith(f"double_prize: {kind}")
    # a knockout by ash afterwards changes nothing (it used to decide the game there, for misty)
    s.add("turn_ended", player="misty")
    s.turn("ash")
    s.attack("ash", "a1", ("m1", 30), claims=("m1",))
    assert result_of(s) == ("win", "misty", "penalty", decided)


def test_a_prize_penalty_after_time_ran_out_level_decides_single_elimination() -> None:
    s = Stream(context={"stage": "single_elimination"}, at="2025-10-01T10:00:00Z")  # +1 turn era
    s.setup("ash", ("a1", card("Pikachu", 60)), ("a2", card("Raichu", 120)))
    s.setup("misty", ("m1", card("Staryu", 50)), ("m2", card("Starmie", 90)))
    s.turn("ash")
    s.add("time_called")
    s.add("turn_ended", player="ash")
    s.turn("misty")
    s.add("turn_ended", player="misty")
    s.turn("ash")  # time is over, level 6-6: play on until someone leads
    assert s.record()["result"] is None
    s.add("penalty", player="misty", kind="quad_prize")  # ash needs 2, misty 6
    assert result_of(s) == ("win", "ash", "penalty", len(s.events))


def test_a_prize_penalty_where_no_lead_wins_only_lowers_what_is_needed() -> None:
    s = Stream(context={"stage": "single_elimination"})
    s.setup("ash", ("a1", card("Pikachu", 60)))
    s.setup("misty", ("m1", card("Staryu", 50)))
    s.turn("ash")
    s.add("penalty", player="misty", kind="double_prize")  # no lead rule: the game goes on
    s.add("time_called")  # ... and during the turns after time is called, too
    s.add("penalty", player="misty", kind="double_prize")
    r = s.record()
    assert r["result"] is None and r["prizes"]["ash"]["needed"] == 2


# ---------------------------------------------------------------- 2. a game that names its parent
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


# ---------------------------------------------------------------- 3. time running out in a playoff
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


# ---------------------------------------------------------------- 4. a Pokémon removed during an attack
# docs/rules.md §2, §4: judged at the end of the attack, with the attack's knockouts.


def _removal_then_recoil(recoil: int) -> Stream:
    s = Stream(first="misty")
    s.setup("ash", ("a1", card("Pikachu", 60)))
    s.setup("misty", ("m1", card("Staryu", 50)))
    s.turn("misty")
    s.add("turn_ended", player="misty")
    s.turn("ash")
    s.add("attack", player="ash", pid="a1", name="Shuffle Out")
    s.add("removed", player="misty", pid="m1", to="deck")  # misty has nothing left in play
    if recoil:
        s.add("damage", pid="a1", amount=recoil)  # recoil later in the same attack
    s.add("attack_ended")
    return s


def test_removal_and_recoil_in_one_attack_is_a_simultaneous_draw() -> None:
    s = _removal_then_recoil(60)
    r = s.record()
    assert result_of(s) == ("draw", None, "simultaneous", len(s.events))
    assert r["result"]["conditions"] == {"ash": ["no_active_opponent"], "misty": ["no_active_opponent"]}
    assert [k["pid"] for k in r["knockouts"]] == ["a1"]


def test_removal_during_an_attack_is_judged_when_the_attack_ends() -> None:
    s = _removal_then_recoil(0)
    assert result_of(s) == ("win", "ash", "no_pokemon", len(s.events))


def test_removal_during_a_checkup_is_judged_with_the_checkup_knockouts() -> None:
    s = Stream()
    s.setup("ash", ("a1", card("Pikachu", 60)))
    s.setup("misty", ("m1", card("Staryu", 50)))
    s.turn("ash")
    s.add("turn_ended", player="ash")
    s.add("checkup_started")
    s.add("removed", player="misty", pid="m1", to="lost_zone")  # a checkup-time effect
    s.add("damage", pid="a1", amount=60)  # Poison, in the same checkup
    s.add("checkup_ended")
    assert result_of(s) == ("draw", None, "simultaneous", len(s.events))


def test_removal_outside_the_windows_is_judged_at_once() -> None:
    s = Stream()
    s.setup("ash", ("a1", card("Pikachu", 60)))
    s.setup("misty", ("m1", card("Staryu", 50)))
    s.turn("ash")
    s.add("removed", player="misty", pid="m1", to="hand")
    assert result_of(s) == ("win", "ash", "no_pokemon", len(s.events))


# ---------------------------------------------------------------- 5. prizes claimed one card at a time
# docs/rules.md §3 step 4: a player takes prizes one card at a time; one claim may be sent per card.


def _ex_knockout(claims_in_window: bool = False) -> Stream:
    s = Stream(first="misty")
    s.setup("ash", ("a1", card("Pikachu ex", 60, "ex")), ("a2", card("Pichu", 30)))
    s.setup("misty", ("m1", card("Staryu", 50)), ("m2", card("Starmie", 90)))
    s.turn("misty")
    s.add("turn_ended", player="misty")
    s.turn("ash")
    s.add("turn_ended", player="ash")
    s.turn("misty")
    s.add("attack", player="misty", pid="m1", name="Water Gun")
    s.add("damage", pid="a1", amount=60)
    s.add("knocked_out", pid="a1")
    if claims_in_window:
        s.add("prize_taken", player="misty", count=1)
        s.add("prize_taken", player="misty", count=1)
    s.add("attack_ended")
    return s


@pytest.mark.parametrize("in_window", [False, True])
def test_prizes_claimed_one_card_at_a_time_are_one_claim(in_window: bool) -> None:
    s = _ex_knockout(in_window)
    if not in_window:
        s.add("prize_taken", player="misty", count=1)
        s.add("prize_taken", player="misty", count=1)
    s.add("promoted", player="ash", pid="a2")
    s.add("turn_ended", player="misty")
    s.turn("ash")
    r = s.record()
    assert r["prizes"]["misty"]["taken"] == 2
    assert not {"prize_count_mismatch", "prize_without_ko"} & set(codes(r)), r["findings"]


def test_a_claim_that_stops_short_is_still_a_mismatch() -> None:
    s = _ex_knockout()
    s.add("prize_taken", player="misty", count=1)
    claim = len(s.events)
    s.add("promoted", player="ash", pid="a2")
    s.add("turn_ended", player="misty")  # the claim is over: 1 of 2
    found = [f for f in s.record()["findings"] if f["code"] == "prize_count_mismatch"]
    assert [(f["seq"], f["message"]) for f in found] == [
        (claim, "misty took 1 prize(s); the knockouts give 2")
    ]


def test_a_claim_beyond_the_knockouts_is_still_found() -> None:
    s = _ex_knockout()
    s.add("prize_taken", player="misty", count=1)
    s.add("prize_taken", player="misty", count=1)
    s.add("prize_taken", player="misty", count=1)  # one more than the knockout gives
    assert codes(s.record()) == ["prize_without_ko"]
    s = _ex_knockout()
    s.add("prize_taken", player="misty", count=1)
    s.add("prize_taken", player="misty", count=2)
    found = [f["message"] for f in s.record()["findings"]]
    assert found == ["misty took 3 prize(s); the knockouts give 2"]


# ---------------------------------------------------------------- 6. what a knockout was worth and gave
# docs/rules.md §3: never more prizes than remain.


def test_knockouts_tell_their_worth_and_the_prizes_they_gave() -> None:
    s = Stream(first="misty", prizes=2)
    s.setup(
        "ash", ("a1", card("Pikachu ex", 60, "ex")), ("a2", card("Raichu", 60)), ("a3", card("Pichu", 30))
    )
    s.setup("misty", ("m1", card("Staryu", 50)), ("m2", card("Starmie", 90)))
    s.turn("misty")
    s.add("damage", pid="a3", amount=30)  # an effect: misty takes 1 of her 2 prizes
    s.add("knocked_out", pid="a3")
    s.add("turn_ended", player="misty")
    s.turn("ash")
    s.add("turn_ended", player="ash")
    s.turn("misty")
    s.attack("misty", "m1", ("a1", 60), ("a2", 60), claims=("a1", "a2"))  # worth 2 + 1, 1 prize left
    kos = [(k["pid"], k["prizes"], k["prizes_taken"]) for k in s.record()["knockouts"]]
    assert kos == [("a3", 1, 1), ("a1", 2, 1), ("a2", 1, 0)]
    assert s.record()["prizes"]["misty"] == {"taken": 2, "needed": 2, "remaining": 0}


# ---------------------------------------------------------------- 7. a drawn playoff settled by the next
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
