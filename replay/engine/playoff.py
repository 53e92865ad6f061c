"""Playoffs for drawn games that must be decided, and the parent/child links [rules.md §6].

KR1.0 sudden death (1 prize, first prize wins), JP3.4 tiebreak and TTH tiebreaker game (6 prizes, first
prize lead wins) are ruleset data. The playoff is a new game ``<root>/tbN`` linked to the drawn one; a drawn
playoff is followed by the next (``/tb2``...), and the root's result is taken from the deciding child.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from replay.engine.game import Event, Game

_TB = re.compile(r"^(?P<root>.+)/tb(?P<n>\d+)$")


def child_name(match: str, parent: str | None) -> str:
    """The next playoff game's id: ``<root>/tb1`` for a game, ``<root>/tb(N+1)`` after ``<root>/tbN``."""
    m = _TB.match(match)
    if parent is not None and m is not None:
        return f"{m.group('root')}/tb{int(m.group('n')) + 1}"
    return f"{match}/tb1"


def require_playoff(g: Game, seq: int) -> None:
    """A drawn game that must be decided awaits its playoff child [KR1.0; JP3.4; TTH §7.4.3.1]."""
    assert g.match is not None
    child = child_name(g.match, g.parent)
    po = g.ruleset.playoff
    g.playoff = {"kind": po.kind, "prizes": po.prizes, "child": child}
    g.status = "awaiting_playoff"
    if child not in g.children:
        g.children.append(child)
    g.emit({"type": "playoff_required", "seq": seq, "child": child, "playoff": po.kind, "prizes": po.prizes})


def on_note(g: Game, e: Event) -> None:
    """Annotations; an importer's note carrying a ``finding`` becomes a finding a reviewer sees."""
    f = e.get("finding")
    if isinstance(f, Mapping) and isinstance(f.get("code"), str):
        sev = f.get("severity") if f.get("severity") in ("info", "warning", "violation") else "info"
        g.find(str(f["code"]), e["seq"], str(e.get("text", "")), str(sev))


def link_records(records: Mapping[str, Mapping[str, Any]]) -> dict[str, dict[str, Any]]:
    """Settle every parent from its playoff children; returns new records (the inputs are not changed).

    A root awaiting a playoff takes the result of the first child that produces a winner (reason
    ``playoff``); a drawn child hands over to the next one (``/tb2``...). Children list every playoff game.
    """
    out = {m: copy.deepcopy(dict(r)) for m, r in records.items()}
    for rec in out.values():
        if rec.get("parent") is not None:
            continue
        po = rec.get("playoff")
        if rec.get("status") != "awaiting_playoff" or not isinstance(po, Mapping):
            continue
        children = list(rec.get("children") or [])
        child = po.get("child")
        while isinstance(child, str):
            if child not in children:
                children.append(child)
            crec = out.get(child)
            if crec is None or crec.get("provisional"):
                break  # not stored yet, or an effect is still resolving in it: its result may change
            cres = crec.get("result") or {}
            if crec.get("status") == "finished" and cres.get("outcome") == "win":
                res = dict(rec.get("result") or {})
                res.update(
                    {
                        "outcome": "win",
                        "winner": cres.get("winner"),
                        "loser": cres.get("loser"),
                        "reason": "playoff",
                        "playoff": child,
                        "drawn": {
                            "reason": (rec.get("result") or {}).get("reason"),
                            "decided_at": (rec.get("result") or {}).get("decided_at"),
                        },
                    }
                )
                rec["result"] = res
                rec["status"] = "finished"
                rec["playoff"] = {**po, "child": child}
                break
            if crec.get("status") == "awaiting_playoff" and isinstance(crec.get("playoff"), Mapping):
                child = crec["playoff"].get("child")
                rec["playoff"] = {**po, "child": child}
                continue
            break
        rec["children"] = children
    return out
