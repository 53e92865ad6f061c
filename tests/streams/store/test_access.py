"""The :class:`~streams.store.roles.Access` and :class:`~streams.store.roles.AuditLog` contract (the HTTP
access rules' share of the store), on memory, a Redis server and a Redis Cluster (``any_store``): a
match's owner is claimed once and atomically, ended sessions are remembered until they expire, one
console holds a match's lease, the audit log keeps its order."""

from __future__ import annotations

import asyncio
import time

import pytest

from streams.store import AuditEntry, Store


class TestAccess:
    """Every backend keeps who may do what, and what was done."""

    async def test_a_match_is_claimed_once_even_by_concurrent_producers(self, any_store: Store) -> None:
        claims = [f"producer-{i}".encode() for i in range(8)]
        got = [g for (g,) in await asyncio.gather(*(any_store.claim(["m1"], c) for c in claims))]
        assert len(set(got)) == 1 and got[0] in claims  # every caller is told the one owner
        assert await any_store.claim(["m1", "m2", "m3"], b"late") == [got[0], b"late", b"late"]
        assert await any_store.owners(["m1", "m2", "m4"]) == [got[0], b"late", None]
        assert await any_store.owners([]) == [] and await any_store.claim([], b"x") == []

    async def test_an_ended_session_is_remembered_until_it_would_have_expired(self, any_store: Store) -> None:
        assert not await any_store.session_ended("abc")
        await any_store.end_session("abc", time.time() + 60)
        assert await any_store.session_ended("abc") and not await any_store.session_ended("abd")
        await any_store.end_session("old", time.time() - 120)  # expired long ago: nothing to remember
        assert not await any_store.session_ended("old")

    async def test_a_consoles_lease_is_one_writer_at_a_time_and_expires(self, any_store: Store) -> None:
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

    async def test_a_lease_take_over_replaces_only_the_holder_it_saw(self, any_store: Store) -> None:
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

    async def test_the_audit_log_keeps_entries_in_order_and_pages(self, any_store: Store) -> None:
        first = AuditEntry(
            "write", "token:ingest-1", target="m1", origin="127.0.0.1", detail="3 events", at=1.5
        )
        second = AuditEntry("read_hidden", "token:judge-2", target="m1", origin="10.0.0.2", at=2.0)
        third = AuditEntry(
            "refused", "public", target="/events", origin="10.0.0.3", detail="no token", at=2.5
        )
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
