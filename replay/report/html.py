"""The report as one self-contained HTML page: a Jinja2 template (``replay/report/templates/report.html``,
its parts in ``report_parts.html``) with inline CSS, inline SVG charts and a few lines of inline script
(sorting the tables). No CDN, no fonts, no network: the file works offline and can be mailed.

The page is in the reader's language (``prizecheck report --lang``: English, Japanese or Korean), every
word from :mod:`replay.i18n`'s catalogues, by an environment set up as the service's pages' is
(:func:`replay.i18n.template_environment`: autoescaped, so a name from the records is text wherever it
lands). It is written as it is made (Jinja2's ``generate()``), a section at a time: a section's events,
written before its head (its ``matches`` summary counts them), are rendered one at a time into a spool
(:mod:`replay.report.stream`) that the page copies in, a block at a time, in its place.

Every number shown in a table carries its cell name (:mod:`replay.report.tables`) in ``data-cell`` and its
exact value in ``data-value``; the charts carry theirs in ``data-value`` (:mod:`replay.report.svg`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from functools import cache
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, NamedTuple, cast

import msgspec

from replay import i18n
from replay.i18n import findings, words
from replay.i18n.deckcheck import message as deck_check
from replay.i18n.sentences import shown
from replay.report import sentences, svg
from replay.report.build import round_sort_key
from replay.report.document import (
    CodeCount,
    Event,
    FindingItem,
    Findings,
    Integrity,
    IntegrityLine,
    Reconciliation,
    Report,
    RoundCodeCount,
    Section,
    SeverityCounts,
    StandingDifference,
)
from replay.report.lazy import Items
from replay.report.links import review_link
from replay.report.names import CardName, with_card_name
from replay.report.stream import Writer, counted, sections
from replay.report.tables import AGREEMENT_COLUMNS, PLAYOFF_COLUMNS, STANDINGS_COLUMNS, VERIFICATION_COLUMNS

if TYPE_CHECKING:  # Jinja2 is imported when a page is written, not when the other forms are
    import jinja2
    from markupsafe import Markup

TEMPLATES = Path(__file__).resolve().parent / "templates"
MAX_FINDINGS = 1000  # per section on the page; the JSON and CSV forms have them all
SEVERITIES = ("violation", "warning", "info")
MAX_RECORDS = 200  # integrity lines listed per section (those with a problem first)
# Events shown in full per section (standings, top cut, every player's matches): past them a person reads
# no more, and a season of a million records would make a page of half a gigabyte. The others are one
# line each, up to MAX_EVENT_LINES; the CSV form has every event's standings.
MAX_EVENTS = 50
MAX_EVENT_LINES = 2000
PERCENT_COLUMNS = {"rate", "win_pct", "owp", "oowp"}
OUTCOMES = ("win", "draw", "no_winner", "undecided")
NONE = "-"  # replay/report/build.py's name for a league or season the records do not give


def N_(message: str) -> str:
    """Marks ``message`` for the catalogues (tools/i18n.py extracts it); translated where shown."""
    return message


#: The standings' column headings (the other columns are named by their code).
STANDINGS_LABELS = {
    "division": N_("division"),
    "points": N_("pts"),
    "win": N_("win"),
    "loss": N_("loss"),
    "tie": N_("tie"),
    "bye": N_("bye"),
    "dropped": N_("dropped"),
    "win_pct": N_("win %"),
    "owp": N_("OWP"),
    "oowp": N_("OOWP"),
    "top_cut": N_("top cut"),
}


#: The tables by which a kind of code is shown in words (:mod:`replay.i18n.words`), as the templates name
#: the kind (``word("status", code)``): the code itself stays in the element's ``title``.
KINDS: dict[str, tuple[words.Table, ...]] = {
    "status": (words.STATUSES,),
    "outcome": (words.OUTCOMES,),
    "result": (words.OUTCOMES, words.STATUSES),  # a match's result, or its status while it has none
    "reason": (words.REASONS,),
    "decided_by": (words.DECIDED_BY,),
    "source": (words.SOURCE_KINDS,),
    "chain": (words.CHAIN_STATES,),
    "signature": (words.SIGNATURE_STATES,),
    "severity": (words.SEVERITIES,),
    "byes_from": (words.BYES_FROM,),
    "basis": (words.BASES,),
    "column": (words.COLUMNS,),
}


def _slug(*parts: str) -> str:
    return re.sub(r"[^A-Za-z0-9_-]+", "-", "-".join(parts)).strip("-") or "x"


def _raw(value: Any) -> str:
    """A number's exact value, as ``data-value`` holds it."""
    return "" if value is None else str(value)


