"""``take_batches``: batches grow while the worker is behind and close at once when it has caught up.

Run through a real Faust stream (``Agent.test_context()``); a record's age is its Kafka timestamp, which
the tests set: an hour old = a backlog, none = produced now. Timings are generous: the rule under test is
which records share a batch, not how fast the machine is.
"""

from __future__ import annotations

import asyncio
import random
import time
from typing import Any

import pytest

from streams.kafka.app import create_app
from streams.kafka.batching import take_batches
from streams.settings import Settings

faust = pytest.importorskip("faust")

HOUR_AGO = 3600.0


async def batches_of(
    puts: list[tuple[float | None, float]], *, max_: int, within: float, idle: float, lag: float
) -> list[list[int]]:
    """Feed records (timestamp offset from now or None, pause after) and return the batches' values."""
    app = create_app(Settings(partitions=1), app_id=f"batching-{random.getrandbits(32):x}")
    topic = app.topic("batching", value_type=bytes, value_serializer="raw")

    async def agent(stream: Any) -> Any:
        async for batch in take_batches(stream, max_, within=within, idle=idle, lag=lag):
            yield [int(e.value) for e in batch]

    wrapped = app.agent(topic, name=f"batching{random.getrandbits(32):x}")(agent)
    async with wrapped.test_context() as ctx:
        for n, (age, pause) in enumerate(puts):
            stamp = None if age is None else time.time() - age
            await ctx.put(str(n).encode(), timestamp=stamp, wait=False)
            if pause:
                await asyncio.sleep(pause)
        deadline = time.monotonic() + 30
        while sum(len(v) for v in ctx.results.values()) < len(puts):
            assert time.monotonic() < deadline, ctx.results
            await asyncio.sleep(0.01)
        return [ctx.results[i] for i in sorted(ctx.results)]


async def test_a_backlog_is_taken_in_one_batch_while_it_keeps_coming() -> None:
    got = await batches_of([(HOUR_AGO, 0.02)] * 10, max_=100, within=10.0, idle=0.5, lag=1.0)
    assert got == [list(range(10))]


async def test_live_records_are_not_held_back_for_more() -> None:
    # produced now, arriving every 50 ms for a second: each wake-up (every 0.2 s) hands out what came
    got = await batches_of([(None, 0.05)] * 20, max_=100, within=10.0, idle=0.2, lag=1.0)
    assert len(got) >= 3, got
    assert [n for batch in got for n in batch] == list(range(20))  # in order, none lost or repeated


async def test_a_batch_never_holds_more_than_max_records() -> None:
    got = await batches_of([(HOUR_AGO, 0.0)] * 25, max_=10, within=10.0, idle=0.5, lag=1.0)
    assert [len(b) for b in got] == [10, 10, 5]
    assert [n for batch in got for n in batch] == list(range(25))


async def test_within_bounds_how_long_a_backlog_batch_stays_open() -> None:
    # a backlog that never pauses: only `within` closes the batches (checked every `idle`)
    got = await batches_of([(HOUR_AGO, 0.05)] * 30, max_=1000, within=0.3, idle=0.1, lag=1.0)
    assert len(got) >= 3, got
    assert max(len(b) for b in got) <= 12, got  # 0.3 s + one idle tick of records, with slack
    assert [n for batch in got for n in batch] == list(range(30))


async def test_bad_settings_are_refused() -> None:
    with pytest.raises(ValueError):
        async for _ in take_batches(object(), 0, within=1.0, idle=0.1, lag=0.0):
            pass
