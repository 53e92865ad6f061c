"""The web edge (issue 18 item 5), against the real service: login and logout from another origin are
refused (CSRF), logout ends the session on the server, ``next`` stays on the service however a browser
would read it, a hung-up live viewer gives its slot back at once, and idle connections are closed on
time (``prizecheck serve`` itself, as a process). The login CSRF in a real browser is in
test_browser_login.py.
"""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import aiohttp
import pytest

from streams.http.access import COOKIE, safe_next
from tests.paths import ROOT
from tests.streams.http.served import Served, start_served
from tests.streams.ingest.support import game

pytestmark = pytest.mark.redis


def origin_of(s: Served) -> str:
    return s.url  # http://127.0.0.1:PORT: what a page of the service sends as its Origin


# ------------------------------------------------------------------------------------ login CSRF
@pytest.mark.parametrize(
    "headers",
    [
        {"Origin": "http://evil.example"},
        {"Origin": "null"},  # a sandboxed frame, a data: page
        {"Origin": "http://127.0.0.1.evil.example"},
        {"Sec-Fetch-Site": "cross-site"},
        {"Sec-Fetch-Site": "same-site"},  # another service of the same site is another origin
        {"Sec-Fetch-Site": "cross-site", "Origin": "SELF"},
    ],
)
async def test_login_and_logout_from_another_origin_are_refused(
    served: Served, headers: dict[str, str]
) -> None:
    s = served
    sent = {k: (origin_of(s) if v == "SELF" else v) for k, v in headers.items()}
    jar = aiohttp.CookieJar(unsafe=True)
    async with aiohttp.ClientSession(cookie_jar=jar) as browser:
        r = await browser.post(f"{s.url}/login", data={"token": s.tokens["judge"]}, headers=sent)
        assert r.status == 403 and (await r.json())["code"] == "cross_origin"
        assert "Set-Cookie" not in r.headers and not list(jar)  # no session was opened
        r = await browser.post(f"{s.url}/logout", headers=sent)
        assert r.status == 403 and (await r.json())["code"] == "cross_origin"
    refused = [e for e in await s.audit() if e.action == "refused"]
    assert any("from another site" in e.detail for e in refused)


async def test_login_from_the_services_own_pages_and_from_scripts_works(served: Served) -> None:
    s = served
    for headers in (
        {"Origin": origin_of(s), "Sec-Fetch-Site": "same-origin"},  # the login page's fetch
        {"Origin": origin_of(s)},
        {},  # curl, a script: no browser, no other site behind it
    ):
        r = await s.http.post(f"{s.url}/login", data={"token": s.tokens["judge"]}, headers=headers)
        assert r.status == 200, (headers, await r.text())
    # behind a proxy that rewrites Host, the public name it forwards counts as this service
    r = await s.http.post(
        f"{s.url}/login",
        data={"token": s.tokens["judge"]},
        headers={"Origin": "https://judges.example", "X-Forwarded-Host": "judges.example"},
    )
    assert r.status == 200


async def test_logout_ends_the_session_on_the_server(served: Served) -> None:
    s = served
    await s.post(game("m1"))
    jar = aiohttp.CookieJar(unsafe=True)
    async with aiohttp.ClientSession(cookie_jar=jar) as browser:
        r = await browser.post(f"{s.url}/login", data={"token": s.tokens["judge"]})
        old = r.cookies[COOKIE].value
        assert (await browser.get(f"{s.url}/review/m1/meta")).status == 200
        r = await browser.post(f"{s.url}/logout", headers={"Origin": origin_of(s)})
        assert r.status == 200
    # the old cookie, kept by someone (a shared computer, a stolen copy), no longer opens anything
    async with aiohttp.ClientSession() as other:
        r = await other.get(
            f"{s.url}/review/m1", headers={"Cookie": f"{COOKIE}={old}"}, allow_redirects=False
        )
        assert r.status == 303 and r.headers["Location"].startswith("/login")
        r = await other.get(f"{s.url}/matches/m1/events", headers={"Cookie": f"{COOKIE}={old}"})
        assert r.status == 401
    # the same in another process of the service (the ended session is kept in the store)
    again, server = await start_served(s.store, Path(str(s.token_file)).parent / "again")
    try:
        again.book.session_key = s.book.session_key
        again.book.fixed.update({e.id: e for e in s.book.entries()})
        r = await again.http.get(f"{again.url}/review/m1/meta", headers={"Cookie": f"{COOKIE}={old}"})
        assert r.status == 401
        fresh = (await s.http.post(f"{s.url}/login", data={"token": s.tokens["judge"]})).cookies[COOKIE].value
        r = await again.http.get(f"{again.url}/review/m1/meta", headers={"Cookie": f"{COOKIE}={fresh}"})
        assert r.status == 200  # a session not ended is good there too: the refusal above is the logout
    finally:
        await again.http.close()
        await server.close()
    logouts = [e for e in await s.audit() if e.action == "logout"]
    assert len(logouts) == 1 and logouts[0].actor.startswith(s.tokens["judge"].split("_")[1])


# ------------------------------------------------------------------------------------------- next
@pytest.mark.parametrize(
    "bad",
    [
        "//evil.example/x",
        "/\\evil.example",
        "/\t/evil.example",
        "/\n/evil.example",
        "/\r/evil.example",
        "\t//evil.example",
        " /x",
        "/x\x00",
        "/\\/evil.example",
        "https://evil.example",
        "javascript:alert(1)",
        "/ /evil.example",
        "/%0a",  # fine as such, but the next one is not:
        "//%65vil.example",
        "/x\u2028",
        "/" + "a" * 1100,
        "",
    ],
)
def test_next_keeps_only_paths_of_this_service_as_a_browser_reads_them(bad: str) -> None:
    if bad == "/%0a":
        assert safe_next(bad) == "/%0a"  # percent-encoded: the browser keeps it as it is, a path here
        return
    assert safe_next(bad) == "/ui"


