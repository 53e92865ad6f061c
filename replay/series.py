"""Matches of several games (best of three), Swiss standings with tiebreakers, and the top cut.

Pure functions over end-of-game records (their typed values, :class:`replay.engine.outputs.Record`, as
:mod:`replay.records` decodes them; or their :class:`GameResult` summaries): games are grouped by
``context.series`` (with league, season, event and round); single elimination is always best of three,
two game wins take the match; when time ends a match early, the player with more game wins takes it and
equal game wins are a tie in Swiss [TTH §7.2, §7.4]. Match points: win 3, tie 1, loss 0, a bye counts as
a win [TRH; docs/reports.md].

Standings follow Play! Pokémon's tiebreakers (docs/reports.md cites the public texts): match points, then
opponents' win percentage (OWP), then opponents' opponents' win percentage (OOWP), then head-to-head.

- A player's win percentage is (match wins + half the ties) / matches played. Byes count in neither.
- It is never below 25 %; a player who dropped has it capped at 75 % and counts only the rounds played.
- OWP is the average of the opponents' win percentages (one term per match played); OOWP the average of
  the opponents' OWP. They are compared at 12 decimals (so equal ones are equal) and shown at 4.

Only Swiss rounds count towards the standings; single-elimination rounds (the top cut) place the players
who made the cut by the round they were eliminated in, then by their Swiss standing.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass, field
from sys import intern
from typing import Any

import msgspec

from replay.engine import Record

MATCH_POINTS = {"win": 3, "tie": 1, "loss": 0}
BYE_POINTS = 3
GAMES_TO_WIN = 2
WIN_PCT_FLOOR = 0.25  # an opponent never counts for less than 25 %
DROPPED_CAP = 0.75  # a player who dropped never counts for more than 75 %
# Tiebreakers are compared at 12 decimals: means of a few dozen fractions with small denominators that
# are equal come out equal there (float rounding is ~1e-16), and different ones differ far above it.
_COMPARE_DIGITS = 12
SWISS = "swiss"
DIVISION_ORDER = ("juniors", "seniors", "masters")  # Play! Pokémon's age divisions, youngest first
SINGLE_ELIMINATION = "single_elimination"
DOUBLE_LOSS = "double_loss"  # a game's result reason: a loss for both players (両者敗北)
#: Rulesets whose match, level at one game win each when time ends it, is decided by a sudden death played
#: as a game of its own, in Swiss too [JP 終了コール ② 「第2ゲームの勝者と第1ゲームの勝者が異なる場合は、
#: サドンデスを行い」, docs/rules.md §6.1 "Time called: game 2"]; elsewhere such a match is a Swiss tie.
LEVEL_MATCH_SUDDEN_DEATH = frozenset({"jp-3.4"})


# A msgspec Struct, frozen and outside the cycle collector (it holds only strings and ints): made in a
# fraction of a frozen dataclass's time (which sets each field through object.__setattr__), 16 bytes
# smaller, and never walked by the collector, which a season's million of them made slow.
class GameResult(msgspec.Struct, frozen=True, gc=False):
    """What a match needs to know of one game's record (small: the report keeps one per game)."""

    match: str
    game: int
    players: tuple[str, str]
    status: str
    outcome: str | None
    winner: str | None
    reason: str | None
    stage: str | None
    ruleset: str | None = None

    @classmethod
    def of(cls, record: Record) -> GameResult:
        """The summary of a record (docs/records.md) (parents already settled by their playoffs)."""
        # The report makes one per game of a season: no step here that the common record does not need.
        ctx = record.context or {}
        res = record.result
        players = record.players
        if len(players) >= 2:
            a, b = str(players[0]), str(players[1])
        else:
            a, b = (*(str(p) for p in players), "", "")[:2]
        try:
            game = int(ctx.get("game") or 0)
        except (TypeError, ValueError):
            game = 0
        # a season holds one of these per game: the few distinct names are interned, not copied per game
        stage = ctx.get("stage")
        if res is None:
            outcome = winner = reason = None
        else:
            outcome, reason = intern(res.outcome), intern(res.reason)
            winner = None if res.winner is None else intern(res.winner)
        return cls(
            str(record.match),
            game,
            (intern(a), intern(b)),
            intern(record.status or "in_progress"),
            outcome,
            winner,
            reason,
            intern(stage) if isinstance(stage, str) else None,
            intern(record.ruleset) if record.ruleset else None,
        )


def series_key(record: Record) -> tuple[str, ...] | None:
    """The match a game belongs to, or None for a game outside any series (and playoff children)."""
    ctx = record.context or {}
    if record.parent is not None or ctx.get("series") is None:
        return None
    return tuple(str(ctx.get(k, "")) for k in ("league", "season", "event", "round", "series"))


