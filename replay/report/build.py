"""The audit report: records in, one at a time; a report (plain data) out.

:class:`ReportBuilder` never holds the records themselves: each one is folded into counters and a few
small summaries (one :class:`replay.series.GameResult` per game of a match, one line per finding and per
record's integrity), so a season of 100,000 records reports in bounded memory whether the records come
from event files, record files or the service's store. Where they come from is the caller's business
(``prizecheck report``); the report is the same for the same records, in any order.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date
from functools import cached_property
from itertools import groupby
from sys import intern
from typing import IO, Any

from replay.engine import ENGINE_VERSION, Finding, Record, Verifier
from replay.records import signature_valid
from replay.report import sentences
from replay.report.document import (
    Agreement,
    CodeCount,
    CutPlace,
    DeckCheckLine,
    DivisionCheck,
    Event,
    FindingItem,
    Findings,
    GameLine,
    Integrity,
    IntegrityLine,
    Match,
    MatchCount,
    MatchSummary,
    OutcomeCount,
    PlayerMatch,
    PlayerMatches,
    PlayoffRate,
    Ranked,
    Report,
    ReportFilters,
    ReviewItem,
    RoundAgreement,
    RoundCodeCount,
    RoundSeverityCount,
    Section,
    SeverityCounts,
    SourceAgreement,
    Standing,
    TopCutCheck,
    Verification,
)
from replay.report.lazy import Items, settle, write_json
from replay.report.links import review_link
from replay.report.reconcile import reconcile
from replay.report.tdf import PlayerIndex, Tournament
from replay.series import (
    DOUBLE_LOSS,
    SINGLE_ELIMINATION,
    GameResult,
    Pairing,
    infer_byes_and_drops,
    match_result,
    rank_by_division,
    swiss_standings,
    top_cut,
)

SEVERITIES = ("violation", "warning", "info")
UNDECIDED = "undecided"
NONE = "-"
_HEX64 = re.compile(r"^[0-9a-f]{64}$")
_TB = re.compile(r"/tb(\d+)$")


@dataclass(frozen=True)
class Filters:
    """Which records a report covers: context fields (compared as text) and the game's start date."""

    league: str | None = None
    season: str | None = None
    event: str | None = None
    round: str | None = None
    date_from: date | None = None
    date_to: date | None = None

    def accepts(self, record: Record) -> bool:
        """True when ``record`` is in scope."""
        wanted = self._wanted
        if wanted:
            ctx = record.context or {}
            for name, want in wanted:
                if str(ctx.get(name, "")) != want:
                    return False
        if self.date_from is not None or self.date_to is not None:
            day = _day(record.started_at or None)
            if day is None:
                return False
            if self.date_from is not None and day < self.date_from:
                return False
            if self.date_to is not None and day > self.date_to:
                return False
        return True

    @cached_property
    def _wanted(self) -> tuple[tuple[str, str], ...]:
        # the context fields asked for, worked out once: accepts runs for every record of a season
        return tuple(
            (name, want)
            for name in ("league", "season", "event", "round")
            if (want := getattr(self, name)) is not None
        )

    def as_json(self) -> dict[str, Any]:
        return {
            "league": self.league,
            "season": self.season,
            "event": self.event,
            "round": self.round,
            "from": self.date_from.isoformat() if self.date_from else None,
            "to": self.date_to.isoformat() if self.date_to else None,
        }


def _day(at: Any) -> date | None:
    try:
        return date.fromisoformat(str(at)[:10])
    except ValueError:
        return None


def round_sort_key(label: str) -> tuple[int, int, str]:
    """Rounds in play order: numbers first (numerically), then other labels, ``-`` (no round) last."""
    if label == NONE:
        return (2, 0, label)
    return (0, int(label), label) if label.isdigit() else (1, 0, label)


def _round_no(label: str) -> int:
    return int(label) if label.isdigit() else 0


def _rate(part: int, whole: int) -> float | None:
    return round(part / whole, 4) if whole else None


@dataclass
class _Ruleset:
    games: int = 0
    playoffs: int = 0
    playoff_games: int = 0
    second_tiebreaks: int = 0


