"""The worker's agent: Kafka records of ``prizecheck.events`` in, the ingest core, dead letters out.

Thin wiring (house style): decode, hand to :class:`streams.ingest.IngestCore`, quarantine what it rejects.

- Records are consumed in batches (:func:`streams.kafka.batching.take_batches`: small and prompt when the
  worker keeps up, up to ``Batching.size`` records when it is behind) and a batch is handed to the core in
  one call (:meth:`IngestCore.ingest_many`): the events of one match keep their partition order and are
  written with one Redis call per match, while different matches run concurrently, so their Redis round trips
  share pipelines. Offsets are acknowledged by Faust after the whole batch is done, and the batch is only
  done once the core has stored it (at-least-once; a redelivered event is a duplicate, which the core
  recognises).
- A record that is not one msgpack map, is keyed by something other than its match, or that the core
  rejects (schema, a different event reusing a seq, ...) goes to the dead-letter topic with its original
  bytes, partition, offset and the reason (:mod:`streams.kafka.dlq`).
- A store error (Redis unreachable) is retried with backoff (the whole batch again: what was stored
  before the error comes back as duplicates), holding the partition back rather than skipping events;
  any other exception is retried a few times, then the batch is handed to the core one event at a time
  with the same rule, and a record that still fails is dead-lettered with the error as the reason, so
  one poison record cannot stall a partition forever.
- A Faust timer calls :meth:`IngestCore.flush_gaps` so events waiting behind a gap are released and the
  gap reported after ``PRIZECHECK_GAP_TIMEOUT`` seconds, counted from when the worker has handled every
  record the partition held when the gap opened (:mod:`streams.kafka.gaps`): a lagging worker first
  reads its backlog, where the missing event may be.
- When partitions are revoked (rebalance), their matches are dropped from the core's memory; the next
  owner rebuilds them from the Redis archive (and the events held behind gaps). Matches idle for
  ``max_idle`` (10 min) are dropped too, so memory holds the games in progress, not the season.
- A record without a key is quarantined: the key (= match) is what keeps a match in one partition.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import time
from collections import Counter
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from typing import Any, NamedTuple, TypeVar

import faust
from aiokafka.partitioner import DefaultPartitioner
from faust.types import TP, EventT, StreamT

from replay.contract.admit import decode_event
from replay.engine import EventError
from streams.ingest import IngestCore, Outcome, StoreContention
from streams.kafka.batching import WORKER_BATCHING, Batching
from streams.kafka.checkpoints import KafkaCheckpoints
from streams.kafka.dlq import DeadLetter, DeadLetterSink
from streams.kafka.gaps import IDLE_TIMEOUTS, GapProgress, Partition
from streams.kafka.keys import key_refusal
from streams.settings import Settings

log = logging.getLogger("prizecheck.worker")

_T = TypeVar("_T")
_R = TypeVar("_R")

#: Exceptions that mean "the store is unreachable, or another writer keeps moving a match, right now":
#: retried without limit (a record that meets them is not poison).
try:
    from redis.exceptions import ConnectionError as _RedisConnectionError
    from redis.exceptions import TimeoutError as _RedisTimeoutError

    TRANSIENT: tuple[type[BaseException], ...] = (
        _RedisConnectionError,
        _RedisTimeoutError,
        OSError,
        StoreContention,
    )
except ImportError:  # pragma: no cover - redis is part of the service extra
    TRANSIENT = (OSError, StoreContention)


class Handled(NamedTuple):
    """What the agent did with one Kafka record (a named tuple: one is built per record).

    ``status``: ``applied`` | ``duplicate`` | ``buffered`` (the core's outcome) or ``dead_letter``.
    """

    status: str
    partition: int
    offset: int
    match: str | None = None
    seq: int | None = None
    reason: str | None = None


class _Record(NamedTuple):  # a tuple: built for every record, so it must be cheap
    key: bytes | None
    value: bytes
    topic: str
    partition: int
    offset: int


class _Refused(NamedTuple):
    """Why a record goes to the dead letters (the arguments of :meth:`Pipeline._dead`)."""

    reason: str
    field: str | None = None
    match: Any = None
    seq: Any = None


class Pipeline:
    """Per-worker processing state: the core, the dead-letter sink, counters and partition ownership.

    ``poison_retries``: attempts for an unexpected (non-store) exception before the record is
    dead-lettered; store errors (:data:`TRANSIENT`) are retried until they succeed, backing off up to
    ``max_backoff`` seconds. ``max_idle``: a match not seen for this many seconds is dropped from memory
    (:meth:`evict_idle`; it is rebuilt from Redis if it comes back), so a long-running worker does not
    keep every game of a season. ``highwater``: a partition's high-water mark as the consumer last saw it
    (None: not known), which a gap's wait is measured against (:mod:`streams.kafka.gaps`; :func:`install`
    reads Faust's consumer).
    """

    def __init__(
        self,
        core: IngestCore,
        dead_letters: DeadLetterSink,
        *,
        worker_id: str = "",
        poison_retries: int = 3,
        max_backoff: float = 5.0,
        max_idle: float = 600.0,
        clock: Callable[[], float] = time.monotonic,
        highwater: Callable[[Partition], int | None] | None = None,
    ) -> None:
        self.core = core
        self.dead_letters = dead_letters
        self.worker_id = worker_id
        self.poison_retries = poison_retries
        self.max_backoff = max_backoff
        self.max_idle = max_idle
        self.clock = clock
        self.highwater = highwater
        self.gaps = GapProgress(idle=IDLE_TIMEOUTS * core.gap_timeout)
        self.counts: Counter[str] = Counter()
        self._owned: dict[tuple[str, int], set[str]] = {}
        self._seen: dict[str, tuple[float, tuple[str, int]]] = {}
        # Set while the partitions' checkpoints are known (:meth:`recover` has run for the assignment):
        # :func:`install`'s hooks clear it as a rebalance begins and set it once the assignment is handled
        # (a pipeline outside Faust, or in its test context, is never rebalanced: set). Faust's recovery
        # service resumes the consumer's flow on its own task, beside the assignment signal that runs
        # :meth:`recover`: without this gate a loaded machine rebuilt a match from a rolled-back Redis
        # before its newest checkpoint was read, and the rollback went unseen (a fresh clone, 2026-12-07).
        self.assigned = asyncio.Event()
        self.assigned.set()

    async def handle_batch(self, events: Sequence[EventT[Any]]) -> list[Handled]:
        """Process a batch of Faust events; the result is in the order of ``events``.

        Never raises (but for cancellation): Faust acknowledges the batch's offsets when the agent's loop
        body ends, even by an exception, so every record must be stored, dead-lettered or waited for here.
        """
        if not self.assigned.is_set():
            await self.assigned.wait()
        self.gaps.begin()
        try:
            return await self._handle_batch(events)
        finally:
            self.gaps.end(self.core.clock())

    async def _handle_batch(self, events: Sequence[EventT[Any]]) -> list[Handled]:
        results: list[Handled | None] = [None] * len(events)
        admitted: list[tuple[int, dict[str, Any], _Record]] = []
        self.counts["received"] += len(events)
        now = self.clock()
        for i, event in enumerate(events):
            key, value, msg = event.key, event.value, event.message
            if type(value) is bytes and (key is None or type(key) is bytes):  # the raw topic's records
                rec = _Record(key, value, msg.topic, msg.partition, msg.offset)
            else:
                rec = _record_of(event)
            try:
                refused = self._admit(rec, now)
            except Exception as exc:  # a bug: quarantine the record rather than lose it
                log.exception("cannot admit %s[%d]@%d", rec.topic, rec.partition, rec.offset)
                refused = _Refused(f"internal error: {exc!r}")
            if isinstance(refused, dict):
                admitted.append((i, refused, rec))
            else:
                results[i] = await self._dead(
                    rec, refused.reason, field=refused.field, match=refused.match, seq=refused.seq
                )
        if admitted:
            try:
                outcomes = await self._ingest_many(
                    [decoded for _, decoded, _ in admitted], [rec.value for _, _, rec in admitted]
                )
            except _Poison as exc:
                log.error("batch failed (%r); ingesting its events one by one", exc.__cause__)
                await self._one_by_one(admitted, results)
            else:
                tally: dict[str, int] = {}
                for (i, _, rec), outcome in zip(admitted, outcomes, strict=True):
                    status = outcome.status
                    if status == "rejected":
                        results[i] = await self._handled(rec, outcome)
                        continue
                    tally[status] = tally.get(status, 0) + 1
                    results[i] = Handled(status, rec.partition, rec.offset, outcome.match, outcome.seq)
                self.counts.update(tally)
        self._progress(events, admitted, results)
        return [r for r in results if r is not None]

    def _progress(
        self,
        events: Sequence[EventT[Any]],
        admitted: list[tuple[int, dict[str, Any], _Record]],
        results: list[Handled | None],
    ) -> None:
        """The batch is done: the consumer's position, the gaps it opened (with their partition's
        high-water mark now) and closed, and the gaps whose wait starts now (:mod:`streams.kafka.gaps`)."""
        # Per batch, not per record: each partition's last offset, and only matches with a gap tracked
        # asked whether they still wait (most batches have none).
        last: dict[tuple[Any, Any], int] = {}
        for event in events:
            msg = event.message
            tp = (msg.topic, msg.partition)
            if msg.offset > last.get(tp, -1):
                last[tp] = msg.offset
        for (topic, partition), offset in last.items():
            self.gaps.handled((str(topic), int(partition)), int(offset))
        now = self.core.clock()  # the clock the core times the held events by
        for i, _, rec in admitted:
            done = results[i]
            if done is None or done.match is None:
                continue
            if done.status == "buffered":
                tp = (rec.topic, rec.partition)
                self.gaps.opened(done.match, tp, self._highwater(tp), now)
            elif self.gaps.tracks(done.match) and not self.core.waiting(done.match):
                self.gaps.closed(done.match)
        self.gaps.caught_up(now)

    def _highwater(self, tp: Partition) -> int | None:
        if self.highwater is None:
            return None
        try:
            mark = self.highwater(tp)
        except Exception:  # the consumer is not running (yet): the gap waits in wall time
            return None
        return mark if isinstance(mark, int) and mark >= 0 else None

    def _admit(self, rec: _Record, now: float) -> dict[str, Any] | _Refused:
        """Decode and check one record: the event for the core, or why it goes to the dead letters."""
        try:
            decoded = decode_event(rec.value)
        except EventError as exc:
            return _Refused(str(exc), exc.field)
        match = decoded.get("match")
        if not isinstance(match, str):
            return decoded  # the core names the problem
        why = key_refusal(rec.key, match)
        if why is not None:
            return _Refused(why, "match", match, _seq(decoded))
        tp = (rec.topic, rec.partition)
        owned = self._owned.get(tp)
        if owned is None:
            owned = self._owned[tp] = set()
        owned.add(match)
        self._seen[match] = (now, tp)
        return decoded

    async def _handled(self, rec: _Record, outcome: Outcome) -> Handled:
        if outcome.status == "rejected":
            return await self._dead(
                rec,
                outcome.reason or "rejected",
                field=outcome.field,
                match=outcome.match,
                seq=outcome.seq,
            )
        self.counts[outcome.status] += 1
        return Handled(outcome.status, rec.partition, rec.offset, outcome.match, outcome.seq)

    async def _one_by_one(
        self, admitted: list[tuple[int, dict[str, Any], _Record]], results: list[Handled | None]
    ) -> None:
        """The fallback after a batch kept failing: per event, so only a poison record is quarantined."""
        groups: dict[Any, list[tuple[int, dict[str, Any], _Record]]] = {}
        for item in admitted:
            groups.setdefault(item[1].get("match"), []).append(item)
        await asyncio.gather(*(self._run_group(g, results) for g in groups.values()))

    async def _run_group(
        self, items: list[tuple[int, dict[str, Any], _Record]], results: list[Handled | None]
    ) -> None:
        for i, decoded, rec in items:
            try:
                outcome = await self._retrying(self.core.ingest, decoded)
            except _Poison as exc:
                results[i] = await self._dead(
                    rec, f"internal error (after retries): {exc.__cause__!r}", match=decoded.get("match")
                )
                continue
            results[i] = await self._handled(rec, outcome)

    async def _ingest_many(self, events: list[dict[str, Any]], raws: list[bytes]) -> list[Outcome]:
        return await self._retrying(functools.partial(self.core.ingest_many, raws=raws), events)

    async def _retrying(self, call: Callable[[_T], Awaitable[_R]], arg: _T) -> _R:
        """``call(arg)``, retried: without limit on a store outage, ``poison_retries`` times otherwise."""
        delay = 0.05
        failures = 0
        while True:
            try:
                return await call(arg)
            except asyncio.CancelledError:
                raise
            except TRANSIENT as exc:
                log.warning("store unavailable (%r); retrying in %.2f s", exc, delay)
            except Exception as exc:
                failures += 1
                log.exception("ingest failed (attempt %d of %d)", failures, self.poison_retries)
                if failures >= self.poison_retries:
                    raise _Poison() from exc
            self.counts["retries"] += 1
            await asyncio.sleep(delay)
            delay = min(delay * 2, self.max_backoff)

    async def _dead(
        self,
        rec: _Record,
        reason: str,
        *,
        field: str | None = None,
        match: Any = None,
        seq: Any = None,
    ) -> Handled:
        letter = DeadLetter(
            value=rec.value,
            key=rec.key,
            topic=rec.topic,
            partition=rec.partition,
            offset=rec.offset,
            reason=reason,
            worker=self.worker_id,
            field=field,
            match=match if isinstance(match, str) else None,
            seq=seq if isinstance(seq, int) and not isinstance(seq, bool) else None,
        )
        delay = 0.05
        while True:  # the record's offset is acknowledged after this batch: it must reach the DLQ
            try:
                await self.dead_letters.send(letter)
                break
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                log.warning("dead-letter topic unavailable (%r); retrying in %.2f s", exc, delay)
                self.counts["retries"] += 1
                await asyncio.sleep(delay)
                delay = min(delay * 2, self.max_backoff)
        self.counts["dead_letter"] += 1
        log.warning("dead letter %s[%d]@%d: %s", rec.topic, rec.partition, rec.offset, reason)
        return Handled("dead_letter", rec.partition, rec.offset, letter.match, letter.seq, reason)

    async def flush_gaps(self) -> list[Outcome]:
        """Release events that waited too long behind a gap (the engine reports the gap)."""
        self.gaps.caught_up(self.core.clock())
        outcomes = await self.core.flush_gaps(started=self.gaps.started)
        for outcome in outcomes:
            self.counts["gaps_reported"] += 1
            log.warning("gap reported: %s", outcome.reason)
            if outcome.match is not None and not self.core.waiting(outcome.match):
                self.gaps.closed(outcome.match)
        return outcomes

    async def recover(self, assigned: set[tuple[str, int]], partitions: int) -> list[str]:
        """Pick up the events left waiting behind a gap (in Redis) for the matches of newly assigned
        partitions, so the gap timeout runs for them even if no other event for those matches arrives.

        A match's partition is the producers' (aiokafka's default partitioner over the match id key, with
        ``partitions`` partitions: the topic's count)."""

        by_partition = {p: (topic, p) for topic, p in assigned}
        owners: dict[str, tuple[str, int] | None] = {}

        def owner(match: str) -> tuple[str, int] | None:
            if match not in owners:
                p = int(_PARTITIONER(match.encode(), list(range(partitions)), []))
                owners[match] = by_partition.get(p)
            return owners[match]

        checkpoints = self.core.checkpoints
        if isinstance(checkpoints, KafkaCheckpoints):
            # each owned match's newest checkpoint, before any of them is rebuilt (a rollback in Redis is
            # then an alarm on the first rebuild, not only for prizecheck check)
            same = checkpoints.partitions == partitions
            try:
                read = await checkpoints.load(
                    sorted(by_partition) if same else None, lambda m: owner(m) is not None
                )
            except Exception as exc:
                log.warning("reading the checkpoint topic failed (%r): rollbacks are left to check", exc)
            else:
                log.info("partitions assigned: %d checkpoints read", read)
        found = await self.core.recover(lambda match: owner(match) is not None)
        now = self.clock()
        for match in found:
            tp = owner(match)
            assert tp is not None
            self._owned.setdefault(tp, set()).add(match)
            self._seen[match] = (now, tp)
            self.gaps.opened(match, tp, self._highwater(tp), self.core.clock())
        if found:
            self.counts["recovered"] += len(found)
            log.info("partitions assigned: %d matches with events waiting behind a gap", len(found))
        return found

    def revoke(self, partitions: set[tuple[str, int]]) -> int:
        """Forget the matches of revoked partitions (their next owner rebuilds them from Redis)."""
        dropped = 0
        for tp in partitions:
            for match in self._owned.pop(tp, set()):
                self.core.forget(match)
                self.gaps.closed(match)
                self._seen.pop(match, None)
                dropped += 1
        return dropped

    def evict_idle(self, now: float | None = None) -> int:
        """Forget matches not seen for ``max_idle`` seconds; return how many.

        Safe because ``max_idle`` is far longer than the gap timeout: by then nothing of the match waits
        in memory, and whatever waits behind a gap is held in Redis and reloaded on the next sight.
        """
        now = self.clock() if now is None else now
        idle = [m for m, (seen, _) in self._seen.items() if now - seen >= self.max_idle]
        for match in idle:
            _, tp = self._seen.pop(match)
            self.core.forget(match)
            self.gaps.closed(match)
            owned = self._owned.get(tp)
            if owned is not None:
                owned.discard(match)
        if idle:
            self.counts["evicted"] += len(idle)
        return len(idle)

    def stats(self) -> dict[str, int]:
        """Counters since start (received = applied + duplicate + buffered + dead_letter)."""
        return {**self.counts, **{f"core_{k}": v for k, v in self.core.stats().items()}}


_PARTITIONER = DefaultPartitioner()


class _Poison(Exception):
    """An event kept failing for a reason that is not a store outage."""


def _record_of(event: EventT[Any]) -> _Record:
    msg = event.message
    try:
        key, value = _as_bytes(event.key), _as_bytes(event.value) or b""
    except TypeError:  # not raw bytes: the app is misconfigured; keep what can be kept
        key, value = None, repr(event.value).encode("utf-8", "replace")
    return _Record(
        key=key, value=value, topic=str(msg.topic), partition=int(msg.partition), offset=int(msg.offset)
    )


def _as_bytes(value: Any) -> bytes | None:
    if value is None or isinstance(value, bytes):
        return value
    if isinstance(value, bytearray | memoryview):
        return bytes(value)
    if isinstance(value, str):
        return value.encode("utf-8")
    raise TypeError(f"expected raw bytes from Kafka, got {type(value).__name__}")


def _seq(event: dict[str, Any]) -> int | None:
    seq = event.get("seq")
    return seq if isinstance(seq, int) and not isinstance(seq, bool) else None


def _raw_topic(app: faust.App, name: str, partitions: int) -> Any:
    """A topic whose keys and values stay bytes: the agent decodes them itself."""
    return app.topic(
        name,
        key_type=bytes,
        value_type=bytes,
        key_serializer="raw",
        value_serializer="raw",
        partitions=partitions,
    )


def events_topic(app: faust.App, settings: Settings) -> Any:
    """The ``prizecheck.events`` topic: raw bytes keys (match) and values (msgpack)."""
    return _raw_topic(app, settings.topic, settings.partitions)


def dlq_topic(app: faust.App, settings: Settings) -> Any:
    """The dead-letter topic: original key and value bytes, coordinates and reason in headers."""
    return _raw_topic(app, settings.dlq_topic, settings.partitions)


def install(
    app: faust.App,
    pipeline: Pipeline,
    settings: Settings,
    *,
    batching: Batching = WORKER_BATCHING,
    flush_interval: float | None = None,
    stats_interval: float = 30.0,
) -> Any:
    """Register the ingest agent, the gap-flush timer and the rebalance hook on ``app``; return the agent.

    ``batching`` (:class:`streams.kafka.batching.Batching`): at most ``size`` records per batch; a batch grows
    only while its records are older than ``lag`` seconds (a backlog), closes after ``idle`` seconds
    without a new record, and never holds a record longer than ``within`` seconds.
    ``flush_interval`` defaults to a quarter of the gap timeout (0.05-1 s).
    """
    topic = events_topic(app, settings)

    async def ingest_events(stream: StreamT[Any]) -> AsyncIterator[list[Handled]]:
        async for batch in batching.take(stream):
            yield await pipeline.handle_batch(batch)

    agent = app.agent(topic, name="prizecheck.ingest")(ingest_events)

    def highwater(tp: Partition) -> int | None:
        mark = app.consumer.highwater(TP(*tp))  # as last fetched (aiokafka): no round trip
        return mark if isinstance(mark, int) else None

    if pipeline.highwater is None:
        pipeline.highwater = highwater

    every = flush_interval or min(1.0, max(0.05, settings.gap_timeout / 4))

    async def flush_gaps() -> None:
        try:
            await pipeline.flush_gaps()
        except Exception as exc:  # Redis down: the next tick tries again
            log.warning("flushing gaps failed (%r); will retry", exc)

    app.timer(every, name="prizecheck.flush_gaps")(flush_gaps)

    async def log_stats() -> None:
        log.info("stats %s", pipeline.stats())

    app.timer(stats_interval, name="prizecheck.stats")(log_stats)

    async def evict_idle() -> None:
        pipeline.evict_idle()

    app.timer(max(1.0, min(60.0, pipeline.max_idle / 4)), name="prizecheck.evict_idle")(evict_idle)

    async def on_revoked(sender: Any, revoked: set[TP], **kwargs: Any) -> None:
        # every rebalance, the first one too (aiokafka revokes the empty set), begins here; Faust has
        # suspended the flow and waited for the batches in flight
        pipeline.assigned.clear()
        dropped = pipeline.revoke({(tp.topic, tp.partition) for tp in revoked})
        if dropped:
            log.info("partitions revoked: %d matches dropped from memory", dropped)

    async def on_assigned(sender: Any, assigned: set[TP], **kwargs: Any) -> None:
        try:
            mine = {(tp.topic, tp.partition) for tp in assigned if tp.topic == settings.topic}
            await pipeline.recover(mine, settings.partitions)
        except Exception as exc:  # Redis down: the matches are recovered when their next event comes
            log.warning("recovering waiting events failed (%r)", exc)
        finally:
            pipeline.assigned.set()

    # mode's SignalHandlerT spells its types as strings mypy cannot resolve
    app.on_partitions_revoked.connect(on_revoked)  # type: ignore[arg-type]
    app.on_partitions_assigned.connect(on_assigned)  # type: ignore[arg-type]
    return agent
