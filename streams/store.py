"""Where the service keeps a match: the event archive, its read models and the league indexes.

One small interface, :class:`Store`, with two backends that pass the same contract tests
(``tests/test_store.py``): :class:`RedisStore` (production, redis.asyncio, one Lua script per atomic
append: ``ingest.lua`` for one event, ``append_run.lua`` for a run of consecutive events) and
:class:`MemoryStore` (unit tests). The store deals in bytes (msgpack) and never runs the engine: the
ingest core (:mod:`streams.ingest`) applies events and hands the store the new board and record.

The append rule (the same in both backends, see ``streams/ingest.lua`` and docs/storage.md):

- a new ``seq`` is appended only if the caller built its state on the current head (``prev``), and only
  as ``head + 1`` unless the caller declares a gap (``allow_gap``): otherwise ``stale`` / ``gap``;
- a ``seq`` at or below the head with the same bytes is a ``duplicate`` (no-op);
- a ``seq`` at or below the head with different bytes is a ``conflict``: refused in ``append`` mode,
  archived after the head (with the record holding the engine's finding) in ``conflict`` mode.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
from collections.abc import AsyncIterator, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from importlib import resources
from typing import Any, Literal, Protocol, cast

from redis.asyncio import Redis
from redis.asyncio.client import PubSub
from redis.asyncio.cluster import RedisCluster
from redis.exceptions import NoScriptError

_MATCH_ID = re.compile(r"^[A-Za-z0-9._:/-]{1,128}$")

AppendStatus = Literal["applied", "duplicate", "conflict", "stale", "gap"]
EntryKind = Literal["event", "conflict", "late"]


@dataclass(frozen=True)
class Append:
    """One event to archive, with the read models computed after applying it.

    ``conflict=True`` archives an event whose ``seq`` is at or below the head (a different event reusing
    a seq, or one filling a gap already reported): the engine has already turned it into a finding, which
    ``record`` carries; the board is left as it is.
    """

    match: str
    seq: int
    event: bytes
    prev: int
    board: bytes
    record: bytes
    allow_gap: bool = False
    conflict: bool = False


@dataclass(frozen=True)
class AppendRun:
    """Consecutive events of one match to archive at once, with the read models after the last one.

    ``events`` are ``(seq, canonical bytes)`` with seqs ``prev + 1, prev + 2, ...`` (a run never crosses
    a gap or a conflict: those go through :meth:`Store.append` one by one). ``board`` and ``record`` are
    the read models after the last event; one live update (with the last seq) is published.
    """

    match: str
    prev: int
    events: tuple[tuple[int, bytes], ...]
    board: bytes
    record: bytes


@dataclass(frozen=True)
class AppendResult:
    """What the store did: ``status``, the head after the call, and whether bytes were written."""

    status: AppendStatus
    head: int
    archived: bool = False


@dataclass(frozen=True)
class ArchivedEvent:
    """One archive entry, in the order the engine saw it.

    ``position`` is ``(seq, 0)`` for an event appended in order and ``(head, n)`` for the n-th conflicting
    or late event archived while the head was ``head``.
    """

    position: tuple[int, int]
    data: bytes
    kind: EntryKind = "event"


@dataclass(frozen=True)
class IndexEntry:
    """What the league indexes know about a match. Absolute values: indexing twice changes nothing."""

    match: str
    seq: int
    status: str
    league: str | None = None
    season: str | None = None
    players: tuple[str, ...] = ()
    findings: Mapping[str, int] = field(default_factory=dict)

    @classmethod
    def from_record(cls, record: Mapping[str, Any], seq: int) -> IndexEntry:
        """The index entry of a contract §3 record whose archive head is ``seq``."""
        context = record.get("context") or {}
        counts: dict[str, int] = {}
        for finding in record.get("findings") or ():
            code = str(finding.get("code"))
            counts[code] = counts.get(code, 0) + 1
        league = context.get("league")
        season = context.get("season")
        return cls(
            match=str(record["match"]),
            seq=seq,
            status=str(record.get("status") or "in_progress"),
            league=None if league is None else str(league),
            season=None if season is None else str(season),
            players=tuple(str(p) for p in record.get("players") or ()),
            findings=counts,
        )

    def as_json(self) -> dict[str, Any]:
        """A JSON-safe summary (what ``GET /matches`` lists; ``seq`` is internal: the head when indexed)."""
        return {
            "match": self.match,
            "status": self.status,
            "league": self.league,
            "season": self.season,
            "players": list(self.players),
            "findings": dict(sorted(self.findings.items())),
        }


@dataclass(frozen=True)
class LiveUpdate:
    """Published after every write that changes a match's record or board."""

    match: str
    seq: int

    def encode(self) -> bytes:
        if _MATCH_ID.match(self.match):  # nothing to escape in a match id: skip the JSON encoder
            return b'{"match":"%s","seq":%d}' % (self.match.encode(), self.seq)
        return json.dumps({"match": self.match, "seq": self.seq}, separators=(",", ":")).encode()

    @classmethod
    def decode(cls, data: bytes | str) -> LiveUpdate:
        obj = json.loads(data)
        return cls(match=str(obj["match"]), seq=int(obj["seq"]))


