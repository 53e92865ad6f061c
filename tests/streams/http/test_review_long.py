"""The review page's battle log on a long game (issue 40 item 4): a virtual list, which lays out only the
lines in its view and a margin, steps, jumps and scrolls to lines far down and shows each one as the
server wrote it, in its place, with its marks; in a spectator's view, the public lines only.

The game is a simulated one (replay/generators/simulate.py) with notes between its events, some of them
an importer's info notes (hidden until asked for), to a few thousand events.
"""

from __future__ import annotations

from itertools import pairwise
from typing import Any

from playwright.async_api import BrowserContext, Page

from replay.generators.simulate import simulate_match
from tests.streams.http.served import Served
from tests.streams.http.test_pages import scroll_log_to
from tests.streams.http.test_review import judge_page, ready, wait_seq

Event = dict[str, Any]
EVENTS = 3000

#: The lines in the log now, top to bottom: seq, text, marks' text, and the box of each (the log's own box
#: first).
LINES = """() => {
  const box = document.getElementById("log");
  const lines = [...box.querySelectorAll("li.line")].filter((li) => li.offsetParent !== null);
  return { box: box.getBoundingClientRect().toJSON(), lines: lines.map((li) => ({
    seq: Number(li.dataset.seq), text: li.querySelector(".ltext").textContent,
    marks: [...li.querySelectorAll(".mark")].length, current: li.classList.contains("current"),
    top: li.getBoundingClientRect().top, bottom: li.getBoundingClientRect().bottom })) };
}"""


