"""The console's match sheet (CSV export) is as clean as the report's CSV, and always reads back with
``prizecheck import sheet`` (issue 32 item 5): a property over hostile names (formula starts, line breaks,
quotes, the sheet's own separators) in every place a name goes, and the route itself on the real app."""

from __future__ import annotations

import csv
import io
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from replay.contract.validate import validate_event
from replay.sheet_format import FORMULA_START, neutral_cell
from replay.sources.sheet import parse_sheet
from streams.http.console_sheet import sheet_csv
from tests.builder import Stream, card
from tests.sampling import examples
from tests.streams.http.served import Served, served_with

MANUAL = {"kind": "manual", "producer": "prizecheck console", "reports_knockouts": True}
#: Every character a spreadsheet or the sheet's reader treats specially, and a few plain ones.
HOSTILE = "=+-@\t\r\n\v\f\x1c\x85\u2028\"',:#; aZ\uff1d"
#: Words the sheet's reader gives a meaning of its own (a target "active" is the player's Active).
WORDS = ["active", " Active ", "ACTIVE", "player 1", "note", "turn", "#1", "a:b", "a,b", "'=x", "' =x"]
hostile = st.one_of(
    st.text(alphabet=st.sampled_from(HOSTILE), min_size=1, max_size=10).filter(lambda t: t.strip() != ""),
    st.sampled_from(WORDS),
)
# what reaches a sheet cell first: formulas, however the cell is padded
DANGEROUS = FORMULA_START | {'"'}
BREAKS = str.maketrans(dict.fromkeys("\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029", " "))


def game(names: dict[str, str]) -> list[dict[str, Any]]:
    """A short console game whose every name is hostile."""
    ash, misty = names["p1"], names["p2"]
    s = Stream(
        "cs1",
        players=[ash, misty],
        first=ash,
        source=MANUAL,
        context={"league": names["league"], "event": names["event"], "table": names["table"], "round": 2},
    )
    s.setup(ash, ("a1", card(names["card1"], 60)), ("a2", card(names["card1"], 30)))
    s.setup(misty, ("m1", card(names["card2"], 60)))
    s.turn(ash)
    s.add("attached", player=ash, pid="a2", card={"name": names["energy"], "kind": "energy"})
    s.add("evolved", player=ash, pid="a2", card=card(names["card2"], 90))
    s.add("note", text=names["note"], author="console")
    s.add("turn_ended", player=ash)
    s.turn(misty)
    s.add("attack", player=misty, pid="m1", name=names["attack"])
    s.add("damage", pid="a1", amount=60)
    s.add("knocked_out", pid="a1")
    s.add("prize_taken", player=misty, count=1)
    s.add("attack_ended")
    s.add("promoted", player=ash, pid="a2")
    s.add("penalty", player=ash, kind="warning", reason=names["note"])
    s.add("conceded", player=ash, reason=names["note"])
    s.add("game_ended", outcome="win", winner=misty, reason="concession")
    for e in s.events:
        validate_event(e)
    return s.events


def cells(text: str) -> list[list[str]]:
    """The sheet as a spreadsheet reads it: every line a row of cells, the header lines too."""
    return list(csv.reader(io.StringIO(text)))


def assert_neutral(text: str) -> None:
    """No cell a spreadsheet would run as a formula; no header piece (the header lines are not quoted) that
    opens a quoted cell, which would swallow the rows after it."""
    for line in text.splitlines():
        if line.startswith("#"):
            for piece in line.split(","):
                assert piece.lstrip(" ")[:1] not in DANGEROUS, (piece, line)
    for row in cells(text):
        for cell in row:
            assert cell.lstrip(" ")[:1] not in FORMULA_START, (cell, row)