def match_result(games: Iterable[GameResult | Record]) -> dict[str, Any]:
    """The result of one match from its games (parents already settled by their playoffs).

    ``decided_by``: ``two_game_wins``; ``time`` (time ended the match, more game wins took it [TTH
    §7.4.3]); ``level`` (equal game wins in Swiss: a tie); ``double_loss`` (equal game wins and a game
    ended as a loss for both, 両者敗北: the match is a loss for both, docs/rules.md §6); None while
    undecided. ``status`` ``needs_tiebreaker``: a game must still decide the match (a tiebreaker game in
    single elimination; under ``jp-3.4`` a sudden death after one game win each, in every stage).
    """
    summaries = [g if isinstance(g, GameResult) else GameResult.of(g) for g in games]
    ordered = sorted(summaries, key=lambda g: (g.game, g.match))
    players = list(ordered[0].players)
    wins = dict.fromkeys(players, 0)
    ties = 0
    pending = []
    summary = []
    for g in ordered:
        if g.status != "finished" or g.outcome is None:
            pending.append(g.match)
            summary.append({"match": g.match, "game": g.game, "result": None})
            continue
        if g.outcome == "win" and g.winner in wins:
            wins[g.winner] += 1
        elif g.outcome == "draw":
            ties += 1
        summary.append(
            {"match": g.match, "game": g.game, "result": g.outcome, "winner": g.winner, "reason": g.reason}
        )
    a, b = players
    stage = ordered[0].stage
    outcome: dict[str, Any] = {
        "players": players,
        "stage": stage or SWISS,
        "games": summary,
        "wins": wins,
        "ties": ties,
    }
    if wins[a] >= GAMES_TO_WIN or wins[b] >= GAMES_TO_WIN:
        winner = a if wins[a] > wins[b] else b
        outcome.update(status="finished", winner=winner, result=_won(players, winner))
        outcome["decided_by"] = "two_game_wins"
    elif pending:
        outcome.update(status="in_progress", winner=None, result=None, decided_by=None)
    elif wins[a] != wins[b]:
        # Time ended the match early: more game wins takes it [TTH §7.4.3].
        winner = a if wins[a] > wins[b] else b
        outcome.update(status="finished", winner=winner, result=_won(players, winner), decided_by="time")
    elif any(g.reason == DOUBLE_LOSS for g in ordered):
        # Level, and a game was a loss for both (両者敗北: the event's rule at time, or a judge's): no
        # player took the match, and neither tied it [docs/rules.md §6, "Penalties that change results"]
        outcome.update(status="finished", winner=None, result={a: "loss", b: "loss"}, decided_by=DOUBLE_LOSS)
    elif stage == SINGLE_ELIMINATION or (wins[a] >= 1 and ordered[0].ruleset in LEVEL_MATCH_SUDDEN_DEATH):
        # Level in single elimination: a tiebreaker game must decide [TTH §7.4.3.1]. Under JP's time
        # procedure, games 1 and 2 won by different players: a sudden death decides the match, in Swiss too
        # [JP 終了コール ②, docs/rules.md §6.1], recorded as the match's next game.
        outcome.update(status="needs_tiebreaker", winner=None, result=None, decided_by=None)
    else:
        outcome.update(status="finished", winner=None, result={a: "tie", b: "tie"}, decided_by="level")
    result = outcome["result"]
    outcome["points"] = {p: MATCH_POINTS[result[p]] for p in players} if result else None
    return outcome


def _won(players: list[str], winner: str) -> dict[str, str]:
    loser = players[1] if players[0] == winner else players[0]
    return {winner: "win", loser: "loss"}


# ----------------------------------------------------------------------------------------- standings


@dataclass(frozen=True, slots=True)
class Pairing:
    """One match of one round as the standings see it: its players and each one's result.

    ``result`` maps each player to ``win``, ``loss`` or ``tie``; None while the match is undecided (it
    counts for nobody yet).
    """

    round: int
    players: tuple[str, str]
    result: Mapping[str, str] | None
    stage: str = SWISS


@dataclass
class _Player:
    wins: int = 0
    losses: int = 0
    ties: int = 0
    byes: int = 0
    opponents: list[str] = field(default_factory=list)
    beat: set[str] = field(default_factory=set)

    @property
    def played(self) -> int:
        return self.wins + self.losses + self.ties


