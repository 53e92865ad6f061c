"""The JSON Schemas (schemas/) against the contract, against the reference validator, and against the engine.

Every example is checked twice: by ``replay.contract.validate`` (fastjsonschema, compiled per event type)
and by the reference ``jsonschema`` Draft202012Validator on the whole document. The two must agree, which
checks the schemas' structure (the top-level if/then dispatch, the per-type ``$defs``) as well as the fast
path.
"""

from __future__ import annotations

import calendar
import copy
import json
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator, FormatChecker

from replay.contract.validate import (
    EVENT_TYPES,
    RecordError,
    RulesetError,
    validate_event,
    validate_record,
    validate_ruleset,
)
from replay.engine.errors import EventError, InputError
from schemas import load_schema, schema_path
from tests.sampling import examples

ROOT = Path(__file__).resolve().parent.parent
RULESET_FILES = sorted((ROOT / "replay" / "engine" / "rulesets").glob("*.json"))

# The event vocabulary (docs/events.md), written out independently of the schemas.
CONTRACT_TYPES = [
    "match_started",
    "setup",
    "turn_started",
    "drew",
    "moved",
    "played",
    "evolved",
    "attached",
    "attack",
    "damage",
    "healed",
    "attack_ended",
    "condition",
    "turn_ended",
    "checkup_started",
    "checkup_ended",
    "switched",
    "promoted",
    "removed",
    "knocked_out",
    "prize_taken",
    "prize_modifier",
    "conceded",
    "penalty",
    "time_called",
    "effect_result",
    "game_ended",
    "correction",
    "note",
    # issue 12: the zones a battle log shows moving (docs/events.md)
    "discarded",
    "trainer_played",
    "searched",
    "to_hand",
    "shuffled",
]
CONTRACT_RULES = [
    "none",
    "ex",
    "mega_ex",
    "ex_old",
    "EX",
    "mega_EX",
    "GX",
    "tag_team",
    "V",
    "VMAX",
    "VSTAR",
    "V_UNION",
    "BREAK",
    "LV_X",
    "LEGEND",
    "prism_star",
    "radiant",
    "star",
]
CONTRACT_ZONES = ["deck", "hand", "discard", "prizes", "lost_zone", "stadium"]

# ---------------------------------------------------------------------------------------------- reference

_RFC3339 = re.compile(
    r"([0-9]{4})-([0-9]{2})-([0-9]{2})[Tt]([0-9]{2}):([0-9]{2}):([0-9]{2})(\.[0-9]+)?"
    r"(?:[Zz]|[+-]([0-9]{2}):([0-9]{2}))"
)
_DATE = re.compile(r"([0-9]{4})-([0-9]{2})-([0-9]{2})")


def _valid_day(year: str, month: str, day: str) -> bool:
    y, m, d = int(year), int(month), int(day)
    return 1 <= m <= 12 and 1 <= d <= calendar.monthrange(y, m)[1]


FORMATS = FormatChecker(formats=())


@FORMATS.checks("date-time")
def _is_date_time(value: object) -> bool:
    """RFC 3339 §5.6, written from the RFC (jsonschema needs an extra package to check it)."""
    if not isinstance(value, str):
        return True
    m = _RFC3339.fullmatch(value)
    if m is None:
        return False
    y, mo, d, h, mi, s, _, oh, om = m.groups()
    offset_ok = oh is None or (int(oh) <= 23 and int(om) <= 59)
    return _valid_day(y, mo, d) and int(h) <= 23 and int(mi) <= 59 and int(s) <= 60 and offset_ok


@FORMATS.checks("date")
def _is_date(value: object) -> bool:
    if not isinstance(value, str):
        return True
    m = _DATE.fullmatch(value)
    return m is not None and _valid_day(*m.groups())


def reference(name: str, ref: str | None = None) -> Draft202012Validator:
    schema = load_schema(name)
    if ref is not None:
        schema = {"$schema": schema["$schema"], "$defs": schema["$defs"], "$ref": f"#/$defs/{ref}"}
    return Draft202012Validator(schema, format_checker=FORMATS)


EVENTS_REF = reference("events")
RECORD_REF = reference("record")
RULESET_REF = reference("ruleset")


def fast_ok(event: object) -> bool:
    try:
        validate_event(event)
    except EventError:
        return False
    return True


# ---------------------------------------------------------------------------------------------- examples

M = "league:2026/r3/t12/g1"
PIKA = {"name": "Pikachu ex", "hp": 200, "rule": "ex"}


def ev(seq: int, etype: str, **fields: Any) -> dict[str, Any]:
    return {"match": M, "seq": seq, "type": etype, **fields}


