"""Card facts an importer can know: HP, kind, names in eight languages, from the packaged card catalogue.

Battle logs name cards but never print HP, prize values or kinds [docs/importers.md, the export's traps]. They
come from:

- the packaged catalogue (``cards.bin``, built by ``tools/build_catalogue.py`` from TCGdex's
  cards-database, MIT; source commit and licence in the file and in docs/importers.md): HP, category,
  stage, types, rule box, evolves-from, Trainer type, the HP a Tool gives, and card, attack and Ability
  names in en, fr, de, es, it, pt, ja and ko, and the Japanese and Korean printings with their own ids
  (``sv1v-001``). :func:`card_database` loads its index once per process and decodes records as look-ups
  need them; :func:`card_names` / :func:`card_name` are the small lookup the pages use (a name in the
  page's language), :meth:`CardDatabase.search` the console's type-ahead (kana, kanji, hangul);
- a user's catalogue file (``--cards FILE``, :func:`parse_catalogue`), whose entries win over the packaged
  ones for the names they list;
- the name itself for the kind when neither knows the card (`` ex``, `` V``, ``VMAX``, ``Mega ... ex``, ...).
"""

from __future__ import annotations

import csv
import io
import json
import re
import unicodedata
import zlib
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from functools import cache, cached_property, lru_cache
from importlib import resources
from typing import Any

import msgspec

from replay.engine import InputError

# Longest suffix first: "VMAX" must not be read as " V"-something, "Mega X ex" before " ex".
_SUFFIX_RULES: tuple[tuple[str, str], ...] = (
    (" VMAX", "VMAX"),
    (" VSTAR", "VSTAR"),
    (" V-UNION", "V_UNION"),
    (" GX", "GX"),
    (" EX", "EX"),
    (" ex", "ex"),
    (" V", "V"),
    (" BREAK", "BREAK"),
    (" LV.X", "LV_X"),
    (" LEGEND", "LEGEND"),
)
_CARD_ID = re.compile(r"^\(([A-Za-z0-9._-]+)\)\s+")


def strip_card_id(name: str) -> str:
    """``(sv6_163) Secret Box`` -> ``Secret Box`` (the client's optional card-id prefix)."""
    m = _CARD_ID.match(name)
    return name[m.end() :] if m else name


@lru_cache(maxsize=4096)  # asked for every Pokémon put into play, of the few dozen names of a log
def rule_from_name(name: str) -> str:
    """The contract's ``rule`` for a Pokémon card name; ``none`` for an ordinary Pokémon.

    ``Mega Lucario ex`` -> ``mega_ex``; ``Mega Rayquaza-EX``/``M Rayquaza EX`` -> ``mega_EX``;
    ``Radiant Greninja`` -> ``radiant``; ``Pikachu & Zekrom-GX`` -> ``tag_team``.
    """
    n = name.strip().replace("-GX", " GX").replace("-EX", " EX")
    if n.startswith("Radiant "):
        return "radiant"
    if " & " in n and n.endswith(" GX"):
        return "tag_team"
    if n.endswith(" ex") and n.startswith("Mega "):
        return "mega_ex"
    if n.endswith(" EX") and (n.startswith("Mega ") or n.startswith("M ")):
        return "mega_EX"
    if n.endswith(" ◇") or n.endswith(" Prism Star"):
        return "prism_star"
    for suffix, rule in _SUFFIX_RULES:
        if n.endswith(suffix):
            return rule
    return "none"


@dataclass(slots=True)
class Catalogue:
    """Card name -> HP (and optionally an explicit rule), read from a user's catalogue file."""

    hp: dict[str, int] = field(default_factory=dict)
    rules: dict[str, str] = field(default_factory=dict)

    def card(self, name: str) -> dict[str, Any]:
        """The contract card map for ``name``: ``{name, rule, hp?}``."""
        card: dict[str, Any] = {"name": name, "rule": self.rules.get(name) or rule_from_name(name)}
        hp = self.hp.get(name)
        if hp is not None:
            card["hp"] = hp
        return card

    def __len__(self) -> int:
        return len(self.hp)


