"""``prizecheck check``: check the service's invariants over Redis and the Kafka topic (:mod:`streams.check`).

::

    prizecheck check [--redis URL] [--redis-prefix P] [--kafka URL] [--topic T] [--dlq-topic D]
                     [--redis-only] [--acknowledged FILE] [--checkpoints FILE]... [--timeout S] [--json]

Defaults come from the environment as for the service (``REDIS_URL``, ``KAFKA_URL``, ``PRIZECHECK_TOPIC``,
``PRIZECHECK_DLQ_TOPIC``, ``PRIZECHECK_SIGNING_KEY``, ``PRIZECHECK_KEY_ID``; no ``REDIS_URL``: the embedded
store under ``PRIZECHECK_DATA_DIR``). Without ``--kafka`` or ``KAFKA_URL`` (or with ``--redis-only``) only
Redis is checked, and the output says which invariants were skipped. ``--acknowledged FILE``: events a
client was told were taken (a ``.jsonl`` file), each of which must be archived at its seq or held.

The signed checkpoints (docs/reliability.md, "Tampering") are checked with the service's key
(``PRIZECHECK_SIGNING_KEY``, else the data directory's ``checkpoint.key``, else with Kafka the workers'
key topic) against the checkpoint log: the data directory's ``checkpoints.log`` (``prizecheck serve``'s)
when it exists, the workers' checkpoint topic with Kafka, and every ``--checkpoints FILE``.

Exit status: 0 every invariant holds; 1 a breach (each printed with its code, match, seq and a sentence);
2 the check cannot run (cannot connect, no such topic, bad arguments), with a message, never a traceback.
"""

from __future__ import annotations

import argparse
import os
import sys
from dataclasses import replace
from typing import TYPE_CHECKING

from replay.cli.common import UsageError, json_line, tr, why
from replay.cli.words import language, said
from replay.engine import InputError

if TYPE_CHECKING:
    from streams.check import Acknowledged, CheckpointLogSnapshot, Report
    from streams.settings import Settings
    from streams.store.checkpoint import CheckpointKey

DEFAULT_TIMEOUT = 60.0


