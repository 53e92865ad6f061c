"""What every part of the in-process backend shares: its state (per match, the indexes, the service's
own data) and the steps of write.lua it mirrors (the fence, the expectation, a record write).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from streams.store.base import (
    ArchivedEvent,
    AuditEntry,
    Expect,
    IndexEntry,
    LiveUpdate,
    RecordVersion,
    parse_cause,
)
from streams.store.checkpoint import sha1


@dataclass
class MemoryMatch:
    """One match's slot: what a Redis store keeps under the match's hash tag."""

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


class MemoryBase:
    """The state every role of :class:`~streams.store.MemoryStore` works on."""

    def __init__(self, clock: Callable[[], float] = time.time) -> None:
        #: when an archive entry arrives (:attr:`ArchivedEvent.at`): the clock a test may set
        self.clock = clock
        self._matches: dict[str, MemoryMatch] = {}
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
    def _fenced(m: MemoryMatch, writes: int | None) -> bool:
        return writes is not None and writes != m.writes

    @staticmethod
    def _tampered(m: MemoryMatch, expect: Expect | None) -> str:
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
    def _write_record(m: MemoryMatch, record: bytes, chain: str, cause: str, checkpoint: bytes = b"") -> int:
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

    async def ping(self) -> bool:
        return True

    async def close(self) -> None:
        return None
