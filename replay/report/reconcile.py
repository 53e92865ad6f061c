"""Reconciliation with the tournament software: the TDF's reported matches against the game records.

Every match the TDF reports (player 1 won, player 2 won, tie) is looked up among the report's matches by
round and pair of players (record player ids are matched to TDF players by :class:`PlayerIndex`):

- ``disagree``: the records give another result (or none yet: in progress, a tiebreaker still owed);
- ``missing``: no game records for a reported match;
- ``unrecorded_byes``: a bye in the TDF, but games recorded for that player in that round;
- ``not_in_tdf``: matches in the records that the TDF does not list;
- ``unknown_players``: players of the records that match no TDF player.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from replay.report.links import review_link
from replay.report.tdf import OUTCOMES, PlayerIndex, Tournament


def reconcile(
    tdf: Tournament, sections: Sequence[Mapping[str, Any]], round_filter: str | None, base_url: str
) -> dict[str, Any]:
    """Compare ``tdf`` with the matches of the report's ``sections`` (see the module docstring); with
    ``round_filter`` (the report's ``--round``), only that round of the TDF."""
    index = PlayerIndex(tdf.players.values())
    events = [ev for sec in sections for ev in sec["events"]]
    named = [ev for ev in events if ev["event"] == tdf.name]
    scope = named or events  # the TDF's own event when the records name it, else every event in scope
    recorded: dict[tuple[int, frozenset[str]], Mapping[str, Any]] = {}
    unknown: set[str] = set()
    for ev in scope:
        for m in ev["matches"]:
            uids = [index.userid(p) for p in m["players"]]
            for p, uid in zip(m["players"], uids, strict=True):
                if uid is None:
                    unknown.add(p)
            if None in uids or not str(m["round"]).isdigit():
                continue
            recorded[(int(m["round"]), frozenset(u for u in uids if u is not None))] = m
    only = int(round_filter) if round_filter and round_filter.isdigit() else None
    disagree: list[dict[str, Any]] = []
    missing: list[dict[str, Any]] = []
    byes_with_games: list[dict[str, Any]] = []
    reported = agree = 0
    for tm in tdf.matches:
        if only is not None and tm.round != only:
            continue
        names = [_name(tdf, uid) for uid in tm.players]
        where = {"round": tm.round, "table": tm.table, "line": tm.line, "players": names}
        if len(tm.players) == 1:
            played = [m for (r, pair), m in recorded.items() if r == tm.round and tm.players[0] in pair]
            if tm.outcome == 5 and played:
                byes_with_games.append({**where, "series": [m["series"] for m in played]})
            continue
        key = (tm.round, frozenset(tm.players))
        expected = tm.result
        if tm.outcome == 0:
            continue  # not reported yet in the tournament software: nothing to reconcile
        reported += 1
        m = recorded.get(key)
        tdf_says = _tdf_says(tm.outcome, expected)
        if m is None:
            missing.append({**where, "tdf": _show(tdf, tdf_says)})
            continue
        records_say = _records_say(m, index)
        if expected is None or records_say != tdf_says:
            disagree.append(
                {
                    **where,
                    "tdf": _show(tdf, tdf_says),
                    "records": _show(tdf, records_say),
                    "series": m["series"],
                    "links": [review_link(base_url, g["match"]) for g in m["games"]],
                }
            )
        else:
            agree += 1
    listed = {(tm.round, frozenset(tm.players)) for tm in tdf.matches}
    not_in_tdf = [
        {"round": m["round"], "series": m["series"], "players": list(m["players"])}
        for key, m in sorted(recorded.items(), key=lambda kv: (kv[0][0], kv[1]["series"]))
        if key not in listed and (only is None or key[0] == only)
    ]
    return {
        "tdf": tdf.path,
        "event": tdf.name,
        "reported": reported,
        "agree": agree,
        "disagree": disagree,
        "missing": missing,
        "unrecorded_byes": byes_with_games,
        "not_in_tdf": not_in_tdf,
        "unknown_players": sorted(unknown),
    }


def _name(tdf: Tournament, uid: str) -> str:
    player = tdf.players.get(uid)
    return f"{player.name} ({uid})" if player is not None and player.name else uid


def _tdf_says(outcome: int, result: Mapping[str, str] | None) -> tuple[str, str | None]:
    """A TDF result as ``(kind, winner userid)``: ``("win", uid)``, ``("tie", None)`` or the code's name."""
    if result is None:
        return (OUTCOMES.get(outcome, f"unknown outcome code {outcome}"), None)
    if outcome == 3:
        return ("tie", None)
    return ("win", next(uid for uid, r in result.items() if r == "win"))


def _records_say(m: Mapping[str, Any], index: PlayerIndex) -> tuple[str, str | None]:
    """The records' match result in the same terms (a winner no TDF player matches keeps its record id)."""
    if m["result"] is None:
        return (str(m["status"]).replace("_", " "), None)
    if m["winner"] is None:
        return ("tie", None)
    return ("win", index.userid(m["winner"]) or m["winner"])


def _show(tdf: Tournament, said: tuple[str, str | None]) -> str:
    kind, uid = said
    return f"{_name(tdf, uid)} won" if kind == "win" and uid is not None else kind
