"""``prizecheck serve [--host HOST] [--port PORT] [--insecure-no-auth]``: the HTTP service with the
embedded ingest core.

See :mod:`streams.http.serve`.
"""

from __future__ import annotations

import argparse
import logging

from replay.cli.common import at_least, language, tr

# The service (aiohttp, redis, cryptography) is imported when it is run, not to parse the options: ``serve
# --help`` paid 0.3 s for it. Without the service extra, running it is one line naming the extra
# (replay.cli.main, as an ImportError of a module not our own).


def configure(parser: argparse.ArgumentParser) -> None:
    """Add the ``serve`` options."""
    parser.add_argument("--host", help="address to listen on (default PRIZECHECK_HOST or 127.0.0.1)")
    parser.add_argument("--port", type=port, help="port (default PRIZECHECK_PORT or 8080; 0 = any free port)")
    parser.add_argument(
        "--insecure-no-auth",
        action="store_true",
        help="serve without authentication: anyone may write events and read hidden cards",
    )


def port(text: str) -> int:
    """An argparse type: a TCP port, 0 (any free one) to 65535."""
    value = at_least(0)(text)
    if value > 65535:
        raise argparse.ArgumentTypeError(tr("must be 0 to 65535, got {text}", text=text))
    return value


def run(args: argparse.Namespace) -> int:
    """Serve until interrupted. Exit status 0 on a clean stop, 2 on bad settings (InputError). Redis down
    is not fatal: the service logs one line per retry and ``/healthz`` says why (streams/http/health.py)."""
    import asyncio  # here, not at the top: asyncio is 10-40 ms of every start-up (issue 40 item 2)

    from replay.cli.services import check_redis_url
    from streams.http.serve import serve
    from streams.settings import Settings

    settings = Settings.from_env()
    check_redis_url(settings.redis_url)
    host = args.host or settings.host
    port = settings.port if args.port is None else args.port
    logging.basicConfig(
        level=logging.INFO, format="%(asctime)s %(name)s %(levelname)s %(message)s", force=True
    )
    asyncio.run(serve(settings, host, port, insecure_no_auth=args.insecure_no_auth, lang=language()))
    return 0
