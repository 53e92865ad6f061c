"""Matches of several games (best of three) and league standings [TTH §7.2, §7.4; TRH §5.3].

Pure functions over end-of-game records: games are grouped by ``context.series`` (with league, season,
event and round); single elimination is always best of three, two game wins take the match; when time
ends a match early, the player with more game wins takes it and equal game wins are a tie (Swiss). Match
points: win 3, tie 1, loss 0.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping
from typing import Any

MATCH_POINTS = {"win": 3, "tie": 1, "loss": 0}
GAMES_TO_WIN = 2


def series_key(record: Mapping[str, Any]) -> tuple[str, ...] | None:
    """The match a game belongs to, or None for a game outside any series (and playoff children)."""
    ctx = record.get("context") or {}
    if record.get("parent") is not None or ctx.get("series") is None:
        return None
    return tuple(str(ctx.get(k, "")) for k in ("league", "season", "event", "round", "series"))


def match_result(games: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
    """The result of one match from its games' records (parents already settled by their playoffs)."""
    ordered = sorted(games, key=lambda r: (int((r.get("context") or {}).get("game") or 0), str(r["match"])))
    players = list(ordered[0]["players"])
    wins = dict.fromkeys(players, 0)
    ties = 0
    pending = []
    summary = []
    for rec in ordered:
        res = rec.get("result")
        if rec.get("status") != "finished" or res is None:
            pending.append(rec["match"])
            summary.append({"match": rec["match"], "result": None})
            continue
        if res.get("outcome") == "win" and res.get("winner") in wins:
            wins[res["winner"]] += 1
        elif res.get("outcome") == "draw":
            ties += 1
        summary.append(
            {
                "match": rec["match"],
                "result": res.get("outcome"),
                "winner": res.get("winner"),
                "reason": res.get("reason"),
            }
        )
    a, b = players
    stage = (ordered[0].get("context") or {}).get("stage")
    outcome: dict[str, Any] = {"players": players, "games": summary, "wins": wins, "ties": ties}
    if wins[a] >= GAMES_TO_WIN or wins[b] >= GAMES_TO_WIN:
        winner = a if wins[a] > wins[b] else b
        outcome.update(
            status="finished", winner=winner, result={winner: "win", _other(players, winner): "loss"}
        )
    elif pending:
        outcome.update(status="in_progress", winner=None, result=None)
    elif wins[a] != wins[b]:
        # Time ended the match early: more game wins takes it [TTH §7.4.3].
        winner = a if wins[a] > wins[b] else b
        outcome.update(
            status="finished", winner=winner, result={winner: "win", _other(players, winner): "loss"}
        )
    elif stage == "single_elimination":
        # Level in single elimination: a tiebreaker game must decide [TTH §7.4.3.1].
        outcome.update(status="needs_tiebreaker", winner=None, result=None)
    else:
        outcome.update(status="finished", winner=None, result={a: "tie", b: "tie"})
    result = outcome["result"]
    outcome["points"] = {p: MATCH_POINTS[result[p]] for p in players} if result else None
    return outcome


def _other(players: list[str], player: str) -> str:
    return players[1] if players[0] == player else players[0]


def standings(records: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
    """Every match found in ``records`` and the points table: points, then match wins, then name."""
    by_series: dict[tuple[str, ...], list[Mapping[str, Any]]] = defaultdict(list)
    for rec in records:
        key = series_key(rec)
        if key is not None:
            by_series[key].append(rec)
    matches = []
    table: dict[str, dict[str, int]] = defaultdict(lambda: {"points": 0, "win": 0, "loss": 0, "tie": 0})
    for key, games in sorted(by_series.items()):
        res = match_result(games)
        res["series"] = key[-1]
        res["round"] = key[3]
        matches.append(res)
        if res["result"]:
            for player, r in res["result"].items():
                table[player][r] += 1
                table[player]["points"] += MATCH_POINTS[r]
    ranked = sorted(table.items(), key=lambda kv: (-kv[1]["points"], -kv[1]["win"], kv[0]))
    return {"matches": matches, "table": [{"player": p, **v} for p, v in ranked]}