VALID: dict[str, list[dict[str, Any]]] = {
    "match_started": [
        ev(
            1,
            "match_started",
            players=["ash", "misty"],
            first="ash",
            ruleset="play-2026",
            source={"kind": "digital"},
        ),
        ev(
            1,
            "match_started",
            players=["ash", "misty"],
            first="misty",
            ruleset="jp-3.4",
            prizes=6,
            deck=60,
            source={"kind": "scanned", "exporter": "tablecam", "reports_knockouts": False, "device": "x1"},
            context={
                "league": "Kanto",
                "season": "2026",
                "event": "Regionals",
                "round": 3,
                "table": "12B",
                "series": "r3-t12",
                "game": 1,
                "stage": "single_elimination",
                "time_result": "double_loss",
            },
            must_decide=True,
            at="2026-03-14T10:05:00Z",
            id="evt-0001",
        ),
        ev(
            1,
            "match_started",
            players=["ash", "misty"],
            first="ash",
            ruleset="kr-1.0",
            prizes=1,
            source={"kind": "manual"},
            parent="league:2026/r3/t12/g1",
            playoff="sudden_death",
        ),
        ev(
            1,
            "match_started",
            players=["a", "b"],
            first="a",
            ruleset="jp-3.4",
            source={"kind": "digital"},
            playoff="tiebreak",
            context={"table": 7, "stage": "swiss"},
        ),
        ev(
            1,
            "match_started",
            players=["a", "b"],
            first="b",
            ruleset="play-2026",
            source={"kind": "digital"},
            playoff="tiebreaker_game",
        ),
    ],
    "setup": [
        ev(
            2,
            "setup",
            player="ash",
            active={"pid": "a1", "card": PIKA},
            bench=[
                {"pid": "a2", "card": {"name": "Pichu", "hp": 30, "rule": "none"}},
                {"pid": "a3", "card": {"name": "Zeraora", "prizes": 1}},
            ],
            mulligans=0,
        ),
        ev(3, "setup", player="misty", active={"pid": "b1", "card": {"name": "Staryu"}}, bench=[]),
    ],
    "turn_started": [
        ev(4, "turn_started", player="ash", turn=1, deck=47),
        ev(4, "turn_started", player="ash"),
    ],
    "drew": [
        ev(5, "drew", player="ash"),
        ev(5, "drew", player="ash", count=2, cards=["Boss's Orders", "Iono"]),
    ],
    "moved": [
        ev(6, "moved", player="ash", count=2, **{"from": "hand", "to": "discard"}),
        ev(6, "moved", player="ash", cards=["Lost Vacuum"], **{"from": "deck", "to": "lost_zone"}),
        ev(6, "moved", player="ash", **{"from": "hand", "to": "stadium"}),
        ev(6, "moved", player="misty", count=1, **{"from": "prizes", "to": "hand"}),
    ],
    "played": [
        ev(7, "played", player="ash", pid="a4", card={"name": "Raichu V", "hp": 200, "rule": "V"}),
        ev(7, "played", player="ash", pid="a4", card={"name": "Pikachu"}, to="active"),
    ],
    "evolved": [ev(8, "evolved", player="ash", pid="a2", card={"name": "Pikachu", "hp": 70})],
    "attached": [
        ev(9, "attached", player="ash", pid="a1", card={"name": "Lightning Energy", "kind": "energy"}),
        ev(
            9,
            "attached",
            player="ash",
            pid="a1",
            card={"name": "Choice Belt", "kind": "tool"},
            **{"from": "deck"},
        ),
        ev(9, "attached", player="ash", pid="a1", card={"name": "Technical Machine", "kind": "other"}),
    ],
    "attack": [ev(10, "attack", player="ash", pid="a1", name="Thunderbolt")],
    "damage": [ev(11, "damage", pid="b1", amount=120, by="a1"), ev(11, "damage", pid="b1", amount=0)],
    "healed": [ev(12, "healed", pid="b1", amount=30)],
    "attack_ended": [ev(13, "attack_ended")],
    "condition": [
        ev(14, "condition", pid="b1", condition=c, on=on)
        for c, on in [
            ("poisoned", True),
            ("burned", False),
            ("asleep", True),
            ("paralyzed", True),
            ("confused", False),
        ]
    ],
    "turn_ended": [ev(15, "turn_ended", player="ash")],
    "checkup_started": [ev(16, "checkup_started")],
    "checkup_ended": [ev(17, "checkup_ended")],
    "switched": [ev(18, "switched", player="misty", pid="b2")],
    "promoted": [ev(19, "promoted", player="misty", pid="b2")],
    "removed": [
        ev(20, "removed", player="misty", pid="b2", to="deck"),
        ev(20, "removed", player="misty", pid="b2", to="lost_zone"),
    ],
    "knocked_out": [ev(21, "knocked_out", pid="b1"), ev(21, "knocked_out", pid="b1", player="misty")],
    "prize_taken": [ev(22, "prize_taken", player="ash", count=2)],
    "prize_modifier": [
        ev(23, "prize_modifier", pid="a1", delta=-1),
        ev(23, "prize_modifier", pid="b1", delta=1),
    ],
    "conceded": [ev(24, "conceded", player="misty"), ev(24, "conceded", player="misty", reason="inactive")],
    "penalty": [
        ev(25, "penalty", player="misty", kind=k, reason="slow play")
        for k in [
            "caution",
            "warning",
            "double_prize",
            "quad_prize",
            "game_loss",
            "match_loss",
            "disqualification",
            "double_loss",
        ]
    ]
    + [ev(25, "penalty", player="ash", kind="warning")]
    + [ev(25, "penalty", player="ash", kind="prize_penalty", prizes=n) for n in (1, 3)],
    "time_called": [ev(26, "time_called", at="2026-03-14T10:55:00.250+09:00")],
    "effect_result": [
        ev(27, "effect_result", player="ash", wins=True, card={"name": "Barbaracle"}),
        ev(27, "effect_result", player="ash", wins=False, card={"name": "Chaotic Swell"}),
    ],
    "game_ended": [
        ev(28, "game_ended", outcome="win", winner="ash", reason="prizes"),
        ev(28, "game_ended", outcome="draw"),
        ev(28, "game_ended", outcome="no_winner", reason="double game loss"),
    ],
    "correction": [
        ev(29, "correction", target=11, action="void"),
        ev(29, "correction", target=11, action="amend", event={"amount": 90}),
    ],
    "note": [ev(30, "note", text="judge called at table 12"), ev(30, "note", text="", author="judge:kim")],
    "discarded": [
        ev(31, "discarded", player="ash", count=2, cards=["Iono", "Pikachu"]),
        ev(31, "discarded", player="ash", pid="a1", cards=["Lightning Energy"]),
        ev(31, "discarded", player="misty", **{"from": "stadium"}, cards=["Artazon"]),
    ],
    "trainer_played": [
        ev(32, "trainer_played", player="ash", card={"name": "Ultra Ball", "kind": "item"}),
        ev(32, "trainer_played", player="ash", card={"name": "Artazon", "kind": "stadium"}),
    ],
    "searched": [
        ev(33, "searched", player="ash", count=1, cards=["Pikachu ex"]),
        ev(33, "searched", player="misty"),
    ],
    "to_hand": [ev(34, "to_hand", player="ash", **{"from": "discard"}, cards=["Pikachu"])],
    "shuffled": [
        ev(35, "shuffled", player="ash", zone="deck"),
        ev(35, "shuffled", player="ash", zone="deck", **{"from": "hand"}, count=5),
    ],
}

ALL_VALID = [e for events in VALID.values() for e in events]

