"""The tournament layer that changes results: penalties [PG §3-4] and time called [TTH §7.4.3-7.4.4].

The handlers record what the judge gave; what it does to the result is ``replay.engine.judgment``'s.
"""

from __future__ import annotations

from typing import Final

from replay.engine import judgment
from replay.engine.outputs import Penalty
from replay.engine.state import Event, State, TimeCalled

PRIZE_PENALTIES: Final = ("double_prize", "quad_prize")


def on_penalty(g: State, e: Event) -> None:
    pl = g.player(e)
    if pl is None:
        return
    seq = e["seq"]
    kind = str(e.get("kind"))
    g.penalties.append(Penalty(seq, pl.id, kind, e.get("reason")))
    if kind in PRIZE_PENALTIES:
        cut = g.ruleset.double_prize if kind == "double_prize" else g.ruleset.quad_prize
        judgment.prize_penalty(g, seq, pl, kind, cut)
    elif kind in judgment.LOSS_PENALTIES:
        judgment.loss_penalty(g, seq, pl, kind)
    # cautions and warnings are recorded only


def on_time_called(g: State, e: Event) -> None:
    if g.result is not None or g.time is not None:
        return
    started = g.started or {}
    date = e.get("at") or started.get("at")
    proc = g.ruleset.time_procedure(date if isinstance(date, str) else None)
    # "current turn (turn 0) + N turns": called between turns, the next turn is turn 0.
    turns_left = proc.extra_turns + (0 if g.turn_open else 1)
    g.time = TimeCalled(
        seq=e["seq"],
        turns_left=turns_left,
        extra_turns=proc.extra_turns,
        turn_zero=proc.turn_zero,
        overtime_minutes=proc.overtime_minutes,
    )
