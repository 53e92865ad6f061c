"""One broadcast delay for everything public (issue 37 item 4; streams/http/delay.py), on the real service.

A match started with a 30 s broadcast delay is played in two parts, the second of which brings a Pokémon
named ``Zzdelaymon`` onto the Bench and ends the game by a concession. With the service's clock at a
moment between the two parts plus the delay, **every public route of the route table** (a route added
later fails :func:`test_every_public_route_is_polled` until it is polled here) is read anonymously: none
shows the second part (no Zzdelaymon, no concession, no finished status, no version), each shows the
first (the board and record are there). A judge and the producer see it live all along; once the clock
passes the delay, the public sees the end too (the same polls find it: the test can fail).
"""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any
from urllib.parse import quote

import aiohttp

from streams.http.delay import DELAY, Delay
from streams.http.routes import ROUTES
from streams.http.tables import table_started
from tests.builder import Stream, card
from tests.streams.http.served import Served

MATCH = "L1/bc-1"
SECRET = b"Zzdelaymon"
ENDED = b"concession"


def two_parts(match: str = MATCH, delay: float = 30) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    context = {"league": "L1", "season": "2026", "event": "L1-cup", "series": match, "round": 1}
    s = Stream(match, context=context, console={"delay": delay})
    s.setup("ash", ("a1", card("Pikachu", 60)))
    s.setup("misty", ("m1", card("Staryu", 60)))
    s.turn("ash")
    first = len(s.events)
    s.add("played", player="ash", pid="a2", card=card("Zzdelaymon", 70), to="bench")
    s.add("conceded", player="misty")
    s.add("game_ended", outcome="win", winner="ash", reason="concession")
    return s.events[:first], s.events[first:]


def public_paths(match: str) -> dict[str, list[str]]:
    """Every public GET route and what this test reads of it (the live stream apart)."""
    m = quote(match, safe="/:")
    return {
        "/": [],  # a redirect to /ui
        "/matches": [
            "/matches",
            "/matches?status=in_progress",
            "/matches?status=finished",
            "/matches?league=L1",
            "/matches?player=ash",
        ],
        "/matches/{match}/record": [f"/matches/{m}/record", f"/matches/{m}/record?version=1"],
        "/matches/{match}/versions": [f"/matches/{m}/versions"],
        "/matches/{match}/board": [f"/matches/{m}/board"],
        "/matches/{match}/live": [],  # read by live_board
        "/overlay/{match}": [f"/overlay/{m}"],
        "/overlay/{match}/score": [f"/overlay/{m}/score"],
        "/overlay/{match}/clock": [f"/overlay/{m}/clock"],
        "/ui": ["/ui", "/ui?status=finished", "/ui?status=in_progress", "/ui?q=as", "/ui?sort=-findings"],
        # a stream table and a slot showing the match (its standings scene counts its result)
        "/overlay/table/{event}/{table}": ["/overlay/table/L1-cup/5"],
        "/overlay/table/{event}/{table}/now": ["/overlay/table/L1-cup/5/now"],
        "/overlay/slot/{slot}": ["/overlay/slot/s1"],
        "/overlay/slot/{slot}/now": ["/overlay/slot/s1/now"],
        # nothing of any match in these
        "/healthz": [],
        "/.well-known/prizecheck-keys.json": [],
        "/openapi.json": [],
        "/docs": [],
        "/static/{path}": [],
        "/login": [],
        "/logout": [],
        "/rules": [],
        "/favicon.ico": [],
        "/cards/{card}": [],  # a card's image: nothing of a match
    }


def test_every_public_route_is_polled(served: Served) -> None:
    table = {r.path for r in served.app[ROUTES] if "public" in r.roles and r.method == "GET"}
    assert table == set(public_paths(MATCH)) - {"/logout"}, sorted(table ^ set(public_paths(MATCH)))


async def read(s: Served, path: str, who: str | None = None) -> tuple[int, bytes]:
    async with s.http.get(f"{s.url}{path}", headers=s.auth(who), allow_redirects=False) as r:
        return r.status, await r.read()


async def live_board(s: Served, match: str, who: str | None = None) -> bytes:
    """The first board of the match's live stream (b"" when none comes within 2 s: nothing to show)."""
    url = f"{s.url}/matches/{quote(match, safe='/:')}/live"
    async with s.http.get(url, headers=s.auth(who), timeout=aiohttp.ClientTimeout(total=20)) as r:
        assert r.status == 200

        async def first() -> bytes:
            async for raw in r.content:
                if raw.startswith(b"data: "):
                    return raw
            return b""

        try:
            return await asyncio.wait_for(first(), 2.0)
        except TimeoutError:
            return b""


async def poll(s: Served, who: str | None = None) -> dict[str, tuple[int, bytes]]:
    out = {path: await read(s, path, who) for paths in public_paths(MATCH).values() for path in paths}
    out["live"] = (200, await live_board(s, MATCH, who))
    return out


async def clock(s: Served, action: str) -> None:
    """The table console's clock button (an admin token holds the recorder's role)."""
    url = f"{s.url}/console/{quote(MATCH, safe='/:')}/clock"
    r = await s.http.post(url, json={"console": "c1", "action": action}, headers=s.auth("admin"))
    assert r.status == 200, await r.text()


def listed(body: bytes) -> dict[str, str]:
    return {e["match"]: e["status"] for e in json.loads(body)["matches"]}


