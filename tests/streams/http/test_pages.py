"""The web pages in a real browser: the review page, the overlay and the match list.

Real things only: the aiohttp app (``make_app`` + ``add_pages``) on a free localhost port, a real Redis
(``redis_store``), simulated games posted to ``POST /events``, and Debian's chromium driven by Playwright
(``tests/fixtures_browser.py``). Set ``PRIZECHECK_SCREENSHOTS=/some/dir`` to save a screenshot of each page.
"""

from __future__ import annotations

import json
import os
import re
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import aiohttp
import msgpack
import pytest
from aiohttp.test_utils import TestServer
from playwright.async_api import BrowserContext, Page, Response

from replay import Game, replay_records
from replay.generators.simulate import simulate_series
from streams.http.api import make_app
from streams.http.pages import add_pages
from streams.ingest import IngestCore
from streams.store import IndexEntry, RedisStore
from tests.builder import Stream, card

Event = dict[str, Any]
SECRET = "Secret Card"


@dataclass
class Served:
    """The app on a real port, and an HTTP client for it."""

    url: str
    http: aiohttp.ClientSession

    async def post(self, events: list[Event]) -> None:
        r = await self.http.post(f"{self.url}/events", json=events)
        body = await r.json()
        assert r.status == 200, body

    async def get_json(self, path: str) -> Any:
        r = await self.http.get(f"{self.url}{path}")
        assert r.status == 200, await r.text()
        return await r.json()


@pytest.fixture
async def served(redis_store: RedisStore) -> AsyncIterator[Served]:
    core = IngestCore(redis_store)
    app = make_app(core, redis_store, heartbeat=0.5)
    add_pages(app)
    add_pages(app)  # harmless twice (make_app may register the pages itself)
    server = TestServer(app, host="127.0.0.1")
    await server.start_server()
    try:
        async with aiohttp.ClientSession() as http:
            yield Served(str(server.make_url("")).rstrip("/"), http)
    finally:
        await server.close()


@cache
def playoff_game() -> tuple[list[Event], list[Event]]:
    """g1, a drawn game with a knockout and a prize-count finding, and g1/tb1, the playoff game deciding it.

    The first such seed: chosen by what the games contain, so the tests survive simulator changes.
    """
    for seed in range(1, 200):
        series = simulate_series(seed, "g1", "play-2026", scenario="playoff", faults=("prize_count",))
        if len(series) != 2:
            continue
        record = replay_records(series[0] + series[1])["g1"]
        if record["knockouts"] and record["findings"] and (record["result"] or {}).get("reason") == "playoff":
            return series[0], series[1]
    raise AssertionError("the simulator gave no playoff game with a knockout and a finding")


@cache
def _prize_game() -> list[Event]:
    for seed in range(1, 200):
        events = simulate_series(seed, "o1", "play-2026", scenario="prizes")[0]
        record = replay_records(events)["o1"]
        ko = record["knockouts"][0] if record["knockouts"] else None
        if (record["result"] or {}).get("reason") == "prizes" and ko and 20 < ko["seq"] < len(events) - 10:
            return events
    raise AssertionError("the simulator gave no game won by prizes")


def prize_game(match: str) -> list[Event]:
    """A game won by prizes, its first knockout after seq 20, renamed to ``match``."""
    return [dict(e, match=match) for e in _prize_game()]


def shot(name: str) -> Path | None:
    where = os.environ.get("PRIZECHECK_SCREENSHOTS")
    return Path(where) / f"{name}.png" if where else None


async def on_air(page: Page, name: str) -> None:
    """A screenshot of the overlay as a stream shows it: over a stand-in for the video (a flat green-grey)."""
    if (path := shot(name)) is not None:
        # through the CSSOM: the page's Content-Security-Policy refuses an inline <style>
        paint = "c => document.documentElement.style.setProperty('background', c, 'important')"
        await page.evaluate(paint, "#56705f")
        await page.screenshot(path=str(path))
        await page.evaluate("() => document.documentElement.style.removeProperty('background')")


async def wait_seq(page: Page, seq: int) -> None:
    await page.wait_for_selector(f'body[data-seq="{seq}"]', state="attached")


#: The review page's battle log is a virtual list: only the lines in its view and a margin are in the page.
#: A reader scrolls the log, a page at a time, until a line is in it (False: never, after 2,000 pages).
SCROLL_TO_LINE = """async (seq) => {
  const box = document.getElementById("log");
  const frame = () => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
  for (let k = 0; k < 2000; k++) {
    const line = box.querySelector(`li.line[data-seq="${seq}"]`);
    if (line) { line.scrollIntoView({ block: "center" }); await frame(); return true; }
    const seqs = [...box.querySelectorAll("li.line")].map((li) => Number(li.dataset.seq));
    box.scrollTop += (seqs.length && seq < Math.min(...seqs) ? -1 : 1) * box.clientHeight;
    await frame();
  }
  return false;
}"""


async def scroll_log_to(page: Page, seq: int) -> None:
    """Scroll the review page's log, as a reader does, until the line of ``seq`` is in it."""
    assert await page.evaluate(SCROLL_TO_LINE, seq), f"no line of seq {seq} in the log"


