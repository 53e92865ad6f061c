"""Registered deck lists: a player's 60 cards for an event (or for one match, when they change decks).

Three formats come in (docs/decks.md):

- **PTCGL's export** (Pokémon TCG Live, "Export deck list"), one card a line, ``COUNT NAME SET NUMBER``
  under ``Pokémon: N``, ``Trainer: N`` and ``Energy: N`` headings whose N must be the sum of the lines
  under them, and an optional ``Total Cards: 60``::

      Pokémon: 4
      4 Pikachu ex SVI 57
      Trainer: 4
      4 Poké Pad POR 81

- **Limitless' JSON** (the decklist of Limitless TCG's tournament API): ``{"pokemon": [...], "trainer":
  [...], "energy": [...]}``, each card ``{"count", "name", "set", "number"}`` (a ``decklist`` key holding
  that object is accepted as well);
- **a plain CSV** with a header naming at least ``count`` and ``name`` (``set``, ``number``, ``section``
  optional).

Every parser gives a :class:`DeckList` or raises :class:`InputError` naming the file, the line and the
field, so nothing of a malformed list is kept. Names are kept as printed (``Poké Pad``, accents and all);
the legality and the deck check read the card behind a name from the catalogue (``replay.sources.legality``).
"""

from __future__ import annotations

import csv
import io
import json
import re
import unicodedata
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import msgspec

from replay.engine import InputError
from replay.sources.deck_formats import LIST_FORMATS

FORMATS = LIST_FORMATS
SECTIONS = ("pokemon", "trainer", "energy")
#: A deck list is small: a longer file is not one (a 60-card list is ~2 KB).
MAX_BYTES = 256 * 1024
MAX_COUNT = 60

_HEADING = re.compile(r"^\s*(Pok[ée]mon|Trainer|Energy)\s*:\s*(\d+)\s*$", re.IGNORECASE)
_TOTAL = re.compile(r"^\s*Total\s+Cards\s*:\s*(\d+)\s*$", re.IGNORECASE)
# COUNT NAME SET NUMBER: the set code is PTCGL's (SVI, PAL, PR-SV, Energy), the number a collector number
_CARD = re.compile(r"^\s*(\d{1,3})\s+(.+?)\s+([A-Za-z][A-Za-z0-9-]{1,7})\s+([0-9A-Za-z]{1,8})\s*$")
_BARE = re.compile(r"^\s*(\d{1,3})\s+(.+?)\s*$")  # a line without set and number (hand-typed lists)


class DeckCard(msgspec.Struct, frozen=True, omit_defaults=True):
    """A line of a deck list: how many copies of which printing (``set`` and ``number`` as printed)."""

    count: int
    name: str
    set: str = ""
    number: str = ""
    section: str = ""  # pokemon | trainer | energy, when the list says
    line: int = 0


class DeckList(msgspec.Struct):
    """A player's registered deck: for a whole ``event``, or for one ``match`` of it when given."""

    player: str
    event: str
    cards: list[DeckCard]
    match: str | None = None
    format: str = "ptcgl"
    source: str = ""  # the file it was read from

    @property
    def total(self) -> int:
        """How many cards the list holds."""
        return sum(c.count for c in self.cards)

    def copies(self) -> dict[str, int]:
        """Copies per card name (every printing of a name together), names as :func:`name_key` folds them."""
        out: dict[str, int] = {}
        for c in self.cards:
            out[name_key(c.name)] = out.get(name_key(c.name), 0) + c.count
        return out


def deck_key(player: str, match: str | None = None) -> str:
    """Where a list is stored within its event: ``player``, or ``player|match`` for one match's list."""
    return f"{player}|{match}" if match else player


def deck_for(decks: Mapping[str, DeckList], player: str, match: str) -> DeckList | None:
    """The list ``player`` registered for ``match``: the match's own, else the event's."""
    return decks.get(deck_key(player, match)) or decks.get(deck_key(player))


def name_key(name: str) -> str:
    """A card name as compared: Unicode NFC, one apostrophe, ``Pokemon`` with its accent, spaces folded."""
    text = unicodedata.normalize("NFC", name).replace("\u2019", "'").replace("Pokemon", "Pokémon")
    return " ".join(text.split())