def win_percentage(wins: int, ties: int, played: int, *, dropped: bool) -> float:
    """A player's win percentage as an opponent: (wins + ties / 2) / played, at least 25 %, and at most
    75 % for a player who dropped. Byes are in neither count."""
    pct = (wins + ties / 2) / played if played else 0.0
    pct = max(pct, WIN_PCT_FLOOR)
    if dropped:
        pct = min(pct, DROPPED_CAP)
    return pct


def swiss_standings(
    pairings: Iterable[Pairing],
    byes: Mapping[str, Collection[int]] | None = None,
    dropped: Mapping[str, int] | None = None,
) -> list[dict[str, Any]]:
    """The Swiss standings: one row per player, best first.

    ``byes`` names the rounds in which each player had a bye; ``dropped`` the last round each dropped
    player took part in. Rows: ``rank``, ``player``, ``points``, ``win``, ``loss``, ``tie``, ``bye``,
    ``played``, ``dropped`` (round or None), ``win_pct``, ``owp``, ``oowp`` (fractions, 4 decimals).
    Order: points, OWP, OOWP, then head-to-head between two players level on all three, then player id
    (Play! Pokémon's software breaks what is left at random; a report must be reproducible).
    """
    byes = byes or {}
    dropped = dropped or {}
    table: dict[str, _Player] = defaultdict(_Player)
    for p in pairings:
        if p.stage != SWISS:
            continue
        a, b = p.players
        table[a], table[b]
        if p.result is None:
            continue
        for me, them in ((a, b), (b, a)):
            r = p.result.get(me)
            row = table[me]
            row.opponents.append(them)
            if r == "win":
                row.wins += 1
                row.beat.add(them)
            elif r == "loss":
                row.losses += 1
            elif r == "tie":
                row.ties += 1
    for player, rounds in byes.items():
        table[player].byes += len(set(rounds))
    for player in dropped:
        table[player]
    pct = {
        name: win_percentage(row.wins, row.ties, row.played, dropped=name in dropped)
        for name, row in table.items()
    }
    owp = {name: _mean(pct[o] for o in row.opponents) for name, row in table.items()}
    oowp = {name: _mean(owp[o] for o in row.opponents) for name, row in table.items()}
    points = {
        name: row.wins * MATCH_POINTS["win"] + row.ties * MATCH_POINTS["tie"] + row.byes * BYE_POINTS
        for name, row in table.items()
    }

    keys = {
        name: (-points[name], -round(owp[name], _COMPARE_DIGITS), -round(oowp[name], _COMPARE_DIGITS))
        for name in table
    }
    key = keys.__getitem__
    ordered = sorted(table, key=lambda n: (*keys[n], n))
    # Head-to-head: of two players level on points, OWP and OOWP, the one who beat the other goes first.
    i = 0
    while i < len(ordered):
        j = i
        while j + 1 < len(ordered) and key(ordered[j + 1]) == key(ordered[i]):
            j += 1
        if j == i + 1:
            first, second = ordered[i], ordered[j]
            if first in table[second].beat and second not in table[first].beat:
                ordered[i], ordered[j] = second, first
        i = j + 1
    rows = []
    for rank, name in enumerate(ordered, 1):
        row = table[name]
        rows.append(
            {
                "rank": rank,
                "player": name,
                "points": points[name],
                "win": row.wins,
                "loss": row.losses,
                "tie": row.ties,
                "bye": row.byes,
                "played": row.played,
                "dropped": dropped.get(name),
                "win_pct": _round(pct[name]),
                "owp": _round(owp[name]),
                "oowp": _round(oowp[name]),
            }
        )
    return rows


def rank_by_division(table: list[dict[str, Any]], division: Mapping[str, str]) -> list[dict[str, Any]]:
    """The standings ranked within each age division (Play! Pokémon ranks Juniors, Seniors and Masters
    apart even when they were paired together): each row gets its ``division`` (None when unknown) and its
    ``rank`` in it; divisions in the order Juniors, Seniors, Masters, then the rows without one. The
    tiebreakers stay the whole pod's, so the order within a division is the pod's order."""
    order = {name: i for i, name in enumerate(DIVISION_ORDER)}
    rows = sorted(
        table, key=lambda row: (order.get(division.get(row["player"], ""), len(order)), row["rank"])
    )
    ranks: dict[str | None, int] = defaultdict(int)
    for row in rows:
        div = row["division"] = division.get(row["player"])
        ranks[div] += 1
        row["rank"] = ranks[div]
    return rows


def _mean(values: Iterable[float]) -> float:
    vals = list(values)
    return sum(vals) / len(vals) if vals else 0.0


def _round(value: float) -> float:
    return round(value, 4)


