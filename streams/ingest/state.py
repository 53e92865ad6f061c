"""The ingest core's shared state: what every part of :class:`streams.ingest.IngestCore` reads and writes.

The bottom of the package (pyproject.toml, the ingest core's layers contract): the outcome of an event,
the memory kept per match (:class:`MatchMemory`), a run of events waiting for its write, the bounds, and
:class:`Shared`, the core's configuration and counters, which each part (memory, integrity, index,
playoffs, rebuild, write path, held events) builds on. Nothing here does I/O.
"""

from __future__ import annotations

import asyncio
import dataclasses
import os
import re
import socket
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, TypeVar

from replay import Game
from replay.i18n import N_
from replay.signing import SigningKey
from streams.store import IndexEntry, IngestStore, tamper
from streams.store.checkpoint import Checkpoint, CheckpointKey, CheckpointLog, MemoryCheckpoints, sha1

Status = Literal["applied", "duplicate", "buffered", "rejected"]
_T = TypeVar("_T")
_A = TypeVar("_A")
_B = TypeVar("_B")


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
    #: The contract's refusal ``reason`` was written from (what an answer in a reader's language words
    #: again: streams.http.edge.reason_in); never part of the JSON.
    error: Exception | None = dataclasses.field(default=None, compare=False, repr=False)

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
    """Another writer kept moving a match's head or record: the call was not completed (retry it). Its
    message is one of :data:`CONTENTION` (the service's 503 says it in the reader's language)."""


#: What a :class:`StoreContention` says, as its raisers write it (core.py, held.py, playoffs.py).
CONTENTION: tuple[str, ...] = (
    N_("match {match}: its record was written during the rebuild; retry"),
    N_("match {match}: another writer kept moving it"),
    N_("match {match}: another writer kept changing its head or record over {attempts} attempts"),
    N_("match {match}: its playoff family kept changing while it was settled"),
)


@dataclass
class Pending:
    event: dict[str, Any]
    data: bytes
    arrived: float


@dataclass
class MatchMemory:
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    users: int = 0  # calls holding or waiting for the lock: never evicted meanwhile
    game: Game | None = None  # None: (re)build from the archive before use
    head: int = 0  # the store's head as this owner knows it
    writes: int = 0  # the record's write count as this owner knows it (the fence of every write)
    buffer: dict[int, Pending] = field(default_factory=dict)
    indexed: IndexEntry | None = None
    digests: list[tuple[IndexEntry, str]] = field(default_factory=list)  # the last two entries' digests
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


SHA1_NONE = sha1(None)


Item = tuple[int, int, dict[str, Any], bytes]  # (position in the batch, seq, event, canonical bytes)


@dataclass
class Run:
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
INDEX_PROBLEM = tamper.INDEX
#: The finding a tamper alarm counts in the match's index entry.
TAMPERED = "archive_tampered"

PLAYOFF_CHILD = re.compile(r"^(?P<root>.+)/tb\d+$")


class Stale(Exception):
    """The store's head or record moved under us (another writer): rebuild from the archive and retry."""


class Tamper(Exception):
    """A write script refused to write: the store holds something its checkpoint does not say (an alarm
    has been raised; the match takes nothing more)."""


#: What only a judge adds to a game that has ended (``ingest_many(judge=False)``).
AMENDMENTS = frozenset({"penalty", "correction"})


def family_of(match: str) -> str:
    """The root of a match's playoff family (``g1`` for ``g1``, ``g1/tb1``, ``g1/tb2``...)."""
    m = PLAYOFF_CHILD.match(match)
    return m.group("root") if m else match


def unsigned(record: Mapping[str, Any]) -> dict[str, Any]:
    out = dict(record)
    if "signature" in out:
        out["signature"] = None
    return out


async def both(first: Awaitable[_A], second: Awaitable[_B]) -> tuple[_A, _B]:
    """Two independent store steps at once (their commands share round trips): their results.

    Both have finished when an error of either is raised (``first``'s before ``second``'s, as
    ``gather`` gives them), so nothing is still writing behind a retry; a cancelled caller cancels both.
    ``second`` runs in a task of its own and ``first`` in the caller's, in that order of start as with
    ``gather``: one task made per call, not ``gather``'s two and its future (every write makes two such
    calls; on the project machine 10-17 µs a call against 41-55 µs, docs/performance.md, worlds40).
    """
    later = asyncio.ensure_future(second)
    try:
        result = await first
    except BaseException as exc:
        if isinstance(exc, asyncio.CancelledError):
            later.cancel()
        await asyncio.wait({later})
        if not later.cancelled():
            later.exception()  # retrieved: the caller gets ``first``'s error, as gather gave it
        raise
    return result, await later


def judge_only(match: str, seq: int, kind: str, status: str) -> Outcome:
    why = (
        f"the game has ended ({status}): only a judge may add a {kind} now"
        if status != "in_progress"
        else f"a producer's {kind} must follow the events before it (it cannot wait behind a gap)"
    )
    return Outcome("rejected", match, seq, f"match {match} seq {seq}: not applied: {why}", field="type")


def tampered(match: str, seq: int, alarm: str) -> Outcome:
    return Outcome(
        "rejected",
        match,
        seq,
        f"match {match} seq {seq}: not applied: the match is under a tamper alarm ({alarm})",
        field="seq",
    )


def waiting_conflict(match: str, seq: int, expected: int) -> Outcome:
    return Outcome(
        "rejected",
        match,
        seq,
        f"match {match} seq {seq}: a different event with this seq is already waiting "
        f"for seq {expected}; not applied",
        field="seq",
    )


class Shared:
    """The configuration, counters and per-match memory of one :class:`streams.ingest.IngestCore` (its
    parameters are documented there), which every part of the core reads."""

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
        self._matches: OrderedDict[str, MatchMemory] = OrderedDict()
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
