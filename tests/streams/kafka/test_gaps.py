"""A gap's wait on a Kafka worker is measured by the consumer's progress (streams/kafka/gaps.py): a worker
lagging behind its partition does not report a gap whose missing event is in its backlog.

No broker and no timers: the pipeline is handed batches of records (topic, partition, offset) by hand, its
clock and the core's are one fake clock, and the partition's high-water mark is a number the test sets.
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import msgpack
import pytest

from replay import replay_records
from replay.engine.record import dumps
from replay.generators.simulate import simulate_corpus
from replay.records import unpack_record
from streams.ingest import IngestCore
from streams.kafka.agents import Handled, Pipeline
from streams.kafka.dlq import MemoryDeadLetters
from streams.kafka.gaps import IDLE_TIMEOUTS, GapProgress
from streams.store import MemoryStore

TOPIC = "prizecheck.events"
TP = (TOPIC, 0)
TIMEOUT = 1.5
LAG = 3 * TIMEOUT  # a worker's lag, in the tests that lag (shorter than the idle fallback)
assert LAG < IDLE_TIMEOUTS * TIMEOUT


class Lagging:
    """A pipeline over a memory store whose consumer is as far behind its partition as the test says."""

    def __init__(self) -> None:
        self.now = 0.0
        self.store = MemoryStore()
        self.core = IngestCore(self.store, gap_timeout=TIMEOUT)
        self.core.clock = lambda: self.now
        self.dlq = MemoryDeadLetters()
        self.end = 0  # the partition's high-water mark: every record produced so far is below it
        self.pipeline = Pipeline(
            self.core, self.dlq, worker_id="unit", clock=lambda: self.now, highwater=self._highwater
        )
        self.log: list[dict[str, Any]] = []  # what was produced to the partition, by offset

    def _highwater(self, tp: tuple[str, int]) -> int | None:
        assert tp == TP
        return self.end

    def produce(self, events: list[dict[str, Any]]) -> None:
        self.log.extend(events)
        self.end = len(self.log)

    async def consume(self, start: int, stop: int) -> list[Handled]:
        """The consumer hands the records at offsets ``start`` to ``stop`` (excluded) to the pipeline."""
        batch = [
            SimpleNamespace(
                key=e["match"].encode(),
                value=msgpack.packb(e),
                message=SimpleNamespace(topic=TOPIC, partition=0, offset=offset),
            )
            for offset, e in enumerate(self.log[start:stop], start)
        ]
        return await self.pipeline.handle_batch(batch)  # type: ignore[arg-type]

    async def record(self, match: str) -> dict[str, Any]:
        rec = unpack_record(await self.store.record(match))
        assert rec is not None
        return rec


def game() -> list[dict[str, Any]]:
    (stream,) = simulate_corpus(1, 5)
    return list(stream)


async def test_a_lagging_worker_does_not_report_a_gap_whose_event_is_in_its_backlog() -> None:
    w = Lagging()
    events = game()
    match = events[0]["match"]
    # the producer sends seq 7 before seq 6 (as after a retry), then the rest of the game
    order = [*events[:5], events[6], events[5], *events[7:]]
    w.produce(order)
    # the worker is far behind: it reads the first 6 records, seq 7 waits behind the gap of seq 6...
    handled = await w.consume(0, 6)
    assert [h.status for h in handled] == ["applied"] * 5 + ["buffered"]
    # ...and is busy for longer than the gap timeout before its next batch, which holds seq 6
    w.now += LAG
    assert await w.pipeline.flush_gaps() == []  # seq 6 is below the mark the gap waits for
    handled = await w.consume(6, len(order))
    assert {h.status for h in handled} == {"applied"}
    assert w.dlq.letters == [] and w.pipeline.counts["gaps_reported"] == 0
    assert dumps(await w.record(match)) == dumps(replay_records(events)[match])
    assert w.pipeline.gaps.waiting() == 0


async def test_a_gap_is_reported_a_timeout_after_the_worker_caught_up() -> None:
    w = Lagging()
    events = game()
    match = events[0]["match"]
    lost = events[5]
    w.produce([e for e in events if e is not lost])  # seq 6 never comes
    await w.consume(0, 6)  # seq 7 waits; the rest of the partition is a backlog
    w.now += LAG
    assert await w.pipeline.flush_gaps() == []
    await w.consume(6, 20)  # still behind: the gap's wait has not started
    w.now += LAG
    assert await w.pipeline.flush_gaps() == []
    await w.consume(20, len(w.log))  # caught up with the mark: the wait starts now
    w.now += TIMEOUT / 2
    assert await w.pipeline.flush_gaps() == []
    w.now += TIMEOUT / 2
    (reported,) = await w.pipeline.flush_gaps()
    assert reported.applied[0] == lost["seq"] + 1 and f"within {TIMEOUT:g} s" in (reported.reason or "")
    assert w.pipeline.counts["gaps_reported"] == 1 and w.dlq.letters == []
    rec = await w.record(match)
    assert dumps(rec) == dumps(replay_records([e for e in events if e is not lost])[match])
    assert "seq_gap" in {f["code"] for f in rec["findings"]}
    # the match's gap is closed: a later gap of the same match waits for its own mark
    assert w.pipeline.gaps.waiting() == 0


async def test_a_worker_that_keeps_up_reports_the_gap_after_the_timeout_as_before() -> None:
    w = Lagging()
    events = game()
    w.produce([e for e in events[:8] if e is not events[5]])
    await w.consume(0, len(w.log))  # the whole partition: the wait starts with the batch
    w.now += TIMEOUT - 0.01
    assert await w.pipeline.flush_gaps() == []
    w.now += 0.01
    assert len(await w.pipeline.flush_gaps()) == 1


async def test_without_a_known_high_water_mark_the_wait_is_wall_time() -> None:
    w = Lagging()
    w.pipeline.highwater = None
    events = game()
    w.produce([*events[:5], events[6], events[5]])
    await w.consume(0, 6)
    w.now += TIMEOUT
    assert len(await w.pipeline.flush_gaps()) == 1  # the old rule: seq 6 then comes too late
    (late,) = await w.consume(6, 7)
    assert late.status == "dead_letter"


async def test_a_mark_out_of_reach_holds_the_gap_only_until_the_worker_has_been_idle_a_while() -> None:
    # offsets that hold no record for the worker (a transactional producer's markers, say): the mark is
    # never reached, but an idle worker has nothing left to read
    w = Lagging()
    events = game()
    w.produce([e for e in events[:8] if e is not events[5]])
    w.end += 2  # two offsets above the last record that the consumer never gets
    await w.consume(0, len(w.log))
    w.now += IDLE_TIMEOUTS * TIMEOUT - 0.01
    assert await w.pipeline.flush_gaps() == []
    w.now += 0.01
    (reported,) = await w.pipeline.flush_gaps()  # the wait counted from when the worker went idle
    assert reported.applied[0] == events[6]["seq"]


def test_gap_progress_bookkeeping() -> None:
    g = GapProgress(idle=100.0)
    g.handled(TP, 4)
    g.opened("m1", TP, 10, now=1.0)  # records 5 to 9 are not handled yet
    assert g.started("m1") is None
    g.opened("m1", TP, 50, now=2.0)  # a later event behind the same gap keeps its mark
    g.handled(TP, 8)
    g.caught_up(3.0)
    assert g.started("m1") is None
    g.handled(TP, 9)
    g.caught_up(4.0)
    assert g.started("m1") == 4.0
    g.caught_up(5.0)
    assert g.started("m1") == 4.0  # the wait started once
    g.handled((TOPIC, 1), 100)  # another partition's progress is not this gap's
    g.opened("m2", TP, 12, now=6.0)
    g.caught_up(6.0)
    assert g.started("m2") is None
    g.opened("m3", TP, None, now=7.0)  # no mark known: at once
    assert g.started("m3") == 7.0
    assert g.started("unknown") == float("-inf")  # the waiting event's arrival counts
    g.closed("m1")
    assert g.started("m1") == float("-inf") and g.waiting() == 2


@pytest.mark.parametrize("lag", [0.0, 1.0, LAG])
async def test_no_dead_letter_for_a_reordered_game_whatever_the_lag(lag: float) -> None:
    w = Lagging()
    events = game()
    match = events[0]["match"]
    order = list(events)
    for i in range(2, len(order) - 1, 5):  # every fifth pair swapped
        order[i], order[i + 1] = order[i + 1], order[i]
    w.produce(order)
    offset = 0
    while offset < len(order):  # batches of 4; between them the worker is busy for `lag` timeouts
        await w.consume(offset, offset + 4)
        offset += 4
        w.now += lag
        await w.pipeline.flush_gaps()
    assert w.dlq.letters == [] and w.pipeline.counts["gaps_reported"] == 0
    assert dumps(await w.record(match)) == dumps(replay_records(events)[match])


def test_a_worker_with_a_batch_in_hand_is_not_idle() -> None:
    g = GapProgress(idle=10.0)
    g.handled(TP, 0)
    g.end(0.0)
    g.opened("m1", TP, 5, now=0.0)
    g.begin()  # a long batch (a slow store, say)
    g.caught_up(50.0)
    assert g.started("m1") is None  # busy: behind, not idle
    g.handled(TP, 1)
    g.end(50.0)
    g.caught_up(55.0)
    assert g.started("m1") is None
    g.caught_up(60.0)
    assert g.started("m1") == 50.0  # idle for 10 s since its last batch: the wait counts from then
