"""Login CSRF in a real browser (Debian's chromium through Playwright; issue 18 item 1): a page of another
site that posts the attacker's token to the service's /login (a form that submits itself, as an attack
page does) must not log the visitor's browser in, and one that posts to /logout must not log them out.

The attacker's page is served by a second server on ``localhost`` while the service is on ``127.0.0.1``:
another host, so another site for the browser, which sends its own ``Origin`` and ``Sec-Fetch-Site``.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from urllib.parse import urlsplit

import pytest
from aiohttp import web
from aiohttp.test_utils import TestServer
from playwright.async_api import BrowserContext

from streams.http.access import COOKIE
from tests.streams.http.served import Served
from tests.streams.ingest.support import game

ATTACK = """<!doctype html><html><body>
<form id="f" method="post" action="{target}" enctype="{enctype}">
<input name="token" value="{token}"><input name="next" value="/review/m1">
</form><script>document.getElementById("f").submit()</script></body></html>"""


@pytest.fixture
async def evil_site() -> AsyncIterator[tuple[TestServer, dict[str, str]]]:
    """Another site: ``GET /attack`` answers the attack page held in ``pages["attack"]``."""
    pages: dict[str, str] = {}

    async def attack(request: web.Request) -> web.Response:
        return web.Response(text=pages["attack"], content_type="text/html")

    app = web.Application()
    app.router.add_get("/attack", attack)
    server = TestServer(app, host="localhost")
    await server.start_server()
    try:
        yield server, pages
    finally:
        await server.close()


def _attack_page(s: Served, path: str, token: str, enctype: str) -> str:
    return ATTACK.format(target=f"{s.url}{path}", token=token, enctype=enctype)


async def _session(context: BrowserContext) -> list[str]:
    return [c["value"] for c in await context.cookies() if c["name"] == COOKIE]


ENCTYPES = ["application/x-www-form-urlencoded", "multipart/form-data", "text/plain"]


@pytest.mark.parametrize("enctype", ENCTYPES)
async def test_another_site_cannot_log_the_browser_in_with_its_token(
    served: Served,
    browser_context: BrowserContext,
    evil_site: tuple[TestServer, dict[str, str]],
    enctype: str,
) -> None:
    s = served
    await s.post(game("m1"))
    server, pages = evil_site
    pages["attack"] = _attack_page(s, "/login", s.tokens["judge"], enctype)  # the attacker's own token
    page = await browser_context.new_page()
    answers = []
    page.on("response", lambda r: answers.append((r.url, r.status)))
    await page.goto(str(server.make_url("/attack")))
    await page.wait_for_url(f"{s.url}/login")  # the form went to the service...
    await page.wait_for_load_state()
    assert (f"{s.url}/login", 403) in answers  # ...which refused it
    assert await _session(browser_context) == []  # no session cookie was set
    await page.goto(f"{s.url}/review/m1")
    assert urlsplit(page.url).path == "/login"  # the visitor is not logged in as anyone


async def test_another_site_cannot_log_the_judge_out(
    served: Served, browser_context: BrowserContext, evil_site: tuple[TestServer, dict[str, str]]
) -> None:
    s = served
    await s.post(game("m1"))
    page = await browser_context.new_page()
    await page.goto(f"{s.url}/login?next=/review/m1")  # the judge logs in on the service's own page
    await page.fill("#token", s.tokens["judge"])
    await page.click("button[type=submit]")
    await page.wait_for_url(f"{s.url}/review/m1")
    (before,) = await _session(browser_context)
    server, pages = evil_site
    pages["attack"] = _attack_page(s, "/logout", "", "application/x-www-form-urlencoded")
    await page.goto(str(server.make_url("/attack")))
    await page.wait_for_url(f"{s.url}/logout")
    await page.goto(f"{s.url}/review/m1")
    assert urlsplit(page.url).path == "/review/m1"  # still logged in
    assert await _session(browser_context) == [before]
