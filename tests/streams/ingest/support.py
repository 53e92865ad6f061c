"""What the ingest core's tests share: games, the offline replay to compare with, stores to read back."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import subprocess
import sys
import time
from collections.abc import AsyncIterator
from typing import Any

import msgpack

from replay import replay_records
from replay.engine.chain import canonical_bytes
from replay.engine.record import dumps
from replay.records import unpack_record
from streams.ingest import IngestCore
from streams.store import AppendResult, AppendRun, ArchivedEvent, MemoryStore, RedisStore, Store
from tests.builder import Stream, card, drawn_game, sudden_death
from tests.paths import ROOT


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def game(
    match: str = "m1", *, turns: int = 6, notes: int = 0, season: str = "2026", **started: Any
) -> list[dict[str, Any]]:
    """A full game with knockouts, prizes, promotions and a claimed result."""
    s = Stream(match, context={"league": "L1", "season": season, "round": 1}, **started)
    s.setup("ash", ("a1", card("Pikachu", 30)), ("a2", card("Raichu", 120)))
    s.setup("misty", ("m1", card("Staryu", 30)), ("m2", card("Starmie", 90)))
    s.turn("ash")
    s.add("drew", player="ash", cards=["Thunder Stone"], count=1)
    s.add("attached", player="ash", pid="a1", card={"name": "Lightning Energy", "kind": "energy"})
    s.add("turn_ended", player="ash")
    for n in range(turns):
        player = "misty" if n % 2 == 0 else "ash"
        s.turn(player)
        for i in range(notes):
            s.add("note", text=f"turn {n} note {i}", author="judge")
        s.add("turn_ended", player=player)
    s.turn("misty" if turns % 2 == 0 else "ash")
    attacker, target, promote = ("m1", "a1", "a2") if turns % 2 == 0 else ("a1", "m1", "m2")
    who = "misty" if turns % 2 == 0 else "ash"
    other = "ash" if who == "misty" else "misty"
    s.attack(who, attacker, (target, 30), claims=(target,))
    s.add("prize_taken", player=who, count=1)
    s.add("promoted", player=other, pid=promote)
    s.add("turn_ended", player=who)
    s.add("conceded", player=other)
    s.add("game_ended", outcome="win", winner=who, reason="concession")
    return s.events


def offline(events: list[dict[str, Any]], *, env: dict[str, str] | None = None) -> dict[str, bytes]:
    """``prizecheck replay --json`` run for real on a file of these events: match -> JSON line."""
    path = ROOT / ".pytest_cache" / f"ingest-{os.getpid()}-{time.monotonic_ns()}.jsonl"
    path.parent.mkdir(exist_ok=True)
    path.write_text("".join(json.dumps(e) + "\n" for e in events))
    try:
        run_env = {k: v for k, v in os.environ.items() if not k.startswith("PRIZECHECK_")}
        run_env.update(env or {})
        out = subprocess.run(
            [sys.executable, "-m", "replay.cli", "replay", str(path), "--json"],
            cwd=ROOT,
            env=run_env,
            capture_output=True,
            check=True,
        ).stdout
    finally:
        path.unlink()
    lines = [line for line in out.split(b"\n") if line]
    return {json.loads(line)["match"]: line for line in lines}


def in_process(events: list[dict[str, Any]]) -> dict[str, bytes]:
    """The same as :func:`offline` without the subprocess (for the many small checks)."""
    return {m: dumps(r) for m, r in replay_records(events).items()}


async def stored(store: Store, match: str) -> bytes:
    record = unpack_record(await store.record(match))
    assert record is not None, f"no record for {match}"
    return dumps(record)


def drawn(match: str = "g1") -> Stream:
    return drawn_game(match, "kr-1.0", context={"league": "L1"})


def playoff(name: str, parent: str, decided: bool) -> Stream:
    return sudden_death(name, decided=decided, parent=parent, playoff="sudden_death")


# ---------------------------------------------------------------------------------- property
@contextlib.asynccontextmanager
async def fresh_stores(backend: str, n: int, redis_url: str, tag: str) -> AsyncIterator[list[Store]]:
    """``n`` empty stores of one backend (``memory`` or ``redis``: each under its own prefix, deleted
    afterwards), for tests that compare what different ingest paths leave behind."""
    from redis.asyncio import Redis

    from streams.store import RedisStore

    stores: list[Store] = []
    for _ in range(n):
        if backend == "redis":
            prefix = f"pctest-{tag}-{os.getpid()}-{time.monotonic_ns()}"
            stores.append(RedisStore(Redis.from_url(redis_url), prefix=prefix))
        else:
            stores.append(MemoryStore())
    try:
        yield stores
    finally:
        for store in stores:
            if isinstance(store, RedisStore):
                await store.delete_all()
                await store.close()


def deliveries(events: list[dict[str, Any]], data: Any) -> list[Any]:
    """A delivery of ``events``: locally reordered, some redelivered, as dicts or msgpack bytes."""
    from hypothesis import strategies as st

    keys = [i + data.draw(st.floats(min_value=0, max_value=4)) for i in range(len(events))]
    order = [e for _, e in sorted(zip(keys, events, strict=True), key=lambda kv: kv[0])]
    out: list[Any] = []
    for e in order:
        out.append(msgpack.packb(e) if data.draw(st.booleans()) else dict(e))
        if data.draw(st.integers(0, 9)) == 0:
            out.append(dict(e))  # at-least-once: a redelivery, right away or later
        if out and data.draw(st.integers(0, 14)) == 0:
            out.append(data.draw(st.sampled_from(out)))
    return out


# ---------------------------------------------------------------------------------- batch path
def round_robin(*streams: list[dict[str, Any]]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    queues = [list(s) for s in streams]
    while any(queues):
        for q in queues:
            if q:
                out.append(q.pop(0))
    return out


async def snapshot(store: Store, matches: list[str]) -> dict[str, Any]:
    """Everything a reader can see of these matches: archive, head, read models, pending, indexes."""
    out: dict[str, Any] = {}
    for m in matches:
        entry = await store.index_entry(m)
        out[m] = (
            [(e.position, e.data, e.kind) for e in await store.events(m)],
            await store.head(m),
            await store.record(m),
            await store.board(m),
            await store.held(m),
            entry.as_json() if entry is not None else None,  # as_json: without the internal seq
        )
    out["*"] = (
        await store.matches(),
        [await store.matches(status=s) for s in ("in_progress", "finished", "awaiting_playoff")],
        await store.matches(league="L1"),
        await store.matches(player="ash"),
        await store.findings_counts(),
    )
    return out


def shape(o: Any) -> tuple[Any, ...]:
    return (o.status, o.match, o.seq, o.reason, o.field, list(o.applied))


async def stored_record(store: Store, match: str) -> dict[str, Any]:
    record = unpack_record(await store.record(match))
    assert record is not None, f"no record for {match}"
    return record


async def ingest_all(store: Store, *streams: Stream) -> list[dict[str, Any]]:
    events = [e for s in streams for e in s.events]
    cores = {s.match: IngestCore(store) for s in streams}  # a different owner for each game
    for s in streams:
        for e in s.events:
            await cores[s.match].ingest(e)
    return events


def playoff_family() -> tuple[Stream, Stream, Stream]:
    parent = drawn_game("g1", "kr-1.0", context={"league": "L1"})
    return (
        parent,
        sudden_death("g1/tb1", decided=False, playoff="sudden_death"),
        sudden_death("g1/tb2", decided=True),
    )


def short_game(match: str = "m1") -> Stream:
    """A play-2026 game won by ash knocking out misty's only Pokémon."""
    s = Stream(match, ruleset="play-2026")
    s.setup("ash", ("a1", card("Pikachu", 60)))
    s.setup("misty", ("m1", card("Staryu", 30)))
    s.turn("ash", draw=False)
    s.attack("ash", "a1", ("m1", 30), claims=("m1",))
    return s