NO_CATALOGUE = Catalogue()

_RULES = {
    "none", "ex", "mega_ex", "ex_old", "EX", "mega_EX", "GX", "tag_team", "V", "VMAX", "VSTAR",
    "V_UNION", "BREAK", "LV_X", "LEGEND", "prism_star", "radiant", "star",
}  # fmt: skip


def _add(cat: Catalogue, name: Any, hp: Any, rule: Any, filename: str, line: int) -> None:
    if not isinstance(name, str) or not name.strip():
        raise InputError("card name missing", file=filename, line=line, field="name")
    name = strip_card_id(name.strip())
    if hp not in (None, ""):
        try:
            value = int(hp)
        except (TypeError, ValueError):
            raise InputError(f"HP is not a number: {hp!r}", file=filename, line=line, field="hp") from None
        if value <= 0 or value > 1000:
            raise InputError(f"HP out of range: {value}", file=filename, line=line, field="hp")
        old = cat.hp.get(name)
        # Reprints share a name and an HP; a real conflict keeps the first value (documented).
        if old is None:
            cat.hp[name] = value
    if rule not in (None, ""):
        if rule not in _RULES:
            raise InputError(f"unknown rule {rule!r}", file=filename, line=line, field="rule")
        cat.rules.setdefault(name, str(rule))


def parse_catalogue(text: str, *, filename: str = "<cards>") -> Catalogue:
    """Read a catalogue: CSV with a ``name,hp[,rule]`` header, or JSON (a list of ``{name, hp, rule?}``
    objects, or an object mapping name to HP). Raises InputError naming file and line."""
    text = text.lstrip("\ufeff")
    cat = Catalogue()
    stripped = text.lstrip()
    if stripped.startswith(("[", "{")):
        try:
            doc = json.loads(text)
        except json.JSONDecodeError as exc:
            raise InputError(f"invalid JSON: {exc.msg}", file=filename, line=exc.lineno) from None
        if isinstance(doc, dict):
            for i, (name, hp) in enumerate(doc.items(), 1):
                _add(cat, name, hp, None, filename, i)
        elif isinstance(doc, list):
            for i, item in enumerate(doc, 1):
                if not isinstance(item, dict):
                    raise InputError("expected an object per card", file=filename, line=i)
                _add(cat, item.get("name"), item.get("hp"), item.get("rule"), filename, i)
        else:
            raise InputError("expected a list of cards or a name -> HP object", file=filename, line=1)
        return cat
    reader = csv.reader(io.StringIO(text))
    header: list[str] | None = None
    for row in reader:
        if not row or row[0].startswith("#"):
            continue
        if header is None:
            header = [h.strip().lower() for h in row]
            if "name" not in header or "hp" not in header:
                raise InputError("CSV header must name columns name,hp[,rule]", file=filename, line=1)
            continue
        rec = dict(zip(header, row, strict=False))
        _add(cat, rec.get("name"), rec.get("hp"), rec.get("rule"), filename, reader.line_num)
    if header is None:
        raise InputError("empty card catalogue", file=filename, line=1)
    return cat


# -- the packaged catalogue ------------------------------------------------------------------------------

LANGUAGES = ("en", "fr", "de", "es", "it", "pt", "ja", "ko")
#: Languages whose names are tried after a look-up's own and English: their scripts meet no other's
ASIAN = ("ja", "ko")
_CATEGORY = {"P": "pokemon", "T": "trainer", "E": "energy"}
MAGIC = b"prizecheck-cards/3\n"


def _key(name: str) -> str:
    """A card name as compared: both apostrophes alike, ``Pokemon`` with its accent, no card-id prefix."""
    return strip_card_id(name.strip()).replace("\u2019", "'").replace("Pokemon", "Pokémon")


_KATAKANA = range(0x30A1, 0x30F7)  # ァ..ヶ: each is its hiragana + 0x60 (ヷヸヹヺ have none: kept)
_KANA_MARKS = ("\u3099", "\u309a")  # the voiced and semi-voiced sound marks: part of the kana, not accents
_SPACES = re.compile(r"[\s\u30fb\u00b7]+")  # spaces and middle dots (ナンジャモ・ex, 스칼렛・바이올렛)


