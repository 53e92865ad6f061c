"""The HTTP API (docs/http-api.md): ingest, records, boards, the archive, live boards over SSE.

:func:`make_app` builds the aiohttp application around an :class:`~streams.ingest.IngestCore` and its
store; ``prizecheck serve`` (:mod:`streams.http.serve`) runs it. Every route is a :class:`Route` of
:data:`API_ROUTES` (or of the pages' table): its roles, parameters and answers are enforced by
:mod:`streams.http.routes` and :mod:`streams.http.access`, and described by ``/openapi.json``
(:mod:`streams.http.openapi`). To add a route, add a ``Route`` to a table: nothing else serves it.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import msgpack
from aiohttp import web
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

from replay.engine import EventError, dumps
from replay.i18n import DEFAULT, gettext
from replay.signing import PublicKeys
from streams.history import summary
from streams.http.access import (
    ACCESS,
    AUDIT_DETAIL,
    HIDDEN_SERVED,
    PRINCIPAL,
    Access,
    guard,
    login,
    logout,
    scoped_matches,
)
from streams.http.delay import DELAY, Delay, Reader, matches_filters, reader
from streams.http.edge import (
    BODY_TIMEOUT,
    MSGPACK_TYPES,
    TooManyEvents,
    parse_events,
    read_body,
    read_events,
    reason_in,
)
from streams.http.health import HEALTH
from streams.http.keys import CORE, OPTIONS, STORE
from streams.http.live import HUB, LiveHub, StreamsFull
from streams.http.openapi import openapi_json
from streams.http.ownership import authorize_request, is_judge
from streams.http.redact import public_event, record_body, sees_hidden
from streams.http.routes import (
    LANG,
    MATCH,
    QUERY,
    Answer,
    Param,
    Problem,
    Route,
    init_table,
    page_lang,
    register,
    respond,
    speak,
)
from streams.http.templating import login_page
from streams.ingest import CONTENTION, IngestCore, Outcome, StoreContention
from streams.store import CopyRefused, RecordVersion, Store
from streams.store.base import SEARCH_HELP, SEARCH_MAX, SORTS, search_needle

__all__ = ["API_ROUTES", "CORE", "OPTIONS", "STORE", "make_app", "parse_events"]

log = logging.getLogger("prizecheck.web")

STATIC_DIR = Path(__file__).resolve().parent / "static"


PUBLIC = frozenset({"public"})
INGEST = frozenset({"ingest"})
JUDGE = frozenset({"judge"})
READERS = frozenset({"organizer", "judge"})


def _json(obj: Any, status: int = 200) -> web.Response:
    return web.Response(body=dumps(obj), status=status, content_type="application/json")


def _json_default(obj: object) -> Any:
    if isinstance(obj, bytes | bytearray):
        return obj.hex()  # a binary extra field kept from a msgpack event
    raise TypeError(f"not JSON serialisable: {type(obj).__name__}")


def _unpack(data: bytes, match: str, what: str) -> Any:
    """Stored bytes decoded; corrupt data in the store is a clear 500, never a traceback."""
    try:
        return msgpack.unpackb(data, raw=False, strict_map_key=False)
    except Exception:
        raise Problem.said(
            500,
            "corrupt_store",
            "match {match}: the stored {what} is unreadable (corrupt data)",
            match=match,
            what=what,
        ) from None


# ------------------------------------------------------------------------------------------- writes
#: Events of one POST handed to the ingest core per call (bounds the work between two awaits' results).
POST_BATCH = 2000


async def post_events(request: web.Request) -> web.Response:
    """POST /events: JSON object, JSON array, JSON Lines or msgpack (a map or a stream of maps)."""
    core = request.app[CORE]
    options = request.app[OPTIONS]
    body = await read_body(request, options["body_timeout"])
    try:
        items = await read_events(body, request.content_type, options["max_events"])
    except TooManyEvents as exc:
        raise Problem.said(
            413,
            "too_many_events",
            "more than {limit} events in one request; send them in several requests",
            limit=exc.limit,
        ) from None
    if not items:
        raise Problem.said(400, "no_events", "no events in the request body")
    principal = request[PRINCIPAL]
    access = request.app[ACCESS]
    # every event of the batch checked before any is applied (streams/http/ownership)
    created = await authorize_request(request, [item for _, item in items])
    if created:
        request[AUDIT_DETAIL] = f"created {', '.join(created[:20])}"
    judge = access.open or is_judge(principal)
    # The events go to the core in batches (its one path: the in-line events of a match are one write);
    # the outcomes are those of one event at a time, in the body's order.
    outcomes: list[Outcome] = []
    batch: list[dict[str, Any]] = []
    for _, item in [*items, (None, None)]:
        if item is None or isinstance(item, Exception) or len(batch) == POST_BATCH:
            outcomes += await core.ingest_many(batch, judge=judge) if batch else []
            batch = []
        if isinstance(item, EventError):  # refused at the edge: it names the match, seq and field
            outcomes.append(
                Outcome("rejected", item.match, item.seq, str(item), field=item.field, error=item)
            )
            core.counts["rejected"] += 1
        elif isinstance(item, Exception):
            outcomes.append(Outcome("rejected", None, None, str(item)))
            core.counts["rejected"] += 1
        elif item is not None:
            batch.append(item)
    answers: list[dict[str, Any]] = []
    # a refusal's reason is for a person: in the request's language (?lang=, Accept-Language), as every
    # error of the service is; its match, seq and field stay the machine's
    lang = page_lang(request)
    for (where, _), outcome in zip(items, outcomes, strict=True):
        line = where.get("line")
        english = outcome.reason
        if english and lang != DEFAULT:
            outcome.reason = reason_in(lang, english, outcome.error)
        if english and line is not None and not english.startswith("line "):
            outcome.reason = f"{gettext(lang, 'line {line}').format(line=line)}: {outcome.reason}"
        answers.append({**where, **outcome.as_json()})
    counts: dict[str, int] = {}
    for a in answers:
        counts[a["status"]] = counts.get(a["status"], 0) + 1
    matches = sorted({str(a["match"]) for a in answers if a.get("match")})
    shown = ", ".join(matches[:20]) + (f" and {len(matches) - 20} more" if len(matches) > 20 else "")
    created = request.get(AUDIT_DETAIL, "")
    request[AUDIT_DETAIL] = f"{json.dumps(counts, sort_keys=True)} matches {shown}" + (
        f"; {created}" if created else ""
    )
    status = 400 if counts.get("rejected") else 200
    # one signed receipt per match this request wrote to (what is archived of it now): a producer keeps it
    receipts = core.receipts(outcomes)
    answer: dict[str, Any] = {"counts": counts, "outcomes": answers}
    if receipts:
        answer["receipts"] = receipts
    return _json(answer, status)


# -------------------------------------------------------------------------------------------- reads
STATUSES = ("in_progress", "finished", "awaiting_playoff")


async def get_matches(request: web.Request) -> web.Response:
    """GET /matches?q=&league=&season=&status=&player=&sort=&limit=&offset=&cursor=: one page of the
    indexed matches and their summaries (:meth:`Store.index_page`: only the page is read), with the cursor
    of the next page (``next``, null on the last)."""
    store = request.app[STORE]
    q = request[QUERY]
    filters = {k: q.get(k) for k in ("league", "season", "status", "player")}
    try:
        page = await store.index_page(
            **filters,
            search=q.get("q"),
            sort=q["sort"],
            offset=q["offset"],
            limit=q["limit"],
            cursor=q.get("cursor"),
        )
    except ValueError as exc:  # a cursor of another sort or not ours, a search too long: the store says which
        field = "cursor" if "cursor" in str(exc) else "q"
        raise Problem.said(400, "bad_parameter", "{field}: {exc}", field=field, exc=exc) from None
    # a match under a broadcast delay is listed as the public sees it (streams/http/delay.py): its stored
    # line is replaced by its public one, or left out where that one does not match the filters; a held
    # match whose public line matches where its stored one does not (a status filter: live in public,
    # finished in the store) is added to the first page. What a search looks in (ids, players, event, round,
    # table) is the match_started's and never differs between the two lines.
    matches = await reader(request)
    entries = await matches.entries(page.entries, filters)
    total = page.total - (len(page.entries) - len(entries))
    if not q["offset"] and not q.get("cursor") and any(filters.values()):
        needle = search_needle(q["q"]) if q.get("q") else ""
        for held in await matches.held_matching(filters):
            if needle not in held.search_text():
                continue
            stored = await store.index_entries([held.match])
            if stored and matches_filters(stored[0], filters):
                continue  # the store lists it already, on this page or another
            entries.insert(0, held)
            total += 1
    answer: dict[str, Any] = {
        "total": total,
        "matches": [e.as_json() for e in entries],
        "next": page.next,
    }
    if page.too_broad:
        answer["too_broad"] = True
    return _json(answer)


async def get_record(request: web.Request) -> web.Response:
    """GET /matches/{match}/record[?version=N]: the stored record, or version N of a finished record
    (docs/records.md, "Versions"). A judge in scope gets it as stored; anyone else its public projection
    (:func:`streams.http.redact.record_body`)."""
    match = request[MATCH]
    matches = await reader(request)  # a broadcast delay holds the newest back (streams/http/delay.py)
    number = request[QUERY].get("version")
    if number is not None:
        visible = await matches.versions(match)
        version = next((v for v in visible if v.version == number), None)
        if version is None:
            raise await _no_version(matches, match, number, visible)
        data: bytes | None = version.record
    else:
        data = await matches.record(match)
    if data is None:
        raise Problem.said(404, "not_found", "match {match}: no record stored", match=match)
    as_msgpack = request.headers.get("Accept", "") in MSGPACK_TYPES
    body = await record_body(request, match, data, _unpack(data, match, "record"), as_msgpack)
    return web.Response(body=body, content_type="application/msgpack" if as_msgpack else "application/json")


async def _no_version(matches: Reader, match: str, number: int, visible: list[RecordVersion]) -> Problem:
    """Why version ``number`` of ``match`` is not there, a 404 in words (of the versions the caller may
    see)."""
    known = len(visible)
    if known:
        return Problem.said(
            404,
            "not_found",
            "match {match}: no version {number} (versions 1 to {known})",
            match=match,
            number=number,
            known=known,
        )
    if await matches.record(match) is None:
        return Problem.said(404, "not_found", "match {match}: no record stored", match=match)
    return Problem.said(
        404,
        "not_found",
        "match {match}: no version {number} (the record has no versions: the game is not finished)",
        match=match,
        number=number,
    )


async def get_versions(request: web.Request) -> web.Response:
    """GET /matches/{match}/versions: every version of the finished record, oldest first, each with its
    cause, status, result and signature status (:func:`streams.history.summary`); ``[]`` while the game
    has not finished; 404 when the match has no record."""
    match = request[MATCH]
    matches = await reader(request)
    versions = await matches.versions(match)
    if not versions and await matches.record(match) is None:
        raise Problem.said(404, "not_found", "match {match}: no record stored", match=match)
    return _json([summary(v, request.app[CORE].verifier) for v in versions])


async def get_board(request: web.Request) -> web.Response:
    """GET /matches/{match}/board: the public board after the last applied event."""
    match = request[MATCH]
    data = await (await reader(request)).board(match)
    if data is None:
        raise Problem.said(404, "not_found", "match {match}: no board stored", match=match)
    if request.headers.get("Accept", "") in MSGPACK_TYPES:
        return web.Response(body=data, content_type="application/msgpack")
    return _json(_unpack(data, match, "board"))


async def get_events(request: web.Request) -> web.Response:
    """GET /matches/{match}/events: the archive. A judge in scope gets every event as sent (hidden cards
    included, audited); any other role gets each event's public projection (:mod:`streams.http.redact`)."""
    match = request[MATCH]
    entries = await request.app[STORE].events(match)
    if not entries:
        raise Problem.said(404, "not_found", "match {match}: no events archived", match=match)
    full = await sees_hidden(request, match)
    seen = None if full else await (await reader(request)).seen(match)
    if seen is not None and seen.held:  # the broadcast delay: what had arrived by its cutoff
        entries = seen.shown(entries)
        if not entries:
            raise Problem.said(404, "not_found", "match {match}: no events archived", match=match)
    as_msgpack = (
        request[QUERY].get("format") == "msgpack" or request.headers.get("Accept", "") in MSGPACK_TYPES
    )
    if full:
        request[HIDDEN_SERVED] = True
        request[AUDIT_DETAIL] = f"archive of {match}, {len(entries)} entries"
        if as_msgpack:
            return web.Response(body=b"".join(e.data for e in entries), content_type="application/msgpack")
    events = [_unpack(e.data, match, "archive") for e in entries]
    if not full:
        events = [public_event(e) if isinstance(e, dict) else {} for e in events]
    if as_msgpack:
        return web.Response(
            body=b"".join(msgpack.packb(e) for e in events), content_type="application/msgpack"
        )
    lines = [
        json.dumps(e, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=_json_default)
        for e in events
    ]
    return web.Response(text="".join(line + "\n" for line in lines), content_type="application/x-ndjson")


