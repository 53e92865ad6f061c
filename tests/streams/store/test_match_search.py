"""The match list's index (issue 36 item 6): search any part of a match id, player, event, round or table,
folded for Japanese and Korean too; the league and season pick lists; a cursor; entries indexed before.

The contract tests run on memory, a Redis server and a Redis Cluster (``any_store``)."""

from __future__ import annotations

import json

import pytest

from streams.store import IndexEntry, RedisStore, Store
from streams.store.base import (
    SEARCH_MAX,
    TopFinding,
    decode_cursor,
    encode_cursor,
    fold_text,
    order_page,
    top_finding,
)
from streams.store.checkpoint import _dumps, index_digest

CUP = IndexEntry(
    "cup/r3-t12",
    5,
    "finished",
    "JP",
    "2026",
    ("Ｓａｔｏｓｈｉ", "カスミ"),
    {"seq_gap": 1, "turn_order": 1},
    {"warning": 1, "violation": 1},
    event="チャンピオンズリーグ 横浜",
    round="3",
    table="12",
    date="2026-03-14",
    top=TopFinding("violation", "turn_order", 4, "the second player attacked on the first turn"),
)
SEOUL = IndexEntry(
    "kr/r1-t7",
    3,
    "in_progress",
    "KR",
    "2026",
    ("지우", "STRAẞE"),
    event="서울 리그",
    round="1",
    table="7",
)
OLD = IndexEntry("m3", 2, "finished", "EU", "2025", ("Misty", "Brock"), {"seq_gap": 2})


def names(page: object) -> list[str]:
    return [e.match for e in page.entries]  # type: ignore[attr-defined]


async def test_search_finds_a_part_of_a_player_match_event_round_or_table(any_store: Store) -> None:
    for entry in (CUP, SEOUL, OLD):
        assert await any_store.index(entry)

    async def found(search: str, **filters: str) -> list[str]:
        page = await any_store.index_page(search=search, limit=50, **filters)
        assert page.total == len(page.entries) and not page.too_broad
        return names(page)

    assert await found("satoshi") == ["cup/r3-t12"]  # full-width Latin, typed in ASCII
    assert await found("ＳＡＴＯ") == ["cup/r3-t12"]  # and the other way round
    assert await found("ｶｽﾐ") == ["cup/r3-t12"]  # half-width katakana
    assert await found("横浜") == ["cup/r3-t12"]  # a part of the event
    assert await found("서울") == ["kr/r1-t7"]
    assert await found("지우") == ["kr/r1-t7"]
    assert await found("strasse") == ["kr/r1-t7"]  # ẞ case folds to ss
    assert await found("R3-T12") == ["cup/r3-t12"]  # a part of the match id
    assert await found("ist") == ["m3"]  # inside a name, not only its start
    assert await found("12") == ["cup/r3-t12"]
    assert await found("3") == ["cup/r3-t12", "m3"]  # round 3, and m3's id
    assert await found("3", league="EU") == ["m3"]
    assert await found("7", status="in_progress") == ["kr/r1-t7"]
    assert await found("  misty  ") == ["m3"]
    assert await found("カスミ satoshi") == []  # never across two fields
    assert await found("zed") == []
    with pytest.raises(ValueError, match="at most 128"):
        await any_store.index_page(search="x" * (SEARCH_MAX + 1))

    # the new fields come back as written, and as JSON
    assert await any_store.index_entry("cup/r3-t12") == CUP
    assert await any_store.index_entry("m3") == OLD
    shown = CUP.as_json()
    assert (shown["event"], shown["round"], shown["table"], shown["date"]) == (
        "チャンピオンズリーグ 横浜",
        "3",
        "12",
        "2026-03-14",
    )
    assert shown["top_finding"] == {
        "severity": "violation",
        "code": "turn_order",
        "seq": 4,
        "message": "the second player attacked on the first turn",
    }
    assert OLD.as_json()["top_finding"] is None

    # a match that moves on is found by what it is now
    moved = IndexEntry("m3", 9, "finished", "EU", "2025", ("Gary", "Brock"), {}, table="40")
    assert await any_store.index(moved)
    assert await found("misty") == []
    assert await found("gary") == await found("40") == ["m3"]
    assert await any_store.unindex("m3")
    assert await found("gary") == []


