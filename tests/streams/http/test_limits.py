"""Hard edges of the HTTP service against the real thing (a real port, a real Redis): body and event limits,
nesting, numbers, msgpack edge cases, a corrupt stored record, bad parameters, JSON errors on every
path, slow clients and stream limits. Each case of issue 10 item 6 fails on the code before the fix."""

from __future__ import annotations

import asyncio
import json
import socket
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import aiohttp
import msgpack
import pytest

from streams.store import RedisStore
from tests.streams.http.served import Served, start_served
from tests.streams.ingest.support import game


@pytest.fixture
async def edge(redis_store: RedisStore, tmp_path: Path) -> AsyncIterator[Served]:
    s, server = await start_served(
        redis_store,
        tmp_path,
        max_body=4 * 1024 * 1024,
        max_events=1000,
        body_timeout=1.0,
        max_client_streams=2,
        server_options={"keepalive_timeout": 1.0},
        access_options={"max_client_requests": 3, "max_token_requests": 3},
    )
    try:
        yield s
    finally:
        await s.http.close()
        await server.close()


async def post(
    s: Served, data: bytes | str, content_type: str = "application/json"
) -> aiohttp.ClientResponse:
    return await s.http.post(
        f"{s.url}/events", data=data, headers={**s.auth("admin"), "Content-Type": content_type}
    )


async def test_a_body_above_the_limit_is_413_json(edge: Served) -> None:
    r = await post(edge, b" " * (4 * 1024 * 1024 + 1))
    assert r.status == 413 and (await r.json())["code"] == "body_too_large"


async def test_a_million_zeros_are_refused_quickly_with_a_small_answer(edge: Served) -> None:
    # Old code: 17 s of a blocked server and a 121 MB answer (one outcome per zero).
    r = await post(edge, "0\n" * 1_000_000, "application/x-ndjson")
    body = await r.read()
    assert r.status == 413 and len(body) < 1000
    assert json.loads(body)["code"] == "too_many_events"
    # the service kept answering others meanwhile and after
    assert (await edge.http.get(f"{edge.url}/healthz")).status == 200


async def test_events_per_request_are_bounded_for_every_body_format(edge: Served) -> None:
    e = game("m1")[0]
    assert (await post(edge, json.dumps([e] * 1001))).status == 413
    stream = msgpack.packb(e) * 1001
    assert (await post(edge, stream, "application/msgpack")).status == 413
    r = await post(edge, json.dumps([e] * 1000))  # the limit itself is fine
    assert r.status == 200 and (await r.json())["counts"] == {"applied": 1, "duplicate": 999}


@pytest.mark.parametrize("depth", [1000, 100_000])
async def test_deep_json_is_a_rejected_event_not_a_500(edge: Served, depth: int) -> None:
    # Old code: 1,000 deep answered 500.
    deep = '{"match":"m1","seq":1,"type":"note","text":' + "[" * depth + "]" * depth + "}"
    r = await post(edge, deep)
    out = await r.json()
    assert r.status == 400 and out["outcomes"][0]["status"] == "rejected"
    assert "deep" in out["outcomes"][0]["reason"]


async def test_a_float_seq_is_its_integer_on_every_body_format(edge: Served) -> None:
    # Old code: seq 2.0 reached Redis as a stream id: a 503 after part of the batch was applied.
    events = game("m1")[:4]
    r = await post(edge, json.dumps([events[0], {**events[1], "seq": 2.0}]))
    assert r.status == 200 and [o["seq"] for o in (await r.json())["outcomes"]] == [1, 2]
    data = msgpack.packb({**events[2], "seq": 3.0}) + msgpack.packb(events[3])
    r = await post(edge, data, "application/msgpack")
    assert r.status == 200 and (await r.json())["counts"] == {"applied": 2}
    assert await edge.store.head("m1") == 4


async def test_a_truncated_trailing_msgpack_map_is_reported(edge: Served) -> None:
    # Old code: the cut map was dropped silently and the answer was 200.
    events = game("m1")[:2]
    data = msgpack.packb(events[0]) + msgpack.packb(events[1])[:-3]
    r = await post(edge, data, "application/msgpack")
    out = await r.json()
    assert r.status == 400 and [o["status"] for o in out["outcomes"]] == ["applied", "rejected"]
    assert "truncated" in out["outcomes"][1]["reason"]


