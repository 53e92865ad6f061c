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
from dataclasses import dataclass, field, replace
from typing import Any, Literal, TypeVar, cast

import msgpack
import msgspec

from replay import Game, link_records
from replay.codec import MAX_DEPTH, edge_event
from replay.engine.chain import C_CANONICAL, GENESIS, canonical_bytes, canonical_of, sign
from replay.engine.errors import EventError
from replay.engine.playoff import playoff_games, playoff_stub
from replay.engine.validate import validate_event
from replay.signing import PublicKeys, SigningKey, receipt
from streams.settings import Settings
from streams.store import (
    Append,
    AppendRun,
    AuditEntry,
    CopyRefused,
    Expect,
    IndexChanged,
    IndexEntry,
    IngestStore,
    MatchState,
    RecordVersion,
    Stored,
    Tampered,
    version_cause,
)
from streams.store.base import is_match_id
from streams.store.checkpoint import (
    NONE,
    Checkpoint,
    CheckpointError,
    CheckpointKey,
    CheckpointLog,
    HeldForged,
    MemoryCheckpoints,
    add_version,
    digest,
    entry_step,
    index_digest,
    open_held,
    seal_held,
    sha1,
    version_chains,
)

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
    # What the store holds, as this owner verified it on the rebuild or wrote it since: the checkpoint
    # (streams.store.checkpoint) and its stored bytes (b"": none stored yet), the SHA-1 of the stored
    # record and board (what the write scripts compare before they write).
    ck: Checkpoint | None = None
    ck_raw: bytes = b""
    record_sha1: str = ""
    board_sha1: str = ""


_SHA1_NONE = sha1(None)


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
#: Reads of a match whose index entry alone disagrees with its checkpoint, before that is an alarm.
INDEX_READS = 3
_INDEX_PROBLEM = "the league index entry is not one its checkpoint signs (replaced or edited)"
#: The finding a tamper alarm counts in the match's index entry.
TAMPERED = "archive_tampered"

_decode_map = msgspec.msgpack.Decoder(dict[str, Any]).decode  # decode_event's path for canonical bytes

_PLAYOFF_CHILD = re.compile(r"^(?P<root>.+)/tb\d+$")


def _family(match: str) -> str:
    """The root of a match's playoff family (``g1`` for ``g1``, ``g1/tb1``, ``g1/tb2``...)."""
    m = _PLAYOFF_CHILD.match(match)
    return m.group("root") if m else match


class _Stale(Exception):
    """The store's head or record moved under us (another writer): rebuild from the archive and retry."""


