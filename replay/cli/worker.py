"""``prizecheck worker``: one Faust worker consuming ``prizecheck.events`` into Redis.

Settings come from the environment (:mod:`streams.settings`: ``KAFKA_URL``, ``REDIS_URL``,
``PRIZECHECK_PARTITIONS``, ``WORKER_ID``, gap limits, signing key). Run as many workers as you like with
the same settings: Kafka's consumer group splits the partitions between them, and a match (one partition
key) is always processed by one worker at a time. The worker prints one line per assignment::

    prizecheck worker w1: partitions [0, 1, 2, 3]

and, on stderr when it stops, its counters as JSON (``received`` = ``applied`` + ``duplicate`` +
``buffered`` + ``dead_letter``)::

    prizecheck worker w1: stopping; stats {"applied": 3431, "dead_letter": 3, ...}

Exit status: 0 after SIGTERM/SIGINT; 2 when Redis cannot be reached, Kafka cannot be reached within
``--connect-wait`` seconds, or a setting is malformed (one line naming what and where).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from typing import TYPE_CHECKING, Any

from replay.cli.common import UsageError, at_least, json_line, tr, why
from replay.engine import InputError

if TYPE_CHECKING:
    from streams.settings import Settings

CONNECT_WAIT = 60.0
LOG_LEVELS = ("debug", "info", "warning", "error", "critical")


def configure(parser: argparse.ArgumentParser) -> None:
    """Add the ``worker`` options."""
    from streams.kafka.batching import Batching

    parser.add_argument(
        "--web-port",
        type=at_least(1),
        default=None,
        help="serve Faust's web pages (/stats etc.) on this port; off by default (each worker needs its own)",
    )
    parser.add_argument(
        "--redis-prefix",
        default="pc",
        help="key prefix in Redis (default pc, what prizecheck serve reads); tests use a unique one",
    )
    parser.add_argument(
        "--group",
        default="prizecheck",
        help="Kafka consumer group (default prizecheck); a new group re-reads the topic from the start",
    )
    Batching.add_arguments(parser)
    parser.add_argument(
        "--loglevel", default="warning", help="Faust log level: debug, info, warning (default), error"
    )
    parser.add_argument(
        "--connect-wait",
        type=seconds,
        default=CONNECT_WAIT,
        help="seconds to keep trying to reach Kafka at start (default %(default)g)",
    )


def seconds(text: str) -> float:
    """An argparse type: seconds >= 0."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            tr("expected a number of seconds, got {text}", text=repr(text))
        ) from None
    if not value >= 0:
        raise argparse.ArgumentTypeError(tr("must be >= 0, got {text}", text=text))
    return value


def check_options(args: argparse.Namespace) -> None:
    """The batch bounds in range (UsageError): a batch of at least one record, positive waits."""
    if args.batch_size < 1:
        raise UsageError(tr("argument --batch-size: must be >= 1, got {value}", value=args.batch_size))
    for flag, value in (("--batch-within", args.batch_within), ("--batch-idle", args.batch_idle)):
        if not value > 0:
            raise UsageError(tr("argument {flag}: must be > 0, got {value}", flag=flag, value=f"{value:g}"))
    if not args.batch_lag >= 0:
        raise UsageError(tr("argument --batch-lag: must be >= 0, got {value}", value=f"{args.batch_lag:g}"))
    if args.loglevel.lower() not in LOG_LEVELS:
        raise UsageError(
            tr(
                "argument --loglevel: one of {levels}, got {value}",
                levels=", ".join(LOG_LEVELS),
                value=repr(args.loglevel),
            )
        )


