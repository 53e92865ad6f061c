"""The store's share of the HTTP access rules, on every backend (memory, Redis, Redis Cluster): a match's
owner is claimed once and atomically, ended sessions are remembered until they expire, and every name is
its own key part, encoded so that nothing in it can reach another key."""

from __future__ import annotations

import asyncio
import time

import pytest

from streams.store import Store
from streams.store.base import is_match_id
from streams.store.keys import key_part


async def test_a_match_is_claimed_once_even_by_concurrent_producers(any_store: Store) -> None:
    claims = [f"producer-{i}".encode() for i in range(8)]
    got = [g for (g,) in await asyncio.gather(*(any_store.claim(["m1"], c) for c in claims))]
    assert len(set(got)) == 1 and got[0] in claims  # every caller is told the one owner
    assert await any_store.claim(["m1", "m2", "m3"], b"late") == [got[0], b"late", b"late"]
    assert await any_store.owners(["m1", "m2", "m4"]) == [got[0], b"late", None]
    assert await any_store.owners([]) == [] and await any_store.claim([], b"x") == []


async def test_an_ended_session_is_remembered_until_it_would_have_expired(any_store: Store) -> None:
    assert not await any_store.session_ended("abc")
    await any_store.end_session("abc", time.time() + 60)
    assert await any_store.session_ended("abc") and not await any_store.session_ended("abd")
    await any_store.end_session("old", time.time() - 120)  # expired long ago: nothing to remember
    assert not await any_store.session_ended("old")


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
