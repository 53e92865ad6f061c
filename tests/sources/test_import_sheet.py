"""Match sheets (paper games): CSV and JSON forms, the JSON Schema, low-confidence findings, corrections."""

from __future__ import annotations

import json
from typing import Any

import jsonschema
import pytest

from replay import replay_events
from replay.contract.validate import validate_event
from replay.engine.errors import InputError
from replay.sheet_format import ACTIONS, COLUMNS, read_sheet
from replay.sources.cards import parse_catalogue
from replay.sources.sheet import parse_sheet
from schemas import load_schema
from tests.paths import DATA as TEST_DATA

DATA = TEST_DATA / "sheets"
SCHEMA = load_schema("sheet")
VALIDATOR = jsonschema.Draft202012Validator(SCHEMA)

HEAD = (
    "# players: Ann, Ben\n# first: Ann\nturn,player,action,target,card,amount,note,confidence,scan,ref,at\n"
)
SETUP = "0,Ann,active,,Pidgey,,,,,\n0,Ben,active,,Dreepy,,,,,\n0,Ben,bench,,Duskull,,,,,\n"


def sheet(rows: str, **kw: Any) -> Any:
    return parse_sheet(HEAD + SETUP + rows, match="s1", filename="s.csv", **kw)


def record(events: list[dict[str, Any]]) -> dict[str, Any]:
    return next(iter(replay_events(events).values())).record()


