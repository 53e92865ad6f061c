"""The deck check on the review page in a real browser (static/deckcheck.js): a judge sees each card put
into play against the registered list, linked to its event."""

from __future__ import annotations

from playwright.async_api import BrowserContext

from tests.builder import Stream, card
from tests.paths import ROOT
from tests.streams.http.served import Served


async def test_a_judge_sees_the_deck_check_and_steps_to_its_event(
    served: Served, browser_context: BrowserContext
) -> None:
    s = Stream("cup-r1-t1-g1", context={"league": "L1", "event": "Cup"})
    s.setup("ash", ("a1", card("Pikachu ex", 200, "ex")))
    s.setup("misty", ("m1", card("Staryu", 60)))
    s.turn("ash")
    seq = s.add("played", player="ash", pid="a2", card={"name": "Charmander"})["seq"]
    s.add("turn_ended", player="ash")
    s.turn("misty")
    assert (await served.post(s.events)).status == 200
    body = (ROOT / "tests" / "data" / "decks" / "lightning.txt").read_bytes()
    async with served.http.put(f"{served.url}/decks/Cup/ash", data=body, headers=served.auth("judge")) as r:
        assert r.status == 200
    page = await browser_context.new_page()
    await page.goto(f"{served.url}/login?next=/review/{s.match}")
    await page.fill("#token", served.tokens["judge"])
    await page.click("button[type=submit]")
    await page.wait_for_url(f"{served.url}/review/{s.match}")
    await page.wait_for_selector("#deck-checks li")
    assert await page.text_content("#deck-checks h2") == "Deck check, judges only (1)"
    text = await page.inner_text("#deck-checks li")
    assert "not_on_list: ash put Charmander into play; it is not on their deck list" in text
    await page.wait_for_selector("body[data-seq]", state="attached")
    await page.click(f"#deck-checks a[href='#seq={seq}']")
    await page.wait_for_function(f"document.body.dataset.seq === '{seq}'")
    # the same page in Japanese: the heading and the check's sentence, its card by its Japanese name
    await page.goto(f"{served.url}/review/{s.match}?lang=ja")
    await page.wait_for_selector("#deck-checks li")
    text = await page.inner_text("#deck-checks li")
    assert "not_on_list: ash は ヒトカゲ を場に出した; デッキリストにないカード" in text, text
