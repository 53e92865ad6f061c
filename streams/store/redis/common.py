"""What every part of the Redis backend shares: the client, the key prefix, the scripts and the key names
of a match (:mod:`streams.store.keys`). Key layout and the scripts' steps: docs/storage.md.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

from redis.asyncio import Redis
from redis.asyncio.cluster import RedisCluster

from streams.store import keys
from streams.store.base import Expect
from streams.store.redis import scripts


def fence(writes: int | None) -> str:
    """A write fence as the scripts take it ("": none)."""
    return "" if writes is None else str(writes)


def expectation(expect: Expect | None) -> tuple[str, bytes | str]:
    """What a writer expects, as the scripts take it (:meth:`Expect.args`; nothing compared when None)."""
    return ("", "-") if expect is None else expect.args()


class RedisBase:
    """The client and prefix every role of :class:`~streams.store.RedisStore` works on.

    ``client`` must be a ``redis.asyncio.Redis`` or ``RedisCluster`` returning bytes
    (``decode_responses=False``). ``prefix`` namespaces every key and channel (tests use a unique prefix
    per test).
    """

    def __init__(self, client: Redis | RedisCluster, *, prefix: str = "pc") -> None:
        self.client = client
        # redis-py's return types are unions over decode_responses; this client always returns bytes.
        self._r: Any = client
        self.prefix = prefix
        self._ingest = client.register_script(scripts.LUA_INGEST)
        self._index = client.register_script(scripts.LUA_INDEX)
        self._lease = client.register_script(scripts.LUA_LEASE)
        self._append_run = client.register_script(scripts.LUA_APPEND_RUN)
        self._page = client.register_script(scripts.LUA_PAGE)
        self._record = client.register_script(scripts.LUA_RECORD)
        self._archive = client.register_script(scripts.LUA_ARCHIVE)
        self._drop = client.register_script(scripts.LUA_DROP)
        self._extent = client.register_script(scripts.LUA_EXTENT)
        self._unindex = client.register_script(scripts.LUA_UNINDEX)
        self._swap_on_air = client.register_script(scripts.LUA_SWAP_ON_AIR)
        # On a cluster the scripts are loaded on every primary before the first one runs: redis-py's
        # fallback (EVALSHA, NOSCRIPT, SCRIPT LOAD, again) taken by many concurrent calls at once breaks
        # its cluster connections (seen with 32 matches written at once; tests/streams/test_cluster_spread.py)
        self._cluster = isinstance(client, RedisCluster)  # asked once: a protocol check costs on every read
        self._loaded = not self._cluster
        self._loading: asyncio.Lock | None = None
        self._upgraded = False  # every index bucket holds the match list's fields (_upgrade)
        self._upgrading: asyncio.Lock | None = None

    async def _scripts(self) -> None:
        """Load every script on every primary of a cluster, once (a single server loads on first use)."""
        if self._loaded:
            return
        if self._loading is None:
            self._loading = asyncio.Lock()
        async with self._loading:
            if not self._loaded:
                scripts = (
                    self._ingest,
                    self._index,
                    self._append_run,
                    self._page,
                    self._record,
                    self._archive,
                    self._extent,
                )
                for script in scripts:
                    await self._r.script_load(script.script)
                self._loaded = True

    def key(self, match: str, name: str) -> str:
        """``<prefix>:{<match>}:<name>``: every key of a match shares its hash tag (one cluster slot)."""
        return keys.match_key(self.prefix, match, name)

    def channel(self, match: str | None = None) -> str:
        """The live channel of one match, or the global one."""
        return keys.channel(self.prefix, match)

    def _keys(self, match: str) -> list[str]:
        return keys.match_keys(self.prefix, match)

    async def _each(self, matches: Sequence[str], name: str) -> list[bytes | None]:
        """The key ``name`` of each match: one MGET on one server (~5x faster than as many GETs in a
        pipeline, bench/report.py; an autopipelined client sends it in a round trip shared with the other
        requests' commands); on a cluster, where MGET across slots is refused, one GET per key in a
        pipeline, which the cluster client splits by node."""
        names = [self.key(m, name) for m in matches]
        if not names:
            return []
        if not self._cluster:
            rows: list[bytes | None] = await self._r.mget(names)
            return rows
        async with self._r.pipeline(transaction=False) as pipe:
            for key in names:
                pipe.get(key)
            rows = await pipe.execute()
        return rows

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
        async for key in self._r.scan_iter(match=keys.everything(self.prefix), count=500):
            n += await self._r.delete(key)
        return n
