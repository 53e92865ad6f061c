"""The ingest core: one function that takes an event and lands it in the store, whoever delivered it.

``prizecheck serve`` (HTTP, embedded) calls :meth:`IngestCore.ingest`; the Kafka workers call
:meth:`IngestCore.ingest_many` with a whole batch (the same outcomes, fewer writes). The core decodes and
validates the event, applies it to the match's :class:`replay.Game` (kept in memory by the owner of the
match), and hands the store the archived bytes with the new board and record in one atomic append (one
per event, or one per match per batch for a run of in-line events; docs/storage.md). Then it updates the
league indexes (a second, idempotent step) and the playoff links between parent and child records.

Guarantees (docs/architecture): the archive is the source of truth and a record rebuilt from it is byte
for byte the one stored; delivery may repeat (exact duplicates are no-ops); events ahead of a gap wait in a
bounded buffer (count and time), then the gap is handed to the engine, which reports it; nothing is dropped
silently: every event ends as applied, duplicate or rejected (quarantined by the caller), and
``stats()`` counts them.
"""

from __future__ import annotations

import asyncio
import re
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, cast

import msgpack
import msgspec

from replay import Game, link_records
from replay.codec import MAX_DEPTH, edge_event
from replay.engine.chain import C_CANONICAL, canonical_bytes, canonical_of, sign
from replay.engine.errors import EventError
from replay.engine.playoff import playoff_games, playoff_stub
from replay.engine.validate import validate_event
from streams.settings import Settings
from streams.store import Append, AppendRun, IndexEntry, Store

Status = Literal["applied", "duplicate", "buffered", "rejected"]


@dataclass
class Outcome:
    """What happened to one event (or, from :meth:`IngestCore.flush_gaps`, to one gap).

    - ``applied``: archived and folded; ``applied`` lists every seq this call archived in order (the event
      itself and any buffered events it released).
    - ``duplicate``: the same bytes were already archived at that seq; nothing changed.
    - ``buffered``: ahead of a gap; it waits (durably, in the store) and is applied later.
    - ``rejected``: quarantine it (dead-letter topic / HTTP 400). ``reason`` names match, seq and field.
      A different event reusing a seq (or arriving after its gap was reported) is also rejected, and it
      is archived and reported as a finding in the record (``duplicate_seq`` / ``late_event``).
    """

    status: Status
    match: str | None
    seq: int | None
    reason: str | None = None
    applied: list[int] = field(default_factory=list)
    field: str | None = None

    def as_json(self) -> dict[str, Any]:
        """A JSON-safe dict (the HTTP API's per-event answer)."""
        out: dict[str, Any] = {"status": self.status, "match": self.match, "seq": self.seq}
        if self.reason is not None:
            out["reason"] = self.reason
        if self.field is not None:
            out["field"] = self.field
        if self.applied:
            out["applied"] = list(self.applied)
        return out


@dataclass
class _Pending:
    event: dict[str, Any]
    data: bytes
    arrived: float


@dataclass
class _MatchState:
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    users: int = 0  # calls holding or waiting for the lock: never evicted meanwhile
    game: Game | None = None  # None: (re)build from the archive before use
    head: int = 0  # the store's head as this owner knows it
    buffer: dict[int, _Pending] = field(default_factory=dict)
    indexed: IndexEntry | None = None
    quarantined: set[bytes] = field(default_factory=set)  # conflicting / late events already archived
    child_done: bool = False  # a playoff child whose finish was already handed to its parent
    stubbed: str | None = None  # the playoff child whose stub this match's links have written (if absent)


_Item = tuple[int, int, dict[str, Any], bytes]  # (position in the batch, seq, event, canonical bytes)

#: Events per :meth:`Store.append_run` at most (a backlog of one match is written in runs of this size).
MAX_RUN = 500
# The most games of one playoff family read to settle it (a game, its drawn playoffs, the deciding one).
MAX_FAMILY = 32

_decode_map = msgspec.msgpack.Decoder(dict[str, Any]).decode  # decode_event's path for canonical bytes

_PLAYOFF_CHILD = re.compile(r"^(?P<root>.+)/tb\d+$")


def _family(match: str) -> str:
    """The root of a match's playoff family (``g1`` for ``g1``, ``g1/tb1``, ``g1/tb2``...)."""
    m = _PLAYOFF_CHILD.match(match)
    return m.group("root") if m else match


@dataclass
class _Run:
    """In-line events of one match applied in memory and not yet written (the batch path)."""

    outcomes: list[Outcome | None]  # the batch's outcomes, by position in the batch
    pos: int = 0  # the item being processed (index in the match's group)
    start: int = 0  # the first item of the group whose outcome is not handed out yet
    events: list[tuple[int, bytes]] = field(default_factory=list)
    decided: list[tuple[int, Outcome]] = field(default_factory=list)  # outcomes waiting for the write


