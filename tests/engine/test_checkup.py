"""The Pokémon Checkup: its knockouts are one batch, judged before the next turn's draw [docs/rules.md §5, §2]
(replay/engine/checkup.py).
"""

from __future__ import annotations

import pytest

from tests.builder import Stream, card, codes
from tests.engine.games import result_of


def test_checkup_knockout_ends_the_game_before_the_next_draw() -> None:
    s = Stream()
    s.setup("ash", ("a1", card("Pikachu", 60)))
    s.setup("misty", ("m1", card("Staryu", 20)))
    s.turn("ash")
    s.add("condition", pid="m1", condition="poisoned", on=True)
    s.add("turn_ended", player="ash")
    s.add("checkup_started")
    s.add("damage", pid="m1", amount=10)
    s.add("damage", pid="m1", amount=10)
    s.add("knocked_out", pid="m1")
    s.add("checkup_ended")
    s.add("turn_started", player="misty", deck=0)  # would be a deck-out, but the game is already over
    r = s.record()
    assert r["result"]["reason"] == "no_pokemon" and r["result"]["winner"] == "ash"
    assert r["knockouts"][0]["window"] == "checkup"
    assert "event_after_end" in codes(r)


# docs/rules.md §2: a window the source never closes is checked where the next turn event closes it; when
# its knockouts end the game, that event does nothing more.
def _checkup_ko_closed_by_the_next_turn(next_deck: int) -> Stream:
    s = Stream(prizes=1, deck=9)
    s.setup("ash", ("a1", card("Pikachu", 60)), ("a2", card("Pichu", 30)))
    s.setup("misty", ("m1", card("Staryu", 30)))
    s.turn("ash")
    s.add("turn_ended", player="ash")
    s.add("checkup_started")
    s.add("damage", pid="m1", amount=30)  # Poison knocks out misty's last Pokémon
    s.add("turn_started", player="misty", deck=next_deck)  # the source never closed the checkup
    return s


@pytest.mark.parametrize("deck", [0, 1])
def test_a_checkup_closed_by_the_next_turn_that_ends_the_game_is_followed_by_nothing(deck: int) -> None:
    s = _checkup_ko_closed_by_the_next_turn(deck)
    timeline = s.game().timeline
    types = [o["type"] for o in timeline]
    assert types[-1] == "game_over" and "deck_out" not in types
    assert result_of(s) == ("win", "ash", "prizes", len(s.events))
    assert "turn_order" not in codes(s.record()) and "deck_count_mismatch" not in codes(s.record())