def read_deck(
    path: str, *, player: str, event: str, match: str | None = None, fmt: str | None = None
) -> DeckList:
    """Read a deck list file; ``fmt`` None guesses it (``.json`` Limitless, ``.csv`` CSV, else PTCGL)."""
    p = Path(path)
    try:
        if p.stat().st_size > MAX_BYTES:
            raise InputError(f"larger than {MAX_BYTES // 1024} KiB: not a deck list", file=path)
        data = p.read_bytes()
    except FileNotFoundError:
        raise InputError("no such file", file=path) from None
    except IsADirectoryError:
        raise InputError("is a directory", file=path) from None
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror}", file=path) from None
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise InputError("not UTF-8 text", file=path, line=line) from None
    if fmt is None:
        fmt = {".json": "limitless", ".csv": "csv"}.get(p.suffix.lower(), "ptcgl")
    return parse_deck(text, fmt, player=player, event=event, match=match, name=path)


def parse_deck(
    text: str, fmt: str, *, player: str, event: str, match: str | None = None, name: str = "<deck>"
) -> DeckList:
    """Parse a deck list's text in ``fmt`` (one of :data:`FORMATS`)."""
    if not text.strip():
        raise InputError("is empty: nothing to import", file=name)
    parsers = {"ptcgl": parse_ptcgl, "limitless": parse_limitless, "csv": parse_csv}
    if fmt not in parsers:
        raise InputError(f"unknown deck list format {fmt!r} (one of {', '.join(FORMATS)})", file=name)
    cards = parsers[fmt](text, name)
    if not cards:
        raise InputError("is empty: nothing to import", file=name)
    return DeckList(player=player, event=event, match=match, cards=cards, format=fmt, source=name)


def parse_ptcgl(text: str, name: str = "<deck>") -> list[DeckCard]:
    """PTCGL's export: card lines under section headings whose counts must add up (module docstring)."""
    cards: list[DeckCard] = []
    section = ""
    heading: tuple[str, int, int] | None = None  # section, its stated count, its line

    def close() -> None:
        if heading is not None:
            sec, stated, at = heading
            got = sum(c.count for c in cards if c.section == sec)
            if got != stated:
                raise InputError(
                    f"the heading says {stated} cards, the lines under it hold {got}",
                    file=name,
                    line=at,
                    field=sec,
                )

    for n, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line:
            continue
        if m := _HEADING.match(line):
            close()
            section = "pokemon" if m.group(1).lower().startswith("pok") else m.group(1).lower()
            heading = (section, int(m.group(2)), n)
            continue
        if m := _TOTAL.match(line):
            close()
            heading = None
            total = sum(c.count for c in cards)
            if int(m.group(1)) != total:
                raise InputError(
                    f"says {m.group(1)} cards, the list holds {total}", file=name, line=n, field="Total Cards"
                )
            continue
        m = _CARD.match(line) or _BARE.match(line)
        if m is None:
            raise InputError(
                f"not a card line (COUNT NAME SET NUMBER) nor a heading: {line[:60]!r}", file=name, line=n
            )
        count = _count(m.group(1), name, n)
        set_code, number = (m.group(3), m.group(4)) if m.re is _CARD else ("", "")
        cards.append(DeckCard(count, name_key(m.group(2)), set_code, number, section, n))
    close()
    return cards


def parse_limitless(text: str, name: str = "<deck>") -> list[DeckCard]:
    """Limitless TCG's decklist JSON (module docstring)."""
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(f"not JSON: {exc.msg}", file=name, line=exc.lineno) from None
    if isinstance(doc, Mapping) and isinstance(doc.get("decklist"), Mapping):
        doc = doc["decklist"]
    if not isinstance(doc, Mapping) or not any(k in doc for k in SECTIONS):
        raise InputError('expected an object with "pokemon", "trainer" and "energy" lists', file=name, line=1)
    lines = _json_lines(text)
    cards: list[DeckCard] = []
    for section in SECTIONS:
        items = doc.get(section, [])
        if not isinstance(items, list):
            raise InputError("expected a list of cards", file=name, line=lines.get(section), field=section)
        for i, item in enumerate(items):
            where = f"{section}[{i}]"
            line = lines.get(f"{section}#{i}", lines.get(section))
            if not isinstance(item, Mapping):
                raise InputError("expected a card object", file=name, line=line, field=where)
            count = _count(item.get("count"), name, line, f"{where}.count")
            card_name = item.get("name")
            if not isinstance(card_name, str) or not card_name.strip():
                raise InputError("card name missing", file=name, line=line, field=f"{where}.name")
            cards.append(
                DeckCard(
                    count,
                    name_key(card_name),
                    str(item.get("set") or ""),
                    str(item.get("number") or ""),
                    section,
                    line or 0,
                )
            )
    return cards