@dataclass
class _FastRun:
    """A lone match's in-line events applied by :meth:`IngestCore._fast_run`, holding its lock."""

    st: _MatchState
    match: str
    group: list[_Item]  # the match's items in the batch; those past ``items`` go the general way
    events: list[tuple[int, bytes]] = field(default_factory=list)
    items: list[tuple[int, int]] = field(default_factory=list)  # (position in the batch, seq) applied
    record: dict[str, Any] | None = None
    append: AppendRun | None = None
    held: bool = True

    def release(self) -> None:
        if self.held:
            self.held = False
            self.st.users -= 1
            self.st.lock.release()


class _Stale(Exception):
    """The store's head moved under us (another writer): rebuild from the archive and retry."""


def unpack_record(data: bytes | None) -> dict[str, Any] | None:
    """A stored record (msgpack) as a dict."""
    if data is None:
        return None
    obj = msgpack.unpackb(data, raw=False)
    return obj if isinstance(obj, dict) else None


class IngestCore:
    """Apply events to matches and land them in a :class:`~streams.store.Store`.

    One instance per process; it must own the matches it is given (Kafka: partitions keyed by match).
    Calls for the same match are serialised; different matches run concurrently.

    ``gap_limit``: events that may wait behind a gap per match before the gap is reported anyway;
    ``gap_timeout``: seconds the oldest waiting event may wait (enforced by :meth:`flush_gaps`, which the
    caller runs periodically); ``signing_key``/``key_id``: HMAC-sign every stored record
    (``replay.engine.chain.sign``), as ``prizecheck replay`` does with ``PRIZECHECK_SIGNING_KEY``;
    ``max_matches``: games kept in memory; the least recently used idle ones are dropped beyond it (they
    are rebuilt from the archive if they are seen again).
    Store errors (e.g. Redis down) propagate: the event was not processed and must be retried.
    """

    def __init__(
        self,
        store: Store,
        *,
        gap_limit: int = 1000,
        gap_timeout: float = 5.0,
        signing_key: bytes | None = None,
        key_id: str | None = None,
        clock: Callable[[], float] = time.monotonic,
        max_matches: int = 10_000,
    ) -> None:
        self.store = store
        self.gap_limit = gap_limit
        self.gap_timeout = gap_timeout
        self.signing_key = signing_key
        self.key_id = key_id or "default"
        self.clock = clock
        self.max_matches = max_matches
        self._matches: OrderedDict[str, _MatchState] = OrderedDict()
        self.counts: dict[str, int] = {"applied": 0, "duplicate": 0, "rejected": 0, "buffered": 0}

    # ------------------------------------------------------------------------------------ public API

    @classmethod
    def from_settings(cls, store: Store, settings: Settings, **options: Any) -> IngestCore:
        """A core with the gap limits and the signing key from ``settings`` (the environment)."""
        return cls(
            store,
            gap_limit=settings.gap_limit,
            gap_timeout=settings.gap_timeout,
            signing_key=settings.signing_key,
            key_id=settings.key_id,
            **options,
        )

    async def ingest(self, event: dict[str, Any] | bytes) -> Outcome:
        """Take one event: a dict (decoded JSON) or the bytes of one msgpack map."""
        try:
            ev = decode_event(event)
            validate_event(ev)
            data = _canonical(ev, event)
        except EventError as exc:
            self.counts["rejected"] += 1
            return Outcome("rejected", exc.match, exc.seq, str(exc), field=exc.field)
        match: str = ev["match"]
        seq: int = ev["seq"]
        st = self._state(match)
        st.users += 1
        try:
            async with st.lock:
                try:
                    return await self._one(st, match, seq, ev, data)
                except BaseException:
                    st.game = None  # memory may be ahead of the store: rebuild on next use
                    raise
        finally:
            st.users -= 1

    async def ingest_many(
        self, items: Sequence[dict[str, Any] | bytes], raws: Sequence[bytes] | None = None
    ) -> list[Outcome]:
        """Take a batch of events: one outcome per item, the same as :meth:`ingest` called on each in turn.

        ``raws``: for items already decoded from messages, the messages' bytes (item by item): when they
        are canonical already they are archived and chained as they came, without encoding the event again.

        Items are grouped by match (each match keeps the batch's order) and the matches run concurrently.
        Within a match, the events that are next in line are applied to the game in memory and written
        together: one :meth:`Store.append_run` per match per batch (archive, pending, head, and the board
        and record built once, after the last event; one live update carrying the last seq). Everything
        else (duplicates of archived events, conflicts, events ahead of a gap, released gaps) first writes
        what is pending, then goes through the per-event path. A run is also written right after any event
        where the playoff links act on the record (``_run_ends``), so they happen at the same events as
        with :meth:`ingest`. The stored archive, record and board are byte for byte those of per-event
        ingest (``tests/streams/test_ingest.py``).

        A store error propagates (nothing is returned): events of other matches may have been stored, and
        a retry of the batch finds them as duplicates.
        """
        outcomes: list[Outcome | None] = [None] * len(items)
        groups: dict[str, list[_Item]] = {}
        for i, item in enumerate(items):
            try:
                ev = decode_event(item)
                raw = item if raws is None else raws[i]
                validate_event(ev)
                data = _canonical(ev, raw)
            except EventError as exc:
                self.counts["rejected"] += 1
                outcomes[i] = Outcome("rejected", exc.match, exc.seq, str(exc), field=exc.field)
                continue
            match: str = ev["match"]
            group = groups.get(match)
            if group is None:
                group = groups[match] = []
            group.append((i, ev["seq"], ev, data))
        # Matches not in memory (first seen by this worker, or dropped after a store error) are rebuilt
        # from the store first, all of them at once (their reads share round trips), so that their runs
        # take the one-pipeline path below too rather than the per-event one.
        cold = [match for match in groups if self._state(match).game is None]
        if cold:
            await asyncio.gather(*(self._warm(match) for match in cold))
        families: dict[str, dict[str, list[_Item]]] = {}
        for match, group in groups.items():  # in order of first appearance, as the items came
            families.setdefault(_family(match), {})[match] = group
        await self._ingest_families(list(families.values()), outcomes)
        return cast(list[Outcome], outcomes)

    async def _ingest_families(
        self, families: list[dict[str, list[_Item]]], outcomes: list[Outcome | None]
    ) -> None:
        """Decide the items of these families (each a match, or a playoff parent with its children)."""
        # The common case first: a match in memory, nothing waiting, events next in line. Those runs are
        # applied here and written together (Store.append_runs: one round trip for the whole batch, no
        # task or lock wait per match); everything else takes the general path, concurrently. A family's
        # matches go one after the other, as on the general path (a child's finish settles its parent's
        # stored record): its first match now, the others in the next round, once this one is written.
        fast: list[_FastRun] = []
        slow: list[dict[str, list[_Item]]] = []
        later: list[dict[str, list[_Item]]] = []
        for family in families:
            first, *others = family.items()
            run = await self._fast_run(first)
            if run is None:
                slow.append(family)
            else:
                fast.append(run)
                if others:
                    later.append(dict(others))
        work = [self._ingest_family(f, outcomes) for f in slow]
        if fast:
            work.append(self._write_fast(fast, outcomes))
        if len(work) == 1:
            await work[0]
        elif work:
            done = await asyncio.gather(*work, return_exceptions=True)
            for result in done:
                if isinstance(result, BaseException):
                    raise result
        if later:
            await self._ingest_families(later, outcomes)

    async def _warm(self, match: str) -> None:
        """Rebuild a match's game from the store, unless another task has meanwhile."""
        st = self._state(match)
        st.users += 1
        try:
            async with st.lock:
                await self._game(st, match)
        finally:
            st.users -= 1

    async def _fast_run(self, first: tuple[str, list[_Item]]) -> _FastRun | None:
        """Apply the in-line head of a match's group, if the game is in memory and nothing waits.

        The run stops where :meth:`_add` would cut it (``_run_ends``: where the playoff links act,
        ``MAX_RUN``) or at the first item that is not next in line; those items go round again after the
        write (:meth:`_ingest_families`).
        """
        match, group = first
        st = self._state(match)
        game = st.game
        if game is None or st.buffer or st.users or game.next_seq != group[0][1]:
            return None
        await st.lock.acquire()  # free (no users): returns at once
        st.users += 1
        run = _FastRun(st, match, group)
        try:
            for i, seq, ev, data in group:
                if seq != game.next_seq:
                    break
                game.apply(ev, data)
                run.events.append((seq, data))
                run.items.append((i, seq))
                if _run_ends(game, run.events, st):
                    break
            run.record = await self._final_record(match, game)
            run.append = AppendRun(
                match, st.head, tuple(run.events), canonical_bytes(game.board()), self._pack(run.record)
            )
        except BaseException:
            st.game = None  # memory may be ahead of the store: rebuild on next use
            run.release()
            raise
        return run

    async def _write_fast(self, runs: list[_FastRun], outcomes: list[Outcome | None]) -> None:
        """Write the runs of :meth:`_fast_run` in one call, then their links, then what is left of each."""
        try:
            results = await self.store.append_runs([cast(AppendRun, r.append) for r in runs])
        except BaseException:
            for run in runs:
                run.st.game = None
                run.release()
            raise
        follow: list[Awaitable[None]] = []
        rest: list[dict[str, list[_Item]]] = []
        try:
            for run, result in zip(runs, results, strict=True):
                st, match = run.st, run.match
                done = len(run.items)
                if result.status != "applied":
                    st.game = None  # another writer moved the head: decide it all again, per event
                    done = 0
                else:
                    st.head = run.events[-1][0]
                    self.counts["applied"] += done
                    for i, seq in run.items:
                        outcomes[i] = Outcome("applied", match, seq, applied=[seq])
                    assert run.record is not None and st.game is not None
                    entry = self._index_change(st, run.record)
                    if entry is not None or run.record.get("status") != "in_progress":
                        follow.append(self._follow_run(st, match, run.record, entry, st.game.effect_pending))
                if done < len(run.group):
                    rest.append({match: run.group[done:]})
            if follow:
                try:
                    await asyncio.gather(*follow)
                except BaseException:
                    for run in runs:  # an index or link step failed: rebuilding heals it (_game)
                        run.st.game = None
                    raise
        finally:
            for run in runs:
                run.release()
        if rest:
            # What follows a cut (a game decided mid-batch, MAX_RUN) is most often in line again: the
            # next round of runs, for all those matches together (one more round trip, not one per
            # match); a match whose write was refused (st.game None) takes the general path.
            await self._ingest_families(rest, outcomes)

    async def _follow_run(
        self,
        st: _MatchState,
        match: str,
        record: dict[str, Any],
        entry: IndexEntry | None,
        provisional: bool,
    ) -> None:
        async def index() -> None:
            if entry is not None:
                await self.store.index(entry, last=st.indexed, guess=True)
                st.indexed = entry

        await _both(index(), self._playoff_links(st, match, record, provisional=provisional))

    async def _ingest_family(self, groups: dict[str, list[_Item]], outcomes: list[Outcome | None]) -> None:
        # A playoff parent and its children, one match after the other: a child's finish settles the
        # parent's stored record, as it would one event after the other (no race between the two writes).
        for match, group in groups.items():
            st = self._state(match)
            st.users += 1
            try:
                async with st.lock:
                    try:
                        await self._ingest_group(st, match, group, outcomes)
                    except BaseException:
                        st.game = None
                        raise
            finally:
                st.users -= 1

    async def _ingest_group(
        self, st: _MatchState, match: str, group: list[_Item], outcomes: list[Outcome | None]
    ) -> None:
        run = _Run(outcomes)
        try:
            for pos, (i, seq, ev, data) in enumerate(group):
                run.pos = pos
                game = st.game if st.game is not None else await self._game(st, match)
                if game.next_seq in st.buffer:
                    await self._drain_run(st, match, game, run, None)
                if seq == game.next_seq:
                    game.apply(ev, data)
                    await self._add(st, match, game, run, seq, data)
                    applied = [seq]
                    await self._drain_run(st, match, game, run, applied)
                    run.decided.append((i, Outcome("applied", match, seq, applied=applied)))
                elif seq > game.next_seq and seq in st.buffer:
                    # the per-event path decides these without the store
                    if st.buffer[seq].data == data:
                        run.decided.append((i, Outcome("duplicate", match, seq)))
                    else:
                        run.decided.append((i, _waiting_conflict(match, seq, game.next_seq)))
                else:
                    await self._flush_run(st, match, run)
                    outcomes[i] = await self._one(st, match, seq, ev, data)
                if not run.events:
                    self._commit(run, done=True)
            await self._flush_run(st, match, run)
        except _Stale:
            # Another writer moved the head: nothing of the run was written. Rebuild, and decide every
            # item from the first one not yet committed the per-event way (which retries once).
            st.game = None
            for i, seq, ev, data in group[run.start :]:
                outcomes[i] = await self._one(st, match, seq, ev, data)

    async def _drain_run(
        self, st: _MatchState, match: str, game: Game, run: _Run, applied: list[int] | None
    ) -> None:
        while game.next_seq in st.buffer:
            seq = game.next_seq
            pending = st.buffer.pop(seq)
            game.apply(pending.event, pending.data)
            if applied is not None:
                applied.append(seq)
            await self._add(st, match, game, run, seq, pending.data)

    async def _add(self, st: _MatchState, match: str, game: Game, run: _Run, seq: int, data: bytes) -> None:
        run.events.append((seq, data))
        if _run_ends(game, run.events, st):
            await self._flush_run(st, match, run)

    async def _flush_run(self, st: _MatchState, match: str, run: _Run) -> None:
        """Write the run (one atomic store call), then commit the outcomes that waited for it."""
        if run.events:
            game = st.game
            assert game is not None
            record = await self._final_record(match, game)
            events = tuple(run.events)
            result = await self.store.append_run(
                AppendRun(match, st.head, events, canonical_bytes(game.board()), self._pack(record))
            )
            if result.status != "applied":
                raise _Stale
            run.events.clear()
            st.head = events[-1][0]
            self.counts["applied"] += len(events)
            await _both(
                self._index(st, record),
                self._playoff_links(st, match, record, provisional=game.effect_pending),
            )
        self._commit(run, done=False)

    def _commit(self, run: _Run, *, done: bool) -> None:
        """Hand out the decided outcomes; ``done``: the current item is decided too."""
        for i, outcome in run.decided:
            run.outcomes[i] = outcome
            if outcome.status != "applied":
                self.counts[outcome.status] += 1
        run.decided.clear()
        run.start = run.pos + 1 if done else run.pos

    async def flush_gaps(self, now: float | None = None) -> list[Outcome]:
        """Report every gap whose oldest waiting event has waited ``gap_timeout`` seconds.

        The engine gets the next waiting event (and records a ``seq_gap`` finding); whatever then follows
        in order is applied too. Returns one ``applied`` outcome per gap, listing the seqs applied.
        """
        now = self.clock() if now is None else now
        outcomes: list[Outcome] = []
        for match, st in list(self._matches.items()):
            if not st.buffer or now - min(p.arrived for p in st.buffer.values()) < self.gap_timeout:
                continue
            st.users += 1
            try:
                async with st.lock:
                    outcomes += await self._flush_match(st, match, now)
            finally:
                st.users -= 1
        return outcomes

    async def _flush_match(self, st: _MatchState, match: str, now: float) -> list[Outcome]:
        outcomes: list[Outcome] = []
        while st.buffer and now - min(p.arrived for p in st.buffer.values()) >= self.gap_timeout:
            try:
                expected = (await self._game(st, match)).next_seq
                first = min(st.buffer)
                applied = await self._release_gap(st, match)
            except BaseException:
                st.game = None
                raise
            outcomes.append(
                Outcome(
                    "applied",
                    match,
                    first,
                    f"match {match} seq {first}: the events before it (from seq {expected}) did not "
                    f"arrive within {self.gap_timeout:g} s; reported as a seq_gap finding",
                    applied,
                )
            )
        return outcomes

    def _state(self, match: str) -> _MatchState:
        st = self._matches.get(match)
        if st is None:
            st = self._matches[match] = _MatchState()
            if len(self._matches) > self.max_matches:
                self._evict(keep=match)
        else:
            self._matches.move_to_end(match)
        return st

    def _evict(self, keep: str) -> None:
        """Drop the least recently used games that wait for nothing (the archive has them all)."""
        excess = len(self._matches) - self.max_matches
        for match, st in list(self._matches.items()):
            if excess <= 0:
                break
            if not st.buffer and not st.users and match != keep:
                del self._matches[match]
                excess -= 1

    def stats(self) -> dict[str, int]:
        """Counts since start: applied, duplicate, rejected (quarantined), buffered (waiting now)."""
        out = dict(self.counts)
        out["buffered"] = sum(len(st.buffer) for st in self._matches.values())
        out["matches"] = len(self._matches)
        return out

    def forget(self, match: str) -> None:
        """Drop a match from memory (e.g. its partition was revoked); it is rebuilt on next sight."""
        st = self._matches.get(match)
        if st is not None and not st.lock.locked():
            del self._matches[match]

    async def rebuild(self, match: str) -> dict[str, Any] | None:
        """Re-derive a match from its archive, store its record again and re-index it.

        Returns the record (None for an unknown match). Recovery after an engine upgrade or a crash
        between the append and the index step.
        """
        st = self._state(match)
        st.users += 1
        try:
            async with st.lock:
                st.game = None
                game = await self._game(st, match)
                if game.match is None:
                    return None
                record = await self._final_record(match, game)
                await self.store.put_record(match, self._pack(record))
                await self._index(st, record, force=True)
                return record
        finally:
            st.users -= 1

    # ------------------------------------------------------------------------------------ internals
    async def _one(self, st: _MatchState, match: str, seq: int, ev: dict[str, Any], data: bytes) -> Outcome:
        try:
            return await self._ingest(st, match, seq, ev, data)
        except _Stale:
            st.game = None  # another writer moved the head: rebuild and decide again, once
            return await self._ingest(st, match, seq, ev, data)

    async def _ingest(
        self, st: _MatchState, match: str, seq: int, ev: dict[str, Any], data: bytes
    ) -> Outcome:
        game = await self._game(st, match)
        if game.next_seq in st.buffer:
            # held events a previous owner left contiguous (it stopped before draining them)
            await self._drain(st, match)
        if seq < game.next_seq:
            return await self._old_seq(st, match, seq, ev, data, game)
        if seq > game.next_seq:
            waiting = st.buffer.get(seq)
            if waiting is not None:
                if waiting.data == data:
                    self.counts["duplicate"] += 1
                    return Outcome("duplicate", match, seq)
                self.counts["rejected"] += 1
                return _waiting_conflict(match, seq, game.next_seq)
            if await self.store.head(match) != st.head:
                raise _Stale  # the events we wait for may have been appended by another owner
            if not await self.store.hold(match, seq, data):
                # another process holds one: trust the store's copy (it is what a rebuild will see)
                raise _Stale
            st.buffer[seq] = _Pending(ev, data, self.clock())
            if len(st.buffer) <= self.gap_limit:
                return Outcome("buffered", match, seq)
            applied = await self._release_gap(st, match)
            return Outcome("applied" if seq in applied else "buffered", match, seq, applied=applied)
        game.apply(ev, data)
        await self._write(st, match, seq, data, game)
        applied = [seq, *await self._drain(st, match)]
        return Outcome("applied", match, seq, applied=applied)

    async def _old_seq(
        self, st: _MatchState, match: str, seq: int, ev: dict[str, Any], data: bytes, game: Game
    ) -> Outcome:
        archived = await self.store.event(match, seq)
        if archived == data or data in st.quarantined:
            # a redelivery (of an event, or of a conflict already archived and reported)
            self.counts["duplicate"] += 1
            return Outcome("duplicate", match, seq)
        late = game.log.is_missing(seq)
        before = len(game.findings)
        game.apply(ev, data)  # the engine records duplicate_seq / late_event and does not fold it
        if len(game.findings) == before:  # the engine saw an exact duplicate the archive did not have
            st.game = None
            raise _Stale
        await self._write(st, match, seq, data, game, conflict=True)
        st.quarantined.add(data)
        self.counts["rejected"] += 1
        why = (
            "arrived after the gap before it was reported (late_event)"
            if late
            else "a different event already holds this seq (duplicate_seq)"
        )
        return Outcome(
            "rejected",
            match,
            seq,
            f"match {match} seq {seq}: {why}; kept in the archive and reported as a finding, not applied",
            field="seq",
        )

    async def _release_gap(self, st: _MatchState, match: str) -> list[int]:
        """Hand the engine the first waiting event past the gap, then whatever follows in order."""
        game = await self._game(st, match)
        seq = min(st.buffer)
        pending = st.buffer.pop(seq)
        game.apply(pending.event, pending.data)  # the engine reports the gap (seq_gap) and applies the event
        await self._write(st, match, seq, pending.data, game, allow_gap=True)
        return [seq, *await self._drain(st, match)]

    async def _drain(self, st: _MatchState, match: str) -> list[int]:
        game = await self._game(st, match)
        applied: list[int] = []
        while game.next_seq in st.buffer:
            seq = game.next_seq
            pending = st.buffer.pop(seq)
            game.apply(pending.event, pending.data)
            await self._write(st, match, seq, pending.data, game)
            applied.append(seq)
        return applied

    async def _game(self, st: _MatchState, match: str) -> Game:
        """The match's game, rebuilt from the archive (and the held events) when not in memory."""
        if st.game is not None:
            return st.game
        game = Game()
        head = 0
        st.quarantined.clear()
        # both reads at once (one round trip when the client pipelines concurrent commands)
        archived, held = await asyncio.gather(self.store.events(match), self.store.held(match))
        for entry in archived:
            game.apply(msgpack.unpackb(entry.data, raw=False), entry.data)  # archived: canonical
            if entry.kind == "event":
                head = entry.position[0]
            else:
                st.quarantined.add(entry.data)
        now = self.clock()
        for seq, data in held.items():
            if seq >= game.next_seq and seq not in st.buffer:
                st.buffer[seq] = _Pending(msgpack.unpackb(data, raw=False), data, now)
        for seq in [s for s in st.buffer if s < game.next_seq]:
            del st.buffer[seq]
        st.game, st.head, st.indexed = game, head, None
        if game.match is not None:
            # heal a crash between an append and its index step
            await self._index(st, await self._final_record(match, game), force=True)
        return game

    async def _write(
        self,
        st: _MatchState,
        match: str,
        seq: int,
        data: bytes,
        game: Game,
        *,
        allow_gap: bool = False,
        conflict: bool = False,
    ) -> None:
        record = await self._final_record(match, game)
        result = await self.store.append(
            Append(
                match=match,
                seq=seq,
                event=data,
                prev=st.head,
                board=canonical_bytes(game.board()),
                record=self._pack(record),
                allow_gap=allow_gap,
                conflict=conflict,
            )
        )
        if result.status == "applied":
            st.head = seq
            self.counts["applied"] += 1
        elif not (conflict and result.status == "conflict" and result.archived):
            st.game = None
            raise _Stale
        await _both(
            self._index(st, record), self._playoff_links(st, match, record, provisional=game.effect_pending)
        )

    async def _final_record(self, match: str, game: Game) -> dict[str, Any]:
        """The record to store: the engine's, settled from its playoff games when it awaits one."""
        record = game.record()
        if record.get("status") == "awaiting_playoff":
            record = link_records(await self._family(match, record, {}))[match]
        return record

    async def _family(
        self, top: str, record: dict[str, Any], known: Mapping[str, dict[str, Any]]
    ) -> dict[str, dict[str, Any]]:
        """``top`` and the playoff games of its family (its children and theirs, and where their playoff
        links point), unsigned, as ``known`` gives them or else as stored: what ``link_records`` settles."""
        group: dict[str, dict[str, Any]] = {top: _unsigned(record)}
        todo = playoff_games(record)
        while todo and len(group) < MAX_FAMILY:
            child = todo.pop(0)
            if child in group:
                continue
            crec = known.get(child) or unpack_record(await self.store.record(child))
            if crec is not None:
                group[child] = _unsigned(crec)
                todo.extend(playoff_games(crec))
        return group

    async def _family_top(self, parent: str) -> tuple[str, dict[str, Any] | None]:
        """The top of a playoff game's family, from its parent up the stored records' parent links."""
        name, record = parent, unpack_record(await self.store.record(parent))
        seen = {name}
        while record is not None and len(seen) < MAX_FAMILY:
            up = record.get("parent")
            if not isinstance(up, str) or up in seen:
                break
            above = unpack_record(await self.store.record(up))
            if above is None:
                break
            name, record = up, above
            seen.add(up)
        return name, record

    async def _playoff_links(
        self, st: _MatchState, match: str, record: dict[str, Any], *, provisional: bool
    ) -> None:
        if provisional:
            # An effect is still resolving: the record is the game with the effect resolved *so far*
            # (e.g. the first of two simultaneous knockouts: a win that the next damage event turns into
            # a draw). Settling a parent from it (once: ``child_done``) or announcing a stub from it would
            # be final, so the links wait for the effect to resolve (the next write after it).
            return
        # In this order: a drawn playoff child (it awaits its own playoff) settles its parent from the
        # chain of records that includes its own child's stub.
        await self._stub_child(st, record)
        await self._settle_family(st, match, record)

    async def _stub_child(self, st: _MatchState, record: dict[str, Any]) -> None:
        """A game awaiting its playoff: the child's record stub, unless the child has a record already."""
        po = record.get("playoff")
        if record.get("status") == "awaiting_playoff" and isinstance(po, Mapping):
            child = po.get("child")
            if isinstance(child, str):
                if await self.store.put_record(
                    child, self._pack(playoff_stub(record, child)), if_absent=True
                ):
                    # the child had no record: most likely nothing indexed either (the store checks)
                    stub = IndexEntry.from_record(playoff_stub(record, child), 0)
                    await self.store.index(stub, last=None, guess=True)
                st.stubbed = child  # from now on the child has a record: writing a stub is a no-op

    async def _settle_family(self, st: _MatchState, match: str, record: dict[str, Any]) -> None:
        """Every drawn game of this game's playoff family that its record settles (its parent, a drawn
        playoff between them, or the drawn playoffs under a root) is settled by the engine's
        link_records and stored again; this game's own record is the caller's to write."""
        parent = record.get("parent")
        if isinstance(parent, str):
            if st.child_done or record.get("status") not in ("finished", "awaiting_playoff"):
                return
            top, top_record = await self._family_top(parent)
            if top_record is None:
                return  # the parent is not stored yet: it settles itself when it is
        elif record.get("children"):
            top, top_record = match, record
        else:
            return
        group = await self._family(top, top_record, {match: record})
        for other, settled in link_records(group).items():
            if other == match or settled == group[other]:
                continue
            _, old = await asyncio.gather(
                self.store.put_record(other, self._pack(settled)), self.store.index_entry(other)
            )
            entry = IndexEntry.from_record(settled, old.seq if old else 0)
            await self.store.index(entry, last=old, guess=True)  # just read: no second read
        if isinstance(parent, str):
            st.child_done = record.get("status") == "finished"

    async def _index(self, st: _MatchState, record: dict[str, Any], *, force: bool = False) -> None:
        entry = self._index_change(st, record, force=force)
        if entry is not None:
            await self.store.index(entry, last=st.indexed, guess=True)
            st.indexed = entry

    def _index_change(
        self, st: _MatchState, record: dict[str, Any], *, force: bool = False
    ) -> IndexEntry | None:
        """The index entry to write for ``record``, or None when nothing the indexes show has changed
        (which saves the second round trip)."""
        entry = IndexEntry.from_record(record, st.head)
        last = st.indexed
        if (
            not force
            and last is not None
            and (last.status, last.league, last.season, last.players, dict(last.findings))
            == (entry.status, entry.league, entry.season, entry.players, dict(entry.findings))
        ):
            return None
        return entry

    def _pack(self, record: dict[str, Any]) -> bytes:
        if self.signing_key is not None:
            record = sign(_unsigned(record), self.signing_key, self.key_id)
        return canonical_bytes(record)


