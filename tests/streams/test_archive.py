"""The cold archive (issue 24 item 3): ``prizecheck archive`` moves finished matches' events to Parquet, on
a real Redis; the match's record, versions and index entry stay; check, the ingest core's rebuild, the
event reads and ``show --history`` read the Parquet copy; a missing or altered copy is a breach and an
alarm."""

from __future__ import annotations

import datetime as dt
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("pyarrow")

from replay.engine.errors import EventError
from replay.generators.simulate import simulate_corpus
from streams.archive import archive, family
from streams.check import check
from streams.ingest import IngestCore
from streams.store import RedisStore
from streams.store.parquet import Marker
from tests.faults.harness import base_env
from tests.paths import ROOT

pytestmark = [pytest.mark.redis]


def season(n: int, leagues: tuple[str, ...]) -> list[dict[str, Any]]:
    """Simulated games (their playoff games too), each family in one of ``leagues``, season 2026."""
    out: list[dict[str, Any]] = []
    tops: dict[str, str] = {}
    for stream in simulate_corpus(n, seed=77):
        for e in stream:
            e = dict(e)
            if e["type"] == "match_started":
                top = family(e["match"])
                league = tops.setdefault(top, leagues[len(tops) % len(leagues)])
                e["context"] = {**(e.get("context") or {}), "league": league, "season": "2026"}
            out.append(e)
    return out


async def keys_memory(store: RedisStore, matches: list[str]) -> int:
    """Bytes the matches' keys take in Redis (MEMORY USAGE of each), index entries aside."""
    total = 0
    for m in matches:
        for name in ("events", "seq", "board", "record", "state", "versions", "causes", "archived"):
            total += int(await store.client.memory_usage(store.key(m, name)) or 0)
    return total


async def stored(store: RedisStore, matches: list[str]) -> dict[str, Any]:
    return {m: (await store.events(m), await store.record(m), await store.index_entry(m)) for m in matches}


