"""Registered deck lists over HTTP (docs/http-api.md, "Deck lists"; docs/decks.md).

``PUT /decks/{event}/{player}`` registers a list (the body: PTCGL's export as text, Limitless' JSON, or a
CSV; ``?format=``, else by the media type), for one match with ``?match=``; ``GET /decks/{event}`` reads
an event's lists back (with ``?play=standard|expanded&date=``, each with its breaches of the deck
rules). Deck lists are hidden information: judges only, every read in the audit log, and a token scoped
to events acts only on its own events. A malformed list is refused whole (400, naming the
line and the field), so nothing of it is stored.
"""

from __future__ import annotations

import datetime as dt

import msgpack
from aiohttp import web

from replay.engine import InputError
from replay.i18n.deckcheck import message as deck_check_text
from replay.report.links import review_link
from replay.report.names import with_card_name
from replay.sources.common import valid_match_id
from replay.sources.deckcheck import DeckChecker
from replay.sources.decks import FORMATS, MAX_BYTES, deck_key, decode, encode, parse_deck, to_json
from replay.sources.legality import FORMATS as LEGAL_FORMATS
from replay.sources.legality import check_deck, legality_data
from streams.http.access import AUDIT_DETAIL, PRINCIPAL
from streams.http.battle_log import card_in
from streams.http.keys import STORE
from streams.http.routes import MATCH, Answer, Param, Problem, Route, page_lang
from streams.tokens import Principal

JUDGES = frozenset({"judge"})
_BY_MEDIA = {"application/json": "limitless", "text/csv": "csv", "text/plain": "ptcgl"}


def _event(request: web.Request) -> str:
    event = request.match_info["event"]
    principal: Principal = request[PRINCIPAL]
    # An event's lists are reachable by event only: a token scoped to leagues alone cannot tell whether
    # an event is one of theirs, so a scoped token must name the event.
    if principal.scoped and event not in principal.events:
        raise Problem.said(
            403,
            "out_of_scope",
            "event {event} is outside this token's scope ({scope})",
            event=event,
            scope=principal.scope_text(),
        )
    return event


async def get_decks(request: web.Request) -> web.Response:
    """GET /decks/{event}: every list registered for the event (judges only)."""
    event = _event(request)
    stored = await request.app[STORE].decks(event)
    request[AUDIT_DETAIL] = f"deck lists of {event}"
    decks = [decode(data) for data in stored.values()]
    out = [to_json(d) for d in decks]
    play = request.query.get("play")
    if play:  # each list's breaches of the deck rules in that format at the date (docs/rules.md §8)
        try:
            on = dt.date.fromisoformat(request.query.get("date") or dt.date.today().isoformat())
        except ValueError:
            raise Problem.said(400, "bad_parameter", "date must be YYYY-MM-DD") from None
        for deck, shown in zip(decks, out, strict=True):
            shown["legality"] = [f.as_json() for f in check_deck(deck, play, on)]
        # where the regulation marks and set codes came from (docs/rules.md §8.2)
        return web.json_response({"event": event, "decks": out, "legality_source": legality_data().source})
    return web.json_response({"event": event, "decks": out})


