"""Penalties that change results: prize penalties (Play! Pokémon's sizes and Japan's サイドペナルティ of the
judge's count), Game Losses to both, 両者敗北 [docs/rules.md §6 "Penalties that change results", §6.1]
(replay/engine/penalties.py, judgment.py).
"""

from __future__ import annotations

import pytest

from tests.builder import Stream, card, codes
from tests.engine.games import AFTER_TB, BEFORE_TB, basic, drawn_extension, end, jp, playoff_game, result_of


def test_double_prize_penalty_lowers_what_the_opponent_needs_and_wins_at_once() -> None:
    s = basic()
    s.turn("ash")
    s.add("played", player="ash", pid="a3", card=card("Mew ex", 10, "ex"), to="bench")
    s.add("played", player="ash", pid="a4", card=card("Mew ex", 10, "ex"), to="bench")
    s.add("damage", pid="a3", amount=10)
    s.add("turn_ended", player="ash")
    s.add("damage", pid="a4", amount=10)
    s.add("turn_started", player="misty")
    assert s.record()["prizes"]["misty"]["taken"] == 4
    s.add("penalty", player="ash", kind="double_prize", reason="slow play")
    r = s.record()
    assert r["prizes"]["misty"]["needed"] == 4
    assert (r["result"]["winner"], r["result"]["reason"]) == ("misty", "penalty")


def test_game_losses_to_both_players_at_once_is_no_winner() -> None:
    s = basic()
    s.turn("ash")
    s.add("penalty", player="ash", kind="game_loss")
    s.add("penalty", player="misty", kind="game_loss")
    r = s.record()
    assert r["result"]["outcome"] == "no_winner" and r["result"]["winner"] is None


# docs/rules.md §6 [PG §4]: Game Losses to both players at once mean no winner, right after a game too.
@pytest.mark.parametrize("first", ["ash", "misty"])
def test_game_losses_to_both_players_right_after_the_game_give_no_winner(first: str) -> None:
    s = Stream(prizes=1)
    s.setup("ash", ("a1", card("Pikachu", 60)))
    s.setup("misty", ("m1", card("Staryu", 50)), ("m2", card("Starmie", 90)))
    s.turn("ash")
    s.add("turn_ended", player="ash")
    s.turn("misty")
    s.attack("misty", "m1", ("a1", 60), claims=("a1",))  # misty takes her only prize: she wins
    assert result_of(s)[:3] == ("win", "misty", "prizes")
    second = "misty" if first == "ash" else "ash"
    s.add("penalty", player=first, kind="game_loss", reason="marked cards")
    s.add("penalty", player=second, kind="game_loss", reason="marked cards")
    r = s.record()
    assert result_of(s) == ("no_winner", None, "penalty", len(s.events))
    assert r["result"]["loser"] is None and r["status"] == "finished"
    overs = [o for o in s.game().timeline if o["type"] == "game_over"]
    assert overs[-1] == {
        "type": "game_over", "seq": len(s.events), "outcome": "no_winner", "winner": None, "reason": "penalty"
    }  # fmt: skip


def test_a_game_loss_right_after_a_drawn_game_and_one_to_the_other_player_give_no_winner() -> None:
    s = Stream(prizes=1)
    s.setup("ash", ("a1", card("Pikachu", 30)))
    s.setup("misty", ("m1", card("Staryu", 30)))
    s.turn("ash")
    s.add("turn_ended", player="ash")
    s.add("checkup_started")
    s.add("damage", pid="a1", amount=30)
    s.add("damage", pid="m1", amount=30)
    s.add("checkup_ended")  # a double knockout: a draw
    assert result_of(s)[:3] == ("draw", None, "simultaneous")
    s.add("penalty", player="ash", kind="game_loss")
    s.add("penalty", player="misty", kind="match_loss")
    assert result_of(s) == ("no_winner", None, "penalty", len(s.events))


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


@pytest.mark.parametrize("count", [1, 3, 5])
def test_a_jp_prize_penalty_of_the_judges_count_lowers_what_the_opponent_needs(count: int) -> None:
    s = jp()
    s.turn("ash")
    s.add("penalty", player="misty", kind="prize_penalty", prizes=count, reason="drew extra cards")
    r = s.record()
    assert r["prizes"]["ash"]["needed"] == 6 - count and r["prizes"]["ash"]["remaining"] == 6
    assert r["result"] is None and "penalty_prizes" not in codes(r)
    assert r["penalties"] == [
        {"seq": 6, "player": "misty", "kind": "prize_penalty", "reason": "drew extra cards", "prizes": count}
    ]