def fold(key: str) -> str:
    """A name as searched: no accents, case, width, spaces or kana script.

    ``Pokégear 3.0`` and ``Pokegear 3.0`` alike; ``ピカチュウ``, ``ぴかちゅう`` and the half-width ``ﾋﾟｶﾁｭｳ``
    alike; ``피카츄 ex`` and ``피카츄ex`` alike. NFKC (unicodedata) does width, full-width Latin and
    compatibility forms; the accents go with the combining marks of NFKD, except the kana sound marks
    (ガ is not カ); katakana folds to hiragana by its fixed Unicode offset (a one-line table: the two
    blocks are laid out in parallel, ァ U+30A1 .. ヶ U+30F6 over ぁ U+3041 .. ゖ U+3096). Kanji and hangul
    are left as NFKC gives them: a kanji name is found by its kanji (readings are not in the data)."""
    if key.isascii():  # most names: nothing for NFKC, accents or kana to do
        return _SPACES.sub("", key).casefold()
    text = unicodedata.normalize("NFKD", unicodedata.normalize("NFKC", key))
    text = "".join(ch for ch in text if ch in _KANA_MARKS or not unicodedata.combining(ch))
    text = unicodedata.normalize("NFC", text)
    text = "".join(chr(ord(ch) - 0x60) if ord(ch) in _KATAKANA else ch for ch in text)
    return _SPACES.sub("", text).casefold()


@dataclass(frozen=True, slots=True)
class CardInfo:
    """One card of the catalogue (identical reprints are one record)."""

    name: str  # English
    category: str  # pokemon | trainer | energy
    names: dict[str, str]
    hp: int | None = None
    rule: str | None = None
    stage: str | None = None
    evolves_from: str | None = None
    kind: str | None = None  # Trainer type (Item, Supporter, Stadium, Tool, ...) or Energy type
    attacks: tuple[dict[str, str], ...] = ()
    damage: tuple[tuple[str, str], ...] = ()  # (English attack name, its printed damage: "30", "30+", "20×")
    abilities: tuple[dict[str, str], ...] = ()
    mills: tuple[str, ...] = ()  # English names of its moves that discard from the top of its deck
    types: tuple[str, ...] = ()  # a Pokémon's types (Fire, Water, ...)
    shifts: tuple[
        str, ...
    ] = ()  # English names of its moves (or the card's) that move Energy between Pokémon
    attaches_from: tuple[tuple[str, str], ...] = ()  # (move or card, zone its attachments come from)
    evolves_from_zone: tuple[tuple[str, str], ...] = ()  # (move or card, zone its Evolution cards come from)
    shuffles_from: tuple[tuple[str, str], ...] = ()  # (move or card, zone the cards it shuffles in come from)
    looks_at_top: tuple[tuple[str, str], ...] = ()  # (move or card that looks at the top of the deck, "deck")
    takes_prizes: tuple[
        tuple[str, str], ...
    ] = ()  # (move or card that makes a player take Prize cards, "prize")
    knocks_out: tuple[tuple[str, str], ...] = ()  # (move that Knocks Out without damage, self|active|both)
    bench_counters: tuple[tuple[str, str], ...] = ()  # (move whose counters go on the Bench only, "bench")
    uses_attack: tuple[tuple[str, str], ...] = ()  # (move that uses another card's attack, "copy")
    # HP it gives the Pokémon it is attached to, and the condition (tools/build_catalogue.py hp_bonus)
    hp_bonus: tuple[int, str] | None = None
    # a Japanese or Korean printing no English card is (its names: ja/ko, and en only where TCGdex gives
    # its English name); an English card's own Japanese and Korean printings are that card
    asian: bool = False

    @staticmethod
    def from_record(rec: dict[str, Any]) -> CardInfo:
        names = {k: v for k, v in rec.get("n", {}).items() if isinstance(v, str)}
        asian = "en" not in names
        if asian and isinstance(rec.get("w"), str):
            names["en"] = rec["w"]  # shown, never looked up: it is in no name index
        h = rec.get("h")
        return CardInfo(
            name=names.get("en") or names.get("ja") or names.get("ko") or "?",
            category=_CATEGORY.get(rec.get("c", "P"), "pokemon"),
            names=names,
            hp=rec.get("hp"),
            rule=rec.get("r"),
            stage=rec.get("s"),
            evolves_from=rec.get("e"),
            kind=rec.get("t"),
            attacks=tuple(rec.get("a") or ()),
            damage=tuple((str(a), str(d)) for a, d in rec.get("d") or ()),
            abilities=tuple(rec.get("b") or ()),
            mills=tuple(rec.get("m") or ()),
            types=tuple(rec.get("y") or ()),
            shifts=tuple(rec.get("v") or ()),
            attaches_from=tuple((str(a), str(b)) for a, b in rec.get("f") or ()),
            evolves_from_zone=tuple((str(a), str(b)) for a, b in rec.get("g") or ()),
            shuffles_from=tuple((str(a), str(b)) for a, b in rec.get("k") or ()),
            looks_at_top=tuple((str(a), str(b)) for a, b in rec.get("o") or ()),
            takes_prizes=tuple((str(a), str(b)) for a, b in rec.get("p") or ()),
            knocks_out=tuple((str(a), str(b)) for a, b in rec.get("x") or ()),
            bench_counters=tuple((str(a), str(b)) for a, b in rec.get("q") or ()),
            uses_attack=tuple((str(a), str(b)) for a, b in rec.get("u") or ()),
            hp_bonus=(int(h[0]), str(h[1])) if isinstance(h, list) and len(h) == 2 else None,
            asian=asian,
        )


