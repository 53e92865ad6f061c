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

import html
import json
import re
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import quote, urlencode

import msgpack
from aiohttp import web

from replay import Game
from replay.docs import RULES
from replay.engine.log import EventLog
from replay.engine.record import build_board
from replay.engine.state import State
from replay.series import match_result, series_key
from streams.http.battle_log import RULE_OF_FINDING, battle_log, rule_ref
from streams.http.routes import Answer, Param, Route, register

if TYPE_CHECKING:
    from streams.store import ArchivedEvent, IndexEntry, Store

STATIC_DIR = Path(__file__).resolve().parent / "static"
LIST_LIMIT = 50

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

    Damage outside the attack and checkup windows is checked for knockouts once its effect has resolved
    [rules §2], which the engine learns from the next event. When the effect ends at ``seq`` (the next
    archived event is not part of it, or there is none) the step shows it resolved: the knockouts, prizes
    and decision stamped with ``seq``, and the board after them.
    """
    game = Game()
    mark: int | None = None
    event: dict[str, Any] | None = None
    extra: list[dict[str, Any]] = []
    after: ArchivedEvent | None = None
    for entry in entries:
        pos = entry.position[0]
        if pos > seq:
            after = entry
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
    start = len(game.timeline) if mark is None else mark
    view = game.resolved()
    if view is not game.state:
        # Does the effect end here? It does unless the next event goes on with it (its outputs would then
        # carry a later seq). The view's board and timeline are read before the game moves on.
        state = _state(view, game.log, start)
        plain = _state(game.state, game.log, start)
        if after is not None:
            known = len(game.timeline)
            game.apply(_unpack(after.data))
            if not any(o.get("seq") == seq for o in game.timeline[known:]):
                state = plain
    else:
        state = _state(game.state, game.log, start)
    return {"seq": seq, "event": event, "extra": extra, **state}


def _state(state: State, log: EventLog, start: int) -> dict[str, Any]:
    return {
        "outputs": list(state.timeline[start:]),
        "board": build_board(state, log),
        "status": state.status,
        "findings_so_far": len(state.findings),
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
        "log": battle_log(entries),
        "rules": {code: rule_ref(code) for code in RULE_OF_FINDING},
    }


async def overlay(request: web.Request) -> web.StreamResponse:
    """GET /overlay/<match>: the streamers' overlay page (it reads /matches/<match>/live itself)."""
    return _page("overlay.html")


async def overlay_score_route(request: web.Request) -> web.StreamResponse:
    """GET /overlay/<match>/score: what the board does not carry (the best-of-three score, the playoff)."""
    from streams.http.routes import MATCH

    return _json(await overlay_score(_store(request.app), request[MATCH]))


def _public_result(result: Mapping[str, Any] | None) -> dict[str, Any] | None:
    if not result:
        return None
    return {k: result.get(k) for k in ("outcome", "winner", "loser", "reason", "decided_at")}


async def overlay_score(store: Store, match: str) -> dict[str, Any]:
    """The public summary the overlay shows beside the live board: the record's status and result (a
    parent is settled by its playoff after its board stopped changing), the playoff and its state, and the
    score of the best-of-three the game belongs to (``context.series``, replay/series.py)."""
    from streams.ingest import unpack_record

    record = unpack_record(await store.record(match))
    if record is None:
        return {"match": match, "status": None, "result": None, "playoff": None, "series": None}
    playoff = None
    po = record.get("playoff")
    if po and po.get("child"):
        child = unpack_record(await store.record(str(po["child"])))
        decided = record.get("status") == "finished"
        playoff = {
            "child": po["child"],
            "kind": po.get("kind"),
            "state": "decided" if decided else "playing" if child and child.get("status") else "pending",
        }
    playing = record.get("playoff_of")
    return {
        "match": match,
        "status": record.get("status"),
        "result": _public_result(record.get("result")),
        "playoff": playoff,
        "playoff_of": {"kind": playing.get("kind"), "parent": record.get("parent")} if playing else None,
        "series": await _series(store, record),
    }


async def _series(store: Store, record: Mapping[str, Any]) -> dict[str, Any] | None:
    """The score of the match (best of three) ``record`` is a game of, from the games stored so far."""
    from streams.ingest import unpack_record

    key = series_key(record)
    players = record.get("players") or []
    if key is None or len(players) != 2:
        return None
    ctx = record.get("context") or {}
    # the games of these two players in the league and season: a small set, whatever the index's size
    names = await store.matches(league=ctx.get("league"), season=ctx.get("season"), player=str(players[0]))
    entries = [e for e in await store.index_entries(names) if str(players[1]) in e.players]
    games = []
    for raw in await store.records([e.match for e in entries]):
        rec = unpack_record(raw)
        if rec is not None and series_key(rec) == key:
            games.append(rec)
    if not any(g.get("match") == record.get("match") for g in games):
        games.append(dict(record))
    summary = match_result(games)
    return {
        "series": ctx.get("series"),
        "game": ctx.get("game"),
        "wins": summary["wins"],
        "ties": summary["ties"],
        "status": summary["status"],
        "winner": summary.get("winner"),
    }


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