# --------------------------------------------------------------------------------------- JSON only
async def test_review_endpoints_replay_the_archive(served: Served) -> None:
    parent, child = playoff_game()
    await served.post(parent + child)
    meta = await served.get_json("/review/g1/meta")
    assert meta["steps"] == [[e["seq"], e["type"]] for e in parent]
    assert meta["last"] == parent[-1]["seq"] and meta["first"] == 1
    assert meta["record"] == replay_records(parent + child)["g1"]
    assert meta["record"]["children"] == ["g1/tb1"]

    ko = meta["record"]["knockouts"][0]
    state = await served.get_json(f"/review/g1/state?seq={ko['seq']}")
    game = Game()
    for e in parent[: ko["seq"]]:
        game.apply(e)
    assert state["event"] == parent[ko["seq"] - 1]
    assert state["board"] == json.loads(json.dumps(game.board()))
    assert state["outputs"] == [t for t in game.timeline if t["seq"] == ko["seq"]]
    assert {"type": "ko", "pid": ko["pid"]}.items() <= state["outputs"][0].items()

    # clamped to the archive; bad input and unknown matches are answered, not crashed on
    assert (await served.get_json("/review/g1/state?seq=0"))["seq"] == 1
    assert (await served.get_json("/review/g1/state"))["seq"] == meta["last"]
    r = await served.http.get(f"{served.url}/review/g1/state?seq=x")
    assert r.status == 400 and "integer" in (await r.json())["error"]
    assert (await served.http.get(f"{served.url}/review/nope/meta")).status == 404
    r = await served.http.get(f"{served.url}/review/bad%20id")  # one check of match ids: a clear 400
    assert r.status == 400 and (await r.json())["code"] == "bad_match_id"
    # a playoff child's id contains '/'
    # a different event reusing a seq is archived after the head (with its finding) and shown at that step
    reused = {**parent[5], "id": "resent-with-changes"}
    r = await served.http.post(f"{served.url}/events", json=reused)
    assert r.status == 400
    meta = await served.get_json("/review/g1/meta")
    assert meta["extra"] == [{"position": [meta["last"], 1], "kind": "conflict", "type": parent[5]["type"]}]
    state = await served.get_json(f"/review/g1/state?seq={meta['last']}")
    assert state["extra"] == [{"kind": "conflict", "event": reused}]
    assert any(o.get("code") == "duplicate_seq" for o in state["outputs"])

    tb1 = await served.get_json("/review/g1/tb1/meta")
    assert tb1["match"] == "g1/tb1" and tb1["record"]["parent"] == "g1"
    r = await served.http.get(f"{served.url}/review/g1/tb1")
    assert r.status == 200 and r.content_type == "text/html"


def effect_knockout_game(match: str = "fx1") -> list[Event]:
    """A game decided by damage outside the attack and checkup windows (an Ability, say): the knockout
    is checked once the effect has resolved, i.e. when the next event arrives [rules §2]."""
    s = Stream(match)
    s.setup("ash", ("a1", card("Raging Bolt ex", 240, "ex")), ("a2", card("Pikachu", 60)))
    s.setup("misty", ("m1", card("Staryu", 60)))
    s.add("turn_started", player="ash", turn=1)
    s.add("drew", player="ash")
    s.add("damage", pid="m1", amount=60, by="a2")  # the decision: misty has nothing left in play
    s.add("knocked_out", pid="m1")
    s.add("prize_taken", player="ash", count=1)
    s.add("game_ended", outcome="win", winner="ash", reason="no_pokemon")
    return s.events


async def test_the_decision_step_shows_the_decision_of_an_effect_knockout(served: Served) -> None:
    events = effect_knockout_game()
    await served.post(events)
    record = replay_records(events)["fx1"]
    decided = record["result"]["decided_at"]
    assert record["knockouts"][0]["window"] == "effect" and decided == 7
    state = await served.get_json(f"/review/fx1/state?seq={decided}")
    kinds = [o["type"] for o in state["outputs"]]
    assert "ko" in kinds and "game_over" in kinds, kinds
    assert state["board"]["players"]["misty"]["active"] is None  # the board after the knockout
    assert state["status"] == "finished"
    # the step before: the damage is on, the effect still resolving with the claim that follows
    state = await served.get_json(f"/review/fx1/state?seq={decided - 1}")
    assert [o["type"] for o in state["outputs"]] == []
    assert state["board"]["players"]["misty"]["active"]["damage"] == 60
    # the same when the decision is the last archived event (the record resolves it too)
    await served.post([dict(e, match="fx2") for e in events[:decided]])
    state = await served.get_json(f"/review/fx2/state?seq={decided}")
    assert "game_over" in [o["type"] for o in state["outputs"]]


async def test_the_battle_log_names_cards_as_the_catalogue_knows_them(served: Served) -> None:
    """A German log's card names: the catalogue's English name, with the source's own beside it; a name
    the catalogue does not know stays as the source wrote it."""
    s = Stream("de1")
    s.setup("ash", ("a1", card("Glurak-ex", 330, "ex")), ("a2", card("Rayquaza ex", 170, "ex")))
    s.setup("misty", ("m1", card("Homemade Testmon", 60)))
    await served.post(s.events)
    meta = await served.get_json("/review/de1/meta")
    text = {line["seq"]: line["text"] for line in meta["log"]}
    assert text[2] == "ash sets up Charizard ex (Glurak-ex) (a1) as Active, Bench Rayquaza ex (a2)"
    assert text[3] == "misty sets up Homemade Testmon (m1) as Active"
    # the board shows the log's names: the localised one with its English name, the old-EX spelling
    # of the catalogue (Rayquaza-EX is another card) never
    assert meta["names"] == {"Glurak-ex": "Charizard ex (Glurak-ex)"}


