"""Integrity and checkpoints (streams/ingest/integrity.py): records signed as the command line signs them.
The tamper alarms and checkpoint checks are also tested by rule in tests/streams/test_tamper.py,
test_verify_checkpoints.py and test_alarms.py."""

from __future__ import annotations

from replay.engine.chain import verify_signature
from replay.engine.record import dumps
from replay.records import unpack_record
from streams.ingest import IngestCore
from streams.store import Store
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
