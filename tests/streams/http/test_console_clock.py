"""The match clock from the table console (issue 37 item 2; docs/console.md, "The match clock"), in chromium
against ``prizecheck serve`` on a real Redis: the operator's clock key (``.``) starts and pauses it, and
the time called action (``m``) stops it; the stream table's overlay and the match's own overlay show each,
without a reload."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from playwright.async_api import Browser, Page

from tests.streams.http.console_harness import Console, ConsoleService, console_service, path_of, start_match

pytestmark = [pytest.mark.browser, pytest.mark.redis]

MATCH = "clockcup/r1-t3"


@pytest.fixture(scope="module")
def service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ConsoleService]:
    yield from console_service(tmp_path_factory.mktemp("console-clock"))


async def shows(page: Page, state: str) -> str:
    """The overlay's clock once it shows ``state`` (the match's own overlay asks every 5 s)."""
    await page.wait_for_selector(f'body[data-clock="{state}"] #clock:not([hidden])', timeout=15_000)
    return await page.inner_text("#clock")


async def test_the_consoles_clock_key_runs_the_clock_on_the_table_and_match_overlays(
    service: ConsoleService, browser: Browser
) -> None:
    context = await browser.new_context(viewport={"width": 1280, "height": 900})
    try:
        c = await Console.open(context, service, MATCH)
        await start_match(c, p1="ash", p2="misty", event="clockcup", table="3")
        table = await context.new_page()
        await table.goto(f"{service.url}/overlay/table/clockcup/3")
        own = await context.new_page()
        await own.goto(f"{service.url}/overlay/{path_of(MATCH)}")
        await table.wait_for_selector(f'body[data-match="{MATCH}"]', state="attached")
        assert await table.is_hidden("#clock")  # not started: no clock on air

        await c.page.bring_to_front()
        assert await c.page.inner_text("#clock-shown") == "–:––"
        await c.page.keyboard.press(".")  # start
        await c.page.wait_for_selector('#clock-shown[data-state="running"]')
        assert re.fullmatch(r"(50:00|49:5\d)", await c.page.inner_text("#clock-shown"))
        for page in (table, own):
            assert re.fullmatch(r"(50:00|49:[0-5]\d)", await shows(page, "running")), page.url

        await c.page.keyboard.press(".")  # pause
        await c.page.wait_for_selector('#clock-shown[data-state="paused"]')
        paused = await c.page.inner_text("#clock-shown")
        for page in (table, own):
            assert await shows(page, "paused") == paused, page.url

        await c.act("m")  # time called, recorded as the table calls it
        if await c.page.is_checked("#hold"):
            await c.publish()
        await c.page.wait_for_selector('#clock-shown[data-state="called"]')
        for page in (table, own):
            assert await shows(page, "called") == "TIME", page.url
        assert (await c.state())["clock"]["called"] is True
    finally:
        await context.close()
