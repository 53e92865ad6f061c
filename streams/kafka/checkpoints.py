"""The workers' checkpoint log and shared key, kept in Kafka (outside Redis).

- ``<PRIZECHECK_TOPIC>.checkpoints`` (:func:`checkpoint_topic`): every signed checkpoint a worker writes
  (:mod:`streams.store.checkpoint`), appended before the batch's offsets are committed: one record per
  partition per batch, whose value is the checkpoints of that partition's matches, one JSON line each
  (the partition is the one the match's key gives, as for its events; a record per checkpoint cost the
  worker a send each).
  Kafka is append-only to anyone who can only write Redis, as a transparency log's witnesses are to its
  operator: a Redis-level attacker can put an older state back, but not remove the newer checkpoint that
  says it was rolled back. The topic has the events topic's partition count, so a match's checkpoints are
  in the partition of the same number as its events; a worker assigned partitions reads theirs once
  (:meth:`KafkaCheckpoints.load`), to know each of its matches' newest checkpoint when it rebuilds one.
- ``<PRIZECHECK_TOPIC>.key`` (:func:`key_topic`): when no ``PRIZECHECK_SIGNING_KEY`` is set, the key every
  worker signs checkpoints and seals held events with: the first record of its one partition, written by
  the first worker that found it empty (:func:`shared_key`; two workers racing both read the first one
  back). It is never in Redis. Anyone who can read the topic holds it, so a deployment that wants
  protection against more than a Redis-level attacker sets ``PRIZECHECK_SIGNING_KEY`` (docs/reliability.md).

``prizecheck check --kafka`` reads both (:func:`read_checkpoints`).
"""

from __future__ import annotations

import asyncio
import logging
import secrets
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from aiokafka.partitioner import DefaultPartitioner

from replay.i18n import Phrase
from streams.settings import Settings
from streams.store.checkpoint import Checkpoint, CheckpointError, CheckpointKey, Latest, ring_key

log = logging.getLogger("prizecheck.checkpoints")
_PARTITIONER = DefaultPartitioner()  # the producers': a match's checkpoints go where its events go


def checkpoint_topic(settings: Settings) -> str:
    """The checkpoint topic's name: the events topic's, with ``.checkpoints``."""
    return f"{settings.topic}.checkpoints"


def key_topic(settings: Settings) -> str:
    """The shared key's topic: the events topic's name, with ``.key``."""
    return f"{settings.topic}.key"


class KafkaCheckpoints(Latest):
    """The checkpoint log of the workers: a topic of signed checkpoints (a record per partition per batch).

    ``append`` sends with ``acks=all`` and waits for every acknowledgement; ``load`` reads partitions once
    and keeps each owned match's newest checkpoint that verifies. ``start`` before use, ``close`` after.
    """

    def __init__(
        self,
        bootstrap: str,
        topic: str,
        key: CheckpointKey | None,
        *,
        store: str | None = None,
        partitions: int | None = None,
    ) -> None:
        super().__init__(store)
        self.bootstrap = bootstrap
        self.topic = topic
        self.key = key
        self.partitions = partitions  # the topic's partition count, when known
        self.skipped = 0  # records that are not a checkpoint signed by the key
        self._producer: Any = None

    async def start(self) -> None:
        from aiokafka import AIOKafkaProducer

        self._producer = AIOKafkaProducer(
            bootstrap_servers=self.bootstrap, acks="all", enable_idempotence=False, linger_ms=0
        )
        await self._producer.start()

    async def append(self, checkpoints: Sequence[Checkpoint]) -> None:
        if not checkpoints:
            return
        assert self._producer is not None, "KafkaCheckpoints.start() first"
        if self.partitions is None:
            self.partitions = len(await self._producer.partitions_for(self.topic))
        every = list(range(self.partitions))
        by_partition: dict[int, list[bytes]] = {}
        for ck in checkpoints:
            p = int(_PARTITIONER(ck.match.encode(), every, every))
            by_partition.setdefault(p, []).append(ck.encode())
        sent = [
            await self._producer.send(self.topic, b"\n".join(lines), partition=p)
            for p, lines in sorted(by_partition.items())
        ]
        await asyncio.gather(*sent)
        for ck in checkpoints:
            self.note(ck)

    async def load(
        self, partitions: Iterable[int] | None, owns: Callable[[str], bool], *, timeout: float = 60.0
    ) -> int:
        """Read ``partitions`` of the topic (all when None) from the start to their end now, and know the
        newest checkpoint of every match ``owns`` says is this worker's. Returns how many were read."""
        read = 0
        values = await asyncio.wait_for(read_checkpoints(self.bootstrap, self.topic, partitions), timeout)
        for value in values:
            read += 1
            try:
                ck = Checkpoint.decode(value)
            except CheckpointError:
                self.skipped += 1
                continue
            if not ck.verify(self.key):
                self.skipped += 1
                continue
            if owns(ck.match):
                self.note(ck)
        return read

    async def close(self) -> None:
        if self._producer is not None:
            producer, self._producer = self._producer, None
            await producer.stop()


