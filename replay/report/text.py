"""The report as plain text, for a terminal: the headline numbers, standings and what to review."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import IO, Any

from replay.report.stream import Writer, sections


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{value * 100:.1f}%"


def write_text(report: Mapping[str, Any], out: IO[bytes], *, limit: int = 20) -> None:
    """A human summary of ``report`` (as it is made, or settled) written to ``out``; long lists stop after
    ``limit`` lines (the other forms have all)."""
    writer = Writer(out)

    def w(line: str) -> None:
        writer(line, "\n")

    w(f"Prizecheck audit report: {report['games']} game(s)")

    def events(ew: Writer, _sec: Mapping[str, Any], evs: Iterator[Mapping[str, Any]]) -> None:
        for ev in evs:
            _event(lambda line: ew(line, "\n"), ev, limit)

    for s, spool in sections(report, events):
        w("")
        w(f"== league {s['league']}, season {s['season']}: {s['games']} game(s)")
        w("  status:   " + ", ".join(f"{k} {v}" for k, v in s["status"].items()))
        reasons: dict[str, int] = {}
        for o in s["outcomes"]:
            reasons[f"{o['outcome']}/{o['reason']}"] = o["games"]
        w("  results:  " + ", ".join(f"{k} {v}" for k, v in reasons.items()))
        if s["matches"]["total"]:
            by = ", ".join(
                f"{m['result']} ({m['decided_by']}) {m['matches']}" for m in s["matches"]["by_result"]
            )
            w(f"  matches:  {s['matches']['total']}: {by}")
        for p in s["playoffs"]:
            tb2 = f", {p['second_tiebreaks']} second tiebreak(s)" if p["second_tiebreaks"] else ""
            w(
                f"  playoffs: {p['ruleset']}: {p['playoffs']}/{p['games']} game(s) went to a playoff "
                f"({_pct(p['rate'])}), {p['playoff_games']} playoff game(s){tb2}"
            )
        for a in s["agreement"]["by_source"]:
            w(
                f"  claimed results agreeing with the rules ({a['kind']}): {a['agree']}/{a['claims']} "
                f"({_pct(a['rate'])})"
            )
        v = s["verification"]
        if v["knockouts"]:
            w(
                f"  knockouts: {v['knockouts']}, {v['verified']} verified from HP ({_pct(v['rate'])}), "
                f"{v['from_claims']} taken from claims"
            )
        integ = s["integrity"]
        w(
            "  integrity: chain "
            + ", ".join(f"{k} {n}" for k, n in integ["chain"].items())
            + "; signature "
            + ", ".join(f"{k} {n}" for k, n in integ["signature"].items())
        )
        if s["findings"]["by_code"]:
            w("  findings:")
            for f in s["findings"]["by_code"][:limit]:
                w(f"    {f['count']:>5}  {f['severity']}:{f['code']}")
        spool.copy_to(writer)
        if s["review"]:
            w(f"  to review ({len(s['review'])}):")
            for item in s["review"][:limit]:
                w(f"    {item['match']}: {'; '.join(item['why'])}")
        if s.get("deck_checks"):
            w(f"  deck checks, judges only ({len(s['deck_checks'])}):")
            for f in s["deck_checks"][:limit]:
                w(f"    {f['match']} #{f['seq']}: {f['code']}: {f['message']}")
    rec = report.get("reconciliation")
    if rec:
        w("")
        w(f"== reconciliation with {rec['tdf']} ({rec['event'] or 'unnamed event'})")
        w(f"  reported matches: {rec['reported']}, agreeing with the game records: {rec['agree']}")
        for d in rec["disagree"]:
            w(f"  DISAGREE round {d['round']} table {d['table']}: {' vs '.join(d['players'])}: "
              f"TDF {d['tdf']}, records {d['records']}")  # fmt: skip
        for d in rec["missing"]:
            w(
                f"  NO RECORDS round {d['round']} table {d['table']}: {' vs '.join(d['players'])} "
                f"(TDF {d['tdf']})"
            )
        for d in rec["unrecorded_byes"]:
            w(f"  BYE WITH GAMES round {d['round']}: {d['players'][0]}")
        for d in rec["not_in_tdf"]:
            w(f"  NOT IN THE TDF round {d['round']}: {' vs '.join(d['players'])} ({d['series']})")
        if rec["unknown_players"]:
            w("  players of the records not in the TDF: " + ", ".join(rec["unknown_players"]))
        for div in rec["standings"]:
            for d in div["differences"]:
                w(f"  STANDINGS DIFFER {div['division']}: {d['player']} TOM #{d['tom']}, "
                  f"Prizecheck #{d['prizecheck']}: {d['why']}")  # fmt: skip
    writer.flush()


def _event(w: Callable[[str], None], ev: Mapping[str, Any], limit: int) -> None:
    matches = ev["matches"]
    done = sum(1 for m in matches if m["status"] == "finished")
    w(f"  event {ev['event']}: {len(matches)} match(es) (best of three), {done} decided")
    for m in matches[:limit]:
        a, b = m["players"]
        tied = f" ({m['ties']} tied)" if m["ties"] else ""
        if m["winner"]:
            verdict = f"{m['winner']} wins"
        else:
            verdict = "tie" if m["status"] == "finished" else m["status"].replace("_", " ")
        w(f"    {m['series']}: {a} {m['wins'][a]}-{m['wins'][b]} {b}{tied}: {verdict}")
    if len(matches) > limit:
        w(f"    ... {len(matches) - limit} more")
    w(f"  standings (win 3, tie 1, loss 0; byes from {ev['byes_from']}):")
    w("     #  player                 pts  W-L-T  bye    OWP    OOWP  cut")
    for row in ev["standings"][:limit]:
        if row["division"] is not None and row["rank"] == 1:
            w(f"   {row['division']}:")
        wlt = f"{row['win']}-{row['loss']}-{row['tie']}"
        drop = " (dropped)" if row["dropped"] is not None else ""
        cut = "" if row["top_cut"] is None else str(row["top_cut"])
        w(
            f"    {row['rank']:>2}. {row['player']:<20} {row['points']:>4}  {wlt:<6} {row['bye']:>3} "
            f"{row['owp'] * 100:>6.2f}% {row['oowp'] * 100:>6.2f}%  {cut}{drop}"
        )
    if len(ev["standings"]) > limit:
        w(f"    ... {len(ev['standings']) - limit} more")
    w("    pts: 3 per match won, 1 per tie; W-L-T: matches won-lost-tied; bye: rounds with a bye;")
    w("    OWP, OOWP: the opponents' and their opponents' match-win rate (each counted at least 25 %);")
    w("    cut: place in the top cut (1 champion, 2 finalist, 3 semifinalists, 5 quarterfinalists)")
    # several divisions: each one's check, named; one or none: the event's
    checks = [(d["division"], d["top_cut_check"]) for d in ev["divisions"] if len(ev["divisions"]) > 1]
    checks = checks or [(None, ev["top_cut_check"])]
    for div, check in checks:
        if check and check["differs"]:
            w(
                f"  TOP CUT DIFFERS from these standings{f' ({div})' if div else ''}: the top "
                f"{check['players']} should play round {check['round']} 1 v {check['players']}, "
                f"2 v {check['players'] - 1}...; " + "; ".join(check["why"])
            )
