"""A game sheet's marks -> the sheet importer's rows -> events -> the record (no images here).

The mapping is checked two ways: hand-made sheets with the record they must give (each way a game ends,
penalties, time, the simultaneous table), and 400 games played by the generator at the sheet's level,
whose winner, reason and prizes the generator knows from the rules it plays by.
"""

from __future__ import annotations

import itertools
import json
import random
from typing import Any

import pytest

from replay.contract.validate import validate_event
from replay.engine.game import Game
from replay.generators.scan import random_game
from replay.sources.scan.layout import (
    LAYOUT,
    LAYOUT_VERSION,
    Header,
    PayloadError,
    marker_rects,
    parse_payload,
)
from replay.sources.scan.marks import GroupRead, clear_reads, sheet_document
from replay.sources.sheet import parse_sheet

HEADER = Header(match="t-1", players=("Mara", "Teodor"), ruleset="play-2026")


def events(
    marks: dict[str, set[str]], header: Header = HEADER, reads: dict[str, GroupRead] | None = None
) -> Any:
    doc = sheet_document(header, reads or clear_reads(marks), scan="abc0123456789def-1")
    return parse_sheet(json.dumps(doc.doc), match=header.match, cards=doc.cards), doc


def record(evs: list[dict[str, Any]]) -> dict[str, Any]:
    game = Game()
    for ev in evs:
        game.apply(ev)
    return game.record()


def turns(n: int, first: str = "A") -> dict[str, set[str]]:
    other = "B" if first == "A" else "A"
    return {f"r{r}.who": {first if r % 2 else other} for r in range(1, n + 1)}


def test_a_game_won_on_prizes() -> None:
    marks = turns(7) | {
        "r3.ko.B": {"active"},
        "r3.prizes.A": {"2"},
        "r4.ko.A": {"active", "bench2"},
        "r4.prizes.B": {"3"},
        "r5.ko.B": {"active"},
        "r5.prizes.A": {"2"},
        "r5.time": {"called"},
        "r6.pen.side": {"A"},
        "r6.pen.kind": {"warning"},
        "r7.ko.B": {"active"},
        "r7.prizes.A": {"2"},
        "end.reason": {"prizes"},
        "end.winner": {"A"},
        "mull.B": {"2"},
    }
    res, _ = events(marks)
    for ev in res.events:
        validate_event(ev)
    rec = record(res.events)
    assert rec["result"]["winner"] == "Mara" and rec["result"]["reason"] == "prizes" and rec["agrees"]
    assert rec["prizes"]["Mara"]["taken"] == 6 and rec["prizes"]["Teodor"]["taken"] == 3
    # each knockout is worth what the sheet says its opponent took for it (two in one turn share it)
    assert [k["prizes"] for k in rec["knockouts"]] == [2, 2, 1, 2, 2]
    assert [k["owner"] for k in rec["knockouts"]] == ["Teodor", "Mara", "Mara", "Teodor", "Teodor"]
    assert {f["code"] for f in rec["findings"]} == {"importer_hp_unknown"}
    types = [e["type"] for e in res.events]
    assert types.count("turn_started") == 7 and "time_called" in types and "penalty" in types
    setup = [e for e in res.events if e["type"] == "setup"]
    assert setup[1]["mulligans"] == 2
    start = res.events[0]
    assert start["source"]["kind"] == "scanned" and start["first"] == "Mara"
    # every event of a turn row names that row's crop; its confidence rides on the turn's event
    turn7 = [e for e in res.events if e.get("scan") == "abc0123456789def-1/r7"]
    assert turn7[0]["type"] == "turn_started" and turn7[0]["confidence"] == 1.0


