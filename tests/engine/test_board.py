"""The board: 60 cards conserved, no hidden card in the public view, the last attack and its damage
(replay/engine/board.py, public.py).
"""

from __future__ import annotations

from replay.engine.record import dumps
from tests.builder import Stream, card
from tests.engine.games import basic, full_game


def test_sixty_cards_are_conserved() -> None:
    g = full_game().game()
    for pl in g.state.p.values():
        assert pl.total() == 60


def test_board_view_has_no_hidden_cards() -> None:
    s = basic()
    s.turn("ash")
    s.add("drew", player="ash", cards=["Secret Card"])
    text = dumps(s.game().board()).decode()
    assert "Secret Card" not in text


def test_the_board_names_the_last_attack_and_the_damage_its_window_placed() -> None:
    """What the overlay shows as the last attack (issue 37 item 2): damage outside an attack is not its."""
    s = Stream("la")
    s.setup("ash", ("a1", card("Pikachu", 60)))
    s.setup("misty", ("m1", card("Staryu", 90)), ("m2", card("Psyduck", 70)))
    s.turn("ash")
    assert s.game().board()["last_attack"] is None
    s.attack("ash", "a1", ("m1", 30), ("m2", 10))
    s.add("damage", pid="m1", amount=20)  # an Ability's, after the attack
    board = s.game().board()
    assert board["last_attack"] == {
        "seq": 6,
        "player": "ash",
        "pid": "a1",
        "attacker": "Pikachu",
        "name": "Tackle",
        "damage": 40,
    }
    assert board["players"]["misty"]["active"]["damage"] == 50
