"""The access pages in a real browser (Debian's chromium through Playwright): the judges' login, and the
API reference at /docs rendered with nothing fetched from outside the service."""

from __future__ import annotations

from urllib.parse import urlsplit

from playwright.async_api import BrowserContext, Request

from tests.streams.http.served import Served
from tests.streams.ingest.support import game


async def test_a_judge_logs_in_and_lands_on_the_review_page(
    served: Served, browser_context: BrowserContext
) -> None:
    s = served
    await s.post(game("m1"))
    page = await browser_context.new_page()
    await page.goto(f"{s.url}/review/m1")
    assert urlsplit(page.url).path == "/login"  # sent to the login, the page kept as "next"
    await page.fill(
        "#token", s.tokens["organizer"]
    )  # a token without the judge role: logs in, sees no review
    async with page.expect_response(f"{s.url}/review/m1") as answer:
        await page.click("button[type=submit]")
    assert (await answer.value).status == 403
    # an HTML page in words, naming the role the page needs and who is logged in; never raw JSON
    assert await page.inner_text("#refused-head") == "This page needs the role judge"
    assert "logged in as organizer" in await page.inner_text("#refused-why")
    assert "logged in as organizer" in await page.inner_text("#who")
    assert await page.locator("pre").count() == 0
    await page.goto(f"{s.url}/login?next=/review/m1")
    await page.fill("#token", s.tokens["judge"] + "x")  # a wrong token: said on the page
    await page.click("button[type=submit]")
    await page.wait_for_selector("#error:not([hidden])")
    assert "token" in await page.inner_text("#error")
    await page.fill("#token", s.tokens["judge"])
    await page.click("button[type=submit]")
    await page.wait_for_url(f"{s.url}/review/m1")
    await page.wait_for_selector("body[data-seq]", state="attached")  # the review page read its endpoints
    cookies = await browser_context.cookies()
    (session,) = [c for c in cookies if c["name"] == "prizecheck_session"]
    assert session["httpOnly"] and session["sameSite"] == "Strict"
    assert await page.evaluate("document.cookie") == ""  # no script can read it
    assert s.tokens["judge"] not in page.url


async def test_the_api_reference_renders_offline(served: Served, browser_context: BrowserContext) -> None:
    s = served
    elsewhere: list[str] = []

    def watch(request: Request) -> None:
        if urlsplit(request.url).netloc != urlsplit(s.url).netloc and not request.url.startswith("data:"):
            elsewhere.append(request.url)

    page = await browser_context.new_page()
    page.on("request", watch)
    await page.goto(f"{s.url}/docs")
    await page.wait_for_selector(".opblock-summary-path", timeout=30_000)
    paths = await page.locator(".opblock-summary-path").all_inner_texts()
    assert any("/matches/{match}/record" in p.replace("\u200b", "") for p in paths)
    assert any("/events" in p for p in paths)
    assert elsewhere == []  # nothing from a CDN or any other host
