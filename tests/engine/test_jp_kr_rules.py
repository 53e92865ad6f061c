"""Japan's and Korea's own procedures (issue 34 items 2-3), each branch against the text it implements
(docs/rules.md §6: the JP floor rules of 2023-04-01, the JP 終了コール procedure, 両者敗北).

Every game here: ash goes first; ash and misty each have an Active of 60/50 HP and a Benched Pokémon.
"""

from __future__ import annotations

from typing import Any

import pytest

from replay import link_records
from tests.builder import Stream, card, codes

AFTER_TB = "2025-10-01T10:00:00Z"  # JP3.4's タイブレーク in force (since 2025-08-01)
BEFORE_TB = "2025-03-01T10:00:00Z"  # the サドンデス of the 終了コール procedure


def jp(**started: Any) -> Stream:
    s = Stream(ruleset="jp-3.4", **started)
    s.setup("ash", ("a1", card("Pikachu", 60)), ("a2", card("Raichu", 120)))
    s.setup("misty", ("m1", card("Staryu", 50)), ("m2", card("Starmie", 90)))
    return s


def result_of(s: Stream) -> tuple[Any, ...]:
    res = s.record()["result"]
    return (res["outcome"], res["winner"], res["reason"], res["decided_at"]) if res else ()


def end(s: Stream, player: str) -> None:
    s.add("turn_ended", player=player)


# ---------------------------------------------------------------- prize penalties [JP floor rules §11 ③]
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


# ---------------------------------------------------------------- 両者敗北: a loss for both
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


# ---------------------------------------------------------------- 終了コール [JP; info/003646, info/004650]
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


def drawn_extension(at: str) -> Stream:
    """Time called level; in the extension both Actives are knocked out at one checkup with one prize
    left each: the simultaneous table's draw [JP3.4 §I-E]."""
    s = jp(match="g1", context={"stage": "swiss"}, at=at, prizes=1)
    s.turn("ash")
    s.add("time_called")
    end(s, "ash")
    s.turn("misty")
    end(s, "misty")  # 1-1: the extension
    s.add("checkup_started")
    s.add("damage", pid="a1", amount=60)
    s.add("damage", pid="m1", amount=50)
    s.add("checkup_ended")
    return s


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


# ---------------------------------------------------------------- Korea and Play! Pokémon: unchanged
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


# ---------------------------------------------------------------- the contract holds them
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
