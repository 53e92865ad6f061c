"""Special Conditions and the Pokémon Checkup between turns [JP3.4 §I-F].

Conditions are checked for both players together (Poisoned, Burned, Asleep, Paralyzed); the source reports
the damage it placed; then ONE knockout batch for everything at 0 HP (checkup_ended).
"""

from __future__ import annotations

from typing import Final

from replay.engine import claims, judgment
from replay.engine.state import Event, State

# Asleep, Confused and Paralyzed replace each other (the card is turned); Poisoned and Burned stack.
ROTATIONS: Final = frozenset({"asleep", "confused", "paralyzed"})


def on_condition(g: State, e: Event) -> None:
    mon = g.mon(e)
    if mon is None:
        return
    cond = str(e.get("condition"))
    if e.get("on", True):
        if cond in ROTATIONS:
            mon.conditions = [c for c in mon.conditions if c not in ROTATIONS]
        if cond not in mon.conditions:
            mon.conditions.append(cond)
    elif cond in mon.conditions:
        mon.conditions.remove(cond)


def on_checkup_started(g: State, e: Event) -> None:
    seq = e["seq"]
    if g.window is not None and judgment.close_window(g, seq):
        return  # the window's knockouts ended the game: nothing follows game_over
    if g.unclaimed or g.prizes_claimed:
        claims.close(g, seq)
    g.window = "checkup"
    g.window_claims = set()


def on_checkup_ended(g: State, e: Event) -> None:
    if g.window != "checkup":
        return
    judgment.end_window(g, e["seq"])
