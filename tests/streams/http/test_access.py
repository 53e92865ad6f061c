"""Access against the real service (the app on a real port, a real Redis, a real token file): every route
of the table with no token, a malformed, unknown, expired or revoked one, one out of scope, and each
role; the judge login's cookie; the audit log; revocation while running; credentials in URLs."""

from __future__ import annotations

import asyncio
import json
import re
import subprocess
import sys
from pathlib import Path

import aiohttp
import pytest

from streams.http.routes import Route
from streams.tokens import read_book, revoke, write_book
from tests.paths import ROOT
from tests.streams.http.served import SCAN_CROP, Served, scoped_game
from tests.streams.ingest.support import game

BAD = ("malformed", "unknown", "expired", "revoked")


def url_of(route: Route, match: str) -> str:
    path = route.path.replace("{match}", match).replace("{path}", "review.css")
    path = path.replace("{sheet}/{region}", SCAN_CROP).replace("{player}", "ash")
    path = path.replace("{event}/{table}", "Cup/7").replace("{slot}", "main").replace("{action}", "swap")
    path = path.replace("{card}", "pikachu")
    return path


async def call(s: Served, route: Route, match: str, who: str | None) -> aiohttp.ClientResponse:
    headers = s.auth(who)
    url = s.url + url_of(route, match)
    if route.method == "POST" and route.path == "/events":
        body = json.dumps(game(match)[-1:])  # a duplicate of an archived event: harmless
        return await s.http.post(url, data=body, headers=headers, allow_redirects=False)
    if route.method == "POST" and route.path == "/login":
        return await s.http.post(url, data={"token": "x"}, headers=headers, allow_redirects=False)
    if route.method == "POST" and route.path == "/import":  # a pasted log: a new match of league L1
        form = {
            "paste": (ROOT / "tests" / "data" / "ptcgl" / "deck_out.txt").read_text("utf-8"),
            "league": "L1",
        }
        return await s.http.post(url, data=form, headers=headers, allow_redirects=False)
    if route.method == "POST" and route.path.endswith("/act"):  # a judge's note at the first event
        return await s.http.post(url, json={"action": "note", "at": 1, "text": "x"}, headers=headers)
    if route.method == "POST" and route.path.startswith("/console/"):  # the table console: nothing new
        # (the clock's pause of a clock not running changes nothing either)
        action = "pause" if route.path.endswith("/clock") else "take"
        body = {"console": "access-test", "action": action, "events": []}
        return await s.http.post(url, json=body, headers=headers, allow_redirects=False)
    if route.method == "PUT" and route.path.startswith("/decks/"):  # a deck list: a one-card list
        return await s.http.put(url, data=b"1 Iono PAL 185\n", headers=headers, allow_redirects=False)
    if route.path.endswith("/live"):
        return await s.http.get(
            url, headers=headers, allow_redirects=False, timeout=aiohttp.ClientTimeout(total=10)
        )
    return await s.http.request(route.method, url, headers=headers, allow_redirects=False)


def expected(route: Route, who: str | None) -> int:
    """The status a caller gets, judged by the route's roles alone."""
    if who in BAD:
        return 401
    if route.method == "POST" and route.path == "/login":
        return 401  # the form's own token ("x") is refused
    roles = (
        {"ingest", "judge", "organizer", "recorder", "stream"} if who == "admin" else {who} if who else set()
    )
    if "public" in route.roles or roles & route.roles:
        return 302 if route.path == "/" else 200
    if who is None:
        return 303 if route.page else 401
    return 403


