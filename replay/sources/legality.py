"""Deck legality: a registered list against the deck rules and the format at the event's date
(docs/rules.md §8, docs/decks.md).

- 60 cards; at most 4 copies of a card name, basic Energy excepted; at most 1 ACE SPEC card; at most 1
  Radiant Pokémon [TRH deck construction; rules.md §8.1];
- **Standard**: a card is legal when one of its printings bears a regulation mark the format allows at
  the event's date (rotations below), or is a reprint of one that does (same name and text: one card of
  the catalogue) [rules.md §8.2]; **Expanded**: Black & White onwards [rules.md §8.3]; in both, the ban
  list at the date, and no card whose every printing came out after the date.

The card behind a list's line is the catalogue's (``cards.bin``): its ``SET NUMBER`` (PTCGL's set code,
``SVI 57``) names a printing through the legality data (``legality.json``, tools/build_legality.py, from
TCGdex: each set's code and date, each printing's regulation mark and ACE SPEC rarity), and the printing
names its card; a line without set and number is every card of that name. Each breach is a
:class:`DeckFinding` naming the card and the rule.
"""

from __future__ import annotations

import json
import re
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import asdict, dataclass
from datetime import date
from functools import cache
from importlib import resources
from typing import Any

from replay.i18n import deckcheck as said
from replay.sources.cards import CardInfo, card_database, rule_from_name
from replay.sources.deck_formats import PLAY_FORMATS
from replay.sources.decks import DeckCard, DeckList, name_key

FORMATS = PLAY_FORMATS
DECK_SIZE = 60
MAX_COPIES = 4

#: Standard rotations: from each date (in-person events), the oldest regulation mark still legal (every
#: later mark too) [rules.md §8.2, its sources].
STANDARD_ROTATIONS: tuple[tuple[date, str], ...] = (
    (date(2023, 4, 14), "E"),
    (date(2024, 4, 5), "F"),
    (date(2025, 4, 11), "G"),
    (date(2026, 4, 10), "H"),
)
#: The Black & White series' ACE SPEC cards: TCGdex gives them no ACE SPEC rarity (its Scarlet & Violet
#: ones it does), so they are named here [rules.md §8.1].
BLACK_WHITE_ACE_SPECS = frozenset(
    {
        "Computer Search", "Crystal Edge", "Crystal Wall", "Dowsing Machine", "G Booster", "G Scope",
        "Gold Potion", "Life Dew", "Master Ball", "Rock Guard", "Scoop Up Cyclone", "Scramble Switch",
        "Victory Piece",
    }
)  # fmt: skip
_BASIC_ENERGY = re.compile(r"^Basic (\{[A-Z]\}|[A-Z][a-z]+) Energy$")


@dataclass(frozen=True)
class Ban:
    """A card banned in a format from a date: every printing of the name, or the printings listed."""

    format: str
    name: str
    since: date
    printings: tuple[str, ...] = ()  # ("NVI 67", ...): only these printings of the name


#: The ban lists as Play! Pokémon's "Pokémon TCG Banned Card List" gives them [rules.md §8.4]: the entries
#: checked against that page; a card it adds is one line here.
BANS: tuple[Ban, ...] = (
    Ban("expanded", "Lysandre's Trump Card", date(2015, 3, 18)),
    Ban("expanded", "Archeops", date(2016, 3, 11), ("NVI 67", "DEX 110")),
    Ban("expanded", "Shiftry", date(2016, 3, 11), ("NXD 72",)),
    Ban("expanded", "Forest of Giant Plants", date(2018, 2, 2)),
    Ban("expanded", "Hex Maniac", date(2018, 2, 2)),
    Ban("expanded", "Ghetsis", date(2018, 8, 17), ("PLF 101",)),
    Ban("expanded", "Maxie's Hidden Ball Trick", date(2019, 2, 4)),
    Ban("expanded", "Marshadow", date(2019, 2, 4), ("SLG 45",)),
    Ban("expanded", "Unown", date(2019, 8, 16), ("LOT 91",)),
    Ban("expanded", "Chip-Chip Ice Axe", date(2020, 2, 21)),
    Ban("expanded", "Island Challenge Amulet", date(2020, 6, 5)),
    Ban("expanded", "Lusamine", date(2020, 6, 5), ("CIN 96",)),
    Ban("expanded", "Oranguru", date(2021, 3, 16), ("UPR 114",)),
    Ban("expanded", "Delinquent", date(2021, 6, 14)),
    Ban("expanded", "Flabébé", date(2021, 6, 14), ("FLI 83",)),
    Ban("expanded", "Lt. Surge's Strategy", date(2021, 6, 14)),
    Ban("expanded", "Mismagius", date(2021, 6, 14), ("UNM 78",)),
)