class _Names(Mapping[str, dict[str, list[int]]]):
    """The catalogue's name indexes by language (name -> card numbers), each decoded from ``cards.bin``
    the first time a look-up asks for that language."""

    def __init__(self, part: Callable[[list[int]], Any], where: dict[str, list[int]]) -> None:
        self._part = part
        self._where = where
        self._decoded: dict[str, dict[str, list[int]]] = {}

    def __getitem__(self, lang: str) -> dict[str, list[int]]:
        table = self._decoded.get(lang)
        if table is None:
            table = self._decoded[lang] = self._part(self._where[lang])
        return table

    def __contains__(self, lang: object) -> bool:
        return lang in self._where

    def __iter__(self) -> Iterator[str]:
        return iter(self._where)

    def __len__(self) -> int:
        return len(self._where)


_RECORDS = msgspec.json.Decoder(list[msgspec.Raw])


def pokemon_facts(infos: Iterable[CardInfo]) -> tuple[str | None, tuple[int, ...]]:
    """The Pokémon printings among ``infos``: the rule box they all give (None when they give different ones
    or none), and their HP, each once, lowest first."""
    pokemon = [i for i in infos if i.category == "pokemon"]
    rules = {i.rule for i in pokemon if i.rule}
    return (next(iter(rules)) if len(rules) == 1 else None), tuple(sorted({i.hp for i in pokemon if i.hp}))


