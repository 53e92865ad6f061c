"""Integrity and checkpoints (streams/ingest/integrity.py): records signed as the command line signs them.
The tamper alarms and checkpoint checks are also tested by rule in tests/streams/test_tamper.py,
test_verify_checkpoints.py and test_alarms.py."""

from __future__ import annotations

from typing import Any

from replay.engine.chain import verify_signature
from replay.engine.record import dumps
from replay.records import unpack_record
from streams.ingest import IngestCore, integrity
from streams.store import MemoryStore, Store, checkpoint
from tests.streams.ingest.support import (
    game,
    offline,
)


async def test_records_are_signed_like_the_cli_signs_them(any_store: Store) -> None:
    events = game("m1")
    core = IngestCore(any_store, signing_key=b"s3cret", key_id="k7")
    for e in events:
        await core.ingest(e)
    record = unpack_record(await any_store.record("m1"))
    assert record is not None
    assert record["signature"]["key_id"] == "k7" and verify_signature(record, b"s3cret")
    cli = offline(events, env={"PRIZECHECK_SIGNING_KEY": "s3cret", "PRIZECHECK_KEY_ID": "k7"})
    assert dumps(record) == cli["m1"]


async def test_a_write_whose_index_entry_shows_what_the_last_did_digests_it_once(monkeypatch: Any) -> None:
    # Every write's checkpoint names its index entry's digest (index, index_seen); a game in progress
    # mostly shows the same entry write after write, digested once (the digest is of the view alone).
    # Each checkpoint still names the entry the index holds: a rebuild checks it (test_tamper.py).
    digested: list[str] = []

    def counted(view: Any) -> str:
        digested.append(checkpoint.index_digest(view))
        return digested[-1]

    monkeypatch.setattr(integrity, "index_digest", counted)
    store = MemoryStore()
    core = IngestCore(store)
    events = game("m1")
    for e in events:
        await core.ingest(e)
        entry = await store.index_entry("m1")
        stored = (await store.state("m1")).checkpoint
        assert entry is not None and stored is not None
        assert checkpoint.Checkpoint.decode(stored).index == checkpoint.index_digest(entry.view())
    assert len(events) > 20 and 0 < len(digested) <= len(events) // 2
