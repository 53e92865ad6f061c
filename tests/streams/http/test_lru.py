"""The review page's byte-bounded cache (streams.http.lru.ByteBoundLRU): what it keeps, what it drops first,
what it refuses, and a value that grows while it is kept (a review fold)."""

from __future__ import annotations

from streams.http.lru import ByteBoundLRU


class Growing:
    """A value whose bytes grow while it is kept, as a review fold's encoded steps do."""

    def __init__(self, size: int) -> None:
        self.size = size


def grown(value: Growing) -> int:
    return value.size


def test_the_least_recently_used_is_dropped_first() -> None:
    cache: ByteBoundLRU[str, bytes] = ByteBoundLRU(10, len)
    cache.put("a", b"aaa")
    cache.put("b", b"bbb")
    cache.put("c", b"ccc")
    assert cache.get("a") == b"aaa"  # now the most recently used: "b" is the oldest
    cache.put("d", b"ddd")
    assert "b" not in cache and cache.get("b") is None
    assert [k for k in "acd" if k in cache] == ["a", "c", "d"]
    assert cache.size == 9
    cache.put("e", b"eeeeee")  # 15 bytes: "c" then "a" go, oldest first
    assert "c" not in cache and "a" not in cache
    assert cache.get("d") == b"ddd" and cache.get("e") == b"eeeeee"
    assert cache.size == 9 and len(cache) == 2


def test_a_value_put_again_counts_once() -> None:
    cache: ByteBoundLRU[str, bytes] = ByteBoundLRU(10, len)
    cache.put("a", b"aaaa")
    cache.put("b", b"bbbb")
    cache.put("a", b"AAAAAA")  # replaces "a" (4 bytes) and is now the most recent: 10 in all
    assert cache.size == 10 and len(cache) == 2
    cache.put("c", b"c")  # "b" is the oldest now
    assert "b" not in cache and cache.get("a") == b"AAAAAA" and cache.size == 7


def test_a_value_larger_than_the_limit_is_refused() -> None:
    cache: ByteBoundLRU[str, bytes] = ByteBoundLRU(10, len)
    cache.put("a", b"aaaa")
    cache.put("big", b"small")
    assert cache.put("big", b"x" * 11) is False
    # nothing changed: not the others, not the value already kept under that key
    assert cache.get("a") == b"aaaa" and cache.get("big") == b"small" and cache.size == 9
    assert cache.put("exact", b"x" * 10) is True  # the limit itself is kept, alone
    assert len(cache) == 1 and cache.size == 10


def test_a_value_that_grew_is_measured_again_at_trim() -> None:
    cache: ByteBoundLRU[str, Growing] = ByteBoundLRU(100, grown)
    old, mid, new = Growing(0), Growing(0), Growing(0)
    cache.put("old", old)
    cache.put("mid", mid)
    cache.put("new", new)
    old.size, mid.size, new.size = 40, 40, 10
    cache.trim()
    assert len(cache) == 3 and cache.size == 90
    new.size = 50  # read further after it was put: 130 in all
    cache.trim()
    assert "old" not in cache and cache.get("mid") is mid and cache.get("new") is new
    assert cache.size == 90
    # a put counts the others as last measured; the next trim sees what they grew to
    mid.size = 80
    cache.put("third", Growing(0))
    assert len(cache) == 3
    cache.trim()
    assert "mid" not in cache and cache.size == 50


def test_the_most_recently_used_is_kept_whatever_it_grew_to() -> None:
    cache: ByteBoundLRU[str, Growing] = ByteBoundLRU(100, grown)
    first, second = Growing(10), Growing(10)
    cache.put("first", first)
    cache.put("second", second)
    assert cache.get("first") is first  # in use again: the most recently used
    first.size = 500
    cache.trim()
    assert "second" not in cache and cache.get("first") is first
    assert len(cache) == 1 and cache.size == 500
    cache.trim()  # alone past the limit, it stays
    assert cache.get("first") is first
    cache.put("next", Growing(0))  # the next one in use drops it
    assert "first" not in cache and len(cache) == 1 and cache.size == 0
