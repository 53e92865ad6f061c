"""Stream tables and slots (issue 37 items 1 and 5; streams/http/tables.py), on the real app and Redis: a
table's overlay follows what its console starts (games, playoffs), under a broadcast delay too; a slot's
Stream Deck actions (next match, swap, Bench, scenes, clock), their tokens and scopes."""

from __future__ import annotations

import json
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest

from streams.http.delay import DELAY
from streams.store import RedisStore
from tests.builder import Stream, card, drawn_game
from tests.streams.http.served import Served, start_served

pytestmark = pytest.mark.redis
MANUAL = {"kind": "manual", "producer": "prizecheck console", "reports_knockouts": True}


@pytest.fixture
async def served(redis_store: RedisStore, tmp_path: Path) -> AsyncIterator[Served]:
    s, server = await start_served(
        redis_store,
        tmp_path,
        extra_tokens=(
            ("recorder", ["recorder"], {}),
            ("stream", ["stream"], {}),
            ("stream_cup", ["stream"], {"events": ["Cup"]}),
            ("stream_other", ["stream"], {"events": ["Other"]}),
        ),
    )
    try:
        yield s
    finally:
        await s.http.close()
        await server.close()


def game(match: str, *, table: str = "7", game_no: int = 1, **started: Any) -> Stream:
    context = {"league": "L1", "season": "2026", "event": "Cup", "table": table, "round": 3, "game": game_no}
    s = Stream(match, source=MANUAL, context=context, **started)
    s.setup("ash", ("a1", card("Pikachu", 60)))
    s.setup("misty", ("m1", card("Staryu", 60)))
    return s


async def publish(s: Served, match: str, events: list[dict[str, Any]]) -> None:
    url = f"{s.url}/console/{quote(match, safe='/:')}/events"
    r = await s.http.post(url, json={"console": "c1", "events": events}, headers=s.auth("recorder"))
    assert r.status == 200, await r.text()


async def now(s: Served, path: str, who: str | None = None) -> dict[str, Any]:
    r = await s.http.get(f"{s.url}{path}", headers=s.auth(who))
    assert r.status == 200, await r.text()
    out: dict[str, Any] = await r.json()
    return out


async def act(s: Served, slot: str, action: str, who: str | None = "stream", body: Any = None) -> Any:
    r = await s.http.post(f"{s.url}/slots/{slot}/{action}", json=body, headers=s.auth(who))
    return r.status, await r.json()


async def test_a_table_follows_the_games_its_console_starts(served: Served) -> None:
    s = served
    assert (await now(s, "/overlay/table/Cup/7/now"))["match"] is None
    await publish(s, "Cup/r3-t7-g1", game("Cup/r3-t7-g1").events)
    assert (await now(s, "/overlay/table/Cup/7/now"))["match"] == "Cup/r3-t7-g1"
    await publish(s, "Cup/r3-t8-g1", game("Cup/r3-t8-g1", table="8").events)  # another table
    await publish(s, "Cup/r3-t7-g2", game("Cup/r3-t7-g2", game_no=2).events)
    assert (await now(s, "/overlay/table/Cup/7/now"))["match"] == "Cup/r3-t7-g2"
    assert (await now(s, "/overlay/table/Cup/8/now"))["match"] == "Cup/r3-t8-g1"
    # a drawn game's playoff is played at its parent's table (its own context names none)
    drawn = drawn_game("Cup/r3-t7-g3", context={"league": "L1", "event": "Cup", "table": "7"}, source=MANUAL)
    await publish(s, "Cup/r3-t7-g3", drawn.events)
    playoff = Stream("Cup/r3-t7-g3/tb1", parent="Cup/r3-t7-g3", playoff="tiebreaker_game", source=MANUAL)
    await publish(s, "Cup/r3-t7-g3/tb1", playoff.events)
    assert (await now(s, "/overlay/table/Cup/7/now"))["match"] == "Cup/r3-t7-g3/tb1"
    page = await s.http.get(f"{s.url}/overlay/table/Cup/7")
    assert page.status == 200 and 'data-follow="/overlay/table/Cup/7/now"' in await page.text()
    assert (await s.http.get(f"{s.url}/overlay/table/Cup/no%20such")).status == 400


