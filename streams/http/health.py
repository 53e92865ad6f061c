"""Whether the service's store answers, and why not: for ``GET /healthz`` and the service's log.

``prizecheck serve`` keeps listening while Redis is down (a compose file starts them together; Redis may
restart under it). :meth:`StoreHealth.watch` then logs one line per attempt, waiting twice as long
after each failure (0.5 s, 1 s, 2 s ... up to 30 s) and one line when Redis answers again::

    prizecheck serve: cannot reach Redis at redis://redis:6379/0: connection refused; retrying in 2 s
    prizecheck serve: Redis at redis://redis:6379/0 answers again

and ``GET /healthz`` answers 503 with the same reason (``"problem"``) until then.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import Any

from aiohttp import web

from streams.reasons import describe, redact

log = logging.getLogger("prizecheck.serve")

#: Seconds between checks while the store answers, and the first and longest wait while it does not.
EVERY = 5.0
FIRST_RETRY = 0.5
LONGEST_RETRY = 30.0
PING_TIMEOUT = 2.0


class StoreHealth:
    """The store's state as last seen: ``problem`` None while it answers, else why not."""

    def __init__(self, ping: Callable[[], Awaitable[Any]], where: str) -> None:
        self._ping = ping
        self.where = redact(where)
        self.problem: str | None = None

    async def probe(self) -> str | None:
        """PING the store now; the problem (``cannot reach Redis at WHERE: WHY``), or None."""
        try:
            await asyncio.wait_for(self._ping(), PING_TIMEOUT)
        except Exception as exc:
            self.problem = f"cannot reach Redis at {self.where}: {describe(exc)}"
        else:
            self.problem = None
        return self.problem

    async def watch(self, sleep: Callable[[float], Awaitable[Any]] = asyncio.sleep) -> None:
        """Probe forever: one log line per failed attempt, with the wait before the next doubling."""
        wait = FIRST_RETRY
        down = False  # as this watcher last saw it (a /healthz probe in between changes nothing here)
        while True:
            problem = await self.probe()
            if problem is None:
                if down:
                    log.warning("prizecheck serve: Redis at %s answers again", self.where)
                down, wait = False, FIRST_RETRY
                await sleep(EVERY)
                continue
            down = True
            log.warning("prizecheck serve: %s; retrying in %g s", problem, wait)
            await sleep(wait)
            wait = min(wait * 2, LONGEST_RETRY)


#: The store's health on the application (set by ``prizecheck serve``; absent in tests of the API alone).
HEALTH = web.AppKey("store_health", StoreHealth)
