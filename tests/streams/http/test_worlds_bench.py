"""bench/worlds.py's core at a tiny size against a real ``prizecheck serve`` (so the bench cannot rot):
3 tables, 10 overlay viewers on the live feed, 2 s, the single-server variant."""

from __future__ import annotations

import sys

from tests.paths import ROOT

sys.path[:0] = [str(ROOT / "bench")]

import worlds  # noqa: E402


async def test_worlds_bench_tiny_run_delivers_every_table_to_every_viewer() -> None:
    args = worlds.parser().parse_args(
        ["--tables", "3", "--viewers", "10", "--seconds", "2", "--every", "0.5", "--samples", "3"]
    )
    result = await worlds.measure(args)
    assert len(result.baseline) == 3 and all(v > 0 for v in result.baseline)
    assert set(result.tables.statuses) == {200}
    # 3 tables at one event every 0.5 s for 2 s: about 12 writes, each seen by the viewers of its match
    assert result.tables.acked >= 8
    assert result.viewers_without_board == 0
    assert len(result.latencies) >= result.tables.acked  # every viewer of a table sees its boards
    assert all(0 < v < 30 for v in result.latencies)
    assert worlds.report(args, result) == 0