async def test_every_public_route_shows_a_delayed_match_as_it_was(served: Served) -> None:
    s = served
    before, after = two_parts()
    assert (await s.post(before, who="ingest")).status == 200
    await clock(s, "start")  # the match clock runs in the first part, is paused in the second
    await asyncio.sleep(0.4)
    between = time.time()  # the store's clock (Redis TIME) and this one are the same machine's
    await asyncio.sleep(0.4)
    assert (await s.post(after, who="ingest")).status == 200
    await clock(s, "pause")
    await table_started(s.store, "L1-cup", "5", MATCH)  # as the table console does when it starts one
    slot = {"event": "L1-cup", "table": "5", "league": "L1", "queue": [MATCH]}
    r = await s.http.post(f"{s.url}/slots/s1/set", json=slot, headers=s.auth("admin"))
    assert r.status == 200, await r.text()
    assert (await s.http.post(f"{s.url}/slots/s1/standings", headers=s.auth("admin"))).status == 200
    delay = s.app[DELAY]
    delay.clock = lambda: between + 30  # 30 s after the first part: the second is still held back

    held = await poll(s)
    for path, (_status, body) in held.items():
        assert SECRET not in body and ENDED not in body, (path, body[:400])
    m = quote(MATCH, safe="/:")
    assert held[f"/matches/{m}/board"][0] == 200 and b"Pikachu" in held[f"/matches/{m}/board"][1]
    assert json.loads(held[f"/matches/{m}/record"][1])["status"] == "in_progress"
    assert held[f"/matches/{m}/record?version=1"][0] == 404
    assert json.loads(held[f"/matches/{m}/versions"][1]) == []
    assert listed(held["/matches"][1]) == {MATCH: "in_progress"}
    assert listed(held["/matches?status=in_progress"][1]) == {MATCH: "in_progress"}
    assert listed(held["/matches?status=finished"][1]) == {}
    assert json.loads(held[f"/overlay/{m}/score"][1])["status"] == "in_progress"
    assert json.loads(held[f"/overlay/{m}/clock"][1])["clock"]["running"] is True  # its pause held back
    assert json.loads(held["/overlay/table/L1-cup/5/now"][1])["clock"]["running"] is True
    assert b"Pikachu" in held["live"][1]
    assert b"in progress" in held["/ui"][1]
    assert json.loads(held["/overlay/table/L1-cup/5/now"][1])["match"] == MATCH
    slot_now = json.loads(held["/overlay/slot/s1/now"][1])
    assert slot_now["match"] == MATCH and slot_now["standings"] == []  # no result yet

    # a process started within the delay has heard none of the changes that hold the match: it finds it
    # on air in the store, so that its filtered lists hold the match's public line too
    fresh = Delay(s.store, clock=delay.clock)
    assert fresh.held_now() == []
    await fresh.recall()
    assert fresh.held_now() == [MATCH]

    # judges and the producer see it live meanwhile, the live stream too
    for who in ("judge", "ingest", "admin"):
        assert SECRET in (await read(s, f"/matches/{m}/board", who))[1], who
        assert SECRET in await live_board(s, MATCH, who), who
        assert json.loads((await read(s, f"/matches/{m}/record", who))[1])["status"] == "finished"
        assert listed((await read(s, "/matches?status=finished", who))[1]) == {MATCH: "finished"}
        assert json.loads((await read(s, f"/overlay/{m}/clock", who))[1])["clock"]["running"] is False
    # an organizer's archive stops where the public's view does
    archive = (await read(s, f"/matches/{m}/events", "organizer"))[1]
    assert SECRET not in archive and len(archive.splitlines()) == len(before)

    delay.clock = lambda: time.time() + 31  # the delay has passed
    shown = await poll(s)
    assert SECRET in shown[f"/matches/{m}/board"][1] and SECRET in shown["live"][1]
    assert ENDED in shown[f"/matches/{m}/record"][1] and ENDED in shown["/ui"][1]
    assert shown[f"/matches/{m}/record?version=1"][0] == 200
    assert listed(shown["/matches?status=finished"][1]) == {MATCH: "finished"}
    assert listed(shown["/matches?status=in_progress"][1]) == {}
    assert json.loads(shown[f"/overlay/{m}/score"][1])["result"]["winner"] == "ash"
    assert json.loads(shown[f"/overlay/{m}/clock"][1])["clock"]["running"] is False
    standings = json.loads(shown["/overlay/slot/s1/now"][1])["standings"]
    assert [(r["player"], r["win"]) for r in standings] == [("ash", 1), ("misty", 0)]


async def test_a_delayed_match_shows_nothing_before_its_first_event_is_old_enough(served: Served) -> None:
    s = served
    before, after = two_parts("L1/bc-2")
    assert (await s.post(before + after, who="ingest")).status == 200
    s.app[DELAY].clock = lambda: time.time() + 5  # 5 s of the 30 have passed
    for path in ("/matches/L1/bc-2/board", "/matches/L1/bc-2/record", "/overlay/L1/bc-2/score"):
        status, body = await read(s, path)
        assert status == 404 or json.loads(body)["status"] is None, (path, status, body)
    assert listed((await read(s, "/matches"))[1]) == {}
    assert b"bc-2" not in (await read(s, "/ui"))[1]
    assert await live_board(s, "L1/bc-2") == b""
    assert (await read(s, "/matches/L1/bc-2/board", "judge"))[0] == 200


async def test_a_match_without_a_delay_is_shown_as_it_is(served: Served) -> None:
    s = served
    before, after = two_parts("L1/bc-3", delay=0)
    assert (await s.post(before + after, who="ingest")).status == 200
    s.app[DELAY].clock = lambda: time.time() - 1000  # whatever the clock says
    assert SECRET in (await read(s, "/matches/L1/bc-3/board"))[1]
    assert listed((await read(s, "/matches?status=finished"))[1]) == {"L1/bc-3": "finished"}