async def test_every_route_for_every_kind_of_caller(served: Served) -> None:
    s = served
    # the ingest token's match: it re-sends its own event (a duplicate); admin, a judge, may write it too
    assert (await s.post(game("m1"), who="ingest")).status == 200
    routes = s.routes
    assert {r.path for r in routes} >= {"/events", "/matches/{match}/events", "/review/{match}/meta", "/docs"}
    for route in routes:
        for who in (None, *BAD, "admin", "ingest", "judge", "organizer"):
            r = await call(s, route, "m1", who)
            want = expected(route, who)
            assert r.status == want, (route.method, route.path, who, r.status, await r.text())
            if r.status >= 400:
                body = await r.json()
                assert set(body) == {"error", "code"}, body
                if who in BAD:
                    assert body["code"] in ("bad_token", "token_expired", "token_revoked")
            r.close()


async def test_every_route_for_tokens_out_of_scope(served: Served) -> None:
    s = served
    assert (await s.post(scoped_game("l1", "L1") + scoped_game("l2", "L2"))).status == 200
    for route in s.routes:
        for who, match in (("judge_l1", "l2"), ("ingest_l2", "l1")):
            r = await call(s, route, match, who)
            role = who.split("_")[0]
            if route.method == "POST" and route.path == "/login":
                want, code = 401, None
            elif "public" in route.roles:
                want, code = (302 if route.path == "/" else 200), None  # public information is public
            elif role not in route.roles:
                want, code = 403, "forbidden"
            elif route.has_match or route.path == "/events" or route.path.startswith("/decks/"):
                want, code = 403, "out_of_scope"  # deck lists: a scoped token names its events
            else:
                want, code = 200, None
            assert r.status == want, (route.method, route.path, who, r.status, await r.text())
            if code is not None:
                assert (await r.json())["code"] == code
            r.close()


async def test_tokens_bad_in_each_way_say_why_and_are_audited(served: Served) -> None:
    s = served
    for who, code in (
        ("malformed", "bad_token"),
        ("unknown", "bad_token"),
        ("expired", "token_expired"),
        ("revoked", "token_revoked"),
    ):
        r = await s.http.get(f"{s.url}/matches", headers=s.auth(who))
        assert r.status == 401 and (await r.json())["code"] == code
        assert r.headers["WWW-Authenticate"].startswith("Bearer")
    entries = [e for e in await s.audit() if e.action == "refused"]
    assert len(entries) == 4
    assert all(e.origin == "127.0.0.1" and e.target == "GET /matches" and e.at > 0 for e in entries)
    ids = {s.tokens[w].split("_")[1] for w in ("expired", "revoked")}
    assert {e.actor.split()[0] for e in entries} >= ids  # who: the token's id when it names a known one
    for e in await s.audit():
        for token in s.tokens.values():
            assert token not in e.target + e.detail + e.actor  # never a secret in the log


async def test_scope_limits_reads_and_writes_to_the_token_leagues(served: Served) -> None:
    s = served
    assert (await s.post(scoped_game("l1", "L1"))).status == 200
    assert (await s.post(scoped_game("L2/l2", "L2"), who="ingest_l2")).status == 200
    # a judge scoped to L1 reads l1, not l2
    r = await s.http.get(f"{s.url}/matches/l1/events", headers=s.auth("judge_l1"))
    assert r.status == 200
    r = await s.http.get(f"{s.url}/matches/L2/l2/events", headers=s.auth("judge_l1"))
    assert r.status == 403 and (await r.json())["code"] == "out_of_scope"
    r = await s.http.get(f"{s.url}/review/L2/l2/meta", headers=s.auth("judge_l1"))
    assert r.status == 403
    # an ingest token scoped to L2 writes l2 and a new L2 game, and nothing of a batch touching L1
    r = await s.post(scoped_game("L2/l2", "L2")[-2:], who="ingest_l2")
    assert r.status == 200 and (await r.json())["counts"] == {"duplicate": 2}
    r = await s.post(scoped_game("L2/n2", "L2")[:3], who="ingest_l2")
    assert r.status == 200
    # a scoped token creates matches only in its league's namespace: no other league's id is its to take
    r = await s.post(scoped_game("n2", "L2")[:3], who="ingest_l2")
    assert r.status == 403 and "L2/..." in (await r.json())["error"]
    mixed = scoped_game("L2/n3", "L2")[:2] + scoped_game("l1", "L1")[-1:]
    r = await s.post(mixed, who="ingest_l2")
    assert r.status == 403 and (await r.json())["code"] == "out_of_scope"
    assert await s.store.head("L2/n3") == 0  # nothing of the refused batch was written
    r = await s.post([{"match": "unknown-game", "seq": 5, "type": "note", "text": "x"}], who="ingest_l2")
    assert r.status == 403  # a match not known to be in the scope is outside it
    refused = [e for e in await s.audit() if e.action == "refused"]
    assert any("outside" in e.detail and "l2" in e.detail for e in refused)