class Subscription(Protocol):
    """Live updates for one match or for all (``async for update in sub``); close it when done."""

    def __aiter__(self) -> AsyncIterator[LiveUpdate]: ...

    async def aclose(self) -> None: ...


class Store(Protocol):
    """The storage contract. Every method is safe to call concurrently; appends per match are ordered."""

    async def append(self, a: Append) -> AppendResult:
        """Archive one event and store the match's new board and record, in one atomic step."""
        ...

    async def append_run(self, a: AppendRun) -> AppendResult:
        """Archive a run of consecutive events and store the board and record after the last one, in one
        atomic step. ``applied`` (head = the last seq), or ``stale`` (``prev`` is not the head) / ``gap``
        (the seqs do not follow the head), in which case nothing is written."""
        ...

    async def append_runs(self, runs: Sequence[AppendRun]) -> list[AppendResult]:
        """:meth:`append_run` for runs of different matches, sent together (one round trip where the
        backend can); each run stays its own atomic step with its own result, in the order given."""
        ...

    async def head(self, match: str) -> int:
        """The highest seq appended in order (0 for an unknown match)."""
        ...

    async def event(self, match: str, seq: int) -> bytes | None:
        """The archived bytes of the event appended in order at ``seq``."""
        ...

    async def events(self, match: str) -> list[ArchivedEvent]:
        """The whole archive, in the order the engine saw it (replaying it rebuilds the match)."""
        ...

    async def record(self, match: str) -> bytes | None:
        """The stored record (msgpack), or None."""
        ...

    async def hold(self, match: str, seq: int, data: bytes) -> bool:
        """Keep an event that waits behind a gap (False if another is already held at that seq).

        It leaves the pending set when an append archives that seq.
        """
        ...

    async def held(self, match: str) -> dict[int, bytes]:
        """Events waiting behind a gap, by seq (what a restarted owner picks up again)."""
        ...

    async def board(self, match: str) -> bytes | None:
        """The stored public board (msgpack), or None."""
        ...

    async def put_record(self, match: str, record: bytes, *, if_absent: bool = False) -> bool:
        """Store a record outside an append (a playoff stub, a parent settled by its child).

        With ``if_absent``, only if the match has no record yet. Returns whether it was written; a
        written record is announced on the live channels with the match's head.
        """
        ...

    async def index(self, entry: IndexEntry, *, last: IndexEntry | None = None, guess: bool = False) -> bool:
        """Update the league indexes for one match; False if a newer entry is already indexed.

        With ``guess``, ``last`` is what the caller believes is indexed now (None: nothing): a backend
        that must read the stored entry first may try that instead, and read only when it was wrong.
        """
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

    async def findings_counts(self) -> dict[str, int]:
        """Findings by code over every indexed match."""
        ...

    async def subscribe(self, match: str | None = None) -> Subscription:
        """Subscribe to live updates of ``match`` (or of every match); subscribed when this returns."""
        ...

    async def ping(self) -> bool:
        """Whether the backend answers."""
        ...

    async def close(self) -> None:
        """Release connections (not the data)."""
        ...


def _run_bounds(a: AppendRun) -> tuple[int, int]:
    """The first and last seq of a run; a run must be non-empty and consecutive (a caller's bug if not)."""
    if not a.events:
        raise ValueError("an empty run")
    first, last = a.events[0][0], a.events[-1][0]
    if last - first + 1 != len(a.events) or any(s != first + i for i, (s, _) in enumerate(a.events)):
        raise ValueError(f"the seqs of a run must be consecutive: {[s for s, _ in a.events]}")
    return first, last


