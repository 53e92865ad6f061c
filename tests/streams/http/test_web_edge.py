"""The web edge of the pages (issue 18): headers, templates that never read a value as markup or as a
template, and stored script that runs on no page, tested in chromium.

- Every answer carries ``X-Content-Type-Options: nosniff`` and ``X-Frame-Options: DENY``; every page a
  ``Content-Security-Policy`` that allows only the service's own scripts (Swagger UI's ``/docs`` also
  inline styles), and Swagger UI still renders under it.
- ``/ui?q={{rows}}`` shows ``{{rows}}``: the pages are Jinja2 templates, escaped by default.
- Stored XSS: script planted in every free-text field a producer controls (players, league, season,
  event, series, table, source, card names, attack names, reasons, notes, ids, unknown fields) is shown
  as text and runs nowhere: the match list, the review page at every step, the overlay, the refusal
  page, and the league report opened from its file (which has no CSP: only escaping protects it).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from playwright.async_api import BrowserContext, Page

from replay.cli import main
from replay.codec import encode_jsonl
from tests.builder import Stream, card
from tests.streams.http.served import Served
from tests.streams.http.test_review import judge_page, ready

Event = dict[str, Any]

#: Watches the page for script that runs or is refused: planted markup that reached the DOM either runs
#: (``__xss``) or breaks the policy (``__csp``). Installed before any page script (CDP, beside the CSP).
WATCH = """
window.__xss = [];
window.__csp = [];
document.addEventListener("securitypolicyviolation", (e) => window.__csp.push(e.violatedDirective));
"""
#: Planted markup that made it into the DOM as elements, not as text.
PLANTED = """() => [...document.querySelectorAll('img[src="x"], svg[onload], [onerror], [onload], iframe')]
  .map((e) => e.outerHTML.slice(0, 120))
  .concat([...document.scripts].filter((s) => !s.src && s.textContent.includes("__xss")).map(() => "js"))"""


def planted(field: str) -> str:
    """Script and markup that would run if a page pasted ``field``'s value as HTML (or as a template)."""
    return (
        f'"><img src=x onerror="window.__xss.push(\'{field}\')">'
        f"<script>window.__xss.push('{field}')</script>"
        f"<svg onload=\"window.__xss.push('{field}')\"></svg>{{{{rows}}}}{field}"
    )


def xss_game(match: str) -> list[Event]:
    """A game whose every free-text field a producer controls carries :func:`planted` script."""
    ash, misty = planted("player-a"), planted("player-b")
    s = Stream(
        match,
        players=[ash, misty],
        first=ash,
        context={
            "league": planted("league"),
            "season": planted("season"),
            "event": planted("event"),
            "series": planted("series"),
            "table": planted("table"),
            "game": 1,
            "round": 1,
            "x_extra": planted("context-extra"),
        },
        source={"kind": "manual", "producer": planted("producer"), "exporter": planted("exporter")},
        id=planted("id"),
        x_unknown=planted("unknown-field"),
    )

    def mon(name: str, hp: int = 60) -> dict[str, Any]:
        return card(planted(name), hp)

    s.setup(ash, ("a1", mon("card-active")), ("a2", mon("card-bench")))
    s.setup(misty, ("m1", mon("card-m1", 50)), ("m2", mon("card-m2")))
    s.add("turn_started", player=ash, turn=1)
    s.add("drew", player=ash, cards=[planted("card-drawn")])
    s.add("trainer_played", player=ash, card={"name": planted("card-trainer"), "kind": "item"})
    s.add("searched", player=ash, count=1, cards=[planted("card-searched")])
    s.add("played", player=ash, pid="a3", card=mon("card-played"))
    s.add("evolved", player=ash, pid="a3", card=mon("card-evolved", 90), effect=planted("evolve-effect"))
    s.add("attached", player=ash, pid="a1", card={"name": planted("card-energy"), "kind": "energy"})
    s.add("discarded", player=ash, count=1, cards=[planted("card-discarded")])
    s.add("to_hand", player=ash, **{"from": "discard"}, count=1, cards=[planted("card-to-hand")])
    s.add("shuffled", player=ash, zone="deck", **{"from": "hand"}, cards=[planted("card-shuffled")])
    s.add("moved", player=ash, **{"from": "hand", "to": "deck"}, cards=[planted("card-moved")])
    s.add("attack", player=ash, pid="a1", name=planted("attack-name"))
    s.add("damage", pid="m1", amount=50, by=planted("damage-by"))
    s.add("knocked_out", pid="m1", by=planted("ko-by"))
    s.add("attack_ended")
    s.add("prize_taken", player=ash, count=1)
    s.add("promoted", player=misty, pid="m2")
    s.add("note", text=planted("note-text"), author=planted("note-author"))
    s.add("penalty", player=misty, kind="caution", reason=planted("penalty-reason"))
    s.add("turn_ended", player=ash)
    s.add("turn_started", player=misty, turn=2)
    s.add("conceded", player=misty, reason=planted("concede-reason"))
    s.add("game_ended", outcome="win", winner=ash, reason=planted("claim-reason"))
    return s.events


