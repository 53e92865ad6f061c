"""A scanned sheet's unclear marks are resolved in the review page (issue 36 item 2): each low_confidence
finding shows its crop beside what was read; the judge confirms the reading (a note authored by the judge)
or corrects it (the judge's form opens at the row's event, to amend or void it), each an event written as
a judge writes. Real chromium, a generated phone photo imported through POST /import."""

from __future__ import annotations

from typing import Any

import aiohttp
import pytest
from playwright.async_api import BrowserContext

from tests.streams.http.served import Served
from tests.streams.http.test_review import OVERFLOW, judge_page, ready, wait_seq
from tests.streams.http.test_review_log import tab


def unclear_photo() -> bytes:
    """A generated phone photo whose reading has one low-confidence row (seed 3's first: a scribbled-out
    box in row 6; seed 5 gives three rows since the reader weighs faint boxes, seed 6's third seven since
    it reads how strokes cross a box's edges, issue 39)."""
    from replay.generators.scan import samples

    for sample in samples(1, seed=3, hard_every=3):
        return sample.photo
    raise AssertionError("no sample")


async def stored(served: Served, match: str) -> list[dict[str, Any]]:
    from streams.http.battle_log import decode

    return decode(await served.store.events(match))


@pytest.mark.parametrize("size", [(390, 844), (1440, 900)], ids=["phone", "desktop"])
async def test_a_judge_confirms_and_corrects_an_unclear_mark(
    served: Served, browser_context: BrowserContext, size: tuple[int, int]
) -> None:
    form = aiohttp.FormData()
    form.add_field("file", unclear_photo(), filename="sheet.jpg", content_type="image/jpeg")
    async with served.http.post(f"{served.url}/import", data=form, headers=served.auth("judge")) as r:
        body = await r.json()
        assert r.status == 200, body
    (game,) = body["matches"]
    assert game["low_confidence"] == 1 and body["crops"] is True
    match = game["match"]
    events = await stored(served, match)
    before = len(events)
    (at,) = [e["seq"] for e in events if e["type"] == "note" and "check the crop" in e.get("text", "")]
    page = await judge_page(served, browser_context, f"/review/{match}#seq={at}", size)
    await ready(page)
    await tab(page, size, "event")
    mark = page.locator('li.finding[data-code="low_confidence"]').first
    await mark.locator("img.scan-crop").wait_for()  # the crop beside the value read
    assert "read as" in str(await mark.text_content())
    await mark.locator("button.scan-confirm").click()
    await wait_seq(page, before + 1)
    await ready(page)
    note = (await stored(served, match))[-1]
    assert note["type"] == "note" and note["author"] == "judge judge"
    assert "the judge confirms the sheet's reading (crop " in note["text"]
    # correct: the form opens at the row's first event with that event to amend
    await page.evaluate(f"() => {{ location.hash = '#seq={at}'; }}")
    await wait_seq(page, at)
    await tab(page, size, "event")
    mark = page.locator('li.finding[data-code="low_confidence"]').first
    await mark.locator("button.scan-correct").click()
    assert await page.locator("#judge-act").get_attribute("open") is not None
    assert await page.input_value("#act-action") == "amend"
    row = [
        e
        for e in await stored(served, match)
        if e.get("scan") and e["scan"] in str(await mark.text_content())
    ]
    assert row and f'"type": "{row[0]["type"]}"' in await page.input_value("#act-event")
    await wait_seq(page, row[0]["seq"])
    await page.select_option("#act-action", "void")  # the judge decides the row's first event is void
    await page.click("#act-send")
    await wait_seq(page, before + 2)
    last = (await stored(served, match))[-1]
    assert (last["type"], last["action"], last["target"]) == ("correction", "void", row[0]["seq"])
    assert await page.evaluate(OVERFLOW) == []