async def tamper(store: Store, match: str, seq: int, event: dict[str, Any]) -> None:
    """Change the archived event at ``seq`` behind the service's back (what an attacker with Redis access
    does), keeping every entry's position."""
    data = canonical_bytes(event)
    if isinstance(store, MemoryStore):
        m = store._matches[match]
        m.log = [ArchivedEvent(e.position, data, e.kind) if e.position == (seq, 0) else e for e in m.log]
        m.by_seq[seq] = data
        return
    assert isinstance(store, RedisStore)
    key = store.key(match, "events")
    entries = await store.client.xrange(key)
    await store.client.delete(key)
    for entry_id, fields in entries:
        if entry_id == f"{seq}-0".encode():
            fields = {**fields, b"e": data}
        await store.client.xadd(key, fields, id=entry_id)


class Paused:
    """A store whose first append_run of ``match`` waits until ``go`` is set (the window where another
    process writes the same record)."""

    def __init__(self, store: Store, match: str) -> None:
        self._store = store
        self.match = match
        self.reached = asyncio.Event()
        self.go = asyncio.Event()
        self.paused = False

    def __getattr__(self, name: str) -> Any:
        return getattr(self._store, name)

    async def append_run(self, a: AppendRun) -> AppendResult:
        if a.match == self.match and not self.paused:
            self.paused = True
            self.reached.set()
            await self.go.wait()
        return await self._store.append_run(a)