async def test_archive_moves_finished_matches_to_parquet_and_every_reader_follows(
    redis_store: RedisStore, tmp_path: Path
) -> None:
    core = IngestCore(redis_store)
    events = season(24, ("L1", "L2"))
    for i in range(0, len(events), 400):
        await core.ingest_many(events[i : i + 400])
    l1 = await redis_store.matches(league="L1", status="finished")
    l2 = await redis_store.matches(league="L2")
    assert l1 and l2
    before = await stored(redis_store, l1)
    memory = await keys_memory(redis_store, l1)

    run = await archive(redis_store, str(tmp_path / "arch"), league="L1", before=dt.date(2100, 1, 1))
    assert sorted(run.archived) == sorted(m for m in l1 if before[m][0]), run.skipped
    assert all("stub" in why or "no archived events" in why for why in run.skipped.values()), run.skipped
    assert run.events == sum(len(before[m][0]) for m in run.archived)
    assert await keys_memory(redis_store, l1) < memory / 2  # the events were most of a match's bytes
    assert await redis_store.used_memory() > 0
    # partitioned by league and season; the events left Redis, the record and the index entry stayed
    assert {Path(f).parent.relative_to(tmp_path / "arch").as_posix() for f in run.files} == {
        "events/league=L1/season=2026",
        "records/league=L1/season=2026",
    }
    for m in run.archived:
        assert not await redis_store.client.exists(redis_store.key(m, "events"))
        marker = Marker.decode(await redis_store.archive_marker(m) or b"")
        assert marker.rows == len(before[m][0]) and os.path.isfile(marker.file)
    assert await stored(redis_store, l1) == before  # events read back from Parquet, the rest from Redis
    for m in l2:
        assert await redis_store.archive_marker(m) is None
    report = await check(redis_store)
    assert report.ok, [b.as_json() for b in report.breaches][:5]
    # the review page's data and the events API of an archived match come from the copy
    from aiohttp.test_utils import TestClient, TestServer

    from streams.http.api import make_app

    async with TestClient(TestServer(make_app(IngestCore(redis_store), redis_store))) as http:
        shown = run.archived[-1]
        meta = await (await http.get(f"/review/{shown}/meta")).json()
        assert [seq for seq, _ in meta["steps"]][-1] == before[shown][0][-1].position[0]
        assert meta["record"]["match"] == shown
        # its windows read the copy a range at a time, then what was appended since: the whole answer's
        whole = await redis_store.events(shown)
        extent = await redis_store.extent(shown)
        assert (extent.entries, extent.first, extent.last) == (
            len(whole),
            whole[0].position,
            whole[-1].position,
        )
        read: list[Any] = []
        while batch := await redis_store.events_after(shown, read[-1].position if read else None, 7):
            read.extend(batch)
        assert read == whole
        full = await (await http.get(f"/review/{shown}/meta?from=0&to=1000000")).json()
        assert full["count"] == extent.steps == len(meta["frames"])
        assert full["frames"] == meta["frames"] and full["log"] == meta["log"]
        listed = await http.get(f"/matches/{shown}/events")
        assert listed.status == 200 and len((await listed.read()).splitlines()) >= len(before[shown][0])
        assert (await http.get(f"/review/{shown}")).status == 200
    # an owner starting afresh rebuilds an archived match from its copy, without an alarm
    fresh = IngestCore(redis_store)
    assert await fresh.rebuild(run.archived[0]) is not None
    assert await redis_store.alarms() == {}
    again = await archive(redis_store, str(tmp_path / "arch"), league="L1")
    assert again.archived == [] and set(again.skipped) >= set(run.archived)

    # a copy altered: the breach and, at the owner's next read, the alarm
    import pyarrow.parquet as pq

    victim = run.archived[0]
    path = Marker.decode(await redis_store.archive_marker(victim) or b"").file
    table = pq.read_table(path).to_pydict()
    i = table["match"].index(victim)
    table["event"][i] = table["event"][i][:-1] + b"\x00"
    import pyarrow as pa

    pq.write_table(pa.table(table, schema=pq.read_schema(path)), path)
    report = await check(redis_store)
    assert {(b.code, b.match) for b in report.breaches} >= {("archive_copy", victim)}
    assert "not the ones archived" in next(b.detail for b in report.breaches if b.code == "archive_copy")
    with pytest.raises(EventError, match="not the ones archived"):  # the owner refuses to rebuild it
        await IngestCore(redis_store).rebuild(victim)
    assert "not the ones archived" in (await redis_store.alarms())[victim]
    # a copy removed
    os.remove(path)
    report = await check(redis_store)
    missing = [b for b in report.breaches if b.code == "archive_copy"]
    assert missing and all("is missing" in b.detail for b in missing)


async def test_the_archive_command_and_show_history_on_an_archived_match(
    redis_store: RedisStore, redis_url: str, tmp_path: Path
) -> None:
    core = IngestCore(redis_store)
    events = season(6, ("Cup",))
    await core.ingest_many(events)
    matches = await redis_store.matches(status="finished")
    env = base_env(REDIS_URL=redis_url, PRIZECHECK_DATA_DIR=str(tmp_path / "data"))
    for name in ("PRIZECHECK_SIGNING_KEY", "PRIZECHECK_KEY_ID"):  # the records were stored unsigned
        env.pop(name)

    def prizecheck(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "replay.cli", *args], cwd=ROOT, env=env, capture_output=True, text=True
        )

    out = prizecheck("archive", "--to", str(tmp_path / "a"), "--season", "2026", "--json",
                     "--redis-prefix", redis_store.prefix)  # fmt: skip
    assert out.returncode == 0, out.stderr
    summary = json.loads(out.stdout)
    assert summary["archived"] >= 1, summary
    assert summary["memory_before"] > 0 and summary["memory_after"] > 0  # the server's used_memory, shared
    archived = [m for m in matches if await redis_store.archive_marker(m) is not None]
    assert len(archived) == summary["archived"]
    shown = prizecheck("show", archived[0], "--history", "--redis-prefix", redis_store.prefix)
    assert shown.returncode == 0 and "versions, oldest first" in shown.stdout and "  v1 " in shown.stdout, (
        shown.stderr
    )
    # verify, offline: the record shown against the Parquet copy (the directory, or the events file)
    record = tmp_path / "record.json"
    record.write_text(prizecheck("show", archived[0], "--json", "--redis-prefix", redis_store.prefix).stdout)
    events_file = Marker.decode(await redis_store.archive_marker(archived[0]) or b"").file
    for where in (str(tmp_path / "a"), events_file):
        verified = prizecheck("verify", str(record), "--events", where)
        assert verified.returncode == 0, verified.stdout + verified.stderr
        assert verified.stdout.strip() == f"{archived[0]}: ok (unsigned, chain, record)"
    other = next(m for m in archived[1:] if family(m) != family(archived[0]))
    shown = json.loads(prizecheck("show", other, "--json", "--redis-prefix", redis_store.prefix).stdout)
    record.write_text(json.dumps({**json.loads(record.read_text()), "chain": shown["chain"]}) + "\n")
    failed = prizecheck("verify", str(record), "--events", str(tmp_path / "a"))
    assert failed.returncode == 1 and "FAILED: chain head differs" in failed.stdout
    checked = prizecheck("check", "--redis-only", "--redis-prefix", redis_store.prefix, "--json")
    assert checked.returncode == 0, checked.stdout[:2000]
    bad = prizecheck("archive", "--to", str(tmp_path / "a"), "--before", "soon")
    assert bad.returncode == 2 and "argument --before: expected a date as YYYY-MM-DD" in bad.stderr


