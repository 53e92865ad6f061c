"""``prizecheck audit-log [--after ID] [--count N] [--action A] [--json]``: the access audit log.

Who did what, when and from where: every write over HTTP, every judge read of hidden information, every
refused request and every token change (docs/http-api.md, "Audit log"). It is read from Redis
(``REDIS_URL``, or the embedded server under ``PRIZECHECK_DATA_DIR``) and is never served over HTTP.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import json
import sys

from streams.settings import Settings
from streams.store import AuditEntry, RedisStore
from streams.store.connection import connect


def configure(parser: argparse.ArgumentParser) -> None:
    """Add the ``audit-log`` options."""
    parser.add_argument("--after", metavar="ID", help="only entries after this one (its id, as printed)")
    parser.add_argument("--count", type=int, default=1000, help="at most this many entries (default 1000)")
    parser.add_argument(
        "--action", action="append", help="only these actions (write, read_hidden, refused...)"
    )
    parser.add_argument("--json", action="store_true", help="one JSON object per entry")
    parser.add_argument(
        "--redis-prefix", default="pc", help="the key prefix (as serve and the workers use it)"
    )


async def fetch(settings: Settings, prefix: str, after: str | None, count: int) -> list[AuditEntry]:
    """Entries of the audit log, in order."""
    conn = await connect(settings)
    try:
        return await RedisStore(conn.client, prefix=prefix).audit_log(after=after, count=count)
    finally:
        await conn.close()


def run(args: argparse.Namespace) -> int:
    entries = asyncio.run(fetch(Settings.from_env(), args.redis_prefix, args.after, max(1, args.count)))
    for e in entries:
        if args.action and e.action not in args.action:
            continue
        if args.json:
            row = {"id": e.id, "at": e.at, "action": e.action, "actor": e.actor, "target": e.target}
            row.update(origin=e.origin, detail=e.detail)
            sys.stdout.write(json.dumps(row, sort_keys=True, ensure_ascii=False) + "\n")
        else:
            when = dt.datetime.fromtimestamp(e.at, dt.UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")[:-4] + "Z"
            sys.stdout.write(
                f"{e.id}  {when}  {e.action:<12} {e.actor:<28} {e.origin:<16} {e.target}  {e.detail}\n"
            )
    return 0
