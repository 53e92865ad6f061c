"""The tournament layer that changes results: penalties and time called, each as its ruleset says
(docs/rules.md §6: PG §3-4 and TTH §7.4.3-7.4.4; JP floor rules 2023-04-01 §11 and the JP 終了コール).

The handlers record what the judge gave; what it does to the result is ``replay.engine.judgment``'s.
"""

from __future__ import annotations

from typing import Final

from replay.engine import findings as F
from replay.engine import judgment
from replay.engine.board import Player
from replay.engine.findings import say
from replay.engine.outputs import Penalty
from replay.engine.state import Event, State, TimeCalled

#: The Play! Pokémon names of a prize penalty [PG §3], read in every ruleset with the counts it gives them.
NAMED_PRIZE_PENALTIES: Final = ("double_prize", "quad_prize")
#: A prize penalty of the number of prizes the judge chose (``prizes``) [JP floor rules 2023-04-01 §11 ③].
PRIZE_PENALTY: Final = "prize_penalty"


def on_penalty(g: State, e: Event) -> None:
    pl = g.player(e)
    if pl is None:
        return
    seq = e["seq"]
    kind = str(e.get("kind"))
    count = e.get("prizes")
    if kind == PRIZE_PENALTY and isinstance(count, int) and not isinstance(count, bool):
        g.penalties.append(Penalty(seq, pl.id, kind, e.get("reason"), prizes=count))
    else:
        g.penalties.append(Penalty(seq, pl.id, kind, e.get("reason")))
    if kind in NAMED_PRIZE_PENALTIES:
        cut = g.ruleset.double_prize if kind == "double_prize" else g.ruleset.quad_prize
        judgment.prize_penalty(g, seq, pl, kind, cut)
    elif kind == PRIZE_PENALTY:
        _prize_penalty(g, seq, pl, count)
    elif kind in judgment.LOSS_PENALTIES:
        judgment.loss_penalty(g, seq, pl, kind)
    elif kind == judgment.DOUBLE_LOSS:
        judgment.double_loss(g, seq, "a loss for both players, given by a judge")
    # cautions and warnings are recorded only


def _prize_penalty(g: State, seq: int, pl: Player, count: object) -> None:
    """A prize penalty of ``count`` prizes: the offender's opponent needs that many fewer; the opponent
    takes no prize cards for it [JP floor rules 2023-04-01 §11 ③]."""
    if not isinstance(count, int) or isinstance(count, bool) or count < 1:
        g.find(
            "penalty_prizes",
            seq,
            say(F.PENALTY_NO_COUNT),
        )
        return
    if not g.ruleset.prize_penalty_allowed(count):
        allowed = ", ".join(str(c) for c in g.ruleset.prize_penalty.counts or ())
        g.find(
            "penalty_prizes",
            seq,
            say(F.PENALTY_COUNT, count=count, ruleset=g.ruleset_id, allowed=allowed),
        )
    judgment.prize_penalty(g, seq, pl, f"prize_penalty {count}", count)


def on_time_called(g: State, e: Event) -> None:
    if g.result is not None or g.time is not None:
        return
    started = g.started or {}
    date = e.get("at") or started.get("at")
    day = date if isinstance(date, str) else None
    proc = g.ruleset.time_procedure(day)
    if proc.turns == "finish_round":
        # [JP 終了コール] called in the turn of the player who went first, the player who went second gets one
        # more turn; in their own turn, that turn is the last. Called between turns, the next turn is the
        # turn of the call (as "turn 0" is in the Play! Pokémon count).
        now = g.turn_player if g.turn_open else g.next_turn_player()
        turns_left = (1 if now == g.first else 0) + (0 if g.turn_open else 1)
    else:
        # "current turn (turn 0) + N turns": called between turns, the next turn is turn 0.
        turns_left = proc.extra_turns + (0 if g.turn_open else 1)
    g.time = TimeCalled(
        seq=e["seq"],
        turns_left=turns_left,
        extra_turns=proc.extra_turns,
        turn_zero=proc.turn_zero,
        overtime_minutes=proc.overtime_minutes,
        date=day,
        checkup=proc.checkup,
    )