async def get_live(request: web.Request) -> web.StreamResponse:
    """GET /matches/{match}/live: Server-Sent Events, the public board now and after every update (under a
    broadcast delay, as it was that long ago, except for a judge, recorder or producer who covers it)."""
    hub = request.app[HUB]
    try:
        match = request[MATCH]
        # a held match (a broadcast delay) as it is, for a judge, recorder or producer who covers it
        live = await request.app[DELAY].of(match) > 0 and await (await reader(request)).live(match)
        return await hub.stream(request, match, request.app[OPTIONS]["heartbeat"], live=live)
    except StreamsFull as exc:
        if exc.per_client:
            raise Problem.said(
                429,
                "too_many_streams",
                "this address has {n} live streams open already",
                headers={"Retry-After": "5"},
                n=hub.max_client_streams,
            ) from None
        raise Problem.said(
            503,
            "too_many_streams",
            "the service has no room for another live stream",
            headers={"Retry-After": "5"},
        ) from None
    except TimeoutError:
        raise Problem.said(
            503, "store_unavailable", "live updates are not available (the store does not answer)"
        ) from None


async def healthz(request: web.Request) -> web.Response:
    """GET /healthz: 200 when the store answers, 503 otherwise, saying why (``problem``)."""
    body: dict[str, Any] = {}
    health = request.app.get(HEALTH)
    if health is not None:  # prizecheck serve: the store's reason, as its log says it
        problem = await health.probe()
        ok = problem is None
        if problem is not None:
            body["problem"] = problem
    else:
        ok = await request.app[STORE].ping()
    body.update(ok=ok, ingest=request.app[CORE].stats(), live=request.app[HUB].stats())
    return _json(body, 200 if ok else 503)


