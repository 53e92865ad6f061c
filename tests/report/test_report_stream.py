"""The report's JSON written as it is made (``ReportBuilder.write_json``, :mod:`replay.report.lazy`) is the
JSON of the whole report (``render(finish(), "json")``) byte for byte: over a league with findings,
reviews, playoffs and several sections (leagues and seasons), with and without the tournament's file, and
with parts small enough that the chunks of integrity lines and findings split."""

from __future__ import annotations

import gc
import io
import json
from typing import Any

import msgspec
import pytest

from replay.records import from_mapping
from replay.report import Filters, ReportBuilder, lazy, read_tdf, render, write
from tests.report.league import league


def _records() -> list[Any]:
    """The league's records, copied into sections of their own: four leagues and seasons (the last two in
    one league, in two seasons; one name needs escaping in JSON)."""
    out = []
    names = ("Kanto League", 'Liga "Johto" é', "Sinnoh", "Sinnoh")
    for k, name in enumerate(names):
        for rec in league().records.values():
            ctx = {**(rec.get("context") or {}), "league": name, "season": f"S{k}"}
            out.append(from_mapping({**rec, "match": f"c{k}/{rec['match']}", "context": ctx}))
    return out


def _streamed(builder: ReportBuilder, tdf: Any = None) -> bytes:
    out = io.BytesIO()
    builder.write_json(out, tdf)
    return out.getvalue()


