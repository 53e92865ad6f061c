"""When knockouts are checked and what a batch does: after an effect resolves, at the end of a window, a
removal judged with its window, the promotion order, nothing after ``game_over`` [docs/rules.md §2, §3]
(replay/engine/knockout.py, judgment.py, batch.py).
"""

from __future__ import annotations

from typing import Any

import pytest

from replay import Game
from tests.builder import Stream, card, codes
from tests.engine.games import basic, result_of


def test_damage_outside_windows_knocks_out_once_the_effect_has_resolved() -> None:
    s = basic()
    s.turn("ash")
    # an Ability places counters on two Pokémon: one effect, one batch
    s.add("damage", pid="m1", amount=50)
    s.add("damage", pid="m2", amount=90)
    s.add("knocked_out", pid="m1")
    s.add("knocked_out", pid="m2")
    s.add("prize_taken", player="ash", count=2)
    r = s.record()
    assert [(k["pid"], k["window"], k["batch"]) for k in r["knockouts"]] == [
        ("m1", "effect", 1),
        ("m2", "effect", 1),
    ]
    assert r["result"]["winner"] == "ash" and r["result"]["reason"] == "no_pokemon"
    assert r["result"]["decided_at"] == 9  # the last event of the effect (the second claim)
    assert "prize_count_mismatch" not in codes(r)


def test_next_turn_player_promotes_first() -> None:
    s = basic()
    s.turn("ash")
    s.add("turn_ended", player="ash")
    s.turn("misty")
    s.attack("misty", "m1", ("a1", 60), ("m1", 50), claims=("a1", "m1"))  # a recoil double knockout
    out = [o for o in s.game().timeline if o["type"] == "promotion_due"]
    assert [(o["player"], o["order"]) for o in out] == [("ash", 1), ("misty", 2)]
    s.add("promoted", player="misty", pid="m2")
    s.add("promoted", player="ash", pid="a2")
    assert "promotion_order" in codes(s.record())


def test_right_promotion_order_is_not_a_finding() -> None:
    s = basic()
    s.turn("ash")
    s.add("turn_ended", player="ash")
    s.turn("misty")
    s.attack("misty", "m1", ("a1", 60), ("m1", 50), claims=("a1", "m1"))
    s.add("promoted", player="ash", pid="a2")
    s.add("promoted", player="misty", pid="m2")
    r = s.record()
    assert "promotion_order" not in codes(r)
    assert r["result"] is None


def test_an_effect_that_knocks_out_without_damage_is_accepted_when_named() -> None:
    s = basic()
    s.turn("ash")
    s.add("turn_ended", player="ash")
    s.turn("misty")
    s.add("attack", player="misty", pid="m1", name="Frenzied Gouging")
    s.add("knocked_out", pid="a1", by="Frenzied Gouging")
    s.add("attack_ended")
    s.add("knocked_out", pid="a2")  # an unnamed claim with HP left is still a violation
    r = s.record()
    assert [(k["pid"], k["verified"]) for k in r["knockouts"]] == [("a1", False)]
    assert codes(r) == ["ko_not_due"]


@pytest.mark.parametrize("closer", ["attack", "checkup_started", "turn_ended"])
def test_no_output_follows_game_over_when_any_window_is_closed_by_the_next_event(closer: str) -> None:
    s = Stream(prizes=1)
    s.setup("ash", ("a1", card("Pikachu", 60)))
    s.setup("misty", ("m1", card("Staryu", 30)))
    s.turn("ash")
    s.add("turn_ended", player="ash")
    s.turn("misty")
    s.add("attack", player="misty", pid="m1", name="Tackle")
    s.add("damage", pid="m1", amount=30)  # recoil: misty's last Pokémon; the attack is never closed
    fields: dict[str, Any] = {"attack": {"player": "misty", "pid": "m1", "name": "Tackle"}}.get(closer, {})
    if closer == "turn_ended":
        fields = {"player": "misty"}
    g = Game()
    for e in s.events:
        g.apply(e)
    out = g.apply(s.add(closer, **fields))
    assert [o["type"] for o in out][-1] == "game_over", out
    assert result_of(s)[:3] == ("win", "ash", "prizes")


def test_an_effect_that_ends_the_game_is_followed_by_nothing_at_the_next_event() -> None:
    s = Stream(prizes=1)
    s.setup("ash", ("a1", card("Pikachu", 60)))
    s.setup("misty", ("m1", card("Staryu", 30)))
    s.turn("ash")
    s.add("damage", pid="m1", amount=30)  # an Ability's damage counters: checked once it has resolved
    g = Game()
    for e in s.events:
        g.apply(e)
    out = g.apply(s.add("attack", player="ash", pid="a1", name="Tackle"))
    assert [o["type"] for o in out][-1] == "game_over", out
    assert "event_after_end" not in codes(g.record())
    # the next events are after the end, as ever
    g.apply(s.add("attack_ended"))
    assert codes(g.record()).count("event_after_end") == 1


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
