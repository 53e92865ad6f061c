"""What is on the table: players' zones and the Pokémon in play.

Card counts are kept per zone so that a player's cards are conserved (deck + hand + prizes + discard +
lost zone + stadium + in play == deck size) whatever the source reports; hidden cards are counts only.
"""

from __future__ import annotations

from typing import Any, Final

ZONES: Final = ("deck", "hand", "discard", "prizes", "lost_zone", "stadium")


def _integer(value: Any) -> int | None:
    """A card's number (HP, prizes): JSON Schema counts 60.0 as an integer, the rules count with 60."""
    return int(value) if isinstance(value, float) else value


# Every argument of these classes' __init__ has a default: copy.deepcopy then copies them, compiled by mypyc
# (native classes, attributes in C slots) or not, without a list of their attributes kept by hand.
class Pokemon:
    """A Pokémon in play, known by the producer's ``pid`` (kept through evolution)."""

    def __init__(
        self, pid: str = "", owner: str = "", card: dict[str, Any] | None = None, entered_turn: int = 0
    ) -> None:
        card = card or {}
        self.pid = pid
        self.owner = owner
        self.name: str = str(card.get("name", "?"))
        self.hp = _integer(card.get("hp"))
        self.rule: str | None = card.get("rule")
        self.prizes = _integer(card.get("prizes"))  # an explicit prize value (wins over the rule box)
        self.damage = 0
        self.cards = 1  # the Pokémon card itself, then evolution stages and attachments
        self.attached: list[str] = []
        self.conditions: list[str] = []
        self.entered_turn = entered_turn
        self.evolved_turn = -1
        self.prize_delta = 0

    def evolve(self, card: dict[str, Any], turn: int) -> None:
        """The evolution card goes on top; damage and attachments stay, Special Conditions end."""
        self.name = str(card.get("name", self.name))
        self.hp = _integer(card.get("hp"))
        self.rule = card.get("rule")
        self.prizes = _integer(card.get("prizes"))
        self.cards += 1
        self.conditions = []
        self.evolved_turn = turn

    @property
    def knocked_out(self) -> bool:
        """Remaining HP is 0 (damage >= HP); unknown HP never counts [JP3.4 §I-D]."""
        return self.hp is not None and self.damage >= self.hp

    def view(self) -> dict[str, Any]:
        """Public view of this Pokémon (all of it is public on the table)."""
        return {
            "pid": self.pid,
            "name": self.name,
            "hp": self.hp,
            "damage": self.damage,
            "conditions": list(self.conditions),
            "attached": list(self.attached),
        }


class Player:
    """One side of the table: card counts per zone (hidden zones are counts only), the Pokémon in play by
    pid, and the prizes taken and needed."""

    def __init__(self, player_id: str = "", deck: int = 0, prizes: int = 0) -> None:
        self.id = player_id
        self.deck = deck
        self.hand = 0
        self.discard = 0
        self.prizes = 0  # prize cards still in the pile
        self.lost_zone = 0
        self.stadium = 0
        self.in_play = 0
        self.taken = 0
        self.needed = prizes  # prizes this player must take to win (less the opponent's prize penalties)
        self.active: str | None = None
        self.bench: list[str] = []
        self.turns = 0
        self.mulligans = 0

    def zone(self, name: str) -> int:
        # The zones by name, spelled out: compiled, a field read is a C load; getattr is a dict walk.
        if name == "hand":
            return self.hand
        if name == "deck":
            return self.deck
        if name == "in_play":
            return self.in_play
        if name == "discard":
            return self.discard
        if name == "prizes":
            return self.prizes
        if name == "lost_zone":
            return self.lost_zone
        if name == "stadium":
            return self.stadium
        return int(getattr(self, name))

    def set_zone(self, name: str, count: int) -> None:
        if name == "hand":
            self.hand = count
        elif name == "deck":
            self.deck = count
        elif name == "in_play":
            self.in_play = count
        elif name == "discard":
            self.discard = count
        elif name == "prizes":
            self.prizes = count
        elif name == "lost_zone":
            self.lost_zone = count
        elif name == "stadium":
            self.stadium = count
        else:
            setattr(self, name, count)

    def move(self, src: str, dst: str, count: int) -> int:
        """Move up to ``count`` cards between zones; returns how many moved (never below 0 in ``src``
        for the deck: a player just takes what there is [docs/rules.md §1.3])."""
        have = self.zone(src)
        n = min(count, have) if src == "deck" else count
        self.set_zone(src, have - n)
        self.set_zone(dst, self.zone(dst) + n)
        return n

    def total(self) -> int:
        """All this player's cards, wherever they are."""
        return (
            self.deck + self.hand + self.discard + self.prizes + self.lost_zone + self.stadium + self.in_play
        )

    def in_play_pids(self) -> list[str]:
        return ([self.active] if self.active is not None else []) + self.bench

    @property
    def cannot_put_out_active(self) -> bool:
        """No Active and nothing on the Bench to promote [docs/rules.md §1.2]."""
        return self.active is None and not self.bench
