"""Knockouts and prizes: one batch per check, prizes as the last step, then promotion and the judgment.

[JP3.4 §I-D] A Pokémon whose remaining HP is 0 is Knocked Out, checked at the end of an attack, at the end
of the Pokémon Checkup, and otherwise once the effect that placed the damage has resolved.
[JP3.4 §I-D, §II-E-04] One batch: every Pokémon at 0 HP on either side together; all are discarded with
everything attached at once; each player then takes prizes for the opponent's Pokémon of this batch (the
LAST step); if both Actives went, the player who takes the next turn promotes first. Then the result.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from replay.engine import result
from replay.engine.board import ZONES, Player, Pokemon

if TYPE_CHECKING:
    from replay.engine.game import Event, Game


def prize_value(g: Game, mon: Pokemon) -> int:
    """Rule-box base (or the card's explicit value), then modifiers, never below 0 [rules.md §3]."""
    base = mon.prizes if mon.prizes is not None else g.ruleset.prize_value(mon.rule)
    return max(0, base + mon.prize_delta)


def run_batch(g: Game, seq: int, window: str, claims: set[str]) -> None:
    """One knockout check [JP3.4 §I-D steps 1-5], then the game result is judged [rules.md §4]."""
    knocked: list[Pokemon] = []
    for player in g.players:
        for pid in g.p[player].in_play_pids():
            mon = g.mons[pid]
            if mon.knocked_out or (pid in claims and (mon.hp is None or pid in g.forced_kos)):
                knocked.append(mon)
    for pid in sorted(claims):
        claimed = g.mons.get(pid)
        if (
            claimed is not None
            and claimed.hp is not None
            and not claimed.knocked_out
            and pid not in g.forced_kos
        ):
            _not_due(g, seq, claimed)
    if knocked:
        g.batch += 1
        _knock_out(g, seq, window, claims, knocked)
    _settle_prize_claims(g)
    if knocked:
        result.judge(g, seq)


def _knock_out(g: Game, seq: int, window: str, claims: set[str], knocked: list[Pokemon]) -> None:
    next_player = g.next_turn_player()
    lost_active: list[str] = []
    owed = dict.fromkeys(g.players, 0)
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
        owed[g.opponent(mon.owner)] += value
        verified = mon.hp is not None and mon.pid not in g.forced_kos
        g.forced_kos.discard(mon.pid)
        ko: dict[str, Any] = {
            "seq": seq,
            "pid": mon.pid,
            "owner": mon.owner,
            "card": mon.name,
            "prizes": value,
            "window": window,
            "batch": g.batch,
            "verified": verified,
        }
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
        if verified and mon.pid not in claims and g.reports_knockouts:
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


def _not_due(g: Game, seq: int, mon: Pokemon) -> None:
    assert mon.hp is not None
    g.find(
        "ko_not_due",
        seq,
        f"{mon.name} ({mon.pid}) claimed Knocked Out with "
        f"{mon.hp - mon.damage} HP left ({mon.damage} damage of {mon.hp})",
    )


def close_window(g: Game, seq: int) -> None:
    """An attack or checkup window the source did not close is closed (and checked) now."""
    if g.window is not None:
        window = g.window
        g.find("window_not_closed", seq, f"the {window} window was not closed; checked for knockouts here")
        end_window(g, seq)


def end_window(g: Game, seq: int) -> None:
    window = g.window or "effect"
    claims = g.window_claims
    g.window = None
    g.window_claims = set()
    run_batch(g, seq, window, claims)


def resolve_effect(g: Game) -> None:
    """The effect outside the windows has resolved: check knockouts once for all of it."""
    g.effect_pending = False
    claims = g.effect_claims
    g.effect_claims = set()
    run_batch(g, g.effect_seq, "effect", claims)


def report_unclaimed(g: Game, seq: int) -> None:
    """Knockouts the engine derived (HP 0) that a source reporting knockouts never claimed."""
    for ko in g.unclaimed:
        g.find(
            "ko_not_claimed",
            ko["seq"],
            f"{ko['card']} ({ko['pid']}) reached 0 HP at seq {ko['seq']} but the source reported no knockout",
        )
    g.unclaimed = []


def on_knocked_out(g: Game, e: Event) -> None:
    seq = e["seq"]
    pid = e.get("pid")
    mon = g.mons.get(pid) if isinstance(pid, str) else None
    if mon is None:
        # (a reversed copy, not reversed(): mypyc 2.4 fails on reversed() over a list of dicts)
        for ko in g.knockouts[::-1]:
            if ko["pid"] == pid:  # the engine already knocked it out: the claim agrees
                if ko in g.unclaimed:
                    g.unclaimed.remove(ko)
                return
        g.find("unknown_pokemon", seq, f"knocked_out: no Pokémon {pid!r} in play")
        return
    if e.get("by"):
        # A card effect that Knocks Out without damage ("Knock Out the Defending Pokémon"): the source
        # names it, and the Pokémon is knocked out in this window's (or this effect's) batch.
        g.forced_kos.add(mon.pid)
    if g.window is not None:
        g.window_claims.add(mon.pid)
        return
    if mon.hp is not None and not mon.knocked_out and mon.pid not in g.forced_kos:
        _not_due(g, seq, mon)
        return
    g.effect_claims.add(mon.pid)
    g.effect_pending = True
    g.effect_seq = seq


def on_prize_taken(g: Game, e: Event) -> None:
    if g.window is not None:
        g.prize_claims.append(e)  # compared once the window's knockouts are processed
        return
    _compare_prize_claim(g, e)


def _settle_prize_claims(g: Game) -> None:
    claims, g.prize_claims = g.prize_claims, []
    for e in claims:
        _compare_prize_claim(g, e)


def _compare_prize_claim(g: Game, e: Event) -> None:
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


def on_prize_modifier(g: Game, e: Event) -> None:
    mon = g.mon(e)
    if mon is not None:
        mon.prize_delta += int(e.get("delta", 0))


def promote(g: Game, pl: Player, mon: Pokemon, seq: int) -> None:
    """A new Active from the Bench after a knockout [JP3.4 §I-D step 5: next-turn player first]."""
    due = g.promotions_due
    if pl.id in due and due[0] != pl.id:
        g.find(
            "promotion_order",
            seq,
            f"{pl.id} promoted before {due[0]}, who takes the next turn "
            "and promotes first (JP3.4 §I-D step 5)",
        )
    if pl.id in due:
        due.remove(pl.id)
    pl.bench.remove(mon.pid)
    pl.active = mon.pid


def on_promoted(g: Game, e: Event) -> None:
    pl = g.player(e)
    mon = g.mon(e)
    if pl is None or mon is None or g.result is not None:
        return
    if mon.pid not in pl.bench:
        g.find("unknown_pokemon", e["seq"], f"promoted: {mon.pid} is not on {pl.id}'s Bench")
        return
    if pl.active is not None:
        g.find("promotion_order", e["seq"], f"{pl.id} promoted {mon.pid} while {pl.active} is still Active")
        old = pl.active
        pl.bench[pl.bench.index(mon.pid)] = old
        pl.active = mon.pid
        return
    promote(g, pl, mon, e["seq"])


def on_removed(g: Game, e: Event) -> None:
    """A Pokémon leaves play by an effect (not a knockout): no prizes; an empty Active must be filled."""
    mon = g.mon(e)
    if mon is None:
        return
    seq = e["seq"]
    pl = g.p[mon.owner]
    to = e.get("to")
    pl.in_play -= mon.cards
    setattr(pl, to if to in ZONES else "discard", pl.zone(to if to in ZONES else "discard") + mon.cards)
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
            result.judge(g, seq)  # [rules.md §1.2] no Pokémon to put out as the Active
