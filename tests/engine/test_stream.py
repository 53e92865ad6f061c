"""The stream itself: seq order and gaps, duplicates, late events, chunking, corrections and amendments
[docs/rules.md §9] (replay/engine/game.py, log.py). Gaps cost memory by their number, not their length.
"""

from __future__ import annotations

import copy
import tracemalloc

from replay import Game, replay_events
from replay.engine.chain import canonical_bytes, chain_head
from replay.engine.record import dumps
from tests.builder import Stream, card, codes
from tests.engine.games import basic, full_game


def test_exact_duplicates_are_no_ops_and_reused_seqs_are_findings() -> None:
    s = full_game()
    g = Game()
    for e in s.events:
        g.apply(e)
        assert g.apply(copy.deepcopy(e)) == []
    assert dumps(g.record()) == dumps(s.record())
    out = g.apply({**s.events[5], "player": "misty"})
    assert [o["code"] for o in out] == ["duplicate_seq"]


def test_gap_is_a_finding_and_a_late_event_is_not_applied() -> None:
    s = full_game()
    g = Game()
    for e in s.events[:5] + s.events[6:]:
        g.apply(e)
    r = g.record()
    assert codes(r)[0] == "seq_gap"
    assert r["chain"]["events"] == len(s.events) - 1
    assert [o["code"] for o in g.apply(s.events[5])] == ["late_event"]


def test_records_are_identical_in_any_chunking_and_order() -> None:
    s = full_game()
    whole = dumps(s.record())
    shuffled = list(reversed(s.events))
    assert dumps(replay_events(shuffled)["m1"].record()) == whole
    g = Game()
    for i, e in enumerate(s.events):
        g.apply(e)
        if i % 3 == 0:
            g.record()  # reading the record mid-stream changes nothing
    assert dumps(g.record()) == whole


def test_correction_voids_an_event_and_the_game_is_re_derived() -> None:
    s = basic()
    s.turn("ash")
    s.add("turn_ended", player="ash")
    s.turn("misty")
    dmg = s.add("damage", pid="a1", amount=60)  # recorded by mistake
    s.add("turn_ended", player="misty")
    assert len(s.record()["knockouts"]) == 1
    s.add("correction", target=dmg["seq"], action="void")
    r = s.record()
    assert r["knockouts"] == []
    assert codes(r)[-1] == "corrected"
    assert s.game().board()["players"]["ash"]["active"]["pid"] == "a1"


def test_amendments_re_derive_and_invalid_ones_are_refused() -> None:
    s = basic()
    s.turn("ash")
    s.add("turn_ended", player="ash")
    s.turn("misty")
    dmg = s.add("damage", pid="a1", amount=30)
    s.add("correction", target=dmg["seq"], action="amend", event={"amount": "lots"})
    r = s.record()
    assert r["knockouts"] == [] and "amendment of seq" in r["findings"][-1]["message"]
    s.add("correction", target=dmg["seq"], action="amend", event={"amount": 60})  # the judge's real fix
    r = s.record()
    assert [k["pid"] for k in r["knockouts"]] == ["a1"]
    assert r["findings"][-1]["code"] == "corrected" and "amended" in r["findings"][-1]["message"]


def test_a_second_correction_keeps_the_history() -> None:
    s = basic()
    s.turn("ash")
    first = s.add("damage", pid="m1", amount=10)
    s.add("turn_ended", player="ash")
    s.turn("misty")
    second = s.add("damage", pid="a1", amount=60)
    s.add("turn_ended", player="misty")
    s.add("correction", target=first["seq"], action="amend", event={"amount": 50})
    s.add("correction", target=second["seq"], action="void")
    s.turn("ash")
    r = s.record()
    assert [k["pid"] for k in r["knockouts"]] == ["m1"]  # the amended one counts, the voided one not
    assert "no_match_started" not in codes(r)
    assert codes(r).count("corrected") == 2
    assert "ko_not_claimed" in codes(r)  # the amended damage knocks out m1, which the source never claimed
    assert r["chain"]["events"] == len(s.events)


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