@dataclass(frozen=True)
class DeckFinding:
    """One breach of a deck rule: its code, the card (when one is to blame), the rule and a sentence."""

    code: str
    rule: str
    message: str
    card: str = ""
    line: int = 0

    def as_json(self) -> dict[str, Any]:
        """The finding as plain data."""
        return asdict(self)


@dataclass(frozen=True)
class Printing:
    """A printing's legality facts: its set code, release date, regulation mark, ACE SPEC rarity."""

    code: str
    released: str
    mark: str
    ace_spec: bool


class LegalityData:
    """The packaged legality data (``legality.json``) over the card catalogue."""

    def __init__(self, doc: dict[str, Any]) -> None:
        self.source: dict[str, Any] = dict(doc.get("source") or {})
        self.printings: dict[str, Printing] = {}
        self.set_ids: dict[str, str] = {}  # PTCGL set code -> the catalogue's set id
        for sid, s in doc["sets"].items():
            if s["code"]:
                self.set_ids.setdefault(s["code"].upper(), sid)
            aces = set(s["ace_spec"])
            for number in {*s["marks"], *aces}:
                self.printings[f"{sid}_{number}"] = Printing(
                    s["code"], s["date"], s["marks"].get(number, ""), number in aces
                )
        self._dates: dict[str, str] = {sid: str(s["date"]) for sid, s in doc["sets"].items()}
        db = card_database()
        self.prints_of: dict[int, list[str]] = defaultdict(list)
        for pid, i in db.prints.items():
            self.prints_of[i].append(pid)

    def released(self, pid: str) -> str:
        """The release date (ISO) of printing ``pid``'s set."""
        return self._dates.get(pid.rsplit("_", 1)[0], "")

    def printing_id(self, card: DeckCard) -> str | None:
        """The catalogue's id of a list line's printing (``SVI 57`` -> ``sv1_57``), or None."""
        sid = self.set_ids.get(card.set.upper())
        if sid is None or not card.number:
            return None
        return f"{sid}_{card.number.lstrip('0') or '0'}"


@cache
def legality_data() -> LegalityData:
    """The packaged legality data (read once per process)."""
    text = resources.files("replay.sources").joinpath("legality.json").read_text("utf-8")
    return LegalityData(json.loads(text))


@dataclass(frozen=True)
class ResolvedCard:
    """A list line and the catalogue cards it may be (one when its printing is known)."""

    line: DeckCard
    cards: tuple[int, ...]  # catalogue card numbers

    def infos(self) -> list[CardInfo]:
        db = card_database()
        return [db.card(i) for i in self.cards]


def resolve(card: DeckCard) -> ResolvedCard:
    """The catalogue card(s) behind a list line: its printing's when that printing bears the line's name,
    else every card of its name."""
    db = card_database()
    pid = legality_data().printing_id(card)
    if pid is not None and pid in db.prints:
        printed = db.card(db.prints[pid])
        # PTCGL names basic Energy its own way (Basic {L} Energy for Lightning Energy)
        if name_key(printed.name) == card.name or (
            _BASIC_ENERGY.match(card.name) and printed.category == "energy"
        ):
            return ResolvedCard(card, (db.prints[pid],))
    # no such printing, or one of another name (a mistyped number): the name decides
    hits = db.by_name.get("en", {}).get(card.name) or []
    return ResolvedCard(card, tuple(hits))


def is_basic_energy(r: ResolvedCard) -> bool:
    """Basic Energy (any number of copies): the catalogue's Normal Energy, or PTCGL's ``Basic {L} Energy``."""
    if _BASIC_ENERGY.match(r.line.name):
        return True
    infos = r.infos()
    return bool(infos) and all(i.category == "energy" and i.kind == "Normal" for i in infos)