async def public_keys(request: web.Request) -> web.Response:
    """GET /.well-known/prizecheck-keys.json: the public keys records, checkpoints and receipts are
    signed with (``replay.signing.PublicKeys.document``); no key listed when it signs with none."""
    ck = request.app[CORE].checkpoint_key
    return _json((ck.public if ck is not None and ck.public is not None else PublicKeys()).document())


async def stats(request: web.Request) -> web.Response:
    """GET /stats: ingest counters of this process and findings by code over all indexed matches; for a
    scoped token, only counts of its scope: the findings and the number of its matches (the process's
    counters count every league, so they are left out)."""
    store = request.app[STORE]
    principal = request[PRINCIPAL]
    if principal.scoped:
        matches = await scoped_matches(store, principal)
        findings: dict[str, int] = {}
        for entry in await store.index_entries(matches):
            for code, n in entry.findings.items():
                findings[code] = findings.get(code, 0) + n
        scope = {"leagues": list(principal.leagues), "events": list(principal.events)}
        if principal.tables:
            scope["tables"] = list(principal.tables)
        return _json({"findings": dict(sorted(findings.items())), "matches": len(matches), "scope": scope})
    return _json(
        {
            "ingest": request.app[CORE].stats(),
            "findings": await store.findings_counts(),
            "live": request.app[HUB].stats(),
        }
    )


