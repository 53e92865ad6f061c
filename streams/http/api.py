"""The HTTP API (docs/http-api.md): ingest, records, boards, the archive, live boards over SSE.

:func:`make_app` builds the aiohttp application around an :class:`~streams.ingest.IngestCore` and its
store; ``prizecheck serve`` (:mod:`streams.http.serve`) runs it. Match ids contain ``/`` (playoff games are
``m1/tb1``), so every per-match route is one tail route, ``/matches/<match>/<view>``, split on the last
``/``.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import re
from collections.abc import AsyncIterator, Callable
from typing import Any

import msgpack
from aiohttp import web

from replay.engine.record import dumps
from streams.ingest import IngestCore, Outcome, unpack_record
from streams.store import LiveUpdate, Store

log = logging.getLogger("prizecheck.web")

MSGPACK_TYPES = frozenset({"application/msgpack", "application/x-msgpack", "application/vnd.msgpack"})
MATCH_ID = re.compile(r"^[A-Za-z0-9._:/-]{1,128}$")
VIEWS = ("record", "board", "events", "live")

CORE: web.AppKey[IngestCore] = web.AppKey("core", IngestCore)
STORE: web.AppKey[Store] = web.AppKey("store", Store)
OPTIONS: web.AppKey[dict[str, Any]] = web.AppKey("options", dict)


class _LiveStreams:
    """The queues of the open SSE streams, so shutdown can end them."""

    def __init__(self) -> None:
        self.queues: set[asyncio.Queue[LiveUpdate | None]] = set()


LIVE: web.AppKey[_LiveStreams] = web.AppKey("live", _LiveStreams)


def _json(obj: Any, status: int = 200) -> web.Response:
    return web.Response(body=dumps(obj), status=status, content_type="application/json")


def _json_default(obj: object) -> Any:
    if isinstance(obj, bytes | bytearray):
        return obj.hex()  # a binary extra field kept from a msgpack event
    raise TypeError(f"not JSON serialisable: {type(obj).__name__}")


def parse_events(body: bytes, content_type: str) -> list[tuple[dict[str, Any], Any]]:
    """Split a POST body into (where, item) pairs; an item that could not even be parsed is an Exception.

    ``where`` locates the item for the answer: ``{"index": i}`` plus ``{"line": n}`` for JSON Lines.
    """
    items: list[tuple[dict[str, Any], Any]] = []
    if content_type in MSGPACK_TYPES:
        unpacker = msgpack.Unpacker(raw=False, strict_map_key=False)
        unpacker.feed(body)
        try:
            for obj in unpacker:
                items.append(({"index": len(items)}, obj))
        except Exception as exc:
            items.append(({"index": len(items)}, ValueError(f"not msgpack from here on ({exc})")))
        return items
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError as exc:
        return [({"index": 0}, ValueError(f"body is not UTF-8 ({exc.reason} at byte {exc.start})"))]
    stripped = text.strip()
    if not stripped:
        return []
    if stripped.startswith("["):
        try:
            array = json.loads(stripped)
        except json.JSONDecodeError as exc:
            return [({"index": 0}, ValueError(f"not a JSON array: {exc}"))]
        return [({"index": i}, obj) for i, obj in enumerate(array)]
    try:
        return [({"index": 0}, json.loads(stripped))]
    except json.JSONDecodeError:
        pass  # JSON Lines
    for n, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        where = {"index": len(items), "line": n}
        try:
            items.append((where, json.loads(line)))
        except json.JSONDecodeError as exc:
            items.append((where, ValueError(f"line {n}: not JSON ({exc.msg} at column {exc.colno})")))
    return items


async def post_events(request: web.Request) -> web.Response:
    """POST /events: JSON object, JSON array, JSON Lines or msgpack (a map or a stream of maps)."""
    core = request.app[CORE]
    body = await request.read()
    items = parse_events(body, request.content_type)
    if not items:
        return _json({"error": "no events in the request body"}, 400)
    answers: list[dict[str, Any]] = []
    for where, item in items:
        if isinstance(item, Exception):
            outcome = Outcome("rejected", None, None, str(item))
            core.counts["rejected"] += 1
        else:
            outcome = await core.ingest(item)
        line = where.get("line")
        if outcome.reason and line is not None and not outcome.reason.startswith("line "):
            outcome.reason = f"line {line}: {outcome.reason}"
        answers.append({**where, **outcome.as_json()})
    counts: dict[str, int] = {}
    for a in answers:
        counts[a["status"]] = counts.get(a["status"], 0) + 1
    status = 400 if counts.get("rejected") else 200
    return _json({"counts": counts, "outcomes": answers}, status)


async def get_matches(request: web.Request) -> web.Response:
    """GET /matches?league=&season=&status=&player=&limit=&offset=: indexed matches and their summaries."""
    store = request.app[STORE]
    q = request.query
    try:
        limit = int(q.get("limit", "1000"))
        offset = int(q.get("offset", "0"))
    except ValueError:
        return _json({"error": "limit and offset must be integers"}, 400)
    names = await store.matches(
        league=q.get("league"), season=q.get("season"), status=q.get("status"), player=q.get("player")
    )
    page = names[offset : offset + max(0, limit)]
    entries = await store.index_entries(page)
    return _json({"total": len(names), "matches": [e.as_json() for e in entries]})


async def get_match_view(request: web.Request) -> web.StreamResponse:
    """GET /matches/<match>/{record,board,events,live}."""
    tail = request.match_info["tail"]
    match, _, view = tail.rpartition("/")
    if view not in VIEWS or not MATCH_ID.match(match):
        raise web.HTTPNotFound(
            text=json.dumps({"error": f"no such resource: /matches/{tail} (views: {', '.join(VIEWS)})"}),
            content_type="application/json",
        )
    store = request.app[STORE]
    if view == "live":
        return await live(request, store, match)
    if view == "events":
        return await archive(request, store, match)
    data = await (store.record(match) if view == "record" else store.board(match))
    if data is None:
        return _json({"error": f"match {match}: no {view} stored"}, 404)
    if request.headers.get("Accept", "") in MSGPACK_TYPES:
        return web.Response(body=data, content_type="application/msgpack")
    obj = unpack_record(data) if view == "record" else msgpack.unpackb(data, raw=False)
    return _json(obj)


async def archive(request: web.Request, store: Store, match: str) -> web.Response:
    """The archive in the order the engine saw it: JSON Lines (default) or a msgpack stream."""
    entries = await store.events(match)
    if not entries:
        return _json({"error": f"match {match}: no events archived"}, 404)
    as_msgpack = (
        request.query.get("format") == "msgpack" or request.headers.get("Accept", "") in MSGPACK_TYPES
    )
    if as_msgpack:
        return web.Response(body=b"".join(e.data for e in entries), content_type="application/msgpack")
    lines = [
        json.dumps(
            msgpack.unpackb(e.data, raw=False),
            sort_keys=True,
            separators=(",", ":"),
            ensure_ascii=False,
            default=_json_default,
        )
        for e in entries
    ]
    return web.Response(text="".join(line + "\n" for line in lines), content_type="application/x-ndjson")


async def live(request: web.Request, store: Store, match: str) -> web.StreamResponse:
    """Server-Sent Events: the public board now, then again after every update of the match."""
    heartbeat: float = request.app[OPTIONS]["heartbeat"]
    sub = await store.subscribe(match)  # before reading the board: no update can fall in between
    queue: asyncio.Queue[LiveUpdate | None] = asyncio.Queue()  # None: the server is shutting down
    streams = request.app[LIVE].queues
    streams.add(queue)

    async def pump() -> None:
        async for update in sub:
            queue.put_nowait(update)

    reader = asyncio.create_task(pump())
    response = web.StreamResponse(
        headers={"Content-Type": "text/event-stream", "Cache-Control": "no-cache", "X-Accel-Buffering": "no"}
    )
    try:
        await response.prepare(request)
        last: bytes | None = None
        board = await store.board(match)
        while True:
            if board is not None and board != last:
                view = msgpack.unpackb(board, raw=False)
                seq = int(view.get("seq") or 0)
                await response.write(b"event: board\nid: %d\ndata: %s\n\n" % (seq, dumps(view)))
                last = board
            try:
                item = await asyncio.wait_for(queue.get(), heartbeat)
            except TimeoutError:
                await response.write(b": keep-alive\n\n")
                continue
            while item is not None and not queue.empty():  # several updates at once: one board will do
                item = queue.get_nowait()
            if item is None:
                break
            board = await store.board(match)
    except ConnectionResetError:
        pass  # the client went away
    finally:
        streams.discard(queue)
        reader.cancel()
        with contextlib.suppress(BaseException):
            await reader
        await sub.aclose()
    return response


async def _end_live_streams(app: web.Application) -> None:
    """On shutdown: end every SSE stream, or the server would wait for the clients to hang up."""
    for queue in list(app[LIVE].queues):
        queue.put_nowait(None)


async def healthz(request: web.Request) -> web.Response:
    """GET /healthz: 200 when the store answers, 503 otherwise."""
    ok = await request.app[STORE].ping()
    return _json({"ok": ok, "ingest": request.app[CORE].stats()}, 200 if ok else 503)


async def stats(request: web.Request) -> web.Response:
    """GET /stats: ingest counters of this process and findings by code over all indexed matches."""
    store = request.app[STORE]
    return _json({"ingest": request.app[CORE].stats(), "findings": await store.findings_counts()})


@web.middleware
async def store_errors(request: web.Request, handler: Callable[[web.Request], Any]) -> web.StreamResponse:
    """A store failure (Redis down) is a 503 with a message, never a traceback page."""
    try:
        response: web.StreamResponse = await handler(request)
        return response
    except web.HTTPException:
        raise
    except (OSError, ConnectionError, TimeoutError) as exc:
        return _json({"error": f"store unavailable: {exc}"}, 503)
    except Exception as exc:
        if type(exc).__module__.startswith("redis"):
            return _json({"error": f"store unavailable: {exc}"}, 503)
        raise


def make_app(
    core: IngestCore,
    store: Store,
    *,
    flush_interval: float | None = None,
    heartbeat: float = 15.0,
    client_max_size: int = 64 * 1024 * 1024,
    pages: bool = True,
) -> web.Application:
    """The aiohttp application. With ``flush_interval``, a background task reports timed-out gaps.

    With ``pages`` (and :mod:`streams.http.pages` present), the web pages (review, overlay, match list) too.
    """
    app = web.Application(client_max_size=client_max_size, middlewares=[store_errors])
    app[CORE] = core
    app[STORE] = store
    app[OPTIONS] = {"heartbeat": heartbeat}
    app[LIVE] = _LiveStreams()
    app.on_shutdown.append(_end_live_streams)
    app.router.add_post("/events", post_events)
    app.router.add_get("/matches", get_matches)
    app.router.add_get("/matches/{tail:.+}", get_match_view)
    app.router.add_get("/healthz", healthz)
    app.router.add_get("/stats", stats)
    if pages:
        try:
            from streams.http.pages import add_pages
        except ImportError:  # the pages are optional: the API works without them
            pass
        else:
            add_pages(app)
    if flush_interval is not None:
        interval = flush_interval

        async def flusher(app: web.Application) -> AsyncIterator[None]:
            async def loop() -> None:
                while True:
                    await asyncio.sleep(interval)
                    try:
                        await core.flush_gaps()
                    except Exception:  # the store is down: try again at the next tick
                        log.exception("flushing timed-out gaps failed")

            task = asyncio.create_task(loop())
            yield
            task.cancel()
            with contextlib.suppress(BaseException):
                await task

        app.cleanup_ctx.append(flusher)
    return app
