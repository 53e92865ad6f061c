"""Every Redis key name (:mod:`streams.store.keys`): the layout a store written by an earlier version holds
(pinned byte for byte), no module of the service spelling a key itself, a match's keys sharing its hash
tag, the index buckets spread over the slots, every name its own key part."""

from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import Any

import pytest

from streams.store import Append, AppendRun, AuditEntry, Expect, IndexEntry, RedisStore
from streams.store.base import is_match_id
from streams.store.keys import INDEX_BUCKETS, bucket_tags, index_bucket, key_part
from tests.paths import ROOT
from tests.streams.store.contract import app


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


@pytest.mark.redis
def test_the_index_buckets_take_equal_runs_of_the_slot_space() -> None:
    from redis.crc import key_slot

    for n in (1, 3, 16, 32):
        slots = [key_slot(tag.encode()) for tag in bucket_tags(n)]
        assert [s * n // 16384 for s in slots] == list(range(n))
    # three masters of equal slot runs (redis-cli --cluster create) hold 5, 6 and 5 of the 16 buckets
    thirds = [sum(1 for tag in bucket_tags(16) if key_slot(tag.encode()) * 3 // 16384 == k) for k in range(3)]
    assert sorted(thirds) == [5, 5, 6]


@pytest.mark.parametrize("name", ["x}:pending", "{idx}", "a:b", "*", "100%", "new\nline", "nul\0", "é", " "])
def test_a_name_is_encoded_into_one_key_part_that_holds_nothing_special(name: str) -> None:
    part = key_part(name)
    assert not set(part) & set(":{}*\n\0 ?[]\\")
    assert part.isascii()


def test_names_are_their_own_key_part_and_the_encoding_is_one_to_one() -> None:
    assert key_part("ash") == "ash" and key_part("Kanto-2026_r1.t3") == "Kanto-2026_r1.t3"
    names = ["a:b", "a%3Ab", "a%253Ab", "a b", "a+b", "a%20b"]
    assert len({key_part(n) for n in names}) == len(names)


@pytest.mark.parametrize("bad", ["m1\n", "m1\r", "", "m" * 129, "m 1", "{m}", "m\0", 7, None])
def test_a_match_id_is_a_full_match(bad: object) -> None:
    assert not is_match_id(bad)
    assert is_match_id("kanto-2026:r3/t12/g1/tb1")


# -------------------------------------------------------------------------------- the layout, pinned
async def one_of_everything(store: RedisStore) -> None:
    """A write of every kind the service makes, each role's (fixed values: no clock in what is compared)."""
    await store.append(Append("m1", 1, b"e1", 0, b"b1", b"r1"))
    await store.append(Append("m1", 2, b"e2", 1, b"b2", b"r2", chain="ab", cause="m1 2", checkpoint=b"ck"))
    await store.append(Append("m1", 1, b"e1x", 2, b"b2", b"r3", conflict=True, cause="m1 2"))
    await store.append_run(AppendRun("m/2", 0, ((1, b"x1"), (2, b"x2")), b"bb", b"rr", chain="cd"))
    await store.hold("m/2", 5, b"held")
    await store.put_record("m3/tb1", b"stub", if_absent=True)
    await store.put_record("m4", b"rec4")
    _, writes = await store.record_state("m4")
    await store.drop_record("m4", writes=writes, expect=Expect())
    await store.index(
        IndexEntry("m1", 2, "finished", "L 1", "2026", ("Ash", "Misty é"), {"seq_gap": 1}, {"warning": 1},
                   event="Cup", round="3", table="7")
    )  # fmt: skip
    await store.index(IndexEntry("m/2", 2, "in_progress", None, None, ("Brock",), {}))
    await store.index(IndexEntry("m9", 1, "finished", "L2", None, ("X",), {"a": 2}))
    await store.unindex("m9")
    await store.index_page(search="ash")  # the upgrade marks every bucket's format
    await store.alarm("m1", "record changed")
    await store.put_deck("Cup 2026", "Ash", b"deck")
    await store.swap_on_air("table:1", None, b"on")
    await store.claim(["m1", "m/2"], b"owner")
    await store.lease("m1", "console-a", "take", 600)
    await store.end_session("sess ion", 4102444800.0)
    await store.audit(AuditEntry("write", "tok", "m1", "1.2.3.4", "d", 1.5))


async def layout(store: RedisStore) -> dict[str, Any]:
    """Every key under the store's prefix (the prefix cut off): its type and what it holds (a stream's
    entries without their ids and arrival times, which the clock gives)."""
    r: Any = store.client
    out: dict[str, Any] = {}
    async for raw in r.scan_iter(match=f"{store.prefix}:*", count=1000):
        kind = (await r.type(raw)).decode()
        value: Any
        if kind == "string":
            value = await r.get(raw)
        elif kind == "hash":
            value = dict(sorted((await r.hgetall(raw)).items()))
        elif kind == "set":
            value = sorted(await r.smembers(raw))
        elif kind == "zset":
            value = await r.zrange(raw, 0, -1, withscores=True)
        elif kind == "list":
            value = await r.lrange(raw, 0, -1)
        else:
            value = [{k: v for k, v in sorted(f.items()) if k != b"t"} for _, f in await r.xrange(raw)]
        out[raw.decode()[len(store.prefix) :]] = (kind, value)
    return out


@pytest.mark.redis
async def test_the_layout_is_what_earlier_versions_wrote_byte_for_byte(any_redis: RedisStore) -> None:
    """One write of every kind lands in exactly the keys, types and bytes the store wrote before the store
    was split by role (LAYOUT was taken from that code): a store written by an earlier version reads back,
    and one written now reads in an earlier version (docs/storage.md, "Keys"). Since: the state hash's
    xlen, xlate and xlast (the archive's extent kept by the append scripts), which an earlier version
    does not read and a store written by one lacks (the extent then walks the stream and keeps them)."""
    await one_of_everything(any_redis)
    assert await layout(any_redis) == LAYOUT


# -------------------------------------------------------------------------------- one module spells keys
# What a key name looks like in source: a hash tag (``{`` after or ``}`` before a colon, as in
# ``f"{prefix}:{{{match}}}:seq"``), a key's tail (``":pending"``), a name after the prefix
# (``f"{prefix}:live"``), a match's key named by a string (``store.key(match, "record")``).
_KEYISH = re.compile(r"(^|:)\{|\}(:|$)|^:[a-z_]+(:|$)")
_TAIL = re.compile(r":[a-z_]+(:[a-z_]*)?")


def _spelled_keys(path: Path) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.JoinedStr):
            parts = [v.value for v in node.values if isinstance(v, ast.Constant) and isinstance(v.value, str)]
            names = [ast.unparse(v.value) for v in node.values if isinstance(v, ast.FormattedValue)]
            after_prefix = any("prefix" in n or "bucket" in n for n in names) and any(
                p.startswith(":") and not p.startswith(": ") for p in parts
            )
            if after_prefix or any(_KEYISH.search(p) for p in parts):
                found.append(f"{path.relative_to(ROOT)}:{node.lineno}: {ast.unparse(node)}")
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and _TAIL.fullmatch(node.value):
            found.append(f"{path.relative_to(ROOT)}:{node.lineno}: {node.value!r}")
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "key"
            and len(node.args) == 2
            and isinstance(node.args[1], ast.Constant)
        ):
            found.append(f"{path.relative_to(ROOT)}:{node.lineno}: {ast.unparse(node)}")
    return found


def test_no_module_but_the_keys_module_spells_a_redis_key() -> None:
    """Every key template lives in streams/store/keys.py: the service, the command line and the benchmarks
    name keys through it, so that the layout is read in one place and changed in none by accident."""
    keys_module = ROOT / "streams" / "store" / "keys.py"
    sources = [p for d in ("streams", "replay", "bench") for p in sorted((ROOT / d).rglob("*.py"))]
    assert [hit for p in sources if p != keys_module for hit in _spelled_keys(p)] == []
    assert _spelled_keys(keys_module)  # the check sees key templates where they are


LAYOUT: dict[str, Any] = {
    ":{audit}": (
        "stream",
        [
            {
                b"action": b"write",
                b"actor": b"tok",
                b"at": b"1.5",
                b"detail": b"d",
                b"origin": b"1.2.3.4",
                b"target": b"m1",
            }
        ],
    ),
    ":{idx:0.20}:format": ("string", b"2"),
    ":{idx:1.23}:format": ("string", b"2"),
    ":{idx:10.0}:format": ("string", b"2"),
    ":{idx:11.3}:format": ("string", b"2"),
    ":{idx:12.43}:format": ("string", b"2"),
    ":{idx:12.43}:m:m/2": (
        "hash",
        {
            b"findings": b"{}",
            b"league": b"",
            b"players": b'["Brock"]',
            b"season": b"",
            b"seq": b"2",
            b"severities": b"{}",
            b"status": b"in_progress",
        },
    ),
    ":{idx:12.43}:matches": ("zset", [(b"m/2", 0.0)]),
    ":{idx:12.43}:nfindings": ("zset", [(b"m/2", 0.0)]),
    ":{idx:12.43}:player:Brock": ("set", [b"m/2"]),
    ":{idx:12.43}:status:in_progress": ("set", [b"m/2"]),
    ":{idx:12.43}:text": ("hash", {b"m/2": b"m/2\nbrock"}),
    ":{idx:13.40}:format": ("string", b"2"),
    ":{idx:13.40}:names:league": ("set", [b"L2"]),
    ":{idx:14.12}:format": ("string", b"2"),
    ":{idx:15.11}:findings": ("hash", {b"seq_gap": b"1"}),
    ":{idx:15.11}:format": ("string", b"2"),
    ":{idx:15.11}:league:L%201": ("set", [b"m1"]),
    ":{idx:15.11}:m:m1": (
        "hash",
        {
            b"about": b'{"event":"Cup","round":"3","table":"7"}',
            b"findings": b'{"seq_gap": 1}',
            b"league": b"L 1",
            b"players": b'["Ash", "Misty \\u00e9"]',
            b"season": b"2026",
            b"seq": b"2",
            b"severities": b'{"warning": 1}',
            b"status": b"finished",
        },
    ),
    ":{idx:15.11}:matches": ("zset", [(b"m1", 0.0)]),
    ":{idx:15.11}:names:league": ("set", [b"L 1"]),
    ":{idx:15.11}:names:season": ("set", [b"2026"]),
    ":{idx:15.11}:nfindings": ("zset", [(b"m1", 65536.0)]),
    ":{idx:15.11}:player:Ash": ("set", [b"m1"]),
    ":{idx:15.11}:player:Misty%20%C3%A9": ("set", [b"m1"]),
    ":{idx:15.11}:season:2026": ("set", [b"m1"]),
    ":{idx:15.11}:status:finished": ("set", [b"m1"]),
    ":{idx:15.11}:text": ("hash", {b"m1": b"m1\nash\nmisty \xc3\xa9\ncup\n3\n7"}),
    ":{idx:2.13}:format": ("string", b"2"),
    ":{idx:3.10}:format": ("string", b"2"),
    ":{idx:4.0}:format": ("string", b"2"),
    ":{idx:5.3}:format": ("string", b"2"),
    ":{idx:6.63}:format": ("string", b"2"),
    ":{idx:7.60}:format": ("string", b"2"),
    ":{idx:8.13}:format": ("string", b"2"),
    ":{idx:9.10}:format": ("string", b"2"),
    ":{idx}:alarms": ("hash", {b"m1": b"record changed"}),
    ":{idx}:decks:Cup%202026": ("hash", {b"Ash": b"deck"}),
    ":{idx}:ended:sess%20ion": ("string", b"1"),
    ":{idx}:on_air": ("hash", {b"table:1": b"on"}),
    ":{m/2}:board": ("string", b"bb"),
    ":{m/2}:events": ("stream", [{b"e": b"x1"}, {b"e": b"x2"}]),
    ":{m/2}:owner": ("string", b"owner"),
    ":{m/2}:pending": ("hash", {b"5": b"held"}),
    ":{m/2}:record": ("string", b"rr"),
    ":{m/2}:seq": ("string", b"2"),
    ":{m/2}:state": (
        "hash",
        {b"chain": b"cd", b"writes": b"1", b"xlast": b"2-0", b"xlate": b"0", b"xlen": b"2"},
    ),
    ":{m1}:board": ("string", b"b2"),
    ":{m1}:causes": ("list", [b"m1 2", b"m1 2"]),
    ":{m1}:events": ("stream", [{b"e": b"e1"}, {b"e": b"e2"}, {b"e": b"e1x", b"k": b"conflict"}]),
    ":{m1}:lease": ("string", b"console-a"),
    ":{m1}:owner": ("string", b"owner"),
    ":{m1}:record": ("string", b"r3"),
    ":{m1}:seq": ("string", b"2"),
    ":{m1}:state": (
        "hash",
        {b"chain": b"ab", b"ck": b"ck", b"writes": b"3", b"xlast": b"2-1", b"xlate": b"1", b"xlen": b"3"},
    ),
    ":{m1}:versions": ("list", [b"r2", b"r3"]),
    ":{m3/tb1}:record": ("string", b"stub"),
    ":{m3/tb1}:state": ("hash", {b"writes": b"1"}),
    ":{m4}:state": ("hash", {b"writes": b"2"}),
}