def _parse_position(entry_id: bytes | str) -> tuple[int, int]:
    text = entry_id.decode() if isinstance(entry_id, bytes) else entry_id
    ms, _, sub = text.partition("-")
    return int(ms), int(sub or 0)


_LUA_INGEST = resources.files("streams").joinpath("ingest.lua").read_text(encoding="utf-8")
_LUA_APPEND_RUN = resources.files("streams").joinpath("append_run.lua").read_text(encoding="utf-8")
_LUA_INDEX = resources.files("streams").joinpath("index.lua").read_text(encoding="utf-8")


def _run_result(reply: Any) -> AppendResult:
    """``append_run.lua``'s answer: the new head (applied), or ``[status, head]``."""
    if isinstance(reply, int):
        return AppendResult("applied", reply, archived=True)
    status, head = reply
    return AppendResult(status=cast(AppendStatus, status.decode()), head=int(head))


class RedisStore:
    """The Redis backend. Key layout and the scripts' steps: docs/storage.md.

    ``client`` must be a ``redis.asyncio.Redis`` returning bytes (``decode_responses=False``).
    ``prefix`` namespaces every key and channel (tests use a unique prefix per test).
    """

    def __init__(self, client: Redis, *, prefix: str = "pc") -> None:
        self.client = client
        # redis-py's return types are unions over decode_responses; this client always returns bytes.
        self._r: Any = client
        self.prefix = prefix
        self.idx = f"{prefix}:{{idx}}"
        self._ingest = client.register_script(_LUA_INGEST)
        self._index = client.register_script(_LUA_INDEX)
        self._append_run = client.register_script(_LUA_APPEND_RUN)

    # key names -------------------------------------------------------------------------------------
    def key(self, match: str, name: str) -> str:
        """``<prefix>:{<match>}:<name>``: every key of a match shares its hash tag (one cluster slot)."""
        if not _MATCH_ID.match(match):
            raise ValueError(f"not a match id: {match!r}")
        return f"{self.prefix}:{{{match}}}:{name}"

    def channel(self, match: str | None = None) -> str:
        """The live channel of one match, or the global one."""
        return f"{self.prefix}:live" if match is None else f"{self.prefix}:live:{match}"

    # appends ---------------------------------------------------------------------------------------
    async def append(self, a: Append) -> AppendResult:
        keys = [self.key(a.match, n) for n in ("events", "seq", "board", "record", "pending")]
        payload = LiveUpdate(a.match, a.seq).encode()
        args: list[bytes | str | int] = [
            "conflict" if a.conflict else "append",
            a.seq,
            a.prev,
            "1" if a.allow_gap else "0",
            a.event,
            a.board,
            a.record,
            payload,
            self.channel(a.match),
            self.channel(None),
        ]
        status, head, archived = await self._ingest(keys=keys, args=args)
        return AppendResult(
            status=cast(AppendStatus, status.decode()), head=int(head), archived=bool(archived)
        )

    async def append_run(self, a: AppendRun) -> AppendResult:
        keys, args = self._run_call(a)
        return _run_result(await self._append_run(keys=keys, args=args))

    async def append_runs(self, runs: Sequence[AppendRun]) -> list[AppendResult]:
        if not runs:
            return []
        if isinstance(self.client, RedisCluster):
            # a cluster pipeline refuses EVALSHA: the scripts go concurrently (one per match's node)
            return list(await asyncio.gather(*(self.append_run(a) for a in runs)))
        # One non-transactional pipeline of EVALSHA: each script is still atomic on its own. A server that
        # does not know the script (restarted, SCRIPT FLUSH) answers NOSCRIPT without running anything;
        # those runs go again through the Script object, which loads it. (Letting redis-py check with
        # SCRIPT EXISTS first would cost a second round trip for every batch.)
        sha = self._append_run.sha
        async with self.client.pipeline(transaction=False) as pipe:
            for a in runs:
                keys, args = self._run_call(a)
                pipe.execute_command("EVALSHA", sha, len(keys), *keys, *args)
            replies = await pipe.execute(raise_on_error=False)
        out: list[AppendResult] = []
        for a, reply in zip(runs, replies, strict=True):
            if isinstance(reply, NoScriptError):
                out.append(await self.append_run(a))
            elif isinstance(reply, Exception):
                raise reply
            else:
                out.append(_run_result(reply))
        return out

    def _run_call(self, a: AppendRun) -> tuple[list[str], list[bytes | str | int]]:
        first, last = _run_bounds(a)
        keys = [self.key(a.match, n) for n in ("events", "seq", "board", "record", "pending")]
        args: list[bytes | str | int] = [
            a.prev,
            first,
            ",".join([str(len(data)) for _, data in a.events]),
            b"".join([data for _, data in a.events]),
            a.board,
            a.record,
            LiveUpdate(a.match, last).encode(),
            self.channel(a.match),
            self.channel(None),
        ]
        return keys, args

    async def head(self, match: str) -> int:
        raw = await self._r.get(self.key(match, "seq"))
        return int(raw) if raw is not None else 0

    async def event(self, match: str, seq: int) -> bytes | None:
        found = await self._r.xrange(self.key(match, "events"), f"{seq}-0", f"{seq}-0")
        if not found:
            return None
        data: bytes = found[0][1][b"e"]
        return data

    async def events(self, match: str) -> list[ArchivedEvent]:
        out: list[ArchivedEvent] = []
        key = self.key(match, "events")
        start = "-"
        while True:
            batch = await self._r.xrange(key, start, "+", count=2000)
            for entry_id, fields in batch:
                kind = fields.get(b"k", b"event").decode()
                out.append(ArchivedEvent(_parse_position(entry_id), fields[b"e"], cast(EntryKind, kind)))
            if len(batch) < 2000:
                return out
            start = "(" + batch[-1][0].decode()

    async def record(self, match: str) -> bytes | None:
        data: bytes | None = await self._r.get(self.key(match, "record"))
        return data

    async def board(self, match: str) -> bytes | None:
        data: bytes | None = await self._r.get(self.key(match, "board"))
        return data

    async def hold(self, match: str, seq: int, data: bytes) -> bool:
        return bool(await self._r.hsetnx(self.key(match, "pending"), str(seq), data))

    async def held(self, match: str) -> dict[int, bytes]:
        raw = await self._r.hgetall(self.key(match, "pending"))
        return {int(k): v for k, v in sorted(raw.items(), key=lambda kv: int(kv[0]))}

    async def put_record(self, match: str, record: bytes, *, if_absent: bool = False) -> bool:
        # The head is read alongside (both in one round trip with the worker's auto-pipelining): the
        # announcement carries it.
        written, head = await asyncio.gather(
            self._r.set(self.key(match, "record"), record, nx=if_absent), self.head(match)
        )
        if not written:
            return False
        update = LiveUpdate(match, head).encode()
        # two plain PUBLISH calls, sent together: a cluster client refuses PUBLISH in a pipeline
        await asyncio.gather(
            self._r.publish(self.channel(match), update), self._r.publish(self.channel(None), update)
        )
        return True

    # indexes ---------------------------------------------------------------------------------------
    async def index(self, entry: IndexEntry, *, last: IndexEntry | None = None, guess: bool = False) -> bool:
        entry_key = f"{self.idx}:m:{entry.match}"
        players = json.dumps(list(entry.players))
        findings = json.dumps(dict(entry.findings)) if entry.findings else "{}"
        joins = self._memberships(entry.status, entry.league or "", entry.season or "", players)
        for attempt in range(20):
            # What is indexed now, so that every set the script touches is declared in KEYS: the
            # caller's guess first (the entry it wrote last: saves a round trip), else read. The script
            # checks it atomically and answers -1 when it was wrong.
            fields: list[str] | None
            if guess and attempt == 0:
                fields = None if last is None else _index_fields(last)
            else:
                old = await self._r.hmget(entry_key, "seq", "status", "league", "season", "players")
                fields = None if old[0] is None else [(v or b"").decode() for v in old]
            seen = ""
            leaves: list[str] = []
            if fields is not None:
                seen = "|".join(fields)
                leaves = self._memberships(*fields[1:])
            keys = [entry_key, f"{self.idx}:matches", f"{self.idx}:findings", *leaves, *joins]
            args: list[str | int] = [
                entry.match,
                entry.seq,
                entry.status,
                entry.league or "",
                entry.season or "",
                players,
                findings,
                len(leaves),
                seen,
            ]
            done = int(await self._index(keys=keys, args=args))
            if done >= 0:
                return done == 1
        raise RuntimeError(f"index entry of {entry.match} keeps changing under concurrent writers")

    def _memberships(self, status: str, league: str, season: str, players: str) -> list[str]:
        keys = [f"{self.idx}:status:{status}"]
        if league:
            keys.append(f"{self.idx}:league:{league}")
        if season:
            keys.append(f"{self.idx}:season:{season}")
        keys += [f"{self.idx}:player:{p}" for p in json.loads(players or "[]")]
        return keys

    async def index_entry(self, match: str) -> IndexEntry | None:
        raw = await self._r.hgetall(f"{self.idx}:m:{match}")
        return self._entry(match, raw) if raw else None

    async def index_entries(self, matches: Iterable[str]) -> list[IndexEntry]:
        """Summaries of many matches in one round trip (skipping unknown ones)."""
        names = list(matches)
        async with self._r.pipeline(transaction=False) as pipe:
            for m in names:
                pipe.hgetall(f"{self.idx}:m:{m}")
            rows = await pipe.execute()
        return [self._entry(m, raw) for m, raw in zip(names, rows, strict=True) if raw]

    @staticmethod
    def _entry(match: str, raw: Mapping[bytes, bytes]) -> IndexEntry:
        return IndexEntry(
            match=match,
            seq=int(raw[b"seq"]),
            status=raw[b"status"].decode(),
            league=raw[b"league"].decode() or None,
            season=raw[b"season"].decode() or None,
            players=tuple(json.loads(raw[b"players"])),
            findings=dict(json.loads(raw[b"findings"]) or {}),
        )

    async def matches(
        self,
        *,
        league: str | None = None,
        season: str | None = None,
        status: str | None = None,
        player: str | None = None,
    ) -> list[str]:
        sets = [
            f"{self.idx}:{name}:{value}"
            for name, value in (
                ("league", league),
                ("season", season),
                ("status", status),
                ("player", player),
            )
            if value is not None
        ]
        if not sets:
            members = await self._r.zrange(f"{self.idx}:matches", 0, -1)
        else:
            members = await self._r.sinter(sets)
        return sorted(m.decode() for m in members)

    async def findings_counts(self) -> dict[str, int]:
        raw = await self._r.hgetall(f"{self.idx}:findings")
        return {k.decode(): int(v) for k, v in sorted(raw.items())}

    # live ------------------------------------------------------------------------------------------
    async def subscribe(self, match: str | None = None) -> Subscription:
        pubsub = self._r.pubsub()
        await pubsub.subscribe(self.channel(match))
        # Wait for the server's confirmation: updates published after this call returns are delivered.
        while True:
            message = await pubsub.get_message(ignore_subscribe_messages=False, timeout=5.0)
            if message is None:
                raise TimeoutError("redis did not confirm the subscription")
            if message["type"] == "subscribe":
                break
        return _RedisSubscription(pubsub)

    async def ping(self) -> bool:
        try:
            return bool(await self._r.ping())
        except Exception:
            return False

    async def close(self) -> None:
        await self._r.aclose()

    async def delete_all(self) -> int:
        """Delete every key under this store's prefix (tests and ``make clean``-style resets)."""
        n = 0
        async for key in self._r.scan_iter(match=f"{self.prefix}:*", count=500):
            n += await self._r.delete(key)
        return n