async def test_the_battle_log_tells_the_game_in_sentences(served: Served) -> None:
    s = Stream("bl1")
    s.setup("ash", ("a1", card("Raging Bolt ex", 240, "ex")), ("a2", card("Dragapult ex", 320, "ex")))
    s.setup("misty", ("m1", card("Dragapult ex", 320, "ex")), ("m2", card("Dragapult ex", 320, "ex")))
    s.add("turn_started", player="ash", turn=1)
    s.add("drew", player="ash", cards=["Secret Card"])
    s.add("turn_ended", player="ash")
    s.add("turn_started", player="misty", turn=2)
    s.add("turn_ended", player="misty")
    s.add("turn_started", player="ash", turn=3)
    s.add("attack", player="ash", pid="a1", name="Bellowing Thunder")
    s.add("damage", pid="m1", amount=320)
    s.add("knocked_out", pid="m1")
    s.add("attack_ended")
    s.add("prize_taken", player="ash", count=2)
    s.add("promoted", player="misty", pid="m2")
    s.add("turn_ended", player="ash")
    s.add("turn_started", player="misty", turn=4)
    s.add("turn_ended", player="misty")
    s.add("turn_started", player="ash", turn=5)
    s.add("attack", player="ash", pid="a1", name="Bellowing Thunder")
    s.add("damage", pid="m2", amount=320)
    s.add("knocked_out", pid="m2")
    s.add("attack_ended")
    s.add("prize_taken", player="ash", count=1)  # a prize short: a finding once the claims are over
    s.add("turn_ended", player="ash")
    await served.post(s.events)
    log = (await served.get_json("/review/bl1/meta"))["log"]
    assert [line["seq"] for line in log] == [e["seq"] for e in s.events]
    text = {line["seq"]: line["text"] for line in log}
    assert text[2] == "ash sets up Raging Bolt ex (a1) as Active, Bench Dragapult ex (a2)"
    assert text[10] == "Raging Bolt ex (a1) attacks Dragapult ex (m1) with Bellowing Thunder: 320 damage"
    assert text[11] == "Dragapult ex (m1) takes 320 damage"
    assert text[15] == "misty promotes Dragapult ex (m2) to Active"
    assert text[5] == "ash draws 1 card: Secret Card"  # officials see what was drawn
    # grouped by the source's turn numbers
    assert [(line["seq"], line["turn"]) for line in log if line["type"] == "turn_started"] == [
        (4, 1),
        (7, 2),
        (9, 3),
        (17, 4),
        (19, 5),
    ]
    assert log[0]["turn"] is None and log[10]["turn"] == 3 and log[10]["player"] == "ash"
    # knockouts, prizes and findings are marked on their line; two knockouts of one card are told apart
    kos = [(line["seq"], m["text"]) for line in log for m in line["marks"] if m["kind"] == "ko"]
    assert [seq for seq, _ in kos] == [13, 23]  # at the end of each attack [rules §2]
    assert kos[0][1].startswith("Knockout #1: Dragapult ex (m1), misty's")
    assert kos[1][1].startswith("Knockout #2: Dragapult ex (m2), misty's")
    assert any(m["kind"] == "prize" for m in log[12]["marks"])
    finding = next(m for line in log for m in line["marks"] if m["kind"] == "finding")
    assert finding["code"] == "prize_count_mismatch"
    assert finding["rule"] == {"section": "3", "title": "Knockout procedure", "href": "/rules#s3"}


