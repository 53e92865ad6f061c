"""Results the events state: concession, a card effect's win or loss, and a claimed result compared with the
engine's [docs/rules.md §1.4-§1.5] (replay/engine/result.py).
"""

from __future__ import annotations

from tests.builder import codes
from tests.engine.games import basic


def test_concession_effect_and_penalties() -> None:
    s = basic()
    s.turn("ash")
    s.add("conceded", player="ash")
    assert s.record()["result"]["winner"] == "misty"

    s = basic()
    s.turn("ash")
    s.add("effect_result", player="ash", wins=True, card={"name": "Barry"})
    r = s.record()
    assert (r["result"]["winner"], r["result"]["reason"]) == ("ash", "effect")


def test_result_mismatch_with_the_claim() -> None:
    s = basic()
    s.turn("ash")
    s.add("conceded", player="misty")
    s.add("game_ended", outcome="win", winner="misty", reason="concession")
    r = s.record()
    assert r["agrees"] is False and "result_mismatch" in codes(r)
