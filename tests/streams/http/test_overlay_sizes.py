"""The overlay at any source size, and what it shows of each Pokémon (issue 37 items 2 and 3), in chromium
on the real app and a real Redis: 1280x720, 1920x1080 and 3840x2160 lay out without clipping (every box
inside the frame, the Active's HP line whole), a narrow source (a side panel) is a column; attached
Energy and Tools, Special Conditions, `HP ?` for an unknown HP and prizes taken show. Screenshots for
docs/web.md with ``PRIZECHECK_SCREENSHOTS``."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.async_api import BrowserContext

from tests.builder import Stream, card
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
    assert await page.locator(".pip.taken").count() == 1
    if width < height:
        assert await page.evaluate("document.body.classList.contains('column')")
    await on_air(page, name)
