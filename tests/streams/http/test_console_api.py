"""The table console's service side (docs/console.md), against the real app on a real Redis: the engine's
prompts, publishing (idempotent, fenced by seq), the writer's lease, the recorder's scope and ownership,
hidden marks, the draft's preview, and the broadcast delay of the live boards."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import aiohttp
import msgpack
import pytest

from replay.engine.errors import InputError
from streams.http.delay import broadcast_delay
from streams.http.keys import STORE
from streams.http.lease import Holder
from streams.http.prompts import derive
from streams.http.tables import clock_key
from streams.store import RedisStore, keys
from streams.tokens import new_token
from tests.builder import Stream, card
from tests.streams.http.served import Served, start_served

pytestmark = pytest.mark.redis

Event = dict[str, Any]
MANUAL = {"kind": "manual", "producer": "prizecheck console", "reports_knockouts": True}


@pytest.fixture
async def served(redis_store: RedisStore, tmp_path: Path) -> AsyncIterator[Served]:
    s, server = await start_served(
        redis_store,
        tmp_path,
        extra_tokens=(
            ("recorder", ["recorder"], {}),
            ("recorder2", ["recorder"], {}),
            ("recorder_l2", ["recorder"], {"leagues": ["L2"]}),
            ("recorder_t12", ["recorder"], {"events": ["Cup"], "tables": ["12"]}),
        ),
    )
    try:
        yield s
    finally:
        await s.http.close()
        await server.close()


def opening(match: str, league: str = "L1", **started: Any) -> Stream:
    s = Stream(match, source=MANUAL, context={"league": league, "event": "Cup"}, **started)
    s.setup("ash", ("a1", card("Pikachu", 60)), ("a2", card("Pichu", 30)))
    s.setup("misty", ("m1", card("Staryu ex", 60, "ex")), ("m2", card("Psyduck", 70)))
    return s


def knocking_out_staryu(s: Stream) -> None:
    """Two turns, then ash's Thunder does 60 to misty's Staryu ex (60 HP): the knockout is due."""
    s.turn("ash")
    s.add("turn_ended", player="ash")
    s.add("checkup_started")
    s.add("checkup_ended")
    s.turn("misty")
    s.add("turn_ended", player="misty")
    s.add("checkup_started")
    s.add("checkup_ended")
    s.turn("ash")
    s.add("attack", player="ash", pid="a1", name="Thunder")
    s.add("damage", pid="m1", amount=60)


async def publish(
    s: Served, match: str, events: list[Event], console: str = "c1", who: str = "recorder"
) -> tuple[int, dict[str, Any]]:
    url = f"{s.url}/console/{quote(match, safe='/:')}/events"
    r = await s.http.post(url, json={"console": console, "events": events}, headers=s.auth(who))
    return r.status, await r.json()


async def get(s: Served, path: str, who: str | None = "recorder") -> tuple[int, str]:
    r = await s.http.get(s.url + path, headers=s.auth(who))
    return r.status, await r.text()


# ------------------------------------------------------------------------------------------ prompts
def test_the_attack_prompt_posts_the_claims_the_engine_derives() -> None:
    s = opening("p1")
    knocking_out_staryu(s)
    (prompt,) = derive(s.events)["prompts"]
    assert prompt["id"] == "attack_ended"
    # the rule box's count (ex: 2) [docs/rules.md §3], and the promotion due after it
    assert prompt["events"] == [
        {"type": "knocked_out", "pid": "m1", "player": "misty"},
        {"type": "prize_taken", "player": "ash", "count": 2},
        {"type": "attack_ended"},
    ]
    assert "misty must promote a new Active Pokémon" in prompt["detail"]
    for e in prompt["events"]:
        s.add(e.pop("type"), **e)
    view = derive(s.events)
    (promote,) = view["prompts"]
    assert promote["id"] == "promote" and [c["events"] for c in promote["choices"]] == [
        [{"type": "promoted", "player": "misty", "pid": "m2"}]
    ]
    assert view["findings"] == []  # the claims agree with the engine
    assert view["board"]["players"]["ash"]["prizes_taken"] == 2


def test_the_checkup_asks_for_poison_and_burn_damage_once() -> None:
    s = opening("p2")
    s.turn("ash")
    s.add("condition", pid="m1", condition="poisoned", on=True)
    s.add("condition", pid="a1", condition="burned", on=True)
    s.add("turn_ended", player="ash")
    assert [p["id"] for p in derive(s.events)["prompts"]] == ["checkup"]
    s.add("checkup_started")
    (prompt,) = derive(s.events)["prompts"]
    assert prompt["id"] == "checkup_damage"
    # Poisoned before Burned, both players together [JP3.4 §I-F]
    assert prompt["events"] == [
        {"type": "damage", "pid": "m1", "amount": 10, "by": "Poisoned"},
        {"type": "damage", "pid": "a1", "amount": 20, "by": "Burned"},
    ]
    for e in prompt["events"]:
        s.add(e.pop("type"), **e)
    (end,) = derive(s.events)["prompts"]
    assert end["id"] == "checkup_ended" and end["events"] == [{"type": "checkup_ended"}]


def test_a_double_knockout_promotes_the_next_turn_player_first_and_a_draw_offers_its_playoff() -> None:
    s = opening("p3", must_decide=True)
    s.turn("ash")
    s.add("turn_ended", player="ash")
    s.add("checkup_started")
    s.add("damage", pid="a1", amount=60)
    s.add("damage", pid="m1", amount=60)
    (end,) = derive(s.events)["prompts"]
    assert [e["type"] for e in end["events"]].count("knocked_out") == 2
    for e in end["events"]:
        s.add(e.pop("type"), **e)
    (promote,) = derive(s.events)["prompts"]
    # misty takes the next turn: misty promotes first [JP3.4 §I-D step 5]
    assert promote["text"].startswith("misty must promote") and "misty then ash" in promote["text"]
    # a game with nothing left to promote on both sides: the simultaneous table's draw, and its playoff
    d = Stream("p4", source=MANUAL, must_decide=True, context={"league": "L1"})
    d.setup("ash", ("a1", card("Pikachu", 30)))
    d.setup("misty", ("m1", card("Staryu", 30)))
    d.turn("ash")
    d.add("turn_ended", player="ash")
    d.add("checkup_started")
    d.add("damage", pid="a1", amount=30)
    d.add("damage", pid="m1", amount=30)
    for e in derive(d.events)["prompts"][0]["events"]:
        d.add(e.pop("type"), **e)
    view = derive(d.events)
    assert view["status"] == "awaiting_playoff"
    over, playoff = view["prompts"]
    assert over["id"] == "game_over" and playoff["id"] == "playoff"
    assert playoff["child"] == "p4/tb1"
    assert playoff["start"]["parent"] == "p4" and playoff["start"]["playoff"] == "tiebreaker_game"
    assert playoff["start"]["context"] == {"league": "L1"}


def test_a_findings_rule_is_named() -> None:
    s = opening("p5")
    s.turn("ash")
    s.add("attack", player="ash", pid="a1", name="Tackle")  # the first player's first turn
    view = derive(s.events)
    (f,) = [f for f in view["findings"] if f["code"] == "attack_first_turn"]
    assert f["rule"] is not None and f["rule"]["href"].startswith("/rules#s")


# --------------------------------------------------------------------------------------- publishing
async def test_a_publish_reads_the_archives_head_while_it_takes_the_lease(
    served: Served, monkeypatch: pytest.MonkeyPatch
) -> None:
    # issue 40 item 5: the fence's read of the archive's head goes with the lease's take (one round trip
    # on serve's autopipelined store), not after its answer: one wait fewer before the events are written
    s = opening("rt1")
    assert (await publish(served, "rt1", s.events))[0] == 200
    store = served.app[STORE]
    steps: list[str] = []
    take, head = store.lease, store.head

    async def taking(*args: Any, **kwargs: Any) -> Any:
        steps.append("take asked")
        held = await take(*args, **kwargs)
        steps.append("take answered")
        return held

    async def reading(*args: Any, **kwargs: Any) -> Any:
        steps.append("head asked")
        return await head(*args, **kwargs)

    monkeypatch.setattr(store, "lease", taking)
    monkeypatch.setattr(store, "head", reading)
    s.turn("ash")
    status, answer = await publish(served, "rt1", s.events[3:])
    assert status == 200 and [o["status"] for o in answer["outcomes"]] == ["applied", "applied"]
    assert steps[:3] == ["take asked", "head asked", "take answered"], steps


async def test_a_publish_to_a_stored_match_checks_its_ownership_once(
    served: Served, monkeypatch: pytest.MonkeyPatch
) -> None:
    # issue 40 item 5: the ownership check ran before the lease and again after the fence, two reads of
    # the owners before every write; a stored match's owner never changes, so only a publish that creates
    # a match (and claims it) checks again
    store = served.app[STORE]
    reads: list[list[str]] = []
    owners = store.owners

    async def reading(matches: list[str]) -> Any:
        reads.append(list(matches))
        return await owners(matches)

    monkeypatch.setattr(store, "owners", reading)
    s = opening("own1")
    assert (await publish(served, "own1", s.events))[0] == 200
    assert reads == [["own1"], ["own1"]]  # created: checked, then checked again as it is claimed
    reads.clear()
    s.turn("ash")
    status, answer = await publish(served, "own1", s.events[3:])
    assert status == 200 and [o["status"] for o in answer["outcomes"]] == ["applied", "applied"]
    assert reads == [["own1"]]
    # and another producer's publish to it is still refused, the lease untouched
    s.turn("misty")
    status, answer = await publish(served, "own1", s.events[5:], console="c2", who="recorder2")
    assert status == 403, answer


async def test_publishing_is_idempotent_and_a_stale_console_is_fenced(served: Served) -> None:
    s = opening("f1")
    status, answer = await publish(served, "f1", s.events)
    assert status == 200 and {o["status"] for o in answer["outcomes"]} == {"applied"}
    assert answer["next_seq"] == 4 and answer["prompts"][0]["id"] == "turn_started"
    # the same outbox sent again (a reload, a lost answer): duplicates, nothing new
    status, answer = await publish(served, "f1", s.events)
    assert status == 200 and {o["status"] for o in answer["outcomes"]} == {"duplicate"}
    # another event at a taken seq (a console that did not see the others): refused whole, not archived
    other = {**s.events[2], "bench": []}
    status, answer = await publish(served, "f1", [other])
    assert status == 409 and answer["code"] == "fenced"
    # one that skips ahead: refused too
    status, answer = await publish(
        served, "f1", [{"match": "f1", "seq": 9, "type": "turn_started", "player": "ash"}]
    )
    assert status == 409 and answer["code"] == "fenced"
    entries = await served.store.events("f1")
    assert len(entries) == 3
    record = json.loads((await get(served, "/matches/f1/record", "judge"))[1])
    assert not [f for f in record["findings"] if f["code"] == "duplicate_seq"]
    # an invalid event is refused at the edge, naming it; nothing of the request is written
    bad = {"match": "f1", "seq": 4, "type": "turn_started"}
    status, answer = await publish(served, "f1", [bad])
    assert status == 400 and answer["code"] == "bad_event" and "event 0" in answer["error"]
    assert len(await served.store.events("f1")) == 3


def test_the_prompts_and_findings_in_japanese_and_korean() -> None:
    s = opening("p1j")
    knocking_out_staryu(s)
    (prompt,) = derive(s.events, lang="ja")["prompts"]
    assert prompt["text"] == "ワザを終える: きぜつあり"
    assert "mistyは新しいバトルポケモンを出す" in prompt["detail"], prompt["detail"]
    (ko,) = derive(s.events, lang="ko")["prompts"]
    assert ko["events"] == prompt["events"]  # the words change, never what a prompt posts
    assert any("기절" in d for d in ko["detail"]), ko["detail"]
    # a finding: its record's English message, and its sentence in the page's language beside it
    s.add("knocked_out", pid="m1", player="misty")
    s.add("prize_taken", player="ash", count=1)
    s.add("attack_ended")
    s.add("promoted", player="misty", pid="m2")
    s.add("turn_ended", player="ash")  # the turn's prize claims close with it (docs/rules.md §3)
    view = derive(s.events, lang="ja")
    (found,) = [f for f in view["findings"] if f["code"] == "prize_count_mismatch"]
    assert found["message"] == "ash took 1 prize(s); the knockouts give 2"
    assert found["text"] == "ashはサイドを1枚とった; きぜつで得られるのは2枚"


async def test_the_consoles_refusals_in_the_readers_language(served: Served) -> None:
    bad = {"match": "lang1", "seq": 1, "type": "turn_started"}
    url = f"{served.url}/console/lang1/events"
    answers = {}
    for query, header in (("?lang=ja", {}), ("", {"Accept-Language": "ko-KR,ko;q=0.9"}), ("", {})):
        r = await served.http.post(
            url + query,
            json={"console": "c1", "events": [[1]]},
            headers={**served.auth("recorder"), **header},
        )
        answer = await r.json()
        assert r.status == 400 and answer["code"] == "bad_event", answer  # the code never changes
        answers[query or header.get("Accept-Language", "en")] = answer["error"]
    assert answers == {
        "?lang=ja": "イベント0: オブジェクトではない",
        "ko-KR,ko;q=0.9": "이벤트 0: 객체가 아님",
        "en": "event 0: not an object",
    }
    r = await served.http.post(
        url + "?lang=ja", json={"console": "c1", "events": [bad]}, headers=served.auth("recorder")
    )
    answer = await r.json()
    assert r.status == 400 and answer["error"].startswith("イベント0: "), answer


async def test_a_second_console_is_read_only_until_the_first_hands_over(served: Served) -> None:
    s = opening("l1")
    assert (await publish(served, "l1", s.events[:1], console="A"))[0] == 200
    status, answer = await publish(served, "l1", s.events[1:2], console="B")
    assert status == 409 and answer["code"] == "read_only"
    state = json.loads((await get(served, "/console/l1/state?console=B"))[1])
    # held by another console of the same token: B may take it over, and is never told A's id
    assert state["lease"] == {"held": True, "mine": False, "take_over": True}
    r = await served.http.post(
        f"{served.url}/console/l1/lease",
        json={"console": "A", "action": "release"},
        headers=served.auth("recorder"),
    )
    assert (await r.json()) == {"held": False, "mine": False, "take_over": False}
    assert (await publish(served, "l1", s.events[1:2], console="B"))[0] == 200
    status, answer = await publish(served, "l1", s.events[2:3], console="A")
    assert status == 409 and answer["code"] == "read_only"
    assert len(await served.store.events("l1")) == 2


async def test_two_web_processes_see_one_writer(
    served: Served, redis_store: RedisStore, tmp_path: Path
) -> None:
    # the lease is in the store, not in a web process: a console behind a second process (a load
    # balancer's other backend, or the same service restarted) is read-only while the first writes, even a
    # judge's (which may write the match: it is the lease that stops it)
    other, server = await start_served(redis_store, tmp_path / "b")
    try:
        s = opening("two1")
        assert (await publish(served, "two1", s.events[:1], console="A"))[0] == 200
        status, answer = await publish(other, "two1", s.events[1:2], console="B", who="admin")
        assert status == 409 and answer["code"] == "read_only", answer
        assert json.loads((await get(other, "/console/two1/state?console=B", "admin"))[1])["lease"] == {
            "held": True,
            "mine": False,
            "take_over": True,
        }
    finally:
        await other.http.close()
        await server.close()


async def test_a_recorder_writes_its_own_matches_inside_its_scope(served: Served) -> None:
    s = opening("o1", league="L1")
    status, answer = await publish(served, "o1", s.events[:1], who="recorder_l2")
    assert status == 403 and answer["code"] == "out_of_scope"
    assert (await publish(served, "o1", s.events[:1]))[0] == 200
    status, answer = await publish(served, "o1", s.events[1:2], console="c1", who="recorder2")
    assert status == 403 and answer["code"] == "not_owner"
    r = await served.http.post(
        f"{served.url}/console/o1/lease",
        json={"console": "c1", "action": "release"},
        headers=served.auth("recorder"),
    )
    assert r.status == 200
    status, answer = await publish(served, "o1", s.events[1:2], console="c9", who="recorder2")
    assert status == 403 and answer["code"] == "not_owner"
    for who, want in ((None, 401), ("ingest", 403), ("organizer", 403), ("recorder_l2", 403)):
        assert (await get(served, "/console/o1/state", who))[0] == want, who
    # a scoped recorder starts the matches of its own namespace from the console (found while adding
    # table scopes: a match not stored yet had no scope, so every scoped recorder was refused) ...
    mine = opening("L2/o2", league="L2")
    status, answer = await publish(served, "L2/o2", mine.events[:2], console="c2", who="recorder_l2")
    assert status == 200, answer
    # ... and reaches no match id outside it, stored or not
    for path in ("/console/L1/o3/state", "/console/o1/state"):
        assert (await get(served, path, "recorder_l2"))[0] == 403, path
    r = await served.http.post(
        f"{served.url}/console/L1/o3/lease", json={"console": "c2"}, headers=served.auth("recorder_l2")
    )
    assert r.status == 403
    # the page itself sends a browser without a session to the login
    r = await served.http.get(f"{served.url}/console/o1", allow_redirects=False)
    assert r.status == 303 and r.headers["Location"].startswith("/login")


async def test_a_recorder_scoped_to_a_table_records_only_the_games_at_that_table(served: Served) -> None:
    # a table's recorder (--event Cup --table 12): its games, and their playoff games, not the next table's
    at12 = opening("Cup/r1-t12")
    at12.events[0]["context"] = {"league": "L1", "event": "Cup", "table": 12}
    status, answer = await publish(served, "Cup/r1-t12", at12.events, who="recorder_t12")
    assert status == 200, answer
    for table in (13, None):
        other = opening("Cup/r1-t13")
        context = {"league": "L1", "event": "Cup", **({} if table is None else {"table": table})}
        other.events[0]["context"] = context
        status, answer = await publish(served, "Cup/r1-t13", other.events[:1], who="recorder_t12")
        assert status == 403 and answer["code"] == "out_of_scope", answer
        assert "tables 12" in answer["error"], answer  # it says what the token may record
    assert await served.store.events("Cup/r1-t13") == []
    # the next table's game, started by another recorder, is not this one's to read either
    other = opening("Cup/r1-t13")
    other.events[0]["context"] = {"league": "L1", "event": "Cup", "table": 13}
    assert (await publish(served, "Cup/r1-t13", other.events[:1], who="recorder"))[0] == 200
    assert (await get(served, "/console/Cup/r1-t13/state", "recorder_t12"))[0] == 403
    assert (await get(served, "/console/Cup/r1-t12/state", "recorder_t12"))[0] == 200
    # a table scope is within an event (table numbers repeat from one event to the next)
    with pytest.raises(InputError, match="needs the event"):
        new_token("t12 alone", ["recorder"], tables=["12"])


async def test_hidden_marks_never_reach_a_public_read(served: Served) -> None:
    s = opening("h1")
    s.add(
        "note", text="prize cards of ash", author="console", player="ash", cards=["ZHID1Z"], hidden=["cards"]
    )
    s.turn("ash")
    s.events[-1].update(cards=["ZHID2Z"], hidden=["cards"])
    s.add("searched", player="ash", count=1, cards=["ZHID3Z"], hidden=["cards"])
    s.add(
        "moved", player="ash", count=1, cards=["ZHID4Z"], **{"from": "hand", "to": "deck"}, hidden=["cards"]
    )
    assert (await publish(served, "h1", s.events))[0] == 200
    secrets = [f"ZHID{i}Z" for i in range(1, 5)]
    reads = {}
    for path, who in (
        ("/matches/h1/record", None),
        ("/matches/h1/board", None),
        ("/overlay/h1/score", None),
        ("/overlay/h1", None),
        ("/matches/h1/events", "organizer"),
        ("/console/h1/state", "recorder"),
        ("/console/h1/export", "recorder2"),  # not the match's producer
        ("/console/h1/export?format=csv", "recorder2"),
    ):
        status, text = await get(served, path, who)
        assert status == 200, (path, status, text)
        reads[path] = text
    async with served.http.get(f"{served.url}/matches/h1/live", timeout=aiohttp.ClientTimeout(total=10)) as r:
        async for raw in r.content:
            if raw.startswith(b"data: "):
                reads["live"] = raw.decode()
                break
    for where, text in reads.items():
        for secret in secrets:
            assert secret not in text, (where, secret)
    # the producer's and a judge's event files hold them: the record the operator made
    for who in ("recorder", "admin"):  # admin: a judge with the recorder's role
        text = (await get(served, "/console/h1/export", who))[1]
        assert all(secret in text for secret in secrets), who
    # a move to a public zone cannot be marked hidden: the operator is told, nothing is written
    shown = {"match": "h1", "seq": 9, "type": "moved", "player": "ash", "from": "hand", "to": "discard"}
    status, answer = await publish(served, "h1", [{**shown, "cards": ["x"], "hidden": ["cards"]}])
    assert status == 400 and "public zone" in answer["error"]


async def test_a_draft_is_previewed_by_the_engine_and_never_stored(served: Served) -> None:
    s = opening("d1")
    assert (await publish(served, "d1", s.events))[0] == 200
    s.turn("ash")
    s.add("attack", player="ash", pid="a1", name="Thunder")
    s.add("damage", pid="m1", amount=60)
    r = await served.http.post(
        f"{served.url}/console/d1/preview", json={"events": s.events[3:]}, headers=served.auth("recorder")
    )
    view = await r.json()
    assert r.status == 200 and view["prompts"][0]["id"] == "attack_ended"
    assert view["board"]["players"]["misty"]["active"]["damage"] == 60
    assert [e["seq"] for e in view["log"]] == [1, 2, 3]  # the log is the archive's
    assert len(await served.store.events("d1")) == 3


async def test_the_broadcast_delay_holds_the_live_board_back(served: Served) -> None:
    async def first_board_after(match: str, delay: int) -> float:
        s = opening(match)
        s.events[0]["console"] = {"delay": delay}
        assert (await publish(served, match, s.events[:2]))[0] == 200
        async with served.http.get(
            f"{served.url}/matches/{match}/live", timeout=aiohttp.ClientTimeout(total=20)
        ) as r:
            seen: list[int] = []

            async def boards() -> None:
                async for raw in r.content:
                    if raw.startswith(b"data: "):
                        seen.append(json.loads(raw[6:])["seq"])
                        if seen[-1] == 3:
                            return

            task = asyncio.create_task(boards())
            await asyncio.sleep(0.3)
            start = time.monotonic()
            assert (await publish(served, match, s.events[2:3]))[0] == 200
            await asyncio.wait_for(task, 15)
            return time.monotonic() - start

    assert await first_board_after("bd0", 0) < 1.0
    assert await first_board_after("bd2", 2) >= 2.0


async def test_the_console_shows_the_delay_the_live_hub_applies(served: Served) -> None:
    """One reading of ``console.delay`` for both: a fractional delay is shown as the hub holds it, and one
    past the limit is shown as none, as the hub applies none."""
    for match, asked, shown in (("bd3", 1.5, 1.5), ("bd4", 601, 0.0), ("bd5", 7, 7.0)):
        s = opening(match)
        s.events[0]["console"] = {"delay": asked}
        assert (await publish(served, match, s.events[:2]))[0] == 200
        state = json.loads((await get(served, f"/console/{match}/state"))[1])
        assert state["delay"] == shown, match
        first = await served.store.event(match, 1)
        assert first is not None and broadcast_delay(msgpack.unpackb(first)) == shown


# ------------------------------------------------------------------------- the lease is a token's (#32.1)
async def lease_call(
    s: Served, match: str, who: str, console: str, action: str
) -> tuple[int, dict[str, Any]]:
    r = await s.http.post(
        f"{s.url}/console/{quote(match, safe='/:')}/lease",
        json={"console": console, "action": action},
        headers=s.auth(who),
    )
    return r.status, await r.json()


async def holder(s: Served, match: str) -> Holder | None:
    return Holder.decode(await s.store.lease(match, "", "peek", 1))


def token_id(s: Served, who: str) -> str:
    return s.tokens[who].split("_")[1]


async def test_a_table_scoped_recorder_takes_no_lease_outside_its_table(served: Served) -> None:
    """Before: a recorder scoped to table 12 took the lease of table 13's next game before it existed
    (the guard let it act on any id of its namespace not stored yet), and table 13's console and even an
    admin were read-only then."""
    for action in ("take", "take_over", "renew"):
        status, answer = await lease_call(served, "Cup/r1-t13", "recorder_t12", "t12", action)
        assert status == 403 and answer["code"] == "out_of_scope", (action, answer)
        assert "tables 12" in answer["error"]
    assert await holder(served, "Cup/r1-t13") is None  # nothing changed
    # its first publish shows its table (the match_started): it takes the lease of its own game then
    at12 = opening("Cup/r1-t12")
    at12.events[0]["context"] = {"league": "L1", "event": "Cup", "table": 12}
    status, answer = await publish(served, "Cup/r1-t12", at12.events[:1], console="t12", who="recorder_t12")
    assert status == 200 and answer["lease"]["mine"], answer
    assert await holder(served, "Cup/r1-t12") == Holder(token_id(served, "recorder_t12"), "t12")
    # the other table's game, started by the table's own recorder, is refused whole: no lease either
    at13 = opening("Cup/r1-t13")
    at13.events[0]["context"] = {"league": "L1", "event": "Cup", "table": 13}
    status, answer = await publish(served, "Cup/r1-t13", at13.events[:1], console="t12", who="recorder_t12")
    assert status == 403 and answer["code"] == "out_of_scope"
    assert await holder(served, "Cup/r1-t13") is None
    assert (await publish(served, "Cup/r1-t13", at13.events[:1], console="t13"))[0] == 200


async def test_a_read_never_renews_a_lease_and_never_shows_the_holder(
    served: Served, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("streams.http.lease.LEASE_SECONDS", 0.6)
    secret = "console-id-ZQX9"
    status, answer = await lease_call(served, "rd1", "recorder", secret, "take")
    assert status == 200 and answer == {"held": True, "mine": True, "take_over": False}
    deadline = time.monotonic() + 1.5
    while time.monotonic() < deadline:  # the holder's own poll, and another token's: neither renews it
        for who, console in (("recorder", secret), ("recorder2", "other")):
            status, text = await get(served, f"/console/rd1/state?console={console}", who)
            assert status == 200 and secret not in text and token_id(served, "recorder") not in text
        await asyncio.sleep(0.1)
    assert await holder(served, "rd1") is None  # lapsed: reads kept nothing alive
    # a renewal is a write: POST /lease renew gives the lease its whole length again. Read from the
    # lease's own expiry in Redis, not from a race against a short lease: a loaded machine's slow
    # round trip must not decide this test (it did, with renewals every 0.2 s of a 0.6 s lease).
    ttl = served.store.client.pttl
    key = served.store.key("rd1", keys.LEASE)
    monkeypatch.setattr("streams.http.lease.LEASE_SECONDS", 60.0)
    assert (await lease_call(served, "rd1", "recorder", secret, "take"))[1]["mine"]
    assert 0 < await ttl(key) <= 60_000
    monkeypatch.setattr("streams.http.lease.LEASE_SECONDS", 600.0)
    assert (await lease_call(served, "rd1", "recorder", secret, "renew"))[1]["mine"]
    assert await ttl(key) > 60_000  # renewed: a new expiry, from the renewal
    for _ in range(2):  # the holder's reads still renew nothing
        assert (await get(served, f"/console/rd1/state?console={secret}", "recorder"))[0] == 200
    assert await ttl(key) <= 600_000
    monkeypatch.setattr("streams.http.lease.LEASE_SECONDS", 0.6)
    assert (await lease_call(served, "rd1", "recorder", "someone-else", "renew"))[1]["mine"] is False
    assert await ttl(key) > 60_000  # another console's renewal changes nothing
    assert await holder(served, "rd1") == Holder(token_id(served, "recorder"), secret)


async def test_only_the_holders_token_or_a_judge_acts_on_a_lease(served: Served) -> None:
    # a match not stored yet, which both unscoped recorders may create: the lease is the first one's
    assert (await lease_call(served, "lt1", "recorder", "A", "take"))[1]["mine"]
    mine = Holder(token_id(served, "recorder"), "A")
    # another token's console, knowing (or guessing) the id "A", renews, frees and takes nothing
    assert await lease_call(served, "lt1", "recorder2", "A", "take") == (
        200,
        {"held": True, "mine": False, "take_over": False},
    )
    assert (await lease_call(served, "lt1", "recorder2", "A", "renew"))[1]["mine"] is False
    for action in ("release", "take_over"):
        status, answer = await lease_call(served, "lt1", "recorder2", "A", action)
        assert status == 403 and answer["code"] == "not_lease_holder", answer
    assert await holder(served, "lt1") == mine
    s = opening("lt1")
    status, answer = await publish(served, "lt1", s.events[:1], console="A", who="recorder2")
    assert status == 409 and answer["code"] == "read_only"
    # the same token's other console may take it over (a crashed laptop's replacement)
    assert (await lease_call(served, "lt1", "recorder", "B", "take_over"))[1]["mine"]
    assert (await publish(served, "lt1", s.events[:2], console="B"))[0] == 200
    # once stored, another producer's token may not touch its lease at all: writing it is refused
    status, answer = await lease_call(served, "lt1", "recorder2", "B", "take")
    assert status == 403 and answer["code"] == "not_owner"
    # a judge (admin) takes over, and the audit log names whose lease it took
    status, answer = await lease_call(served, "lt1", "admin", "J", "take_over")
    assert status == 200 and answer["mine"]
    assert await holder(served, "lt1") == Holder(token_id(served, "admin"), "J")
    (entry,) = [
        e
        for e in await served.audit()
        if "take_over" in e.detail and e.actor.startswith(token_id(served, "admin"))
    ]
    assert f"token {token_id(served, 'recorder')}, console B" in entry.detail and entry.action == "write"
    status, answer = await publish(served, "lt1", s.events[2:3], console="B")
    assert status == 409 and answer["code"] == "read_only"
    assert (await lease_call(served, "lt1", "admin", "J", "release"))[1]["held"] is False


async def test_an_empty_or_refused_publish_takes_no_lease(served: Served) -> None:
    status, answer = await publish(served, "ep1", [], console="A")
    assert status == 200 and answer["lease"] == {"held": False, "mine": False, "take_over": False}
    assert await holder(served, "ep1") is None
    s = opening("ep1")
    assert (await publish(served, "ep1", s.events[:1], console="A"))[0] == 200
    assert (await lease_call(served, "ep1", "recorder", "A", "release"))[0] == 200
    status, answer = await publish(served, "ep1", s.events[1:2], console="X", who="recorder2")
    assert status == 403 and answer["code"] == "not_owner"
    assert await holder(served, "ep1") is None  # before: the refused publish took the free lease first


async def test_bad_lease_requests_are_one_clear_error_and_change_nothing(served: Served) -> None:
    assert (await lease_call(served, "bl1", "recorder", "A", "take"))[1]["mine"]
    for body, field in (
        ({"console": "A", "action": "seize"}, "action"),
        ({"console": "A", "action": ["take"]}, "action"),
        ({"action": "release"}, "console"),
        ({"console": "", "action": "release"}, "console"),
        ({"console": "é" * 3, "action": "release"}, "console"),
        ({"console": "A" * 65, "action": "release"}, "console"),
        ([1], "object"),
    ):
        r = await served.http.post(
            f"{served.url}/console/bl1/lease", json=body, headers=served.auth("recorder")
        )
        answer = await r.json()
        assert r.status == 400 and answer["code"] == "bad_body" and field in answer["error"], (body, answer)
    r = await served.http.post(f"{served.url}/console/bl1/lease", data=b"{", headers=served.auth("recorder"))
    assert r.status == 400 and (await r.json())["code"] == "bad_body"
    assert await holder(served, "bl1") == Holder(token_id(served, "recorder"), "A")


# ------------------------------------------------------------------------- deck lists are hidden (#32.6)
async def test_a_matchs_deck_lists_reach_only_a_judge_and_its_producer(served: Served) -> None:
    """Before: ``/console/{m}/cards`` gave any recorder in scope a match's deck cards (typed into its
    match_started by its own console)."""
    s = opening("dk1")
    s.events[0]["console"] = {"decks": {"ash": "4 Zqxwv Secretmon SVI 57\n2 Qwzx Tech Card PAL 1"}}
    assert (await publish(served, "dk1", s.events[:1]))[0] == 200
    for who, shown in (("recorder", True), ("admin", True), ("recorder2", False)):
        for q in ("zq", "secret", "qwzx", "tech"):
            status, text = await get(served, f"/console/dk1/cards?q={q}", who)
            assert status == 200, (who, text)
            names = [c["name"] for c in json.loads(text)["cards"]]
            leaked = {"Zqxwv Secretmon", "Qwzx Tech Card"} & set(names)
            assert bool(leaked) == shown, (who, q, names)
            assert shown or ("Zqxwv" not in text and "Qwzx" not in text), (who, q)
    # a judge's read of them is a read of hidden information: audited (the producer's own is not)
    hidden = [e for e in await served.audit() if e.action == "read_hidden" and "deck lists" in e.detail]
    assert hidden and {e.actor.split(" ")[0] for e in hidden} == {token_id(served, "admin")}


async def test_the_deck_lists_cards_for_the_picks_from_the_archive_or_the_draft(served: Served) -> None:
    # issue 33 item 4: the console's picks (no typing) come from the deck lists: with no ``q``, GET /cards
    # gives the archive's deck cards, each naming whose list holds it, with the catalogue's attacks and
    # their printed damage; while the start is still a draft, the preview gives them from the draft
    s = opening("dk2")
    decks = {"ash": "4 Pikachu ex SVI 57\n4 Nest Ball SVI 181", "misty": "4 Nest Ball SVI 181"}
    s.events[0]["console"] = {"decks": decks}
    r = await served.http.post(
        f"{served.url}/console/dk2/preview", json={"events": s.events[:1]}, headers=served.auth("recorder")
    )
    assert r.status == 200, await r.text()
    drafted = {c["name"]: c for c in (await r.json())["deck"]}
    assert drafted["Nest Ball"]["decks"] == ["ash", "misty"] and drafted["Nest Ball"]["kind"] == "Item"
    pikachu = drafted["Pikachu ex"]
    assert (pikachu["attacks"], pikachu["damage"]) == (["Pika Punch", "Dynamic Bolt"], ["30", "220"])
    assert pikachu["decks"] == ["ash"] and pikachu["hp"] == 190 and pikachu["stage"] == "Basic"
    assert (await publish(served, "dk2", s.events[:1]))[0] == 200
    status, text = await get(served, "/console/dk2/cards", "recorder")
    assert status == 200 and {c["name"]: c for c in json.loads(text)["cards"]} == drafted
    status, text = await get(served, "/console/dk2/cards", "recorder2")  # not its producer: none
    assert status == 200 and json.loads(text)["cards"] == []
    r = await served.http.post(  # the archive holds the start: a preview carries no deck
        f"{served.url}/console/dk2/preview", json={"events": s.events[1:2]}, headers=served.auth("recorder")
    )
    assert r.status == 200 and "deck" not in await r.json()


async def test_the_openapi_document_describes_the_lease_as_it_is(served: Served) -> None:
    r = await served.http.get(f"{served.url}/openapi.json")
    op = (await r.json())["paths"]["/console/{match}/lease"]["post"]
    body = op["requestBody"]["content"]["application/json"]["schema"]
    assert body["properties"]["action"]["enum"] == ["take", "renew", "release", "take_over"]
    answer = op["responses"]["200"]["content"]["application/json"]["schema"]
    assert answer["required"] == ["held", "mine", "take_over"]  # never who holds it
    assert "not_lease_holder" in op["responses"]["403"]["description"]


# ------------------------------------------------------- card names in Japanese and Korean (#34.4)
async def test_the_card_search_reads_kana_kanji_hangul_and_half_width(served: Served) -> None:
    found: dict[str, list[dict[str, object]]] = {}
    for q in ("ぴかちゅう", "ピカチュウ", "ﾋﾟｶﾁｭｳ", "피카츄", "研究", "pika"):
        status, text = await get(served, f"/console/cj1/cards?q={q}")
        assert status == 200, (q, text)
        found[q] = json.loads(text)["cards"]
    for q in ("ぴかちゅう", "ピカチュウ", "ﾋﾟｶﾁｭｳ"):
        pikachu = next(c for c in found[q] if c["name"] == "ピカチュウ")
        assert pikachu["lang"] == "ja" and pikachu["hp"] and pikachu["key"] == "ぴかちゅう", q
        assert pikachu["names"]["en"] == "Pikachu" and pikachu["names"]["ko"] == "피카츄"
    hangul = next(c for c in found["피카츄"] if c["name"] == "피카츄")
    assert hangul["lang"] == "ko" and hangul["category"] == "pokemon"
    assert hangul["names"]["ja"] == "ピカチュウ"
    assert found["研究"][0]["name"].startswith("博士の研究") and found["研究"][0]["kind"] == "Supporter"
    assert found["pika"][0]["name"] == "Pikachu" and found["pika"][0]["lang"] == "en"  # English first
    charizard = json.loads((await get(served, "/console/cj1/cards?q=リザードンex"))[1])["cards"][0]
    assert charizard["name"] == "リザードンex" and charizard["hp"] == 330 and charizard["rule"] == "ex"
    assert charizard["attacks"] and all(a for a in charizard["attacks"])


async def test_the_card_search_finds_trainers_and_energy_by_their_japanese_and_korean_names(
    served: Served,
) -> None:
    """A Trainer typed in katakana, hiragana or hangul, and a basic Energy in kanji, is offered as the
    English card it is (issue 34 item 4: Japanese Trainer and Energy printings link to their cards)."""

    async def first(q: str) -> dict[str, Any]:
        status, text = await get(served, f"/console/cj2/cards?q={q}")
        assert status == 200, (q, text)
        cards: list[dict[str, Any]] = json.loads(text)["cards"]
        return next(c for c in cards if c["name"] == q or c.get("key") == q)

    for typed, shown in (
        ("ボスの指令", "ボスの指令"),
        ("ハイパーボール", "ハイパーボール"),
        ("はいぱーぼーる", "ハイパーボール"),
    ):
        card = await first(typed)
        assert card["name"] == shown and card["lang"] == "ja" and card["category"] == "trainer", typed
    boss = await first("ボスの指令")
    assert boss["names"]["en"] == "Boss's Orders" and boss["kind"] == "Supporter"
    assert (await first("ハイパーボール"))["names"]["en"] == "Ultra Ball"
    iono = await first("모야모")
    assert iono["lang"] == "ko" and iono["names"]["en"] == "Iono" and iono["names"]["ja"] == "ナンジャモ"
    energy = await first("基本悪エネルギー")
    assert energy["category"] == "energy" and energy["names"]["en"] == "Darkness Energy"
    assert energy["names"]["ko"] == "기본 악 에너지"


async def test_card_names_follow_the_pages_language(served: Served) -> None:
    """?lang=ja|ko: the console's board and log, the review page's board and log, and the overlay show
    the catalogue's names in that language (issue 34 item 4); an unknown language is a clear 400."""
    s = Stream("jl1", source=MANUAL, context={"league": "L1", "event": "Cup"})
    s.setup("ash", ("a1", card("Charizard ex", 330, "ex")), ("a2", card("Pikachu", 60)))
    s.setup("misty", ("m1", card("Psyduck", 70)))
    assert (await publish(served, "jl1", s.events))[0] == 200

    async def answer(path: str, who: str) -> dict[str, Any]:
        status, text = await get(served, path, who)
        assert status == 200, (path, text)
        out: dict[str, Any] = json.loads(text)
        return out

    state = await answer("/console/jl1/state?lang=ja", "recorder")
    assert state["names"]["Charizard ex"] == "リザードンex (Charizard ex)"
    assert any("リザードンex (Charizard ex)" in line["text"] for line in state["log"])
    assert state["board"]["players"]["ash"]["active"]["name"] == "Charizard ex"  # the events are unchanged
    assert "names" in (en := await answer("/console/jl1/state", "recorder")) and en["names"] == {}
    meta = await answer("/review/jl1/meta?lang=ko", "judge")
    assert meta["lang"] == "ko" and meta["names"]["Pikachu"] == "피카츄 (Pikachu)"
    assert any("리자몽 ex (Charizard ex)" in line["text"] for line in meta["log"])
    score = await answer("/overlay/jl1/score?lang=ja", None)  # spectators read the name alone
    assert score["names"]["Charizard ex"] == "リザードンex" and score["names"]["Pikachu"] == "ピカチュウ"
    assert (await answer("/overlay/jl1/score", None))["names"] == {}
    status, text = await get(served, "/review/jl1/meta?lang=fr", "judge")
    assert status == 400 and "lang must be one of en, ja, ko" in text