async def _both(first: Awaitable[None], second: Awaitable[None]) -> None:
    """Two independent store steps at once (their commands share round trips); both have finished when
    an error of either is raised, so nothing is still writing behind a retry."""
    for result in await asyncio.gather(first, second, return_exceptions=True):
        if isinstance(result, BaseException):
            raise result


def _run_ends(game: Game, events: Sequence[tuple[int, bytes]], st: _MatchState) -> bool:
    """Must a run be written after its last event (both batch paths cut runs here)?

    Where the playoff links (_playoff_links) may act on the record after it, which must see it as with
    per-event ingest: a decided game (no effect still resolving) that is a playoff child not yet handed
    to its parent (it settles the parent), or that awaits a playoff whose child has no stub from it yet.
    The links do nothing with any other record: while an effect is pending the record is provisional and
    they wait; an "in_progress" record, a finished game without parent or playoff, a child already handed
    over, or a game whose child stub is written (a stub is only written if absent) have none. The record,
    the board and the indexes keep only the last write's values, so such events join the run (the claims
    and notes after a game's end, say). Nothing else needs a cut, but ``MAX_RUN`` (one call's size).
    """
    if len(events) >= MAX_RUN:
        return True
    if game.status == "in_progress" or game.effect_pending:
        return False
    if game.state.parent is not None and not st.child_done:
        return True
    if game.status == "awaiting_playoff":
        link = game.state.playoff
        return link is None or link.child != st.stubbed
    return False


