"""The table console on a phone (390 px, touch), on a laptop with the keyboard alone, with a second
console on the same match, and a tiebreak started from the console (issue 22 items 1, 2, 4 and 8), in
chromium against ``prizecheck serve`` on a real Redis."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from urllib.parse import urlsplit

import pytest
from playwright.async_api import Browser, BrowserContext, Page
from redis.asyncio import Redis

from tests.streams.http.console_harness import (
    Console,
    ConsoleService,
    console_service,
    path_of,
    shot,
    start_match,
)

pytestmark = [pytest.mark.browser, pytest.mark.redis]


@pytest.fixture(scope="module")
def service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ConsoleService]:
    yield from console_service(tmp_path_factory.mktemp("console-touch"))


async def judge_json(service: ConsoleService, page: Page, path: str) -> dict[str, object]:
    r = await page.request.get(
        service.url + path, headers={"Authorization": f"Bearer {service.tokens['judge']}"}
    )
    assert r.status == 200, (path, await r.text())
    out: dict[str, object] = await r.json()
    return out


async def test_the_keyboard_alone_records_a_game(
    service: ConsoleService, browser_context: BrowserContext
) -> None:
    c = await Console.open(browser_context, service, "keys/g1")
    kb = c.page.keyboard
    await c.page.wait_for_selector("#start-box", state="visible")
    await c.page.wait_for_function("() => document.activeElement && document.activeElement.name === 'p1'")
    await kb.type("ash")
    await kb.press("Tab")
    await kb.type("misty")
    await kb.press("Enter")  # the start form: a draft match_started
    await c.page.wait_for_function("() => document.getElementById('drafts').textContent.startsWith('1 ')")
    await kb.press("l")  # publish
    await c.page.wait_for_function("() => document.getElementById('drafts').textContent.startsWith('0 ')")
    await c.settled()
    await kb.press("w")  # live from here on

    prefilled: dict[str, str] = {}

    async def setup(player_index: int, name: str, hp: int) -> None:
        before = await c.waiting_or_drafts()
        await kb.press("s")
        await c.page.wait_for_function(
            "() => document.activeElement && document.activeElement.name === 'player'"
        )
        for _ in range(player_index):
            await kb.press("ArrowDown")
        await kb.press("Tab")
        await kb.type(name)  # the card's name, with the catalogue's names offered as they are typed
        await c.page.wait_for_function(
            "name => [...document.querySelectorAll('#card-names option')].some(o => o.value === name)",
            arg=name,
        )
        await kb.press("Tab")  # to the HP, which the catalogue's card filled in: typed over
        prefilled[name] = await c.page.evaluate("() => document.activeElement.value")
        await kb.type(str(hp))
        await kb.press("Enter")
        await c._moved(before)

    await setup(0, "Pikachu", 60)
    await setup(1, "Staryu", 70)  # the operator's HP, not the catalogue's
    assert prefilled["Staryu"] not in ("", "70"), prefilled  # the catalogue gave an HP, and it was replaced
    board = (await c.state())["board"]["players"]
    hp = {p["active"]["name"]: p["active"]["hp"] for p in board.values()}
    assert hp["Staryu"] == 70 and hp["Pikachu"] == 60, hp
    await c.accept("turn_started")  # Enter
    before = await c.waiting_or_drafts()
    await kb.press("o")  # misty concedes: player is the turn player (ash) by default, so choose misty
    await c.page.wait_for_function("() => document.activeElement && document.activeElement.name === 'player'")
    await kb.press("ArrowDown")
    await kb.press("Enter")
    await c._moved(before)
    view = await c.state()
    assert view["status"] == "finished" and view["board"]["result"]["winner"] == "ash", view["log"][-2:]
    assert [e["type"] for e in view["log"]] == [
        "match_started",
        "setup",
        "setup",
        "turn_started",
        "drew",
        "conceded",
    ]


async def test_the_phone_width_fits_and_taps_work(service: ConsoleService, browser: Browser) -> None:
    context = await browser.new_context(
        viewport={"width": 390, "height": 844}, has_touch=True, is_mobile=True, device_scale_factor=2
    )
    try:
        c = await Console.open(context, service, "phone/g1", size=(390, 844))
        page = c.page
        await page.wait_for_selector("#start-box", state="visible")
        await page.fill("#start-form [name=p1]", "ash")
        await page.fill("#start-form [name=p2]", "misty")
        await page.tap("#start-form button[type=submit]")
        await page.wait_for_function("() => document.getElementById('drafts').textContent.startsWith('1 ')")
        before = await c.waiting_or_drafts()
        await page.tap("#publish")
        await c._moved(before)
        await page.tap("#hold")  # live
        for player, name, hp in (("ash", "Pikachu", "50"), ("misty", "Staryu", "70")):
            before = await c.waiting_or_drafts()
            await page.tap('#action-keys button[data-action="setup"]')
            await page.select_option("#action-form [name=player]", player)
            await page.fill("#action-form [name=card]", name)
            await page.wait_for_function(
                "name => [...document.querySelectorAll('#card-names option')].some(o => o.value === name)",
                arg=name,
            )
            # a tap on the HP: the card's HP comes from the catalogue, and what the operator types replaces
            # it (a tap leaves the caret after the number: "6070" before the field selected itself)
            await page.tap("#action-form [name=hp]")
            assert await page.evaluate("() => document.activeElement.value") not in ("", hp)
            await page.keyboard.type(hp)
            await page.tap("#action-form button[type=submit]")
            await c._moved(before)
        board = (await c.state())["board"]["players"]
        assert {p["active"]["name"]: p["active"]["hp"] for p in board.values()} == {
            "Pikachu": 50,
            "Staryu": 70,
        }
        before = await c.waiting_or_drafts()
        await page.tap('#prompts button[data-prompt="turn_started"]')
        await c._moved(before)
        # nothing wider than the phone, and every button a finger can hit (44 px)
        width = await page.evaluate("() => document.documentElement.scrollWidth")
        assert width <= 390, width
        # the attack form open, its picks (the card's attacks and their printed damage) under a finger too
        await page.tap('#action-keys button[data-action="attack"]')
        await page.wait_for_selector('#action-picks button[data-pick="1"]')
        small = await page.evaluate(
            "() => [...document.querySelectorAll("
            "'#action-keys button, #prompts button, #action-picks button')]"
            ".filter(b => b.getBoundingClientRect().height < 44).map(b => b.textContent)"
        )
        assert small == [], small
        if (path := shot("phone")) is not None:
            await page.screenshot(path=str(path), full_page=True)
        await page.tap("#action-cancel")
        view = await c.state()
        assert view["board"]["turn_player"] == "ash" and view["next_seq"] == 6
    finally:
        await context.close()


async def test_the_tablet_width_and_a_second_console(service: ConsoleService, browser: Browser) -> None:
    first = await browser.new_context(viewport={"width": 1024, "height": 768}, has_touch=True)
    second = await browser.new_context(viewport={"width": 1024, "height": 768})
    try:
        a = await Console.open(first, service, "two/g1", size=(1024, 768))
        await a.page.fill("#start-form [name=p1]", "ash")
        await a.page.fill("#start-form [name=p2]", "misty")
        await a.page.click("#start-form button[type=submit]")
        await a.page.wait_for_function("() => document.getElementById('drafts').textContent.startsWith('1 ')")
        await a.publish()
        assert await a.page.evaluate("() => document.documentElement.scrollWidth") <= 1024
        if (path := shot("tablet")) is not None:
            await a.page.screenshot(path=str(path))
        b = await Console.open(second, service, "two/g1", size=(1024, 768))
        await b.page.wait_for_selector('#writer[data-mine="false"]')
        assert "read-only" in await b.page.inner_text("#writer")
        await b.page.keyboard.press("q")
        await b.page.fill("#action-form [name=text]", "from the second console")
        await b.page.press("#action-form [name=text]", "Enter")
        await b.page.wait_for_selector("#error:not([hidden])")
        assert "read-only" in await b.page.inner_text("#error")
        # the first hands over; the second takes over and writes; the first is read-only now
        await a.page.click("#release")
        await b.page.click("#take", timeout=10_000)
        await b.page.wait_for_selector('#writer[data-mine="true"]')
        await b.page.keyboard.press("w")
        await b.act("q", text="from the second console")
        await a.page.wait_for_selector('#writer[data-mine="false"]', timeout=10_000)
        view = await b.state()
        assert [e["type"] for e in view["log"]] == ["match_started", "note"]
    finally:
        await first.close()
        await second.close()


async def test_a_tiebreak_started_from_the_console_is_linked_to_its_parent(
    service: ConsoleService, browser_context: BrowserContext
) -> None:
    c = await Console.open(browser_context, service, "tb/g1")
    page = c.page
    await start_match(c, p1="ash", p2="misty", must_decide="on", league="Kanto")
    await page.keyboard.press("w")
    await c.act("s", player="ash", card="Pikachu", hp=10)
    await c.act("s", player="misty", card="Staryu", hp=10)
    await c.accept("turn_started")
    await c.act("c", target="ash: Pikachu", condition="poisoned")
    await c.act("c", target="misty: Staryu", condition="poisoned")
    await c.key("n")  # the turn player's turn ends
    await c.accept("checkup")
    await c.accept("checkup_damage")
    await c.accept("checkup_ended")  # both Active Pokémon knocked out, nothing to promote: a draw
    await c.wait_prompt("playoff")
    if (path := shot("playoff")) is not None:
        await page.screenshot(path=str(path))
    await page.click('#prompts button[data-prompt="playoff"]')
    await page.wait_for_url(lambda url: url.endswith("/console/tb/g1/tb1"))
    await page.wait_for_selector('body[data-ready="true"]', state="attached")
    child = Console(page, service, "tb/g1/tb1")
    await page.wait_for_selector("#start-box", state="visible")
    assert await page.input_value("#start-form [name=parent]") == "tb/g1"
    assert await page.input_value("#start-form [name=p1]") == "ash"
    await start_match(child, first="p2")  # the coin flip: misty first
    started = json.loads((await child.export()).splitlines()[0])
    assert started["parent"] == "tb/g1" and started["playoff"] == "tiebreaker_game"
    assert started["context"] == {"league": "Kanto"} and started["first"] == "misty"
    parent = await judge_json(service, page, f"/matches/{path_of('tb/g1')}/record")
    assert parent["status"] == "awaiting_playoff" and parent["children"] == ["tb/g1/tb1"]
    # the tiebreak is decided (misty concedes it): the parent's result is the child's winner
    await child.act("s", player="ash", card="Pikachu", hp=60)
    await child.act("s", player="misty", card="Staryu", hp=60)
    await child.act("o", player="misty")
    parent = await judge_json(service, page, f"/matches/{path_of('tb/g1')}/record")
    assert parent["status"] == "finished", parent["status"]
    result = parent["result"]
    assert isinstance(result, dict) and result["winner"] == "ash" and result["reason"] == "playoff"


async def test_a_writing_console_renews_its_lease_with_a_write_and_never_shows_another_consoles_id(
    service: ConsoleService, browser: Browser
) -> None:
    """Issue 32 item 1: a read never renews a lease (GET /state only looks), so the writing console renews
    it itself (POST /lease renew, every 5 s, well within the 20 s); and a second console's page never holds
    the first one's id, which would let it act as the first."""
    first = await browser.new_context()
    second = await browser.new_context()
    try:
        a = await Console.open(first, service, "renew/g1")
        await start_match(a, p1="ash", p2="misty")
        mine = await a.page.evaluate("() => localStorage.getItem('pc-console-id')")
        posted: list[str] = []
        a.page.on(
            "request",
            lambda r: (
                posted.append(r.post_data or "")
                if r.method == "POST" and urlsplit(r.url).path.endswith("/lease")
                else None
            ),
        )
        redis = Redis.from_url(service.redis.url)
        try:
            (key,) = [k async for k in redis.scan_iter(match="*renew/g1*:lease")]
            await asyncio.sleep(7)  # idle: no publish, only the page's polls and its renewals
            assert any(json.loads(p).get("action") == "renew" for p in posted), posted
            assert await redis.pttl(key) > 12_000  # renewed in the last 5 s (a 20 s lease)
            assert mine.encode() in (await redis.get(key) or b"")
        finally:
            await redis.aclose()
        b = await Console.open(second, service, "renew/g1")
        await b.page.wait_for_selector('#writer[data-mine="false"]')
        seen: list[str] = []
        b.page.on("response", lambda r: seen.append(r.url) if "/state" in r.url else None)
        await b.page.wait_for_timeout(3500)  # at least one poll of /state
        assert seen
        assert mine not in await b.page.content()
        view = await b.state()
        assert view["lease"] == {"held": True, "mine": False, "take_over": True}  # the same token's
        assert mine not in json.dumps(view)
    finally:
        await first.close()
        await second.close()


async def test_a_table_scoped_recorder_starts_its_tables_game_and_takes_its_lease_then(
    service: ConsoleService, browser_context: BrowserContext
) -> None:
    """Issue 32 item 1: a new game's id does not show its table, so a recorder scoped to table 12 cannot
    take its lease when the page opens (the service refuses, quietly for the page); the start's
    match_started names the table, and that first publish takes the lease."""
    c = await Console.open(browser_context, service, "Cup/r1-t12", token="recorder_t12")
    await c.page.wait_for_selector("#start-box", state="visible")
    assert await c.page.is_hidden("#error")  # the refused take on opening is no news to the operator
    view = await c.state()
    assert view["lease"]["held"] is False
    await start_match(c, p1="ash", p2="misty", event="Cup", table="12")
    await c.page.wait_for_selector('#writer[data-mine="true"]')
    assert await c.page.is_hidden("#error")
