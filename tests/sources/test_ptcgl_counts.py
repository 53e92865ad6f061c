"""Hand, deck, discard and Prize counts on the board against a real log counted by hand, turn by turn.

tests/data/ptcgl/real/en_slowking-vs-beedrill.txt (a real Pokémon TCG Live export, MIT; README there) was
counted line by line by hand (the workings are in docs/importers.md, "Counting a real log"): each row is
what the log implies at the start of each turn, before its draw, and the last row the board when the game
ends. The import, replayed by the engine, must show exactly these counts on the public board at every turn
and at the end (replay.engine board()).
"""

from __future__ import annotations

from replay.engine.game import Game
from replay.sources.ptcgl import parse_ptcgl
from tests.paths import DATA

LOG = DATA / "ptcgl" / "real" / "en_slowking-vs-beedrill.txt"
W, C = "Wonder_Squid", "cdierkens"
END = 0  # the board after the last event

# turn -> player -> (hand, deck, discard pile, Prize cards left), at the start of the turn
HAND_COUNTED: dict[int, dict[str, tuple[int, int, int, int]]] = {
    1: {W: (4, 47, 0, 6), C: (5, 47, 0, 6)},
    2: {W: (4, 47, 0, 6), C: (7, 42, 0, 6)},
    3: {W: (8, 33, 7, 6), C: (7, 42, 0, 6)},
    4: {W: (8, 33, 10, 6), C: (8, 39, 5, 3)},  # Seek Inspiration discarded Kyurem from the deck
    5: {W: (2, 24, 18, 5), C: (3, 44, 7, 3)},  # Special Red Card: cdierkens's 8 cards back, 3 drawn
    6: {W: (2, 24, 18, 5), C: (3, 39, 7, 3)},
    7: {W: (4, 11, 25, 4), C: (3, 39, 9, 3)},
    8: {W: (4, 11, 26, 4), C: (0, 28, 16, 3)},  # Forest of Vitality replaced: to its owner's discard pile
    9: {W: (7, 5, 30, 3), C: (2, 26, 21, 3)},  # the knocked-out Slowking held 4 cards besides itself
    # the end: Lana's Aid and Night Stretcher take 4 back, Academy at Night puts Kyurem from the hand on
    # the deck, Seek Inspiration discards it, 3 Prize cards, Beedrill ex (3 cards) and Kakuna (2) out
    END: {W: (7, 5, 35, 3), C: (8, 20, 22, 0)},
}


def boards() -> dict[int, dict[str, tuple[int, int, int, int]]]:
    res = parse_ptcgl(LOG.read_text("utf-8"), match="counts", filename=LOG.name)
    game = Game()
    seen: dict[int, dict[str, tuple[int, int, int, int]]] = {}
    for ev in res.events:
        game.apply(ev)
        if ev["type"] == "turn_started":
            seen[ev["turn"]] = counts(game)
    seen[END] = counts(game)
    return seen


def counts(game: Game) -> dict[str, tuple[int, int, int, int]]:
    players = game.board()["players"]
    return {p: (b["hand"], b["deck"], b["discard"], b["prizes_left"]) for p, b in players.items()}


def test_counts_match_the_hand_count_at_every_turn_and_the_end() -> None:
    got = boards()
    assert len(got) == len(HAND_COUNTED) == 10  # all 9 turns of the log and the end
    assert got == HAND_COUNTED


def test_no_count_goes_below_zero_and_sixty_cards_stay_sixty() -> None:
    res = parse_ptcgl(LOG.read_text("utf-8"), match="counts", filename=LOG.name)
    game = Game()
    for ev in res.events:
        game.apply(ev)
        for pl in game.state.p.values():
            assert pl.total() == 60
    assert not [f for f in game.findings if f.code == "card_count"]