async def test_every_reader_refuses_a_copy_edited_cut_or_of_another_match(
    redis_store: RedisStore, tmp_path: Path
) -> None:
    """Issue 32 item 2: the review page, the events API, the console's export and the duplicate check
    served an altered copy (the problem ``read_events`` found was dropped). Each now refuses it: 500
    ``archive_copy`` naming the match and what is wrong, and a tamper alarm."""
    import pyarrow as pa
    import pyarrow.parquet as pq
    from aiohttp.test_utils import TestClient, TestServer

    from streams.http.api import make_app
    from streams.store.parquet import read_events, rows_digest

    core = IngestCore(redis_store)
    events = season(8, ("L1",))
    await core.ingest_many(events)
    run = await archive(redis_store, str(tmp_path / "arch"))
    edited, cut, relabelled, other = run.archived[:4]
    marker = Marker.decode(await redis_store.archive_marker(edited) or b"")
    table = pq.read_table(marker.file).to_pydict()
    rows = [dict(zip(table, values, strict=True)) for values in zip(*table.values(), strict=True)]
    at = next(i for i, r in enumerate(rows) if r["match"] == edited and r["seq"] == 5)
    rows[at]["event"] = rows[at]["event"][:-1] + b"\x00"  # one byte of seq 5 changed
    last = max(i for i, r in enumerate(rows) if r["match"] == cut)
    del rows[last]
    # another match's rows under this match's name, with a marker to match (Redis write access)
    rows = [r for r in rows if r["match"] != relabelled] + [
        {**r, "match": relabelled} for r in rows if r["match"] == other
    ]
    pq.write_table(
        pa.table({k: [r[k] for r in rows] for k in table}, schema=pq.read_schema(marker.file)), marker.file
    )
    theirs, _ = read_events(marker, other)
    forged = Marker(marker.file, len(theirs), rows_digest(theirs), marker.chain, marker.at)
    await redis_store.client.set(redis_store.key(relabelled, "archived"), forged.encode())

    why = {edited: "not the ones archived", cut: "not the ones archived", relabelled: "not its own"}
    async with TestClient(TestServer(make_app(IngestCore(redis_store), redis_store))) as http:
        for match, reason in why.items():
            for path in (
                "/review/{}/meta",
                "/review/{}/meta?from=0",
                "/matches/{}/events",
                "/console/{}/export",
            ):
                answer = await http.get(path.format(match))
                body = await answer.json()
                assert (answer.status, body["code"]) == (500, "archive_copy"), (path, match, body)
                assert match in body["error"] and reason in body["error"], body
    alarms = await redis_store.alarms()
    assert set(alarms) == set(why) and all(reason in alarms[m] for m, reason in why.items())
    # the live overlay's broadcast delay, read from the copy's first event: the longest, not none
    from streams.http.delay import MAX_DELAY, Delay

    assert await Delay(redis_store).of(cut) == MAX_DELAY
    audited = [e for e in await redis_store.audit_log() if e.action == "tamper_alarm"]
    assert {e.target for e in audited} == set(why)
    # the duplicate check of an owner that read the match before the copy changed: refused, not compared
    first = next(e for e in events if e["match"] == cut and e["seq"] == 1)
    outcome = await core.ingest(first)
    assert outcome.status == "rejected" and "tamper alarm" in (outcome.reason or ""), outcome
    # the match whose rows were lent is served as it was
    async with TestClient(TestServer(make_app(IngestCore(redis_store), redis_store))) as http:
        assert (await http.get(f"/matches/{other}/events")).status == 200


