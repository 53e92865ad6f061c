"""Game scenarios shared by the engine's rule tests (tests/engine/test_*.py): streams built with
:class:`tests.builder.Stream`, and readers of a record's result and findings.
"""

from __future__ import annotations

from typing import Any

from tests.builder import Stream, card, drawn_game


def basic(**started: Any) -> Stream:
    s = Stream(**started)
    s.setup("ash", ("a1", card("Pikachu", 60)), ("a2", card("Raichu ex", 200, "ex")))
    s.setup("misty", ("m1", card("Staryu", 50)), ("m2", card("Starmie", 90)))
    return s


def full_game() -> Stream:
    s = basic()
    s.turn("ash")
    s.add("attached", player="ash", pid="a1", card={"name": "Lightning Energy", "kind": "energy"})
    s.add("turn_ended", player="ash")
    s.turn("misty")
    s.attack("misty", "m1", ("a1", 60), claims=("a1",))
    s.add("prize_taken", player="misty", count=1)
    s.add("promoted", player="ash", pid="a2")
    s.add("turn_ended", player="misty")
    s.turn("ash")
    s.attack("ash", "a2", ("m1", 50), claims=("m1",))
    s.add("prize_taken", player="ash", count=1)
    s.add("promoted", player="misty", pid="m2")
    s.add("conceded", player="misty")
    s.add("game_ended", outcome="win", winner="ash", reason="concession")
    return s


def two_sides(**started: Any) -> Stream:
    """ash goes first; each side has an Active and a Benched Pokémon."""
    s = Stream(**started)
    s.setup("ash", ("a1", card("Pikachu", 60)), ("a2", card("Pichu", 30)))
    s.setup("misty", ("m1", card("Staryu", 50)), ("m2", card("Starmie", 90)))
    return s


def result_of(s: Stream) -> tuple[Any, ...]:
    res = s.record()["result"]
    return (res["outcome"], res["winner"], res["reason"], res["decided_at"]) if res else ()


def playoff_game(ruleset: str, *, match: str = "g1/tb1", parent: str = "g1", **started: Any) -> Stream:
    """A playoff game of ``parent``: ash and misty each with an Active and a Benched Pokémon of 30 HP."""
    s = Stream(match, ruleset=ruleset, parent=parent, first="misty", **started)
    s.setup("ash", ("a1", card("Pikachu", 30)), ("a2", card("Pichu", 30)))
    s.setup("misty", ("m1", card("Staryu", 30)), ("m2", card("Starmie", 30)))
    return s


AFTER_TB = "2025-10-01T10:00:00Z"  # JP3.4's タイブレーク in force (since 2025-08-01)


BEFORE_TB = "2025-03-01T10:00:00Z"  # the サドンデス of the 終了コール procedure


def jp(**started: Any) -> Stream:
    s = Stream(ruleset="jp-3.4", **started)
    s.setup("ash", ("a1", card("Pikachu", 60)), ("a2", card("Raichu", 120)))
    s.setup("misty", ("m1", card("Staryu", 50)), ("m2", card("Starmie", 90)))
    return s


def end(s: Stream, player: str) -> None:
    s.add("turn_ended", player=player)


def drawn_extension(at: str) -> Stream:
    """Time called level; in the extension both Actives are knocked out at one checkup with one prize
    left each: the simultaneous table's draw [JP3.4 §I-E]."""
    s = jp(match="g1", context={"stage": "swiss"}, at=at, prizes=1)
    s.turn("ash")
    s.add("time_called")
    end(s, "ash")
    s.turn("misty")
    end(s, "misty")  # 1-1: the extension
    s.add("checkup_started")
    s.add("damage", pid="a1", amount=60)
    s.add("damage", pid="m1", amount=50)
    s.add("checkup_ended")
    return s


def drawn(ruleset: str, match: str = "g1") -> Stream:
    return drawn_game(match, ruleset)


def child(ruleset: str, name: str, parent: str, playoff: str, prizes: int) -> Stream:
    s = Stream(name, ruleset=ruleset, parent=parent, playoff=playoff, first="misty")
    s.setup("ash", ("a1", card("Pikachu", 30)), ("a2", card("Pichu", 30)))
    s.setup("misty", ("m1", card("Staryu", 30)), ("m2", card("Starmie", 30)))
    assert s.game().state.p["ash"].needed == prizes
    return s


SOURCE = {"kind": "manual", "reports_knockouts": True}


def to_misty_attacking(match: str = "m1", prizes: int = 2) -> Stream:
    """ash's Pikachu ex (60 HP, 2 prizes) faces misty's Staryu; misty's second turn has started."""
    s = Stream(match, first="misty", prizes=prizes, source=SOURCE)
    s.setup("ash", ("a1", card("Pikachu ex", 60, "ex")), ("a2", card("Pichu", 30)))
    s.setup("misty", ("m1", card("Staryu", 50)))
    s.turn("misty")
    s.add("turn_ended", player="misty")
    s.turn("ash")
    s.add("turn_ended", player="ash")
    s.turn("misty")
    return s


def final_knockout(prize_claim: int | None, ko_claim: bool = True, match: str = "m1") -> Stream:
    """A 2-prize game decided by its first knockout (an ex: 2 prizes), the source's claims as given."""
    s = to_misty_attacking(match)
    s.add("attack", player="misty", pid="m1", name="Water Gun")
    s.add("damage", pid="a1", amount=60)
    if ko_claim:
        s.add("knocked_out", pid="a1")
    if prize_claim is not None:
        s.add("prize_taken", player="misty", count=prize_claim)
    s.add("attack_ended")  # the deciding event: misty has taken both prizes
    return s
