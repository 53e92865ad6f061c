"""``prizecheck alarms``: the tamper alarms listed, and one cleared once a judge has looked into it (issue
32, "Also"), on a real Redis: the clearing is in the audit log, and the ingest core that raised the alarm
reads the match again at its next event (applied when the data was mended, the alarm again when not)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from replay.engine.chain import canonical_bytes
from replay.engine.errors import EventError
from replay.generators.simulate import simulate_corpus
from streams.ingest import IngestCore
from streams.store import RedisStore
from tests.faults.harness import base_env
from tests.paths import ROOT
from tests.tamper import rewrite_event

pytestmark = pytest.mark.redis


async def _restore(store: RedisStore, match: str, seq: int, data: bytes) -> None:
    """Put the archived bytes of ``seq`` back as they were (the judge's repair)."""
    key = store.key(match, "events")
    entries = await store.client.xrange(key, "-", "+")
    async with store.client.pipeline(transaction=True) as pipe:
        pipe.delete(key)
        for entry_id, fields in entries:
            same = entry_id == f"{seq}-0".encode()
            pipe.xadd(key, {**fields, b"e": data} if same else fields, id=entry_id)
        await pipe.execute()


async def test_an_alarm_is_listed_cleared_with_who_looked_and_the_match_is_read_again(
    redis_store: RedisStore, redis_url: str, tmp_path: Path
) -> None:
    game = [dict(e) for e in next(iter(simulate_corpus(1, seed=5)))]
    match = game[0]["match"]
    core = IngestCore(redis_store, signing_key=b"k", key_id="k1")
    head = 40
    assert {o.status for o in await core.ingest_many(game[:head])} == {"applied"}
    old, _ = await rewrite_event(redis_store, match, 12)
    with pytest.raises(EventError):
        await core.rebuild(match)  # the changed archive: an alarm, the match's events refused
    assert (await core.ingest(game[head])).status == "rejected"
    env = base_env(REDIS_URL=redis_url, PRIZECHECK_DATA_DIR=str(tmp_path / "data"))

    def alarms(*args: str) -> subprocess.CompletedProcess[str]:
        command = [sys.executable, "-m", "replay.cli", "alarms", "--redis-prefix", redis_store.prefix, *args]
        return subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=60)

    listed = alarms("--json")
    assert listed.returncode == 0, listed.stderr
    (row,) = [json.loads(line) for line in listed.stdout.splitlines()]
    assert row["match"] == match and "changed outside the service" in row["alarm"]
    # cleared while the data is still changed: the core reads the match again and raises it again
    cleared = alarms("--clear", match, "--by", "Head Judge Ada", "--note", "looking into it")
    assert cleared.returncode == 0 and f"{match}: tamper alarm cleared" in cleared.stdout, cleared.stderr
    assert (await core.ingest(game[head])).status == "rejected"
    assert match in await redis_store.alarms()
    # mended (the event put back), then cleared: the next event is applied
    await _restore(redis_store, match, 12, old)
    cleared = alarms("--clear", match, "--by", "Head Judge Ada", "--note", "event 12 restored from the topic")
    assert cleared.returncode == 0, cleared.stderr
    assert await redis_store.alarms() == {}
    outcome = await core.ingest(game[head])
    assert outcome.status == "applied", outcome
    audited = [e for e in await redis_store.audit_log() if e.action == "alarm_cleared"]
    assert [e.target for e in audited] == [match, match]
    assert audited[-1].actor.startswith("cli ") and "looked into by Head Judge Ada: event 12 restored" in (
        audited[-1].detail
    )
    assert "the alarm was: match " in audited[-1].detail
    # nothing to clear: one line, exit 2
    again = alarms("--clear", match, "--by", "Ada", "--note", "x")
    assert again.returncode == 2 and again.stdout == ""
    assert (
        again.stderr == f"prizecheck alarms: {match}: no tamper alarm stands for this match (prizecheck "
        "alarms lists them)\n"
    )
    assert canonical_bytes(game[head]) == await redis_store.event(match, head + 1)
