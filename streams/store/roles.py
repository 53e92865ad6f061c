"""The storage contract, by role: each caller holds the part of the store it uses.

A backend (:class:`~streams.store.RedisStore`, :class:`~streams.store.MemoryStore`) is made of one module
per role (``streams/store/redis/``, ``streams/store/memory/``) composed into one class, and passes each
role's contract tests on memory, a Redis server and a Redis Cluster (``tests/streams/store/``):

- :class:`Writer`: the ingest core's write path (appends, held events, records written outside an
  append, tamper alarms), and what a writer reads to build its next write on;
- :class:`Reader`: what the HTTP service and the command line read of a match;
- :class:`LeagueIndex`: the league indexes (written by the ingest core, read by the match list);
- :class:`Access` and :class:`AuditLog`: ownership, ended sessions, the console's lease, the audit log;
- :class:`Venue`: deck lists and the stream tables;
- :class:`Live`: the live feed;
- :class:`Archive`: what ``prizecheck check`` and ``prizecheck archive`` need of a Redis store beside
  the reads: every match it holds, the cold archive's marker and swap, the server's memory.

:class:`Store` is every role but :class:`Archive` (what both backends are); :class:`IngestStore` what
the ingest core uses. Every method is safe to call concurrently; appends per match are ordered.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Literal, Protocol

from streams.store.base import (
    Append,
    AppendResult,
    AppendRun,
    ArchivedEvent,
    ArchiveExtent,
    AuditEntry,
    Expect,
    IndexEntry,
    IndexPage,
    MatchState,
    RecordVersion,
    Snapshot,
    Stored,
    Subscription,
)


class Writer(Protocol):
    """The ingest core's write path: every write to a match's slot (one atomic step each, fenced and compared
    with what the writer believes is stored), and the reads a writer builds its next write on."""

    async def append(self, a: Append) -> AppendResult:
        """Archive one event and store the match's new board and record, in one atomic step."""
        ...

    async def append_run(self, a: AppendRun) -> AppendResult:
        """Archive a run of consecutive events and store the board and record after the last one, in one
        atomic step. ``applied`` (head = the last seq), or ``stale`` (``prev`` is not the head) / ``gap``
        (the seqs do not follow the head), in which case nothing is written."""
        ...

    async def hold(self, match: str, seq: int, data: bytes) -> bool:
        """Keep an event that waits behind a gap (False if another is already held at that seq).

        It leaves the pending set when an append archives that seq.
        """
        ...

    async def put_record(
        self,
        match: str,
        record: bytes,
        *,
        if_absent: bool = False,
        writes: int | None = None,
        cause: str = "",
        expect: Expect | None = None,
        checkpoint: bytes = b"",
    ) -> bool:
        """Store a record outside an append (a playoff stub, a parent settled by its child).

        With ``if_absent``, only if the match has no record yet; with ``writes``, only if the record's
        write count is still that (:meth:`record_state`: nobody wrote it since it was read). ``cause``,
        ``expect`` and ``checkpoint`` as for :class:`AppendRun` (a refused expectation raises
        :class:`Tampered`). Returns whether it was written; a written record is announced on the live
        channels with the match's head.
        """
        ...

    async def drop_record(self, match: str, *, writes: int, expect: Expect, checkpoint: bytes = b"") -> bool:
        """Take away a record written outside an append (a playoff stub whose playoff will not be played),
        fenced by ``writes`` and compared with ``expect`` as :meth:`put_record` writes (:class:`Tampered`
        when the store holds something else), keeping ``checkpoint``, the signed state after it (no
        record). False (nothing changed) when another writer wrote the record since."""
        ...

    async def alarm(self, match: str, detail: str) -> None:
        """Raise a tamper alarm on a match (kept until an operator clears it; ``prizecheck check`` fails)."""
        ...

    async def clear_alarm(self, match: str) -> str | None:
        """Take the match's tamper alarm away (once someone has looked into it); what it said, or None when
        none stood. Read and removed in one step."""
        ...

    async def record_state(self, match: str) -> tuple[bytes | None, int]:
        """The stored record and its write count, read together (what a fenced :meth:`put_record` needs)."""
        ...

    async def stored(self, match: str) -> Stored:
        """The stored record, its write count and its checkpoint, read together."""
        ...

    async def held(self, match: str) -> dict[int, bytes]:
        """Events waiting behind a gap, by seq (what a restarted owner picks up again)."""
        ...

    async def pending_matches(self) -> list[str]:
        """Every match with events waiting behind a gap, sorted (what an owner recovers on start-up)."""
        ...


