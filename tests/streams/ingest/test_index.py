"""The league index step (streams/ingest/index.py): the indexes follow the records."""

from __future__ import annotations

from replay.records import unpack_record
from streams.ingest import IngestCore
from streams.store import Store
from tests.streams.ingest.support import (
    game,
)


async def test_indexes_follow_the_records(any_store: Store) -> None:
    core = IngestCore(any_store)
    g1 = game("m1")
    for e in g1[:-3]:
        await core.ingest(e)
    assert await any_store.matches(status="in_progress", league="L1") == ["m1"]
    for e in g1[-3:] + game("m2", season="2027")[:2]:
        await core.ingest(e)
    assert await any_store.matches(status="finished") == ["m1"]
    assert await any_store.matches(player="ash") == ["m1", "m2"]
    assert await any_store.matches(season="2026") == ["m1"]
    assert await any_store.matches(season="2027", league="L1") == ["m2"]
    counts = await any_store.findings_counts()
    record = unpack_record(await any_store.record("m1"))
    assert record is not None
    assert sum(counts.values()) == len(record["findings"])
