"""Knockouts, prizes and promotion as the source reports them: knocked_out, prize_taken, prize_modifier,
promoted, removed.

[JP3.4 §I-D] A Pokémon whose remaining HP is 0 is Knocked Out, checked at the end of an attack, at the end
of the Pokémon Checkup, and otherwise once the effect that placed the damage has resolved; the batch itself
and the judgment after it are ``replay.engine.judgment``'s.
"""

from __future__ import annotations

from replay.engine import claims, judgment
from replay.engine import findings as F
from replay.engine.board import ZONES
from replay.engine.findings import say
from replay.engine.state import Event, State


def on_knocked_out(g: State, e: Event) -> None:
    seq = e["seq"]
    pid = e.get("pid")
    mon = g.mons.get(pid) if isinstance(pid, str) else None
    if mon is None:
        # (a reversed copy, not reversed(): mypyc 2.4 fails on reversed() over a list of dicts)
        for ko in g.knockouts[::-1]:
            if ko.pid == pid:  # the engine already knocked it out: the claim agrees
                if ko in g.unclaimed:
                    g.unclaimed.remove(ko)
                return
        g.find("unknown_pokemon", seq, say(F.NO_POKEMON, type="knocked_out", pid=pid))
        return
    if e.get("by"):
        # A card effect that Knocks Out without damage ("Knock Out the Defending Pokémon"): the source
        # names it, and the Pokémon is knocked out in this window's (or this effect's) batch.
        g.forced_kos.add(mon.pid)
    if g.window is not None:
        g.window_claims.add(mon.pid)
        return
    if mon.hp is not None and not mon.knocked_out and mon.pid not in g.forced_kos:
        claims.not_due(g, seq, mon)
        return
    g.effect_claims.add(mon.pid)
    g.effect_pending = True
    g.effect_seq = seq


def on_prize_taken(g: State, e: Event) -> None:
    effect = e.get("effect")
    if effect is None:
        claims.prize_taken(g, e)  # a source's claim of the prizes a knockout gave
        return
    # Prize cards taken by a card effect (Lt. Surge's Bargain): the engine takes them [docs/rules.md §1.1].
    pl = g.player(e)
    if pl is None:
        return
    if g.result is not None:
        decided = g.result.decided_at
        g.find("event_after_end", e["seq"], say(F.AFTER_END, type="prize_taken", decided=decided))
        return
    judgment.prizes_by_effect(g, e["seq"], pl, int(e.get("count", 1)), str(effect))


def on_prize_modifier(g: State, e: Event) -> None:
    mon = g.mon(e)
    if mon is not None:
        mon.prize_delta += int(e.get("delta", 0))


def on_promoted(g: State, e: Event) -> None:
    pl = g.player(e)
    mon = g.mon(e)
    if pl is None or mon is None or g.result is not None:
        return
    if mon.pid not in pl.bench:
        g.find("unknown_pokemon", e["seq"], say(F.PROMOTED_NOT_ON_BENCH, pid=mon.pid, player=pl.id))
        return
    if pl.active is not None:
        g.find(
            "promotion_order",
            e["seq"],
            say(F.PROMOTED_WHILE_ACTIVE, player=pl.id, pid=mon.pid, active=pl.active),
        )
        old = pl.active
        pl.bench[pl.bench.index(mon.pid)] = old
        pl.active = mon.pid
        return
    judgment.promote(g, pl, mon, e["seq"])


def on_removed(g: State, e: Event) -> None:
    """A Pokémon leaves play by an effect (not a knockout): no prizes; an empty Active must be filled."""
    mon = g.mon(e)
    if mon is None:
        return
    pl = g.p[mon.owner]
    to = e.get("to")
    pl.in_play -= mon.cards
    zone = to if isinstance(to, str) and to in ZONES else "discard"
    pl.set_zone(zone, pl.zone(zone) + mon.cards)
    was_active = pl.active == mon.pid
    if was_active:
        pl.active = None
    else:
        pl.bench.remove(mon.pid)
    del g.mons[mon.pid]
    if was_active:
        if pl.bench:
            g.promotions_due = [pl.id]
        else:
            judgment.active_removed(g, pl, e["seq"])