class CardDatabase:
    """The packaged catalogue (``cards.bin``, tools/build_catalogue.py). Loading reads only the printings'
    ids; a language's name index is decoded at the first look-up in that language, and a card's record
    the first time a look-up needs it, with the block of records it is stored in."""

    def __init__(self, data: bytes) -> None:
        if not data.startswith(MAGIC):
            raise ValueError("not a prizecheck card catalogue (cards.bin)")
        end = data.index(b"\n", len(MAGIC))
        head = json.loads(data[len(MAGIC) : end])
        self.source: dict[str, Any] = dict(head.get("source") or {})
        self.count = int(head["count"])
        self._block = int(head["block"])
        self._blocks: list[list[int]] = head["blocks"]
        self._data = data
        self._base = end + 1
        self._prints_at: list[int] = head["prints"]
        self.by_name: Mapping[str, dict[str, list[int]]] = _Names(self._part, head["names"])
        self._cards: dict[int, CardInfo] = {}
        # block number -> its records, each still JSON: a block is split into records without building
        # them (8x faster than decoding it whole), a record is decoded when its card is asked for
        self._records: dict[int, list[msgspec.Raw]] = {}
        self._fold_index: dict[str, dict[str, list[int]]] = {}
        # answers of lookup and attach_source, which the importer asks again at every line and window
        # (a 300-line log asks attach_source ~150 times about a dozen cards): the data never changes
        self._found: dict[tuple[str, str], tuple[CardInfo, ...]] = {}
        self._facts: dict[tuple[str, str], tuple[str | None, tuple[int, ...]]] = {}  # pokemon_facts' answers
        self._sources: dict[tuple[str, str | None, str, str], str | None] = {}
        self._abilities: dict[tuple[str, str, str], bool | None] = {}  # is_ability's answers (every "used")
        self._search: list[tuple[str, str, str]] | None = None

    @cached_property
    def prints(self) -> dict[str, int]:
        """Printing id (``sv6_163``) -> card number, decoded at the first look-up by id: 25,000 ids took
        25-30 ms, most of a one-log import's catalogue load, and a log without ids never asks."""
        prints: dict[str, int] = self._part(self._prints_at)
        return prints

    def _part(self, where: list[int]) -> Any:
        """One zlib part of the file, decoded (``where``: its offset after the header and its length)."""
        at, n = where
        return msgspec.json.decode(zlib.decompress(self._data[self._base + at : self._base + at + n]))

    def __len__(self) -> int:
        return self.count

    def card(self, i: int) -> CardInfo:
        """Card number ``i`` (decodes its block the first time, and makes the card of that block's record
        the first time it is asked for: a one-log import reads a few cards of each block it decodes)."""
        info = self._cards.get(i)
        if info is None:
            b, j = divmod(i, self._block)
            recs = self._records.get(b)
            if recs is None:
                at, n = self._blocks[b]
                recs = self._records[b] = _RECORDS.decode(
                    zlib.decompress(self._data[self._base + at : self._base + at + n])
                )
            info = self._cards[i] = CardInfo.from_record(msgspec.json.decode(recs[j]))
        return info

    def cards(self) -> list[CardInfo]:
        """Every card, decoded (the whole catalogue: for tools and the benchmark's baseline)."""
        return [self.card(i) for i in range(self.count)]

    def lookup(self, name: str, lang: str = "en") -> list[CardInfo]:
        """Every catalogue card printed as ``name`` in ``lang`` (English names are tried too, then Japanese
        and Korean ones); a name spelled without its accents (``Pokegear 3.0``, as the client prints it),
        in the other kana (``ぴかちゅう``) or half-width (``ﾋﾟｶﾁｭｳ``) finds the card."""
        found = self._found.get((name, lang))
        if found is None:
            k = _key(name)
            # a Japanese or Korean name has a character outside ASCII: an ASCII miss never decodes their
            # index
            order = tuple(dict.fromkeys((lang, "en", *(ASIAN if not k.isascii() else ()))))
            hits = next((h for lg in order if (h := self.by_name.get(lg, {}).get(k))), None)
            if not hits:
                folded = fold(k)
                hits = next((h for lg in order if (h := self._folded(lg).get(folded))), None)
            found = self._found[(name, lang)] = tuple(self.card(i) for i in hits or ())
        return list(found)

    def pokemon_facts(self, name: str, lang: str = "en") -> tuple[str | None, tuple[int, ...]]:
        """``pokemon_facts`` of ``lookup(name, lang)``, kept: an importer asks it at every Pokémon put into
        play or evolved, the same few names log after log."""
        facts = self._facts.get((name, lang))
        if facts is None:
            facts = self._facts[(name, lang)] = pokemon_facts(self.lookup(name, lang))
        return facts

    def _folded(self, lang: str) -> dict[str, list[int]]:
        """``lang``'s names folded (:func:`fold`) -> card numbers (built at the first miss)."""
        table = self._fold_index.get(lang)
        if table is None:
            table = self._fold_index[lang] = {}
            for key, hits in self.by_name.get(lang, {}).items():
                table.setdefault(fold(key), []).extend(hits)
        return table

    def search(self, query: str, limit: int = 20) -> list[tuple[str, str]]:
        """Card names for a type-ahead: ``(name, language)`` for every name in any language whose folded
        form (:func:`fold`: kana, width, accents, case) starts with the query's, then those that contain
        it (a kanji name by any of its kanji: 研究 finds 博士の研究); English first, then the others in
        :data:`LANGUAGES` order, each sorted. Built from the name index alone: no record is decoded."""
        q = fold(query)
        if not q:
            return []
        if self._search is None:
            self._search = [
                (fold(name), name, lang) for lang in LANGUAGES for name in sorted(self.by_name.get(lang, {}))
            ]
        starts: list[tuple[str, str]] = []
        inside: list[tuple[str, str]] = []
        for f, name, lang in self._search:
            if q in f:
                (starts if f.startswith(q) else inside).append((name, lang))
        out: dict[str, str] = {}
        for name, lang in (*starts, *inside):
            out.setdefault(name, lang)
            if len(out) >= limit:
                break
        return list(out.items())

    def printing(self, card_id: str) -> CardInfo | None:
        """One printing's card, by the id the client prints before a name (``sv6_163``, ``me3_48_ph``)."""
        cid = card_id.strip("()").lower()
        i = self.prints.get(cid)
        if i is None and cid.count("_") > 1:
            i = self.prints.get("_".join(cid.split("_")[:2]))  # a variant suffix: me3_48_ph
        return self.card(i) if i is not None else None

    def move_name(self, card: str, move: str, lang: str = "en") -> str:
        """The name in ``lang`` of ``card``'s attack or Ability ``move`` (named in any catalogue language):
        the one name every printing of the card that has the move gives it in ``lang``; ``move`` as given
        when no printing names it in ``lang`` or two printings name it differently (never a guess)."""
        m = _key(move)
        named = {
            mv[lang]
            for info in self.lookup(card)
            for mv in (*info.attacks, *info.abilities)
            if mv.get(lang) and any(_key(v) == m for v in mv.values())
        }
        return named.pop() if len(named) == 1 else move

    def mills(self, card: str, move: str, lang: str = "en") -> bool:
        """Whether the card's move ``move`` (named in ``lang``) discards from the top of its own deck."""
        m = _key(move)
        for info in self.lookup(card, lang):
            for mv in (*info.attacks, *info.abilities):
                if _key(mv.get(lang, mv.get("en", ""))) == m and mv.get("en") in info.mills:
                    return True
        return False

    def shifts_energy(self, card: str, move: str | None = None, lang: str = "en") -> bool:
        """Whether the card's move ``move`` (or, without a move, the Trainer ``card`` itself) moves Energy
        from one Pokémon to another (Happy Switch, Energy Switch)."""
        for info in self.lookup(card, lang):
            if move is None:
                if info.category != "pokemon" and info.shifts:
                    return True
                continue
            m = _key(move)
            for mv in (*info.attacks, *info.abilities):
                if _key(mv.get(lang, mv.get("en", ""))) == m and mv.get("en") in info.shifts:
                    return True
        return False

    def attach_source(
        self, card: str, move: str | None = None, lang: str = "en", *, of: str = "attach"
    ) -> str | None:
        """The zone the cards ``card``'s move ``move`` (or, with no move, the Trainer ``card``) attaches
        come from (``of="evolve"``: its Evolution cards; ``"shuffle"``: the cards it shuffles into the
        deck; ``"top"``: "deck" when it looks at the top of the deck; ``"prize"``: "prize" when it makes a
        player take Prize cards; ``"knock"``: whom it Knocks Out without damage, self, active or both;
        ``"bench"``: "bench" when its damage counters go on the opponent's Bench only; ``"copy"``: "copy"
        when it uses another card's attack as its own), when its text says: deck, discard or hand; None
        when it does not."""
        asked = (card, move, lang, of)
        if asked in self._sources:
            return self._sources[asked]
        zones: set[str] = set()
        for info in self.lookup(card, lang):
            table = {
                "evolve": info.evolves_from_zone,
                "shuffle": info.shuffles_from,
                "top": info.looks_at_top,
                "prize": info.takes_prizes,
                "knock": info.knocks_out,
                "bench": info.bench_counters,
                "copy": info.uses_attack,
            }.get(of, info.attaches_from)
            if move is None:
                zones.update(z for n, z in table if n == info.name)
                continue
            m = _key(move)
            moves = (*info.attacks, *info.abilities)
            en = {mv.get("en") for mv in moves if _key(mv.get(lang, mv.get("en", ""))) == m}
            zones.update(z for n, z in table if n in en)
        out = self._sources[asked] = next(iter(zones)) if len(zones) == 1 else None
        return out

    def _moves(self, card: str, lang: str, abilities: bool) -> set[str]:
        out: set[str] = set()
        for i in self.by_name.get(lang, {}).get(_key(card), ()):
            info = self.card(i)
            for mv in info.abilities if abilities else info.attacks:
                if lang in mv:
                    out.add(_key(mv[lang]))
        return out

    def is_ability(self, card: str, move: str, lang: str = "en") -> bool | None:
        """Whether ``move`` is an Ability (True) or an attack (False) of the card named ``card``; None when
        the catalogue does not tell (unknown card, or the name is both across printings)."""
        asked = (card, move, lang)
        if asked in self._abilities:
            return self._abilities[asked]
        m = _key(move)
        langs = (lang, "en") if lang != "en" else ("en",)
        ab = any(m in self._moves(card, lg, True) for lg in langs if lg in self.by_name)
        at = any(m in self._moves(card, lg, False) for lg in langs if lg in self.by_name)
        out = self._abilities[asked] = None if ab == at else ab
        return out


