"""Reconciliation with the tournament software (TOM's .tdf) and the TDF reader itself.

``tests/data/tdf/pallet-league-cup.tdf`` is a hand-made TDF (its README cites the public descriptions it
follows); the game records of that event are built here, with two deliberate differences from it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import msgspec
import pytest

from replay.cli import main
from replay.codec import encode_jsonl
from replay.engine.errors import InputError
from replay.report import build_report, read_tdf
from replay.report.tdf import PlayerIndex, TdfPlayer, WriteRound, parse_tdf, write_tdf
from tests.builder import Stream, card
from tests.paths import ROOT
from tests.report.league import league

FIXTURE = ROOT / "tests" / "data" / "tdf" / "pallet-league-cup.tdf"
EVENT = "Pallet Town League Cup"
# How the game records name the players: ids of several kinds, as different sources name them.
ASH, MISTY, BROCK, MAY, DAWN = "ash", "Misty Waterflower", "4034567", "may", "dawn"


def _match(
    rnd: int,
    table: int,
    a: str,
    b: str,
    winners: list[str],
    *,
    event: str = EVENT,
    stage: str = "swiss",
) -> list[dict[str, Any]]:
    """A best-of-three match whose games each end in the loser's concession."""
    events: list[dict[str, Any]] = []
    for n, winner in enumerate(winners, 1):
        loser = b if winner == a else a
        s = Stream(
            f"{event.split()[0].lower()}/r{rnd}/t{table}/g{n}",
            players=[a, b],
            first=a,
            source={"kind": "scanned"},
            context={
                "league": "Pallet",
                "season": "2026",
                "event": event,
                "round": rnd,
                "table": table,
                "series": f"r{rnd}-t{table}",
                "game": n,
                "stage": stage,
            },
            at="2026-03-14T10:00:00Z",
        )
        s.setup(a, ("p1", card("Pikachu")))
        s.setup(b, ("p2", card("Staryu")))
        s.turn(a)
        s.add("conceded", player=loser)
        s.add("game_ended", outcome="win", winner=winner, reason="concession")
        events += s.events
    return events


def pallet_events() -> list[dict[str, Any]]:
    return [
        *_match(1, 1, ASH, MISTY, [ASH, ASH]),
        *_match(1, 2, BROCK, MAY, [BROCK, MAY]),  # 1-1, time before game 3: a tie, as the TDF says
        *_match(2, 1, ASH, BROCK, [ASH, BROCK, ASH]),  # the TDF says Brock won
        # round 2, Misty v Dawn (table 2): no records
        *_match(2, 3, MAY, DAWN, [MAY, MAY]),  # the TDF gave May a bye in round 2
        *_match(3, 1, BROCK, MISTY, [BROCK, BROCK]),
        *_match(3, 2, ASH, MAY, [ASH, MAY, ASH]),
    ]


def test_the_fixture_reads_as_tom_wrote_it() -> None:
    t = read_tdf(str(FIXTURE))
    assert (t.name, t.id, t.start) == (EVENT, "26-03-000417", "03/14/2026")
    assert [p.name for p in t.players.values()] == [
        "Ash Ketchum",
        "Misty Waterflower",
        "Brock Harrison",
        "May Maple",
        "Dawn Berlitz",
    ]
    assert t.dropped() == {"4056789": 2}
    assert t.byes() == {"4056789": {1}, "4045678": {2}}
    assert [(m.round, m.players, m.outcome, m.table) for m in t.matches if m.round == 1] == [
        (1, ("4012345", "4023456"), 1, 1),
        (1, ("4034567", "4045678"), 3, 2),
        (1, ("4056789",), 5, 0),
    ]
    index = PlayerIndex(t.players.values())
    assert [index.userid(p) for p in (ASH, MISTY, BROCK, MAY, DAWN, "gary")] == [
        "4012345",
        "4023456",
        "4034567",
        "4045678",
        "4056789",
        None,
    ]


