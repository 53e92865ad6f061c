"""The report's numbers as one long table, and the CSV of it.

Every number of a report is one cell ``(league, season, event, table, row, column, value)``. The CSV is
exactly these cells; the HTML page marks each number it shows with the same cell name
(``data-cell="table/row/column"``) so that a test can check all three forms carry the same numbers.
"""

from __future__ import annotations

import csv
from collections.abc import Iterator
from typing import IO, Any

from replay.report.document import Event, Report, Section
from replay.report.stream import Writer, sections
from replay.sheet_format import neutral_cell

Cell = tuple[str, str, str, str, str, str, Any]
HEADER = ("league", "season", "event", "table", "row", "column", "value")


def _report_cells(report: Report) -> Iterator[Cell]:
    """The cells of the reconciliation with the tournament software's file, if any."""
    rec = report.reconciliation
    if rec:

        def cell(column: str, value: int) -> Cell:
            return ("", "", "", "reconciliation", "tdf", column, value)

        yield cell("reported", rec.reported)
        yield cell("agree", rec.agree)
        yield cell("disagree", len(rec.disagree))
        yield cell("missing", len(rec.missing))
        yield cell("unrecorded_byes", len(rec.unrecorded_byes))
        yield cell("not_in_tdf", len(rec.not_in_tdf))
        yield cell("unknown_players", len(rec.unknown_players))
        yield cell("standings_differ", sum(len(d.differences) for d in rec.standings))


def section_cells(sec: Section) -> Iterator[Cell]:
    """The cells of one league/season section, but its events' standings (:func:`standings_cells`)."""
    lg, ss = sec.league, sec.season

    def cell(table: str, row: Any, column: str, value: Any) -> Cell:
        return (lg, ss, "", table, str(row), column, value)

    yield cell("section", "all", "games", sec.games)
    for status, n in sec.status.items():
        yield cell("games_by_status", status, "games", n)
    for o in sec.outcomes:
        yield cell("games_by_outcome", o.outcome, o.reason, o.games)
    yield cell("section", "all", "matches", sec.matches.total)
    for m in sec.matches.by_result:
        yield cell("matches_by_result", m.result, m.decided_by, m.matches)
    for p in sec.playoffs:
        for column in PLAYOFF_COLUMNS:
            yield cell("playoffs", p.ruleset, column, getattr(p, column))
    for f in sec.findings.by_code:
        yield cell("findings_by_code", f.code, f.severity, f.count)
    for fr in sec.findings.by_round:
        yield cell("findings_by_round", fr.round, fr.code, fr.count)
    for a in sec.agreement.by_source:
        for column in AGREEMENT_COLUMNS:
            yield cell("agreement_by_source", a.kind, column, getattr(a, column))
    for ar in sec.agreement.by_round:
        for column in AGREEMENT_COLUMNS:
            yield cell("agreement_by_round", ar.round, column, getattr(ar, column))
    v = sec.verification
    for column in VERIFICATION_COLUMNS:
        yield cell("verification", "knockouts", column, getattr(v, column))
    for basis, n in v.basis.items():
        yield cell("verification", "basis", basis, n)
    for status, n in sec.integrity.chain.items():
        yield cell("integrity", "chain", status, n)
    for status, n in sec.integrity.signature.items():
        yield cell("integrity", "signature", status, n)


def standings_cells(sec: Section, ev: Event) -> Iterator[Cell]:
    """The cells of one event's standings (in section ``sec``)."""
    lg, ss, event = sec.league, sec.season, ev.event
    for row in ev.standings:
        player = str(row.player)
        for column in STANDINGS_COLUMNS:
            yield (lg, ss, event, "standings", player, column, getattr(row, column))


#: The columns of a table's numbers, in the order the CSV and the page give them (each a field's name).
PLAYOFF_COLUMNS = ("games", "playoffs", "playoff_games", "second_tiebreaks", "rate")
AGREEMENT_COLUMNS = ("claims", "agree", "rate")
VERIFICATION_COLUMNS = ("knockouts", "verified", "from_claims", "rate")


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


def write_csv(report: Report, out: IO[bytes]) -> None:
    """The report's cells as CSV (a header, then one line per number; empty for a missing value), written
    to ``out`` section by section as the report is made. Every text cell is neutralised
    (:func:`neutral_cell`) and quoted (RFC 4180: quotes doubled; a line break or carriage return inside a
    name stays inside its cell), numbers are not: OWASP's rule for CSV."""
    writer = Writer(out)
    rows = csv.writer(_Lines(writer), lineterminator="\n", quoting=csv.QUOTE_NONNUMERIC)

    def row(c: Cell) -> list[Any]:
        return [neutral_cell(v) for v in (*c[:6], "" if c[6] is None else c[6])]

    def events(w: Writer, sec: Section, evs: Iterator[Event]) -> None:
        spooled = csv.writer(_Lines(w), lineterminator="\n", quoting=csv.QUOTE_NONNUMERIC)
        for ev in evs:
            spooled.writerows(map(row, standings_cells(sec, ev)))

    rows.writerow(HEADER)
    rows.writerow(row(("", "", "", "report", "all", "games", report.games)))
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
