"""The web pages (docs/web.md): the judges' review page, the streamers' overlay and the match list.

:func:`add_pages` registers them on an app built by :func:`streams.http.api.make_app`, reading its store
(:data:`streams.http.keys.STORE`). Pages are Jinja2 templates (``streams/http/templates/``, rendered by
:mod:`streams.http.templating`: autoescaped, one chrome) with plain CSS/JS from ``streams/http/static/``
(no build step, no CDN). The review page reads one JSON endpoint and steps through the game by itself:

- ``GET /review/<match>/meta``: the stored record, the battle log and every step of the game (the board
  after each event as a delta of the one before: :mod:`streams.http.frames`), from one fold of the
  archive; with ``?from=&to=``, a window of those steps and their log lines, folded no further than its
  end (:mod:`streams.http.review_window`): the page opens on the first and reads the others after it;
- ``GET /review/<match>/state?seq=N``: one step, the same fold's (for scripts and tests).

The overlay (``GET /overlay/<match>``) reads only ``/matches/<match>/live`` (the public board over SSE) and
``/overlay/<match>/score``. Match ids contain ``/``, so the per-match routes are tail routes; a tail ending
in ``/meta``, ``/state`` or ``/score`` is the JSON endpoint of the match before it.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final
from urllib.parse import quote, urlencode

import msgspec
from aiohttp import web
from markupsafe import Markup

from replay import collector, i18n
from replay.docs import RULES
from replay.engine import RecordError, Result, public_event
from replay.i18n import N_
from replay.records import Record, from_msgpack
from replay.series import match_result, series_key
from streams.http.access import AUDIT_DETAIL, HIDDEN_SERVED, PRINCIPAL, match_scopes
from streams.http.battle_log import (
    RULE_OF_FINDING,
    battle_log,
    decode,
    display_moves,
    display_names,
    finding_shown,
    reason_words,
    rule_ref,
)
from streams.http.delay import Reader, reader
from streams.http.frames import SNAPSHOT, frames, replay_steps
from streams.http.keys import STORE
from streams.http.lru import ByteBoundLRU
from streams.http.overlay import overlay_page
from streams.http.prompts import playoff_records, prompts
from streams.http.review_window import (
    FOLD_CACHE_BYTES,
    ReviewFold,
    card_names,
    public_output,
    public_step,
    record_fields,
)
from streams.http.routes import LANG, MATCH, QUERY, Answer, Param, Problem, Route, page_lang, register
from streams.http.templating import event_language, install, render, words
from streams.store.base import SEARCH_HELP, SEARCH_MAX, top_finding

if TYPE_CHECKING:
    from streams.store import ArchivedEvent, IndexEntry

STATIC_DIR = Path(__file__).resolve().parent / "static"
LIST_LIMIT = 50

_PAGES_ADDED: web.AppKey[bool] = web.AppKey("pages_added", bool)


#: The pages' JSON, encoded by msgspec: 6-7x json.dumps's speed on a 50,000-event game's review data
#: (17 MB), byte for byte the same (compact, UTF-8 as it is). A binary extra field kept from a msgpack
#: event is written as base64, msgspec's way for bytes.
_ENCODE = msgspec.json.Encoder().encode


def _json(obj: Any, status: int = 200) -> web.Response:
    return web.Response(
        body=_ENCODE(obj),
        status=status,
        content_type="application/json",
        charset="utf-8",
        headers={"Cache-Control": "no-store"},
    )


def _no_events(match: str) -> Problem:
    return Problem.said(404, "not_found", "match {match}: no events archived", match=match)


# ------------------------------------------------------------------------------------------- review
async def review_page(request: web.Request) -> web.StreamResponse:
    """GET /review/<match>: the judges' review page (its script reads ``/meta``); a match the store does
    not hold is a 404 that says so (an HTML page to a browser)."""
    match = request[MATCH]
    store = request.app[STORE]
    raw = await store.record(match)
    if raw is None and not await store.events(match):
        raise _no_events(match)
    record = from_msgpack(raw, match=match) if raw is not None else None
    from streams.http.rulings import penalty_kinds, prize_counts

    ruleset = record.ruleset if record else "play-2026"
    return render(
        request,
        "review.html",
        match=match,
        players=[str(p) for p in record.players] if record else [],
        penalties=penalty_kinds(ruleset),
        prize_counts=prize_counts(ruleset),
        setting=event_language(record.context) if record else None,
        first_window=first_window_url(request, match),
    )


def first_window_url(request: web.Request, match: str) -> str:
    """The page's first window (``/meta?from=0&to=<FIRST_WINDOW>``, with the page's ``view`` and ``lang``),
    which its ``<link rel="preload">`` fetches while the page's scripts load; static/review.js asks for
    the link's own URL (``firstWindow``), so the preload answers it: one spelling of the address."""
    query: list[tuple[str, str]] = []
    if request.query.get("view") == "public":
        query.append(("view", "public"))
    lang = request.query.get("lang")
    if lang:
        query.append(("lang", lang))
    query += [("from", "0"), ("to", str(FIRST_WINDOW))]
    return f"/review/{quote(match, safe='/')}/meta?{urlencode(query)}"