async def test_writes_and_hidden_reads_are_audited_with_who_what_when_where(served: Served) -> None:
    s = served
    await s.post(game("m1"), who="ingest")
    r = await s.http.get(f"{s.url}/matches/m1/events", headers=s.auth("judge"))
    assert r.status == 200 and "Thunder Stone" in await r.text()  # the judge sees the hidden draw
    r = await s.http.get(f"{s.url}/matches/m1/events", headers=s.auth("organizer"))
    text = await r.text()
    assert r.status == 200 and "Thunder Stone" not in text and '"redacted":true' in text
    await s.http.get(f"{s.url}/review/m1/state?seq=3", headers=s.auth("judge"))
    await s.http.get(f"{s.url}/matches/m1/record")
    entries = await s.audit()
    actions = [(e.action, e.target) for e in entries]
    assert actions == [
        ("write", "POST /events"),
        ("read_hidden", "GET /matches/m1/events"),
        ("read_hidden", "GET /review/m1/state ?seq"),
    ]
    write, hidden = entries[0], entries[1]
    ingest_id, judge_id = s.tokens["ingest"].split("_")[1], s.tokens["judge"].split("_")[1]
    assert write.actor == f"{ingest_id} (ingest)" and '"applied"' in write.detail and "m1" in write.detail
    assert hidden.actor == f"{judge_id} (judge)" and hidden.origin == "127.0.0.1"
    assert entries[0].at <= entries[1].at <= entries[2].at


async def test_judge_login_sets_a_strict_httponly_cookie_that_only_reads(served: Served) -> None:
    s = served
    await s.post(game("m1"))
    jar = aiohttp.CookieJar(unsafe=True)
    async with aiohttp.ClientSession(cookie_jar=jar) as browser:
        r = await browser.get(f"{s.url}/review/m1", allow_redirects=False)
        assert r.status == 303 and r.headers["Location"] == "/login?next=/review/m1"
        r = await browser.post(f"{s.url}/login", data={"token": s.tokens["organizer"] + "x"})
        assert r.status == 401
        r = await browser.post(f"{s.url}/login", data={"token": s.tokens["judge"], "next": "/review/m1"})
        assert r.status == 200 and (await r.json())["next"] == "/review/m1"
        cookie = r.headers["Set-Cookie"]
        assert cookie.startswith("prizecheck_session=")
        flags = {f.strip().split("=")[0].lower() for f in cookie.split(";")[1:]}
        assert {"httponly", "samesite", "path", "max-age"} <= flags and "SameSite=Strict" in cookie
        assert s.tokens["judge"] not in cookie  # the session is not the token
        assert "Secure" not in cookie  # plain HTTP here; behind a TLS proxy it is Secure:
        r = await s.http.post(
            f"{s.url}/login", data={"token": s.tokens["judge"]}, headers={"X-Forwarded-Proto": "https"}
        )
        assert "Secure" in r.headers["Set-Cookie"]
        assert (await browser.get(f"{s.url}/review/m1", allow_redirects=False)).status == 200
        assert (await browser.get(f"{s.url}/review/m1/meta")).status == 200
        # the cookie never writes (no cross-site request can post events)
        r = await browser.post(f"{s.url}/events", data=json.dumps(game("m9")[:1]))
        assert r.status == 401
        # a forged login redirect target stays on this service
        r = await browser.post(
            f"{s.url}/login", data={"token": s.tokens["judge"], "next": "//evil.example/x"}
        )
        assert (await r.json())["next"] == "/ui"
        # revoking the token ends its sessions (the file is re-read within a second)
        assert s.token_file is not None
        judge_id = s.tokens["judge"].split("_")[1]
        write_book(s.token_file, revoke(read_book(s.token_file), judge_id))
        for _ in range(50):
            r = await browser.get(f"{s.url}/review/m1/meta", allow_redirects=False)
            if r.status != 200:
                break
            await asyncio.sleep(0.1)
        assert r.status == 401
        r = await browser.post(f"{s.url}/logout")
        assert r.status == 200 and "prizecheck_session=" in r.headers["Set-Cookie"]
    logins = [e for e in await s.audit() if e.action == "login"]
    assert len(logins) == 3 and all(e.actor.startswith(judge_id) for e in logins)