# (event, field at fault, words the message must contain)
INVALID: list[tuple[dict[str, Any], str | None, str]] = [
    # envelope
    ({"seq": 3, "type": "note", "text": "x"}, "match", "missing required field 'match'"),
    (ev(0, "attack_ended"), "seq", "must be an integer >= 1"),
    (ev(-4, "attack_ended"), "seq", "must be an integer >= 1"),
    ({**ev(3, "attack_ended"), "seq": "3"}, "seq", "must be an integer >= 1"),
    ({**ev(3, "attack_ended"), "seq": 2.5}, "seq", "must be an integer >= 1"),
    ({**ev(3, "attack_ended"), "seq": True}, "seq", "must be an integer >= 1"),
    ({"match": M, "type": "attack_ended"}, "seq", "missing required field 'seq'"),
    ({**ev(3, "attack_ended"), "match": "table 12"}, "match", "1 to 128 characters"),
    ({**ev(3, "attack_ended"), "match": "tablé"}, "match", "1 to 128 characters"),
    ({**ev(3, "attack_ended"), "match": ""}, "match", "1 to 128 characters"),
    ({**ev(3, "attack_ended"), "match": "m" * 129}, "match", "1 to 128 characters"),
    ({**ev(3, "attack_ended"), "match": "m1\n"}, "match", "1 to 128 characters"),
    ({**ev(3, "attack_ended"), "match": 7}, "match", "must be a string"),
    ({"match": M, "seq": 3}, "type", "missing required field 'type'"),
    (ev(3, "foo"), "type", "unknown event type 'foo'"),
    (ev(3, "Note"), "type", "unknown event type 'Note'"),
    ({**ev(3, "attack_ended"), "type": 5}, "type", "must be a string"),
    ({**ev(3, "attack_ended"), "at": "yesterday"}, "at", "RFC 3339"),
    ({**ev(3, "attack_ended"), "at": "2026-02-30T10:00:00Z"}, "at", "RFC 3339"),
    ({**ev(3, "attack_ended"), "at": "2026-03-14 10:00:00Z"}, "at", "RFC 3339"),
    ({**ev(3, "attack_ended"), "at": "2026-03-14T10:00:00+0900"}, "at", "RFC 3339"),
    ({**ev(3, "attack_ended"), "at": 1773482700}, "at", "must be a string"),
    ({**ev(3, "attack_ended"), "id": 12}, "id", "must be a string"),
    # match_started
    (
        ev(1, "match_started", players=["ash"], first="ash", ruleset="play-2026", source={"kind": "digital"}),
        "players",
        "exactly 2 items",
    ),
    (
        ev(
            1,
            "match_started",
            players=["a", "b", "c"],
            first="a",
            ruleset="play-2026",
            source={"kind": "digital"},
        ),
        "players",
        "exactly 2 items",
    ),
    (
        ev(
            1,
            "match_started",
            players=["ash", "ash"],
            first="ash",
            ruleset="play-2026",
            source={"kind": "digital"},
        ),
        "players",
        "same item twice",
    ),
    (
        ev(
            1,
            "match_started",
            players=["ash", 2],
            first="ash",
            ruleset="play-2026",
            source={"kind": "digital"},
        ),
        "players[1]",
        "must be a non-empty string",
    ),
    (
        ev(
            1,
            "match_started",
            players="ash,misty",
            first="ash",
            ruleset="play-2026",
            source={"kind": "digital"},
        ),
        "players",
        "must be a list",
    ),
    (
        ev(1, "match_started", players=["a", "b"], ruleset="play-2026", source={"kind": "digital"}),
        "first",
        "missing required field 'first'",
    ),
    (
        ev(1, "match_started", players=["a", "b"], first="a", source={"kind": "digital"}),
        "ruleset",
        "missing required field 'ruleset'",
    ),
    (
        ev(1, "match_started", players=["a", "b"], first="a", ruleset="play-2026"),
        "source",
        "missing required field 'source'",
    ),
    (
        ev(1, "match_started", players=["a", "b"], first="a", ruleset="play-2026", source={}),
        "source.kind",
        "missing required field 'kind'",
    ),
    (
        ev(1, "match_started", players=["a", "b"], first="a", ruleset="play-2026", source={"kind": "paper"}),
        "source.kind",
        "must be one of digital, scanned, manual",
    ),
    (
        ev(
            1,
            "match_started",
            players=["a", "b"],
            first="a",
            ruleset="play-2026",
            source={"kind": "digital", "reports_knockouts": "yes"},
        ),
        "source.reports_knockouts",
        "true or false",
    ),
    (
        ev(
            1,
            "match_started",
            players=["a", "b"],
            first="a",
            ruleset="play-2026",
            source={"kind": "digital"},
            context={"stage": "top8"},
        ),
        "context.stage",
        "must be one of swiss, single_elimination",
    ),
    (
        ev(
            1,
            "match_started",
            players=["a", "b"],
            first="a",
            ruleset="play-2026",
            source={"kind": "digital"},
            context={"round": 0},
        ),
        "context.round",
        "must be an integer >= 1",
    ),
    (
        ev(
            1,
            "match_started",
            players=["a", "b"],
            first="a",
            ruleset="play-2026",
            source={"kind": "digital"},
            playoff="coin_flip",
        ),
        "playoff",
        "must be one of sudden_death, tiebreak, tiebreaker_game",
    ),
    (
        ev(
            1,
            "match_started",
            players=["a", "b"],
            first="a",
            ruleset="play-2026",
            source={"kind": "digital"},
            parent="a b",
        ),
        "parent",
        "1 to 128 characters",
    ),
    (
        ev(
            1,
            "match_started",
            players=["a", "b"],
            first="a",
            ruleset="play-2026",
            source={"kind": "digital"},
            prizes=0,
        ),
        "prizes",
        "must be an integer >= 1",
    ),
    (
        ev(
            1,
            "match_started",
            players=["a", "b"],
            first="a",
            ruleset="play-2026",
            source={"kind": "digital"},
            must_decide=1,
        ),
        "must_decide",
        "true or false",
    ),
    # Pokémon, cards and zones
    (ev(2, "setup", player="ash", bench=[]), "active", "missing required field 'active'"),
    (
        ev(2, "setup", player="ash", active={"pid": "a1", "card": PIKA}),
        "bench",
        "missing required field 'bench'",
    ),
    (
        ev(2, "setup", player="ash", active={"card": PIKA}, bench=[]),
        "active.pid",
        "missing required field 'pid'",
    ),
    (
        ev(
            2,
            "setup",
            player="ash",
            active={"pid": "a1", "card": PIKA},
            bench=[{"pid": "a2", "card": {"hp": 30}}],
        ),
        "bench[0].card.name",
        "missing required field 'name'",
    ),
    (
        ev(2, "setup", player="ash", active={"pid": "a1", "card": {"name": "P", "rule": "vmax"}}, bench=[]),
        "active.card.rule",
        "must be one of none, ex",
    ),
    (
        ev(2, "setup", player="ash", active={"pid": "a1", "card": PIKA}, bench=[], mulligans=-1),
        "mulligans",
        "must be an integer >= 0",
    ),
    (
        ev(7, "played", player="ash", pid="a4", card={"name": "Raichu", "hp": "120"}),
        "card.hp",
        "must be an integer >= 1",
    ),
    (
        ev(7, "played", player="ash", pid="a4", card={"name": "Raichu", "hp": 0}),
        "card.hp",
        "must be an integer >= 1",
    ),
    (ev(7, "played", player="ash", pid="a4", card={"name": "Raichu", "prizes": -1}), "card.prizes", ">= 0"),
    (ev(7, "played", player="ash", pid="a4", card="Raichu"), "card", "must be an object"),
    (ev(7, "played", player="ash", pid=4, card={"name": "Raichu"}), "pid", "must be a non-empty string"),
    (ev(7, "played", player="ash", pid="", card={"name": "Raichu"}), "pid", "must be a non-empty string"),
    (ev(7, "played", player="ash", card={"name": "Raichu"}), "pid", "missing required field 'pid'"),
    (
        ev(7, "played", player="ash", pid="a4", card={"name": "Raichu"}, to="hand"),
        "to",
        "must be one of bench, active",
    ),
    (
        ev(9, "attached", player="ash", pid="a1", card={"name": "Energy"}),
        "card.kind",
        "missing required field 'kind'",
    ),
    (
        ev(9, "attached", player="ash", pid="a1", card={"name": "E", "kind": "item"}),
        "card.kind",
        "energy, tool, other",
    ),
    (
        ev(9, "attached", player="ash", pid="a1", card={"name": "E", "kind": "energy"}, **{"from": "bench"}),
        "from",
        "must be one of deck, hand",
    ),
    (ev(6, "moved", player="ash", count=1, **{"from": "hand"}), "to", "missing required field 'to'"),
    (
        ev(6, "moved", player="ash", count=1, **{"from": "hand", "to": "graveyard"}),
        "to",
        "must be one of deck, hand, discard, prizes, lost_zone, stadium",
    ),
    (ev(6, "moved", player="ash", count=-1, **{"from": "hand", "to": "deck"}), "count", ">= 0"),
    (ev(6, "moved", player="ash", cards="Iono", **{"from": "hand", "to": "deck"}), "cards", "must be a list"),
    (ev(5, "drew", player="ash", cards=["Iono", 3]), "cards[1]", "must be a string"),
    (ev(5, "drew", count=1), "player", "missing required field 'player'"),
    (ev(4, "turn_started", player="ash", turn=0), "turn", "must be an integer >= 1"),
    (ev(4, "turn_started", player="ash", deck=-1), "deck", "must be an integer >= 0"),
    (ev(20, "removed", player="misty", pid="b2"), "to", "missing required field 'to'"),
    # attack, damage, conditions
    (ev(10, "attack", player="ash", pid="a1"), "name", "missing required field 'name'"),
    (ev(11, "damage", pid="b1", amount=-10), "amount", "must be an integer >= 0"),
    (ev(11, "damage", pid="b1", amount="30"), "amount", "must be an integer >= 0"),
    (ev(11, "damage", pid="b1"), "amount", "missing required field 'amount'"),
    (ev(12, "healed", pid="b1", amount=1.5), "amount", "must be an integer >= 0"),
    (ev(14, "condition", pid="b1", condition="frozen", on=True), "condition", "poisoned, burned, asleep"),
    (ev(14, "condition", pid="b1", condition="asleep", on="true"), "on", "true or false"),
    (ev(14, "condition", pid="b1", condition="asleep"), "on", "missing required field 'on'"),
    # knockouts, prizes, results
    (ev(21, "knocked_out", pid="b1", player=""), "player", "must be a non-empty string"),
    (ev(22, "prize_taken", player="ash", count=0), "count", "must be an integer >= 1"),
    (ev(22, "prize_taken", player="ash"), "count", "missing required field 'count'"),
    (ev(23, "prize_modifier", pid="a1", delta="-1"), "delta", "must be an integer"),
    (ev(24, "conceded", player="misty", reason=5), "reason", "must be a string"),
    (ev(25, "penalty", player="misty", kind="yellow_card"), "kind", "caution, warning, double_prize"),
    (ev(25, "penalty", kind="warning"), "player", "missing required field 'player'"),
    (ev(25, "penalty", player="misty", kind="prize_penalty", prizes=0), "prizes", "must be an integer >= 1"),
    (
        ev(27, "effect_result", player="ash", card={"name": "Barbaracle"}),
        "wins",
        "missing required field 'wins'",
    ),
    (ev(27, "effect_result", player="ash", wins=True, card={}), "card.name", "missing required field 'name'"),
    (ev(28, "game_ended", outcome="tie"), "outcome", "must be one of win, draw, no_winner"),
    (ev(28, "game_ended", winner="ash"), "outcome", "missing required field 'outcome'"),
    (ev(29, "correction", target=0, action="void"), "target", "must be an integer >= 1"),
    (ev(29, "correction", target=11, action="undo"), "action", "must be one of void, amend"),
    (ev(29, "correction", target=11, action="amend", event=[1]), "event", "must be an object"),
    (ev(30, "note"), "text", "missing required field 'text'"),
    (ev(30, "note", text=["x"]), "text", "must be a string"),
]


