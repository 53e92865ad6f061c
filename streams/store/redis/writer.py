"""The Redis backend's :class:`~streams.store.roles.Writer`: the ingest core's write path (one Lua script per
atomic step: ``ingest.lua`` for one event, ``append_run.lua`` for a run, ``record.lua`` for a record written
alone, the drop step), held events, tamper alarms. Key layout and the scripts' steps: docs/storage.md.
"""

from __future__ import annotations

from typing import Any, cast

from streams.store import keys
from streams.store.base import (
    Append,
    AppendResult,
    AppendRun,
    AppendStatus,
    Expect,
    LiveUpdate,
    Stored,
    Tampered,
    _run_bounds,
)
from streams.store.redis.common import RedisBase, expectation, fence


def _run_result(reply: Any) -> AppendResult:
    """``append_run.lua``'s answer: ``[status, head, writes, what]``."""
    status, head, writes, what = reply
    text = cast(AppendStatus, status.decode())
    return AppendResult(text, int(head), archived=text == "applied", writes=int(writes), what=what.decode())


class RedisWriter(RedisBase):
    """Appends, held events, records written outside an append, tamper alarms (:class:`Writer`)."""

    async def append(self, a: Append) -> AppendResult:
        names = self._keys(a.match)
        # an event archived as a conflict leaves the board as it was: its update carries none
        payload = LiveUpdate(a.match, a.seq, None if a.conflict else a.board).encode()
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
            fence(a.writes),
            a.chain,
            a.cause,
            *expectation(a.expect),
            a.checkpoint,
        ]
        await self._scripts()
        status, head, archived, writes, what = await self._ingest(keys=names, args=args)
        return AppendResult(
            status=cast(AppendStatus, status.decode()),
            head=int(head),
            archived=bool(archived),
            writes=int(writes),
            what=what.decode(),
        )

    async def append_run(self, a: AppendRun) -> AppendResult:
        names, args = self._run_call(a)
        await self._scripts()
        return _run_result(await self._append_run(keys=names, args=args))

    def _run_call(self, a: AppendRun) -> tuple[list[str], list[bytes | str | int]]:
        first, last = _run_bounds(a)
        names = self._keys(a.match)
        args: list[bytes | str | int] = [
            a.prev,
            first,
            ",".join([str(len(data)) for _, data in a.events]),
            b"".join([data for _, data in a.events]),
            a.board,
            a.record,
            LiveUpdate(a.match, last, a.board).encode(),
            self.channel(a.match),
            self.channel(None),
            fence(a.writes),
            a.chain,
            a.cause,
            "1" if a.allow_gap else "0",
            *expectation(a.expect),
            a.checkpoint,
        ]
        return names, args

    async def hold(self, match: str, seq: int, data: bytes) -> bool:
        return bool(await self._r.hsetnx(self.key(match, keys.PENDING), str(seq), data))

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
        args: list[bytes | str | int] = [
            record,
            fence(writes),
            cause,
            "1" if if_absent else "0",
            self.channel(match),
            self.channel(None),
            match,
            *expectation(expect),
            checkpoint,
        ]
        await self._scripts()
        written, _, what = await self._record(keys=self._keys(match), args=args)
        if int(written) < 0:
            raise Tampered(match, what.decode())
        return bool(written)

    async def drop_record(self, match: str, *, writes: int, expect: Expect, checkpoint: bytes = b"") -> bool:
        args: list[bytes | str | int] = [
            fence(writes),
            *expectation(expect),
            checkpoint,
            self.channel(match),
            self.channel(None),
            match,
        ]
        done, _, what = await self._drop(keys=self._keys(match), args=args)
        if int(done) < 0:
            raise Tampered(match, what.decode())
        return bool(done)

    async def alarm(self, match: str, detail: str) -> None:
        await self._r.hset(keys.alarms(self.prefix), match, detail)

    async def clear_alarm(self, match: str) -> str | None:
        async with self._r.pipeline(transaction=True) as pipe:
            pipe.hget(keys.alarms(self.prefix), match)
            pipe.hdel(keys.alarms(self.prefix), match)
            detail, _ = await pipe.execute()
        return None if detail is None else bytes(detail).decode()

    async def record_state(self, match: str) -> tuple[bytes | None, int]:
        # one transaction: the record and the count it was written at, never a newer count (a fenced write
        # from an older record) than the record read
        async with self._r.pipeline(transaction=True) as pipe:
            pipe.get(self.key(match, keys.RECORD))
            pipe.hget(self.key(match, keys.STATE), "writes")
            record, writes = await pipe.execute()
        return record, int(writes or 0)

    async def stored(self, match: str) -> Stored:
        async with self._r.pipeline(transaction=True) as pipe:
            pipe.get(self.key(match, keys.RECORD))
            pipe.hmget(self.key(match, keys.STATE), ["writes", "ck"])
            record, (writes, ck) = await pipe.execute()
        return Stored(record, int(writes or 0), ck)

    async def held(self, match: str) -> dict[int, bytes]:
        raw = await self._r.hgetall(self.key(match, keys.PENDING))
        return {int(k): v for k, v in sorted(raw.items(), key=lambda kv: int(kv[0]))}

    async def pending_matches(self) -> list[str]:
        found: set[str] = set()
        async for key in self._r.scan_iter(match=keys.match_scan(self.prefix, keys.PENDING), count=1000):
            # The pattern's "*" may span a "}": a key of some other kind that merely ends in "}:pending"
            # (written before names were encoded, or by hand) is not a match's, and is skipped.
            match = keys.parse_match_key(self.prefix, key.decode("utf-8", "replace"))
            if match is not None:
                found.add(match)
        return sorted(found)