def padded_game(match: str) -> list[Event]:
    """A simulated game with notes after each event to ``EVENTS`` events or more: every fifth note an
    importer's (an info finding: hidden until asked for)."""
    base = [e for e in simulate_match(11, match) if e["match"] == match]
    per = -(-(EVENTS - len(base)) // len(base))
    out: list[Event] = []
    for e in base:
        out.append(dict(e, seq=len(out) + 1))
        for k in range(per):
            note: Event = {"match": match, "seq": len(out) + 1, "type": "note", "text": f"table {k}: ok"}
            if k % 5 == 4:
                note["finding"] = {"code": "import_note", "severity": "info"}
            out.append(note)
    return out


async def meta(served: Served, match: str, view: str = "") -> dict[str, Any]:
    async with served.http.get(f"{served.url}/review/{match}/meta{view}", headers=served.auth("judge")) as r:
        assert r.status == 200
        data: dict[str, Any] = await r.json()
    return data


async def lines_are_the_server_s(
    page: Page, log: list[dict[str, Any]], hidden_notes: bool = True
) -> list[int]:
    """The lines shown are the server's, one after the other with no line missing or twice (the hidden
    notes apart), each right below the one before; their seqs."""
    shown = await page.evaluate(LINES)
    lines = shown["lines"]
    assert lines, "no line in the log"
    by_seq = {line["seq"]: line for line in log}
    quiet = {
        line["seq"]
        for line in log
        if line["type"] == "note"
        and line["marks"]
        and all(m["kind"] == "finding" and m.get("severity") == "info" for m in line["marks"])
    }
    for one in lines:
        want = by_seq[one["seq"]]
        assert one["text"] == want["text"], one
        assert one["marks"] == len(want["marks"]), one
    seqs = [one["seq"] for one in lines]
    current = {one["seq"] for one in lines if one["current"]}
    hidden = quiet if hidden_notes else set()
    expected = [s for s in range(seqs[0], seqs[-1] + 1) if s in current or s not in hidden]
    assert seqs == expected, (seqs[:5], expected[:5])
    for above, below in pairwise(lines):
        # each right below the one before (a turn's heading between), never over it
        assert above["bottom"] - 1.5 <= below["top"] <= above["bottom"] + 40, (above, below)
    return seqs


async def test_a_long_game_s_log_steps_jumps_and_shows_the_lines_far_down(
    served: Served, browser_context: BrowserContext
) -> None:
    events = padded_game("deep1")
    assert len(events) >= EVENTS
    assert (await served.post(events)).status == 200
    data = await meta(served, "deep1")
    log = data["log"]
    page = await judge_page(served, browser_context, "/review/deep1", (1440, 900))
    await ready(page)
    assert await page.text_content("#log-count") == f"{len(events)} events"
    rows = await page.locator("#log li").count()
    assert rows < 400, rows  # the lines in view and a margin, not thousands
    await lines_are_the_server_s(page, log)

    # jump to a seq far down (the seq box): its line is in the log's view, highlighted, as the server wrote it
    knockouts = [line["seq"] for line in log if any(m["kind"] == "ko" for m in line["marks"])]
    far = [knockouts[-1], len(events) * 3 // 4, len(events) - 7]
    for seq in far:
        await page.fill("#seq-input", str(seq))
        await page.press("#seq-input", "Enter")
        await wait_seq(page, seq)
        current = page.locator(f'#log li.line.current[data-seq="{seq}"]')
        assert await current.count() == 1 and await current.is_visible()
        inside = await current.evaluate(
            "li => { const r = li.getBoundingClientRect(), b = li.closest('ol').getBoundingClientRect();"
            " return r.top >= b.top && r.bottom <= b.bottom; }"
        )
        assert inside, seq
        await lines_are_the_server_s(page, log)
    ko = knockouts[-1]
    await page.evaluate("seq => window.__review.goTo(seq)", ko)
    await wait_seq(page, ko)
    assert "Knockout" in str(await page.text_content(f'#log li.line[data-seq="{ko}"] .mark-ko'))

    # step with the keys from far down: the next line follows, highlighted
    await page.evaluate("document.activeElement.blur()")  # out of the seq box, where the keys type
    for _ in range(3):
        await page.keyboard.press("ArrowRight")
    await wait_seq(page, ko + 3)
    assert await page.locator(f'#log li.line.current[data-seq="{ko + 3}"]').is_visible()
    await page.keyboard.press("End")
    await wait_seq(page, len(events))
    assert await page.locator(f'#log li.line.current[data-seq="{len(events)}"]').is_visible()
    await page.keyboard.press("Home")
    await wait_seq(page, 1)
    assert await page.locator('#log li.line.current[data-seq="1"]').is_visible()

    # a reader scrolls the log to the end: the last lines are there, in order, and a click steps to one
    await page.locator("#log").evaluate("box => { box.scrollTop = box.scrollHeight; }")
    await page.wait_for_function(
        f"() => !!document.querySelector('#log li.line[data-seq=\"{len(events)}\"]')", timeout=10_000
    )
    seqs = await lines_are_the_server_s(page, log)
    assert seqs[-1] == len(events)
    target = seqs[-3]
    await page.click(f'#log li.line[data-seq="{target}"] .ltext')
    await wait_seq(page, target)
    # and back up to the middle, a page at a time
    middle = len(events) // 2
    await scroll_log_to(page, middle)
    await lines_are_the_server_s(page, log)

    # find in the log: the whole log, not only the lines held; the line found is stepped to, in view
    await page.keyboard.press("Home")
    await wait_seq(page, 1)
    last_ko = next(line for line in reversed(log) if any(m["kind"] == "ko" for m in line["marks"]))
    words = next(m["text"] for m in last_ko["marks"] if m["kind"] == "ko")
    await page.fill("#log-find", words.upper())  # any case
    await page.press("#log-find", "Enter")
    await wait_seq(page, last_ko["seq"])
    assert await page.text_content("#log-found") == "1 of 1"
    assert await page.locator(f'#log li.line.current[data-seq="{last_ko["seq"]}"]').is_visible()
    notes = [line["seq"] for line in log if line["text"].endswith("table 4: ok")]  # quiet notes, hidden
    assert notes
    await page.fill("#log-find", "table 4: ok")
    await page.press("#log-find", "Enter")
    after = next(n for n in notes if n > last_ko["seq"])
    await wait_seq(page, after)
    assert await page.locator(f'#log li.line.current[data-seq="{after}"]').is_visible()  # shown: on screen
    await page.press("#log-find", "Shift+Enter")
    await wait_seq(page, max(n for n in notes if n < after))
    await page.fill("#log-find", "no such line anywhere")
    await page.press("#log-find", "Enter")
    assert await page.text_content("#log-found") == "not found"

    # the importer's notes, shown when asked for: far down too
    await page.check("#show-notes")
    await page.evaluate("seq => window.__review.goTo(seq)", len(events) - 30)
    await wait_seq(page, len(events) - 30)
    seqs = await lines_are_the_server_s(page, log, hidden_notes=False)
    assert any(line["seq"] in seqs and line["marks"] for line in log if line["type"] == "note")
    assert await page.locator("#log li.quiet-note").first.is_visible()


async def test_a_long_game_s_public_view_shows_the_public_lines_far_down(
    served: Served, browser_context: BrowserContext
) -> None:
    events = padded_game("deep2")
    assert (await served.post(events)).status == 200
    public = (await meta(served, "deep2", "?view=public"))["log"]
    judge = (await meta(served, "deep2"))["log"]
    secret = [(p["seq"], j["text"]) for p, j in zip(public, judge, strict=True) if p["text"] != j["text"]]
    assert secret, "the simulated game has no hidden card for the public view to keep back"
    page = await judge_page(
        served, browser_context, f"/review/deep2?view=public#seq={secret[-1][0]}", (1440, 900)
    )
    await ready(page)
    await wait_seq(page, secret[-1][0])
    await lines_are_the_server_s(page, public)  # the public sentences, never the judge's
    for seq, text in secret[-3:]:
        await page.evaluate("seq => window.__review.goTo(seq)", seq)
        await wait_seq(page, seq)
        line = str(await page.text_content(f'#log li.line[data-seq="{seq}"] .ltext'))
        assert line != text and line == next(p["text"] for p in public if p["seq"] == seq)


async def test_the_review_answer_is_kept_until_its_game_changes(served: Served) -> None:
    # /meta's answer is kept by what it is made of (streams.http.pages._META_CACHE): opened again unchanged,
    # the same bytes without a fold; a new event, a view or a language of its own is another answer
    from streams.http.pages import _META_CACHE

    events = padded_game("deep3")[:400]
    assert (await served.post(events[:300])).status == 200

    async def body(query: str = "") -> bytes:
        async with served.http.get(
            f"{served.url}/review/deep3/meta{query}", headers=served.auth("judge")
        ) as r:
            assert r.status == 200
            return await r.read()

    cache = served.app[_META_CACHE]
    first = await body()
    kept = cache.size
    assert kept == len(first)
    assert await body() == first and cache.size == kept  # the same answer, kept once
    public = await body("?view=public")
    assert public != first and b'"view":"public"' in public
    assert (await body("?lang=ja")) != first
    assert (await served.post(events[300:])).status == 200
    after = await body()
    assert b'"last":400' in after and b'"last":300' in first
    assert (await meta(served, "deep3"))["last"] == 400


async def test_a_long_game_opens_on_its_first_window_and_reads_the_rest_after(
    served: Served, browser_context: BrowserContext
) -> None:
    """The page asks for the first steps of the game, not the whole of it (issue 40 item 4), shows them,
    and reads the windows after them in order; a link to a step far down shows that step's board and
    line as the server has them."""
    events = padded_game("win1")
    assert (await served.post(events)).status == 200
    data = await meta(served, "win1")
    page = await judge_page(served, browser_context, "/review/win1", (1440, 900))
    await ready(page)
    asked = await page.evaluate(
        "performance.getEntriesByType('resource').map((e) => e.name).filter((u) => u.includes('/meta'))"
    )
    windows = [dict(p.split("=") for p in u.split("?")[1].split("&")) for u in asked]
    assert [w["from"] for w in windows] == ["0", *(w["to"] for w in windows[:-1])], asked
    assert int(windows[0]["to"]) < len(events) // 4  # the open waits for a first window only
    assert await page.text_content("#log-count") == f"{len(events)} events"
    seq = len(events) - 5
    await page.goto(f"{served.url}/review/win1#seq={seq}")
    await page.reload()
    await ready(page)
    await wait_seq(page, seq)
    async with served.http.get(
        f"{served.url}/review/win1/state?seq={seq}", headers=served.auth("judge")
    ) as r:
        want = (await r.json())["board"]
    assert await page.evaluate("window.__review.board()") == want
    line = next(x for x in data["log"] if x["seq"] == seq)
    assert await page.text_content("#event-text") == line["text"]
