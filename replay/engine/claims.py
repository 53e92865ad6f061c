"""The source's own claims against what the rules derive: knockouts claimed and not, prizes taken.

A source that reports knockouts claims each one (``knocked_out``) and the prizes taken for them
(``prize_taken``); these compare the claims with the knockouts the engine derived, as findings. They never
change the result.
"""

from __future__ import annotations

from replay.engine.board import Pokemon
from replay.engine.state import Event, State


def not_due(g: State, seq: int, mon: Pokemon) -> None:
    """A knockout claimed for a Pokémon with HP left [JP3.4 §I-D: remaining HP 0 is Knocked Out]."""
    assert mon.hp is not None
    g.find(
        "ko_not_due",
        seq,
        f"{mon.name} ({mon.pid}) claimed Knocked Out with "
        f"{mon.hp - mon.damage} HP left ({mon.damage} damage of {mon.hp})",
    )


def report_unclaimed(g: State, seq: int) -> None:
    """Knockouts the engine derived (HP 0) that a source reporting knockouts never claimed."""
    for ko in g.unclaimed:
        g.find(
            "ko_not_claimed",
            ko.seq,
            f"{ko.card} ({ko.pid}) reached 0 HP at seq {ko.seq} but the source reported no knockout",
        )
    g.unclaimed = []


def prize_taken(g: State, e: Event) -> None:
    """A ``prize_taken`` claim: inside a window it waits for the window's knockouts."""
    if g.window is not None:
        g.prize_claims.append(e)  # compared once the window's knockouts are processed
        return
    _compare(g, e)


def settle_prize_claims(g: State) -> None:
    """The claims made inside a window, compared once its knockouts are processed."""
    waiting, g.prize_claims = g.prize_claims, []
    for e in waiting:
        _compare(g, e)


def _compare(g: State, e: Event) -> None:
    pl = g.player(e)
    if pl is None:
        return
    count = int(e.get("count", 1))
    owed = g.prizes_owed.get(pl.id, 0)
    if owed == 0:
        g.find("prize_without_ko", e["seq"], f"{pl.id} took {count} prize(s) with no knockout owing any")
    elif count != owed:
        g.find("prize_count_mismatch", e["seq"], f"{pl.id} took {count} prize(s); the knockouts give {owed}")
    g.prizes_owed[pl.id] = 0
