"""``prizecheck check`` against tampering by someone who can write to Redis (issue 18 item 3): each attack of
the audit, done with Redis commands only (``tests/tamper.py``), is found and named, with the signed
checkpoints kept in Redis and the checkpoint log kept outside it (the embedded service's file)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from streams.check import CheckpointLogSnapshot, Report, check, read_checkpoint_file
from streams.ingest import IngestCore
from streams.store import RedisStore
from streams.store.checkpoint import CheckpointKey, FileCheckpoints
from tests import tamper
from tests.streams.test_check import games

pytestmark = pytest.mark.redis

KEY = CheckpointKey(b"check-tamper-key-0123456789", "k1")
SIGNING = b"check-tamper-key-0123456789"


class Stored:
    def __init__(self, store: RedisStore, path: str, by_match: dict[str, list[dict[str, Any]]]) -> None:
        self.store, self.path, self.by_match = store, path, by_match
        self.names = list(by_match)

    async def check(self, *, log: bool = True, key: CheckpointKey | None = KEY) -> Report:
        snapshot = None
        if log:
            snapshot = CheckpointLogSnapshot()
            read_checkpoint_file(snapshot, self.path, key)
        return await check(
            self.store, signing_key=SIGNING, key_id="k1", checkpoint_key=key, checkpoints=snapshot
        )

    async def ingest(self, events: list[dict[str, Any]]) -> None:
        log = FileCheckpoints(self.path, KEY, store=self.store.prefix)
        core = IngestCore(self.store, signing_key=SIGNING, key_id="k1", checkpoints=log)
        for i in range(0, len(events), 200):
            outcomes = await core.ingest_many(events[i : i + 200])
            assert {o.status for o in outcomes} <= {"applied", "buffered"}
        await log.close()


def codes(report: Report) -> set[tuple[str, str | None]]:
    return {(b.code, b.match) for b in report.breaches}


@pytest.fixture
async def stored(redis_store: RedisStore, tmp_path: Path) -> AsyncIterator[Stored]:
    """Six games (a playoff family among them), all but the last few events of the first, ingested in
    batches by a core that signs records and checkpoints and keeps the checkpoint log in a file."""
    by_match = games(6, seed=1)
    s = Stored(redis_store, str(tmp_path / "checkpoints.log"), by_match)
    first = s.names[0]
    await s.ingest([e for m, g in by_match.items() for e in (g[:-4] if m == first else g)])
    yield s


async def finish(s: Stored) -> None:
    await s.ingest(s.by_match[s.names[0]][-4:])


async def test_an_honest_store_and_its_log_hold_every_invariant(stored: Stored) -> None:
    await finish(stored)
    report = await stored.check()
    assert report.ok, report.breaches
    assert any("checkpoint log: " in n for n in report.notes)
    # a wrong key: every stored checkpoint and every logged one is refused
    wrong = await stored.check(key=CheckpointKey(b"another-key-0123456789", "k1"))
    assert {b.code for b in wrong.breaches} >= {"checkpoint_invalid", "log_entry"}


async def test_an_older_state_put_back_whole_is_a_rollback(stored: Stored) -> None:
    match = stored.names[0]
    saved = await tamper.snapshot(stored.store, match)  # every part signed, consistent
    await finish(stored)
    await tamper.put_back(stored.store, saved)
    report = await stored.check()
    assert codes(report) == {("rollback", match)}, report.breaches
    # Redis alone cannot tell: the old state is one the service signed
    assert (await stored.check(log=False)).ok


async def test_a_deleted_last_event_with_a_recomputed_head_and_an_older_record_is_found(
    stored: Stored,
) -> None:
    # The audit's case: delete the last event, recompute the chain head (plain SHA-256) and put back the
    # record the service signed before that event.
    match = stored.names[0]
    older = await stored.store.record(match)
    await finish(stored)
    await tamper.delete_last_event(stored.store, match)
    assert older is not None
    await stored.store.client.set(stored.store.key(match, "record"), older)
    report = await stored.check()
    assert ("checkpoint_mismatch", match) in codes(report)
    assert ("rollback", match) in codes(report)  # the logged checkpoints name the deleted event
    assert {m for _, m in codes(report)} == {match}
    # even without the log, the stored checkpoint does not sign what is left
    assert ("checkpoint_mismatch", match) in codes(await stored.check(log=False))


async def test_an_older_signed_record_put_back_is_found(stored: Stored) -> None:
    match = stored.names[0]
    older = await stored.store.record(match)
    await finish(stored)
    assert older is not None
    await stored.store.client.set(stored.store.key(match, "record"), older)
    report = await stored.check()
    assert codes(report) == {("checkpoint_mismatch", match), ("record_mismatch", match)}


async def version_heavy(stored: Stored) -> str:
    """The first match finished, then changed twice after its end: several versions."""
    await finish(stored)
    match = stored.names[0]
    n = len(stored.by_match[match])
    players = stored.by_match[match][0]["players"]
    await stored.ingest(
        [
            {"match": match, "seq": n + 1, "type": "penalty", "player": players[0], "kind": "warning"},
            {"match": match, "seq": n + 2, "type": "penalty", "player": players[1], "kind": "warning"},
        ]
    )
    assert len(await stored.store.versions(match)) >= 3
    return match


async def test_a_truncated_version_list_is_found(stored: Stored) -> None:
    match = await version_heavy(stored)
    await tamper.truncate_versions(stored.store, match, 1)
    report = await stored.check()
    assert ("versions_mismatch", match) in codes(report)
    assert ("rollback", match) in codes(report)
    assert {m for _, m in codes(report)} == {match}


async def test_an_edited_version_list_is_found(stored: Stored) -> None:
    match = await version_heavy(stored)
    first = await stored.store.version(match, 1)
    assert first is not None
    await tamper.edit_version(stored.store, match, 2, first.record)
    assert codes(await stored.check()) >= {("versions_mismatch", match), ("rollback", match)}


async def test_a_truncated_version_list_with_its_older_checkpoint_put_back_is_a_rollback(
    stored: Stored,
) -> None:
    match = stored.names[0]
    saved = await tamper.snapshot(stored.store, match)
    await version_heavy(stored)
    await tamper.put_back(stored.store, saved)
    assert ("rollback", match) in codes(await stored.check())


async def test_a_forged_held_event_is_found(stored: Stored) -> None:
    match = stored.names[0]
    head = await stored.store.head(match)
    await tamper.forge_held(stored.store, match, head + 2, tamper.penalty_game_loss(match, head + 2))
    report = await stored.check()
    assert codes(report) == {("pending_entry", match)}
    assert "seal" in report.breaches[0].detail


async def test_a_swapped_board_and_an_injected_conflict_are_found(stored: Stored) -> None:
    a, b = stored.names[1:3]
    await tamper.swap(stored.store, a, b, "board")
    await tamper.inject_conflict(stored.store, b, 7)
    found = codes(await stored.check())
    assert {("board_mismatch", a), ("checkpoint_mismatch", a), ("checkpoint_mismatch", b)} <= found
    assert {m for _, m in found} == {a, b}


async def test_a_swapped_index_entry_is_found(stored: Stored) -> None:
    a, b = stored.names[1], stored.names[0]  # other players, another status
    await tamper.swap_index_entry(stored.store, a, b)
    report = await stored.check()
    assert codes(report) == {("checkpoint_mismatch", a)}, report.breaches


async def test_a_removed_checkpoint_and_a_forged_log_line_are_found(stored: Stored) -> None:
    a = stored.names[1]
    await stored.store.client.hdel(stored.store.key(a, "state"), "ck")
    with open(stored.path, "ab") as fh:
        fh.write(b'{"v":1,"match":"x","mac":"00"}\n')
    found = codes(await stored.check())
    assert ("checkpoint_missing", a) in found
    assert ("log_entry", None) in found