# ---------------------------------------------------------------------------------------------- schema shape


def test_schema_helpers() -> None:
    assert (
        schema_path("events") == schema_path("events.schema.json") == ROOT / "schemas" / "events.schema.json"
    )
    assert load_schema("record")["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    with pytest.raises(FileNotFoundError, match="known: events, record, ruleset"):
        schema_path("nope")


@pytest.mark.parametrize("name", ["events", "record", "ruleset"])
def test_schemas_are_valid_draft_2020_12(name: str) -> None:
    schema = load_schema(name)
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    Draft202012Validator.check_schema(schema)


def test_every_contract_type_has_its_own_def() -> None:
    schema = load_schema("events")
    defs = schema["$defs"]
    assert list(EVENT_TYPES) == CONTRACT_TYPES
    assert defs["envelope"]["properties"]["type"]["enum"] == CONTRACT_TYPES
    dispatched = [branch["then"]["$ref"] for branch in schema["allOf"] if "then" in branch]
    assert dispatched == [f"#/$defs/{t}" for t in CONTRACT_TYPES]
    for t in CONTRACT_TYPES:
        assert defs[t]["properties"]["type"] == {"const": t}
        assert {"$ref": "#/$defs/envelope"} in defs[t]["allOf"]
    assert defs["rule"]["enum"] == CONTRACT_RULES
    assert defs["zone"]["enum"] == CONTRACT_ZONES
    assert defs["match_id"]["pattern"] == "^[A-Za-z0-9._:/-]{1,128}$"


def test_unknown_fields_are_never_forbidden() -> None:
    def walk(node: object) -> Iterator[dict[str, Any]]:
        if isinstance(node, dict):
            yield node
            for value in node.values():
                yield from walk(value)
        elif isinstance(node, list):
            for value in node:
                yield from walk(value)

    for node in walk(load_schema("events")):
        assert node.get("additionalProperties", True) is not False
        assert "unevaluatedProperties" not in node


# ---------------------------------------------------------------------------------------------- events


def test_examples_cover_every_type() -> None:
    assert set(VALID) == set(CONTRACT_TYPES)
    for t, events in VALID.items():
        assert events and all(e["type"] == t for e in events)


@pytest.mark.parametrize("event", ALL_VALID, ids=lambda e: e["type"])
def test_valid_event(event: dict[str, Any]) -> None:
    before = copy.deepcopy(event)
    validate_event(event)
    assert event == before  # no defaults written into the event
    assert list(EVENTS_REF.iter_errors(event)) == []
    assert list(reference("events", event["type"]).iter_errors(event)) == []


@pytest.mark.parametrize(
    ("event", "field", "words"), INVALID, ids=[f"{e.get('type')}:{f}" for e, f, _ in INVALID]
)
def test_invalid_event(event: dict[str, Any], field: str | None, words: str) -> None:
    with pytest.raises(EventError) as info:
        validate_event(event)
    err = info.value
    assert err.field == field
    assert words in err.message
    assert f"field {field}: " in str(err)
    # match and seq are named when they are valid themselves
    match, seq = event.get("match"), event.get("seq")
    assert err.match == (match if field != "match" and isinstance(match, str) else None)
    expected_seq = seq if isinstance(seq, int) and not isinstance(seq, bool) else None
    assert err.seq == expected_seq
    if err.match is not None:
        where = f"match {err.match}" + (f" seq {err.seq}" if err.seq is not None else "")
        assert str(err).startswith(where + ": ")
    # the reference validator rejects it too (a trailing newline aside: Python's re lets "$" match before it)
    if not (isinstance(match, str) and match.endswith("\n")):
        assert not EVENTS_REF.is_valid(event)


def test_error_text_reads_well() -> None:
    with pytest.raises(EventError) as info:
        validate_event(ev(0, "attack_ended"))
    assert str(info.value) == f"match {M} seq 0: field seq: must be an integer >= 1 and <= 100000 (got 0)"
    with pytest.raises(EventError) as info:
        validate_event(ev(5, "foo"))
    assert str(info.value) == f"match {M} seq 5: field type: unknown event type 'foo'"
    with pytest.raises(EventError) as info:
        validate_event(ev(7, "played", player="ash", card={"name": "Raichu"}))
    assert str(info.value) == f"match {M} seq 7: field pid: missing required field 'pid'"
    with pytest.raises(EventError) as info:
        validate_event(ev(7, "played", player="ash", pid="a4", card={"name": "Raichu", "hp": "lots"}))
    assert (
        str(info.value)
        == f"match {M} seq 7: field card.hp: must be an integer >= 1 and <= 10000 (got 'lots')"
    )
    with pytest.raises(EventError) as info:
        validate_event(ev(8, "setup", player="ash"), file="game.jsonl", line=8)
    assert (
        str(info.value)
        == f"game.jsonl:8: match {M} seq 8: field active: missing required fields 'active', 'bench'"
    )
    assert isinstance(info.value, InputError)


@pytest.mark.parametrize("value", [None, [], [ev(1, "attack_ended")], "event", 3, 2.5, True, b"\x81", (1,)])
def test_non_object_event(value: object) -> None:
    with pytest.raises(EventError, match="an event must be an object"):
        validate_event(value)


def test_unknown_extra_fields_are_accepted_everywhere() -> None:
    extra = {"x_vendor": {"anything": [1, None]}, "confidence": 0.93}
    samples = [
        {
            **VALID["match_started"][1],
            **extra,
            "source": {**VALID["match_started"][1]["source"], **extra},
            "context": {"stage": "swiss", **extra},
        },
        {**VALID["setup"][0], **extra, "active": {"pid": "a1", "card": {**PIKA, **extra}, **extra}},
        {**VALID["attached"][0], "card": {"name": "Energy", "kind": "energy", **extra}},
        {**VALID["time_called"][0], **extra},
        {**VALID["note"][0], "finding": {"code": "importer_guess_pid", "severity": "info", "line": 4}},
    ]
    for event in samples:
        validate_event(event)
        assert EVENTS_REF.is_valid(event)


def test_integral_floats_are_integers() -> None:
    # JSON Schema: 1.0 is an integer; producers in JavaScript may send it. Both validators agree.
    event = {**ev(3, "damage", pid="b1", amount=30.0), "seq": 3.0}
    validate_event(event)
    assert EVENTS_REF.is_valid(event)


# ---------------------------------------------------------------------------------------------- fuzzing

# What JSON and MessagePack decoders can hand over: also bytes, non-string keys, huge integers, NaN.
JSON_SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=12)
    | st.binary(max_size=4)
)
JSON_KEYS = st.text(max_size=8) | st.integers(-3, 3) | st.binary(max_size=2)
JSON_VALUES = st.recursive(
    JSON_SCALARS,
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.lists(inner, max_size=3).map(tuple)
        | st.dictionaries(JSON_KEYS, inner, max_size=4)
    ),
    max_leaves=16,
)
# every message is a plain sentence about the field, never fastjsonschema's "data.x must ..."
MESSAGE_START = re.compile(
    r"(must |missing required field|unknown event type |an event must be |cannot be validated)"
)
ENVELOPE_KEYS = st.sampled_from(["match", "seq", "type", "at", "id", "players", "card", "pid", "player"])


