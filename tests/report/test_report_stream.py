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
from replay.report import Filters, ReportBuilder, lazy, read_tdf, render
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
        assert whole["reconciliation"] is not None
        assert _streamed(ReportBuilder(filters).add_all(records), tdf) == render(whole, "json")


def test_an_empty_report_streams_as_the_whole() -> None:
    assert _streamed(ReportBuilder()) == render(ReportBuilder().finish(), "json")
    assert json.loads(_streamed(ReportBuilder()))["sections"] == []


def test_items_are_made_once() -> None:
    items = lazy.Items(iter([1, 2]))
    assert lazy.settle(items) == [1, 2]
    with pytest.raises(RuntimeError):
        lazy.settle(items)


def test_integrity_lines_give_each_records_own_head() -> None:
    """The builder keeps a sound head as bytes until the line is written: the line gives the record's head
    back as it was, a head that is not 64 hex digits (a trailing newline) is malformed and given as it is,
    and the same record twice (a record file given twice) is two lines, in order."""
    recs = list(league().records.values())[:4]
    bad = dict(recs[1], chain={**recs[1]["chain"], "head": recs[1]["chain"]["head"] + "\n"})
    batch = [from_mapping(r) for r in (recs[0], bad, recs[2], recs[3], recs[3])]
    (sec,) = ReportBuilder().add_all(batch).finish()["sections"]
    lines = sec["integrity"]["records"]
    assert [line["match"] for line in lines] == sorted(r.match for r in batch)
    heads = {(line["match"], line["head"], line["chain"]) for line in lines}
    assert heads == {
        (r.match, r.chain.head, "malformed" if r.chain.head.endswith("\n") else "ok") for r in batch
    }
    assert sec["integrity"]["chain"] == {"malformed": 1, "ok": 4}


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
