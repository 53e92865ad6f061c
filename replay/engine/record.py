"""The end-of-game record (contract §3) and the public board view, and their canonical JSON."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from replay.engine.result import claim_agrees

if TYPE_CHECKING:
    from replay.engine.game import Game


def dumps(obj: Any) -> bytes:
    """Canonical JSON: sorted keys, no spaces, UTF-8. Records rebuilt from the same events are identical."""
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def _engine() -> str:
    from replay.engine.game import ENGINE_VERSION

    return f"prizecheck {ENGINE_VERSION}"


def build_record(g: Game) -> dict[str, Any]:
    """The record of ``g`` as it stands (contract §3)."""
    started = g.started or {}
    unverified = sum(1 for k in g.knockouts if not k["verified"])
    basis = "hp" if unverified == 0 else ("claims" if unverified == len(g.knockouts) else "mixed")
    if not g.knockouts and g.source.get("hp_known") is False:
        basis = "claims"
    return {
        "match": g.match,
        "ruleset": g.ruleset_id,
        "ruleset_version": g.ruleset.version,
        "engine": _engine(),
        "players": list(g.players),
        "first": g.first,
        "context": dict(g.context),
        "source": dict(g.source),
        "status": g.status,
        "result": dict(g.result) if g.result is not None else None,
        "claimed": dict(g.claimed) if g.claimed is not None else None,
        "agrees": claim_agrees(g.claimed, g.result),
        "prizes": {
            p: {"taken": pl.taken, "needed": pl.needed, "remaining": pl.prizes} for p, pl in g.p.items()
        },
        "knockouts": [dict(k) for k in g.knockouts],
        "findings": [dict(f) for f in g.findings],
        "penalties": [dict(x) for x in g.penalties],
        "turn": g.turn,
        "audit": {"basis": basis, "unverified_knockouts": unverified},
        "parent": g.parent,
        "children": list(g.children),
        "playoff": dict(g.playoff) if g.playoff is not None else None,
        "playoff_of": {"kind": g.playoff_kind, "parent": g.parent} if g.playoff_kind else None,
        "chain": {"alg": "sha256", "head": g.head.hex(), "events": len(g.raw) - len(g.missing)},
        "signature": None,
        "started_at": started.get("at"),
    }


def build_board(g: Game) -> dict[str, Any]:
    """The public board: Pokémon in play and counts; never a hidden card (hands, prizes, draws)."""
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
        "match": g.match,
        "seq": g.next_seq - 1,
        "turn": g.turn,
        "source_turn": g.source_turn,
        "turn_player": g.turn_player,
        "status": g.status,
        "result": dict(g.result) if g.result is not None else None,
        "players": players,
    }
