"""The report as plain text, for a terminal: the headline numbers, standings and what to review, in English,
Japanese or Korean (``prizecheck report --lang``; the words from :mod:`replay.i18n`'s catalogues)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import IO

from replay import i18n
from replay.i18n import words
from replay.i18n.deckcheck import message as deck_check
from replay.i18n.sentences import shown
from replay.report import sentences
from replay.report.document import Event, Report, Section
from replay.report.names import CardName, with_card_name
from replay.report.stream import Writer, sections


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{value * 100:.1f}%"


def write_text(
    report: Report,
    out: IO[bytes],
    *,
    limit: int = 20,
    lang: str = i18n.DEFAULT,
    card_name: CardName | None = None,
) -> None:
    """A human summary of ``report`` (as it is made, or settled) in ``lang``, written to ``out``; long
    lists stop after ``limit`` lines (the other forms have all); card names as ``card_name`` shows them.
    The records' codes (statuses, outcomes, reasons, source kinds, integrity states, severities) are shown
    in words of ``lang`` (:mod:`replay.i18n.words`); finding codes and deck check codes stay as written
    (identifiers judges search for: docs/rules.md lists them)."""
    writer = Writer(out)

    def tr(message: str) -> str:
        return i18n.gettext(lang, message)

    def said(code: str, *tables: words.Table) -> str:
        return words.said(lang, code, *tables)

    def w(line: str) -> None:
        writer(line, "\n")

    w(tr("Prizecheck audit report: {games} game(s)").format(games=report.games))

    def events(ew: Writer, _sec: Section, evs: Iterator[Event]) -> None:
        for ev in evs:
            _event(lambda line: ew(line, "\n"), ev, limit, tr, lang)

    for s, spool in sections(report, events):
        w("")
        w(
            tr("== league {league}, season {season}: {games} game(s)").format(
                league=s.league, season=s.season, games=s.games
            )
        )
        w(tr("  status:   ") + ", ".join(f"{said(k, words.STATUSES)} {v}" for k, v in s.status.items()))
        reasons: dict[str, int] = {}
        for o in s.outcomes:
            reasons[f"{said(o.outcome, words.OUTCOMES)}/{said(o.reason, words.REASONS)}"] = o.games
        w(tr("  results:  ") + ", ".join(f"{k} {v}" for k, v in reasons.items()))
        if s.matches.total:
            by = ", ".join(
                f"{said(m.result, words.OUTCOMES, words.STATUSES)} ({said(m.decided_by, words.DECIDED_BY)}) "
                f"{m.matches}"
                for m in s.matches.by_result
            )
            w(tr("  matches:  {total}: {by}").format(total=s.matches.total, by=by))
        for p in s.playoffs:
            tb2 = tr(", {n} second tiebreak(s)").format(n=p.second_tiebreaks) if p.second_tiebreaks else ""
            w(
                tr(
                    "  playoffs: {ruleset}: {playoffs}/{games} game(s) went to a playoff ({rate}), "
                    "{playoff_games} playoff game(s){tb2}"
                ).format(
                    ruleset=p.ruleset,
                    playoffs=p.playoffs,
                    games=p.games,
                    rate=_pct(p.rate),
                    playoff_games=p.playoff_games,
                    tb2=tb2,
                )
            )
        for a in s.agreement.by_source:
            w(
                tr("  claimed results agreeing with the rules ({kind}): {agree}/{claims} ({rate})").format(
                    kind=said(a.kind, words.SOURCE_KINDS), agree=a.agree, claims=a.claims, rate=_pct(a.rate)
                )
            )
        v = s.verification
        if v.knockouts:
            w(
                tr(
                    "  knockouts: {knockouts}, {verified} verified from HP ({rate}), "
                    "{claims} taken from claims"
                ).format(
                    knockouts=v.knockouts,
                    verified=v.verified,
                    rate=_pct(v.rate),
                    claims=v.from_claims,
                )
            )
        integ = s.integrity
        w(
            tr("  integrity: chain {chain}; signature {signature}").format(
                chain=", ".join(f"{said(k, words.CHAIN_STATES)} {n}" for k, n in integ.chain.items()),
                signature=", ".join(
                    f"{said(k, words.SIGNATURE_STATES)} {n}" for k, n in integ.signature.items()
                ),
            )
        )
        if s.findings.by_code:
            w(tr("  findings:"))
            for f in s.findings.by_code[:limit]:
                w(f"    {f.count:>5}  {said(f.severity, words.SEVERITIES)}:{f.code}")
        spool.copy_to(writer)
        if s.review:
            w(tr("  to review ({n}):").format(n=len(s.review)))
            for item in s.review[:limit]:
                w(f"    {item.match}: " + "; ".join(shown(lang, sentences.REVIEW, r) for r in item.why))
        if s.deck_checks:
            w(tr("  deck checks, judges only ({n}):").format(n=len(s.deck_checks)))
            for dc in s.deck_checks[:limit]:
                message = with_card_name(deck_check(lang, dc.message), dc.card, card_name)
                w(f"    {dc.match} #{dc.seq}: {dc.code}: {message}")
    rec = report.reconciliation
    if rec:
        w("")
        w(
            tr("== reconciliation with {tdf} ({event})").format(
                tdf=rec.tdf, event=rec.event or tr("unnamed event")
            )
        )
        w(
            tr("  reported matches: {reported}, agreeing with the game records: {agree}").format(
                reported=rec.reported, agree=rec.agree
            )
        )
        for d in rec.disagree:
            w(
                tr("  DISAGREE round {round} table {table}: {players}: TDF {tdf}, records {records}").format(
                    round=d.round,
                    table=d.table,
                    players=" vs ".join(d.players),
                    tdf=sentences.result_said(lang, d.tdf),
                    records=sentences.result_said(lang, d.records),
                )
            )
        for m in rec.missing:
            w(
                tr("  NO RECORDS round {round} table {table}: {players} (TDF {tdf})").format(
                    round=m.round,
                    table=m.table,
                    players=" vs ".join(m.players),
                    tdf=sentences.result_said(lang, m.tdf),
                )
            )
        for b in rec.unrecorded_byes:
            w(tr("  BYE WITH GAMES round {round}: {player}").format(round=b.round, player=b.players[0]))
        for n in rec.not_in_tdf:
            w(
                tr("  NOT IN THE TDF round {round}: {players} ({series})").format(
                    round=n.round, players=" vs ".join(n.players), series=n.series
                )
            )
        if rec.unknown_players:
            w(tr("  players of the records not in the TDF: ") + ", ".join(rec.unknown_players))
        for div in rec.standings:
            for diff in div.differences:
                w(
                    tr(
                        "  STANDINGS DIFFER {division}: {player} TOM #{tom}, Prizecheck #{prizecheck}: {why}"
                    ).format(
                        division=div.division,
                        player=diff.player,
                        tom=diff.tom,
                        prizecheck=diff.prizecheck,
                        why=shown(lang, sentences.STANDINGS, diff.why, sentences.STANDINGS_PIECES),
                    )
                )
    writer.flush()


def _event(w: Callable[[str], None], ev: Event, limit: int, tr: Callable[[str], str], lang: str) -> None:
    matches = ev.matches
    done = sum(1 for m in matches if m.status == "finished")
    w(
        tr("  event {event}: {n} match(es) (best of three), {done} decided").format(
            event=ev.event, n=len(matches), done=done
        )
    )
    for m in matches[:limit]:
        a, b = m.players
        tied = tr(" ({n} tied)").format(n=m.ties) if m.ties else ""
        if m.winner:
            verdict = tr("{winner} wins").format(winner=m.winner)
        elif m.decided_by == "double_loss":
            verdict = tr("a loss for both")
        else:
            verdict = tr("tie") if m.status == "finished" else words.said(lang, m.status, words.STATUSES)
        w(f"    {m.series}: {a} {m.wins[a]}-{m.wins[b]} {b}{tied}: {verdict}")
    if len(matches) > limit:
        w(tr("    ... {n} more").format(n=len(matches) - limit))
    w(
        tr("  standings (win 3, tie 1, loss 0; byes from {source}):").format(
            source=words.said(lang, ev.byes_from, words.BYES_FROM)
        )
    )
    w(tr("     #  player                 pts  W-L-T  bye    OWP    OOWP  cut"))
    for row in ev.standings[:limit]:
        if row.division is not None and row.rank == 1:
            w(f"   {row.division}:")
        wlt = f"{row.win}-{row.loss}-{row.tie}"
        drop = tr(" (dropped)") if row.dropped is not None else ""
        cut = "" if row.top_cut is None else str(row.top_cut)
        w(
            f"    {row.rank:>2}. {row.player:<20} {row.points:>4}  {wlt:<6} {row.bye:>3} "
            f"{row.owp * 100:>6.2f}% {row.oowp * 100:>6.2f}%  {cut}{drop}"
        )
    if len(ev.standings) > limit:
        w(tr("    ... {n} more").format(n=len(ev.standings) - limit))
    w(tr("    pts: 3 per match won, 1 per tie; W-L-T: matches won-lost-tied; bye: rounds with a bye;"))
    w(tr("    OWP, OOWP: the opponents' and their opponents' match-win rate (each counted at least 25 %);"))
    w(tr("    cut: place in the top cut (1 champion, 2 finalist, 3 semifinalists, 5 quarterfinalists)"))
    # several divisions: each one's check, named; one or none: the event's
    checks = [(d.division, d.top_cut_check) for d in ev.divisions if len(ev.divisions) > 1]
    checks = checks or [(None, ev.top_cut_check)]
    for div, check in checks:
        if check and check.differs:
            w(
                tr(
                    "  TOP CUT DIFFERS from these standings{division}: the top {players} should play "
                    "round {round} 1 v {players}, 2 v {second}...; "
                ).format(
                    division=f" ({div})" if div else "",
                    players=check.players,
                    round=check.round,
                    second=check.players - 1,
                )
                + "; ".join(shown(lang, sentences.TOP_CUT, why) for why in check.why)
            )
