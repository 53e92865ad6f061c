"""The match simulator: plausible, rule-correct Pokémon TCG games as contract events.

The command is ``prizecheck simulate`` (:mod:`replay.cli.simulate`).

Every game is a full contract stream (docs/events.md): ``match_started``, both setups (with mulligans and the
opponent's bonus draws), then turns with draws, Pokémon played and evolved, energy and tools, Trainer cards
(``trainer_played``: Supporters and Items), searches and discards, retreats and switches by named effects
(Switch, Boss's Orders), attacks with spread and recoil damage, Special Conditions and Pokémon
Checkups, knockouts claimed inside their window, prizes, promotions, and a closing ``game_ended`` claim.

The simulator keeps its own books, written from docs/rules.md and independently of the engine so that the two
cross-check each other (like perft tables for a chess move generator): HP and damage, prizes taken and
needed, every zone's card count (the 60 cards of each player are conserved), who must promote first. Each
game ends with the result the rules give [docs/rules.md §1-§6]. Every ending appears: prize wins, no Pokémon
to promote, deck-out at the draw, simultaneous knockouts (draws and wins by counting conditions), concessions,
penalties (Double Prize Card, Game Loss), card effects, time called, and playoffs (a drawn game that must be
decided is followed by ``<match>/tb1``, a drawn sudden death by ``<match>/tb2``...).

This is a tool, not an engine module: it uses ``random.Random(seed)`` and nothing else, so a seed always
gives the same events. Its games keep the turn's limits (one Supporter and one Energy attached from the
hand per turn, one retreat, no Supporter or attack on the first turn of the game: docs/rules.md §6).
``faults`` injects source errors (a wrong prize count, a missing or undue knockout claim, an attack on the
first turn, a wrong promotion order, a second Supporter in a turn) so tests can check that the engine
finds them.
"""

from __future__ import annotations

import json
import random
from collections.abc import Collection, Iterator
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from typing import Any, Final

from replay.engine import InputError

Event = dict[str, Any]

RULESETS: Final = ("play-2026", "jp-3.4", "kr-1.0")
"""The bundled rulesets; a corpus rotates through them when none is given."""

# How many games of every 100 steer towards each ending (a steered game may still end otherwise; the claim
# is always what the rules give). Every block of 100 games holds each scenario at least once.
SCENARIO_QUOTA: Final[dict[str, int]] = {
    "prizes": 52,
    "no_pokemon": 6,
    "deck_out": 5,
    "simultaneous": 8,
    "playoff": 8,
    "concession": 5,
    "game_loss": 4,
    "double_prize": 3,
    "effect": 4,
    "time": 5,
}
SCENARIOS: Final = tuple(SCENARIO_QUOTA)

FAULTS: Final[dict[str, str]] = {
    "prize_count": "prize_count_mismatch",
    "missing_ko": "ko_not_claimed",
    "ko_not_due": "ko_not_due",
    "first_turn_attack": "attack_first_turn",
    "promotion_order": "promotion_order",
    "second_supporter": "second_supporter",
}
"""Injectable source errors and the engine finding each one must cause."""

_ROTATIONS: Final = frozenset({"asleep", "paralyzed", "confused"})
_EFFECT_CONDITION: Final = {
    "poison": "poisoned",
    "burn": "burned",
    "sleep": "asleep",
    "paralyze": "paralyzed",
    "confuse": "confused",
}
_PLAYERS: Final = (
    "ash",
    "misty",
    "brock",
    "may",
    "dawn",
    "serena",
    "lillie",
    "gloria",
    "nemona",
    "penny",
    "iris",
    "cynthia",
    "marnie",
    "hop",
    "kieran",
    "carmine",
)
_TOOLS: Final = ("Float Stone", "Choice Belt", "Forest Seal Stone", "Defiance Band", "Maximum Belt")
_ENERGY: Final = ("Fire Energy", "Water Energy", "Psychic Energy", "Lightning Energy", "Double Turbo Energy")


# ---------------------------------------------------------------------------------------------- cards


@dataclass(frozen=True, slots=True)
class _Card:
    name: str
    hp: int
    rule: str
    attack: str
    cost: int
    damage: int
    effect: str = ""


_Line = tuple[_Card, ...]
C = _Card

# Evolution lines (basic first). Effects: spread (bench damage), recoil (self damage), mill (opponent's deck
# to discard), and Special Conditions.
_MODERN: Final[tuple[_Line, ...]] = (
    (
        C("Charmander", 70, "none", "Ember", 1, 30),
        C("Charmeleon", 90, "none", "Combustion", 2, 50),
        C("Charizard ex", 330, "ex", "Burning Darkness", 2, 180),
    ),
    (
        C("Pidgey", 60, "none", "Gust", 1, 20),
        C("Pidgeotto", 80, "none", "Wing Attack", 1, 40),
        C("Pidgeot ex", 280, "ex", "Blustery Wind", 2, 120),
    ),
    (
        C("Ralts", 70, "none", "Teleportation Attack", 1, 10),
        C("Kirlia", 80, "none", "Slap", 1, 30),
        C("Gardevoir ex", 310, "ex", "Miracle Force", 3, 190),
    ),
    (
        C("Dreepy", 70, "none", "Petty Grudge", 1, 10),
        C("Drakloak", 90, "none", "Dragon Headbutt", 2, 70),
        C("Dragapult ex", 320, "ex", "Phantom Dive", 2, 200, "spread"),
    ),
    (C("Riolu", 70, "none", "Punch", 1, 30), C("Mega Lucario ex", 340, "mega_ex", "Aura Jab", 2, 130)),
    (C("Lugia V", 220, "V", "Aero Dive", 3, 130), C("Lugia VSTAR", 280, "VSTAR", "Tempest Dive", 3, 220)),
    (C("Mew V", 180, "V", "Psychic Leap", 1, 70), C("Mew VMAX", 310, "VMAX", "Cross Fusion Strike", 2, 130)),
    (
        C("Koffing", 60, "none", "Poison Gas", 1, 10, "poison"),
        C("Weezing", 120, "none", "Miasma", 2, 70, "poison"),
    ),
    (
        C("Drowzee", 70, "none", "Sleep Pendulum", 1, 20, "sleep"),
        C("Hypno", 110, "none", "Psypunch", 2, 80, "sleep"),
    ),
    (
        C("Psyduck", 70, "none", "Headache", 1, 20, "confuse"),
        C("Golduck", 110, "none", "Psychic Assault", 2, 70, "confuse"),
    ),
    (
        C("Ponyta", 70, "none", "Flare", 1, 20, "burn"),
        C("Rapidash", 100, "none", "Flame Tail", 2, 80, "burn"),
    ),
    (
        C("Pikachu", 60, "none", "Thunder Shock", 1, 20, "paralyze"),
        C("Raichu", 120, "none", "Thunder", 2, 140, "recoil"),
    ),
    (C("Bidoof", 60, "none", "Gnaw", 1, 20), C("Bibarel", 120, "none", "Tail Smash", 3, 100)),
    (C("Durant", 80, "none", "Devour", 1, 20, "mill"),),
    (C("Pikachu ex", 200, "ex", "Topaz Bolt", 3, 250),),
    (C("Iron Hands ex", 230, "ex", "Arm Press", 3, 160),),
    (C("Terapagos ex", 230, "ex", "Unified Beatdown", 2, 150),),
    (C("Radiant Greninja", 130, "radiant", "Moonlight Shuriken", 3, 90, "spread"),),
    (C("Manaphy", 70, "none", "Rain Splash", 1, 20),),
    (C("Squawkabilly ex", 160, "ex", "Motivate", 1, 20),),
    (C("Munkidori", 110, "none", "Mind Bend", 2, 60, "confuse"),),
)
_LEGACY: Final[tuple[_Line, ...]] = (
    (C("Mewtwo-EX", 170, "EX", "X Ball", 2, 80),),
    (
        C("Rayquaza-EX", 170, "EX", "Dragon Pulse", 1, 40, "mill"),
        C("M Rayquaza-EX", 220, "mega_EX", "Emerald Break", 3, 180),
    ),
    (C("Rayquaza-GX", 180, "GX", "Dragon Break", 2, 120),),
    (C("Pikachu & Zekrom-GX", 240, "tag_team", "Full Blitz", 3, 150),),
    (C("Zacian V-UNION", 310, "V_UNION", "Sword Strike", 3, 180),),
    (
        C("Darkrai", 90, "none", "Dark Slumber", 1, 20, "sleep"),
        C("Darkrai LV.X", 120, "LV_X", "Darkness Trap", 2, 80, "poison"),
    ),
    (
        C("Froakie", 50, "none", "Bubble", 1, 10, "paralyze"),
        C("Frogadier", 70, "none", "Water Duplicates", 1, 20),
        C("Greninja", 130, "none", "Shadow Stitching", 2, 40, "mill"),
        C("Greninja BREAK", 170, "BREAK", "Giant Water Shuriken", 2, 60, "spread"),
    ),
    (C("Rayquaza ex", 100, "ex_old", "Dragon Burst", 3, 120, "recoil"),),
    (C("Entei & Raikou LEGEND", 160, "LEGEND", "Thunder Fall", 3, 120, "recoil"),),
    (C("Lunala Prism Star", 160, "prism_star", "Full Moon Star", 3, 120),),
    (C("Rayquaza Star", 100, "star", "Dragon Wind", 2, 80),),
    (
        C("Eternatus V", 220, "V", "Dynamax Cannon", 2, 120),
        C("Eternatus VMAX", 340, "VMAX", "Dread End", 2, 180),
    ),
    (C("Gengar & Mimikyu-GX", 240, "tag_team", "Poltergeist", 2, 100, "confuse"),),
)
_ONE_PRIZE_BASIC: Final[_Line] = (C("Manaphy", 70, "none", "Rain Splash", 1, 20),)
del C


