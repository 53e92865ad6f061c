"""One broadcast delay for everything public: what a reader may see of a match now.

A match whose ``match_started`` asks for a broadcast delay (``console.delay``, N seconds: the table
console's start form, docs/console.md) is shown to every anonymous reader **as it was N seconds ago**:
its board, its record and result, its versions, its line in the league index, the overlay's score and the
live stream. Judges, recorders and producers whose token covers the match see it live (:func:`sees_live`):
they run the table and rule on it.

"As it was" is read from the archive: every entry keeps the time it arrived beside its bytes
(:attr:`streams.store.ArchivedEvent.at`, the store's clock at the append; the event and the hash chain
are unchanged). The public's view of a held match is the engine's fold of the entries that arrived at
least N seconds ago (:meth:`Delay.seen`): the same board and record the ingest core stored at that moment,
unsigned (the signed record is the live one). Once every entry is that old the stored board and record
are shown as they are, except a drawn game whose playoff game is still held: its result waits for its
playoff's. The match clock (streams/http/tables.py), kept beside the archive, keeps each of its
states with the moment it was set, and the public reads it as of N seconds ago (:meth:`Reader.as_of`).

This module is the one place that decides it: every public route reads a match through :class:`Reader`
(``await reader(request)``), never the store's board or record directly, and
``tests/streams/http/test_delay.py`` polls every public route of the route table.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import msgpack
from aiohttp import web

from replay.contract.validate import checked_game
from replay.engine import RecordError, canonical_bytes
from replay.records import from_msgpack
from streams.http.access import PRINCIPAL, match_scopes
from streams.store import ArchivedEvent, CopyRefused, IndexEntry, RecordVersion, Store

#: The longest broadcast delay a match may ask for, in seconds.
MAX_DELAY = 600

#: Roles that see a match live when their token covers it: they run the table and rule on it.
LIVE_ROLES = frozenset({"judge", "recorder", "ingest"})

#: The store's on-air entry (beside the stream tables' and clocks') where the processes keep the delayed
#: matches on air: ``{match: [since, delay]}``, those whose delay has passed dropped at each write.
HELD_KEY = "delay:held"

#: How long one reading of a held match's public view serves every reader (seconds).
SEEN_FOR = 0.25

#: How long a process remembers that a delayed match changed (to keep it out of filtered lists while it is
#: held back): the longest delay.
ON_AIR_FOR = MAX_DELAY


def broadcast_delay(event: object) -> float:
    """The broadcast delay a match's match_started asks for (``console.delay``, seconds, up to
    :data:`MAX_DELAY`), else 0."""
    extra = event.get("console") if isinstance(event, dict) else None
    delay = extra.get("delay") if isinstance(extra, dict) else None
    if isinstance(delay, int | float) and not isinstance(delay, bool) and 0 < delay <= MAX_DELAY:
        return float(delay)
    return 0.0


@dataclass(frozen=True)
class Seen:
    """What the public sees of a match at one moment.

    ``held``: part of the match (its newest entries, or its playoff game's) is held back now; the
    ``board`` and ``record`` (msgpack; None: nothing to show yet) are then the fold of the entries that
    arrived by ``cutoff`` (``seq``: the last of them), else the stored ones."""

    match: str
    delay: float
    held: bool
    board: bytes | None
    record: bytes | None
    seq: int
    cutoff: float

    def shown(self, entries: list[ArchivedEvent]) -> list[ArchivedEvent]:
        """The archive as the public sees it now: while the match is held, only the entries that had
        arrived by the cutoff (an entry with no arrival time predates the delay's clock and shows)."""
        if not self.held:
            return entries
        return [e for e in entries if e.at is None or e.at <= self.cutoff]


class Delay:
    """The process's reader of broadcast delays: each match's delay (read once: a match_started is never
    rewritten) and the public's view of a held match (one fold per match and cutoff, remembered)."""

    def __init__(self, store: Store, clock: Callable[[], float] = time.time, *, keep: int = 256) -> None:
        self.store = store
        self.clock = clock
        #: each match's delay in seconds, once known (0: none)
        self.known: dict[str, float] = {}
        #: delayed matches that changed lately, and when: what filtered lists must check
        self.on_air: dict[str, float] = {}
        self._folds: OrderedDict[tuple[str, int], tuple[bytes | None, bytes | None, int]] = OrderedDict()
        self._keep = keep
        self._tasks: set[asyncio.Task[None]] = set()
        self._seen: OrderedDict[tuple[str, int], Seen] = OrderedDict()
        self._recalled = False
        self._keeping: asyncio.Task[None] | None = None

    async def of(self, match: str) -> float:
        """``match``'s broadcast delay in seconds (0: none). A match with no first event yet takes its
        parent's (a playoff game's stub record names it); an archived copy that is not the one archived
        is held back longest."""
        known = self.known.get(match)
        if known is not None:
            return known
        try:
            first = await self.store.event(match, 1)
        except CopyRefused:
            return float(MAX_DELAY)
        if first is None:
            parent = await self._parent(match)
            return await self.of(parent) if parent is not None and parent != match else 0.0
        try:
            event = msgpack.unpackb(first, raw=False)
        except Exception:
            event = None
        self.known[match] = delay = broadcast_delay(event)
        return delay

    async def _parent(self, match: str) -> str | None:
        data = await self.store.record(match)
        try:
            return str(from_msgpack(data, match=match).parent or "") or None if data is not None else None
        except RecordError:
            return None

    def changed(self, match: str) -> None:
        """A write of ``match`` was announced (the live hub calls it for every update it hears): a delayed
        match is on air (held back from filtered lists) for its delay from now. A match whose delay is not
        known yet has it read once, in the background."""
        delay = self.known.get(match)
        if delay is None:
            at = self.clock()
            task = asyncio.create_task(self._learn(match, at))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)
        elif delay > 0:
            self.on_air[match] = self.clock()
            self._keep_on_air()

    async def _learn(self, match: str, at: float) -> None:
        with contextlib.suppress(Exception):  # the store is down: the next update asks again
            if await self.of(match) > 0:
                self.on_air[match] = max(at, self.on_air.get(match, at))
                self._keep_on_air()

    def _keep_on_air(self) -> None:
        """Keep the matches on air in the store too (one write at a time, the newest state): a process
        started within a delay has heard none of the changes that hold them (:meth:`recall`)."""
        if self._keeping is None or self._keeping.done():
            self._keeping = asyncio.create_task(self._write_on_air())

    async def _write_on_air(self) -> None:
        await asyncio.sleep(0)  # the other changes of this moment go in the same write
        with contextlib.suppress(Exception):  # the store is down: the next change writes again
            for _ in range(20):
                old = await self.store.on_air(HELD_KEY)
                held = self._stored(old)
                for match, at in self.on_air.items():
                    delay = self.known.get(match, 0.0)
                    if at >= held.get(match, (0.0, 0.0))[0]:
                        held[match] = (at, delay)
                new = json.dumps(held, sort_keys=True, separators=(",", ":")).encode()
                if new == old or await self.store.swap_on_air(HELD_KEY, old, new):
                    return

    def _stored(self, raw: bytes | None) -> dict[str, tuple[float, float]]:
        """The stored matches on air, less those whose delay has passed."""
        now = self.clock()
        try:
            stored = json.loads(raw) if raw else {}
            held = {str(m): (float(at), float(d)) for m, (at, d) in stored.items()}
        except (ValueError, TypeError, AttributeError):
            return {}  # not ours to read: rewritten whole
        return {m: v for m, v in held.items() if now - v[0] <= v[1]}

    async def recall(self) -> None:
        """Once per process: the matches on air that other processes (or this one before a restart) heard
        change within their delay, so that a filtered list started within a delay still holds them."""
        if self._recalled:
            return
        with contextlib.suppress(Exception):  # the store is down: asked again by the next list
            held = self._stored(await self.store.on_air(HELD_KEY))
            for match, (at, delay) in held.items():
                self.known.setdefault(match, delay)
                self.on_air[match] = max(at, self.on_air.get(match, at))
            self._recalled = True

    def held_now(self) -> list[str]:
        """Delayed matches that changed within their delay (what a filtered list must look at apart)."""
        now = self.clock()
        for match, at in list(self.on_air.items()):
            if now - at > self.known.get(match, 0.0):
                del self.on_air[match]
        return sorted(self.on_air)

    async def seen(self, match: str, *, depth: int = 0) -> Seen:
        """What the public sees of ``match`` now (see the module docstring). A held match's view is read
        once per :data:`SEEN_FOR` seconds however many readers ask (overlays poll; a list reads many):
        held back by seconds, it is no older for it."""
        delay = await self.of(match)
        now = self.clock()
        if delay <= 0:
            board, record = await self.store.board(match), await self.store.record(match)
            return Seen(match, 0.0, False, board, record, await self.store.head(match), now)
        key = (match, int(now / SEEN_FOR))
        hit = self._seen.get(key)
        if hit is None:
            hit = self._seen[key] = await self._seen_now(match, delay, now, depth)
            while len(self._seen) > self._keep:
                self._seen.popitem(last=False)
        return hit

    async def _seen_now(self, match: str, delay: float, now: float, depth: int) -> Seen:
        cutoff = now - delay
        # one atomic read of the archive with the board and record: read apart, an event arriving between
        # the two would show in a board that is meant to be N seconds old
        snap = await self.store.snapshot(match)
        entries = snap.events
        shown = 0
        for entry in entries:
            if entry.at is not None and entry.at > cutoff:
                break
            shown += 1
        if entries and shown == len(entries):
            self.on_air.pop(match, None)
            record = snap.record
            child = _playoff_child(record, match)
            if child is None or depth > 4 or not (await self.seen(child, depth=depth + 1)).held:
                return Seen(
                    match,
                    delay,
                    False,
                    snap.board,
                    record,
                    entries[-1].position[0],
                    cutoff,
                )
        elif entries:
            self.on_air.setdefault(match, now)
        if not entries:  # a playoff game not started: its stub record shows once its parent's draw does
            record = snap.record
            parent = await self._parent(match)
            held = parent is not None and parent != match and depth <= 4
            if held and parent is not None and (await self.seen(parent, depth=depth + 1)).held:
                return Seen(match, delay, True, None, None, 0, cutoff)
            return Seen(match, delay, False, None, record, 0, cutoff)
        board, record, seq = self._fold(match, entries[:shown])
        return Seen(match, delay, True, board, record, seq, cutoff)

    def _fold(self, match: str, entries: Sequence[Any]) -> tuple[bytes | None, bytes | None, int]:
        """The board and record after ``entries`` (the engine's fold; remembered per match and length)."""
        key = (match, len(entries))
        hit = self._folds.get(key)
        if hit is not None:
            self._folds.move_to_end(key)
            return hit
        if not entries:
            out: tuple[bytes | None, bytes | None, int] = (None, None, 0)
        else:
            game = checked_game()
            seq = 0
            for entry in entries:
                game.apply(msgpack.unpackb(entry.data, raw=False), entry.data)
                seq = entry.position[0]
            out = (canonical_bytes(game.board()), canonical_bytes(game.record()), seq)
        self._folds[key] = out
        while len(self._folds) > self._keep:
            self._folds.popitem(last=False)
        return out


def _playoff_child(record: bytes | None, match: str) -> str | None:
    if record is None:
        return None
    try:
        po = from_msgpack(record, match=match).playoff
    except RecordError:
        return None
    return str(po.child) if po and po.child else None


DELAY: web.AppKey[Delay] = web.AppKey("broadcast_delay", Delay)


class Reader:
    """A match's board, record, versions and index line as one request may see them now: live for a
    caller :func:`sees_live` allows, else as the public sees them (:meth:`Delay.seen`)."""

    def __init__(self, request: web.Request) -> None:
        self.request = request
        self.delay = request.app[DELAY]
        self.store = self.delay.store
        self._live: dict[str, bool] = {}

    async def live(self, match: str) -> bool:
        """Whether this caller sees ``match`` as it is (no delay, or a live role that covers it)."""
        known = self._live.get(match)
        if known is None:
            delayed = await self.delay.of(match) > 0
            known = self._live[match] = not delayed or await sees_live(self.request, match)
        return known

    async def seen(self, match: str) -> Seen | None:
        """The public's view of ``match`` when this caller reads it held back, else None (live)."""
        if await self.live(match):
            return None
        return await self.delay.seen(match)

    async def as_of(self, match: str) -> float:
        """The moment this caller sees ``match`` as of: now when it sees it live, else now less the match's
        delay. For what is kept beside the archive with the times it was set (the match clock,
        streams/http/tables.py): read at this moment, it is held back as the archive is, with no fold."""
        now = self.delay.clock()
        return now if await self.live(match) else now - await self.delay.of(match)

    async def board(self, match: str) -> bytes | None:
        seen = await self.seen(match)
        return await self.store.board(match) if seen is None else seen.board

    async def record(self, match: str) -> bytes | None:
        seen = await self.seen(match)
        return await self.store.record(match) if seen is None else seen.record

    async def records(self, matches: Sequence[str]) -> list[bytes | None]:
        stored = await self.store.records(matches)
        return [
            data if (seen := await self.seen(m)) is None else seen.record
            for m, data in zip(matches, stored, strict=True)
        ]

    async def versions(self, match: str) -> list[RecordVersion]:
        """The finished record's versions this caller may see: held back, those whose cause arrived by
        the cutoff (an event shown, or a playoff game's once that game shows)."""
        versions = await self.store.versions(match)
        seen = await self.seen(match)
        if seen is None or not seen.held:
            return versions
        out = []
        for v in versions:
            if v.cause_match == match:
                shown = v.cause_seq <= seen.seq
            else:  # a playoff game settled it: once that game's event shows
                other = await self.seen(v.cause_match)
                shown = other is None or not other.held or v.cause_seq <= other.seq
            if shown:
                out.append(v)
        return out

    async def entries(self, entries: Iterable[IndexEntry], filters: Mapping[str, Any]) -> list[IndexEntry]:
        """Index entries as this caller may see them: a held match's line is its public view's (and left
        out where that view is not yet there, or no longer matches ``filters``: league, season, status,
        player)."""
        out = []
        for entry in entries:
            seen = await self.seen(entry.match)
            if seen is None or not seen.held:
                out.append(entry)
                continue
            view = _entry(seen)
            if view is not None and matches_filters(view, filters):
                out.append(view)
        return out

    async def held_matching(self, filters: Mapping[str, Any]) -> list[IndexEntry]:
        """Held matches whose public view matches ``filters`` (a filtered list adds them: their stored
        line may not match, their public one does)."""
        out = []
        await self.delay.recall()
        for match in self.delay.held_now():
            seen = await self.seen(match)
            view = _entry(seen) if seen is not None and seen.held else None
            if view is not None and matches_filters(view, filters):
                out.append(view)
        return out


def _entry(seen: Seen) -> IndexEntry | None:
    if seen.record is None:
        return None
    try:
        return IndexEntry.from_record(msgpack.unpackb(seen.record, raw=False), seen.seq)
    except Exception:
        return None


def matches_filters(entry: IndexEntry, filters: Mapping[str, Any]) -> bool:
    """Whether an index line matches a list's filters (league, season, status, player; None: any)."""
    for key in ("league", "season", "status"):
        want = filters.get(key)
        if want is not None and getattr(entry, key) != want:
            return False
    player = filters.get("player")
    return player is None or player in entry.players


async def sees_live(request: web.Request, match: str) -> bool:
    """Whether the caller sees ``match`` live: a judge, recorder or producer whose token covers it."""
    principal = request[PRINCIPAL]
    if not principal.roles & LIVE_ROLES:
        return False
    if not principal.scoped:
        return True
    (scope,) = await match_scopes(request.app[DELAY].store, [match])
    return principal.covers(*scope)


async def reader(request: web.Request) -> Reader:
    """The request's reader of matches (see :class:`Reader`)."""
    return Reader(request)