async def read_values(bootstrap: str, topic: str, partitions: Iterable[int] | None = None) -> list[bytes]:
    """The values of ``topic``'s records (of ``partitions``, or all), from offset 0 to each partition's
    end as of the first fetch; [] for a topic that does not exist."""
    from aiokafka import AIOKafkaConsumer, TopicPartition

    consumer = AIOKafkaConsumer(
        bootstrap_servers=bootstrap, enable_auto_commit=False, group_id=None, auto_offset_reset="earliest"
    )
    await consumer.start()
    try:
        if topic not in await consumer.topics():
            return []
        known = consumer.partitions_for_topic(topic) or set()
        wanted = sorted(known if partitions is None else set(partitions) & known)
        tps = [TopicPartition(topic, p) for p in wanted]
        if not tps:
            return []
        consumer.assign(tps)
        listed = await consumer.end_offsets(tps)
        await consumer.seek_to_beginning(*tps)
        out: list[bytes] = []
        todo = {tp for tp in tps if listed[tp] > 0}
        ends: dict[Any, int] = {}
        # the end of each partition is the high watermark of its first fetch (Tansu's ListOffsets answers
        # the last batch's base offset + 1: streams/check.py, _read_partitions)
        while todo:
            batch = await consumer.getmany(*todo, timeout_ms=500)
            for tp in list(todo):
                if tp not in ends and consumer.highwater(tp) is not None:
                    ends[tp] = consumer.highwater(tp)
                for r in batch.get(tp, ()):
                    if tp not in ends or r.offset < ends[tp]:
                        out.append(r.value)
                if tp in ends and await consumer.position(tp) >= ends[tp]:
                    todo.discard(tp)
        return out
    finally:
        await consumer.stop()


async def shared_key(bootstrap: str, topic: str, *, create: bool) -> CheckpointKey | None:
    """The key kept in ``topic`` (the first record of partition 0), written first when the topic is empty
    and ``create``; None when there is none and ``create`` is false."""
    values = await read_values(bootstrap, topic, [0])
    if not values and create:
        from aiokafka import AIOKafkaProducer

        producer = AIOKafkaProducer(bootstrap_servers=bootstrap, acks="all", enable_idempotence=False)
        await producer.start()
        try:
            await producer.send_and_wait(topic, secrets.token_hex(32).encode(), partition=0)
        finally:
            await producer.stop()
        values = await read_values(bootstrap, topic, [0])
    if not values:
        return None
    try:
        key = bytes.fromhex(values[0].decode("ascii").strip())
    except (UnicodeDecodeError, ValueError):
        raise CheckpointError(Phrase("the first record of {topic} is not a hex key", topic=topic)) from None
    return CheckpointKey(key, "kafka")


async def read_checkpoints(
    bootstrap: str, topic: str, partitions: Iterable[int] | None = None
) -> list[bytes]:
    """Every checkpoint line of the checkpoint topic (of ``partitions``, or all), in partition order."""
    return [line for value in await read_values(bootstrap, topic, partitions) for line in value.split(b"\n")]


async def ensure_checkpoint_topics(settings: Settings, partitions: int) -> dict[str, int]:
    """Create the checkpoint topic (``partitions`` partitions: the events topic's) and the key topic (one)
    when they are missing; returns every topic's partition count as found."""
    from streams.kafka.app import ensure_topics

    return await ensure_topics(
        settings, extra={checkpoint_topic(settings): partitions, key_topic(settings): 1}
    )


async def open_worker_log(settings: Settings, prefix: str, *, partitions: int | None) -> KafkaCheckpoints:
    """A worker's checkpoint log, started, with its key: ``PRIZECHECK_SIGNING_KEY``, else the shared key
    of the key topic (created by the first worker). ``partitions``: the checkpoint topic's count."""
    from streams.kafka.app import bootstrap_servers

    bootstrap = bootstrap_servers(settings.kafka_url)
    if settings.signing_key is not None:
        key: CheckpointKey | None = CheckpointKey(settings.signing_key, settings.key_id or "default")
    else:
        key = await shared_key(bootstrap, key_topic(settings), create=True)
    # Ed25519 when the workers share a key directory (PRIZECHECK_KEYS_DIR): what they sign anyone can check
    key = ring_key(settings.keys_path, key, create=False)
    checkpoints = KafkaCheckpoints(
        bootstrap, checkpoint_topic(settings), key, store=prefix, partitions=partitions
    )
    await checkpoints.start()
    return checkpoints