async def _archive(request: web.Request) -> tuple[str, list[ArchivedEvent]]:
    match = request[MATCH]
    entries = await request.app[STORE].events(match)
    if not entries:
        raise _no_events(match)
    return match, entries


async def review_meta(request: web.Request) -> web.StreamResponse:
    """GET /review/<match>/meta[?view=public]: the record, the battle log and every step of the game (one
    fold); ``view=public``: as a spectator saw them. The answer is kept (:data:`_META_CACHE`) under what it
    is made of, so the game opened again, unchanged, is not folded again."""
    query = request[QUERY]
    public = query.get("view") == "public"
    if "from" in query or "to" in query:
        body = await _window(request, public, query.get("from", 0), query.get("to"))
        return web.Response(
            body=body, content_type="application/json", charset="utf-8", headers={"Cache-Control": "no-store"}
        )
    inputs = await _meta_inputs(request)
    key = inputs.key(public)
    cache = request.app[_META_CACHE]
    kept = cache.get(key)
    if kept is None:
        # folded and encoded with the cycle collector paused, and what was built dropped before it runs
        # again: it would otherwise walk every step once more at its next collection
        with collector.paused():
            kept = _ENCODE(_meta(inputs, public))
        cache.put(key, kept)
    return web.Response(
        body=kept, content_type="application/json", charset="utf-8", headers={"Cache-Control": "no-store"}
    )


async def _window(request: web.Request, public: bool, start: int, stop: int | None) -> bytes:
    """``/meta?from=&to=``: the steps ``from`` to ``to`` (a step index; ``to`` by default the window's
    end at :data:`WINDOW` steps on), from the match's kept fold (:mod:`streams.http.review_window`)."""
    if stop is None:
        stop = start + WINDOW
    if stop < start:
        raise Problem.said(
            400,
            "bad_parameter",
            "to must not be before from: from {start}, to {stop}",
            start=start,
            stop=stop,
        )
    store, match = request.app[STORE], request[MATCH]
    state = await store.state(match)
    stored = await store.record(match)
    playoff = await playoff_records(store, match)
    typed = from_msgpack(stored, match=match) if stored is not None else None
    lang = page_lang(request, event_language(typed.context) if typed is not None else None)
    folds = request.app[_FOLDS]
    # Every entry archived moves the archive's chain head and the record's write count (the store's
    # state): the fold kept under them is this archive's, found without reading its entries again (a
    # 50,000-event game's are seconds to read, for each of its windows). A store with no chain head
    # keys the fold by a digest of every entry, as the whole answer is.
    quick = (
        (match, public, lang, state.head, state.writes, state.chain, stored, _playoff_key(playoff))
        if state.chain is not None
        else None
    )
    fold = folds.get(quick) if quick is not None else None
    if fold is None:
        key = quick
        if key is None:
            _, entries = await _archive(request)
            key = _MetaInputs(match, entries, stored, playoff, typed, lang).key(public)
        fold = folds.get(key)
        if fold is None:
            extent = await store.extent(match)
            if not extent.entries:
                raise _no_events(match)
            fold = ReviewFold(match, extent, public, lang, typed, playoff)
            folds.put(key, fold)
    async with fold.lock:
        # the archive read a range at a time, as far as this window needs (its steps, the one after,
        # an attack to its end): a long game's first window reads its first few hundred entries
        while fold.wants(stop):
            fold.read(await store.events_after(match, fold.after, READ))
        # folded with the cycle collector paused, as the whole answer is (review_meta)
        with collector.paused():
            body = fold.window(start, stop)
    folds.trim()
    return body


