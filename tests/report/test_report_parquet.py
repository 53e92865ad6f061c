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

from replay.generators.simulate import simulate_corpus
from replay.report.parquet import partition_value
from streams.archive import archive, family
from streams.ingest import IngestCore
from streams.store import RedisStore
from streams.store.checkpoint import configured_key
from streams.store.keys import key_part
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
    # the archive's manifest is signed with the service's checkpoint key (its data directory's, here)
    key = configured_key(None, None, str(tmp_path / "data"), create=True)
    run = await archive(redis_store, str(tmp_path / "arch"), manifest_key=key)
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


def _rewrite(path: Path, change: Any) -> None:
    """Rewrite a records file with ``change(rows)`` applied to its rows (a list of dicts): what someone with
    write access to the archive's directory can do."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    table = pq.read_table(path)
    columns = table.to_pydict()
    rows = [dict(zip(columns, values, strict=True)) for values in zip(*columns.values(), strict=True)]
    rows = change(rows)
    pq.write_table(pa.table({k: [r[k] for r in rows] for k in columns}, schema=table.schema), path)


async def test_the_parquet_report_refuses_records_files_that_are_not_the_signed_ones(
    redis_store: RedisStore, redis_url: str, tmp_path: Path
) -> None:
    """Issue 32 item 3: an older signed version put back, another match's signed record, deleted rows and a
    deleted partition file changed the published results with exit 0. Each is now refused, named."""
    import shutil

    await IngestCore(redis_store).ingest_many(report_league().events)
    key = configured_key(None, None, str(tmp_path / "data"), create=True)
    arch = tmp_path / "arch"
    run = await archive(redis_store, str(arch), manifest_key=key)
    assert run.archived, run.skipped
    env = base_env(REDIS_URL=redis_url, PRIZECHECK_DATA_DIR=str(tmp_path / "data"))
    for name in ("PRIZECHECK_SIGNING_KEY", "PRIZECHECK_KEY_ID"):
        env.pop(name)

    def report(where: Path) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "replay.cli", "report", "--parquet", str(where), "--format", "json"],
            cwd=ROOT, env=env, capture_output=True, text=True, timeout=120,
        )  # fmt: skip

    assert report(arch).returncode == 0
    records = sorted((arch / "records").rglob("*.parquet"))
    import pyarrow.parquet as pq

    rows = pq.read_table(records[0], columns=["match", "version", "record"]).to_pydict()
    by = {(m, v): r for m, v, r in zip(rows["match"], rows["version"], rows["record"], strict=True)}
    settled = next(m for (m, v), r in by.items() if v == 1 and r != by[(m, 0)])  # a record that changed
    other = next(m for (m, v) in by if v == 0 and m != settled)

    def older(rs: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return [
            {**r, "record": by[(settled, 1)]} if (r["match"], r["version"]) == (settled, 0) else r for r in rs
        ]

    def anothers(rs: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return [
            {**r, "record": by[(other, 0)]} if (r["match"], r["version"]) == (settled, 0) else r for r in rs
        ]

    def deleted(rs: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return [r for r in rs if r["match"] != settled]

    rel = records[0].relative_to(arch)
    cases = {
        "an older signed version was put back as its record": older,
        f"its record is another match's ('{other}')": anothers,
        "its record's row was deleted": deleted,
    }
    for n, (said, change) in enumerate(cases.items()):
        copy = tmp_path / f"copy{n}"
        shutil.copytree(arch, copy)
        _rewrite(copy / rel, change)
        out = report(copy)
        assert out.returncode == 2 and out.stdout == "", out.stderr
        assert f"{rel}: {settled}: {said}" in out.stderr, out.stderr
        assert out.stderr.count("\n") == 1 and "Traceback" not in out.stderr
    copy = tmp_path / "gone"
    shutil.copytree(arch, copy)
    (copy / rel).unlink()
    out = report(copy)
    assert (
        out.returncode == 2 and f"{rel}: missing" in out.stderr and "a deleted partition file" in out.stderr
    )
    # a file put there, and the manifest edited to list a changed file
    copy = tmp_path / "added"
    shutil.copytree(arch, copy)
    shutil.copy(copy / rel, copy / rel.parent / "part-extra.parquet")
    out = report(copy)
    assert out.returncode == 2 and "part-extra.parquet: not in the signed manifest" in out.stderr
    # the manifest's part that lists the changed file changed too, or the signed root
    manifest = json.loads((arch / "manifest.json").read_text())
    (part,) = manifest["parts"]
    listed = json.loads((arch / part).read_text())
    listed["files"][str(rel)]["sha256"] = "0" * 64
    copy = tmp_path / "part"
    shutil.copytree(arch, copy)
    (copy / part).write_text(json.dumps(listed))
    out = report(copy)
    assert out.returncode == 2 and f"{part}: a manifest part is not the one signed" in out.stderr
    manifest["parts"][part] = "0" * 64
    copy = tmp_path / "forged"
    shutil.copytree(arch, copy)
    (copy / "manifest.json").write_text(json.dumps(manifest))
    out = report(copy)
    assert out.returncode == 2 and "its signature does not verify" in out.stderr
    # without the key nothing can be checked: refused, saying why
    env["PRIZECHECK_DATA_DIR"] = str(tmp_path / "elsewhere")
    out = report(arch)
    assert out.returncode == 2 and "cannot check the archive's signed manifest: no key" in out.stderr