def _shown(column: str, value: Any) -> str:
    if value is None:
        return "-"
    if column in PERCENT_COLUMNS and isinstance(value, int | float):
        return f"{value * 100:.2f} %"
    return str(value)


def _cell_name(key: tuple[str, str, str], table: str, row: Any, column: str) -> str:
    return "|".join((*key, table, str(row), column))


class _Matrix(NamedTuple):
    rows: list[str]
    columns: list[str]
    values: dict[tuple[str, str], Any]


def _outcome_rows(sec: Section) -> _Matrix:
    """Games by outcome (rows, the known outcomes first) and reason (columns)."""
    reasons = sorted({o.reason for o in sec.outcomes})
    outcomes = [o for o in OUTCOMES if any(x.outcome == o for x in sec.outcomes)]
    outcomes += sorted({x.outcome for x in sec.outcomes} - set(outcomes))
    return _Matrix(outcomes, reasons, {(o.outcome, o.reason): o.games for o in sec.outcomes})


def _table_of(items: Iterable[Any], row: str, column: str, value: str) -> dict[tuple[str, str], Any]:
    """A table's values from rows of the document: (``row``, ``column``) fields -> the ``value`` field."""
    return {(getattr(x, row), getattr(x, column)): getattr(x, value) for x in items}


def _columns_of(
    items: Iterable[Any], row: str | None, columns: Sequence[str], fixed: str = ""
) -> dict[tuple[str, str], Any]:
    """A table's values: one row per item (named by its ``row`` field, or ``fixed``), its ``columns``."""
    return {(fixed if row is None else getattr(x, row), c): getattr(x, c) for x in items for c in columns}


def _by_pairs(
    counts: Mapping[str, int], fixed: str, fixed_is_row: bool = False
) -> dict[tuple[str, str], int]:
    """A table's values from counts by name: each a row (``fixed`` the column), or a column of row
    ``fixed``."""
    return {((fixed, k) if fixed_is_row else (k, fixed)): n for k, n in counts.items()}


def _severities_in(by_code: Sequence[CodeCount]) -> list[str]:
    return [s for s in SEVERITIES if any(x.severity == s for x in by_code)]


def _rounds_of(by_round: Sequence[RoundCodeCount]) -> list[str]:
    return sorted({x.round for x in by_round}, key=round_sort_key)


def _severity_counts(sec: Section) -> dict[str, int]:
    return {sev: sum(f.count for f in sec.findings.by_code if f.severity == sev) for sev in SEVERITIES}


def _nonzero(counts: SeverityCounts) -> list[tuple[str, int]]:
    return [(sev, n) for sev in SEVERITIES if (n := getattr(counts, sev))]


def _first_findings(f: Findings) -> tuple[list[FindingItem], int]:
    return counted(f.items, MAX_FINDINGS)  # read once: a season's may be millions


def _first_records(integ: Integrity) -> tuple[list[IntegrityLine], int]:
    # those with a problem first, each kind in match order (the lines come in match order), read once
    return counted(integ.records, MAX_RECORDS, lambda r: not (r.chain == "ok" and r.signature != "invalid"))


def _series_games(ev: Event) -> dict[str | None, list[str]]:
    return {m.series: [g.match for g in m.games] for m in ev.matches}


def _differences(rec: Reconciliation) -> list[tuple[str, StandingDifference]]:
    return [(div.division, d) for div in rec.standings for d in div.differences]


def _heads(report: Report) -> list[tuple[str, str]]:
    """The league and season of each section, before the sections are made (the page's contents)."""
    secs = report.sections
    if isinstance(secs, Items) and secs.heads is not None:
        return secs.heads
    return [(sec.league, sec.season) for sec in cast(list[Section], secs)]


