"""What the console's events make of the record, against the real app on a real Redis:

- the claims close at the end of every stream (issue 33 item 7): a stream published through the console
  that stops on its deciding event, a prize claim short, has the ``prize_count_mismatch`` in the stored
  record and in the console's findings, with no ``game_ended``;
- a correction names who made it (issue 33 item 8): the console's view says how, and a correction that
  names anyone else is refused.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.builder import Stream, card, drawn_game
from tests.engine.games import final_knockout
from tests.streams.http.served import Served, served_with

pytestmark = pytest.mark.redis

MANUAL = {"kind": "manual", "producer": "prizecheck console", "reports_knockouts": True}


served = served_with(("recorder", ["recorder"], {}))


def decided_by_a_short_claim(match: str) -> Stream:
    """A 2-prize game decided by a 2-prize knockout whose prizes the source claims as 1, no game_ended."""
    return final_knockout(prize_claim=1, match=match)


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
    # the console's findings are the record's, with the rule each rests on and its sentence in the page's
    # language (text)
    assert record["findings"] == [
        {k: v for k, v in f.items() if k not in ("rule", "text")} for f in view["findings"]
    ]


async def test_a_correction_names_its_writer_and_no_one_else(served: Served) -> None:
    s = decided_by_a_short_claim("authors/g1")
    events = s.events[:6]
    url = f"{served.url}/console/authors/g1"
    r = await served.http.get(f"{url}/state", headers=served.auth("recorder"))
    view = await r.json()
    assert view["author"] == "recorder recorder"  # the role it corrects as, and the token's name
    r = await served.http.get(f"{url}/state", headers=served.auth("admin"))
    assert (await r.json())["author"] == "judge admin"
    r = await served.http.post(
        f"{url}/events", json={"console": "c1", "events": events}, headers=served.auth("recorder")
    )
    assert r.status == 200, await r.text()
    spoof = {"match": "authors/g1", "seq": 7, "type": "correction", "target": 6, "action": "void"}
    for body in ({**spoof, "author": "judge Kim"}, {**spoof, "author": "recorder recorder"}):
        r = await served.http.post(
            f"{url}/events", json={"console": "c1", "events": [body]}, headers=served.auth("recorder")
        )
        if body["author"] == "judge Kim":
            assert r.status == 400 and "author must be its writer" in (await r.json())["error"]
        else:
            assert r.status == 200, await r.text()
    r = await served.http.get(f"{served.url}/matches/authors/g1/record", headers=served.auth("recorder"))
    (corrected,) = [f for f in (await r.json())["findings"] if f["code"] == "corrected"]
    assert corrected["message"] == "seq 6 voided by recorder recorder; game re-derived (1 correction(s))"


async def test_a_drawn_game_settled_by_its_playoff_prompts_its_winner(served: Served) -> None:
    # issue 33 item 2: the parent's record said the playoff's winner while its console still showed
    # "Game over: draw" and offered to start the same playoff again
    parent = drawn_game("settle/g1", source=MANUAL)

    async def publish(events: list[dict[str, Any]], match: str) -> None:
        r = await served.http.post(
            f"{served.url}/console/{match}/events",
            json={"console": "c1", "events": events},
            headers=served.auth("recorder"),
        )
        assert r.status == 200, await r.text()

    async def prompts(match: str) -> list[dict[str, Any]]:
        r = await served.http.get(f"{served.url}/console/{match}/state", headers=served.auth("recorder"))
        view = await r.json()
        return [{"id": p["id"], "text": p["text"]} for p in view["prompts"]]

    await publish(parent.events, "settle/g1")
    offered = await prompts("settle/g1")
    assert [p["id"] for p in offered] == ["game_over", "playoff"], offered
    r = await served.http.get(f"{served.url}/review/settle/g1/meta", headers=served.auth("admin"))
    assert [d["id"] for d in (await r.json())["due"]] == ["game_over", "playoff"]
    child = Stream("settle/g1/tb1", source=MANUAL, parent="settle/g1", playoff="tiebreaker_game", prizes=6)
    child.setup("ash", ("a1", card("Pikachu", 30)))
    child.setup("misty", ("m1", card("Staryu", 30)))
    await publish(child.events, "settle/g1/tb1")
    assert [p["id"] for p in await prompts("settle/g1")] == ["game_over"]  # it is being played
    child.add("conceded", player="misty")
    await publish(child.events[-1:], "settle/g1/tb1")
    assert await prompts("settle/g1") == [{"id": "game_over", "text": "Game over: ash wins (playoff game)"}]
    # the review page reads the same steps (its meta's "due", shown at the archive's head)
    r = await served.http.get(f"{served.url}/review/settle/g1/meta", headers=served.auth("admin"))
    assert (await r.json())["due"] == [{"id": "game_over", "text": "Game over: ash wins (playoff game)"}]
