"""``prizecheck token create|list|revoke``: the service's bearer tokens (docs/http-api.md, "Access").

Tokens live in the token file (``PRIZECHECK_TOKENS_FILE``, default ``<PRIZECHECK_DATA_DIR>/tokens.json``)
as salted HMAC-SHA256 hashes only (:mod:`streams.tokens`): ``create`` prints the token once, on stdout,
and it cannot be shown again. A running ``prizecheck serve`` picks changes up within a second. Every
change is appended to the audit log (``prizecheck audit-log``).

Rotation with overlapping validity: create the new token, hand it to the producer or judge, and revoke
the old one once nothing uses it any more (or give the old one ``--expires`` at creation). Both are
valid in between, so nothing stops while clients switch.
"""

from __future__ import annotations

import argparse
import datetime as dt
import getpass
import re
import socket
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

from replay.cli.common import json_line, tr
from replay.engine import InputError

if TYPE_CHECKING:
    from streams.settings import Settings
    from streams.store import AuditEntry
    from streams.tokens import TokenEntry


def configure(parser: argparse.ArgumentParser) -> None:
    """Add the ``token`` subcommands."""
    from streams.roles import GRANTABLE

    sub = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    create = sub.add_parser("create", help="create a token and print it once")
    create.add_argument("--name", required=True, help="who or what holds it (a producer, a judge)")
    create.add_argument(
        "--role", action="append", required=True, choices=GRANTABLE, help="a role it grants (repeatable)"
    )
    create.add_argument(
        "--league", action="append", default=[], help="only matches of this league (repeatable)"
    )
    create.add_argument(
        "--event", action="append", default=[], help="only matches of this event (repeatable)"
    )
    create.add_argument(
        "--table",
        action="append",
        default=[],
        help="only the matches at this table of --event (repeatable; a recorder at one table)",
    )
    create.add_argument("--expires", help="when it stops working: 90d, 12h, or a date (2026-12-31)")
    create.add_argument(
        "--if-none",
        action="store_true",
        help="only when the token file holds no token yet, else nothing (a first start: docker-compose.yml)",
    )
    lister = sub.add_parser("list", help="the tokens (never the secrets)")
    lister.add_argument("--json", action="store_true", help="one JSON object per token")
    rev = sub.add_parser("revoke", help="revoke a token by its id")
    rev.add_argument("id", help="the token's id (the 12 hex digits after pc_)")
    for p in (create, rev):  # a change goes to the audit log; list reads the token file only
        p.add_argument("--redis-prefix", default="pc", help="the audit log's key prefix (as serve uses it)")


def _scope(entry: TokenEntry, sep: str = ", ") -> str:
    """A token's scope in a line: its leagues and events, then its tables (``table 12``)."""
    return sep.join([*entry.leagues, *entry.events, *(f"table {t}" for t in entry.tables)])


def expiry(text: str | None, now: float) -> float | None:
    """``90d``/``12h``/``30m`` from now, or an ISO date or date-time (UTC unless it says otherwise)."""
    if text is None:
        return None
    m = re.fullmatch(r"(\d+)([dhm])", text.strip())
    if m:
        return now + int(m.group(1)) * {"d": 86400, "h": 3600, "m": 60}[m.group(2)]
    try:
        when = dt.datetime.fromisoformat(text.strip())
    except ValueError:
        raise InputError(
            tr("expected 90d, 12h, 30m or a date, got {text}", text=repr(text)), field="--expires"
        ) from None
    if when.tzinfo is None:
        when = when.replace(tzinfo=dt.UTC)
    if when.timestamp() <= now:
        raise InputError(tr("{text} is in the past", text=text), field="--expires")
    return when.timestamp()


def run(args: argparse.Namespace) -> int:
    from streams.settings import Settings
    from streams.tokens import read_book, summary

    settings = Settings.from_env()
    path = Path(settings.tokens_path)
    entries = read_book(path)
    now = time.time()
    if args.action == "list":
        for entry in entries:
            s = summary(entry, now)
            if args.json:
                print(json_line(s))
            else:
                scope = _scope(entry) or tr("all matches")
                until = "" if entry.expires is None else tr(" until {date}", date=_date(entry.expires))
                print(
                    f"{entry.id}  {s['state']:<8} {','.join(entry.roles):<22} {scope:<20} {entry.name}{until}"
                )
        if not entries:
            print(tr("no tokens in {path}", path=path), file=sys.stderr)
        return 0
    if args.action == "create" and args.table and not args.event:
        raise InputError(tr("a table scope needs the event its tables are at (--event)"), field="--table")
    if args.action == "create" and args.if_none and entries:
        print(
            "prizecheck token: "
            + tr("{path} holds {n} token(s) already: none created", path=path, n=len(entries)),
            file=sys.stderr,
        )
        return 0
    import asyncio  # here, not at the top: asyncio is 10-40 ms of every start-up (issue 40 item 2)

    # Every change is in the audit log: one that could not be logged is not made (Redis is reached first)
    return asyncio.run(_change(args, settings, path, entries, now))


async def _change(
    args: argparse.Namespace, settings: Settings, path: Path, entries: list[TokenEntry], now: float
) -> int:
    from replay.cli.services import describe, redis_store
    from streams.tokens import new_token, revoke

    async with redis_store(settings, args.redis_prefix) as (store, where):
        if args.action == "create":
            token, entry = new_token(
                args.name,
                args.role,
                leagues=args.league,
                events=args.event,
                tables=args.table,
                expires=expiry(args.expires, now),
                now=now,
            )
            _write(path, [*entries, entry])
            detail = f"roles {','.join(entry.roles)}; scope {_scope(entry, ',') or 'all'}"
            if entry.expires is not None:
                detail += f"; expires {_date(entry.expires)}"
            try:
                await store.audit(_entry("token_create", entry.id, f"{entry.name}: {detail}"))
            except Exception as exc:
                _write(path, entries)  # not logged, so not made
                raise InputError(
                    tr(
                        "lost Redis at {where}: {reason} (the audit log did not take the change: no token "
                        "created)",
                        where=where,
                        reason=describe(exc),
                    )
                ) from None
            print(token)
            print(
                tr(
                    "token {id} ({name}) created in {path}: it is shown this once; send it as "
                    "'Authorization: Bearer <token>'",
                    id=entry.id,
                    name=entry.name,
                    path=path,
                ),
                file=sys.stderr,
            )
            return 0
        changed = revoke(entries, args.id, now)
        _write(path, changed)
        try:
            await store.audit(_entry("token_revoke", args.id, "revoked"))
        except Exception as exc:  # a revocation stays made: an unlogged revocation is safer than a live token
            raise InputError(
                tr(
                    "lost Redis at {where}: {reason} (token {id} is revoked, but the audit log did not "
                    "take it)",
                    where=where,
                    reason=describe(exc),
                    id=args.id,
                )
            ) from None
        print(tr("token {id} revoked", id=args.id), file=sys.stderr)
        return 0


def _write(path: Path, entries: list[TokenEntry]) -> None:
    from replay.codec import unwritable
    from streams.tokens import write_book

    try:
        write_book(path, entries)
    except OSError as exc:
        raise unwritable(exc, str(path)) from None


def _entry(action: str, token_id: str, detail: str) -> AuditEntry:
    from streams.store import AuditEntry

    return AuditEntry(
        action,
        f"cli {getpass.getuser()}",
        target=f"token {token_id}",
        origin=socket.gethostname(),
        detail=detail,
        at=time.time(),
    )


def _date(ts: float) -> str:
    return dt.datetime.fromtimestamp(ts, dt.UTC).strftime("%Y-%m-%dT%H:%MZ")
