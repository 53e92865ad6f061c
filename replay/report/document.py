"""The report document, typed: msgspec Structs, as the end-of-game record is (:mod:`replay.records`).

:class:`replay.report.ReportBuilder` makes a :class:`Report`; the four forms read its attributes, none
indexes a dict by a known key. Each Struct's fields are the JSON's keys (``ReportFilters.date_from`` is
``from``): ``msgspec.json.encode(report, order="sorted")`` gives the report's JSON, keys sorted, the
bytes the form ``json`` writes (``tests/report/test_report_document.py`` keeps a stored example).

The long lists (a season's events, every record's integrity line, every finding) are iterables
(``Many``): while the report is made they are :class:`replay.report.lazy.Items`, made while they are
written, once; a settled report (:meth:`ReportBuilder.finish`) and a decoded one hold lists. The
Structs that hold such parts are :class:`Parts` (written field by field by
:func:`replay.report.lazy.write_json`); every other Struct is plain data (:class:`Doc`), encoded whole.
Dicts remain only where the keys are data: counts by status, by chain status, a match's wins by player.
A decoded document refuses a key it does not name (``forbid_unknown_fields``).

``omit_defaults`` is never set: a field is written even when it is None, as the report always wrote it;
the one field the JSON leaves out when it has no value (a pending game's ``winner`` and ``reason``) is
``msgspec.UNSET`` there.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import msgspec

if TYPE_CHECKING:
    from collections.abc import Iterable as Many  # to a reader: read once (an Items while made)
else:
    Many = list  # to msgspec: a settled report's list, each item decoded and checked as its type

__all__ = [
    "Agreement",
    "ByeWithGames",
    "CodeCount",
    "CutPlace",
    "DeckCheckLine",
    "Disagreement",
    "DivisionCheck",
    "DivisionStandings",
    "Doc",
    "Event",
    "FindingItem",
    "Findings",
    "GameLine",
    "Integrity",
    "IntegrityLine",
    "Match",
    "MatchCount",
    "MatchSummary",
    "Missing",
    "NotInTdf",
    "OutcomeCount",
    "Parts",
    "PlayerMatch",
    "PlayerMatches",
    "PlayoffRate",
    "Ranked",
    "Reconciliation",
    "Report",
    "ReportFilters",
    "ReviewItem",
    "RoundAgreement",
    "RoundCodeCount",
    "RoundSeverityCount",
    "Section",
    "SeverityCounts",
    "SourceAgreement",
    "Standing",
    "StandingDifference",
    "TdfLine",
    "TopCutCheck",
    "Verification",
]


class Doc(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    """Plain data of the report: encoded whole."""


class Parts(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    """A part of the report some of whose fields may still be made while it is written (an iterable
    :class:`replay.report.lazy.Items`, another :class:`Parts`): written field by field, in sorted order."""


# ------------------------------------------------------------------------------------------ counts
class OutcomeCount(Doc):
    outcome: str
    reason: str
    games: int


class MatchCount(Doc):
    result: str
    decided_by: str
    matches: int


class MatchSummary(Doc):
    """The section's matches by result. Filled in as the section's events are made (``events`` sorts
    before ``matches``: written or settled, the events come first)."""

    total: int = 0
    by_result: list[MatchCount] = msgspec.field(default_factory=list)


class PlayoffRate(Doc):
    ruleset: str
    games: int
    playoffs: int
    playoff_games: int
    second_tiebreaks: int
    rate: float | None


class CodeCount(Doc):
    code: str
    severity: str
    count: int


class RoundCodeCount(Doc):
    round: str
    code: str
    count: int


class RoundSeverityCount(Doc):
    round: str
    code: str
    severity: str
    count: int


class FindingItem(Doc):
    """One finding's public part (its message, never the judges' detail), with its review link."""

    match: str
    seq: int
    code: str
    severity: str
    message: str
    round: str
    link: str


class Findings(Parts):
    by_code: list[CodeCount]
    by_round: list[RoundCodeCount]
    by_round_severity: list[RoundSeverityCount]
    items: Many[FindingItem]


class SourceAgreement(Doc):
    kind: str
    claims: int
    agree: int
    rate: float | None


class RoundAgreement(Doc):
    round: str
    claims: int
    agree: int
    rate: float | None


class Agreement(Doc):
    by_source: list[SourceAgreement]
    by_round: list[RoundAgreement]


class Verification(Doc):
    knockouts: int
    verified: int
    from_claims: int
    rate: float | None
    basis: dict[str, int]


class IntegrityLine(Doc):
    match: str
    chain: str
    events: int
    head: str
    signature: str


class Integrity(Parts):
    chain: dict[str, int]
    signature: dict[str, int]
    records: Many[IntegrityLine]


class DeckCheckLine(Doc):
    """A deck-check finding (``replay.sources.deckcheck.DeckCheck``), judges only, with its link."""

    match: str
    seq: int
    player: str
    card: str
    code: str
    message: str
    listed: int
    seen: int
    round: str
    link: str


class SeverityCounts(Doc):
    violation: int
    warning: int
    info: int


class ReviewItem(Doc):
    match: str
    why: list[str]
    findings: SeverityCounts
    link: str


# ------------------------------------------------------------------------------------------ events
class GameLine(Doc):
    """A game of a match; ``winner`` and ``reason`` are left out while it has no result."""

    match: str
    game: int
    result: str | None
    winner: str | msgspec.UnsetType | None = msgspec.UNSET
    reason: str | msgspec.UnsetType | None = msgspec.UNSET


class Match(Doc):
    """A best-of-three match (:func:`replay.series.match_result`), where it was played."""

    players: list[str]
    stage: str
    games: list[GameLine]
    wins: dict[str, int]
    ties: int
    status: str
    winner: str | None
    result: dict[str, str] | None
    decided_by: str | None
    points: dict[str, int] | None
    round: str
    series: str
    table: str | None


class Standing(Doc):
    """A player's row of the Swiss standings (:func:`replay.series.swiss_standings`)."""

    rank: int
    player: str
    points: int
    win: int
    loss: int
    tie: int
    bye: int
    played: int
    dropped: int | None
    win_pct: float
    owp: float
    oowp: float
    division: str | None
    top_cut: int | None