async def static_file(request: web.Request) -> web.StreamResponse:
    """GET /static/{path}: the pages' files (HTML, CSS, JS, the vendored Swagger UI)."""
    rel = request.match_info["path"]
    target = (STATIC_DIR / rel).resolve()
    if not target.is_relative_to(STATIC_DIR) or not target.is_file():
        raise Problem.said(404, "not_found", "no static file {rel}", rel=repr(rel[:80]))
    return web.FileResponse(target, headers={"Cache-Control": "no-cache"})


async def docs_page(request: web.Request) -> web.StreamResponse:
    """GET /docs: the API reference (Swagger UI, vendored: works offline)."""
    return web.FileResponse(STATIC_DIR / "docs.html", headers={"Cache-Control": "no-cache"})


# ------------------------------------------------------------------------------------------- table
def _answer(
    description: str,
    schema: str | dict[str, Any] | None,
    media: str = "application/json",
    *,
    msgpack: bool = False,
) -> Answer:
    ref = {"$ref": f"#/components/schemas/{schema}"} if isinstance(schema, str) else schema
    return Answer(description, media, ref, ("application/msgpack",) if msgpack else ())


def _ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/components/schemas/{name}"}


#: The longest player, league or season name (the contract's bound: schemas/events.schema.json).
NAME_MAX = 256