@dataclass
class _Event:
    games: dict[tuple[str, str], list[GameResult]] = field(default_factory=lambda: defaultdict(list))
    tables: dict[tuple[str, str], str] = field(default_factory=dict)


@dataclass
class _Section:
    games: int = 0
    status: Counter[str] = field(default_factory=Counter)
    outcomes: Counter[tuple[str, str]] = field(default_factory=Counter)
    rulesets: dict[str, _Ruleset] = field(default_factory=lambda: defaultdict(_Ruleset))
    findings: Counter[tuple[str, str]] = field(default_factory=Counter)
    findings_by_round: Counter[tuple[str, str]] = field(default_factory=Counter)
    findings_by_round_severity: Counter[tuple[str, str, str]] = field(default_factory=Counter)
    finding_items: list[tuple[str, int, str, str, str, str]] = field(default_factory=list)
    claims: Counter[str] = field(default_factory=Counter)
    agree: Counter[str] = field(default_factory=Counter)
    claims_by_round: Counter[str] = field(default_factory=Counter)
    agree_by_round: Counter[str] = field(default_factory=Counter)
    knockouts: int = 0
    verified: int = 0
    basis: Counter[str] = field(default_factory=Counter)
    chain: Counter[str] = field(default_factory=Counter)
    signature: Counter[str] = field(default_factory=Counter)
    integrity: list[tuple[str, str, int, str | bytes, str]] = field(default_factory=list)
    review: list[tuple[str, tuple[str, ...], str | None, tuple[int, int, int]]] = field(default_factory=list)
    events: dict[str, _Event] = field(default_factory=lambda: defaultdict(_Event))
    deck_checks: list[DeckCheckLine] = field(default_factory=list)