def infer_byes_and_drops(pairings: Iterable[Pairing]) -> tuple[dict[str, set[int]], dict[str, int]]:
    """Byes and drops read from who played which Swiss round, when the tournament's own file is absent.

    Swiss pairs everyone still in the event every round, so a player missing from a round they were
    still in had a bye: missing from a round before their last match is a bye; missing from every round
    after their last match is a drop after it. The one case the games cannot tell apart, a single
    player missing from the last round only, is read as the bye when the field was odd (one player over
    pairs of two), else as a drop. ``prizecheck report --tdf`` takes both from the tournament software.
    """
    played: dict[str, set[int]] = defaultdict(set)
    for p in pairings:
        if p.stage == SWISS:
            for name in p.players:
                played[name].add(p.round)
    if not played:
        return {}, {}
    rounds = sorted({r for rs in played.values() for r in rs})
    last_round = rounds[-1]
    byes: dict[str, set[int]] = {}
    dropped: dict[str, int] = {}
    for name, mine in played.items():
        last = max(mine)
        missing = {r for r in rounds if r not in mine and r < last}
        if missing:
            byes[name] = missing
        if last < last_round:
            dropped[name] = last
    # The last round: one player missing from it alone, in an odd field, had the bye.
    only_last = [n for n, last in dropped.items() if last == rounds[-2]] if len(rounds) > 1 else []
    if len(only_last) == 1:
        name = only_last[0]
        field_size = sum(1 for mine in played.values() if last_round in mine) + 1
        if field_size % 2 == 1:
            del dropped[name]
            byes.setdefault(name, set()).add(last_round)
    return byes, dropped


def top_cut(pairings: Iterable[Pairing], seeding: list[str]) -> list[dict[str, Any]]:
    """Places of the players in the single-elimination rounds: the champion 1, the finalist 2, then the
    players knocked out in each earlier round, each group in the order of the Swiss ``seeding``.

    Rows: ``place``, ``player``, ``eliminated_in`` (round; None for the champion or a player still in).
    """
    elim = [p for p in pairings if p.stage == SINGLE_ELIMINATION]
    if not elim:
        return []
    seed = {name: i for i, name in enumerate(seeding)}
    players = {name for p in elim for name in p.players}
    out_in: dict[str, int] = {}
    for p in elim:
        if p.result:
            for name, r in p.result.items():
                if r == "loss":
                    out_in[name] = p.round
    still_in = sorted(players - set(out_in), key=lambda n: (seed.get(n, len(seed)), n))
    rows: list[dict[str, Any]] = [
        {"place": 1 if len(still_in) == 1 else None, "player": name, "eliminated_in": None}
        for name in still_in
    ]
    # A player knocked out in round r is placed below everyone who lasted longer; the players knocked out
    # in the same round share the place (3-4, 5-8) and are listed in the order of the Swiss standing.
    for rnd in sorted(set(out_in.values()), reverse=True):
        group = sorted((n for n, r in out_in.items() if r == rnd), key=lambda n: (seed.get(n, len(seed)), n))
        place = 1 + len(still_in) + sum(1 for r in out_in.values() if r > rnd)
        rows.extend({"place": place, "player": name, "eliminated_in": rnd} for name in group)
    return rows


def pairings_from_matches(matches: Iterable[Mapping[str, Any]]) -> list[Pairing]:
    """The standings' view of matches built by :func:`match_result` (with ``round`` added)."""
    out = []
    for m in matches:
        try:
            rnd = int(m.get("round") or 0)
        except (TypeError, ValueError):
            rnd = 0
        out.append(Pairing(rnd, (m["players"][0], m["players"][1]), m.get("result"), m.get("stage") or SWISS))
    return out


def standings(records: Iterable[Record]) -> dict[str, Any]:
    """Every match found in ``records`` and the Swiss standings with their tiebreakers.

    A convenience over :func:`match_result` and :func:`swiss_standings` for a handful of records of one
    event (byes and drops inferred from the rounds played); the report keeps one summary per game and
    builds the same per event (:mod:`replay.report`).
    """
    by_series: dict[tuple[str, ...], list[GameResult]] = defaultdict(list)
    for rec in records:
        key = series_key(rec)
        if key is not None:
            by_series[key].append(GameResult.of(rec))
    matches = []
    for key, games in sorted(by_series.items()):
        res = match_result(games)
        res["series"] = key[-1]
        res["round"] = key[3]
        matches.append(res)
    pairings = pairings_from_matches(matches)
    byes, dropped = infer_byes_and_drops(pairings)
    return {"matches": matches, "table": swiss_standings(pairings, byes, dropped)}