@pytest.mark.parametrize(
    "good", ["/ui", "/review/m1%2Ftb1", "/review/m1/tb1?seq=4#board", "/ui?q=a+b&status=x"]
)
def test_next_keeps_a_path_of_this_service(good: str) -> None:
    assert safe_next(good) == good


async def test_login_answers_a_next_that_stays_here(served: Served) -> None:
    s = served
    for bad in ("/\t/evil.example", "/\n/evil.example", "/\\evil.example"):
        r = await s.http.post(f"{s.url}/login", json={"token": s.tokens["judge"], "next": bad})
        assert r.status == 200 and (await r.json())["next"] == "/ui", bad


# ------------------------------------------------------------------------------------ connections
# Against ``prizecheck serve`` itself: aiohttp's TestServer cancels a handler whose client left
# (handler_cancellation=True), which a production server does not do, so only the real one shows when a
# hung-up viewer's stream ends.
class Serve:
    def __init__(self, data_dir: Path, **env: str) -> None:
        environ = {
            k: v for k, v in os.environ.items() if k != "REDIS_URL" and not k.startswith("PRIZECHECK_")
        }
        environ.update(PRIZECHECK_DATA_DIR=str(data_dir), **env)
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "replay.cli", "serve", "--port", "0"],
            cwd=ROOT,
            env=environ,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        assert self.proc.stdout is not None and self.proc.stderr is not None
        line = self.proc.stdout.readline()
        if "listening on" not in line:
            self.proc.kill()
            raise AssertionError(f"serve did not start: {line!r}")
        self.url = line.split("listening on ")[1].split()[0]
        self.host, port = self.url.removeprefix("http://").split(":")
        self.port = int(port)
        for _ in range(50):
            err = self.proc.stderr.readline()
            if "local admin token" in err:
                self.admin = {"Authorization": f"Bearer {err.rsplit(' ', 1)[1].strip()}"}
                break
        else:
            raise AssertionError("serve printed no local admin token")

    def stop(self) -> None:
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(timeout=30)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()


async def test_a_viewer_that_hangs_up_gives_its_slot_back_at_once(tmp_path: Path) -> None:
    """One live stream per client address, the heartbeat 15 s away: only noticing the hang-up frees it."""
    serve = Serve(tmp_path / "data", PRIZECHECK_MAX_CLIENT_STREAMS="1")
    try:
        async with aiohttp.ClientSession() as http:
            r = await http.post(f"{serve.url}/events", json=game("m1")[:3], headers=serve.admin)
            assert r.status == 200
            for _ in range(3):
                reader, writer = await asyncio.open_connection(serve.host, serve.port)
                writer.write(f"GET /matches/m1/live HTTP/1.1\r\nHost: {serve.host}\r\n\r\n".encode())
                await writer.drain()
                head = await asyncio.wait_for(reader.readuntil(b"event: board"), 10)
                assert b" 200 " in head.split(b"\r\n")[0]
                r = await http.get(f"{serve.url}/matches/m1/live")
                assert r.status == 429  # the slot is taken
                writer.close()  # the viewer hangs up
                hung_up = time.monotonic()
                while True:
                    stats = await (await http.get(f"{serve.url}/healthz")).json()
                    if stats["live"]["streams"] == 0:
                        break
                    assert time.monotonic() - hung_up < 3, "the slot was not given back within 3 s"
                    await asyncio.sleep(0.05)
                r = await http.get(f"{serve.url}/matches/m1/live", timeout=aiohttp.ClientTimeout(total=10))
                assert r.status == 200
                r.close()  # this one hangs up too
                hung_up = time.monotonic()
                while (await (await http.get(f"{serve.url}/healthz")).json())["live"]["streams"]:
                    assert time.monotonic() - hung_up < 3
                    await asyncio.sleep(0.05)
    finally:
        serve.stop()


IDLE_KINDS = {
    "nothing at all": b"",
    "half a request head": b"GET /matches HTTP/1.1\r\nHost: x\r\n",
    "a request, then nothing": b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n",
    "a login head, no body": (
        b"POST /login HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\n"
        b"Content-Length: 100\r\n\r\n"
    ),
    "a login head, chunked, no chunk": (
        b"POST /login HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
    ),
    "a logout head, no body": b"POST /logout HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n",
}


async def test_idle_connections_are_closed_on_time_by_prizecheck_serve(tmp_path: Path) -> None:
    """Every kind of idle connection is closed within the idle timeout (1 s here), plus the lingering
    of a body the service does not read (at most 1 s here: min(5 s, the idle timeout))."""
    serve = Serve(tmp_path / "data", PRIZECHECK_IDLE_TIMEOUT="1")

    async def closed_after(opening: bytes) -> float:
        reader, writer = await asyncio.open_connection(serve.host, serve.port)
        started = time.monotonic()
        writer.write(opening)
        await writer.drain()
        try:
            while await asyncio.wait_for(reader.read(65536), 10):
                pass
        except TimeoutError:
            return float("inf")
        finally:
            writer.close()
        return time.monotonic() - started

    try:
        took = dict(
            zip(IDLE_KINDS, await asyncio.gather(*map(closed_after, IDLE_KINDS.values())), strict=True)
        )
    finally:
        serve.stop()
    assert all(t < 3.0 for t in took.values()), took