def _waiting_conflict(match: str, seq: int, expected: int) -> Outcome:
    return Outcome(
        "rejected",
        match,
        seq,
        f"match {match} seq {seq}: a different event with this seq is already waiting "
        f"for seq {expected}; not applied",
        field="seq",
    )


def _unsigned(record: Mapping[str, Any]) -> dict[str, Any]:
    out = dict(record)
    if "signature" in out:
        out["signature"] = None
    return out


def _canonical(ev: dict[str, Any], raw: object = None) -> bytes:
    """The archived bytes; an event the canonical encoding cannot take (non-string keys in an extra
    field, integers beyond 64 bits) is rejected here rather than failing later in the engine.

    ``raw``: the msgpack bytes ``ev`` was decoded from, if any: archived as they are when they are
    canonical already (``prizecheck produce`` sends them so), without encoding the event again."""
    try:
        return canonical_of(raw, ev) if type(raw) is bytes else canonical_bytes(ev)
    except (TypeError, ValueError, OverflowError) as exc:
        raise EventError(
            f"cannot be archived as canonical msgpack ({exc})", match=ev.get("match"), seq=ev.get("seq")
        ) from None


def decode_event(event: dict[str, Any] | bytes | bytearray | memoryview) -> dict[str, Any]:
    """The event as a dict: bytes must hold exactly one msgpack map. Raises EventError otherwise.

    Bytes are the edge (Kafka messages, HTTP msgpack bodies): their shape is checked by
    :func:`replay.codec.edge_event`, the same rules as files. A dict comes from this process's own edge
    (the HTTP body parser) or code, and is taken as it is.
    """
    if type(event) is bytes and C_CANONICAL is not None and C_CANONICAL(event):
        # Canonical msgpack (as prizecheck produce sends it): one map, string keys, no ext types, nesting
        # within MAX_DEPTH (the C check's own bound), which msgspec decodes to just what msgpack.unpackb
        # gives, in about half the time. Only a float (0xcb) may still need the edge's integral rule.
        try:
            decoded = _decode_map(event)
        except msgspec.MsgspecError:  # not a map, or not UTF-8: worded below
            pass
        else:
            return edge_event(decoded) if b"\xcb" in event else decoded
    if isinstance(event, dict):
        return event
    if not isinstance(event, bytes | bytearray | memoryview):
        raise EventError(f"an event must be a map or msgpack bytes, got {type(event).__name__}")
    try:
        obj = msgpack.unpackb(bytes(event), raw=False, strict_map_key=False)
    except (msgpack.StackError, RecursionError):
        raise EventError(f"not msgpack we accept: nested deeper than {MAX_DEPTH} levels") from None
    except msgpack.ExtraData:
        raise EventError("not one msgpack map: trailing bytes after the first object") from None
    except Exception as exc:
        raise EventError(f"not msgpack ({type(exc).__name__}: {exc}); {len(event)} bytes") from None
    if not isinstance(obj, dict):
        kind = type(obj).__name__
        raise EventError(f"an event must be a msgpack map, got {kind}")
    return edge_event(obj)