class _Tamper(Exception):
    """A write script refused to write: the store holds something its checkpoint does not say (an alarm
    has been raised; the match takes nothing more)."""


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
    caller runs periodically); ``signing_key``: sign every stored record (``replay.engine.chain.sign``)
    with this Ed25519 key (``replay.signing.SigningKey``: the service's, :meth:`from_settings`), or with
    these HMAC-SHA256 secret bytes named ``key_id`` (as records were signed before);
    ``max_matches``: games kept in memory; the least recently used idle ones are dropped beyond it (they
    are rebuilt from the archive if they are seen again); ``actor``: who this process is in the audit log;
    ``concurrency``: the most matches (playoff families) of one batch decided at once.
    ``checkpoint_key``: the key of the signed checkpoints and of the seals of held events (default: the
    signing key; None and no signing key: checkpoints are kept unsigned and held events unsealed, which
    protects against nothing but accidents: ``prizecheck serve`` and ``prizecheck worker`` always have a
    key); ``checkpoints``: the log outside the store every checkpoint is appended to before the writes it
    describes are answered (default: this process's memory). docs/reliability.md, "Tampering".
    Store errors (e.g. Redis down) propagate: the event was not processed and must be retried.
    """

    def __init__(
        self,
        store: IngestStore,
        *,
        gap_limit: int = 1000,
        gap_timeout: float = 5.0,
        signing_key: bytes | SigningKey | None = None,
        key_id: str | None = None,
        clock: Callable[[], float] = time.monotonic,
        max_matches: int = 10_000,
        actor: str = "ingest",
        concurrency: int = 32,
        checkpoint_key: CheckpointKey | None = None,
        checkpoints: CheckpointLog | None = None,
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
        if checkpoint_key is None and isinstance(signing_key, SigningKey):
            checkpoint_key = CheckpointKey.of_signer(signing_key)
        elif checkpoint_key is None and isinstance(signing_key, bytes):
            checkpoint_key = CheckpointKey(signing_key, self.key_id)
        self.checkpoint_key = checkpoint_key
        self.prefix = str(getattr(store, "prefix", ""))
        self.checkpoints: CheckpointLog = (
            MemoryCheckpoints(self.prefix) if checkpoints is None else checkpoints
        )
        self._outbox: list[Checkpoint] = []  # written to the store, not yet to the checkpoint log
        self._sha1_last: tuple[bytes, str] = (b"", sha1(b""))
        self._entry_digests: list[tuple[IndexEntry, str]] = []
        self._last_entry: tuple[dict[str, Any] | None, int, IndexEntry] = (None, 0, IndexEntry("", 0, ""))

    # ------------------------------------------------------------------------------------ public API

    @classmethod
    def from_settings(cls, store: IngestStore, settings: Settings, **options: Any) -> IngestCore:
        """A core with the gap limits from ``settings`` (the environment); records are signed with the
        Ed25519 key of ``checkpoint_key`` (the service's key ring) when it has one, else with the HMAC key
        ``PRIZECHECK_SIGNING_KEY`` when set (a deployment without a key ring yet)."""
        ck = options.get("checkpoint_key")
        signer = ck.signer if isinstance(ck, CheckpointKey) else None
        return cls(
            store,
            gap_limit=settings.gap_limit,
            gap_timeout=settings.gap_timeout,
            signing_key=signer if isinstance(signer, SigningKey) else settings.signing_key,
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
        await self.publish()
        return cast(list[Outcome], outcomes)

    @property
    def verifier(self) -> bytes | PublicKeys | None:
        """What record signatures are checked with: the public keys of the checkpoint key (the Ed25519
        keys, and the HMAC secret of records signed before), else the HMAC secret itself, else None."""
        if self.checkpoint_key is not None and self.checkpoint_key.public is not None:
            return self.checkpoint_key.public
        return self.signing_key if isinstance(self.signing_key, bytes) else None

    def receipts(self, outcomes: Sequence[Outcome]) -> list[dict[str, Any]]:
        """A :meth:`receipt` per match an event of ``outcomes`` was accepted for (applied, duplicate or
        buffered): what an answer to a write carries."""
        accepted = sorted({o.match for o in outcomes if o.status != "rejected" and o.match})
        return [r for r in (self.receipt(m) for m in accepted) if r is not None]

    def receipt(self, match: str) -> dict[str, Any] | None:
        """A signed receipt of what is archived of ``match`` now (``replay.signing.receipt``: the head seq,
        the events archived in order, their chain head, the time), from the newest checkpoint this process
        wrote or read for it, which the checkpoint log holds before any write is answered. None without an
        Ed25519 key, or before anything of the match is stored."""
        signer = self.checkpoint_key.signer if self.checkpoint_key is not None else None
        ck = self.checkpoints.latest(match)
        if not isinstance(signer, SigningKey) or ck is None:
            return None
        at = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        return receipt(signer, match=match, seq=ck.seq, events=ck.events, chain=ck.chain, at=at)

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
        await self.publish()
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
        await self.publish()
        return found

    async def publish(self) -> None:
        """Append the checkpoints of the writes done so far to the checkpoint log (every public call does
        it before it returns: a write is answered only once its checkpoint is outside the store). On an
        error they stay, and the next call appends them."""
        if self._outbox:
            batch, self._outbox = self._outbox, []
            try:
                await self.checkpoints.append(batch)
            except BaseException:
                self._outbox[:0] = batch
                raise

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
            packed = self._pack(record)
            cause = self._cause(match, record, st.head, provisional=game.effect_pending)
            ck = self._next_checkpoint(st, match, packed, cause, IndexEntry.from_record(record, st.head))
            try:
                written = await self.store.put_record(
                    match,
                    packed,
                    writes=st.writes,
                    cause=cause,
                    expect=self._expect(st),
                    checkpoint=ck.encode(),
                )
            except Tampered as exc:
                detail = self._tamper_detail(st, match, exc.what)
                await self._alarm(st, match, detail)
                raise EventError(detail, match=match, field="archive") from None
            if not written:
                raise StoreContention(f"match {match}: its record was written during the rebuild; retry")
            self._wrote(st, ck, packed, None)
            await self._index(st, record, force=True)
            return record

        try:
            return await self._locked(match, work)
        finally:
            await self.publish()

    async def copy_refused(self, match: str) -> str | None:
        """A reader found that an archived match's cold copy is not the one archived (the store refused to
        serve it: :class:`streams.store.CopyRefused`): the match is read again from the store, which checks
        the copy and raises the tamper alarm as a rebuild does (kept, audited, counted in the indexes,
        further events refused; once per match and process). Returns the alarm, or None when the copy
        checks out now."""

        async def work(st: _MatchState) -> str | None:
            if st.tampered is None:
                st.game = None  # what memory holds was read before the copy changed: read it again
                await self._game(st, match)
            return st.tampered

        return await self._locked(match, work)

    # ------------------------------------------------------------------------------------ one match
    async def _locked(self, match: str, work: Callable[[_MatchState], Awaitable[_T]]) -> _T:
        """Run ``work`` holding the match's lock; memory possibly ahead of the store is dropped on error."""
        st = self._state(match)
        st.users += 1
        try:
            async with st.lock:
                waiting = dict(st.buffer)
                try:
                    return await work(st)
                except BaseException:
                    st.game = None  # memory may be ahead of the store: rebuild on next use
                    # A store error (Redis down) after a gap's release or a drain took held events out of
                    # memory: they are still held in the store, so keep them in memory too, with their
                    # arrival times, for flush_gaps to retry them (the rebuild on next use drops any that a
                    # partial write did archive). Else they would wait for the match's next event or a
                    # restart (docs/reliability.md, guarantee 3).
                    st.buffer.update({s: p for s, p in waiting.items() if s not in st.buffer})
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
            except _Tamper:
                # nothing of the run was written: every item not handed out yet is refused (the alarm
                # stands; the next rebuild finds the same evidence and keeps the match quarantined)
                st.game = None
                for i, seq, _, _ in items[run.start :]:
                    outcomes[i] = _tampered(match, seq, st.tampered or "")
                    self.counts["rejected"] += 1
                return
        raise StoreContention(
            f"match {match}: another writer kept changing its head or record over {MAX_ATTEMPTS} attempts"
        )

    async def _decide(self, st: _MatchState, match: str, items: list[_Item], run: _Run) -> None:
        for pos, (i, seq, ev, data) in enumerate(items):
            run.pos = pos
            game = await self._game(st, match)
            if await self._alarm_cleared(st, match):
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
        if not await self.store.hold(match, seq, seal_held(self.checkpoint_key, match, seq, data)):
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
            if await self._alarm_cleared(st, match):
                game = await self._game(st, match)
            if st.tampered is not None:
                break  # nothing is written to a match under a tamper alarm; the events stay held
            expected, first = game.next_seq, min(st.buffer)
            run = _Run([])
            try:
                applied = await self._release_gap(st, match, game, run)
                await self._flush(st, match, run)
            except _Tamper:
                st.game = None
                break  # the alarm stands; the events stay held
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
            packed, board = self._pack(record), canonical_bytes(game.board())
            cause = self._cause(match, record, last, provisional=game.effect_pending)
            ck = self._next_checkpoint(
                st, match, packed, cause, self._entry_of(record, last), board, game, len(events)
            )
            result = await self.store.append_run(
                AppendRun(
                    match,
                    st.head,
                    events,
                    board,
                    packed,
                    writes=st.writes,
                    chain=game.log.head.hex(),
                    cause=cause,
                    allow_gap=run.gap,
                    expect=self._expect(st),
                    checkpoint=ck.encode(),
                )
            )
            if result.status == "tampered":
                await self._alarm(st, match, self._tamper_detail(st, match, result.what))
                raise _Tamper
            if result.status != "applied":
                raise _Stale
            run.events.clear()
            run.gap = False
            st.head = last
            self._wrote(st, ck, packed, board)
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
        try:
            archived = await self.store.event(match, seq)
        except CopyRefused as exc:  # an archived match whose copy changed since this process read it
            await self._alarm(st, match, f"match {match}: {exc.problem}")
            return _tampered(match, seq, st.tampered or exc.problem)
        if archived == data or data in st.quarantined:
            # a redelivery (of an event, or of a conflict already archived and reported)
            return Outcome("duplicate", match, seq)
        late = game.log.is_missing(seq)
        before = len(game.findings)
        game.apply(ev, data)  # the engine records duplicate_seq / late_event and does not fold it
        if len(game.findings) == before:  # the engine saw an exact duplicate the archive did not have
            raise _Stale
        record = await self._final_record(match, game)
        packed = self._pack(record)
        cause = self._cause(match, record, seq, provisional=game.effect_pending)
        ck = self._next_checkpoint(st, match, packed, cause, IndexEntry.from_record(record, st.head))
        base = st.ck or self._empty(match)
        ck = replace(
            ck,
            entries=base.entries + 1,
            others=entry_step(base.others, st.head, "late" if late else "conflict", data),
        ).signed(self.checkpoint_key)
        result = await self.store.append(
            Append(
                match=match,
                seq=seq,
                event=data,
                prev=st.head,
                board=canonical_bytes(game.board()),
                record=packed,
                conflict=True,
                writes=st.writes,
                chain=game.log.head.hex(),
                cause=cause,
                expect=self._expect(st),
                checkpoint=ck.encode(),
            )
        )
        if result.status == "tampered":
            await self._alarm(st, match, self._tamper_detail(st, match, result.what))
            raise _Tamper
        if not (result.status == "conflict" and result.archived):
            raise _Stale
        self._wrote(st, ck, packed, None)
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

        The rebuild checks what the store holds against the signed checkpoint kept with it, and that
        checkpoint against the newest the checkpoint log knows (:meth:`_verify`); each held event against
        its seal and the event rules. Anything that does not hold raises the tamper alarm (:meth:`_alarm`)
        and nothing more is written to the match: nothing stored is rewritten or re-signed."""
        if st.game is not None:
            return st.game
        for attempt in range(INDEX_READS):
            game, head, state, record, board, indexed, ck, problems = await self._read(st, match)
            if problems != [_INDEX_PROBLEM] or attempt == INDEX_READS - 1:
                break
            # Only the index entry disagrees: it is written after the checkpoint that names it, by the
            # match's owner or a playoff game settling it, so another writer may be between the two
            # steps right now. Read again; tampering stays.
            await asyncio.sleep(0.05 * (attempt + 1))
        st.game, st.head, st.writes, st.indexed = game, head, state.writes, indexed
        st.ck, st.ck_raw = ck, state.checkpoint or b""
        st.record_sha1, st.board_sha1 = sha1(record), sha1(board)
        st.tampered = None
        if problems:
            await self._alarm(st, match, f"match {match}: " + "; ".join(problems))
        elif record is not None and game.match is not None:
            stored = unpack_record(record)
            view = NONE if indexed is None else index_digest(indexed.view())
            if stored is not None and view != ck.index:
                # heal a crash between an append and its index step: index the record the checkpoint names
                await self._index(st, stored, force=True)
        return game

    async def _read(
        self, st: _MatchState, match: str
    ) -> tuple[Game, int, MatchState, bytes | None, bytes | None, IndexEntry | None, Checkpoint, list[str]]:
        """Read a match (its index entry first, then its slot in one atomic read: a playoff game settling
        this one writes its checkpoint before the index entry it names, so in this order the entry is one
        that the checkpoint read after it, or its predecessor, names), replay it and check it."""
        game = Game()
        head = 0
        others = ""
        st.quarantined.clear()
        indexed = await self.store.index_entry(match)
        snap = await self.store.snapshot(match)
        for entry in snap.events:
            game.apply(msgpack.unpackb(entry.data, raw=False), entry.data)  # archived: canonical
            if entry.kind == "event":
                head = entry.position[0]
            else:
                st.quarantined.add(entry.data)
                others = entry_step(others, entry.position[0], entry.kind, entry.data)
        now = self.clock()
        problems: list[str] = []
        if snap.copy_problem is not None:  # an archived match whose Parquet copy is gone or changed
            problems.append(snap.copy_problem)
        for seq, sealed in snap.held.items():
            try:
                data = open_held(self.checkpoint_key, match, seq, sealed)
                event = _held_event(match, seq, data)
            except (HeldForged, EventError) as exc:
                problems.append(f"a held event was not held by this service: {exc}; it is not applied")
                continue
            if seq >= game.next_seq and seq not in st.buffer:
                st.buffer[seq] = _Pending(event, data, now)
        for seq in [s for s in st.buffer if s < game.next_seq]:
            del st.buffer[seq]
        found = Checkpoint(
            match,
            store=self.prefix,
            seq=head,
            events=game.log.events(),
            entries=len(snap.events),
            chain=game.log.head.hex(),
            others=others,
            writes=snap.state.writes,
            record=digest(snap.record),
            board=digest(snap.board),
        )
        ck = self._verify(match, found, snap.state, snap.versions, indexed, problems)
        return game, head, snap.state, snap.record, snap.board, indexed, ck, problems

    def _verify(
        self,
        match: str,
        found: Checkpoint,
        state: MatchState,
        versions: Sequence[RecordVersion],
        indexed: IndexEntry | None,
        problems: list[str],
    ) -> Checkpoint:
        """Check what a rebuild read (``found``: the archive replayed, the stored record and board digests)
        against the stored checkpoint and the checkpoint log; append what does not hold to ``problems``.
        Returns the checkpoint that describes the store (the stored one, or for a match stored before
        checkpoints existed, ``found`` itself)."""
        chains = version_chains((v.record, version_cause(v.cause_match, v.cause_seq)) for v in versions)
        vchain, causes = chains[-1] if chains else ("", "")
        entry = NONE if indexed is None else index_digest(indexed.view())
        latest = self.checkpoints.latest(match)
        if found.seq != state.head:
            problems.append(
                f"the head key says {state.head}, the archive's last event in order is {found.seq}"
            )
        if state.checkpoint is None:
            if latest is not None:
                problems.append(
                    f"the store holds no checkpoint, but the checkpoint log has {latest.describes()}: the "
                    "match's state was removed or replaced"
                )
            if state.chain is not None and state.chain != found.chain:
                problems.append(
                    f"the archive replays to chain head {found.chain}, but the head stored with its last "
                    f"append is {state.chain}: the archive was changed outside the service"
                )
            return replace(
                found,
                versions=len(versions),
                vchain=vchain,
                causes=causes,
                index=entry,
                index_prev=entry,
                index_seen=entry,
            )
        try:
            ck = Checkpoint.decode(state.checkpoint)
        except CheckpointError as exc:
            problems.append(f"its stored checkpoint is unreadable ({exc})")
            return found
        if not ck.verify(self.checkpoint_key) or ck.match != match:
            problems.append("its stored checkpoint is not signed by this service's key (forged)")
            return ck
        if latest is not None and latest.writes > ck.writes:
            problems.append(
                f"the store was rolled back: its checkpoint is {ck.describes()}, the checkpoint log's newest "
                f"is {latest.describes()}"
            )
        elif latest is not None and latest.writes == ck.writes and latest != ck:
            problems.append(
                f"its stored checkpoint of write {ck.writes} is not the one in the checkpoint log"
            )
        archive = (found.seq, found.events, found.chain, found.entries, found.others)
        if archive != (ck.seq, ck.events, ck.chain, ck.entries, ck.others):
            problems.append(
                f"the archive (seq {found.seq}, {found.entries} entries, chain head {found.chain[:16]}...) "
                f"is not the one its checkpoint signs (seq {ck.seq}, {ck.entries} entries, chain head "
                f"{ck.chain[:16]}...): it was changed outside the service"
            )
        if state.writes != ck.writes:
            problems.append(f"its write count is {state.writes}, its checkpoint says {ck.writes}")
        if found.record != ck.record:
            problems.append("the stored record is not the one its checkpoint signs (replaced or edited)")
        if found.board != ck.board:
            problems.append("the stored board is not the one its checkpoint signs (replaced or edited)")
        if (len(versions), vchain, causes) != (ck.versions, ck.vchain, ck.causes):
            problems.append(
                f"the version list ({len(versions)} versions) is not the one its checkpoint signs "
                f"({ck.versions} versions): truncated or edited"
            )
        if not ck.names_index(entry):
            problems.append(_INDEX_PROBLEM)
        return ck

    async def _alarm(self, st: _MatchState, match: str, detail: str) -> None:
        """A tamper alarm: the store holds something the service did not write.

        docs/reliability.md: the stored (signed) record is left as it is, never re-signed from changed
        data; the alarm is kept in the store (``prizecheck check`` fails), written to the audit log, and
        counted as an ``archive_tampered`` finding in the indexes; events for the match are refused."""
        detail += "; the stored data is kept as it is and not re-signed"
        st.tampered = detail
        await self.store.alarm(match, detail)
        await self.store.audit(
            AuditEntry(
                "tamper_alarm", self.actor, target=match, origin=self.origin, detail=detail, at=time.time()
            )
        )
        stored = unpack_record(await self.store.record(match))
        if stored is not None and isinstance(stored.get("match"), str):
            entry = IndexEntry.from_record({**stored, "match": match}, st.head)
            findings = {**entry.findings, TAMPERED: 1}
            await self.store.index(replace(entry, seq=st.head, findings=findings))

    async def _alarm_cleared(self, st: _MatchState, match: str) -> bool:
        """Whether the match's alarm, which this process keeps, was cleared in the store since (``prizecheck
        alarms --clear``, once someone looked into it): then the match is to be read again, which checks
        it again (data still changed raises the alarm again: the evidence stays)."""
        if st.tampered is None or match in await self.store.alarms():
            return False
        st.tampered, st.game = None, None
        return True

    async def _alarm_other(self, match: str, detail: str) -> None:
        """A tamper alarm on a match this process does not own (a playoff game it settles or stubs)."""
        st = self._matches.get(match)
        if st is not None:
            st.game = None  # if it is ours after all, rebuild (and re-check) it on next use
        await self.store.alarm(match, detail)
        await self.store.audit(
            AuditEntry(
                "tamper_alarm", self.actor, target=match, origin=self.origin, detail=detail, at=time.time()
            )
        )

    # ------------------------------------------------------------------------------------ checkpoints
    def _empty(self, match: str) -> Checkpoint:
        """The checkpoint of a match the store holds nothing of."""
        return Checkpoint(match, store=self.prefix, chain=GENESIS.hex())

    def _next_checkpoint(
        self,
        st: _MatchState,
        match: str,
        record: bytes | None,
        cause: str,
        entry: IndexEntry | None,
        board: bytes | None = None,
        game: Game | None = None,
        appended: int = 0,
    ) -> Checkpoint:
        """The signed checkpoint of the store after writing ``record`` (None: taking it away) (and
        ``board`` and ``appended`` events of ``game``, for an append) over what ``st`` says is stored."""
        base = st.ck or self._empty(match)
        changes: dict[str, Any] = {
            "store": self.prefix,
            "writes": st.writes + 1,
            "record": digest(record),
            "index": self._entry_digest(entry),
            # what the indexes may show until this write's index step: what the last checkpoint named,
            # or what this writer saw (another writer's index step may have run since, or not yet)
            "index_prev": base.index,
            "index_seen": self._entry_digest(st.indexed),
        }
        if board is not None:
            changes["board"] = digest(board)
        if game is not None:
            changes["seq"] = game.log.next_seq - 1 if appended else base.seq
            changes["events"] = game.log.events()
            changes["entries"] = base.entries + appended
            changes["chain"] = game.log.head.hex()
        ck = base.but(**changes)
        if cause and record is not None and self._sha1(record) != (st.record_sha1 or _SHA1_NONE):
            ck = add_version(ck, record, cause)  # write.lua keeps it as a new version
        return ck.signed(self.checkpoint_key)

    def _entry_of(self, record: dict[str, Any], head: int) -> IndexEntry:
        """``IndexEntry.from_record(record, head)``, made once for a write's checkpoint and its index step
        (remembered for the record last asked about)."""
        known, at, entry = self._last_entry
        if known is not record or at != head:
            entry = IndexEntry.from_record(record, head)
            self._last_entry = (record, head, entry)
        return entry

    def _entry_digest(self, entry: IndexEntry | None) -> str:
        """:func:`index_digest` of an entry, remembered for the last few (a write's entry is the next
        write's entry seen, and usually its entry again)."""
        if entry is None:
            return NONE
        for known, value in self._entry_digests:
            if known is entry:
                return value
        value = index_digest(entry.view())
        self._entry_digests = [(entry, value), *self._entry_digests[:3]]
        return value

    def _sha1(self, data: bytes) -> str:
        """SHA-1 of a record just packed, computed once for the checkpoint and the next expectation."""
        last, digest_ = self._sha1_last
        if data is not last:
            digest_ = sha1(data)
            self._sha1_last = (data, digest_)
        return digest_

    def _expect(self, st: _MatchState) -> Expect:
        """What ``st`` says the store holds (the write scripts refuse to write over anything else)."""
        return Expect(
            record=st.record_sha1 or _SHA1_NONE,
            board=st.board_sha1 or _SHA1_NONE,
            checkpoint=st.ck_raw,
            versions=st.ck.versions if st.ck is not None else 0,
        )

    def _wrote(self, st: _MatchState, ck: Checkpoint, record: bytes, board: bytes | None) -> None:
        """The store holds ``ck``'s state now (this owner wrote it): remember it, and queue the checkpoint
        for the log (:meth:`publish`)."""
        st.ck, st.ck_raw, st.writes = ck, ck.encode(), ck.writes
        st.record_sha1 = self._sha1(record)
        if board is not None:
            st.board_sha1 = sha1(board)
        self.checkpoints.note(ck)
        self._outbox.append(ck)

    @staticmethod
    def _tamper_detail(st: _MatchState, match: str, what: str) -> str:
        writes = st.ck.writes if st.ck is not None else 0
        return (
            f"match {match}: the stored {what} is not what its checkpoint (write {writes}) says: it was "
            "changed outside the service since this process wrote or checked it; the write was refused"
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
    ) -> tuple[dict[str, dict[str, Any]], dict[str, Stored]]:
        """``top`` and the playoff games of its family (its children and theirs, and where their playoff
        links point), unsigned, as ``known`` gives them or else as stored: what ``link_records`` settles;
        and each stored record as it was read, with its write count and checkpoint (what a write that
        settles it is fenced by and builds on)."""
        group: dict[str, dict[str, Any]] = {top: _unsigned(record)}
        stored: dict[str, Stored] = {}
        todo = playoff_games(record)
        while todo and len(group) < MAX_FAMILY:
            child = todo.pop(0)
            if child in group:
                continue
            crec = known.get(child)
            if crec is None:
                stored[child] = await self.store.stored(child)
                crec = unpack_record(stored[child].record)
            if crec is not None:
                group[child] = _unsigned(crec)
                todo.extend(playoff_games(crec))
        return group, stored

    async def _family_top(self, parent: str) -> tuple[str, dict[str, Any] | None, Stored]:
        """The top of a playoff game's family, from its parent up the stored records' parent links, and
        its record as it was read (with its write count and checkpoint)."""
        top = await self.store.stored(parent)
        name, record = parent, unpack_record(top.record)
        seen = {name}
        while record is not None and len(seen) < MAX_FAMILY:
            up = record.get("parent")
            if not isinstance(up, str) or up in seen:
                break
            read = await self.store.stored(up)
            above = unpack_record(read.record)
            if above is None:
                break
            name, record, top = up, above, read
            seen.add(up)
        return name, record, top

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
        await self._withdraw_stubs(match, record)

    async def _withdraw_stubs(self, match: str, record: dict[str, Any]) -> None:
        """A game that no longer awaits its playoff (a judge's game loss decided it): the stub of a playoff
        game it announced that never started is taken away with its index entry, as a write with its own
        signed checkpoint (no record). Else it was served as in progress forever, and ``check`` found a
        record no playoff announces (issue 32 item 11)."""
        children = record.get("children")
        if record.get("status") == "awaiting_playoff" or not isinstance(children, list):
            return
        root = record.get("parent") or match
        for child in [c for c in children if isinstance(c, str) and is_match_id(c)]:
            read = await self.store.stored(child)
            stub = unpack_record(read.record)
            of = stub.get("playoff_of") if stub is not None else None
            if (
                stub is None
                or stub.get("stub") is not True
                or not isinstance(of, Mapping)
                or of.get("parent") != root
            ):
                continue  # played (its own record), or not a stub of this family: left as it is
            view = await self._other_view(child, read, "its stub was not withdrawn")
            if view is None:
                continue
            ck = self._next_checkpoint(view, child, None, "", None)
            drop = functools.partial(self.store.drop_record, child, writes=read.writes)
            if await self._write_other(child, read, view, ck, drop):
                await self.store.unindex(child)
            # else: its first event (or another owner) wrote it meanwhile (a game, not a stub), or the
            # store held something else (the alarm is raised)

    async def _stub_child(self, st: _MatchState, record: dict[str, Any]) -> None:
        """A game awaiting its playoff: the child's record stub, unless the child has a record already."""
        po = record.get("playoff")
        if record.get("status") == "awaiting_playoff" and isinstance(po, Mapping):
            child = po.get("child")
            if isinstance(child, str):
                stub = playoff_stub(record, child)
                packed = self._pack(stub)
                entry = IndexEntry.from_record(stub, 0)
                # the child's first write: over nothing stored (anything there was not written by us)
                ck = self._next_checkpoint(_MatchState(), child, packed, "", entry)
                try:
                    written = await self.store.put_record(
                        child,
                        packed,
                        if_absent=True,
                        expect=Expect(_SHA1_NONE, _SHA1_NONE, b"", 0),
                        checkpoint=ck.encode(),
                    )
                except Tampered as exc:
                    again = await self._stub_again(child, packed, entry) if exc.what == "checkpoint" else None
                    written = False
                    if again is None:
                        await self._alarm_other(
                            child,
                            f"match {child}: its stored {exc.what} was written outside the service before "
                            "its first record (the playoff stub announced by its parent); the stub was not "
                            "written",
                        )
                    elif again:
                        await self.store.index(entry, last=None, guess=True)
                if written:
                    self.checkpoints.note(ck)
                    self._outbox.append(ck)
                    # the child had no record: most likely nothing indexed either (the store checks)
                    await self.store.index(entry, last=None, guess=True)
                st.stubbed = child  # from now on the child has a record: writing a stub is a no-op

    async def _stub_again(self, child: str, packed: bytes, entry: IndexEntry) -> bool | None:
        """The stub of a playoff game that was withdrawn (its signed checkpoint says: no record) written
        again: a correction voided the game loss that made the playoff moot. None when the child's stored
        state is not a withdrawn stub's (the caller raises the alarm); else whether it was written."""
        read = await self.store.stored(child)
        view = _MatchState(writes=read.writes, record_sha1=sha1(None))
        if read.record is not None or read.checkpoint is None or self._stored_problem(child, read, view):
            return None
        ck = self._next_checkpoint(view, child, packed, "", entry)
        put = functools.partial(self.store.put_record, child, packed, if_absent=True, writes=read.writes)
        return bool(await self._write_other(child, read, view, ck, put))

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
                top, top_record, top_stored = await self._family_top(parent)
                if top_record is None:
                    return  # the parent is not stored yet: it settles itself when it is
            else:
                top, top_record, top_stored = match, record, None
            group, stored = await self._family(top, top_record, {match: record})
            if top_stored is not None:
                stored[top] = top_stored
            if await self._store_settled(match, st.head, group, stored):
                break
        else:
            raise StoreContention(f"match {match}: its playoff family kept changing while it was settled")
        if isinstance(parent, str):
            st.child_done = record.get("status") == "finished"

    async def _store_settled(
        self, match: str, seq: int, group: dict[str, dict[str, Any]], stored: Mapping[str, Stored]
    ) -> bool:
        """Store the games of ``group`` that link_records settles; False if one was written meanwhile.

        Each is written over its record as read (fenced by its write count), with the next checkpoint of
        the one it holds, which must verify: a game whose stored record or checkpoint was not written by
        the service is not settled, and its alarm is raised."""
        for other, settled in link_records(group).items():
            if other == match or settled == group[other]:
                continue
            read = stored.get(other, Stored())
            view = await self._other_view(other, read, f"it was not settled from {match}")
            if view is None:
                continue
            old = view.indexed
            entry = IndexEntry.from_record(settled, old.seq if old else 0)
            packed = self._pack(settled)
            cause = self._cause(match, settled, seq)
            ck = self._next_checkpoint(view, other, packed, cause, entry)
            put = functools.partial(self.store.put_record, other, packed, writes=read.writes, cause=cause)
            written = await self._write_other(other, read, view, ck, put)
            if written is None:
                continue
            if not written:
                return False
            await self.store.index(entry, last=old, guess=True)  # just read: no second read
        return True

    async def _other_view(self, other: str, read: Stored, refused: str) -> _MatchState | None:
        """What this process writes another match's record over (a playoff game it settles or whose stub
        it withdraws): ``read`` with its index entry, checked against its checkpoint; None when that fails
        (the alarm is raised, saying what was not done: ``refused``)."""
        old = await self.store.index_entry(other)
        view = _MatchState(writes=read.writes, indexed=old, record_sha1=sha1(read.record))
        problem = self._stored_problem(other, read, view)
        if problem is not None:
            await self._alarm_other(other, f"match {other}: {problem}; {refused}")
            return None
        return view

    async def _write_other(
        self,
        other: str,
        read: Stored,
        view: _MatchState,
        ck: Checkpoint,
        write: Callable[..., Awaitable[bool]],
    ) -> bool | None:
        """``write(expect=..., checkpoint=...)`` another match's record over ``view`` (fenced and compared
        by the store) with ``ck``, which then goes to the checkpoint log. Whether it was written (False:
        another writer came first); None when the store held something else (the alarm is raised)."""
        try:
            written = await write(
                expect=Expect(record=view.record_sha1, checkpoint=read.checkpoint or b""),
                checkpoint=ck.encode() if view.ck is not None else b"",
            )
        except Tampered as exc:
            await self._alarm_other(other, self._tamper_detail(view, other, exc.what))
            return None
        if written and view.ck is not None:
            self.checkpoints.note(ck)
            self._outbox.append(ck)
        return written

    def _stored_problem(self, match: str, read: Stored, view: _MatchState) -> str | None:
        """Does a record read for a write by another match's owner agree with its checkpoint? Sets
        ``view.ck`` (None: a match stored before checkpoints existed, written without one)."""
        if read.checkpoint is None:
            return None
        try:
            ck = Checkpoint.decode(read.checkpoint)
        except CheckpointError as exc:
            return f"its stored checkpoint is unreadable ({exc})"
        if not ck.verify(self.checkpoint_key) or ck.match != match:
            return "its stored checkpoint is not signed by this service's key (forged)"
        if ck.writes != read.writes or ck.record != digest(read.record):
            return "its stored record is not the one its checkpoint signs (replaced or edited)"
        view.ck, view.ck_raw = ck, read.checkpoint
        return None

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
        """Index ``record``, over the entry this owner wrote or verified last (``st.indexed``): an entry
        changed since by anyone but a writer of this match's record (whose checkpoint then names the entry)
        is an alarm, not overwritten."""
        entry = self._index_change(st, record, force=force)
        if entry is None:
            return
        try:
            await self.store.index(entry, last=st.indexed, guess=True, strict=True)
        except IndexChanged as exc:
            match, found = entry.match, exc.stored
            for attempt in range(INDEX_READS):
                if attempt:  # another writer may be between its checkpoint and its index step: again
                    await asyncio.sleep(0.05 * attempt)
                    found = await self.store.index_entry(match)
                ck = _decoded((await self.store.state(match)).checkpoint)  # read after the entry
                seen = NONE if found is None else index_digest(found.view())
                if ck is not None and ck.verify(self.checkpoint_key) and ck.names_index(seen):
                    break
            else:
                await self._alarm(
                    st,
                    match,
                    f"match {match}: its league index entry was changed outside the service (it is not "
                    "the entry this process wrote, nor one the stored checkpoint signs)",
                )
                return
            if ck.writes > st.writes:
                st.game = None  # another writer of the record (a playoff game settling it): read again
                st.indexed = found
                return
            await self.store.index(entry, last=found, guess=True)
        st.indexed = entry

    def _index_change(
        self, st: _MatchState, record: dict[str, Any], *, force: bool = False
    ) -> IndexEntry | None:
        """The index entry to write for ``record``, or None when nothing the indexes show has changed
        (which saves the second round trip)."""
        entry = self._entry_of(record, st.head)
        last = st.indexed
        if not force and last is not None and last.view() == entry.view():
            return None
        return entry

    def _pack(self, record: dict[str, Any]) -> bytes:
        if self.signing_key is not None:
            record = sign(_unsigned(record), self.signing_key, self.key_id)
        return canonical_bytes(record)


#: What only a judge adds to a game that has ended (``ingest_many(judge=False)``).
_AMENDMENTS = frozenset({"penalty", "correction"})


async def clear_alarm(store: IngestStore, match: str) -> str | None:
    """Clear a match's tamper alarm once someone has looked into it (``prizecheck alarms --clear``): take it
    out of the store, and the ``archive_tampered`` finding the alarm counted out of the match's index entry
    (the entry its checkpoint names again). Returns what the alarm said, or None when none stood. The owner
    reads the match again at its next event: data still changed raises the alarm again."""
    detail = await store.clear_alarm(match)
    if detail is None:
        return None
    entry = await store.index_entry(match)
    if entry is not None and TAMPERED in entry.findings:
        findings = {code: n for code, n in entry.findings.items() if code != TAMPERED}
        await store.index(replace(entry, findings=findings))
    return detail


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


def _decoded(data: bytes | None) -> Checkpoint | None:
    """A stored checkpoint, or None when there is none or it is unreadable."""
    if data is None:
        return None
    try:
        return Checkpoint.decode(data)
    except CheckpointError:
        return None


def _held_event(match: str, seq: int, data: bytes) -> dict[str, Any]:
    """A held event, checked again as the edge checks an event (it was written into the store, which is
    not trusted): one valid event of this match at this seq, in canonical bytes. EventError otherwise."""
    event = decode_event(data)
    validate_event(event)
    if event.get("match") != match or event.get("seq") != seq:
        raise EventError(
            f"the event held at seq {seq} is for match {event.get('match')!r} seq {event.get('seq')!r}",
            match=match,
            seq=seq,
        )
    if archive_bytes(event, data) != data:
        raise EventError(f"the event held at seq {seq} is not in canonical msgpack", match=match, seq=seq)
    return event


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
