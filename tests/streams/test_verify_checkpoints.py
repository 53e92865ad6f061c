"""``prizecheck verify --checkpoints`` (replay/cli/verify.py) as a subprocess: a record, its events and its
versions, as an auditor fetches them, against the service's checkpoint log. The store is written by the
ingest core with the file log ``prizecheck serve`` keeps (in memory: no Redis needed)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import msgpack

from replay.engine.record import dumps
from streams.ingest import IngestCore
from streams.store import MemoryStore
from streams.store.checkpoint import CheckpointKey, FileCheckpoints
from tests.paths import ROOT
from tests.streams.ingest.support import game

SECRET = "verify-checkpoints-key-0123"
KEY = CheckpointKey(SECRET.encode(), "v1")


def run(tmp_path: Path, *args: str, key: str | None = SECRET) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PRIZECHECK_")}
    env.update(PYTHONPATH=str(ROOT), PRIZECHECK_DATA_DIR=str(tmp_path / "nowhere"))
    if key is not None:
        env.update(PRIZECHECK_SIGNING_KEY=key, PRIZECHECK_KEY_ID="v1")
    return subprocess.run(
        [sys.executable, "-m", "replay.cli", "verify", *args],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120,
    )  # fmt: skip


def line(data: bytes | None) -> str:
    assert data is not None
    return dumps(msgpack.unpackb(data, raw=False)).decode() + "\n"


async def written(tmp_path: Path) -> tuple[MemoryStore, list[dict[str, Any]], str]:
    """A game, finished, then changed twice after its end (versions), the record fetched before its last
    two events kept as ``older.json``."""
    store = MemoryStore()
    log = FileCheckpoints(str(tmp_path / "checkpoints.log"), KEY, store="")
    core = IngestCore(store, signing_key=SECRET.encode(), key_id="v1", checkpoints=log)
    events = game("m1")
    n = len(events)
    events += [
        {"match": "m1", "seq": n + 1, "type": "penalty", "player": "ash", "kind": "warning"},
        {"match": "m1", "seq": n + 2, "type": "penalty", "player": "misty", "kind": "warning"},
    ]
    for e in events[:-2]:
        await core.ingest(e)
    (tmp_path / "older.json").write_text(line(await store.record("m1")))
    for e in events[-2:]:
        await core.ingest(e)
    await log.close()
    (tmp_path / "record.json").write_text(line(await store.record("m1")))
    (tmp_path / "events.jsonl").write_text("".join(json.dumps(e) + "\n" for e in events))
    (tmp_path / "short.jsonl").write_text("".join(json.dumps(e) + "\n" for e in events[:-1]))
    versions = await store.versions("m1")
    assert len(versions) >= 3
    (tmp_path / "versions.jsonl").write_text("".join(line(v.record) for v in versions))
    (tmp_path / "cut.jsonl").write_text("".join(line(v.record) for v in versions[:-1]))
    return store, events, str(tmp_path / "checkpoints.log")


async def test_the_newest_record_events_and_versions_pass(tmp_path: Path) -> None:
    _, _, log = await written(tmp_path)
    args = ["--events", "events.jsonl", "--versions", "versions.jsonl"]
    p = run(tmp_path, "record.json", "--checkpoints", log, *args, "--redis-prefix", "")
    assert p.returncode == 0, p.stdout + p.stderr
    assert p.stdout == "m1: ok (signature, chain, record, checkpoint, versions)\n"


async def test_an_older_signed_record_fails(tmp_path: Path) -> None:
    _, _, log = await written(tmp_path)
    p = run(tmp_path, "older.json", "--checkpoints", log, "--redis-prefix", "")
    assert p.returncode == 1
    assert p.stdout.startswith("m1: FAILED: an older record: the service signed it at write ")


async def test_a_deleted_last_event_fails(tmp_path: Path) -> None:
    # the audit's case: the events without the last one, and the record they re-derive, signed by the
    # service before that event: signature, chain and record agree; only the checkpoint log says no
    _, _, log = await written(tmp_path)
    p = run(tmp_path, "older.json", "--events", "short.jsonl", "--checkpoints", log, "--redis-prefix", "")
    assert p.returncode == 1
    assert "events were deleted or changed" in p.stdout and "an older record" in p.stdout, p.stdout


async def test_a_truncated_version_list_fails(tmp_path: Path) -> None:
    _, _, log = await written(tmp_path)
    args = ["--checkpoints", log, "--versions", "cut.jsonl", "--redis-prefix", ""]
    p = run(tmp_path, "record.json", *args)
    assert p.returncode == 1 and "truncated or edited" in p.stdout, p.stdout


async def test_a_forged_log_line_and_a_missing_key_are_named(tmp_path: Path) -> None:
    _, _, log = await written(tmp_path)
    with open(log, "ab") as fh:
        fh.write(b'{"v":1,"match":"m1","writes":999,"mac":"00"}\n')
    p = run(tmp_path, "record.json", "--checkpoints", log, "--redis-prefix", "")
    assert p.returncode == 1 and "FAILED: line " in p.stdout, p.stdout
    p = run(tmp_path, "record.json", "--checkpoints", log, key=None)
    assert p.returncode == 2 and "no checkpoint key" in p.stderr and "Traceback" not in p.stderr, p.stderr
