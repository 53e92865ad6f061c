"""A turn's start: deck-out only at the draw of the player whose turn starts [docs/rules.md §1.3]
(replay/engine/turn.py).
"""

from __future__ import annotations

from tests.builder import codes
from tests.engine.games import basic


def test_deck_out_only_at_the_start_of_the_turn() -> None:
    s = basic(deck=14)  # 14 - 7 hand - 6 prizes = 1 card left after setup
    s.turn("ash")  # draws the last card
    s.add("drew", player="ash", count=3)  # an effect asks for more than the deck holds: not a loss
    s.add("turn_ended", player="ash")
    s.turn("misty")
    s.add("turn_ended", player="misty")
    s.add("turn_started", player="ash")
    r = s.record()
    assert "draw_from_empty_deck_not_loss" in codes(r)
    assert r["result"]["reason"] == "deck_out" and r["result"]["winner"] == "misty"
    assert r["result"]["decided_at"] == len(s.events)
    assert next(o for o in s.game().timeline if o["type"] == "deck_out")["player"] == "ash"


def test_deck_count_from_the_source_is_used() -> None:
    s = basic()
    s.add("turn_started", player="ash", deck=0)
    r = s.record()
    assert r["result"]["reason"] == "deck_out"
    assert "deck_count_mismatch" in codes(r)
