"""The Redis backend's :class:`~streams.store.roles.LeagueIndex` queries: matches by filter, one page of the
match list merged from every bucket's ``page.lua`` (a search, an order, a cursor), the pick lists, the
findings counts; and the upgrade of entries indexed by an earlier version (docs/storage.md, "Upgrades").
"""

from __future__ import annotations

import asyncio
import heapq
import itertools
import json
import uuid
from collections import Counter
from collections.abc import Iterable
from typing import Literal

from streams.store import keys
from streams.store.base import (
    SEARCH_SCAN_MAX,
    IndexEntry,
    IndexPage,
    encode_cursor,
    page_request,
    with_about,
)
from streams.store.redis.index import RedisIndex

#: The index format a bucket's ``format`` key names once every entry in it has a search text and its
#: league and season in the pick lists (RedisStore._upgrade gives them to entries indexed before).
INDEX_FORMAT = b"2"
#: Entries read at a time by the upgrade of a bucket, and rows a page fetches at a time to skip an offset.
_CHUNK = 1000
_SKIP_CHUNK = 2000


class RedisSearch(RedisIndex):
    """The match list's queries over the index buckets (:class:`LeagueIndex`)."""

    async def matches(
        self,
        *,
        league: str | None = None,
        season: str | None = None,
        status: str | None = None,
        player: str | None = None,
    ) -> list[str]:
        filters = [
            (name, value)
            for name, value in (
                ("league", league),
                ("season", season),
                ("status", status),
                ("player", player),
            )
            if value is not None
        ]

        async def one(bucket: str) -> list[bytes]:
            if not filters:
                found: list[bytes] = await self._r.zrange(keys.in_bucket(bucket, keys.MATCHES), 0, -1)
                return found
            return list(await self._r.sinter([self._set(bucket, n, v) for n, v in filters]))

        shards = await asyncio.gather(*(one(b) for b in self._buckets()))
        return sorted(m.decode() for members in shards for m in members)

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
        after, needle = page_request(sort, cursor, search)
        if needle:
            await self._upgrade()
        filters = [
            (name, value)
            for name, value in (
                ("status", status),
                ("league", league),
                ("season", season),
                ("player", player),
            )
            if value is not None
        ]
        # A deep offset is skipped a chunk of rows at a time, from cursor to cursor: every bucket answers
        # at most offset + limit + 1 rows for the merge, so that is what Python holds at once.
        skip, limit = max(0, offset), max(0, limit)
        while skip > _SKIP_CHUNK:
            total, rows, too_broad = await self._rows(filters, needle, sort, after, _SKIP_CHUNK - 1, 1)
            if too_broad:
                return IndexPage([], 0, too_broad=True)
            if not rows:
                return IndexPage([], total)
            after, skip = (int(rows[-1][0]), rows[-1][1].decode()), skip - _SKIP_CHUNK
        total, rows, too_broad = await self._rows(filters, needle, sort, after, skip, limit + 1)
        if too_broad:
            return IndexPage([], 0, too_broad=True)
        page = rows[:limit]
        following = (
            encode_cursor(sort, page[-1][0], page[-1][1].decode()) if len(rows) > limit and page else None
        )
        return IndexPage(await self.index_entries([m.decode() for _, m in page]), total, next=following)

    async def _rows(
        self,
        filters: list[tuple[str, str]],
        needle: str,
        sort: str,
        after: tuple[int, str] | None,
        offset: int,
        count: int,
    ) -> tuple[int, list[tuple[float, bytes]], bool]:
        """Rows ``[offset, offset + count)`` after the cursor ``after`` in ``sort`` order, merged from every
        bucket's page.lua (each gives its first ``offset + count`` rows with their scores; merged by
        (score, member bytes), the sorted sets' own order), and how many qualify in all; the last is
        True when a bucket found the search too broad."""
        by, reverse = sort.lstrip("-"), sort[0] == "-"
        want = offset + count
        args: list[str | int] = [
            len(filters),
            needle,
            by,
            "1" if reverse else "0",
            0,
            want,
            "" if after is None else after[0],
            "" if after is None else after[1],
            SEARCH_SCAN_MAX,
        ]

        async def one(bucket: str) -> tuple[int, list[tuple[float, bytes]]]:
            names = [
                keys.in_bucket(bucket, keys.MATCHES),
                keys.in_bucket(bucket, keys.NFINDINGS),
                *keys.scratch(bucket, uuid.uuid4().hex),
                keys.in_bucket(bucket, keys.TEXT),
                *(self._set(bucket, n, v) for n, v in filters),
            ]
            await self._scripts()
            total, flat = await self._page(keys=names, args=args)
            return int(total), [(float(flat[i + 1]), flat[i]) for i in range(0, len(flat), 2)]

        shards = await asyncio.gather(*(one(b) for b in self._buckets()))
        if any(total < 0 for total, _ in shards):
            return 0, [], True
        merged = heapq.merge(*(rows for _, rows in shards), reverse=reverse)
        return sum(total for total, _ in shards), list(itertools.islice(merged, offset, want)), False

    async def index_names(
        self, kind: Literal["league", "season"], *, leagues: Iterable[str] | None = None
    ) -> list[str]:
        await self._upgrade()
        buckets = self._buckets()
        within = None if leagues is None else sorted(set(leagues))
        async with self._r.pipeline(transaction=False) as pipe:
            for b in buckets:
                pipe.smembers(keys.pick_list(b, kind))
            known = [sorted(n.decode() for n in names) for names in await pipe.execute()]
        # a name is offered while some match of the bucket has it (the names sets only grow)
        async with self._r.pipeline(transaction=False) as pipe:
            asked: list[str] = []
            for b, names in zip(buckets, known, strict=True):
                for name in names:
                    sets = [self._set(b, kind, name)]
                    if within is None:
                        pipe.scard(sets[0])
                        asked.append(name)
                        continue
                    for league in within:
                        pipe.sintercard(2, [sets[0], self._set(b, "league", league)], limit=1)
                        asked.append(name)
            counts = await pipe.execute() if asked else []
        return sorted({name for name, n in zip(asked, counts, strict=True) if int(n) > 0})

    async def _upgrade(self) -> None:
        """Give every entry indexed by an earlier version (no search text, not in the pick lists) what
        the match list needs, once per store and process: a bucket whose ``format`` key says
        :data:`INDEX_FORMAT` is done. Safe beside writers: a search text is only set where there is none
        (index.lua always sets one), the names sets only grow and are read with their membership sets.
        Entries are read :data:`_CHUNK` at a time (four fields each). No operator step (docs/storage.md,
        "Upgrades")."""
        if self._upgraded:
            return
        if self._upgrading is None:
            self._upgrading = asyncio.Lock()
        async with self._upgrading:  # one upgrade at a time in a process (concurrent ones are harmless)
            if self._upgraded:
                return
            for b in self._buckets():
                if await self._r.get(keys.in_bucket(b, keys.FORMAT)) != INDEX_FORMAT:
                    await self._upgrade_bucket(b)
            self._upgraded = True

    async def _upgrade_bucket(self, bucket: str) -> None:
        start = 0
        while names := await self._r.zrange(keys.in_bucket(bucket, keys.MATCHES), start, start + _CHUNK - 1):
            matches = [n.decode() for n in names]
            async with self._r.pipeline(transaction=False) as pipe:
                for m in matches:
                    pipe.hmget(self._entry_key(m), "players", "league", "season", "about")
                rows = await pipe.execute()
            async with self._r.pipeline(transaction=False) as pipe:
                for m, (players, league, season, about) in zip(matches, rows, strict=True):
                    if players is None:  # taken out since
                        continue
                    entry = IndexEntry(m, 0, "", players=tuple(json.loads(players)))
                    if about:
                        entry = with_about(entry, json.loads(about))
                    pipe.hsetnx(keys.in_bucket(bucket, keys.TEXT), m, entry.search_text())
                    if league:
                        pipe.sadd(keys.in_bucket(bucket, keys.NAMES_LEAGUE), league)
                    if season:
                        pipe.sadd(keys.in_bucket(bucket, keys.NAMES_SEASON), season)
                await pipe.execute()
            start += _CHUNK
        await self._r.set(keys.in_bucket(bucket, keys.FORMAT), INDEX_FORMAT)

    async def findings_counts(self) -> dict[str, int]:
        counts: Counter[str] = Counter()
        for raw in await asyncio.gather(
            *(self._r.hgetall(keys.in_bucket(b, keys.FINDINGS)) for b in self._buckets())
        ):
            counts.update({k.decode(): int(v) for k, v in raw.items()})
        return {k: v for k, v in sorted(counts.items()) if v > 0}