class Reader(Protocol):
    """What the HTTP service and the command line read of a match: its archive, head, record, board and
    versions, and the raised alarms."""

    async def head(self, match: str) -> int:
        """The highest seq appended in order (0 for an unknown match)."""
        ...

    async def state(self, match: str) -> MatchState:
        """The head, the record's write count and the trusted chain head, read together."""
        ...

    async def snapshot(self, match: str) -> Snapshot:
        """The archive, held events, state, record, board and versions of a match, read together."""
        ...

    async def event(self, match: str, seq: int) -> bytes | None:
        """The archived bytes of the event appended in order at ``seq``; :class:`CopyRefused` for an archived
        match whose cold copy is not the one archived."""
        ...

    async def events(self, match: str) -> list[ArchivedEvent]:
        """The whole archive, in the order the engine saw it (replaying it rebuilds the match);
        :class:`CopyRefused` for an archived match whose cold copy is not the one archived."""
        ...

    async def extent(self, match: str) -> ArchiveExtent:
        """How far the archive goes (its entries, steps, first and last positions) without reading its
        entries' bytes: what a reader of the archive a range at a time (:meth:`events_after`) needs to know
        first; :class:`CopyRefused` as :meth:`events`."""
        ...

    async def events_after(
        self, match: str, after: tuple[int, int] | None, count: int
    ) -> list[ArchivedEvent]:
        """At most ``count`` archive entries after the position ``after`` (from the first with None), in
        archive order: :meth:`events` a range at a time, for a reader that needs only the start of a long
        game; :class:`CopyRefused` as :meth:`events`."""
        ...

    async def record(self, match: str) -> bytes | None:
        """The stored record (msgpack), or None."""
        ...

    async def records(self, matches: Sequence[str]) -> list[bytes | None]:
        """The stored records of many matches, in the order given (None where there is none), in one round
        trip where the backend can: what a report over a season reads, a batch at a time."""
        ...

    async def board(self, match: str) -> bytes | None:
        """The stored public board (msgpack), or None."""
        ...

    async def versions(self, match: str) -> list[RecordVersion]:
        """Every finished record this match has had, oldest first ([] while it is in progress)."""
        ...

    async def version(self, match: str, n: int) -> RecordVersion | None:
        """Version ``n`` (1 is the first finished record), or None."""
        ...

    async def alarms(self) -> dict[str, str]:
        """The raised tamper alarms: match -> what was found."""
        ...


class LeagueIndex(Protocol):
    """The league indexes: one entry per match, written by the ingest core, read by the match list, the
    reports and the archive."""

    async def index(
        self, entry: IndexEntry, *, last: IndexEntry | None = None, guess: bool = False, strict: bool = False
    ) -> bool:
        """Update the league indexes for one match; False if a newer entry is already indexed.

        With ``guess``, ``last`` is what the caller believes is indexed now (None: nothing): a backend
        that must read the stored entry first may try that instead, and read only when it was wrong.
        With ``strict`` too, a wrong guess is not retried: :class:`IndexChanged` (with what is stored) is
        raised and nothing is written (the caller wrote ``last`` itself: someone else changed it since).
        """
        ...

    async def unindex(self, match: str) -> bool:
        """Take the match's entry out of the league indexes (its record was taken away); False when it had
        none."""
        ...

    async def index_entry(self, match: str) -> IndexEntry | None:
        """The indexed summary of a match."""
        ...

    async def index_entries(self, matches: Iterable[str]) -> list[IndexEntry]:
        """Summaries of many matches at once (unknown ones are skipped)."""
        ...

    async def matches(
        self,
        *,
        league: str | None = None,
        season: str | None = None,
        status: str | None = None,
        player: str | None = None,
    ) -> list[str]:
        """Indexed match ids matching every given filter, sorted."""
        ...

    async def index_page(
        self,
        *,
        league: str | None = None,
        season: str | None = None,
        status: str | None = None,
        player: str | None = None,
        search: str | None = None,
        sort: str = "match",
        offset: int = 0,
        limit: int = 50,
        cursor: str | None = None,
    ) -> IndexPage:
        """One page of the indexed matches: those matching every given filter and ``search`` (a part of
        the match id, a player, the event, the round or the table, compared folded: :func:`fold_text`),
        ordered by ``sort`` (:data:`SORTS`), from ``offset`` rows after ``cursor`` (a page's
        :attr:`IndexPage.next`; the start when None).

        Only the page's entries are read; ``total`` counts every match that qualifies. A search looks at
        most :data:`SEARCH_SCAN_MAX` entries of a bucket, else ``too_broad``. A bad ``sort`` or
        ``cursor``, or a search longer than :data:`SEARCH_MAX`, is a ``ValueError`` saying so.
        """
        ...

    async def index_names(
        self, kind: Literal["league", "season"], *, leagues: Iterable[str] | None = None
    ) -> list[str]:
        """The leagues (or seasons) that some indexed match has now, sorted; with ``leagues``, only those
        of matches in one of them (a scoped reader's pick lists)."""
        ...

    async def findings_counts(self) -> dict[str, int]:
        """Findings by code over every indexed match."""
        ...


class AuditLog(Protocol):
    """The audit log: every write, every read of hidden information, every refused request (never served on a
    public route)."""

    async def audit(self, entry: AuditEntry) -> str:
        """Append one entry to the audit log (never served on a public route); returns its id."""
        ...

    async def audit_log(self, *, after: str | None = None, count: int = 1000) -> list[AuditEntry]:
        """Audit entries in the order they were appended, after the entry ``after`` (from the start when
        None), at most ``count``."""
        ...


