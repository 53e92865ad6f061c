"""A player's penalty history (docs/web.md, "A player's penalties"): ``GET /players/<player>``, every
penalty the player was given in the games the service holds, with the game, its event, round and table,
the seq, and the judge's reason; ``?event=E`` keeps one event. Judges only: a penalty's reason is the
judge's (docs/records.md), and the read is audited.
"""

from __future__ import annotations

from typing import Any

from aiohttp import web

from replay.engine import RecordError
from replay.records import from_msgpack
from streams.http.access import AUDIT_DETAIL, PRINCIPAL, match_scopes
from streams.http.keys import STORE
from streams.http.routes import LANG, QUERY, Answer, Param, Problem, Route
from streams.http.templating import render

#: The games of one player read at the most for one page (the index gives them sorted).
MAX_GAMES = 5000


async def player_page(request: web.Request) -> web.StreamResponse:
    """GET /players/<player>?event=: the player's penalties, game by game."""
    player = request.match_info["player"]
    if not 1 <= len(player) <= 256:
        raise Problem.said(404, "not_found", "not a player id")
    event = str(request[QUERY].get("event") or "").strip() or None
    store = request.app[STORE]
    held = await store.matches(player=player)
    matches = held[:MAX_GAMES]
    principal = request[PRINCIPAL]
    if principal.scoped:  # a scoped judge sees the games of its scope only, as on every other route
        scopes = await match_scopes(store, matches)
        matches = [m for m, scope in zip(matches, scopes, strict=True) if principal.covers(*scope)]
    rows: list[dict[str, Any]] = []
    games = 0
    for match, raw in zip(matches, await store.records(matches), strict=True):
        if raw is None:
            continue
        try:
            record = from_msgpack(raw, match=match)
        except RecordError:
            continue
        context = record.context or {}
        if event is not None and context.get("event") != event:
            continue
        games += 1
        for p in record.penalties or []:
            if p.player != player:
                continue
            rows.append(
                {
                    "match": match,
                    "review": f"/review/{match}#seq={p.seq}",
                    "event": context.get("event") or "",
                    "round": context.get("round") or "",
                    "table": context.get("table") or "",
                    "seq": p.seq,
                    "kind": p.kind.replace("_", " "),
                    "reason": p.reason if isinstance(p.reason, str) else "",
                }
            )
    request[AUDIT_DETAIL] = f"penalties of player {player}" + (f" at {event}" if event else "")
    return render(
        request,
        "player.html",
        player=player,
        event=event or "",
        rows=rows,
        games=games,
        cut=len(held) - len(matches),  # said on the page, never a silently shorter history
        limit=MAX_GAMES,
    )


def player_routes() -> tuple[Route, ...]:
    """The player page's route (see :mod:`streams.http.routes`)."""
    return (
        Route(
            "GET",
            "/players/{player}",
            player_page,
            frozenset({"judge"}),
            "A player's penalties across the games the service holds (judges: the reasons are theirs)",
            query=(Param("event", description="only this event's games", blank=True), LANG),
            answers={200: Answer("HTML", "text/html", {"type": "string"})},
            hidden=True,
            page=True,
            tag="pages",
            pattern="/players/{player:[^/]+}",
        ),
    )
