"""The overlay at any source size, and what it shows of each Pokémon (issue 37 items 2 and 3), in chromium
on the real app and a real Redis: 1280x720, 1920x1080 and 3840x2160 lay out without clipping (every box
inside the frame, the Active's HP line whole), a narrow source (a side panel) is a column; attached
Energy and Tools, Special Conditions, `HP ?` for an unknown HP and prizes taken show. Screenshots for
docs/web.md with ``PRIZECHECK_SCREENSHOTS``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import aiohttp
import pytest
from aiohttp.test_utils import TestServer
from playwright.async_api import BrowserContext

from streams.http.api import make_app
from streams.http.card_images import CARD_IMAGES, card_slug
from streams.http.pages import add_pages
from streams.ingest import IngestCore
from streams.store import RedisStore
from tests.builder import Stream, card
from tests.streams.http.served import tiny_png
from tests.streams.http.test_pages import Served, on_air, served, wait_seq

__all__ = ["served"]

#: Every box of the bar and banner, and whether its text is cut.
BOXES = """() => [...document.querySelectorAll("#bar *, #banner, #banner *")].map((e) => {
  const r = e.getBoundingClientRect();
  return { cls: String(e.className), text: e.textContent, left: r.left, top: r.top, right: r.right,
    bottom: r.bottom, width: r.width, height: r.height, cut: e.scrollWidth > e.clientWidth + 1 };
}).filter((b) => b.width > 0 && b.height > 0)"""


def table_game(match: str) -> list[dict[str, Any]]:
    """Mid-game: ash's Active carries an Energy and a Tool and is Poisoned, with 130 HP of 230 left
    (the line that was cut at 720p); misty's Active has no known HP; a prize was taken."""
    s = Stream(match)
    s.setup("ash", ("a1", card("Charizard ex", 230, "ex")), ("a2", card("Pidgey", 50)))
    s.setup("misty", ("m1", card("Mystery Mon", None)), ("m2", card("Staryu", 60)))
    s.turn("ash")
    s.add(
        "attached", player="ash", pid="a1", card={"name": "Fire Energy", "kind": "energy"}, **{"from": "hand"}
    )
    s.add(
        "attached", player="ash", pid="a1", card={"name": "Hero's Cape", "kind": "tool"}, **{"from": "hand"}
    )
    s.add("attack", player="ash", pid="a1", name="Burning Darkness")
    s.add("damage", pid="m2", amount=60)
    s.add("attack_ended")
    s.add("knocked_out", pid="m2")
    s.add("prize_taken", player="ash", count=1)
    s.add("turn_ended", player="ash")
    s.turn("misty")
    s.add("damage", pid="a1", amount=100)
    s.add("condition", pid="a1", condition="poisoned", on=True)
    return s.events


@pytest.mark.parametrize(
    ("width", "height", "name"),
    [
        (1280, 720, "overlay-720"),
        (1920, 1080, "overlay-1080"),
        (3840, 2160, "overlay-2160"),
        (480, 1080, "overlay-narrow"),
    ],
)
async def test_every_source_size_lays_out_without_clipping(
    served: Served, browser_context: BrowserContext, width: int, height: int, name: str
) -> None:
    match = f"size-{width}"
    events = table_game(match)
    await served.post(events)
    page = await browser_context.new_page()
    await page.set_viewport_size({"width": width, "height": height})
    await page.goto(f"{served.url}/overlay/{match}")
    await wait_seq(page, events[-1]["seq"])
    boxes = await page.evaluate(BOXES)
    assert boxes
    for b in boxes:
        inside = (
            b["left"] >= -0.5
            and b["top"] >= -0.5
            and b["right"] <= width + 0.5
            and b["bottom"] <= height + 0.5
        )
        assert inside, (name, b)
    hp = [b for b in boxes if b["cls"] == "hptext"]
    assert any(b["text"].startswith("HP 130/230") and not b["cut"] for b in hp), (name, hp)
    assert any(b["text"].startswith("HP ?") for b in hp), (name, hp)  # the unknown HP says so
    text = await page.inner_text("#bar")
    assert "Fire Energy" in text and "Hero's Cape" in text and "poisoned" in text
    assert "Charizard ex: Burning Darkness · 60" in await page.inner_text("#middle .last-attack")
    assert await page.locator(".pip.taken").count() == 1
    if width < height:
        assert await page.evaluate("document.body.classList.contains('column')")
    await on_air(page, name)


def test_a_card_name_is_its_image_file_name() -> None:
    assert card_slug("Charizard ex") == "charizard-ex"
    assert card_slug("Pokémon Catcher") == "pokemon-catcher"
    assert card_slug("Hero's Cape") == "hero-s-cape"
    assert card_slug("Mr. Mime") == "mr-mime"


async def test_the_active_shows_its_art_from_the_local_image_pack(
    redis_store: RedisStore, browser_context: BrowserContext, tmp_path: Path
) -> None:
    """A small generated pack: the Active it has an image of shows it, one it has not shows none, and
    nothing is asked of any other address (every other request is refused)."""
    pack = tmp_path / "pack"
    pack.mkdir()
    (pack / "charizard-ex.png").write_bytes(tiny_png(20, 28))
    app = make_app(IngestCore(redis_store), redis_store, heartbeat=0.5)
    add_pages(app)
    app[CARD_IMAGES] = str(pack)
    server = TestServer(app, host="127.0.0.1")
    await server.start_server()
    url = str(server.make_url("")).rstrip("/")
    try:
        async with aiohttp.ClientSession() as http:
            events = table_game("art")
            async with http.post(f"{url}/events", json=events) as r:
                assert r.status == 200
            async with http.get(f"{url}/cards/charizard-ex") as r:
                assert r.status == 200 and r.headers["Content-Type"] == "image/png"
            for name, code in (("mystery-mon", "not_found"), ("..%2Fsecret", "not_found")):
                async with http.get(f"{url}/cards/{name}") as r:
                    assert r.status == 404 and (await r.json())["code"] == code, name
        asked: list[str] = []
        page = await browser_context.new_page()

        async def only_the_service(route: Any) -> None:
            asked.append(route.request.url)
            if route.request.url.startswith(url):
                await route.continue_()
            else:
                await route.abort()

        await page.route("**/*", only_the_service)
        await page.set_viewport_size({"width": 1920, "height": 1080})
        await page.goto(f"{url}/overlay/art")
        await wait_seq(page, events[-1]["seq"])
        loaded = "() => { const i = document.querySelector('#bar .art'); return i && i.naturalWidth === 20; }"
        await page.wait_for_function(loaded)
        assert await page.locator("#bar .art").count() == 1  # Charizard's; Mystery Mon has none in the pack
        assert all(u.startswith(url) for u in asked)
        await on_air(page, "overlay-art")
    finally:
        await server.close()
