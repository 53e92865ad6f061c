"""A simulated league event: Swiss rounds of best-of-three matches, then a top cut in single elimination.

``prizecheck simulate --league L --players N --rounds R`` (:mod:`replay.cli.simulate`). Every game is a
full simulated game (:func:`replay.generators.simulate.simulate_game`) with ``context`` naming the league,
season, event, round, table, ``series`` (the match) and ``game``, so that ``prizecheck report`` rebuilds
the matches and standings from the games alone.

The tournament is run as Play! Pokémon runs one (docs/reports.md):

- Swiss pairing: players with the same match points meet, no rematch where it can be avoided; an odd
  field gives the lowest-ranked player without one a bye (a win, 3 points).
- Best of three; time can end a match early: during game 1 a tie, then the player ahead on games wins,
  level is a tie [TTH §7.4.3]. Swiss games that end drawn stay drawn (``must_decide`` false).
- Some players drop after losing early; they leave the pairings.
- The top cut (``top_cut`` players by Swiss standing: 1 v 8, 4 v 5, 2 v 7, 3 v 6) is single elimination,
  best of three; a drawn game there must be decided, by a playoff game (``<game>/tb1``), and one of them
  is steered to a drawn first playoff so that a second one (``/tb2``) follows [docs/rules.md §6].

Deterministic in ``seed``. :attr:`LeagueSim.tournament` says afterwards what the tournament software
recorded (players, byes, drops, every match's outcome) for a ``.tdf``.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, Final

from replay.engine import InputError
from replay.generators.simulate import FAULTS, RULESETS, SCENARIO_QUOTA, Setting, simulate_game
from replay.series import (
    SINGLE_ELIMINATION,
    SWISS,
    GameResult,
    Pairing,
    match_result,
    swiss_standings,
)

Event = dict[str, Any]

_FIRST: Final = (
    "Ash", "Misty", "Brock", "May", "Dawn", "Serena", "Lillie", "Gloria",
    "Nemona", "Penny", "Iris", "Cynthia", "Marnie", "Hop", "Kieran", "Carmine",
)  # fmt: skip
_LAST: Final = (
    "Ketchum", "Waterflower", "Harrison", "Maple", "Berlitz", "Yvonne", "Aether", "Galar",
    "Paldea", "Star", "Opelucid", "Shirona", "Spikemuth", "Wedgehurst", "Kitakami", "Blueberry",
)  # fmt: skip
# Swiss games: the simulator's usual endings, playoffs aside (a drawn Swiss game stays a tie).
_SWISS_SCENARIOS: Final = {k: v for k, v in SCENARIO_QUOTA.items() if k != "playoff"}
_TIME_IN_GAME_3: Final = 0.2  # how often time runs out during a third game (a tie when level)
_DROP_CHANCE: Final = 0.25  # a player without a match win after two rounds drops
_MAX_GAMES: Final = 5  # a single-elimination match goes on until someone has two game wins
# How each table's games were recorded: streamed by the digital client, a scanned match sheet, or a judge's
# app by hand (which knows no HP: its knockouts are taken from the claims).
_SOURCES: Final = {"digital": 5, "scanned": 3, "manual": 2}
_FAULT_CHANCE: Final = 0.08  # a game with one source error (replay.generators.simulate.FAULTS)
_WRONG_CLAIM: Final = 0.06  # a scanned or manual game whose claimed winner is the wrong player


@dataclass(frozen=True)
class LeaguePlayer:
    """A player: the id the game records use, the name and the Play! Pokémon ID the tournament file uses."""

    id: str
    first: str
    last: str
    userid: str


@dataclass
class LeagueMatch:
    """A match as the tournament software records it: TOM's outcome code (1 player 1 won, 2 player 2
    won, 3 tie, 5 bye) and the games' match ids."""

    round: int
    table: int
    players: tuple[str, ...]
    outcome: int
    stage: str
    series: str = ""
    games: list[str] = field(default_factory=list)


@dataclass
class Tournament:
    """What the tournament software knows once the event is over."""

    league: str
    season: str
    event: str
    day: str
    ruleset: str
    players: list[LeaguePlayer]
    matches: list[LeagueMatch] = field(default_factory=list)
    dropped: dict[str, int] = field(default_factory=dict)


def default_top_cut(players: int) -> int:
    """The top cut for a field: none under 8 players, top 4 under 20, else top 8."""
    return 0 if players < 8 else (4 if players < 20 else 8)


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "-", text.strip()).strip("-").lower() or "league"


