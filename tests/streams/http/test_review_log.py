"""The review page's battle log keeps the current line in view (issue 36 item 5): after a deep link, after a
jump, and when the phone's Log tab is opened. Before, a deep link at seq 200 showed seqs 165-178 (the
line's offset was measured against the wrong ancestor)."""

from __future__ import annotations

import pytest
from playwright.async_api import BrowserContext, Page

from tests.streams.http.served import Served
from tests.streams.http.test_pages import long_game
from tests.streams.http.test_review import judge_page, ready, wait_seq

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


async def test_the_source_s_notes_are_shown_once_and_can_be_hidden_and_findings_by_player(
    served: Served, browser_context: BrowserContext
) -> None:
    import aiohttp

    from tests.paths import ROOT

    form = aiohttp.FormData()
    form.add_field(
        "file", (ROOT / "tests" / "data" / "ptcgl" / "misc_lines.txt").read_bytes(), filename="n1.txt"
    )
    async with served.http.post(f"{served.url}/import", data=form, headers=served.auth("judge")) as r:
        assert r.status == 200, await r.text()
    page = await judge_page(served, browser_context, "/review/n1", (1440, 900))
    await ready(page)
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
    await page.select_option("#findings-by", "player")
    heads = [str(h) for h in await page.locator("#findings h3.player-head").all_text_contents()]
    from replay.records import from_msgpack

    who = [str(p) for p in from_msgpack(await served.store.record("n1") or b"").players]
    assert heads and all(h.rsplit(" (", 1)[0] in ("the match", *who) for h in heads), heads