@cache
def environment(lang: str) -> jinja2.Environment:
    """The report page's templates in ``lang`` (one environment a language, made once)."""
    import jinja2

    env = i18n.template_environment(jinja2.FileSystemLoader(TEMPLATES), lang)

    def tr(message: str) -> str:
        return i18n.gettext(lang, message)

    def heading(league: str, season: str) -> str:
        """A section's name: ``League L1 · season 2026``; ``Games without a league · no season``."""
        lg = tr("Games without a league") if league == NONE else tr("League {league}").format(league=league)
        ss = tr("no season") if season == NONE else tr("season {season}").format(season=season)
        return f"{lg} · {ss}"

    def word(kind: str | None, code: Any) -> str:
        """``code`` (a value of the records) in words of the page, by the tables of ``kind``; as it is
        when ``kind`` is None or no table knows it."""
        return str(code) if kind is None else words.said(lang, str(code), *KINDS[kind])

    def said(kind: str | None, code: Any) -> Markup:
        """``code`` in words of the page; the code itself in the title of a span where they differ."""
        from markupsafe import Markup, escape

        shown = word(kind, code)
        return (
            escape(shown) if shown == str(code) else Markup('<span title="{}">{}</span>').format(code, shown)
        )

    def said_cell(tag: str, kind: str | None, code: Any, classes: str = "") -> Markup:
        """A table cell (``tag``: th or td) of ``code`` in words of the page; the code in its title where
        they differ (``<th title="deck_out">山札切れ</th>``)."""
        from markupsafe import Markup, escape

        shown = word(kind, code)
        attrs = Markup(' class="{}"').format(classes) if classes else Markup("")
        if shown != str(code):
            attrs += Markup(' title="{}"').format(code)
        return Markup("<{}{}>{}</{}>").format(Markup(tag), attrs, escape(shown), Markup(tag))

    def charts(sec: Section) -> list[tuple[str, str, Markup]]:
        return list(_charts(sec, tr, word))

    # The document's English sentences in the page's language (replay/report/sentences.py), read back
    # from the fields that wrote them: the JSON keeps them as written.
    def review_reason(text: str) -> str:
        return shown(lang, sentences.REVIEW, text)

    def result_said(text: str) -> str:
        return sentences.result_said(lang, text)

    def standing_why(text: str) -> str:
        return shown(lang, sentences.STANDINGS, text, sentences.STANDINGS_PIECES)

    def finding_message(code: str, text: str) -> str:
        return findings.message(lang, code, text)

    env.filters["review_reason"] = review_reason
    env.globals.update(
        slug=_slug,
        raw=_raw,
        shown=_shown,
        cell_name=_cell_name,
        review_link=review_link,
        series_games=_series_games,
        standings_columns=[(c, tr(STANDINGS_LABELS.get(c, c))) for c in STANDINGS_COLUMNS if c != "rank"],
        heading=heading,
        word=word,
        said=said,
        said_cell=said_cell,
        charts=charts,
        result_said=result_said,
        standing_why=standing_why,
        finding_message=finding_message,
        outcome_rows=_outcome_rows,
        table_of=_table_of,
        columns_of=_columns_of,
        by_pairs=_by_pairs,
        severities_in=_severities_in,
        rounds_of=_rounds_of,
        severity_counts=_severity_counts,
        nonzero=_nonzero,
        first_findings=_first_findings,
        first_records=_first_records,
        differences=_differences,
        playoff_columns=PLAYOFF_COLUMNS,
        agreement_columns=AGREEMENT_COLUMNS,
        verification_columns=VERIFICATION_COLUMNS,
        max_findings=MAX_FINDINGS,
        max_records=MAX_RECORDS,
    )
    return env


