"""The HTML report in a real browser (Debian's chromium through Playwright, tests/fixtures_browser.py).

The page is opened from the file, as an organizer would open a mailed report: its charts draw with
nothing fetched, the standings sort, a player's name leads to their matches, and a finding's link opens
the judges' review page (the real app on a real Redis) at the finding's event.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from pathlib import Path

import msgpack
import pytest
from aiohttp.test_utils import TestServer
from playwright.async_api import BrowserContext, Page

from replay.cli import main
from replay.codec import encode_jsonl
from streams.http.api import make_app
from streams.http.pages import add_pages
from streams.ingest import IngestCore
from streams.store import RedisStore
from tests.report.league import league


@pytest.fixture
async def app_url(redis_store: RedisStore) -> AsyncIterator[tuple[str, IngestCore]]:
    core = IngestCore(redis_store)
    app = make_app(core, redis_store, heartbeat=0.5)
    add_pages(app)
    server = TestServer(app, host="127.0.0.1")
    await server.start_server()
    try:
        yield str(server.make_url("")).rstrip("/"), core
    finally:
        await server.close()


async def _numbers(page: Page, selector: str) -> list[float]:
    values = await page.eval_on_selector_all(
        selector, "cells => cells.map(c => c.getAttribute('data-value'))"
    )
    return [float(v) for v in values]


async def test_the_report_file_draws_its_charts_sorts_and_links_to_the_review_page(
    app_url: tuple[str, IngestCore], browser_context: BrowserContext, tmp_path: Path
) -> None:
    url, core = app_url
    lg = league()
    events = tmp_path / "league.jsonl"
    events.write_bytes(encode_jsonl(lg.events))
    html = tmp_path / "report.html"
    assert main(["report", str(events), "--format", "html", "--base-url", url, "--out", str(html)]) == 0
    offline: list[str] = []
    page = await browser_context.new_page()
    page.on("request", lambda r: offline.append(r.url) if not r.url.startswith("file:") else None)
    await page.goto(html.as_uri())

    # the charts: outcomes by reason add up to every game; findings by code over rounds; agreement per round
    marks = 'figure[data-chart="outcomes"] svg .mark'
    assert sum(await _numbers(page, marks)) == len(lg.records)
    box = await page.locator('figure[data-chart="outcomes"] svg').bounding_box()
    assert box is not None and box["width"] > 300 and box["height"] > 100
    findings = sum(len(r["findings"]) for r in lg.records.values())
    assert sum(await _numbers(page, 'figure[data-chart="findings-by-round"] svg .mark')) == findings
    rates = await _numbers(page, 'figure[data-chart="agreement-by-round"] svg .mark')
    assert rates and all(0 <= r <= 1 for r in rates) and min(rates) < 1
    assert await page.locator('figure[data-chart="agreement-by-source"] svg .mark').count() == 3
    assert offline == []  # nothing fetched: the file stands alone

    # the standings sort by any column, both ways
    table = page.locator("table.standings")
    await table.locator("th", has_text="pts").click()
    up = await _numbers(page, 'table.standings tbody td[data-cell$="|points"]')
    assert up == sorted(up) and up[0] < up[-1]
    await table.locator("th", has_text="pts").click()
    assert await _numbers(page, 'table.standings tbody td[data-cell$="|points"]') == sorted(up, reverse=True)
    await table.locator("th", has_text="OWP").first.click()
    owp = await _numbers(page, 'table.standings tbody td[data-cell$="|owp"]')
    assert owp == sorted(owp)

    # a player's name leads to the section with their matches
    first = table.locator("tbody tr a").first
    name = await first.inner_text()
    await first.click()
    assert re.search(r"#player-.+$", page.url)
    section = page.locator(f"section.player:has(h4:text-is('{name}'))")
    assert await section.is_visible() and await section.locator("tbody tr").count() >= 1

    # a finding's link opens the review page at the finding's event
    await page.locator("details:has(a.finding) summary").first.click()
    link = page.locator("a.finding").first
    href = await link.get_attribute("href")
    assert href is not None
    m = re.fullmatch(re.escape(url) + r"/review/(.+)#seq=(\d+)", href)
    assert m, href
    match, seq = m.group(1), int(m.group(2))
    for e in lg.events:
        if e["match"] == match:
            await core.ingest(msgpack.packb(e))
    await link.click()
    await page.wait_for_url(f"**/review/{match}#seq={seq}")
    await page.wait_for_selector(f'body[data-seq="{seq}"]', state="attached")
