"""Live boards for any number of viewers: one Redis subscription per process, fanned out.

:class:`LiveHub` subscribes once (the store's global live channel) when the app starts. An update of a
match with viewers carries the public board the write stored (``LiveUpdate.board``): the hub renders the
SSE frame once and every viewer of the match gets the same bytes. An update without a board (a record
written alone), and the first board of a match, make the hub read that board from the store once. A
viewer holds only the newest frame (a slow viewer skips boards, never queues them: back-pressure without
memory), and a viewer whose socket does not take a frame within ``write_timeout`` is disconnected. A new
viewer of a watched match gets the hub's newest frame; the first viewer of a match makes the hub read it
once. Viewers never touch Redis themselves, so the pool of connections is left to the writers: readers
being many cannot make a write fail.

Bounds: ``max_streams`` open streams per process and ``max_client_streams`` per client address; beyond
them a new stream is answered 503 / 429 with ``Retry-After``. A viewer that hangs up gives its slot back
within ``sweep`` seconds (the hub looks at every viewer's connection that often: aiohttp does not tell a
handler that its client left, and a stream would otherwise notice only at its next write, the heartbeat).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import Counter
from dataclasses import dataclass, field

import msgpack
from aiohttp import web

from replay.engine import dumps
from streams.http.delay import Delay
from streams.reasons import describe
from streams.store import LiveUpdate, Store, Subscription

log = logging.getLogger("prizecheck.live")

#: Bytes a viewer's socket may hold unsent before a write is timed (asyncio's default high-water mark).
_HIGH_WATER = 64 * 1024


def frame(board: bytes) -> bytes:
    """A stored public board (msgpack) as one SSE ``board`` event."""
    view = msgpack.unpackb(board, raw=False)
    seq = int(view.get("seq") or 0) if isinstance(view, dict) else 0
    return b"event: board\nid: %d\ndata: %s\n\n" % (seq, dumps(view))


@dataclass(eq=False)
class Viewer:
    """One open stream: the newest frame not yet written, and a wake-up."""

    match: str
    client: str
    latest: bytes | None = None
    last: bytes | None = None  # the newest frame written
    wake: asyncio.Event = field(default_factory=asyncio.Event)
    closed: bool = False
    # Set once the stream's headers and a first chunk are out: frames may then go straight to the socket.
    transport: asyncio.WriteTransport | None = None
    # The connection, from the start: the hub's sweep ends the stream as soon as the viewer hangs up.
    conn: asyncio.BaseTransport | None = None

    def gone(self) -> bool:
        """Whether the viewer hung up (its connection is closed or closing)."""
        return self.conn is not None and self.conn.is_closing()

    def offer(self, data: bytes | None) -> None:
        """Keep ``data`` as the next frame (an older one not yet written is dropped); None: end."""
        if data is None:
            self.closed = True
        else:
            self.latest = data
        self.wake.set()

    def deliver(self, data: bytes, chunk: bytes) -> None:
        """Write ``data`` (already framed as an HTTP chunk: ``chunk``) at once when the socket keeps up;
        otherwise hand it to the viewer's own task, which waits for the socket, and times it out."""
        t = self.transport
        if (
            t is not None
            and not self.closed
            and not t.is_closing()
            and t.get_write_buffer_size() < _HIGH_WATER
        ):
            t.write(chunk)  # one whole chunk per call: it never interleaves with the task's writes
            self.latest = self.last = data
        else:
            self.offer(data)


class StreamsFull(Exception):
    """No room for another stream (``per_client``: this address has too many open)."""

    def __init__(self, per_client: bool) -> None:
        super().__init__("per client" if per_client else "total")
        self.per_client = per_client


_LIVE = "\x00live"  # never in a match id (streams.store.base.is_match_id: A-Z a-z 0-9 . _ : / -)


def live_key(match: str) -> str:
    """The viewers' key of ``match``'s live stream while it is held back for the public: judges,
    recorders and producers who see it as it is (streams/http/delay.py)."""
    return match + _LIVE


