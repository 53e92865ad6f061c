"""A finished record's history over HTTP (issue 10, item 4): ``GET /matches/{match}/versions`` and
``GET /matches/{match}/record?version=N``, against the memory store and a real Redis.

A finished game, then a penalty after its end that gives the game to the other player: the record changes,
and both versions stay readable, each naming the event that caused it.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import aiohttp
import msgpack
import pytest
from aiohttp.test_utils import TestServer

from replay import replay_records
from replay.engine.chain import sign, verify_signature
from replay.engine.record import dumps
from streams.history import summary
from streams.http.api import make_app
from streams.ingest import IngestCore
from streams.store import MemoryStore, RecordVersion, Store
from tests.fixtures_redis import _redis_store as redis_store_at
from tests.streams.ingest.support import drawn, game, playoff

KEY, KEY_ID = b"s3cret", "k7"
Event = dict[str, Any]


def penalty_after_the_end(events: list[Event]) -> Event:
    """A game loss to the winner, right after the game: it applies to that game (docs/records.md)."""
    winner = replay_records(events)[events[0]["match"]]["result"]["winner"]
    return {
        "match": events[0]["match"],
        "seq": events[-1]["seq"] + 1,
        "type": "penalty",
        "player": winner,
        "kind": "game_loss",
        "reason": "marked cards",
    }


def signed_record(events: list[Event]) -> bytes:
    """What ``prizecheck replay --json`` prints for ``events`` with the test's key."""
    return dumps(sign(replay_records(events)[events[0]["match"]], KEY, KEY_ID))


@dataclass
class Client:
    url: str
    http: aiohttp.ClientSession

    async def post(self, events: list[Event]) -> None:
        r = await self.http.post(f"{self.url}/events", json=events)
        assert r.status == 200, await r.text()

    async def get(self, path: str, **headers: str) -> aiohttp.ClientResponse:
        return await self.http.get(f"{self.url}{path}", headers=headers)

    async def json(self, path: str) -> Any:
        r = await self.get(path)
        assert r.status == 200, await r.text()
        return await r.json()

    async def error(self, path: str, status: int) -> dict[str, Any]:
        r = await self.get(path)
        body: dict[str, Any] = await r.json()
        assert r.status == status, body
        assert set(body) == {"error", "code"}, body
        return body


@pytest.fixture(params=["memory", "redis"])
async def store(request: pytest.FixtureRequest, redis_url: str) -> AsyncIterator[Store]:
    """The memory store (unit) and a real Redis under this test's own prefix (cleaned up after)."""
    if request.param == "memory":
        yield MemoryStore()
        return
    redis = await redis_store_at(redis_url)
    try:
        yield redis
    finally:
        await redis.delete_all()
        await redis.close()


async def serve(store: Store, key: bytes | None = KEY) -> AsyncIterator[Client]:
    core = IngestCore(store, signing_key=key, key_id=KEY_ID if key else None)
    server = TestServer(make_app(core, store, pages=False), host="127.0.0.1")
    await server.start_server()
    try:
        async with aiohttp.ClientSession() as http:
            yield Client(str(server.make_url("")).rstrip("/"), http)
    finally:
        await server.close()


@pytest.fixture
async def client(store: Store) -> AsyncIterator[Client]:
    async for c in serve(store):
        yield c


def expected_summary(events: list[Event], version: int) -> dict[str, Any]:
    """What the versions route lists for the record of ``events`` (signed with the test's key)."""
    record = replay_records(events)[events[0]["match"]]
    return {
        "version": version,
        "cause": {"match": events[-1]["match"], "seq": events[-1]["seq"]},
        "status": record["status"],
        "result": {
            k: record["result"][k] for k in ("outcome", "winner", "loser", "reason", "decided_at", "turn")
        },
        "agrees": record["agrees"],
        "findings": len(record["findings"]),
        "events": events[-1]["seq"],
        "signature": {"status": "valid", "key_id": KEY_ID},
    }


async def test_a_penalty_after_the_end_is_a_new_version_and_the_earlier_ones_stay_readable(
    client: Client,
) -> None:
    events = game("m1")  # conceded at its next-to-last event, then the source's claim (game_ended)
    conceded = events[-2]["seq"]
    assert events[-2]["type"] == "conceded" and events[-1]["type"] == "game_ended"
    await client.post(events)  # over HTTP one event at a time: each change of the record is a version
    before = await client.json("/matches/m1/versions")
    assert before == [expected_summary(events[:conceded], 1), expected_summary(events, 2)]
    assert before[0]["result"]["winner"] == "misty" and before[0]["result"]["reason"] == "concession"
    assert before[0]["agrees"] is None and before[1]["agrees"] is True  # the claim arrived after the end
    v1 = await (await client.get("/matches/m1/record?version=1")).read()
    assert v1 == signed_record(events[:conceded])
    v2 = await (await client.get("/matches/m1/record?version=2")).read()
    assert v2 == await (await client.get("/matches/m1/record")).read() == signed_record(events)

    late = penalty_after_the_end(events)
    await client.post([late])
    versions = await client.json("/matches/m1/versions")
    assert versions[:2] == before  # the earlier versions did not change
    assert versions[2] == expected_summary([*events, late], 3)
    assert (versions[2]["result"]["winner"], versions[2]["result"]["reason"]) == ("ash", "penalty")
    assert versions[2]["cause"] == {"match": "m1", "seq": late["seq"]}

    # each version's record, byte for byte what the CLI derives from the events up to its cause
    assert await (await client.get("/matches/m1/record?version=1")).read() == v1
    assert await (await client.get("/matches/m1/record?version=2")).read() == v2
    now = await (await client.get("/matches/m1/record")).read()
    assert await (await client.get("/matches/m1/record?version=3")).read() == now
    assert now == signed_record([*events, late]) not in (v1, v2)
    r = await client.get("/matches/m1/record?version=1", Accept="application/msgpack")
    assert r.content_type == "application/msgpack"
    assert msgpack.unpackb(await r.read()) == (await client.json("/matches/m1/record?version=1"))
    assert verify_signature(await client.json("/matches/m1/record?version=1"), KEY)


