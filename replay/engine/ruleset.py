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

KNOWN_RULESETS = ("kr-1.0", "jp-3.4", "play-2026")


@dataclass(frozen=True, slots=True)
class TimeProcedure:
    """What happens when time is called, for games on or after ``start`` (ISO date) [TTH §7.4.3]."""

    start: str | None
    until: str | None
    turn_zero: bool
    extra_turns: int
    overtime_minutes: int | None


@dataclass(frozen=True, slots=True)
class Playoff:
    """How a drawn game that must be decided is played off [docs/rules.md §6]."""

    kind: str  # sudden_death | tiebreak | tiebreaker_game
    prizes: int
    won_by: str  # first_prize | prize_lead
    coin_flip_for_first: bool


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

    def time_procedure(self, date: str | None) -> TimeProcedure:
        """The time-called procedure in force on ``date`` (YYYY-MM-DD...); the newest when unknown."""
        if date:
            day = date[:10]
            for proc in self.time_called:
                if (proc.start is None or day >= proc.start) and (proc.until is None or day <= proc.until):
                    return proc
        return self.time_called[-1]


def ruleset_from_dict(doc: dict[str, Any]) -> Ruleset:
    """Build a Ruleset from a parsed ruleset file (schemas/ruleset.schema.json)."""
    po = doc["playoff"]
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
        playoff=Playoff(
            kind=po["kind"],
            prizes=int(po["prizes"]),
            won_by=po["won_by"],
            coin_flip_for_first=bool(po.get("coin_flip_for_first", False)),
        ),
        checkup_damage=tuple((str(k), int(v)) for k, v in doc.get("checkup_damage", {}).items())
        or (("poisoned", 10), ("burned", 20)),
        time_called=tuple(
            TimeProcedure(
                start=t.get("from"),
                until=t.get("until"),
                turn_zero=bool(t["turn_zero"]),
                extra_turns=int(t["extra_turns"]),
                overtime_minutes=t.get("overtime_minutes"),
            )
            for t in doc["time_called"]
        ),
    )


@cache
def load_ruleset(ruleset_id: str) -> Ruleset:
    """The bundled ruleset ``ruleset_id``; KeyError when there is none."""
    if ruleset_id not in KNOWN_RULESETS:
        raise KeyError(ruleset_id)
    text = resources.files("replay.engine").joinpath("rulesets", f"{ruleset_id}.json").read_text("utf-8")
    return ruleset_from_dict(json.loads(text))