# ---------------------------------------------------------------------------------------------- state


@dataclass(slots=True, eq=False)
class _Mon:
    pid: str
    owner: int
    line: _Line
    stage: int
    entered: int
    explicit: int | None = None
    damage: int = 0
    stack: int = 1  # the Pokémon card, evolution stages under it, and every attached card
    energy: int = 0
    tool: bool = False
    legacy: bool = False
    evolved_turn: int = -1
    paralyzed_turn: int = -1
    conds: list[str] = field(default_factory=list)
    modifier: int = 0

    @property
    def card(self) -> _Card:
        return self.line[self.stage]

    @property
    def remaining(self) -> int:
        return max(0, self.line[self.stage].hp - self.damage)

    @property
    def knocked_out(self) -> bool:
        return self.damage >= self.line[self.stage].hp


@dataclass(slots=True, eq=False)
class _Player:
    index: int
    id: str
    lines: list[_Line]
    deck: int = 60
    hand: int = 0
    prizes: int = 0
    discard: int = 0
    lost: int = 0
    active: _Mon | None = None
    bench: list[_Mon] = field(default_factory=list)
    taken: int = 0
    needed: int = 6
    turns: int = 0
    mulligans: int = 0
    legacy_used: bool = False
    keep_bench_empty: bool = False
    max_bench: int = 5
    scale: float = 1.0

    def in_play(self) -> int:
        return sum(m.stack for m in self.mons())

    def mons(self) -> list[_Mon]:
        return ([self.active] if self.active is not None else []) + self.bench

    def total(self) -> int:
        return self.deck + self.hand + self.prizes + self.discard + self.lost + self.in_play()


class _End(Exception):
    """The game is over (the game_ended claim has been emitted)."""


@dataclass(frozen=True, slots=True)
class _Rules:
    id: str
    deck: int
    hand: int
    prizes: int
    prize_by_rule: dict[str, int]
    double_prize: int
    quad_prize: int
    playoff_kind: str
    playoff_prizes: int
    playoff_won_by: str
    time: tuple[tuple[str | None, str | None, int], ...]
    #: per period of ``time``: does the player who went second finish the round [JP 終了コール]
    finish_round: tuple[bool, ...] = ()

    def _period(self, day: str) -> int:
        for i, (start, until, _extra) in enumerate(self.time):
            if (start is None or day >= start) and (until is None or day <= until):
                return i
        return len(self.time) - 1

    def extra_turns(self, day: str) -> int:
        return self.time[self._period(day)][2]

    def finishes_round(self, day: str) -> bool:
        """[JP 終了コール] time is over when the second player's turn ends, decided by the prize lead in every
        stage, with no checkup after it."""
        return bool(self.finish_round) and self.finish_round[self._period(day)]


@cache
def _rules(ruleset: str) -> _Rules:
    # the bundled data files, read directly: the simulator keeps its own books, apart from the engine
    path = resources.files("replay.engine").joinpath("rulesets", f"{ruleset}.json")
    if ruleset not in RULESETS or not path.is_file():
        raise InputError(f"unknown ruleset {ruleset!r} (known: {', '.join(RULESETS)})", field="ruleset")
    doc = json.loads(path.read_text("utf-8"))
    po = doc["playoff"]
    return _Rules(
        id=doc["id"],
        deck=int(doc["deck"]),
        hand=int(doc["hand"]),
        prizes=int(doc["prizes"]),
        prize_by_rule={str(k): int(v) for k, v in doc["prizes_by_rule"].items()},
        double_prize=int(doc["penalties"]["double_prize"]),
        quad_prize=int(doc["penalties"]["quad_prize"]),
        playoff_kind=str(po["kind"]),
        playoff_prizes=int(po["prizes"]),
        playoff_won_by=str(po["won_by"]),
        time=tuple((t.get("from"), t.get("until"), int(t["extra_turns"])) for t in doc["time_called"]),
        finish_round=tuple(t.get("turns") == "finish_round" for t in doc["time_called"]),
    )


# ---------------------------------------------------------------------------------------------- a game


