"""Where the service keeps a match: the event archive, its read models and the league indexes.

The contract is split by role (:mod:`streams.store.roles`): the ingest core's :class:`Writer`, the HTTP
service's and the command line's :class:`Reader`, the :class:`LeagueIndex`, :class:`Access` and
:class:`AuditLog`, the :class:`Venue`'s data, the :class:`Live` feed, and the :class:`Archive` of
``prizecheck check`` and ``prizecheck archive``; each caller is typed with the roles it uses. Two
backends, each made of one module per role, pass each role's contract tests (``tests/streams/store/``)
on memory, a Redis server and a Redis Cluster: :class:`RedisStore` (production, redis.asyncio, one Lua
script per atomic append: ``ingest.lua`` for one event, ``append_run.lua`` for a run of consecutive
events) and :class:`MemoryStore` (unit tests). Every Redis key name is built in :mod:`streams.store.keys`.
The store deals in bytes (msgpack) and never runs the engine: the ingest core (:mod:`streams.ingest`)
applies events and hands the store the new board and record.

The append rule (the same in both backends, see ``streams/ingest.lua`` and docs/storage.md):

- a new ``seq`` is appended only if the caller built its state on the current head (``prev``), and only
  as ``head + 1`` unless the caller declares a gap (``allow_gap``): otherwise ``stale`` / ``gap``;
- a ``seq`` at or below the head with the same bytes is a ``duplicate`` (no-op);
- a ``seq`` at or below the head with different bytes is a ``conflict``: refused in ``append`` mode,
  archived after the head (with the record holding the engine's finding) in ``conflict`` mode;
- every record write is fenced by the record's write count and keeps the archive's trusted chain head;
  a finished record that changes becomes a new version (``write.lua``);
- a writer names what it believes is stored (:class:`Expect`: the signed checkpoint it built on, see
  :mod:`streams.store.checkpoint`) and the write is refused, ``tampered``, when the store holds anything
  else; the new signed checkpoint is kept with the data.
"""

from streams.store.base import (
    Append,
    AppendResult,
    AppendRun,
    AppendStatus,
    ArchivedEvent,
    ArchiveExtent,
    AuditEntry,
    CopyRefused,
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
    parse_cause,
    version_cause,
)
from streams.store.memory_store import MemoryStore
from streams.store.redis_store import RedisStore
from streams.store.roles import (
    Access,
    Archive,
    Archived,
    AuditLog,
    Checked,
    IngestStore,
    LeagueIndex,
    Live,
    Ownership,
    Reader,
    Store,
    Venue,
    Writer,
)

__all__ = [
    "Access",
    "Append",
    "AppendResult",
    "AppendRun",
    "AppendStatus",
    "Archive",
    "ArchiveExtent",
    "Archived",
    "ArchivedEvent",
    "AuditEntry",
    "AuditLog",
    "Checked",
    "CopyRefused",
    "EntryKind",
    "Expect",
    "IndexChanged",
    "IndexEntry",
    "IndexPage",
    "IngestStore",
    "LeagueIndex",
    "Live",
    "LiveUpdate",
    "MatchState",
    "MemoryStore",
    "Ownership",
    "Reader",
    "RecordVersion",
    "RedisStore",
    "Snapshot",
    "Store",
    "Stored",
    "Subscription",
    "Tampered",
    "Venue",
    "Writer",
    "parse_cause",
    "version_cause",
]
