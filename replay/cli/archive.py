"""``prizecheck archive --to DIR [--before DATE] [--league L] [--season S] [--redis-prefix P] [--json]``: move
finished, settled matches from Redis to Parquet files (the cold archive, docs/storage.md).

Each match's events (with their chain heads) and its records (with their versions) are written under ``DIR``
partitioned by league and season, read back and verified as ``prizecheck check`` verifies an archive; only
then does the match's event stream leave Redis (its record, versions, board and index entry stay). The
archive's files are listed, with the state each match was archived at, in its manifest, signed with the
checkpoint key (``streams.store.manifest``). ``check``, ``show --history``, the review page and the ingest
core read an archived match's events from its Parquet copy. Prints one line: what was archived and Redis's
memory before and after; each match left in Redis with its reason on stderr (``--json``: one object). Exit 0,
or 2 with one line when the store cannot be reached.
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import sys
from typing import Any

from replay.cli.common import json_line, tr, why
from replay.cli.words import said
from replay.engine import InputError
from replay.extras import needs_extra


def configure(parser: argparse.ArgumentParser) -> None:
    """Add the ``archive`` options."""
    parser.add_argument("--to", metavar="DIR", required=True, help="the archive's directory (made if needed)")
    parser.add_argument(
        "--before", metavar="DATE", type=day, help="only games started before DATE (YYYY-MM-DD)"
    )
    parser.add_argument("--league", help="only this league's matches")
    parser.add_argument("--season", help="only this season's matches")
    parser.add_argument("--json", action="store_true", help="the summary as one JSON object")
    parser.add_argument(
        "--redis-prefix", default="pc", help="the key prefix (default pc, as serve and the workers use it)"
    )


def day(text: str) -> dt.date:
    """An argparse type: a date as YYYY-MM-DD."""
    try:
        return dt.date.fromisoformat(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            tr("expected a date as YYYY-MM-DD, got {text}", text=repr(text))
        ) from None


async def _run(args: argparse.Namespace) -> dict[str, Any]:
    from replay.cli.services import redis_store
    from streams.archive import archive
    from streams.settings import Settings
    from streams.store.checkpoint import CheckpointError, configured_key, service_signer
    from streams.store.connection import embedded_store_exists
    from streams.store.manifest import ManifestError

    settings = Settings.from_env()
    try:
        signer = service_signer(settings)
        # the manifest is signed with the checkpoint key, as the service finds it (serve makes it first)
        key = configured_key(
            settings.signing_key, settings.key_id, settings.data_dir, create=False, keys_dir=settings.keys_dir
        )
    except CheckpointError as exc:
        raise InputError(tr("the signing keys: {reason}", reason=why(exc))) from None
    if not settings.redis_url and not embedded_store_exists(settings.data_dir):
        raise InputError(
            tr(
                "no store in {path}: nothing has been stored there (set PRIZECHECK_DATA_DIR to the "
                "service's data directory, or REDIS_URL)",
                path=settings.data_dir,
            )
        )
    async with redis_store(settings, args.redis_prefix) as (store, where):
        before = await store.used_memory()
        try:
            run = await archive(
                store,
                os.path.abspath(args.to),
                before=args.before,
                league=args.league,
                season=args.season,
                signing_key=signer,
                key_id=settings.key_id,
                manifest_key=key,
            )
        except ManifestError as exc:
            raise InputError(said(exc.args[0])) from None
        after = await store.used_memory()
    return {
        "archived": len(run.archived),
        "events": run.events,
        "files": run.files,
        "skipped": run.skipped,
        "memory_before": before,
        "memory_after": after,
        "store": where,
        "to": os.path.abspath(args.to),
        "manifest": "signed" if key is not None else "unsigned",
    }


def run(args: argparse.Namespace) -> int:
    """Archive the selection; print the summary."""
    try:  # what it runs on, asked before anything is made: the service (Redis) and pyarrow (Parquet)
        import pyarrow  # noqa: F401

        import streams.archive  # noqa: F401
    except ImportError as exc:
        if (exc.name or "").split(".")[0] in ("replay", "streams", "schemas"):
            raise  # a module of our own missing is a bug: let it show
        raise InputError(needs_extra(exc, "service", "archive")) from None
    try:
        os.makedirs(args.to, exist_ok=True)
    except OSError as exc:
        raise InputError(tr("cannot write: {reason}", reason=exc.strerror or exc), file=args.to) from None
    import asyncio  # here, not at the top: asyncio is 10-40 ms of every start-up (issue 40 item 2)

    summary = asyncio.run(_run(args))
    if args.json:
        sys.stdout.write(json_line(summary) + "\n")
        return 0
    for match, left in sorted(summary["skipped"].items()):
        print(
            "prizecheck archive: " + tr("{match}: left in Redis: {why}", match=match, why=said(left)),
            file=sys.stderr,
        )
    if summary["manifest"] == "unsigned":
        print(
            "prizecheck archive: "
            + tr(
                "no signing key (the service's key directory, or PRIZECHECK_SIGNING_KEY): "
                "the manifest is unsigned, and report --parquet refuses the archive"
            ),
            file=sys.stderr,
        )
    mb = 1024 * 1024
    print(
        tr(
            "archived {matches} matches ({events} events) to {to}; {left} left in Redis; Redis used_memory "
            "{before} MB -> {after} MB",
            matches=summary["archived"],
            events=summary["events"],
            to=summary["to"],
            left=len(summary["skipped"]),
            before=f"{summary['memory_before'] / mb:.1f}",
            after=f"{summary['memory_after'] / mb:.1f}",
        )
    )
    return 0
