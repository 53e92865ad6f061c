"""The tournament layer that changes results: penalties [PG §3-4] and time called [TTH §7.4.3-7.4.4]."""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from replay.engine import result

if TYPE_CHECKING:
    from replay.engine.game import Event, Game

PRIZE_PENALTIES: Final = ("double_prize", "quad_prize")
LOSS_PENALTIES: Final = ("game_loss", "match_loss", "disqualification")


def on_penalty(g: Game, e: Event) -> None:
    pl = g.player(e)
    if pl is None:
        return
    seq = e["seq"]
    kind = str(e.get("kind"))
    g.penalties.append({"seq": seq, "player": pl.id, "kind": kind, "reason": e.get("reason")})
    opp = g.p[g.opponent(pl.id)]
    if kind in PRIZE_PENALTIES:
        if g.result is not None:
            return
        # [PG §3] the offender's opponent needs fewer prizes, and wins at once if already there.
        cut = g.ruleset.double_prize if kind == "double_prize" else g.ruleset.quad_prize
        opp.needed = max(0, opp.needed - cut)
        if opp.taken >= opp.needed:
            result.decide(
                g,
                seq,
                winner=opp.id,
                reason="penalty",
                detail=kind,
                conditions={opp.id: ["prizes"], pl.id: []},
            )
        return
    if kind not in LOSS_PENALTIES:
        return  # cautions and warnings are recorded only
    prior = g.result
    if prior is None:
        result.decide(g, seq, winner=opp.id, reason="penalty", detail=kind)
        return
    if (
        prior["reason"] == "penalty"
        and prior.get("detail") in LOSS_PENALTIES
        and prior["loser"] == opp.id
        and prior["decided_at"] == seq - 1
    ):
        # [PG §4] Game Losses to both players at once: no winner (not a tie).
        g.result = {
            **prior,
            "outcome": "no_winner",
            "winner": None,
            "loser": None,
            "decided_at": seq,
            "detail": "game losses to both players",
        }
        g.playoff = None
        g.status = "finished"
        g.emit({"type": "game_over", "seq": seq, "outcome": "no_winner", "winner": None, "reason": "penalty"})
        return
    if prior["loser"] != pl.id:
        # [PG §4] a Game Loss given right after a game applies to that game.
        g.result = {
            **prior,
            "outcome": "win",
            "winner": opp.id,
            "loser": pl.id,
            "reason": "penalty",
            "decided_at": seq,
            "detail": f"{kind} after the game",
            "conditions": {},
        }
        g.playoff = None
        g.status = "finished"
        g.emit({"type": "game_over", "seq": seq, "outcome": "win", "winner": opp.id, "reason": "penalty"})


def on_time_called(g: Game, e: Event) -> None:
    if g.result is not None or g.time is not None:
        return
    started = g.started or {}
    date = e.get("at") or started.get("at")
    proc = g.ruleset.time_procedure(date if isinstance(date, str) else None)
    # "current turn (turn 0) + N turns": called between turns, the next turn is turn 0.
    turns_left = proc.extra_turns + (0 if g.turn_open else 1)
    g.time = {
        "seq": e["seq"],
        "turns_left": turns_left,
        "extra_turns": proc.extra_turns,
        "turn_zero": proc.turn_zero,
        "overtime_minutes": proc.overtime_minutes,
    }


def time_turn_started(g: Game, seq: int) -> bool:
    """Count a turn after time was called; True when time is over (and the game was judged)."""
    assert g.time is not None
    if g.time["turns_left"] > 0:
        g.time["turns_left"] -= 1
        return False
    _time_over(g, seq)
    return g.result is not None


def time_over_at_end(g: Game, seq: int) -> None:
    """The source ended the game after the last turn allowed by time."""
    if g.time is not None and g.time["turns_left"] == 0 and not g.turn_open:
        _time_over(g, seq)


def _time_over(g: Game, seq: int) -> None:
    g.time = None
    if g.context.get("stage") == "single_elimination":
        # [TTH §7.4.4] fewest prizes remaining wins; equal: play on until someone leads or wins.
        a, b = g.players
        ra, rb = g.p[a].needed - g.p[a].taken, g.p[b].needed - g.p[b].taken
        if ra != rb:
            result.decide(
                g,
                seq,
                winner=a if ra < rb else b,
                reason="time",
                detail="fewer prizes remaining when time ran out",
            )
        else:
            g.lead_mode = "time"
        return
    # [TTH §7.4.3] Swiss: a game still in progress when time runs out is a tie.
    result.decide(g, seq, winner=None, reason="time", outcome="draw")