async def test_check_verifies_the_records_files_against_the_signed_manifest_and_state(
    redis_store: RedisStore, tmp_path: Path
) -> None:
    """Issue 32 item 3: ``check`` never read the archive's records files. It now checks every file of each
    archive the markers name against the signed manifest, and each match's archived state against its
    newest signed checkpoint."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from streams.store.checkpoint import CheckpointKey

    key = CheckpointKey(b"archive-key", "k1")
    core = IngestCore(redis_store, checkpoint_key=key)
    events = season(6, ("L1",))
    await core.ingest_many(events)
    run = await archive(redis_store, str(tmp_path / "arch"), manifest_key=key)
    assert run.archived, run.skipped
    report = await check(redis_store, checkpoint_key=key)
    assert report.ok, [b.as_json() for b in report.breaches][:5]
    # a record changed after archiving (a judge's penalty after the end): the archive is older than the
    # signed state, and check says so
    victim = run.archived[0]
    last = max(e["seq"] for e in events if e["match"] == victim)
    players = next(e["players"] for e in events if e["match"] == victim and e["seq"] == 1)
    penalty = {"match": victim, "seq": last + 1, "type": "penalty", "player": players[0], "kind": "caution"}
    assert (await core.ingest(penalty)).status == "applied"
    report = await check(redis_store, checkpoint_key=key)
    stale = [b for b in report.breaches if b.code == "archive_manifest"]
    assert [(b.match, "older than the signed state" in b.detail) for b in stale] == [(victim, True)], stale
    # rows deleted from a records file
    (path,) = sorted((tmp_path / "arch" / "records").rglob("*.parquet"))
    table = pq.read_table(path)
    other = run.archived[1]
    keep = [m != other for m in table.column("match").to_pylist()]
    pq.write_table(table.filter(pa.array(keep)), path)
    report = await check(redis_store, checkpoint_key=key)
    found = {(b.match, b.detail.split(": ", 2)[-1]) for b in report.breaches if b.code == "archive_manifest"}
    assert (other, "its record's row was deleted") in found, found


async def test_a_match_left_in_redis_by_its_swap_is_taken_out_of_the_manifest(
    redis_store: RedisStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An event that arrives between the copy and the swap leaves the match in Redis: the manifest, signed
    before the swap, must not keep it as archived (check would compare it with a state that moves on)."""
    import json

    from streams.store.checkpoint import CheckpointKey

    key = CheckpointKey(b"archive-key", "k1")
    core = IngestCore(redis_store, checkpoint_key=key)
    await core.ingest_many(season(4, ("L1",)))
    finished = await redis_store.matches(status="finished")
    victim = next(m for m in finished if "/tb" not in m)
    swap = redis_store.archive_swap

    async def moved(match: str, *args: Any) -> bool:
        return False if match == victim else await swap(match, *args)

    monkeypatch.setattr(redis_store, "archive_swap", moved)
    run = await archive(redis_store, str(tmp_path / "arch"), manifest_key=key)
    assert victim in run.skipped and run.archived
    root = json.loads((tmp_path / "arch" / "manifest.json").read_text())
    listed = {
        m for part in root["parts"] for m in json.loads((tmp_path / "arch" / part).read_text())["matches"]
    }
    assert listed == set(run.archived)
    report = await check(redis_store, checkpoint_key=key)
    assert report.ok, [b.as_json() for b in report.breaches][:5]
