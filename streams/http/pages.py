"""The web pages (docs/web.md): the judges' review page, the streamers' overlay and the match list.

:func:`add_pages` registers them on an app built by :func:`streams.http.api.make_app`, reading the store the
way ``web.py`` does (its ``STORE`` app key). Pages are plain HTML/CSS/JS from ``streams/http/static/`` (no
build step, no CDN); the review page is backed by two JSON endpoints that replay the archive with the
engine on every request (the engine folds 400 events in well under a millisecond):

- ``GET /review/<match>/meta``: the stored record and the ``(seq, type)`` list of archived events;
- ``GET /review/<match>/state?seq=N``: the event at ``N``, the board after it, and its derived outputs.

The overlay (``GET /overlay/<match>``) reads only ``/matches/<match>/live`` (the public board over SSE).
Match ids contain ``/``, so the per-match routes are tail routes; a tail ending in ``/meta`` or
``/state`` is the JSON endpoint of the match before it.
"""

from __future__ import annotations

import asyncio
import html
import json
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import quote, urlencode

import msgpack
from aiohttp import web

from replay import Game
from streams.http.routes import Answer, Param, Route, register

if TYPE_CHECKING:
    from streams.store import ArchivedEvent, Store

STATIC_DIR = Path(__file__).resolve().parent / "static"
LIST_LIMIT = 200
RECORD_READS = 32  # records read at once for the match list

_PAGES_ADDED: web.AppKey[bool] = web.AppKey("pages_added", bool)


def _store(app: web.Application) -> Store:
    # Imported here, not at the top: web.py may import this module from make_app.
    from streams.http.api import STORE

    return app[STORE]


def _json_default(obj: object) -> Any:
    if isinstance(obj, bytes | bytearray):
        return obj.hex()  # a binary extra field kept from a msgpack event
    raise TypeError(f"not JSON serialisable: {type(obj).__name__}")


def _json(obj: Any, status: int = 200) -> web.Response:
    body = json.dumps(obj, ensure_ascii=False, separators=(",", ":"), default=_json_default)
    return web.Response(
        text=body, status=status, content_type="application/json", headers={"Cache-Control": "no-store"}
    )


def _not_found(message: str) -> web.Response:
    return _json({"error": message, "code": "not_found"}, 404)


def _page(name: str) -> web.FileResponse:
    return web.FileResponse(STATIC_DIR / name, headers={"Cache-Control": "no-cache"})


def _unpack(data: bytes) -> Any:
    return msgpack.unpackb(data, raw=False, strict_map_key=False)


# ------------------------------------------------------------------------------------------- replay
def replay_until(entries: list[ArchivedEvent], seq: int) -> dict[str, Any]:
    """Fold the archive up to ``seq`` with the engine: the event there, the board after it, its outputs.

    Entries are applied in archive order while their position is at or below ``seq`` (a conflicting or
    late event archived while the head was ``seq`` belongs to that step). ``outputs`` are the derived
    outputs (knockouts, prizes due, promotions, findings, game over...) that the entries at ``seq`` caused.
    """
    game = Game()
    mark: int | None = None
    event: dict[str, Any] | None = None
    extra: list[dict[str, Any]] = []
    for entry in entries:
        pos = entry.position[0]
        if pos > seq:
            break
        ev = _unpack(entry.data)
        if pos == seq and mark is None:
            mark = len(game.timeline)
        game.apply(ev)
        if pos == seq:
            if entry.kind == "event":
                event = ev
            else:
                extra.append({"kind": entry.kind, "event": ev})
    outputs = game.timeline[mark:] if mark is not None else []
    return {
        "seq": seq,
        "event": event,
        "extra": extra,
        "outputs": outputs,
        "board": game.board(),
        "status": game.status,
        "findings_so_far": len(game.findings),
    }


async def review_page(request: web.Request) -> web.StreamResponse:
    """GET /review/<match>: the judges' review page (it reads the two JSON endpoints below)."""
    return _page("review.html")