@settings(max_examples=examples(400), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.one_of(
        JSON_VALUES,
        st.dictionaries(ENVELOPE_KEYS | st.text(max_size=6), JSON_VALUES, max_size=8),
        st.builds(
            lambda base, extra: {**base, **extra},
            st.sampled_from(ALL_VALID),
            st.dictionaries(ENVELOPE_KEYS, JSON_VALUES, max_size=3),
        ),
    )
)
def test_fuzz_only_event_errors(value: object) -> None:
    try:
        validate_event(value)
    except EventError as err:
        assert MESSAGE_START.match(err.message), err.message


def test_huge_integers_are_handled() -> None:
    huge = 10**5000  # more digits than Python will turn into a string by default
    validate_event({**ev(3, "damage", pid="b1", amount=30), "x": -huge})  # the schema leaves extras open
    with pytest.raises(EventError) as info:  # every integer field of the contract is bounded (issue 18)
        validate_event(ev(3, "damage", pid="b1", amount=huge))
    assert info.value.field == "amount" and "<= 100000 (got a very large integer)" in info.value.message
    with pytest.raises(EventError) as info:  # the contract bounds seq (issue 10: refused at the edge)
        validate_event({**ev(3, "attack_ended"), "seq": huge})
    assert info.value.field == "seq" and "<= 100000" in info.value.message
    with pytest.raises(EventError) as info:
        validate_event(ev(3, "damage", pid="b1", amount=-huge))
    assert info.value.message == "must be an integer >= 0 and <= 100000 (got a very large integer)"
    with pytest.raises(EventError) as info:
        validate_event({"match": M, "seq": huge, "type": "nope"})
    assert info.value.seq is None and info.value.field in ("seq", "type")  # never a huge seq in a message


