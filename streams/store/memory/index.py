"""The in-process backend's :class:`~streams.store.roles.LeagueIndex`: one entry per match, the findings
counts beside, pages ordered and cut as the Redis buckets' merge gives them."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from typing import Literal

from streams.store.base import (
    IndexChanged,
    IndexEntry,
    IndexPage,
    encode_cursor,
    page_request,
    same_entry,
)
from streams.store.memory.common import MemoryBase


class MemoryIndex(MemoryBase):
    """The league indexes (:class:`LeagueIndex`)."""

    async def index(
        self, entry: IndexEntry, *, last: IndexEntry | None = None, guess: bool = False, strict: bool = False
    ) -> bool:
        old = self._index.get(entry.match)
        if strict and guess and not same_entry(old, last):
            raise IndexChanged(entry.match, old)
        if old is not None and old.seq > entry.seq:
            return False
        before = dict(old.findings) if old else {}
        for code in set(before) | set(entry.findings):
            n = self._findings.get(code, 0) + entry.findings.get(code, 0) - before.get(code, 0)
            if n > 0:
                self._findings[code] = n
            else:
                self._findings.pop(code, None)
        self._index[entry.match] = replace(
            entry,
            league=entry.league or None,
            season=entry.season or None,
            players=tuple(entry.players),
            findings=dict(entry.findings),
            severities=dict(entry.severities),
        )
        return True

    async def unindex(self, match: str) -> bool:
        old = self._index.pop(match, None)
        if old is None:
            return False
        for code, count in old.findings.items():
            n = self._findings.get(code, 0) - count
            if n > 0:
                self._findings[code] = n
            else:
                self._findings.pop(code, None)
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
        names = await self.matches(league=league, season=season, status=status, player=player)
        if needle:
            names = [m for m in names if needle in self._index[m].search_text()]
        by, reverse = sort.lstrip("-"), sort.startswith("-")
        keyed = sorted(((self._index[m].rank if by == "findings" else 0, m) for m in names), reverse=reverse)
        if after is not None:
            keyed = [k for k in keyed if (k < after if reverse else k > after)]
        start = max(0, offset)
        rows = keyed[start : start + max(0, limit) + 1]
        more = len(rows) > max(0, limit)
        rows = rows[: max(0, limit)]
        following = encode_cursor(sort, *rows[-1]) if more and rows else None
        return IndexPage([self._index[m] for _, m in rows], len(names), next=following)

    async def index_names(
        self, kind: Literal["league", "season"], *, leagues: Iterable[str] | None = None
    ) -> list[str]:
        within = None if leagues is None else set(leagues)
        found = {getattr(e, kind) for e in self._index.values() if within is None or e.league in within}
        return sorted(n for n in found if n)

    async def findings_counts(self) -> dict[str, int]:
        return dict(sorted(self._findings.items()))
