"""The in-process backend's :class:`~streams.store.roles.Reader`."""

from __future__ import annotations

import bisect
from collections.abc import Sequence

from streams.store.base import (
    ArchivedEvent,
    ArchiveExtent,
    MatchState,
    RecordVersion,
    Snapshot,
    extent_of,
)
from streams.store.memory.common import MemoryBase


class MemoryReader(MemoryBase):
    """A match's archive and read models, read (:class:`Reader`)."""

    async def head(self, match: str) -> int:
        m = self._matches.get(match)
        return m.head if m else 0

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

    async def event(self, match: str, seq: int) -> bytes | None:
        m = self._matches.get(match)
        return m.by_seq.get(seq) if m else None

    async def events(self, match: str) -> list[ArchivedEvent]:
        m = self._matches.get(match)
        return list(m.log) if m else []

    async def extent(self, match: str) -> ArchiveExtent:
        m = self._matches.get(match)
        return extent_of(m.log) if m else ArchiveExtent()

    async def events_after(
        self, match: str, after: tuple[int, int] | None, count: int
    ) -> list[ArchivedEvent]:
        m = self._matches.get(match)
        if m is None:
            return []
        start = 0 if after is None else bisect.bisect_right(m.log, after, key=lambda e: e.position)
        return m.log[start : start + count]

    async def record(self, match: str) -> bytes | None:
        m = self._matches.get(match)
        return m.record if m else None

    async def records(self, matches: Sequence[str]) -> list[bytes | None]:
        return [await self.record(m) for m in matches]

    async def board(self, match: str) -> bytes | None:
        m = self._matches.get(match)
        return m.board if m else None

    async def versions(self, match: str) -> list[RecordVersion]:
        m = self._matches.get(match)
        return list(m.versions) if m else []

    async def version(self, match: str, n: int) -> RecordVersion | None:
        m = self._matches.get(match)
        return m.versions[n - 1] if m and 1 <= n <= len(m.versions) else None

    async def alarms(self) -> dict[str, str]:
        return dict(sorted(self._alarms.items()))