def configure(parser: argparse.ArgumentParser) -> None:
    """Add the ``check`` options."""
    parser.add_argument(
        "--redis", metavar="URL", help="Redis to check (default REDIS_URL, else the embedded one)"
    )
    parser.add_argument(
        "--redis-prefix", default="pc", help="the key prefix (default pc, as serve and the workers use it)"
    )
    parser.add_argument("--kafka", metavar="URL", help="Kafka to read the topic from (default KAFKA_URL)")
    parser.add_argument("--topic", help="the events topic (default PRIZECHECK_TOPIC or prizecheck.events)")
    parser.add_argument(
        "--dlq-topic", help="the dead-letter topic (default PRIZECHECK_DLQ_TOPIC or <topic>.dlq)"
    )
    parser.add_argument(
        "--redis-only", action="store_true", help="check Redis alone, even when KAFKA_URL is set"
    )
    parser.add_argument(
        "--acknowledged",
        metavar="FILE",
        help="a .jsonl file of events clients were told were taken: each must be archived at its seq or held",
    )
    parser.add_argument(
        "--checkpoints",
        metavar="FILE",
        action="append",
        default=[],
        help="a checkpoint log file (default: the data directory's checkpoints.log, when it exists; with "
        "Kafka, also the workers' checkpoint topic)",
    )
    parser.add_argument(
        "--timeout",
        type=float,
        default=DEFAULT_TIMEOUT,
        help="seconds to wait for Kafka or Redis (default %(default)g)",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of text")


def run(args: argparse.Namespace) -> int:
    """Run the check; exit 0 (holds), 1 (breaches), 2 (cannot run)."""
    from replay.cli.services import check_kafka_url, check_redis_url, describe, redact
    from streams.check import CheckError, acknowledged_events
    from streams.settings import Settings

    if args.redis_only:
        given = [flag for flag, value in (("--kafka", args.kafka), ("--topic", args.topic)) if value]
        given += ["--dlq-topic"] if args.dlq_topic else []
        if given:
            raise UsageError(
                tr("--redis-only and {given} cannot be combined: no topic is read", given=", ".join(given))
            )
    settings = Settings.from_env()
    if args.redis:
        settings = replace(settings, redis_url=args.redis)
    check_redis_url(settings.redis_url, "--redis" if args.redis else "REDIS_URL")
    kafka = None if args.redis_only else (args.kafka or os.environ.get("KAFKA_URL", "").strip() or None)
    if kafka is not None:
        check_kafka_url(kafka, "--kafka" if args.kafka else "KAFKA_URL")
    topic = args.topic or settings.topic
    if args.dlq_topic:
        dlq = args.dlq_topic
    elif args.topic and not os.environ.get("PRIZECHECK_DLQ_TOPIC", "").strip():
        dlq = f"{args.topic}.dlq"
    else:
        dlq = settings.dlq_topic
    if args.timeout <= 0:
        raise InputError(tr("must be > 0"), field="--timeout")
    acked: list[Acknowledged] = []
    if args.acknowledged:
        from replay.codec import read_events

        acked = acknowledged_events(event for _, event in read_events(args.acknowledged))
    import asyncio  # here, not at the top: asyncio is 10-40 ms of every start-up (issue 40 item 2)

    from redis.exceptions import RedisError  # here: redis is 90 ms of a start-up

    try:
        report, where = asyncio.run(
            _check(settings, args.redis_prefix, kafka, topic, dlq, acked, args.timeout, args.checkpoints)
        )
    except CheckError as exc:
        message = exc.args[0] if exc.args and isinstance(exc.args[0], str) else str(exc)
        print(f"prizecheck check: {said(message)}", file=sys.stderr)
        return 2
    except (OSError, RedisError) as exc:  # Redis went away or failed during the check
        print(
            "prizecheck check: "
            + tr("lost Redis at {where}: {reason}", where=redact(_where(settings)), reason=describe(exc)),
            file=sys.stderr,
        )
        return 2
    if args.json:
        sys.stdout.write(json_line(report.as_json()) + "\n")
    else:
        sys.stdout.write(render(report, where))
    return 0 if report.ok else 1


async def _check(
    settings: Settings,
    prefix: str,
    kafka: str | None,
    topic: str,
    dlq: str,
    acked: list[Acknowledged],
    timeout: float,
    files: list[str],
) -> tuple[Report, str]:
    import asyncio

    from replay.cli.services import describe, redact
    from streams.check import CheckError, check, read_topic
    from streams.kafka.app import bootstrap_servers
    from streams.store import RedisStore
    from streams.store.connection import connect, embedded_store_exists

    if not settings.redis_url and not embedded_store_exists(settings.data_dir):
        raise CheckError(
            tr(
                "no store in {dir}: nothing to check (no REDIS_URL; give --redis URL, or PRIZECHECK_DATA_DIR "
                "of a store prizecheck serve has written)",
                dir=settings.data_dir,
            )
        )
    snapshot = None
    if kafka is not None:
        snapshot = await read_topic(bootstrap_servers(kafka), topic, dlq, timeout=timeout)
    key, log = await _checkpoints(settings, kafka, topic, files, timeout)
    try:
        conn = await asyncio.wait_for(connect(settings), timeout)
    except Exception as exc:
        if settings.redis_url:
            raise CheckError(
                tr(
                    "cannot reach Redis at {where}: {reason}",
                    where=redact(settings.redis_url),
                    reason=describe(exc),
                )
            ) from None
        raise CheckError(
            tr(
                "cannot start the embedded store in {dir}: {reason}",
                dir=settings.data_dir,
                reason=describe(exc),
            )
        ) from None
    try:
        store = RedisStore(conn.client, prefix=prefix)
        try:
            await asyncio.wait_for(conn.client.ping(), timeout)
        except Exception as exc:
            raise CheckError(
                tr("cannot reach Redis at {where}: {reason}", where=redact(conn.where), reason=describe(exc))
            ) from None
        report = await check(
            store,
            signing_key=settings.signing_key,
            key_id=settings.key_id,
            topic=snapshot,
            acknowledged=acked,
            checkpoint_key=key,
            checkpoints=log,
        )
        where = tr("redis {where} (prefix {prefix})", where=conn.where, prefix=prefix)
        if kafka is not None:
            where += ", " + tr(
                "kafka {url} topic {topic} (dead letters: {dlq})", url=kafka, topic=topic, dlq=dlq
            )
        return report, where
    finally:
        await conn.close()


async def _checkpoints(
    settings: Settings, kafka: str | None, topic: str, files: list[str], timeout: float
) -> tuple[CheckpointKey | None, CheckpointLogSnapshot | None]:
    """The checkpoint key and log: see the module docstring. A file named with --checkpoints must exist."""
    import asyncio

    from replay.i18n import Phrase
    from streams.check import CheckError, CheckpointLogSnapshot, read_checkpoint_file
    from streams.kafka.app import bootstrap_servers
    from streams.store.checkpoint import LOG_FILE, Checkpoint, CheckpointError, configured_key, reason

    try:
        key = configured_key(
            settings.signing_key, settings.key_id, settings.data_dir, create=False, keys_dir=settings.keys_dir
        )
    except CheckpointError as exc:
        raise CheckError(tr("the checkpoint key: {reason}", reason=why(exc))) from None
    paths = list(files)
    for path in paths:
        if not os.path.isfile(path):
            raise CheckError(tr("{path}: no such checkpoint log (--checkpoints)", path=path))
    default = os.path.join(settings.data_dir, LOG_FILE)
    if not paths and os.path.isfile(default):
        paths.append(default)
    if kafka is None and not paths:
        return key, None
    log = CheckpointLogSnapshot()
    if kafka is not None:
        from streams.kafka.checkpoints import checkpoint_topic, key_topic, read_checkpoints, shared_key

        bootstrap = bootstrap_servers(kafka)
        named = replace(settings, topic=topic)
        try:
            if key is None:
                key = await asyncio.wait_for(shared_key(bootstrap, key_topic(named), create=False), timeout)
            values = await asyncio.wait_for(read_checkpoints(bootstrap, checkpoint_topic(named)), timeout)
        except TimeoutError:
            raise CheckError(
                tr(
                    "Kafka at {url} did not deliver the checkpoint topic within {timeout} s",
                    url=kafka,
                    timeout=f"{timeout:g}",
                )
            ) from None
        except CheckpointError as exc:
            raise CheckError(reason(exc)) from None
        for n, value in enumerate(values, start=1):
            try:
                ck = Checkpoint.decode(value)
            except CheckpointError as exc:
                log.errors.append(
                    Phrase(
                        "{topic} checkpoint {n}: {reason}",
                        topic=checkpoint_topic(named),
                        n=n,
                        reason=reason(exc),
                    )
                )
                continue
            if not ck.verify(key):
                log.errors.append(
                    Phrase(
                        "{topic} checkpoint {n}: {match}'s checkpoint does not verify",
                        topic=checkpoint_topic(named),
                        n=n,
                        match=ck.match,
                    )
                )
                continue
            log.checkpoints.append(ck)
        log.sources.append(Phrase("topic {name}", name=checkpoint_topic(named)))
    for path in paths:
        read_checkpoint_file(log, path, key)
    return key, log


def _where(settings: Settings) -> str:
    return settings.redis_url or tr("embedded, {path}", path=settings.data_dir)


def render(report: Report, where: str) -> str:
    """The text output: what was checked, the counts, each breach on its own line, the verdict; in the
    command line's language (each breach's ``BREACH code match seq N`` as it is: what a script greps for)."""
    lang = language()
    out = [f"prizecheck check: {where}"]
    out.append(
        "  "
        + tr(
            "{matches} matches, {events} archived events ({applied} in order), {pending} pending, "
            "{alarms} tamper alarms",
            matches=report.matches,
            events=report.events,
            applied=report.applied,
            pending=report.pending,
            alarms=report.alarms,
        )
    )
    if report.produced is not None:
        total = report.applied + (report.duplicates or 0) + (report.dead_letters or 0) + report.pending
        out.append(
            "  "
            + tr(
                "topic: produced {produced}; applied {applied} + duplicates {duplicates} + dead letters "
                "{dead} + pending {pending} = {total}",
                produced=report.produced,
                applied=report.applied,
                duplicates=report.duplicates,
                dead=report.dead_letters,
                pending=report.pending,
                total=total,
            )
        )
    out += ["  " + tr("note: {note}", note=said(note)) for note in report.notes]
    out += [breach.line(lang) for breach in report.breaches]
    n = len(report.breaches)
    out.append(
        "prizecheck check: "
        + (
            tr("every invariant holds")
            if report.ok
            else tr("{n} breaches", n=n)
            if n != 1
            else tr("1 breach")
        )
    )
    return "\n".join(out) + "\n"
