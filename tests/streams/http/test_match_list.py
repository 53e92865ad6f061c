"""The match list finds what a judge types (issue 36 item 6): a part of a player's name, a match id, an
event, a round or a table, in any case and width, Japanese and Korean too; leagues and seasons as pick
lists (those the caller's scope reaches); round, table, date and top finding columns, the finding's public
text for the public. In real chromium at phone and desktop widths, on the real service and Redis."""

from __future__ import annotations

import json
import re
from typing import Any
from urllib.parse import urlsplit

import pytest
from playwright.async_api import BrowserContext, Page

from tests.streams.http.served import Served
from tests.streams.http.test_pages import noted_game, shot
from tests.streams.http.test_review import OVERFLOW, log_in

Event = dict[str, Any]
SECRET = "the judge's own words about table twelve"


def listed_game(
    match: str,
    league: str,
    players: tuple[str, str],
    *,
    event: str,
    round_: int,
    table: int | str,
    at: str,
    severity: str | None = None,
) -> list[Event]:
    """A finished game of ``players`` at an event's round and table, started ``at``; with a note's finding
    of ``severity`` whose text (for judges only) is :data:`SECRET`."""
    events = noted_game(match, [severity] if severity else [])
    text = (
        json.dumps(events).replace('"ash"', json.dumps(players[0])).replace('"misty"', json.dumps(players[1]))
    )
    events = json.loads(text)
    events[0]["context"] = {
        "league": league,
        "season": "2026",
        "event": event,
        "round": round_,
        "table": table,
    }
    events[0]["at"] = at
    for e in events:
        if e["type"] == "note" and "finding" in e:
            e["text"] = SECRET
    return events


async def post_games(served: Served) -> None:
    for events in (
        listed_game(
            "cup/r3-t12",
            "JP",
            ("Ｓａｔｏｓｈｉ", "カスミ"),
            event="チャンピオンズリーグ 横浜",
            round_=3,
            table=12,
            at="2026-03-14T10:05:00+09:00",
            severity="violation",
        ),
        listed_game(
            "kr/r1-t7",
            "KR",
            ("지우", "Brock"),
            event="서울 리그",
            round_=1,
            table=7,
            at="2026-04-02T18:00:00Z",
        ),
        listed_game(
            "L1/r2-t40",
            "L1",
            ("Misty", "Gary"),
            event="Spring Cup",
            round_=2,
            table=40,
            at="2026-05-09T09:30:00Z",
            severity="warning",
        ),
    ):
        r = await served.post(events)
        assert r.status == 200, await r.text()


async def get_json(served: Served, path: str) -> Any:
    r = await served.http.get(f"{served.url}{path}")
    assert r.status == 200, await r.text()
    return await r.json()


async def shown(page: Page) -> list[str]:
    return [
        str(await r.get_attribute("data-match"))
        for r in await page.locator("#matches tbody tr[data-match]").all()
    ]


async def search(page: Page, text: str) -> list[str]:
    await page.fill("#search", text)
    await page.press("#search", "Enter")
    await page.wait_for_url(re.compile(r"/ui\?q="))
    await page.wait_for_selector("#matches")
    return await shown(page)


