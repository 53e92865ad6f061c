"""Turns and the draw: turn_started (the deck-out check), drew, moved, turn_ended.

[docs/rules.md §1.3] A player loses by deck-out only when their own turn starts with an empty deck and the
mandatory draw is impossible; never when the deck reaches 0 during a turn, never when an effect asks for
more cards than the deck holds (the player just takes what there is).
"""

from __future__ import annotations

from replay.engine import claims, judgment
from replay.engine import findings as F
from replay.engine.board import ZONES
from replay.engine.findings import say
from replay.engine.state import Event, State


def on_turn_started(g: State, e: Event) -> None:
    seq = e["seq"]
    pl = g.player(e)
    if pl is None:
        return
    if g.window is not None and judgment.close_window(g, seq):
        return  # the window's knockouts ended the game: no turn starts, nothing follows game_over
    if g.unclaimed or g.prizes_claimed:
        claims.close(g, seq)
    expected = g.first if g.turn == 0 else g.next_turn_player()
    if pl.id != expected:
        g.find("turn_order", seq, say(F.TURN_STARTED, player=pl.id, expected=expected))
    if g.promotions_due:
        g.find("promotion_missing", seq, say(F.NO_NEW_ACTIVE, players=", ".join(g.promotions_due)))
        g.promotions_due = []
    number = e.get("turn")
    if isinstance(number, int | float) and not isinstance(number, bool):
        g.source_turn = int(number)  # what the table and the stream call this turn (the overlay shows it)
    # Time called: the turns allowed after time are counted at each turn start [TTH §7.4.3].
    if g.time is not None and judgment.time_turn_started(g, g.time, seq):
        return
    g.turn += 1
    g.turn_player = pl.id
    g.turn_open = True
    if g.turn_counts or g.turn_cards:
        g.turn_counts = {}
        g.turn_cards = []
    pl.turns += 1
    if "deck" in e:
        seen = int(e["deck"])
        if seen != pl.deck:
            g.find(
                "deck_count_mismatch",
                seq,
                say(F.DECK_COUNT, player=pl.id, seen=seen, deck=pl.deck),
            )
            # the difference is in the hand (hidden): keeps the 60 cards conserved
            pl.hand += pl.deck - seen
            pl.deck = seen
    if pl.deck <= 0:
        # [docs/rules.md §1.3] the mandatory draw is impossible: the turn player loses.
        g.emit({"type": "deck_out", "seq": seq, "player": pl.id})
        judgment.decide(
            g,
            seq,
            winner=g.opponent(pl.id),
            reason="deck_out",
            conditions={g.opponent(pl.id): ["deck_out_opponent"], pl.id: []},
        )


def on_drew(g: State, e: Event) -> None:
    pl = g.p.get(e["player"])
    if pl is None:
        g.player(e)
        return
    count = e.get("count")
    if count is None:
        cards = e.get("cards")
        count = len(cards) if isinstance(cards, list) else 1
    count = int(count)  # 2.0 counts as an integer (JSON Schema)
    got = count if count <= pl.deck else pl.deck
    pl.deck -= got
    pl.hand += got
    if got < count:
        g.find(
            "draw_from_empty_deck_not_loss",
            e["seq"],
            say(F.EMPTY_DECK, player=pl.id, count=count, left=got),
        )


def on_moved(g: State, e: Event) -> None:
    pl = g.p.get(e["player"])
    if pl is None:
        g.player(e)
        return
    src, dst = e.get("from"), e.get("to")
    if src not in ZONES or dst not in ZONES:
        return
    cards = e.get("cards")
    count = int(e.get("count", len(cards) if isinstance(cards, list) else 1))
    pl.move(src, dst, count)
    if src == "stadium":
        g.stadium = None
    if src != "deck" and pl.zone(src) < 0:
        g.find("card_count", e["seq"], say(F.CARD_COUNT, player=pl.id, zone=src, count=pl.zone(src)))


def on_turn_ended(g: State, e: Event) -> None:
    seq = e["seq"]
    if g.result is not None:
        # The game is over, but the source's claims about its last knockouts still end with the turn.
        if g.unclaimed or g.prizes_claimed:
            claims.close(g, seq)
        return
    if g.window is not None and judgment.close_window(g, seq):
        return  # the window's knockouts ended the game: nothing follows game_over
    pl = g.player(e)
    if pl is None:
        return
    if pl.id != g.turn_player:
        g.find("turn_order", seq, say(F.TURN_ENDED, player=pl.id, turn_player=g.turn_player))
    g.turn_open = False
    if g.unclaimed or g.prizes_claimed:
        claims.close(g, seq)
    if g.time is not None:
        judgment.time_turn_ended(g, g.time, seq)