def _json_lines(text: str) -> dict[str, int]:
    """Where each section's list and each of its card objects start (the JSON text's line numbers), so an
    error names the line a user can go to: ``section`` and ``section#i``. A small scan of the text that
    already parsed: strings skipped, containers tracked."""
    out: dict[str, int] = {}
    stack: list[str] = []  # the open containers: a section's list is "[pokemon", any other "[" or "{"
    counts: dict[str, int] = {}
    line, i, last_string = 1, 0, ""
    while i < len(text):
        ch = text[i]
        if ch == "\n":
            line += 1
        elif ch == '"':
            j = i + 1
            while j < len(text) and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            last_string, i = text[i + 1 : j], j
        elif ch == "[":
            section = last_string if last_string in SECTIONS and stack and stack[-1] == "{" else ""
            stack.append("[" + section)
            if section:
                out.setdefault(section, line)
        elif ch == "{":
            if stack and stack[-1][1:] in SECTIONS:
                sec = stack[-1][1:]
                out.setdefault(f"{sec}#{counts.get(sec, 0)}", line)
                counts[sec] = counts.get(sec, 0) + 1
            stack.append("{")
        elif ch in "]}" and stack:
            stack.pop()
        elif ch == ",":
            last_string = ""
        i += 1
    return out


def parse_csv(text: str, name: str = "<deck>") -> list[DeckCard]:
    """A CSV with a header naming ``count`` and ``name`` (``set``, ``number``, ``section`` optional)."""
    reader = csv.DictReader(io.StringIO(text))
    fields = [f.strip().lower() for f in reader.fieldnames or []]
    for need in ("count", "name"):
        if need not in fields:
            raise InputError(f"the header has no {need!r} column", file=name, line=1, field=need)
    reader.fieldnames = fields
    cards: list[DeckCard] = []
    for row in reader:
        n = reader.line_num
        if not any((v or "").strip() for v in row.values() if isinstance(v, str)):
            continue
        count = _count(row.get("count"), name, n, "count")
        card_name = (row.get("name") or "").strip()
        if not card_name:
            raise InputError("card name missing", file=name, line=n, field="name")
        section = (row.get("section") or "").strip().lower().replace("é", "e")
        if section and section not in SECTIONS:
            raise InputError(
                f"unknown section {section!r} (pokemon, trainer, energy)", file=name, line=n, field="section"
            )
        cards.append(
            DeckCard(
                count,
                name_key(card_name),
                (row.get("set") or "").strip(),
                (row.get("number") or "").strip(),
                section,
                n,
            )
        )
    return cards


def _count(value: Any, name: str, line: int | None, field: str = "count") -> int:
    try:
        count = int(str(value).strip()) if not isinstance(value, bool) else -1
    except ValueError:
        count = -1
    if not 1 <= count <= MAX_COUNT:
        raise InputError(
            f"a card count is 1 to {MAX_COUNT}, got {value!r}", file=name, line=line, field=field
        )
    return count


def read_lists(paths: Iterable[str]) -> dict[str, dict[str, DeckList]]:
    """Deck lists saved from ``GET /decks/{event}`` (``{"event", "decks": [...]}``), by event and key
    (:func:`deck_key`); InputError naming the file and the field of anything else."""
    out: dict[str, dict[str, DeckList]] = {}
    for path in paths:
        try:
            data = Path(path).read_bytes()
        except FileNotFoundError:
            raise InputError("no such file", file=path) from None
        except OSError as exc:
            raise InputError(f"cannot read: {exc.strerror}", file=path) from None
        try:
            saved = msgspec.json.decode(data, type=_Saved)
        except msgspec.DecodeError as exc:
            raise InputError(f"not deck lists as GET /decks/{{event}} gives them: {exc}", file=path) from None
        for deck in saved.decks:
            out.setdefault(deck.event, {})[deck_key(deck.player, deck.match)] = deck
    return out


class _Saved(msgspec.Struct):
    decks: list[DeckList]
    event: str = ""


def encode(deck: DeckList) -> bytes:
    """The deck list as stored (JSON)."""
    return msgspec.json.encode(deck)


def decode(data: bytes) -> DeckList:
    """A stored deck list."""
    return msgspec.json.decode(data, type=DeckList)


def to_json(deck: DeckList) -> dict[str, Any]:
    """The deck list as plain data (the API's and the console's form)."""
    out: dict[str, Any] = msgspec.to_builtins(deck)
    out["total"] = deck.total
    return out