def strip_lines(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    out = []
    for e in events:
        e = dict(e)
        if e["type"] == "note" and "finding" in e:
            e["finding"] = {k: v for k, v in e["finding"].items() if k != "line"}
        out.append(e)
    return out


def test_csv_sheet_imports_and_replays() -> None:
    res = parse_sheet(
        (DATA / "league_game.csv").read_text("utf-8"), match="ignored", filename="league_game.csv"
    )
    for ev in res.events:
        validate_event(ev)
    start = res.events[0]
    assert start["match"] == "league-2026-03-r2-t4-g1"  # the sheet's own match id
    assert start["source"] == {
        "kind": "scanned",
        "format": "prizecheck-sheet/1",
        "reports_knockouts": True,
        "hp_known": False,
        "tool": "judge-app 0.3 (scan + OCR)",
    }
    assert start["context"] == {"event": "Thursday League", "round": 2, "table": 4}
    rec = record(res.events)
    assert rec["result"]["winner"] == "Mara" and rec["result"]["reason"] == "concession" and rec["agrees"]


def test_csv_and_json_forms_give_the_same_events() -> None:
    a = parse_sheet((DATA / "league_game.csv").read_text("utf-8"), match="x")
    b = parse_sheet((DATA / "league_game.json").read_text("utf-8"), match="x")
    assert strip_lines(a.events) == strip_lines(b.events)


def test_low_confidence_rows_are_findings_a_reviewer_sees() -> None:
    res = parse_sheet((DATA / "league_game.csv").read_text("utf-8"), match="x")
    low = [f for f in res.findings if f.code == "low_confidence"]
    assert [f.line for f in low] == [23, 30]  # CSV lines of rows 13 and 20
    notes = [e for e in res.events if e["type"] == "note" and e["finding"]["code"] == "low_confidence"]
    assert [(n["finding"]["row"], n["finding"]["scan"], n["finding"]["confidence"]) for n in notes] == [
        (13, "p1.png#r13", 0.62),
        (20, "p2.png#r6", 0.55),
    ]
    # the row's own event comes first and carries the scan reference
    i = res.events.index(notes[1])
    assert res.events[i - 1]["type"] == "prize_taken" and res.events[i - 1]["scan"] == "p2.png#r6"
    rec = record(res.events)
    assert [f["code"] for f in rec["findings"]].count("low_confidence") == 2
    stricter = parse_sheet((DATA / "league_game.csv").read_text("utf-8"), match="x", min_confidence=0.96)
    assert len([f for f in stricter.findings if f.code == "low_confidence"]) > 2


def test_sheet_json_matches_the_schema_and_the_csv_rows_do_too() -> None:
    doc = json.loads((DATA / "league_game.json").read_text("utf-8"))
    VALIDATOR.validate(doc)
    for name in ("league_game.csv", "corrections.csv"):
        meta, rows = read_sheet((DATA / name).read_text("utf-8"), name)
        for row in rows:
            raw = {c: getattr(row, c) for c in COLUMNS}
            raw = {k: v for k, v in raw.items() if v not in (None, "")}
            VALIDATOR.validate({"format": "prizecheck-sheet/1", "players": meta["players"], "rows": [raw]})


def test_schema_lists_exactly_the_parsers_actions() -> None:
    assert set(SCHEMA["$defs"]["row"]["properties"]["action"]["enum"]) == set(ACTIONS)
    assert set(SCHEMA["$defs"]["row"]["properties"]) == set(COLUMNS)


@pytest.mark.parametrize(
    "bad",
    [
        {"rows": []},
        {"players": ["A"], "rows": []},
        {"players": ["A", "B"], "rows": [{"action": "explode"}]},
        {"players": ["A", "B"], "rows": [{"action": "void"}]},
        {"players": ["A", "B"], "rows": [{"action": "draw", "confidence": 1.5}]},
        {"players": ["A", "B"], "rows": [{"action": "draw", "colour": "red"}]},
        {"players": ["A", "B"], "rows": [{"action": "damage", "target": "Pidgey", "amount": -10}]},
        {"players": ["A", "B"], "rows": [], "extra": 1},
        {"players": ["A", "B"], "rows": [{"action": "prize_modifier", "target": "Pidgey"}]},
        {"players": ["A", "B"], "rows": [{"action": "prize", "player": "A", "amount": 0}]},
    ],
)
def test_schema_and_parser_reject_the_same_bad_sheets(bad: dict[str, Any]) -> None:
    doc = {"format": "prizecheck-sheet/1", **bad}
    assert not VALIDATOR.is_valid(doc)
    with pytest.raises(InputError):
        parse_sheet(json.dumps(doc), match="x", filename="bad.json")


def test_corrections_are_new_events_never_edits() -> None:
    res = parse_sheet((DATA / "corrections.csv").read_text("utf-8"), match="c1")
    for ev in res.events:
        validate_event(ev)
    assert res.events[0]["source"]["kind"] == "manual"
    corr = [e for e in res.events if e["type"] == "correction"]
    by_seq = {e["seq"]: e for e in res.events}
    amend, void = corr
    assert (
        by_seq[amend["target"]]["type"] == "prize_taken" and by_seq[amend["target"]]["count"] == 2
    )  # untouched
    assert (
        amend["action"] == "amend"
        and amend["event"]["count"] == 1
        and amend["event"]["type"] == "prize_taken"
    )
    assert by_seq[void["target"]] == {**by_seq[void["target"]], "type": "damage", "amount": 30}
    assert void["action"] == "void" and void["seq"] > void["target"]


def test_corrections_replay() -> None:
    res = parse_sheet((DATA / "corrections.csv").read_text("utf-8"), match="c1")
    rec = record(res.events)
    assert not any(f["code"] == "no_match_started" for f in rec["findings"])
    assert rec["result"]["winner"] == "Ines"
    assert rec["prizes"]["Ines"]["taken"] == 1


def test_rows_in_an_attack_window_are_put_in_rule_order() -> None:
    res = sheet(
        "1,Ann,turn,,,,,,,\n1,Ann,end_turn,,,,,,,\n2,Ben,turn,,,,,,,\n"
        "2,Ben,attack,Pidgey,Spooky Shot,70,,,,\n2,Ann,ko,Pidgey,,,,,,\n2,Ben,damage,Ann:Pidgey,,0,,,,\n"
        "2,Ben,prize,,,1,,,,\n"
    )
    t = [e["type"] for e in res.events if e["type"] not in ("note",)]
    i = t.index("attack")
    assert t[i:] == ["attack", "damage", "damage", "knocked_out", "attack_ended", "prize_taken"]


def test_catalogue_gives_hp_and_verified_knockouts() -> None:
    cards = parse_catalogue("name,hp\nPidgey,60\nDreepy,70\nDuskull,60\n")
    res = sheet(
        "1,Ann,turn,,,,,,,\n1,Ann,end_turn,,,,,,,\n2,Ben,turn,,,,,,,\n2,Ben,attack,,Spooky Shot,70,,,,\n"
        "2,Ann,ko,Pidgey,,,,,,\n2,Ben,result,,no_pokemon,,,,,\n",
        cards=cards,
    )
    assert res.events[0]["source"]["hp_known"] is True
    rec = record(res.events)
    assert rec["knockouts"][0]["verified"] is True
    assert rec["result"]["winner"] == "Ben" and rec["agrees"] is True


def test_numbered_targets_pick_same_named_copies() -> None:
    res = parse_sheet(
        HEAD + "0,Ann,active,,Pidgey,,,,,\n0,Ann,bench,,Pidgey,,,,,\n0,Ben,active,,Dreepy,,,,,\n"
        "1,Ann,turn,,,,,,,\n1,Ann,attach,Pidgey#2,Fire Energy,,,,,\n1,Ann,attach,Pidgey,Fire Energy,,,,,\n",
        match="x",
    )
    att = [e for e in res.events if e["type"] == "attached"]
    assert [a["pid"] for a in att] == ["A2", "A1"]
    assert any(f.code == "importer_guess_pid" for f in res.findings)


@pytest.mark.parametrize(
    ("rows", "line", "field"),
    [
        ("1,Ann,explode,,,,,,,\n", 7, "action"),
        ("1,Zed,turn,,,,,,,\n", 7, "player"),
        ("1,Ann,turn,,,,,2.5,,\n", 7, "confidence"),
        ("1,Ann,turn,,,x,,,,\n", 7, "amount"),
        ("1,Ann,attach,Charizard,Fire Energy,,,,,\n", 7, "target"),
        ("1,Ann,void,,,,,,,\n", 7, "ref"),
        ("1,Ann,void,,,,,,,99\n", 7, "ref"),
        ("1,Ann,condition,Pidgey,sleepy,,,,,\n", 7, "card"),
        ("1,Ann,turn,,,,,,,,,,\n", 7, None),
        ("1,Ann,prize,,,61,,,,\n", 7, "amount"),  # more than the contract's 60: named by its row
    ],
)
def test_bad_rows_name_file_line_and_field(rows: str, line: int, field: str | None) -> None:
    with pytest.raises(InputError) as err:
        sheet(rows)
    assert (err.value.file, err.value.line, err.value.field) == ("s.csv", line, field)


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("", "empty"),
        ("# players: A, B\n", "header"),
        ("turn,player,action\n1,A,turn\n", "players"),
        ("# players: A, A\nturn,player,action\n", "differ"),
        ("# players: A, B\n# first: C\nturn,player,action\n", "first"),
        ("# players: A, B\n# ruleset: vintage\nturn,player,action\n", "ruleset"),
        ("# players: A, B\nwho,what\n", "header"),
        ('{"format": "prizecheck-sheet/1", "players": ["A", "B"], "rows": [', "invalid JSON"),
        ('{"format": "other"}', "format"),
        ("\x00\x01\x02", "binary"),
    ],
)
def test_bad_sheets(text: str, words: str) -> None:
    with pytest.raises(InputError) as err:
        parse_sheet(text, match="x", filename="bad")
    assert words in str(err.value) and err.value.file == "bad"