async def _clean(page: Page, where: str) -> None:
    assert await page.evaluate("window.__xss") == [], where
    assert await page.evaluate(PLANTED) == [], where
    assert await page.evaluate("window.__csp") == [], where


async def test_planted_script_runs_on_no_page(
    served: Served, browser_context: BrowserContext, tmp_path: Path
) -> None:
    events = xss_game("x1")
    answer = await served.post(events)
    assert answer.status == 200, await answer.text()
    await browser_context.add_init_script(WATCH)

    page = await judge_page(served, browser_context, "/review/x1")
    await ready(page)
    await _clean(page, "review")
    # every step's event, board and derived outputs: shown as text, never as markup
    seqs = [e["seq"] for e in events]
    for seq in seqs:
        await page.evaluate("seq => window.__review.goTo(seq)", seq)
        await _clean(page, f"review seq {seq}")
    # ... shown as text (the log's lines out of view included)
    text = await page.evaluate("document.body.textContent")
    for field in ("player-a", "league", "card-trainer", "attack-name", "note-text", "concede-reason"):
        assert f"{{{{rows}}}}{field}" in text, field
    await page.click("#history-summary")
    await _clean(page, "review history")

    for path in ("/ui", "/ui?q=%22%3E%3Cimg%20src%3Dx%3E{{rows}}", "/overlay/x1", "/rules", "/review/nope"):
        await page.goto(f"{served.url}{path}")
        if path.startswith("/overlay"):
            await page.wait_for_selector('body[data-state="over"]', state="attached")
            assert "player-a" in await page.inner_text("#bar")
        await _clean(page, path)
    await page.goto(f"{served.url}/ui")
    assert "{{rows}}player-a" in await page.inner_text("#matches")

    # the league report, opened from its file as an organizer would (no Content-Security-Policy there)
    data = tmp_path / "league.jsonl"
    data.write_bytes(encode_jsonl(events))
    report = tmp_path / "report.html"
    assert (
        main(["report", str(data), "--format", "html", "--base-url", served.url, "--out", str(report)]) == 0
    )
    await page.goto(report.as_uri())
    await page.wait_for_load_state()
    assert await page.evaluate("window.__xss") == []
    assert await page.evaluate(PLANTED) == []
    assert "{{rows}}league" in await page.inner_text("body")


async def test_ui_shows_a_template_placeholder_as_text(served: Served) -> None:
    r = await served.http.get(f"{served.url}/ui", params={"q": "{{rows}}", "league": "<b>x</b>"})
    page = await r.text()
    assert r.status == 200
    assert 'value="{{rows}}"' in page  # never expanded into the table
    assert page.count("<tbody>") == 1 and "&lt;b&gt;x&lt;/b&gt;" in page and "<b>x</b>" not in page


async def test_every_answer_has_the_page_headers_and_pages_a_policy(served: Served) -> None:
    from tests.streams.ingest.support import game

    assert (await served.post(game("m1"))).status == 200
    judge = served.auth("judge")
    pages = ["/ui", "/review/m1", "/overlay/m1", "/rules", "/login", "/docs"]
    others = ["/static/review.js", "/matches/m1/record", "/favicon.ico", "/review/m1/meta", "/nope"]
    for path in pages + others:
        r = await served.http.get(f"{served.url}{path}", headers=judge, allow_redirects=False)
        assert r.status in (200, 404), (path, r.status)
        assert r.headers["X-Content-Type-Options"] == "nosniff", path
        assert r.headers["X-Frame-Options"] == "DENY", path
        if path in pages:
            policy = r.headers["Content-Security-Policy"]
            directives = dict(d.strip().split(" ", 1) for d in policy.split(";"))
            assert directives["script-src"] == "'self'", path  # no inline script, no eval, no other origin
            assert directives["frame-ancestors"] == "'none'" and directives["default-src"] == "'none'"
            assert ("'unsafe-inline'" in directives["style-src"]) == (path == "/docs"), path


async def test_swagger_ui_renders_under_the_policy(served: Served, browser_context: BrowserContext) -> None:
    await browser_context.add_init_script(WATCH)
    errors: list[str] = []
    page = await browser_context.new_page()
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    await page.goto(f"{served.url}/docs")
    await page.wait_for_selector(".opblock-summary-path", timeout=30_000)
    await page.click(".opblock-summary-path >> nth=0")  # an operation opens (its script runs)
    await page.wait_for_selector(".opblock-body", timeout=10_000)
    assert await page.evaluate("window.__csp") == []
    assert errors == []
    # no warning atop the reference (Swagger UI warned about the document's jsonSchemaDialect)
    assert await page.locator(".version-pragma, .errors-wrapper").count() == 0
    assert "Warning" not in await page.inner_text(".information-container")