def run(args: argparse.Namespace) -> int:
    """Run one worker until SIGTERM or SIGINT."""
    from replay.cli.services import check_kafka_url, check_redis_url, kafka_failure, reach_redis
    from streams.kafka.batching import Batching
    from streams.reasons import redact
    from streams.settings import Settings

    check_options(args)
    import faust

    from streams.ingest import IngestCore
    from streams.kafka.agents import Pipeline, dlq_topic, install
    from streams.kafka.app import create_app, ensure_topics, tune_gc
    from streams.kafka.checkpoints import checkpoint_topic, ensure_checkpoint_topics, open_worker_log
    from streams.kafka.dlq import FaustDeadLetters
    from streams.store import RedisStore
    from streams.store.checkpoint import CheckpointError

    settings = Settings.from_env()
    name = settings.worker_id
    kafka = check_kafka_url(settings.kafka_url)  # malformed settings: one line, exit 2, before any wait
    check_redis_url(settings.redis_url)
    import asyncio  # here, not at the top: asyncio is 10-40 ms of every start-up (issue 40 item 2)

    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)

    async def ensure(settings: Settings) -> dict[str, int]:
        # the events topic and its DLQ, then the checkpoint topic with as many partitions as it has
        topics = await ensure_topics(settings)
        found = topics.get(settings.topic) or settings.partitions
        return {**topics, **await ensure_checkpoint_topics(settings, found)}

    try:
        conn = loop.run_until_complete(reach_redis(settings))  # InputError: exit 2
        try:
            topics = loop.run_until_complete(_wait_for_kafka(settings, args.connect_wait, ensure))
            # signed checkpoints go to the checkpoint topic, outside Redis (docs/reliability.md, "Tampering")
            checkpoints = loop.run_until_complete(
                open_worker_log(
                    settings, args.redis_prefix, partitions=topics.get(checkpoint_topic(settings))
                )
            )
        except CheckpointError as exc:  # a key file that is not a key: one line naming it, not Kafka's fault
            loop.run_until_complete(conn.close())
            raise InputError(tr("the signing keys: {reason}", reason=why(exc))) from None
        except Exception as exc:
            loop.run_until_complete(conn.close())
            raise kafka_failure(exc, kafka) from None
    except BaseException:
        loop.close()
        raise
    if topics.get(settings.topic) != settings.partitions:
        print(
            f"prizecheck worker {name}: "
            + tr(
                "topic {topic} has {n} partitions, PRIZECHECK_PARTITIONS says {setting}; the topic wins",
                topic=settings.topic,
                n=topics.get(settings.topic),
                setting=settings.partitions,
            ),
            file=sys.stderr,
        )

    # commands of the matches in a batch share round trips: connect() gives one server's client as an
    # AutoPipelineRedis (a cluster's client already pipelines each node's commands of a batch's gather)
    store = RedisStore(conn.client, prefix=args.redis_prefix)
    core = IngestCore.from_settings(store, settings, checkpoint_key=checkpoints.key, checkpoints=checkpoints)
    app = create_app(settings, app_id=args.group, web_port=args.web_port)
    os.makedirs(app.conf.datadir, exist_ok=True)  # Faust makes only the last level
    tune_gc()
    pipeline = Pipeline(core, FaustDeadLetters(dlq_topic(app, settings)), worker_id=name)
    install(app, pipeline, settings, batching=Batching.from_args(args))

    async def on_assigned(sender: Any, assigned: set[Any], **kwargs: Any) -> None:
        mine = sorted(tp.partition for tp in assigned if tp.topic == settings.topic)
        print(f"prizecheck worker {name}: " + tr("partitions {partitions}", partitions=mine), flush=True)

    async def on_shutdown(sender: Any, **kwargs: Any) -> None:
        stats = json_line(pipeline.stats())
        print(
            f"prizecheck worker {name}: " + tr("stopping; stats {stats}", stats=stats),
            file=sys.stderr,
            flush=True,
        )
        await checkpoints.close()
        await conn.close()

    # mode's SignalHandlerT spells its types as strings mypy cannot resolve
    app.on_partitions_assigned.connect(on_assigned)  # type: ignore[arg-type]
    app.on_before_shutdown.connect(on_shutdown)  # type: ignore[arg-type]
    where = f"kafka {redact(settings.kafka_url)}, redis {redact(conn.where)}"
    print(f"prizecheck worker {name}: " + tr("starting ({where})", where=where), flush=True)
    worker = faust.Worker(app, loop=loop, loglevel=args.loglevel, quiet=True, redirect_stdouts=False)
    worker.spinner = None  # a terminal spinner in a service's log is noise
    try:
        worker.execute_from_commandline()
    except SystemExit as exc:
        return exc.code if isinstance(exc.code, int) else 0
    return 0


async def _wait_for_kafka(settings: Settings, wait: float, ensure: Any) -> dict[str, int]:
    """Create the topics if needed, retrying until Kafka answers (compose starts services together)."""
    import asyncio

    deadline = time.monotonic() + wait
    while True:
        try:
            topics: dict[str, int] = await ensure(settings)
            return topics
        except Exception:
            if time.monotonic() >= deadline:
                raise
            await asyncio.sleep(1.0)
