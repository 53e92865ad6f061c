"""The storage contract: one suite, run against MemoryStore and RedisStore (a real Redis server)."""

from __future__ import annotations

import asyncio
from dataclasses import replace

import msgpack
import pytest
from redis.asyncio.cluster import RedisCluster

from streams.store import (
    Append,
    AppendRun,
    AuditEntry,
    IndexEntry,
    LiveUpdate,
    MatchState,
    RedisStore,
    Store,
)
from streams.store.keys import INDEX_BUCKETS, bucket_tags, index_bucket


def ev(match: str, seq: int, **extra: object) -> bytes:
    data: bytes = msgpack.packb({"match": match, "seq": seq, "type": "note", "text": "x", **extra})
    return data


def app(match: str, seq: int, prev: int, *, data: bytes | None = None, **kw: object) -> Append:
    return Append(
        match=match,
        seq=seq,
        event=data if data is not None else ev(match, seq),
        prev=prev,
        board=msgpack.packb({"seq": seq}),
        record=msgpack.packb({"match": match, "head": seq}),
        **kw,  # type: ignore[arg-type]
    )


async def test_append_in_order_and_read_back(any_store: Store) -> None:
    for seq in (1, 2, 3):
        result = await any_store.append(app("m1", seq, seq - 1))
        assert (result.status, result.head, result.archived) == ("applied", seq, True)
    assert await any_store.head("m1") == 3
    assert await any_store.head("other") == 0
    assert await any_store.event("m1", 2) == ev("m1", 2)
    assert await any_store.event("m1", 9) is None
    log = await any_store.events("m1")
    assert [e.position for e in log] == [(1, 0), (2, 0), (3, 0)]
    assert [e.data for e in log] == [ev("m1", s) for s in (1, 2, 3)]
    assert {e.kind for e in log} == {"event"}
    assert msgpack.unpackb(await any_store.board("m1")) == {"seq": 3}
    assert msgpack.unpackb(await any_store.record("m1")) == {"match": "m1", "head": 3}
    assert await any_store.events("nope") == []
    assert await any_store.record("nope") is None


async def test_exact_duplicate_is_a_noop(any_store: Store) -> None:
    await any_store.append(app("m1", 1, 0))
    await any_store.append(app("m1", 2, 1))
    # a redelivery, even with a stale prev and in either mode, is recognised by its bytes
    for conflict in (False, True):
        result = await any_store.append(app("m1", 1, 0, conflict=conflict))
        assert (result.status, result.head, result.archived) == ("duplicate", 2, False)
    assert len(await any_store.events("m1")) == 2
    assert msgpack.unpackb(await any_store.record("m1"))["head"] == 2


async def test_conflict_is_refused_then_archived_after_the_head(any_store: Store) -> None:
    await any_store.append(app("m1", 1, 0))
    await any_store.append(app("m1", 2, 1))
    other = ev("m1", 1, text="something else")
    refused = await any_store.append(app("m1", 1, 2, data=other))
    assert (refused.status, refused.archived) == ("conflict", False)
    assert len(await any_store.events("m1")) == 2
    # in conflict mode (the engine already made it a finding) it is archived after the head, in order
    for _ in (1, 2):
        kept = await any_store.append(app("m1", 1, 2, data=other, conflict=True))
        assert (kept.status, kept.head, kept.archived) == ("conflict", 2, True)
    log = await any_store.events("m1")
    assert [(e.position, e.kind) for e in log] == [
        ((1, 0), "event"),
        ((2, 0), "event"),
        ((2, 1), "conflict"),
        ((2, 2), "conflict"),
    ]
    assert await any_store.event("m1", 1) == ev("m1", 1)  # the original stays the event at seq 1
    assert await any_store.head("m1") == 2