async def test_unknown_and_bad_versions_are_clear_errors(client: Client) -> None:
    events = game("m1")
    await client.post(events)
    await client.post([penalty_after_the_end(events)])
    body = await client.error("/matches/m1/record?version=4", 404)
    assert body == {"error": "match m1: no version 4 (versions 1 to 3)", "code": "not_found"}
    for bad in ("0", "-1", "x", "1.5", "", "99999999999"):
        body = await client.error(f"/matches/m1/record?version={bad}", 400)
        assert body["code"] == "bad_parameter" and "version" in body["error"], (bad, body)
    body = await client.error("/matches/m1/record?version=1&version=2", 400)
    assert body["code"] == "bad_parameter"

    # no record at all: 404 on both routes
    assert (await client.error("/matches/nope/versions", 404))["error"] == "match nope: no record stored"
    assert (await client.error("/matches/nope/record?version=1", 404))["code"] == "not_found"
    # a game still going has a record but no version yet
    await client.post(game("m2")[:10])
    assert await client.json("/matches/m2/versions") == []
    body = await client.error("/matches/m2/record?version=1", 404)
    assert "not finished" in body["error"]
    assert (await client.error("/matches/bad%20id/versions", 400))["code"] == "bad_match_id"


async def test_a_playoff_game_settling_its_parent_is_named_as_the_cause(client: Client) -> None:
    parent, child = drawn("g1"), playoff("g1/tb1", "g1", True)
    await client.post(parent.events)
    waiting = await client.json("/matches/g1/versions")
    assert [(v["status"], v["cause"]) for v in waiting] == [
        ("awaiting_playoff", {"match": "g1", "seq": parent.events[-1]["seq"]})
    ]
    assert waiting[0]["result"]["outcome"] == "draw"
    await client.post(child.events)
    versions = await client.json("/matches/g1/versions")
    assert len(versions) == 2 and versions[0] == waiting[0]
    settled = versions[1]
    assert settled["cause"]["match"] == "g1/tb1"
    assert settled["cause"]["seq"] in {e["seq"] for e in child.events}
    assert (settled["status"], settled["result"]["winner"], settled["result"]["reason"]) == (
        "finished",
        "ash",
        "playoff",
    )
    everything = parent.events + child.events
    assert await (await client.get("/matches/g1/record?version=2")).read() == dumps(
        sign(replay_records(everything)["g1"], KEY, KEY_ID)
    )
    # the child's own history starts with its own decision
    child_versions = await client.json("/matches/g1/tb1/versions")
    assert child_versions[0]["cause"]["match"] == "g1/tb1"
    assert child_versions[0]["result"]["winner"] == "ash"


async def test_versions_show_nothing_hidden(client: Client) -> None:
    events = game("m1")
    drawn_cards = [c for e in events if e["type"] == "drew" for c in e.get("cards", [])]
    assert drawn_cards == ["Thunder Stone"]  # a card in a hand: never public
    await client.post([*events, penalty_after_the_end(events)])
    for path in ("/matches/m1/versions", "/matches/m1/record?version=1", "/matches/m1/record?version=2"):
        text = await (await client.get(path)).text()
        assert "Thunder Stone" not in text, path


async def test_the_signature_status_is_checked_with_the_services_key(store: Store) -> None:
    events = game("m1")
    async for signed in serve(store, KEY):  # records stored signed
        await signed.post([*events, penalty_after_the_end(events)])
    async for keyless in serve(store, None):  # a service without the key cannot check them
        assert [v["signature"] for v in await keyless.json("/matches/m1/versions")] == [
            {"status": "not_checked", "key_id": KEY_ID}
        ] * 3
        await keyless.post(game("u1"))
        assert (await keyless.json("/matches/u1/versions"))[0]["signature"] == {
            "status": "unsigned",
            "key_id": None,
        }
    async for other in serve(store, b"another key"):
        assert {v["signature"]["status"] for v in await other.json("/matches/m1/versions")} == {"invalid"}


def test_a_summary_of_an_unreadable_version_still_lists_it() -> None:
    broken = RecordVersion(version=2, cause_match="m1", cause_seq=40, record=b"\xc1not msgpack")
    assert summary(broken, KEY) == {
        "version": 2,
        "cause": {"match": "m1", "seq": 40},
        "status": None,
        "result": None,
        "agrees": None,
        "findings": None,
        "events": None,
        "signature": {"status": "unreadable", "key_id": None},
        "unreadable": True,
    }
    tampered = sign(replay_records(game("m1"))["m1"], KEY, KEY_ID)
    tampered["result"] = {**tampered["result"], "winner": "ash"}
    version = RecordVersion(version=1, cause_match="m1", cause_seq=37, record=msgpack.packb(tampered))
    assert summary(version, KEY)["signature"] == {"status": "invalid", "key_id": KEY_ID}
    assert summary(version, None)["signature"] == {"status": "not_checked", "key_id": KEY_ID}