def test_times_and_percentages_from_a_recording_app() -> None:
    res = sheet(
        "1,Ann,turn,,,,,99%,,,2026-03-14T10:05:00Z\n1,Ann,draw,,,,,62%,p1.png#r2,,2026-03-14T10:05:04+01:00\n"
    )
    turn, drew = (next(e for e in res.events if e["type"] == t) for t in ("turn_started", "drew"))
    assert turn["at"] == "2026-03-14T10:05:00Z" and turn["confidence"] == 0.99
    assert drew["at"] == "2026-03-14T10:05:04+01:00" and drew["confidence"] == 0.62
    assert [f.code for f in res.findings].count("low_confidence") == 1
    for ev in res.events:
        validate_event(ev)
    with pytest.raises(InputError) as err:
        sheet("1,Ann,turn,,,,,,,,yesterday\n")
    assert err.value.field == "at" and err.value.line == 7


# ---------------------------------------------------------------- Japan's prize penalty, 両者敗北 (issue 34)
JP_HEAD = HEAD.replace("# first: Ann\n", "# first: Ann\n# ruleset: jp-3.4\n")


def test_a_prize_penalty_row_carries_the_judges_count_in_amount() -> None:
    res = parse_sheet(
        JP_HEAD + SETUP + "1,Ann,turn,,,,,,,\n1,Ben,penalty,,prize_penalty,3,drew extra cards,,,\n",
        match="s1",
        filename="s.csv",
    )
    (pen,) = [e for e in res.events if e["type"] == "penalty"]
    assert (pen["player"], pen["kind"], pen["prizes"], pen["reason"]) == (
        "Ben",
        "prize_penalty",
        3,
        "drew extra cards",
    )
    validate_event(pen)
    rec = record(res.events)
    assert rec["prizes"]["Ann"]["needed"] == 3 and rec["penalties"][0]["prizes"] == 3


def test_a_prize_penalty_row_without_its_count_names_the_amount() -> None:
    with pytest.raises(InputError) as err:
        sheet("1,Ann,turn,,,,,,,\n1,Ben,penalty,,prize_penalty,,,,,\n")
    assert (err.value.file, err.value.line, err.value.field) == ("s.csv", 8, "amount")


def test_a_double_loss_on_the_sheet_leaves_no_winner() -> None:
    res = parse_sheet(
        JP_HEAD
        + SETUP
        + "1,Ann,turn,,,,,,,\n1,Ann,penalty,,double_loss,,store closing,,,\n,,result,,double_loss,,,,,\n",
        match="s1",
        filename="s.csv",
    )
    ended = res.events[-1]
    assert (ended["type"], ended["outcome"], ended["reason"]) == ("game_ended", "no_winner", "double_loss")
    rec = record(res.events)
    assert (rec["result"]["outcome"], rec["result"]["reason"], rec["agrees"]) == (
        "no_winner",
        "double_loss",
        True,
    )
    assert "reason_mismatch" not in [f["code"] for f in rec["findings"]]  # the engine's own word