def _fold_size(fold: ReviewFold) -> int:
    """A kept fold's bytes: its encoded steps so far (it grows as windows are read)."""
    return fold.size


def _playoff_key(playoff: Mapping[str, Record]) -> tuple[tuple[str, bytes], ...]:
    """The playoff games' records, by their bytes (a new version is new bytes)."""
    return tuple(sorted((name, _ENCODE(record.to_json())) for name, record in playoff.items()))


#: The steps a window holds when its ``to`` is not given.
WINDOW: Final = 256
#: The steps of the review page's first window (static/review.js ``FIRST``: one board snapshot, as few
#: as fill the log's view), which its HTML preloads (:func:`first_window_url`).
FIRST_WINDOW: Final = 64
#: The archive entries a window reads from the store at a time (:meth:`Reader.events_after`): the first
#: window's 256 steps and the one after are one read for most games, a 4,096-step window a few.
READ: Final = 512
#: The folds of the last matches reviewed in windows, the least recently used dropped past
#: :data:`FOLD_CACHE_BYTES` of encoded steps in all (the one in use is never dropped).
_FOLDS: web.AppKey[ByteBoundLRU[tuple[Any, ...], ReviewFold]] = web.AppKey("review_folds", ByteBoundLRU)


@dataclass(frozen=True)
class _MetaInputs:
    """What a match's review answer is made of: its archive, its stored record, its playoff games' records
    and the page's language."""

    match: str
    entries: list[ArchivedEvent]
    stored: bytes | None
    playoff: dict[str, Record]
    typed: Record | None
    lang: str

    def key(self, public: bool) -> tuple[Any, ...]:
        """The answer's key: every entry of the archive (a digest of their positions, kinds and bytes: a
        few ms for 50,000), the records by their bytes (a new version is new bytes), the view, the
        language."""
        digest = hashlib.blake2b(digest_size=16)
        for e in self.entries:
            digest.update(b"%d %d %s %d:" % (e.position[0], e.position[1], e.kind.encode(), len(e.data)))
            digest.update(e.data)
        return (self.match, public, self.lang, digest.digest(), self.stored, _playoff_key(self.playoff))


#: The bytes of review answers kept in all: three 50,000-event games.
META_CACHE_BYTES: Final = 64 * 1024 * 1024
#: The last review answers (``/meta``'s bytes) by :meth:`_MetaInputs.key`, the least recently used dropped
#: past :data:`META_CACHE_BYTES` in all (one larger is not kept). A 50,000-event game's answer is ~18 MB
#: and seconds of fold; a judge opens the same game again and again (from the match list, a case, a deep
#: link).
_META_CACHE: web.AppKey[ByteBoundLRU[tuple[Any, ...], bytes]] = web.AppKey("review_meta_cache", ByteBoundLRU)


async def _meta_inputs(request: web.Request) -> _MetaInputs:
    match, entries = await _archive(request)
    stored = await request.app[STORE].record(match)
    playoff = await playoff_records(request.app[STORE], match)
    typed = from_msgpack(stored, match=match) if stored is not None else None
    lang = page_lang(request, event_language(typed.context) if typed is not None else None)
    return _MetaInputs(match, entries, stored, playoff, typed, lang)


async def meta_of(request: web.Request, *, public: bool = False) -> dict[str, Any]:
    """What the review page shows of the request's match: the record, the battle log and every step.

    ``public``: what a spectator saw (the judge's perspective switch): the same boards (a board is public
    already: counts for hidden zones), with every event, the battle log, the derived outputs and the record
    as their public projections (replay.engine.public): no hidden card, no judge-only detail."""
    inputs = await _meta_inputs(request)
    # One fold, with no await inside: every step of a long game lives on until the answer is written,
    # and the cycle collector walked them again and again (11-12 s of a 50,000-event game's 14 s).
    with collector.paused():
        return _meta(inputs, public)