STATUSES = ("in_progress", "finished", "awaiting_playoff")
SORT_LABELS = {
    "match": "match id, A to Z",
    "-match": "match id, Z to A",
    "-findings": "most findings first",
    "findings": "fewest findings first",
}
PAGE_SIZES = (25, 50, 100, 200)


def _list_query(q: dict[str, Any]) -> tuple[dict[str, str], str, int, int]:
    """The list's filters, sort, page (1-based) and page size from the checked query (:func:`page_routes`
    declares them: a bad value is a 400 there)."""
    filters = {
        k: str(q[k]).strip()
        for k in ("league", "season", "status", "player", "q")
        if str(q.get(k, "")).strip()
    }
    return filters, str(q.get("sort", "match")), int(q.get("page", 1)), int(q.get("limit", LIST_LIMIT))


def _list_url(filters: Mapping[str, str], sort: str, number: int, size: int) -> str:
    params = dict(filters)
    if sort != "match":
        params["sort"] = sort
    if size != LIST_LIMIT:
        params["limit"] = str(size)
    if number != 1:
        params["page"] = str(number)
    return "/ui" + ("?" + urlencode(params) if params else "")


def _options(values: Iterable[tuple[str, str]], chosen: str) -> str:
    return "".join(
        f'<option value="{html.escape(v)}"{" selected" if v == chosen else ""}>{html.escape(label)}</option>'
        for v, label in values
    )


