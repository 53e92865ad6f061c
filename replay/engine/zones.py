"""Cards between zones that no rule judges: discards, Trainers played, Stadiums, searches, cards to the
hand, shuffles (docs/events.md: discarded, trainer_played, searched, to_hand, shuffled).

They keep each player's zone counts true to the source (deck, hand, discard pile, Prize cards, Stadium),
so the board shows what the log implies and the deck-out check [docs/rules.md §1.3] counts the right deck.
A count that would go below zero is a ``card_count`` finding (the source moved cards the events never
put there), never an error.
"""

from __future__ import annotations

from replay.engine import findings as F
from replay.engine import restrictions
from replay.engine.board import ZONES, Player
from replay.engine.findings import say
from replay.engine.state import Event, State


def _count(e: Event) -> int:
    cards = e.get("cards")
    return int(e.get("count", len(cards) if isinstance(cards, list) else 1))


def _move(g: State, pl: Player, src: str, dst: str, n: int, seq: int) -> None:
    pl.move(src, dst, n)
    if src != "deck" and pl.zone(src) < 0:
        g.find("card_count", seq, say(F.CARD_COUNT, player=pl.id, zone=src, count=pl.zone(src)))


def on_discarded(g: State, e: Event) -> None:
    """Cards to the discard pile: from the hand (default), another zone, or attached to a Pokémon (pid)."""
    pl = g.player(e)
    if pl is None:
        return
    n = _count(e)
    pid = e.get("pid")
    if isinstance(pid, str):
        mon = g.mons.get(pid)
        if mon is None:
            g.find("unknown_pokemon", e["seq"], f"discarded: no Pokémon {pid!r} in play")
            return
        owner = g.p[mon.owner]
        n = min(n, mon.cards - 1)  # the Pokémon card itself stays
        for name in e.get("cards") or []:
            if name in mon.attached:
                mon.attached.remove(name)
        mon.cards -= n
        owner.in_play -= n
        owner.discard += n
        return
    src = e.get("from", "hand")
    if src == "stadium":
        g.stadium = None
    if src in ZONES:
        _move(g, pl, src, "discard", n, e["seq"])


def on_trainer_played(g: State, e: Event) -> None:
    """A Trainer card is played from the hand. Items and Supporters go to the discard pile; a Stadium goes
    into play and the Stadium in play, whoever's, goes to its owner's discard pile; a Tool stays in the
    hand for the ``attached`` event that follows."""
    pl = g.player(e)
    if pl is None:
        return
    card = e.get("card") or {}
    kind = card.get("kind")
    name = str(card.get("name", "?"))
    # [docs/rules.md §6] one Supporter and one Stadium per turn; no Supporter on the first turn of the
    # player who goes first
    restrictions.trainer_played(g, e, pl, kind, name)
    if kind == "stadium":
        for other in g.p.values():
            if other.stadium > 0:
                other.move("stadium", "discard", other.stadium)
        _move(g, pl, "hand", "stadium", 1, e["seq"])
        g.stadium = name
    elif kind in ("item", "supporter"):
        _move(g, pl, "hand", "discard", 1, e["seq"])


def on_searched(g: State, e: Event) -> None:
    """Cards taken from the deck into the hand by an effect (revealed); never a deck-out [docs/rules.md
    §1.3]."""
    pl = g.player(e)
    if pl is not None:
        pl.move("deck", "hand", _count(e))


def on_to_hand(g: State, e: Event) -> None:
    """Cards into the hand from another zone (discard pile, Lost Zone, Prize cards by an effect)."""
    pl = g.player(e)
    if pl is None:
        return
    src = e.get("from", "discard")
    if src in ZONES and src != "hand":
        _move(g, pl, src, "hand", _count(e), e["seq"])


def on_shuffled(g: State, e: Event) -> None:
    """A zone is shuffled; with ``from``, the cards moved from there into it first."""
    pl = g.player(e)
    if pl is None:
        return
    src, dst = e.get("from"), e.get("zone")
    if src in ZONES and dst in ZONES and src != dst:
        _move(g, pl, src, dst, _count(e), e["seq"])