class _Sim:
    """One game: steered towards a scenario, judged by the rules."""

    def __init__(
        self,
        rng: random.Random,
        match: str,
        rules: _Rules,
        scenario: str,
        *,
        names: tuple[str, str],
        day: str,
        context: dict[str, Any] | None,
        must_decide: bool | None,
        parent: str | None = None,
        faults: Collection[str] = (),
    ) -> None:
        self.rng = rng
        self.match = match
        self.rules = rules
        self.scenario = scenario
        self.day = day
        self.context = context
        self.parent = parent
        self.explicit_must_decide = must_decide
        stage = (context or {}).get("stage")
        self.must_decide = (
            must_decide if must_decide is not None else (stage == "single_elimination" or bool(parent))
        )
        self.prizes = rules.playoff_prizes if parent else rules.prizes
        self.lead_rule: str | None = "prizes" if parent else None
        self.events: list[Event] = []
        self.result: dict[str, Any] = {}
        self.turn = 0
        self.cur = 0
        self.first = 0
        self.clock = rng.randrange(9 * 3600, 18 * 3600)
        self.pid_counter = 0
        self.faults = set(faults)
        self.injected: list[dict[str, Any]] = []
        self.time_turn = 0  # the turn in which time was called (0: not called)
        self.time_left = 0
        self.trigger = {
            "concession": rng.randint(7, 18),
            "game_loss": rng.randint(4, 16),
            "effect": rng.randint(4, 16),
            "double_prize": rng.randint(3, 14),
            "time": rng.randint(6, 12),
        }.get(scenario, 0)
        era_modern = rng.random() < 0.78
        pool = _MODERN if era_modern else _MODERN[:8] + _LEGACY
        self.players = [_Player(i, names[i], self._deck_lines(pool), needed=self.prizes) for i in range(2)]
        self.stall = scenario in ("simultaneous", "playoff", "sd_draw", "tb_draw")
        self.victim = rng.randrange(2)
        # simultaneous [docs/rules.md §4]: a third of the games aim at a win by counting conditions (a
        # knockout of the opponent's whole side whose recoil knocks out the attacker too: A+B+D against B), a
        # third play both Benches out first (the last double knockout: A+C+D, A+B+C+D or C+D), the rest at a
        # draw.
        roll = rng.random()
        self.count_win = scenario == "simultaneous" and roll < 1 / 3
        self.bare = scenario == "simultaneous" and roll > 2 / 3
        if scenario == "tb_draw":
            # A playoff game steered to a draw where the first prize lead would decide it: no Bench on
            # either side and one-prize Actives, so the first knockout is a double knockout that leaves
            # both players level on prizes and unable to put out an Active [docs/rules.md §4, §6].
            for pl in self.players:
                pl.keep_bench_empty = True
                pl.lines = [_ONE_PRIZE_BASIC]
        if scenario == "no_pokemon":
            self.players[self.victim].keep_bench_empty = True
        if self.bare:
            for pl in self.players:
                pl.keep_bench_empty = True
        if scenario == "game_loss" and rng.random() < 0.3:
            self.scenario = "game_loss_after"
        if self.count_win:
            for pl in self.players:
                pl.max_bench = 2
        if scenario == "deck_out":
            for pl in self.players:
                pl.scale = 0.3
        elif scenario == "time":
            for pl in self.players:
                pl.scale = 0.45
        # time with a prize penalty: in single elimination the game may reach time with the same prizes
        # remaining but different prizes taken (the offender's opponent needs fewer) [docs/rules.md §6].
        self.time_penalty: _Player | None = None
        self.penalty_given = False
        if scenario == "time" and (context or {}).get("stage") == "single_elimination" and rng.random() < 0.4:
            self.time_penalty = self.players[rng.randrange(2)]
            self.time_penalty.scale = 1.0
            self.players[1 - self.time_penalty.index].scale = 0.3
            self.trigger = 3

    # ------------------------------------------------------------------ plumbing
    def emit(self, etype: str, fields: dict[str, Any] | None = None) -> Event:
        e: Event = {"match": self.match, "seq": len(self.events) + 1, "type": etype}
        if fields:
            e.update(fields)
        self.events.append(e)
        return e

    def at(self) -> str:
        s = self.clock
        return f"{self.day}T{s // 3600 % 24:02d}:{s // 60 % 60:02d}:{s % 60:02d}Z"

    def _deck_lines(self, pool: tuple[_Line, ...]) -> list[_Line]:
        evo = [ln for ln in pool if len(ln) > 1]
        basics = [ln for ln in pool if len(ln) == 1]
        lines = self.rng.sample(evo, self.rng.randint(1, 2)) + self.rng.sample(basics, self.rng.randint(1, 3))
        return lines

    def _new_mon(self, pl: _Player, line: _Line | None = None) -> _Mon:
        self.pid_counter += 1
        line = line or self.rng.choice(pl.lines)
        mon = _Mon(f"{'ab'[pl.index]}{self.pid_counter}", pl.index, line, 0, self.turn)
        self._maybe_explicit(mon)
        return mon

    def _maybe_explicit(self, mon: _Mon) -> None:
        mon.explicit = None
        if self.scenario == "tb_draw":
            return
        if self.rng.random() < 0.04:
            base = self.rules.prize_by_rule.get(mon.card.rule, 1)
            mon.explicit = base + (1 if self.rng.random() < 0.3 else 0)

    def card(self, mon: _Mon) -> dict[str, Any]:
        c = mon.card
        d: dict[str, Any] = {"name": c.name, "hp": c.hp, "rule": c.rule}
        if mon.explicit is not None:
            d["prizes"] = mon.explicit
        return d

    def value(self, mon: _Mon) -> int:
        """Prizes for knocking ``mon`` out: explicit value or rule box, then modifiers, never below 0."""
        base = mon.explicit if mon.explicit is not None else self.rules.prize_by_rule.get(mon.card.rule, 1)
        return max(0, base + mon.modifier)

    def moved(self, pl: _Player, src: str, dst: str, count: int, cards: list[str] | None = None) -> None:
        if count <= 0:
            return
        zone = {"deck": "deck", "hand": "hand", "discard": "discard", "prizes": "prizes", "lost_zone": "lost"}
        setattr(pl, zone[src], getattr(pl, zone[src]) - count)
        setattr(pl, zone[dst], getattr(pl, zone[dst]) + count)
        f: dict[str, Any] = {"player": pl.id, "from": src, "to": dst, "count": count}
        if cards:
            f["cards"] = cards
        self.emit("moved", f)

    def draw(self, pl: _Player, n: int) -> None:
        # A card effect that asks for more cards than the deck holds takes what there is [docs/rules.md §1.3].
        n = min(n, pl.deck)
        if n > 0:
            pl.deck -= n
            pl.hand += n
            self.emit(
                "drew",
                {"player": pl.id, "count": n} if n != 1 or self.rng.random() < 0.5 else {"player": pl.id},
            )

    def check_books(self) -> None:
        """Each player's cards are conserved and no zone is below 0 (the simulator's own perft count)."""
        for pl in self.players:
            zones = (pl.deck, pl.hand, pl.prizes, pl.discard, pl.lost)
            if pl.total() != self.rules.deck or min(zones) < 0 or pl.taken + pl.prizes != self.prizes:
                raise RuntimeError(
                    f"{self.match}: {pl.id}'s books are off at seq {len(self.events)}: {zones}"
                )

    def fault(self, kind: str, seq: int) -> bool:
        if kind not in self.faults:
            return False
        self.faults.discard(kind)
        self.injected.append({"fault": kind, "code": FAULTS[kind], "match": self.match, "seq": seq})
        return True

    # ------------------------------------------------------------------ the game
    def run(self) -> dict[str, Any]:
        try:
            self.start()
            while True:
                self.play_turn()
        except _End:
            pass
        return self.result

    def start(self) -> None:
        rng = self.rng
        a, b = self.players
        first = rng.randrange(2)
        self.cur = first
        self.first = first
        f: dict[str, Any] = {
            "players": [a.id, b.id],
            "first": self.players[first].id,
            "ruleset": self.rules.id,
            "source": {"kind": "digital", "reports_knockouts": True, "producer": "prizecheck-simulate"},
            "at": self.at(),
        }
        if self.parent or rng.random() < 0.3:
            f["prizes"] = self.prizes
        if rng.random() < 0.3:
            f["deck"] = self.rules.deck
        if self.context is not None:
            f["context"] = dict(self.context)
        if self.explicit_must_decide is not None:
            f["must_decide"] = self.explicit_must_decide
        if self.parent:
            f["parent"] = self.parent
            f["playoff"] = self.rules.playoff_kind
        self.emit("match_started", f)
        # Setup [docs/rules.md §6]: 7-card hand, Active and Bench from it, then the prize cards.
        order = [self.players[first], self.players[1 - first]]
        for pl in order:
            pl.mulligans = rng.choices((0, 1, 2, 3), (80, 14, 5, 1))[0]
            pl.deck = self.rules.deck - self.rules.hand
            pl.hand = self.rules.hand
            nb = rng.choices((0, 1, 2, 3, 4), (15, 35, 30, 15, 5))[0]
            if pl.keep_bench_empty:
                # no_pokemon: a thin board from the start; bare: a Bench that is not refilled
                nb = rng.choice((2, 3)) if self.bare else rng.choice((0, 1))
                if self.scenario == "tb_draw":
                    nb = 0
            nb = min(nb, pl.max_bench)
            pl.active = self._new_mon(pl)
            pl.bench = [self._new_mon(pl) for _ in range(nb)]
            pl.hand -= 1 + nb
            pl.prizes = self.prizes
            pl.deck -= self.prizes
            sf: dict[str, Any] = {
                "player": pl.id,
                "active": {"pid": pl.active.pid, "card": self.card(pl.active)},
                "bench": [{"pid": m.pid, "card": self.card(m)} for m in pl.bench],
            }
            if pl.mulligans or rng.random() < 0.2:
                sf["mulligans"] = pl.mulligans
            self.emit("setup", sf)
        # The opponent may draw up to 1 extra card per extra mulligan [docs/rules.md §6].
        for pl in order:
            other = self.players[1 - pl.index]
            extra = other.mulligans - pl.mulligans
            if extra > 0:
                self.draw(pl, rng.randint(max(0, extra - 1), extra) if rng.random() < 0.2 else extra)

    def play_turn(self) -> None:
        p = self.players[self.cur]
        q = self.players[1 - self.cur]
        self.turn += 1
        t = self.turn
        p.turns += 1
        self.clock += self.rng.randrange(20, 150)
        f: dict[str, Any] = {"player": p.id, "turn": t, "at": self.at()}
        if p.deck == 0 or self.rng.random() < 0.5:
            f["deck"] = p.deck
        self.emit("turn_started", f)
        if p.deck == 0:
            # [docs/rules.md §1.3] the mandatory draw at the start of the turn is impossible.
            self.finish("win", q, "deck_out")
        self.draw(p, 1)
        self.hooks(p, q, t)
        self.main_phase(p, q, t)
        self.emit("turn_ended", {"player": p.id})
        self.check_books()
        if self.time_turn and self.rules.finishes_round(self.day):
            self.time_tick(t)  # [JP 終了コール] the checkup after the last turn is not played
        self.checkup(p, q)
        if self.rng.random() < 0.01:
            self.emit("note", {"text": "judge call: board state confirmed", "author": "floor judge"})
        if self.scenario == "time_between_turns":
            self.call_time(t + 1)
        self.time_tick(t)
        self.cur = 1 - self.cur

    # ------------------------------------------------------------------ tournament layer
    def hooks(self, p: _Player, q: _Player, t: int) -> None:
        rng = self.rng
        s = self.scenario
        if rng.random() < 0.012:
            self.emit(
                "penalty",
                {
                    "player": rng.choice((p, q)).id,
                    "kind": rng.choice(("caution", "warning")),
                    "reason": rng.choice(("slow play", "drew an extra card", "procedural error")),
                },
            )
        if t < self.trigger:
            return
        if s == "concession":
            if p.taken <= q.taken or t >= self.trigger + 4:
                f: dict[str, Any] = {"player": p.id}
                if rng.random() < 0.3:
                    f["reason"] = "behind on board"
                self.emit("conceded", f)
                self.finish("win", q, "concession")
        elif s == "game_loss" and t == self.trigger:
            offender = rng.choice((p, q))
            kind = rng.choices(("game_loss", "match_loss", "disqualification"), (8, 1, 1))[0]
            self.game_loss(offender, rng.choice(("marked cards", "deck error")), kind)
            if kind == "game_loss" and not self.parent and rng.random() < 0.2:
                # [PG §4] Game Losses to both players at once: no winner (not a tie).
                self.game_loss(self.players[1 - offender.index], "unsporting conduct")
                self.finish("no_winner", None, "penalty")
            self.finish("win", self.players[1 - offender.index], "penalty")
        elif s == "double_prize" and t == self.trigger:
            offender = rng.choice((p, q))
            kind = "quad_prize" if rng.random() < 0.25 else "double_prize"
            self.emit("penalty", {"player": offender.id, "kind": kind, "reason": "illegal deck"})
            gainer = self.players[1 - offender.index]
            cut = self.rules.quad_prize if kind == "quad_prize" else self.rules.double_prize
            gainer.needed = max(0, gainer.needed - cut)
            if gainer.taken >= gainer.needed:
                # [PG §3] the offender's opponent already has the prizes they now need.
                self.finish("win", gainer, "penalty")
        elif s == "effect" and t == self.trigger:
            wins = rng.random() < 0.6
            card = "Unown" if wins else "Chaos Tower"
            self.emit("effect_result", {"player": p.id, "wins": wins, "card": {"name": card}})
            self.finish("win", p if wins else q, "effect")
        elif s == "time" and self.time_penalty is not None and not self.penalty_given:
            self.penalty_given = True
            offender = self.time_penalty
            self.emit("penalty", {"player": offender.id, "kind": "double_prize", "reason": "deck error"})
            gainer = self.players[1 - offender.index]
            gainer.needed -= self.rules.double_prize
            if gainer.taken >= gainer.needed:
                self.finish("win", gainer, "penalty")
        elif s == "time" and self.time_turn == 0:
            if self.time_penalty is not None and not self.level():
                return  # waits until both have the same prizes remaining
            if self.time_penalty is not None:
                for pl in self.players:
                    pl.scale = 0.1  # the extra turns pass without a knockout, mostly
            if rng.random() < 0.35:
                self.scenario = "time_between_turns"  # called once this turn is over
            else:
                self.call_time(t)

    def call_time(self, turn_zero: int) -> None:
        """Time is called; ``turn_zero`` is the turn in progress, or the next one between turns."""
        self.clock += 60
        self.emit("time_called", {"at": self.at()})
        self.time_turn = turn_zero
        if self.rules.finishes_round(self.day):
            # [JP 終了コール] one more turn when called in the first player's turn (odd turns), none in the
            # second's
            self.time_left = 1 if turn_zero % 2 == 1 else 0
        else:
            self.time_left = self.rules.extra_turns(self.day)
        self.scenario = "time_over"

    def game_loss(self, offender: _Player, reason: str, kind: str = "game_loss") -> None:
        self.emit("penalty", {"player": offender.id, "kind": kind, "reason": reason})

    def time_tick(self, t: int) -> None:
        """Time called: the current turn (turn 0) and then N more turns [TTH §7.4.3]."""
        if self.time_turn == 0 or t < self.time_turn or self.lead_rule == "time":
            return
        if t > self.time_turn:
            self.time_left -= 1
        if self.time_left > 0:
            return
        stage = (self.context or {}).get("stage")
        if self.rules.finishes_round(self.day):
            self.must_decide = True  # [JP 終了コール] a drawn extension is played off
        if stage == "single_elimination" or self.rules.finishes_round(self.day):
            # [TTH §7.4.4; JP 終了コール] fewest prizes remaining wins; equal: play on until someone leads or
            # wins (延長戦).
            a, b = self.players
            ra, rb = a.needed - a.taken, b.needed - b.taken
            if ra != rb:
                self.finish("win", a if ra < rb else b, "time")
            self.lead_rule = "time"
            for pl in self.players:
                pl.scale = 1.0
            return
        # [TTH §7.4.3] Swiss: a game still in progress when time runs out is a tie.
        self.finish("draw", None, "time")

    def level(self) -> bool:
        a, b = self.players
        return a.needed - a.taken == b.needed - b.taken

    def any_conditions(self) -> bool:
        return any(pl.active is not None and pl.active.conds for pl in self.players)

    def finish(self, outcome: str, winner: _Player | None, reason: str) -> None:
        if self.scenario == "game_loss_after" and winner is not None:
            # [PG §4] a Game Loss given right after a game applies to that game.
            self.scenario = "game_loss"
            self.game_loss(winner, "marked cards found after the game")
            outcome, winner, reason = "win", self.players[1 - winner.index], "penalty"
        f: dict[str, Any] = {"outcome": outcome}
        if winner is not None:
            f["winner"] = winner.id
        f["reason"] = reason
        self.clock += self.rng.randrange(5, 40)
        f["at"] = self.at()
        self.emit("game_ended", f)
        self.check_books()
        self.result = {"outcome": outcome, "winner": winner.id if winner else None, "reason": reason}
        raise _End

    # ------------------------------------------------------------------ a turn's actions
    def main_phase(self, p: _Player, q: _Player, t: int) -> None:
        rng = self.rng
        # [docs/rules.md §6] the first player may not play a Supporter (or attack) on the first turn of the
        # game.
        if t > 1 and p.hand >= 1 and rng.random() < 0.8:
            played = len(self.events)
            self.supporter(p, q, t)
            if (
                len(self.events) > played
                and p.hand >= 1
                and self.fault("second_supporter", len(self.events) + 1)
            ):
                self.trainer(p, "supporter", "Hop")  # a source error: a second Supporter this turn
        self.attach(p)
        for _ in range(rng.choice((0, 0, 1, 1, 2))):
            self.item(p)
        self.bench_basics(p)
        self.evolve(p, t)
        self.ability(p, q)
        self.retreat(p)
        self.attack(p, q, t)

    def supporter(self, p: _Player, q: _Player, t: int) -> None:
        rng = self.rng
        research = 0.5 if p.hand <= 2 else 0.1
        if self.stall:
            research = 0.3 if p.hand <= 1 else 0.02
        if self.scenario == "deck_out" and p.index == self.victim:
            research = 0.9
        roll = rng.random()
        if roll < research:
            self.trainer(p, "supporter", "Professor's Research")
            self.moved(p, "hand", "discard", p.hand)
            self.draw(p, 7)
        elif roll < research + 0.2 and q.bench:
            self.trainer(p, "supporter", "Boss's Orders")
            target = max(q.bench, key=lambda m: (m.knocked_out, self.value(m), m.damage))
            self.switch_active(q, target, "Boss's Orders")
        elif roll < research + 0.35:
            self.trainer(p, "supporter", "Arven")
            self.moved(p, "deck", "hand", min(2, p.deck))
        elif roll < research + 0.42 and not self.stall:
            self.trainer(p, "supporter", "Iono")
            for pl in (p, q):
                self.moved(pl, "hand", "deck", pl.hand)
                self.draw(pl, pl.prizes)
        elif roll < research + 0.5:
            self.trainer(p, "supporter", "Colress's Experiment")
            n = min(3, p.deck)
            self.moved(p, "deck", "hand", n)
            self.moved(p, "deck", "lost_zone", min(2, p.deck))
        elif roll < research + 0.55:
            small = [m for m in p.mons() if m.stack == 1 and (m is not p.active or p.bench)]
            if small:
                self.trainer(p, "supporter", "Penny")
                mon = rng.choice(small)
                self.remove(p, mon, "hand")
        elif roll < research + 0.6 and self.scenario == "no_pokemon" and not q.bench and q.active:
            # An effect that shuffles the opponent's Active into their deck: with nothing on the Bench,
            # they cannot put out an Active [docs/rules.md §1.2].
            self.remove(q, q.active, "deck")

    def remove(self, pl: _Player, mon: _Mon, to: str) -> None:
        """A Pokémon leaves play by an effect (no prizes); a new Active comes from the Bench."""
        zone = {"hand": "hand", "deck": "deck", "lost_zone": "lost", "discard": "discard"}[to]
        setattr(pl, zone, getattr(pl, zone) + mon.stack)
        self.emit("removed", {"player": pl.id, "pid": mon.pid, "to": to})
        if mon is not pl.active:
            pl.bench.remove(mon)
            return
        pl.active = None
        if not pl.bench:
            self.judge()
            return
        new = max(pl.bench, key=lambda m: (m.energy >= m.card.cost, m.remaining, m.pid))
        pl.bench.remove(new)
        pl.active = new
        self.emit("promoted", {"player": pl.id, "pid": new.pid})

    def item(self, p: _Player) -> None:
        rng = self.rng
        roll = rng.random()
        if roll < 0.35 and p.hand >= 3:
            discards = [rng.choice(_ENERGY), rng.choice(_TOOLS)]
            named = rng.random() < 0.5
            self.trainer(p, "item", "Ultra Ball")
            self.moved(p, "hand", "discard", 2, discards if named else None)
            self.moved(p, "deck", "hand", min(1, p.deck))
        elif roll < 0.6 and p.hand >= 1 and len(p.bench) < p.max_bench and not p.keep_bench_empty:
            self.trainer(p, "item", "Nest Ball")
            if p.deck:
                self.moved(p, "deck", "hand", 1)
                self.play_basic(p)
        elif roll < 0.75 and p.hand >= 1:
            self.trainer(p, "item", "Pokégear 3.0")
            self.moved(p, "deck", "hand", min(1, p.deck))
        elif roll < 0.82 and p.hand >= 1 and p.discard >= 4 and self.scenario != "deck_out":
            self.trainer(p, "item", "Super Rod")
            self.moved(p, "discard", "deck", 3)

    def play_basic(self, p: _Player) -> None:
        if p.hand < 1 or len(p.bench) >= p.max_bench or p.keep_bench_empty:
            return
        mon = self._new_mon(p)
        p.hand -= 1
        p.bench.append(mon)
        self.emit("played", {"player": p.id, "pid": mon.pid, "card": self.card(mon), "to": "bench"})

    def bench_basics(self, p: _Player) -> None:
        while p.hand >= 1 and len(p.bench) < p.max_bench and not p.keep_bench_empty:
            if self.rng.random() > (0.75 if len(p.bench) < 2 else 0.3):
                break
            self.play_basic(p)

    def evolve(self, p: _Player, t: int) -> None:
        # [docs/rules.md §6] nobody evolves on their own first turn, nor a Pokémon that came into play this
        # turn.
        if p.turns < 2:
            return
        rng = self.rng
        for mon in p.mons():
            if p.hand < 1 or mon.entered >= t or mon.evolved_turn == t:
                continue
            if mon.stage >= len(mon.line) - 1 or rng.random() > 0.55:
                continue
            step = 1
            if mon.stage == 0 and len(mon.line) >= 3 and p.hand >= 2 and rng.random() < 0.3:
                self.trainer(p, "item", "Rare Candy")
                step = 2
            mon.stage += step
            mon.stack += 1
            mon.evolved_turn = t
            mon.conds = []  # evolving ends Special Conditions
            self._maybe_explicit(mon)
            p.hand -= 1
            self.emit("evolved", {"player": p.id, "pid": mon.pid, "card": self.card(mon)})

    def attach(self, p: _Player) -> None:
        rng = self.rng
        mons = p.mons()
        if p.hand >= 1 and mons:
            act = p.active
            if act is not None and act.energy < act.card.cost:
                target = act
            else:
                target = min(mons, key=lambda m: (m.energy - m.card.cost, m.pid))
            legacy = not p.legacy_used and rng.random() < 0.04
            name = "Legacy Energy" if legacy else rng.choice(_ENERGY)
            p.hand -= 1
            target.stack += 1
            target.energy += 2 if name == "Double Turbo Energy" else 1
            target.legacy = target.legacy or legacy
            p.legacy_used = p.legacy_used or legacy
            self.emit(
                "attached", {"player": p.id, "pid": target.pid, "card": {"name": name, "kind": "energy"}}
            )
        if p.discard >= 1 and mons and rng.random() < 0.3:
            # Energy acceleration from the discard pile by an Ability (e.g. Psychic Embrace).
            target = min(mons, key=lambda m: (m.energy - m.card.cost, m.pid))
            p.discard -= 1
            target.stack += 1
            target.energy += 1
            self.emit(
                "attached",
                {
                    "player": p.id,
                    "pid": target.pid,
                    "card": {"name": "Psychic Energy", "kind": "energy"},
                    "from": "discard",
                },
            )
        if p.hand >= 1 and rng.random() < 0.12:
            bare = [m for m in p.mons() if not m.tool]
            if bare:
                target = rng.choice(bare)
                p.hand -= 1
                target.stack += 1
                target.tool = True
                self.emit(
                    "attached",
                    {"player": p.id, "pid": target.pid, "card": {"name": rng.choice(_TOOLS), "kind": "tool"}},
                )

    def ability(self, p: _Player, q: _Player) -> None:
        rng = self.rng
        names = {m.card.name for m in p.mons()}
        if "Bibarel" in names and p.hand < 5 and rng.random() < 0.8:
            self.draw(p, 5 - p.hand)
        if "Pidgeot ex" in names and p.deck and rng.random() < 0.8:
            self.moved(p, "deck", "hand", 1)
        a, d = p.active, q.active
        if self.stall and a and d and self.settling_double_ko(p, q, a, d) and rng.random() < 0.2:
            # an effect outside the attack knocks out both Actives at once (one batch, window "effect")
            self.hit(d, d.remaining, "Cursed Blast")
            self.hit(a, a.remaining, "Cursed Blast")
            self.claim([d, a], faults=False)
            self.batch([d, a], next_player=q, window_player=p)
            return
        if self.stall or rng.random() > 0.12:
            return
        # Damage outside an attack: checked once the whole effect has resolved [docs/rules.md §2], one batch
        # for every Pokémon it left at 0 HP (window "effect").
        targets = q.mons()
        hurt = [m for m in p.mons() if m.damage >= 30]
        roll = rng.random()
        if roll < 0.3:
            hit = rng.sample(targets, min(len(targets), rng.randint(2, 3)))
            for m in hit:
                self.hit(m, 20, "Toxic Spread")
        elif roll < 0.45 and p.active is not None and q.active is not None:
            # an effect on each Active Pokémon, both sides: a double knockout outside the windows
            hit = [q.active, p.active]
            for m in hit:
                self.hit(m, 30, "Toxic Fumes")
        elif hurt:
            src = rng.choice(hurt)
            hit = [rng.choice(targets)]
            src.damage -= 30
            self.emit("healed", {"pid": src.pid, "amount": 30})
            self.hit(hit[0], 30, "Adrena-Brain")
        else:
            return
        knocked = [m for m in hit if m.knocked_out]
        if knocked:
            self.claim(knocked, faults=False)
            self.batch(knocked, next_player=q, window_player=p)

    def retreat(self, p: _Player) -> None:
        act = p.active
        if act is None or not p.bench:
            return
        rng = self.rng
        ready = max(p.bench, key=lambda m: (m.energy >= m.card.cost, m.remaining, m.pid))
        stuck = any(c in ("asleep", "paralyzed") for c in act.conds)
        want = (
            act.remaining < act.card.hp * 0.4
            or act.energy < act.card.cost <= ready.energy
            or rng.random() < 0.05
        )
        if not want:
            return
        if stuck:
            if p.hand < 1 or rng.random() < 0.5:
                return
            self.trainer(p, "item", "Switch")
            self.switch_active(p, ready, "Switch")
            return
        self.switch_active(p, ready)  # the turn's retreat [docs/rules.md §6]

    def switch_active(self, pl: _Player, new: _Mon, effect: str | None = None) -> None:
        """A new Active from the Bench: by the card ``effect`` names, or a retreat."""
        old = pl.active
        assert old is not None
        old.conds = []  # moving to the Bench ends Special Conditions
        pl.bench[pl.bench.index(new)] = old
        pl.active = new
        f: dict[str, Any] = {"player": pl.id, "pid": new.pid}
        if effect is not None:
            f["effect"] = effect
        self.emit("switched", f)

    def trainer(self, pl: _Player, kind: str, name: str) -> None:
        """A Trainer card played from the hand to the discard pile (contract: trainer_played)."""
        pl.hand -= 1
        pl.discard += 1
        self.emit("trainer_played", {"player": pl.id, "card": {"name": name, "kind": kind}})

    # ------------------------------------------------------------------ attacks
    def prizes_for(self, taker: _Player, mons: list[_Mon]) -> int:
        return min(sum(self.value(m) for m in mons if m.owner != taker.index), taker.prizes)

    def finishes(self, taker: _Player, mons: list[_Mon]) -> bool:
        return taker.taken + self.prizes_for(taker, mons) >= taker.needed

    def attack(self, p: _Player, q: _Player, t: int) -> None:
        rng = self.rng
        a, d = p.active, q.active
        if a is None or d is None:
            return
        forced_fault = t == 1 and "first_turn_attack" in self.faults
        if t == 1 and not forced_fault:
            return  # [docs/rules.md §6] no attack on the first turn of the game
        if any(c in ("asleep", "paralyzed") for c in a.conds):
            return
        card = a.card
        if forced_fault:
            name, base, effect = card.attack, 10, ""
        elif a.energy >= card.cost:
            name, base, effect = card.attack, card.damage, card.effect
        elif a.energy >= 1:
            name, base, effect = "Tackle", max(20, card.damage // 2), ""
        else:
            return
        ev = self.emit("attack", {"player": p.id, "pid": a.pid, "name": name})
        if forced_fault:
            self.fault("first_turn_attack", ev["seq"])
        if "confused" in a.conds and rng.random() < 0.5:
            # Confused: tails, the attack fails and the attacker takes 30.
            self.hit(a, 30, None)
            self.close_attack(p, q, [a] if a.knocked_out else [], [])
            return
        dmg = int(base * p.scale * rng.uniform(0.9, 1.35)) // 10 * 10
        if rng.random() < 0.08:
            dmg *= 2  # weakness
        spread: list[tuple[_Mon, int]] = []
        recoil = 0
        if effect == "spread" and q.bench:
            for m in rng.sample(q.bench, min(len(q.bench), rng.randint(1, 2))):
                spread.append((m, rng.choice((10, 20, 30, 60))))
        if effect == "recoil":
            recoil = rng.choice((10, 20, 30, 50))
        cond = _EFFECT_CONDITION.get(effect) if rng.random() < 0.6 else None
        mill = 0
        if effect == "mill":
            mill = rng.randint(1, 2)
        if self.scenario == "deck_out" and q.index == self.victim:
            mill = rng.randint(2, 3)
        both_bench = bool(p.bench) and bool(q.bench)
        poison_both = False
        if self.stall and self.turn < 90:
            spread, cond = [], None
            recoil = 0
            if p.taken + self.value(d) < p.needed:
                dmg = dmg * 3 // 2 // 10 * 10  # the player further from the end presses on
            if self.count_win and self.wipe_settles(p, q, a, d):
                dmg, recoil = d.remaining, a.remaining
                spread = [(m, m.remaining) for m in q.bench]
                ev["name"] = "Reckless Charge"
            elif self.settling_double_ko(p, q, a, d):
                if rng.random() < 0.35 and d.remaining > 10 and a.remaining > 10:
                    # both Actives left at 10 HP and Poisoned: the Pokémon Checkup knocks both out
                    dmg, recoil = d.remaining - 10, a.remaining - 10
                    poison_both = True
                else:
                    dmg, recoil = d.remaining, a.remaining
                ev["name"] = "Reckless Charge"
            elif dmg >= d.remaining and not self.may_knock_out(p, q, d):
                dmg = max(0, d.remaining - 10)
        elif (
            "promotion_order" in self.faults
            and both_bench
            and not self.finishes(p, [d])
            and not self.finishes(q, [a])
        ):
            dmg, recoil = max(dmg, d.remaining), a.remaining
            spread, cond = [], None
        if forced_fault:
            dmg = min(dmg, d.remaining - 10)
            spread, recoil, cond, mill = [], 0, None, 0
        if dmg > 0:
            self.hit(d, dmg, a.pid)
        for m, amount in spread:
            self.hit(m, amount, a.pid)
        if recoil:
            self.hit(a, recoil, a.pid)
        if poison_both:
            self.afflict(d, "poisoned", t)
            self.afflict(a, "poisoned", t)
        if cond and not d.knocked_out:
            self.afflict(d, cond, t)
            if cond == "poisoned" and not a.knocked_out and rng.random() < 0.3:
                self.afflict(a, cond, t)  # e.g. a poison cloud: both Active Pokémon are now Poisoned
        if mill:
            self.moved(q, "deck", "discard", min(mill, q.deck))
        knocked = [m for m in (d, *(m for m, _ in spread), a) if m.knocked_out]
        # Prize modifiers that apply to this knockout [docs/rules.md §3]: Legacy Energy -1, Briar +1.
        if d.knocked_out and not self.stall:
            if d.legacy and d.modifier == 0:
                d.modifier -= 1
                self.emit("prize_modifier", {"pid": d.pid, "delta": -1})
            elif rng.random() < 0.05:
                d.modifier += 1
                self.emit("prize_modifier", {"pid": d.pid, "delta": 1})
        self.close_attack(p, q, list(dict.fromkeys(knocked)), [d, a])

    def afflict(self, mon: _Mon, cond: str, t: int) -> None:
        if cond in _ROTATIONS:
            mon.conds = [c for c in mon.conds if c not in _ROTATIONS]  # the card is turned: one of them
        if cond not in mon.conds:
            mon.conds.append(cond)
        if cond == "paralyzed":
            mon.paralyzed_turn = t
        self.emit("condition", {"pid": mon.pid, "condition": cond, "on": True})

    def hit(self, mon: _Mon, amount: int, by: str | None) -> None:
        mon.damage += amount
        f: dict[str, Any] = {"pid": mon.pid, "amount": amount}
        if by is not None:
            f["by"] = by
        self.emit("damage", f)

    def close_attack(self, p: _Player, q: _Player, knocked: list[_Mon], survivors: list[_Mon]) -> None:
        """Knockout claims inside the window, then the window ends and the batch is processed."""
        self.claim(knocked)
        if "ko_not_due" in self.faults:
            alive = [m for m in survivors if not m.knocked_out and m.damage > 0]
            if alive:
                self.emit("knocked_out", {"pid": alive[0].pid})
                self.fault("ko_not_due", len(self.events) + 1)
        self.window_closed(self.emit("attack_ended"))
        # The attack ends the turn: the next turn is the opponent's.
        self.batch(knocked, next_player=q, window_player=p)

    def window_closed(self, event: Event) -> None:
        # A knockout left unclaimed is reported at the batch, i.e. where its window closed.
        for f in self.injected:
            if f["fault"] == "missing_ko" and f["seq"] == 0:
                f["seq"] = event["seq"]

    def claim(self, knocked: list[_Mon], *, faults: bool = True) -> None:
        for i, mon in enumerate(knocked):
            if i == 0 and faults and self.fault("missing_ko", 0):
                continue
            f: dict[str, Any] = {"pid": mon.pid}
            if self.rng.random() < 0.3:
                f["player"] = self.players[mon.owner].id
            self.emit("knocked_out", f)

    def may_knock_out(self, p: _Player, q: _Player, d: _Mon) -> bool:
        """Stalling towards a simultaneous ending: no knockout that would end the game on its own."""
        return bool(q.bench) and not self.finishes(p, [d])

    def wipe_settles(self, p: _Player, q: _Player, a: _Mon, d: _Mon) -> bool:
        """Knocking out the opponent's whole side, the recoil knocking out the attacker, wins 2-1 by
        counting: taken all + opponent cannot put out an Active, against taken all [docs/rules.md §4
        table]."""
        return bool(p.bench) and self.finishes(q, [a]) and self.finishes(p, [d, *q.bench])

    def settling_double_ko(self, p: _Player, q: _Player, a: _Mon, d: _Mon) -> bool:
        """Stalling is over: a double knockout of both Actives now gives both players a win condition."""
        late = self.turn > 40
        if self.count_win and not late:
            return False
        if self.bare and (p.bench or q.bench) and not late:
            return False
        return self.double_ko_settles(p, q, a, d)

    def double_ko_settles(self, p: _Player, q: _Player, a: _Mon, d: _Mon) -> bool:
        """A double knockout of both Actives would give both players a win condition [docs/rules.md §4]."""
        p_meets = self.finishes(p, [d]) or not q.bench
        q_meets = self.finishes(q, [a]) or not p.bench
        return p_meets and q_meets

    # ------------------------------------------------------------------ knockouts, prizes, result
    def batch(self, knocked: list[_Mon], *, next_player: _Player, window_player: _Player) -> None:
        """One knockout batch [JP3.4 §I-D]: discard together, prizes last, next-turn player promotes first."""
        if not knocked:
            return
        lost_active: list[_Player] = []
        for mon in knocked:
            owner = self.players[mon.owner]
            if owner.active is mon:
                owner.active = None
                lost_active.append(owner)
            else:
                owner.bench.remove(mon)
            owner.discard += mon.stack
        for taker in (window_player, self.players[1 - window_player.index]):
            n = self.prizes_for(taker, knocked)
            if n <= 0:
                continue
            taker.prizes -= n
            taker.hand += n
            taker.taken += n
            count = n
            if self.fault("prize_count", len(self.events) + 1):
                count = n + 1
            self.emit("prize_taken", {"player": taker.id, "count": count})
        self.judge()
        lost_active.sort(key=lambda pl: 0 if pl is next_player else 1)
        due = [pl for pl in lost_active if pl.bench]
        if len(due) == 2 and self.fault("promotion_order", len(self.events) + 1):
            due.reverse()
        for pl in due:
            mon = max(pl.bench, key=lambda m: (m.energy >= m.card.cost, m.remaining, m.pid))
            pl.bench.remove(mon)
            pl.active = mon
            self.emit("promoted", {"player": pl.id, "pid": mon.pid})

    def judge(self) -> None:
        """The result after a knockout batch: count each player's win conditions [docs/rules.md §4]."""
        a, b = self.players
        met: dict[int, list[str]] = {0: [], 1: []}
        for me, opp in ((a, b), (b, a)):
            if me.taken >= me.needed:
                met[me.index].append("prizes")
            if opp.active is None and not opp.bench:
                met[me.index].append("no_active_opponent")
        sa, sb = len(met[0]), len(met[1])
        winner: _Player | None = None
        reason = ""
        if sa or sb:
            if sa == sb:
                reason = "simultaneous"
            else:
                winner = a if sa > sb else b
                loser_met = met[1 - winner.index]
                reason = (
                    "simultaneous"
                    if loser_met
                    else ("prizes" if "prizes" in met[winner.index] else "no_pokemon")
                )
        ra, rb = a.needed - a.taken, b.needed - b.taken
        if self.lead_rule is not None and winner is None and ra != rb:
            # A playoff won by the first prize lead, or time over with equal prizes: the first player with
            # fewer prizes remaining than the opponent wins [docs/rules.md §6].
            self.finish("win", a if ra < rb else b, self.lead_rule)
        if reason:
            self.finish("draw" if winner is None else "win", winner, reason)

    # ------------------------------------------------------------------ the Pokémon Checkup
    def checkup(self, p: _Player, q: _Player) -> None:
        """Between turns [JP3.4 §I-F]: Poisoned, Burned, Asleep, Paralyzed for both; then one batch."""
        actives = [pl.active for pl in (p, q) if pl.active is not None and pl.active.conds]
        if not actives:
            return
        rng = self.rng
        self.emit("checkup_started")
        for mon in actives:
            if "poisoned" in mon.conds:
                self.hit(mon, 10, None)
        for mon in actives:
            if "burned" in mon.conds:
                self.hit(mon, 20, None)
                if rng.random() < 0.5:
                    self.cure(mon, "burned")
        for mon in actives:
            if "asleep" in mon.conds and rng.random() < 0.5:
                self.cure(mon, "asleep")
        for mon in actives:
            # Paralysis ends at the checkup after its owner's next turn.
            if "paralyzed" in mon.conds and mon.owner == p.index and mon.paralyzed_turn < self.turn:
                self.cure(mon, "paralyzed")
        knocked = [m for m in actives if m.knocked_out]
        self.claim(knocked)
        self.window_closed(self.emit("checkup_ended"))
        self.batch(knocked, next_player=q, window_player=p)

    def cure(self, mon: _Mon, cond: str) -> None:
        mon.conds.remove(cond)
        self.emit("condition", {"pid": mon.pid, "condition": cond, "on": False})


# ---------------------------------------------------------------------------------------------- library


def _names(rng: random.Random) -> tuple[str, str]:
    a, b = rng.sample(_PLAYERS, 2)
    return a, b


# The first and last days of the time-called procedures [docs/rules.md §6 Time called].
_BOUNDARY_DAYS: Final = ("2025-08-31", "2025-09-01", "2026-02-12", "2026-02-13")


def _day(rng: random.Random) -> str:
    roll = rng.random()
    if roll < 0.06:
        return rng.choice(_BOUNDARY_DAYS)
    if roll < 0.2:
        year, month, span = 2025, rng.randint(3, 8), 28
    elif roll < 0.45:
        year, month = rng.choice(((2025, 9), (2025, 10), (2025, 11), (2025, 12), (2026, 1), (2026, 2)))
        span = 12 if (year, month) == (2026, 2) else 28
    else:
        year, month, span = 2026, rng.randint(3, 11), 28
    return f"{year:04d}-{month:02d}-{rng.randint(1, span):02d}"


def _context(rng: random.Random, scenario: str) -> dict[str, Any] | None:
    if scenario not in ("time", "playoff") and rng.random() < 0.35:
        return None
    stage = rng.choice(("swiss", "single_elimination"))
    if scenario == "playoff":
        stage = "single_elimination" if rng.random() < 0.5 else stage
    ctx: dict[str, Any] = {
        "event": rng.choice(("Sim Regional", "Sim League Cup", "Sim Open")),
        "round": rng.randint(1, 12),
        "table": rng.randint(1, 256),
        "stage": stage,
        "game": 1 if scenario == "time" else rng.randint(1, 3),
    }
    if rng.random() < 0.3:
        ctx["season"] = "2026"
    return ctx


def _must_decide(rng: random.Random, scenario: str, context: dict[str, Any] | None) -> bool | None:
    if scenario == "playoff":
        return True
    if scenario == "time":
        return False  # a Swiss game may end in a tie when time runs out
    stage = (context or {}).get("stage")
    if stage == "single_elimination":
        return None if rng.random() < 0.5 else True
    return None if rng.random() < 0.8 else False


@dataclass(frozen=True)
class Setting:
    """Where a game is played, when :func:`simulate_game` is told rather than drawing it: the players, the
    day (YYYY-MM-DD), the tournament context and whether a drawn game must be decided.
    ``draw_first_tiebreak`` steers the first playoff game (if one is needed) to a draw, so that a second
    one follows [docs/rules.md §6]."""

    names: tuple[str, str]
    day: str
    context: dict[str, Any] | None
    must_decide: bool | None
    draw_first_tiebreak: bool = False


def _simulate(
    seed: int,
    match: str,
    ruleset: str,
    scenario: str | None,
    faults: Collection[str],
    setting: Setting | None = None,
) -> tuple[list[list[Event]], list[dict[str, Any]], dict[str, Any]]:
    unknown = set(faults) - set(FAULTS)
    if unknown:
        raise InputError(f"unknown fault(s) {sorted(unknown)} (known: {', '.join(FAULTS)})", field="faults")
    rules = _rules(ruleset)
    rng = random.Random(seed)
    if scenario is None:
        scenario = rng.choices(SCENARIOS, [SCENARIO_QUOTA[s] for s in SCENARIOS])[0]
    elif scenario not in SCENARIOS:
        raise InputError(f"unknown scenario {scenario!r} (known: {', '.join(SCENARIOS)})", field="scenario")
    if setting is None:
        names = _names(rng)
        day = _day(rng)
        context = _context(rng, scenario)
        setting = Setting(names, day, context, _must_decide(rng, scenario, context))
    names, day, context = setting.names, setting.day, setting.context
    sim = _Sim(
        rng,
        match,
        rules,
        scenario,
        names=names,
        day=day,
        context=context,
        must_decide=setting.must_decide,
        faults=faults,
    )
    result = sim.run()
    streams = [sim.events]
    injected = list(sim.injected)
    n = 0
    must = sim.must_decide
    # A drawn game that must be decided is played off in a child game; a drawn playoff game hands over to
    # the next one, whose parent stays the root [docs/rules.md §6].
    while result["outcome"] == "draw" and must and n < 8:
        n += 1
        child_scenario = rng.choices(("prizes", "concession", "game_loss", "deck_out"), (85, 5, 5, 5))[0]
        if rules.playoff_won_by == "first_prize" and scenario == "playoff" and n == 1 and rng.random() < 0.4:
            child_scenario = "sd_draw"
        elif setting.draw_first_tiebreak and n == 1:
            child_scenario = "tb_draw"
        child = _Sim(
            rng,
            f"{match}/tb{n}",
            rules,
            child_scenario,
            names=names,
            day=day,
            context=context,
            must_decide=True if rng.random() < 0.5 else None,
            parent=match,
        )
        result = child.run()
        must = child.must_decide
        streams.append(child.events)
    return streams, injected, result


def simulate_game(
    seed: int,
    match: str,
    ruleset: str,
    scenario: str | None,
    setting: Setting,
    faults: Collection[str] = (),
) -> tuple[list[list[Event]], dict[str, Any]]:
    """One game in a given ``setting`` and its playoff games: the event streams ``[game, tb1, ...]`` and
    the result that decided it (``outcome``, ``winner``, ``reason``; the last playoff game's when there
    were any). ``faults`` as for :func:`simulate_series`. Deterministic in ``seed``."""
    streams, _, result = _simulate(seed, match, ruleset, scenario, faults, setting)
    return streams, result


def simulate_series(
    seed: int,
    match: str = "sim-0",
    ruleset: str = "play-2026",
    *,
    scenario: str | None = None,
    faults: Collection[str] = (),
) -> list[list[Event]]:
    """One game and its playoff games, each as its own event stream: ``[parent, tb1, tb2, ...]``.

    Deterministic in ``seed``. ``scenario`` (one of :data:`SCENARIOS`) steers the game towards an ending;
    by default it is drawn from :data:`SCENARIO_QUOTA`. ``faults`` (keys of :data:`FAULTS`) are injected
    once each into the first game, at the first chance.
    """
    streams, _, _ = _simulate(seed, match, ruleset, scenario, faults)
    return streams


def simulate_with_faults(
    seed: int,
    faults: Collection[str],
    match: str = "sim-0",
    ruleset: str = "play-2026",
    *,
    scenario: str | None = None,
) -> tuple[list[list[Event]], list[dict[str, Any]]]:
    """Like :func:`simulate_series`, also returning the faults actually injected.

    Each injected fault is ``{"fault", "code" (the finding the engine must report), "match", "seq"}``.
    A fault that found no chance in the game (e.g. no double knockout for ``promotion_order``) is absent.
    """
    streams, injected, _ = _simulate(seed, match, ruleset, scenario, faults)
    return streams, injected


def simulate_match(
    seed: int, match: str = "sim-0", ruleset: str = "play-2026", **options: Any
) -> list[Event]:
    """One game's events; a drawn game that must be decided is followed by its playoff games' events.

    Options: ``scenario`` and ``faults`` as for :func:`simulate_series`.
    """
    streams = simulate_series(
        seed, match, ruleset, scenario=options.get("scenario"), faults=options.get("faults", ())
    )
    return [e for stream in streams for e in stream]


def simulate_corpus(
    n: int, seed: int, ruleset: str | None = None, *, faults: Collection[str] = ()
) -> Iterator[list[Event]]:
    """Event streams of ``n`` games and their playoff games (each its own stream), deterministic in ``seed``.

    Rulesets rotate when ``ruleset`` is None. Scenarios come in shuffled blocks of 100 following
    :data:`SCENARIO_QUOTA`, so every ending is steered for in every block.
    """
    rng = random.Random(seed)
    block: list[str] = []
    for i in range(n):
        if not block:
            block = [s for s, k in SCENARIO_QUOTA.items() for _ in range(k)]
            rng.shuffle(block)
        scenario = block.pop()
        rs = ruleset or RULESETS[i % len(RULESETS)]
        yield from simulate_series(
            rng.getrandbits(63), f"sim-{seed}-{i:06d}", rs, scenario=scenario, faults=faults
        )