async def test_pick_lists_offer_the_leagues_and_seasons_matches_have(any_store: Store) -> None:
    for entry in (CUP, SEOUL, OLD):
        assert await any_store.index(entry)
    assert await any_store.index_names("league") == ["EU", "JP", "KR"]
    assert await any_store.index_names("season") == ["2025", "2026"]
    # a reader scoped to some leagues: their leagues and their seasons only
    assert await any_store.index_names("league", leagues=["JP", "nope"]) == ["JP"]
    assert await any_store.index_names("season", leagues=["EU"]) == ["2025"]
    assert await any_store.index_names("season", leagues=[]) == []
    # a league no match has any more leaves the list
    assert await any_store.index(IndexEntry("m3", 3, "finished", "EU2", None, ("Misty",), {}))
    assert await any_store.index_names("league") == ["EU2", "JP", "KR"]
    assert await any_store.index_names("season") == ["2026"]
    assert await any_store.unindex("kr/r1-t7")
    assert await any_store.index_names("league") == ["EU2", "JP"]


async def test_a_cursor_walks_every_order_and_survives_a_change_between_pages(any_store: Store) -> None:
    entries = [
        IndexEntry(f"c{i:03d}", i, "finished", f"L{i % 2}", "2026", (f"p{i % 5}",), {}, {"warning": i % 4})
        for i in range(60)
    ]
    for entry in entries:
        assert await any_store.index(entry)
    ranks = {e.match: e.rank for e in entries}
    every = [e.match for e in entries]
    for sort in ("match", "-match", "findings", "-findings"):
        for search, league in ((None, None), ("p3", None), ("p1", "L1")):
            want = order_page(
                [
                    e.match
                    for e in entries
                    if (search is None or search in e.players) and league in (None, e.league)
                ],
                ranks,
                sort,
                0,
                len(every),
            )
            walked: list[str] = []
            cursor = None
            for _ in range(100):
                page = await any_store.index_page(
                    search=search, league=league, sort=sort, limit=7, cursor=cursor
                )
                assert page.total == len(want)
                walked += names(page)
                cursor = page.next
                if cursor is None:
                    break
            assert walked == want, (sort, search, league)
            # offset counts rows after the cursor
            first = await any_store.index_page(search=search, league=league, sort=sort, limit=3)
            if first.next is not None:
                page = await any_store.index_page(
                    search=search, league=league, sort=sort, limit=2, offset=2, cursor=first.next
                )
                assert names(page) == want[5:7]

    # the cursor's match leaves, or moves, between two pages: the walk goes on where it was
    page = await any_store.index_page(sort="-findings", limit=10)
    last = page.entries[-1]
    assert await any_store.unindex(last.match)
    rest = await any_store.index_page(sort="-findings", limit=5, cursor=page.next)
    want = order_page([m for m in every if m != last.match], ranks, "-findings", 0, 60)
    assert names(rest) == want[9:14]
    page = await any_store.index_page(sort="findings", limit=10)
    mover = page.entries[-1]
    assert await any_store.index(
        IndexEntry(mover.match, 99, "finished", mover.league, "2026", (), {}, {"warning": 9})
    )
    rest = await any_store.index_page(sort="findings", limit=3, cursor=page.next)
    by_findings = order_page([m for m in every if m != last.match], ranks, "findings", 0, 60)
    assert names(page) == by_findings[:10]
    assert names(rest) == by_findings[10:13]

    with pytest.raises(ValueError, match="sort=match, not sort=findings"):
        await any_store.index_page(sort="findings", cursor=encode_cursor("match", 0, "c001"))
    with pytest.raises(ValueError, match="not one this service gave"):
        await any_store.index_page(cursor="bm9wZQ")


def test_top_finding_is_the_most_severe_then_the_earliest() -> None:
    findings = [
        {"code": "a", "severity": "info", "seq": 1, "message": "i", "detail": "secret"},
        {"code": "b", "severity": "warning", "seq": 9, "message": "w9"},
        {"code": "c", "severity": "warning", "seq": 3, "message": "w3", "detail": "secret"},
        {"code": "d", "severity": "warning", "seq": None, "message": "w?"},
    ]
    assert top_finding(findings) == TopFinding("warning", "c", 3, "w3")  # no detail: public text only
    assert top_finding([*findings, {"code": "v", "severity": "violation", "seq": 20, "message": "v"}]) == (
        TopFinding("violation", "v", 20, "v")
    )
    assert top_finding([]) is None
    record = {
        "match": "m1",
        "status": "finished",
        "players": ["ash", "misty"],
        "context": {"league": "L1", "event": "Cup", "round": 2, "table": 7},
        "started_at": "2026-03-14T19:05:00+09:00",
        "findings": findings,
    }
    entry = IndexEntry.from_record(record, 40)
    assert (entry.event, entry.round, entry.table, entry.date) == ("Cup", "2", "7", "2026-03-14")
    assert entry.top == TopFinding("warning", "c", 3, "w3")
    assert IndexEntry.from_record({**record, "started_at": "yesterday"}, 1).date is None
    assert fold_text("Ｐｏｋéｍｏｎ ｶｰﾄﾞ") == "pokémon カード"


