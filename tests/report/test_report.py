"""prizecheck report over a simulated league: its contents, its three machine forms, filters, progress.

The numbers are checked against the records themselves (counted here, independently of the report code),
and the JSON, CSV and HTML forms against each other: each read the way a user's tool would read it.
"""

from __future__ import annotations

import csv
import io
import json
import os
import pty
import re
import subprocess
import sys
from collections import Counter
from datetime import date
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import msgspec
import pytest

from replay.cli import main
from replay.codec import encode_jsonl
from replay.engine.chain import sign
from replay.records import from_mapping
from replay.report import Filters, ReportBuilder
from tests.paths import ROOT
from tests.report.league import LEAGUE, league

BASE = "http://judges.example:8080"
Key = tuple[str, str, str, str, str, str]


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The league's events and its .tdf on disk, and the report in every form, made by the command."""
    from replay.cli.simulate import write_league_tdf

    root = tmp_path_factory.mktemp("league")
    lg = league()
    events = root / "league.jsonl"
    events.write_bytes(encode_jsonl(lg.events))
    tdf = root / "league.tdf"
    write_league_tdf(lg.sim, str(tdf))
    out = {"events": events, "tdf": tdf}
    for fmt in ("json", "csv", "html", "text"):
        path = root / f"report.{fmt}"
        code = main(
            [
                "report",
                str(events),
                "--tdf",
                str(tdf),
                "--base-url",
                BASE,
                "--format",
                fmt,
                "--out",
                str(path),
            ]
        )
        assert code == 0
        out[fmt] = path
    return out


def _report(files: dict[str, Path]) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(files["json"].read_bytes())
    return data


# ------------------------------------------------------------------------------------------ contents
def test_games_matches_and_playoffs_add_up(files: dict[str, Path]) -> None:
    lg = league()
    rep = _report(files)
    (sec,) = rep["sections"]
    assert (sec["league"], sec["season"], rep["games"]) == (LEAGUE, "2026", len(lg.records))
    # games by outcome and reason: the records' own results, counted here
    counted = Counter(
        ((r["result"] or {}).get("outcome") or "undecided", (r["result"] or {}).get("reason") or "-")
        for r in lg.records.values()
    )
    assert {(o["outcome"], o["reason"]): o["games"] for o in sec["outcomes"]} == dict(counted)
    # one best-of-three match per pairing the tournament software recorded (byes aside)
    played = [m for m in lg.sim.tournament.matches if len(m.players) == 2]
    assert sec["matches"]["total"] == len(played) == sum(m["matches"] for m in sec["matches"]["by_result"])
    results = {m["result"] for m in sec["matches"]["by_result"]}
    assert {"win", "tie"} <= results
    (event,) = sec["events"]
    assert event["event"] == "League Cup" and event["single_elimination"]
    assert all(len(m["games"]) <= 3 for m in event["matches"] if m["stage"] == "swiss")
    # playoffs: the games that went to one, per ruleset, and the second tiebreak the top cut had
    (po,) = sec["playoffs"]
    roots = [r for r in lg.records.values() if r["parent"] is None]
    assert po["games"] == len(roots) and po["playoffs"] == sum(1 for r in roots if r["playoff"])
    assert po["second_tiebreaks"] >= 1 and po["rate"] == round(po["playoffs"] / po["games"], 4)


def test_findings_link_to_the_review_page_at_their_event(files: dict[str, Path]) -> None:
    lg = league()
    (sec,) = _report(files)["sections"]
    expected = Counter((f["code"], f["severity"]) for r in lg.records.values() for f in r["findings"])
    assert {(f["code"], f["severity"]): f["count"] for f in sec["findings"]["by_code"]} == dict(expected)
    items = sec["findings"]["items"]
    assert len(items) == sum(expected.values()) > 0
    for item in items:
        assert item["link"] == f"{BASE}/review/{item['match']}#seq={item['seq']}"
        assert any(f["seq"] == item["seq"] for f in lg.records[item["match"]]["findings"])
    by_round = Counter(
        (str(r["context"]["round"]), f["code"]) for r in lg.records.values() for f in r["findings"]
    )
    assert {(f["round"], f["code"]): f["count"] for f in sec["findings"]["by_round"]} == dict(by_round)