async def test_stale_prev_and_undeclared_gaps_are_refused(any_store: Store) -> None:
    await any_store.append(app("m1", 1, 0))
    assert (await any_store.append(app("m1", 2, 0))).status == "stale"
    assert (await any_store.append(app("m1", 3, 1))).status == "gap"
    assert (await any_store.append(app("m1", 1, 0, data=ev("m1", 1, text="y"), conflict=True))).status == (
        "stale"
    )
    gap = await any_store.append(app("m1", 4, 1, allow_gap=True))
    assert (gap.status, gap.head) == ("applied", 4)
    # seq 2 now fills a gap already reported: a "late" entry, archived only in conflict mode
    assert (await any_store.append(app("m1", 2, 4))).status == "conflict"
    late = await any_store.append(app("m1", 2, 4, conflict=True))
    assert late.archived
    assert [(e.position, e.kind) for e in await any_store.events("m1")] == [
        ((1, 0), "event"),
        ((4, 0), "event"),
        ((4, 1), "late"),
    ]


async def test_held_events_leave_when_appended(any_store: Store) -> None:
    assert await any_store.hold("m1", 3, ev("m1", 3))
    assert not await any_store.hold("m1", 3, ev("m1", 3, text="other"))
    assert await any_store.hold("m1", 2, ev("m1", 2))
    assert await any_store.held("m1") == {2: ev("m1", 2), 3: ev("m1", 3)}
    await any_store.append(app("m1", 1, 0))
    await any_store.append(app("m1", 2, 1))
    assert await any_store.held("m1") == {3: ev("m1", 3)}
    assert await any_store.held("nope") == {}


async def test_put_record(any_store: Store) -> None:
    assert await any_store.put_record("m1/tb1", b"stub", if_absent=True)
    assert not await any_store.put_record("m1/tb1", b"other", if_absent=True)
    assert await any_store.record("m1/tb1") == b"stub"
    assert await any_store.put_record("m1/tb1", b"linked")
    assert await any_store.record("m1/tb1") == b"linked"


async def test_many_records_at_once_in_the_order_asked(any_store: Store) -> None:
    # matches of different hash slots in one call (a cluster splits it by node)
    names = [f"league/r{i}/t{i % 7}/g1" for i in range(40)]
    for i, m in enumerate(names):
        if i % 3:
            await any_store.put_record(m, f"rec-{i}".encode())
    got = await any_store.records([*reversed(names), "unknown"])
    assert got == [f"rec-{i}".encode() if i % 3 else None for i in reversed(range(40))] + [None]
    assert await any_store.records([]) == []


async def test_indexes_filters_and_findings_counters(any_store: Store) -> None:
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


async def test_index_page_filters_searches_sorts_and_reads_one_page(any_store: Store) -> None:
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


async def test_an_index_step_with_a_wrong_guess_still_moves_every_membership(any_store: Store) -> None:
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


async def test_live_updates_per_match_and_global(any_store: Store) -> None:
    one = await any_store.subscribe("m1")
    every = await any_store.subscribe()
    try:
        await any_store.append(app("m1", 1, 0))
        await any_store.append(app("m2", 1, 0))
        await any_store.append(app("m1", 1, 1))  # duplicate: nothing published
        await any_store.append(app("m1", 2, 1))
        it_one, it_every = aiter(one), aiter(every)
        got_one = [await asyncio.wait_for(anext(it_one), 5) for _ in range(2)]
        got_every = [await asyncio.wait_for(anext(it_every), 5) for _ in range(3)]
        # each update carries the board its write stored (a live hub shows it without reading it back)
        board = {seq: msgpack.packb({"seq": seq}) for seq in (1, 2)}
        assert got_one == [LiveUpdate("m1", 1, board[1]), LiveUpdate("m1", 2, board[2])]
        # each match's updates in its writes' order; across matches only one server orders them (on a
        # cluster each match's node publishes its own, and the nodes' messages interleave as they come)
        assert [u for u in got_every if u.match == "m1"] == got_one
        assert [u for u in got_every if u.match == "m2"] == [LiveUpdate("m2", 1, board[1])]
        if not (isinstance(any_store, RedisStore) and isinstance(any_store.client, RedisCluster)):
            assert [u.match for u in got_every] == ["m1", "m2", "m1"]
        assert got_one[-1].board == await any_store.board("m1")
    finally:
        await one.aclose()
        await every.aclose()