def test_an_entry_indexed_before_digests_as_it_did() -> None:
    """A checkpoint written by an earlier version names the digest of an entry without the new fields:
    that entry, read back now, must digest the same (else every old match would be a tamper alarm)."""
    import hashlib

    before = hashlib.sha256(
        _dumps(["finished", "EU", "2025", ["Misty", "Brock"], [("seq_gap", 2)], []])
    ).hexdigest()
    assert index_digest(OLD.view()) == before
    assert index_digest(CUP.view()) != index_digest(
        IndexEntry(CUP.match, CUP.seq, CUP.status, CUP.league, CUP.season, CUP.players, CUP.findings,
                   CUP.severities).view()
    )  # fmt: skip


def test_cursors_say_what_is_wrong_with_them() -> None:
    assert decode_cursor(encode_cursor("-findings", 1 << 40, "L1/r1-t4/tb1"), "-findings") == (
        1 << 40,
        "L1/r1-t4/tb1",
    )
    for bad in ("", "%%%", encode_cursor("match", 0, "m1")[:-3]):
        with pytest.raises(ValueError, match="cursor"):
            decode_cursor(bad, "match")


@pytest.mark.redis
async def test_entries_indexed_by_an_earlier_version_read_and_are_found(redis_store: RedisStore) -> None:
    """No operator step: an entry as an earlier version wrote it (no ``about``, no search text, not in
    the pick lists) reads, is found by its players and offers its league once the store upgraded it."""
    store, r = redis_store, redis_store._r
    bucket = store.shard("old/m1")
    await r.hset(
        store._entry_key("old/m1"),
        mapping={"seq": 4, "status": "finished", "league": "OLD", "season": "2024",
                 "players": '["Ｍｉｓｔｙ"]', "findings": '{"seq_gap": 1}', "severities": '{"warning": 1}'},
    )  # fmt: skip
    await r.zadd(f"{bucket}:matches", {"old/m1": 0})
    await r.zadd(f"{bucket}:nfindings", {"old/m1": 1 << 16})
    for kind, name in (
        ("status", "finished"),
        ("league", "OLD"),
        ("season", "2024"),
        ("player", "Ｍｉｓｔｙ"),
    ):
        await r.sadd(store._set(bucket, kind, name), "old/m1")
    assert await store.index(SEOUL)

    entry = await store.index_entry("old/m1")
    assert entry is not None and (entry.event, entry.top, entry.players) == (None, None, ("Ｍｉｓｔｙ",))
    assert names(await store.index_page(search="misty")) == ["old/m1"]
    assert await store.index_names("league") == ["KR", "OLD"]
    assert [await r.get(f"{b}:format") for b in store._buckets()] == [b"2"] * len(store._buckets())
    # the next write of the match indexes it over what the earlier version wrote, memberships and all
    assert await store.index(IndexEntry("old/m1", 5, "finished", "NEW", "2024", ("Brock",), {}, table="9"))
    assert names(await store.index_page(search="misty")) == []
    assert names(await store.index_page(search="brock", league="NEW")) == ["old/m1"]
    assert await store.index_names("league") == ["KR", "NEW"]
    assert json.loads(await r.hget(store._entry_key("old/m1"), "about")) == {"table": "9"}


@pytest.mark.redis
async def test_a_search_over_too_many_entries_of_a_bucket_is_too_broad(
    redis_store: RedisStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    import streams.store.redis.search as module

    for i in range(40):
        assert await redis_store.index(
            IndexEntry(f"t{i}", 1, "finished", "A" if i < 2 else "B", None, ("p",), {})
        )
    monkeypatch.setattr(module, "SEARCH_SCAN_MAX", 2)
    page = await redis_store.index_page(search="p")
    assert page.too_broad and page.entries == [] and page.total == 0
    assert (await redis_store.index_page(search="p", league="A")).total == 2  # narrowed: under the bound
