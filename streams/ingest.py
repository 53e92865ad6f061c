"""The ingest core: one function that takes events and lands them in the store, whoever delivered them.

``prizecheck serve`` (HTTP, embedded) and the Kafka workers both call :meth:`IngestCore.ingest_many`
(:meth:`IngestCore.ingest` is that call with one event): there is one path. The core decodes and validates
each event, applies it to the match's :class:`replay.Game` (kept in memory by the owner of the match), and
hands the store the archived bytes with the new board and record in one atomic append: the in-line events
of one match in a batch are one append (a run); a conflict is its own. Then it updates the league indexes
(a second, idempotent step) and the playoff links between parent and child records.

Guarantees (docs/reliability.md, docs/storage.md): the archive is the source of truth and a record rebuilt
from it is byte for byte the one stored; delivery may repeat (exact duplicates are no-ops); events ahead of
a gap wait in a bounded buffer (count and time; kept in the store, and picked up again by the next owner
on start-up or when a partition moves: :meth:`IngestCore.recover`), then the gap is handed to the engine,
which reports it; every record write is fenced by the record's write count, so two processes writing one
record (a match's owner and the owner of a playoff game settling it) never overwrite each other; a rebuild
checks the archive against the trusted chain head the store keeps and raises a tamper alarm instead of
re-signing a changed archive; a finished record that changes is kept as a new version. Nothing is dropped
silently: every event ends as applied, duplicate, buffered or rejected (quarantined by the caller), and
``stats()`` counts them.
"""

from __future__ import annotations

import asyncio
import functools
import os
import re
import socket
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, TypeVar, cast

import msgpack
import msgspec

from replay import Game, link_records
from replay.codec import MAX_DEPTH, edge_event
from replay.engine.chain import C_CANONICAL, canonical_bytes, canonical_of, sign
from replay.engine.errors import EventError
from replay.engine.playoff import playoff_games, playoff_stub
from replay.engine.validate import validate_event
from streams.settings import Settings
from streams.store import Append, AppendRun, AuditEntry, IndexEntry, Store, version_cause

Status = Literal["applied", "duplicate", "buffered", "rejected"]
_T = TypeVar("_T")


@dataclass
class Outcome:
    """What happened to one event (or, from :meth:`IngestCore.flush_gaps`, to one gap).

    - ``applied``: archived and folded; ``applied`` lists every seq this call archived in order (the event
      itself and any buffered events it released).
    - ``duplicate``: the same bytes were already archived at that seq; nothing changed.
    - ``buffered``: ahead of a gap; it waits (durably, in the store) and is applied later.
    - ``rejected``: quarantine it (dead-letter topic / HTTP 400). ``reason`` names match, seq and field.
      A different event reusing a seq (or arriving after its gap was reported) is also rejected, and it
      is archived and reported as a finding in the record (``duplicate_seq`` / ``late_event``). An event
      for a match under a tamper alarm is rejected and not archived.
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


class StoreContention(RuntimeError):
    """Another writer kept moving a match's head or record: the call was not completed (retry it)."""


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
    writes: int = 0  # the record's write count as this owner knows it (the fence of every write)
    buffer: dict[int, _Pending] = field(default_factory=dict)
    indexed: IndexEntry | None = None
    quarantined: set[bytes] = field(default_factory=set)  # conflicting / late events already archived
    child_done: bool = False  # a playoff child whose finish was already handed to its parent
    stubbed: str | None = None  # the playoff child whose stub this match's links have written (if absent)
    tampered: str | None = None  # the tamper alarm raised on the last rebuild: nothing is written


_Item = tuple[int, int, dict[str, Any], bytes]  # (position in the batch, seq, event, canonical bytes)


@dataclass
class _Run:
    """In-line events of one match applied in memory and not yet written, and the outcomes waiting for
    that write (handed out by :meth:`IngestCore._commit` once it is stored)."""

    outcomes: list[Outcome | None]  # the batch's outcomes, by position in the batch
    judge: bool = True  # the writer may amend an ended game (False: an HTTP producer's token)
    pos: int = 0  # the item being processed (index in the match's items)
    start: int = 0  # the first item whose outcome is not handed out yet (where a retry starts)
    events: list[tuple[int, bytes]] = field(default_factory=list)
    gap: bool = False  # the first event follows a gap the engine was told about
    decided: list[tuple[int, Outcome]] = field(default_factory=list)