def test_deep_nesting_is_an_event_error() -> None:
    deep: Any = "x"
    for _ in range(5000):
        deep = [deep]
    event = ev(
        1, "match_started", players=[deep, deep], first="a", ruleset="play-2026", source={"kind": "digital"}
    )
    with pytest.raises(EventError) as info:
        validate_event(event)
    assert info.value.match == M and info.value.seq == 1


# Text without a trailing newline: Python's re (used by jsonschema) lets "$" match before one; fastjsonschema
# rewrites "$" to "\Z" as ECMA-262 intends, so on "m1\n" the two validators legitimately differ.
FUZZ_TEXT = st.text(st.characters(exclude_characters="\n"), max_size=10) | st.sampled_from(
    ["ash", "a1", "hand", "ex", "2026-03-14T10:05:00Z", "2026-02-29T10:05:00Z", "2024-02-29T23:59:60+09:00"]
)
FUZZ_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 300) | st.floats(allow_nan=False) | FUZZ_TEXT,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(FUZZ_TEXT, inner, max_size=3),
    max_leaves=8,
)


def _mutate(event: dict[str, Any], data: st.DataObject, values: st.SearchStrategy[Any]) -> dict[str, Any]:
    out = copy.deepcopy(event)
    node: Any = out
    # walk into a nested object now and then, so nested fields get mutated too
    while True:
        dicts = [k for k, v in node.items() if isinstance(v, dict)]
        if not dicts or not data.draw(st.booleans()):
            break
        node = node[data.draw(st.sampled_from(dicts))]
    key = data.draw(st.sampled_from(sorted(node)) | FUZZ_TEXT)
    if key in node and data.draw(st.booleans()):
        del node[key]
    else:
        node[key] = data.draw(values)
    return out


@settings(max_examples=examples(600), deadline=None)
@given(st.sampled_from(ALL_VALID), st.data())
def test_fuzz_fast_and_reference_agree(event: dict[str, Any], data: st.DataObject) -> None:
    mutated = _mutate(event, data, FUZZ_VALUES)
    assert fast_ok(mutated) == EVENTS_REF.is_valid(mutated), mutated


@settings(max_examples=examples(400), deadline=None)
@given(st.sampled_from(ALL_VALID), st.data())
def test_fuzz_nested_mutations_only_event_errors(event: dict[str, Any], data: st.DataObject) -> None:
    mutated = _mutate(event, data, JSON_VALUES)
    try:
        validate_event(mutated)
    except EventError as err:
        assert MESSAGE_START.match(err.message), err.message


# ---------------------------------------------------------------------------------------------- records

RECORD: dict[str, Any] = {
    "match": M,
    "ruleset": "play-2026",
    "engine": "prizecheck 0.1.0",
    "players": ["ash", "misty"],
    "first": "ash",
    "context": {"stage": "swiss", "round": 3},
    "status": "finished",
    "result": {
        "outcome": "win",
        "winner": "ash",
        "loser": "misty",
        "reason": "prizes",
        "conditions": {"ash": ["prizes"], "misty": []},
        "decided_at": 22,
        "turn": 7,
    },
    "claimed": {"outcome": "win", "winner": "ash", "reason": "prizes"},
    "agrees": True,
    "prizes": {
        "ash": {"taken": 6, "needed": 6, "remaining": 0},
        "misty": {"taken": 3, "needed": 6, "remaining": 3},
    },
    "knockouts": [
        {
            "seq": 13,
            "pid": "b1",
            "owner": "misty",
            "card": "Staryu",
            "prizes": 1,
            "window": "attack",
            "batch": 1,
            "verified": True,
        },
        {
            "seq": 20,
            "pid": "b2",
            "owner": "misty",
            "card": {"name": "Starmie ex", "rule": "ex"},
            "prizes": 2,
            "window": "checkup",
            "verified": False,
        },
    ],
    "findings": [
        {
            "code": "ko_not_claimed",
            "severity": "warning",
            "seq": 13,
            "message": "Staryu (b1) at 0 HP, no claim",
        },
        {
            "code": "window_not_closed",
            "severity": "info",
            "seq": None,
            "message": "the attack window was open",
        },
    ],
    "parent": None,
    "children": [],
    "playoff": None,
    "chain": {"alg": "sha256", "head": "0" * 63 + "a", "events": 22},
    "signature": {"alg": "HMAC-SHA256", "key_id": "k2026", "value": "ab" * 32},
    "audit": {"basis": "mixed", "unverified_knockouts": 1},
    "ruleset_version": 1,
    "playoff_of": None,
    "started_at": "2026-03-14T10:05:00Z",
    "penalties": [{"seq": 9, "player": "misty", "kind": "warning", "reason": "slow play"}],
    "turn": 7,
    "source": {"kind": "digital"},
}

