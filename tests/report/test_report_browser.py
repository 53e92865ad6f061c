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


async def test_the_report_on_a_phone_shows_severities_apart_and_numbers_the_cut_once(
    browser_context: BrowserContext, tmp_path: Path
) -> None:
    from tests.streams.http.test_review import OVERFLOW

    lg = league()
    events = tmp_path / "league.jsonl"
    # and a game outside any league, with many info notes
    loose = [dict(e, match="loose-1") for e in lg.events if e["match"] == lg.events[0]["match"]]
    loose[0] = {k: v for k, v in loose[0].items() if k != "context"}
    end = len(loose) - 1
    notes = [
        {"match": "loose-1", "seq": end + 1 + i, "type": "note", "text": f"n{i}",
         "finding": {"code": "import_note", "severity": "info"}}
        for i in range(20)
    ]  # fmt: skip
    events.write_bytes(encode_jsonl([*lg.events, *loose[:end], *notes]))
    html = tmp_path / "report.html"
    assert main(["report", str(events), "--format", "html", "--out", str(html)]) == 0
    page = await browser_context.new_page()
    await page.set_viewport_size({"width": 390, "height": 844})
    await page.goto(html.as_uri())
    assert await page.evaluate(OVERFLOW) == []  # no sideways scroll: wide tables scroll in their box
    if (path := shot("report-390")) is not None:
        await page.screenshot(path=str(path))
    heads = await page.locator("h2").all_inner_texts()
    assert "Games without a league · no season" in heads and not any("League -" in h for h in heads)
    # the top cut: each place written once ("1. name", never "1. 1. name")
    cut = await page.locator("ol.cut").first.inner_text()
    assert re.match(r"1\. \S", cut) and not re.search(r"\d\.\s+\d\.", cut)
    assert await page.locator("ol.cut").first.evaluate("ol => getComputedStyle(ol).listStyleType") == "none"
    # the heatmap: one row per code and severity, violations first, each severity its own colour
    kanto = page.locator("section.league", has=page.locator("h2", has_text="League Kanto League"))
    rows = await kanto.locator('figure[data-chart="findings-by-round"] rect.mark').evaluate_all(
        "rs => rs.map((r) => r.dataset.tone)"
    )
    order = [t for i, t in enumerate(rows) if i == 0 or rows[i - 1] != t]
    rank = {"violation": 0, "warning": 1, "info": 2}
    assert order == sorted(order, key=rank.__getitem__) and order[0] == "violation" and len(order) >= 2
    loose_rows = page.locator("section.league", has=page.locator("h2", has_text="without a league"))
    tones = await loose_rows.locator('figure[data-chart="findings-by-round"] rect.mark').evaluate_all(
        "rs => rs.map((r) => r.dataset.tone)"
    )
    assert set(tones) == {"info"}
    # to review: violations first
    items = kanto.locator("ul.review li")
    texts = await items.all_inner_texts()
    assert texts and "violation" in texts[0]
    counts = [int(m.group(1)) if (m := re.search(r"\((\d+) violation", t)) else 0 for t in texts]
    assert counts == sorted(counts, reverse=True)


def shot(name: str) -> Path | None:
    import os

    where = os.environ.get("PRIZECHECK_SCREENSHOTS")
    return Path(where) / f"{name}.png" if where else None


async def test_a_season_page_shows_the_first_events_in_full_and_sorts_the_others(
    browser_context: BrowserContext, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """More events than a page shows in full (MAX_EVENTS, 2 here): the others are a line each in a table
    that sorts, the page says where every event's standings are, and it fits a phone's width."""
    from replay.report import html as page_html
    from tests.streams.http.test_review import OVERFLOW

    monkeypatch.setattr(page_html, "MAX_EVENTS", 2)
    lg = league()
    events = tmp_path / "season.jsonl"
    copies = [
        dict(e, match=f"e{k}/{e['match']}", context={**(e.get("context") or {}), "event": f"Cup {k}"})
        for k in range(5)
        for e in lg.events
    ]
    events.write_bytes(encode_jsonl(copies))
    out = tmp_path / "season.html"
    assert main(["report", str(events), "--format", "html", "--out", str(out)]) == 0
    page = await browser_context.new_page()
    await page.set_viewport_size({"width": 390, "height": 844})
    await page.goto(out.as_uri())
    assert await page.evaluate(OVERFLOW) == []
    assert await page.locator('table[data-table="standings"]').count() == 2
    more = page.locator('table[data-table="more_events"]')
    assert await more.locator("tbody tr td:first-child").all_inner_texts() == ["Cup 2", "Cup 3", "Cup 4"]
    await more.locator("th", has_text="event").click()
    await more.locator("th", has_text="event").click()  # descending
    assert await more.locator("tbody tr td:first-child").all_inner_texts() == ["Cup 4", "Cup 3", "Cup 2"]
    note = await page.locator("p[data-events]").inner_text()
    assert note.startswith("5 events: the first 2 are shown in full") and "season.csv" in note


#: Words of the page's own, in each language: the title, a section's headings, the standings' columns.
OWN_WORDS = {
    "ja": ("Prizecheck 監査レポート", "ゲームと対戦", "順位", "勝ち点", "確認が必要"),
    "ko": ("Prizecheck 감사 리포트", "게임과 매치", "순위", "승점", "검토 필요"),
}


@pytest.mark.parametrize("size", [(390, 844), (1440, 900)], ids=["phone", "desktop"])
@pytest.mark.parametrize("lang", ["ja", "ko"])
async def test_the_report_in_japanese_and_korean_draws_its_glyphs_and_holds(
    lang: str, size: tuple[int, int], browser_context: BrowserContext, tmp_path: Path
) -> None:
    """``prizecheck report --format html --lang ja|ko`` (issue 34 item 5): the page says its language, its
    own words are the catalogue's, every CJK character is drawn from a font that has it (no tofu box),
    nothing leaves the screen sideways at a phone's width or a desktop's, and the charts still draw."""
    from tests.streams.http.test_i18n_pages import NO_TOFU, SCRIPTS
    from tests.streams.http.test_review import OVERFLOW

    lg = league()
    events = tmp_path / "league.jsonl"
    events.write_bytes(encode_jsonl(lg.events))
    html = tmp_path / f"report-{lang}.html"
    assert main(["report", str(events), "--format", "html", "--lang", lang, "--out", str(html)]) == 0
    page = await browser_context.new_page()
    await page.set_viewport_size({"width": size[0], "height": size[1]})
    await page.goto(html.as_uri())
    assert await page.evaluate("() => document.documentElement.lang") == lang
    text = await page.evaluate("() => document.body.innerText")
    missing = [w for w in OWN_WORDS[lang] if w not in text]
    assert not missing, missing
    assert await page.title() == OWN_WORDS[lang][0]
    heads = await page.locator("h2").all_inner_texts()
    assert heads and all(re.search(SCRIPTS[lang], h) for h in heads), heads
    glyphs = await page.evaluate(NO_TOFU, [SCRIPTS[lang]])
    assert len(glyphs["chars"]) >= 8 and not glyphs["boxes"], glyphs
    assert await page.evaluate(OVERFLOW) == []
    assert sum(await _numbers(page, 'figure[data-chart="outcomes"] svg .mark')) == len(lg.records)
    if (path := shot(f"report-{lang}-{size[0]}")) is not None:
        await page.screenshot(path=str(path), full_page=False)