async def match_list(request: web.Request) -> web.Response:
    """GET /ui?q=&league=&season=&status=&player=&sort=&page=&limit=: one page of the indexed matches.

    The page comes from the index (:meth:`Store.index_page`); only its rows' records are read.
    """
    from streams.ingest import unpack_record

    store = _store(request.app)
    from streams.http.routes import QUERY

    filters, sort, number, size = _list_query(request[QUERY])
    where = {k: v for k, v in filters.items() if k != "q"}
    page = await store.index_page(
        **where, search=filters.get("q"), sort=sort, offset=(number - 1) * size, limit=size
    )
    pages = max(1, -(-page.total // size))
    if number > pages and page.total:  # past the end (the list shrank): the last page instead
        raise web.HTTPFound(_list_url(filters, sort, pages, size))
    raws = await store.records([e.match for e in page.entries])
    rows = []
    for entry, raw in zip(page.entries, raws, strict=True):
        try:
            record = unpack_record(raw)
        except Exception:  # one unreadable record must not take the list down
            record = {"status": entry.status, "result": None, "unreadable": True}
        rows.append(_row(entry, record))
    first = (number - 1) * size + 1
    if page.too_broad:
        summary = f"“{filters['q']}” matches too many players: type more of the name"
    elif page.total:
        summary = f"matches {first}–{first + len(rows) - 1} of {page.total}"
    else:
        summary = "no matches"
    if where:
        summary += " where " + ", ".join(f"{k} = {v}" for k, v in where.items())
    if filters.get("q") and not page.too_broad:
        summary += f"; players starting with “{filters['q']}”"
    nav = []
    if number > 1:
        prev = html.escape(_list_url(filters, sort, number - 1, size))
        nav.append(f'<a rel="prev" id="prev-page" href="{prev}">◀ previous</a>')
    nav.append(f'<span id="page-of">page {number} of {pages}</span>')
    if number < pages:
        after = html.escape(_list_url(filters, sort, number + 1, size))
        nav.append(f'<a rel="next" id="next-page" href="{after}">next ▶</a>')
    values = {
        "{{q}}": html.escape(filters.get("q", "")),
        "{{league}}": html.escape(filters.get("league", "")),
        "{{season}}": html.escape(filters.get("season", "")),
        "{{player}}": html.escape(filters.get("player", "")),
        "{{status_options}}": _options(
            [("", "any status"), *((s, s.replace("_", " ")) for s in STATUSES)], filters.get("status", "")
        ),
        "{{sort_options}}": _options(SORT_LABELS.items(), sort),
        "{{size_options}}": _options(((str(n), f"{n} a page") for n in PAGE_SIZES), str(size)),
        "{{summary}}": html.escape(summary),
        "{{nav}}": " ".join(nav),
        "{{rows}}": "\n".join(rows) or '<tr><td colspan="7" class="muted">no matches</td></tr>',
    }
    body = (STATIC_DIR / "index.html").read_text(encoding="utf-8")
    for key, value in values.items():
        body = body.replace(key, value)
    return web.Response(text=body, content_type="text/html", headers={"Cache-Control": "no-cache"})


def _row(entry: IndexEntry, record: dict[str, Any] | None) -> str:
    m = entry.match
    findings = sum(entry.findings.values())
    ctx = " / ".join(x for x in (entry.league, entry.season) if x)
    review = html.escape(_link("review", m))
    text = "record unreadable" if record and record.get("unreadable") else result_text(record)
    return (
        "<tr>"
        f'<td class="match"><a href="{review}" class="review">{html.escape(m)}</a></td>'
        f"<td>{html.escape(' vs '.join(entry.players))}</td>"
        f"<td>{html.escape(ctx)}</td>"
        f'<td class="status status-{html.escape(entry.status)}">{html.escape(entry.status)}</td>'
        f'<td class="result">{html.escape(text)}</td>'
        f'<td class="num">{findings}</td>'
        f'<td><a href="{review}">review</a> · '
        f'<a href="{html.escape(_link("overlay", m))}" class="overlay">overlay</a></td>'
        "</tr>"
    )


RULES_DOC = RULES  # docs/rules.md, shipped as package data (replay/docs): found in every install
_SECTION = re.compile(r"<h([1-4])>(\d+(?:\.\d+)*)\.?\s")


def render_rules(text: str) -> str:
    """docs/rules.md as an HTML page; a numbered heading gets an anchor (``## 3. ...`` -> ``#s3``,
    ``### 1.3 ...`` -> ``#s1-3``), the ones the review page's findings link to."""
    from markdown_it import MarkdownIt

    body = MarkdownIt("commonmark").enable("table").render(text)
    body = _SECTION.sub(
        lambda m: f'<h{m[1]} id="s{m[2].replace(".", "-")}">{m[2]}{"." if "." not in m[2] else ""} ', body
    )
    return (
        '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Prizecheck · rules</title>'
        '<link rel="stylesheet" href="/static/review.css"></head><body class="rules-page">'
        '<header class="top"><h1><a href="/ui">Prizecheck</a> · the rules the engine applies</h1></header>'
        f"<main>{body}</main></body></html>"
    )


async def rules(request: web.Request) -> web.Response:
    """GET /rules: docs/rules.md, the rule reference the findings cite, as a page (404 without the docs)."""
    path = RULES_DOC
    try:
        text = path.read_text(encoding="utf-8")
    except OSError:
        return _not_found(f"the rule reference ({path.name}) is not installed with this copy of prizecheck")
    return web.Response(
        text=render_rules(text), content_type="text/html", headers={"Cache-Control": "no-cache"}
    )


async def root(request: web.Request) -> web.StreamResponse:
    """GET /: the match list."""
    raise web.HTTPFound("/ui")


def page_routes() -> tuple[Route, ...]:
    """The pages' routes (see :mod:`streams.http.routes`): who may see each, and what it answers."""
    public, judge = frozenset({"public"}), frozenset({"judge"})
    html_answer = Answer("HTML", "text/html", {"type": "string"})
    # The list's form sends its empty fields too: an empty value is "not given" (blank=True).
    filters = (
        Param(
            "q",
            description="player search: player ids starting with this (ASCII letters, any case)",
            blank=True,
        ),
        Param("league", description="only this league", blank=True),
        Param("season", description="only this season", blank=True),
        Param("status", enum=STATUSES, description="only this status", blank=True),
        Param("player", description="only this player's matches (an exact id)", blank=True),
        Param(
            "sort", enum=tuple(SORT_LABELS), description="the order of the rows", default="match", blank=True
        ),
        Param("page", "integer", "the page, from 1", minimum=1, default=1, blank=True),
        Param(
            "limit",
            "integer",
            "rows a page",
            minimum=1,
            maximum=max(PAGE_SIZES),
            default=LIST_LIMIT,
            blank=True,
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
        Route(
            "GET",
            "/overlay/{match}/score",
            overlay_score_route,
            public,
            "What the overlay shows beside the board: status, result, playoff state, best-of-three score",
            answers={200: Answer("the public summary", schema={"type": "object"})},
            tag="pages",
        ),
        Route(
            "GET",
            "/rules",
            rules,
            public,
            "The rule reference the findings cite (docs/rules.md as a page)",
            answers={200: html_answer},
            tag="pages",
        ),
    )


def add_pages(app: web.Application) -> None:
    """Register the pages on an app built by :func:`streams.http.api.make_app` (calling it twice is harmless).

    Routes: ``/`` (redirect to ``/ui``), ``/ui`` (match list), ``/review/<match>`` with ``/meta`` and
    ``/state?seq=N``, ``/overlay/<match>`` with ``/score``, ``/rules`` (docs/rules.md), and the static
    files under ``/static/``.
    """
    if app.get(_PAGES_ADDED):
        return
    app[_PAGES_ADDED] = True
    register(app, page_routes())
