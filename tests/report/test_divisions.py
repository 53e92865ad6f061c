"""Age divisions in a TOM export: the reader keeps each player's division and TOM's own standings; the
report ranks, cuts and checks each division apart and says where TOM's standings differ, and why.

``tests/data/tdf/cerulean-league-challenge.tdf`` is hand-made in TOM's layout (its README says why no
public real export could be used): Juniors, Seniors and Masters paired in one age-combined pod, TOM's
standings per division, and TOM's known habit of ranking a dropped player above an active one with
better tiebreakers (Dana, dropped after round 2, above Casey).
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
from replay.report import build_report, read_tdf, render
from replay.report.reconcile import compare_standings, tdf_standings
from replay.report.tdf import parse_tdf
from tests.paths import ROOT
from tests.report.test_reconcile import _match

FIXTURE = ROOT / "tests" / "data" / "tdf" / "cerulean-league-challenge.tdf"
EVENT = "Cerulean Gym League Challenge"
AVERY, BLAKE, CASEY, DANA, EMERY, FINLEY = "5100201", "5100202", "5100203", "5100204", "5100205", "5100206"
GALE, HARPER, INDIGO, JULES = "5100207", "5100208", "5100209", "5100210"


def test_the_reader_keeps_each_division_and_toms_standings() -> None:
    t = read_tdf(str(FIXTURE))
    assert {m.pod for m in t.matches} == {"10"}  # one age-combined pod
    div = t.divisions()
    assert [u for u, d in div.items() if d == "juniors"] == [INDIGO, JULES]
    assert [u for u, d in div.items() if d == "seniors"] == [GALE, HARPER]
    assert len([d for d in div.values() if d == "masters"]) == 6
    assert [(p.userid, p.place, p.finished) for p in t.standings["masters"]] == [
        (EMERY, 1, True),
        (AVERY, 2, True),
        (BLAKE, 3, True),
        (FINLEY, 4, True),
        (DANA, 5, True),
        (CASEY, 6, True),
    ]
    assert [p.userid for p in t.standings["juniors"]] == [JULES, INDIGO]
    # a Junior paired with a Master (round 1, table 4) is still a Junior
    assert (t.matches[3].players, div[INDIGO]) == ((EMERY, INDIGO), "juniors")


def test_prizecheck_ranks_each_division_of_the_whole_pods_results() -> None:
    rows = tdf_standings(read_tdf(str(FIXTURE)))
    by_div: dict[str, list[str]] = {}
    for uid, row in sorted(rows.items(), key=lambda kv: kv[1].rank):
        by_div.setdefault(str(row.division), []).append(uid)
    assert by_div == {
        "masters": [EMERY, AVERY, BLAKE, FINLEY, CASEY, DANA],
        "seniors": [HARPER, GALE],
        "juniors": [JULES, INDIGO],
    }
    # tiebreakers over the whole pod: Indigo's opponents were a Master (Emery) and a Junior (Jules)
    assert (rows[INDIGO].owp, rows[CASEY].owp, rows[DANA].owp) == (0.75, 0.5, 0.3333)


def test_toms_standings_agree_except_the_dropped_player_above_better_tiebreakers() -> None:
    masters, seniors, juniors = msgspec.to_builtins(compare_standings(read_tdf(str(FIXTURE)), {}))
    assert (seniors["differences"], juniors["differences"]) == ([], [])
    assert (masters["division"], masters["basis"], masters["players"]) == ("masters", "tdf", 6)
    dana, casey = masters["differences"]
    assert (dana["player"], dana["tom"], dana["prizecheck"]) == ("Dana Whitlock (5100204)", 5, 6)
    assert dana["why"].startswith(
        "TOM ranks Dana Whitlock (5100204), who dropped after round 2 (3 pts, OWP 33.33%)"
    )
    assert "above Casey Moreau (5100203): 3 pts, OWP 50.00%" in dana["why"]
    assert "did not drop and have better tiebreakers" in dana["why"]
    assert (casey["tom"], casey["prizecheck"]) == (6, 5)
    assert casey["why"].startswith("below Dana Whitlock (5100204), who dropped after round 2")


# The event's games as recorded (first names: the TDF's players by unique first name), round 4 a top cut
# of two per division: the Masters' seats Blake (3rd) instead of Avery (2nd), the Seniors' is right.
SWISS = [
    (1, 1, "avery", "gale", "avery"),
    (1, 2, "blake", "casey", "blake"),
    (1, 3, "dana", "harper", "harper"),
    (1, 4, "emery", "indigo", "emery"),
    (2, 1, "avery", "blake", "avery"),
    (2, 2, "emery", "harper", "emery"),
    (2, 3, "casey", "dana", "dana"),
    (2, 4, "gale", "finley", "gale"),
    (2, 5, "indigo", "jules", "jules"),
    (3, 1, "avery", "emery", "emery"),
    (3, 2, "blake", "harper", "blake"),
    (3, 3, "gale", "casey", "casey"),
    (3, 4, "finley", "jules", "finley"),
]


def _events() -> list[dict[str, Any]]:
    events: list[dict[str, Any]] = []
    for rnd, table, a, b, winner in SWISS:
        events += _match(rnd, table, a, b, [winner, winner], event=EVENT)
    events += _match(1, 5, "finley", "jules", ["finley", "jules"], event=EVENT)  # 1-1 at time: a tie
    events += _match(4, 1, "emery", "blake", ["emery", "emery"], event=EVENT, stage="single_elimination")
    events += _match(4, 2, "harper", "gale", ["harper", "harper"], event=EVENT, stage="single_elimination")
    return events


def test_the_report_ranks_cuts_and_checks_each_division(tmp_path: Path) -> None:
    events = tmp_path / "cerulean.jsonl"
    events.write_bytes(encode_jsonl(_events()))
    out = tmp_path / "report.json"
    assert main(["report", str(events), "--tdf", str(FIXTURE), "--format", "json", "--out", str(out)]) == 0
    rep = json.loads(out.read_bytes())
    (ev,) = rep["sections"][0]["events"]
    table = [(r["division"], r["rank"], r["player"], r["top_cut"]) for r in ev["standings"]]
    assert table == [
        ("juniors", 1, "jules", None),
        ("juniors", 2, "indigo", None),
        ("seniors", 1, "harper", 1),
        ("seniors", 2, "gale", 2),
        ("masters", 1, "emery", 1),
        ("masters", 2, "avery", None),
        ("masters", 3, "blake", 2),
        ("masters", 4, "finley", None),
        ("masters", 5, "casey", None),
        ("masters", 6, "dana", None),
    ]
    assert ev["top_cut_check"] is None  # three divisions: each one's check is in "divisions"
    checks = {d["division"]: d["top_cut_check"] for d in ev["divisions"]}
    assert checks["juniors"] is None
    assert checks["seniors"]["differs"] is False
    assert checks["masters"]["why"] == [
        "blake (Swiss #3) played in it",
        "avery (Swiss #2) did not",
        "#1 v #3 is not the seeding's pairing",
    ]
    assert [(r["division"], r["place"], r["player"]) for r in ev["top_cut"]] == [
        ("seniors", 1, "harper"),
        ("seniors", 2, "gale"),
        ("masters", 1, "emery"),
        ("masters", 2, "blake"),
    ]
    # the records agree with the TDF match for match: the standings differ from TOM's where TOM's do
    rec = rep["reconciliation"]
    assert (rec["reported"], rec["agree"], rec["disagree"], rec["missing"]) == (14, 14, [], [])
    masters = rec["standings"][0]
    assert masters["basis"] == "records"
    assert [(d["player"], d["tom"], d["prizecheck"]) for d in masters["differences"]] == [
        ("Dana Whitlock (5100204)", 5, 6),
        ("Casey Moreau (5100203)", 6, 5),
    ]
    text = render(build_report([], tdf=read_tdf(str(FIXTURE))), "text").decode()
    assert "STANDINGS DIFFER masters: Dana Whitlock (5100204) TOM #5, Prizecheck #6: TOM ranks" in text


def test_the_report_says_a_records_result_moves_a_player(tmp_path: Path) -> None:
    swapped = [(r, t, a, b, a if (r, t) == (3, 1) else w) for r, t, a, b, w in SWISS]  # Avery beat Emery
    events: list[dict[str, Any]] = []
    for rnd, table, a, b, winner in swapped:
        events += _match(rnd, table, a, b, [winner, winner], event=EVENT)
    events += _match(1, 5, "finley", "jules", ["finley", "jules"], event=EVENT)
    path = tmp_path / "e.jsonl"
    path.write_bytes(encode_jsonl(events))
    out = tmp_path / "r.json"
    assert main(["report", str(path), "--tdf", str(FIXTURE), "--format", "json", "--out", str(out)]) == 0
    rec = json.loads(out.read_bytes())["reconciliation"]
    (d,) = rec["disagree"]
    assert (d["round"], d["divisions"]) == (3, ["masters"])  # each reported match with its division
    masters = rec["standings"][0]
    why = {d["player"]: d["why"] for d in masters["differences"]}
    assert why["Emery Sato (5100205)"].startswith("a match result of theirs in the records differs")
    assert why["Avery Lin (5100201)"].startswith("a match result of theirs in the records differs")


@pytest.mark.parametrize(
    ("standings", "line", "field", "why"),
    [
        ('<pod category="7" type="finished"/>', 4, "standings/pod/@category", "unknown age division '7'"),
        (
            '<pod category="2">\n<player id="9" place="1"/></pod>',
            5,
            "standings/player/@id",
            "'9' is not among",
        ),
        (
            '<pod category="2">\n<player id="1" place="first"/></pod>',
            5,
            "standings/player/@place",
            "whole number",
        ),
    ],
)
def test_a_bad_standings_entry_names_its_line_and_field(
    standings: str, line: int, field: str, why: str
) -> None:
    data = (
        '<tournament>\n<players><player userid="1"><firstname>A</firstname></player></players>\n<standings>\n'
        f"{standings}\n</standings></tournament>"
    ).encode()
    with pytest.raises(InputError) as err:
        parse_tdf(data, name="bad.tdf")
    assert (err.value.file, err.value.line, err.value.field) == ("bad.tdf", line, field)
    assert why in str(err.value)