class Access(AuditLog, Protocol):
    """The HTTP service's access rules: who created each match, judge sessions ended by a logout, the table
    console's writing lease; with the audit log they keep."""

    async def claim(self, matches: Sequence[str], owner: bytes) -> list[bytes]:
        """Make ``owner`` (the producer that creates them, as the HTTP service encodes it) the owner of
        each of ``matches`` that has none yet; returns the owner each has now (``owner`` where it was
        claimed), in one round trip. Atomic per match (``SET NX``: an owner is never changed or removed):
        of two producers creating one match at once, exactly one owns it."""
        ...

    async def owners(self, matches: Sequence[str]) -> list[bytes | None]:
        """The owners of many matches, in the order given (None where a match has none)."""
        ...

    async def end_session(self, session: str, until: float) -> None:
        """Remember that the judge session ``session`` (a digest of its cookie) was ended by a logout,
        until ``until`` (seconds since the epoch: when the cookie would have expired anyway)."""
        ...

    async def session_ended(self, session: str) -> bool:
        """Whether the session ``session`` was ended by a logout (:meth:`end_session`)."""
        ...

    async def lease(
        self, match: str, console: str, action: str, seconds: float, expected: str = ""
    ) -> str | None:
        """The table console's writing lease of ``match`` (docs/console.md, "One writer"), in one atomic
        step: ``take`` it for ``console`` when it is free or ``console``'s already (for ``seconds``),
        ``renew`` it when ``console`` holds it, ``release`` it when ``console`` holds it, ``replace`` the
        holder ``expected`` by ``console`` (a take-over: it fails when someone else holds it by now), or
        ``peek``. ``console`` is an opaque holder (streams/http/lease.py: a token and a console).
        Returns the console that holds it now (None: nobody). Kept in the store, so that every web process
        sees the same writer and a restart of one keeps it."""
        ...


class Venue(Protocol):
    """What an event's staff keep beside the matches: registered deck lists (judges' data) and the stream
    tables' states."""

    async def put_deck(self, event: str, key: str, data: bytes) -> None:
        """Store a registered deck list of ``event`` under ``key`` (``player`` or ``player|match``),
        replacing the one stored there (docs/decks.md). Judges' data: never in a public view."""
        ...

    async def decks(self, event: str) -> dict[str, bytes]:
        """The deck lists registered for ``event``: key -> the stored list, sorted by key."""
        ...

    async def on_air(self, key: str) -> bytes | None:
        """The stored state of a stream table or slot (``key``: streams/http/tables.py), or None."""
        ...

    async def swap_on_air(self, key: str, old: bytes | None, new: bytes) -> bool:
        """Store ``new`` as ``key``'s state if it is still ``old`` (None: none yet), in one atomic step;
        False (nothing changed) when someone else changed it since it was read."""
        ...


class Live(Protocol):
    """The live feed: an update after every write to a match's record or board."""

    async def subscribe(self, match: str | None = None) -> Subscription:
        """Subscribe to live updates of ``match`` (or of every match); subscribed when this returns."""
        ...


class IngestStore(Writer, Reader, LeagueIndex, AuditLog, Protocol):
    """What the ingest core uses: it writes matches and their index entries, reads what it builds on, and
    logs what it finds (a tamper alarm)."""


class Ownership(Access, Reader, Protocol):
    """What the HTTP edge's ownership check uses: who created each match, and the records that say which
    event a match belongs to (streams/http/ownership.py)."""


class Store(Writer, Reader, LeagueIndex, Access, Venue, Live, Protocol):
    """Every role: what a backend is (both pass every role's contract tests)."""

    async def ping(self) -> bool:
        """Whether the backend answers."""
        ...

    async def close(self) -> None:
        """Release connections (not the data)."""
        ...


class Archive(Protocol):
    """What the store's checker and its cold archive need of a Redis store beside the reads (a backend
    with a server to scan and memory to free: :class:`~streams.store.RedisStore`)."""

    @property
    def prefix(self) -> str:
        """The store's name: the prefix of its keys, which signed checkpoints and manifests name."""
        ...

    async def match_names(self) -> list[str]:
        """Every match that has any data in the store (archive, head, record, board or held events),
        whether or not the league indexes know it, sorted."""
        ...

    async def archive_marker(self, match: str) -> bytes | None:
        """The marker of an archived match (streams/store/parquet.py); None when its events are in Redis."""
        ...

    async def archive_swap(self, match: str, marker: bytes, entries: int, last: tuple[int, int]) -> bool:
        """Replace the match's event stream by ``marker``, atomically, if the stream still holds
        ``entries`` entries ending at ``last`` (the ones verified in the copy); False (nothing changed) when
        it moved meanwhile or is archived already."""
        ...

    async def used_memory(self) -> int:
        """The memory the store's server uses (bytes; summed over a cluster's primaries)."""
        ...


class Checked(Reader, LeagueIndex, Archive, Protocol):
    """What ``prizecheck check`` reads: every match's slot, index entry and cold copy."""


class Archived(Reader, LeagueIndex, Archive, Protocol):
    """What ``prizecheck archive`` uses: the finished matches' slots and index entries, and the swap."""