def load_catalogue() -> CardDatabase:
    """Read the packaged catalogue (a fresh object each call: ``card_database`` keeps one)."""
    return CardDatabase(resources.files("replay.sources").joinpath("cards.bin").read_bytes())


@cache
def card_database() -> CardDatabase:
    """The packaged catalogue, loaded once per process (its index only: well under 100 ms)."""
    return load_catalogue()


def card_names(name: str, lang: str | None = None) -> dict[str, str]:
    """A card's names in every catalogue language, from its name in any of them (``{}`` when unknown).

    ``card_names("Glurak-ex")`` -> ``{"en": "Charizard ex", "de": "Glurak-ex", "ja": "リザードンex", ...}``.
    With ``lang`` only that language's names are searched. For the review page and reports.
    """
    db = card_database()
    k = _key(name)
    # an ASCII name is no Japanese or Korean one: their indexes stay undecoded
    langs = (lang,) if lang else tuple(lg for lg in LANGUAGES if lg not in ASIAN or not k.isascii())
    for lg in langs:
        hits = db.by_name.get(lg, {}).get(k)
        if hits:
            return dict(db.card(hits[0]).names)
    return {}


def card_name(card: str, lang: str = "en") -> str:
    """A card's name in ``lang`` (en, fr, de, es, it, pt, ja, ko): ``card`` is a printing's id (``sv6_163``,
    a Japanese or Korean one ``sv1v-001``) or the card's name in any catalogue language. The card's name as
    given when the catalogue does not know it or has no name for it in ``lang``.

    ``card_name("Charizard ex", "ja")`` -> ``"リザードンex"``; ``card_name("sv1v-001", "en")`` ->
    ``"Pineco"``.
    The one place a card name is turned into text for a page (the review page, the board, the overlay,
    the report take their language down to it)."""
    text = card.strip()
    info = card_database().printing(text) if text and not any(c.isspace() for c in text) else None
    if info is not None:
        return info.names.get(lang) or info.name
    return card_names(text).get(lang, card)


def move_name(card: str, move: str, lang: str = "en") -> str:
    """An attack's or Ability's name in ``lang`` (:meth:`CardDatabase.move_name`): ``move_name("Pikachu",
    "Thunder Shock", "ja")`` -> its Japanese name where the catalogue has one. The one place a move's name
    is turned into text for a page (the battle log, the overlay's last attack)."""
    if not move or not card:
        return move
    return card_database().move_name(card, move, lang)


# the name before issue 34 (a name only, no printing id), kept for callers written against it
display_name = card_name