class LeagueSim:
    """One league event, simulated game by game: iterate :meth:`streams`, then read :attr:`tournament`."""

    def __init__(
        self,
        league: str,
        players: int,
        rounds: int,
        *,
        seed: int = 0,
        season: str = "2026",
        event: str = "League Cup",
        ruleset: str = "play-2026",
        top_cut: int | None = None,
    ) -> None:
        if players < 2:
            raise InputError("a league needs at least 2 players", field="--players")
        if players > len(_FIRST) * len(_LAST) * 8:
            raise InputError(f"at most {len(_FIRST) * len(_LAST) * 8} players", field="--players")
        if rounds < 1:
            raise InputError("must be >= 1", field="--rounds")
        if ruleset not in RULESETS:
            raise InputError(f"unknown ruleset {ruleset!r} (known: {', '.join(RULESETS)})", field="--ruleset")
        cut = default_top_cut(players) if top_cut is None else top_cut
        if cut not in (0, 2, 4, 8, 16) or cut > players:
            raise InputError("the top cut is 0, 2, 4, 8 or 16 players, at most the field", field="--top-cut")
        self.rng = random.Random(seed)
        self.rounds = rounds
        self.cut = cut
        self.prefix = f"{_slug(league)}-{_slug(season)}"
        year = season if season.isdigit() and len(season) == 4 else "2026"
        self.tournament = Tournament(league, season, event, f"{year}-03-14", ruleset, self._players(players))
        self._tb2_planned = cut > 0

    def _players(self, n: int) -> list[LeaguePlayer]:
        names = [(f, ln) for f in _FIRST for ln in _LAST]
        self.rng.shuffle(names)
        out = []
        for i in range(n):
            first, last = names[i % len(names)]
            lap = i // len(names)
            last_name = last if lap == 0 else f"{last} {lap + 1}"
            out.append(LeaguePlayer(_slug(f"{first}-{last_name}"), first, last_name, str(3100000 + i * 137)))
        return out

    # -------------------------------------------------------------------------------------- games
    def _context(self, rnd: int, table: int, game: int, stage: str) -> dict[str, Any]:
        t = self.tournament
        return {
            "league": t.league,
            "season": t.season,
            "event": t.event,
            "round": rnd,
            "table": table,
            "series": f"r{rnd}-t{table}",
            "game": game,
            "stage": stage,
        }

    def _match(self, rnd: int, table: int, a: str, b: str, stage: str) -> Iterator[list[Event]]:
        """Play one best-of-three match, yielding its games' streams; records the match's outcome."""
        rng = self.rng
        series = f"r{rnd}-t{table}"
        wins = {a: 0, b: 0}
        results: list[GameResult] = []
        ids: list[str] = []
        elimination = stage == SINGLE_ELIMINATION
        kind = rng.choices(list(_SOURCES), list(_SOURCES.values()))[0]
        claimed = {a: 0, b: 0}
        game = 0
        while max(wins.values()) < 2 and game < (_MAX_GAMES if elimination else 3):
            game += 1
            match_id = f"{self.prefix}/r{rnd}/t{table}/g{game}"
            scenario = rng.choices(list(_SWISS_SCENARIOS), list(_SWISS_SCENARIOS.values()))[0]
            if not elimination and game == 3 and rng.random() < _TIME_IN_GAME_3:
                scenario = "time"
            draw_tb = False
            if elimination and self._tb2_planned:
                scenario, draw_tb = "playoff", True
            elif elimination and rng.random() < 0.12:
                scenario = "playoff"
            names = (a, b) if rng.random() < 0.5 else (b, a)
            setting = Setting(
                names, self.tournament.day, self._context(rnd, table, game, stage), elimination, draw_tb
            )
            faults = [rng.choice(sorted(FAULTS))] if rng.random() < _FAULT_CHANCE and not draw_tb else []
            for _attempt in range(40 if draw_tb else 1):
                streams, result = simulate_game(
                    rng.getrandbits(63), match_id, self.tournament.ruleset, scenario, setting, faults
                )
                if not draw_tb or len(streams) >= 3:
                    break
            if draw_tb and len(streams) >= 3:
                self._tb2_planned = False
            claim = _recorded_by(streams, kind, rng.random() < _WRONG_CLAIM and kind != "digital")
            ids.extend(s[0]["match"] for s in streams)
            yield from streams
            winner = result.get("winner")
            if result.get("outcome") == "win" and winner in wins:
                wins[winner] += 1
            if claim in claimed:
                claimed[claim] += 1
            results.append(
                GameResult(
                    match_id, game, (a, b), "finished", result["outcome"], winner, result["reason"], stage
                )
            )
            if not elimination and result.get("reason") == "time":
                break  # time was called: the round is over [TTH §7.4.3]
        # The tournament software has what the players reported: the claimed winners (a wrong claim on a
        # match sheet can change the match's reported outcome: what reconciliation finds).
        outcome = 3
        if claimed[a] > claimed[b]:
            outcome = 1
        elif claimed[b] > claimed[a]:
            outcome = 2
        elif stage == SINGLE_ELIMINATION:
            res = match_result(results)
            outcome = 1 if res["winner"] == a else 2
        self.tournament.matches.append(LeagueMatch(rnd, table, (a, b), outcome, stage, series, ids))

    def streams(self) -> Iterator[list[Event]]:
        """Every game's event stream (and its playoff games'), round by round."""
        t = self.tournament
        ids = [p.id for p in t.players]
        had_bye: set[str] = set()
        met: dict[str, set[str]] = {p: set() for p in ids}
        active = list(ids)
        for rnd in range(1, self.rounds + 1):
            table_rank = self._standings()
            order = sorted(active, key=lambda p: table_rank.get(p, len(table_rank)))
            if len(order) % 2:
                bye = next((p for p in reversed(order) if p not in had_bye), order[-1])
                had_bye.add(bye)
                order.remove(bye)
                t.matches.append(LeagueMatch(rnd, 0, (bye,), 5, SWISS))
            pairs = _pair(order, met)
            for table, (a, b) in enumerate(pairs, 1):
                met[a].add(b)
                met[b].add(a)
                yield from self._match(rnd, table, a, b, SWISS)
            if rnd < self.rounds and rnd >= 2:
                won = {
                    m.players[0] if m.outcome == 1 else m.players[-1]
                    for m in t.matches
                    if m.outcome in (1, 2, 5)
                }
                for p in sorted(active):
                    if (
                        p not in won
                        and len(active) > max(self.cut, 2) + 2
                        and self.rng.random() < _DROP_CHANCE
                    ):
                        active.remove(p)
                        t.dropped[p] = rnd
        if self.cut:
            yield from self._top_cut()

    def _standings(self) -> dict[str, int]:
        t = self.tournament
        pairings = [
            Pairing(m.round, (m.players[0], m.players[1]), _result(m), m.stage)
            for m in t.matches
            if len(m.players) == 2
        ]
        byes: dict[str, set[int]] = {}
        for m in t.matches:
            if m.outcome == 5:
                byes.setdefault(m.players[0], set()).add(m.round)
        rows = swiss_standings(pairings, byes, t.dropped)
        ranked = {row["player"]: i for i, row in enumerate(rows)}
        # players who have not played yet (round 1) are drawn in a random order
        rest = [p.id for p in t.players if p.id not in ranked]
        self.rng.shuffle(rest)
        for p in rest:
            ranked[p] = len(ranked)
        return ranked

    def _top_cut(self) -> Iterator[list[Event]]:
        rank = self._standings()
        seeds = sorted((p for p in rank if p not in self.tournament.dropped), key=lambda p: rank[p])[
            : self.cut
        ]
        bracket = _bracket(self.cut)
        alive = [seeds[i - 1] for i in bracket]
        rnd = self.rounds
        while len(alive) > 1:
            rnd += 1
            nxt = []
            for table, i in enumerate(range(0, len(alive), 2), 1):
                a, b = alive[i], alive[i + 1]
                yield from self._match(rnd, table, a, b, SINGLE_ELIMINATION)
                m = self.tournament.matches[-1]
                nxt.append(a if m.outcome == 1 else b)
            alive = nxt


