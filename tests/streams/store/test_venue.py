"""The :class:`~streams.store.roles.Venue` contract (deck lists, stream tables), on memory, a Redis server
and a Redis Cluster (``any_store``)."""

from __future__ import annotations

from streams.store import Store


class TestVenue:
    """Every backend keeps an event's deck lists and stream tables."""

    async def test_deck_lists_are_kept_per_event_and_replaced_by_key(self, any_store: Store) -> None:
        assert await any_store.decks("Cup") == {}
        await any_store.put_deck("Cup", "ash", b"a1")
        await any_store.put_deck("Cup", "ash|cup/r3/t1/g1", b"a2")
        await any_store.put_deck("Cup: {x} *", "ash", b"other")  # any event name stays its own key
        await any_store.put_deck("Cup", "ash", b"a3")
        assert await any_store.decks("Cup") == {"ash": b"a3", "ash|cup/r3/t1/g1": b"a2"}
        assert await any_store.decks("Cup: {x} *") == {"ash": b"other"}

    async def test_a_stream_slot_is_replaced_only_if_unchanged_since_read(self, any_store: Store) -> None:
        assert await any_store.on_air("slot:main") is None
        assert await any_store.swap_on_air("slot:main", None, b"1")
        assert not await any_store.swap_on_air("slot:main", None, b"2")  # someone wrote it since
        assert not await any_store.swap_on_air("slot:main", b"0", b"2")
        assert await any_store.swap_on_air("slot:main", b"1", b"2")
        assert await any_store.on_air("slot:main") == b"2" and await any_store.on_air("slot:other") is None