#: The highest version number a request may name (a bound on the parameter, far above any real history).
MAX_VERSION = 1_000_000

_ANY_EVENTS = {
    "description": "one event, an array of events or JSON Lines (schemas/events.schema.json)",
    "oneOf": [{"type": "object"}, {"type": "array", "items": {}}],
}

API_ROUTES: tuple[Route, ...] = (
    Route(
        "POST",
        "/events",
        post_events,
        INGEST,
        "Send one event or a batch",
        answers={
            200: _answer("every event applied, duplicate or buffered", "IngestAnswer"),
            400: _answer(
                "at least one event rejected (the others are processed; IngestAnswer), or no events (Error)",
                {
                    "anyOf": [
                        {"$ref": "#/components/schemas/IngestAnswer"},
                        {"$ref": "#/components/schemas/Error"},
                    ]
                },
            ),
        },
        body={
            "application/json": _ANY_EVENTS,
            "application/x-ndjson": {"type": "string"},
            "application/msgpack": {"type": "string", "contentEncoding": "binary"},
        },
        audited=True,
        tag="ingest",
    ),
    Route(
        "GET",
        "/matches",
        get_matches,
        PUBLIC,
        "The league index: matches and their summaries",
        query=(
            Param(
                "q",
                description=SEARCH_HELP,
                max_length=SEARCH_MAX,
            ),
            Param("league", description="only this league", max_length=NAME_MAX),
            Param("season", description="only this season", max_length=NAME_MAX),
            Param("status", enum=STATUSES, description="only matches in this status"),
            Param("player", description="only matches of this player", max_length=NAME_MAX),
            Param(
                "sort",
                enum=SORTS,
                description="by match id, or by findings (violations first; -findings: games to review)",
                default="match",
            ),
            Param("limit", "integer", "matches per page", minimum=0, maximum=10_000, default=1000),
            Param(
                "offset",
                "integer",
                "matches to skip (after the cursor)",
                minimum=0,
                maximum=10_000_000,
                default=0,
            ),
            Param(
                "cursor",
                description="the page after the one whose `next` this is (same filters and sort)",
                max_length=1024,
            ),
        ),
        answers={200: _answer("the matches", "MatchList")},
        tag="read",
    ),
    Route(
        "GET",
        "/matches/{match}/record",
        get_record,
        PUBLIC,
        "The end-of-game record (docs/records.md)",
        description=(
            "A judge whose token covers the match gets the record as stored (audited when it holds what "
            "the public projection leaves out); everyone else its public projection: the same bytes when "
            "nothing is left out, else `redacted: true` and `signature: null` (docs/http-api.md, "
            '"What each role sees").'
        ),
        answers={
            200: _answer(
                "the record (application/msgpack with Accept: application/msgpack)",
                {
                    "anyOf": [
                        {"$ref": "#/components/schemas/Record"},
                        {"$ref": "#/components/schemas/RecordStub"},
                    ]
                },
                msgpack=True,
            )
        },
        query=(
            Param(
                "version",
                "integer",
                "a version of the finished record, from 1 (GET /matches/{match}/versions lists them); "
                "without it, the record as it is now",
                minimum=1,
                maximum=MAX_VERSION,
            ),
        ),
        tag="read",
    ),
    Route(
        "GET",
        "/matches/{match}/versions",
        get_versions,
        PUBLIC,
        "The finished record's history: every version and the event that caused it",
        description=(
            "Every change to a finished record is a new version naming the event that caused it: an event "
            "of this match, or of a playoff game that settled it. Oldest first; an empty list while the "
            "game is not finished. Each version's record is at `/matches/{match}/record?version=N`."
        ),
        answers={
            200: _answer("the versions, oldest first", {"type": "array", "items": _ref("VersionSummary")})
        },
        tag="read",
    ),
    Route(
        "GET",
        "/matches/{match}/board",
        get_board,
        PUBLIC,
        "The public board after the last applied event",
        answers={200: _answer("the board (msgpack with Accept: application/msgpack)", "Board", msgpack=True)},
        tag="read",
    ),
    Route(
        "GET",
        "/matches/{match}/events",
        get_events,
        READERS,
        "The archive: every event in the order the engine saw it",
        description=(
            "A judge gets the events as sent, hidden cards included (audited); an organizer gets each "
            "event's public projection (`redacted: true` where fields were left out)."
        ),
        query=(Param("format", enum=("jsonl", "msgpack"), description="msgpack: a stream of maps"),),
        answers={
            200: _answer(
                "JSON Lines, or a msgpack stream", {"type": "string"}, "application/x-ndjson", msgpack=True
            )
        },
        tag="read",
    ),
    Route(
        "GET",
        "/matches/{match}/live",
        get_live,
        PUBLIC,
        "Live public boards (Server-Sent Events)",
        answers={200: _answer("an event stream of `board` events", {"type": "string"}, "text/event-stream")},
        tag="read",
        stream=True,
    ),
    Route(
        "GET",
        "/healthz",
        healthz,
        PUBLIC,
        "Whether the store answers",
        answers={200: _answer("ok", "Health")},
        tag="service",
    ),
    Route(
        "GET",
        "/.well-known/prizecheck-keys.json",
        public_keys,
        PUBLIC,
        "The public keys signatures are checked with",
        answers={200: _answer("every key, by key id", "PublicKeys")},
        tag="service",
    ),
    Route(
        "GET",
        "/stats",
        stats,
        READERS,
        "Ingest counters and findings by code",
        answers={200: _answer("counters", "Stats")},
        tag="service",
    ),
    Route(
        "GET",
        "/openapi.json",
        openapi_json,
        PUBLIC,
        "This document",
        answers={200: _answer("OpenAPI 3.1", {"type": "object"})},
        tag="service",
    ),
    Route(
        "GET",
        "/docs",
        docs_page,
        PUBLIC,
        "The API reference page (offline)",
        answers={200: _answer("HTML", {"type": "string"}, "text/html")},
        tag="service",
    ),
    Route(
        "GET",
        "/static/{path}",
        static_file,
        PUBLIC,
        "The pages' static files",
        answers={200: _answer("a file", {"type": "string"}, "")},
        tag="pages",
        pattern="/static/{path:.+}",
    ),
    Route(
        "GET",
        "/login",
        login_page,
        PUBLIC,
        "The judges' login page",
        query=(LANG,),
        answers={200: _answer("HTML", {"type": "string"}, "text/html")},
        tag="access",
    ),
    Route(
        "POST",
        "/login",
        login,
        PUBLIC,
        "Log in with a token: sets the session cookie (HttpOnly, SameSite=Strict)",
        answers={200: _answer("logged in; the cookie is set", "Login")},
        body={
            "application/x-www-form-urlencoded": {
                "type": "object",
                "required": ["token"],
                "properties": {"token": {"type": "string"}, "next": {"type": "string"}},
            },
            "application/json": {
                "type": "object",
                "required": ["token"],
                "properties": {"token": {"type": "string"}, "next": {"type": "string"}},
            },
        },
        tag="access",
    ),
    Route(
        "POST",
        "/logout",
        logout,
        PUBLIC,
        "Log out: clears the session cookie",
        answers={200: _answer("logged out", {"type": "object"})},
        tag="access",
    ),
)


