"""The engine derives what it derived when its golden digests were written: every output, record, board
and applied event of tests/engine_outputs.py's corpus, byte for byte.

A change of the engine's outputs must be a ruling, said so in its commit, with the digests written again
(``python -m tests.engine_outputs --write-golden``). When the simulated corpus itself changes (the
simulator, replay/generators/simulate.py, writes other games), nothing can be compared until they are
written again from an engine known to be unchanged.
"""

from __future__ import annotations

import json

from tests.engine_outputs import GOLDEN, corpus, corpus_digest, digests
from tests.paths import ROOT


def test_the_engine_derives_its_golden_outputs() -> None:
    golden = json.loads((ROOT / GOLDEN).read_text("utf-8"))
    streams = corpus()
    assert corpus_digest(streams) == golden["corpus"], (
        "the simulated corpus changed: check that the engine's outputs did not (replay the old corpus), "
        "then run python -m tests.engine_outputs --write-golden"
    )
    now = digests(streams)
    assert len(now) == len(golden["digests"])
    changed = [i for i, (a, b) in enumerate(zip(now, golden["digests"], strict=True)) if a != b]
    assert changed == [], f"{len(changed)} of {len(now)} streams derive something else, first {changed[:5]}"