@pytest.mark.parametrize(
    ("end", "extra", "winner", "reason"),
    [
        # B's Active Knocked Out with nothing on B's Bench: A wins, no Pokémon [docs/rules.md §1.2]
        ({"no_pokemon"}, {"r3.ko.B": {"active"}, "r3.prizes.A": {"1"}}, "A", "no_pokemon"),
        # B's turn 4 starts with an empty deck [docs/rules.md §1.3]
        ({"deck_out"}, {}, "A", "deck_out"),
        ({"concession"}, {}, "B", "concession"),
        # a Game Loss penalty to A
        ({"penalty"}, {"r4.pen.side": {"A"}, "r4.pen.kind": {"game_loss"}}, "B", "penalty"),
    ],
)
def test_each_way_a_game_ends(end: set[str], extra: dict[str, set[str]], winner: str, reason: str) -> None:
    n = 3 if "r3.ko.B" in extra else 4
    marks = turns(n) | extra | {"end.reason": end, "end.winner": {winner}}
    res, _ = events(marks)
    rec = record(res.events)
    names = {"A": "Mara", "B": "Teodor"}
    assert rec["result"]["winner"] == names[winner]
    assert rec["result"]["reason"] == reason
    assert rec["agrees"] is True
    assert not [f for f in rec["findings"] if f["severity"] != "info"]


def test_time_called_then_the_turns_allowed_then_a_tie() -> None:
    # time in turn 5 (turn 0 of the procedure), then 3 more turns; Swiss: a game still going is a tie
    marks = turns(8) | {"r5.time": {"called"}, "end.reason": {"time"}, "end.winner": {"draw"}}
    rec = record(events(marks)[0].events)
    assert rec["result"]["outcome"] == "draw" and rec["result"]["reason"] == "time" and rec["agrees"]


def test_a_double_prize_penalty_lowers_what_the_opponent_needs() -> None:
    marks = turns(6) | {
        "r2.pen.side": {"B"},
        "r2.pen.kind": {"double_prize"},
        "r3.ko.B": {"active"},
        "r3.prizes.A": {"2"},
        "r5.ko.B": {"active"},
        "r5.prizes.A": {"2"},
        "end.reason": {"prizes"},
        "end.winner": {"A"},
    }
    rec = record(events(marks)[0].events)
    assert rec["prizes"]["Mara"]["needed"] == 4
    assert rec["result"]["winner"] == "Mara" and rec["agrees"]


def test_a_japanese_sheets_prize_penalty_boxes_give_the_judges_usual_counts() -> None:
    """jp-3.4's sheet prints its usual サイドペナルティ (1 and 3: layout.penalty_boxes) where Play!
    Pokémon's sheet has Double and Quadruple Prize Card: the same box is a prize penalty of 1 there."""
    jp = Header(match="t-jp", players=("Mara", "Teodor"), ruleset="jp-3.4")
    for box, count in (("double_prize", 1), ("quad_prize", 3)):
        marks = turns(3) | {"r2.pen.side": {"B"}, "r2.pen.kind": {box}}
        (penalty,) = [e for e in events(marks, jp)[0].events if e["type"] == "penalty"]
        assert (penalty["kind"], penalty["prizes"], penalty["player"]) == ("prize_penalty", count, "Teodor")
        rec = record(events(marks, jp)[0].events)
        assert rec["prizes"]["Mara"]["needed"] == 6 - count, rec["prizes"]
    # play-2026 and kr-1.0 keep Play! Pokémon's kinds in the same boxes
    for ruleset in ("play-2026", "kr-1.0"):
        header = Header(match="t-p", players=("Mara", "Teodor"), ruleset=ruleset)
        marks = turns(3) | {"r2.pen.side": {"B"}, "r2.pen.kind": {"quad_prize"}}
        (penalty,) = [e for e in events(marks, header)[0].events if e["type"] == "penalty"]
        assert penalty["kind"] == "quad_prize", (ruleset, penalty)


def test_a_draw_when_the_winner_of_the_prizes_cannot_put_out_an_active() -> None:
    # A takes the last prizes but A's own Active is Knocked Out too (recoil) with nothing to promote:
    # one condition each, a draw [docs/rules.md §4: A + C]; the sheet says draw, and which player had
    # nothing on the Bench is the reading that agrees with it
    marks = turns(5) | {
        "r3.ko.B": {"active"},
        "r3.prizes.A": {"3"},
        "r5.ko.B": {"active"},
        "r5.ko.A": {"active"},
        "r5.prizes.A": {"3"},
        "r5.prizes.B": {"1"},
        "end.reason": {"prizes"},
        "end.winner": {"draw"},
    }
    rec = record(events(marks)[0].events)
    assert rec["result"]["outcome"] == "draw" and rec["agrees"] is True


