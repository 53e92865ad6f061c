"""Time called: Play! Pokémon's procedure by date and Japan's 終了コール, Swiss and single elimination, the
extension and its playoff [docs/rules.md §6 "Time called", §6.1] (replay/engine/penalties.py, judgment.py).
"""

from __future__ import annotations

import pytest

from replay import link_records
from tests.builder import Stream, card
from tests.engine.games import AFTER_TB, BEFORE_TB, basic, drawn_extension, end, jp, result_of


def test_time_called_in_swiss_is_a_tie_after_the_extra_turns() -> None:
    s = basic(context={"stage": "swiss"}, at="2026-03-01T10:00:00Z")
    s.turn("ash")
    s.add("time_called", at="2026-03-01T10:50:00Z")
    s.add("turn_ended", player="ash")  # turn 0
    for p in ("misty", "ash", "misty"):  # + 3 turns
        s.turn(p)
        s.add("turn_ended", player=p)
    assert s.record()["result"] is None
    s.add("turn_started", player="ash")
    r = s.record()
    assert (r["result"]["outcome"], r["result"]["reason"]) == ("draw", "time")


def test_time_in_single_elimination_goes_to_fewest_prizes_remaining() -> None:
    s = basic(context={"stage": "single_elimination"}, at="2025-10-01T10:00:00Z")  # +1 turn era
    s.turn("ash")
    s.add("damage", pid="m2", amount=90)
    s.add("time_called")
    s.add("turn_ended", player="ash")
    s.turn("misty")
    s.add("turn_ended", player="misty")
    s.add("turn_started", player="ash")
    r = s.record()
    assert (r["result"]["winner"], r["result"]["reason"]) == ("ash", "time")


def test_play_on_after_time_is_decided_by_prizes_remaining_not_taken() -> None:
    # TTH §7.4.4: level on prizes remaining when time runs out, so play on until someone leads.
    s = basic(context={"stage": "single_elimination"}, at="2025-10-01T10:00:00Z")  # +1 turn era
    s.turn("ash")
    s.add("damage", pid="a2", amount=200)  # ash's Raichu ex: misty takes 2 (remaining 4)
    s.add("penalty", player="misty", kind="double_prize")  # ash needs 4 (remaining 4)
    s.add("time_called")
    s.add("turn_ended", player="ash")
    s.turn("misty")
    s.add("turn_ended", player="misty")
    s.turn("ash")  # time is over, level 4-4: play on
    assert s.record()["result"] is None
    s.add("damage", pid="m2", amount=90)  # ash takes 1: remaining ash 3, misty 4; taken ash 1, misty 2
    r = s.record()
    assert (r["result"]["winner"], r["result"]["reason"]) == ("ash", "time")


def test_time_in_the_first_players_turn_gives_the_second_player_one_more_turn() -> None:
    s = jp(context={"stage": "swiss"}, at=AFTER_TB)
    s.turn("ash")
    s.add("time_called")
    end(s, "ash")
    s.turn("misty")  # the one more turn
    assert s.record()["result"] is None
    s.attack("misty", "m1", ("a1", 60), claims=("a1",))  # misty takes 1
    s.add("promoted", player="ash", pid="a2")
    end(s, "misty")  # time is over when this turn ends, before its checkup
    assert result_of(s) == ("win", "misty", "time", len(s.events))


def test_time_in_the_second_players_turn_ends_with_that_turn() -> None:
    s = jp(context={"stage": "swiss"}, at=AFTER_TB)
    s.turn("ash")
    s.attack("ash", "a1", ("m1", 50), claims=("m1",))
    s.add("promoted", player="misty", pid="m2")
    end(s, "ash")
    s.turn("misty")
    s.add("time_called")
    end(s, "misty")  # no more turns: ash leads 5 to 6
    assert result_of(s) == ("win", "ash", "time", len(s.events))


@pytest.mark.parametrize(("called_after", "turns_then"), [("ash", ["misty"]), ("misty", ["ash", "misty"])])
def test_time_called_between_turns_counts_the_next_turn_as_the_turn_of_the_call(
    called_after: str, turns_then: list[str]
) -> None:
    # [head judge's reading, docs/rules.md §6.1] between turns the next turn is the turn of the call: after
    # ash's (first) turn, misty's is the last; after misty's, ash plays and misty gets one more
    s = jp(context={"stage": "swiss"}, at=AFTER_TB)
    s.turn("ash")
    s.attack("ash", "a1", ("m1", 50), claims=("m1",))  # ash leads 5 to 6
    s.add("promoted", player="misty", pid="m2")
    end(s, "ash")
    if called_after == "misty":
        s.turn("misty")
        end(s, "misty")
    s.add("time_called")
    for p in turns_then:
        assert s.record()["result"] is None
        s.turn(p)
        end(s, p)
    assert result_of(s) == ("win", "ash", "time", len(s.events))


def test_the_checkup_after_the_last_turn_is_not_played() -> None:
    s = jp(context={"stage": "swiss"}, at=AFTER_TB)
    s.turn("ash")
    end(s, "ash")
    s.turn("misty")
    s.add("time_called")
    s.add("condition", pid="a1", condition="poisoned", on=True)
    end(s, "misty")  # level 6-6: the extension starts here, not after a checkup
    r = s.record()
    assert r["result"] is None and r["status"] == "in_progress"


