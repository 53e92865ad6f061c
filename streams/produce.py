"""``prizecheck produce FILE...``: send event files to Kafka, keyed by match, as msgpack.

Every file is read and validated first (``replay.codec.read_events``: ``.jsonl``, ``.msgpack`` or ``-``),
so a bad file (exit status 2, naming file, line and field) sends nothing. Then each event goes to
``PRIZECHECK_TOPIC`` (default ``prizecheck.events``) as its canonical msgpack, with the match as the
record key, so all events of a match land in one partition in file order. The producer waits for every
acknowledgement (``acks=all``) and prints the counts. Idempotence stays off (aiokafka's default): some
Kafka-compatible brokers (Tansu) do not support idempotent producers, and the consumers tolerate
duplicates anyway.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from collections.abc import Iterable
from typing import Any

from replay.chain import canonical_bytes
from replay.codec import read_events
from streams.settings import Settings

WINDOW = 5000  # unacknowledged sends in flight before waiting


def configure(parser: argparse.ArgumentParser) -> None:
    """Add the ``produce`` options."""
    parser.add_argument("files", nargs="+", metavar="FILE", help="event files: .jsonl, .msgpack, - (stdin)")
    parser.add_argument("--topic", help="topic (default PRIZECHECK_TOPIC or prizecheck.events)")
    parser.add_argument("--quiet", action="store_true", help="print nothing on success")


def run(args: argparse.Namespace) -> int:
    """Read, validate, send, flush; print ``sent N events of M matches``. Exit 1 when Kafka fails."""
    settings = Settings.from_env()
    topic = args.topic or settings.topic
    events: list[dict[str, Any]] = []
    for path in args.files:
        events.extend(event for _, event in read_events(path))  # InputError -> exit 2, nothing sent
    started = time.monotonic()
    try:
        asyncio.run(produce(settings, events, topic=topic))
    except Exception as exc:
        print(f"prizecheck produce: Kafka at {settings.kafka_url} failed: {exc!r}", file=sys.stderr)
        return 1
    if not args.quiet:
        matches = len({e["match"] for e in events})
        took = time.monotonic() - started
        print(
            f"prizecheck produce: sent {len(events)} events of {matches} matches from {len(args.files)} "
            f"file(s) to {topic} in {took:.2f} s"
        )
    return 0


def encode(event: dict[str, Any]) -> tuple[bytes, bytes]:
    """The Kafka record of an event: (key = match as UTF-8, value = canonical msgpack)."""
    return str(event["match"]).encode("utf-8"), canonical_bytes(event)


async def produce(
    settings: Settings,
    events: Iterable[dict[str, Any]],
    *,
    topic: str | None = None,
    ensure: bool = True,
) -> int:
    """Send ``events`` and wait for every acknowledgement; return the number sent.

    ``ensure`` creates the topics first when they are missing (with ``settings.partitions``), so a broker
    with auto-creation does not make a one-partition topic.
    """
    return await send_records(settings, (encode(e) for e in events), topic=topic, ensure=ensure)


async def send_records(
    settings: Settings,
    records: Iterable[tuple[bytes | None, bytes]],
    *,
    topic: str | None = None,
    ensure: bool = True,
) -> int:
    """Send raw ``(key, value)`` records (benchmarks and tests use it for bytes that are not events)."""
    from aiokafka import AIOKafkaProducer

    from streams.app import bootstrap_servers, ensure_topics

    if ensure:
        await ensure_topics(settings)
    producer = AIOKafkaProducer(
        bootstrap_servers=bootstrap_servers(settings.kafka_url),
        acks="all",
        enable_idempotence=False,
        linger_ms=5,
    )
    await producer.start()
    sent = 0
    try:
        pending: list[asyncio.Future[Any]] = []
        for key, value in records:
            pending.append(await producer.send(topic or settings.topic, value, key=key))
            sent += 1
            if len(pending) >= WINDOW:
                await asyncio.gather(*pending)
                pending.clear()
        await producer.flush()
        await asyncio.gather(*pending)
    finally:
        await producer.stop()
    return sent
