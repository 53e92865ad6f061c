"""The judge's case file (issue 36 item 4): one HTML file with the game, every board, the findings, the
judges' notes, the record and its signature, that opens in chromium with no network at all, and steps."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from playwright.async_api import BrowserContext, Route

from tests.streams.http.served import Served
from tests.streams.http.test_review import OVERFLOW, ready, wait_seq
from tests.streams.ingest.support import game


@pytest.mark.parametrize("size", [(390, 844), (1440, 900)], ids=["phone", "desktop"])
async def test_a_case_file_opens_and_steps_with_no_network(
    served: Served, browser_context: BrowserContext, tmp_path: Path, size: tuple[int, int]
) -> None:
    assert (await served.post(game("m1"), who="ingest")).status == 200
    async with served.http.post(
        f"{served.url}/review/m1/act",
        json={"action": "ruling", "at": 4, "text": "the attach stands", "section": "3"},
        headers=served.auth("judge"),
    ) as r:
        assert r.status == 200, await r.text()
    async with served.http.get(f"{served.url}/review/m1/case", headers=served.auth("judge")) as r:
        assert r.status == 200 and "attachment" in r.headers["Content-Disposition"]
        html = await r.text()
    for who, status in ((None, 401), ("organizer", 403)):
        async with served.http.get(f"{served.url}/review/m1/case", headers=served.auth(who)) as r:
            assert r.status == status
    assert any(e.action == "read_hidden" and "/case" in e.target for e in await served.audit())
    path = Path(os.environ.get("PRIZECHECK_CASE_FILE", tmp_path / "case-m1.html"))
    path.write_text(html, "utf-8")
    page = await browser_context.new_page()
    await page.set_viewport_size({"width": size[0], "height": size[1]})
    requests: list[str] = []

    async def no_network(route: Route) -> None:
        requests.append(route.request.url)
        await route.abort()

    await page.route("http*://**", no_network)  # nothing may be fetched from anywhere
    await page.goto(path.as_uri() + "#seq=4")
    await ready(page)
    await wait_seq(page, 4)
    await page.keyboard.press("ArrowRight")
    await wait_seq(page, 5)
    assert requests == []
    assert await page.evaluate(OVERFLOW) == []  # no sideways scroll, on a phone too
    text = str(await page.text_content("body"))
    assert "Ruling at seq 4 (docs/rules.md §3): the attach stands" in text  # the judge's ruling, in the log
    await page.click("#case-record-box summary")
    assert '"match": "m1"' in str(await page.text_content("#case-record"))
    assert await page.locator("#s3").count() == 1  # the rules it cites are in the file
    assert await page.locator("#judge-act").count() == 0  # nothing to send from a file
