"""A real browser for the web-page tests: Debian's chromium (``/usr/bin/chromium``) driven by Playwright.

Playwright's own browser download cannot work on these machines, so the browser is the distribution's
(``make browser`` installs it). One chromium process serves the whole session (``chromium_cdp``); each test
connects to it over the Chrome DevTools Protocol with Playwright's async API (``browser``), in the test's
own event loop, and gets a fresh browser context (``browser_context``), so tests share no cookies, cache
or pages. Connecting per test (~0.5 s) keeps the browser session-scoped without tying every async test
to one session-wide event loop.

Tests are skipped, saying why, only when ``/usr/bin/chromium`` is absent.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
from playwright.async_api import Browser, BrowserContext, async_playwright

CHROMIUM = Path("/usr/bin/chromium")

# Each test starts Playwright's Node driver (``async_playwright()``: ~0.5 s of CPU, ~190 tests). Node's
# module compile cache, shared by the workers (Node checks each entry against its source), cuts its start
# by about a quarter (0.55 -> 0.40 s of CPU, measured 2026-12-07): the suite's 15-minute budget.
os.environ.setdefault("NODE_COMPILE_CACHE", str(Path(tempfile.gettempdir()) / "prizecheck-node-cache"))
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-proxy-server",
    "--hide-scrollbars",
]


@pytest.fixture(scope="session")
def chromium_cdp() -> Iterator[str]:
    """The DevTools endpoint (``http://127.0.0.1:PORT``) of one headless chromium for the session."""
    if not CHROMIUM.exists():
        pytest.skip(f"{CHROMIUM} is absent: run `make browser` (apt-get install chromium) for the page tests")
    profile = Path(tempfile.mkdtemp(prefix="prizecheck-chromium-"))
    proc = subprocess.Popen(
        [
            str(CHROMIUM),
            *CHROMIUM_ARGS,
            "--remote-debugging-port=0",
            f"--user-data-dir={profile}",
            "about:blank",
        ],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    port_file = profile / "DevToolsActivePort"
    try:
        deadline = time.monotonic() + 30
        while True:
            text = port_file.read_text() if port_file.exists() else ""
            if text.strip():
                break
            if proc.poll() is not None:
                err = proc.stderr.read().decode(errors="replace") if proc.stderr else ""
                raise RuntimeError(f"chromium exited with {proc.returncode}: {err[-2000:]}")
            if time.monotonic() > deadline:
                raise RuntimeError("chromium did not open its DevTools port within 30 s")
            time.sleep(0.05)
        yield f"http://127.0.0.1:{text.splitlines()[0].strip()}"
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        if proc.stderr:
            proc.stderr.close()
        shutil.rmtree(profile, ignore_errors=True)


@pytest.fixture
async def browser(chromium_cdp: str) -> AsyncIterator[Browser]:
    """The session's chromium as a Playwright ``Browser`` (async API), connected for this test."""
    async with async_playwright() as pw:
        connected = await pw.chromium.connect_over_cdp(chromium_cdp)
        try:
            yield connected
        finally:
            await connected.close()  # over CDP: closes this test's contexts and disconnects


@pytest.fixture
async def browser_context(browser: Browser) -> AsyncIterator[BrowserContext]:
    """A fresh Playwright ``BrowserContext`` (1600x1000 viewport) closed after the test."""
    context = await browser.new_context(viewport={"width": 1600, "height": 1000})
    context.set_default_timeout(float(os.environ.get("PRIZECHECK_BROWSER_TIMEOUT_MS", "10000")))
    try:
        yield context
    finally:
        await context.close()