async def test_under_a_broadcast_delay_the_table_switches_when_the_public_sees_the_new_game(
    served: Served,
) -> None:
    s = served
    await publish(s, "Cup/d-g1", game("Cup/d-g1", table="9", console={"delay": 30}).events)
    await publish(s, "Cup/d-g2", game("Cup/d-g2", table="9", game_no=2, console={"delay": 30}).events)
    delay = s.app[DELAY]
    delay.clock = lambda: time.time() + 5  # 5 s of 30: neither game has shown yet
    assert (await now(s, "/overlay/table/Cup/9/now"))["match"] is None
    assert (await now(s, "/overlay/table/Cup/9/now", "judge"))["match"] == "Cup/d-g2"  # judges: live
    delay.clock = lambda: time.time() + 60
    assert (await now(s, "/overlay/table/Cup/9/now"))["match"] == "Cup/d-g2"


async def test_a_slot_is_driven_by_its_stream_deck(served: Served) -> None:
    s = served
    for n in (1, 2):
        finished = game(f"Cup/r{n}-t7", game_no=1)
        finished.add("conceded", player="misty")
        finished.add("game_ended", outcome="win", winner="ash", reason="concession")
        finished.events[0]["context"].update(round=n, series=f"r{n}-t7")  # a match of the event
        await publish(s, f"Cup/r{n}-t7", finished.events)
    await publish(s, "Cup/r3-t7", game("Cup/r3-t7").events)
    status, view = await act(
        s, "main", "set", body={"event": "Cup", "table": "7", "league": "L1", "queue": ["Cup/r1-t7"]}
    )
    assert status == 200 and view["match"] == "Cup/r3-t7" and view["scene"] == "game", view
    assert (await act(s, "main", "up-next"))[1]["next"] == [
        {"match": "Cup/r1-t7", "players": ["ash", "misty"], "round": 1, "table": "7"}
    ]
    standings = (await act(s, "main", "standings"))[1]
    assert standings["scene"] == "standings"
    assert [(r["player"], r["win"], r["loss"]) for r in standings["standings"]] == [
        ("ash", 2, 0),
        ("misty", 0, 2),
    ]
    assert (await act(s, "main", "standings"))[1]["scene"] == "game"  # the button toggles
    assert (await act(s, "main", "next"))[1]["match"] == "Cup/r1-t7"  # from the queue
    assert (await act(s, "main", "next"))[1]["match"] == "Cup/r3-t7"  # none left: the table's again
    assert (await act(s, "main", "swap"))[1]["swap"] is True
    assert (await act(s, "main", "bench"))[1]["bench"] is False
    clock = (await act(s, "main", "clock-start"))[1]["clock"]
    assert clock["running"] is True and clock["left"] <= 3000
    paused = (await act(s, "main", "clock-pause"))[1]["clock"]
    assert paused["running"] is False
    called = (await act(s, "main", "time-called"))[1]["clock"]
    assert called == {"left": 0.0, "limit": 3000.0, "running": False, "called": True}
    shown = await now(s, "/overlay/slot/main/now")  # what the overlay reads: public
    assert shown["swap"] is True and shown["bench"] is False and shown["clock"]["called"] is True
    page = await s.http.get(f"{s.url}/overlay/slot/main")
    assert page.status == 200 and 'data-follow="/overlay/slot/main/now"' in await page.text()


async def test_slot_actions_need_a_stream_token_in_scope(served: Served) -> None:
    s = served
    assert (await act(s, "cup", "set", "stream_cup", {"event": "Cup", "table": "7"}))[0] == 200
    assert (await act(s, "cup", "swap", None))[0] == 401
    assert (await act(s, "cup", "swap", "recorder"))[0] == 403
    assert (await act(s, "cup", "swap", "stream_other"))[0] == 403  # another event's crew
    assert (await act(s, "cup", "set", "stream_cup", {"event": "Other"}))[0] == 403  # nor move it there
    assert (await act(s, "cup", "swap", "stream_cup"))[0] == 200
    status, body = await act(s, "cup", "launch", "stream")
    assert status == 404 and "actions:" in body["error"]
    status, body = await act(s, "cup", "set", "stream", {"queue": ["not an id!"]})
    assert status == 400 and body["code"] == "bad_field" and "queue" in body["error"]
    status, body = await act(s, "cup", "set", "stream", {"minutes": 0})
    assert status == 400 and "minutes" in body["error"]
    audit = [e for e in await s.audit() if "slot cup" in e.detail]
    assert {e.detail for e in audit} >= {"200 slot cup: set", "200 slot cup: swap"}