def _meta(inputs: _MetaInputs, public: bool) -> dict[str, Any]:
    """:func:`meta_of`'s answer from its inputs (call it with the cycle collector paused)."""
    match, entries, playoff, typed, lang = (
        inputs.match,
        inputs.entries,
        inputs.playoff,
        inputs.typed,
        inputs.lang,
    )
    events = decode(entries)
    steps, game = replay_steps(entries, events)
    timeline = game.resolved().timeline
    if public:
        events = [public_event(e) for e in events]
        steps = [public_step(step) for step in steps]
        timeline = [public_output(o) for o in timeline]
    log = battle_log(entries, events, timeline, lang)
    for step in steps:  # each finding's sentence in the page's language (the record stays as stored)
        step["outputs"] = [
            finding_shown(o, lang) if o.get("type") == "finding" else o for o in step.get("outputs") or []
        ]
    shown = frames(steps)
    names = display_names(card_names(events), lang)
    due = [{"id": p["id"], "text": p["text"]} for p in prompts(game, playoff, lang)]
    extra = [
        {"position": list(e.position), "kind": e.kind, "type": ev.get("type")}
        for e, ev in zip(entries, events, strict=True)
        if e.kind != "event"
    ]
    return {
        "match": match,
        "view": "public" if public else "judge",
        "first": steps[0]["seq"],
        "last": max(e.position[0] for e in entries),
        "steps": [[step["seq"], (step["event"] or {}).get("type")] for step in steps],
        "extra": extra,
        # each of the record's findings' sentences in the page's language (a judge's view: each detail too)
        **record_fields(typed, public, lang),
        "log": log,
        # what the rules ask for next at the archive's head (replay.due, in the console's words)
        "due": due,
        "rules": {code: rule_ref(code) for code in RULE_OF_FINDING},
        "names": names,
        "lang": lang,
        "frames": shown,
        "snapshot": SNAPSHOT,  # every this many frames a board is whole; a delta of the one before between
    }


def state_at(steps: Sequence[Mapping[str, Any]], seq: int) -> dict[str, Any]:
    """The state at ``seq``: its step, or, in a gap of the archive (no event at ``seq``), the board of the
    step before with no event and nothing derived."""
    lo, hi = 0, len(steps) - 1
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if steps[mid]["seq"] <= seq:
            lo = mid
        else:
            hi = mid - 1
    step = dict(steps[lo])
    if step["seq"] != seq:
        step.update(seq=seq, event=None, extra=[], outputs=[])
    return step


async def review_state(request: web.Request) -> web.StreamResponse:
    """GET /review/<match>/state?seq=N: the event at N, the board after it, its derived outputs."""
    match, entries = await _archive(request)
    last = max(e.position[0] for e in entries)
    seq = min(max(request[QUERY].get("seq", last), 1), last)
    steps, _ = replay_steps(entries, decode(entries), until=seq)
    state = state_at(steps, seq)
    state.pop("due", None)
    return _json({"match": match, "last": last, **state})


# ------------------------------------------------------------------------------------------ overlay
async def overlay(request: web.Request) -> web.StreamResponse:
    """GET /overlay/<match>: the streamers' overlay page (it reads /matches/<match>/live itself)."""
    match = request[MATCH]
    try:  # the event's language for its overlay, when its match_start chose one (context.lang)
        record = await _record(await reader(request), match)
    except RecordError:
        record = None
    setting = event_language(record.context) if record is not None else None
    return overlay_page(request, match=match, setting=setting)


async def overlay_score_route(request: web.Request) -> web.StreamResponse:
    """GET /overlay/<match>/score[?lang=ja|ko]: what the board does not carry (the best-of-three score, the
    playoff) and the names of the cards the board shows in the page's language (``names``: those shown
    otherwise than the events write them; from the match's public events only, and under a broadcast
    delay only those that had arrived by its cutoff, streams/http/delay.py)."""
    store, match = request.app[STORE], request[MATCH]
    matches = await reader(request)
    out = await overlay_score(matches, match)
    entries = await store.events(match)
    seen = await matches.seen(match)
    if seen is not None:
        entries = seen.shown(entries)
    events = [public_event(e) for e in decode(entries)]
    try:  # the overlay page's own language: the event's, when its match_start chose one
        record = await _record(matches, match)
    except RecordError:
        record = None
    lang = page_lang(request, event_language(record.context) if record is not None else None)
    out["names"] = display_names(card_names(events), lang, source=False)
    out["moves"] = display_moves(events, lang)
    return _json(out)


def _public_result(result: Result | None) -> dict[str, Any] | None:
    if not result:
        return None
    return {
        "outcome": result.outcome,
        "winner": result.winner,
        "loser": result.loser,
        "reason": result.reason,
        "decided_at": result.decided_at,
    }


async def _record(matches: Reader, match: str) -> Record | None:
    """``match``'s record as the caller may see it, as its typed value (:mod:`replay.records`), None when
    there is none."""
    data = await matches.record(match)
    return from_msgpack(data, match=match) if data is not None else None