class ReportBuilder:
    """Folds records into a report: ``add`` each record, then ``finish``.

    ``signing_key``: when given, every record's signature is checked (``valid``/``invalid``/``unsigned``);
    without it a signed record counts as ``not_checked``. ``base_url`` prefixes the review-page links.
    """

    def __init__(
        self,
        filters: Filters | None = None,
        *,
        base_url: str = "",
        signing_key: bytes | Verifier | None = None,
    ) -> None:
        self.filters = filters or Filters()
        self.base_url = base_url
        self.signing_key = signing_key
        self.games = 0
        # the playoff games added: a drawn playoff whose next one is here is not waiting any more
        self._playoff_games: set[str] = set()
        self._sections: dict[tuple[str, str], _Section] = defaultdict(_Section)

    def add_all(self, records: Iterable[Record]) -> ReportBuilder:
        """Add every record of ``records`` (those the filters accept)."""
        for rec in records:
            self.add(rec)
        return self

    def add(self, rec: Record) -> bool:
        """Fold one record in (its typed value, :mod:`replay.records`); False when the filters leave it out
        (or it is a playoff stub)."""
        # This runs once per record of a season (a million for bench/report.py --parquet): the common case
        # (no findings, nothing to review) takes no step it does not need. Names kept per record (the
        # round, the series) are interned; counter keys need not be (a Counter keeps one copy of each).
        if rec.stub is True or not self.filters.accepts(rec):
            return False
        ctx = rec.context or {}
        sec = self._sections[(str(ctx.get("league", NONE)), str(ctx.get("season", NONE)))]
        self.games += 1
        sec.games += 1
        match = str(rec.match)
        parent = rec.parent
        if parent is not None:
            self._playoff_games.add(match)
        status = rec.status or "in_progress"
        sec.status[status] += 1
        res = rec.result
        if res is None:
            sec.outcomes[(UNDECIDED, NONE)] += 1
        else:
            sec.outcomes[(res.outcome or UNDECIDED, res.reason or NONE)] += 1
        rnd = intern(str(ctx["round"])) if ctx.get("round") is not None else NONE
        rs = sec.rulesets[rec.ruleset or NONE]  # the playoffs (inline: a call per record saved)
        if parent is None:
            rs.games += 1
            rs.playoffs += rec.playoff is not None
        else:
            rs.playoff_games += 1
            tb = _TB.search(match)
            if tb is not None and int(tb.group(1)) >= 2:
                rs.second_tiebreaks += 1
        findings = rec.findings
        if findings:
            self._findings(sec, findings, match, rnd)
        agrees = rec.agrees
        if agrees is not None:
            kind = str((rec.source or {}).get("kind") or "unknown")
            sec.claims[kind] += 1
            sec.claims_by_round[rnd] += 1
            if agrees:
                sec.agree[kind] += 1
                sec.agree_by_round[rnd] += 1
        knockouts = rec.knockouts
        if knockouts:
            sec.knockouts += len(knockouts)
            sec.verified += len([ko for ko in knockouts if ko.verified])
        audit = rec.audit
        sec.basis[(audit.basis or NONE) if audit else NONE] += 1
        self._integrity(sec, rec, match)
        if findings or agrees is False or status == "awaiting_playoff":
            self._review(sec, rec, match, status)
        series = ctx.get("series")
        if series is not None and parent is None:  # a game of a match (series_key)
            event = sec.events[str(ctx.get("event", "")) or NONE]
            where = (rnd, intern(str(series)))
            event.games[where].append(GameResult.of(rec))
            if ctx.get("table") is not None:
                event.tables[where] = intern(str(ctx["table"]))
        return True

    def _findings(self, sec: _Section, findings: list[Finding], match: str, rnd: str) -> None:
        # The report is for organizers: each finding's public part (its message, never the judges' detail;
        # replay.engine.public.public_finding keeps the same four fields).
        for f in findings:
            code = intern(f.code)
            severity = intern(f.severity)
            sec.findings[(code, severity)] += 1
            sec.findings_by_round[(rnd, code)] += 1
            sec.findings_by_round_severity[(rnd, code, severity)] += 1
            sec.finding_items.append((match, f.seq or 0, code, severity, f.message, rnd))

    def _integrity(self, sec: _Section, rec: Record, match: str) -> None:
        chain = rec.chain
        if not chain:
            chain_status, events, head = "missing", 0, ""
        else:
            head = chain.head
            events = chain.events
            # the whole head (fullmatch: "$" alone lets a trailing newline through)
            ok = chain.alg == "sha256" and _HEX64.fullmatch(head) and events > 0
            chain_status = "ok" if ok else "malformed"
        if rec.signature is None:
            sig_status = "unsigned"
        elif self.signing_key is None:
            sig_status = "not_checked"
        else:
            sig_status = "valid" if signature_valid(rec, self.signing_key) else "invalid"
        sec.chain[chain_status] += 1
        sec.signature[sig_status] += 1
        # a sound head kept as its 32 bytes (65 bytes of memory instead of 113, in the same order: lowercase
        # hex sorts as its bytes; lines of one status hold heads of one type); a line is kept per record of
        # the season until it is written
        kept: str | bytes = bytes.fromhex(head) if chain_status == "ok" else head
        sec.integrity.append((match, chain_status, events, kept, sig_status))

    def _review(self, sec: _Section, rec: Record, match: str, status: str) -> None:
        why = []
        findings = rec.findings
        violations = [f.code for f in findings if f.severity == "violation"]
        if violations:
            why.append(
                sentences.VIOLATIONS.format(n=len(violations), codes=", ".join(sorted(set(violations))))
            )
        if rec.agrees is False:
            why.append(sentences.DISAGREES)
        child = None
        if status == "awaiting_playoff":
            child = str(rec.playoff.child if rec.playoff is not None else None)
        if why or child:
            counts = tuple(sum(1 for f in findings if f.severity == s) for s in SEVERITIES)
            sec.review.append((match, tuple(why), child, (counts[0], counts[1], counts[2])))

    def add_deck_checks(self, rec: Record, checks: Iterable[Mapping[str, Any]]) -> None:
        """The deck-check findings of ``rec``'s game (``replay.sources.deckcheck``: ``seq``, ``player``,
        ``card``, ``code``, ``message``), judges' information: listed with a link to the review page at
        their event, and the game counted among the games to review (docs/decks.md)."""
        found = list(checks)
        if not found or rec.stub is True or not self.filters.accepts(rec):
            return
        ctx = rec.context or {}
        sec = self._sections[(str(ctx.get("league", NONE)), str(ctx.get("season", NONE)))]
        match = str(rec.match)
        rnd = str(ctx.get("round", NONE))
        for f in found:
            sec.deck_checks.append(
                DeckCheckLine(
                    match=match,
                    seq=int(f["seq"]),
                    player=str(f["player"]),
                    card=str(f["card"]),
                    code=str(f["code"]),
                    message=str(f["message"]),
                    listed=int(f["listed"]),
                    seen=int(f["seen"]),
                    round=rnd,
                    link=review_link(self.base_url, match, f["seq"]),
                )
            )
        why = sentences.DECK_CHECK.format(
            n=len(found), cards=", ".join(sorted({f"{f['player']}: {f['card']}" for f in found}))
        )
        for i, (m, reasons, child, counts) in enumerate(sec.review):
            if m == match:  # already to review for its findings: one more reason
                sec.review[i] = (m, (*reasons, why), child, counts)
                return
        sec.review.append((match, (why,), None, (0, 0, 0)))

    # ------------------------------------------------------------------------------------------ finish
    def finish(self, tdf: Tournament | None = None) -> Report:
        """The report, settled (every list made). ``tdf``: the tournament software's file, whose byes and
        drops the standings then use, and against which the matches are reconciled."""
        return settle(self.parts(tdf))

    def write_json(self, out: IO[bytes], tdf: Tournament | None = None) -> None:
        """The report as JSON, written as it is made: one event's part and one chunk of integrity lines at
        a time, never the whole report in memory. The other forms: ``replay.report.write(builder.parts(),
        fmt, out)`` (the builder does not import its renderers: they import it)."""
        write_json(self.parts(tdf), out)

    def parts(self, tdf: Tournament | None = None) -> Report:
        """The report as it is made (:mod:`replay.report.lazy`): :meth:`finish` settles it, :meth:`write_json`
        writes it. Once: the builder's summaries are dropped as the report is made."""
        # Each section's summaries are dropped as soon as its part of the report is made: the builder and
        # the report are never both whole in memory.
        # The TDF's byes and drops go to its own event: the one the records name as the TDF does, else the
        # only event there is (the reconciliation compares the same matches).
        names = {(lg, ss, ev) for (lg, ss), sec in self._sections.items() for ev in sec.events}
        mine = {key for key in names if tdf is not None and key[2] == tdf.name}
        if tdf is not None and not mine and len(names) == 1:
            mine = names

        heads = sorted(self._sections)

        def sections() -> Iterator[Section]:
            for league, season in sorted(self._sections):
                sec = self._sections.pop((league, season))
                tdf_events = {ev for lg, ss, ev in mine if (lg, ss) == (league, season)}
                yield self._section(league, season, sec, tdf, tdf_events)

        f = self.filters
        report = Report(
            engine=f"prizecheck {ENGINE_VERSION}",
            base_url=self.base_url,
            filters=ReportFilters(
                league=f.league,
                season=f.season,
                event=f.event,
                round=f.round,
                date_from=f.date_from.isoformat() if f.date_from else None,
                date_to=f.date_to.isoformat() if f.date_to else None,
            ),
            games=self.games,
            sections=Items(sections(), chunk=1, heads=heads),
            reconciliation=None,
        )
        if tdf is not None:  # the reconciliation reads every section: a tournament's, made whole
            done = [settle(sec) for sec in report.sections]
            report.sections = done
            report.reconciliation = reconcile(tdf, done, self.filters.round, self.base_url)
        return report

    def _review_items(self, sec: _Section) -> list[ReviewItem]:
        """The games to review, violations first (then warnings, info notes, the match id)."""
        out: list[ReviewItem] = []
        for match, why, child, counts in sec.review:
            reasons = list(why)
            if child is not None and child not in self._playoff_games:
                reasons.append(sentences.AWAITING_PLAYOFF.format(child=child))
            if reasons:
                severities = SeverityCounts(violation=counts[0], warning=counts[1], info=counts[2])
                link = review_link(self.base_url, match)
                out.append(ReviewItem(match=match, why=reasons, findings=severities, link=link))
        out.sort(key=lambda r: (-r.findings.violation, -r.findings.warning, -r.findings.info, r.match))
        return out

    def _section(
        self, league: str, season: str, sec: _Section, tdf: Tournament | None, tdf_events: set[str]
    ) -> Section:
        link = self.base_url
        rounds = sorted({r for r, _ in sec.findings_by_round} | set(sec.claims_by_round), key=round_sort_key)
        summary = MatchSummary()

        def events() -> Iterator[Event]:
            # each event's part made, counted into the matches' summary, and its games dropped; the summary
            # is whole once the last is made ("events" sorts before "matches": written or settled, first)
            results: Counter[tuple[str, str]] = Counter()
            for name in sorted(sec.events):
                ev = _event(name, sec.events.pop(name), tdf if name in tdf_events else None)
                for m in ev.matches:
                    results[(m.status if m.result is None else _match_outcome(m), m.decided_by or NONE)] += 1
                yield ev
            summary.total = sum(results.values())
            summary.by_result = [
                MatchCount(result=res, decided_by=by, matches=n) for (res, by), n in sorted(results.items())
            ]

        def integrity() -> Iterator[IntegrityLine]:
            sec.integrity.sort()
            for m, c, n, h, s in sec.integrity:
                head = h.hex() if isinstance(h, bytes) else h
                yield IntegrityLine(match=m, chain=c, events=n, head=head, signature=s)
            sec.integrity.clear()

        return Section(
            league=league,
            season=season,
            games=sec.games,
            status=dict(sorted(sec.status.items())),
            outcomes=[
                OutcomeCount(outcome=o, reason=r, games=n) for (o, r), n in sorted(sec.outcomes.items())
            ],
            matches=summary,
            playoffs=[
                PlayoffRate(
                    ruleset=name,
                    games=rs.games,
                    playoffs=rs.playoffs,
                    playoff_games=rs.playoff_games,
                    second_tiebreaks=rs.second_tiebreaks,
                    rate=_rate(rs.playoffs, rs.games),
                )
                for name, rs in sorted(sec.rulesets.items())
            ],
            findings=Findings(
                by_code=[
                    CodeCount(code=c, severity=s, count=n)
                    for (c, s), n in sorted(
                        sec.findings.items(), key=lambda kv: (_sev(kv[0][1]), -kv[1], kv[0][0])
                    )
                ],
                by_round=[
                    RoundCodeCount(round=r, code=c, count=n)
                    for (r, c), n in sorted(
                        sec.findings_by_round.items(), key=lambda kv: (round_sort_key(kv[0][0]), kv[0][1])
                    )
                ],
                # the same, each severity apart (the heatmap's rows: violations, warnings, info)
                by_round_severity=[
                    RoundSeverityCount(round=r, code=c, severity=sev, count=n)
                    for (r, c, sev), n in sorted(
                        sec.findings_by_round_severity.items(),
                        key=lambda kv: (_sev(kv[0][2]), round_sort_key(kv[0][0]), kv[0][1]),
                    )
                ],
                items=Items(
                    FindingItem(
                        match=m,
                        seq=seq,
                        code=code,
                        severity=sev,
                        message=msg,
                        round=rnd,
                        link=review_link(link, m, seq),
                    )
                    for m, seq, code, sev, msg, rnd in sorted(
                        sec.finding_items, key=lambda f: (f[0], f[1], f[2])
                    )
                ),
            ),
            agreement=Agreement(
                by_source=[
                    SourceAgreement(kind=k, claims=n, agree=sec.agree[k], rate=_rate(sec.agree[k], n))
                    for k, n in sorted(sec.claims.items())
                ],
                by_round=[
                    RoundAgreement(
                        round=r,
                        claims=sec.claims_by_round[r],
                        agree=sec.agree_by_round[r],
                        rate=_rate(sec.agree_by_round[r], sec.claims_by_round[r]),
                    )
                    for r in rounds
                    if sec.claims_by_round[r]
                ],
            ),
            verification=Verification(
                knockouts=sec.knockouts,
                verified=sec.verified,
                from_claims=sec.knockouts - sec.verified,
                rate=_rate(sec.verified, sec.knockouts),
                basis=dict(sorted(sec.basis.items())),
            ),
            integrity=Integrity(
                chain=dict(sorted(sec.chain.items())),
                signature=dict(sorted(sec.signature.items())),
                records=Items(integrity()),
            ),
            events=Items(events(), chunk=1),
            # judges only: what players put into play against their deck lists (docs/decks.md)
            deck_checks=sorted(sec.deck_checks, key=lambda f: (f.match, f.seq, f.card)),
            review=self._review_items(sec),
        )


