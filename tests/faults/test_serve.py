"""Faults of the embedded service: ``prizecheck serve`` (HTTP ingest) on a private redis-server with AOF
(``appendfsync always``), both killed with SIGKILL mid-request; events held behind a gap across a crash;
an archive edited behind the service's back. Every case ends with ``prizecheck check`` as a subprocess."""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from streams.store import RedisStore
from tests.faults.harness import (
    CaseFigures,
    Client,
    Event,
    RedisServer,
    Service,
    archive_size,
    assert_holds,
    await_until,
    base_env,
    games,
    interleave,
    logs,
    offline,
    run_check,
    start_serve,
    stored_unsigned,
    wait_records,
)
from tests.fixtures_kafka import free_port
from tests.tamper import rewrite_event

pytestmark = [pytest.mark.faults, pytest.mark.redis]

CONVERGE = 60.0


@dataclass
class Embedded:
    """One case's service: a private redis-server, ``prizecheck serve`` on a fixed port, their files."""

    workdir: Path
    redis: RedisServer
    env: dict[str, str]
    port: int
    serves: list[Service] = field(default_factory=list)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def serve(self) -> Service:
        return self.serves[-1]

    def start(self) -> Service:
        self.serves.append(start_serve(self.env, self.workdir, f"serve{len(self.serves) + 1}", self.port))
        return self.serve

    def logs(self) -> str:
        return logs(self.serves[-2:]) + "\n" + self.redis.log()

    def check(self, *args: str) -> Any:
        return run_check(self.env, "--redis", self.redis.url, *args)


@pytest.fixture
async def embedded(tmp_path: Path) -> AsyncIterator[Embedded]:
    redis = RedisServer(tmp_path)
    redis.start()
    env = base_env(
        REDIS_URL=redis.url, PRIZECHECK_DATA_DIR=str(tmp_path / "data"), PRIZECHECK_GAP_TIMEOUT="3"
    )
    e = Embedded(tmp_path, redis, env, free_port())
    try:
        e.start()
        yield e
    finally:
        for s in e.serves:
            s.stop()
        redis.stop()


def kill_plan(events: list[Event], kills: int) -> tuple[list[list[Event]], set[int]]:
    """Batches to post, and which of them to kill serve (or Redis) under: each of those is one and a half
    times what serve hands the core at once (``streams.http.api.POST_BATCH``), so it is written in two
    steps and a kill between them leaves it partly archived and unanswered."""
    from streams.http.api import POST_BATCH

    size = POST_BATCH + POST_BATCH // 2
    batches: list[list[Event]] = []
    doomed: set[int] = set()
    i = 0
    while i < len(events):
        take = size if len(doomed) < kills and batches and len(events) - i > size else 250
        if take == size:
            doomed.add(len(batches))
        batches.append(events[i : i + take])
        i += take
    assert len(doomed) == kills, "not enough events for the kills"
    return batches, doomed


async def _post_killing(
    e: Embedded,
    client: Client,
    batches: list[list[Event]],
    kills: set[int],
    kill: Callable[[], None],
    restart: Callable[[], None],
) -> int:
    """Post every batch; during each batch in ``kills``, once part of it is archived, ``kill`` (the request
    is then unanswered: the client sends it again once ``restart`` has brought the service back). Returns
    how many kills landed with the request partly archived and unanswered."""
    landed = 0
    for i, batch in enumerate(batches):
        if i not in kills:
            await client.send(batch, logs=e.logs)
            continue
        matches = {ev["match"] for ev in batch}
        store = e.redis.store()  # its own connection: the kill may be Redis's
        try:
            before = await archive_size(store, matches)
            request = asyncio.ensure_future(client.attempt(batch))

            async def moving(
                request: asyncio.Future[Any] = request,
                store: RedisStore = store,
                matches: set[str] = matches,
                before: int = before,
            ) -> bool:
                return request.done() or await archive_size(store, matches) > before

            await await_until("the batch to be partly archived", moving, 30, e.logs, every=0.005)
        finally:
            await store.close()
        kill()
        answer = await request
        if answer is not None:  # the whole batch made it before the kill: acknowledged
            client.take(batch, answer)
        else:
            client.unanswered += 1
            landed += 1
        restart()
        if answer is None:
            await client.send(batch, logs=e.logs)
    return landed


async def _duplicated(e: Embedded, case: CaseFigures) -> None:
    store = e.redis.store()
    try:
        await case.count_duplicated(store)
    finally:
        await store.close()


@pytest.mark.ci
async def test_serve_killed(embedded: Embedded, case: CaseFigures, tmp_path: Path) -> None:
    """kill -9 of serve mid-request, 3 times."""
    e = embedded
    events = interleave(games(54, seed=21, tag="servekill"))
    batches, kills = kill_plan(events, 3)

    def kill() -> None:
        e.serve.kill9()

    async with Client(e.url) as client:
        landed = await _post_killing(e, client, batches, kills, kill, e.start)
    case.fault("kill -9 serve, request partly archived", landed)
    case.fault("kill -9 serve, request answered first", len(kills) - landed)
    case.events = len(events)
    case.redelivered = client.statuses["duplicate"]
    assert client.statuses["rejected"] == 0
    assert landed >= 2, f"only {landed} of 3 kills landed with a request partly archived"
    store = e.redis.store()
    try:
        await wait_records(store, offline(events), CONVERGE, e.logs)
    finally:
        await store.close()
    run = e.check("--acknowledged", str(client.write_acked(tmp_path / "acked.jsonl")))
    case.from_check(run)
    await _duplicated(e, case)
    assert_holds(run)
    assert run.report["applied"] == len(events) and run.report["pending"] == 0