@settings(max_examples=examples(400), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.fixed_dictionaries(
        {
            k: hostile
            for k in ("p1", "p2", "league", "event", "table", "card1", "card2", "energy", "note", "attack")
        }
    ).filter(lambda n: n["p1"] != n["p2"])
)
def test_the_sheet_is_neutral_and_always_reads_back(names: dict[str, str]) -> None:
    events = game(names)
    text = sheet_csv(events)
    lines = text.split("\n")
    # header values cannot add rows: the header is its own lines, each a "# key: value"; then the columns'
    # row and one line per row (no line break anywhere but the row ends)
    head = [line for line in lines if line.startswith("#")]
    assert lines[len(head)].startswith("turn,player,action")
    assert text.splitlines() == lines[:-1] and lines[-1] == ""
    assert len(cells(text)) == len(lines) - 1  # a spreadsheet sees as many rows: no quoted cell spans lines
    assert_neutral(text)
    # ... and it reads back: the same players, moves, notes and winner, named as the sheet shows them
    back = parse_sheet(text, match="cs1")
    started = back.events[0]
    shown = dict(zip(["p1", "p2"], started["players"], strict=True))
    assert started["first"] == shown["p1"]
    assert [
        e["type"] for e in back.events if e["type"] in ("setup", "evolved", "knocked_out", "promoted")
    ] == [
        "setup",
        "setup",
        "evolved",
        "knocked_out",
        "promoted",
    ]
    (ended,) = [e for e in back.events if e["type"] == "conceded"]
    assert ended["player"] == shown["p1"]
    written = neutral_cell(names["note"].translate(BREAKS)).strip()
    assert written in [e.get("text") for e in back.events if e["type"] == "note"]


def test_the_neutral_cells_are_the_reports_own() -> None:
    """One rule for both CSVs (replay/report/tables.py), not a copy: a name the report neutralises is
    neutralised in the sheet the same way."""
    names = dict.fromkeys(
        ("p1", "league", "event", "table", "card1", "card2", "energy", "note", "attack"), "=HYPERLINK(1)"
    )
    names["p2"] = "@SUM(A1)"
    text = sheet_csv(game(names))
    assert "'=HYPERLINK(1)" in text and "'@SUM(A1)" in text
    assert not any(c.startswith(("=", "@")) for row in cells(text) for c in row)


# ------------------------------------------------------------------------------------------ the route
served = served_with(("recorder", ["recorder"], {}))


@pytest.mark.redis
async def test_the_export_route_writes_the_clean_sheet(served: Served) -> None:
    names = {
        "p1": "=cmd|' /C calc'!A0",
        "p2": "+misty,\nkind: scanned",
        "league": "L1\n# players: x, y",
        "event": '",=1+1',
        "table": "12\r\nturn,player,action",
        "card1": "-Pikachu#2",
        "card2": "@Raichu",
        "energy": "\tLightning",
        "note": "\r=HYPERLINK(evil)",
        "attack": "=Thunder",
    }
    events = game(names)
    r = await served.http.post(
        f"{served.url}/console/cs1/events",
        json={"console": "c1", "events": events},
        headers=served.auth("recorder"),
    )
    assert r.status == 200, await r.text()
    r = await served.http.get(f"{served.url}/console/cs1/export?format=csv", headers=served.auth("recorder"))
    text = await r.text()
    assert r.status == 200 and text == sheet_csv(events)
    back = parse_sheet(text, match="cs1")
    assert back.events[0]["players"] == ["'=cmd|' /C calc'!A0", "'+misty\uff0c kind\uff1a scanned"]
    assert back.events[0]["context"]["league"] == "L1 # players: x, y"  # one header line, one value
    assert back.events[0]["source"]["kind"] == "manual"
    assert_neutral(text)


def test_a_jp_prize_penalty_is_written_with_its_count_and_reads_back() -> None:
    from tests.builder import Stream, card

    s = Stream("jp1", ruleset="jp-3.4")
    s.setup("ash", ("a1", card("Pikachu", 60)))
    s.setup("misty", ("m1", card("Staryu", 50)))
    s.turn("ash")
    s.add("penalty", player="misty", kind="prize_penalty", prizes=3, reason="drew extra cards")
    s.add("penalty", player="ash", kind="double_loss")
    back = parse_sheet(sheet_csv(s.events), match="jp1")
    pens = [(e["kind"], e.get("prizes")) for e in back.events if e["type"] == "penalty"]
    assert pens == [("prize_penalty", 3), ("double_loss", None)]
