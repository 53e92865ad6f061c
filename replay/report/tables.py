"""The report's numbers as one long table, and the CSV of it.

Every number of a report is one cell ``(league, season, event, table, row, column, value)``. The CSV is
exactly these cells; the HTML page marks each number it shows with the same cell name
(``data-cell="table/row/column"``) so that a test can check all three forms carry the same numbers.
"""

from __future__ import annotations

import csv
from collections.abc import Iterator, Mapping
from typing import IO, Any

from replay.report.stream import Writer, sections
from replay.sheet_format import neutral_cell

Cell = tuple[str, str, str, str, str, str, Any]
HEADER = ("league", "season", "event", "table", "row", "column", "value")


def _report_cells(report: Mapping[str, Any]) -> Iterator[Cell]:
    """The cells of the reconciliation with the tournament software's file, if any."""
    rec = report.get("reconciliation")
    if rec:
        for column in ("reported", "agree"):
            yield ("", "", "", "reconciliation", "tdf", column, rec[column])
        for column in ("disagree", "missing", "unrecorded_byes", "not_in_tdf", "unknown_players"):
            yield ("", "", "", "reconciliation", "tdf", column, len(rec[column]))
        differ = sum(len(d["differences"]) for d in rec["standings"])
        yield ("", "", "", "reconciliation", "tdf", "standings_differ", differ)


def section_cells(sec: Mapping[str, Any]) -> Iterator[Cell]:
    """The cells of one league/season section, but its events' standings (:func:`standings_cells`)."""
    lg, ss = sec["league"], sec["season"]

    def cell(table: str, row: Any, column: str, value: Any) -> Cell:
        return (lg, ss, "", table, str(row), column, value)

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


def standings_cells(sec: Mapping[str, Any], ev: Mapping[str, Any]) -> Iterator[Cell]:
    """The cells of one event's standings (in section ``sec``)."""
    lg, ss, event = sec["league"], sec["season"], ev["event"]
    for row in ev["standings"]:
        player = str(row["player"])
        for column in STANDINGS_COLUMNS:
            yield (lg, ss, event, "standings", player, column, row[column])


STANDINGS_COLUMNS = (
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
    "top_cut",
)


def cell_name(table: str, row: Any, column: str) -> str:
    """The name the HTML page gives a cell (``data-cell``)."""
    return f"{table}/{row}/{column}"


def write_csv(report: Mapping[str, Any], out: IO[bytes]) -> None:
    """The report's cells as CSV (a header, then one line per number; empty for a missing value), written
    to ``out`` section by section as the report is made. Every text cell is neutralised
    (:func:`neutral_cell`) and quoted (RFC 4180: quotes doubled; a line break or carriage return inside a
    name stays inside its cell), numbers are not: OWASP's rule for CSV."""
    writer = Writer(out)
    rows = csv.writer(_Lines(writer), lineterminator="\n", quoting=csv.QUOTE_NONNUMERIC)

    def row(c: Cell) -> list[Any]:
        return [neutral_cell(v) for v in (*c[:6], "" if c[6] is None else c[6])]

    def events(w: Writer, sec: Mapping[str, Any], evs: Iterator[Mapping[str, Any]]) -> None:
        spooled = csv.writer(_Lines(w), lineterminator="\n", quoting=csv.QUOTE_NONNUMERIC)
        for ev in evs:
            spooled.writerows(map(row, standings_cells(sec, ev)))

    rows.writerow(HEADER)
    rows.writerow(row(("", "", "", "report", "all", "games", report["games"])))
    for sec, spool in sections(report, events):
        rows.writerows(map(row, section_cells(sec)))
        spool.copy_to(writer)
    rows.writerows(map(row, _report_cells(report)))
    writer.flush()


class _Lines:
    """A file for :func:`csv.writer` that hands its lines to a :class:`Writer`."""

    __slots__ = ("write",)

    def __init__(self, w: Writer) -> None:
        self.write = w
