"""``prizecheck alarms [--json]`` and ``prizecheck alarms --clear MATCH --by NAME --note TEXT``: the tamper
alarms the service raised (docs/reliability.md, guarantee 5), and clearing one once someone looked into it.

A tamper alarm stands until an operator clears it: ``prizecheck check`` fails while it stands and the
service refuses the match's events. Clearing it removes it from the store (``<p>:{idx}:alarms``) and
writes who cleared it, who looked into it and what they found to the audit log (action ``alarm_cleared``,
with the alarm's own text). It mends nothing: a service that reads the match again (its next event, a
restart) checks it again, and data that is still changed raises the alarm again.
"""

from __future__ import annotations

import argparse
import getpass
import socket
import sys
import time
from typing import TYPE_CHECKING

from replay.cli.common import UsageError, json_line, tr
from replay.engine import InputError

if TYPE_CHECKING:
    from streams.settings import Settings


def configure(parser: argparse.ArgumentParser) -> None:
    """Add the ``alarms`` options."""
    parser.add_argument("--clear", metavar="MATCH", type=match_id, help="clear this match's tamper alarm")
    parser.add_argument("--by", metavar="NAME", help="with --clear: the judge who looked into it")
    parser.add_argument(
        "--note", metavar="TEXT", help="with --clear: what they found (kept in the audit log)"
    )
    parser.add_argument("--json", action="store_true", help="one JSON object per alarm (or the one cleared)")
    parser.add_argument(
        "--redis-prefix", default="pc", help="the key prefix (as serve and the workers use it)"
    )


def match_id(text: str) -> str:
    """An argparse type: a match id."""
    from streams.store.base import is_match_id

    if not is_match_id(text):
        raise argparse.ArgumentTypeError(tr("not a match id: {text}", text=repr(text)))
    return text


def check_options(args: argparse.Namespace) -> None:
    """:class:`UsageError` when the options do not go together."""
    if args.clear is None and (args.by is not None or args.note is not None):
        raise UsageError(tr("--by and --note go with --clear"))
    if args.clear is not None and not (args.by or "").strip():
        raise UsageError(tr("--clear needs --by: the judge who looked into the alarm"))
    if args.clear is not None and not (args.note or "").strip():
        raise UsageError(tr("--clear needs --note: what was found (kept in the audit log)"))


def _settings() -> Settings:
    """The service's settings; InputError when there is no store to read (the command never makes one)."""
    from streams.settings import Settings
    from streams.store.connection import embedded_store_exists

    settings = Settings.from_env()
    if not settings.redis_url and not embedded_store_exists(settings.data_dir):
        raise InputError(
            tr(
                "no store in {path}: nothing has been stored there (set PRIZECHECK_DATA_DIR to the "
                "service's data directory, or REDIS_URL)",
                path=settings.data_dir,
            )
        )
    return settings


async def _clear(settings: Settings, prefix: str, match: str, by: str, note: str) -> tuple[str, str]:
    from replay.cli.services import redis_store
    from streams.ingest import clear_alarm
    from streams.store import AuditEntry

    async with redis_store(settings, prefix) as (store, _where):
        detail = await clear_alarm(store, match)
        if detail is None:
            raise InputError(
                tr(
                    "{match}: no tamper alarm stands for this match (prizecheck alarms lists them)",
                    match=match,
                )
            )
        entry = AuditEntry(
            "alarm_cleared",
            f"cli {getpass.getuser()}",
            target=match,
            origin=socket.gethostname(),
            detail=f"looked into by {by}: {note}; the alarm was: {detail}",
            at=time.time(),
        )
        return detail, await store.audit(entry)


async def _list(settings: Settings, prefix: str) -> dict[str, str]:
    from replay.cli.services import redis_store

    async with redis_store(settings, prefix) as (store, _where):
        return await store.alarms()


def run(args: argparse.Namespace) -> int:
    """List the standing alarms, or clear one."""
    import asyncio  # here, not at the top: asyncio is 10-40 ms of every start-up (issue 40 item 2)

    from replay.cli.words import said
    from streams.store.tamper import Alarm

    check_options(args)
    settings = _settings()
    if args.clear is not None:
        detail, entry_id = asyncio.run(
            _clear(settings, args.redis_prefix, args.clear, args.by.strip(), args.note.strip())
        )
        if args.json:
            sys.stdout.write(json_line({"cleared": args.clear, "alarm": detail, "audit": entry_id}) + "\n")
        else:
            print(
                tr(
                    "{match}: tamper alarm cleared (audit log entry {entry}); it was: {detail}",
                    match=args.clear,
                    entry=entry_id,
                    detail=said(Alarm(detail)),
                )
            )
        return 0
    for match, detail in asyncio.run(_list(settings, args.redis_prefix)).items():
        if args.json:
            sys.stdout.write(json_line({"match": match, "alarm": detail}) + "\n")
        else:
            print(f"{match}  {said(Alarm(detail))}")
    return 0