async def test_msgpack_with_integer_keys_is_a_clear_rejection(edge: Served) -> None:
    bad: dict[Any, Any] = {**game("m1")[0], 7: "x"}
    r = await post(edge, msgpack.packb(bad), "application/msgpack")
    out = await r.json()
    assert r.status == 400 and "map keys must be strings" in out["outcomes"][0]["reason"]


async def test_one_corrupt_stored_record_does_not_take_the_list_down(edge: Served) -> None:
    # Old code: /ui answered 500.
    await edge.post(game("m1") + game("m2"))
    await edge.store.client.set(edge.store.key("m1", "record"), b"\xc1garbage")
    r = await edge.http.get(f"{edge.url}/ui")
    page = await r.text()
    assert r.status == 200 and "record unreadable" in page and "m2" in page
    r = await edge.http.get(f"{edge.url}/matches/m1/record")
    assert r.status == 500 and (await r.json())["code"] == "corrupt_store"


@pytest.mark.parametrize(
    "query",
    [
        "status=bogus",
        "limit=-1",
        "limit=x",
        "offset=-5",
        "limit=99999999",
        "status=finished&status=in_progress",
    ],
)
async def test_bad_query_parameters_are_400(edge: Served, query: str) -> None:
    r = await edge.http.get(f"{edge.url}/matches?{query}")
    assert r.status == 400 and (await r.json())["code"] == "bad_parameter"


async def test_every_error_is_json_with_error_and_code(edge: Served) -> None:
    for method, path, status in (
        ("GET", "/nope", 404),
        ("GET", "/matches/m1/nope", 404),
        ("DELETE", "/matches", 405),
        ("PUT", "/events", 405),
        ("GET", "/matches/bad%20id/board", 400),
        ("GET", "/static/../api.py", 404),
        ("GET", "/matches/zz/record", 404),
    ):
        r = await edge.http.request(method, f"{edge.url}{path}", headers=edge.auth("admin"))
        assert r.status == status, (method, path, await r.text())
        assert r.headers["Content-Type"].startswith("application/json")
        assert set(await r.json()) == {"error", "code"}


async def test_a_client_that_sends_nothing_or_half_a_request_is_cut_off(edge: Served) -> None:
    host, port = edge.url.removeprefix("http://").split(":")
    for opening in (b"", b"GET /matches HTTP/1.1\r\nHost: x\r\n"):
        sock = socket.create_connection((host, int(port)), timeout=10)
        sock.sendall(opening)
        started = time.monotonic()
        loop = asyncio.get_running_loop()
        data = await loop.run_in_executor(None, sock.recv, 1024)
        sock.close()
        assert data == b"" and time.monotonic() - started < 8  # closed by the server (keep-alive 1 s)


async def test_a_body_that_never_arrives_is_408(edge: Served) -> None:
    host, port = edge.url.removeprefix("http://").split(":")
    reader, writer = await asyncio.open_connection(host, int(port))
    head = (
        "POST /events HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        f"Authorization: Bearer {edge.tokens['admin']}\r\nContent-Length: 1000\r\n\r\n"
    )
    writer.write(head.encode() + b'{"match":')
    await writer.drain()
    answer = await asyncio.wait_for(reader.read(4096), 10)
    writer.close()
    assert b" 408 " in answer.split(b"\r\n")[0] and b"body_timeout" in answer


async def test_live_streams_per_client_are_bounded(edge: Served) -> None:
    await edge.post(game("m1")[:3])
    timeout = aiohttp.ClientTimeout(total=15)
    first = await edge.http.get(f"{edge.url}/matches/m1/live", timeout=timeout)
    second = await edge.http.get(f"{edge.url}/matches/m1/live", timeout=timeout)
    assert first.status == second.status == 200
    third = await edge.http.get(f"{edge.url}/matches/m1/live", timeout=timeout)
    assert (
        third.status == 429
        and third.headers["Retry-After"]
        and (await third.json())["code"] == "too_many_streams"
    )
    first.close()
    for _ in range(100):  # the server notices the closed stream on its next write (keep-alive 0.5 s)
        again = await edge.http.get(f"{edge.url}/matches/m1/live", timeout=timeout)
        if again.status == 200:
            break
        await asyncio.sleep(0.1)
    assert again.status == 200
    again.close()
    second.close()