async def put_deck(request: web.Request) -> web.Response:
    """PUT /decks/{event}/{player}: register (or replace) a player's list for the event or one match."""
    event = _event(request)
    player = request.match_info["player"]
    match = request.query.get("match") or None
    if match is not None and not valid_match_id(match):
        raise Problem.said(
            400, "bad_request", "match: a match id is 1-128 characters of A-Z a-z 0-9 . _ : / -"
        )
    fmt = request.query.get("format") or _BY_MEDIA.get(request.content_type, "ptcgl")
    if request.content_length is not None and request.content_length > MAX_BYTES:
        raise Problem.said(413, "too_large", "a deck list is at most {n} KiB", n=MAX_BYTES // 1024)
    body = await request.content.read(MAX_BYTES + 1)
    if len(body) > MAX_BYTES:
        raise Problem.said(413, "too_large", "a deck list is at most {n} KiB", n=MAX_BYTES // 1024)
    try:
        deck = parse_deck(body.decode("utf-8-sig"), fmt, player=player, event=event, match=match, name="body")
    except UnicodeDecodeError:
        raise Problem.said(400, "bad_deck", "body: not UTF-8 text") from None
    except InputError as exc:
        raise Problem.quoting(400, "bad_deck", "the deck list cannot be read: {words}", exc) from None
    key = deck_key(player, match)
    await request.app[STORE].put_deck(event, key, encode(deck))
    request[AUDIT_DETAIL] = f"deck list {event}/{key}: {deck.total} cards ({fmt})"
    return web.json_response(to_json(deck))


async def get_deck_check(request: web.Request) -> web.Response:
    """GET /matches/{match}/deck-check: the match's deck check against its players' registered lists
    (judges only): each finding with the link to the review page at its event."""
    match = request[MATCH]
    store = request.app[STORE]
    entries = await store.events(match)
    if not entries:
        raise Problem.said(404, "not_found", "match {match}: no events archived", match=match)
    events = [msgpack.unpackb(e.data) for e in entries if e.kind == "event"]
    context = events[0].get("context") if events and isinstance(events[0], dict) else None
    event = str(context.get("event") or "") if isinstance(context, dict) else ""
    lists = {k: decode(v) for k, v in (await store.decks(event)).items()} if event else {}
    checker = DeckChecker({event: lists})
    for ev in events:
        checker.feed(ev)
    request[AUDIT_DETAIL] = f"deck check of {match}"
    # each check's sentence in the page's language (?lang=, the match's context.lang, the browser's),
    # its card named in it; ``message`` stays the English the report's document keeps
    setting = context.get("lang") if isinstance(context, dict) else None
    lang = page_lang(request, setting if isinstance(setting, str) else None)
    card = card_in(lang)
    checks = [
        {
            **c.as_json(),
            "text": with_card_name(deck_check_text(lang, c.message), c.card, card),
            "link": review_link("", match, c.seq),
        }
        for c in checker.pop(match)
    ]
    return web.json_response({"match": match, "event": event, "lists": sorted(lists), "checks": checks})


def deck_routes() -> tuple[Route, ...]:
    """The deck-list routes (see :mod:`streams.http.routes`)."""
    deck = {"type": "object", "description": "a registered deck list (docs/decks.md)"}
    return (
        Route(
            "GET",
            "/matches/{match}/deck-check",
            get_deck_check,
            JUDGES,
            "The match's deck check: cards put into play against the registered lists (judges only)",
            answers={
                200: Answer(
                    "the findings, each linked to the review page at its event, its sentence in the "
                    "request's language beside the English ``message`` (``text``: ?lang=, the match's "
                    "context.lang, Accept-Language)"
                )
            },
            hidden=True,
            tag="decks",
        ),
        Route(
            "GET",
            "/decks/{event}",
            get_decks,
            JUDGES,
            "The deck lists registered for an event (judges only: hidden information)",
            query=(
                Param("play", enum=LEGAL_FORMATS, description="check each list's legality in this format"),
                Param(
                    "date",
                    description="the event's date for play, YYYY-MM-DD (default: today)",
                    max_length=10,
                ),
            ),
            answers={
                200: Answer(
                    "the lists",
                    schema={"type": "object", "properties": {"decks": {"type": "array", "items": deck}}},
                )
            },
            hidden=True,
            tag="decks",
            pattern="/decks/{event:[^/]+}",
        ),
        Route(
            "PUT",
            "/decks/{event}/{player}",
            put_deck,
            JUDGES,
            "Register a player's deck list for an event, or for one match of it",
            query=(
                Param(
                    "match", description="only for this match (a player who changed decks)", max_length=128
                ),
                Param("format", enum=FORMATS, description="the list's format (default: by the media type)"),
            ),
            answers={200: Answer("the list as stored", schema=deck)},
            body={
                "text/plain": {"type": "string", "description": "PTCGL's export"},
                "application/json": {"type": "object", "description": "Limitless' decklist JSON"},
                "text/csv": {"type": "string", "description": "count,name[,set,number,section]"},
            },
            audited=True,
            tag="decks",
            pattern="/decks/{event:[^/]+}/{player:[^/]+}",
        ),
    )
