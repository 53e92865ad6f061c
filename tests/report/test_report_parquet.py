"""``prizecheck report --parquet DIR`` (issue 24 item 4): the report DuckDB answers from the cold archive is
the report ``--from-store`` gives over the same matches (a season ingested into a real Redis, archived by
``prizecheck archive``, both reports run as the user runs them)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("duckdb")
pytest.importorskip("pyarrow")

from replay.report.parquet import partition_value
from replay.sources.simulate import simulate_corpus
from streams.archive import archive, family
from streams.ingest import IngestCore
from streams.store import RedisStore
from streams.store.base import key_part
from tests.faults.harness import base_env
from tests.paths import ROOT

pytestmark = [pytest.mark.redis]


def season(n: int) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    leagues = ("Pallet Town League", "Cerulean:Cup/2")  # a name to encode in a partition's directory
    for stream in simulate_corpus(n, seed=31):
        for e in stream:
            if e["type"] == "match_started":
                league = leagues[sum(map(ord, family(e["match"]))) % 2]
                e = {**e, "context": {**(e.get("context") or {}), "league": league, "season": "2026"}}
            out.append(e)
    return out


def test_partition_names_are_the_stores_key_parts() -> None:
    for name in ("L1", "Pallet Town League", "Cerulean:Cup/2", "é", "../x", "100%"):
        assert partition_value(name) == key_part(name)


async def test_the_parquet_report_is_the_store_report_of_the_same_matches(
    redis_store: RedisStore, redis_url: str, tmp_path: Path
) -> None:
    await IngestCore(redis_store).ingest_many(season(30))
    run = await archive(redis_store, str(tmp_path / "arch"))
    assert run.archived and not run.skipped, run.skipped
    env = base_env(REDIS_URL=redis_url, PRIZECHECK_DATA_DIR=str(tmp_path / "data"))
    for name in ("PRIZECHECK_SIGNING_KEY", "PRIZECHECK_KEY_ID"):  # stored unsigned, reported unsigned
        env.pop(name)

    def report(*args: str) -> Any:
        out = subprocess.run(
            [sys.executable, "-m", "replay.cli", "report", "--format", "json", *args],
            cwd=ROOT, env=env, capture_output=True, text=True, timeout=120,
        )  # fmt: skip
        assert out.returncode == 0, out.stderr
        return json.loads(out.stdout)

    for scope in ([], ["--league", "Cerulean:Cup/2"], ["--league", "Pallet Town League", "--season", "2026"]):
        stored = report("--from-store", "--redis-prefix", redis_store.prefix, *scope)
        archived = report("--parquet", str(tmp_path / "arch"), *scope)
        assert archived == stored, scope
        assert archived["games"] > 0 and archived["sections"]
    empty = subprocess.run(
        [sys.executable, "-m", "replay.cli", "report", "--parquet", str(tmp_path / "nothing")],
        cwd=ROOT, env=env, capture_output=True, text=True,
    )  # fmt: skip
    assert empty.returncode == 2 and "no archive here" in empty.stderr