def check_deck(deck: DeckList, play: str, on: date) -> list[DeckFinding]:
    """Every breach of the deck rules by ``deck`` in format ``play`` (standard, expanded) at date ``on``."""
    data = legality_data()
    resolved = [resolve(c) for c in deck.cards]
    out: list[DeckFinding] = []
    if deck.total != DECK_SIZE:
        out.append(
            DeckFinding("deck_size", "rules.md §8.1", said.DECK_SIZE.format(total=deck.total, size=DECK_SIZE))
        )
    copies: dict[str, int] = defaultdict(int)
    first_line: dict[str, int] = {}
    for r in resolved:
        if not is_basic_energy(r):
            copies[r.line.name] += r.line.count
            first_line.setdefault(r.line.name, r.line.line)
    for name, n in copies.items():
        if n > MAX_COPIES:
            why = said.TOO_MANY_COPIES.format(n=n, card=name, most=MAX_COPIES)
            out.append(DeckFinding("too_many_copies", "rules.md §8.1", why, name, first_line[name]))
    aces = [r for r in resolved if _ace_spec(r, data)]
    if sum(r.line.count for r in aces) > 1:
        names = ", ".join(f"{r.line.count} {r.line.name}" for r in aces)
        out.append(DeckFinding("ace_spec", "rules.md §8.1", said.ACE_SPEC.format(cards=names),
                               aces[0].line.name, aces[0].line.line))  # fmt: skip
    radiant = [r for r in resolved if rule_from_name(r.line.name) == "radiant"]
    if sum(r.line.count for r in radiant) > 1:
        names = ", ".join(f"{r.line.count} {r.line.name}" for r in radiant)
        out.append(DeckFinding("radiant", "rules.md §8.1", said.RADIANT.format(cards=names),
                               radiant[0].line.name, radiant[0].line.line))  # fmt: skip
    for r in resolved:
        out.extend(_card_legality(r, play, on, data))
    return out


def _ace_spec(r: ResolvedCard, data: LegalityData) -> bool:
    if r.line.name in BLACK_WHITE_ACE_SPECS:
        return True
    return any(data.printings.get(pid, _NONE).ace_spec for i in r.cards for pid in data.prints_of[i])


_NONE = Printing("", "", "", False)


def standard_marks(on: date) -> str | None:
    """The oldest regulation mark Standard allows at ``on`` (later marks too), or None before the first
    rotation this data knows."""
    oldest = None
    for since, mark in STANDARD_ROTATIONS:
        if on >= since:
            oldest = mark
    return oldest


def _card_legality(r: ResolvedCard, play: str, on: date, data: LegalityData) -> Iterable[DeckFinding]:
    card = r.line
    where = f"{card.count} {card.name}" + (f" {card.set} {card.number}" if card.set else "")
    if not r.cards:
        why = said.UNKNOWN_CARD.format(line=where)
        yield DeckFinding("unknown_card", "rules.md §8.2", why, card.name, card.line)
        return
    if is_basic_energy(r):
        return  # basic Energy is legal in every format [rules.md §8.1]
    # A reprint is the card it reprints: a Pokémon of the same name and text (one catalogue card), a
    # Trainer or Energy of the same name (every card of that name) [rules.md §8.2]
    cards = r.cards
    if all(i.category != "pokemon" for i in r.infos()):
        cards = tuple(card_database().by_name.get("en", {}).get(card.name) or cards)
    prints = [pid for i in cards for pid in data.prints_of[i]]
    iso = on.isoformat()
    out_by = [pid for pid in prints if data.released(pid) and data.released(pid) <= iso]
    if not out_by:
        yield DeckFinding("not_released", "rules.md §8.2",
                          said.NOT_RELEASED.format(line=where, date=iso), card.name, card.line)  # fmt: skip
        return
    for ban in BANS:
        if ban.format == play and ban.name == card.name and on >= ban.since:
            printed = f"{card.set} {card.number}"
            if not ban.printings or printed in ban.printings:
                yield DeckFinding("banned", "rules.md §8.4",
                                  said.BANNED.format(line=where, format=play.title(),
                                                     date=ban.since.isoformat()),
                                  card.name, card.line)  # fmt: skip
    if play == "standard":
        oldest = standard_marks(on)
        marks = sorted(
            {data.printings[p].mark for p in out_by if p in data.printings and data.printings[p].mark}
        )
        if oldest is not None and not any(m >= oldest for m in marks):
            shown = ", ".join(marks) or "none"
            why = said.REGULATION_MARK.format(line=where, marks=shown, date=iso, oldest=oldest)
            yield DeckFinding("regulation_mark", "rules.md §8.2", why, card.name, card.line)
