"""The table an importer keeps while it reads a game: which card is where, for both players.

One job: track the board the source describes, so an importer can turn "X's Pikachu" into a pid and can
tell what a move could have taken. It holds

- the Pokémon in play (``Mon``): pid, owner, current name and card map, the stages under it, attached
  cards, damage, Special Conditions, when it came into play or last evolved, the most damage it is known
  to have survived;
- each player's Active and Bench, in the order the rules keep them (a Pokémon switched out goes to the
  end of the Bench);
- each player's zone counts (``Zones``: hand, deck, discard pile, Prize cards, Lost Zone, Stadium, in
  play), kept from the contract events the importer emits (``count``), the same way the engine counts
  them (docs/events.md), and the names in the public zones (discard pile, Lost Zone) where the source
  shows them.

It knows nothing of any source's text: the PTCGL importer (replay/sources/ptcgl/) and the match-sheet
importer (replay/sources/sheet.py) both use it. Counts are never invented here: ``short`` says when a move
takes more cards than a zone holds, so the importer can say what the source does not show.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field, fields
from typing import Any

Event = dict[str, Any]
ZONES = ("deck", "hand", "discard", "prizes", "lost_zone", "stadium")
# the event types that can name cards going to or leaving the discard pile (Table._names)
_NAMED = frozenset({"moved", "shuffled", "to_hand", "discarded"})
# the event types that move cards between zones (Table.count): the others (damage, attacks, turns'
# ends, knockouts, promotions: ~40% of a log's events) are let through at once
_COUNTED = frozenset(
    {
        "setup",
        "drew",
        "searched",
        "played",
        "evolved",
        "attached",
        "trainer_played",
        "discarded",
        "moved",
        "shuffled",
        "to_hand",
        "prize_taken",
        "turn_started",
    }
)


@dataclass(slots=True)
class Mon:
    """A Pokémon in play, as the source describes it."""

    pid: str
    owner: str
    name: str
    card: dict[str, Any] = field(default_factory=dict)  # the card map of the current stage (in the events)
    rule: str = "none"
    order: int = 0  # entry into play, 1, 2, ... over both players
    entered: int = 0  # the turn it came into play or last evolved
    evolved_at: int = -1  # the turn it last evolved
    damage: int = 0
    conditions: list[str] = field(default_factory=list)
    attached: list[str] = field(default_factory=list)
    stages: list[str] = field(default_factory=list)  # the Pokémon cards in the stack, lowest first
    survived: int = 0  # the most damage this stage is known to have survived a knockout check with
    hp_bonus: int = 0  # HP the cards attached give this stage (Hero's Cape +100)
    hp_dropped: int = 0  # HP such a card gave before it left this stage (settled at the stage's end)
    devolved: bool = False  # a devolution took its top card off (the engine keeps the evolved card)

    @property
    def cards(self) -> int:
        """Cards in this Pokémon's stack: its stages and everything attached."""
        return max(1, len(self.stages)) + len(self.attached)

    def __deepcopy__(self, memo: dict[int, Any]) -> Mon:
        return Mon(**_copied_fields(self, memo))


@dataclass(slots=True)
class Zones:
    """One player's zone counts (what the events imply) and the names in the public zones."""

    deck: int = 0
    hand: int = 0
    discard: int = 0
    prizes: int = 0
    lost_zone: int = 0
    stadium: int = 0
    in_play: int = 0
    discarded: list[str] = field(default_factory=list)  # names in the discard pile, where shown
    lost: list[str] = field(default_factory=list)  # names in the Lost Zone, where shown

    def get(self, zone: str) -> int:
        return int(getattr(self, zone))

    def add(self, zone: str, n: int) -> None:
        setattr(self, zone, getattr(self, zone) + n)

    def __deepcopy__(self, memo: dict[int, Any]) -> Zones:
        return Zones(**_copied_fields(self, memo))


def _copied_fields(obj: Mon | Zones, memo: dict[int, Any]) -> dict[str, Any]:
    """A dataclass's fields, each deep-copied (``copy.deepcopy`` with the caller's memo): what deepcopy does
    for a plain dataclass, written out because a class compiled by mypyc (tools/compile_engine.py) has no
    copy protocol of its own when its __init__ needs arguments (Table.snapshot, the sheet's amended rows)."""
    return {f.name: copy.deepcopy(getattr(obj, f.name), memo) for f in fields(obj)}


def _count(ev: Event) -> int:
    n = ev.get("count")
    if n is not None or "count" in ev:
        return int(n)  # type: ignore[arg-type]
    cards = ev.get("cards")
    return len(cards) if isinstance(cards, list) and cards else 1


# every attribute Table.__init__ sets: what a copy copies (Table.__deepcopy__; a test checks none is left out)
TABLE_STATE = (
    "players", "hand_size", "prize_count", "mons", "active", "bench", "counter", "entries", "zones",
    "stadium", "short",
)  # fmt: skip


