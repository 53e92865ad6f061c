"""The source's own claims against what the rules derive: knockouts claimed and not, prizes taken.

A source that reports knockouts claims each one (``knocked_out``) and the prizes taken for them
(``prize_taken``); these compare the claims with the knockouts the engine derived, as findings. They never
change the result.
"""

from __future__ import annotations

from replay.engine import findings as F
from replay.engine.board import Pokemon
from replay.engine.findings import say
from replay.engine.state import Event, State


def not_due(g: State, seq: int, mon: Pokemon) -> None:
    """A knockout claimed for a Pokémon with HP left [JP3.4 §I-D: remaining HP 0 is Knocked Out]."""
    assert mon.hp is not None
    g.find(
        "ko_not_due",
        seq,
        say(F.KO_NOT_DUE, card=mon.name, pid=mon.pid, left=mon.hp - mon.damage, damage=mon.damage, hp=mon.hp),
    )


def close(g: State, seq: int) -> None:
    """A point where the source's claims about the knockouts so far must be complete (an attack, a
    checkup, a turn starting or ending, the game's end): knockouts never claimed, prize claims that
    stopped short."""
    if g.unclaimed:
        report_unclaimed(g, seq)
    if g.prizes_claimed:
        close_prize_claims(g)


def report_unclaimed(g: State, seq: int) -> None:
    """Knockouts the engine derived (HP 0) that a source reporting knockouts never claimed."""
    for ko in g.unclaimed:
        g.find(
            "ko_not_claimed",
            ko.seq,
            say(F.KO_NOT_CLAIMED, card=ko.card, pid=ko.pid, seq=ko.seq),
        )
    g.unclaimed = []


def close_prize_claims(g: State) -> None:
    """Prize claims made one card at a time that stopped short of what the knockouts give."""
    for player, claimed in sorted(g.prizes_claimed.items()):
        owed = g.prizes_owed.get(player, 0)
        g.find(
            "prize_count_mismatch",
            g.prize_claim_seq[player],
            say(F.PRIZE_COUNT, player=player, claimed=claimed, owed=owed),
        )
        g.prizes_owed[player] = 0
    g.prizes_claimed = {}
    g.prize_claim_seq = {}


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
    """One claim against the prizes the knockouts owe the player. A player takes prizes one card at a
    time [docs/rules.md §3 step 4]: claims that add up to what is owed are one claim, and a claim still
    short of it waits for the next card (:func:`close` reports it if none comes)."""
    pl = g.player(e)
    if pl is None:
        return
    count = int(e.get("count", 1))
    owed = g.prizes_owed.get(pl.id, 0)
    claimed = g.prizes_claimed.pop(pl.id, 0) + count
    g.prize_claim_seq.pop(pl.id, None)
    if owed == 0:
        g.find("prize_without_ko", e["seq"], say(F.PRIZE_WITHOUT_KO, player=pl.id, count=count))
    elif claimed < owed:
        g.prizes_claimed[pl.id] = claimed
        g.prize_claim_seq[pl.id] = e["seq"]
        return
    elif claimed != owed:
        g.find("prize_count_mismatch", e["seq"], say(F.PRIZE_COUNT, player=pl.id, claimed=claimed, owed=owed))
    g.prizes_owed[pl.id] = 0