def _recorded_by(streams: list[list[Event]], kind: str, wrong_claim: bool) -> str | None:
    """Mark the games as recorded by ``kind`` (a manual app knows no HP), optionally with the wrong player
    claimed as the winner; the claimed winner of the game that decided it (None for a draw)."""
    for stream in streams:
        started = stream[0]
        started["source"] = {**started["source"], "kind": kind, "producer": f"prizecheck-simulate ({kind})"}
        if kind == "manual":
            started["source"]["hp_known"] = False
            for e in stream:
                for slot in (e.get("active"), *(e.get("bench") or ()), e):
                    card = slot.get("card") if isinstance(slot, dict) else None
                    if isinstance(card, dict):
                        card.pop("hp", None)
    end = streams[-1][-1]
    if end.get("type") != "game_ended" or end.get("outcome") != "win":
        return None
    if wrong_claim:
        players = streams[-1][0]["players"]
        end["winner"] = players[1] if end["winner"] == players[0] else players[0]
    return str(end["winner"])


def _result(m: LeagueMatch) -> dict[str, str] | None:
    a, b = m.players
    return {1: {a: "win", b: "loss"}, 2: {a: "loss", b: "win"}, 3: {a: "tie", b: "tie"}}.get(m.outcome)


def _pair(order: list[str], met: dict[str, set[str]]) -> list[tuple[str, str]]:
    """Pairs down the standings with no rematch: each player meets the highest-placed player below them
    they have not met, backtracking when that leaves someone without an opponent (bounded; past the
    bound, or when no such pairing exists, the first free player below, rematch or not)."""
    steps = 0

    def search(left: list[str]) -> list[tuple[str, str]] | None:
        nonlocal steps
        if not left:
            return []
        a, rest = left[0], left[1:]
        for i, b in enumerate(rest):
            steps += 1
            if b in met[a] or steps > 20_000:
                continue
            tail = search(rest[:i] + rest[i + 1 :])
            if tail is not None:
                return [(a, b), *tail]
        return None

    found = search(list(order))
    if found is not None:
        return found
    left = list(order)
    pairs = []
    while left:
        a = left.pop(0)
        j = next((i for i, b in enumerate(left) if b not in met[a]), 0)
        pairs.append((a, left.pop(j)))
    return pairs


def _bracket(n: int) -> list[int]:
    """Seeds in bracket order: 1 v n, then the halves folded so 1 and 2 can only meet in the final."""
    order = [1]
    while len(order) < n:
        size = len(order) * 2
        order = [x for s in order for x in (s, size + 1 - s)]
    return order
