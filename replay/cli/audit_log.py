"""``prizecheck audit-log [--after ID] [--count N] [--action A] [--json]``: the access audit log.

Who did what, when and from where: every write over HTTP, every judge read of hidden information, every
refused request and every token change (docs/http-api.md, "Audit log"). It is read from Redis
(``REDIS_URL``, or the embedded server under ``PRIZECHECK_DATA_DIR``) and is never served over HTTP.
"""

from __future__ import annotations

import argparse
import datetime as dt
import re
import sys
from typing import TYPE_CHECKING

from replay.cli.common import at_least, json_line, tr

if TYPE_CHECKING:
    from streams.settings import Settings
    from streams.store import AuditEntry


def configure(parser: argparse.ArgumentParser) -> None:
    """Add the ``audit-log`` options."""
    parser.add_argument(
        "--after", metavar="ID", type=entry_id, help="only entries after this one (its id, as printed)"
    )
    parser.add_argument(
        "--count", type=at_least(1), default=1000, help="at most this many entries (default 1000)"
    )
    parser.add_argument(
        "--action", action="append", help="only these actions (write, read_hidden, refused...)"
    )
    parser.add_argument("--json", action="store_true", help="one JSON object per entry")
    parser.add_argument(
        "--redis-prefix", default="pc", help="the key prefix (as serve and the workers use it)"
    )


def entry_id(text: str) -> str:
    """An argparse type: an entry's id as printed (``1767000000000-0``, a Redis stream id)."""
    if not re.fullmatch(r"\d{1,20}(-\d{1,20})?", text):
        raise argparse.ArgumentTypeError(
            tr("expected an entry id as printed (1767000000000-0), got {text}", text=repr(text))
        )
    return text


async def fetch(settings: Settings, prefix: str, after: str | None, count: int) -> list[AuditEntry]:
    """Entries of the audit log, in order."""
    from replay.cli.services import redis_store

    async with redis_store(settings, prefix) as (store, _where):
        return await store.audit_log(after=after, count=count)


def run(args: argparse.Namespace) -> int:
    import asyncio  # here, not at the top: asyncio is 10-40 ms of every start-up (issue 40 item 2)

    from streams.settings import Settings

    entries = asyncio.run(fetch(Settings.from_env(), args.redis_prefix, args.after, args.count))
    for e in entries:
        if args.action and e.action not in args.action:
            continue
        if args.json:
            row = {"id": e.id, "at": e.at, "action": e.action, "actor": e.actor, "target": e.target}
            row.update(origin=e.origin, detail=e.detail)
            sys.stdout.write(json_line(row) + "\n")
        else:
            when = dt.datetime.fromtimestamp(e.at, dt.UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")[:-4] + "Z"
            detail = _detail(e.action, e.detail)
            sys.stdout.write(
                f"{e.id}  {when}  {e.action:<12} {e.actor:<28} {e.origin:<16} {e.target}  {detail}\n"
            )
    return 0


def _detail(action: str, detail: str) -> str:
    """An entry's detail as a person reads it: a tamper alarm's in the command line's language
    (streams.store.tamper: kept in English, as ``--json`` shows it); any other as written."""
    if action != "tamper_alarm":
        return detail
    from replay.cli.words import said
    from streams.store.tamper import Alarm

    return said(Alarm(detail))
