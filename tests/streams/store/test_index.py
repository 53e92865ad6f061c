"""The :class:`~streams.store.roles.LeagueIndex` contract, on memory, a Redis server and a Redis Cluster
(``any_store``): filters, findings counters, the match list's pages, search, pick lists and cursors
(issue 36 item 6), concurrent index steps; then the Redis backend's own: entries indexed by an earlier
version, the search bound, and the page helpers."""

from __future__ import annotations

import asyncio
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
from streams.store.keys import INDEX_BUCKETS, index_bucket
from tests.streams.store.contract import CUP, OLD, SEOUL, names


class TestLeagueIndex:
    """Every backend indexes matches and pages through them alike."""

    async def test_indexes_filters_and_findings_counters(self, any_store: Store) -> None:
        a = IndexEntry("a", 3, "in_progress", "L1", "2026", ("p1", "p2"), {"seq_gap": 1})
        b = IndexEntry("b", 5, "finished", "L1", "2027", ("p2", "p3"), {"seq_gap": 2, "turn_order": 1})
        c = IndexEntry("c", 1, "in_progress", None, None, ("p4",), {})
        for entry in (a, b, c, a, b):  # indexing twice changes nothing
            assert await any_store.index(entry)
        assert await any_store.matches() == ["a", "b", "c"]
        assert await any_store.matches(league="L1") == ["a", "b"]
        assert await any_store.matches(league="L1", season="2027") == ["b"]
        assert await any_store.matches(status="in_progress") == ["a", "c"]
        assert await any_store.matches(player="p2") == ["a", "b"]
        assert await any_store.matches(player="p2", status="finished") == ["b"]
        assert await any_store.matches(league="nope") == []
        assert await any_store.findings_counts() == {"seq_gap": 3, "turn_order": 1}
        assert await any_store.index_entry("b") == b
        assert [e.match for e in await any_store.index_entries(["b", "zz", "a"])] == ["b", "a"]

        # a match moves on: memberships and counters follow, absolute values
        a2 = IndexEntry("a", 9, "finished", "L2", "2026", ("p1", "p5"), {"result_mismatch": 1})
        assert await any_store.index(a2)
        assert await any_store.matches(status="finished") == ["a", "b"]
        assert await any_store.matches(league="L1") == ["b"]
        assert await any_store.matches(player="p2") == ["b"]
        assert await any_store.matches(player="p5") == ["a"]
        assert await any_store.findings_counts() == {"result_mismatch": 1, "seq_gap": 2, "turn_order": 1}
        # an older entry (a late second step) never overwrites a newer one
        assert not await any_store.index(a)
        assert await any_store.index_entry("a") == a2
        assert await any_store.findings_counts() == {"result_mismatch": 1, "seq_gap": 2, "turn_order": 1}

    async def test_index_page_filters_searches_sorts_and_reads_one_page(self, any_store: Store) -> None:
        players = ("Misty", "misha", "Brock", "Gary")
        entries = [
            IndexEntry(
                f"m{i:02d}",
                i,
                "finished" if i % 3 else "in_progress",
                "L1" if i % 2 else "L2",
                "2026",
                (players[i % 4], players[(i + 1) % 4]),
                {"seq_gap": i % 5} if i % 5 else {},
            )
            for i in range(1, 31)
        ]
        for entry in entries:
            assert await any_store.index(entry)
        names = [e.match for e in entries]
        totals = {e.match: sum(e.findings.values()) for e in entries}

        page = await any_store.index_page(limit=7)
        assert (page.total, [e.match for e in page.entries]) == (30, names[:7])
        assert page.entries == entries[:7]  # the entries themselves, not only their ids
        page = await any_store.index_page(sort="-match", offset=5, limit=4)
        assert [e.match for e in page.entries] == names[::-1][5:9]
        assert (await any_store.index_page(offset=28, limit=10)).entries == entries[28:]
        assert (await any_store.index_page(offset=40)).entries == []
        assert (await any_store.index_page(limit=0)).total == 30

        by_findings = sorted(names, key=lambda m: (totals[m], m))
        page = await any_store.index_page(sort="-findings", limit=6)
        assert [e.match for e in page.entries] == by_findings[::-1][:6]
        page = await any_store.index_page(sort="findings", offset=3, limit=6)
        assert [e.match for e in page.entries] == by_findings[3:9]

        def where(pred: object) -> list[str]:
            return [e.match for e in entries if pred(e)]  # type: ignore[operator]

        page = await any_store.index_page(league="L1", status="finished", limit=100)
        want = where(lambda e: e.league == "L1" and e.status == "finished")
        assert (page.total, [e.match for e in page.entries]) == (len(want), want)
        page = await any_store.index_page(player="Brock", sort="-findings", limit=3)
        want = sorted(where(lambda e: "Brock" in e.players), key=lambda m: (totals[m], m))[::-1]
        assert (page.total, [e.match for e in page.entries]) == (len(want), want[:3])

        # search: a prefix of a player id, ASCII case folded, alone or with filters
        page = await any_store.index_page(search="mis", limit=100)
        want = where(lambda e: {"Misty", "misha"} & set(e.players))
        assert (page.total, [e.match for e in page.entries]) == (len(want), want)
        page = await any_store.index_page(search="MISTY", status="in_progress", sort="-match", limit=100)
        want = where(lambda e: "Misty" in e.players and e.status == "in_progress")[::-1]
        assert [e.match for e in page.entries] == want and page.total == len(want)
        assert (await any_store.index_page(search="zed")).total == 0
        assert (await any_store.index_page(search="gary", league="nope")).entries == []
        with pytest.raises(ValueError, match="sort"):
            await any_store.index_page(sort="players")

        # a match that moves on moves in the page too; records are read by the page's names only
        moved = IndexEntry("m01", 99, "finished", "L1", "2026", ("Zoe", "Gary"), {"turn_order": 9})
        assert await any_store.index(moved)
        assert (await any_store.index_page(sort="-findings", limit=1)).entries == [moved]
        assert [e.match for e in (await any_store.index_page(search="zo")).entries] == ["m01"]
        assert "m01" not in [e.match for e in (await any_store.index_page(search="misty", limit=50)).entries]
        await any_store.put_record("m02", b"rec-2")
        assert await any_store.records(["m02", "m03", "m02"]) == [b"rec-2", None, b"rec-2"]
        assert await any_store.records([]) == []

    async def test_an_index_step_with_a_wrong_guess_still_moves_every_membership(
        self, any_store: Store
    ) -> None:
        """The ingest core passes the entry it wrote last (``guess=True``) to save a read; when another writer
        changed it meanwhile, the guess is wrong and the step must still leave exactly the new memberships."""
        a1 = IndexEntry("a", 3, "in_progress", "L1", "2026", ("p1", "p2"), {"seq_gap": 1})
        a2 = IndexEntry("a", 5, "finished", "L2", "2027", ("p3",), {"turn_order": 2})
        a3 = IndexEntry("a", 7, "awaiting_playoff", None, None, ("p4",), {})
        assert await any_store.index(a1, last=None, guess=True)  # right: nothing indexed yet
        assert await any_store.index(a2, last=None, guess=True)  # wrong: a1 is indexed
        assert await any_store.matches(league="L1") == [] and await any_store.matches(league="L2") == ["a"]
        assert await any_store.matches(player="p1") == [] and await any_store.matches(player="p3") == ["a"]
        assert await any_store.findings_counts() == {"turn_order": 2}
        assert await any_store.index(a3, last=a1, guess=True)  # wrong: a2 is indexed, not a1
        assert await any_store.index_entry("a") == a3
        for status in ("in_progress", "finished"):
            assert await any_store.matches(status=status) == []
        assert await any_store.matches(status="awaiting_playoff") == ["a"]
        assert await any_store.matches(league="L2") == [] and await any_store.matches(season="2027") == []
        assert await any_store.matches(player="p3") == [] and await any_store.matches(player="p4") == ["a"]
        assert await any_store.findings_counts() == {}
        assert not await any_store.index(a2, last=a3, guess=True)  # an older entry is still ignored

    @pytest.mark.redis
    async def test_pages_merged_from_every_index_bucket_keep_the_order_and_the_paging(
        self, any_store: Store
    ) -> None:
        from streams.store.base import order_page

        entries = [
            IndexEntry(
                f"g{i:03d}", i, "finished", f"L{i % 3}", "2026", (f"p{i % 7}", f"q{i % 5}"), {"x": i % 6}
            )
            for i in range(120)
        ]
        if isinstance(any_store, RedisStore):  # every bucket holds some of these matches
            assert {index_bucket(e.match) for e in entries} == set(range(INDEX_BUCKETS))
        for entry in entries:
            assert await any_store.index(entry)
        ranks = {e.match: e.rank for e in entries}
        for league in (None, "L1"):
            names = [e.match for e in entries if league is None or e.league == league]
            for sort in ("match", "-match", "findings", "-findings"):
                want = order_page(names, ranks, sort, 0, len(names))
                for size in (1, 7, 50):
                    walked: list[str] = []
                    for offset in range(0, len(names) + size, size):
                        page = await any_store.index_page(league=league, sort=sort, offset=offset, limit=size)
                        assert page.total == len(names)
                        walked += [e.match for e in page.entries]
                    assert walked == want, (league, sort, size)
        page = await any_store.index_page(search="P3", sort="-findings", limit=5)
        want = order_page([e.match for e in entries if "p3" in e.players], ranks, "-findings", 0, 5)
        assert [e.match for e in page.entries] == want
        assert await any_store.matches(league="L2") == sorted(e.match for e in entries if e.league == "L2")
        assert await any_store.findings_counts() == {"x": sum(i % 6 for i in range(120))}

    async def test_concurrent_index_steps_leave_one_consistent_entry(self, any_store: Store) -> None:
        statuses = ["in_progress", "awaiting_playoff", "finished"]
        entries = [
            IndexEntry("m1", seq, statuses[seq % 3], f"L{seq % 2}", "S", (f"p{seq % 4}", "q"), {"c": seq % 5})
            for seq in range(1, 31)
        ]
        shuffled = entries[::2] + entries[1::2]
        await asyncio.gather(*(any_store.index(e) for e in shuffled))
        last = entries[-1]
        assert await any_store.index_entry("m1") == last
        for status in statuses:
            assert await any_store.matches(status=status) == (["m1"] if status == last.status else [])
        for p in ("p0", "p1", "p2", "p3", "q"):
            assert await any_store.matches(player=p) == (["m1"] if p in last.players else [])
        assert await any_store.matches(league="L0") == (["m1"] if last.league == "L0" else [])
        assert await any_store.findings_counts() == ({"c": last.findings["c"]} if last.findings["c"] else {})

    async def test_games_to_review_put_violations_before_many_info_notes(self, any_store: Store) -> None:
        def entry(match: str, **severities: int) -> IndexEntry:
            findings = {f"{s}_code": n for s, n in severities.items() if n}
            return IndexEntry(match, 1, "finished", "L", "S", ("p", "q"), findings, severities)

        entries = [
            entry("a", info=67),
            entry("b", violation=1),
            entry("c", warning=3, info=1),
            entry("d", violation=1, warning=1),
            entry("e"),
        ]
        for e in entries:
            assert await any_store.index(e)
        page = await any_store.index_page(sort="-findings")
        assert [e.match for e in page.entries] == ["d", "b", "c", "a", "e"]
        assert page.entries[0].severities == {"violation": 1, "warning": 1}  # kept in the index
        assert [e.match for e in (await any_store.index_page(sort="findings")).entries] == [
            "e",
            "a",
            "c",
            "b",
            "d",
        ]
        # an entry written without severities ranks by its number of findings, as info notes
        assert IndexEntry("x", 1, "finished", findings={"seq_gap": 3}).rank == 3
        assert entries[1].rank > entries[0].rank > entries[4].rank

    async def test_search_finds_a_part_of_a_player_match_event_round_or_table(self, any_store: Store) -> None:
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

    async def test_pick_lists_offer_the_leagues_and_seasons_matches_have(self, any_store: Store) -> None:
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

    async def test_a_cursor_walks_every_order_and_survives_a_change_between_pages(
        self, any_store: Store
    ) -> None:
        entries = [
            IndexEntry(
                f"c{i:03d}", i, "finished", f"L{i % 2}", "2026", (f"p{i % 5}",), {}, {"warning": i % 4}
            )
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