async def test_credentials_in_urls_are_refused_and_never_logged(served: Served) -> None:
    s = served
    token = s.tokens["judge"]
    for q in ("token", "access_token", "TOKEN"):
        r = await s.http.get(f"{s.url}/matches/m1/events?{q}={token}")
        assert r.status == 400 and (await r.json())["code"] == "credential_in_url"
    for e in await s.audit():
        assert token not in repr(e) and "pc_" not in e.target


async def test_revocation_takes_effect_in_a_running_server(served: Served) -> None:
    s = served
    assert (await s.post(game("m1")[:2], who="ingest")).status == 200
    assert s.token_file is not None
    ingest_id = s.tokens["ingest"].split("_")[1]
    write_book(s.token_file, revoke(read_book(s.token_file), ingest_id))
    for _ in range(50):
        r = await s.post(game("m1")[2:3], who="ingest")
        if r.status == 401:
            break
        await asyncio.sleep(0.1)
    assert r.status == 401 and (await r.json())["code"] == "token_revoked"


# ------------------------------------------------------------------------- the command line, the process
def prizecheck(env: dict[str, str], *args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "replay.cli", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def test_token_commands_store_only_hashes_and_audit_changes(tmp_path: Path, redis_url: str) -> None:
    import os
    import uuid

    prefix = f"pctest-{uuid.uuid4().hex[:12]}"
    env = {**os.environ, "PRIZECHECK_DATA_DIR": str(tmp_path), "REDIS_URL": redis_url}
    made = prizecheck(
        env,
        "token",
        "create",
        "--name",
        "table 3 app",
        "--role",
        "ingest",
        "--league",
        "L1",
        "--expires",
        "30d",
        "--redis-prefix",
        prefix,
    )
    assert made.returncode == 0, made.stderr
    token = made.stdout.strip()
    assert re.fullmatch(r"pc_[0-9a-f]{12}_[A-Za-z0-9_-]{43}", token)
    stored = (tmp_path / "tokens.json").read_text()
    assert token not in stored and token.split("_", 2)[2] not in stored and "hmac-sha256:" in stored
    assert oct((tmp_path / "tokens.json").stat().st_mode & 0o777) == "0o600"
    listed = prizecheck(env, "token", "list", "--json")
    row = json.loads(listed.stdout)
    assert row["name"] == "table 3 app" and row["roles"] == ["ingest"] and row["state"] == "valid"
    assert row["scope"] == {"leagues": ["L1"], "events": [], "tables": []} and row["expires"] is not None
    token_id = token.split("_")[1]
    gone = prizecheck(env, "token", "revoke", token_id, "--redis-prefix", prefix)
    assert gone.returncode == 0
    assert json.loads(prizecheck(env, "token", "list", "--json").stdout)["state"] == "revoked"
    bad = prizecheck(env, "token", "revoke", "000000000000")
    assert bad.returncode == 2 and "no token" in bad.stderr
    # a recorder at one table of an event; a table alone names no table (numbers repeat across events)
    alone = prizecheck(env, "token", "create", "--name", "t12", "--role", "recorder", "--table", "12")
    assert alone.returncode == 2 and "needs the event" in alone.stderr and "Traceback" not in alone.stderr
    args = ("--name", "t12", "--role", "recorder", "--event", "Cup", "--table", "12")
    args += ("--redis-prefix", prefix)
    assert prizecheck(env, "token", "create", *args).returncode == 0
    rows = [json.loads(line) for line in prizecheck(env, "token", "list", "--json").stdout.splitlines()]
    assert rows[-1]["scope"] == {"leagues": [], "events": ["Cup"], "tables": ["12"]}
    assert "Cup, table 12" in prizecheck(env, "token", "list").stdout
    log = prizecheck(env, "audit-log", "--json", "--redis-prefix", prefix)
    rows = [json.loads(line) for line in log.stdout.splitlines()]
    assert [r["action"] for r in rows] == ["token_create", "token_revoke", "token_create"]
    assert all(
        r["target"] == f"token {token_id}" and r["origin"] and r["actor"].startswith("cli ") for r in rows[:2]
    )
    import redis

    redis.Redis.from_url(redis_url).delete(f"{prefix}:{{audit}}")


def test_serve_refuses_other_addresses_without_tokens(tmp_path: Path) -> None:
    import os

    env = {k: v for k, v in os.environ.items() if not k.startswith("PRIZECHECK_") and k != "REDIS_URL"}
    env["PRIZECHECK_DATA_DIR"] = str(tmp_path)
    done = prizecheck(env, "serve", "--host", "0.0.0.0", "--port", "0")
    assert done.returncode == 2 and "refusing to serve on 0.0.0.0 without tokens" in done.stderr
    assert "--insecure-no-auth" in done.stderr and "Traceback" not in done.stderr


@pytest.mark.parametrize("mode", ["local-admin", "insecure"])
async def test_serve_process_local_admin_token_or_insecure(tmp_path: Path, mode: str) -> None:
    import os

    env = {k: v for k, v in os.environ.items() if not k.startswith("PRIZECHECK_") and k != "REDIS_URL"}
    env["PRIZECHECK_DATA_DIR"] = str(tmp_path)
    args = ["serve", "--port", "0"] + (
        ["--host", "0.0.0.0", "--insecure-no-auth"] if mode == "insecure" else []
    )
    proc = subprocess.Popen(
        [sys.executable, "-m", "replay.cli", *args],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None and proc.stderr is not None
        line = proc.stdout.readline()
        assert "listening on" in line, proc.stderr.read()
        port = line.split("listening on http://")[1].split()[0].rsplit(":", 1)[1]
        url = f"http://127.0.0.1:{port}"
        notice = proc.stderr.readline()
        async with aiohttp.ClientSession() as http:
            if mode == "local-admin":
                token = re.search(r"(pc_[0-9a-f]{12}_[A-Za-z0-9_-]{43})", notice)
                assert token is not None, notice
                assert (await http.post(f"{url}/events", json=game("m1"))).status == 401
                r = await http.post(
                    f"{url}/events", json=game("m1"), headers={"Authorization": f"Bearer {token.group(1)}"}
                )
                assert r.status == 200
            else:
                assert "WARNING" in notice and "no authentication" in notice
                assert (await http.post(f"{url}/events", json=game("m1"))).status == 200
                assert (await http.get(f"{url}/matches/m1/events")).status == 200
    finally:
        proc.terminate()
        proc.wait(timeout=30)


async def test_a_token_file_broken_while_serving_keeps_the_tokens_in_force(served: Served) -> None:
    s = served
    assert s.token_file is not None
    good = s.token_file.read_text()
    s.token_file.write_text(good[: len(good) // 2])  # a half-written edit
    await asyncio.sleep(1.1)  # the book looks at the file at most once a second
    r = await s.http.get(f"{s.url}/stats", headers=s.auth("organizer"))
    assert r.status == 200
    s.token_file.write_text(good)