async def test_the_console_offers_the_penalties_of_the_games_ruleset(served: Served) -> None:
    # issue 34: a jp-3.4 game's penalty form offers a prize penalty of the judge's count (1 and 3 first);
    # a play-2026 game's, the Double and Quadruple Prize Card
    for match, ruleset, prize in (
        ("jp1", "jp-3.4", ["prize_penalty"]),
        ("pp1", "play-2026", ["double_prize", "quad_prize"]),
    ):
        s = opening(match, ruleset=ruleset)
        assert (await publish(served, match, s.events))[0] == 200
        r = await served.http.post(
            f"{served.url}/console/{match}/preview", json={"events": []}, headers=served.auth("recorder")
        )
        view = await r.json()
        assert r.status == 200, view
        assert [k for k in view["penalties"] if k.endswith("prize") or k == "prize_penalty"] == prize
        assert "double_loss" in view["penalties"]
        assert view["prize_counts"] == ([1, 3] if ruleset == "jp-3.4" else [2, 4])
    s = opening("jp1", ruleset="jp-3.4")
    s.turn("ash")
    s.add("penalty", player="misty", kind="prize_penalty", prizes=3)
    status, body = await publish(served, "jp1", s.events[3:])
    assert status == 200, body
    r = await served.http.post(
        f"{served.url}/console/jp1/preview", json={"events": []}, headers=served.auth("recorder")
    )
    view = await r.json()
    assert "Penalty for misty: prize penalty of 3 prizes" in [line["text"] for line in view["log"]]