# --------------------------------------------------------------------------------------- middleware
_CODES = {
    400: "bad_request",
    404: "not_found",
    405: "method_not_allowed",
    408: "timeout",
    413: "body_too_large",
    414: "uri_too_long",
    415: "unsupported_media_type",
    431: "headers_too_large",
}


@web.middleware
async def json_errors(request: web.Request, handler: Callable[[web.Request], Any]) -> web.StreamResponse:
    """Errors are JSON on every route, 404 and 405 included; a store failure is a 503, never a traceback.

    The one place every error is answered in the reader's language (routes.speak: ``?lang=``, then
    ``Accept-Language``; English otherwise, as before): the sentence changes, never ``code``."""
    try:
        response: web.StreamResponse = await handler(request)
        return response
    except Problem as exc:
        if exc.status == 408:
            return await _answer_and_close(request, speak(request, exc))
        raise speak(request, exc) from None
    except web.HTTPException as exc:
        if exc.status < 400:
            raise
        code = _CODES.get(exc.status, "error")
        headers = {k: v for k, v in exc.headers.items() if k in ("Allow", "Retry-After", "WWW-Authenticate")}
        if exc.status == 413:
            problem = Problem.said(
                413,
                code,
                "the body is larger than {limit} bytes",
                limit=request.app[OPTIONS]["max_body"],
                headers=headers,
            )
        elif exc.status == 404:
            problem = Problem.said(
                404, code, "no such resource: {path}", path=request.path[:200], headers=headers
            )
        elif exc.status == 405:
            problem = Problem.said(
                405,
                code,
                "{method} is not allowed on {path}",
                method=request.method,
                path=request.path[:200],
                headers=headers,
            )
        else:  # an HTTP reason phrase (aiohttp's): a protocol's words, quoted
            problem = Problem.quoting(
                exc.status, code, "the request was refused: {words}", exc.reason, headers=headers
            )
        return respond(speak(request, problem))
    except CopyRefused as exc:
        return await _copy_refused(request, exc)
    except (OSError, ConnectionError, TimeoutError) as exc:
        return respond(speak(request, _unavailable(exc)))
    except StoreContention as exc:  # another writer kept moving a match: send again (stored ones: duplicates)
        return respond(
            speak(
                request,
                Problem.reading(503, "store_contention", CONTENTION, str(exc), headers={"Retry-After": "1"}),
            )
        )
    except Exception as exc:
        if type(exc).__module__.startswith("redis"):
            return respond(speak(request, _unavailable(exc)))
        log.exception("unexpected error on %s %s", request.method, request.path)
        return respond(
            speak(
                request,
                Problem.said(
                    500,
                    "internal",
                    "internal error ({kind}); the service log has the details",
                    kind=type(exc).__name__,
                ),
            )
        )


