"""Rulesets are data (replay/engine/rulesets/*.json), versioned and named in every record [docs/rules.md §7].

Where the sources disagree (the playoff after a drawn game, time called), the difference is a field here,
never an ``if ruleset == ...`` branch in the rules code.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

from replay.engine.ruleset_ids import KNOWN_RULESETS


@dataclass(frozen=True, slots=True)
class Playoff:
    """How a drawn game that must be decided is played off [docs/rules.md §6]."""

    kind: str  # sudden_death | tiebreak | tiebreaker_game
    prizes: int
    won_by: str  # first_prize | prize_lead
    coin_flip_for_first: bool


@dataclass(frozen=True, slots=True)
class TimeProcedure:
    """What happens when time is called, for games from ``start`` to ``until`` (ISO dates) [docs/rules.md §6].

    ``turns``: ``count`` plays the current turn (or "turn 0") and ``extra_turns`` more [TTH §7.4.3];
    ``finish_round`` lets the player who went second finish the round: one more turn when time is called
    in the first player's turn, none in their own [JP 終了コール]. ``checkup``: the Pokémon Checkup after the
    last turn is played (False: time is over when that turn ends). ``decide``: ``stage`` is the Play!
    Pokémon split (Swiss: a tie; single elimination: fewer prizes remaining, level: play on); ``prize_lead``
    decides every stage by fewer prizes remaining, level: the extension (延長戦), a drawn extension: the
    playoff. ``later_games_lead_within``: in game 2 or later a lead decides the game only when a player has
    at most this many prizes left; otherwise time leaves the game undecided (the match goes to game 1's
    winner). ``playoff``: the playoff a drawn extension goes to, when not the ruleset's own.
    """

    start: str | None
    until: str | None
    turn_zero: bool
    extra_turns: int
    overtime_minutes: int | None
    turns: str = "count"  # count | finish_round
    checkup: bool = True
    decide: str = "stage"  # stage | prize_lead
    later_games_lead_within: int | None = None
    playoff: Playoff | None = None


@dataclass(frozen=True, slots=True)
class PrizePenalties:
    """The prize penalties a ruleset knows [docs/rules.md §6].

    ``counts``: the prize counts a ``prize_penalty`` may give; ``None`` when the judge chooses any number
    [JP floor rules 2023-04-01 §11 ③]. ``usual``: the counts a judge is offered first (the console's
    choices). The named kinds ``double_prize``/``quad_prize`` keep their counts in every ruleset, so
    events written with them read the same everywhere.
    """

    counts: tuple[int, ...] | None
    usual: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Ruleset:
    """One named, versioned ruleset."""

    id: str
    version: int
    name: str
    deck: int
    hand: int
    prizes: int
    prizes_by_rule: dict[str, int]
    first_turn_attack: bool
    first_turn_supporter: bool
    first_turn_evolve: bool
    double_prize: int
    quad_prize: int
    playoff: Playoff
    time_called: tuple[TimeProcedure, ...]
    prize_penalty: PrizePenalties
    #: The damage each Special Condition places at the Pokémon Checkup, in the order it is placed
    #: [JP3.4 §I-F: Poisoned, then Burned; RB p.20: 1 damage counter, 2]. A card that says more is a
    #: source's damage of its own.
    checkup_damage: tuple[tuple[str, int], ...] = (("poisoned", 10), ("burned", 20))

    def __deepcopy__(self, memo: dict[int, Any]) -> Ruleset:
        # Immutable and shared (load_ruleset is cached): a game's copy keeps the same one. (Also what
        # lets a compiled Game be deep-copied: copy.deepcopy cannot rebuild a compiled frozen dataclass.)
        return self

    def prize_value(self, rule: str | None) -> int:
        """Base prizes for a Pokémon of this rule kind [docs/rules.md §3 table]."""
        return self.prizes_by_rule.get(rule or "none", 1)

    def playoff_of(self, kind: str | None) -> Playoff:
        """The playoff of kind ``kind``: the ruleset's own, or one its time procedures go to (a drawn
        extension's sudden death [JP 終了コール]); the ruleset's own when none is of that kind."""
        if kind is not None and kind != self.playoff.kind:
            for proc in self.time_called:
                if proc.playoff is not None and proc.playoff.kind == kind:
                    return proc.playoff
        return self.playoff

    def prize_penalty_allowed(self, count: int) -> bool:
        """May a prize penalty give ``count`` prizes under this ruleset?"""
        allowed = self.prize_penalty.counts
        return count >= 1 and (allowed is None or count in allowed)

    def time_procedure(self, date: str | None) -> TimeProcedure:
        """The time-called procedure in force on ``date`` (YYYY-MM-DD...); the newest when unknown."""
        if date:
            day = date[:10]
            for proc in self.time_called:
                if (proc.start is None or day >= proc.start) and (proc.until is None or day <= proc.until):
                    return proc
        return self.time_called[-1]


def _playoff(po: dict[str, Any]) -> Playoff:
    return Playoff(
        kind=po["kind"],
        prizes=int(po["prizes"]),
        won_by=po["won_by"],
        coin_flip_for_first=bool(po.get("coin_flip_for_first", False)),
    )


def _time_procedure(t: dict[str, Any]) -> TimeProcedure:
    later = t.get("later_games")
    po = t.get("playoff")
    return TimeProcedure(
        start=t.get("from"),
        until=t.get("until"),
        turn_zero=bool(t["turn_zero"]),
        extra_turns=int(t["extra_turns"]),
        overtime_minutes=t.get("overtime_minutes"),
        turns=str(t.get("turns", "count")),
        checkup=bool(t.get("checkup", True)),
        decide=str(t.get("decide", "stage")),
        later_games_lead_within=int(later["lead_within"]) if later else None,
        playoff=_playoff(po) if po else None,
    )


def _prize_penalties(pen: dict[str, Any]) -> PrizePenalties:
    doc = pen.get("prize_penalty")
    if doc is None:  # a ruleset of before: the named kinds only
        named = tuple(sorted({int(pen["double_prize"]), int(pen["quad_prize"])}))
        return PrizePenalties(counts=named, usual=named)
    counts = doc.get("counts")
    return PrizePenalties(
        counts=tuple(int(c) for c in counts) if counts is not None else None,
        usual=tuple(int(c) for c in doc.get("usual", counts or ())),
    )


def ruleset_from_dict(doc: dict[str, Any]) -> Ruleset:
    """Build a Ruleset from a parsed ruleset file (schemas/ruleset.schema.json)."""
    ft = doc["first_turn"]
    return Ruleset(
        id=doc["id"],
        version=int(doc["version"]),
        name=doc["name"],
        deck=int(doc["deck"]),
        hand=int(doc["hand"]),
        prizes=int(doc["prizes"]),
        prizes_by_rule={str(k): int(v) for k, v in doc["prizes_by_rule"].items()},
        first_turn_attack=bool(ft["attack"]),
        first_turn_supporter=bool(ft["supporter"]),
        first_turn_evolve=bool(ft["evolve"]),
        double_prize=int(doc["penalties"]["double_prize"]),
        quad_prize=int(doc["penalties"]["quad_prize"]),
        playoff=_playoff(doc["playoff"]),
        prize_penalty=_prize_penalties(doc["penalties"]),
        checkup_damage=tuple((str(k), int(v)) for k, v in doc.get("checkup_damage", {}).items())
        or (("poisoned", 10), ("burned", 20)),
        time_called=tuple(_time_procedure(t) for t in doc["time_called"]),
    )


@cache
def load_ruleset(ruleset_id: str) -> Ruleset:
    """The bundled ruleset ``ruleset_id``; KeyError when there is none."""
    if ruleset_id not in KNOWN_RULESETS:
        raise KeyError(ruleset_id)
    text = resources.files("replay.engine").joinpath("rulesets", f"{ruleset_id}.json").read_text("utf-8")
    return ruleset_from_dict(json.loads(text))
