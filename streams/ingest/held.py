"""Events held behind a gap: they wait in a bounded buffer, durably, and are released in order.

An event ahead of the next expected seq waits (sealed, in the store, so that the next owner picks it up:
docs/reliability.md, guarantee 3) until the events before it arrive, or until ``gap_limit`` events wait or
the oldest has waited ``gap_timeout`` seconds: then the engine is handed the first waiting event past the
gap (it reports a ``seq_gap`` finding) and whatever follows in order.

This module is handed the write path (:class:`Writes`: how a match's game is read, and how events join a
run and a run is written) by the core that builds it (:class:`streams.ingest.IngestCore`); it imports
neither the core nor the write path (pyproject.toml, the ingest core's layers contract).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, NamedTuple

from replay import Game
from replay.contract.admit import admit
from replay.engine import EventError
from streams.ingest.state import (
    MAX_ATTEMPTS,
    MatchMemory,
    Outcome,
    Pending,
    Run,
    Shared,
    Stale,
    StoreContention,
    Tamper,
    waiting_conflict,
)
from streams.store.checkpoint import seal_held

#: From when a match's gap timeout counts (None: not yet), if not from its oldest waiting event's arrival.
GapStart = Callable[[str], float | None]


def waited_since(st: MatchMemory, match: str, started: GapStart | None) -> float | None:
    """From when the wait of ``match``'s gap counts: its oldest waiting event's arrival, or ``started``'s
    answer when that is later; None when nothing waits, or ``started`` says the wait has not begun."""
    if not st.buffer:
        return None
    oldest = min(p.arrived for p in st.buffer.values())
    if started is None:
        return oldest
    since = started(match)
    return None if since is None else max(oldest, since)


class Writes(NamedTuple):
    """The write path the held events are handed (:mod:`streams.ingest.write` and
    :mod:`streams.ingest.rebuild` provide it)."""

    #: the match's game, from memory or rebuilt from the store (``Rebuild._game``)
    game: Callable[[MatchMemory, str], Awaitable[Game]]
    #: whether the match's tamper alarm was cleared since: then its game is read again
    alarm_cleared: Callable[[MatchMemory, str], Awaitable[bool]]
    #: an event applied to the game joins the run (written when the run must end)
    add: Callable[[MatchMemory, str, Game, Run, int, bytes], Awaitable[None]]
    #: the run written (one atomic store call), its outcomes handed out
    flush: Callable[[MatchMemory, str, Run], Awaitable[None]]


class HeldEvents:
    """The events of each match waiting behind a gap (``MatchMemory.buffer``, and the store's copy)."""

    def __init__(self, shared: Shared, writes: Writes) -> None:
        self.shared = shared  # the store, the seal key and the gap bounds, read at each use
        self.writes = writes

    async def ahead(
        self, st: MatchMemory, match: str, game: Game, run: Run, seq: int, ev: dict[str, Any], data: bytes
    ) -> Outcome:
        """An event past the next expected seq: it waits behind the gap, durably (or is a redelivery)."""
        waiting = st.buffer.get(seq)
        if waiting is not None:
            if waiting.data == data:
                return Outcome("duplicate", match, seq)
            return waiting_conflict(match, seq, game.next_seq)
        await self.writes.flush(st, match, run)
        shared = self.shared
        if await shared.store.head(match) != st.head:
            raise Stale  # the events we wait for may have been appended by another owner
        if not await shared.store.hold(match, seq, seal_held(shared.checkpoint_key, match, seq, data)):
            raise Stale  # another process holds one: trust the store's copy (a rebuild sees it)
        st.buffer[seq] = Pending(ev, data, shared.clock())
        if len(st.buffer) <= shared.gap_limit:
            return Outcome("buffered", match, seq)
        applied = await self.release_gap(st, match, game, run)
        return Outcome("applied" if seq in applied else "buffered", match, seq, applied=applied)

    async def flush_match(
        self, st: MatchMemory, match: str, now: float, started: GapStart | None = None
    ) -> list[Outcome]:
        """Release the match's gaps whose oldest waiting event has waited ``gap_timeout`` seconds (counted
        from ``started(match)`` when that is later: :func:`waited_since`)."""
        outcomes: list[Outcome] = []
        attempts = 0
        timeout = self.shared.gap_timeout
        while (since := waited_since(st, match, started)) is not None and now - since >= timeout:
            game = await self.writes.game(st, match)
            if await self.writes.alarm_cleared(st, match):
                game = await self.writes.game(st, match)
            if st.tampered is not None:
                break  # nothing is written to a match under a tamper alarm; the events stay held
            expected, first = game.next_seq, min(st.buffer)
            run = Run([])
            try:
                applied = await self.release_gap(st, match, game, run)
                await self.writes.flush(st, match, run)
            except Tamper:
                st.game = None
                break  # the alarm stands; the events stay held
            except Stale:
                st.game = None  # another owner moved it: decide again from the store
                attempts += 1
                if attempts >= MAX_ATTEMPTS:
                    raise StoreContention(f"match {match}: another writer kept moving it") from None
                continue
            outcomes.append(
                Outcome(
                    "applied",
                    match,
                    first,
                    f"match {match} seq {first}: the events before it (from seq {expected}) did not "
                    f"arrive within {timeout:g} s; reported as a seq_gap finding",
                    applied,
                )
            )
        return outcomes

    async def release_gap(self, st: MatchMemory, match: str, game: Game, run: Run) -> list[int]:
        """Hand the engine the first waiting event past the gap, then whatever follows in order (into
        ``run``, which starts with it: the write declares the gap)."""
        await self.writes.flush(st, match, run)
        seq = min(st.buffer)
        pending = st.buffer.pop(seq)
        game.apply(pending.event, pending.data)  # the engine reports the gap (seq_gap) and applies the event
        run.gap = True
        applied = [seq]
        await self.writes.add(st, match, game, run, seq, pending.data)
        await self.drain(st, match, game, run, applied)
        return applied

    async def drain(
        self, st: MatchMemory, match: str, game: Game, run: Run, applied: list[int] | None
    ) -> None:
        """Apply the waiting events that are next in line now (``applied``: the seqs, appended to)."""
        while game.next_seq in st.buffer:
            seq = game.next_seq
            pending = st.buffer.pop(seq)
            game.apply(pending.event, pending.data)
            if applied is not None:
                applied.append(seq)
            await self.writes.add(st, match, game, run, seq, pending.data)


def held_event(match: str, seq: int, data: bytes) -> dict[str, Any]:
    """A held event, checked again as the edge checks an event (it was written into the store, which is
    not trusted: :func:`replay.contract.admit.admit`): one valid event of this match at this seq, in
    canonical bytes. EventError otherwise."""
    event, canonical = admit(data)
    if event.get("match") != match or event.get("seq") != seq:
        raise EventError(
            f"the event held at seq {seq} is for match {event.get('match')!r} seq {event.get('seq')!r}",
            match=match,
            seq=seq,
        )
    if canonical != data:
        raise EventError(f"the event held at seq {seq} is not in canonical msgpack", match=match, seq=seq)
    return event
