"""The Redis backend's :class:`~streams.store.roles.Reader`: a match's archive (with an archived match's
cold copy, ``streams/store/parquet.py``), head, record, board and versions, and the raised alarms. Key
layout: docs/storage.md.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import cast

from streams.store import keys
from streams.store.base import (
    ArchivedEvent,
    ArchiveExtent,
    CopyRefused,
    EntryKind,
    MatchState,
    RecordVersion,
    Snapshot,
    _parse_position,
    extent_of,
    joined_extent,
    parse_cause,
)
from streams.store.redis.common import RedisBase


def _entry(entry_id: bytes, fields: dict[bytes, bytes]) -> ArchivedEvent:
    """One entry of a match's stream as the archive's event: its position (the entry id), its bytes, its
    kind (event, conflict, late) and its arrival."""
    kind = cast(EntryKind, fields.get(b"k", b"event").decode())
    return ArchivedEvent(_parse_position(entry_id), fields[b"e"], kind, _arrival(fields))


def _arrival(fields: dict[bytes, bytes]) -> float | None:
    """An entry's arrival time (``t``, write.lua's ``arrival()``), None when it has none."""
    raw = fields.get(b"t")
    try:
        return float(raw) if raw is not None else None
    except ValueError:
        return None


class RedisReader(RedisBase):
    """A match's archive and read models, read (:class:`Reader`)."""

    async def head(self, match: str) -> int:
        raw = await self._r.get(self.key(match, keys.SEQ))
        return int(raw) if raw is not None else 0

    async def state(self, match: str) -> MatchState:
        async with self._r.pipeline(transaction=True) as pipe:
            pipe.get(self.key(match, keys.SEQ))
            pipe.hmget(self.key(match, keys.STATE), ["writes", "chain", "ck"])
            head, (writes, chain, ck) = await pipe.execute()
        return MatchState(
            head=int(head or 0),
            writes=int(writes or 0),
            chain=None if chain is None else chain.decode(),
            checkpoint=ck,
        )

    async def snapshot(self, match: str) -> Snapshot:
        # one MULTI/EXEC over the match's slot: the archive and what its checkpoint says, as one state
        async with self._r.pipeline(transaction=True) as pipe:
            pipe.xrange(self.key(match, keys.EVENTS), "-", "+")
            pipe.hgetall(self.key(match, keys.PENDING))
            pipe.get(self.key(match, keys.SEQ))
            pipe.hmget(self.key(match, keys.STATE), ["writes", "chain", "ck"])
            pipe.get(self.key(match, keys.RECORD))
            pipe.get(self.key(match, keys.BOARD))
            pipe.lrange(self.key(match, keys.VERSIONS), 0, -1)
            pipe.lrange(self.key(match, keys.CAUSES), 0, -1)
            pipe.get(self.key(match, keys.ARCHIVED))
            replies = await pipe.execute()
        rows, pending, head, (writes, chain, ck), record, board, versions, causes, marker = replies
        events = [_entry(entry_id, fields) for entry_id, fields in rows]
        problem = None
        if marker is not None:  # the cold archive's rows first, then what was appended since
            cold, problem = await self._cold(match, marker)
            events = cold + events
        held = {int(k): v for k, v in sorted(pending.items(), key=lambda kv: int(kv[0]))}
        state = MatchState(
            int(head or 0), int(writes or 0), None if chain is None else chain.decode(), checkpoint=ck
        )
        listed = [
            RecordVersion(n, *parse_cause(cause.decode()), data)
            for n, (data, cause) in enumerate(zip(versions, causes, strict=False), start=1)
        ]
        return Snapshot(events, held, state, record, board, listed, copy_problem=problem)

    async def event(self, match: str, seq: int) -> bytes | None:
        found = await self._r.xrange(self.key(match, keys.EVENTS), f"{seq}-0", f"{seq}-0")
        if not found:
            marker = await self._r.get(self.key(match, keys.ARCHIVED))
            if marker is not None:
                return next(
                    (e.data for e in await self._served(match, marker) if e.position == (seq, 0)), None
                )
            return None
        data: bytes = found[0][1][b"e"]
        return data

    async def events(self, match: str) -> list[ArchivedEvent]:
        out: list[ArchivedEvent] = []
        marker = await self._r.get(self.key(match, keys.ARCHIVED))
        if marker is not None:
            out = await self._served(match, marker)
        stream = self.key(match, keys.EVENTS)
        start = "-"
        while True:
            batch = await self._r.xrange(stream, start, "+", count=2000)
            out.extend(_entry(entry_id, fields) for entry_id, fields in batch)
            if len(batch) < 2000:
                return out
            start = "(" + batch[-1][0].decode()

    async def extent(self, match: str) -> ArchiveExtent:
        cold = ArchiveExtent()
        marker = await self._r.get(self.key(match, keys.ARCHIVED))
        if marker is not None:  # the cold copy's rows (the whole copy is read), then what was appended since
            cold = extent_of(await self._served(match, marker))
        await self._scripts()
        entries, steps, first, last = await self._extent(
            keys=[self.key(match, keys.EVENTS), self.key(match, keys.STATE)], args=[]
        )
        hot = (
            ArchiveExtent(int(entries), int(steps), _parse_position(first), _parse_position(last))
            if int(entries)
            else ArchiveExtent()
        )
        return joined_extent(cold, hot)

    async def events_after(
        self, match: str, after: tuple[int, int] | None, count: int
    ) -> list[ArchivedEvent]:
        out: list[ArchivedEvent] = []
        marker = await self._r.get(self.key(match, keys.ARCHIVED))
        if marker is not None:  # the cold copy's rows first (read whole: not by row group yet)
            out = [e for e in await self._served(match, marker) if after is None or e.position > after][
                :count
            ]
        if len(out) >= count:
            return out
        start = "-" if after is None else f"({after[0]}-{after[1]}"
        batch = await self._r.xrange(self.key(match, keys.EVENTS), start, "+", count=count - len(out))
        out.extend(_entry(entry_id, fields) for entry_id, fields in batch)
        return out

    async def _cold(self, match: str, raw: bytes) -> tuple[list[ArchivedEvent], str | None]:
        """An archived match's rows from its Parquet copy, and what is wrong with the copy (or None: a
        :class:`~replay.i18n.Phrase` of ``streams.store.parquet.COPY_PROBLEMS``)."""
        from streams.store.parquet import Marker, read_events, unreadable_marker

        try:
            marker = Marker.decode(raw)
        except ValueError as exc:
            return [], unreadable_marker(exc)
        return await asyncio.to_thread(read_events, marker, match)

    async def _served(self, match: str, raw: bytes) -> list[ArchivedEvent]:
        """An archived match's rows, to serve: :class:`CopyRefused` when the copy is not the one archived
        (a reader never serves an edited, cut or another match's copy)."""
        cold, problem = await self._cold(match, raw)
        if problem is not None:
            raise CopyRefused(match, problem)
        return cold

    async def record(self, match: str) -> bytes | None:
        data: bytes | None = await self._r.get(self.key(match, keys.RECORD))
        return data

    async def records(self, matches: Sequence[str]) -> list[bytes | None]:
        return await self._each(matches, "record")

    async def board(self, match: str) -> bytes | None:
        data: bytes | None = await self._r.get(self.key(match, keys.BOARD))
        return data

    async def versions(self, match: str) -> list[RecordVersion]:
        async with self._r.pipeline(transaction=True) as pipe:
            pipe.lrange(self.key(match, keys.VERSIONS), 0, -1)
            pipe.lrange(self.key(match, keys.CAUSES), 0, -1)
            records, causes = await pipe.execute()
        out: list[RecordVersion] = []
        for n, (record, cause) in enumerate(zip(records, causes, strict=False), start=1):
            by, seq = parse_cause(cause.decode())
            out.append(RecordVersion(n, by, seq, record))
        return out

    async def version(self, match: str, n: int) -> RecordVersion | None:
        if n < 1:
            return None
        async with self._r.pipeline(transaction=True) as pipe:
            pipe.lindex(self.key(match, keys.VERSIONS), n - 1)
            pipe.lindex(self.key(match, keys.CAUSES), n - 1)
            record, cause = await pipe.execute()
        if record is None or cause is None:
            return None
        by, seq = parse_cause(cause.decode())
        return RecordVersion(n, by, seq, record)

    async def alarms(self) -> dict[str, str]:
        raw = await self._r.hgetall(keys.alarms(self.prefix))
        return {k.decode(): v.decode() for k, v in sorted(raw.items())}
