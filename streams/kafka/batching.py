"""Batches of Faust events whose size follows the load: small and prompt when idle, large when busy.

Faust's ``Stream.take_events(max_, within)`` waits a fixed ``within`` for a batch to fill. A fixed window
must choose between latency and throughput: with the 20 ms the worker used to wait, a busy worker got
~100-350 records per batch, under 3 events per match with 169 games in flight, so every event paid for a
Redis write of its own match's record and board (docs/performance.md, "Pipeline"); a longer window
makes a quiet stream wait for nothing.

:func:`take_batches` lets a batch grow only while the worker is *behind*: while the newest record in
it was produced more than ``lag`` seconds ago (its Kafka timestamp), i.e. there is a backlog, and holding
the batch open delays nothing that could have been handled sooner. It closes a batch when

- ``max_`` records are in it, or
- the worker has caught up (the newest record is younger than ``lag``): a live stream's events go out
  after at most ``idle`` seconds, whatever its rate, or
- no record arrived for ``idle`` seconds (nothing more to fetch right now), or
- the first record has waited ``within`` seconds (bounds the added latency in every case, including
  clocks that disagree: a producer clock behind the worker's makes records look late).

It is Faust's ``take_events`` (faust-streaming 0.15.3, ``faust/streams.py``) with that change to its wait
loop: the same passive-processor buffering, acknowledgements after the batch has been handled
(at-least-once) and the same clean-up.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import AsyncGenerator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # faust is imported by the worker only: `prizecheck worker --help` must not need it
    from faust.types import EventT


@dataclass(frozen=True)
class Batching:
    """The worker's batch bounds (see the module docstring); the defaults are what ``prizecheck worker``
    runs with."""

    size: int = 4000  # records per batch at most
    within: float = 1.0  # seconds a record may wait for its batch, at most
    idle: float = 0.01  # a batch closes after this many seconds without a new record
    lag: float = 0.25  # a batch grows only while its newest record is older than this

    @staticmethod
    def add_arguments(parser: argparse.ArgumentParser) -> None:
        """``--batch-size``, ``--batch-within``, ``--batch-idle``, ``--batch-lag`` (each help a literal of
        the catalogues, argparse filling its default: ``prizecheck worker --help`` in the command line's
        language)."""
        d = Batching()
        parser.add_argument(
            "--batch-size", type=int, default=d.size, help="records per batch at most (default %(default)d)"
        )
        parser.add_argument(
            "--batch-within",
            type=float,
            default=d.within,
            help="seconds a record may wait for its batch to fill, at most (default %(default)g)",
        )
        parser.add_argument(
            "--batch-idle",
            type=float,
            default=d.idle,
            help="a batch closes after this many seconds without a new record (default %(default)g)",
        )
        parser.add_argument(
            "--batch-lag",
            type=float,
            default=d.lag,
            help=(
                "a batch grows only while its records are older than this many seconds (default %(default)g)"
            ),
        )

    @classmethod
    def from_args(cls, args: argparse.Namespace) -> Batching:
        """The bounds given by :meth:`add_arguments`' options."""
        return cls(args.batch_size, args.batch_within, args.batch_idle, args.batch_lag)

    def as_arguments(self) -> list[str]:
        """The same bounds as command-line options (for a subprocess)."""
        return [
            f"--batch-size={self.size}",
            f"--batch-within={self.within}",
            f"--batch-idle={self.idle}",
            f"--batch-lag={self.lag}",
        ]

    def take(self, stream: Any) -> AsyncGenerator[list[EventT[Any]], None]:
        """:func:`take_batches` of ``stream`` with these bounds."""
        return take_batches(stream, self.size, within=self.within, idle=self.idle, lag=self.lag)


#: What ``prizecheck worker`` runs with (its options' defaults).
WORKER_BATCHING = Batching()


async def take_batches(
    stream: Any,
    max_: int,
    *,
    within: float,
    idle: float,
    lag: float,
    clock: Any = time.time,
) -> AsyncGenerator[list[EventT[Any]], None]:
    """Yield lists of up to ``max_`` events of ``stream`` (a ``faust.Stream``), as described above.

    The events of a batch are acknowledged once the consumer asks for the next batch (i.e. after it has
    handled this one), as with ``take_events``.
    """
    if max_ < 1 or within <= 0 or idle <= 0 or lag < 0:
        raise ValueError("take_batches needs max_ >= 1, within > 0, idle > 0 and lag >= 0")
    import asyncio  # here: `prizecheck worker --help` reads the options above without it (issue 40 item 2)

    from mode.utils.futures import notify  # mode comes with faust

    loop = asyncio.get_running_loop()
    buffer: list[EventT[Any]] = []
    buffer_full = asyncio.Event()
    buffer_consumed = asyncio.Event()
    consuming: asyncio.Future[None] | None = None
    first_at = 0.0

    async def add_to_buffer(value: Any) -> Any:
        # A processor: the stream is drained passively in the background and every value passes here.
        nonlocal consuming, first_at
        if consuming is not None:  # the consumer is handling a batch: wait until it is done with it
            try:
                await consuming
            finally:
                consuming = None
        event = stream.current_event
        if event is None:
            raise RuntimeError("take_batches: a value without its current event")
        if not buffer:
            first_at = loop.time()
        buffer.append(event)
        if len(buffer) >= max_:
            buffer_full.set()
            buffer_consumed.clear()
            await stream.wait(buffer_consumed)  # never more than max_ in a batch
        return value

    enable_acks = stream.enable_acks
    stream.enable_acks = False  # acknowledged here, after the batch was handled
    stream.add_processor(add_to_buffer)
    stream._enable_passive(aiter(stream.channel))
    try:
        while not stream.should_stop:
            seen = len(buffer)
            await stream.wait_for_stopped(buffer_full, timeout=idle)
            if not buffer:
                continue
            if (
                not buffer_full.is_set()
                and len(buffer) > seen  # records are still arriving,
                and loop.time() - first_at < within
                and _behind(buffer[-1], clock(), lag)  # and they have been waiting: let the batch grow
            ):
                continue
            consuming = loop.create_future()
            batch = list(buffer)
            try:
                yield batch
            finally:
                buffer.clear()
                for event in batch:
                    await stream.ack(event)
                notify(consuming)  # let the background drainer add to the next batch
                buffer_full.clear()
                buffer_consumed.set()
    finally:
        stream.enable_acks = enable_acks
        stream._processors.remove(add_to_buffer)


def _behind(event: EventT[Any], now: float, lag: float) -> bool:
    """Was the record produced more than ``lag`` seconds before ``now``? (No timestamp: no.)"""
    produced = event.message.timestamp
    return produced is not None and now - produced > lag
