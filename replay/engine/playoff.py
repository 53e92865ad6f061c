"""Playoff games and their links: the child's name, its record before it starts, and settled parents.

A drawn game that must be decided awaits a playoff game ``<root>/tbN`` (docs/rules.md §6); a drawn
playoff is followed by the next one (``/tb2``...). Once a playoff game has a winner, every drawn game
above it in the chain takes that winner with reason ``playoff`` (:func:`link_records`). Records are read
here as typed values (``replay.engine.outputs.Record``), once.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Mapping
from typing import Any, Final

import msgspec

from replay.engine.chain import GENESIS
from replay.engine.outputs import Chain, Drawn, PlayoffOf, Record

_TB: Final = re.compile(r"^(?P<root>.+)/tb(?P<n>\d+)$")


def child_name(match: str, parent: str | None) -> str:
    """The next playoff game's id: ``<root>/tb1`` for a game, ``<root>/tb(N+1)`` after ``<root>/tbN``."""
    m = _TB.match(match)
    if parent is not None and m is not None:
        return f"{m.group('root')}/tb{int(m.group('n')) + 1}"
    return f"{match}/tb1"


def playoff_stub(parent: Mapping[str, Any] | Record, child: str) -> dict[str, Any]:
    """The record of the playoff game ``child`` that ``parent`` (a record awaiting it) announced and
    that has not started yet: replaced by the child's own record when its ``match_started`` arrives."""
    rec = parent if isinstance(parent, Record) else Record.from_json(parent)
    if rec.playoff is None:
        raise ValueError(f"{rec.match} awaits no playoff")
    root = rec.parent or rec.match
    return Record(
        match=child,
        ruleset=rec.ruleset,
        ruleset_version=rec.ruleset_version,
        engine=rec.engine,
        players=list(rec.players),
        context=dict(rec.context or {}),
        source={},
        knockouts=[],
        findings=[],
        penalties=[],
        turn=0,
        parent=root,
        children=[],
        playoff_of=PlayoffOf(rec.playoff.kind, root),
        chain=Chain("sha256", GENESIS.hex(), 0),
        started_at=None,
        provisional=False,
        stub=True,
    ).to_json()


def link_records(records: Mapping[str, Mapping[str, Any]]) -> dict[str, dict[str, Any]]:
    """Settle every drawn game from its playoff games; returns new records (the inputs are not changed).

    A game awaiting a playoff (the root, or a drawn playoff game itself: ``/tb1`` awaiting ``/tb2``)
    takes the result of the first game down its chain that produces a winner: reason ``playoff``,
    ``result.playoff`` names that game and ``result.drawn`` keeps the draw. A drawn child hands over to
    the next one, and ``children`` lists every playoff game met. A provisional child (an effect still
    resolving) settles nothing yet. A record that is not an engine record is passed through and settles
    nothing. Records settled already settle the same way again.
    """
    typed: dict[str, Record] = {}
    for match, rec in records.items():
        try:
            typed[match] = Record.from_json(rec)
        except msgspec.ValidationError:
            continue
    out: dict[str, dict[str, Any]] = {}
    for match, rec in records.items():
        before = typed.get(match)
        after = settle(before, typed) if before is not None else None
        out[match] = after.to_json() if after is not None and after != before else copy.deepcopy(dict(rec))
    return out


def settle(rec: Record, records: Mapping[str, Record]) -> Record:
    """``rec`` settled by its chain of playoff games in ``records`` (``rec`` itself when nothing changes).

    A drawn playoff game in the chain (awaiting its own playoff, or already settled by it) hands over to
    its playoff, so a drawn ``/tb1`` and its root are both settled by the ``/tb2`` that decides them, with
    the same result, whether the records given are as the engine made them or settled already.
    """
    link = rec.playoff
    if rec.status != "awaiting_playoff" or link is None or rec.result is None:
        return rec
    drawn = rec.result
    children = list(rec.children)
    seen: set[str] = set()
    child = link.child
    while child not in seen:  # a chain that loops (names reused by hand) ends where it loops
        seen.add(child)
        if child not in children:
            children.append(child)
        crec = records.get(child)
        if crec is None or crec.provisional is True:
            break  # not stored yet, or an effect is still resolving in it: its result may change
        cres = crec.result
        if crec.playoff is not None and (
            crec.status == "awaiting_playoff" or (cres is not None and cres.reason == "playoff")
        ):
            child = crec.playoff.child
            link = msgspec.structs.replace(link, child=child)
            continue
        if crec.status == "finished" and cres is not None and cres.outcome == "win":
            result = msgspec.structs.replace(
                drawn,
                outcome="win",
                winner=cres.winner,
                loser=cres.loser,
                reason="playoff",
                playoff=child,
                drawn=Drawn(drawn.reason, drawn.decided_at),
            )
            link = msgspec.structs.replace(link, child=child)
            return msgspec.structs.replace(
                rec, result=result, status="finished", playoff=link, children=children
            )
        break
    if link == rec.playoff and children == rec.children:
        return rec
    return msgspec.structs.replace(rec, playoff=link, children=children)


def playoff_games(record: Mapping[str, Any]) -> list[str]:
    """The playoff games a record names: its children, then the game its playoff link points to."""
    rec = Record.from_json(record)
    games = list(rec.children)
    if rec.playoff is not None and rec.playoff.child not in games:
        games.append(rec.playoff.child)
    return games
