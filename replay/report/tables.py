"""The report's numbers as one long table, and the CSV of it.

Every number of a report is one cell ``(league, season, event, table, row, column, value)``. The CSV is
exactly these cells; the HTML page marks each number it shows with the same cell name
(``data-cell="table/row/column"``) so that a test can check all three forms carry the same numbers.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator, Mapping
from typing import Any

Cell = tuple[str, str, str, str, str, str, Any]
HEADER = ("league", "season", "event", "table", "row", "column", "value")


def cells(report: Mapping[str, Any]) -> Iterator[Cell]:
    """Every number of ``report`` (:func:`replay.report.build.ReportBuilder.finish`) as a cell."""
    yield ("", "", "", "report", "all", "games", report["games"])
    for sec in report["sections"]:
        yield from section_cells(sec)
    rec = report.get("reconciliation")
    if rec:
        for column in ("reported", "agree"):
            yield ("", "", "", "reconciliation", "tdf", column, rec[column])
        for column in ("disagree", "missing", "unrecorded_byes", "not_in_tdf", "unknown_players"):
            yield ("", "", "", "reconciliation", "tdf", column, len(rec[column]))


def section_cells(sec: Mapping[str, Any]) -> Iterator[Cell]:
    """The cells of one league/season section (events' standings included)."""
    lg, ss = sec["league"], sec["season"]

    def cell(table: str, row: Any, column: str, value: Any, event: str = "") -> Cell:
        return (lg, ss, event, table, str(row), column, value)

    yield cell("section", "all", "games", sec["games"])
    for status, n in sec["status"].items():
        yield cell("games_by_status", status, "games", n)
    for o in sec["outcomes"]:
        yield cell("games_by_outcome", o["outcome"], o["reason"], o["games"])
    yield cell("section", "all", "matches", sec["matches"]["total"])
    for m in sec["matches"]["by_result"]:
        yield cell("matches_by_result", m["result"], m["decided_by"], m["matches"])
    for p in sec["playoffs"]:
        for column in ("games", "playoffs", "playoff_games", "second_tiebreaks", "rate"):
            yield cell("playoffs", p["ruleset"], column, p[column])
    for f in sec["findings"]["by_code"]:
        yield cell("findings_by_code", f["code"], f["severity"], f["count"])
    for f in sec["findings"]["by_round"]:
        yield cell("findings_by_round", f["round"], f["code"], f["count"])
    for a in sec["agreement"]["by_source"]:
        for column in ("claims", "agree", "rate"):
            yield cell("agreement_by_source", a["kind"], column, a[column])
    for a in sec["agreement"]["by_round"]:
        for column in ("claims", "agree", "rate"):
            yield cell("agreement_by_round", a["round"], column, a[column])
    v = sec["verification"]
    for column in ("knockouts", "verified", "from_claims", "rate"):
        yield cell("verification", "knockouts", column, v[column])
    for basis, n in v["basis"].items():
        yield cell("verification", "basis", basis, n)
    for status, n in sec["integrity"]["chain"].items():
        yield cell("integrity", "chain", status, n)
    for status, n in sec["integrity"]["signature"].items():
        yield cell("integrity", "signature", status, n)
    for ev in sec["events"]:
        for row in ev["standings"]:
            for column in STANDINGS_COLUMNS:
                yield cell("standings", row["player"], column, row[column], ev["event"])


STANDINGS_COLUMNS = (
    "rank",
    "points",
    "win",
    "loss",
    "tie",
    "bye",
    "dropped",
    "win_pct",
    "owp",
    "oowp",
    "top_cut",
)


def cell_name(table: str, row: Any, column: str) -> str:
    """The name the HTML page gives a cell (``data-cell``)."""
    return f"{table}/{row}/{column}"


def to_csv(report: Mapping[str, Any]) -> str:
    """The report's cells as CSV (a header, then one line per number; empty for a missing value)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(HEADER)
    for c in cells(report):
        writer.writerow([*c[:6], "" if c[6] is None else c[6]])
    return out.getvalue()
