"""An in-process backend with the same contract as the Redis one (unit tests)."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Iterable, Sequence
from dataclasses import dataclass, field, replace

from streams.store.base import (
    SEARCH_PLAYERS_MAX,
    Append,
    AppendResult,
    AppendRun,
    ArchivedEvent,
    AuditEntry,
    EntryKind,
    IndexEntry,
    IndexPage,
    LiveUpdate,
    Subscription,
    _run_bounds,
    fold_case,
    order_page,
)


@dataclass
class _MemoryMatch:
    head: int = 0
    log: list[ArchivedEvent] = field(default_factory=list)
    by_seq: dict[int, bytes] = field(default_factory=dict)
    board: bytes | None = None
    record: bytes | None = None
    pending: dict[int, bytes] = field(default_factory=dict)


class MemoryStore:
    """An in-process backend with the same contract as :class:`RedisStore` (for unit tests)."""

    def __init__(self) -> None:
        self._matches: dict[str, _MemoryMatch] = {}
        self._index: dict[str, IndexEntry] = {}
        self._findings: dict[str, int] = {}
        self._audit: list[AuditEntry] = []
        self._subscribers: list[tuple[str | None, asyncio.Queue[LiveUpdate]]] = []

    def _publish(self, update: LiveUpdate) -> None:
        for match, queue in self._subscribers:
            if match is None or match == update.match:
                queue.put_nowait(update)

    async def append(self, a: Append) -> AppendResult:
        m = self._matches.setdefault(a.match, _MemoryMatch())
        if a.seq <= m.head:
            existing = m.by_seq.get(a.seq)
            if existing is not None and existing == a.event:
                return AppendResult("duplicate", m.head)
            if not a.conflict:
                return AppendResult("conflict", m.head)
            if a.prev != m.head:
                return AppendResult("stale", m.head)
            n = 1 + sum(1 for e in m.log if e.position[0] == m.head and e.position[1] > 0)
            kind: EntryKind = "conflict" if existing is not None else "late"
            m.log.append(ArchivedEvent((m.head, n), a.event, kind))
            m.record = a.record
            self._publish(LiveUpdate(a.match, a.seq))
            return AppendResult("conflict", m.head, archived=True)
        if a.conflict or a.prev != m.head:
            return AppendResult("stale", m.head)
        if a.seq != m.head + 1 and not a.allow_gap:
            return AppendResult("gap", m.head)
        m.log.append(ArchivedEvent((a.seq, 0), a.event))
        m.by_seq[a.seq] = a.event
        m.pending.pop(a.seq, None)
        m.head = a.seq
        m.board = a.board
        m.record = a.record
        self._publish(LiveUpdate(a.match, a.seq))
        return AppendResult("applied", a.seq, archived=True)

    async def append_run(self, a: AppendRun) -> AppendResult:
        first, _ = _run_bounds(a)
        m = self._matches.setdefault(a.match, _MemoryMatch())
        if a.prev != m.head:
            return AppendResult("stale", m.head)
        if first != m.head + 1:
            return AppendResult("gap", m.head)
        for seq, data in a.events:
            m.log.append(ArchivedEvent((seq, 0), data))
            m.by_seq[seq] = data
            m.pending.pop(seq, None)
        m.head = a.events[-1][0]
        m.board = a.board
        m.record = a.record
        self._publish(LiveUpdate(a.match, m.head))
        return AppendResult("applied", m.head, archived=True)

    async def append_runs(self, runs: Sequence[AppendRun]) -> list[AppendResult]:
        return [await self.append_run(a) for a in runs]

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

    async def put_record(self, match: str, record: bytes, *, if_absent: bool = False) -> bool:
        m = self._matches.setdefault(match, _MemoryMatch())
        if if_absent and m.record is not None:
            return False
        m.record = record
        self._publish(LiveUpdate(match, m.head))
        return True

    async def index(self, entry: IndexEntry, *, last: IndexEntry | None = None, guess: bool = False) -> bool:
        old = self._index.get(entry.match)
        if old is not None and old.seq > entry.seq:
            return False
        before = dict(old.findings) if old else {}
        for code in set(before) | set(entry.findings):
            n = self._findings.get(code, 0) + entry.findings.get(code, 0) - before.get(code, 0)
            if n > 0:
                self._findings[code] = n
            else:
                self._findings.pop(code, None)
        self._index[entry.match] = IndexEntry(
            entry.match,
            entry.seq,
            entry.status,
            entry.league or None,
            entry.season or None,
            tuple(entry.players),
            dict(entry.findings),
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
    ) -> IndexPage:
        names = await self.matches(league=league, season=season, status=status, player=player)
        if search:
            prefix = fold_case(search)
            known = {p for e in self._index.values() for p in e.players}
            found = {p for p in known if fold_case(p).startswith(prefix)}
            if len(found) > SEARCH_PLAYERS_MAX:
                return IndexPage([], 0, too_broad=True)
            names = [m for m in names if found.intersection(self._index[m].players)]
        totals = {m: sum(self._index[m].findings.values()) for m in names}
        page = order_page(names, totals, sort, offset, limit)
        return IndexPage([self._index[m] for m in page], len(names))

    async def findings_counts(self) -> dict[str, int]:
        return dict(sorted(self._findings.items()))

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
