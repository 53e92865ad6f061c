"""An in-process backend with the same contract as the Redis one (unit tests)."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator, Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import Literal

from streams.store.base import (
    LEASE_ACTIONS,
    SORTS,
    Append,
    AppendResult,
    AppendRun,
    ArchivedEvent,
    AuditEntry,
    EntryKind,
    Expect,
    IndexChanged,
    IndexEntry,
    IndexPage,
    LiveUpdate,
    MatchState,
    RecordVersion,
    Snapshot,
    Stored,
    Subscription,
    Tampered,
    _run_bounds,
    decode_cursor,
    encode_cursor,
    parse_cause,
    same_entry,
    search_needle,
)
from streams.store.checkpoint import sha1


@dataclass
class _MemoryMatch:
    head: int = 0
    log: list[ArchivedEvent] = field(default_factory=list)
    by_seq: dict[int, bytes] = field(default_factory=dict)
    board: bytes | None = None
    record: bytes | None = None
    pending: dict[int, bytes] = field(default_factory=dict)
    writes: int = 0
    chain: str | None = None
    versions: list[RecordVersion] = field(default_factory=list)
    checkpoint: bytes | None = None


class MemoryStore:
    """An in-process backend with the same contract as :class:`RedisStore` (for unit tests)."""

    def __init__(self, clock: Callable[[], float] = time.time) -> None:
        #: when an archive entry arrives (:attr:`ArchivedEvent.at`): the clock a test may set
        self.clock = clock
        self._matches: dict[str, _MemoryMatch] = {}
        self._index: dict[str, IndexEntry] = {}
        self._findings: dict[str, int] = {}
        self._audit: list[AuditEntry] = []
        self._alarms: dict[str, str] = {}
        self._decks: dict[str, dict[str, bytes]] = {}
        self._on_air: dict[str, bytes] = {}
        self._owners: dict[str, bytes] = {}
        self._ended: dict[str, float] = {}
        self._leases: dict[str, tuple[str, float]] = {}  # match: (console, until, monotonic)
        self._subscribers: list[tuple[str | None, asyncio.Queue[LiveUpdate]]] = []

    def _publish(self, update: LiveUpdate) -> None:
        for match, queue in self._subscribers:
            if match is None or match == update.match:
                queue.put_nowait(update)

    @staticmethod
    def _fenced(m: _MemoryMatch, writes: int | None) -> bool:
        return writes is not None and writes != m.writes

    @staticmethod
    def _tampered(m: _MemoryMatch, expect: Expect | None) -> str:
        """write.lua's tampered(): what differs from the caller's expectation ("" : nothing)."""
        if expect is None:
            return ""
        if expect.record and sha1(m.record) != expect.record:
            return "record"
        if expect.board and sha1(m.board) != expect.board:
            return "board"
        if expect.checkpoint is not None and (m.checkpoint or b"") != expect.checkpoint:
            return "checkpoint"
        if expect.versions is not None and len(m.versions) != expect.versions:
            return "versions"
        return ""

    @staticmethod
    def _write_record(m: _MemoryMatch, record: bytes, chain: str, cause: str, checkpoint: bytes = b"") -> int:
        """write.lua's write_record: a finished record that changes is kept as a new version."""
        if cause and m.record != record:
            by, seq = parse_cause(cause)
            m.versions.append(RecordVersion(len(m.versions) + 1, by, seq, record))
        m.record = record
        if chain:
            m.chain = chain
        if checkpoint:
            m.checkpoint = checkpoint
        m.writes += 1
        return m.writes

    async def append(self, a: Append) -> AppendResult:
        m = self._matches.setdefault(a.match, _MemoryMatch())
        if a.seq <= m.head:
            existing = m.by_seq.get(a.seq)
            if existing is not None and existing == a.event:
                return AppendResult("duplicate", m.head, writes=m.writes)
            if not a.conflict:
                return AppendResult("conflict", m.head, writes=m.writes)
            if a.prev != m.head or self._fenced(m, a.writes):
                return AppendResult("stale", m.head, writes=m.writes)
            differs = self._tampered(m, a.expect)
            if differs:
                return AppendResult("tampered", m.head, writes=m.writes, what=differs)
            n = 1 + sum(1 for e in m.log if e.position[0] == m.head and e.position[1] > 0)
            kind: EntryKind = "conflict" if existing is not None else "late"
            m.log.append(ArchivedEvent((m.head, n), a.event, kind, self.clock()))
            writes = self._write_record(m, a.record, a.chain, a.cause, a.checkpoint)
            self._publish(LiveUpdate(a.match, a.seq))
            return AppendResult("conflict", m.head, archived=True, writes=writes)
        if a.conflict or a.prev != m.head or self._fenced(m, a.writes):
            return AppendResult("stale", m.head, writes=m.writes)
        differs = self._tampered(m, a.expect)
        if differs:
            return AppendResult("tampered", m.head, writes=m.writes, what=differs)
        if a.seq != m.head + 1 and not a.allow_gap:
            return AppendResult("gap", m.head, writes=m.writes)
        m.log.append(ArchivedEvent((a.seq, 0), a.event, at=self.clock()))
        m.by_seq[a.seq] = a.event
        m.pending.pop(a.seq, None)
        m.head = a.seq
        m.board = a.board
        writes = self._write_record(m, a.record, a.chain, a.cause, a.checkpoint)
        self._publish(LiveUpdate(a.match, a.seq, a.board))
        return AppendResult("applied", a.seq, archived=True, writes=writes)

    async def append_run(self, a: AppendRun) -> AppendResult:
        first, _ = _run_bounds(a)
        m = self._matches.setdefault(a.match, _MemoryMatch())
        if a.prev != m.head or self._fenced(m, a.writes):
            return AppendResult("stale", m.head, writes=m.writes)
        differs = self._tampered(m, a.expect)
        if differs:
            return AppendResult("tampered", m.head, writes=m.writes, what=differs)
        if first != m.head + 1 and not (a.allow_gap and first > m.head):
            return AppendResult("gap", m.head, writes=m.writes)
        at = self.clock()
        for seq, data in a.events:
            m.log.append(ArchivedEvent((seq, 0), data, at=at))
            m.by_seq[seq] = data
            m.pending.pop(seq, None)
        m.head = a.events[-1][0]
        m.board = a.board
        writes = self._write_record(m, a.record, a.chain, a.cause, a.checkpoint)
        self._publish(LiveUpdate(a.match, m.head, a.board))
        return AppendResult("applied", m.head, archived=True, writes=writes)

    async def state(self, match: str) -> MatchState:
        m = self._matches.get(match)
        return MatchState(m.head, m.writes, m.chain, m.checkpoint) if m else MatchState()

    async def snapshot(self, match: str) -> Snapshot:
        m = self._matches.get(match)
        if m is None:
            return Snapshot([], {}, MatchState(), None, None, [])
        state = MatchState(m.head, m.writes, m.chain, m.checkpoint)
        return Snapshot(
            list(m.log), dict(sorted(m.pending.items())), state, m.record, m.board, list(m.versions)
        )

    async def stored(self, match: str) -> Stored:
        m = self._matches.get(match)
        return Stored(m.record, m.writes, m.checkpoint) if m else Stored()

    async def record_state(self, match: str) -> tuple[bytes | None, int]:
        m = self._matches.get(match)
        return (m.record, m.writes) if m else (None, 0)

    async def versions(self, match: str) -> list[RecordVersion]:
        m = self._matches.get(match)
        return list(m.versions) if m else []

    async def version(self, match: str, n: int) -> RecordVersion | None:
        m = self._matches.get(match)
        return m.versions[n - 1] if m and 1 <= n <= len(m.versions) else None

    async def pending_matches(self) -> list[str]:
        return sorted(name for name, m in self._matches.items() if m.pending)

    async def alarm(self, match: str, detail: str) -> None:
        self._alarms[match] = detail

    async def alarms(self) -> dict[str, str]:
        return dict(sorted(self._alarms.items()))

    async def put_deck(self, event: str, key: str, data: bytes) -> None:
        self._decks.setdefault(event, {})[key] = data

    async def decks(self, event: str) -> dict[str, bytes]:
        return dict(sorted(self._decks.get(event, {}).items()))

    async def on_air(self, key: str) -> bytes | None:
        return self._on_air.get(key)

    async def swap_on_air(self, key: str, old: bytes | None, new: bytes) -> bool:
        if self._on_air.get(key, b"") != (old or b""):
            return False
        self._on_air[key] = new
        return True

    async def clear_alarm(self, match: str) -> str | None:
        return self._alarms.pop(match, None)

    async def head(self, match: str) -> int:
        m = self._matches.get(match)
        return m.head if m else 0

    async def event(self, match: str, seq: int) -> bytes | None:
        m = self._matches.get(match)
        return m.by_seq.get(seq) if m else None

    async def events(self, match: str) -> list[ArchivedEvent]:
        m = self._matches.get(match)
        return list(m.log) if m else []

    async def record(self, match: str) -> bytes | None:
        m = self._matches.get(match)
        return m.record if m else None

    async def records(self, matches: Sequence[str]) -> list[bytes | None]:
        return [await self.record(m) for m in matches]

    async def board(self, match: str) -> bytes | None:
        m = self._matches.get(match)
        return m.board if m else None

    async def hold(self, match: str, seq: int, data: bytes) -> bool:
        m = self._matches.setdefault(match, _MemoryMatch())
        if seq in m.pending:
            return False
        m.pending[seq] = data
        return True

    async def held(self, match: str) -> dict[int, bytes]:
        m = self._matches.get(match)
        return dict(sorted(m.pending.items())) if m else {}

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
        m = self._matches.setdefault(match, _MemoryMatch())
        if (if_absent and m.record is not None) or self._fenced(m, writes):
            return False
        differs = self._tampered(m, expect)
        if differs:
            raise Tampered(match, differs)
        self._write_record(m, record, "", cause, checkpoint)
        self._publish(LiveUpdate(match, m.head))
        return True

    async def drop_record(self, match: str, *, writes: int, expect: Expect, checkpoint: bytes = b"") -> bool:
        m = self._matches.setdefault(match, _MemoryMatch())
        if self._fenced(m, writes):
            return False
        differs = self._tampered(m, expect)
        if differs:
            raise Tampered(match, differs)
        m.record = None
        if checkpoint:
            m.checkpoint = checkpoint
        m.writes += 1
        self._publish(LiveUpdate(match, m.head))
        return True

    async def unindex(self, match: str) -> bool:
        old = self._index.pop(match, None)
        if old is None:
            return False
        for code, count in old.findings.items():
            n = self._findings.get(code, 0) - count
            if n > 0:
                self._findings[code] = n
            else:
                self._findings.pop(code, None)
        return True

    async def index(
        self, entry: IndexEntry, *, last: IndexEntry | None = None, guess: bool = False, strict: bool = False
    ) -> bool:
        old = self._index.get(entry.match)
        if strict and guess and not same_entry(old, last):
            raise IndexChanged(entry.match, old)
        if old is not None and old.seq > entry.seq:
            return False
        before = dict(old.findings) if old else {}
        for code in set(before) | set(entry.findings):
            n = self._findings.get(code, 0) + entry.findings.get(code, 0) - before.get(code, 0)
            if n > 0:
                self._findings[code] = n
            else:
                self._findings.pop(code, None)
        self._index[entry.match] = replace(
            entry,
            league=entry.league or None,
            season=entry.season or None,
            players=tuple(entry.players),
            findings=dict(entry.findings),
            severities=dict(entry.severities),
        )
        return True

    async def index_entry(self, match: str) -> IndexEntry | None:
        return self._index.get(match)

    async def index_entries(self, matches: Iterable[str]) -> list[IndexEntry]:
        """Summaries of many matches (skipping unknown ones)."""
        return [self._index[m] for m in matches if m in self._index]

    async def matches(
        self,
        *,
        league: str | None = None,
        season: str | None = None,
        status: str | None = None,
        player: str | None = None,
    ) -> list[str]:
        return sorted(
            e.match
            for e in self._index.values()
            if (league is None or e.league == league)
            and (season is None or e.season == season)
            and (status is None or e.status == status)
            and (player is None or player in e.players)
        )

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
        if sort not in SORTS:
            raise ValueError(f"sort must be one of {', '.join(SORTS)}, got {sort!r}")
        after = None if cursor is None else decode_cursor(cursor, sort)
        needle = search_needle(search) if search else ""
        names = await self.matches(league=league, season=season, status=status, player=player)
        if needle:
            names = [m for m in names if needle in self._index[m].search_text()]
        by, reverse = sort.lstrip("-"), sort.startswith("-")
        keyed = sorted(((self._index[m].rank if by == "findings" else 0, m) for m in names), reverse=reverse)
        if after is not None:
            keyed = [k for k in keyed if (k < after if reverse else k > after)]
        start = max(0, offset)
        rows = keyed[start : start + max(0, limit) + 1]
        more = len(rows) > max(0, limit)
        rows = rows[: max(0, limit)]
        following = encode_cursor(sort, *rows[-1]) if more and rows else None
        return IndexPage([self._index[m] for _, m in rows], len(names), next=following)

    async def index_names(
        self, kind: Literal["league", "season"], *, leagues: Iterable[str] | None = None
    ) -> list[str]:
        within = None if leagues is None else set(leagues)
        found = {getattr(e, kind) for e in self._index.values() if within is None or e.league in within}
        return sorted(n for n in found if n)

    async def findings_counts(self) -> dict[str, int]:
        return dict(sorted(self._findings.items()))

    async def claim(self, matches: Sequence[str], owner: bytes) -> list[bytes]:
        return [self._owners.setdefault(m, owner) for m in matches]

    async def owners(self, matches: Sequence[str]) -> list[bytes | None]:
        return [self._owners.get(m) for m in matches]

    async def lease(
        self, match: str, console: str, action: str, seconds: float, expected: str = ""
    ) -> str | None:
        if action not in LEASE_ACTIONS:
            raise ValueError(f"not a lease action: {action!r}")
        now = time.monotonic()
        held = self._leases.get(match)
        holder = held[0] if held is not None and held[1] > now else None
        if (action == "take" and holder in (None, console)) or (
            action == "replace" and holder in (None, expected)
        ):
            self._leases[match] = (console, now + seconds)
            return console
        if action == "renew" and holder == console:
            self._leases[match] = (console, now + seconds)
        elif action == "release" and holder == console:
            self._leases.pop(match, None)
            return None
        return holder

    async def end_session(self, session: str, until: float) -> None:
        self._ended[session] = until

    async def session_ended(self, session: str) -> bool:
        until = self._ended.get(session)
        return until is not None and until + 1 > time.time()

    async def subscribe(self, match: str | None = None) -> Subscription:
        queue: asyncio.Queue[LiveUpdate] = asyncio.Queue()
        item = (match, queue)
        self._subscribers.append(item)
        return _MemorySubscription(self, item)

    async def audit(self, entry: AuditEntry) -> str:
        entry_id = f"{len(self._audit) + 1}-0"
        self._audit.append(replace(entry, id=entry_id))
        return entry_id

    async def audit_log(self, *, after: str | None = None, count: int = 1000) -> list[AuditEntry]:
        start = 0 if after is None else int(after.split("-")[0])
        return self._audit[start : start + count]

    async def ping(self) -> bool:
        return True

    async def close(self) -> None:
        return None


class _MemorySubscription:
    def __init__(self, store: MemoryStore, item: tuple[str | None, asyncio.Queue[LiveUpdate]]) -> None:
        self._store = store
        self._item = item

    def __aiter__(self) -> AsyncIterator[LiveUpdate]:
        return self._iterate()

    async def _iterate(self) -> AsyncIterator[LiveUpdate]:
        while True:
            yield await self._item[1].get()

    async def aclose(self) -> None:
        with contextlib.suppress(ValueError):
            self._store._subscribers.remove(self._item)
