"""What is on the table: players' zones and the Pokémon in play.

Card counts are kept per zone so that a player's cards are conserved (deck + hand + prizes + discard +
lost zone + stadium + in play == deck size) whatever the source reports; hidden cards are counts only.
"""

from __future__ import annotations

import copy
from typing import Any, Final

ZONES: Final = ("deck", "hand", "discard", "prizes", "lost_zone", "stadium")

# The attributes of a Pokémon and of a Player (their __slots__), named here for the deep copies: a class
# compiled by mypyc has no __slots__ (nor __dict__) at run time.
POKEMON_FIELDS: Final = (
    "attached",
    "cards",
    "conditions",
    "damage",
    "entered_turn",
    "evolved_turn",
    "hp",
    "name",
    "owner",
    "pid",
    "prize_delta",
    "prizes",
    "rule",
)
PLAYER_FIELDS: Final = (
    "active",
    "bench",
    "deck",
    "discard",
    "hand",
    "id",
    "in_play",
    "lost_zone",
    "mulligans",
    "needed",
    "prizes",
    "stadium",
    "taken",
    "turns",
)


def _integer(value: Any) -> int | None:
    """A card's number (HP, prizes): JSON Schema counts 60.0 as an integer, the rules count with 60."""
    return int(value) if isinstance(value, float) else value


class Pokemon:
    """A Pokémon in play, known by the producer's ``pid`` (kept through evolution)."""

    __slots__ = POKEMON_FIELDS

    def __init__(self, pid: str, owner: str, card: dict[str, Any], entered_turn: int) -> None:
        self.pid = pid
        self.owner = owner
        self.name: str = str(card.get("name", "?"))
        self.hp = _integer(card.get("hp"))
        self.rule: str | None = card.get("rule")
        self.prizes = _integer(card.get("prizes"))
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

    def __deepcopy__(self, memo: dict[int, Any]) -> Pokemon:
        # Explicit: copy.deepcopy cannot copy an instance of a class compiled by mypyc.
        new = Pokemon(self.pid, self.owner, {}, self.entered_turn)
        memo[id(self)] = new
        for name in POKEMON_FIELDS:
            setattr(new, name, copy.deepcopy(getattr(self, name), memo))
        return new

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
    """One side of the table."""

    __slots__ = PLAYER_FIELDS

    def __init__(self, player_id: str, deck: int, prizes: int) -> None:
        self.id = player_id
        self.deck = deck
        self.hand = 0
        self.discard = 0
        self.prizes = 0
        self.lost_zone = 0
        self.stadium = 0
        self.in_play = 0
        self.taken = 0
        self.needed = prizes
        self.active: str | None = None
        self.bench: list[str] = []
        self.turns = 0
        self.mulligans = 0

    def __deepcopy__(self, memo: dict[int, Any]) -> Player:
        # Explicit: copy.deepcopy cannot copy an instance of a class compiled by mypyc.
        new = Player(self.id, self.deck, self.needed)
        memo[id(self)] = new
        for name in PLAYER_FIELDS:
            setattr(new, name, copy.deepcopy(getattr(self, name), memo))
        return new

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
        for the deck: a player just takes what there is [rules.md §1.3])."""
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
        """No Active and nothing on the Bench to promote [rules.md §1.2]."""
        return self.active is None and not self.bench