async def overlay_score(matches: Reader, match: str) -> dict[str, Any]:
    """The public summary the overlay shows beside the live board: the record's status and result (a
    parent is settled by its playoff after its board stopped changing), the playoff and its state, and the
    score of the best-of-three the game belongs to (``context.series``, replay/series.py) as it stood in
    this game."""
    record = await _record(matches, match)
    if record is None:
        return {"match": match, "status": None, "result": None, "playoff": None, "series": None}
    playoff = None
    po = record.playoff
    if po and po.child:
        child = await _record(matches, po.child)
        decided = record.status == "finished"
        playoff = {
            "child": po.child,
            "kind": po.kind,
            "state": "decided" if decided else "playing" if child and child.status else "pending",
        }
    playing = record.playoff_of
    return {
        "match": match,
        "status": record.status,
        "result": _public_result(record.result),
        "playoff": playoff,
        "playoff_of": {"kind": playing.kind, "parent": record.parent} if playing else None,
        "series": await _series(matches, record),
    }


def _game_number(record: Record) -> int:
    try:
        return int((record.context or {}).get("game") or 0)
    except (TypeError, ValueError):
        return 0


async def _series(matches: Reader, record: Record) -> dict[str, Any] | None:
    """The score of the match (best of three) ``record`` is a game of, as it stood in that game: this game
    and the ones before it (``context.game``), never the later ones (a replay of game 1 after the match
    shows 1–0, not the final score)."""
    key = series_key(record)
    players = record.players
    if key is None or len(players) != 2:
        return None
    ctx = record.context or {}
    this = (_game_number(record), str(record.match))
    # the games of these two players in the league and season: a small set, whatever the index's size
    store = matches.store
    names = await store.matches(league=ctx.get("league"), season=ctx.get("season"), player=str(players[0]))
    entries = [e for e in await store.index_entries(names) if str(players[1]) in e.players]
    games = []
    for entry, raw in zip(entries, await matches.records([e.match for e in entries]), strict=True):
        rec = from_msgpack(raw, match=entry.match) if raw is not None else None
        if rec is not None and series_key(rec) == key and (_game_number(rec), str(rec.match)) <= this:
            games.append(rec)
    if not any(g.match == record.match for g in games):
        games.append(record)
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
PLAYOFF_WORDS = {
    "sudden_death": N_("sudden death"),
    "tiebreak": N_("tiebreak"),
    "tiebreaker_game": N_("tiebreaker game"),
}


RESULT_STATUS = {
    "in_progress": N_("in progress"),
    "finished": N_("finished"),
    "awaiting_playoff": N_("awaiting playoff"),
}


def result_text(record: Record | None, lang: str = i18n.DEFAULT) -> str:
    """A one-line human summary of a record's status and result in ``lang`` (public: no free text of an
    event)."""

    def tr(message: str) -> str:
        return i18n.gettext(lang, message)

    if record is None:
        return tr("no record yet")
    result = record.result
    status = record.status
    if not result:
        return tr(RESULT_STATUS.get(str(status), N_("in progress")))
    outcome = result.outcome
    reason = reason_words(result.reason, lang)
    at = result.decided_at
    where = tr(" at seq {seq}").format(seq=at) if at is not None else ""
    if outcome == "win":
        text = tr("{winner} beat {loser} by {reason}").format(
            winner=result.winner, loser=result.loser, reason=reason
        )
    elif outcome == "draw":
        text = tr("draw ({reason})").format(reason=reason)
    else:
        text = tr("no winner ({reason})").format(reason=reason)
    text += where
    po = record.playoff
    if status == "awaiting_playoff" and po:
        kind = tr(PLAYOFF_WORDS[po.kind]) if po.kind in PLAYOFF_WORDS else tr("playoff")
        text += tr("; {kind} {child} pending").format(kind=kind, child=po.child)
    return text


def _link(path: str, match: str) -> str:
    return f"/{path}/{quote(match, safe='/:')}"


STATUSES = ("in_progress", "finished", "awaiting_playoff")
SORT_LABELS = {
    "match": N_("match id, A to Z"),
    "-match": N_("match id, Z to A"),
    "-findings": N_("games to review: violations first"),
    "findings": N_("fewest findings first"),
}
PAGE_SIZES = (25, 50, 100, 200)
SEVERITIES = (("violation", "violations"), ("warning", "warnings"), ("info", "info"))


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


