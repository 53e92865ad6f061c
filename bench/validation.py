"""Validation at the edge: ``replay.validate.validate_event`` on a simulated corpus, one core.

    python bench/validation.py

Prints valid events/s and, measured in the same run over the same events, two baselines: msgpack
decoding of the events' bytes (what the worker does just before) and the reference ``jsonschema``
validator on a sample. Best of 3. (This replaced a timed unit test: a shared machine made it flaky.)
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT)]

import msgpack  # noqa: E402

from replay.simulate import simulate_corpus  # noqa: E402
from replay.validate import validate_event  # noqa: E402


def best_rate(n: int, run: object) -> float:
    best = 0.0
    for _ in range(3):
        start = time.perf_counter()
        run()  # type: ignore[operator]
        best = max(best, n / (time.perf_counter() - start))
    return best


def main() -> int:
    events = [e for stream in simulate_corpus(300, 1) for e in stream]
    packed = [msgpack.packb(e) for e in events]

    def validate_all() -> None:
        for e in events:
            validate_event(e)

    def decode_all() -> None:
        for b in packed:
            msgpack.unpackb(b, raw=False, strict_map_key=False)

    print(f"corpus: {len(events)} simulated events")
    decode = best_rate(len(events), decode_all)
    valid = best_rate(len(events), validate_all)
    print(f"msgpack decode (baseline):  {decode:12,.0f} events/s")
    print(f"validate_event:             {valid:12,.0f} events/s  ({valid / decode:.2f} of decoding)")
    try:
        import jsonschema

        from schemas import load_schema

        reference = jsonschema.Draft202012Validator(load_schema("events"))
        sample = events[:2000]
        ref = best_rate(len(sample), lambda: [reference.validate(e) for e in sample])
        print(f"jsonschema (reference):     {ref:12,.0f} events/s  (validate_event is {valid / ref:.0f}x)")
    except ImportError:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
