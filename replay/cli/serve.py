"""``prizecheck serve [--host HOST] [--port PORT] [--insecure-no-auth]``: the HTTP service with the
embedded ingest core.

See :mod:`streams.http.serve`.
"""

from __future__ import annotations

import argparse
import asyncio
import logging

from streams.http.serve import serve
from streams.settings import Settings


def configure(parser: argparse.ArgumentParser) -> None:
    """Add the ``serve`` options."""
    parser.add_argument("--host", help="address to listen on (default PRIZECHECK_HOST or 127.0.0.1)")
    parser.add_argument("--port", type=int, help="port (default PRIZECHECK_PORT or 8080; 0 = any free port)")
    parser.add_argument(
        "--insecure-no-auth",
        action="store_true",
        help="serve without authentication: anyone may write events and read hidden cards",
    )


def run(args: argparse.Namespace) -> int:
    """Serve until interrupted. Exit status 0 on a clean stop, 2 on bad settings (InputError)."""
    settings = Settings.from_env()
    host = args.host or settings.host
    port = settings.port if args.port is None else args.port
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(levelname)s %(message)s")
    asyncio.run(serve(settings, host, port, insecure_no_auth=args.insecure_no_auth))
    return 0
