"""The report's three ways in (event files, record files, the service's store) decode each record once into
its typed value (``replay.records``) and give the same report, byte for byte; a record that is not one is
an error naming where it is and the field, exit 2, never a traceback or a record silently left out.

The store is the real Redis server (``tests/fixtures_redis.py``: a key prefix of the test's own).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import msgpack

from replay.codec import encode_jsonl
from replay.engine.chain import dumps
from streams.store import IndexEntry, RedisStore
from tests.report.league import LEAGUE, league

REPORT = [sys.executable, "-m", "replay.cli", "report", "--format", "json", "--base-url", "http://j:8080"]


def _run(args: list[str], **env: str) -> subprocess.CompletedProcess[bytes]:
    base = {k: v for k, v in os.environ.items() if k != "REDIS_URL" and not k.startswith("PRIZECHECK_")}
    return subprocess.run([*REPORT, *args], capture_output=True, timeout=300, env={**base, **env})


async def _store(store: RedisStore, records: list[dict[str, Any]]) -> None:
    """The records and their league index entries, as the service stores them."""
    for rec in records:
        await store.put_record(str(rec["match"]), msgpack.packb(rec))
        await store.index(IndexEntry.from_record(rec, rec["chain"]["events"]))


async def test_files_records_and_the_store_give_the_same_report(
    tmp_path: Path, redis_store: RedisStore, redis_url: str
) -> None:
    lg = league()
    events = tmp_path / "league.jsonl"
    events.write_bytes(encode_jsonl(lg.events))
    lines = tmp_path / "records.jsonl"
    lines.write_bytes(b"".join(dumps(r) + b"\n" for r in lg.records.values()))
    await _store(redis_store, list(lg.records.values()))
    from_events = _run([str(events), "--league", LEAGUE])
    from_lines = _run(["--records", str(lines), "--league", LEAGUE])
    stored = ["--from-store", "--redis-prefix", redis_store.prefix, "--league", LEAGUE]
    from_store = _run(stored, REDIS_URL=redis_url)
    for p in (from_events, from_lines, from_store):
        assert p.returncode == 0, p.stderr
    assert from_events.stdout == from_lines.stdout == from_store.stdout
    assert b'"games":%d' % len(lg.records) in from_store.stdout


async def test_a_stored_record_that_is_not_one_is_named_with_its_field(
    redis_store: RedisStore, redis_url: str
) -> None:
    recs = list(league().records.values())[:5]
    bad = dict(recs[2], result={**(recs[2]["result"] or {}), "winner": 7})
    await _store(redis_store, [*recs[:2], bad, *recs[3:]])
    p = _run(["--from-store", "--redis-prefix", redis_store.prefix, "--league", LEAGUE], REDIS_URL=redis_url)
    err = p.stderr.decode()
    assert p.returncode == 2 and p.stdout == b"" and "Traceback" not in err
    assert f"match {bad['match']}: field result.winner: not a Prizecheck record" in err


def test_a_record_line_that_is_not_one_is_named_with_its_file_line_and_field(tmp_path: Path) -> None:
    recs = list(league().records.values())[:3]
    wrong = dict(recs[1], chain={**recs[1]["chain"], "events": "many"})
    path = tmp_path / "r.jsonl"
    path.write_bytes(dumps(recs[0]) + b"\n" + dumps(wrong) + b"\n" + dumps(recs[2]) + b"\n")
    p = _run(["--records", str(path)])
    err = p.stderr.decode()
    assert p.returncode == 2 and p.stdout == b"" and "Traceback" not in err
    assert f"{path}:2: field chain.events: not a Prizecheck record: Expected `int`, got `str`" in err
    # a line that is not JSON, or not a record at all, keeps its own words
    path.write_bytes(dumps(recs[0]) + b"\n{not json\n")
    p = _run(["--records", str(path)])
    assert p.returncode == 2 and f"{path}:2:" in p.stderr.decode() and b"Traceback" not in p.stderr
    path.write_bytes(b'{"players": []}\n')
    p = _run(["--records", str(path)])
    assert p.returncode == 2 and f"{path}:1: field match: not a Prizecheck record" in p.stderr.decode()
