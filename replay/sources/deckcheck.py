"""The deck check: what a player puts into play against their registered list (docs/decks.md, "Deck
checks"; docs/rules.md §8.5).

A card a player puts into play (a Pokémon at setup, played, or evolved into; an attached Energy or Tool;
a Trainer played) that is not on their list is ``not_on_list``; more copies of it in play and in the
discard pile at once than the list holds is ``more_than_listed``. Copies are counted as they come into
play, less those a named effect takes back to the hand or the deck (``to_hand``, ``shuffled`` naming
them, a Pokémon ``removed`` to the hand or the deck), so a card played, returned and played again is one
copy. Same-name printings with different card text are different cards: a card whose HP (when the event
gives it) matches none of the listed printings' is not on the list; reprints (one card of the catalogue)
are the same card.

The list is the match's own, else the player's list for the event (``decks import``, ``PUT /decks``), else
the one the console recorded in ``match_started`` (``console.decks``). Findings are judges' information:
they name the list, so they never reach a record, a board or any public view.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from typing import Any

import msgpack

from replay.engine import InputError
from replay.i18n import deckcheck as sentences
from replay.sources.cards import card_database
from replay.sources.decks import DeckList, deck_for, name_key, parse_ptcgl
from replay.sources.legality import resolve

#: The events that put a card into play, and where their card is.
_PUTS = ("setup", "played", "evolved", "attached", "trainer_played")
#: Every event type the check reads: any other is passed over at the cost of one look-up.
_WATCHED = frozenset({"match_started", *_PUTS, "to_hand", "shuffled", "removed"})


@dataclass(frozen=True)
class DeckCheck:
    """One deck-check finding: at which event of which match, whose card, and why."""

    match: str
    seq: int
    player: str
    card: str
    code: str  # not_on_list | more_than_listed
    message: str
    listed: int
    seen: int

    def as_json(self) -> dict[str, Any]:
        """The finding as plain data."""
        return asdict(self)


@dataclass
class _Listed:
    """A player's list as the check reads it: copies per name, and the catalogue cards each name may be."""

    deck: DeckList
    copies: dict[str, int] = field(default_factory=dict)
    cards: dict[str, set[int]] = field(default_factory=dict)

    @classmethod
    def of(cls, deck: DeckList) -> _Listed:
        out = cls(deck, deck.copies())
        for line in deck.cards:
            out.cards.setdefault(name_key(line.name), set()).update(resolve(line).cards)
        return out


@dataclass
class _Match:
    event: str
    lists: dict[str, _Listed]
    seen: dict[tuple[str, str], int] = field(default_factory=lambda: defaultdict(int))
    pids: dict[str, str] = field(default_factory=dict)  # pid -> the card on top (its name)
    flagged: set[tuple[str, str, str]] = field(default_factory=set)
    found: list[DeckCheck] = field(default_factory=list)


