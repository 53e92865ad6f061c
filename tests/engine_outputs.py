"""Everything the engine derives from a corpus of event streams, as one digest per stream.

Used to compare the engine with its golden digests (``tests/engine/golden_outputs.json``, written by
``python -m tests.engine_outputs --write-golden``; tests/engine/test_golden.py), and the compiled engine
(mypyc, ``make compile``) with the same code run as plain Python:
``python -m tests.engine_outputs --pure`` prints the digests of the pure engine (the compiled modules
hidden), and tests/engine/test_compiled.py compares them with the digests of the engine it imports. A digest
covers each event's outputs, the record after every few events (provisional records included: those
copy the game to resolve a pending effect), the public board, the applied events and the final record;
an engine that raises gives the exception's type instead.

The streams: simulated games of every scenario and ruleset, games with injected source faults, messy
deliveries (duplicates, a gap, events of another match, judge's corrections), and the same games with
integers sent as integral floats and booleans (``5.0``: JSON Schema counts it as an integer; MessagePack
carries it as a float), which a compiled module must pass through exactly as Python does.
"""

from __future__ import annotations

import hashlib
import json
import random
import sys
from typing import Any

Event = dict[str, Any]


def corpus(games: int = 240, seed: int = 20261201) -> list[list[Event]]:
    from replay.generators import simulate

    streams = list(simulate.simulate_corpus(games, seed))
    for i, fault in enumerate(sorted(simulate.FAULTS)):
        faulty, _ = simulate.simulate_with_faults(seed + i, [fault], match=f"fault-{fault}")
        streams.extend(faulty)
    rng = random.Random(seed)
    messy = [_messy(s, rng) for s in streams[:80] if len(s) > 12]
    floats = [_floats(s, rng) for s in streams[:100] + messy[:40]]
    return streams + messy + floats


def _messy(stream: list[Event], rng: random.Random) -> list[Event]:
    out = [dict(e) for e in stream]
    n = len(out)
    match = out[0]["match"]
    # a judge voids and amends events already applied, late in the game
    seq = n + 1
    void = {"match": match, "seq": seq, "type": "correction", "target": rng.randrange(2, n), "action": "void"}
    out.append(void)
    target = next((e for e in stream[::-1] if e["type"] == "damage"), None)
    if target is not None:
        amend = {"amount": int(target.get("amount", 0)) + 10}
        out.append(
            {"match": match, "seq": seq + 1, "type": "correction", "target": target["seq"], "action": "amend",
             "event": amend}
        )  # fmt: skip
    # duplicates (exact and altered), an event of another match, a gap
    dup = dict(out[rng.randrange(1, n)])
    out.insert(rng.randrange(n // 2, n), dup)
    other = dict(out[3])
    other["match"] = "someone-else"
    out.insert(rng.randrange(4, n), other)
    altered = dict(out[5])
    altered["note"] = "x"
    out.insert(rng.randrange(6, n), altered)
    del out[rng.randrange(n // 2, n - 2)]
    return out


def _floats(stream: list[Event], rng: random.Random) -> list[Event]:
    def conv(value: Any) -> Any:
        if isinstance(value, bool):
            return value
        if isinstance(value, int):
            return float(value) if rng.random() < 0.5 else value
        if isinstance(value, dict):
            return {k: conv(v) for k, v in value.items()}
        if isinstance(value, list):
            return [conv(v) for v in value]
        return value

    return [conv(e) for e in stream]


def digest(stream: list[Event]) -> str:
    from replay.contract.validate import checked_game
    from replay.engine.record import dumps

    h = hashlib.sha256()
    g = checked_game()
    try:
        for i, event in enumerate(stream):
            h.update(dumps(g.apply(event)))
            if i % 5 == 0:
                h.update(dumps(g.record()))
                h.update(dumps(g.board()))
        h.update(dumps(g.events()))
        h.update(dumps(g.board()))
        h.update(dumps(g.record()))
    except Exception as exc:  # the same stream must fail the same way in both engines
        return f"{type(exc).__name__} after {h.hexdigest()}"
    return h.hexdigest()


def digests(streams: list[list[Event]] | None = None) -> list[str]:
    return [digest(s) for s in (corpus() if streams is None else streams)]


def corpus_digest(streams: list[list[Event]]) -> str:
    """One digest of the corpus' events themselves (what the golden digests were derived from)."""
    from replay.engine.chain import canonical_bytes

    h = hashlib.sha256()
    for stream in streams:
        for event in stream:
            h.update(canonical_bytes(event))
        h.update(b"\n")
    return h.hexdigest()


GOLDEN = "tests/engine/golden_outputs.json"


def write_golden() -> None:
    """Store the digests of the engine as it is (``python -m tests.engine_outputs --write-golden``): only
    when the engine's outputs changed on purpose (a ruling), or the simulated corpus changed."""
    from tests.paths import ROOT

    streams = corpus()
    doc = {"corpus": corpus_digest(streams), "digests": digests(streams)}
    (ROOT / GOLDEN).write_text(json.dumps(doc, indent=0) + "\n", "utf-8")


def main() -> int:
    if "--pure" in sys.argv:
        from tools.pure_engine import use_pure_engine

        use_pure_engine()
    if "--write-golden" in sys.argv:
        write_golden()
        return 0
    import replay.engine.game

    print(json.dumps({"game_module": replay.engine.game.__file__, "digests": digests()}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
