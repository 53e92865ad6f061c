"""A judge acts from the review page (issue 36 item 3), on the real service and Redis: a note, a ruling, a
penalty of a kind the ruleset allows, a void or an amend at the event on screen, each written at the next
seq with the judge as its author and shown in the replay at once; refused in one sentence outside the
judge's scope. And in chromium: the form on the review page records a penalty and the page opens at it."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.async_api import BrowserContext

from replay.records import from_msgpack
from streams.http.rulings import penalty_kinds
from tests.streams.http.served import Served, scoped_game
from tests.streams.http.test_review import judge_page, ready, wait_seq
from tests.streams.ingest.support import game


async def act(served: Served, match: str, body: dict[str, Any], who: str = "judge") -> tuple[int, Any]:
    url = f"{served.url}/review/{match}/act"
    async with served.http.post(url, json=body, headers=served.auth(who)) as r:
        return r.status, await r.json()


async def stored(served: Served, match: str) -> list[dict[str, Any]]:
    from streams.http.battle_log import decode

    return decode(await served.store.events(match))


@pytest.fixture
async def m1(served: Served) -> int:
    assert (await served.post(game("m1"), who="ingest")).status == 200
    return len(await stored(served, "m1"))


async def test_a_note_and_a_ruling_are_written_at_the_next_seq_by_the_judge(served: Served, m1: int) -> None:
    status, body = await act(served, "m1", {"action": "note", "at": 5, "text": "players called me over"})
    assert status == 200, body
    assert body["seq"] == m1 + 1 and body["status"] == "applied"
    status, body = await act(
        served, "m1", {"action": "ruling", "at": 5, "text": "the knockout stands", "section": "4.2"}
    )
    assert status == 200, body
    events = await stored(served, "m1")
    note, ruling = events[-2:]
    assert note == {
        **note,
        "type": "note",
        "author": "judge judge",
        "text": "At seq 5: players called me over",
    }
    assert ruling["text"] == "Ruling at seq 5 (docs/rules.md §4.2): the knockout stands"
    entries = await served.audit()
    assert any(e.action == "write" and "judge's ruling at seq 5" in e.detail for e in entries)


async def test_a_penalty_of_a_kind_the_ruleset_allows_is_in_the_record(served: Served, m1: int) -> None:
    players = from_msgpack(await served.store.record("m1") or b"").players
    status, body = await act(
        served,
        "m1",
        {"action": "penalty", "at": 3, "player": players[0], "kind": "warning", "reason": "slow play"},
    )
    assert status == 200, body
    record = from_msgpack(await served.store.record("m1") or b"")
    assert any(p.kind == "warning" and p.player == players[0] for p in record.penalties or [])
    status, body = await act(
        served, "m1", {"action": "penalty", "at": 3, "player": players[0], "kind": "triple"}
    )
    assert status == 400 and body["code"] == "bad_field" and "kind" in body["error"]
    assert "double_prize" in penalty_kinds("play-2026") and "caution" in penalty_kinds("jp-3.4")


async def test_a_void_is_a_correction_of_the_event_on_screen(served: Served, m1: int) -> None:
    status, body = await act(served, "m1", {"action": "void", "at": m1 - 2})
    assert status == 200, body
    last = (await stored(served, "m1"))[-1]
    assert (last["type"], last["target"], last["action"], last["author"]) == (
        "correction",
        m1 - 2,
        "void",
        "judge judge",
    )


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"action": "shout", "at": 2}, "action"),
        ({"action": "note", "at": 0, "text": "x"}, "at"),
        ({"action": "note", "at": 10_000, "text": "x"}, "at"),
        ({"action": "note", "at": 2, "text": "  "}, "text"),
        ({"action": "penalty", "at": 2, "player": "nobody", "kind": "warning"}, "player"),
        ({"action": "amend", "at": 2, "event": "not an object"}, "event"),
    ],
)
async def test_a_bad_action_is_one_sentence_and_writes_nothing(
    served: Served, m1: int, body: dict[str, Any], field: str
) -> None:
    status, answer = await act(served, "m1", body)
    assert status == 400 and answer["code"] == "bad_field" and answer["error"].startswith(field), answer
    assert len(await stored(served, "m1")) == m1


async def test_outside_the_judge_s_scope_it_is_refused(served: Served) -> None:
    assert (await served.post(scoped_game("l2", "L2"))).status == 200
    before = len(await stored(served, "l2"))
    status, body = await act(served, "l2", {"action": "note", "at": 2, "text": "x"}, who="judge_l1")
    assert status == 403, body
    assert len(await stored(served, "l2")) == before


@pytest.mark.parametrize(("who", "status"), [(None, 401), ("ingest", 403), ("organizer", 403)])
async def test_only_judges_act(served: Served, m1: int, who: str | None, status: int) -> None:
    code, _ = await act(served, "m1", {"action": "note", "at": 2, "text": "x"}, who=who)  # type: ignore[arg-type]
    assert code == status
    assert len(await stored(served, "m1")) == m1


@pytest.mark.parametrize("size", [(390, 844), (1440, 900)], ids=["phone", "desktop"])
async def test_the_review_page_records_a_penalty_and_opens_at_it(
    served: Served, browser_context: BrowserContext, m1: int, size: tuple[int, int]
) -> None:
    page = await judge_page(served, browser_context, "/review/m1#seq=4", size)
    await ready(page)
    await wait_seq(page, 4)
    await page.click("#judge-act summary")
    assert await page.text_content("#act-at") == "4"
    await page.select_option("#act-action", "penalty")
    await page.select_option("#act-kind", "caution")
    await page.fill("#act-reason", "shuffled too little")
    await page.click("#act-send")
    await wait_seq(page, m1 + 1)  # the page reloads at the new event
    await ready(page)
    last = (await stored(served, "m1"))[-1]
    assert (last["type"], last["kind"], last["reason"]) == (
        "penalty",
        "caution",
        "at seq 4: shuffled too little",
    )
    assert "caution" in str(await page.text_content("#log"))


# ---------------------------------------------------------------- Japan's prize penalty, 両者敗北 (issue 34)
def test_each_ruleset_offers_its_own_prize_penalties() -> None:
    from streams.http.rulings import prize_counts

    assert penalty_kinds("jp-3.4") == (
        "caution",
        "warning",
        "prize_penalty",
        "game_loss",
        "match_loss",
        "disqualification",
        "double_loss",
    )
    assert prize_counts("jp-3.4") == (1, 3)
    for ruleset in ("play-2026", "kr-1.0"):
        kinds = penalty_kinds(ruleset)
        assert kinds[2:4] == ("double_prize", "quad_prize") and "prize_penalty" not in kinds


@pytest.fixture
async def jp1(served: Served) -> int:
    assert (await served.post(game("jp1", ruleset="jp-3.4"), who="ingest")).status == 200
    return len(await stored(served, "jp1"))


async def test_a_jp_prize_penalty_of_the_judges_count_is_in_the_record(served: Served, jp1: int) -> None:
    status, body = await act(
        served,
        "jp1",
        {"action": "penalty", "at": 3, "player": "ash", "kind": "prize_penalty", "prizes": 3, "reason": "x"},
    )
    assert status == 200, body
    last = (await stored(served, "jp1"))[-1]
    assert (last["kind"], last["prizes"]) == ("prize_penalty", 3)
    record = from_msgpack(await served.store.record("jp1") or b"")
    assert [(p.kind, p.prizes) for p in record.penalties or []] == [("prize_penalty", 3)]
    # no count, or none at all: one sentence naming the field, nothing written
    for bad in ({"prizes": 0}, {}, {"prizes": "three"}):
        status, body = await act(
            served, "jp1", {"action": "penalty", "at": 3, "player": "ash", "kind": "prize_penalty", **bad}
        )
        assert status == 400 and body["error"].startswith("prizes"), body
    assert len(await stored(served, "jp1")) == jp1 + 1


async def test_a_prize_count_play_pokemon_does_not_give_is_refused(served: Served, m1: int) -> None:
    status, body = await act(
        served, "m1", {"action": "penalty", "at": 3, "player": "ash", "kind": "prize_penalty", "prizes": 3}
    )
    assert status == 400 and body["error"].startswith("kind"), body  # play-2026 names its two kinds


async def test_a_double_loss_by_a_judge_leaves_no_winner(served: Served, jp1: int) -> None:
    status, body = await act(
        served, "jp1", {"action": "penalty", "at": 3, "player": "ash", "kind": "double_loss"}
    )
    assert status == 200, body
    record = from_msgpack(await served.store.record("jp1") or b"")
    assert record.result is not None
    assert (record.result.outcome, record.result.winner, record.result.reason) == (
        "no_winner",
        None,
        "double_loss",
    )


async def test_the_review_page_gives_a_jp_prize_penalty_its_count(
    served: Served, browser_context: BrowserContext, jp1: int
) -> None:
    page = await judge_page(served, browser_context, "/review/jp1#seq=4", (1440, 900))
    await ready(page)
    await wait_seq(page, 4)
    await page.click("#judge-act summary")
    await page.select_option("#act-action", "penalty")
    assert await page.is_hidden("#act-prizes")  # only with a prize penalty
    await page.select_option("#act-kind", "prize_penalty")
    assert await page.input_value("#act-prizes") == "1"  # the casebook's first count
    await page.fill("#act-prizes", "3")
    await page.click("#act-send")
    await wait_seq(page, jp1 + 1)
    await ready(page)
    last = (await stored(served, "jp1"))[-1]
    assert (last["kind"], last["prizes"]) == ("prize_penalty", 3)
    assert "prize penalty of 3 prizes" in str(await page.text_content("#log"))