async def review_meta(request: web.Request) -> web.StreamResponse:
    """GET /review/<match>/meta: the stored record and the ``(seq, type)`` list of archived events."""
    from streams.http.routes import MATCH

    match = request[MATCH]
    store = _store(request.app)
    entries = await store.events(match)
    if not entries:
        return _not_found(f"match {match}: no events archived")
    last = max(e.position[0] for e in entries)
    return _json(await _meta(store, match, entries, last))


async def review_state(request: web.Request) -> web.StreamResponse:
    """GET /review/<match>/state?seq=N: the event at N, the board after it, its derived outputs."""
    from streams.http.routes import MATCH, QUERY

    match = request[MATCH]
    entries = await _store(request.app).events(match)
    if not entries:
        return _not_found(f"match {match}: no events archived")
    last = max(e.position[0] for e in entries)
    seq = request[QUERY].get("seq", last)
    seq = min(max(seq, 1), last)
    state = replay_until(entries, seq)
    return _json({"match": match, "last": last, **state})


async def _meta(store: Store, match: str, entries: list[ArchivedEvent], last: int) -> dict[str, Any]:
    from streams.ingest import unpack_record

    steps: list[list[Any]] = []
    extra: list[dict[str, Any]] = []
    for entry in entries:
        ev = _unpack(entry.data)
        etype = ev.get("type") if isinstance(ev, dict) else None
        if entry.kind == "event":
            steps.append([entry.position[0], etype])
        else:
            extra.append({"position": list(entry.position), "kind": entry.kind, "type": etype})
    record = unpack_record(await store.record(match))
    return {
        "match": match,
        "first": steps[0][0] if steps else 1,
        "last": last,
        "steps": steps,
        "extra": extra,
        "record": record,
    }


async def overlay(request: web.Request) -> web.StreamResponse:
    """GET /overlay/<match>: the streamers' overlay page (it reads /matches/<match>/live itself)."""
    return _page("overlay.html")


# --------------------------------------------------------------------------------------- match list
def result_text(record: dict[str, Any] | None) -> str:
    """A one-line human summary of a record's status and result."""
    if record is None:
        return "no record yet"
    result = record.get("result")
    status = record.get("status")
    if not result:
        return "in progress" if status == "in_progress" else str(status)
    outcome = result.get("outcome")
    reason = result.get("reason")
    at = result.get("decided_at")
    where = f" at seq {at}" if at is not None else ""
    if outcome == "win":
        text = f"{result.get('winner')} beat {result.get('loser')} by {reason}{where}"
    elif outcome == "draw":
        text = f"draw ({reason}){where}"
    else:
        text = f"no winner ({reason}){where}"
    po = record.get("playoff")
    if status == "awaiting_playoff" and po:
        text += f"; playoff {po.get('child')} pending"
    return text


def _link(path: str, match: str) -> str:
    return f"/{path}/{quote(match, safe='/:')}"