async def _slow(
    edge: Served, head: str, n: int = 3, settle: float = 0.3
) -> list[tuple[asyncio.StreamReader, asyncio.StreamWriter]]:
    """``n`` requests whose bodies are still coming (each ends with its 408 after the body timeout)."""
    host, port = edge.url.removeprefix("http://").split(":")
    slow = []
    for _ in range(n):
        reader, writer = await asyncio.open_connection(host, int(port))
        writer.write(head.encode())
        await writer.drain()
        slow.append((reader, writer))
    await asyncio.sleep(settle)
    return slow


async def _answered(reader: asyncio.StreamReader) -> bool:
    try:
        return bool(await asyncio.wait_for(reader.read(1), 0.3))
    except TimeoutError:
        return False


async def _ended(slow: list[tuple[asyncio.StreamReader, asyncio.StreamWriter]]) -> None:
    for reader, writer in slow:
        assert b" 408 " in (await asyncio.wait_for(reader.read(4096), 10)).split(b"\r\n")[0]
        writer.close()


async def test_requests_in_progress_per_anonymous_client_are_bounded(edge: Served) -> None:
    # three anonymous logins whose bodies are still coming: the address's budget (3) is spent
    slow = await _slow(
        edge,
        "POST /login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n",
    )
    r = await edge.http.get(f"{edge.url}/matches")
    assert r.status == 429 and (await r.json())["code"] == "too_many_requests" and r.headers["Retry-After"]
    assert "this address" in (await r.json())["error"]
    # a token's requests from the same address count against the token's own budget (issue 32 item 7)
    assert (await edge.http.get(f"{edge.url}/matches", headers=edge.auth("admin"))).status == 200
    await _ended(slow)  # each ends with its 408; then the address may ask again
    assert (await edge.http.get(f"{edge.url}/matches")).status == 200


async def test_requests_in_progress_per_token_are_bounded_whatever_the_address(edge: Served) -> None:
    """Issue 32 item 7: recorders behind one venue's NAT (one address) do not share one budget. One token
    with its budget (3) spent is refused; another token and the anonymous readers of the same address
    are not (before: one budget per address for all of them)."""
    head = (
        "POST /events HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        f"Authorization: Bearer {edge.tokens['admin']}\r\nContent-Length: 1000\r\n\r\n"
    )
    slow = await _slow(edge, head)
    r = await edge.http.get(f"{edge.url}/matches", headers=edge.auth("admin"))
    assert r.status == 429 and (await r.json())["code"] == "too_many_requests" and r.headers["Retry-After"]
    assert "this token" in (await r.json())["error"]
    for who in ("organizer", None):
        assert (await edge.http.get(f"{edge.url}/matches", headers=edge.auth(who))).status == 200, who
    await _ended(slow)
    assert (await edge.http.get(f"{edge.url}/matches", headers=edge.auth("admin"))).status == 200


async def test_two_hundred_recorders_behind_one_address_each_have_their_own_budget(
    redis_store: RedisStore, tmp_path: Path
) -> None:
    """Issue 32 item 7, the venue's case with the defaults (128 per address, 64 per token): 200 tokens from
    one address, each with a request in progress, and each of them (and an anonymous reader) still
    served. Before: the 129th request of the address was a 429, whoever sent it."""
    recorders = [(f"rec{i}", ["ingest"], {}) for i in range(200)]
    s, server = await start_served(redis_store, tmp_path, extra_tokens=recorders, body_timeout=20.0)
    try:
        slow = []
        for name, *_ in recorders:
            head = (
                "POST /events HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                f"Authorization: Bearer {s.tokens[name]}\r\nContent-Length: 1000\r\n\r\n"
            )
            slow += await _slow(s, head, 1, settle=0.0)
        await asyncio.sleep(0.3)
        for name in ("rec0", "rec150", "rec199", None):
            r = await s.http.get(f"{s.url}/matches", headers=s.auth(name))
            assert r.status == 200, (name, r.status, await r.text())
        # none of them was refused: each is still waiting for its body, unanswered
        assert not any(await asyncio.gather(*(_answered(reader) for reader, _ in slow)))
        for _, writer in slow:
            writer.close()
    finally:
        await s.http.close()
        await server.close()
