"""The report as one self-contained HTML page: inline CSS, inline SVG charts, a few lines of inline script
(sorting the standings). No CDN, no fonts, no network: the file works offline and can be mailed.

Every number shown in a table carries its cell name (:mod:`replay.report.tables`) in ``data-cell`` and its
exact value in ``data-value``; the charts carry theirs in ``data-value`` (:mod:`replay.report.svg`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from html import escape
from typing import IO, Any, cast

import msgspec

from replay.report import svg
from replay.report.build import round_sort_key
from replay.report.document import (
    Disagreement,
    Event,
    Missing,
    NotInTdf,
    PlayerMatches,
    Reconciliation,
    Report,
    Section,
    TdfLine,
)
from replay.report.lazy import Items
from replay.report.links import review_link
from replay.report.names import CardName, with_card_name
from replay.report.stream import Writer, counted, sections
from replay.report.tables import STANDINGS_COLUMNS

MAX_FINDINGS = 1000  # per section on the page; the JSON and CSV forms have them all
SEVERITY_LABELS = (("violation", "violations"), ("warning", "warnings"), ("info", "info"))
MAX_RECORDS = 200  # integrity lines listed per section (those with a problem first)
# Events shown in full per section (standings, top cut, every player's matches): past them a person reads
# no more, and a season of a million records would make a page of half a gigabyte. The others are one
# line each, up to MAX_EVENT_LINES; the CSV form has every event's standings.
MAX_EVENTS = 50
MAX_EVENT_LINES = 2000
PERCENT_COLUMNS = {"rate", "win_pct", "owp", "oowp"}
OUTCOMES = ("win", "draw", "no_winner", "undecided")

CSS = """
:root { --ink:#1f2933; --muted:#66727f; --line:#e3e6ea; --accent:#3b6fb6; --bad:#c23b4a; --ok:#2f7d4f; }
* { box-sizing: border-box; }
body { margin:0; font:14px/1.45 system-ui,-apple-system,'Segoe UI',Roboto,sans-serif; color:var(--ink);
  background:#f7f8fa; }
header.top { background:#1f2933; color:#fff; padding:20px 32px; }
header.top h1 { margin:0 0 4px; font-size:22px; } header.top p { margin:0; color:#c9d1d9; }
main { padding:8px 32px 48px; max-width:1400px; }
nav.toc { margin:16px 0; } nav.toc a { margin-right:14px; }
section.league { background:#fff; border:1px solid var(--line); border-radius:10px; padding:8px 24px 24px;
  margin:20px 0; }
h2 { font-size:20px; margin:18px 0 8px; } h3 { font-size:17px; margin:26px 0 8px; }
h4 { font-size:15px; margin:18px 0 6px; }
.cards { display:flex; flex-wrap:wrap; gap:12px; margin:12px 0 8px; }
.card { border:1px solid var(--line); border-radius:8px; padding:10px 14px; min-width:150px;
  background:#fbfcfd; }
.card b { display:block; font-size:22px; } .card .label { color:var(--muted); font-size:12px; }
.charts { display:flex; flex-wrap:wrap; gap:18px 28px; }
figure.chart { margin:8px 0; } figure.chart figcaption { font-weight:600; margin-bottom:6px; }
svg .mark:hover { opacity:.8; }
table { border-collapse:collapse; margin:6px 0 12px; font-variant-numeric:tabular-nums; }
th, td { padding:4px 10px; border-bottom:1px solid var(--line); text-align:left; vertical-align:top; }
th { background:#f1f3f5; font-weight:600; } td.num, th.num { text-align:right; }
table.sortable th { cursor:pointer; user-select:none; }
table.sortable th[aria-sort=ascending]::after { content:" \\25B2"; font-size:10px; }
table.sortable th[aria-sort=descending]::after { content:" \\25BC"; font-size:10px; }
tr.dropped td { color:var(--muted); }
.violation { color:var(--bad); font-weight:600; } .warning { color:#b7791f; } .info { color:var(--muted); }
details { margin:8px 0; } summary { cursor:pointer; color:var(--accent); }
.players { display:grid; grid-template-columns:repeat(auto-fill,minmax(420px,1fr)); gap:10px 24px; }
.player { border-top:1px solid var(--line); padding-top:4px; }
.muted { color:var(--muted); } a { color:var(--accent); }
.bad { color:var(--bad); font-weight:600; } .good { color:var(--ok); }
ol.cut { list-style:none; padding-left:0; }
.review li, .cut li, p, td { overflow-wrap:anywhere; }
figure.chart svg { max-width:100%; height:auto; }
.players { grid-template-columns:repeat(auto-fill,minmax(min(100%,420px),1fr)); }
@media (max-width:700px) {
  header.top { padding:14px 12px; } main { padding:8px 10px 32px; } section.league { padding:6px 10px 16px; }
  table { display:block; overflow-x:auto; max-width:100%; }
}
"""

SCRIPT = """
document.querySelectorAll('table.sortable').forEach(function (table) {
  table.querySelectorAll('th').forEach(function (th, col) {
    th.addEventListener('click', function () {
      var asc = th.getAttribute('aria-sort') !== 'ascending';
      table.querySelectorAll('th').forEach(function (h) { h.removeAttribute('aria-sort'); });
      th.setAttribute('aria-sort', asc ? 'ascending' : 'descending');
      var body = table.tBodies[0];
      var rows = Array.prototype.slice.call(body.rows);
      function key(row) {
        var cell = row.cells[col];
        var v = cell.hasAttribute('data-value') ? cell.getAttribute('data-value') : cell.textContent.trim();
        var n = parseFloat(v);
        return (v !== '' && !isNaN(n) && isFinite(v)) ? n : v.toLowerCase();
      }
      rows.sort(function (a, b) {
        var x = key(a), y = key(b);
        if (x === y) { return 0; }
        if (x === '' || x === null) { return 1; }
        if (y === '' || y === null) { return -1; }
        if (typeof x !== typeof y) { return typeof x === 'number' ? -1 : 1; }
        return (x < y ? -1 : 1) * (asc ? 1 : -1);
      });
      rows.forEach(function (r) { body.appendChild(r); });
    });
  });
});
"""


NONE = "-"  # replay/report/build.py's name for a league or season the records do not give


def _heading(league: str, season: str) -> str:
    """A section's name: ``League L1 · season 2026``; ``Games without a league``, ``no season``."""
    lg = "Games without a league" if league == NONE else f"League {league}"
    return f"{lg} · {'no season' if season == NONE else 'season ' + season}"


def _slug(*parts: str) -> str:
    return re.sub(r"[^A-Za-z0-9_-]+", "-", "-".join(parts)).strip("-") or "x"


def _value(value: Any) -> str:
    return "" if value is None else str(value)


def _shown(column: str, value: Any) -> str:
    if value is None:
        return "-"
    if column in PERCENT_COLUMNS and isinstance(value, int | float):
        return f"{value * 100:.2f} %"
    return str(value)


class _Page:
    def __init__(self, report: Report, out: IO[bytes], card_name: CardName | None = None) -> None:
        self.report = report
        self.card_name = card_name  # how a card's name is shown (the reader's language)
        self.page = self.w = Writer(out)  # w: where the page is being written (a section's events: a spool)
        self.csv_note = "--format csv"

    def cell(self, key: tuple[str, str, str], table: str, row: Any, column: str, value: Any) -> str:
        """A number outside a table (a headline card), named like the tables' cells."""
        name = "|".join((*key, table, str(row), column))
        return (
            f'<span data-cell="{escape(name)}" data-value="{escape(_value(value))}">'
            f"{escape(_shown(column, value))}</span>"
        )

    def td(
        self, key: tuple[str, str, str], table: str, row: Any, column: str, value: Any, text: str = ""
    ) -> str:
        name = "|".join((*key, table, str(row), column))
        shown = text or escape(_shown(column, value))
        return f'<td class="num" data-cell="{escape(name)}" data-value="{escape(_value(value))}">{shown}</td>'

    def matrix(
        self,
        key: tuple[str, str, str],
        table: str,
        rows: Sequence[str],
        columns: Sequence[str],
        values: Mapping[tuple[str, str], Any],
        corner: str,
    ) -> None:
        """A table of one of the report's tables: a cell per (row, column) that has a value."""
        self.w(f'<table data-table="{escape(table)}"><thead><tr><th>{escape(corner)}</th>')
        self.w(*(f'<th class="num">{escape(c)}</th>' for c in columns), "</tr></thead><tbody>")
        for r in rows:
            self.w(f"<tr><th>{escape(r)}</th>")
            for c in columns:
                if (r, c) in values:
                    self.w(self.td(key, table, r, c, values[(r, c)]))
                else:
                    self.w('<td class="num muted"></td>')
            self.w("</tr>")
        self.w("</tbody></table>")

    def render(self) -> None:
        r = self.report
        shown = msgspec.to_builtins(r.filters).items()  # as the JSON names them: from, to
        filters = ", ".join(f"{k} {v}" for k, v in shown if v is not None) or "everything"
        self.w(
            "<!doctype html>",
            '<html lang="en"><head><meta charset="utf-8">',
            '<meta name="viewport" content="width=device-width, initial-scale=1">',
            "<title>Prizecheck audit report</title>",
            f"<style>{CSS}</style></head><body>",
            '<header class="top"><h1>Prizecheck audit report</h1>',
            f"<p>{r.games} game(s) · {escape(filters)} · {escape(r.engine)}</p></header><main>",
            '<nav class="toc">',
        )
        for league, season in _heads(r):
            self.w(f'<a href="#{_slug("league", league, season)}">')
            self.w(f"{escape(_heading(league, season))}</a>")
        if r.reconciliation:
            self.w('<a href="#reconciliation">reconciliation</a>')
        self.w("</nav>")
        self.w(
            f'<p class="muted" data-cell="|||report|all|games" data-value="{r.games}">'
            f"{r.games} game(s) in this report.</p>"
        )
        for sec, events in sections(r, self.events):
            self.section(sec, events.copy_to)
        if r.reconciliation:
            self.reconciliation(r.reconciliation)
        self.w(f"</main><script>{SCRIPT}</script></body></html>\n")
        self.w.flush()

    def events(self, w: Writer, sec: Section, events: Iterator[Event]) -> None:
        """A section's events (written before its head: its matches are counted from them): the first
        :data:`MAX_EVENTS` in full, then a line each."""
        self.w = w
        n = 0
        for ev in events:
            n += 1
            if n <= MAX_EVENTS:
                self.event(sec, ev)
                continue
            if n == MAX_EVENTS + 1:
                self.w(
                    f'<h3 id="{_slug("more-events", sec.league, sec.season)}">More events</h3>',
                    '<table class="sortable" data-table="more_events"><thead><tr><th>event</th>',
                    '<th class="num">rounds</th><th class="num">matches</th><th class="num">decided</th>',
                    '<th class="num">players</th><th>first in the standings</th></tr></thead><tbody>',
                )
            if n <= MAX_EVENTS + MAX_EVENT_LINES:
                first = ev.standings[0].player if ev.standings else "-"
                done = sum(1 for m in ev.matches if m.status == "finished")
                self.w(
                    f'<tr><td>{escape(ev.event)}</td><td class="num">{len(ev.rounds)}</td>'
                    f'<td class="num">{len(ev.matches)}</td><td class="num">{done}</td>'
                    f'<td class="num">{len(ev.players)}</td><td>{escape(first)}</td></tr>'
                )
        if n > MAX_EVENTS:
            self.w("</tbody></table>")
            lines = min(n - MAX_EVENTS, MAX_EVENT_LINES)
            rest = f", the next {lines} a line each" + (
                f" ({n - MAX_EVENTS - lines} not listed)" if n > MAX_EVENTS + lines else ""
            )
            self.w(
                f'<p class="muted" data-events="{n}">{n} events: the first {MAX_EVENTS} are shown in full'
                f"{rest}. Every event's standings are in the CSV form of this report "
                f"({escape(self.csv_note)}).</p>"
            )
        self.w = self.page

    # ------------------------------------------------------------------------------------ a section
    def section(self, sec: Section, events: Callable[[Writer], None]) -> None:
        key = (sec.league, sec.season, "")
        self.w(f'<section class="league" id="{_slug("league", sec.league, sec.season)}">')
        self.w(f"<h2>{escape(_heading(sec.league, sec.season))}</h2>")
        self.cards(key, sec)
        self.charts(sec)
        self.w("<h3>Games and matches</h3>")
        reasons = sorted({o.reason for o in sec.outcomes})
        outcomes = [o for o in OUTCOMES if any(x.outcome == o for x in sec.outcomes)]
        outcomes += sorted({x.outcome for x in sec.outcomes} - set(outcomes))
        values = {(o.outcome, o.reason): o.games for o in sec.outcomes}
        self.matrix(key, "games_by_outcome", outcomes, reasons, values, "games: outcome \\ reason")
        self.matrix(
            key,
            "games_by_status",
            list(sec.status),
            ["games"],
            {(s, "games"): n for s, n in sec.status.items()},
            "status",
        )
        by = sec.matches.by_result
        self.matrix(
            key,
            "matches_by_result",
            sorted({m.result for m in by}),
            sorted({m.decided_by for m in by}),
            {(m.result, m.decided_by): m.matches for m in by},
            "matches: result \\ decided by",
        )
        cols = ("games", "playoffs", "playoff_games", "second_tiebreaks", "rate")
        self.matrix(
            key,
            "playoffs",
            [p.ruleset for p in sec.playoffs],
            cols,
            {(p.ruleset, c): getattr(p, c) for p in sec.playoffs for c in cols},
            "playoffs by ruleset",
        )
        events(self.w)  # the spool of the section's events, in its place
        self.findings(key, sec)
        self.agreement(key, sec)
        self.integrity(key, sec)
        if sec.review:
            # violations first (the builder's order), each severity apart
            self.w(f'<h3>To review ({len(sec.review)})</h3><ul class="review">')
            for item in sec.review[:MAX_FINDINGS]:
                counts = item.findings
                shown = [
                    f'<span class="{sev}">{n} {sev if n == 1 or sev == "info" else label}</span>'
                    for sev, label in SEVERITY_LABELS
                    if (n := getattr(counts, sev))
                ]
                self.w(
                    f'<li data-match="{escape(item.match)}"><a href="{escape(item.link)}">'
                    f"{escape(item.match)}</a>: {escape('; '.join(item.why))}"
                    + (f' <span class="muted">({", ".join(shown)})</span>' if shown else "")
                    + "</li>"
                )
            self.w("</ul>")
        if sec.deck_checks:  # judges only: the report is built from their deck lists
            checks = sec.deck_checks
            self.w(f'<h3>Deck checks, judges only ({len(checks)})</h3><ul class="review">')
            for f in checks[:MAX_FINDINGS]:
                self.w(
                    f'<li data-match="{escape(f.match)}"><a href="{escape(f.link)}">'
                    f"{escape(f.match)} #{f.seq}</a>: {escape(f.code)}: "
                    f"{escape(with_card_name(f.message, f.card, self.card_name))}</li>"
                )
            self.w("</ul>")
        self.w("</section>")

    def cards(self, key: tuple[str, str, str], sec: Section) -> None:
        claims = sum(a.claims for a in sec.agreement.by_source)
        agree = sum(a.agree for a in sec.agreement.by_source)
        by_severity = {
            sev: sum(f.count for f in sec.findings.by_code if f.severity == sev) for sev, _ in SEVERITY_LABELS
        }
        v = sec.verification
        cards = [
            ("games", self.cell(key, "section", "all", "games", sec.games)),
            ("best-of-three matches", self.cell(key, "section", "all", "matches", sec.matches.total)),
            ("claims agreeing with the rules", f"{agree}/{claims}" if claims else "-"),
            ("knockouts verified from HP", f"{v.verified}/{v.knockouts}" if v.knockouts else "-"),
            ("violations", str(by_severity["violation"])),
            ("warnings", str(by_severity["warning"])),
            ("info notes", str(by_severity["info"])),
            ("games to review", str(len(sec.review))),
        ]
        self.w('<div class="cards">')
        for label, value in cards:
            shown = value if value.startswith("<span") else escape(value)
            self.w(f'<div class="card"><b>{shown}</b><span class="label">{escape(label)}</span></div>')
        self.w("</div>")

    def charts(self, sec: Section) -> None:
        self.w('<div class="charts">')
        # most games first; a tie by name (a set's order changes from one process to the next)
        reasons = sorted(
            {o.reason for o in sec.outcomes},
            key=lambda r: (-sum(o.games for o in sec.outcomes if o.reason == r), r),
        )
        outcomes = [o for o in OUTCOMES if any(x.outcome == o for x in sec.outcomes)]
        outcomes += sorted({x.outcome for x in sec.outcomes} - set(outcomes))
        chart = svg.stacked_bars(
            "Games by reason and outcome",
            reasons,
            outcomes,
            {(o.reason, o.outcome): o.games for o in sec.outcomes},
            {o: svg.OUTCOME_COLORS.get(o, "#9aa4ae") for o in outcomes},
        )
        self.figure("outcomes", "Outcomes by reason", chart)
        by_round = sec.findings.by_round_severity
        if by_round:
            # One row per code and severity, violations first, each severity in its colour and scale.
            rows = {(f.code, f.severity): _row_label(f.code, f.severity) for f in sec.findings.by_code}
            seen = {f.round for f in by_round} | {a.round for a in sec.agreement.by_round}
            rounds = sorted(seen, key=round_sort_key)
            chart = svg.heatmap(
                "Findings by code over rounds, violations first",
                list(rows.values()),
                rounds,
                {(rows[(f.code, f.severity)], f.round): f.count for f in by_round},
                "round",
                tones={label: sev for (_, sev), label in rows.items()},
            )
            caption = "Findings by code over rounds: violations, warnings, info"
            self.figure("findings-by-round", caption, chart)
        agreement = sec.agreement.by_round
        if agreement:
            chart = svg.line(
                "Claimed results agreeing with the rules, per round",
                [(a.round, a.rate, a.claims) for a in agreement],
                "round",
            )
            self.figure("agreement-by-round", "Agreement per round", chart)
        sources = sec.agreement.by_source
        if sources:
            chart = svg.percent_bars(
                "Agreement by source kind",
                [(a.kind, a.rate, f"{a.agree}/{a.claims} claims") for a in sources],
                "#2f7d4f",
            )
            self.figure("agreement-by-source", "Claimed vs derived, by source kind", chart)
        if sec.playoffs:
            chart = svg.percent_bars(
                "Playoff rate per ruleset",
                [(p.ruleset, p.rate, f"{p.playoffs}/{p.games} games") for p in sec.playoffs],
                "#d9a521",
            )
            self.figure("playoffs", "Playoff rate per ruleset", chart)
        v = sec.verification
        if v.knockouts:
            chart = svg.stacked_bars(
                "Knockouts verified from HP and taken from claims",
                ["knockouts"],
                ["verified from HP", "taken from claims"],
                {
                    ("knockouts", "verified from HP"): v.verified,
                    ("knockouts", "taken from claims"): v.from_claims,
                },
                {"verified from HP": "#2f7d4f", "taken from claims": "#e07b39"},
            )
            self.figure("verification", "Verification coverage", chart)
        self.w("</div>")

    def figure(self, name: str, caption: str, chart: str) -> None:
        self.w(
            f'<figure class="chart" data-chart="{name}"><figcaption>{escape(caption)}</figcaption>'
            f"{chart}</figure>"
        )

    # ------------------------------------------------------------------------------------ an event
    def event(self, sec: Section, ev: Event) -> None:
        key = (sec.league, sec.season, ev.event)
        anchor = _slug("event", sec.league, sec.season, ev.event)
        self.w(f'<h3 id="{anchor}">Event {escape(ev.event)}</h3>')
        self.w(
            f'<p class="muted">{len(ev.matches)} best-of-three match(es) over '
            f"{len(ev.rounds)} round(s); "
            f"match points win 3, tie 1, loss 0, bye 3; tiebreakers OWP then OOWP (25 % floor, dropped "
            f"players at most 75 %) then head-to-head; byes and drops from {escape(ev.byes_from)}.</p>"
        )
        players = {p.player: _slug("player", sec.league, sec.season, ev.event, p.player) for p in ev.players}
        labels = {"win_pct": "win %", "owp": "OWP", "oowp": "OOWP", "top_cut": "top cut", "points": "pts"}
        self.w('<table class="standings sortable" data-table="standings"><thead><tr>')
        self.w('<th class="num">rank</th><th>player</th>')
        self.w(
            *(f'<th class="num">{escape(labels.get(c, c))}</th>' for c in STANDINGS_COLUMNS if c != "rank")
        )
        self.w("</tr></thead><tbody>")
        for row in ev.standings:
            cls = ' class="dropped"' if row.dropped is not None else ""
            self.w(f"<tr{cls}>", self.td(key, "standings", row.player, "rank", row.rank))
            href = players.get(row.player)
            name = escape(row.player)
            self.w(
                f'<td data-value="{name}">' + (f'<a href="#{href}">{name}</a>' if href else name) + "</td>"
            )
            for c in STANDINGS_COLUMNS:
                if c != "rank":
                    self.w(self.td(key, "standings", row.player, c, getattr(row, c)))
            self.w("</tr>")
        self.w("</tbody></table>")
        self.w(
            '<p class="muted">pts: 3 per match won, 1 per tie; OWP, OOWP: the opponents\' and their '
            "opponents' match-win rate (each counted at least 25 %); top cut: the place in the top cut "
            "(1 champion, 2 finalist, 3 semifinalists, 5 quarterfinalists).</p>"
        )
        checks = [(d.division, d.top_cut_check) for d in ev.divisions if len(ev.divisions) > 1]
        for div, check in checks or [(None, ev.top_cut_check)]:
            if check and check.differs:
                self.w(
                    f'<p class="flag">The top cut{escape(f" ({div})" if div else "")} differs from these '
                    f"standings: the top {check.players} should play round {check.round} seeded 1 v "
                    f"{check.players}; " + escape("; ".join(check.why)) + ".</p>"
                )
        if ev.top_cut:
            self.w('<h4>Top cut</h4><ol class="cut">')
            for cut in ev.top_cut:
                where = (
                    "champion"
                    if cut.place == 1 and cut.eliminated_in is None
                    else (
                        f"out in round {cut.eliminated_in}" if cut.eliminated_in is not None else "still in"
                    )
                )
                # the place is written once (the list is not numbered too: "1. 1."); shared places repeat
                place = "–" if cut.place is None else f"{cut.place}."
                self.w(
                    f'<li data-place="{escape(_value(cut.place))}"><b>{place}</b> {escape(cut.player)} '
                    f'<span class="muted">({where})</span></li>'
                )
            self.w("</ol>")
        self.w(f'<details open><summary>Players ({len(ev.players)})</summary><div class="players">')
        games: dict[str | None, list[str]] = {m.series: [g.match for g in m.games] for m in ev.matches}
        for p in ev.players:
            self.player(p, players[p.player], games)
        self.w("</div></details>")

    def player(self, p: PlayerMatches, anchor: str, games: Mapping[str | None, list[str]]) -> None:
        self.w(f'<section class="player" id="{anchor}"><h4>{escape(p.player)}</h4>')
        self.w(
            "<table><thead><tr><th>round</th><th>opponent</th><th>result</th><th>games</th><th>review</th></tr>"
        )
        self.w("</thead><tbody>")
        for m in p.matches:
            base = self.report.base_url
            links = " ".join(
                f'<a href="{escape(review_link(base, g))}">g{i}</a>'
                for i, g in enumerate(games.get(m.series, []), 1)
            )
            stage = " (top cut)" if m.stage == "single_elimination" else ""
            self.w(
                f"<tr><td>{escape(m.round)}{stage}</td><td>{escape(m.opponent or '-')}</td>"
                f"<td>{escape(m.result)}</td><td>{escape(m.games)}</td><td>{links}</td></tr>"
            )
        self.w("</tbody></table></section>")

    # ------------------------------------------------------------------------------------ the rest
    def findings(self, key: tuple[str, str, str], sec: Section) -> None:
        f = sec.findings
        if not f.by_code:
            self.w("<h3>Findings</h3><p>None.</p>")
            return
        self.w("<h3>Findings</h3>")
        codes = list(dict.fromkeys(x.code for x in f.by_code))
        severities = [s for s in ("violation", "warning", "info") if any(x.severity == s for x in f.by_code)]
        self.matrix(
            key,
            "findings_by_code",
            codes,
            severities,
            {(x.code, x.severity): x.count for x in f.by_code},
            "code \\ severity",
        )
        rounds = sorted({x.round for x in f.by_round}, key=round_sort_key)
        self.w("<details><summary>By round</summary>")
        self.matrix(
            key,
            "findings_by_round",
            rounds,
            codes,
            {(x.round, x.code): x.count for x in f.by_round},
            "round \\ code",
        )
        self.w("</details>")
        items, count = counted(f.items, MAX_FINDINGS)  # read once: a season's may be millions
        more = f" (the first {MAX_FINDINGS}; the JSON and CSV forms list all)" if count > MAX_FINDINGS else ""
        self.w(f"<details><summary>Every finding ({count}){escape(more)}</summary>")
        self.w(
            '<table class="sortable" data-table="finding_items"><thead><tr><th>match</th>'
            '<th class="num">seq</th>'
        )
        self.w("<th>severity</th><th>code</th><th>message</th></tr></thead><tbody>")
        for item in items:
            self.w(
                f'<tr><td><a class="finding" href="{escape(item.link)}">{escape(item.match)}</a></td>'
                f'<td class="num" data-value="{item.seq}">{item.seq}</td>'
                f'<td class="{escape(item.severity)}">{escape(item.severity)}</td>'
                f"<td>{escape(item.code)}</td><td>{escape(item.message)}</td></tr>"
            )
        self.w("</tbody></table></details>")

    def agreement(self, key: tuple[str, str, str], sec: Section) -> None:
        a = sec.agreement
        cols = ("claims", "agree", "rate")
        self.w("<h3>Claimed vs derived results</h3>")
        self.matrix(
            key, "agreement_by_source", [x.kind for x in a.by_source], cols,
            {(x.kind, c): getattr(x, c) for x in a.by_source for c in cols}, "source kind",
        )  # fmt: skip
        self.matrix(
            key, "agreement_by_round", [x.round for x in a.by_round], cols,
            {(y.round, c): getattr(y, c) for y in a.by_round for c in cols}, "round",
        )  # fmt: skip
        v = sec.verification
        self.w("<h3>Verification coverage</h3>")
        vcols = ("knockouts", "verified", "from_claims", "rate")
        self.matrix(
            key, "verification", ["knockouts"], vcols, {("knockouts", c): getattr(v, c) for c in vcols}, ""
        )
        self.matrix(
            key,
            "verification",
            ["basis"],
            list(v.basis),
            {("basis", b): n for b, n in v.basis.items()},
            "audit basis",
        )

    def integrity(self, key: tuple[str, str, str], sec: Section) -> None:
        integ = sec.integrity
        self.w("<h3>Hash chains and signatures</h3>")
        self.matrix(
            key,
            "integrity",
            ["chain"],
            list(integ.chain),
            {("chain", k): n for k, n in integ.chain.items()},
            "",
        )
        self.matrix(
            key, "integrity", ["signature"], list(integ.signature),
            {("signature", k): n for k, n in integ.signature.items()}, "",
        )  # fmt: skip
        # those with a problem first, each kind in match order (the lines come in match order), read once
        records, count = counted(
            integ.records, MAX_RECORDS, lambda r: not (r.chain == "ok" and r.signature != "invalid")
        )
        self.w(f"<details><summary>Every record ({count})</summary>")
        self.w('<table class="sortable"><thead><tr><th>match</th><th>chain</th><th class="num">events</th>')
        self.w("<th>head</th><th>signature</th></tr></thead><tbody>")
        for rec in records:
            bad = rec.chain != "ok" or rec.signature == "invalid"
            self.w(
                f'<tr><td>{escape(rec.match)}</td><td class="{"bad" if rec.chain != "ok" else "good"}">'
                f'{escape(rec.chain)}</td><td class="num">{rec.events}</td>'
                f"<td><code>{escape(rec.head[:16])}</code></td>"
                f'<td class="{"bad" if bad else ""}">{escape(rec.signature)}</td></tr>'
            )
        if count > MAX_RECORDS:
            self.w(f'<tr><td colspan="5" class="muted">{count - MAX_RECORDS} more in the JSON form</td></tr>')
        self.w("</tbody></table></details>")

    def reconciliation(self, rec: Reconciliation) -> None:
        self.w(
            '<section class="league" id="reconciliation"><h2>Reconciliation with the tournament software</h2>'
        )
        self.w(f"<p>{escape(rec.tdf)} ({escape(rec.event or 'unnamed event')}): ")
        self.w(
            f'<b data-cell="|||reconciliation|tdf|reported" data-value="{rec.reported}">'
            f"{rec.reported}</b> "
            f'reported match(es), <b data-cell="|||reconciliation|tdf|agree" data-value="{rec.agree}">'
            f"{rec.agree}</b> agreeing with the game records.</p>"
        )
        lists: Iterable[tuple[str, str, Sequence[TdfLine | NotInTdf]]] = (
            ("disagree", "Reported results that disagree with the game records", rec.disagree),
            ("missing", "Reported matches without game records", rec.missing),
            ("unrecorded_byes", "Byes in the TDF with games recorded", rec.unrecorded_byes),
            ("not_in_tdf", "Recorded matches the TDF does not list", rec.not_in_tdf),
        )
        for name, title, rows in lists:
            self.w(
                f'<h3>{escape(title)}: <span data-cell="|||reconciliation|tdf|{name}" '
                f'data-value="{len(rows)}">'
                f"{len(rows)}</span></h3>"
            )
            if not rows:
                continue
            self.w(f'<table data-table="{name}"><tbody>')
            for d in rows:
                links = " ".join(
                    f'<a href="{escape(x)}">g{i}</a>'
                    for i, x in enumerate(d.links if isinstance(d, Disagreement) else [], 1)
                )
                detail = f"TDF: {d.tdf}" if isinstance(d, Missing) else ""
                if isinstance(d, Disagreement):
                    detail += f"; records: {d.records}"
                self.w(
                    f"<tr><td>round {escape(str(d.round))}</td>"
                    f"<td>{escape(' vs '.join(d.players))}</td>"
                    f"<td>{escape(detail)}</td><td>{links}</td></tr>"
                )
            self.w("</tbody></table>")
        differ = [(div.division, d) for div in rec.standings for d in div.differences]
        self.w(
            "<h3>Where TOM's standings differ from Prizecheck's: "
            f'<span data-cell="|||reconciliation|tdf|standings_differ" data-value="{len(differ)}">'
            f"{len(differ)}</span></h3>"
        )
        if differ:
            self.w('<table data-table="standings_differ"><thead><tr><th>division</th><th>player</th>')
            self.w('<th class="num">TOM</th><th class="num">Prizecheck</th><th>why</th></tr></thead><tbody>')
            for div_name, diff in differ:
                self.w(
                    f"<tr><td>{escape(div_name)}</td><td>{escape(diff.player)}</td>"
                    f'<td class="num">{diff.tom}</td><td class="num">{escape(str(diff.prizecheck))}</td>'
                    f"<td>{escape(diff.why)}</td></tr>"
                )
            self.w("</tbody></table>")
        unknown = rec.unknown_players
        self.w(
            "<p>Players of the records not in the TDF: "
            '<span data-cell="|||reconciliation|tdf|unknown_players" '
            f'data-value="{len(unknown)}">{len(unknown)}</span> {escape(", ".join(unknown))}</p></section>'
        )


def _heads(report: Report) -> list[tuple[str, str]]:
    """The league and season of each section, before the sections are made (the page's contents)."""
    sections = report.sections
    if isinstance(sections, Items) and sections.heads is not None:
        return sections.heads
    return [(sec.league, sec.season) for sec in cast(list[Section], sections)]


def _row_label(code: str, severity: str) -> str:
    return f"{code} · {severity}"


def write_html(
    report: Report,
    out: IO[bytes],
    *,
    csv_note: str = "--format csv",
    card_name: CardName | None = None,
) -> None:
    """The report (as it is made, or settled) as one self-contained HTML page, written to ``out`` as it is
    made; card names as ``card_name`` shows them. ``csv_note``: where the page says the CSV form is, for
    the sections with more events than it shows in full."""
    page = _Page(report, out, card_name)
    page.csv_note = csv_note
    page.render()