async def match_list(request: web.Request) -> web.Response:
    """GET /ui?league=&season=&status=&player=&limit=: indexed matches with links, status and result."""
    from streams.http.routes import QUERY
    from streams.ingest import unpack_record

    store = _store(request.app)
    q = request[QUERY]
    filters = {k: q[k] for k in ("league", "season", "status", "player") if q.get(k)}
    limit = q["limit"]
    names = await store.matches(**filters)
    shown = names[-limit:]
    entries = await store.index_entries(shown)
    raws: list[bytes | None] = []
    for i in range(0, len(entries), RECORD_READS):  # bounded: one page must not take every connection
        raws += await asyncio.gather(*(store.record(e.match) for e in entries[i : i + RECORD_READS]))
    rows = []
    for entry, raw in zip(entries, raws, strict=True):
        try:
            result = result_text(unpack_record(raw))
        except Exception:  # one corrupt stored record must not take the list down
            result = "record unreadable (corrupt data in the store)"
        m = entry.match
        findings = sum(entry.findings.values())
        ctx = " / ".join(x for x in (entry.league, entry.season) if x)
        rows.append(
            "<tr>"
            f'<td class="match"><a href="{html.escape(_link("review", m))}" class="review">'
            f"{html.escape(m)}</a></td>"
            f"<td>{html.escape(' vs '.join(entry.players))}</td>"
            f"<td>{html.escape(ctx)}</td>"
            f'<td class="status status-{html.escape(entry.status)}">{html.escape(entry.status)}</td>'
            f'<td class="result">{html.escape(result)}</td>'
            f'<td class="num">{findings}</td>'
            f'<td><a href="{html.escape(_link("review", m))}">review</a> · '
            f'<a href="{html.escape(_link("overlay", m))}" class="overlay">overlay</a></td>'
            "</tr>"
        )
    summary = f"{len(shown)} of {len(names)} matches"
    if filters:
        summary += " where " + ", ".join(f"{k} = {v}" for k, v in filters.items())
    if len(shown) < len(names):
        summary += f" (the last {len(shown)} by id; narrow with ?{urlencode({'league': 'L'})} etc.)"
    template = (STATIC_DIR / "index.html").read_text(encoding="utf-8")
    body = template.replace("{{summary}}", html.escape(summary)).replace(
        "{{rows}}", "\n".join(rows) or '<tr><td colspan="7">no matches yet</td></tr>'
    )
    return web.Response(text=body, content_type="text/html", headers={"Cache-Control": "no-cache"})


async def root(request: web.Request) -> web.StreamResponse:
    """GET /: the match list."""
    raise web.HTTPFound("/ui")


def page_routes() -> tuple[Route, ...]:
    """The pages' routes (see :mod:`streams.http.routes`): who may see each, and what it answers."""
    public, judge = frozenset({"public"}), frozenset({"judge"})
    html_answer = Answer("HTML", "text/html", {"type": "string"})
    filters = (
        Param("league", description="only this league"),
        Param("season", description="only this season"),
        Param("status", enum=("in_progress", "finished", "awaiting_playoff"), description="only this status"),
        Param("player", description="only this player's matches"),
        Param(
            "limit",
            "integer",
            "rows (the last ones by match id)",
            minimum=1,
            maximum=5000,
            default=LIST_LIMIT,
        ),
    )
    return (
        Route(
            "GET",
            "/",
            root,
            public,
            "Redirect to the match list",
            answers={302: Answer("to /ui", "")},
            tag="pages",
        ),
        Route(
            "GET",
            "/ui",
            match_list,
            public,
            "The match list",
            query=filters,
            answers={200: html_answer},
            tag="pages",
        ),
        Route(
            "GET",
            "/review/{match}",
            review_page,
            judge,
            "The judges' review page",
            answers={200: html_answer},
            page=True,
            tag="pages",
        ),
        Route(
            "GET",
            "/review/{match}/meta",
            review_meta,
            judge,
            "The review page's record and list of archived events",
            answers={200: Answer("the record and the steps", schema={"type": "object"})},
            hidden=True,
            tag="pages",
        ),
        Route(
            "GET",
            "/review/{match}/state",
            review_state,
            judge,
            "The board, event and derived outputs at one seq (replayed from the archive)",
            query=(Param("seq", "integer", "the step (clamped to the archive; default the last)"),),
            answers={200: Answer("the state at seq", schema={"type": "object"})},
            hidden=True,
            tag="pages",
        ),
        Route(
            "GET",
            "/overlay/{match}",
            overlay,
            public,
            "The streamers' overlay (public board only)",
            answers={200: html_answer},
            tag="pages",
        ),
    )


def add_pages(app: web.Application) -> None:
    """Register the pages on an app built by :func:`streams.http.api.make_app` (calling it twice is harmless).

    Routes (:func:`page_routes`): ``/`` (redirect to ``/ui``), ``/ui`` (match list), ``/review/<match>``
    with ``/meta`` and ``/state?seq=N``, ``/overlay/<match>``; the static files are the API's
    ``/static/``.
    """
    if app.get(_PAGES_ADDED):
        return
    app[_PAGES_ADDED] = True
    register(app, page_routes())