@pytest.mark.parametrize("chunk", [1, 7, lazy.CHUNK])
def test_streamed_json_is_the_whole_reports_json(chunk: int, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(lazy, "CHUNK", chunk)
    records = _records()
    whole = ReportBuilder(base_url="http://x").add_all(records).finish()
    streamed = _streamed(ReportBuilder(base_url="http://x").add_all(records))
    assert streamed == msgspec.json.encode(whole, order="sorted") + b"\n"
    assert streamed == render(whole, "json")
    report = json.loads(streamed)
    assert len(report["sections"]) == 4 and report["games"] == len(records)
    sec = report["sections"][0]
    # the parts made while written are all there: every record's line, every finding, every match
    assert len(sec["integrity"]["records"]) == len(league().records)
    assert len(sec["findings"]["items"]) == sum(len(r["findings"]) for r in league().records.values()) > 0
    assert sec["matches"]["total"] == sum(len(ev["matches"]) for ev in sec["events"]) > 0
    assert sec["review"]


def test_streamed_json_with_the_tdf_and_filters(tmp_path: Any) -> None:
    from replay.cli.simulate import write_league_tdf

    path = tmp_path / "league.tdf"
    write_league_tdf(league().sim, str(path))
    tdf = read_tdf(str(path))
    records = [r for r in _records() if r.context and r.context["league"] == "Kanto League"]
    for filters in (Filters(), Filters(round="2")):
        whole = ReportBuilder(filters).add_all(records).finish(tdf)
        assert whole.reconciliation is not None
        assert _streamed(ReportBuilder(filters).add_all(records), tdf) == render(whole, "json")


def test_an_empty_report_streams_as_the_whole() -> None:
    assert _streamed(ReportBuilder()) == render(ReportBuilder().finish(), "json")
    assert json.loads(_streamed(ReportBuilder()))["sections"] == []


def test_items_are_made_once() -> None:
    items = lazy.Items(iter([1, 2]))
    assert list(items) == [1, 2]
    with pytest.raises(RuntimeError):
        list(items)


def test_integrity_lines_give_each_records_own_head() -> None:
    """The builder keeps a sound head as bytes until the line is written: the line gives the record's head
    back as it was, a head that is not 64 hex digits (a trailing newline) is malformed and given as it is,
    and the same record twice (a record file given twice) is two lines, in order."""
    recs = list(league().records.values())[:4]
    bad = dict(recs[1], chain={**recs[1]["chain"], "head": recs[1]["chain"]["head"] + "\n"})
    batch = [from_mapping(r) for r in (recs[0], bad, recs[2], recs[3], recs[3])]
    (sec,) = ReportBuilder().add_all(batch).finish().sections
    lines = list(sec.integrity.records)
    assert [line.match for line in lines] == sorted(r.match for r in batch)
    heads = {(line.match, line.head, line.chain) for line in lines}
    assert heads == {
        (r.match, r.chain.head, "malformed" if r.chain.head.endswith("\n") else "ok") for r in batch
    }
    assert sec.integrity.chain == {"malformed": 1, "ok": 4}


def test_the_fold_and_the_writing_make_no_reference_cycle() -> None:
    """prizecheck report pauses the cycle collector while it folds stored or archived records and writes
    the report (replay/cli/report.py): what it builds must then be freed by reference counts alone."""
    records = _records()
    gc.collect()
    gc.disable()
    try:
        builder = ReportBuilder(base_url="http://x").add_all(records)
        builder.write_json(io.BytesIO())
        whole = ReportBuilder().add_all(records).finish()
        del builder, whole
        assert gc.collect() == 0
    finally:
        gc.enable()


# ------------------------------------------------------------------------------- text, HTML and CSV
def _written(builder: ReportBuilder, fmt: str, tdf: Any = None) -> bytes:
    out = io.BytesIO()
    write(builder.parts(tdf), fmt, out)
    return out.getvalue()


@pytest.mark.parametrize("fmt", ["text", "html", "csv"])
@pytest.mark.parametrize("small", [False, True])
def test_every_form_written_as_it_is_made_is_the_whole_reports(
    fmt: str, small: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Text, HTML and CSV written section by section as the report is made are the bytes of the whole
    report's form; with small blocks and a spool that goes to a temporary file at once, too."""
    from replay.report import stream

    if small:
        monkeypatch.setattr(stream, "SPOOL_IN_MEMORY", 16)
        monkeypatch.setattr(stream, "BLOCK", 3)
        monkeypatch.setattr(lazy, "CHUNK", 2)
    records = _records()
    whole = render(ReportBuilder(base_url="http://x").add_all(records).finish(), fmt)
    assert _written(ReportBuilder(base_url="http://x").add_all(records), fmt) == whole
    assert whole.count(b'Liga "Johto" \xc3\xa9' if fmt == "text" else b"Johto") >= 1


@pytest.mark.parametrize("fmt", ["text", "html", "csv"])
def test_every_form_with_the_tdf_as_the_whole_reports(fmt: str, tmp_path: Any) -> None:
    from replay.cli.simulate import write_league_tdf

    path = tmp_path / "league.tdf"
    write_league_tdf(league().sim, str(path))
    tdf = read_tdf(str(path))
    records = [r for r in _records() if r.context and r.context["league"] == "Kanto League"]
    whole = render(ReportBuilder().add_all(records).finish(tdf), fmt)
    assert _written(ReportBuilder().add_all(records), fmt, tdf) == whole
    assert b"reconciliation" in whole


def _events(n: int) -> list[Any]:
    """The league copied into ``n`` events of one section."""
    out = []
    for k in range(n):
        for rec in league().records.values():
            ctx = {**(rec.get("context") or {}), "event": f"Cup {k:02d}"}
            out.append(from_mapping({**rec, "match": f"e{k}/{rec['match']}", "context": ctx}))
    return out


def test_the_page_shows_the_first_events_in_full_and_the_others_a_line_each(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A season's page (more events than a person reads) shows the first MAX_EVENTS events in full, the
    next MAX_EVENT_LINES a line each, says how many are left out and where they all are (the CSV); every
    number it shows is the CSV's."""
    import csv
    import re

    from replay.report import html

    monkeypatch.setattr(html, "MAX_EVENTS", 2)
    monkeypatch.setattr(html, "MAX_EVENT_LINES", 3)
    records = _events(7)
    out = io.BytesIO()
    write(ReportBuilder().add_all(records).parts(), "html", out, csv_note="report.csv")
    page = out.getvalue().decode()
    assert page.count('data-table="standings"') == 2  # Cup 00 and Cup 01 in full
    assert "Event Cup 01" in page and "Event Cup 02" not in page
    more = page[page.index('data-table="more_events"') : page.index("</table>", page.index("more_events"))]
    assert re.findall(r"<tr><td>(Cup \d\d)</td>", more) == ["Cup 02", "Cup 03", "Cup 04"]
    assert "7 events: the first 2 are shown in full, the next 3 a line each (2 not listed)" in page
    assert "in the CSV form of this report (report.csv)" in page
    assert page.endswith("</html>\n")
    # the numbers shown are the CSV's (its standings of all 7 events included)
    rows = list(
        csv.DictReader(io.StringIO(render(ReportBuilder().add_all(records).finish(), "csv").decode()))
    )
    names = ("league", "season", "event", "table", "row", "column")
    from_csv = {"|".join(r[n] for n in names): r["value"] for r in rows}
    shown = dict(re.findall(r'data-cell="([^"]*)" data-value="([^"]*)"', page))
    assert shown and all(from_csv[k.replace("&#x27;", "'")] == v for k, v in shown.items())
    assert {r["event"] for r in rows if r["table"] == "standings"} == {f"Cup {k:02d}" for k in range(7)}


def test_a_page_with_few_events_has_no_summary() -> None:
    page = render(ReportBuilder().add_all(_events(3)).finish(), "html").decode()
    assert page.count('data-table="standings"') == 3 and "more_events" not in page


def test_the_page_is_the_same_in_every_process(tmp_path: Any) -> None:
    """The same records make the same page whatever the interpreter's string hashing (reasons with as
    many games each were charted in a set's order)."""
    import os
    import subprocess
    import sys

    from replay.codec import encode_jsonl
    from tests.paths import ROOT

    events = tmp_path / "league.jsonl"
    events.write_bytes(encode_jsonl(league().events))
    pages = []
    for seed in ("1", "2", "3"):
        out = tmp_path / f"r{seed}.html"
        done = subprocess.run(
            [sys.executable, "-m", "replay.cli", "report", str(events), "--format", "html",
             "--out", str(out)],
            capture_output=True, text=True, cwd=ROOT, timeout=300,
            env={**os.environ, "PYTHONHASHSEED": seed},
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
        pages.append(out.read_bytes())
    assert pages[0] == pages[1] == pages[2]
