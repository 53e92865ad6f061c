"""The overlay's layouts against the 1920x1080 frame, the players' sides, and the series score as it
stood, in chromium (tests/fixtures_browser.py) on the real app and a real Redis.

Every element's box is measured against the frame in the bottom bar and both columns, at every scale
from 0.5 to 1.5: nothing leaves the frame, the Active's name and HP stay on one line each, and what is
cut is cut with an ellipsis and shown whole in its title.
"""

from __future__ import annotations

import json
from typing import Any

from playwright.async_api import BrowserContext, Page

from replay import Game, replay_records
from tests.streams.http.test_pages import Served, _prize_game, on_air, series_game, served, wait_seq

__all__ = ["served"]  # the fixture, from the pages' tests

Event = dict[str, Any]
LONG_PLAYER = "Wonder_Squid_the_Magnificent_of_Kanto"
LONG_CARD = "Pikachu & Zekrom-GX of the Very Long Printing"

#: Every element of the overlay that has a box, with its box and, for the text that must stay on
#: one line, how it fits.
BOXES = """() => [...document.querySelectorAll("#bar *, #banner, #banner *")].map((e) => {
  const r = e.getBoundingClientRect();
  const style = getComputedStyle(e);
  const panel = e.parentElement && e.parentElement.closest(".side, .middle");
  const p = panel ? panel.getBoundingClientRect() : null;
  return { cls: e.className, text: e.textContent, title: e.title || null, left: r.left, top: r.top,
    panel: p && { left: p.left, top: p.top, right: p.right, bottom: p.bottom },
    right: r.right, bottom: r.bottom, width: r.width, height: r.height,
    cut: e.scrollWidth > e.clientWidth + 1, ellipsis: style.textOverflow === "ellipsis",
    line: parseFloat(style.lineHeight) || parseFloat(style.fontSize) * 1.2 };
}).filter((b) => b.width > 0 && b.height > 0)"""


def long_names(events: list[Event], at: int) -> list[Event]:
    """The prize game with a long player name, and a long name for that player's Active at seq ``at``
    (as some real handles and card names are)."""
    out: list[Event] = json.loads(json.dumps(events).replace('"dawn"', json.dumps(LONG_PLAYER)))
    game = Game()
    for e in out[:at]:
        game.apply(e)
    pid = game.board()["players"][LONG_PLAYER]["active"]["pid"]
    for e in out:
        for slot in [e.get("active"), *(e.get("bench") or []), e]:
            if isinstance(slot, dict) and slot.get("pid") == pid and isinstance(slot.get("card"), dict):
                slot["card"] = dict(slot["card"], name=LONG_CARD)
    return out


async def check_frame(page: Page, scale: float, where: str, long_active: bool = True) -> None:
    boxes = await page.evaluate(BOXES)
    assert boxes, where
    for b in boxes:
        inside = b["left"] >= -0.5 and b["top"] >= -0.5 and b["right"] <= 1920.5 and b["bottom"] <= 1080.5
        assert inside, (
            where,
            b["cls"],
            b["text"][:40],
            {k: b[k] for k in ("left", "top", "right", "bottom")},
        )
        if (p := b["panel"]) is not None:  # and inside its panel: nothing sticks out of a box
            within = b["left"] >= p["left"] - 0.5 and b["right"] <= p["right"] + 0.5
            assert within and b["top"] >= p["top"] - 0.5 and b["bottom"] <= p["bottom"] + 0.5, (where, b)
    one_line = [b for b in boxes if b["cls"] in ("mon-name", "hptext", "player-name", "who-turn")]
    assert len([b for b in one_line if b["cls"] == "mon-name"]) >= 1, where
    for b in one_line:
        assert b["height"] <= 1.5 * b["line"] * scale + 1, (where, b["cls"], b["text"], b["height"])
        if b["cut"]:
            assert b["ellipsis"] and b["title"] == b["text"], (where, b)
    names = [b for b in one_line if b["cls"] == "mon-name"]
    assert not long_active or any(b["text"] == LONG_CARD for b in names), (where, [b["text"] for b in names])


async def test_every_layout_keeps_the_active_on_screen_at_any_scale(
    served: Served, browser_context: BrowserContext
) -> None:
    base = [dict(e, match="lay1") for e in _prize_game()]
    live = replay_records(base)["lay1"]["knockouts"][0]["seq"] - 1
    events = long_names(base, live)
    await served.post(events[:live])
    page = await browser_context.new_page()
    await page.set_viewport_size({"width": 1920, "height": 1080})
    players = events[0]["players"]
    for layout in ("", "side=left&", "side=right&"):
        for scale in (0.5, 0.75, 1, 1.25, 1.5):
            await page.goto(f"{served.url}/overlay/lay1?{layout}scale={scale}")
            await wait_seq(page, live)
            await check_frame(page, scale, f"{layout} {scale}")
    # the Active's long name: cut, with an ellipsis, whole in its title, in a column at 1.5
    await page.goto(f"{served.url}/overlay/lay1?side=left&scale=1.5")
    await wait_seq(page, live)
    name = page.locator(f'.side[data-player="{LONG_PLAYER}"] .mon-name')
    assert await name.get_attribute("title") == LONG_CARD
    await on_air(page, "overlay-column-long")
    # ?swap=1: the players on the other sides (the table camera's)
    sides = [await page.get_attribute(f"#side-{i}", "data-player") for i in (0, 1)]
    assert sides == players
    await page.goto(f"{served.url}/overlay/lay1?swap=1")
    await wait_seq(page, live)
    assert [await page.get_attribute(f"#side-{i}", "data-player") for i in (0, 1)] == players[::-1]
    left = await page.locator("#side-0").bounding_box()
    right = await page.locator("#side-1").bounding_box()
    assert left and right and left["x"] < right["x"]
    # the game over banner beside a column at 1.5 stays in the frame too
    await served.post(events[live:])
    await page.goto(f"{served.url}/overlay/lay1?side=right&scale=1.5")
    await page.wait_for_selector('body[data-state="over"]', state="attached")
    await check_frame(page, 1.5, "game over, right, 1.5", long_active=False)


async def test_a_replayed_game_shows_the_series_score_as_it_stood(
    served: Served, browser_context: BrowserContext
) -> None:
    first = series_game("s1-g1", 1, _prize_game())
    second = series_game("s1-g2", 2, _prize_game())
    await served.post(first + second)  # the match is over: two wins
    winner = replay_records(first)["s1-g1"]["result"]["winner"]
    players = first[0]["players"]
    score = await served.get_json("/overlay/s1-g1/score")
    assert score["series"]["wins"] == {p: int(p == winner) for p in players}  # after game 1: 1-0
    assert (await served.get_json("/overlay/s1-g2/score"))["series"]["wins"][winner] == 2
    page = await browser_context.new_page()
    await page.set_viewport_size({"width": 1920, "height": 1080})
    await page.goto(f"{served.url}/overlay/s1-g1")
    await page.wait_for_selector(".middle .series", state="attached")
    want = "–".join("1" if p == winner else "0" for p in players)
    assert await page.inner_text(".middle .series") == f"GAME 1 · {want}"
