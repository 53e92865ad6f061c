"""How much of a sampled test ``make test`` runs, and how much ``make test-long`` runs.

The fuzz and property tests draw many examples; ``make test`` (and CI) runs a quarter of each one's
examples so that a fresh-clone run stays under its time bar, and ``make test-long`` sets
``PRIZECHECK_LONG=1`` to run all of them. One switch for every sampled test, so a long run is one
setting away.
"""

from __future__ import annotations

import os

#: ``make test-long``: every example of every sampled test
LONG = os.environ.get("PRIZECHECK_LONG") == "1"


def examples(full: int) -> int:
    """Hypothesis's ``max_examples`` for a test that draws ``full`` examples in a long run: a quarter of
    them (at least 50) otherwise."""
    return full if LONG else max(50, full // 4)