async def match_list(request: web.Request) -> web.Response:
    """GET /ui?q=&league=&season=&status=&player=&sort=&page=&limit=: one page of the indexed matches.

    The page comes from the index (:meth:`Store.index_page`: ``q`` finds a part of a match id, a player,
    an event, a round or a table); only its rows' records are read. The league and season pick lists are
    those the caller's scope reaches (every one for an unscoped caller: the list is public).
    """
    store = request.app[STORE]
    filters, sort, number, size = _list_query(request[QUERY])
    where = {k: v for k, v in filters.items() if k != "q"}
    try:
        page = await store.index_page(
            **where, search=filters.get("q"), sort=sort, offset=(number - 1) * size, limit=size
        )
    except ValueError as exc:  # a search longer than the store takes: the route bounds it first
        raise Problem.said(400, "bad_parameter", "q: {exc}", exc=exc) from None
    pages = max(1, -(-page.total // size))
    if number > pages and page.total:  # past the end (the list shrank): the last page instead
        raise web.HTTPFound(_list_url(filters, sort, pages, size))
    principal = request[PRINCIPAL]
    scope = principal.leagues if principal.scoped and principal.leagues else None
    leagues = await store.index_names("league", leagues=scope)
    seasons = await store.index_names("season", leagues=scope)
    # a match under a broadcast delay shows as the public sees it (streams/http/delay.py)
    matches = await reader(request)
    entries = await matches.entries(page.entries, where)
    raws = await matches.records([e.match for e in entries])
    hidden = await _sees_hidden(request, [e.match for e in entries])
    rows = []
    for entry, raw, judge in zip(entries, raws, hidden, strict=True):
        try:
            record = from_msgpack(raw, match=entry.match) if raw is not None else None
            rows.append(_row(entry, record, judge=judge))
        except RecordError:  # one unreadable record must not take the list down
            rows.append(_row(entry, None, unreadable=True))
    detailed = [row["match"] for row in rows if row["top"] and row["top"].get("detail")]
    if detailed:  # a judge read what the public projection leaves out: audited, as on the review page
        request[HIDDEN_SERVED] = True
        request[AUDIT_DETAIL] = "the match list's top findings' detail of " + ", ".join(detailed[:20])
    first = (number - 1) * size + 1
    lang = page_lang(request)
    for row in rows:  # the top finding's sentence in the page's language (the record keeps its English)
        if row["top"]:
            row["top"] = finding_shown(row["top"], lang)

    def tr(message: str) -> str:
        return i18n.gettext(lang, message)

    if page.too_broad:
        summary = tr("“{q}” would look through too many matches: pick a league, season or status").format(
            q=filters["q"]
        )
    elif page.total:
        summary = tr("matches {first}–{last} of {total}").format(
            first=first, last=first + len(rows) - 1, total=page.total
        )
    else:
        summary = tr("no matches")
    if where:
        summary += tr(" where {filters}").format(filters=", ".join(f"{k} = {v}" for k, v in where.items()))
    if filters.get("q") and not page.too_broad:
        summary += tr("; “{q}” in a match id, player, event, round or table").format(q=filters["q"])
    for row in rows:
        row["result"] = tr("record unreadable") if row["result"] is None else result_text(row["record"], lang)
    return render(
        request,
        "list.html",
        filters={k: filters.get(k, "") for k in ("q", "league", "season", "status", "player")},
        leagues=_choices(leagues, filters.get("league")),
        seasons=_choices(seasons, filters.get("season")),
        statuses=[("", tr("any status")), *((s, words(s, lang)) for s in STATUSES)],
        sorts=[(k, tr(v)) for k, v in SORT_LABELS.items()],
        sort=sort,
        sizes=PAGE_SIZES,
        size=size,
        summary=summary,
        number=number,
        pages=pages,
        prev_url=_list_url(filters, sort, number - 1, size) if number > 1 else None,
        next_url=_list_url(filters, sort, number + 1, size) if number < pages else None,
        rows=rows,
        severity_labels=SEVERITIES,
    )


def _choices(names: list[str], chosen: str | None) -> list[str]:
    """A pick list's names, with the one in the URL kept even when no match has it (any more)."""
    return names if not chosen or chosen in names else sorted([*names, chosen])


async def _sees_hidden(request: web.Request, matches: list[str]) -> list[bool]:
    """For each of ``matches``: may the caller read its hidden information (a judge, within its token's
    scope: :func:`streams.http.redact.sees_hidden`), the scopes read in one round trip."""
    principal = request[PRINCIPAL]
    if "judge" not in principal.roles:
        return [False] * len(matches)
    if not principal.scoped:
        return [True] * len(matches)
    return [principal.covers(*scope) for scope in await match_scopes(request.app[STORE], matches)]


def _row(
    entry: IndexEntry, record: Record | None, *, unreadable: bool = False, judge: bool = False
) -> dict[str, Any]:
    """One row of the list: what the index and the record say, severities apart; the top finding's
    public text, and its detail for a judge whose scope covers the match (``judge``). Where the entry
    was indexed before it knew the event, round, table and date, the record says them."""
    severities = dict.fromkeys((s for s, _ in SEVERITIES), 0)
    for f in record.findings if record is not None else ():
        if f.severity in severities:
            severities[f.severity] += 1
    context = (record.context if record is not None else None) or {}
    started = record.started_at if record is not None else None
    date = entry.date or (started[:10] if isinstance(started, str) and len(started) >= 10 else None)
    top: dict[str, Any] | None = None
    if record is not None and record.findings:
        shown = [(f.severity, f.code, f.seq, f.message, f.detail) for f in record.findings]
        keys = ("severity", "code", "seq", "message")
        found = top_finding(dict(zip(keys, f, strict=False)) for f in shown)
        if found is not None:
            picked = (found.severity, found.code, found.seq, found.message)
            detail = next((f[4] for f in shown if f[:4] == picked and isinstance(f[4], str)), None)
            top = {**found.as_json(), "detail": detail if judge else None}
    elif entry.top is not None:
        top = {**entry.top.as_json(), "detail": None}
    return {
        "match": entry.match,
        "review": _link("review", entry.match),
        "overlay": _link("overlay", entry.match),
        "players": " vs ".join(entry.players),
        "context": " / ".join(x for x in (entry.league, entry.season) if x),
        "event": entry.event or _shown(context.get("event")),
        "round": entry.round or _shown(context.get("round")),
        "table": entry.table or _shown(context.get("table")),
        "date": date or "",
        "status": entry.status,
        "result": None if unreadable else "",  # in the page's language: match_list
        "record": record,
        "severities": severities,
        "known": record is not None,
        "total": len(record.findings) if record is not None else sum(entry.findings.values()),
        "top": top,
    }


def _shown(value: Any) -> str:
    return "" if value is None else str(value)


# ---------------------------------------------------------------------------------------- the rest
RULES_DOC = RULES  # docs/rules.md, shipped as package data (replay/docs): found in every install
_SECTION = re.compile(r"<h([1-4])>(\d+(?:\.\d+)*)\.?\s")


def render_rules(text: str) -> str:
    """docs/rules.md as HTML; a numbered heading gets an anchor (``## 3. ...`` -> ``#s3``,
    ``### 1.3 ...`` -> ``#s1-3``), the ones the review page's findings link to."""
    from markdown_it import MarkdownIt

    body = MarkdownIt("commonmark", {"html": False}).enable("table").render(text)
    return _SECTION.sub(
        lambda m: f'<h{m[1]} id="s{m[2].replace(".", "-")}">{m[2]}{"." if "." not in m[2] else ""} ', body
    )


async def rules(request: web.Request) -> web.Response:
    """GET /rules: docs/rules.md, the rule reference the findings cite, as a page (404 without the docs)."""
    path = RULES_DOC
    try:
        text = path.read_text(encoding="utf-8")
    except OSError:
        raise Problem.said(
            404,
            "not_found",
            "the rule reference ({name}) is not installed with this copy of prizecheck",
            name=path.name,
        ) from None
    # The project's own document, rendered by markdown-it with raw HTML off: trusted markup.
    return render(request, "rules.html", body=Markup(render_rules(text)))


async def root(request: web.Request) -> web.StreamResponse:
    """GET /: the match list."""
    raise web.HTTPFound("/ui")


async def favicon(request: web.Request) -> web.StreamResponse:
    """GET /favicon.ico: the icon (what a browser asks for on a page that names none, a JSON answer)."""
    return web.FileResponse(
        STATIC_DIR / "favicon.svg",
        headers={"Content-Type": "image/svg+xml", "Cache-Control": "max-age=86400"},
    )


def page_routes() -> tuple[Route, ...]:
    """The pages' routes (see :mod:`streams.http.routes`): who may see each, and what it answers."""
    public, judge = frozenset({"public"}), frozenset({"judge"})
    html_answer = Answer("HTML", "text/html", {"type": "string"})
    # The list's form sends its empty fields too: an empty value is "not given" (blank=True).
    filters = (
        Param(
            "q",
            description=SEARCH_HELP,
            max_length=SEARCH_MAX,
            blank=True,
        ),
        Param("league", description="only this league", blank=True),
        Param("season", description="only this season", blank=True),
        Param("status", enum=STATUSES, description="only this status", blank=True),
        Param("player", description="only this player's matches (an exact id)", blank=True),
        Param(
            "sort",
            enum=tuple(SORT_LABELS),
            description="the order of the rows (-findings: games to review, violations first)",
            default="match",
            blank=True,
        ),
        # at most a million pages: past the end is the last page, and an offset beyond that is no page
        Param("page", "integer", "the page, from 1", minimum=1, maximum=1_000_000, default=1, blank=True),
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
            query=(*filters, LANG),
            answers={200: html_answer},
            tag="pages",
        ),
        Route(
            "GET",
            "/review/{match}",
            review_page,
            judge,
            "The judges' review page",
            query=(LANG,),
            answers={200: html_answer},
            page=True,
            tag="pages",
        ),
        Route(
            "GET",
            "/review/{match}/meta",
            review_meta,
            judge,
            "The review page's record, battle log and every step of the game",
            query=(
                Param(
                    "view", enum=("judge", "public"), description="public: as a spectator saw it", blank=True
                ),
                Param(
                    "from",
                    "integer",
                    "a window of the game: its first step (an index, taken down to a multiple of the"
                    " answer's snapshot); with from or to, the steps from..to only and their log lines",
                    minimum=0,
                ),
                Param(
                    "to",
                    "integer",
                    "the window's end (a step index, exclusive; default from + 256)",
                    minimum=0,
                ),
                LANG,
            ),
            answers={200: Answer("the record, the log and the steps", schema={"type": "object"})},
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
            query=(LANG,),
            answers={200: html_answer},
            tag="pages",
        ),
        Route(
            "GET",
            "/overlay/{match}/score",
            overlay_score_route,
            public,
            "What the overlay shows beside the board: status, result, playoff state, best-of-three score",
            query=(LANG,),
            answers={200: Answer("the public summary", schema={"type": "object"})},
            tag="pages",
        ),
        Route(
            "GET",
            "/rules",
            rules,
            public,
            "The rule reference the findings cite (docs/rules.md as a page)",
            query=(LANG,),
            answers={200: html_answer},
            tag="pages",
        ),
        Route(
            "GET",
            "/favicon.ico",
            favicon,
            public,
            "The service's icon",
            answers={200: Answer("an SVG image", "image/svg+xml", {"type": "string"})},
            tag="pages",
        ),
    )


def add_pages(app: web.Application) -> None:
    """Register the pages on an app built by :func:`streams.http.api.make_app` (calling it twice is harmless).

    Routes: ``/`` (redirect to ``/ui``), ``/ui`` (match list), ``/review/<match>`` with ``/meta`` and
    ``/state?seq=N``, ``/overlay/<match>`` with ``/score``, ``/rules`` (docs/rules.md), ``/favicon.ico``;
    and, on every answer of the app, the page headers (:func:`streams.http.templating.install`).
    """
    if app.get(_PAGES_ADDED):
        return
    app[_PAGES_ADDED] = True
    app[_META_CACHE] = ByteBoundLRU[tuple[Any, ...], bytes](META_CACHE_BYTES, len)
    app[_FOLDS] = ByteBoundLRU(FOLD_CACHE_BYTES, _fold_size)
    install(app)
    from streams.http.tables import table_routes  # stream tables and slots (before /overlay/{match})

    register(app, table_routes())
    register(app, page_routes())
    from streams.http.card_images import card_image_routes  # the organiser's card image pack

    register(app, card_image_routes())
    from streams.http.casefile import case_routes  # the judge's case file
    from streams.http.console import add_console  # the table console (docs/console.md)
    from streams.http.intake import add_import  # the import page (docs/web.md, "Import")
    from streams.http.players import player_routes  # a player's penalties across the games
    from streams.http.rulings import ruling_routes  # a judge acts from the review page

    add_console(app)
    add_import(app)
    register(app, ruling_routes())
    register(app, case_routes(meta_of, render_rules))
    register(app, player_routes())