@pytest.mark.parametrize("size", [(390, 844), (1440, 900)], ids=["phone", "desktop"])
async def test_the_match_list_finds_what_a_judge_types(
    served: Served, browser_context: BrowserContext, size: tuple[int, int]
) -> None:
    await post_games(served)
    page = await browser_context.new_page()
    await page.set_viewport_size({"width": size[0], "height": size[1]})
    await page.goto(f"{served.url}/ui")
    assert await shown(page) == ["L1/r2-t40", "cup/r3-t12", "kr/r1-t7"]

    # the columns: event, round, table, date and the top finding, its public text only
    cup = page.locator('#matches tr[data-match="cup/r3-t12"]')
    cells = {
        name: " ".join(str(await cup.locator(f"td.{name}").inner_text()).split())
        for name in ("event", "round", "table", "date", "top-finding")
    }
    assert cells["event"].endswith("チャンピオンズリーグ 横浜")  # at 390 px a card: "event: ..." before it
    assert (cells["round"][-1:], cells["table"][-2:], cells["date"][-10:]) == ("3", "12", "2026-03-14")
    assert "violation source_finding at seq" in cells["top-finding"]
    assert "the source reports a finding of its own in a note" in cells["top-finding"]
    assert SECRET not in await page.content()  # the public reads the public text
    assert await page.evaluate(OVERFLOW) == []
    if size[0] == 1440:  # a column a heading
        heads = [
            " ".join(h.split()).lower() for h in await page.locator("#matches thead th").all_inner_texts()
        ]
        assert {"event", "round", "table", "date", "top finding"} <= set(heads)
    else:  # a card a match, an empty cell not shown
        kr = page.locator('#matches tr[data-match="kr/r1-t7"]')
        assert not await kr.locator("td.top-finding").is_visible()
        assert (
            await kr.locator("td.table").inner_text() == "7"
            and not await page.locator("#matches thead").is_visible()
        )
        label = await kr.locator("td.table").evaluate("e => getComputedStyle(e, '::before').content")
        assert label == '"table: "'  # each value says what it is

    # what a judge types: any part, any case, any width, Japanese and Korean
    assert await search(page, "ｶｽﾐ") == ["cup/r3-t12"]  # half-width katakana finds カスミ
    assert await search(page, "satoshi") == ["cup/r3-t12"]  # full-width Latin, typed in ASCII
    assert await search(page, "横浜") == ["cup/r3-t12"]
    assert await search(page, "서울") == ["kr/r1-t7"]
    assert await search(page, "ROCK") == ["kr/r1-t7"]  # inside a name
    assert await search(page, "r1-t") == ["kr/r1-t7"]  # a part of a match id
    assert await search(page, "40") == ["L1/r2-t40"]  # a table
    assert await search(page, "spring") == ["L1/r2-t40"]
    assert await search(page, "nobody") == []
    assert (
        await page.inner_text("#summary")
        == "no matches; “nobody” in a match id, player, event, round or table"
    )

    # the pick lists: every league and season some match has; a pick applies at once
    await page.goto(f"{served.url}/ui")
    options = await page.locator("#league option").all_inner_texts()
    assert options == ["any league", "JP", "KR", "L1"]
    assert await page.locator("#season option").all_inner_texts() == ["any season", "2026"]
    await page.select_option("#league", "KR")
    await page.wait_for_url(re.compile(r"league=KR"))
    assert await shown(page) == ["kr/r1-t7"]
    assert await search(page, "7") == ["kr/r1-t7"]  # the search keeps the league picked
    assert await page.locator("#league").input_value() == "KR"
    assert await page.evaluate(OVERFLOW) == []
    if (path := shot(f"list-search-{size[0]}")) is not None:
        await page.goto(f"{served.url}/ui?sort=-findings")
        await page.screenshot(path=str(path), full_page=True)


async def test_a_judge_reads_the_top_finding_s_detail_within_its_scope(
    served: Served, browser_context: BrowserContext
) -> None:
    await post_games(served)
    page = await browser_context.new_page()
    await page.goto(f"{served.url}/login?next=/ui")
    await log_in(page, served.tokens["judge_l1"])  # a judge of league L1 only
    await page.wait_for_url(lambda url: urlsplit(url).path == "/ui")
    # its pick list is its league; the detail of its own match only (the others' is out of its scope)
    assert await page.locator("#league option").all_inner_texts() == ["any league", "L1"]
    l1 = page.locator('#matches tr[data-match="L1/r2-t40"] td.top-finding')
    assert SECRET in await l1.inner_text()
    cup = page.locator('#matches tr[data-match="cup/r3-t12"] td.top-finding')
    assert SECRET not in await cup.inner_text() and "violation" in await cup.inner_text()
    audit = [e for e in await served.audit() if e.action == "read_hidden"]
    assert audit and "L1/r2-t40" in audit[-1].detail and "cup/r3-t12" not in audit[-1].detail


async def test_the_index_route_searches_pages_with_a_cursor_and_shows_the_new_fields(served: Served) -> None:
    await post_games(served)
    answer = await get_json(served, "/matches?q=%EF%BD%B6%EF%BD%BD%EF%BE%90")  # ｶｽﾐ
    assert [m["match"] for m in answer["matches"]] == ["cup/r3-t12"] and answer["next"] is None
    (cup,) = answer["matches"]
    assert (cup["event"], cup["round"], cup["table"], cup["date"]) == (
        "チャンピオンズリーグ 横浜",
        "3",
        "12",
        "2026-03-14",
    )
    top = cup["top_finding"]
    assert (top["severity"], top["code"]) == ("violation", "source_finding") and "detail" not in top
    assert SECRET not in json.dumps(answer)

    walked, cursor = [], None
    for _ in range(5):
        page = await get_json(
            served, "/matches?limit=1&sort=-findings" + (f"&cursor={cursor}" if cursor else "")
        )
        assert page["total"] == 3
        walked += [m["match"] for m in page["matches"]]
        cursor = page["next"]
        if cursor is None:
            break
    assert walked == ["cup/r3-t12", "L1/r2-t40", "kr/r1-t7"]  # violations first, then warnings

    first = await get_json(served, "/matches?limit=1")
    r = await served.http.get(f"{served.url}/matches", params={"cursor": first["next"], "sort": "-match"})
    assert r.status == 400
    assert (await r.json())["error"] == "cursor: cursor was given for sort=match, not sort=-match"
    r = await served.http.get(f"{served.url}/matches", params={"cursor": "nonsense"})
    assert r.status == 400 and "cursor" in (await r.json())["error"]
    r = await served.http.get(f"{served.url}/matches", params={"q": "x" * 129})
    assert r.status == 400 and (await r.json())["code"] == "bad_parameter"