def test_agreement_by_source_kind_and_verification_coverage(files: dict[str, Path]) -> None:
    lg = league()
    (sec,) = _report(files)["sections"]
    claims: Counter[str] = Counter()
    agree: Counter[str] = Counter()
    for r in lg.records.values():
        if r["agrees"] is not None:
            claims[r["source"]["kind"]] += 1
            agree[r["source"]["kind"]] += bool(r["agrees"])
    got = {a["kind"]: (a["claims"], a["agree"]) for a in sec["agreement"]["by_source"]}
    assert got == {k: (claims[k], agree[k]) for k in claims}
    assert set(got) == {"digital", "scanned", "manual"}
    assert any(a["agree"] < a["claims"] for a in sec["agreement"]["by_source"])
    knockouts = [k for r in lg.records.values() for k in r["knockouts"]]
    v = sec["verification"]
    assert (v["knockouts"], v["verified"]) == (len(knockouts), sum(1 for k in knockouts if k["verified"]))
    assert v["from_claims"] == v["knockouts"] - v["verified"] > 0
    assert v["basis"]["claims"] == sum(1 for r in lg.records.values() if r["audit"]["basis"] == "claims")


def test_chain_and_signature_status_of_every_record() -> None:
    recs = list(league().records.values())[:6]
    key = b"league-key"
    signed = [sign(r, key, "k1") for r in recs[:4]]
    tampered = dict(signed[3], result={**(signed[3]["result"] or {}), "winner": "nobody"})
    broken = dict(recs[4], chain={"alg": "sha256", "head": "not hex", "events": 3})
    batch = [from_mapping(r) for r in (*signed[:3], tampered, broken, recs[5])]
    rep = ReportBuilder(signing_key=key).add_all(batch).finish()
    (sec,) = msgspec.to_builtins(rep)["sections"]
    status = {r["match"]: (r["chain"], r["signature"]) for r in sec["integrity"]["records"]}
    assert [status[r.match] for r in batch] == [
        ("ok", "valid"),
        ("ok", "valid"),
        ("ok", "valid"),
        ("ok", "invalid"),
        ("malformed", "unsigned"),
        ("ok", "unsigned"),
    ]
    assert sec["integrity"]["signature"] == {"invalid": 1, "unsigned": 2, "valid": 3}
    # without the key a signature is reported as present but not checked
    (sec,) = ReportBuilder().add_all(batch).finish().sections
    assert sec.integrity.signature == {"not_checked": 4, "unsigned": 2}


def test_standings_use_the_tdf_byes_and_drops(files: dict[str, Path]) -> None:
    lg = league()
    (sec,) = _report(files)["sections"]
    (event,) = sec["events"]
    assert event["byes_from"] == "tdf"
    rows = {r["player"]: r for r in event["standings"]}
    t = lg.sim.tournament
    assert {p for p, r in rows.items() if r["dropped"] is not None} == set(t.dropped)
    byes = Counter(m.players[0] for m in t.matches if m.outcome == 5)
    assert {p: r["bye"] for p, r in rows.items() if r["bye"]} == dict(byes)
    for r in rows.values():
        assert r["points"] == 3 * r["win"] + r["tie"] + 3 * r["bye"]
        assert 0.25 <= r["win_pct"] <= (0.75 if r["dropped"] is not None else 1)
    points = [r["points"] for r in event["standings"]]
    assert points == sorted(points, reverse=True)
    assert [r["player"] for r in event["top_cut"] if r["place"] == 1]  # a champion
    # each player's section lists their matches, byes included
    players = {p["player"]: p["matches"] for p in event["players"]}
    for name, r in rows.items():
        assert len(players[name]) >= r["win"] + r["loss"] + r["tie"] + r["bye"]