#: Events per :meth:`Store.append_run` at most (a backlog of one match is written in runs of this size).
MAX_RUN = 500
# The most games of one playoff family read to settle it (a game, its drawn playoffs, the deciding one).
MAX_FAMILY = 32
#: Attempts at one match's items, or at settling one family, when another writer keeps moving the head or
#: the record (each attempt rebuilds from the store first); then :class:`StoreContention` is raised.
MAX_ATTEMPTS = 8

_decode_map = msgspec.msgpack.Decoder(dict[str, Any]).decode  # decode_event's path for canonical bytes

_PLAYOFF_CHILD = re.compile(r"^(?P<root>.+)/tb\d+$")


def _family(match: str) -> str:
    """The root of a match's playoff family (``g1`` for ``g1``, ``g1/tb1``, ``g1/tb2``...)."""
    m = _PLAYOFF_CHILD.match(match)
    return m.group("root") if m else match


class _Stale(Exception):
    """The store's head or record moved under us (another writer): rebuild from the archive and retry."""


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
    are rebuilt from the archive if they are seen again); ``actor``: who this process is in the audit log;
    ``concurrency``: the most matches (playoff families) of one batch decided at once.
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
        actor: str = "ingest",
        concurrency: int = 32,
    ) -> None:
        self.store = store
        self.gap_limit = gap_limit
        self.gap_timeout = gap_timeout
        self.signing_key = signing_key
        self.key_id = key_id or "default"
        self.clock = clock
        self.max_matches = max_matches
        self.actor = actor
        self.concurrency = concurrency
        self.origin = f"{socket.gethostname()}:{os.getpid()}"
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
        """Take one event: a dict (decoded JSON) or the bytes of one msgpack map (:meth:`ingest_many`)."""
        return (await self.ingest_many([event]))[0]

    async def ingest_many(
        self,
        items: Sequence[dict[str, Any] | bytes],
        raws: Sequence[bytes] | None = None,
        *,
        judge: bool = True,
    ) -> list[Outcome]:
        """Take a batch of events: one outcome per item, in the order given.

        ``raws``: for items already decoded from messages, the messages' bytes (item by item): when they
        are canonical already they are archived and chained as they came, without encoding the event again.

        Items are grouped by match (each match keeps the batch's order); playoff families (``g1``,
        ``g1/tb1``...) go one match after the other, so a playoff game's finish settles its parent's
        stored record as it would one event at a time; different families run concurrently. Within a
        match, the events that are next in line are applied to the game in memory and written together
        (one :meth:`Store.append_run`); a run is also written where the playoff links act on the record
        (``_run_ends``). The stored archive, record and board are byte for byte those of one event per call
        (``tests/streams/test_ingest.py``).

        A store error propagates (nothing is returned): events of other matches may have been stored, and
        a retry of the batch finds them as duplicates.

        ``judge=False`` (an HTTP producer that is not a judge: docs/http-api.md, "Scopes and ownership"):
        a penalty or a correction is rejected once its game has ended (also when an earlier event of the
        same batch ended it), and when it would wait behind a gap (its game may end meanwhile).
        """
        outcomes: list[Outcome | None] = [None] * len(items)
        families: dict[str, dict[str, list[_Item]]] = {}
        for i, item in enumerate(items):
            try:
                ev = decode_event(item)
                raw = item if raws is None else raws[i]
                validate_event(ev)
                data = archive_bytes(ev, raw)
            except EventError as exc:
                self.counts["rejected"] += 1
                outcomes[i] = Outcome("rejected", exc.match, exc.seq, str(exc), field=exc.field)
                continue
            match: str = ev["match"]
            families.setdefault(_family(match), {}).setdefault(match, []).append((i, ev["seq"], ev, data))
        if len(families) == 1:
            await self._ingest_family(next(iter(families.values())), outcomes, judge)
        elif families:
            # at most ``concurrency`` families at once: their store calls share the client's connections
            gate = asyncio.Semaphore(self.concurrency)

            async def gated(family: dict[str, list[_Item]]) -> None:
                async with gate:
                    await self._ingest_family(family, outcomes, judge)

            work = [gated(f) for f in families.values()]
            for result in await asyncio.gather(*work, return_exceptions=True):
                if isinstance(result, BaseException):
                    raise result
        return cast(list[Outcome], outcomes)

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
            outcomes += await self._locked(match, functools.partial(self._flush_match, match=match, now=now))
        return outcomes

    async def recover(self, owns: Callable[[str], bool] | None = None) -> list[str]:
        """Pick up the events a previous owner left waiting behind a gap (in the store), for the matches
        this process owns (``owns``; all by default): called on start-up and when partitions are assigned.

        Their wait starts now, so :meth:`flush_gaps` releases them after ``gap_timeout`` even if no other
        event for the match ever arrives. Returns the matches picked up.
        """
        found = [m for m in await self.store.pending_matches() if owns is None or owns(m)]
        for match in found:
            await self._locked(match, functools.partial(self._game, match=match))
        return found

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
        between the append and the index step. An archive that does not arrive at the trusted chain head
        raises the tamper alarm and is not re-signed: :class:`EventError` names it.
        """

        async def work(st: _MatchState) -> dict[str, Any] | None:
            st.game = None
            game = await self._game(st, match)
            if st.tampered is not None:
                raise EventError(st.tampered, match=match, field="archive")
            if game.match is None:
                return None
            record = await self._final_record(match, game)
            if not await self.store.put_record(
                match,
                self._pack(record),
                writes=st.writes,
                cause=self._cause(match, record, st.head, provisional=game.effect_pending),
            ):
                raise StoreContention(f"match {match}: its record was written during the rebuild; retry")
            st.writes += 1
            await self._index(st, record, force=True)
            return record

        return await self._locked(match, work)

    # ------------------------------------------------------------------------------------ one match
    async def _locked(self, match: str, work: Callable[[_MatchState], Awaitable[_T]]) -> _T:
        """Run ``work`` holding the match's lock; memory possibly ahead of the store is dropped on error."""
        st = self._state(match)
        st.users += 1
        try:
            async with st.lock:
                try:
                    return await work(st)
                except BaseException:
                    st.game = None  # memory may be ahead of the store: rebuild on next use
                    raise
        finally:
            st.users -= 1

    async def _ingest_family(
        self, groups: dict[str, list[_Item]], outcomes: list[Outcome | None], judge: bool = True
    ) -> None:
        # A playoff parent and its children, one match after the other: a child's finish settles the
        # parent's stored record, as it would one event after the other.
        for match, items in groups.items():
            work = functools.partial(
                self._ingest_items, match=match, items=items, outcomes=outcomes, judge=judge
            )
            await self._locked(match, work)

    async def _ingest_items(
        self,
        st: _MatchState,
        match: str,
        items: list[_Item],
        outcomes: list[Outcome | None],
        judge: bool = True,
    ) -> None:
        """Decide a match's items; where another writer moved the head or the record, rebuild and decide
        again from the first item whose outcome was not handed out."""
        for _ in range(MAX_ATTEMPTS):
            run = _Run(outcomes, judge=judge)
            try:
                await self._decide(st, match, items, run)
                return
            except _Stale:
                st.game = None
                items = items[run.start :]
        raise StoreContention(
            f"match {match}: another writer kept changing its head or record over {MAX_ATTEMPTS} attempts"
        )

    async def _decide(self, st: _MatchState, match: str, items: list[_Item], run: _Run) -> None:
        for pos, (i, seq, ev, data) in enumerate(items):
            run.pos = pos
            game = await self._game(st, match)
            if st.tampered is not None:
                run.decided.append((i, _tampered(match, seq, st.tampered)))
                continue
            if game.next_seq in st.buffer:  # held events a previous owner left in line (it stopped first)
                await self._drain(st, match, game, run, None)
            if (
                not run.judge
                and ev.get("type") in _AMENDMENTS
                and (seq > game.next_seq or (seq == game.next_seq and game.status != "in_progress"))
            ):  # a producer's penalty or correction after the end, or one that would wait behind a gap
                run.decided.append((i, _judge_only(match, seq, ev["type"], game.status)))
                continue
            if seq == game.next_seq:
                game.apply(ev, data)
                applied = [seq]
                await self._add(st, match, game, run, seq, data)
                await self._drain(st, match, game, run, applied)
                run.decided.append((i, Outcome("applied", match, seq, applied=applied)))
            elif seq > game.next_seq:
                run.decided.append((i, await self._ahead(st, match, game, run, seq, ev, data)))
            else:
                await self._flush(st, match, run)
                run.decided.append((i, await self._old_seq(st, match, seq, ev, data, game)))
            if not run.events:
                self._commit(run, done=True)
        await self._flush(st, match, run)
        self._commit(run, done=True)

    async def _ahead(
        self, st: _MatchState, match: str, game: Game, run: _Run, seq: int, ev: dict[str, Any], data: bytes
    ) -> Outcome:
        """An event past the next expected seq: it waits behind the gap, durably (or is a redelivery)."""
        waiting = st.buffer.get(seq)
        if waiting is not None:
            if waiting.data == data:
                return Outcome("duplicate", match, seq)
            return _waiting_conflict(match, seq, game.next_seq)
        await self._flush(st, match, run)
        if await self.store.head(match) != st.head:
            raise _Stale  # the events we wait for may have been appended by another owner
        if not await self.store.hold(match, seq, data):
            raise _Stale  # another process holds one: trust the store's copy (a rebuild sees it)
        st.buffer[seq] = _Pending(ev, data, self.clock())
        if len(st.buffer) <= self.gap_limit:
            return Outcome("buffered", match, seq)
        applied = await self._release_gap(st, match, game, run)
        return Outcome("applied" if seq in applied else "buffered", match, seq, applied=applied)

    async def _flush_match(self, st: _MatchState, match: str, now: float) -> list[Outcome]:
        outcomes: list[Outcome] = []
        attempts = 0
        while st.buffer and now - min(p.arrived for p in st.buffer.values()) >= self.gap_timeout:
            game = await self._game(st, match)
            if st.tampered is not None:
                break  # nothing is written to a match under a tamper alarm; the events stay held
            expected, first = game.next_seq, min(st.buffer)
            run = _Run([])
            try:
                applied = await self._release_gap(st, match, game, run)
                await self._flush(st, match, run)
            except _Stale:
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
                    f"arrive within {self.gap_timeout:g} s; reported as a seq_gap finding",
                    applied,
                )
            )
        return outcomes

    async def _release_gap(self, st: _MatchState, match: str, game: Game, run: _Run) -> list[int]:
        """Hand the engine the first waiting event past the gap, then whatever follows in order (into
        ``run``, which starts with it: the write declares the gap)."""
        await self._flush(st, match, run)
        seq = min(st.buffer)
        pending = st.buffer.pop(seq)
        game.apply(pending.event, pending.data)  # the engine reports the gap (seq_gap) and applies the event
        run.gap = True
        applied = [seq]
        await self._add(st, match, game, run, seq, pending.data)
        await self._drain(st, match, game, run, applied)
        return applied

    async def _drain(
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
            await self._flush(st, match, run)

    async def _flush(self, st: _MatchState, match: str, run: _Run) -> None:
        """Write the run (one atomic store call), then commit the outcomes that waited for it."""
        if run.events:
            game = st.game
            assert game is not None
            record = await self._final_record(match, game)
            events = tuple(run.events)
            last = events[-1][0]
            result = await self.store.append_run(
                AppendRun(
                    match,
                    st.head,
                    events,
                    canonical_bytes(game.board()),
                    self._pack(record),
                    writes=st.writes,
                    chain=game.log.head.hex(),
                    cause=self._cause(match, record, last, provisional=game.effect_pending),
                    allow_gap=run.gap,
                )
            )
            if result.status != "applied":
                raise _Stale
            run.events.clear()
            run.gap = False
            st.head, st.writes = last, result.writes
            self.counts["applied"] += len(events)
            await self._after_write(st, match, record, game)
        self._commit(run, done=False)

    def _commit(self, run: _Run, *, done: bool) -> None:
        """Hand out the decided outcomes; ``done``: the current item is decided too."""
        for i, outcome in run.decided:
            run.outcomes[i] = outcome
            if outcome.status != "applied":
                self.counts[outcome.status] += 1
        run.decided.clear()
        run.start = run.pos + 1 if done else run.pos

    async def _old_seq(
        self, st: _MatchState, match: str, seq: int, ev: dict[str, Any], data: bytes, game: Game
    ) -> Outcome:
        archived = await self.store.event(match, seq)
        if archived == data or data in st.quarantined:
            # a redelivery (of an event, or of a conflict already archived and reported)
            return Outcome("duplicate", match, seq)
        late = game.log.is_missing(seq)
        before = len(game.findings)
        game.apply(ev, data)  # the engine records duplicate_seq / late_event and does not fold it
        if len(game.findings) == before:  # the engine saw an exact duplicate the archive did not have
            raise _Stale
        record = await self._final_record(match, game)
        result = await self.store.append(
            Append(
                match=match,
                seq=seq,
                event=data,
                prev=st.head,
                board=canonical_bytes(game.board()),
                record=self._pack(record),
                conflict=True,
                writes=st.writes,
                chain=game.log.head.hex(),
                cause=self._cause(match, record, seq, provisional=game.effect_pending),
            )
        )
        if not (result.status == "conflict" and result.archived):
            raise _Stale
        st.writes = result.writes
        await self._after_write(st, match, record, game)
        st.quarantined.add(data)
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

    async def _after_write(self, st: _MatchState, match: str, record: dict[str, Any], game: Game) -> None:
        await _both(
            self._index(st, record), self._playoff_links(st, match, record, provisional=game.effect_pending)
        )

    async def _game(self, st: _MatchState, match: str) -> Game:
        """The match's game, rebuilt from the archive (and the held events) when not in memory.

        The rebuild checks the archive against the trusted chain head the store keeps: a mismatch raises
        the tamper alarm (:meth:`_alarm`) and nothing more is written to the match."""
        if st.game is not None:
            return st.game
        game = Game()
        head = 0
        st.quarantined.clear()
        # the three reads at once (one round trip when the client pipelines concurrent commands)
        archived, held, state = await asyncio.gather(
            self.store.events(match), self.store.held(match), self.store.state(match)
        )
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
        st.game, st.head, st.writes, st.indexed = game, head, state.writes, None
        st.tampered = None
        if state.chain is not None and (state.chain != game.log.head.hex() or head != state.head):
            await self._alarm(st, match, game, state.chain, state.head)
        elif game.match is not None:
            # heal a crash between an append and its index step
            await self._index(st, await self._final_record(match, game), force=True)
        return game

    async def _alarm(self, st: _MatchState, match: str, game: Game, trusted: str, head: int) -> None:
        """A tamper alarm: the archive no longer replays to the chain head stored with its last append.

        docs/reliability.md: the stored (signed) record is left as it is, never re-signed from the changed
        archive; the alarm is kept in the store (``prizecheck check`` fails), written to the audit log, and
        counted as an ``archive_tampered`` finding in the indexes; events for the match are refused."""
        detail = (
            f"match {match}: the archive replays to chain head {game.log.head.hex()} at seq "
            f"{game.next_seq - 1}, but the head stored with its last append is {trusted} at seq {head}: "
            "the archive was changed outside the service; its record is kept as stored and not re-signed"
        )
        st.tampered = detail
        await self.store.alarm(match, detail)
        await self.store.audit(
            AuditEntry(
                "tamper_alarm", self.actor, target=match, origin=self.origin, detail=detail, at=time.time()
            )
        )
        stored = unpack_record(await self.store.record(match))
        if stored is not None:
            entry = IndexEntry.from_record(stored, head)
            findings = {**entry.findings, "archive_tampered": 1}
            await self.store.index(
                IndexEntry(
                    entry.match, head, entry.status, entry.league, entry.season, entry.players, findings
                )
            )

    def _cause(self, match: str, record: Mapping[str, Any], seq: int, *, provisional: bool = False) -> str:
        """A finished record's cause (``"<match> <seq>"``): empty while the game is in progress, and while
        an effect is still resolving (``provisional``: the record is not a version anyone should see)."""
        if provisional or record.get("status", "in_progress") == "in_progress":
            return ""
        return version_cause(match, seq)

    # ------------------------------------------------------------------------------------ playoffs
    async def _final_record(self, match: str, game: Game) -> dict[str, Any]:
        """The record to store: the engine's, settled from its playoff games when it awaits one."""
        record = game.record()
        if record.get("status") == "awaiting_playoff":
            record = link_records((await self._family(match, record, {}))[0])[match]
        return record

    async def _family(
        self, top: str, record: dict[str, Any], known: Mapping[str, dict[str, Any]]
    ) -> tuple[dict[str, dict[str, Any]], dict[str, int]]:
        """``top`` and the playoff games of its family (its children and theirs, and where their playoff
        links point), unsigned, as ``known`` gives them or else as stored: what ``link_records`` settles;
        and the write count each stored record was read at (the fence of a write that settles it)."""
        group: dict[str, dict[str, Any]] = {top: _unsigned(record)}
        writes: dict[str, int] = {}
        todo = playoff_games(record)
        while todo and len(group) < MAX_FAMILY:
            child = todo.pop(0)
            if child in group:
                continue
            crec = known.get(child)
            if crec is None:
                data, writes[child] = await self.store.record_state(child)
                crec = unpack_record(data)
            if crec is not None:
                group[child] = _unsigned(crec)
                todo.extend(playoff_games(crec))
        return group, writes

    async def _family_top(self, parent: str) -> tuple[str, dict[str, Any] | None, int]:
        """The top of a playoff game's family, from its parent up the stored records' parent links, and
        the write count its record was read at."""
        data, writes = await self.store.record_state(parent)
        name, record = parent, unpack_record(data)
        seen = {name}
        while record is not None and len(seen) < MAX_FAMILY:
            up = record.get("parent")
            if not isinstance(up, str) or up in seen:
                break
            data, above_writes = await self.store.record_state(up)
            above = unpack_record(data)
            if above is None:
                break
            name, record, writes = up, above, above_writes
            seen.add(up)
        return name, record, writes

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
        link_records and stored again, fenced by the write count it was read at (its owner may be writing
        it too: then read again and settle again); this game's own record is the caller's to write."""
        parent = record.get("parent")
        if isinstance(parent, str):
            if st.child_done or record.get("status") not in ("finished", "awaiting_playoff"):
                return
        elif not record.get("children"):
            return
        for _ in range(MAX_ATTEMPTS):
            if isinstance(parent, str):
                top, top_record, top_writes = await self._family_top(parent)
                if top_record is None:
                    return  # the parent is not stored yet: it settles itself when it is
            else:
                top, top_record, top_writes = match, record, st.writes
            group, writes = await self._family(top, top_record, {match: record})
            writes[top] = top_writes
            if await self._store_settled(match, st.head, group, writes):
                break
        else:
            raise StoreContention(f"match {match}: its playoff family kept changing while it was settled")
        if isinstance(parent, str):
            st.child_done = record.get("status") == "finished"

    async def _store_settled(
        self, match: str, seq: int, group: dict[str, dict[str, Any]], writes: Mapping[str, int]
    ) -> bool:
        """Store the games of ``group`` that link_records settles; False if one was written meanwhile."""
        for other, settled in link_records(group).items():
            if other == match or settled == group[other]:
                continue
            if not await self.store.put_record(
                other,
                self._pack(settled),
                writes=writes.get(other),
                cause=self._cause(match, settled, seq),
            ):
                return False
            old = await self.store.index_entry(other)
            entry = IndexEntry.from_record(settled, old.seq if old else 0)
            await self.store.index(entry, last=old, guess=True)  # just read: no second read
        return True

    # ------------------------------------------------------------------------------------ memory
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


#: What only a judge adds to a game that has ended (``ingest_many(judge=False)``).
_AMENDMENTS = frozenset({"penalty", "correction"})


def _judge_only(match: str, seq: int, kind: str, status: str) -> Outcome:
    why = (
        f"the game has ended ({status}): only a judge may add a {kind} now"
        if status != "in_progress"
        else f"a producer's {kind} must follow the events before it (it cannot wait behind a gap)"
    )
    return Outcome("rejected", match, seq, f"match {match} seq {seq}: not applied: {why}", field="type")


def _tampered(match: str, seq: int, alarm: str) -> Outcome:
    return Outcome(
        "rejected",
        match,
        seq,
        f"match {match} seq {seq}: not applied: the match is under a tamper alarm ({alarm})",
        field="seq",
    )


async def _both(first: Awaitable[None], second: Awaitable[None]) -> None:
    """Two independent store steps at once (their commands share round trips); both have finished when
    an error of either is raised, so nothing is still writing behind a retry."""
    for result in await asyncio.gather(first, second, return_exceptions=True):
        if isinstance(result, BaseException):
            raise result


def _run_ends(game: Game, events: Sequence[tuple[int, bytes]], st: _MatchState) -> bool:
    """Must a run be written after its last event (both batch paths cut runs here)?

    After every event of a decided game (no effect still resolving): the playoff links (_playoff_links)
    may act on its record (a playoff child not yet handed to its parent settles the parent; a game
    awaiting a playoff writes its child's stub), and every change to a finished record is a version of
    its own, whatever the batching. While the game is in progress, or an effect is still resolving (the
    record is provisional), the record, the board and the indexes keep only the last write's values, so
    the events join the run; then only ``MAX_RUN`` (one call's size) cuts it.
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
    # A decided game: each event after the end is its own write, so that every change to the finished
    # record is its own version (Store.versions), however the events were batched.
    return True


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


def archive_bytes(ev: dict[str, Any], raw: object = None) -> bytes:
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