def test_a_sheet_that_contradicts_the_rules_gets_the_engines_findings() -> None:
    # the sheet says A won on prizes after taking 2 of 6: the engine disagrees, out loud
    marks = turns(3) | {
        "r3.ko.B": {"active"},
        "r3.prizes.A": {"2"},
        "end.reason": {"prizes"},
        "end.winner": {"A"},
    }
    rec = record(events(marks)[0].events)
    assert rec["agrees"] is False
    assert "result_mismatch" in {f["code"] for f in rec["findings"]}


def test_unclear_marks_become_one_finding_per_row_with_its_crop() -> None:
    marks = turns(4)
    reads = clear_reads(marks)
    reads["r2.prizes.B"] = GroupRead(frozenset({"2"}), 0.4, "2 boxes marked (2, 3), read as 2")
    reads["r3.ko.A"] = GroupRead(frozenset(), 0.55, "box Act between empty and marked, read as empty")
    res, doc = events(marks, reads=reads)
    low = [f for f in res.findings if f.code == "low_confidence"]
    assert len(low) == 2
    notes = [e for e in res.events if e["type"] == "note" and e["finding"]["code"] == "low_confidence"]
    assert [n["finding"]["scan"] for n in notes] == ["abc0123456789def-1/r2", "abc0123456789def-1/r3"]
    carriers = {c.region: c for c in doc.carriers}
    assert carriers["r2"].problems == ("prizes B took: 2 boxes marked (2, 3), read as 2",)
    assert carriers["r3"].confidence == 0.55


def test_an_unclear_mark_in_an_unused_row_is_still_a_finding() -> None:
    reads = clear_reads(turns(2))
    reads["r9.who"] = GroupRead(frozenset(), 0.6, "box B between empty and marked, read as empty")
    res, _ = events({}, reads=reads)
    low = [f for f in res.findings if f.code == "low_confidence"]
    assert len(low) == 1


def test_marks_in_a_row_with_no_player_are_read_with_the_alternating_player_and_said() -> None:
    marks = turns(2) | {"r3.ko.B": {"active"}, "r3.prizes.A": {"1"}}
    res, doc = events(marks)
    carrier = next(c for c in doc.carriers if c.region == "r3")
    assert carrier.confidence < 0.8 and "no box marked; read as A" in carrier.problems[0]
    assert any(f.code == "low_confidence" for f in res.findings)


def test_players_from_the_command_line_for_a_sheet_printed_without_them() -> None:
    blank = Header(match="t-2")
    doc = sheet_document(blank, clear_reads(turns(1)))
    assert doc.doc["players"] == ["A", "B"]
    doc = sheet_document(blank, clear_reads(turns(1)), players=("Kai", "Yuki"))
    assert doc.doc["players"] == ["Kai", "Yuki"] and doc.doc["first"] == "Kai"


def test_the_qr_payload_round_trips_and_names_its_layout() -> None:
    h = Header(
        match="league-2026-03-r2-t4",
        players=("Łucja", "ユウキ"),
        ruleset="jp-3.4",
        sheet=3,
        count=40,
        context={"event": "Thursday League", "round": 2, "table": 4, "stage": "swiss"},
    )
    assert parse_payload(h.payload()) == h
    assert len(h.payload().encode("utf-8")) < 150  # short keys: the fewer bytes, the larger the modules
    with pytest.raises(PayloadError, match="layout version 2") as err:
        parse_payload(Header(match="m", layout=2).payload())
    assert err.value.version == 2
    for text in ("https://example.com/x", "{}", '{"pcs": 1}', "[1,2]"):
        with pytest.raises(PayloadError):
            parse_payload(text)