def _sev(severity: str) -> int:
    return SEVERITIES.index(severity) if severity in SEVERITIES else len(SEVERITIES)


def _match_outcome(m: Match) -> str:
    if m.winner is not None:
        return "win"
    return DOUBLE_LOSS if m.decided_by == DOUBLE_LOSS else "tie"  # 両者敗北: no tie (replay/series.py)


def _match(games: list[GameResult], rnd: str, series: str, table: str | None) -> Match:
    """A match of the report: :func:`replay.series.match_result` of its games, where it was played."""
    m = match_result(games)
    return Match(
        players=m["players"],
        stage=m["stage"],
        games=[GameLine(**g) for g in m["games"]],
        wins=m["wins"],
        ties=m["ties"],
        status=m["status"],
        winner=m["winner"],
        result=m["result"],
        decided_by=m["decided_by"],
        points=m["points"],
        round=rnd,
        series=series,
        table=table,
    )


def _standing(row: Mapping[str, Any], top_cut: int | None) -> Standing:
    """A row of :func:`replay.series.swiss_standings` ranked by division, with its place in the cut."""
    return Standing(top_cut=top_cut, **row)


def _event(name: str, ev: _Event, tdf: Tournament | None) -> Event:
    matches = [
        _match(games, rnd, series, ev.tables.get((rnd, series)))
        for (rnd, series), games in sorted(
            ev.games.items(), key=lambda kv: (round_sort_key(kv[0][0]), kv[0][1])
        )
    ]
    pairings = [Pairing(_round_no(m.round), (m.players[0], m.players[1]), m.result, m.stage) for m in matches]
    byes_from = "games"
    byes, dropped = infer_byes_and_drops(pairings)
    division: dict[str, str] = {}
    if tdf is not None:
        byes, dropped, division = _from_tdf(tdf, {p for m in matches for p in m.players})
        byes_from = "tdf"
    # Tiebreakers over the whole pod (an opponent from another age division counts as any other), then
    # ranked, cut and checked within each division, as TOM ranks them [docs/reports.md, "Age divisions"].
    table: list[Standing] = []
    cut: list[CutPlace] = []
    divisions: list[DivisionCheck] = []
    ranked = rank_by_division(swiss_standings(pairings, byes, dropped), division)
    for div, in_div in groupby(ranked, key=lambda row: row["division"]):
        rows = list(in_div)
        mine = {row["player"] for row in rows}
        own = [p for p in pairings if set(p.players) <= mine]
        div_cut = top_cut(own, [row["player"] for row in rows])
        place = {row["player"]: row["place"] for row in div_cut}
        group = [_standing(row, place.get(row["player"])) for row in rows]
        table += group
        cut += (CutPlace(division=div, **row) for row in div_cut)
        divisions.append(
            DivisionCheck(division=div, players=len(group), top_cut_check=check_top_cut(group, own))
        )
    players: dict[str, list[PlayerMatch]] = defaultdict(list)
    for m in matches:
        a, b = m.players
        for me, them in ((a, b), (b, a)):
            games = f"{m.wins[me]}-{m.wins[them]}" + (f"-{m.ties}" if m.ties else "")
            result = (m.result or {}).get(me) or m.status
            players[me].append(
                PlayerMatch(
                    round=m.round, series=m.series, stage=m.stage, opponent=them, result=result, games=games
                )
            )
    for name_, rounds in byes.items():
        for r in sorted(rounds):
            players[name_].append(
                PlayerMatch(round=str(r), series=None, stage="swiss", opponent=None, result="bye", games="")
            )
    for rows_ in players.values():
        rows_.sort(key=lambda row: round_sort_key(row.round))
    return Event(
        event=name,
        rounds=sorted({m.round for m in matches}, key=round_sort_key),
        byes_from=byes_from,
        matches=matches,
        standings=table,
        top_cut=cut,
        # one division (or none known): its check; several: each division's in "divisions"
        top_cut_check=divisions[0].top_cut_check if len(divisions) == 1 else None,
        divisions=divisions if division else [],
        players=[PlayerMatches(player=p, matches=players[p]) for p in sorted(players)],
        single_elimination=any(m.stage == SINGLE_ELIMINATION for m in matches),
    )