class LiveHub:
    """The process's one live subscription and its viewers (see the module docstring)."""

    def __init__(
        self,
        store: Store,
        *,
        max_streams: int = 5000,
        max_client_streams: int = 100,
        write_timeout: float = 10.0,
        sweep: float = 0.5,
        delay: Delay | None = None,
    ) -> None:
        self.store = store
        #: the broadcast delays (streams/http/delay.py): a held match's stream shows the public's view
        self.delay = delay if delay is not None else Delay(store)
        self.sweep = sweep
        self.max_streams = max_streams
        self.max_client_streams = max_client_streams
        self.write_timeout = write_timeout
        self.viewers: dict[str, set[Viewer]] = {}
        self.latest: dict[str, bytes] = {}  # the newest frame of each match with viewers
        self.per_client: Counter[str] = Counter()
        self.count = 0
        self.dropped_slow = 0
        self.fetches = 0
        self._dirty: set[str] = set()
        self._fetching: set[str] = set()
        self._task: asyncio.Task[None] | None = None
        self._sub: Subscription | None = None
        self._stopping = False
        self._reads: set[asyncio.Task[None]] = set()
        self._ready = asyncio.Event()
        self._sweeper: asyncio.Task[None] | None = None
        #: Seconds each match's boards are held back (the console's broadcast delay, docs/console.md),
        #: read once per match from its match_started (``console.delay``); 0: none.
        self.delays: dict[str, float] = self.delay.known

    # ---------------------------------------------------------------------------------- lifecycle
    async def start(self) -> None:
        """Subscribe (in the background, retrying while the store is down)."""
        if self._task is None:
            self._task = asyncio.create_task(self._listen())
        if self._sweeper is None:
            self._sweeper = asyncio.create_task(self._sweep())

    async def stop(self) -> None:
        """End every stream and the subscription.

        The subscription's connection is closed from here first: a read blocked on it then fails and the
        listener ends by itself (cancelling a blocked pub/sub read is not reliable in redis-py).
        """
        self._stopping = True
        sweeper, self._sweeper = self._sweeper, None
        if sweeper is not None:
            sweeper.cancel()
            with contextlib.suppress(BaseException):
                await sweeper
        for viewers in list(self.viewers.values()):
            for v in list(viewers):
                v.offer(None)
        task, self._task = self._task, None
        deadline = asyncio.get_running_loop().time() + 5.0
        while task is not None and not task.done() and asyncio.get_running_loop().time() < deadline:
            # redis-py may swallow a cancellation while it subscribes: close and cancel until it ends
            sub, self._sub = self._sub, None
            if sub is not None:
                with contextlib.suppress(Exception):
                    await asyncio.wait_for(sub.aclose(), 1.0)
            task.cancel()
            await asyncio.wait({task}, timeout=0.05)

    async def ready(self, timeout: float = 10.0) -> None:
        """Wait until the subscription is in place (tests, and the first viewer of a fresh process)."""
        await asyncio.wait_for(self._ready.wait(), timeout)

    async def _listen(self) -> None:
        backoff = 0.1
        while not self._stopping:
            try:
                sub = self._sub = await self.store.subscribe(None)
            except Exception as exc:
                # the first failure of a streak; the retries are serve's store watcher's to report
                (log.warning if backoff == 0.1 else log.debug)(
                    "live: cannot subscribe (%s); retrying in %.1f s", describe(exc), backoff
                )
                await asyncio.sleep(backoff)
                backoff = min(backoff * 2, 5.0)
                continue
            backoff = 0.1
            self._ready.set()
            for key in list(self.viewers):  # (re)subscribed: boards may have changed meanwhile
                self._changed(key.removesuffix(_LIVE))
            try:
                async for update in sub:
                    self.delay.changed(update.match)
                    if update.match in self.viewers or live_key(update.match) in self.viewers:
                        self._update(update)
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                if self._stopping:
                    return
                log.warning("live: subscription lost (%s); subscribing again", exc)
            finally:
                self._ready.clear()
            self._sub = None
            with contextlib.suppress(Exception):
                await sub.aclose()

    async def _sweep(self) -> None:
        """End the streams of viewers who hung up (every ``sweep`` seconds): their slots are free again."""
        while not self._stopping:
            await asyncio.sleep(self.sweep)
            for viewers in list(self.viewers.values()):
                for viewer in list(viewers):
                    if not viewer.closed and viewer.gone():
                        viewer.offer(None)

    # ---------------------------------------------------------------------------------- fan-out
    def _update(self, update: LiveUpdate) -> None:
        """A watched match changed. The board its update carries is shown as it comes, in the
        subscription's order (the writes' order); an update without one, or a match whose delay is not
        known yet or whose board is being read, is read from the store (after the read under way, if any:
        a carried board never overtakes a read, and a read started after an update sees that update)."""
        match = update.match
        delay = self.delays.get(match)
        if update.board is None or delay is None or match in self._fetching:
            self._changed(match)
        else:
            self._show(match, frame(update.board), delay)

    def _show(self, match: str, data: bytes, delay: float) -> None:
        if delay > 0:  # the broadcast delay: the public gets this board that much later, judges now
            asyncio.get_running_loop().call_later(delay, self._deliver, match, data)
            self._deliver(live_key(match), data)
        else:
            self._deliver(match, data)

    def _changed(self, match: str) -> None:
        """A match changed: read its board once, unless a read is under way (then once more after)."""
        if match in self._fetching:
            self._dirty.add(match)
            return
        self._fetching.add(match)
        task = asyncio.create_task(self._fetch(match))
        self._reads.add(task)
        task.add_done_callback(self._reads.discard)

    async def _fetch(self, match: str) -> None:
        try:
            while True:
                self._dirty.discard(match)
                try:
                    delay = await self.delay.of(match)
                    # a held match: the board the public sees now, at once (boards announced since are
                    # on their way, each that many seconds after it was stored)
                    board = (
                        (await self.delay.seen(match)).board if delay > 0 else await self.store.board(match)
                    )
                    # the judges' live stream of a held match (streams/http/delay.py, sees_live)
                    judged = delay > 0 and live_key(match) in self.viewers
                    now = await self.store.board(match) if judged else None
                except Exception as exc:  # store down: the viewers keep their last board
                    log.warning("live: cannot read the board of %s (%s)", match, exc)
                    return
                self.fetches += 1
                if board is not None and match in self.viewers:
                    self._deliver(match, frame(board))
                if now is not None:
                    self._deliver(live_key(match), frame(now))
                if match not in self._dirty:
                    return
        finally:
            self._fetching.discard(match)

    def _deliver(self, key: str, data: bytes) -> None:
        if key not in self.viewers:
            return
        self.latest[key] = data
        chunk = b"%x\r\n%s\r\n" % (len(data), data)  # the stream is chunked (HTTP/1.1)
        for viewer in list(self.viewers[key]):
            viewer.deliver(data, chunk)

    # ---------------------------------------------------------------------------------- viewers
    def join(self, match: str, client: str) -> Viewer:
        """A new viewer of ``match`` (raises :class:`StreamsFull`)."""
        if self.count >= self.max_streams:
            raise StreamsFull(per_client=False)
        if self.per_client[client] >= self.max_client_streams:
            raise StreamsFull(per_client=True)
        viewer = Viewer(match, client)
        self.viewers.setdefault(match, set()).add(viewer)
        self.per_client[client] += 1
        self.count += 1
        return viewer

    def leave(self, viewer: Viewer) -> None:
        viewers = self.viewers.get(viewer.match)
        if viewers is None or viewer not in viewers:
            return
        viewers.discard(viewer)
        if not viewers:
            del self.viewers[viewer.match]
            self.latest.pop(viewer.match, None)
        self.per_client[viewer.client] -= 1
        if self.per_client[viewer.client] <= 0:
            del self.per_client[viewer.client]
        self.count -= 1

    async def stream(
        self, request: web.Request, match: str, heartbeat: float, *, live: bool = False
    ) -> web.StreamResponse:
        """Serve one SSE stream: the board now, then each newer board (coalesced), keep-alives.
        ``live``: the caller sees a match under a broadcast delay as it is (a judge's, recorder's or
        producer's token that covers it: :func:`streams.http.delay.sees_live`), else as the public does.

        Everything that can fail with an HTTP answer (no room, no subscription, the store down) fails
        before the stream's headers are sent; once they are, a failure only ends the stream (an error
        written then would be a second HTTP response inside the first).
        """
        await self.ready()  # subscribed before the first board is read: no update falls in between
        viewer = self.join(live_key(match) if live else match, request.remote or "")
        viewer.conn = request.transport
        try:
            cached = self.latest.get(viewer.match)
            if cached is not None:
                viewer.offer(cached)
            else:  # the first viewer of this match: one read, shared with whoever joins meanwhile
                self._changed(match)
            response = web.StreamResponse(
                headers={
                    "Content-Type": "text/event-stream",
                    "Cache-Control": "no-cache",
                    "X-Accel-Buffering": "no",
                }
            )
            await response.prepare(request)
            try:
                await self._serve(request, response, viewer, heartbeat)
            except (ConnectionResetError, TimeoutError):
                pass  # the client went away, or stopped reading
            except Exception as exc:
                log.warning("live stream of %s ended: %s", match, exc)
        finally:
            self.leave(viewer)
        return response

    async def _serve(
        self, request: web.Request, response: web.StreamResponse, viewer: Viewer, heartbeat: float
    ) -> None:
        chunked = request.version >= (1, 1)
        while not viewer.closed:
            if viewer.latest is not None and viewer.latest != viewer.last:
                data = viewer.last = viewer.latest
                viewer.wake.clear()
                await self._write(response, data, request.transport)
                if (
                    chunked
                    and viewer.transport is None
                    and isinstance(request.transport, asyncio.WriteTransport)
                ):
                    viewer.transport = request.transport  # headers and a first chunk are out
                continue
            viewer.wake.clear()
            try:
                async with asyncio.timeout(heartbeat):  # a timer, not a task per wait (wait_for's cost)
                    await viewer.wake.wait()
            except TimeoutError:
                await self._write(response, b": keep-alive\n\n", request.transport)

    async def _write(
        self, response: web.StreamResponse, data: bytes, transport: asyncio.BaseTransport | None
    ) -> None:
        """Write a frame; a client whose socket has not taken what it was sent within ``write_timeout``
        is dropped (TimeoutError). A write to a client that keeps up never waits (no timer needed)."""
        backlog = transport.get_write_buffer_size() if isinstance(transport, asyncio.WriteTransport) else 0
        if backlog < _HIGH_WATER:
            await response.write(data)
            return
        try:
            await asyncio.wait_for(response.write(data), self.write_timeout)
        except TimeoutError:
            self.dropped_slow += 1
            raise

    def stats(self) -> dict[str, int]:
        return {
            "streams": self.count,
            "matches": len(self.viewers),
            "board_reads": self.fetches,
            "dropped_slow": self.dropped_slow,
        }


HUB: web.AppKey[LiveHub] = web.AppKey("live_hub", LiveHub)
