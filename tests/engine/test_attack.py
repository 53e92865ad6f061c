"""An attack's window: its knockouts are checked when it ends, not at each damage [docs/rules.md §2;
JP3.4 §I-D] (replay/engine/attack.py).
"""

from __future__ import annotations

from replay import Game
from tests.builder import codes
from tests.engine.games import basic


def test_knockout_is_checked_at_the_end_of_the_attack_not_at_each_damage() -> None:
    s = basic()
    s.turn("ash")
    s.add("turn_ended", player="ash")
    s.turn("misty")
    s.add("attack", player="misty", pid="m1", name="Water Gun")
    s.add("damage", pid="a1", amount=60)
    g = Game()
    for e in s.events:
        g.apply(e)
    assert g.board()["players"]["ash"]["active"]["pid"] == "a1"  # still in play during the attack
    out = g.apply(s.add("attack_ended"))
    kos = [o for o in out if o["type"] == "ko"]
    assert [(k["pid"], k["window"], k["seq"]) for k in kos] == [("a1", "attack", len(s.events))]
    assert [o for o in out if o["type"] == "prizes_due"] == [
        {"type": "prizes_due", "seq": len(s.events), "player": "misty", "count": 1}
    ]
    assert [o["player"] for o in out if o["type"] == "promotion_due"] == ["ash"]


def test_healing_inside_the_attack_before_its_end_prevents_the_knockout() -> None:
    s = basic()
    s.turn("ash")
    s.add("attack", player="ash", pid="a1", name="Recover")  # first-turn attack: a finding, still applied
    s.add("damage", pid="a1", amount=60)
    s.add("healed", pid="a1", amount=30)
    s.add("attack_ended")
    r = s.record()
    assert r["knockouts"] == []
    assert "attack_first_turn" in codes(r)