# ------------------------------------------------------------------------------------------ three forms
def _json_cells(rep: dict[str, Any]) -> dict[Key, str]:
    """The report's numbers read from its JSON as a user's script would."""
    cells: dict[Key, Any] = {("", "", "", "report", "all", "games"): rep["games"]}
    for sec in rep["sections"]:
        lg, ss = sec["league"], sec["season"]

        def put(
            table: str, row: Any, col: str, value: Any, event: str = "", lg: str = lg, ss: str = ss
        ) -> None:
            cells[(lg, ss, event, table, str(row), col)] = value

        put("section", "all", "games", sec["games"])
        put("section", "all", "matches", sec["matches"]["total"])
        for k, n in sec["status"].items():
            put("games_by_status", k, "games", n)
        for o in sec["outcomes"]:
            put("games_by_outcome", o["outcome"], o["reason"], o["games"])
        for m in sec["matches"]["by_result"]:
            put("matches_by_result", m["result"], m["decided_by"], m["matches"])
        for p in sec["playoffs"]:
            for col in ("games", "playoffs", "playoff_games", "second_tiebreaks", "rate"):
                put("playoffs", p["ruleset"], col, p[col])
        for f in sec["findings"]["by_code"]:
            put("findings_by_code", f["code"], f["severity"], f["count"])
        for f in sec["findings"]["by_round"]:
            put("findings_by_round", f["round"], f["code"], f["count"])
        for a in sec["agreement"]["by_source"]:
            for col in ("claims", "agree", "rate"):
                put("agreement_by_source", a["kind"], col, a[col])
        for a in sec["agreement"]["by_round"]:
            for col in ("claims", "agree", "rate"):
                put("agreement_by_round", a["round"], col, a[col])
        v = sec["verification"]
        for col in ("knockouts", "verified", "from_claims", "rate"):
            put("verification", "knockouts", col, v[col])
        for b, n in v["basis"].items():
            put("verification", "basis", b, n)
        for name in ("chain", "signature"):
            for k, n in sec["integrity"][name].items():
                put("integrity", name, k, n)
        for ev in sec["events"]:
            for r in ev["standings"]:
                for col in (
                    "rank",
                    "division",
                    "points",
                    "win",
                    "loss",
                    "tie",
                    "bye",
                    "dropped",
                    "win_pct",
                    "owp",
                    "oowp",
                ):
                    put("standings", r["player"], col, r[col], ev["event"])
                put("standings", r["player"], "top_cut", r["top_cut"], ev["event"])
    rec = rep["reconciliation"]
    for col in ("reported", "agree"):
        cells[("", "", "", "reconciliation", "tdf", col)] = rec[col]
    for col in ("disagree", "missing", "unrecorded_byes", "not_in_tdf", "unknown_players"):
        cells[("", "", "", "reconciliation", "tdf", col)] = len(rec[col])
    differ = sum(len(d["differences"]) for d in rec["standings"])
    cells[("", "", "", "reconciliation", "tdf", "standings_differ")] = differ
    return {k: "" if v is None else str(v) for k, v in cells.items()}


