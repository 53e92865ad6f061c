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