async def test_a_write_that_leaves_the_board_carries_no_board(any_store: Store) -> None:
    """An event archived as a conflict, and a record written alone, leave the stored board as it was:
    their updates carry none, so that a hub reads the board instead of showing one that was never
    stored."""
    every = await any_store.subscribe()
    try:
        await any_store.append(app("m1", 1, 0))
        other = ev("m1", 1, text="other")
        kept = await any_store.append(replace(app("m1", 1, 1, data=other, conflict=True), board=b"\x80"))
        assert kept.status == "conflict"
        assert await any_store.put_record("m1", msgpack.packb({"match": "m1", "head": 1}))
        it = aiter(every)
        got = [await asyncio.wait_for(anext(it), 5) for _ in range(3)]
        assert got == [
            LiveUpdate("m1", 1, msgpack.packb({"seq": 1})),
            LiveUpdate("m1", 1),
            LiveUpdate("m1", 1),
        ]
        assert await any_store.board("m1") == msgpack.packb({"seq": 1})
    finally:
        await every.aclose()


@pytest.mark.parametrize("match", ["m1", 'league 7/table "3"'])
@pytest.mark.parametrize("board", [None, b"", b'\n\x00{"seq":1}\n', msgpack.packb({"seq": 3, "a": "x\ny"})])
def test_a_live_update_reads_back_as_it_was_sent(match: str, board: bytes | None) -> None:
    """The wire form (a JSON header, then the board's bytes after the first newline) keeps any match id and
    any board bytes, newlines and an empty board included."""
    update = LiveUpdate(match, 12, board)
    assert LiveUpdate.decode(update.encode()) == update


async def test_ping(any_store: Store) -> None:
    assert await any_store.ping()


