"""The Redis backend's :class:`~streams.store.roles.Archive`: what ``prizecheck check`` and ``prizecheck
archive`` need beside the reads (every match the server holds, the cold archive's marker and swap, the
server's memory). Key layout: docs/storage.md.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from redis.asyncio.cluster import RedisCluster

from streams.store import keys
from streams.store.redis.writer import RedisWriter


class RedisArchive(RedisWriter):
    """Every match held, the cold archive's swap, the server's memory (:class:`Archive`)."""

    async def match_names(self) -> list[str]:
        found: set[str] = set()
        async for raw in self._r.scan_iter(match=keys.match_scan(self.prefix), count=1000):
            match = keys.parse_match_key(self.prefix, raw.decode() if isinstance(raw, bytes) else str(raw))
            if match is not None:
                found.add(match)
        found.update(await self.pending_matches())
        return sorted(found)

    async def archive_marker(self, match: str) -> bytes | None:
        """The marker of an archived match (streams/store/parquet.py), None when its events are in Redis."""
        raw: bytes | None = await self._r.get(self.key(match, keys.ARCHIVED))
        return raw

    async def archive_swap(self, match: str, marker: bytes, entries: int, last: tuple[int, int]) -> bool:
        """Replace the match's event stream by ``marker``, atomically, if the stream still holds
        ``entries`` entries ending at ``last`` (the ones verified in the copy); False (nothing changed) when
        it moved meanwhile or is archived already."""
        await self._scripts()
        names = [self.key(match, keys.EVENTS), self.key(match, keys.ARCHIVED)]
        done = await self._archive(keys=names, args=[entries, f"{last[0]}-{last[1]}", marker])
        return bool(int(done))

    async def used_memory(self) -> int:
        client: Any = self.client
        if isinstance(client, RedisCluster):
            info = await client.info("memory", target_nodes=RedisCluster.PRIMARIES)
            values: Iterable[Any] = (
                info.values() if all(isinstance(v, dict) for v in info.values()) else [info]
            )
            return sum(int(v["used_memory"]) for v in values)
        return int((await client.info("memory"))["used_memory"])