class Table:
    """Both players' Pokémon in play and zone counts. ``new_mon``/``place``/``leave``/``make_active``
    change the board; ``count(ev)`` applies a contract event's card moves to the zone counts."""

    def __init__(self, players: list[str], *, deck: int = 60, hand: int = 7, prizes: int = 6) -> None:
        self.players = list(players)
        self.hand_size = hand
        self.prize_count = prizes
        self.mons: dict[str, Mon] = {}
        self.active: dict[str, str | None] = dict.fromkeys(players)
        self.bench: dict[str, list[str]] = {p: [] for p in players}
        self.counter: dict[str, int] = dict.fromkeys(players, 0)
        self.entries = 0
        self.zones: dict[str, Zones] = {p: Zones(deck=deck) for p in players}
        self.stadium: tuple[str, str] | None = None  # (owner, name) of the Stadium in play
        self.short: list[tuple[str, str, int]] = []  # (player, zone, cards missing) of the last count

    # -- players ----------------------------------------------------------------------------------------
    def other(self, p: str) -> str:
        a, b = self.players
        return b if p == a else a

    def is_player(self, p: str | None) -> bool:
        return p in self.active

    # -- the Pokémon in play ----------------------------------------------------------------------------
    def new_mon(self, owner: str, name: str, card: dict[str, Any] | None = None, *, turn: int = 0) -> Mon:
        """A new Pokémon of ``owner`` with the next pid (``A1``, ``A2``, ... for the first player listed,
        ``B1``, ... for the other); not yet placed."""
        self.counter[owner] += 1
        self.entries += 1
        pid = f"{'AB'[self.players.index(owner)]}{self.counter[owner]}"
        mon = Mon(pid, owner, name, card if card is not None else {}, order=self.entries, entered=turn)
        mon.stages = [name]
        if card is not None:
            mon.rule = str(card.get("rule", "none"))
        self.mons[pid] = mon
        return mon

    def place(self, mon: Mon, to: str) -> None:
        """Into the Active Spot when ``to`` is active and the spot is empty, else onto the Bench."""
        if to == "active" and self.active[mon.owner] is None:
            self.active[mon.owner] = mon.pid
        else:
            self.bench[mon.owner].append(mon.pid)

    def in_play(self, owner: str) -> list[str]:
        """``owner``'s pids in play: the Active first, then the Bench in order."""
        a = self.active[owner]
        return ([a] if a is not None else []) + self.bench[owner]

    def named(self, owner: str, name: str) -> list[str]:
        """``owner``'s Pokémon in play whose current name is ``name``."""
        mons = self.mons
        a = self.active[owner]
        found = [a] if a is not None and mons[a].name == name else []
        for pid in self.bench[owner]:
            if mons[pid].name == name:
                found.append(pid)
        return found

    def is_active(self, pid: str) -> bool:
        mon = self.mons.get(pid)
        return mon is not None and self.active[mon.owner] == pid

    def leave(self, pid: str) -> None:
        """The Pokémon leaves play (knocked out, removed)."""
        mon = self.mons[pid]
        if self.active[mon.owner] == pid:
            self.active[mon.owner] = None
        elif pid in self.bench[mon.owner]:
            self.bench[mon.owner].remove(pid)

    def make_active(self, owner: str, pid: str) -> None:
        """``pid`` becomes the Active; the old Active goes to the end of the Bench and its Special
        Conditions end (they end when a Pokémon leaves the Active Spot)."""
        old = self.active[owner]
        if pid in self.bench[owner]:
            self.bench[owner].remove(pid)
        if old is not None and old != pid:
            self.bench[owner].append(old)
            self.mons[old].conditions.clear()
        self.active[owner] = pid

    # -- zones ------------------------------------------------------------------------------------------
    def zone(self, player: str, zone: str) -> int:
        return self.zones[player].get(zone)

    def discard_pile(self, player: str) -> list[str]:
        """The names known to be in ``player``'s discard pile (every discard is public)."""
        return self.zones[player].discarded

    def fits(self, player: str, zone: str, n: int) -> bool:
        """Whether ``zone`` holds at least ``n`` cards by the events so far."""
        return self.zones[player].get(zone) >= n

    def _move(self, p: str, src: str, dst: str, n: int) -> None:
        # (the zones by name, as Zones.get and Zones.add read them, without their two calls a zone: the
        # importer moves cards ~80 times a log)
        z = self.zones[p]
        have: int = getattr(z, src)
        if src == "deck":
            n = min(n, max(have, 0))  # a player takes what there is [docs/rules.md §1.3]
        elif have < n:
            self.short.append((p, src, n - have))
        setattr(z, src, have - n)
        setattr(z, dst, getattr(z, dst) + n)

    def count(self, ev: Event) -> None:
        """Apply a contract event's card moves to the zone counts, as the engine counts them; moves that
        take more cards than a zone holds are listed in ``short`` (reset by each call)."""
        if self.short:
            self.short = []  # (a new list only after a short count: most counts leave it empty)
        t = ev.get("type")
        if t not in _COUNTED:
            return
        p = ev.get("player")
        if p not in self.zones:
            return
        z = self.zones[p]
        if t == "drew" or t == "searched":  # the most frequent move, first (``_move`` from the deck)
            have = z.deck
            n = min(_count(ev), max(have, 0))  # a player takes what there is [docs/rules.md §1.3]
            z.deck = have - n
            z.hand += n
        elif t == "setup":
            self._move(p, "deck", "hand", self.hand_size)
            self._move(p, "deck", "prizes", self.prize_count)
            placed = (1 if isinstance(ev.get("active"), dict) else 0) + len(ev.get("bench") or [])
            self._move(p, "hand", "in_play", placed)
        elif t in ("played", "evolved"):
            self._move(p, "hand", "in_play", 1)
        elif t == "attached":
            src = ev.get("from", "hand")
            self._move(p, src if src in ZONES else "hand", "in_play", 1)
            mon = self.mons.get(str(ev.get("pid")))
            if mon is not None and mon.owner != p:
                z.in_play -= 1
                self.zones[mon.owner].in_play += 1
        elif t == "trainer_played":
            kind = (ev.get("card") or {}).get("kind")
            if kind == "stadium":
                for other in self.zones.values():
                    if other.stadium > 0:
                        other.discard += other.stadium
                        other.stadium = 0
                self._move(p, "hand", "stadium", 1)
            elif kind in ("item", "supporter"):
                self._move(p, "hand", "discard", 1)
        elif t == "discarded":
            n = _count(ev)
            pid = ev.get("pid")
            if isinstance(pid, str):
                mon = self.mons.get(pid)
                if mon is not None:
                    owner = self.zones[mon.owner]
                    owner.in_play -= n
                    owner.discard += n
            else:
                src = ev.get("from", "hand")
                if src in ZONES:
                    self._move(p, src, "discard", n)
        elif t in ("moved", "shuffled", "to_hand"):
            src = ev.get("from")
            dst: Any
            if t == "to_hand":
                dst = "hand"
                if src is None:
                    src = "discard"
            else:
                dst = ev.get("zone") if t == "shuffled" else ev.get("to")
            if src in ZONES and dst in ZONES and src != dst:
                self._move(p, str(src), str(dst), _count(ev))
        elif t == "prize_taken":
            self._move(p, "prizes", "hand", _count(ev))
        elif t == "turn_started" and "deck" in ev:
            seen = int(ev["deck"])
            z.hand += z.deck - seen  # the difference is in the hand (hidden), as the engine keeps it
            z.deck = seen
        if t in _NAMED:
            self._names(ev, t, p)

    def _names(self, ev: Event, t: Any, p: str) -> None:
        """The public zones' names: cards named going to or leaving the discard pile (``t`` in _NAMED)."""
        if t == "shuffled" and "from" not in ev:
            return
        src = ev.get("from", "hand")
        dst = (
            "discard"
            if t == "discarded"
            else "hand"
            if t == "to_hand"
            else ev.get("zone")
            if t == "shuffled"
            else ev.get("to")
        )
        pile = self.zones[p].discarded
        if dst == "discard":
            pile.extend(ev.get("cards") or [])
        if src == "discard":
            for c in ev.get("cards") or ():
                if c in pile:
                    pile.remove(c)

    def knocked_out(self, pid: str) -> None:
        """A knockout: the Pokémon and every card attached go to its owner's discard pile."""
        mon = self.mons[pid]
        self.leave(pid)
        z = self.zones[mon.owner]
        z.in_play -= mon.cards
        z.discard += mon.cards
        z.discarded.extend(mon.stages + mon.attached)

    def removed(self, pid: str, to: str, *, names: bool = False) -> None:
        """A Pokémon leaves play by an effect, with its cards, to ``to`` (their names into the discard
        pile's names with ``names``, as a knockout's)."""
        mon = self.mons[pid]
        self.leave(pid)
        z = self.zones[mon.owner]
        z.in_play -= mon.cards
        z.add(to if to in ZONES else "discard", mon.cards)
        if names and to == "discard":
            z.discarded.extend(mon.stages + mon.attached)

    # -- what-if ----------------------------------------------------------------------------------------
    def snapshot(self) -> Table:
        """A copy to try something on (the sheet's amended rows)."""
        return copy.deepcopy(self)

    def __deepcopy__(self, memo: dict[int, Any]) -> Table:
        # what copy.deepcopy does for a plain object, attribute by attribute (see _copied_fields)
        new = Table(self.players)
        memo[id(self)] = new
        for name in TABLE_STATE:
            setattr(new, name, copy.deepcopy(getattr(self, name), memo))
        return new
