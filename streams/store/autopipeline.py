"""Automatic pipelining for ``redis.asyncio``: commands issued concurrently share one round trip.

The worker hands the ingest core events of many matches at once (one asyncio task per match in a batch).
Each task still awaits its own commands one by one, in order, but the commands the tasks issue while
one pipeline is on the wire are queued and sent together as the next pipeline (non-transactional, like
ioredis' ``enableAutoPipelining``). Each command keeps its own semantics and atomicity (one Lua script
per event stays one script); only the socket writes and reads are shared. On a busy 2-core machine the
per-command cost is dominated by the syscalls and the event-loop turns of a round trip, so this is where
most of the pipeline's time went (docs/performance.md, "Pipeline").

Not for pub/sub or blocking commands: pub/sub uses its own connection (``client.pubsub()``), and the
store issues no blocking commands.
"""

from __future__ import annotations

import asyncio
from typing import Any

from redis.asyncio import Redis
from redis.exceptions import ResponseError


class AutoPipelineRedis(Redis):
    """A ``redis.asyncio.Redis`` whose commands are batched into pipelines while one is in flight.

    Build it over an existing pool: ``AutoPipelineRedis(connection_pool=client.connection_pool)``.
    ``max_batch`` bounds the commands per pipeline.
    """

    def __init__(self, *args: Any, max_batch: int = 1000, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._queue: list[tuple[tuple[Any, ...], dict[str, Any], asyncio.Future[Any]]] = []
        self._flusher: asyncio.Task[None] | None = None
        self.max_batch = max_batch
        self.pipelines = 0
        self.commands = 0

    async def execute_command(self, *args: Any, **options: Any) -> Any:
        """Queue the command for the next pipeline and wait for its own reply (or error)."""
        loop = asyncio.get_running_loop()
        fut: asyncio.Future[Any] = loop.create_future()
        self._queue.append((args, options, fut))
        if self._flusher is None or self._flusher.done():
            self._flusher = loop.create_task(self._flush())
        return await fut

    async def _flush(self) -> None:
        await asyncio.sleep(0)  # let the other ready tasks queue their commands first
        while self._queue:
            batch, self._queue = self._queue[: self.max_batch], self._queue[self.max_batch :]
            live = [item for item in batch if not item[2].done()]  # cancelled callers
            if not live:
                continue
            try:
                async with self.pipeline(transaction=False) as pipe:
                    for args, options, _ in live:
                        pipe.execute_command(*args, **options)
                    results = await pipe.execute(raise_on_error=False)
            except asyncio.CancelledError:
                for _, _, fut in live:
                    if not fut.done():
                        fut.cancel()
                raise
            except Exception as exc:  # the connection failed: every command of the batch failed
                for _, _, fut in live:
                    if not fut.done():
                        fut.set_exception(exc)
                continue
            self.pipelines += 1
            self.commands += len(live)
            for (_, _, fut), result in zip(live, results, strict=True):
                if fut.done():
                    continue
                if isinstance(result, ResponseError):
                    fut.set_exception(result)
                else:
                    fut.set_result(result)