async def test_rules_page_renders_the_rule_reference_with_anchors(
    served: Served, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import streams.http.pages

    doc = tmp_path / "rules.md"
    doc.write_text("# Rules\n\n## 3. Knockout procedure\n\nPrizes are taken last.\n\n### 1.3 Deck-out\n\nx\n")
    monkeypatch.setattr(streams.http.pages, "RULES_DOC", doc)
    r = await served.http.get(f"{served.url}/rules")
    page = await r.text()
    assert r.status == 200 and '<h2 id="s3">3. Knockout procedure</h2>' in page
    assert '<h3 id="s1-3">1.3 Deck-out</h3>' in page
    monkeypatch.setattr(streams.http.pages, "RULES_DOC", tmp_path / "absent.md")
    r = await served.http.get(f"{served.url}/rules")
    assert r.status == 404 and "not installed" in (await r.json())["error"]


# ------------------------------------------------------------------------------------------ browser
async def test_review_page_steps_to_a_knockout_and_jumps_to_the_decision(
    served: Served, browser_context: BrowserContext
) -> None:
    parent, child = playoff_game()
    await served.post(parent + child)
    record = replay_records(parent + child)["g1"]
    ko = record["knockouts"][0]
    decided = record["result"]["decided_at"]
    finding = record["findings"][0]

    page = await browser_context.new_page()
    await page.set_viewport_size({"width": 1440, "height": 900})
    await page.goto(f"{served.url}/review/g1")
    await page.wait_for_selector('body[data-ready="1"]', state="attached")
    assert await page.inner_text("#event-type") == "match_started"
    assert "beat" in await page.inner_text("#result-text")
    assert "prizes" in await page.inner_text("#conditions")

    # the slider to just before the knockout: the Pokémon is still on the board
    await page.locator("#slider").evaluate(
        "(el, v) => { el.value = v; el.dispatchEvent(new Event('input')); }", ko["seq"] - 2
    )
    await wait_seq(page, ko["seq"] - 1)
    before = await page.inner_text("#board")
    assert await page.locator(f'#board [data-pid="{ko["pid"]}"]').count() == 1
    # next: the knockout, its prizes, and the board without the Pokémon
    await page.click("#next")
    await wait_seq(page, ko["seq"])
    outputs = await page.inner_text("#outputs")
    assert "Knockout" in outputs and ko["card"] in outputs and "Prizes due" in outputs
    assert await page.locator(f'#log li.line.current[data-seq="{ko["seq"]}"]').is_visible()
    assert await page.locator(f'#log li.line.current[data-seq="{ko["seq"]}"]').evaluate(
        "li => { const r = li.getBoundingClientRect(), b = li.parentNode.getBoundingClientRect();"
        " return r.top >= b.top && r.bottom <= b.bottom; }"
    )  # scrolled into the log's view
    assert await page.locator(f'#board [data-pid="{ko["pid"]}"]').count() == 0
    assert await page.inner_text("#board") != before
    # the prize is due at the knockout, and shown taken at the prize_taken that takes it
    other = next(p for p in record["players"] if p != ko["owner"])
    taker = page.locator(f'#board .player[data-player="{other}"]')
    left = int(await taker.locator(".prizes-left").inner_text())
    assert f"{ko.get('prizes_taken', ko['prizes'])} due" in await taker.inner_text()
    taken_at = next(e["seq"] for e in parent[ko["seq"] :] if e["type"] == "prize_taken")
    await page.evaluate("seq => window.__review.goTo(seq)", taken_at)
    await wait_seq(page, taken_at)
    assert int(await taker.locator(".prizes-left").inner_text()) < left
    assert " due" not in await taker.locator(".counts").inner_text()
    await page.evaluate("seq => window.__review.goTo(seq)", ko["seq"])
    await wait_seq(page, ko["seq"])
    if (path := shot("review")) is not None:
        await page.screenshot(path=str(path))
    await page.keyboard.press("ArrowLeft")
    await wait_seq(page, ko["seq"] - 1)
    assert await page.inner_text("#board") == before

    await page.click("#jump-decision")
    await wait_seq(page, decided)
    assert await page.get_attribute("body", "data-decided") == "1"
    assert await page.inner_text("#event-type") == parent[decided - 1]["type"]
    assert "Game over" in await page.inner_text("#outputs")

    await page.click(f'#findings button[data-seq="{finding["seq"]}"]')
    await wait_seq(page, finding["seq"])
    assert "prize_count_mismatch" in await page.inner_text("#findings")
    # in the log too, on its line, with the rules section it rests on
    mark = page.locator(f'#log li.line[data-seq="{finding["seq"]}"] .mark-finding')
    assert "prize_count_mismatch" in await mark.inner_text()
    assert await mark.locator("a.rule").get_attribute("href") == "/rules#s3"

    # playoff links both ways, and a seq in the address
    await page.click('#playoff-links a[href="/review/g1/tb1"]')
    await page.wait_for_url("**/review/g1/tb1#seq=1")
    assert await page.inner_text("#match-id") == "g1/tb1"
    await page.click("#parent-link a")
    await page.wait_for_url("**/review/g1#seq=1")
    await page.goto(f"{served.url}/review/g1#seq=7")
    await wait_seq(page, 7)
    assert await page.inner_text("#event-type") == parent[6]["type"]


async def test_review_page_shows_the_history_of_a_changed_record_with_working_links(
    served: Served, browser_context: BrowserContext
) -> None:
    from tests.streams.http.test_versions import penalty_after_the_end
    from tests.streams.ingest.support import game

    events = game("h1")
    late = penalty_after_the_end(events)  # after the end: the winner changes, a new version
    parent, child = playoff_game()
    await served.post([*events, late, *parent, *child])
    end = events[-2]["seq"]  # conceded: version 1; the source's claim after it, version 2

    page = await browser_context.new_page()
    await page.set_viewport_size({"width": 1440, "height": 900})
    await page.goto(f"{served.url}/review/h1")
    await page.wait_for_selector('body[data-ready="1"]', state="attached")
    assert await page.inner_text("#history-summary") == "History (3 versions)"
    items = page.locator("#history-list li")
    assert not await items.first.is_visible()  # closed: one line in the header
    await page.click("#history-summary")
    assert await items.count() == 3
    first, second = items.nth(0), items.nth(2)
    assert "finished: misty beat ash by concession" in await first.inner_text()
    assert f"caused by seq {end}" in await first.inner_text()
    text = await second.inner_text()
    assert "ash beat misty by penalty" in text and f"caused by seq {late['seq']}" in text
    assert "current" in text and "unsigned" in text
    if (path := shot("review-history")) is not None:
        await page.screenshot(path=str(path))
    # open, the list lies over the page: still one screen at 1440x900, no scroll
    size = await page.evaluate(
        "(d => [d.scrollWidth, d.scrollHeight, innerWidth, innerHeight])(document.documentElement)"
    )
    assert size[0] <= size[2] and size[1] <= size[3], size
    box = await page.locator("#history-list").bounding_box()
    assert box and box["y"] + box["height"] <= 900

    # a version's cause in this game: its step, on this page
    await first.locator("a.cause").click()
    await wait_seq(page, end)
    assert await page.inner_text("#event-type") == events[end - 1]["type"]
    assert not await items.first.is_visible()  # the list closed behind the jump
    # a version's record: that version, as stored then
    await page.click("#history-summary")
    assert await first.locator("a.record-link").get_attribute("href") == "/matches/h1/record?version=1"
    async with browser_context.expect_page() as opened:
        await first.locator("a.record-link").click()
    shown = await opened.value
    await shown.wait_for_load_state()
    assert shown.url == f"{served.url}/matches/h1/record?version=1"
    record = json.loads(await shown.locator("pre").first.inner_text())
    assert (record["result"]["winner"], record["chain"]["events"]) == ("misty", end)
    await shown.close()

    # a parent settled by its playoff game: the cause is the child's event, on the child's page
    versions = await served.get_json("/matches/g1/versions")
    by_child = [v for v in versions if v["cause"]["match"] == "g1/tb1"]
    assert len(by_child) == 1 and by_child[0]["result"]["reason"] == "playoff"
    await page.goto(f"{served.url}/review/g1")
    await page.wait_for_selector('body[data-ready="1"]', state="attached")
    assert await page.inner_text("#history-summary") == f"History ({len(versions)} versions)"
    await page.click("#history-summary")
    settled = page.locator(f'#history-list li[data-version="{by_child[0]["version"]}"]')
    assert "finished" in await settled.inner_text() and "by playoff" in await settled.inner_text()
    cause = settled.locator("a.cause")
    href = await cause.get_attribute("href")
    assert href is not None and href.startswith("/review/g1/tb1#seq=")
    await cause.click()
    await page.wait_for_url(f"**{href}")
    await page.wait_for_selector('body[data-ready="1"]', state="attached")
    await wait_seq(page, int(href.rsplit("=", 1)[1]))
    assert await page.inner_text("#match-id") == "g1/tb1"


def long_game(match: str, events: int = 1000) -> list[Event]:
    """The prize game with a judge's note after every event, renumbered: ``events`` events or more."""
    base = _prize_game()
    per = -(-(events - len(base)) // len(base))
    out: list[Event] = []
    for e in base:
        out.append(dict(e, match=match, seq=len(out) + 1))
        for k in range(per):
            out.append({"match": match, "seq": len(out) + 1, "type": "note", "text": f"table {k}: ok"})
    return out


async def test_review_page_fits_one_screen_and_stays_responsive_with_1000_events(
    served: Served, browser_context: BrowserContext
) -> None:
    events = long_game("long1")
    assert len(events) >= 1000
    await served.post(events)
    record = replay_records(events)["long1"]
    page = await browser_context.new_page()
    await page.set_viewport_size({"width": 1440, "height": 900})
    started = time.perf_counter()
    await page.goto(f"{served.url}/review/long1")
    await page.wait_for_selector('body[data-ready="1"]', state="attached")
    loaded = time.perf_counter() - started
    # the log counts every event and lays out only what is in its view and a margin (a virtual list)
    assert await page.text_content("#log-count") == f"{len(events)} events"
    assert 0 < await page.locator("#log li.line").count() < len(events)

    # one screen at 1440x900: no page scroll; the board, both benches and the log in view
    size = await page.evaluate(
        "(d => [d.scrollWidth, d.scrollHeight, innerWidth, innerHeight])(document.documentElement)"
    )
    assert size[0] <= size[2] and size[1] <= size[3], size
    await page.goto(f"{served.url}/review/long1#seq={record['knockouts'][0]['seq'] - 1}")
    await page.reload()
    await page.wait_for_selector('body[data-ready="1"]', state="attached")
    for selector in ("#board-panel", ".player:nth-child(1) .bench", ".player:nth-child(2) .bench", "#log"):
        box = await page.locator(selector).bounding_box()
        assert box and box["y"] >= 0 and box["y"] + box["height"] <= 900 and box["width"] > 0, (selector, box)
    assert await page.locator("#board .bench .mon").count() >= 1

    # click any line: it jumps there; arrows step; go to turn; knockouts numbered apart
    times = []
    marks = []
    for ko in record["knockouts"]:
        await scroll_log_to(page, ko["seq"])
        marks.append(str(await page.text_content(f'#log li.line[data-seq="{ko["seq"]}"] .mark-ko')))
        t0 = time.perf_counter()
        await page.click(f'#log li.line[data-seq="{ko["seq"]}"] .ltext')
        await wait_seq(page, ko["seq"])
        times.append(time.perf_counter() - t0)
        assert "Knockout" in await page.inner_text("#outputs")
        assert await page.locator(f'#log li.line.current[data-seq="{ko["seq"]}"]').is_visible()
    assert len(marks) == len(record["knockouts"]) and len(set(marks)) == len(marks)
    assert [m.split(":")[0] for m in marks] == [f"✖ Knockout #{i + 1}" for i in range(len(marks))]
    here = 100
    await scroll_log_to(page, here)
    await page.click(f'#log li.line[data-seq="{here}"] .ltext')
    await wait_seq(page, here)
    t0 = time.perf_counter()
    for _ in range(30):
        await page.keyboard.press("ArrowRight")
    await wait_seq(page, here + 30)
    held = time.perf_counter() - t0
    turn_starts = [e for e in events if e["type"] == "turn_started"]
    target = turn_starts[len(turn_starts) // 2]
    await page.select_option("#turn-select", str(target["seq"]))
    await wait_seq(page, target["seq"])
    assert f"{target['player']}'s turn starts" in await page.inner_text("#log li.line.current")
    await page.click("#jump-decision")
    await wait_seq(page, record["result"]["decided_at"])
    assert "Game over" in await page.inner_text("#outputs")
    print(
        f"\nreview page, {len(events)} events: loaded in {loaded * 1000:.0f} ms; a click on a log line to "
        f"its board: {max(times) * 1000:.0f} ms at most; 30 steps with the arrow key: {held * 1000:.0f} ms"
    )
    # Printed, not asserted: a test that times itself fails on a loaded machine and proves nothing on an
    # idle one. bench/review.py measures open and step against their targets, with a baseline in its run.


async def test_overlay_updates_live_without_a_reload(served: Served, browser_context: BrowserContext) -> None:
    events = prize_game("o1")
    ko = replay_records(events)["o1"]["knockouts"][0]
    taker = next(p for p in events[0]["players"] if p != ko["owner"])
    await served.post(events[: ko["seq"] - 1])

    page = await browser_context.new_page()
    await page.set_viewport_size({"width": 1920, "height": 1080})
    await page.goto(f"{served.url}/overlay/o1")
    await wait_seq(page, ko["seq"] - 1)
    side = page.locator(f'.side[data-player="{taker}"] .prizes-left')
    assert await side.inner_text() == "6"
    assert "HP" in await page.inner_text("#bar")
    assert await page.is_hidden("#banner")
    await page.evaluate("window.__sameDocument = true")

    await served.post(events[ko["seq"] - 1 : ko["seq"] + 3])
    await wait_seq(page, ko["seq"] + 3)
    assert await side.inner_text() == str(6 - ko["prizes"])
    await served.post(events[ko["seq"] + 3 :])
    await wait_seq(page, events[-1]["seq"])
    banner = await page.inner_text("#banner")
    winner = replay_records(events)["o1"]["result"]["winner"]
    assert "GAME OVER" in banner and winner in banner
    assert await page.evaluate("window.__sameDocument === true")  # updated in place, never reloaded


def series_game(match: str, game: int, events: list[Event]) -> list[Event]:
    """``events`` as game ``game`` of the best-of-three ``r1-t1`` in league L, season S."""
    out = [dict(e, match=match) for e in events]
    context = {"league": "L", "season": "S", "series": "r1-t1", "game": game, "round": 1}
    out[0] = dict(out[0], context=context, must_decide=False)
    return out


def halved_turns(events: list[Event]) -> list[Event]:
    """The source numbers a turn of each player as one (1, 1, 2, 2, ...): not the engine's count."""
    return [dict(e, turn=(e["turn"] + 1) // 2) if e["type"] == "turn_started" else e for e in events]


async def test_overlay_states_from_empty_to_game_over_and_its_layouts(
    served: Served, browser_context: BrowserContext
) -> None:
    events = halved_turns(prize_game("ov1"))
    record = replay_records(events)["ov1"]
    ko = record["knockouts"][0]
    page = await browser_context.new_page()
    await page.set_viewport_size({"width": 1920, "height": 1080})
    await page.goto(f"{served.url}/overlay/ov1")
    await page.wait_for_selector('body[data-connection="open"]', state="attached")
    # empty: nothing on air, not even the connection state, before there is a board (and with one that
    # has no Pokémon yet)
    assert await page.inner_text("body") == "" and await page.is_hidden("#bar")
    await served.post(events[:1])
    await wait_seq(page, 1)
    assert await page.get_attribute("body", "data-state") == "empty" and await page.inner_text("body") == ""

    # live: both sides with the Active, the Bench with HP, prizes left, the turn as the source counts it
    await served.post(events[1 : ko["seq"] - 1])
    await wait_seq(page, ko["seq"] - 1)
    assert await page.get_attribute("body", "data-state") == "live"
    turn = [e for e in events[: ko["seq"] - 1] if e["type"] == "turn_started"][-1]
    middle = await page.inner_text("#middle")
    assert f"TURN {turn['turn']}" in middle and turn["player"] in middle
    assert turn["turn"] != len([e for e in events[: ko["seq"] - 1] if e["type"] == "turn_started"])
    owner = page.locator(f'.side[data-player="{ko["owner"]}"]')
    assert (
        await owner.locator(".benched").count() >= 1 and "HP" in await owner.locator(".active").inner_text()
    )
    assert ko["card"] in await owner.inner_text()
    await on_air(page, "overlay")

    # a knockout: the prize count drops, the Pokémon leaves
    taker = next(p for p in events[0]["players"] if p != ko["owner"])
    await served.post(events[ko["seq"] - 1 : ko["seq"] + 3])
    await wait_seq(page, ko["seq"] + 3)
    assert await page.inner_text(f'.side[data-player="{taker}"] .prizes-left') == str(6 - ko["prizes"])

    # other layouts from the URL: a column at the right edge, no Bench, smaller
    other = await browser_context.new_page()
    await other.set_viewport_size({"width": 1920, "height": 1080})
    await other.goto(f"{served.url}/overlay/ov1?side=right&bench=0&scale=0.75")
    await wait_seq(other, ko["seq"] + 3)
    assert await other.locator(".benched").count() == 0
    box = await other.locator("#bar").bounding_box()
    assert box and 1920 - 40 < box["x"] + box["width"] <= 1920 and box["width"] < 500, box
    await on_air(other, "overlay-side")

    # game over: the banner with the winner and how
    await other.close()
    await page.bring_to_front()
    await served.post(events[ko["seq"] + 3 :])
    await wait_seq(page, events[-1]["seq"])
    assert await page.get_attribute("body", "data-state") == "over"
    banner = await page.inner_text("#banner")
    assert f"{record['result']['winner']} WINS" in banner and "BY PRIZES" in banner
    assert await page.locator(".side.to-move").count() == 0
    await on_air(page, "overlay-gameover")


async def test_overlay_shows_the_match_score_and_the_playoff_once_decided(
    served: Served, browser_context: BrowserContext
) -> None:
    first = series_game("s1-g1", 1, _prize_game())
    second = series_game("s1-g2", 2, _prize_game())
    winner = replay_records(first)["s1-g1"]["result"]["winner"]
    await served.post(first + second[:30])
    page = await browser_context.new_page()
    await page.set_viewport_size({"width": 1920, "height": 1080})
    await page.goto(f"{served.url}/overlay/s1-g2")
    await page.wait_for_selector(".middle .series", state="attached")
    players = first[0]["players"]
    score = "–".join("1" if p == winner else "0" for p in players)
    assert await page.inner_text(".middle .series") == f"GAME 2 · {score}"
    assert await page.inner_text(f'.side[data-player="{winner}"] .games') == "1"

    # a drawn game decided by its playoff: "to decide" while the playoff is played, then who won it
    parent, child = playoff_game()
    await served.post(parent + child[:20])
    await page.goto(f"{served.url}/overlay/g1")
    await page.wait_for_selector('body[data-state="awaiting-playoff"]', state="attached")
    assert "TO DECIDE" in await page.inner_text("#banner")
    await served.post(child[20:])
    await page.wait_for_selector('body[data-state="over"]', state="attached")
    banner = await page.inner_text("#banner")
    result = replay_records(parent + child)["g1"]["result"]
    assert f"{result['winner']} WINS" in banner and "WON THE TIEBREAKER GAME" in banner, banner
    assert "DECIDE" not in banner and "FOLLOW" not in banner
    await on_air(page, "overlay-playoff")
    await page.goto(f"{served.url}/overlay/g1/tb1")
    await page.wait_for_selector(".middle .tag", state="attached")
    assert await page.inner_text(".middle .tag") == "TIEBREAKER GAME"


async def test_overlay_survives_a_server_restart_without_saying_so(
    redis_store: RedisStore, browser_context: BrowserContext
) -> None:
    events = prize_game("rs1")

    async def start(port: int = 0) -> TestServer:
        server = TestServer(
            make_app(IngestCore(redis_store), redis_store, heartbeat=0.5), host="127.0.0.1", port=port
        )
        await server.start_server()
        return server

    server = await start()
    url = str(server.make_url("")).rstrip("/")
    async with aiohttp.ClientSession() as http:
        served = Served(url, http)
        await served.post(events[:20])
        page = await browser_context.new_page()
        await page.goto(f"{url}/overlay/rs1")
        await wait_seq(page, 20)
        on_air = await page.inner_text("body")
        port = server.port
        assert port
        await server.close()
        await page.wait_for_selector('body[data-connection="down"]', state="attached")
        assert await page.inner_text("body") == on_air  # the board stays, nothing says "reconnecting"
        server = await start(port)
        try:
            await served.post(events[20:40])
            await wait_seq(page, 40)
            assert await page.get_attribute("body", "data-connection") == "open"
            assert await page.get_attribute("body", "data-state") == "live"
        finally:
            await server.close()


async def test_overlay_never_shows_a_hidden_card(served: Served, browser_context: BrowserContext) -> None:
    base = prize_game("h1")
    at = next(i for i, e in enumerate(base) if e["type"] == "drew" and e["seq"] > 20) + 1
    player = base[at - 1]["player"]
    hidden = {"match": "h1", "seq": at + 1, "type": "drew", "player": player, "cards": [SECRET]}
    events = base[:at] + [hidden] + [dict(e, seq=e["seq"] + 1) for e in base[at:]]
    await served.post(events[:at])

    page = await browser_context.new_page()
    responses: list[Response] = []
    page.on("response", lambda r: responses.append(r))
    sse: list[str] = []
    cdp = await browser_context.new_cdp_session(page)
    cdp.on("Network.eventSourceMessageReceived", lambda params: sse.append(params["data"]))
    await cdp.send("Network.enable")
    await page.goto(f"{served.url}/overlay/h1")
    await wait_seq(page, at)
    await served.post(events[at : at + 6])
    await wait_seq(page, at + 6)

    # the secret is in the system (the archive keeps it, judges see it) ...
    archive = await (await served.http.get(f"{served.url}/matches/h1/events")).text()
    assert SECRET in archive
    # ... but not on the overlay, nor in anything the overlay page received
    assert SECRET not in await page.content()
    assert SECRET not in await page.inner_text("body")
    seqs = [json.loads(data)["seq"] for data in sse]
    assert seqs and seqs[0] == at and seqs[-1] == at + 6  # captured from the first board to the last
    assert all(SECRET not in data for data in sse)
    paths = set()
    for r in responses:
        paths.add(urlsplit(r.url).path)
        if "text/event-stream" not in (await r.all_headers()).get("content-type", ""):
            assert SECRET not in (await r.body()).decode("utf-8", "replace"), r.url
    assert paths <= {
        "/overlay/h1",
        "/static/overlay.css",
        "/static/i18n.js",
        "/static/overlay.js",
        "/overlay/h1/score",
        "/overlay/h1/clock",  # the match clock: its stored state alone
        "/matches/h1/live",
        "/favicon.ico",
    }, paths
    assert "/matches/h1/live" in paths


async def test_match_list_links_to_review_and_overlay(
    served: Served, browser_context: BrowserContext
) -> None:
    parent, child = playoff_game()
    other = prize_game("o1")
    await served.post(parent + child + other[:40])

    page = await browser_context.new_page()
    await page.goto(f"{served.url}/")
    await page.wait_for_url("**/ui")
    rows = page.locator("#matches tbody tr")
    assert await rows.count() == 3
    assert await page.inner_text("#summary") == "matches 1–3 of 3"
    texts = [await rows.nth(i).inner_text() for i in range(3)]
    assert texts[0].startswith("g1") and "finished" in texts[0] and "by playoff" in texts[0]
    assert texts[1].startswith("g1/tb1") and "beat" in texts[1]
    assert texts[2].startswith("o1") and "in progress" in texts[2]
    await page.click('#matches a.review[href="/review/g1/tb1"]')
    await page.wait_for_selector('body[data-ready="1"]', state="attached")
    assert await page.inner_text("#match-id") == "g1/tb1"
    await page.goto(f"{served.url}/ui")
    await page.click('#matches a.overlay[href="/overlay/o1"]')
    await wait_seq(page, 40)
    assert await page.locator(".side .prizes-left").count() == 2

    # what events carry is shown as text, never run as markup
    markup = '<img src="x" onerror="window.__injected = 1">'
    await served.post([{"match": "o1", "seq": 41, "type": "note", "text": markup, "author": "<b>judge</b>"}])
    await page.goto(f"{served.url}/review/o1#seq=41")
    await wait_seq(page, 41)
    assert markup in await page.inner_text("#event-fields")
    assert await page.evaluate("window.__injected === undefined")


async def store_many(store: RedisStore, n: int) -> list[str]:
    """``n`` finished matches indexed (index.lua, pipelined) with their records, without replaying n
    games: the list reads the index and the records only. Every 7th match has findings; players are
    ``p0000``..``p0499``."""
    names = []
    for start in range(0, n, 2000):
        async with store.client.pipeline(transaction=False) as pipe:
            for i in range(start, min(n, start + 2000)):
                match = f"2026-r{i // 1000:02d}-t{i:05d}"
                names.append(match)
                players = [f"p{i % 500:04d}", f"p{(i * 7 + 1) % 500:04d}"]
                findings = {"seq_gap": i % 4 + 1} if i % 7 == 0 else {}
                league = "L1" if i % 2 else "L2"
                entry = IndexEntry(match, 100, "finished", league, "2026", tuple(players), findings)
                keys, args = store.index_call(entry, None)  # what index.lua is given, pipelined
                await store._index(keys=keys, args=args, client=pipe)
                result = {
                    "outcome": "win",
                    "winner": players[0],
                    "loser": players[1],
                    "reason": "prizes",
                    "decided_at": 90,
                }
                gaps = [
                    {"code": "seq_gap", "severity": "warning", "seq": 10 + k, "message": "events missing"}
                    for k in range(findings.get("seq_gap", 0))
                ]  # the findings the index counts
                record = {"match": match, "players": players, "status": "finished", "result": result}
                pipe.set(store.key(match, "record"), msgpack.packb({**record, "findings": gaps}))
            await pipe.execute()
    return names


async def test_match_list_pages_through_ten_thousand_matches(
    served: Served, redis_store: RedisStore, browser_context: BrowserContext
) -> None:
    names = await store_many(redis_store, 10_000)
    try:
        await _list_ten_thousand(served, redis_store, browser_context, names)
    finally:  # faster than the fixture's key-by-key clean-up
        keys = [k async for k in redis_store.client.scan_iter(match=f"{redis_store.prefix}:*", count=2000)]
        async with redis_store.client.pipeline(transaction=False) as pipe:
            for i in range(0, len(keys), 1000):
                pipe.unlink(*keys[i : i + 1000])
            await pipe.execute()


async def _list_ten_thousand(
    served: Served, redis_store: RedisStore, browser_context: BrowserContext, names: list[str]
) -> None:
    reads: list[int] = []
    original = redis_store.records

    async def counted(matches: Any) -> Any:
        reads.append(len(matches))
        return await original(matches)

    redis_store.records = counted  # type: ignore[method-assign]
    page = await browser_context.new_page()
    started = time.perf_counter()
    await page.goto(f"{served.url}/ui")
    loaded = time.perf_counter() - started
    rows = page.locator("#matches tbody tr")
    assert await rows.count() == 50 and reads == [50]  # one page of records, not 10,000
    assert await page.inner_text("#summary") == "matches 1–50 of 10000"
    assert (await rows.nth(0).inner_text()).startswith(names[0])
    await page.click("#next-page")
    await page.wait_for_url("**/ui?page=2")
    assert (await rows.nth(0).inner_text()).startswith(names[50])
    assert await page.inner_text("#page-of") == "page 2 of 200"

    # search by player, then filter and sort with the form; every step reads one page
    await page.fill('input[name="q"]', "P0042")
    await page.press('input[name="q"]', "Enter")
    await page.wait_for_url("**/ui?q=P0042*")
    want = [m for i, m in enumerate(names) if 42 in (i % 500, (i * 7 + 1) % 500)]
    assert (
        await page.inner_text("#summary")
        == f"matches 1–{len(want)} of {len(want)}; “P0042” in a match id, player, event, round or table"
    )
    assert [(await rows.nth(i).inner_text()).split("\t")[0] for i in range(len(want))] == want
    await page.select_option('select[name="status"]', "finished")
    await page.wait_for_url("**status=finished*")
    await page.select_option('select[name="sort"]', "-findings")
    await page.wait_for_url("**sort=-findings*")
    first = await rows.nth(0).inner_text()
    assert first.split("\t")[-3] == "4 warnings"  # the most findings this player's matches have
    assert first.split("\t")[-2] == "warning seq_gap at seq 10: events missing"  # the top one, public text
    await page.goto(f"{served.url}/ui?league=L1&sort=-match&limit=100&page=3")
    assert await rows.count() == 100
    l1 = [m for i, m in enumerate(names) if i % 2][::-1]
    assert (await rows.nth(0).inner_text()).startswith(l1[200])
    assert max(reads) <= 100 and len(reads) == 6
    print(f"\n/ui with 10,000 matches in the store: first page loaded in {loaded * 1000:.0f} ms")
    if (path := shot("list")) is not None:
        await page.goto(f"{served.url}/ui?sort=-findings&limit=25")
        await page.screenshot(path=str(path), full_page=True)


def noted_game(match: str, severities: list[str]) -> list[Event]:
    """A short finished game with one finding of each of ``severities`` (an importer's note carrying one)."""
    from tests.streams.ingest.support import game

    events = [dict(e, match=match) for e in game(match)]
    at = len(events) - 2
    out = events[:at]
    for i, sev in enumerate(severities):
        finding = {"code": f"{sev}_note", "severity": sev}
        out.append({"match": match, "seq": len(out) + 1, "type": "note", "text": f"n{i}", "finding": finding})
    out += [dict(e, seq=len(out) + 1 + i) for i, e in enumerate(events[at:])]
    return out


async def test_match_list_shows_severities_apart_and_reviews_violations_first(served: Served) -> None:
    await served.post(noted_game("a-info", ["info"] * 9))  # many info notes
    await served.post(noted_game("b-violation", ["violation"]))
    await served.post(noted_game("c-warnings", ["warning", "warning", "info"]))
    await served.post(noted_game("d-clean", []))
    r = await served.http.get(f"{served.url}/ui", params={"sort": "-findings"})
    page = await r.text()
    order = re.findall(r'<tr data-match="([^"]+)"', page)
    assert order == ["b-violation", "c-warnings", "a-info", "d-clean"]  # not by the number of findings
    cells = dict(
        re.findall(r'<tr data-match="([^"]+)">.*?<td class="num findings"[^>]*>(.*?)</td>', page, re.S)
    )
    words = {m: " ".join(re.sub(r"<[^>]+>", " ", c).split()) for m, c in cells.items()}
    assert words == {
        "b-violation": "1 violation",
        "c-warnings": "2 warnings 1 info",
        "a-info": "9 info",
        "d-clean": "none",
    }
    assert 'data-violations="1"' in page and "games to review: violations first" in page
    # fewest first is the reverse
    r = await served.http.get(f"{served.url}/ui", params={"sort": "findings"})
    assert re.findall(r'<tr data-match="([^"]+)"', await r.text()) == order[::-1]
