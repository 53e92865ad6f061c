"""``prizecheck show MATCH --history`` and ``--version N`` (issue 10, item 4), run as a user runs them,
against a real Redis (this test's own key prefix) that the ingest core filled."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from replay import replay_records
from streams.ingest import IngestCore
from streams.store import RedisStore
from tests.cli.test_cli import run
from tests.streams.http.test_versions import KEY, KEY_ID, penalty_after_the_end, signed_record
from tests.streams.ingest.support import drawn, game, playoff


def show(
    store: RedisStore, redis_url: str, *args: str, key: bool = True
) -> subprocess.CompletedProcess[bytes]:
    env = {"REDIS_URL": redis_url, "PRIZECHECK_SIGNING_KEY": KEY.decode() if key else ""}
    return run("show", *args, "--redis-prefix", store.prefix, env=env)


async def ingest(store: RedisStore, events: list[dict[str, Any]]) -> None:
    core = IngestCore(store, signing_key=KEY, key_id=KEY_ID)
    for e in events:
        assert (await core.ingest(e)).status == "applied", e


async def test_history_lists_each_version_and_its_cause(redis_store: RedisStore, redis_url: str) -> None:
    events = game("m1")  # conceded at seq 36, the source's claim at 37 (each a version, one at a time)
    late = penalty_after_the_end(events)  # seq 38: the winner changes
    await ingest(redis_store, [*events, late])
    p = show(redis_store, redis_url, "m1", "--history")
    assert p.returncode == 0, p.stderr
    lines = p.stdout.decode().splitlines()
    assert lines[0] == "m1: 3 versions, oldest first"
    decided = replay_records(events)["m1"]["result"]["decided_at"]
    assert lines[1].split() == [
        "v1", "finished", "misty", "beat", "ash", "by", "concession", "at", "seq", str(decided),
        "caused", "by", "seq", "36", "36", "events,", "0", "findings,", "no", "claim,", "signed", "k7",
        "(valid)",
    ]  # fmt: skip
    assert "misty beat ash by concession" in lines[2] and "caused by seq 37 " in lines[2]
    assert "claim agrees" in lines[2]  # v2: the source's claim arrived after the end
    assert lines[3].split()[:7] == ["v3", "finished", "ash", "beat", "misty", "by", "penalty"]
    assert "caused by seq 38 " in lines[3]

    # --json: one summary per line, what GET /matches/m1/versions lists
    p = show(redis_store, redis_url, "m1", "--history", "--json")
    summaries = [json.loads(line) for line in p.stdout.splitlines()]
    assert [(s["version"], s["cause"], s["result"]["winner"]) for s in summaries] == [
        (1, {"match": "m1", "seq": 36}, "misty"),
        (2, {"match": "m1", "seq": 37}, "misty"),
        (3, {"match": "m1", "seq": 38}, "ash"),
    ]
    # without the key the signatures cannot be checked, and the listing says so
    p = show(redis_store, redis_url, "m1", "--history", key=False)
    assert p.stdout.decode().count("signed k7 (not_checked)") == 3

    # --version N: that version's record, as replay prints it for the events up to its cause
    p = show(redis_store, redis_url, "m1", "--version", "2", "--json")
    assert p.returncode == 0 and p.stdout == signed_record(events) + b"\n"
    p = show(redis_store, redis_url, "m1", "--version", "1", "--json")
    assert p.stdout == signed_record(events[:36]) + b"\n"
    p = show(redis_store, redis_url, "m1", "--version", "3")
    assert "ash beat misty by penalty" in p.stdout.decode()
    assert show(redis_store, redis_url, "m1", "--json").stdout == signed_record([*events, late]) + b"\n"


async def test_history_names_the_playoff_game_that_settled_the_parent(
    redis_store: RedisStore, redis_url: str
) -> None:
    await ingest(redis_store, drawn("g1").events + playoff("g1/tb1", "g1", True).events)
    text = show(redis_store, redis_url, "g1", "--history").stdout.decode()
    lines = text.splitlines()
    assert lines[0] == "g1: 2 versions, oldest first"
    assert "awaiting_playoff" in lines[1] and "caused by seq" in lines[1]
    assert "ash beat misty by playoff" in lines[2] and "caused by g1/tb1 seq" in lines[2]


async def test_bad_requests_exit_2_and_a_game_in_progress_has_no_versions(
    redis_store: RedisStore, redis_url: str
) -> None:
    events = game("m1")
    await ingest(redis_store, events)
    await ingest(redis_store, game("m2")[:10])
    p = show(redis_store, redis_url, "m2", "--history")
    assert p.returncode == 0
    assert p.stdout == b"m2: no versions: the game is not finished (version 1 is its first finished record)\n"
    p = show(redis_store, redis_url, "m1", "--version", "4")
    assert p.returncode == 2 and p.stdout == b""
    assert p.stderr.decode() == "prizecheck show: match m1: field --version: no version 4: versions 1 to 2\n"
    p = show(redis_store, redis_url, "m2", "--version", "1")
    assert p.returncode == 2 and "the record has no versions (not finished)" in p.stderr.decode()
    p = show(redis_store, redis_url, "m1", "--version", "0")
    assert p.returncode == 2 and "argument --version: must be >= 1, got 0" in p.stderr.decode()
    for args in (("nope", "--history"), ("nope", "--version", "1")):
        p = show(redis_store, redis_url, *args)
        assert p.returncode == 2 and "match nope: no record stored" in p.stderr.decode(), args
    p = show(redis_store, redis_url, "m1", "--history", "--version", "1")
    assert p.returncode == 2 and b"not allowed with argument" in p.stderr  # one or the other


async def test_hmac_records_of_before_stay_valid_beside_a_key_ring(
    redis_store: RedisStore, redis_url: str, tmp_path: Path
) -> None:
    """A service upgraded to Ed25519 (a key ring in its data directory) still reads the HMAC records it
    signed before, whatever label (PRIZECHECK_KEY_ID) they were signed under: the label is not part of the
    secret. Before, the same record was "valid" without a key ring and "invalid" beside one (a test that
    ran after another had made a ring in the shared data directory failed)."""
    env = {**os.environ, "PRIZECHECK_DATA_DIR": str(tmp_path / "data")}
    made = subprocess.run(
        [sys.executable, "-m", "replay.cli", "keys", "--rotate"], env=env, capture_output=True, timeout=60
    )
    assert made.returncode == 0, made.stderr
    await ingest(redis_store, game("m1"))
    p = run(
        "show", "m1", "--history", "--redis-prefix", redis_store.prefix,
        env={"PRIZECHECK_DATA_DIR": str(tmp_path / "data"), "REDIS_URL": redis_url,
             "PRIZECHECK_SIGNING_KEY": KEY.decode()},
    )  # fmt: skip
    assert p.returncode == 0, p.stderr
    lines = p.stdout.decode().splitlines()[1:]
    assert lines and all(line.split()[-1] == "(valid)" for line in lines if "signed" in line), lines