class DeckChecker:
    """Fed every event of the games to check, in order, it keeps the deck-check findings of each match
    until :meth:`pop` takes them. ``lists``: event -> the registered lists (key -> list, as stored)."""

    def __init__(self, lists: Mapping[str, Mapping[str, DeckList]] | None = None) -> None:
        self.lists = lists or {}
        self._matches: dict[str, _Match] = {}
        self._read: dict[int, _Listed] = {}  # a registered list read once, for every game it covers

    def feed_chunk(self, events: list[Any], raw: bool) -> None:
        """A chunk of events as :func:`replay.files.replay_files` reads them (``raw``: MessagePack bytes)."""
        feed = self.feed
        if raw:
            for data in events:
                ev = msgpack.unpackb(data)
                if ev.get("type") in _WATCHED:
                    feed(ev)
        else:
            for ev in events:
                if ev["type"] in _WATCHED:
                    feed(ev)

    def feed(self, ev: Mapping[str, Any]) -> None:
        """One event (a match's events in seq order)."""
        kind = ev.get("type")
        if kind not in _WATCHED:
            return
        match = str(ev.get("match"))
        if kind == "match_started":
            self._start(match, ev)
            return
        m = self._matches.get(match)
        if m is None:
            return
        if kind in _PUTS:
            self._put(m, match, ev)
        elif kind in ("to_hand", "shuffled"):
            if ev.get("from") not in (None, "deck", "hand"):  # back from the discard pile or the Lost Zone
                for name in ev.get("cards") or ():
                    self._back(m, str(ev.get("player")), str(name))
        elif kind == "removed" and ev.get("to") in ("hand", "deck"):
            name = m.pids.pop(str(ev.get("pid")), None)
            if name is not None:
                self._back(m, str(ev.get("player")), name)

    def pop(self, match: str) -> list[DeckCheck]:
        """The findings of ``match`` (and forget it)."""
        m = self._matches.pop(match, None)
        return m.found if m is not None else []

    def _start(self, match: str, ev: Mapping[str, Any]) -> None:
        context = ev.get("context") if isinstance(ev.get("context"), Mapping) else {}
        event = str((context or {}).get("event") or "")
        registered = self.lists.get(event, {})
        console = ev.get("console")
        typed = console.get("decks") if isinstance(console, Mapping) else None
        lists: dict[str, _Listed] = {}
        for player in ev.get("players") or ():
            deck = deck_for(registered, str(player), match) if registered else None
            text = typed.get(player) if isinstance(typed, Mapping) else None
            if deck is None and isinstance(text, str) and text.strip():
                try:
                    cards = parse_ptcgl(text, f"{match}: console.decks.{player}")
                except InputError:
                    cards = []  # the console refuses such a list; a file's is not this check's to judge
                deck = DeckList(player=str(player), event=event, cards=cards, match=match, format="console")
            if deck is not None and deck.cards:
                listed = self._read.get(id(deck)) if deck.format != "console" else None
                if listed is None:
                    listed = _Listed.of(deck)
                    if deck.format != "console":
                        self._read[id(deck)] = listed
                lists[str(player)] = listed
        if lists:
            self._matches[match] = _Match(event, lists)

    def _put(self, m: _Match, match: str, ev: Mapping[str, Any]) -> None:
        player = str(ev.get("player"))
        listed = m.lists.get(player)
        if listed is None:
            return
        cards: list[tuple[Mapping[str, Any], str | None]] = []
        if ev.get("type") == "setup":
            for slot in (ev.get("active"), *(ev.get("bench") or ())):
                if isinstance(slot, Mapping) and isinstance(slot.get("card"), Mapping):
                    cards.append((slot["card"], slot.get("pid")))
        elif isinstance(ev.get("card"), Mapping):
            cards.append((ev["card"], ev.get("pid") if ev.get("type") != "attached" else None))
        for card, pid in cards:
            name = name_key(str(card.get("name") or ""))
            if not name:
                continue
            if ev.get("type") == "trainer_played" and card.get("kind") == "tool":
                continue  # the attached event that follows puts the Tool into play
            if pid is not None:
                m.pids[str(pid)] = name
            m.seen[(player, name)] += 1
            self._judge(m, match, int(ev.get("seq") or 0), player, name, card, listed)

    def _back(self, m: _Match, player: str, name: str) -> None:
        key = (player, name_key(name))
        if m.seen.get(key, 0) > 0:
            m.seen[key] -= 1

    def _judge(
        self,
        m: _Match,
        match: str,
        seq: int,
        player: str,
        name: str,
        card: Mapping[str, Any],
        listed: _Listed,
    ) -> None:
        copies = listed.copies.get(name, 0)
        seen = m.seen[(player, name)]
        if copies == 0:
            code, why = "not_on_list", sentences.NOT_ON_LIST.format(player=player, card=name)
        elif not _same_card(name, card.get("hp"), listed.cards.get(name, set())):
            code = "not_on_list"
            why = sentences.OTHER_PRINTING.format(player=player, card=name, hp=card.get("hp"))
        elif seen > copies:
            code = "more_than_listed"
            why = sentences.MORE_THAN_LISTED.format(player=player, seen=seen, card=name, listed=copies)
        else:
            return
        if (player, name, code) in m.flagged:
            return
        m.flagged.add((player, name, code))
        m.found.append(DeckCheck(match, seq, player, name, code, why, copies, seen))


def _same_card(name: str, hp: Any, listed: set[int]) -> bool:
    """Whether a card put into play named ``name`` (with ``hp`` when known) may be one the list holds:
    without HP, or without catalogue cards to compare, the name decides."""
    if not isinstance(hp, int) or not listed:
        return True
    db = card_database()
    played = {i for i in db.by_name.get("en", {}).get(name) or () if db.card(i).hp in (hp, None)}
    return not played or bool(played & listed)