async def test_two_presses_at_once_are_both_kept(served: Served) -> None:
    import asyncio

    s = served
    await act(s, "race", "set", body={"event": "Cup", "table": "7"})
    answers = await asyncio.gather(*(act(s, "race", "swap") for _ in range(6)))
    assert all(status == 200 for status, _ in answers)
    assert (await now(s, "/overlay/slot/race/now"))["swap"] is False  # six toggles: back where it was
    assert json.loads(await s.store.on_air("slot:race") or b"{}")["swap"] is False


async def set_clock(s: Served, match: str, action: str, **extra: Any) -> dict[str, Any]:
    url = f"{s.url}/console/{quote(match, safe='/:')}/clock"
    r = await s.http.post(url, json={"console": "c1", "action": action, **extra}, headers=s.auth("recorder"))
    assert r.status == 200, await r.text()
    out: dict[str, Any] = (await r.json())["clock"]
    return out


async def test_the_clock_a_console_sets_shows_on_its_table_and_a_slot_that_follows_it(served: Served) -> None:
    s = served
    m = "Cup/r4-t7"
    await publish(s, m, game(m).events)
    assert (await now(s, "/overlay/table/Cup/7/now"))["clock"] is None  # never set: none shown
    started = await set_clock(s, m, "start", minutes=30)
    assert started["running"] is True and started["limit"] == 1800
    table = (await now(s, "/overlay/table/Cup/7/now"))["clock"]
    assert table["running"] is True and 1790 < table["left"] <= 1800 and table["called"] is False
    # a slot that follows the table shows the match's clock while its own is untouched ...
    assert (await act(s, "main", "set", body={"event": "Cup", "table": "7"}))[0] == 200
    assert (await now(s, "/overlay/slot/main/now"))["clock"]["limit"] == 1800
    paused = await set_clock(s, m, "pause")
    assert (await now(s, "/overlay/slot/main/now"))["clock"] == paused
    assert (await now(s, f"/overlay/{m}/clock"))["clock"] == paused  # the match's own overlay reads this
    # ... and its own once its Stream Deck uses it; a reset hands it back to the table's
    own = (await act(s, "main", "clock-start"))[1]["clock"]
    assert own["limit"] == 3000 and own["running"] is True
    assert (await now(s, "/overlay/slot/main/now"))["clock"]["limit"] == 3000
    assert (await act(s, "main", "clock-reset"))[1]["clock"] == paused
    # the next game at the table has a clock of its own (none yet)
    await publish(s, "Cup/r4-t7-g2", game("Cup/r4-t7-g2", game_no=2).events)
    assert (await now(s, "/overlay/table/Cup/7/now"))["clock"] is None
    assert (await now(s, f"/overlay/{m}/clock"))["clock"] == paused


async def test_under_a_delay_the_public_sees_the_clock_as_it_was(served: Served) -> None:
    s = served
    m = "Cup/r5-t7"
    await publish(s, m, game(m, table="8", console={"delay": 30}).events)
    t0 = time.time()
    await set_clock(s, m, "start")
    t1 = time.time()
    await set_clock(s, m, "pause")
    delay = s.app[DELAY]
    # 30 s after the start but before the pause's 30 s: the public sees it running, as it was then
    delay.clock = lambda: t1 + 30
    public = (await now(s, f"/overlay/{m}/clock"))["clock"]
    assert public["running"] is True and 3000 - (t1 - t0) - 0.2 <= public["left"] <= 3000
    judge = (await now(s, f"/overlay/{m}/clock", "judge"))["clock"]
    assert judge["running"] is False  # live for a judge
    assert (await now(s, "/overlay/table/Cup/8/now"))["clock"] == public  # the table shows the same
    # before the start's 30 s: nothing yet
    delay.clock = lambda: t0 + 29
    assert (await now(s, f"/overlay/{m}/clock"))["clock"] is None
    # once the pause is 30 s old: paused
    delay.clock = lambda: time.time() + 31
    assert (await now(s, f"/overlay/{m}/clock"))["clock"]["running"] is False