IN_PROGRESS: dict[str, Any] = {
    **RECORD,
    "status": "in_progress",
    "result": None,
    "claimed": None,
    "agrees": None,
    "signature": None,
    "context": None,
    "knockouts": [],
    "findings": [],
}
AWAITING: dict[str, Any] = {
    **RECORD,
    "status": "awaiting_playoff",
    "result": {"outcome": "draw", "winner": None, "loser": None, "reason": "simultaneous", "decided_at": 40},
    "playoff": {"kind": "tiebreaker_game", "prizes": 6, "child": f"{M}/tb1"},
    "children": [f"{M}/tb1"],
}
PLAYOFF_CHILD: dict[str, Any] = {
    **RECORD,
    "match": f"{M}/tb1",
    "parent": M,
    "playoff_of": {"kind": "tiebreaker_game", "parent": M},
    "result": {**RECORD["result"], "reason": "playoff"},
}


@pytest.mark.parametrize(
    "record",
    [RECORD, IN_PROGRESS, AWAITING, PLAYOFF_CHILD],
    ids=["finished", "in_progress", "awaiting", "child"],
)
def test_valid_record(record: dict[str, Any]) -> None:
    validate_record(record)
    assert list(RECORD_REF.iter_errors(record)) == []


@pytest.mark.parametrize(
    ("change", "field", "words"),
    [
        ({"status": "done"}, "status", "in_progress, finished, awaiting_playoff"),
        ({"result": {**RECORD["result"], "reason": "luck"}}, "result.reason", "must be one of prizes"),
        ({"result": {**RECORD["result"], "outcome": "tie"}}, "result.outcome", "win, draw, no_winner"),
        ({"chain": {"alg": "sha256", "head": "xyz", "events": 1}}, "chain.head", "64 lowercase hex digits"),
        ({"chain": {"alg": "md5", "head": "0" * 64, "events": 1}}, "chain.alg", "must be 'sha256'"),
        ({"signature": {"alg": "HMAC-SHA256", "value": "ab"}}, "signature.key_id", "missing required field"),
        (
            {"knockouts": [{**RECORD["knockouts"][0], "window": "turn"}]},
            "knockouts[0].window",
            "attack, checkup",
        ),
        (
            {"knockouts": [{**RECORD["knockouts"][0], "verified": "yes"}]},
            "knockouts[0].verified",
            "true or false",
        ),
        (
            {"findings": [{"code": "x", "severity": "fatal", "seq": 1, "message": ""}]},
            "findings[0].severity",
            "info, warning, violation",
        ),
        ({"prizes": {"ash": {"taken": -1, "needed": 6, "remaining": 7}}}, "prizes.ash.taken", ">= 0"),
        ({"engine": "other 1.0"}, "engine", "prizecheck <version>"),
        ({"players": ["ash"]}, "players", "exactly 2 items"),
        ({"audit": {"basis": "vibes"}}, "audit.basis", "hp, claims, mixed"),
        ({"playoff": {"kind": "tiebreak", "prizes": 6}}, "playoff.child", "missing required field 'child'"),
        ({"agrees": "yes"}, "agrees", "true or false or null"),
        ({"playoff_of": {"kind": "overtime", "parent": M}}, "playoff_of.kind", "sudden_death, tiebreak"),
        ({"ruleset_version": 0}, "ruleset_version", ">= 1"),
    ],
)
def test_invalid_record(change: dict[str, Any], field: str, words: str) -> None:
    record = {**RECORD, **change}
    with pytest.raises(RecordError) as info:
        validate_record(record)
    assert info.value.field == field
    assert words in info.value.message
    assert info.value.match == M
    assert not RECORD_REF.is_valid(record)


def test_record_missing_field_and_non_object() -> None:
    record = {k: v for k, v in RECORD.items() if k != "chain"}
    with pytest.raises(RecordError, match="missing required field 'chain'"):
        validate_record(record)
    with pytest.raises(RecordError, match="must be an object"):
        validate_record([RECORD])


# ---------------------------------------------------------------------------------------------- rulesets


def test_there_are_rulesets() -> None:
    assert {p.stem for p in RULESET_FILES} >= {"kr-1.0", "jp-3.4", "play-2026"}


@pytest.mark.parametrize("path", RULESET_FILES, ids=lambda p: p.stem)
def test_ruleset_files_validate(path: Path) -> None:
    doc = json.loads(path.read_text(encoding="utf-8"))
    validate_ruleset(doc, file=str(path))
    assert list(RULESET_REF.iter_errors(doc)) == []
    assert doc["id"] == path.stem
    assert set(doc["prizes_by_rule"]) == set(CONTRACT_RULES)


def _ruleset() -> dict[str, Any]:
    doc: dict[str, Any] = json.loads(
        (ROOT / "replay" / "engine" / "rulesets" / "play-2026.json").read_text(encoding="utf-8")
    )
    return doc


def _without_rule() -> dict[str, Any]:
    doc = _ruleset()
    del doc["prizes_by_rule"]["V_UNION"]
    return doc


def _with(path: str, value: Any) -> Callable[[], dict[str, Any]]:
    def make() -> dict[str, Any]:
        doc = _ruleset()
        *parents, last = path.split(".")
        node: Any = doc
        for key in parents:
            node = node[int(key)] if isinstance(node, list) else node[key]
        node[last] = value
        return doc

    return make


@pytest.mark.parametrize(
    ("make", "field", "words"),
    [
        (_without_rule, "prizes_by_rule.V_UNION", "missing required field 'V_UNION'"),
        (_with("prizes_by_rule.vunion", 3), "prizes_by_rule.vunion", "unknown field 'vunion'"),
        (_with("prizes_by_rule.ex", -1), "prizes_by_rule.ex", ">= 0"),
        (_with("playoff.won_by", "coin_flip"), "playoff.won_by", "first_prize, prize_lead"),
        (_with("playoff.kind", "overtime"), "playoff.kind", "sudden_death, tiebreak, tiebreaker_game"),
        (_with("playoff.prizes", 0), "playoff.prizes", ">= 1"),
        (_with("time_called", []), "time_called", "at least 1 item"),
        (_with("time_called.0.from", "2025-13-01"), "time_called[0].from", "a date such as"),
        (_with("time_called.0.extra_turns", "3"), "time_called[0].extra_turns", "must be an integer >= 0"),
        (_with("first_turn.attack", "no"), "first_turn.attack", "true or false"),
        (_with("id", "Play 2026"), "id", "lowercase"),
        (_with("version", 0), "version", ">= 1"),
    ],
)
def test_invalid_ruleset(make: Callable[[], dict[str, Any]], field: str, words: str) -> None:
    doc = make()
    with pytest.raises(RulesetError) as info:
        validate_ruleset(doc, file="x.json")
    assert info.value.field == field
    assert words in info.value.message
    assert str(info.value).startswith("x.json: field ")
    assert not RULESET_REF.is_valid(doc)


