"""Names that become Redis keys cannot reach another key (issue 18 item 5, "Keys and ids").

Against the real service (a real port, a real Redis): players, leagues and seasons named with ``{``, ``}``,
``:``, ``*``, ``%``, a newline, NUL or ``x}:pending`` are indexed under encoded keys only, found again by
the filters, and neither ``prizecheck check`` nor the gap release after a restart trips over them (before,
a player ``x}:pending`` made ``check`` crash and stopped the gap release: ``ValueError: not a match id``).
Over-long names are refused at the edge, naming the field; match ids with a newline, NUL or a brace never
reach a route.
"""

from __future__ import annotations

import asyncio
import re
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest

from streams.check import check
from streams.ingest import IngestCore
from streams.store import RedisStore
from tests.streams.http.served import Served
from tests.streams.ingest.support import game

pytestmark = pytest.mark.redis

HOSTILE = ["x}:pending", "{idx}", "a:b", "*", "lea*gue", "new\nline", "nul\0byte", "100%", "{", "}", "é:ü"]


def hostile_game(match: str, player: str, league: str, season: str) -> list[dict[str, Any]]:
    events = game(match)
    for e in events:
        for key in ("player", "first", "winner"):
            if e.get(key) == "ash":
                e[key] = player
        if e["type"] == "match_started":
            e["players"] = [player, "misty"]
            e["context"] = {"league": league, "season": season, "round": 1}
    return events


async def keys_of(store: RedisStore) -> list[str]:
    return [k.decode("utf-8", "replace") async for k in store.client.scan_iter(match=f"{store.prefix}:*")]


async def test_hostile_names_are_indexed_under_encoded_keys_and_found_again(
    served: Served, redis_store: RedisStore
) -> None:
    s = served
    for n, name in enumerate(HOSTILE):
        r = await s.post(hostile_game(f"k{n}", name, name, name))
        assert r.status == 200, await r.text()
    for n, name in enumerate(HOSTILE):
        for field in ("player", "league", "season"):
            r = await s.http.get(f"{s.url}/matches", params={field: name})
            body = await r.json()
            assert r.status == 200 and [m["match"] for m in body["matches"]] == [f"k{n}"], (field, name, body)
    prefix = re.escape(redis_store.prefix)
    match_key = re.compile(prefix + r":\{[A-Za-z0-9._:/-]{1,128}\}:[a-z]+")
    # an index bucket's key, or the alarms
    index_key = re.compile(prefix + r":\{idx(:\d+\.\d+)?\}:[a-z]+(:[A-Za-z0-9._~%-]+)?")
    for key in await keys_of(redis_store):
        if key == f"{redis_store.prefix}:{{audit}}":
            continue
        assert match_key.fullmatch(key) or index_key.fullmatch(key), key
    # a glob character is only a name: nothing else is found by it
    r = await s.http.get(f"{s.url}/matches", params={"league": "lea?ue"})
    assert (await r.json())["total"] == 0
    report = await check(redis_store)
    assert report.ok, report.breaches
    assert report.matches == len(HOSTILE)


async def test_a_player_named_like_a_held_key_neither_breaks_check_nor_the_gap_release_after_a_restart(
    redis_store: RedisStore, tmp_path: Path
) -> None:
    events = hostile_game("g1", "x}:pending", "x}:pending", "2026")
    core = IngestCore(redis_store, gap_timeout=0.2)
    assert {o.status for o in await core.ingest_many(events[:10])} == {"applied"}
    held = await core.ingest_many(events[12:14])  # a gap at 11 and 12: held in the store
    assert [o.status for o in held] == ["buffered", "buffered"]
    report = await check(redis_store)
    assert report.pending == 2 and not report.breaches  # no crash, the held events are counted
    restarted = IngestCore(redis_store, gap_timeout=0.2)  # a new process: its recovery finds g1 alone
    assert await restarted.recover() == ["g1"]
    await asyncio.sleep(0.3)
    released = await restarted.flush_gaps()
    assert [o.status for o in released] == ["applied"] and released[0].applied == [13, 14]
    assert await redis_store.head("g1") == 14


@pytest.mark.parametrize(
    ("where", "field"),
    [
        ("player", "players[0]"),
        ("league", "context.league"),
        ("season", "context.season"),
        ("event", "context.event"),
        ("series", "context.series"),
        ("table", "context.table"),
        ("ruleset", "ruleset"),
        ("pid", "active.pid"),
    ],
)
async def test_over_long_names_are_refused_at_the_edge_naming_the_field(
    served: Served, where: str, field: str
) -> None:
    events = game("long")
    long = "n" * 257
    if where == "player":
        events = hostile_game("long", long, "L1", "2026")
    elif where == "ruleset":
        events[0]["ruleset"] = long
    elif where == "pid":
        events[1]["active"]["pid"] = long
    else:
        events[0]["context"][where] = long
    r = await served.post(events[:2])
    body = await r.json()
    rejected = [o for o in body["outcomes"] if o["status"] == "rejected"]
    assert r.status == 400 and rejected and rejected[0]["field"] == field, body
    assert "at most 256 characters" in rejected[0]["reason"]


async def test_over_long_query_names_are_refused(served: Served) -> None:
    for name in ("league", "season", "player"):
        r = await served.http.get(f"{served.url}/matches", params={name: "n" * 257})
        assert r.status == 400 and (await r.json())["code"] == "bad_parameter"


@pytest.mark.parametrize("bad", ["m1\n", "m1%0A", "m1\r", "m1\0", "{m1}", "m1}:x", "m*", "m" * 129, "m 1"])
async def test_match_ids_that_are_not_ones_never_reach_a_route(served: Served, bad: str) -> None:
    await served.post(game("m1"))
    for view in ("record", "board", "versions", "events", "live"):
        url = f"{served.url}/matches/{quote(bad, safe='')}/{view}"
        r = await served.http.get(url, headers=served.auth("judge"))
        assert r.status == 400 and (await r.json())["code"] == "bad_match_id", (bad, view)
    r = await served.post([{**game("x")[0], "match": bad}])
    assert r.status == 400 and (await r.json())["outcomes"][0]["field"] == "match"
