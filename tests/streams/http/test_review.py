"""The judges' review page in a real browser, with real access: logins that keep the moment, any screen,
lichess-speed stepping and its keys, playoffs and reasons in view, who is logged in.

The service is the real app with a token book (``served``: tests/streams/http/served.py) on a real Redis;
the browser is Debian's chromium (tests/fixtures_browser.py). ``PRIZECHECK_SCREENSHOTS=DIR`` keeps the
screenshots (``make screenshots``: docs/img).
"""

from __future__ import annotations

import asyncio
import statistics
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from playwright.async_api import BrowserContext, Page

from replay import replay_records
from streams.http.pages import FIRST_WINDOW
from tests.streams.http.served import Served, scoped_game
from tests.streams.http.test_pages import long_game, playoff_game, prize_game, scroll_log_to, shot
from tests.streams.ingest.support import game

Event = dict[str, Any]
WIDTHS = ((390, 844), (768, 1024), (1366, 768), (1440, 900))

#: Elements whose box leaves the viewport sideways, unless a scrolling or clipping box inside the
#: viewport holds them (a log line scrolled out of its list is not on screen).
OVERFLOW = """() => {
  const out = [];
  const clipped = (e) => {
    for (let p = e.parentElement; p && p !== document.body; p = p.parentElement) {
      const s = getComputedStyle(p);
      if (s.overflowX !== "visible" || s.contentVisibility === "auto") return true;
    }
    return false;
  };
  for (const e of document.body.querySelectorAll("*")) {
    const r = e.getBoundingClientRect();
    if (!r.width || !r.height || !e.checkVisibility({ visibilityProperty: true })) continue;
    if ((r.left < -1 || r.right > innerWidth + 1) && !clipped(e)) {
      const where = `${Math.round(r.left)}..${Math.round(r.right)}`;
      out.push(`${e.tagName.toLowerCase()}#${e.id}.${e.className} ${where}`);
    }
  }
  const d = document.documentElement;
  if (d.scrollWidth > innerWidth) out.push(`the page scrolls sideways: ${d.scrollWidth} > ${innerWidth}`);
  return out;
}"""


async def log_in(page: Page, token: str) -> None:
    """On the login page: paste the token and send it."""
    await page.wait_for_selector("#token")
    await page.fill("#token", token)
    await page.click("#login button[type=submit]")


async def ready(page: Page) -> None:
    await page.wait_for_selector('body[data-ready="1"]', state="attached")


async def wait_seq(page: Page, seq: int) -> None:
    await page.wait_for_selector(f'body[data-seq="{seq}"]', state="attached")


async def judge_page(
    served: Served, context: BrowserContext, path: str, size: tuple[int, int] | None = None
) -> Page:
    """A page of ``path`` (at ``size``) for a judge, logged in through the login page it is sent to."""
    page = await context.new_page()
    if size is not None:
        await page.set_viewport_size({"width": size[0], "height": size[1]})
    await page.goto(f"{served.url}{path}")
    if urlsplit(page.url).path == "/login":
        await log_in(page, served.tokens["judge"])
        # the path itself: a glob of it also matches the login page's own ?next=... address, and the test
        # then raced the login's navigation to the page
        await page.wait_for_url(lambda url: urlsplit(url).path == urlsplit(path).path)
    return page