@pytest.mark.ci
async def test_redis_killed(embedded: Embedded, case: CaseFigures, tmp_path: Path) -> None:
    """kill -9 of a private redis-server with AOF (appendfsync always) under serve, 3 times."""
    e = embedded
    events = interleave(games(54, seed=22, tag="rediskill"))
    batches, kills = kill_plan(events, 3)

    def kill() -> None:
        e.redis.kill9()

    async with Client(e.url) as client:
        landed = await _post_killing(e, client, batches, kills, kill, e.redis.start)
    case.fault("kill -9 redis-server, request partly archived", landed)
    case.fault("kill -9 redis-server, request answered first", len(kills) - landed)
    assert e.serve.alive(), e.logs()  # serve rode out the outages
    assert landed >= 2, f"only {landed} of 3 kills landed with a request partly archived"
    case.events = len(events)
    case.redelivered = client.statuses["duplicate"]
    assert client.statuses["rejected"] == 0
    store = e.redis.store()
    try:
        await wait_records(store, offline(events), CONVERGE, e.logs)
    finally:
        await store.close()
    run = e.check("--acknowledged", str(client.write_acked(tmp_path / "acked.jsonl")))
    case.from_check(run)
    await _duplicated(e, case)
    assert_holds(run)
    assert run.report["applied"] == len(events)


@pytest.mark.ci
async def test_gaps_across_a_crash(embedded: Embedded, case: CaseFigures, tmp_path: Path) -> None:
    """reordering and gaps: events answered buffered are applied after a crash with no further event."""
    e = embedded
    streams = games(5, seed=23, tag="gaps")
    before: list[Event] = []  # in line: applied at once
    after: list[Event] = []  # past a gap: held, and waiting when serve dies
    missing = 0
    rng = random.Random(6)
    for stream in streams:
        s = list(stream)
        for i in range(2, len(s) - 2, 9):  # reordered within a small window: buffered, then filled
            s[i], s[i + 1] = s[i + 1], s[i]
        if len(s) <= 40:
            before += s
            continue
        gap = rng.randrange(20, len(s) - 10)
        before += s[:gap]
        after += s[gap + 1 :]  # s[gap] is never sent: a gap the engine reports
        missing += 1
    sent = before + after
    async with Client(e.url) as client:
        await client.send(before, logs=e.logs)
        answer = await client.send(after, logs=e.logs)
        e.serve.kill9()  # at once: well inside the gap timeout
        case.fault("kill -9 serve")
    assert missing >= 3 and answer["counts"].get("buffered", 0) >= missing
    store = e.redis.store()
    try:
        held = await store.pending_matches()
        assert len(held) == missing, "the gaps were released before the crash: nothing left to prove"
        run = e.check()
        assert_holds(run)
        assert run.report["pending"] > 0  # held events are accounted for as pending
        e.start()  # and nothing else: no further event for these matches

        async def released() -> bool:
            return not await store.pending_matches()

        await await_until("the held events to be applied after the restart", released, 30, e.logs)
        expected = offline(sent)  # the engine reports the same gaps offline
        await wait_records(store, expected, CONVERGE, e.logs)
        got = await stored_unsigned(store, expected)
        assert all(b"seq_gap" in (got[m] or b"") for m in {str(ev["match"]) for ev in sent} if m in held)
    finally:
        await store.close()
    case.events = len(sent)
    case.redelivered = client.statuses["duplicate"]
    run = e.check("--acknowledged", str(client.write_acked(tmp_path / "acked.jsonl")))
    case.from_check(run)
    await _duplicated(e, case)
    assert_holds(run)
    assert run.report["pending"] == 0 and run.report["applied"] == len(sent)


@pytest.mark.ci
async def test_tampered_archive(embedded: Embedded, case: CaseFigures) -> None:
    """a tampered archive: an event edited in Redis, serve restarted, the match rebuilt."""
    e = embedded
    streams = games(3, seed=24, tag="tamper")
    events = interleave(streams)
    victim = streams[0][0]["match"]
    async with Client(e.url) as client:
        await client.send(events, logs=e.logs)
        assert client.statuses["applied"] == len(events)
        assert e.serve.stop() == 0
        store = e.redis.store()
        try:
            signed = await store.record(victim)
            old, new = await rewrite_event(store, victim, 20)
            case.fault("archived event edited")
            e.start()
            answer = await client.send([streams[0][4]], logs=e.logs)  # the match is seen again: rebuilt
            assert answer["outcomes"][0]["status"] == "rejected", answer
            assert await store.record(victim) == signed, "the tampered match's record was changed"
            alarms = [a for a in await store.audit_log() if a.action == "tamper_alarm"]
            assert [a.target for a in alarms] == [victim], alarms
            others = offline(ev for ev in events if ev["match"] != victim)
            got = await stored_unsigned(store, others)
            assert all(got[m] == others[m] for m in others)
        finally:
            await store.close()
    run = e.check()
    assert run.returncode == 1, run.explain()
    named = {(b["code"], b["match"]) for b in run.breaches()}
    assert ("tamper_alarm", victim) in named and ("chain_mismatch", victim) in named, run.explain()
    assert {m for _, m in named} == {victim}, run.explain()
    text = run_check(e.env, "--redis", e.redis.url, as_json=False)
    assert text.returncode == 1 and f"BREACH tamper_alarm {victim}:" in text.stdout, text.stdout
    assert old != new
    case.events = len(events)
    case.tampering_detected = len(run.breaches("tamper_alarm"))
