"""The Redis backend's :class:`~streams.store.roles.LeagueIndex`, its writes and entries: one entry per
match in one of :data:`~streams.store.keys.INDEX_BUCKETS` buckets, each bucket its own hash tag, with its
membership sets, findings counts, ranks and search texts, moved together by ``index.lua`` and the unindex
step (docs/storage.md, "League indexes"). The page queries: :mod:`streams.store.redis.search`.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping

from streams.store import keys
from streams.store.base import IndexChanged, IndexEntry, _index_fields, about_json, is_match_id, with_about
from streams.store.redis.common import RedisBase

#: The fields of an index entry that index.lua and the unindex step compare with what the caller read.
_FIELDS = ("seq", "status", "league", "season", "players", "findings", "about")


class RedisIndex(RedisBase):
    """Index entries written, taken away and read (:class:`LeagueIndex`, but its queries)."""

    def shard(self, match: str) -> str:
        """``<prefix>:{idx:<b>.<salt>}``: the index bucket of ``match`` (:func:`index_bucket`), whose hash
        tag (:func:`bucket_tags`) every index key of the match's entry and memberships shares (one slot per
        bucket, docs/storage.md)."""
        return keys.shard(self.prefix, match)

    def _buckets(self) -> list[str]:
        return keys.buckets(self.prefix)

    def _memberships(self, bucket: str, status: str, league: str, season: str, players: str) -> list[str]:
        sets = [self._set(bucket, "status", status)]
        if league:
            sets.append(self._set(bucket, "league", league))
        if season:
            sets.append(self._set(bucket, "season", season))
        sets += [self._set(bucket, "player", p) for p in json.loads(players or "[]")]
        return sets

    def _entry_key(self, match: str) -> str:
        return keys.entry(self.prefix, match)

    @staticmethod
    def _set(bucket: str, kind: str, name: str) -> str:
        """The membership set of one status, league, season or player in one bucket: the name encoded
        (``key_part``), so that no name can reach another key."""
        return keys.member_set(bucket, kind, name)

    @staticmethod
    def _entry(match: str, raw: Mapping[bytes, bytes]) -> IndexEntry:
        entry = IndexEntry(
            match=match,
            seq=int(raw[b"seq"]),
            status=raw[b"status"].decode(),
            league=raw[b"league"].decode() or None,
            season=raw[b"season"].decode() or None,
            players=tuple(json.loads(raw[b"players"])),
            findings=dict(json.loads(raw[b"findings"]) or {}),
            severities=dict(json.loads(raw.get(b"severities") or b"{}") or {}),
        )
        about = raw.get(b"about")  # absent in an entry indexed before it existed
        return with_about(entry, json.loads(about)) if about else entry

    async def index_entry(self, match: str) -> IndexEntry | None:
        raw = await self._r.hgetall(self._entry_key(match))
        return self._entry(match, raw) if raw else None

    async def index_entries(self, matches: Iterable[str]) -> list[IndexEntry]:
        """Summaries of many matches in one round trip (skipping unknown ones, and names that are not
        match ids: nothing else has an entry)."""
        names = [m for m in matches if is_match_id(m)]
        if not names:
            return []
        async with self._r.pipeline(transaction=False) as pipe:
            for m in names:
                pipe.hgetall(self._entry_key(m))
            rows = await pipe.execute()
        return [self._entry(m, raw) for m, raw in zip(names, rows, strict=True) if raw]

    async def index(
        self, entry: IndexEntry, *, last: IndexEntry | None = None, guess: bool = False, strict: bool = False
    ) -> bool:
        entry_key = self._entry_key(entry.match)
        for attempt in range(20):
            # What is indexed now, so that every set the script touches is declared in KEYS: the
            # caller's guess first (the entry it wrote last: saves a round trip), else read. The script
            # checks it atomically and answers -1 when it was wrong.
            fields: list[str] | None
            if guess and attempt == 0:
                fields = None if last is None else _index_fields(last)
            else:
                old = await self._r.hmget(entry_key, *_FIELDS)
                fields = None if old[0] is None else [(v or b"").decode() for v in old]
            names, args = self.index_call(entry, fields)
            await self._scripts()
            done = int(await self._index(keys=names, args=args))
            if done >= 0:
                return done == 1
            if strict and guess:
                raise IndexChanged(entry.match, await self.index_entry(entry.match))
        raise RuntimeError(f"index entry of {entry.match} keeps changing under concurrent writers")

    def index_call(self, entry: IndexEntry, fields: list[str] | None) -> tuple[list[str], list[str | int]]:
        """The KEYS and ARGV of index.lua for ``entry`` over the stored entry's ``fields`` (as
        :data:`_FIELDS` reads them; None: nothing indexed). ``bench/search.py`` pipelines them."""
        bucket = self.shard(entry.match)
        players = json.dumps(list(entry.players))
        findings = json.dumps(dict(entry.findings)) if entry.findings else "{}"
        severities = json.dumps(dict(entry.severities)) if entry.severities else "{}"
        joins = self._memberships(bucket, entry.status, entry.league or "", entry.season or "", players)
        seen = ""
        leaves: list[str] = []
        if fields is not None:
            seen = "|".join(fields)
            leaves = self._memberships(bucket, *fields[1:5])
        names = [
            self._entry_key(entry.match),
            keys.in_bucket(bucket, keys.MATCHES),
            keys.in_bucket(bucket, keys.FINDINGS),
            keys.in_bucket(bucket, keys.NFINDINGS),
            keys.in_bucket(bucket, keys.TEXT),
            keys.in_bucket(bucket, keys.NAMES_LEAGUE),
            keys.in_bucket(bucket, keys.NAMES_SEASON),
            keys.in_bucket(bucket, keys.FORMAT),
            *leaves,
            *joins,
        ]
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
            severities,
            entry.rank,
            about_json(entry),
            entry.search_text(),
        ]
        return names, args

    async def unindex(self, match: str) -> bool:
        bucket = self.shard(match)
        entry_key = self._entry_key(match)
        for _ in range(20):
            old = await self._r.hmget(entry_key, *_FIELDS)
            if old[0] is None:
                return False
            fields = [(v or b"").decode() for v in old]
            names = [
                entry_key,
                keys.in_bucket(bucket, keys.MATCHES),
                keys.in_bucket(bucket, keys.FINDINGS),
                keys.in_bucket(bucket, keys.NFINDINGS),
                keys.in_bucket(bucket, keys.TEXT),
                *self._memberships(bucket, *fields[1:5]),
            ]
            done = int(await self._unindex(keys=names, args=[match, "|".join(fields)]))
            if done >= 0:
                return done == 1
        raise RuntimeError(f"index entry of {match} keeps changing under concurrent writers")
