"""Deck lists over HTTP (streams/http/decks.py): judges register and read them, nobody else does, every
read is audited, and a malformed list is refused whole, naming its line."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from streams.store import RedisStore
from tests.builder import Stream, card
from tests.paths import ROOT
from tests.streams.http.served import Served, start_served

DATA = ROOT / "tests" / "data" / "decks"


@pytest.fixture
async def served(redis_store: RedisStore, tmp_path: Path) -> AsyncIterator[Served]:
    s, server = await start_served(
        redis_store, tmp_path, extra_tokens=[("judge_cup", ["judge"], {"events": ["Cup"]})]
    )
    try:
        yield s
    finally:
        await s.http.close()
        await server.close()


async def test_a_judge_registers_lists_in_every_format_and_reads_them_back(served: Served) -> None:
    judge = served.auth("judge")
    for player, name, media in (
        ("ash", "lightning.txt", "text/plain"),
        ("misty", "lightning.json", "application/json"),
        ("brock", "lightning.csv", "text/csv"),
    ):
        body = (DATA / name).read_bytes()
        async with served.http.put(
            f"{served.url}/decks/Cup/{player}", data=body, headers={**judge, "Content-Type": media}
        ) as r:
            assert r.status == 200, await r.text()
            assert (await r.json())["player"] == player
    url = f"{served.url}/decks/Cup/ash?match=cup/r3/t1/g1&format=ptcgl"
    async with served.http.put(url, data=b"4 Iono PAL 185\n", headers=judge) as r:
        assert r.status == 200
    async with served.http.get(f"{served.url}/decks/Cup", headers=judge) as r:
        assert r.status == 200
        decks = (await r.json())["decks"]
    assert [(d["player"], d.get("match"), d["format"], d["total"]) for d in decks] == [
        ("ash", None, "ptcgl", 60),
        ("ash", "cup/r3/t1/g1", "ptcgl", 4),
        ("brock", None, "csv", 20),
        ("misty", None, "limitless", 25),
    ]
    assert any(c["name"] == "Poké Pad" for c in decks[0]["cards"])
    entries = await served.audit()
    assert any(e.action == "read_hidden" and "/decks/Cup" in e.target for e in entries)
    assert sum(e.action == "write" and "/decks/Cup/" in e.target for e in entries) == 4


@pytest.mark.parametrize(("who", "status"), [(None, 401), ("ingest", 403), ("organizer", 403)])
async def test_nobody_but_a_judge_reads_or_writes_a_list(
    served: Served, who: str | None, status: int
) -> None:
    async with served.http.get(f"{served.url}/decks/Cup", headers=served.auth(who)) as r:
        assert r.status == status
    body = (DATA / "lightning.txt").read_bytes()
    async with served.http.put(f"{served.url}/decks/Cup/ash", data=body, headers=served.auth(who)) as r:
        assert r.status == status
    assert await served.store.decks("Cup") == {}


async def test_a_token_scoped_to_events_reaches_its_own_events_only(served: Served) -> None:
    scoped = served.auth("judge_cup")
    async with served.http.get(f"{served.url}/decks/Cup", headers=scoped) as r:
        assert r.status == 200
    async with served.http.get(f"{served.url}/decks/Other", headers=scoped) as r:
        assert r.status == 403 and (await r.json())["code"] == "out_of_scope"
    async with served.http.get(f"{served.url}/decks/Cup", headers=served.auth("judge_l1")) as r:
        assert r.status == 403  # scoped to a league: it cannot tell whether an event is its own


async def test_a_malformed_list_is_refused_whole_naming_its_line(served: Served) -> None:
    body = "Pokémon: 4\n4 Pikachu ex SVI 57\nTrainer: 2\n2 Iono PAL 185\nfour Arven SVI 166\n".encode()
    async with served.http.put(f"{served.url}/decks/Cup/ash", data=body, headers=served.auth("judge")) as r:
        assert r.status == 400
        answer = await r.json()
    assert answer["code"] == "bad_deck"
    assert answer["error"].startswith("body:5: not a card line")
    assert await served.store.decks("Cup") == {}


async def test_a_judge_reads_each_lists_breaches_of_the_deck_rules(served: Served) -> None:
    judge = served.auth("judge")
    body = (DATA / "lightning.txt").read_bytes()
    async with served.http.put(f"{served.url}/decks/Cup/ash", data=body, headers=judge) as r:
        assert r.status == 200
    async with served.http.get(f"{served.url}/decks/Cup?play=standard&date=2026-04-01", headers=judge) as r:
        answer = await r.json()
    (deck,) = answer["decks"]
    assert answer["legality_source"]["repository"] == "https://github.com/tcgdex/cards-database"
    assert [(f["code"], f["card"], f["line"], f["rule"]) for f in deck["legality"]] == [
        ("regulation_mark", "Radiant Greninja", 5, "rules.md §8.2")
    ]
    async with served.http.get(f"{served.url}/decks/Cup?play=standard&date=April", headers=judge) as r:
        assert r.status == 400
    async with served.http.get(f"{served.url}/decks/Cup?play=modern", headers=judge) as r:
        assert r.status == 400


async def test_a_judge_reads_a_matchs_deck_check_linked_to_the_review_page(served: Served) -> None:
    s = Stream("cup/r1/t1/g1", context={"league": "L1", "event": "Cup"})
    s.setup("ash", ("a1", card("Pikachu ex", 200, "ex")))
    s.setup("misty", ("m1", card("Staryu", 60)))
    s.turn("ash")
    seq = s.add("played", player="ash", pid="a2", card={"name": "Charmander"})["seq"]
    assert (await served.post(s.events)).status == 200
    judge = served.auth("judge")
    url = f"{served.url}/matches/cup/r1/t1/g1/deck-check"
    async with served.http.get(url, headers=judge) as r:
        assert r.status == 200
        assert (await r.json())["checks"] == []  # no list registered yet
    body = (DATA / "lightning.txt").read_bytes()
    async with served.http.put(f"{served.url}/decks/Cup/ash", data=body, headers=judge) as r:
        assert r.status == 200
    async with served.http.get(url, headers=judge) as r:
        answer = await r.json()
    (check,) = answer["checks"]
    assert (answer["event"], answer["lists"]) == ("Cup", ["ash"])
    assert (check["seq"], check["card"], check["code"]) == (seq, "Charmander", "not_on_list")
    assert check["link"] == f"/review/cup/r1/t1/g1#seq={seq}"
    assert check["text"] == check["message"] == "ash put Charmander into play; it is not on their deck list"
    # the sentence in the page's language beside the English, the card named in it (docs/web.md)
    for lang, said in (
        ("ja", "ash は ヒトカゲ を場に出した; デッキリストにないカード"),
        ("ko", "ash이(가) 파이리을(를) 냈음; 덱 리스트에 없는 카드"),
    ):
        async with served.http.get(f"{url}?lang={lang}", headers=judge) as r:
            (shown,) = (await r.json())["checks"]
        assert shown["message"] == check["message"] and shown["text"] == said, shown
    for who in (None, "organizer", "ingest"):  # never the public's, nor the opponent's
        async with served.http.get(url, headers=served.auth(who)) as r:
            assert r.status in (401, 403)
    entries = await served.audit()
    assert any(e.action == "read_hidden" and "deck-check" in e.target for e in entries)