def _unavailable(exc: BaseException) -> Problem:
    return Problem.said(503, "store_unavailable", "store unavailable: {error}", error=exc)


async def _copy_refused(request: web.Request, exc: CopyRefused) -> web.Response:
    """An archived match whose cold copy is not the one archived: never served (every reader of the
    archive reaches the store's refusal); the tamper alarm is raised, and the answer is a 500 naming the
    match and what is wrong (docs/http-api.md, ``archive_copy``)."""
    try:
        await request.app[CORE].copy_refused(exc.match)
    except Exception as failed:  # the answer stands: the copy is refused whether or not the alarm landed
        log.warning("match %s: the tamper alarm for its archive copy failed: %s", exc.match, failed)
    return respond(
        speak(
            request,
            Problem.said(
                500,
                "archive_copy",
                "match {match}: its archived events are not served: {problem}; a tamper alarm is raised",
                match=exc.match,
                problem=exc.problem,
            ),
        )
    )


async def _answer_and_close(request: web.Request, problem: Problem) -> web.StreamResponse:
    """A body that did not arrive in time: answer 408, then close the connection at once (aiohttp would
    otherwise wait up to its lingering time for the rest of the body: an idle connection held open)."""
    response = respond(problem)
    response.force_close()
    await response.prepare(request)
    await response.write_eof()
    request.protocol.force_close()  # the answer is written: the transport sends it, then closes
    return response


