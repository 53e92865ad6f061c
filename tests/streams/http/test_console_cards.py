"""The console's card search in Japanese and Korean (issue 34 item 4): an operator types a card's name in
hangul, katakana or hiragana and the catalogue's card is offered, with its HP; in chromium against
``prizecheck serve`` on a real Redis and the packaged card catalogue."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.async_api import BrowserContext

from tests.streams.http.console_harness import Console, ConsoleService, console_service, start_match

pytestmark = [pytest.mark.browser, pytest.mark.redis]

# the option the list offers for a name: its label ("" when none is offered yet)
LABEL = "v => [...document.querySelectorAll('#card-names option')].find(o => o.value === v)?.label ?? null"
OFFERED = "v => [...document.querySelectorAll('#card-names option')].some(o => o.value === v)"


@pytest.fixture(scope="module")
def service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ConsoleService]:
    yield from console_service(tmp_path_factory.mktemp("console-cards"))


async def test_the_card_search_finds_a_card_typed_in_hangul_and_in_kana(
    service: ConsoleService, browser_context: BrowserContext
) -> None:
    c = await Console.open(browser_context, service, "cjk/g1")
    await start_match(c, p1="ash", p2="misty")
    page = c.page
    form = page.locator("#action-form")
    labels: dict[str, str] = {}
    # what the operator types, the name the list offers (and that is recorded), its HP in the catalogue
    for player, typed, offered, hp in (
        ("ash", "피카츄", "피카츄", "60"),  # hangul
        ("misty", "リザードン", "リザードンex", "330"),  # katakana, a longer name offered
        ("ash", "ぴかちゅう", "ピカチュウ", "60"),  # hiragana finds the katakana name
    ):
        before = await c.waiting_or_drafts()
        await page.click('#action-keys button[data-action="setup"]')
        await form.wait_for(state="visible")
        await form.locator("[name=player]").select_option(player)
        card = form.locator("[name=card]")
        await card.fill(typed)  # an input event, as typing sends: the type-ahead asks the service
        await page.wait_for_function(OFFERED, arg=offered, timeout=10_000)
        labels[typed] = await page.evaluate(LABEL, offered)
        await card.fill(offered)  # the operator picks the offered name
        await card.blur()  # its change fills in the card's HP and rule box from the catalogue
        assert await form.locator("[name=hp]").input_value() == hp, typed
        if typed == "リザードン":
            assert await form.locator("[name=rule]").input_value() == "ex"
        await form.locator("button[type=submit]").click()
        await c._moved(before)
    # the list shows the card's other names beside it, and the name as searched, so the browser offers
    # a katakana name to hiragana typed
    assert "Pikachu" in labels["피카츄"] and "Charizard ex" in labels["リザードン"]
    assert "ぴかちゅう" in labels["ぴかちゅう"]
    await c.publish()
    board = (await c.state())["board"]["players"]
    assert board["ash"]["active"]["name"] == "피카츄" and board["ash"]["active"]["hp"] == 60
    assert board["misty"]["active"]["name"] == "リザードンex" and board["misty"]["active"]["hp"] == 330


async def test_the_board_overlay_and_review_page_show_card_names_in_the_pages_language(
    service: ConsoleService, browser_context: BrowserContext
) -> None:
    """A game recorded in English names, read with ?lang=ja on the console and the overlay (one language
    per browser source) and with ?lang=ko on the review page."""
    c = await Console.open(browser_context, service, "lang/g1")
    await start_match(c, p1="ash", p2="misty")
    await c.act("s", player="ash", card="Charizard ex", hp=330)
    await c.act("s", player="misty", card="Pikachu", hp=60)
    await c.publish()
    page = c.page
    # the console in Japanese: the board's names (the events' own beside them), the events unchanged
    await page.goto(f"{service.url}/console/lang/g1?lang=ja")
    if await page.is_visible("#token-box"):
        await page.fill("#token-box #token", service.tokens["recorder"])
        await page.press("#token-box #token", "Enter")
    await page.wait_for_selector('button.mon:has-text("リザードンex (Charizard ex)")', timeout=10_000)
    assert (await c.state())["board"]["players"]["ash"]["active"]["name"] == "Charizard ex"
    # the overlay in Japanese: the names alone, as spectators read them
    overlay = await browser_context.new_page()
    await overlay.goto(f"{service.url}/overlay/lang/g1?lang=ja")
    ash = overlay.locator('.side[data-player="ash"] .active .mon-name')
    await overlay.wait_for_function(
        "() => [...document.querySelectorAll('.mon-name')].some(n => n.textContent === 'リザードンex')"
    )
    assert await ash.inner_text() == "リザードンex"
    assert await overlay.locator('.side[data-player="misty"] .active .mon-name').inner_text() == "ピカチュウ"
    english = await browser_context.new_page()  # another browser source, in English
    await english.goto(f"{service.url}/overlay/lang/g1")
    await english.wait_for_selector('.side[data-player="ash"] .active .mon-name')
    assert await english.locator('.side[data-player="ash"] .active .mon-name').inner_text() == "Charizard ex"
    # the review page in Korean, for a judge
    review = await browser_context.new_page()
    await review.goto(f"{service.url}/login?next=/review/lang/g1")
    await review.fill("#token", service.tokens["judge"])
    await review.click("button[type=submit]")
    await review.wait_for_url(f"{service.url}/review/lang/g1")
    await review.goto(f"{service.url}/review/lang/g1?lang=ko#seq=3")  # the board after both setups
    await review.wait_for_selector('.mon .name:has-text("리자몽 ex (Charizard ex)")', timeout=10_000)
    log = await review.inner_text("body")
    assert "피카츄 (Pikachu)" in log


async def test_the_card_search_finds_a_trainer_typed_in_katakana_and_in_hangul(
    service: ConsoleService, browser_context: BrowserContext
) -> None:
    """A Trainer's Japanese and Korean printings name its English card, so the trainer form offers
    ハイパーボール with Ultra Ball beside it, and 모야모 with Iono and ナンジャモ (issue 34 item 4)."""
    c = await Console.open(browser_context, service, "cjk/g2")
    await start_match(c, p1="ash", p2="misty")
    page = c.page
    form = page.locator("#action-form")
    for typed, offered, also in (
        ("ハイパーボール", "ハイパーボール", ("Ultra Ball",)),  # katakana
        ("はいぱーぼーる", "ハイパーボール", ("Ultra Ball",)),  # hiragana finds the katakana name
        ("모야모", "모야모", ("Iono", "ナンジャモ")),  # hangul
    ):
        before = await c.waiting_or_drafts()
        await page.click('#action-keys button[data-action="trainer"]')
        await form.wait_for(state="visible")
        await form.locator("[name=player]").select_option("ash")
        card = form.locator("[name=card]")
        await card.fill(typed)
        await page.wait_for_function(OFFERED, arg=offered, timeout=10_000)
        label = await page.evaluate(LABEL, offered)
        assert all(name in label for name in also), (typed, label)
        await card.fill(offered)
        await form.locator("button[type=submit]").click()
        await c._moved(before)
    await c.publish()
    played = [e["card"]["name"] for e in (await c.state())["log"] if e.get("type") == "trainer_played"]
    assert played == ["ハイパーボール", "ハイパーボール", "모야모"]
