"""A player's penalty history across the games the service holds (issue 36 item 4): judges only, every
penalty with its game, seq and reason, one event at a time with ?event=."""

from __future__ import annotations

import pytest
from playwright.async_api import BrowserContext

from tests.streams.http.served import Served
from tests.streams.http.test_review import OVERFLOW, judge_page, ready
from tests.streams.ingest.support import game


async def penalise(served: Served, match: str, at: int, kind: str, reason: str) -> None:
    body = {"action": "penalty", "at": at, "player": "ash", "kind": kind, "reason": reason}
    async with served.http.post(
        f"{served.url}/review/{match}/act", json=body, headers=served.auth("judge")
    ) as r:
        assert r.status == 200, await r.text()


async def test_a_player_s_penalties_across_games_for_judges(served: Served) -> None:
    second = [dict(e) for e in game("m2")]
    second[0]["context"] = {**second[0].get("context", {}), "event": "Spring Cup"}
    assert (await served.post(game("m1") + second, who="ingest")).status == 200
    await penalise(served, "m1", 4, "warning", "slow play")
    await penalise(served, "m2", 6, "caution", "drew an extra card")
    async with served.http.get(f"{served.url}/players/ash", headers=served.auth("judge")) as r:
        assert r.status == 200
        page = await r.text()
    assert "2 penalties in 2 game(s)" in page
    assert "slow play" in page and "drew an extra card" in page and "/review/m1#seq=" in page
    async with served.http.get(
        f"{served.url}/players/ash?event=Spring%20Cup", headers=served.auth("judge")
    ) as r:
        page = await r.text()
    assert "1 penalty in 1 game(s) of Spring Cup" in page and "slow play" not in page
    async with served.http.get(f"{served.url}/players/misty", headers=served.auth("judge")) as r:
        assert "0 penalties in 2 game(s)" in await r.text()
    for who, status in (("organizer", 403), ("ingest", 403)):
        async with served.http.get(f"{served.url}/players/ash", headers=served.auth(who)) as r:
            assert r.status == status
    async with served.http.get(f"{served.url}/players/ash", allow_redirects=False) as r:
        assert r.status == 303  # a page: to the login
    assert any(e.action == "read_hidden" and "players/ash" in e.target for e in await served.audit())


async def test_a_scoped_judge_sees_the_penalties_of_its_scope_only(served: Served) -> None:
    from tests.streams.http.served import scoped_game

    assert (await served.post(scoped_game("l1", "L1") + scoped_game("l2", "L2"))).status == 200
    await penalise(served, "l1", 4, "warning", "in league one")
    await penalise(served, "l2", 4, "caution", "in league two")
    async with served.http.get(f"{served.url}/players/ash", headers=served.auth("judge_l1")) as r:
        page = await r.text()
    assert "in league one" in page and "in league two" not in page and "1 penalty in 1 game(s)" in page


async def test_a_history_cut_short_says_so(served: Served, monkeypatch: object) -> None:
    import pytest

    from streams.http import players

    assert isinstance(monkeypatch, pytest.MonkeyPatch)
    assert (await served.post(game("m1") + game("m2"), who="ingest")).status == 200
    monkeypatch.setattr(players, "MAX_GAMES", 1)
    async with served.http.get(f"{served.url}/players/ash", headers=served.auth("judge")) as r:
        page = await r.text()
    assert "in 1 game(s); 1 more game(s) of the player, after the first 1 by match id" in page


@pytest.mark.parametrize("size", [(390, 844), (1440, 900)], ids=["phone", "desktop"])
async def test_the_penalties_page_in_the_browser(
    served: Served, browser_context: BrowserContext, size: tuple[int, int]
) -> None:
    """In chromium at phone and desktop widths: the judge logs in, reads the penalties (a card a penalty
    on the phone), narrows them to an event with the form and opens a game at its penalty."""
    second = [dict(e) for e in game("m2")]
    second[0]["context"] = {**second[0].get("context", {}), "event": "Spring Cup"}
    assert (await served.post(game("m1") + second, who="ingest")).status == 200
    await penalise(served, "m1", 4, "warning", "slow play")
    await penalise(served, "m2", 6, "caution", "drew an extra card")
    page = await judge_page(served, browser_context, "/players/ash", size)
    assert await page.text_content("#summary") == "2 penalties in 2 game(s)"
    rows = page.locator("#penalties tbody tr")
    assert await rows.count() == 2
    assert "slow play" in await rows.nth(0).inner_text() and await rows.nth(0).is_visible()
    assert await page.locator("#penalties thead").is_visible() == (size[0] >= 700)
    assert await page.evaluate(OVERFLOW) == []
    await page.fill('input[name="event"]', "Spring Cup")
    await page.click("form.filters button[type=submit]")
    await page.wait_for_url(lambda url: "event=Spring" in url)
    assert await page.text_content("#summary") == "1 penalty in 1 game(s) of Spring Cup"
    await page.locator("#penalties a").first.click()
    await page.wait_for_url(lambda url: "/review/m2#seq=" in url)
    await ready(page)
