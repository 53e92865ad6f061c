"""The end-of-game record (docs/records.md) and the public board view, built from a game's state and log.

The record is a :class:`replay.engine.outputs.Record`, built here and nowhere else for a game
(``replay.engine.playoff`` builds a playoff's stub and settles parents); ``Record.to_json()`` is its JSON
and :func:`dumps` its canonical bytes.
"""

from __future__ import annotations

from typing import Any

from replay.engine.chain import dumps
from replay.engine.log import EventLog
from replay.engine.outputs import ENGINE, Audit, Chain, PlayoffOf, PrizeCount, Record, agrees
from replay.engine.public import public_result
from replay.engine.state import State

__all__ = ["build_board", "build_record", "dumps"]


def build_record(g: State, log: EventLog, *, provisional: bool = False) -> Record:
    """The record of the game ``g`` whose events ``log`` holds, as it stands."""
    started = g.started or {}
    unverified = sum(1 for k in g.knockouts if not k.verified)
    basis = "hp" if unverified == 0 else ("claims" if unverified == len(g.knockouts) else "mixed")
    if not g.knockouts and g.source.get("hp_known") is False:
        basis = "claims"
    return Record(
        match=log.match,
        ruleset=g.ruleset_id,
        ruleset_version=g.ruleset.version,
        engine=ENGINE,
        players=list(g.players),
        first=g.first,
        context=dict(g.context),
        source=dict(g.source),
        status=g.status,
        result=g.result,
        claimed=g.claimed,
        agrees=agrees(g.claimed, g.result),
        prizes={p: PrizeCount(pl.taken, pl.needed, pl.prizes) for p, pl in g.p.items()},
        knockouts=list(g.knockouts),
        findings=list(g.findings),
        penalties=list(g.penalties),
        turn=g.turn,
        audit=Audit(basis, unverified),
        parent=g.parent,
        children=list(g.children),
        playoff=g.playoff,
        playoff_of=PlayoffOf(g.playoff_kind, g.parent) if g.playoff_kind else None,
        chain=Chain("sha256", log.head.hex(), log.events()),
        signature=None,
        started_at=started.get("at"),
        provisional=provisional,
    )


def build_board(g: State, log: EventLog) -> dict[str, Any]:
    """The public board: Pokémon in play and counts; never a hidden card (hands, prizes, draws), and the
    result as every role sees it (``replay.engine.public``: no concession's free-text reason)."""
    players: dict[str, Any] = {}
    for pid, pl in g.p.items():
        players[pid] = {
            "active": g.mons[pl.active].view() if pl.active is not None else None,
            "bench": [g.mons[b].view() for b in pl.bench],
            "prizes_left": pl.prizes,
            "prizes_taken": pl.taken,
            "prizes_needed": pl.needed,
            "deck": pl.deck,
            "hand": pl.hand,
            "discard": pl.discard,
            "lost_zone": pl.lost_zone,
        }
    return {
        "match": log.match,
        "seq": log.next_seq - 1,
        "turn": g.turn,
        "source_turn": g.source_turn,
        "turn_player": g.turn_player,
        "last_attack": dict(g.last_attack) if g.last_attack is not None else None,
        "status": g.status,
        "result": public_result(g.result.to_json()) if g.result is not None else None,
        "players": players,
    }