@pytest.mark.redis
async def test_pages_merged_from_every_index_bucket_keep_the_order_and_the_paging(any_store: Store) -> None:
    from streams.store.base import order_page

    entries = [
        IndexEntry(f"g{i:03d}", i, "finished", f"L{i % 3}", "2026", (f"p{i % 7}", f"q{i % 5}"), {"x": i % 6})
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


@pytest.mark.redis
def test_the_index_buckets_take_equal_runs_of_the_slot_space() -> None:
    from redis.crc import key_slot

    for n in (1, 3, 16, 32):
        slots = [key_slot(tag.encode()) for tag in bucket_tags(n)]
        assert [s * n // 16384 for s in slots] == list(range(n))
    # three masters of equal slot runs (redis-cli --cluster create) hold 5, 6 and 5 of the 16 buckets
    thirds = [sum(1 for tag in bucket_tags(16) if key_slot(tag.encode()) * 3 // 16384 == k) for k in range(3)]
    assert sorted(thirds) == [5, 5, 6]


@pytest.mark.redis
async def test_redis_keys_share_the_match_hash_tag(redis_store: RedisStore) -> None:
    await redis_store.append(app("m1/tb1", 1, 0))
    await redis_store.index(IndexEntry("m1/tb1", 1, "in_progress", "L", "S", ("p",), {"x": 1}))
    keys = sorted([k.decode() async for k in redis_store.client.scan_iter(match=f"{redis_store.prefix}:*")])
    tags = {k[k.index("{") + 1 : k.index("}")] for k in keys}
    # one slot per match, and the index bucket of the match (docs/storage.md, "League indexes")
    bucket = redis_store.shard("m1/tb1")
    assert tags == {"m1/tb1", bucket[bucket.index("{") + 1 : -1]}
    assert bucket == f"{redis_store.prefix}:{{{bucket_tags(INDEX_BUCKETS)[index_bucket('m1/tb1')]}}}"
    p = redis_store.prefix
    assert set(keys) >= {
        f"{p}:{{m1/tb1}}:events",
        f"{p}:{{m1/tb1}}:seq",
        f"{p}:{{m1/tb1}}:board",
        f"{p}:{{m1/tb1}}:record",
    }
    assert await redis_store.client.type(f"{p}:{{m1/tb1}}:events") == b"stream"
    with pytest.raises(ValueError):
        redis_store.key("bad{id}", "events")


async def test_concurrent_index_steps_leave_one_consistent_entry(any_store: Store) -> None:
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


def run_of(match: str, seqs: range, prev: int) -> AppendRun:
    return AppendRun(
        match=match,
        prev=prev,
        events=tuple((s, ev(match, s)) for s in seqs),
        board=msgpack.packb({"seq": seqs[-1]}),
        record=msgpack.packb({"match": match, "head": seqs[-1]}),
    )


async def test_a_run_is_appended_atomically_with_one_live_update(any_store: Store) -> None:
    every = await any_store.subscribe()
    try:
        await any_store.append(app("m1", 1, 0))
        assert await any_store.hold("m1", 3, ev("m1", 3))
        assert await any_store.hold("m1", 9, ev("m1", 9))
        result = await any_store.append_run(run_of("m1", range(2, 6), 1))
        assert (result.status, result.head, result.archived) == ("applied", 5, True)
        # refused as a whole: a stale prev, seqs that do not follow the head
        assert (await any_store.append_run(run_of("m1", range(6, 8), 4))).status == "stale"
        assert (await any_store.append_run(run_of("m1", range(7, 9), 5))).status == "gap"
        assert (await any_store.append_run(run_of("m1", range(5, 7), 5))).status == "gap"
        it = aiter(every)
        got = [await asyncio.wait_for(anext(it), 5) for _ in range(2)]
        assert got == [
            LiveUpdate("m1", 1, msgpack.packb({"seq": 1})),
            LiveUpdate("m1", 5, msgpack.packb({"seq": 5})),
        ]
    finally:
        await every.aclose()
    log = await any_store.events("m1")
    expected = [((s, 0), ev("m1", s), "event") for s in range(1, 6)]
    assert [(e.position, e.data, e.kind) for e in log] == expected
    assert await any_store.head("m1") == 5
    assert await any_store.held("m1") == {9: ev("m1", 9)}
    assert msgpack.unpackb(await any_store.board("m1")) == {"seq": 5}
    assert msgpack.unpackb(await any_store.record("m1")) == {"match": "m1", "head": 5}
    # and per-event appends carry on from the run's head
    assert (await any_store.append(app("m1", 6, 5))).status == "applied"
    assert (await any_store.append(app("m1", 3, 6))).status == "duplicate"


async def test_every_record_write_is_fenced_by_the_write_count(any_store: Store) -> None:
    # The flake of issue 10 item 7: a playoff child's owner settled the parent's record while the parent's
    # owner wrote it from an older view. Every record write names the write count it built on.
    first = await any_store.append(app("m1", 1, 0))
    assert (first.status, first.writes) == ("applied", 1)
    record, writes = await any_store.record_state("m1")
    assert (record, writes) == (msgpack.packb({"match": "m1", "head": 1}), 1)
    # another writer (the child settling it) writes the record at that count...
    assert await any_store.put_record("m1", b"settled", writes=1)
    assert not await any_store.put_record("m1", b"late", writes=1)  # ...and a second one at it is refused
    # the owner's append built on count 1 is stale now, and changes nothing
    stale = await any_store.append_run(replace(run_of("m1", range(2, 3), 1), writes=1))
    assert (stale.status, stale.head, stale.writes) == ("stale", 1, 2)
    assert (await any_store.append(replace(app("m1", 2, 1), writes=1))).status == "stale"
    assert await any_store.record("m1") == b"settled"
    assert await any_store.head("m1") == 1
    # built on the current count it goes through, and the next fence is handed back
    done = await any_store.append_run(replace(run_of("m1", range(2, 3), 1), writes=2))
    assert (done.status, done.head, done.writes) == ("applied", 2, 3)
    assert (await any_store.state("m1")).writes == 3


async def test_the_trusted_chain_head_is_kept_with_every_append(any_store: Store) -> None:
    assert await any_store.state("m1") == MatchState(0, 0, None)
    await any_store.append(replace(app("m1", 1, 0), chain="aa"))
    await any_store.append_run(replace(run_of("m1", range(2, 4), 1), chain="bb"))
    assert await any_store.state("m1") == MatchState(3, 2, "bb")
    assert await any_store.put_record("m1", b"linked")  # a record alone leaves the chain head as it is
    assert await any_store.state("m1") == MatchState(3, 3, "bb")


async def test_a_finished_record_that_changes_is_a_new_version(any_store: Store) -> None:
    def rec(status: str, winner: str | None) -> bytes:
        return msgpack.packb({"status": status, "winner": winner})

    # in progress: no versions
    await any_store.append(replace(app("m1", 1, 0), record=rec("in_progress", None)))
    assert await any_store.versions("m1") == []
    # the game ends at seq 2: version 1, caused by seq 2
    await any_store.append(replace(app("m1", 2, 1), record=rec("finished", "p1"), cause="m1 2"))
    # an event that leaves the record as it is makes no version
    await any_store.append(replace(app("m1", 3, 2), record=rec("finished", "p1"), cause="m1 3"))
    # a penalty after the end changes the winner: version 2, caused by seq 4
    await any_store.append_run(
        replace(run_of("m1", range(4, 5), 3), record=rec("finished", "p2"), cause="m1 4")
    )
    # a playoff game settling it names its own event
    assert await any_store.put_record("m1", rec("finished", "p1"), cause="m1/tb1 9")
    versions = await any_store.versions("m1")
    assert [(v.version, v.cause_match, v.cause_seq) for v in versions] == [
        (1, "m1", 2),
        (2, "m1", 4),
        (3, "m1/tb1", 9),
    ]
    assert [msgpack.unpackb(v.record)["winner"] for v in versions] == ["p1", "p2", "p1"]
    assert await any_store.version("m1", 2) == versions[1]
    assert await any_store.version("m1", 0) is None
    assert await any_store.version("m1", 4) is None
    assert await any_store.versions("nope") == []


async def test_matches_with_held_events_and_alarms_are_listed(any_store: Store) -> None:
    await any_store.append(app("m1", 1, 0))
    assert await any_store.hold("m1", 3, ev("m1", 3))
    assert await any_store.hold("g/tb1", 5, ev("g/tb1", 5))
    assert await any_store.pending_matches() == ["g/tb1", "m1"]
    await any_store.append(app("m1", 2, 1))
    await any_store.append(app("m1", 3, 2))  # the held event is archived: m1 waits for nothing now
    assert await any_store.pending_matches() == ["g/tb1"]
    assert await any_store.alarms() == {}
    await any_store.alarm("m1", "chain head differs")
    assert await any_store.alarms() == {"m1": "chain head differs"}


async def test_the_audit_log_keeps_entries_in_order_and_pages(any_store: Store) -> None:
    first = AuditEntry("write", "token:ingest-1", target="m1", origin="127.0.0.1", detail="3 events", at=1.5)
    second = AuditEntry("read_hidden", "token:judge-2", target="m1", origin="10.0.0.2", at=2.0)
    third = AuditEntry("refused", "public", target="/events", origin="10.0.0.3", detail="no token", at=2.5)
    ids = [await any_store.audit(e) for e in (first, second, third)]
    assert len(set(ids)) == 3
    log = await any_store.audit_log()
    assert [(e.action, e.actor, e.target, e.origin, e.detail, e.at) for e in log] == [
        ("write", "token:ingest-1", "m1", "127.0.0.1", "3 events", 1.5),
        ("read_hidden", "token:judge-2", "m1", "10.0.0.2", "", 2.0),
        ("refused", "public", "/events", "10.0.0.3", "no token", 2.5),
    ]
    assert [e.id for e in log] == ids
    assert [e.action for e in await any_store.audit_log(after=ids[0], count=1)] == ["read_hidden"]
    assert await any_store.audit_log(after=ids[2]) == []


async def test_games_to_review_put_violations_before_many_info_notes(any_store: Store) -> None:
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


async def test_a_consoles_lease_is_one_writer_at_a_time_and_expires(any_store: Store) -> None:
    # docs/console.md, "One writer": in the store, so every web process sees the same writer
    assert await any_store.lease("m1", "A", "peek", 5) is None
    assert await any_store.lease("m1", "A", "take", 5) == "A"
    assert await any_store.lease("m1", "B", "take", 5) == "A"  # held: B is read-only
    assert await any_store.lease("m1", "B", "renew", 5) == "A"  # and renews nothing of A's
    assert await any_store.lease("m1", "B", "release", 5) == "A"  # nor hands A's lease over
    assert await any_store.lease("m2", "B", "take", 5) == "B"  # another match's lease is its own
    assert await any_store.lease("m1", "A", "release", 5) is None
    assert await any_store.lease("m1", "B", "take", 0.3) == "B"
    assert await any_store.lease("m1", "B", "renew", 0.3) == "B"
    await asyncio.sleep(0.5)  # B stopped renewing: the lease lapses, and A may take over
    assert await any_store.lease("m1", "A", "peek", 5) is None
    assert await any_store.lease("m1", "A", "take", 5) == "A"


async def test_a_lease_take_over_replaces_only_the_holder_it_saw(any_store: Store) -> None:
    # streams/http/lease.py: a judge (or the holder's own token) takes over the lease it saw held; if
    # another holder took it meanwhile (the first lapsed), the take-over changes nothing
    assert await any_store.lease("t1", "J", "replace", 5, expected="A") == "J"  # free: taken
    assert await any_store.lease("t1", "A", "take", 5) == "J"
    assert await any_store.lease("t1", "K", "replace", 5, expected="A") == "J"  # not A's any more
    assert await any_store.lease("t1", "K", "replace", 5, expected="J") == "K"
    assert await any_store.lease("t1", "J", "peek", 5) == "K"
    assert await any_store.lease("t1", "K", "release", 5) is None
    with pytest.raises(ValueError, match="not a lease action"):
        await any_store.lease("t1", "K", "seize", 5)


async def test_deck_lists_are_kept_per_event_and_replaced_by_key(any_store: Store) -> None:
    assert await any_store.decks("Cup") == {}
    await any_store.put_deck("Cup", "ash", b"a1")
    await any_store.put_deck("Cup", "ash|cup/r3/t1/g1", b"a2")
    await any_store.put_deck("Cup: {x} *", "ash", b"other")  # any event name stays its own key
    await any_store.put_deck("Cup", "ash", b"a3")
    assert await any_store.decks("Cup") == {"ash": b"a3", "ash|cup/r3/t1/g1": b"a2"}
    assert await any_store.decks("Cup: {x} *") == {"ash": b"other"}


async def test_each_entry_keeps_when_it_arrived_beside_its_bytes(any_store: Store) -> None:
    """What a broadcast delay reads (streams/http/delay.py): the store's clock at the append, kept beside
    the event (its bytes and the archive's positions unchanged), for events, runs, conflicts and snapshots."""
    import time

    before = time.time() - 1
    await any_store.append(app("m1", 1, 0))
    run = AppendRun("m1", 1, ((2, ev("m1", 2)), (3, ev("m1", 3))), msgpack.packb({}), msgpack.packb({}))
    await any_store.append_run(run)
    await any_store.append(app("m1", 2, 3, data=ev("m1", 2, text="else"), conflict=True))
    after = time.time() + 1
    for log in (await any_store.events("m1"), (await any_store.snapshot("m1")).events):
        assert [e.position for e in log] == [(1, 0), (2, 0), (3, 0), (3, 1)]
        assert log[1].data == ev("m1", 2)
        times = [e.at for e in log]
        assert all(t is not None and before <= t <= after for t in times), times
        assert times == sorted(times)  # type: ignore[type-var]


async def test_a_stream_slot_is_replaced_only_if_unchanged_since_read(any_store: Store) -> None:
    assert await any_store.on_air("slot:main") is None
    assert await any_store.swap_on_air("slot:main", None, b"1")
    assert not await any_store.swap_on_air("slot:main", None, b"2")  # someone wrote it since
    assert not await any_store.swap_on_air("slot:main", b"0", b"2")
    assert await any_store.swap_on_air("slot:main", b"1", b"2")
    assert await any_store.on_air("slot:main") == b"2" and await any_store.on_air("slot:other") is None
