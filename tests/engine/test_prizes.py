"""Prize cards: what a knockout is worth and gives, and prizes taken by a card effect [docs/rules.md §1.1, §3]
(replay/engine/batch.py, knockout.py, judgment.py).
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.builder import Stream, card, codes
from tests.engine.games import basic, result_of, two_sides


@pytest.mark.parametrize(
    ("c", "prizes"),
    [
        (card("Pikachu", 10), 1),
        (card("Raichu ex", 10, "ex"), 2),
        (card("Charizard VMAX", 10, "VMAX"), 3),
        (card("Mega Lucario ex", 10, "mega_ex"), 3),
        (card("Pikachu & Zekrom GX", 10, "tag_team"), 3),
        (card("Radiant Greninja", 10, "radiant"), 1),
        (card("Special", 10, "ex", prizes=1), 1),  # an explicit value wins over the kind
    ],
)
def test_prize_values_by_kind(c: dict[str, Any], prizes: int) -> None:
    s = basic()
    s.turn("ash")
    s.add("played", player="ash", pid="a9", card=c, to="bench")
    s.add("damage", pid="a9", amount=10)
    r = s.record()
    assert r["knockouts"][0]["prizes"] == prizes
    assert r["prizes"]["misty"]["taken"] == prizes


def test_prize_modifiers_never_go_below_zero_and_prizes_never_exceed_what_remains() -> None:
    s = basic(prizes=2)
    s.turn("ash")
    s.add("prize_modifier", pid="a1", delta=-1)
    s.add("prize_modifier", pid="a1", delta=-1)
    s.add("prize_modifier", pid="a2", delta=1)  # Briar: a 2-prize ex gives 3
    s.add("damage", pid="a1", amount=60)
    s.add("knocked_out", pid="a1")
    s.add("promoted", player="ash", pid="a2")
    s.add("damage", pid="a2", amount=200)
    r = s.record()
    assert [k["prizes"] for k in r["knockouts"]] == [0, 3]
    assert r["prizes"]["misty"] == {"taken": 2, "needed": 2, "remaining": 0}
    assert r["result"]["winner"] == "misty"


# docs/rules.md §1.1, §4: prize_taken with `effect` is taken by the engine, checked against the prizes
# left; a player who takes their last Prize card by an effect wins; both at once: the simultaneous table.
BARGAIN = "Lt. Surge's Bargain"


def _prizes_left(left: int, **started: Any) -> Stream:
    """A game where ash has ``left`` prizes left and misty 1."""
    s = two_sides(prizes=left, **started)
    s.turn("ash")
    return s


def test_the_last_prize_taken_by_an_effect_wins() -> None:
    s = _prizes_left(1)
    s.add("prize_taken", player="ash", count=1, effect=BARGAIN)
    s.add("turn_ended", player="ash")
    r = s.record()
    assert result_of(s) == ("win", "ash", "prizes", 6)
    assert r["prizes"]["ash"] == {"taken": 1, "needed": 1, "remaining": 0}
    assert not {"prize_without_ko", "prize_count_mismatch"} & set(codes(r))
    due = {"type": "prizes_due", "seq": 6, "player": "ash", "count": 1, "effect": BARGAIN}
    assert due in s.game().timeline
    # without `effect`, prize_taken is what it was: a source's claim of the prizes a knockout gave
    s = _prizes_left(1)
    s.add("prize_taken", player="ash", count=1)
    assert s.record()["result"] is None and codes(s.record()) == ["prize_without_ko"]


def test_a_prize_taken_by_an_effect_that_is_not_the_last_goes_on() -> None:
    s = _prizes_left(6)
    s.add("prize_taken", player="ash", count=1, effect=BARGAIN)
    s.add("prize_taken", player="misty", count=1, effect=BARGAIN)
    s.add("turn_ended", player="ash")
    r = s.record()
    assert r["result"] is None and r["findings"] == []
    assert r["prizes"]["ash"]["remaining"] == r["prizes"]["misty"]["remaining"] == 5


def test_both_players_last_prizes_by_the_same_effect_are_a_simultaneous_draw() -> None:
    s = _prizes_left(1)
    s.add("prize_taken", player="ash", count=1, effect=BARGAIN)
    s.add("prize_taken", player="misty", count=1, effect=BARGAIN)
    s.add("turn_ended", player="ash")
    r = s.record()
    assert result_of(s) == ("draw", None, "simultaneous", 7)
    assert r["result"]["conditions"] == {"ash": ["prizes"], "misty": ["prizes"]}


def test_the_simultaneous_draw_by_an_effect_is_provisional_until_the_effect_ends() -> None:
    s = _prizes_left(1)
    s.add("prize_taken", player="ash", count=1, effect=BARGAIN)
    r = s.record()
    assert r["provisional"] is True and result_of(s)[:2] == ("win", "ash")  # so far
    s.add("prize_taken", player="misty", count=1, effect=BARGAIN)
    assert s.record()["result"]["outcome"] == "draw"


def test_last_prizes_by_two_different_effects_are_not_simultaneous() -> None:
    s = _prizes_left(1)
    s.add("prize_taken", player="ash", count=1, effect=BARGAIN)
    s.add("prize_taken", player="misty", count=1, effect="Another Card")
    assert result_of(s) == ("win", "ash", "prizes", 6)
    assert codes(s.record()) == ["event_after_end"]


def test_a_drawn_game_that_must_be_decided_by_an_effect_awaits_its_playoff() -> None:
    s = _prizes_left(1, must_decide=True)
    s.add("prize_taken", player="misty", count=1, effect=BARGAIN)
    s.add("prize_taken", player="ash", count=1, effect=BARGAIN)
    s.add("turn_ended", player="ash")
    r = s.record()
    assert r["status"] == "awaiting_playoff" and r["playoff"]["child"] == "m1/tb1"


def test_prizes_taken_by_an_effect_are_checked_against_the_prizes_left() -> None:
    s = _prizes_left(2)
    s.add("prize_taken", player="ash", count=3, effect=BARGAIN)
    r = s.record()
    assert [(f["code"], f["seq"], f["severity"]) for f in r["findings"]] == [
        ("prizes_not_left", 6, "warning")
    ]
    assert BARGAIN not in r["findings"][0]["message"] and BARGAIN in r["findings"][0]["detail"]
    assert r["prizes"]["ash"] == {"taken": 2, "needed": 2, "remaining": 0}
    assert result_of(s) == ("win", "ash", "prizes", 6)


def test_a_prize_taken_by_an_effect_inside_an_attack_is_judged_when_the_attack_ends() -> None:
    s = _prizes_left(1)
    s.add("turn_ended", player="ash")
    s.turn("misty")
    s.add("attack", player="misty", pid="m1", name="Prize Grab")
    s.add("prize_taken", player="misty", count=1, effect="Prize Grab")
    assert s.record()["result"] is None
    s.add("attack_ended")
    assert result_of(s) == ("win", "misty", "prizes", len(s.events))


def test_in_a_sudden_death_the_first_prize_by_an_effect_wins() -> None:
    s = Stream("g1/tb1", ruleset="kr-1.0", parent="g1", first="misty")
    s.setup("ash", ("a1", card("Pikachu", 30)))
    s.setup("misty", ("m1", card("Staryu", 30)))
    s.turn("misty")
    s.add("prize_taken", player="misty", count=1, effect=BARGAIN)
    s.add("turn_ended", player="misty")
    assert result_of(s) == ("win", "misty", "prizes", 6)


def test_a_prize_effect_then_damage_are_two_effects() -> None:
    s = _prizes_left(6)
    s.add("prize_taken", player="ash", count=1, effect=BARGAIN)
    s.add("damage", pid="m1", amount=50)  # another effect: checked once it resolves
    s.add("turn_ended", player="ash")
    r = s.record()
    assert [k["pid"] for k in r["knockouts"]] == ["m1"] and r["prizes"]["ash"]["taken"] == 2


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
