"""Gaps in a match's seqs cost memory by their number, not their length (a huge seq is one range)."""

from __future__ import annotations

import tracemalloc

from replay import Game
from replay.engine.chain import canonical_bytes, chain_head
from tests.builder import Stream, card, codes

HUGE = 10**12


def _started() -> Stream:
    s = Stream()
    s.setup("ash", ("a1", card("Pikachu", 60)))
    s.setup("misty", ("m1", card("Staryu", 50)))
    return s


def test_one_event_with_a_huge_seq_is_one_gap() -> None:
    s = _started()
    g = Game()
    for e in s.events:
        g.apply(e)
    tracemalloc.start()
    try:
        out = g.apply({"match": "m1", "seq": HUGE, "type": "turn_started", "player": "ash"})
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 1_000_000, f"{peak} bytes for one gap"
    assert [o["code"] for o in out if o["type"] == "finding"] == ["seq_gap"]
    assert out[0]["message"] == f"events 4..{HUGE - 1} are missing before seq {HUGE}"
    assert g.log.gaps() == [(4, HUGE - 1)] and g.log.missing() == HUGE - 4
    assert g.next_seq == HUGE + 1 and g.log.events() == 4
    # the game goes on after the gap, in line
    g.apply({"match": "m1", "seq": HUGE + 1, "type": "drew", "player": "ash"})
    record = g.record()
    assert record["chain"]["events"] == 5 and record["turn"] == 1
    assert g.board()["seq"] == HUGE + 1


def test_late_events_duplicates_and_reused_seqs_around_gaps() -> None:
    s = _started()
    g = Game()
    for e in s.events:
        g.apply(e)
    turn = {"match": "m1", "seq": 10, "type": "turn_started", "player": "ash"}
    drew = {"match": "m1", "seq": 11, "type": "drew", "player": "ash"}
    end = {"match": "m1", "seq": 50, "type": "turn_ended", "player": "ash"}
    for e in (turn, drew, end):
        g.apply(e)
    assert g.log.gaps() == [(4, 9), (12, 49)]
    # exact duplicates on either side of a gap are no-ops; seqs in a gap are late; reused seqs differ
    assert g.apply(dict(drew)) == [] and g.apply(dict(end)) == [] and g.apply(dict(s.events[2])) == []
    late = g.apply({"match": "m1", "seq": 12, "type": "note", "text": "late"})
    assert [o["code"] for o in late] == ["late_event"]
    assert [o["code"] for o in g.apply({**drew, "count": 2})] == ["duplicate_seq"]
    assert g.log.is_missing(4) and g.log.is_missing(49) and not g.log.is_missing(10)
    assert not g.log.is_missing(50) and not g.log.is_missing(3)
    applied = [*s.events, turn, drew, end]
    assert g.events() == applied
    assert g.record()["chain"] == {"alg": "sha256", "head": chain_head(applied), "events": 6}
    assert [g.log.index(e["seq"]) for e in applied] == list(range(6))
    assert all(g.log.is_duplicate(e["seq"], canonical_bytes(e)) for e in applied)
    assert codes(g.record()).count("seq_gap") == 2


def test_a_seq_beyond_64_bits_is_a_gap_too() -> None:
    """JSON allows any integer: the chain encodes it as a $bigint, the log as one more range."""
    s = _started()
    g = Game()
    for e in s.events:
        g.apply(e)
    g.apply({"match": "m1", "seq": 10**30, "type": "note", "text": "far away"})
    assert g.log.gaps() == [(4, 10**30 - 1)]
    assert g.record()["chain"]["events"] == 4