def make_app(
    core: IngestCore,
    store: Store,
    *,
    access: Access | None = None,
    flush_interval: float | None = None,
    heartbeat: float = 15.0,
    max_body: int = 8 * 1024 * 1024,
    max_events: int = 10_000,
    body_timeout: float = 30.0,
    max_streams: int = 5000,
    max_client_streams: int = 100,
    pages: bool = True,
) -> web.Application:
    """The aiohttp application. With ``flush_interval``, a background task reports timed-out gaps.

    ``access``: the access policy (its token book and the audit log); None means **no authentication**
    (every caller has every role: what ``--insecure-no-auth`` runs, and what tests of other parts use).
    With ``pages`` (and :mod:`streams.http.pages` present), the web pages (review, overlay, match list) too.
    """
    app = web.Application(client_max_size=max_body, middlewares=[json_errors])
    app[CORE] = core
    app[STORE] = store
    app[ACCESS] = access or Access(store)
    app[BODY_TIMEOUT] = body_timeout
    app[OPTIONS] = {
        "heartbeat": heartbeat,
        "max_events": max_events,
        "max_body": max_body,
        "body_timeout": body_timeout,
    }
    app[DELAY] = delay = Delay(store)
    hub = LiveHub(store, max_streams=max_streams, max_client_streams=max_client_streams, delay=delay)
    app[HUB] = hub
    init_table(app, guard)
    register(app, API_ROUTES)
    from streams.http.scans import scan_routes  # the crops of scanned game sheets, for judges

    register(app, scan_routes())
    from streams.http.decks import deck_routes  # registered deck lists, for judges (docs/decks.md)

    register(app, deck_routes())
    if pages:
        try:
            from streams.http.pages import add_pages
        except ImportError:  # the pages are optional: the API works without them
            pass
        else:
            add_pages(app)

    async def live_hub(app: web.Application) -> AsyncIterator[None]:
        await hub.start()
        yield

    async def end_streams(app: web.Application) -> None:
        await hub.stop()  # or the server would wait for the viewers to hang up

    app.cleanup_ctx.append(live_hub)
    app.on_shutdown.append(end_streams)
    if flush_interval is not None:
        interval = flush_interval

        async def flusher(app: web.Application) -> AsyncIterator[None]:
            async def loop() -> None:
                recovered = False
                me = asyncio.current_task()
                while me is None or not me.cancelling():
                    # (a redis-py call interrupted by the cancellation may swallow it: hence the check)
                    await asyncio.sleep(interval)
                    try:
                        if not recovered:
                            # events a previous process left waiting behind a gap: their wait starts
                            # now, so they are released after the gap timeout with no further event
                            found = await core.recover()
                            recovered = True
                            if found:
                                log.info("%d matches with events waiting behind a gap", len(found))
                        await core.flush_gaps()
                    except (RedisConnectionError, RedisTimeoutError, OSError):
                        pass  # the store is down: serve's watcher says so (streams/http/health.py); next tick
                    except Exception as exc:  # anything else: one line, and try again at the next tick
                        log.warning(
                            "recovering or flushing timed-out gaps failed: %s: %s", type(exc).__name__, exc
                        )

            task = asyncio.create_task(loop())
            yield
            task.cancel()
            with contextlib.suppress(BaseException):
                await task

        app.cleanup_ctx.append(flusher)
    return app