def test_every_disagreement_and_every_match_without_records_is_listed(tmp_path: Path) -> None:
    events = tmp_path / "pallet.jsonl"
    events.write_bytes(encode_jsonl(pallet_events()))
    out = tmp_path / "report.json"
    assert main(["report", str(events), "--tdf", str(FIXTURE), "--format", "json", "--out", str(out)]) == 0
    rec = json.loads(out.read_bytes())["reconciliation"]
    assert (rec["event"], rec["reported"], rec["agree"]) == (EVENT, 6, 4)
    (d,) = rec["disagree"]
    assert (d["round"], d["table"], d["tdf"], d["records"]) == (
        2,
        1,
        "Brock Harrison (4034567) won",
        "Ash Ketchum (4012345) won",
    )
    assert d["links"] == [f"http://127.0.0.1:8080/review/pallet/r2/t1/g{n}" for n in (1, 2, 3)]
    (m,) = rec["missing"]
    assert (m["round"], m["table"], m["players"], m["tdf"]) == (
        2,
        2,
        ["Misty Waterflower (4023456)", "Dawn Berlitz (4056789)"],
        "Misty Waterflower (4023456) won",
    )
    (bye,) = rec["unrecorded_byes"]
    assert (bye["round"], bye["players"], bye["series"]) == (2, ["May Maple (4045678)"], ["r2-t3"])
    assert rec["not_in_tdf"] == [{"round": "2", "series": "r2-t3", "players": [MAY, DAWN]}]
    assert rec["unknown_players"] == []
    # the standings take byes and drops from the TDF: Dawn had the round-1 bye and dropped after round 2
    (sec,) = json.loads(out.read_bytes())["sections"]
    (event,) = sec["events"]
    rows = {r["player"]: r for r in event["standings"]}
    assert event["byes_from"] == "tdf"
    assert (rows[DAWN]["bye"], rows[DAWN]["dropped"], rows[MAY]["bye"]) == (1, 2, 1)


def test_a_simulated_league_reconciles_except_where_a_claim_was_wrong(tmp_path: Path) -> None:
    from replay.cli.simulate import write_league_tdf

    lg = league()
    write_league_tdf(lg.sim, str(tmp_path / "league.tdf"))
    rep = msgspec.to_builtins(build_report(lg.typed(), tdf=read_tdf(str(tmp_path / "league.tdf"))))
    rec = rep["reconciliation"]
    played = [m for m in lg.sim.tournament.matches if len(m.players) == 2]
    assert rec["reported"] == len(played) and rec["missing"] == [] and rec["not_in_tdf"] == []
    # the tournament software has what the players reported; a wrong claim on a match sheet can change a
    # match's reported result, and only those disagree
    wrong = {r["context"]["series"] for r in lg.records.values() if r["agrees"] is False}
    assert {d["series"] for d in rec["disagree"]} <= wrong
    assert rec["agree"] + len(rec["disagree"]) == rec["reported"]


def test_a_written_tdf_reads_back() -> None:
    # write_tdf writes one Masters pod (category 2): every player reads back as a Master
    players = [
        TdfPlayer("1", "Ash", "Ketchum", division="masters"),
        TdfPlayer("2", "Misty", "W", dropped=1, division="masters"),
        TdfPlayer("3", "B", "&<", division="masters"),
    ]
    rounds = [
        WriteRound(1, "swiss", [(2, "1", "2", 1), (5, "3", None, 0)]),
        WriteRound(2, "single_elimination", [(1, "1", "3", 1)]),
    ]
    t = parse_tdf(
        write_tdf(name="Cup & Co", sanction_id="x", start="01/02/2026", players=players, rounds=rounds)
    )
    assert (t.name, list(t.players.values())) == ("Cup & Co", players)
    assert [(m.round, m.stage, m.players, m.outcome, m.table) for m in t.matches] == [
        (1, "swiss", ("1", "2"), 2, 1),
        (1, "swiss", ("3",), 5, 0),
        (2, "single_elimination", ("1", "3"), 1, 1),
    ]


# ------------------------------------------------------------------------------------------ bad files
BILLION_LAUGHS = b"""<?xml version="1.0"?>
<!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">]>
<tournament>&lol2;</tournament>
"""


@pytest.mark.parametrize(
    ("data", "line", "words"),
    [
        (BILLION_LAUGHS, 2, "document type declarations are not accepted"),
        (
            b"<tournament><players>\n<player><firstname>A</firstname></player></players></tournament>",
            2,
            "userid",
        ),
        (
            b'<tournament><pods><pod><rounds>\n<round number="one"></round>'
            b"</rounds></pod></pods></tournament>",
            2,
            "round/@number",
        ),
        (
            b'<tournament><pods><pod><rounds><round number="1"><matches>\n\n<match outcome="1">'
            b'<player1 userid="1"/></match></matches></round></rounds></pod></pods></tournament>',
            3,
            "player2",
        ),
        (b"<tournament>\n<data>\n</tournament>", 3, "not valid XML"),
        (b"<html></html>", 1, "not <tournament>"),
    ],
)
def test_a_bad_file_is_refused_naming_the_line_and_field(data: bytes, line: int, words: str) -> None:
    with pytest.raises(InputError) as err:
        parse_tdf(data, name="bad.tdf")
    message = str(err.value)
    assert f"bad.tdf:{line}" in message and words in message


def test_a_bad_file_from_the_command_line_exits_2(tmp_path: Path) -> None:
    bad = tmp_path / "bad.tdf"
    bad.write_bytes(BILLION_LAUGHS)
    events = tmp_path / "e.jsonl"
    events.write_bytes(encode_jsonl(pallet_events()))
    assert main(["report", str(events), "--tdf", str(bad)]) == 2
    assert main(["report", str(events), "--tdf", str(tmp_path / "missing.tdf")]) == 2