class CutPlace(Doc):
    place: int | None
    player: str
    eliminated_in: int | None
    division: str | None


class Ranked(Doc):
    player: str
    rank: int | None


class TopCutCheck(Doc):
    """The top cut against the standings (:func:`replay.report.build.check_top_cut`)."""

    players: int
    round: int
    differs: bool
    left_out: list[Ranked]
    let_in: list[Ranked]
    pairings: list[list[int | None]]
    why: list[str]


class DivisionCheck(Doc):
    division: str | None
    players: int
    top_cut_check: TopCutCheck | None


class PlayerMatch(Doc):
    round: str
    series: str | None
    stage: str
    opponent: str | None
    result: str
    games: str


class PlayerMatches(Doc):
    player: str
    matches: list[PlayerMatch]


class Event(Doc):
    event: str
    rounds: list[str]
    byes_from: str
    matches: list[Match]
    standings: list[Standing]
    top_cut: list[CutPlace]
    top_cut_check: TopCutCheck | None
    divisions: list[DivisionCheck]
    players: list[PlayerMatches]
    single_elimination: bool


# ------------------------------------------------------------------------------------------ sections
class Section(Parts):
    """A league and season's part of the report."""

    league: str
    season: str
    games: int
    status: dict[str, int]
    outcomes: list[OutcomeCount]
    matches: MatchSummary
    playoffs: list[PlayoffRate]
    findings: Findings
    agreement: Agreement
    verification: Verification
    integrity: Integrity
    events: Many[Event]
    deck_checks: list[DeckCheckLine]
    review: list[ReviewItem]


# ------------------------------------------------------------------------------------------ reconciliation
class TdfLine(Doc):
    """A match of the TDF (its file's ``line``), for the reconciliation's lists."""

    round: int
    table: int | None
    line: int
    players: list[str]
    divisions: list[str]


class Missing(TdfLine):
    tdf: str


class Disagreement(Missing):
    records: str
    series: str
    links: list[str]


class ByeWithGames(TdfLine):
    series: list[str]


class NotInTdf(Doc):
    round: str
    series: str
    players: list[str]


class StandingDifference(Doc):
    player: str
    tom: int
    prizecheck: int | None
    why: str


class DivisionStandings(Doc):
    division: str
    basis: str
    players: int
    differences: list[StandingDifference]


class Reconciliation(Doc):
    """The TDF against the game records (:func:`replay.report.reconcile.reconcile`)."""

    tdf: str
    event: str | None
    reported: int
    agree: int
    disagree: list[Disagreement]
    missing: list[Missing]
    unrecorded_byes: list[ByeWithGames]
    not_in_tdf: list[NotInTdf]
    unknown_players: list[str]
    standings: list[DivisionStandings]


# ------------------------------------------------------------------------------------------ the report
class ReportFilters(Doc):
    """The filters the report was made with (``from`` and ``to``: ISO dates)."""

    league: str | None
    season: str | None
    event: str | None
    round: str | None
    date_from: str | None = msgspec.field(name="from")
    date_to: str | None = msgspec.field(name="to")


class Report(Parts):
    """The audit report (docs/reports.md)."""

    engine: str
    base_url: str
    filters: ReportFilters
    games: int
    sections: Many[Section]
    reconciliation: Reconciliation | None
