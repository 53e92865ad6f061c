"""One knockout batch on the table: discard together, prizes as the last step, who promotes first.

[JP3.4 §I-D, §II-E-04; docs/rules.md §3] Every Pokémon at 0 HP on either side is Knocked Out together: all
are discarded at once with everything attached; each player then takes prizes for the opponent's Pokémon of
this batch (the LAST step), never more than remain; if both Actives went, the player who takes the next
turn promotes first. The judgment that follows is ``replay.engine.judgment``'s.
"""

from __future__ import annotations

from replay.engine.board import Pokemon
from replay.engine.outputs import Knockout
from replay.engine.state import State


def prize_value(g: State, mon: Pokemon) -> int:
    """Rule-box base (or the card's explicit value), then modifiers, never below 0 [docs/rules.md §3]."""
    base = mon.prizes if mon.prizes is not None else g.ruleset.prize_value(mon.rule)
    return max(0, base + mon.prize_delta)


def knock_out(g: State, seq: int, window: str, claimed: set[str], knocked: list[Pokemon]) -> None:
    """Knock out ``knocked`` (the batch's Pokémon, in table order) in ``window``."""
    g.batch += 1
    next_player = g.next_turn_player()
    lost_active: list[str] = []
    owed = dict.fromkeys(g.players, 0)
    # What each knockout gives: its worth while prizes remain, in batch order [docs/rules.md §3].
    left = {p: g.p[p].prizes for p in g.players}
    # Step 3: all discarded at the same time, with every card attached to them.
    for mon in knocked:
        owner = g.p[mon.owner]
        if owner.active == mon.pid:
            owner.active = None
            lost_active.append(owner.id)
        else:
            owner.bench.remove(mon.pid)
        owner.in_play -= mon.cards
        owner.discard += mon.cards
        del g.mons[mon.pid]
        value = prize_value(g, mon)
        taker_id = g.opponent(mon.owner)
        owed[taker_id] += value
        taken = min(value, left[taker_id])
        left[taker_id] -= taken
        verified = mon.hp is not None and mon.pid not in g.forced_kos
        g.forced_kos.discard(mon.pid)
        ko = Knockout(
            seq=seq,
            pid=mon.pid,
            owner=mon.owner,
            card=mon.name,
            prizes=value,
            window=window,
            batch=g.batch,
            verified=verified,
            prizes_taken=taken,
        )
        g.knockouts.append(ko)
        g.emit(
            {
                "type": "ko",
                "seq": seq,
                "pid": mon.pid,
                "owner": mon.owner,
                "prizes": value,
                "window": window,
                "batch": g.batch,
            }
        )
        if verified and mon.pid not in claimed and g.reports_knockouts:
            g.unclaimed.append(ko)
    # Step 4: prizes, the last step; never more than remain.
    for player in g.players:
        due = owed[player]
        if due:
            taker = g.p[player]
            n = min(due, taker.prizes)
            taker.prizes -= n
            taker.hand += n
            taker.taken += n
            g.prizes_owed[player] = g.prizes_owed.get(player, 0) + n
            g.emit({"type": "prizes_due", "seq": seq, "player": player, "count": n})
    # Step 5: the player who takes the next turn promotes first.
    lost_active.sort(key=lambda p: 0 if p == next_player else 1)
    due_players = [p for p in lost_active if g.p[p].bench]
    for i, player in enumerate(due_players, 1):
        g.emit({"type": "promotion_due", "seq": seq, "player": player, "order": i})
    g.promotions_due = due_players