class _Cells(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.cells: dict[Key, str] = {}

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if a.get("data-cell") is not None:
            parts = tuple(str(a["data-cell"]).split("|"))
            assert len(parts) == 6, parts
            key: Key = (parts[0], parts[1], parts[2], parts[3], parts[4], parts[5])
            assert key not in self.cells, f"{key} shown twice"
            self.cells[key] = a.get("data-value") or ""


def test_json_csv_and_html_carry_the_same_numbers(files: dict[str, Path]) -> None:
    from_json = _json_cells(_report(files))
    rows = list(csv.DictReader(io.StringIO(files["csv"].read_text("utf-8"))))
    from_csv = {
        (r["league"], r["season"], r["event"], r["table"], r["row"], r["column"]): r["value"] for r in rows
    }
    assert len(from_csv) == len(rows)  # one line per number
    parser = _Cells()
    parser.feed(files["html"].read_text("utf-8"))
    assert from_csv == from_json
    assert parser.cells == from_json
    assert len(from_json) > 100


def test_text_form_shows_the_standings_and_the_reconciliation(files: dict[str, Path]) -> None:
    text = files["text"].read_text("utf-8")
    rep = _report(files)
    leader = rep["sections"][0]["events"][0]["standings"][0]["player"]
    assert f" 1. {leader}" in text and "OWP" in text and "OOWP" in text
    assert f"reported matches: {rep['reconciliation']['reported']}" in text


# ------------------------------------------------------------------------------------------ scope
def test_filters_by_round_event_and_date(files: dict[str, Path], tmp_path: Path) -> None:
    lg = league()
    out = tmp_path / "r1.json"
    assert main(["report", str(files["events"]), "--round", "1", "--format", "json", "--out", str(out)]) == 0
    rep = json.loads(out.read_bytes())
    assert rep["games"] == sum(1 for r in lg.records.values() if r["context"]["round"] == 1)
    assert rep["filters"]["round"] == "1"
    day = lg.sim.tournament.day
    builder = ReportBuilder(Filters(date_from=date.fromisoformat(day), date_to=date.fromisoformat(day)))
    assert builder.add_all(lg.typed()).games == len(lg.records)
    p = subprocess.run(
        [sys.executable, "-m", "replay.cli", "report", str(files["events"]), "--from", "2027-01-01"],
        capture_output=True,
        timeout=120,
    )
    assert p.returncode == 2 and b"no records in the files match" in p.stderr and b"Traceback" not in p.stderr
    assert main(["report", str(files["events"]), "--event", "Another Cup"]) == 2
    assert main(["report", str(files["events"]), "--from", "14/03/2026"]) == 2


def test_progress_bar_on_a_terminal_only(files: dict[str, Path], tmp_path: Path) -> None:
    cmd = [
        sys.executable,
        "-m",
        "replay.cli",
        "report",
        str(files["events"]),
        "--out",
        str(tmp_path / "r.txt"),
    ]
    piped = subprocess.run(cmd, capture_output=True, timeout=120)
    assert piped.returncode == 0
    assert piped.stderr.decode().strip().startswith("prizecheck report:")  # one line, no bar
    leader, follower = pty.openpty()
    # a bar for any work, however short (the default waits half a second)
    env = {**os.environ, "COLUMNS": "100", "TERM": "xterm", "PRIZECHECK_PROGRESS_AFTER": "0"}
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=follower, env=env, cwd=ROOT)
    os.close(follower)
    seen = b""
    while True:
        try:
            chunk = os.read(leader, 4096)
        except OSError:
            break
        if not chunk:
            break
        seen += chunk
    assert proc.wait(timeout=120) == 0
    os.close(leader)
    assert b"prizecheck report" in seen and b"\x1b[" in seen  # rich drew (and cleared) a bar


def test_the_text_report_in_japanese_and_korean(files: dict[str, Path], tmp_path: Path) -> None:
    """``--lang ja``/``ko``: the same numbers in the text report, its words from the catalogues."""
    english = files["text"].read_text(encoding="utf-8")
    said = {}
    for lang in ("en", "ja", "ko"):
        out = tmp_path / f"report-{lang}.txt"
        args = ["report", str(files["events"]), "--tdf", str(files["tdf"]), "--base-url", BASE]
        assert main([*args, "--lang", lang, "--out", str(out)]) == 0
        said[lang] = out.read_text(encoding="utf-8")
    assert said["en"] == english  # English is the report as it was
    assert said["ja"].startswith("Prizecheck 監査レポート") and "残り" not in said["en"]
    assert said["ko"].startswith("Prizecheck 감사 보고서")
    for text in (
        said["ja"],
        said["ko"],
    ):  # every number of the English is there (the order is the language's)
        assert not Counter(re.findall(r"\d+", said["en"])) - Counter(re.findall(r"\d+", text))