class _RedisSubscription:
    def __init__(self, pubsub: PubSub) -> None:
        self._pubsub = pubsub

    def __aiter__(self) -> AsyncIterator[LiveUpdate]:
        return self._iterate()

    async def _iterate(self) -> AsyncIterator[LiveUpdate]:
        while True:
            message = await self._pubsub.get_message(ignore_subscribe_messages=True, timeout=None)
            if message is not None and message["type"] == "message":
                yield LiveUpdate.decode(message["data"])

    async def aclose(self) -> None:
        with contextlib.suppress(Exception):
            await self._pubsub.unsubscribe()
        await self._pubsub.aclose()  # type: ignore[no-untyped-call]


# ---------------------------------------------------------------------------------------------------
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

    async def findings_counts(self) -> dict[str, int]:
        return dict(sorted(self._findings.items()))

    async def subscribe(self, match: str | None = None) -> Subscription:
        queue: asyncio.Queue[LiveUpdate] = asyncio.Queue()
        item = (match, queue)
        self._subscribers.append(item)
        return _MemorySubscription(self, item)

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


def _index_fields(entry: IndexEntry) -> list[str]:
    """An entry's stored fields as RedisStore.index writes them: seq, status, league, season, players."""
    players = json.dumps(list(entry.players))
    return [str(entry.seq), entry.status, entry.league or "", entry.season or "", players]