def _charts(
    sec: Section, tr: Callable[[str], str], word: Callable[[str, str], str]
) -> Iterator[tuple[str, str, Markup]]:
    """The section's charts: (name, caption, the chart as SVG); the records' codes in ``word``s."""
    # most games first; a tie by name (a set's order changes from one process to the next)
    reasons = sorted(
        {o.reason for o in sec.outcomes},
        key=lambda r: (-sum(o.games for o in sec.outcomes if o.reason == r), r),
    )
    outcomes = _outcome_rows(sec).rows
    yield (
        "outcomes",
        tr("Outcomes by reason"),
        svg.stacked_bars(
            tr("Games by reason and outcome"),
            [word("reason", r) for r in reasons],
            [word("outcome", o) for o in outcomes],
            {(word("reason", o.reason), word("outcome", o.outcome)): o.games for o in sec.outcomes},
            {word("outcome", o): svg.OUTCOME_COLORS.get(o, "#9aa4ae") for o in outcomes},
        ),
    )
    by_round = sec.findings.by_round_severity
    if by_round:
        # One row per code and severity, violations first, each severity in its colour and scale.
        rows = {
            (f.code, f.severity): f"{f.code} · {word('severity', f.severity)}" for f in sec.findings.by_code
        }
        seen = {f.round for f in by_round} | {a.round for a in sec.agreement.by_round}
        yield (
            "findings-by-round",
            tr("Findings by code over rounds: violations, warnings, info"),
            svg.heatmap(
                tr("Findings by code over rounds, violations first"),
                list(rows.values()),
                sorted(seen, key=round_sort_key),
                {(rows[(f.code, f.severity)], f.round): f.count for f in by_round},
                tr("round"),
                tones={label: sev for (_, sev), label in rows.items()},
            ),
        )
    agreement = sec.agreement.by_round
    if agreement:
        yield (
            "agreement-by-round",
            tr("Agreement per round"),
            svg.line(
                tr("Claimed results agreeing with the rules, per round"),
                [(a.round, a.rate, a.claims) for a in agreement],
                tr("round"),
                tr("{rate} % of {count} claim(s)"),
            ),
        )
    sources = sec.agreement.by_source
    if sources:
        yield (
            "agreement-by-source",
            tr("Claimed vs derived, by source kind"),
            svg.percent_bars(
                tr("Agreement by source kind"),
                [
                    (
                        word("source", s.kind),
                        s.rate,
                        tr("{agree}/{claims} claims").format(agree=s.agree, claims=s.claims),
                    )
                    for s in sources
                ],
                "#2f7d4f",
            ),
        )
    if sec.playoffs:
        yield (
            "playoffs",
            tr("Playoff rate per ruleset"),
            svg.percent_bars(
                tr("Playoff rate per ruleset"),
                [
                    (
                        p.ruleset,
                        p.rate,
                        tr("{playoffs}/{games} games").format(playoffs=p.playoffs, games=p.games),
                    )
                    for p in sec.playoffs
                ],
                "#d9a521",
            ),
        )
    v = sec.verification
    if v.knockouts:
        verified, claimed = tr("verified from HP"), tr("taken from claims")
        yield (
            "verification",
            tr("Verification coverage"),
            svg.stacked_bars(
                tr("Knockouts verified from HP and taken from claims"),
                [tr("knockouts")],
                [verified, claimed],
                {(tr("knockouts"), verified): v.verified, (tr("knockouts"), claimed): v.from_claims},
                {verified: "#2f7d4f", claimed: "#e07b39"},
            ),
        )


def write_html(
    report: Report,
    out: IO[bytes],
    *,
    csv_note: str = "--format csv",
    card_name: CardName | None = None,
    lang: str = i18n.DEFAULT,
) -> None:
    """The report (as it is made, or settled) as one self-contained HTML page in ``lang``, written to
    ``out`` as it is made; card names as ``card_name`` shows them. ``csv_note``: where the page says the
    CSV form is, for the sections with more events than it shows in full."""
    from markupsafe import Markup

    env = environment(lang)
    parts = env.get_template("report_parts.html").module
    base_url = report.base_url

    def events(w: Writer, sec: Section, evs: Iterator[Event]) -> None:
        """A section's events, into its spool: the first :data:`MAX_EVENTS` in full, then a line each."""
        n = 0
        for ev in evs:
            n += 1
            if n <= MAX_EVENTS:
                w(parts.event(sec, ev, base_url))  # type: ignore[attr-defined]
            else:
                if n == MAX_EVENTS + 1:
                    w(parts.more_events_head(sec))  # type: ignore[attr-defined]
                if n <= MAX_EVENTS + MAX_EVENT_LINES:
                    w(parts.more_events_row(ev))  # type: ignore[attr-defined]
        if n > MAX_EVENTS:
            lines = min(n - MAX_EVENTS, MAX_EVENT_LINES)
            w(parts.more_events_end(n, MAX_EVENTS, lines, csv_note))  # type: ignore[attr-defined]

    def shown_sections() -> Iterator[tuple[Section, Iterator[Markup]]]:
        for sec, spool in sections(report, events):
            yield sec, (Markup(piece) for piece in spool.pieces())  # the page's own markup, rendered above

    filters = msgspec.to_builtins(report.filters).items()  # as the JSON names them: from, to
    page = env.get_template("report.html").generate(
        report=report,
        heads=_heads(report),
        filters=", ".join(f"{k} {v}" for k, v in filters if v is not None),
        sections=shown_sections(),
        # a deck check's sentence in the page's language, its card's name too
        deck_check=lambda text, card: with_card_name(deck_check(lang, text), card, card_name),
        # a finding's sentence, its cards named as card_name shows them (the reader's language)
        finding_message=lambda code, text: findings.message(lang, code, text, card_name),
    )
    w = Writer(out)
    for piece in page:
        w(piece)
    w(Markup("\n"))
    w.flush()
