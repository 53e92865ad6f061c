"""The service's Redis client packs commands with hiredis: the same bytes as redis-py, the same answers."""

from __future__ import annotations

import pytest
from redis.asyncio import Redis
from redis.asyncio.connection import Connection, UnixDomainSocketConnection
from redis.exceptions import DataError

from streams.settings import Settings
from streams.store.connection import connect, fast_packing

pytest.importorskip("hiredis")

COMMANDS: list[tuple[object, ...]] = [
    ("SET", "k", "v"),
    ("EVALSHA", "a" * 40, 2, "pc:{m1}:events", "pc:{m1}:seq", 0, 17, "12,80", b"\x81\xa1a\x01" * 40),
    ("SET", "k", b"\x00\xff binary \r\n", "EX", 5),
    ("CLIENT SETNAME", "worker-1"),  # redis-py splits a command name with a space
    ("SET", "k", 3.5),
    ("SET", "k", "é ünïcode"),
    ("SET", "k", bytearray(b"ba"), memoryview(b"mv")),
]


@pytest.mark.parametrize("args", COMMANDS, ids=lambda a: str(a[0]))
def test_the_same_bytes_as_redis_py(args: tuple[object, ...]) -> None:
    plain = Connection()
    fast = type("Fast", (fast_packing(Redis()).connection_pool.connection_class,), {})()
    assert b"".join(fast.pack_command(*args)) == b"".join(plain.pack_command(*args))


def test_every_connection_class_gets_it_once() -> None:
    unix = Redis(unix_socket_path="/tmp/none.sock")
    assert issubclass(unix.connection_pool.connection_class, UnixDomainSocketConnection)
    cls = fast_packing(fast_packing(unix)).connection_pool.connection_class
    assert issubclass(cls, UnixDomainSocketConnection)
    assert [c.__name__ for c in cls.__mro__].count("_HiredisPacking") == 1


def test_an_argument_redis_cannot_take_is_a_data_error() -> None:
    fast = fast_packing(Redis()).connection_pool.connection_class()
    with pytest.raises(DataError):
        fast.pack_command("SET", "k", {"a": 1})


@pytest.mark.redis
async def test_the_service_client_talks_to_a_real_server(redis_url: str) -> None:
    conn = await connect(Settings(redis_url=redis_url))
    try:
        assert "_HiredisPacking" in [c.__name__ for c in conn.client.connection_pool.connection_class.__mro__]
        key = "pctest-hiredis-packing"
        value = bytes(range(256)) * 4
        assert await conn.client.set(key, value, ex=30)
        assert await conn.client.get(key) == value
        async with conn.client.pipeline(transaction=False) as pipe:
            pipe.incrby(key + ":n", 2).incrby(key + ":n", 3).delete(key, key + ":n")
            assert await pipe.execute() == [2, 5, 2]
    finally:
        await conn.close()