def test_level_prizes_go_to_the_extension_won_by_the_first_lead() -> None:
    s = jp(context={"stage": "swiss"}, at=AFTER_TB)
    s.turn("ash")
    s.add("time_called")
    end(s, "ash")
    s.turn("misty")
    end(s, "misty")  # 6-6: 延長戦
    assert s.record()["result"] is None
    s.turn("ash")
    s.attack("ash", "a1", ("m1", 50), claims=("m1",))  # the first lead decides
    assert result_of(s) == ("win", "ash", "time", len(s.events))


@pytest.mark.parametrize(
    ("at", "kind", "prizes"),
    [(BEFORE_TB, "sudden_death", 1), (AFTER_TB, "tiebreak", 6)],
)
def test_a_drawn_extension_goes_to_its_playoff_linked_as_a_child(at: str, kind: str, prizes: int) -> None:
    s = drawn_extension(at)
    r = s.record()
    assert r["status"] == "awaiting_playoff" and r["result"]["outcome"] == "draw"
    assert r["playoff"] == {"kind": kind, "prizes": prizes, "child": "g1/tb1"}
    # the child names its parent and its kind; it takes that playoff's prizes and is won by the first lead
    c = Stream("g1/tb1", ruleset="jp-3.4", parent="g1", playoff=kind, first="misty", at=at)
    c.setup("ash", ("a1", card("Pikachu", 60)), ("a2", card("Pichu", 30)))
    c.setup("misty", ("m1", card("Staryu", 50)), ("m2", card("Starmie", 90)))
    assert c.record()["prizes"]["ash"]["remaining"] == prizes
    c.turn("misty")
    c.attack("misty", "m1", ("a1", 60), claims=("a1",))
    child = c.record()
    assert (child["result"]["winner"], child["result"]["reason"]) == ("misty", "prizes")
    settled = link_records({"g1": r, "g1/tb1": child})["g1"]
    assert (settled["status"], settled["result"]["winner"], settled["result"]["reason"]) == (
        "finished",
        "misty",
        "playoff",
    )


def test_a_drawn_sudden_death_of_the_extension_is_followed_by_another() -> None:
    c = Stream("g1/tb1", ruleset="jp-3.4", parent="g1", playoff="sudden_death", first="misty", at=BEFORE_TB)
    c.setup("ash", ("a1", card("Pikachu", 60)))
    c.setup("misty", ("m1", card("Staryu", 50)))
    c.turn("misty")
    end(c, "misty")
    c.add("checkup_started")
    c.add("damage", pid="a1", amount=60)
    c.add("damage", pid="m1", amount=50)
    c.add("checkup_ended")
    r = c.record()
    assert r["status"] == "awaiting_playoff"
    assert r["playoff"] == {"kind": "sudden_death", "prizes": 1, "child": "g1/tb2"}


@pytest.mark.parametrize(("knocked", "result"), [(0, None), (1, ("win", "ash", "time"))])
def test_game_2_is_decided_by_a_lead_only_with_2_or_fewer_prizes_left(
    knocked: int, result: tuple[str, str, str] | None
) -> None:
    # 3 prizes each: a knockout leaves ash 2 to take (a lead that decides game 2); none leaves 3-3
    s = jp(context={"stage": "swiss", "game": 2}, at=AFTER_TB, prizes=3)
    s.turn("ash")
    if knocked:
        s.attack("ash", "a1", ("m1", 50), claims=("m1",))
        s.add("promoted", player="misty", pid="m2")
    s.add("time_called")
    end(s, "ash")
    s.turn("misty")
    end(s, "misty")
    r = s.record()
    if result is None:
        # both have 3 left: the game is left undecided, no playoff; the match goes to game 1's winner
        assert (r["result"]["outcome"], r["result"]["reason"], r["status"]) == ("draw", "time", "finished")
        assert r["playoff"] is None and "game 1's winner" in r["result"]["detail"]
    else:
        assert (r["result"]["outcome"], r["result"]["winner"], r["result"]["reason"]) == result


def test_game_2_level_with_2_or_fewer_left_goes_to_the_extension() -> None:
    s = jp(context={"stage": "swiss", "game": 2}, at=AFTER_TB, prizes=2)
    s.turn("ash")
    s.add("time_called")
    end(s, "ash")
    s.turn("misty")
    end(s, "misty")
    assert s.record()["result"] is None  # 2-2: play on


@pytest.mark.parametrize("ruleset", ["kr-1.0", "play-2026"])
def test_korea_and_play_pokemon_keep_turn_zero_plus_three_and_the_swiss_tie(ruleset: str) -> None:
    s = Stream(ruleset=ruleset, context={"stage": "swiss"}, at="2026-03-01T10:00:00Z")
    s.setup("ash", ("a1", card("Pikachu", 60)))
    s.setup("misty", ("m1", card("Staryu", 50)))
    s.turn("ash")
    s.add("time_called")
    end(s, "ash")  # turn 0
    for p in ("misty", "ash", "misty"):  # + 3 turns
        s.turn(p)
        end(s, p)
    assert s.record()["result"] is None
    s.add("turn_started", player="ash")
    assert result_of(s)[:3] == ("draw", None, "time")