def check_top_cut(table: Sequence[Standing], pairings: list[Pairing]) -> TopCutCheck | None:
    """The top cut the tournament software made against these standings: it should seat the first K
    players who did not drop, paired 1 v K, 2 v K-1... in its first round. None without a top cut.

    ``differs`` says whether it did not; ``left_out`` are players of the derived top K who did not play
    in the cut, ``let_in`` players who did though they are not in it (each with their Swiss rank), and
    ``pairings`` the first-round pairings that are not the seeding's (each as the pair of ranks), and
    ``why`` each of these as a sentence.
    """
    elim = [p for p in pairings if p.stage == SINGLE_ELIMINATION]
    if not elim:
        return None
    first = min(p.round for p in elim)
    opening = [p for p in elim if p.round == first]
    seated = {name for p in opening for name in p.players}
    rank = {row.player: row.rank for row in table}
    expected = [row.player for row in table if row.dropped is None][: len(seated)]
    seed = {name: i + 1 for i, name in enumerate(expected)}
    k = len(expected)

    def seeded(a: str, b: str) -> bool:
        return a in seed and b in seed and seed[a] + seed[b] == k + 1

    unusual = [
        sorted((rank.get(a), rank.get(b)), key=lambda r: (r is None, r or 0))
        for a, b in (p.players for p in opening)
        if not seeded(a, b)
    ]
    left_out = [Ranked(player=n, rank=rank[n]) for n in expected if n not in seated]
    let_in = sorted(
        (Ranked(player=n, rank=rank.get(n)) for n in seated if n not in seed),
        key=lambda r: (r.rank is None, r.rank or 0, r.player),
    )
    why = [sentences.LET_IN.format(player=r.player, rank=r.rank) for r in let_in]
    why += [sentences.LEFT_OUT.format(player=r.player, rank=r.rank) for r in left_out]
    why += [sentences.UNUSUAL_PAIRING.format(a=a, b=b) for a, b in unusual]
    return TopCutCheck(
        players=len(seated),
        round=first,
        differs=bool(why),
        left_out=left_out,
        let_in=let_in,
        pairings=unusual,
        why=why,
    )


def _from_tdf(
    tdf: Tournament, players: set[str]
) -> tuple[dict[str, set[int]], dict[str, int], dict[str, str]]:
    """The TDF's byes, drops and age divisions, named as the game records name the players."""
    index = PlayerIndex(tdf.players.values())
    by_uid = {uid: p for p in players if (uid := index.userid(p)) is not None}

    def name(uid: str) -> str:
        if uid in by_uid:
            return by_uid[uid]
        player = tdf.players.get(uid)
        return player.name if player is not None else uid

    byes = {name(uid): rounds for uid, rounds in tdf.byes().items()}
    dropped = {name(uid): rnd for uid, rnd in tdf.dropped().items()}
    divisions = {name(uid): div for uid, div in tdf.divisions().items()}
    return byes, dropped, divisions