# ---------------------------------------------------------------------------------------------- docs


def _doc_examples() -> list[dict[str, Any]]:
    text = (ROOT / "docs" / "events.md").read_text(encoding="utf-8")
    events: list[dict[str, Any]] = []
    for block in re.findall(r"```(?:json|jsonl)\n(.*?)```", text, flags=re.S):
        stripped = block.strip()
        if stripped.startswith("{") and "\n{" not in stripped:
            events.append(json.loads(stripped))
        else:
            events.extend(json.loads(line) for line in stripped.splitlines() if line.strip())
    return events


def test_doc_examples_validate() -> None:
    examples = _doc_examples()
    assert {e["type"] for e in examples} == set(CONTRACT_TYPES)
    for event in examples:
        validate_event(event)
        assert EVENTS_REF.is_valid(event)


# ---------------------------------------------------------------------------------------------- the engine


# The simulator's corpus: 200 games cover every steered ending twice (docs/rules.md §1-§6), all three
# rulesets, and the playoff games that follow drawn games.
CORPUS_SIZE = 200


def _corpus() -> list[list[dict[str, Any]]]:
    simulate = pytest.importorskip("replay.generators.simulate")
    return [list(stream) for stream in simulate.simulate_corpus(CORPUS_SIZE, seed=7)]


def test_simulated_events_validate() -> None:
    corpus = _corpus()
    seen: set[str] = set()
    for stream in corpus:
        for event in stream:
            validate_event(event)
            seen.add(event["type"])
    assert len(corpus) >= CORPUS_SIZE
    assert len(seen) >= 20, sorted(seen)
    # the reference validator agrees on whole games (a sample: it is ~100x slower)
    for stream in corpus[:6]:
        for event in stream:
            assert EVENTS_REF.is_valid(event), event


def test_simulated_records_validate() -> None:
    replay = pytest.importorskip("replay")
    if not hasattr(replay, "replay_records"):
        pytest.skip("replay.replay_records is not there yet")
    corpus = _corpus()
    records = replay.replay_records(event for stream in corpus for event in stream)
    assert len(records) == len(corpus)
    statuses = set()
    for record in records.values():
        validate_record(record)
        statuses.add(record["status"])
        # the record is JSON: it survives a round trip unchanged
        assert json.loads(json.dumps(record)) == record
    assert "finished" in statuses
    for record in list(records.values())[:20]:
        assert list(RECORD_REF.iter_errors(record)) == []


def test_records_with_injected_faults_validate() -> None:
    simulate = pytest.importorskip("replay.generators.simulate")
    replay = pytest.importorskip("replay")
    if not hasattr(replay, "replay_records"):
        pytest.skip("replay.replay_records is not there yet")
    findings = 0
    for i, fault in enumerate(simulate.FAULTS):
        streams, _ = simulate.simulate_with_faults(100 + i, [fault], match=f"fault-{fault}")
        for stream in streams:
            for event in stream:
                validate_event(event)
        for record in replay.replay_records(e for stream in streams for e in stream).values():
            validate_record(record)
            findings += len(record["findings"])
    assert findings  # the finding part of the schema was exercised


def test_in_progress_records_validate_after_every_event() -> None:
    simulate = pytest.importorskip("replay.generators.simulate")
    game_mod = pytest.importorskip("replay.engine.game")
    for seed, ruleset in [(1, "play-2026"), (2, "jp-3.4"), (3, "kr-1.0")]:
        g = game_mod.Game()
        for event in simulate.simulate_series(seed, f"step-{seed}", ruleset)[0]:
            g.apply(event)
            validate_record(g.record())


def test_imported_events_validate() -> None:
    """The importers' samples (tests/data) give contract events; a broken sample may raise InputError."""
    ptcgl = pytest.importorskip("replay.sources.ptcgl")
    sheet = pytest.importorskip("replay.sources.sheet")
    samples = [(ptcgl.parse_ptcgl, p) for p in sorted((ROOT / "tests" / "data" / "ptcgl").glob("*.txt"))]
    samples += [(sheet.parse_sheet, p) for p in sorted((ROOT / "tests" / "data" / "sheets").glob("*.*"))]
    imported = 0
    for parse, path in samples:
        try:
            result = parse(
                path.read_text(encoding="utf-8-sig"), match=f"import-{path.stem}", filename=str(path)
            )
        except InputError:
            continue
        for event in result.events:
            validate_event(event)
        imported += 1
    if not imported:
        pytest.skip("no importer samples in tests/data yet")


def _mini_game() -> list[dict[str, Any]]:
    """A short game from the examples above: ash knocks out misty's only Pokémon."""
    return [
        VALID["match_started"][0],
        VALID["setup"][0],
        VALID["setup"][1],
        ev(4, "turn_started", player="ash", turn=1),
        ev(5, "drew", player="ash"),
        ev(6, "turn_ended", player="ash"),
        ev(7, "checkup_started"),
        ev(8, "checkup_ended"),
        ev(9, "turn_started", player="misty", turn=2),
        ev(10, "drew", player="misty"),
        ev(11, "turn_ended", player="misty"),
        ev(12, "turn_started", player="ash", turn=3),
        ev(13, "drew", player="ash"),
        ev(14, "attack", player="ash", pid="a1", name="Thunderbolt"),
        ev(15, "damage", pid="b1", amount=200, by="a1"),
        ev(16, "attack_ended"),
        ev(17, "knocked_out", pid="b1", player="misty"),
        ev(18, "prize_taken", player="ash", count=1),
        ev(19, "game_ended", outcome="win", winner="ash", reason="no_pokemon"),
    ]


def test_engine_records_validate_at_every_step() -> None:
    pytest.importorskip("replay.engine.record")
    game_mod = pytest.importorskip("replay.engine.game")
    events = _mini_game()
    for event in events:
        validate_event(event)
    g = game_mod.Game()
    for event in events:
        g.apply(event)
        record = g.record()
        validate_record(record)
        assert RECORD_REF.is_valid(record)
