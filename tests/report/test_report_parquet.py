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
from tests.report.league import league as report_league

pytestmark = [pytest.mark.redis]


def season(n: int) -> list[dict[str, Any]]:
    """``n`` simulated games in two leagues (one name to encode in a partition's directory), and the
    report tests' league event: Swiss rounds, a top cut, findings, claims that disagree with the rules,
    tiebreak playoffs (tests/report/league.py)."""
    out: list[dict[str, Any]] = list(report_league().events)
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

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "replay.cli", "report", *args],
            cwd=ROOT, env=env, capture_output=True, text=True, timeout=120,
        )  # fmt: skip

    def report(*args: str) -> str:
        out = run("--format", "json", *args)
        assert out.returncode == 0, out.stderr
        return out.stdout

    arch = str(tmp_path / "arch")
    store = ("--from-store", "--redis-prefix", redis_store.prefix)
    scopes: list[list[str]] = [
        [],
        ["--league", "Cerulean:Cup/2"],
        ["--league", "Pallet Town League", "--season", "2026"],
        ["--season", "2026"],
        ["--league", "Kanto League"],
        ["--round", "1"],  # filters the builder answers (not the partitions)
        ["--event", "League Cup", "--round", "2"],
        ["--league", "Cerulean:Cup/2", "--from", "2000-01-01", "--to", "2999-12-31"],
    ]
    for scope in scopes:
        stored = report(*store, *scope)
        archived = report("--parquet", arch, *scope)
        assert archived == stored, scope  # byte for byte: the same report, written the same way
        rep = json.loads(archived)
        assert rep["games"] > 0 and rep["sections"], scope
        for sec in rep["sections"]:  # every record is in it, not only its counters
            assert len(sec["integrity"]["records"]) == sec["games"]
            assert sec["matches"]["total"] == sum(len(ev["matches"]) for ev in sec["events"])
    whole = json.loads(report("--parquet", arch))
    leagues = {"Pallet Town League", "Cerulean:Cup/2", "Kanto League"}
    assert {sec["league"] for sec in whole["sections"]} == leagues
    assert any(sec["findings"]["items"] for sec in whole["sections"])
    assert any(sec["review"] for sec in whole["sections"])
    assert any(sec["playoffs"] and sec["playoffs"][0]["playoff_games"] for sec in whole["sections"])
    assert whole["games"] == sum(
        json.loads(report("--parquet", arch, "--league", name))["games"] for name in leagues
    )
    for fmt in ("text", "csv"):  # the other forms, from the whole report
        archived_form, stored_form = run("--parquet", arch, "--format", fmt), run(*store, "--format", fmt)
        assert archived_form.returncode == 0 and "Kanto League" in archived_form.stdout, archived_form.stderr
        assert archived_form.stdout == stored_form.stdout, fmt
    # a league neither holds: the same refusal from both
    for source in (store, ("--parquet", arch)):
        none = run(*source, "--league", "Viridian")
        assert none.returncode == 2 and "match league Viridian: nothing to report on" in none.stderr
    nothing = run("--parquet", str(tmp_path / "nothing"))
    assert nothing.returncode == 2 and "no archive here" in nothing.stderr
    (tmp_path / "empty" / "records" / "league=L1").mkdir(parents=True)
    empty = run("--parquet", str(tmp_path / "empty"))
    assert empty.returncode == 2 and "is empty: no records" in empty.stderr, empty.stderr
    assert "Traceback" not in empty.stderr + nothing.stderr
