"""Attacks: the attack window, damage and healing [JP3.4 §I-D].

Damage inside an attack is only checked for knockouts when the attack's processing ends (attack_ended);
damage outside the attack and checkup windows is checked once the effect that placed it has resolved.
"""

from __future__ import annotations

from typing import Final

from replay.engine import claims, judgment, restrictions
from replay.engine import findings as F
from replay.engine.findings import say
from replay.engine.state import Event, State

UNABLE_TO_ATTACK: Final = ("asleep", "paralyzed")


def on_attack(g: State, e: Event) -> None:
    seq = e["seq"]
    if g.window is not None and judgment.close_window(g, seq):
        return  # the window's knockouts ended the game: nothing follows game_over
    if g.unclaimed or g.prizes_claimed:
        claims.close(g, seq)
    pl = g.player(e)
    if pl is None:
        return
    # [docs/rules.md §6 Setup] the player who goes first may not attack on their first turn.
    if not g.ruleset.first_turn_attack and g.turn == 1 and pl.id == g.first and not e.get("effect"):
        restrictions.restriction(g, "attack_first_turn", seq, pl, say(F.ATTACK_FIRST_TURN, player=pl.id))
    if pl.id != g.turn_player:
        g.find("turn_order", seq, say(F.ATTACK_OTHERS_TURN, player=pl.id, turn_player=g.turn_player))
    pid = e.get("pid")
    if pl.active is None or pid != pl.active:
        named = g.mons.get(pid) if isinstance(pid, str) else None
        attacker = f"{named.name} ({pid})" if named is not None else repr(pid)
        g.find("attacker_not_active", seq, say(F.NOT_ACTIVE, attacker=attacker, player=pl.id))
    else:
        mon = g.mons[pl.active]
        unable = [c for c in mon.conditions if c in UNABLE_TO_ATTACK]
        if unable:
            g.find("attack_while_unable", seq, say(F.UNABLE, card=mon.name, pid=pid, condition=unable[0]))
    g.window = "attack"
    g.window_claims = set()
    by = g.mons.get(pid) if isinstance(pid, str) else None
    name = e.get("name")
    g.last_attack = {
        "seq": seq,
        "player": pl.id,
        "pid": pid if isinstance(pid, str) else None,
        "attacker": by.name if by is not None else None,
        "name": name if isinstance(name, str) else None,
        "damage": 0,
    }


def on_damage(g: State, e: Event) -> None:
    mon = g.mon(e)
    if mon is None:
        return
    mon.damage += int(e.get("amount", 0))
    if g.window == "attack" and g.last_attack is not None:
        g.last_attack = {**g.last_attack, "damage": g.last_attack["damage"] + int(e.get("amount", 0))}
    if g.window is None:
        g.effect_pending = True
        g.effect_seq = e["seq"]


def on_healed(g: State, e: Event) -> None:
    mon = g.mon(e)
    if mon is not None:
        mon.damage = max(0, mon.damage - int(e.get("amount", 0)))


def on_attack_ended(g: State, e: Event) -> None:
    if g.window != "attack":
        return
    judgment.end_window(g, e["seq"])