async def test_a_moment_and_a_filtered_list_survive_the_login(
    served: Served, browser_context: BrowserContext
) -> None:
    s = served
    events = game("m1")
    assert (await s.post(events)).status == 200
    page = await browser_context.new_page()
    errors: list[str] = []
    page.on("console", lambda m: errors.append(f"{page.url}: {m.text}") if m.type == "error" else None)
    await page.goto(f"{s.url}/review/m1#seq=7")
    assert urlsplit(page.url).path == "/login" and urlsplit(page.url).fragment == "seq=7"
    # a command that works, to make a judge's token (issue 19)
    assert 'prizecheck token create --role judge --name "your name"' in await page.inner_text("main")
    await log_in(page, s.tokens["judge"])
    await page.wait_for_url(f"{s.url}/review/m1#seq=7")
    await ready(page)
    assert await page.get_attribute("body", "data-seq") == "7"
    assert await page.inner_text("#event-type") == events[6]["type"]
    # who is logged in, and a log-out that ends it
    assert "logged in as judge" in await page.inner_text("#who")
    await page.click("#logout button")
    await page.wait_for_url(lambda url: urlsplit(url).path == "/login")  # the page needs the role again

    # a filtered list (public): its "log in" comes back to the same address
    filtered = "/ui?league=L1&status=finished&sort=-findings"
    await page.goto(f"{s.url}{filtered}")
    assert await page.inner_text("#login-link") == "log in"
    await page.click("#login-link")
    await log_in(page, s.tokens["judge"])
    await page.wait_for_url(f"{s.url}{filtered}")
    assert "logged in as judge" in await page.inner_text("#who")
    assert await page.input_value('select[name="status"]') == "finished"
    # the chrome's link keeps a moment too
    await page.click("#logout button")
    await page.wait_for_selector("#login-link")  # logged out: the page again, for the public
    await page.goto(f"{s.url}/rules#s3")
    async with page.expect_navigation():
        await page.click("#login-link")
    await log_in(page, s.tokens["judge"])
    await page.wait_for_url(f"{s.url}/rules#s3")
    assert errors == []  # no console error on any of these pages (a favicon included)


