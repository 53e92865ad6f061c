"""Per-match memory (streams/ingest/memory.py): idle games are evicted and rebuilt from the archive."""

from __future__ import annotations

from streams.ingest import IngestCore
from streams.store import Store
from tests.streams.ingest.support import (
    game,
    in_process,
    stored,
)


async def test_idle_games_are_evicted_from_memory_and_rebuilt(any_store: Store) -> None:
    core = IngestCore(any_store, max_matches=3)
    games = {f"e{i}": game(f"e{i}") for i in range(6)}
    for i in range(0, 37, 6):  # interleave the matches so each is evicted and rebuilt many times
        for evs in games.values():
            for e in evs[i : i + 6]:
                assert (await core.ingest(e)).status == "applied"
    assert core.stats()["matches"] <= 3
    expected = in_process([e for evs in games.values() for e in evs])
    for match in games:
        assert await stored(any_store, match) == expected[match]
