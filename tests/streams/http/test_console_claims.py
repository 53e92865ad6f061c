"""The claims close at the end of every stream (issue 33 item 7), in the service and the console: a
stream published through the console that stops on its deciding event, a prize claim short, has the
``prize_count_mismatch`` in the stored record and in the console's findings, with no ``game_ended``."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from streams.store import RedisStore
from tests.builder import Stream, card
from tests.streams.http.served import Served, start_served

pytestmark = pytest.mark.redis

MANUAL = {"kind": "manual", "producer": "prizecheck console", "reports_knockouts": True}


@pytest.fixture
async def served(redis_store: RedisStore, tmp_path: Path) -> AsyncIterator[Served]:
    s, server = await start_served(redis_store, tmp_path, extra_tokens=(("recorder", ["recorder"], {}),))
    try:
        yield s
    finally:
        await s.http.close()
        await server.close()


def decided_by_a_short_claim(match: str) -> Stream:
    """A 2-prize game decided by a 2-prize knockout whose prizes the source claims as 1, no game_ended."""
    s = Stream(match, source=MANUAL, first="misty", prizes=2)
    s.setup("ash", ("a1", card("Pikachu ex", 60, "ex")), ("a2", card("Pichu", 30)))
    s.setup("misty", ("m1", card("Staryu", 50)))
    s.turn("misty")
    s.add("turn_ended", player="misty")
    s.turn("ash")
    s.add("turn_ended", player="ash")
    s.turn("misty")
    s.add("attack", player="misty", pid="m1", name="Water Gun")
    s.add("damage", pid="a1", amount=60)
    s.add("knocked_out", pid="a1")
    s.add("prize_taken", player="misty", count=1)
    s.add("attack_ended")
    return s


async def test_the_service_and_the_console_close_the_claims_at_the_end(served: Served) -> None:
    s = decided_by_a_short_claim("claims/g1")
    r = await served.http.post(
        f"{served.url}/console/claims/g1/events",
        json={"console": "c1", "events": s.events},
        headers=served.auth("recorder"),
    )
    assert r.status == 200, await r.text()
    want = (len(s.events) - 1, "misty took 1 prize(s); the knockouts give 2")

    def mismatches(findings: list[dict[str, Any]]) -> list[tuple[int, str]]:
        return [(f["seq"], f["message"]) for f in findings if f["code"] == "prize_count_mismatch"]

    r = await served.http.get(f"{served.url}/matches/claims/g1/record", headers=served.auth("recorder"))
    record = await r.json()
    assert record["status"] == "finished" and mismatches(record["findings"]) == [want]
    r = await served.http.get(f"{served.url}/console/claims/g1/state", headers=served.auth("recorder"))
    view = await r.json()
    assert mismatches(view["findings"]) == [want]
    assert record["findings"] == [{k: v for k, v in f.items() if k != "rule"} for f in view["findings"]]