async def test_review_steps_in_the_page_with_its_keys_at_lichess_speed(
    served: Served, browser_context: BrowserContext
) -> None:
    events = long_game("long1", 1209)
    assert len(events) >= 1200
    assert (await served.post(events)).status == 200
    record = replay_records(events)["long1"]
    page = await judge_page(served, browser_context, "/review/long1", (1440, 900))
    await ready(page)
    opened = await page.evaluate("window.__review.open")
    # every event in the log's count; only the lines in its view and a margin in the page (a virtual list)
    assert await page.text_content("#log-count") == f"{len(events)} events"
    assert 0 < await page.locator("#log li.line").count() < len(events)

    # stepping to any seq asks the server nothing, and takes a few ms in the page
    asked: list[str] = []  # what the page asks the service for (the browser's own favicon request aside)
    page.on("request", lambda r: asked.append(r.url) if "/favicon.ico" not in r.url else None)
    seqs = [*range(1, len(events) + 1, 11), len(events), 1, len(events) // 2]
    times = await page.evaluate(
        """seqs => seqs.map(seq => { const t0 = performance.now(); window.__review.goTo(seq);
           void document.body.offsetHeight; return performance.now() - t0; })""",
        seqs,
    )
    assert await page.get_attribute("body", "data-seq") == str(len(events) // 2)
    for ko in record["knockouts"]:
        await scroll_log_to(page, ko["seq"])
        await page.click(f'#log li.line[data-seq="{ko["seq"]}"] .ltext')
        await wait_seq(page, ko["seq"])
        assert "Knockout" in await page.inner_text("#outputs")
    assert asked == []
    print(
        f"\nreview page, {len(events)} events: open {opened:.0f} ms; a step: median "
        f"{statistics.median(times):.1f} ms, max {max(times):.1f} ms over {len(times)} seqs"
    )
    # the times are printed, not asserted: a timed test fails on a loaded machine (it did at load 28),
    # and bench/review.py measures the targets against a baseline of the same run

    # the keys: one event, one turn, first and last, knockouts, findings, the decision
    turn_starts = [e["seq"] for e in events if e["type"] == "turn_started"]
    kos = [k["seq"] for k in record["knockouts"]]
    await page.evaluate("window.__review.goTo(100)")
    await page.locator("body").focus()
    for key, want in (
        ("ArrowRight", 101),
        ("ArrowLeft", 100),
        ("ArrowDown", next(t for t in turn_starts if t > 100)),
        ("PageDown", [t for t in turn_starts if t > 100][1]),
        ("ArrowUp", next(t for t in turn_starts if t > 100)),
        ("PageUp", max(t for t in turn_starts if t <= 100)),
        ("End", len(events)),
        ("Home", 1),
        ("k", kos[0]),
        ("k", kos[1]),
        ("Shift+K", kos[0]),
        ("d", record["result"]["decided_at"]),
    ):
        await page.keyboard.press(key)
        await wait_seq(page, want)
    # f: the next finding (a note that is one); autoplay with Space at the chosen speed, and pause
    await page.keyboard.press("Home")
    await page.select_option("#speed", "40")
    await page.locator("body").focus()
    await page.keyboard.press(" ")
    await page.wait_for_selector('body[data-playing="1"]', state="attached")
    await page.wait_for_function("() => Number(document.body.dataset.seq) >= 6")
    await page.keyboard.press(" ")
    await page.wait_for_selector('body[data-playing="0"]', state="attached")
    stopped = await page.get_attribute("body", "data-seq")
    await page.wait_for_timeout(200)
    assert await page.get_attribute("body", "data-seq") == stopped  # paused
    # log lines are reached with Tab and opened with Enter
    line = page.locator('#log li.line[data-seq="30"]')
    await page.locator('#log li.line[data-seq="29"]').focus()
    await page.keyboard.press("Tab")
    assert await line.evaluate("li => li === document.activeElement")
    await page.keyboard.press("Enter")
    await wait_seq(page, 30)
    assert await line.evaluate("li => li.classList.contains('current')")
    assert asked == []  # keys, autoplay and log lines: no request either


async def test_a_step_across_a_board_snapshot_shows_the_server_s_board(
    served: Served, browser_context: BrowserContext
) -> None:
    # issue 40 item 4: /meta sends a board whole every SNAPSHOT steps and what changed between; the page
    # folds a step's board forward from the snapshot before it. Stepping over a snapshot, forward and
    # back, and landing just past one from far away, the board shown is the server's at that event.
    from streams.http.frames import SNAPSHOT

    events = prize_game("snap1")
    assert len(events) > SNAPSHOT + 3
    assert (await served.post(events)).status == 200
    page = await judge_page(served, browser_context, "/review/snap1", (1440, 900))
    await ready(page)
    # step index i is seq i + 1 (one event per seq): the snapshot is step SNAPSHOT, seq SNAPSHOT + 1
    await page.evaluate("seq => window.__review.goTo(seq)", SNAPSHOT - 1)
    await page.locator("body").focus()
    seqs = [SNAPSHOT, SNAPSHOT + 1, SNAPSHOT + 2, SNAPSHOT + 1, SNAPSHOT]
    keys = ["ArrowRight", "ArrowRight", "ArrowRight", "ArrowLeft", "ArrowLeft"]
    jumps = [(len(events), SNAPSHOT + 6), (1, SNAPSHOT + 2)]  # from the end (a fold), from the start
    for key, seq in zip(keys, seqs, strict=True):
        await page.keyboard.press(key)
        await wait_seq(page, seq)
        await same_board(served, page, seq)
    for start, seq in jumps:
        await page.evaluate("seq => window.__review.goTo(seq)", start)
        await page.evaluate("seq => window.__review.goTo(seq)", seq)
        await wait_seq(page, seq)
        await same_board(served, page, seq)


async def same_board(served: Served, page: Page, seq: int) -> None:
    """The board the page shows at ``seq`` is the server's (``/review/<match>/state``), and so are the
    counts on screen."""
    async with served.http.get(
        f"{served.url}/review/snap1/state?seq={seq}", headers=served.auth("judge")
    ) as r:
        want = (await r.json())["board"]
    assert await page.evaluate("window.__review.board()") == want, seq
    assert await page.text_content("#board-seq") == str(want["seq"])
    for name, player in want["players"].items():
        counts = await page.inner_text(f'#board [data-player="{name}"] .counts')
        assert f"deck {player['deck']}" in counts and f"hand {player['hand']}" in counts, (seq, counts)


async def test_finding_key_and_severities_apart(served: Served, browser_context: BrowserContext) -> None:
    events = game("f1")
    at = len(events) - 2
    notes = [
        {"type": "note", "text": f"n{i}", "finding": {"code": "import_note", "severity": "info"}}
        for i in range(3)
    ] + [{"type": "note", "text": "bad", "finding": {"code": "hand_count", "severity": "violation"}}]
    renumbered = events[:at]
    for n in notes:
        renumbered.append({"match": "f1", "seq": len(renumbered) + 1, **n})
    for e in events[at:]:
        renumbered.append(dict(e, seq=len(renumbered) + 1))
    assert (await served.post(renumbered)).status == 200
    page = await judge_page(served, browser_context, "/review/f1")
    await ready(page)
    heads = await page.locator("#findings h3").all_inner_texts()
    assert heads == ["Violations (1)", "Info (3)"]  # apart, violations first
    await page.keyboard.press("Home")
    await page.keyboard.press("f")
    await wait_seq(page, at + 1)
    await page.keyboard.press("f")
    await wait_seq(page, at + 2)
    await page.keyboard.press("Shift+F")
    await wait_seq(page, at + 1)


async def test_any_screen_no_sideways_scroll_and_the_phone_tabs(
    served: Served, browser_context: BrowserContext, tmp_path: Path
) -> None:
    parent, child = playoff_game()
    assert (await served.post(parent + child)).status == 200
    page = await judge_page(served, browser_context, "/review/g1#seq=23")
    for width, height in WIDTHS:
        await page.set_viewport_size({"width": width, "height": height})
        for name, path in (("review", "/review/g1#seq=23"), ("list", "/ui"), ("login", "/login?next=/ui")):
            await page.goto("about:blank")  # a new document each time, not a jump to another fragment
            await page.goto(f"{served.url}{path}")
            if name == "review":
                await ready(page)
            where = (shot(f"{name}-{width}") if width == 390 else None) or tmp_path / f"{name}-{width}.png"
            await page.screenshot(path=str(where))
            assert where.stat().st_size > 1000
            assert await page.evaluate(OVERFLOW) == [], (name, width)
        # the review page: one screen at 1366 and up; stacked or tabbed below
        await page.goto("about:blank")
        await page.goto(f"{served.url}/review/g1#seq=23")
        await ready(page)
        board = await page.locator("#board").bounding_box()
        assert board and board["width"] > min(300, width - 60), (width, board)
        tabs = await page.locator("#tabs").is_visible()
        assert tabs == (width < 700), width
        if width >= 1366:
            size = await page.evaluate("[document.documentElement.scrollHeight, innerHeight]")
            assert size[0] <= size[1], (width, size)
        if tabs:
            assert not await page.locator("#log").is_visible()
            await page.click('#tabs button[data-tab="log"]')
            assert await page.locator("#log").is_visible() and not await page.locator("#board").is_visible()
            if (log_shot := shot(f"review-{width}-log")) is not None:
                await page.screenshot(path=str(log_shot))
            log = await page.locator("#log-panel").bounding_box()
            assert log and log["width"] > width - 40
            await page.keyboard.press("ArrowRight")
            await wait_seq(page, 24)
            assert await page.locator('#log li.line.current[data-seq="24"]').is_visible()
            await page.click('#tabs button[data-tab="event"]')
            assert await page.locator("#event-panel").is_visible()
        else:
            # board and log side by side or stacked, never over each other
            b = await page.locator("#board-panel").bounding_box()
            lg = await page.locator("#log-panel").bounding_box()
            assert b and lg
            apart = b["x"] + b["width"] <= lg["x"] + 1 or b["y"] + b["height"] <= lg["y"] + 1
            assert apart, (width, b, lg)


async def test_playoffs_and_reasons_in_view(served: Served, browser_context: BrowserContext) -> None:
    parent, child = playoff_game()
    assert (await served.post(parent + child[:20])).status == 200
    page = await judge_page(served, browser_context, "/review/g1")
    await ready(page)
    # waiting for its playoff: the status in words, the child linked from the header and the log
    assert await page.inner_text("#status-word") == "awaiting its playoff"
    assert "AWAITING" not in await page.inner_text("header")
    head = page.locator('#children-head a.child-link[href="/review/g1/tb1"]')
    assert await head.count() == 1 and "(pending)" in await page.inner_text("#children-head")
    # on the decision's line in the log (a reader scrolls the log to it: only the lines in view are in it)
    drawn_at = replay_records(parent)["g1"]["result"]["decided_at"]
    await scroll_log_to(page, drawn_at)
    mark = page.locator("#log .mark-decision", has_text="Playoff required")
    assert await mark.locator('a[href="/review/g1/tb1"]').count() == 1
    met = (await page.inner_text("#conditions")).split(": ", 1)
    assert met[0] == "win conditions met" and set(met[1].split(" · ")) == {"misty prizes", "carmine prizes"}
    assert (await served.post(child[20:])).status == 200
    await page.reload()
    await ready(page)
    result = await page.inner_text("#result-text")
    assert "misty beat carmine by its playoff game g1/tb1" in result
    assert f"drawn (simultaneous) at seq {drawn_at}, then" in await page.inner_text("#reason-text")
    if (path := shot("review-playoff")) is not None:
        await page.screenshot(path=str(path))
    # the child links its parent; its result says why, with the record's detail; no "none · none"
    await head.click()
    await page.wait_for_url("**/review/g1/tb1")
    await ready(page)
    assert await page.inner_text("#parent-head") == "tiebreaker game of g1"
    why = await page.inner_text("#reason-text")
    assert why == "· tiebreaker game: fewer prizes remaining than the opponent", why
    assert "none" not in await page.inner_text("#conditions")
    await page.click("#parent-head a")
    await page.wait_for_url("**/review/g1")


async def test_a_missing_match_and_a_login_without_the_role_say_so(
    served: Served, browser_context: BrowserContext
) -> None:
    page = await judge_page(served, browser_context, "/review/nope")
    assert await page.inner_text("#refused-head") == "match nope: no events archived"
    assert "loading" not in await page.inner_text("body")
    # the page's own answer when the match goes away under it: said where the result would be
    assert (await served.post(game("m2"))).status == 200
    await page.route("**/review/m2/meta*", lambda route: route.fulfill(status=404, json={"error": "gone"}))
    await page.goto(f"{served.url}/review/m2")
    await page.wait_for_selector('body[data-ready="error"]', state="attached")
    assert await page.inner_text("#result-text") == "Cannot show this match"
    assert "gone" in await page.inner_text("#error")

    # an organizer's login: the page names the role it needs, in HTML, with who is logged in
    other = await browser_context.browser.new_context()  # type: ignore[union-attr]
    try:
        page = await other.new_page()
        await page.goto(f"{served.url}/review/m2")
        await log_in(page, served.tokens["organizer"])
        await page.wait_for_url(f"{served.url}/review/m2")
        await page.wait_for_selector("#refused-head")
        assert await page.inner_text("#refused-head") == "This page needs the role judge"
        assert "logged in as organizer" in await page.inner_text("#who")
        assert "prizecheck token create --role judge --name" in await page.inner_text("main")
        # a scoped judge outside its leagues: why, in words
        assert (await served.post(scoped_game("m3", "L2"))).status == 200
        await page.click("#logout button")
        await page.wait_for_url(lambda url: urlsplit(url).path == "/login")
        await page.goto(f"{served.url}/login?next=/review/m3")
        await log_in(page, served.tokens["judge_l1"])
        await page.wait_for_url(f"{served.url}/review/m3")
        await page.wait_for_selector("#refused-head")
        assert "outside this token's scope" in await page.inner_text("#refused-why")
    finally:
        await other.close()


async def test_the_first_window_is_preloaded_and_asked_for_once(
    served: Served, browser_context: BrowserContext
) -> None:
    """The page's HTML preloads its first window (streams.http.pages.first_window_url) while its scripts
    load, spelled as the page's own request (static/review.js windowQuery), which the preload answers:
    one request, for a match whose name has a slash, in another language and the public view."""
    parent, child = playoff_game()
    assert (await served.post(parent + child)).status == 200
    path = "/review/g1/tb1?lang=ja&view=public"
    page = await judge_page(served, browser_context, path)
    await ready(page)
    asked: list[str] = []
    page.on("request", lambda r: asked.append(r.url) if "/meta?" in r.url else None)
    await page.goto(f"{served.url}{path}")
    await ready(page)
    first = f"/review/g1/tb1/meta?view=public&lang=ja&from=0&to={FIRST_WINDOW}"
    assert await page.get_attribute('link[rel="preload"]', "href") == first
    assert [u for u in asked if "from=0&" in u] == [served.url + first]
    assert await page.get_attribute("html", "lang") == "ja"
    # the game shown: the playoff game links the game it decides
    assert (await page.get_attribute("#parent-head a", "href") or "").startswith("/review/g1")


#: What a step draws of the step on screen (static/review.js render): the board and the event.
DRAWN = ("#board", "#board-seq", "#turn", "#event-fields", "#outputs", "#extra", "#seq", "#event-text")


async def test_a_step_patches_the_board_and_the_event_in_place(
    served: Served, browser_context: BrowserContext
) -> None:
    # issue 40 item 4, sixth pass: a step no longer builds the board and the event again but changes
    # only what differs (a subtree built again is laid out again). Stepped to from another step, far
    # or near, a step shows exactly what a page opened on it shows, and the nodes both keep stay.
    events = prize_game("patch1")
    assert (await served.post(events)).status == 200
    record = replay_records(events)["patch1"]
    kos = [k["seq"] for k in record["knockouts"]]
    page = await judge_page(served, browser_context, "/review/patch1", (1440, 900))
    await ready(page)
    html = "sels => sels.map((s) => document.querySelector(s).innerHTML)"
    for start, seq in ((1, kos[0]), (kos[0], kos[0] + 1), (len(events), 2), (2, kos[-1])):
        await page.evaluate("seq => window.__review.goTo(seq)", start)
        await wait_seq(page, start)
        await page.evaluate(
            "() => { window.__kept = [...document.querySelectorAll('#board .player, #board .player h3')]; }"
        )
        await page.evaluate("seq => window.__review.goTo(seq)", seq)
        await wait_seq(page, seq)
        fresh = await judge_page(served, browser_context, f"/review/patch1#seq={seq}", (1440, 900))
        await ready(fresh)
        await wait_seq(fresh, seq)
        assert await page.evaluate(html, DRAWN) == await fresh.evaluate(html, DRAWN), (start, seq)
        await fresh.close()
        # the players' boxes and headings are the same nodes (the old page built them all again)
        assert await page.evaluate("() => window.__kept.every((n) => n.isConnected)"), (start, seq)


async def test_a_link_followed_just_after_a_step_takes_the_page_there(
    served: Served, browser_context: BrowserContext
) -> None:
    # The address of the step shown is written HASH_AFTER ms after a step (review.js keepAddress). A link
    # to another moment followed in between (a deck check's, a cause's, the scan's "correct it…") was
    # overwritten by that late write when the browser ran it first, and the page stayed on the older
    # step: a CI run failed so (test_scan_marks). Here the link's key waits in the browser's queue while
    # the page is busy past HASH_AFTER, beside the write that is due, as a click does on a loaded machine.
    # The browser most often runs input first (5 of 6 tries failed on the old page), so three tries.
    events = game("hash1")
    assert (await served.post(events)).status == 200
    page = await judge_page(served, browser_context, "/review/hash1#seq=5", (1440, 900))
    await ready(page)
    await wait_seq(page, 5)
    for step, link in ((8, 3), (2, 7), (9, 4)):
        await page.evaluate(
            """seq => { const a = document.createElement("a"); a.id = "to-" + seq; a.href = "#seq=" + seq;
            a.textContent = "seq " + seq; document.body.prepend(a); }""",
            link,
        )
        await page.focus(f"#to-{link}")
        busy = asyncio.ensure_future(
            page.evaluate(
                """seq => { window.__review.goTo(seq); const t = performance.now();
                while (performance.now() - t < 400) {} }""",
                step,
            )
        )
        await asyncio.sleep(0.15)  # the page is busy: the key waits for it
        await asyncio.gather(busy, page.keyboard.press("Enter"))
        await wait_seq(page, link)
        await page.wait_for_timeout(300)  # past HASH_AFTER: nothing writes the older step back
        assert await page.get_attribute("body", "data-seq") == str(link)
        assert urlsplit(page.url).fragment == f"seq={link}"
