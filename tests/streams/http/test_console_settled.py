"""What the engine says is due, and the record's claims closed, as the pages show them (issue 33 items 2 and
7), in chromium against ``prizecheck serve`` on a real Redis, at a laptop's 1,440 px and a phone's 390 px
(touch). Both were tested through the API only (tests/streams/http/test_console_record.py).

- item 2: a drawn game that must be decided, its playoff started from the console and decided there: the
  parent's console then says ``Game over: ash wins (playoff game)`` and offers no playoff again, and the
  review page's "due next" says the same (the engine's ``replay.due``, one answer for both);
- item 7: a game that ends on its deciding event (the last knockout, misty has nothing to promote) with
  the table's prize claim short: no ``game_ended`` follows, and still the console's findings and the stored
  record have the ``prize_count_mismatch`` at once.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from playwright.async_api import Browser, Page

from tests.streams.http.console_harness import Console, ConsoleService, console_service, path_of, start_match
from tests.streams.http.test_console_keys import opened
from tests.streams.http.test_console_outbox import stored

pytestmark = [pytest.mark.browser, pytest.mark.redis]

SIZES = pytest.mark.parametrize(("width", "touch"), [(1440, False), (390, True)], ids=["1440", "390-touch"])


@pytest.fixture(scope="module")
def service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ConsoleService]:
    yield from console_service(tmp_path_factory.mktemp("console-settled"))


async def press(page: Page, selector: str, touch: bool) -> None:
    """A tap on a phone, a click at a laptop."""
    if touch:
        await page.locator(selector).first.tap()
    else:
        await page.locator(selector).first.click()


@SIZES
async def test_a_playoff_decided_shows_its_winner_and_offers_no_playoff_again(
    service: ConsoleService, browser: Browser, width: int, touch: bool
) -> None:
    parent = f"settled/w{width}"
    async with opened(service, browser, parent, width, touch) as c:
        page = c.page
        await start_match(c, p1="ash", p2="misty", must_decide="on")
        await page.keyboard.press("w")  # live
        await c.act("s", player="ash", card="Pikachu", hp=10)
        await c.act("s", player="misty", card="Staryu", hp=10)
        await c.accept("turn_started")
        await c.act("c", target="ash: Pikachu", condition="poisoned")
        await c.act("c", target="misty: Staryu", condition="poisoned")
        await c.key("n")
        await c.accept("checkup")
        await c.accept("checkup_damage")
        await c.accept("checkup_ended")  # both Active Pokémon knocked out by poison: a draw
        await c.wait_prompt("playoff")
        assert "Game over: draw" in await page.inner_text("#prompts")
        await press(page, '#prompts button[data-prompt="playoff"]', touch)
        await page.wait_for_url(lambda url: url.endswith(f"/console/{parent}/tb1"))
        await page.wait_for_selector('body[data-ready="true"]', state="attached")
        child = Console(page, service, f"{parent}/tb1")
        await start_match(child, first="p2")
        await child.act("s", player="ash", card="Pikachu", hp=60)
        await child.act("s", player="misty", card="Staryu", hp=60)
        await child.act("o", player="misty")  # misty concedes the tiebreak
        # the parent's console: the engine's due steps with the playoff's result, no playoff offered again
        await page.goto(f"{service.url}/console/{path_of(parent)}")
        await page.wait_for_selector('body[data-ready="true"]', state="attached")
        await page.wait_for_selector('#prompts li:has-text("Game over: ash wins (playoff game)")')
        assert await page.locator('#prompts button[data-prompt="playoff"]').count() == 0
        assert "draw" not in await page.inner_text("#prompts")
        record = await stored(Console(page, service, parent), "record")
        assert record["result"] == {**record["result"], "winner": "ash", "reason": "playoff"}
    # the review page (a judge's) reads the same steps at the archive's head
    options: dict[str, Any] = {"has_touch": True, "is_mobile": True} if touch else {}
    context = await browser.new_context(viewport={"width": width, "height": 844}, **options)
    try:
        page = await context.new_page()
        await page.goto(f"{service.url}/review/{path_of(parent)}")
        if page.url.split("?")[0].endswith("/login"):
            await page.fill("#token", service.tokens["judge"])
            await page.click("#login button[type=submit]")
            await page.wait_for_url(lambda url: "/review/" in url)
        due = page.locator("#due-next")
        await due.wait_for(state="visible")
        assert (await due.inner_text()).endswith("Game over: ash wins (playoff game)")
    finally:
        await context.close()


@SIZES
async def test_a_stream_that_ends_on_its_deciding_knockout_closes_its_claims(
    service: ConsoleService, browser: Browser, width: int, touch: bool
) -> None:
    match = f"claims/w{width}"
    async with opened(service, browser, match, width, touch) as c:
        page = c.page
        await start_match(c, p1="ash", p2="misty")
        await page.keyboard.press("w")  # live
        await c.act("s", player="ash", card="Pikachu", hp=60)
        await c.act("s", player="misty", card="Staryu", hp=10, rule="ex")  # no Bench: nothing to promote
        await c.accept("turn_started")
        await c.key("n")  # nothing to place: misty's turn starts and she draws in the same step
        await c.key("n")  # misty passes
        # ash's Pikachu knocks out Staryu (2 prize cards); the table takes 1
        await press(page, '#action-keys button[data-action="attack"]', touch)
        await page.wait_for_function("() => document.querySelector('#action-form [name=amount]').value")
        before = await c.waiting_or_drafts()
        await press(page, "#action-form button[type=submit]", touch)
        await c._moved(before)
        await c.act("v", player="ash", count=1)
        close = (await c.state())["prompts"][0]
        assert close["id"] == "attack_ended" and close["choices"][0]["text"].endswith("(ash 1)"), close
        before = await c.waiting_or_drafts()
        await press(page, '#prompts button[data-choice="1"]', touch)  # as the table took them
        await c._moved(before)
        # the game ended on that event: no game_ended follows, and the claims are closed already
        await page.wait_for_selector('#prompts li:has-text("Game over: ash wins")')
        events = await stored(c, "events")
        assert events[-1]["type"] == "attack_ended" and "game_ended" not in {e["type"] for e in events}
        record = await stored(c, "record")
        assert record["status"] == "finished" and record["result"]["winner"] == "ash"
        found = [f["message"] for f in record["findings"] if f["code"] == "prize_count_mismatch"]
        assert found == ["ash took 1 prize(s); the knockouts give 2"], record["findings"]
        finding = page.locator("#findings li", has_text="prize_count_mismatch")
        await finding.wait_for()
        assert "ash took 1 prize(s); the knockouts give 2" in await finding.inner_text()
        assert await finding.locator("a").get_attribute("href") == "/rules#s3"
