"""The page scripts' Korean particles (streams/http/static/i18n.js ``_``) in a real browser, against the
service's own choice (replay/i18n/korean.py): a message the page fills says what the server would say."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.async_api import BrowserContext

from replay.i18n import korean

pytestmark = [pytest.mark.browser]

SCRIPT = Path(__file__).parents[3] / "streams" / "http" / "static" / "i18n.js"
WORDS = ["지우", "웅", "피카츄", "야돈", "물", "덱", "Mara", "B1", "A3", "seq 12", "0", "10", "120", "300",
         "2000", "50000", "100000000", "(B1)", ""]  # fmt: skip
TEMPLATE = "{w}이(가) / {w}은(는) / {w}을(를) / {w}과(와) / {w}와(과) / {w}(으)로 / {w}(이)라는 / {w}에게"


async def test_page_scripts_choose_the_particles_the_service_chooses(browser_context: BrowserContext) -> None:
    page = await browser_context.new_page()
    await page.set_content('<html lang="ko"><body></body></html>')
    await page.add_script_tag(content=SCRIPT.read_text(encoding="utf-8"))
    shown = await page.evaluate("(args) => args.words.map((w) => _(args.template, {w}))",
                                {"words": WORDS, "template": TEMPLATE})  # fmt: skip
    assert shown == [korean.fill(TEMPLATE, {"w": w}) for w in WORDS]
    assert shown[0].startswith("지우가 / 지우는 / 지우를 / 지우와 / 지우와 / 지우로 / 지우라는")
    # another language fills the words as they are, the generic form untouched
    await page.evaluate("document.documentElement.lang = 'ja'")
    assert await page.evaluate("_('{w}을(를)', {w: '지우'})") == "지우을(를)"
