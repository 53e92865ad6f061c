"""The in-process backend's :class:`~streams.store.roles.Writer`: the same rule as the Redis scripts
(``ingest.lua``, ``append_run.lua``, ``record.lua``), step for step."""

from __future__ import annotations

from streams.store.base import (
    Append,
    AppendResult,
    AppendRun,
    ArchivedEvent,
    EntryKind,
    Expect,
    LiveUpdate,
    Stored,
    Tampered,
    _run_bounds,
)
from streams.store.memory.common import MemoryBase, MemoryMatch


class MemoryWriter(MemoryBase):
    """Appends, held events, records written outside an append, tamper alarms (:class:`Writer`)."""

    async def append(self, a: Append) -> AppendResult:
        m = self._matches.setdefault(a.match, MemoryMatch())
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
        m = self._matches.setdefault(a.match, MemoryMatch())
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

    async def hold(self, match: str, seq: int, data: bytes) -> bool:
        m = self._matches.setdefault(match, MemoryMatch())
        if seq in m.pending:
            return False
        m.pending[seq] = data
        return True

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
        m = self._matches.setdefault(match, MemoryMatch())
        if (if_absent and m.record is not None) or self._fenced(m, writes):
            return False
        differs = self._tampered(m, expect)
        if differs:
            raise Tampered(match, differs)
        self._write_record(m, record, "", cause, checkpoint)
        self._publish(LiveUpdate(match, m.head))
        return True

    async def drop_record(self, match: str, *, writes: int, expect: Expect, checkpoint: bytes = b"") -> bool:
        m = self._matches.setdefault(match, MemoryMatch())
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

    async def alarm(self, match: str, detail: str) -> None:
        self._alarms[match] = detail

    async def clear_alarm(self, match: str) -> str | None:
        return self._alarms.pop(match, None)

    async def record_state(self, match: str) -> tuple[bytes | None, int]:
        m = self._matches.get(match)
        return (m.record, m.writes) if m else (None, 0)

    async def stored(self, match: str) -> Stored:
        m = self._matches.get(match)
        return Stored(m.record, m.writes, m.checkpoint) if m else Stored()

    async def held(self, match: str) -> dict[int, bytes]:
        m = self._matches.get(match)
        return dict(sorted(m.pending.items())) if m else {}

    async def pending_matches(self) -> list[str]:
        return sorted(name for name, m in self._matches.items() if m.pending)
