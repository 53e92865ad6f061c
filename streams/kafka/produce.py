"""Sending events to Kafka, keyed by match, as msgpack (``prizecheck produce``: :mod:`replay.cli.produce`).

Each event goes to
``PRIZECHECK_TOPIC`` (default ``prizecheck.events``) as its canonical msgpack, with the match as the
record key, so all events of a match land in one partition in file order. The producer waits for every
acknowledgement (``acks=all``) and prints the counts. Idempotence stays off (aiokafka's default): some
Kafka-compatible brokers (Tansu) do not support idempotent producers, and the consumers tolerate
duplicates anyway.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
from typing import Any

from replay.engine import canonical_bytes
from streams.settings import Settings

WINDOW = 5000  # unacknowledged sends in flight before waiting


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

    from streams.kafka.app import bootstrap_servers, ensure_topics

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
