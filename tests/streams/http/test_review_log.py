"""The review page's battle log keeps the current line in view (issue 36 item 5): after a deep link, after a
jump, and when the phone's Log tab is opened. Before, a deep link at seq 200 showed seqs 165-178 (the
line's offset was measured against the wrong ancestor)."""

from __future__ import annotations

import pytest
from playwright.async_api import BrowserContext, Page

from tests.streams.http.served import Served
from tests.streams.http.test_pages import long_game
from tests.streams.http.test_review import OVERFLOW, judge_page, ready, wait_seq

IN_VIEW = """() => {
  const box = document.getElementById("log").getBoundingClientRect();
  const line = document.querySelector("#log li.current");
  if (!line) return "no current line";
  const r = line.getBoundingClientRect();
  const inside = r.top >= box.top - 1 && r.bottom <= box.bottom + 1;
  return inside ? "" : `line ${r.top}..${r.bottom}, box ${box.top}..${box.bottom}`;
}"""


async def shown(page: Page) -> str:
    return str(await page.evaluate(IN_VIEW))


async def tab(page: Page, size: tuple[int, int], name: str) -> None:
    """Open the tab ``name`` (board, log, event) where the page shows one at a time (a phone)."""
    if size[0] < 700:
        await page.click(f'#tabs button[data-tab="{name}"]')


@pytest.mark.parametrize("size", [(1440, 900), (390, 844)], ids=["desktop", "phone"])
async def test_the_current_log_line_is_in_view(
    served: Served, browser_context: BrowserContext, size: tuple[int, int]
) -> None:
    assert (await served.post(long_game("long2", 400))).status == 200
    page = await judge_page(served, browser_context, "/review/long2#seq=200", size)
    await ready(page)
    await wait_seq(page, 200)
    if size[0] < 600:
        await page.click('#tabs button[data-tab="log"]')  # the phone shows one view at a time
    assert await shown(page) == ""
    await page.fill("#seq-input", "37")
    await page.press("#seq-input", "Enter")
    await wait_seq(page, 37)
    assert await shown(page) == ""
    if size[0] < 600:
        await page.click('#tabs button[data-tab="board"]')
    await page.evaluate("() => { location.hash = '#seq=350'; }")
    await wait_seq(page, 350)
    if size[0] < 600:
        await page.click('#tabs button[data-tab="log"]')
    assert await shown(page) == ""


@pytest.mark.parametrize("size", [(1440, 900), (390, 844)], ids=["desktop", "phone"])
async def test_the_source_s_notes_are_shown_once_and_can_be_hidden_and_findings_by_player(
    served: Served, browser_context: BrowserContext, size: tuple[int, int]
) -> None:
    import aiohttp

    from tests.paths import ROOT

    form = aiohttp.FormData()
    form.add_field(
        "file",
        (ROOT / "tests" / "data" / "ptcgl" / "misc_lines.txt").read_bytes(),
        filename=f"n{size[0]}.txt",
    )
    async with served.http.post(f"{served.url}/import", data=form, headers=served.auth("judge")) as r:
        assert r.status == 200, await r.text()
    page = await judge_page(served, browser_context, f"/review/n{size[0]}", size)
    await ready(page)
    await tab(page, size, "log")
    quiet = page.locator("#log li.quiet-note")
    total = await quiet.count()
    assert total > 0
    assert await page.is_visible("#show-notes") and f"notes ({total})" in str(
        await page.text_content(".notes-toggle")
    )
    assert not await quiet.first.is_visible()  # hidden until asked for
    await page.check("#show-notes")
    assert await quiet.first.is_visible()
    # once: a note's line does not repeat its text as its finding's detail
    for i in range(total):
        li = quiet.nth(i)
        text = str(await li.locator(".ltext").text_content())
        details = [str(d) for d in await li.locator(".detail").all_text_contents()]
        assert not any(d and d in text for d in details), (text, details)
    assert await page.evaluate(OVERFLOW) == []
    await tab(page, size, "event")
    await page.select_option("#findings-by", "player")
    heads = [str(h) for h in await page.locator("#findings h3.player-head").all_text_contents()]
    from replay.records import from_msgpack

    who = [str(p) for p in from_msgpack(await served.store.record(f"n{size[0]}") or b"").players]
    assert heads and all(h.rsplit(" (", 1)[0] in ("the match", *who) for h in heads), heads


@pytest.mark.parametrize("size", [(1440, 900), (390, 844)], ids=["desktop", "phone"])
async def test_the_prize_race_opens_the_turn_it_shows(
    served: Served, browser_context: BrowserContext, size: tuple[int, int]
) -> None:
    from tests.streams.ingest.support import game

    assert (await served.post(game("race1"))).status == 200
    page = await judge_page(served, browser_context, "/review/race1", size)
    await ready(page)
    await page.click("#race-box summary")
    points = page.locator("#race circle.race-point")
    n = await points.count()
    assert n >= 4 and n % 2 == 0  # a point a turn, for each of the two players
    target = points.nth(n // 2)
    seq = int(str(await target.get_attribute("data-seq")))
    await target.click()
    await wait_seq(page, seq)
    assert "left at seq" in str(await target.locator("title").text_content())
    assert await page.evaluate(OVERFLOW) == []


@pytest.mark.parametrize("size", [(1440, 900), (390, 844)], ids=["desktop", "phone"])
async def test_the_spectator_view_shows_what_the_public_saw(
    served: Served, browser_context: BrowserContext, size: tuple[int, int]
) -> None:
    """The perspective switch: the same game as a spectator saw it: a card drawn (hidden) is named in the
    judge's view and not in the spectator's; the boards are the same public boards."""
    from tests.streams.ingest.support import game

    events = game("pv1")
    drawn = next(e for e in events if e["type"] == "drew" and e.get("cards"))
    name = drawn["cards"][0] if isinstance(drawn["cards"][0], str) else drawn["cards"][0]["name"]
    assert (await served.post(events)).status == 200
    page = await judge_page(served, browser_context, f"/review/pv1#seq={drawn['seq']}", size)
    await ready(page)
    await tab(page, size, "log")
    assert await page.locator(f'#log li.line[data-seq="{drawn["seq"]}"]').is_visible()
    assert name in str(await page.text_content("#log"))
    assert await page.evaluate(OVERFLOW) == []
    await page.click("#view-link")
    await page.wait_for_url(lambda url: "view=public" in url)
    await ready(page)
    await wait_seq(page, drawn["seq"])  # the same moment
    await tab(page, size, "log")
    assert await page.locator(f'#log li.line[data-seq="{drawn["seq"]}"]').is_visible()
    assert name not in str(await page.text_content("#log"))
    assert await page.text_content("#view-link") == "judge view"
    async with served.http.get(
        f"{served.url}/review/pv1/meta?view=public", headers=served.auth("judge")
    ) as r:
        public = await r.json()
    async with served.http.get(f"{served.url}/review/pv1/meta", headers=served.auth("judge")) as r:
        full = await r.json()
    assert public["view"] == "public" and [f["board"] for f in public["frames"]] == [
        f["board"] for f in full["frames"]
    ]
