"""A terse way to write contract event streams in tests."""

from __future__ import annotations

from typing import Any

from replay import Game
from replay.contract.validate import checked_game


class Stream:
    """Events of one match with seq numbered automatically."""

    def __init__(self, match: str = "m1", **started: Any) -> None:
        self.match = match
        self.events: list[dict[str, Any]] = []
        fields: dict[str, Any] = {
            "players": ["ash", "misty"],
            "first": "ash",
            "ruleset": "play-2026",
            "source": {"kind": "digital"},
        }
        fields.update(started)
        self.add("match_started", **fields)

    def add(self, type_: str, **fields: Any) -> dict[str, Any]:
        event = {"match": self.match, "seq": len(self.events) + 1, "type": type_, **fields}
        self.events.append(event)
        return event

    def setup(
        self, player: str, active: tuple[str, dict[str, Any]], *bench: tuple[str, dict[str, Any]]
    ) -> None:
        self.add(
            "setup",
            player=player,
            active={"pid": active[0], "card": active[1]},
            bench=[{"pid": p, "card": c} for p, c in bench],
        )

    def turn(self, player: str, draw: bool = True) -> None:
        self.add("turn_started", player=player)
        if draw:
            self.add("drew", player=player)

    def attack(self, player: str, pid: str, *hits: tuple[str, int], claims: tuple[str, ...] = ()) -> None:
        self.add("attack", player=player, pid=pid, name="Tackle")
        for target, amount in hits:
            self.add("damage", pid=target, amount=amount)
        for c in claims:
            self.add("knocked_out", pid=c)
        self.add("attack_ended")

    def game(self) -> Game:
        g = checked_game()
        for e in self.events:
            g.apply(e)
        return g

    def record(self) -> dict[str, Any]:
        return self.game().record()


def drawn_game(match: str = "g1", ruleset: str = "play-2026", **started: Any) -> Stream:
    """A 1-prize game that must be decided and ends in a double knockout draw at the first checkup."""
    s = Stream(match, ruleset=ruleset, must_decide=True, prizes=1, **started)
    s.setup("ash", ("a1", card("Pikachu", 30)))
    s.setup("misty", ("m1", card("Staryu", 30)))
    s.turn("ash")
    s.add("turn_ended", player="ash")
    s.add("checkup_started")
    s.add("damage", pid="a1", amount=30)
    s.add("damage", pid="m1", amount=30)
    s.add("checkup_ended")
    return s


def sudden_death(name: str, *, decided: bool, parent: str = "g1", **started: Any) -> Stream:
    """A kr-1.0 sudden death of ``parent``: won by ash's first prize, or a double knockout draw."""
    s = Stream(name, ruleset="kr-1.0", parent=parent, first="misty", **started)
    s.setup("ash", ("a1", card("Pikachu", 30)), ("a2", card("Pichu", 30)))
    s.setup("misty", ("m1", card("Staryu", 30)), ("m2", card("Starmie", 30)))
    s.turn("misty")
    s.add("turn_ended", player="misty")
    if decided:
        s.turn("ash")
        s.attack("ash", "a1", ("m1", 30), claims=("m1",))
    else:
        s.add("checkup_started")
        s.add("damage", pid="a1", amount=30)
        s.add("damage", pid="m1", amount=30)
        s.add("checkup_ended")
    return s


def card(name: str, hp: int | None = 60, rule: str | None = None, **extra: Any) -> dict[str, Any]:
    c: dict[str, Any] = {"name": name}
    if hp is not None:
        c["hp"] = hp
    if rule is not None:
        c["rule"] = rule
    c.update(extra)
    return c


def codes(record: dict[str, Any]) -> list[str]:
    return [f["code"] for f in record["findings"]]