# ------------------------------------------------------------------------- the match clock (#37 item 2)
async def clock_call(s: Served, match: str, who: str | None, body: Any) -> tuple[int, dict[str, Any]]:
    url = f"{s.url}/console/{quote(match, safe='/:')}/clock"
    r = await s.http.post(url, json=body, headers=s.auth(who))
    return r.status, await r.json()


async def test_the_match_clock_is_set_as_a_write_of_the_match(served: Served) -> None:
    s = opening("ck1", league="L1")
    assert (await publish(served, "ck1", s.events[:1]))[0] == 200
    # a recorder whose scope does not hold the match: refused, audited, nothing set
    status, answer = await clock_call(served, "ck1", "recorder_l2", {"console": "c2", "action": "start"})
    assert status == 403 and answer["code"] == "out_of_scope", answer
    assert (await clock_call(served, "ck1", None, {"console": "c2", "action": "start"}))[0] == 401
    assert (await clock_call(served, "ck1", "ingest", {"console": "c2", "action": "start"}))[0] == 403
    assert await served.store.on_air(clock_key("ck1")) is None
    assert json.loads((await get(served, "/overlay/ck1/clock", None))[1]) == {"match": "ck1", "clock": None}
    refused = [e.detail for e in await served.audit() if e.detail.startswith("403 ")]
    assert any("ck1" in d for d in refused), refused
    # a bad action or length: 400 naming the field, nothing set
    for body, field in (
        ({"console": "c1", "action": "launch"}, "action"),
        ({"console": "c1"}, "action"),
        ({"console": "c1", "action": "start", "minutes": 0}, "minutes"),
        ({"console": "c1", "action": "start", "minutes": 181}, "minutes"),
        ({"console": "c1", "action": "start", "minutes": "30"}, "minutes"),
        ({"console": "c1", "action": "start", "minutes": True}, "minutes"),
    ):
        status, answer = await clock_call(served, "ck1", "recorder", body)
        assert status == 400 and answer["error"].startswith(field + ":"), (body, answer)
    assert await served.store.on_air(clock_key("ck1")) is None
    # the match's own recorder starts it (30 minutes), pauses it; each an audited write
    status, answer = await clock_call(
        served, "ck1", "recorder", {"console": "c1", "action": "start", "minutes": 30}
    )
    assert status == 200 and answer["clock"]["running"] is True and answer["clock"]["limit"] == 1800
    paused = (await clock_call(served, "ck1", "recorder", {"console": "c1", "action": "pause"}))[1]["clock"]
    assert paused["running"] is False and 1790 < paused["left"] <= 1800
    public = json.loads((await get(served, "/overlay/ck1/clock", None))[1])["clock"]
    assert public == paused
    state = json.loads((await get(served, "/console/ck1/state"))[1])
    assert state["clock"] == paused  # the operator sees it too
    details = [e.detail for e in await served.audit() if "clock" in e.detail and e.action == "write"]
    assert details == ["200 console c1: clock start (30 min) of ck1", "200 console c1: clock pause of ck1"]
    # time called at the table: the console's time_called stops the clock at 0
    status, answer = await publish(
        served, "ck1", [*s.events[1:], {"match": "ck1", "seq": len(s.events) + 1, "type": "time_called"}]
    )
    assert status == 200, answer
    assert answer["clock"] == {"left": 0.0, "limit": 1800.0, "running": False, "called": True}
    assert json.loads((await get(served, "/overlay/ck1/clock", None))[1])["clock"] == answer["clock"]
    reset = (await clock_call(served, "ck1", "recorder", {"console": "c1", "action": "reset"}))[1]["clock"]
    assert reset == {"left": 1800.0, "limit": 1800.0, "running": False, "called": False}
