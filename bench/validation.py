"""Validation at the edge: ``replay.contract.validate.validate_event`` on a simulated corpus, one core.

    python bench/validation.py [--games 300] [--seed 1] [--runs 5]

Prints, measured in the same run over the same events (best of ``--runs``, these machines are noisy):
msgpack decoding of the events' bytes (what the worker does just before, the baseline), the fastjsonschema
path alone (validate_event with its msgspec fast path switched off: the "before"), and validate_event
(the "after"); for the events as simulated and as a digital client sends them (with ``at`` and ``id``).
"""

from __future__ import annotations

import argparse
import datetime
import sys
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT)]

import msgpack  # noqa: E402

import replay.contract.validate as validate  # noqa: E402
from replay.generators.simulate import simulate_corpus  # noqa: E402


def stamp(event: dict[str, Any], base: datetime.datetime) -> dict[str, Any]:
    """With a source time and the producer's event id, as bench/engine.py stamps them."""
    at = base + datetime.timedelta(seconds=7 * event["seq"])
    return {
        **event,
        "at": event.get("at") or at.strftime("%Y-%m-%dT%H:%M:%S.000Z"),
        "id": event.get("id") or str(uuid.uuid5(uuid.NAMESPACE_URL, f"{event['match']}/{event['seq']}")),
    }


def best_time(runs: int, run: Callable[[], object]) -> float:
    best = float("inf")
    for _ in range(runs):
        start = time.perf_counter()
        run()
        best = min(best, time.perf_counter() - start)
    return best


def measure(events: list[dict[str, Any]], runs: int) -> dict[str, float]:
    """µs per event: decode, the fastjsonschema path alone, validate_event; interleaved, best of runs."""
    packed = [msgpack.packb(e) for e in events]
    check = validate.validate_event
    fast = validate._FAST

    def decode_all() -> None:
        for b in packed:
            msgpack.unpackb(b, raw=False, strict_map_key=False)

    def validate_all() -> None:
        for e in events:
            check(e)

    def slow_all() -> None:
        validate._FAST = {}  # type: ignore[misc]
        try:
            validate_all()
        finally:
            validate._FAST = fast  # type: ignore[misc]

    best = {"decode": float("inf"), "fastjsonschema": float("inf"), "validate_event": float("inf")}
    for _ in range(runs):  # alternate, so a noisy moment hurts all three alike
        best["decode"] = min(best["decode"], best_time(1, decode_all))
        best["fastjsonschema"] = min(best["fastjsonschema"], best_time(1, slow_all))
        best["validate_event"] = min(best["validate_event"], best_time(1, validate_all))
    return {k: v / len(events) * 1e6 for k, v in best.items()}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=300)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()

    events = [e for stream in simulate_corpus(args.games, args.seed) for e in stream]
    base = datetime.datetime(2026, 3, 1, 10, 0, 0)
    covered = sum(e["type"] in validate._FAST for e in events) / len(events)
    print(f"corpus: {len(events)} simulated events, {covered:.1%} of a type with a fast path")
    for label, corpus in (("as simulated", events), ("with at and id", [stamp(e, base) for e in events])):
        us = measure(corpus, args.runs)
        print(f"{label}:")
        print(f"  msgpack decode (baseline):    {us['decode']:6.2f} µs/event  {1e6 / us['decode']:12,.0f}/s")
        for name, what in (
            ("fastjsonschema", "fastjsonschema only (before):"),
            ("validate_event", "validate_event (after):"),
        ):
            ratio = us[name] / us["decode"]
            print(f"  {what:29} {us[name]:6.2f} µs/event  {1e6 / us[name]:12,.0f}/s  ({ratio:.1f}x decode)")
        print(f"  speed-up: {us['fastjsonschema'] / us['validate_event']:.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