def test_every_row_group_has_its_boxes_inside_the_frame_and_apart() -> None:
    boxes = [(g.key, b) for g in LAYOUT.groups for b in g.boxes]
    assert LAYOUT.version == LAYOUT_VERSION and len(boxes) == 33 * 30 + 8 + 9
    markers = marker_rects()
    for key, b in boxes:
        assert b.x > 0 and b.x + b.w < 190 and b.y > 10 and b.y + b.h < 255, key
        for m in markers:  # a marker's quiet zone (a cell, 1.7 mm) stays clear
            apart = (
                b.x > m.x + m.w + 1.7
                or b.x + b.w < m.x - 1.7
                or b.y > m.y + m.h + 1.7
                or b.y + b.h < m.y - 1.7
            )
            assert apart, key
    rows: dict[float, list[float]] = {}
    for _, b in boxes:
        rows.setdefault(round(b.y, 1), []).append(b.x)
    for xs in rows.values():
        xs.sort()
        assert all(b - a >= 4.4 - 1e-9 for a, b in itertools.pairwise(xs))


def test_generated_games_give_the_records_the_rules_give() -> None:
    """400 games played at the sheet's level by the generator: the events the sheet gives fold to the
    result the generator's own play by the rules reached, with no warning or violation."""
    rng = random.Random(2026)
    ends: dict[str, int] = {}
    for _ in range(400):
        ruleset = rng.choice(("play-2026", "jp-3.4", "kr-1.0"))
        game = random_game(rng, ruleset)
        h = Header(match="g", players=("Ann", "Ben"), ruleset=ruleset)
        res, _ = events({k: set(v) for k, v in game.marks.items()}, header=h)
        rec = record(res.events)
        names = {"A": "Ann", "B": "Ben"}
        ends[str(game.reason)] = ends.get(str(game.reason), 0) + 1
        if game.winner is None:
            assert rec["result"] is None
        elif game.winner == "draw":
            assert rec["result"]["outcome"] == "draw", game
        else:
            assert rec["result"]["winner"] == names[game.winner], game
            assert rec["result"]["reason"] == game.reason, game
        assert {names[s]: game.taken[s] for s in "AB"} == {p: v["taken"] for p, v in rec["prizes"].items()}
        assert len(rec["knockouts"]) == game.knockouts
        bad = [f for f in rec["findings"] if f["severity"] != "info"]
        assert not bad, (game, bad)
    # every way a game ends came up
    assert {"prizes", "no_pokemon", "deck_out", "concession", "penalty", "time"} <= set(ends)


def test_a_row_read_empty_above_rows_whose_marks_are_all_unclear_is_a_finding() -> None:
    # a blurred pencil sheet: row 1 read clearly, row 2 read as nothing at all, rows 3 and 4 only unclear
    # (a faint mark, a scribbled-out one): ink in row 4 says the game reached it, so row 2 is no silent gap
    marks = turns(1)
    reads = clear_reads(marks)
    reads["r3.who"] = GroupRead(frozenset(), 0.5, "box A faint, between empty and marked, read as empty")
    reads["r4.who"] = GroupRead(frozenset(), 0.5, "box B scribbled out, read as not marked")
    _, doc = events(marks, reads=reads)
    flagged = {c.region: c for c in doc.carriers if c.confidence < 0.8}
    assert sorted(flagged) == ["r2", "r3", "r4"], sorted(flagged)
    assert list(flagged["r2"].problems) == ["no box read, yet row 4 below it holds unclear marks"]
    # and nothing below the last row with ink: the game ended there
    assert not any(c.region in {"r5", "r6"} for c in doc.carriers)


def test_a_row_read_empty_where_the_game_goes_on_is_a_finding_with_its_crop() -> None:
    # row 3's marks were not seen (a faint pencil): the game goes on to row 5, so row 3 is never dropped
    marks = turns(5)
    del marks["r3.who"]
    res, doc = events(marks)
    [low] = [f for f in res.findings if f.code == "low_confidence"]
    assert low.line is not None
    [note] = [e for e in res.events if e.get("finding", {}).get("code") == "low_confidence"]
    assert note["finding"]["scan"] == "abc0123456789def-1/r3"
    carrier = next(c for c in doc.carriers if c.region == "r3")
    assert carrier.confidence < 0.8 and "yet the game goes on in row 5" in carrier.problems[0]
    # the rows after the last one used are not findings: the game ended there
    assert [c.region for c in doc.carriers if c.confidence < 0.8] == ["r3"]