def test_a_prize_penalty_that_reaches_what_the_opponent_needs_wins_at_once() -> None:
    s = jp()
    s.turn("ash")
    s.attack("ash", "a1", ("m1", 50), claims=("m1",))  # ash takes 1
    s.add("penalty", player="misty", kind="prize_penalty", prizes=5)  # ash needs 1: has it
    r = s.record()
    assert result_of(s) == ("win", "ash", "penalty", len(s.events))
    assert r["result"]["detail"] == "prize_penalty 5"


def test_the_old_kinds_read_the_same_in_every_ruleset() -> None:
    for ruleset in ("jp-3.4", "kr-1.0", "play-2026"):
        s = Stream(ruleset=ruleset)
        s.setup("ash", ("a1", card("Pikachu", 60)))
        s.setup("misty", ("m1", card("Staryu", 50)))
        s.turn("ash")
        s.add("penalty", player="misty", kind="double_prize")
        s.add("penalty", player="ash", kind="quad_prize")
        r = s.record()
        assert (r["prizes"]["ash"]["needed"], r["prizes"]["misty"]["needed"]) == (4, 2), ruleset
        assert "prizes" not in r["penalties"][0]


def test_a_count_the_ruleset_does_not_give_is_applied_and_said() -> None:
    s = Stream()  # play-2026: 2 or 4 (PG §3)
    s.setup("ash", ("a1", card("Pikachu", 60)))
    s.setup("misty", ("m1", card("Staryu", 50)))
    s.turn("ash")
    s.add("penalty", player="misty", kind="prize_penalty", prizes=1)
    r = s.record()
    assert r["prizes"]["ash"]["needed"] == 5
    assert [f["message"] for f in r["findings"] if f["code"] == "penalty_prizes"] == [
        "a prize penalty of 1 prize(s) is not one play-2026 gives (2, 4); applied as given"
    ]


def test_a_prize_penalty_without_its_count_is_a_finding_not_a_guess() -> None:
    s = jp()
    s.turn("ash")
    s.add("penalty", player="misty", kind="prize_penalty")
    r = s.record()
    assert r["prizes"]["ash"]["needed"] == 6 and "penalty_prizes" in codes(r)


def test_a_double_loss_ends_the_game_with_no_winner() -> None:
    s = jp()
    s.turn("ash")
    s.add("penalty", player="ash", kind="double_loss", reason="the store closes")
    r = s.record()
    assert result_of(s) == ("no_winner", None, "double_loss", len(s.events))
    assert r["status"] == "finished" and r["result"]["loser"] is None


def test_a_double_loss_right_after_a_game_replaces_its_result() -> None:
    s = jp()
    s.turn("ash")
    s.add("conceded", player="misty")
    s.add("penalty", player="misty", kind="double_loss")
    assert result_of(s) == ("no_winner", None, "double_loss", len(s.events))


def test_an_event_that_says_so_makes_an_unfinished_game_a_double_loss_at_time() -> None:
    s = jp(context={"stage": "swiss", "time_result": "double_loss"}, at=AFTER_TB)
    s.turn("ash")
    s.attack("ash", "a1", ("m1", 50), claims=("m1",))  # ash leads: no matter, the event's rule
    s.add("promoted", player="misty", pid="m2")
    s.add("time_called")
    end(s, "ash")
    s.turn("misty")
    end(s, "misty")
    assert result_of(s) == ("no_winner", None, "double_loss", len(s.events))


def test_the_new_records_are_what_the_record_schema_says() -> None:
    import jsonschema

    from schemas import load_schema

    records = load_schema("record")
    a = jp()
    a.turn("ash")
    a.add("penalty", player="misty", kind="prize_penalty", prizes=3)
    a.add("penalty", player="ash", kind="double_loss")
    jsonschema.validate(a.record(), records)
    jsonschema.validate(drawn_extension(BEFORE_TB).record(), records)
