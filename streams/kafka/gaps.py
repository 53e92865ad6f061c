"""When a gap's wait starts on a Kafka worker: once the consumer has caught up, not when the event arrived.

An event ahead of the next expected seq waits behind a gap until the events before it come, or until the
gap timeout (``PRIZECHECK_GAP_TIMEOUT``) reports the gap (:meth:`streams.ingest.IngestCore.flush_gaps`).
Counted in wall time from the held event's arrival, a worker that lags behind its partition by more than
the timeout reported gaps whose missing events were already in the partition, in its next batch: they then
came too late, as conflicts for the dead-letter topic (docs/deployment.md, "Gaps on a lagging worker").

So the wait is measured by the consumer's progress: when a match's gap opens, the partition's high-water
mark (the offset the next record written to it will take) is noted, and the gap's timeout counts only from
the moment the worker has handled every record below that mark, i.e. every record the partition held when
the gap opened. A worker that keeps up reaches the mark with the same batch (the wait is the wall-time
timeout, as before); a lagging one first handles its backlog, where the missing event may be. Events
produced after the gap opened are waited for ``PRIZECHECK_GAP_TIMEOUT`` seconds from then, as before. When
the mark is not known (the consumer has not fetched from the partition yet), the wait starts at once; and
a mark the worker cannot reach (offsets that hold no record for it: a transactional producer's markers,
which docs/deployment.md rules out, or records removed by retention) does not hold a gap for ever: once the
worker has been idle for ``IDLE_TIMEOUTS`` gap timeouts (no batch in hand, none handled meanwhile: a slow
fetch is not taken for the end of the partition) the wait counts from when it went idle.

Pure bookkeeping, with no Faust in it: :class:`streams.kafka.agents.Pipeline` feeds it the records it
handled and the high-water marks it reads from the consumer (tests/streams/kafka/test_gaps.py).
"""

from __future__ import annotations

from dataclasses import dataclass

#: A topic partition: (topic, partition).
Partition = tuple[str, int]

#: Gap timeouts a worker must be idle for before a mark it has not reached is taken to be out of reach.
IDLE_TIMEOUTS = 10


@dataclass
class _Gap:
    partition: Partition
    mark: int | None  # the partition's high-water mark when the gap opened (None: not known)
    opened: float  # when
    since: float | None = None  # when the consumer had handled every record below the mark


class GapProgress:
    """Per match with events waiting behind a gap: from when its gap timeout counts (:meth:`started`)."""

    def __init__(self, idle: float) -> None:
        self.idle = idle  # seconds without a batch after which the consumer has nothing left to read
        self._position: dict[Partition, int] = {}  # the next offset to handle, per partition
        self._gaps: dict[str, _Gap] = {}
        self._busy = False  # a batch is being handled
        self._done = float("-inf")  # when the last batch was done

    def begin(self) -> None:
        """The worker took a batch in hand."""
        self._busy = True

    def end(self, now: float) -> None:
        """The worker is done with its batch (:meth:`handled` each record first)."""
        self._busy = False
        self._done = now

    def handled(self, partition: Partition, offset: int) -> None:
        """The worker is done with the record at ``offset`` of ``partition`` (stored, held, dead-lettered)."""
        if offset + 1 > self._position.get(partition, 0):
            self._position[partition] = offset + 1

    def opened(self, match: str, partition: Partition, mark: int | None, now: float) -> None:
        """An event of ``match`` now waits behind a gap, ``mark`` being ``partition``'s high-water mark as
        seen now. A gap already open keeps its mark: later events of the match that wait behind it do not
        put its report off (a live game's events would put it off for ever)."""
        if match not in self._gaps:
            self._gaps[match] = gap = _Gap(partition, mark, now)
            self._reached(gap, now)

    def tracks(self, match: str) -> bool:
        """Whether a gap of ``match`` is tracked (opened and not closed since)."""
        return match in self._gaps

    def closed(self, match: str) -> None:
        """Nothing of ``match`` waits behind a gap any more (or the worker forgot it)."""
        self._gaps.pop(match, None)

    def caught_up(self, now: float) -> None:
        """Start the wait of every gap whose mark the consumer has reached (call after each batch)."""
        for gap in self._gaps.values():
            if gap.since is None:
                self._reached(gap, now)

    def started(self, match: str) -> float | None:
        """From when ``match``'s gap timeout counts: None while the consumer has not reached the mark; minus
        infinity for a match this worker did not see a gap open for (the waiting event's arrival counts)."""
        gap = self._gaps.get(match)
        return float("-inf") if gap is None else gap.since

    def waiting(self) -> int:
        """How many matches' gaps are tracked (those still catching up and those timing out)."""
        return len(self._gaps)

    def _reached(self, gap: _Gap, now: float) -> None:
        if gap.mark is None or self._position.get(gap.partition, 0) >= gap.mark:
            gap.since = now
            return
        quiet = max(self._done, gap.opened)  # idle since then: nothing more to read, the mark is out of reach
        if not self._busy and now - quiet >= self.idle:
            gap.since = quiet
