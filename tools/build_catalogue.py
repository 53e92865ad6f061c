"""Build the packaged card catalogue from a checkout of TCGdex's ``cards-database`` (MIT).

    python tools/build_catalogue.py CHECKOUT [--out replay/sources/cards.bin]

CHECKOUT is a clone (or an extracted archive) of https://github.com/tcgdex/cards-database: ``data/`` holds
one TypeScript file per card, ``data/<series>/<set>.ts`` one per set. Each card file is an object literal
(``const card: Card = {...}``) that reads as JSON5 once its ``import`` lines, ``set: Set`` reference and
``export`` line are dropped, so it is parsed with pyjson5 (a dev dependency), never executed.

Only the series Pokémon TCG Live plays (Standard and Expanded: Black & White onwards) are read; TCG Pocket
(another game, other HP) and the older series are left out, which keeps same-named printings with other
HP out of the name index. Per card the catalogue keeps what an importer needs: the category, HP, stage,
the rule box (``rule``, the contract's kind: the prize value comes from the ruleset, docs/rules.md §3),
evolves-from, the Trainer or Energy type, and the names of the card, its attacks and its Abilities in
en, fr, de, es, it, pt, ja and ko. Identical reprints collapse into one record; every printing's id
(``sv6_163``, the form the client prints before a card name) points at its record.

Japanese and Korean printings come from ``data-asia/`` (the same series, by its own folder names): each
keeps its own id, TCGdex's (``SV1V`` + ``001`` -> ``sv1v-001``). One that is an English card (the same
English name, HP, stage, attack costs and damage: :func:`signature`; a Trainer or Energy by its name) points
at that card's record, whose names gain ``ja``/``ko``, so the two printings agree on HP, stage and rule box;
any other is a record of its own with its HP, stage, types, rule box (read from its Japanese name and
TCGdex's suffix) and move names. English names the Japanese names are learnt from a printing's Indonesian
name (Indonesian cards keep the English Pokémon names) and from TCG Pocket's cards (names only: Pocket's
cards never enter the catalogue); Korean ones from the printings that carry both (:func:`add_asia`).
Indonesian translates Trainer and Energy names, so a Trainer's English name comes from its printings instead:
era, Trainer type, illustrator and the effect's numbers, agreed both ways (:func:`trainer_links`); a basic
Energy's from the type its Japanese name prints (:func:`basic_energy`).

Cards attached to a Pokémon that change its HP ("The Pokémon this card is attached to gets +100 HP.",
Hero's Cape) keep the bonus and its condition, read from the card's English effect text (``h``); so do
Stadiums that change the HP of every Pokémon of a kind in play ("Each Stage 2 Pokémon in play (both yours
and your opponent's) gets -30 HP.", Gravity Mountain).

Each attack keeps its printed damage as the card prints it (``d``: ``30``, ``30+``, ``20×``), which the
table console offers as the attack's damage (docs/console.md).

The output (``cards.bin``) is read lazily, so that loading it costs the printings' ids, not 14,000
records: a magic line, a JSON header line (source, languages, where each part is), then zlib-compressed
parts: every printing's id -> card number (read at load), one name index per language (its names -> card
numbers, decoded at the first look-up in that language), and the records in blocks of ``BLOCK`` cards,
each decoded the first time one of its cards is looked up (replay/sources/cards.py). It is written
deterministically (same checkout, same bytes), with the source repository, its commit and its licence in
the header. docs/importers.md says how to rebuild.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import unicodedata
import zlib
from pathlib import Path
from typing import Any

SERIES = ("Black & White", "XY", "Sun & Moon", "Sword & Shield", "Scarlet & Violet", "Mega Evolution")
LANGS = ("en", "fr", "de", "es", "it", "pt", "ja", "ko")
# data-asia/'s series from Black & White on (its own folder names); Chinese-only sets carry no ja/ko name
ASIA_SERIES = ("BW", "XY", "XYb", "SM", "S", "SV", "M")
ASIA_LANGS = ("ja", "ko")
# data-asia/'s series folders -> the English series of the same era (a Trainer links only within its era)
ASIA_ERA = {
    "BW": "Black & White",
    "XY": "XY",
    "XYb": "XY",
    "SM": "Sun & Moon",
    "S": "Sword & Shield",
    "SV": "Scarlet & Violet",
    "M": "Mega Evolution",
}
# A Japanese basic Energy names its type with the type's printed symbol name (基本闘エネルギー: 闘 is
# Fighting); the English basic Energy of that type is "<Type> Energy". These are the nine type symbols
# as the Japanese cards print them, not card-name translations.
_JA_BASIC_ENERGY = re.compile(r"^基本(草|炎|水|雷|超|闘|悪|鋼|フェアリー)エネルギー$")
_JA_TYPE = {
    "草": "Grass",
    "炎": "Fire",
    "水": "Water",
    "雷": "Lightning",
    "超": "Psychic",
    "闘": "Fighting",
    "悪": "Darkness",
    "鋼": "Metal",
    "フェアリー": "Fairy",
}
_NUMBER = re.compile(r"\d+")
# TCG Pocket (data/) is another game: its cards never enter the catalogue, but its names are the same
# card names, in English, Japanese and Korean: a names-only source (Pikachu ex / ピカチュウex / 피카츄ex)
POCKET = "Pokémon TCG Pocket"
_DROP = re.compile(r"^\s*(?:import\b.*|export\b.*|(?:set|serie):\s*[A-Za-z_]+,?)\s*$", re.M)
_HEAD = re.compile(r"^\s*const\s+\w+\s*:\s*\w+\s*=\s*", re.M)
_UNDEFINED = re.compile(r":\s*undefined\b")
_MILL = re.compile(r"(?i)discard the top (?:card|\d+ cards|[a-z]+ cards) of your deck")
_CONCAT = re.compile(r"([\"'])\s*\+\s*([\"'])")  # "a " + "b": a string split over two lines
_TAIL = re.compile(r"}\s*;\s*$")
# "Move a Basic Energy from 1 of your Pokémon to another of your Pokémon." (Energy Switch, Happy Switch):
# the log prints the move as an attachment, whose card comes from another Pokémon, not the hand
_MOVES_ENERGY = re.compile(r"(?i)\bmove [^.]*?energy from [^.]*? to ")
# Where the cards an effect attaches come from: "search your deck for ... and attach" (Infernal Reign,
# Trinity Charge), "attach ... from your discard pile" (Magma Basin), "attach ... from your hand" (Teal Dance)
_ATTACH_FROM = (
    (
        "deck",
        re.compile(
            r"(?i)(?:search (?:your|their) deck for|look at the top \d+ cards of (?:your|their) deck)"
            r"[^.]*? and attach"
        ),
    ),
    ("discard", re.compile(r"(?i)attach [^.]*?from (?:your|their) discard pile")),
    ("hand", re.compile(r"(?i)attach [^.]*?from (?:your|their) hand")),
)
# Where the Evolution cards an effect puts onto Pokémon come from (Rare Candy: the hand; Technical Machine:
# Evolution: the deck)
_EVOLVE_FROM = (
    ("deck", re.compile(r"(?i)search (?:your|their) deck for [^.]*?evolve")),
    ("hand", re.compile(r"(?i)cards? in (?:your|their) hand that evolves?")),
    ("discard", re.compile(r"(?i)from (?:your|their) discard pile[^.]*?evolve")),
)
# Where the cards an effect shuffles into the deck come from (Super Rod: the discard pile; Lillie's
# Determination: the hand)
_SHUFFLE_FROM = (
    ("discard", re.compile(r"(?i)shuffle [^.]*?from (?:your|their) discard pile into (?:your|their) deck")),
    ("hand", re.compile(r"(?i)shuffles? (?:your|their) hand into (?:your|their) deck")),
)
# Effects that look at the top of the deck (Flower Selecting, Trekking Shoes): a card they move on to the
# Lost Zone or the discard pile comes from the deck
_TOP_OF_DECK = (
    ("deck", re.compile(r"(?i)(?:look at|reveal) the top (?:\d+ cards?|card) of (?:your|their) deck")),
)
# Effects that make a player take Prize cards without a knockout (Lt. Surge's Bargain: each player takes
# one): the contract's prize_taken.effect (docs/events.md)
_TAKES_PRIZES = (
    ("prize", re.compile(r"(?is)^(?!.*knocked out).*\btakes? (?:a|an|\d+|1 more|2 more) Prize cards?")),
)
# Moves that Knock Out without damage (docs/importers.md, issue 35), and whom: "self" (Cursed Blast: "this
# Pokémon is Knocked Out"), "active" (Frenzied Gouging: "Knock Out your opponent's Active Pokémon"; Axe
# Blast: "If your opponent's Active Pokémon is a Basic Pokémon, it is Knocked Out"), "both" (Destined
# Fight: "Both Active Pokémon are Knocked Out"): the first the text names
_KNOCKS_OUT = (
    ("both", re.compile(r"(?i)\bboth Active Pokémon are Knocked Out")),
    (
        "active",
        re.compile(
            r"(?i)\bKnock Out your opponent's Active Pokémon|your opponent's Active Pokémon is [^.]*?, "
            r"it is Knocked Out|\bthe Defending Pokémon is Knocked Out"
        ),
    ),
    ("self", re.compile(r"(?i)\bthis Pokémon is Knocked Out")),
)
# Moves whose damage counters go on the opponent's Bench only (Phantom Dive: "Put 6 damage counters on your
# opponent's Benched Pokémon in any way you like")
_BENCH_COUNTERS = (
    ("bench", re.compile(r"(?i)damage counters on (?:\d+ of )?your opponent's Benched Pokémon")),
)
# Moves that use another card's attack as their own (Seek Inspiration: "choose 1 of its attacks and use it
# as this attack"): the log prints "chose <attack>" and that attack's effect follows
_USES_ATTACK = (("copy", re.compile(r"(?i)\buse (?:it|that attack) as this attack")),)
# What a card's text says that a log leaves out, by the record key it is kept under
_TEXT_FACTS = (
    ("f", _ATTACH_FROM),
    ("g", _EVOLVE_FROM),
    ("k", _SHUFFLE_FROM),
    ("o", _TOP_OF_DECK),
    ("p", _TAKES_PRIZES),
    ("x", _KNOCKS_OUT),
    ("q", _BENCH_COUNTERS),
    ("u", _USES_ATTACK),
)
BLOCK = 128  # records per compressed block: one look-up decodes one block
MAGIC = b"prizecheck-cards/3\n"
# "The Pokémon this card is attached to gets +100 HP." and its conditional forms (Tools, some Energy)
_HP_ANY = re.compile(r"\bthis card is attached to\b.*?\+(?P<n>\d+) HP", re.S)
_HP_WHAT = re.compile(r"\bThe (?P<what>[^.]+?) this card is attached to gets \+(?P<n>\d+) HP(?P<rest>[^.]*)")
# "Each Stage 2 Pokémon in play (both yours and your opponent's) gets -30 HP." (Stadiums: Gravity Mountain,
# Lively Stadium): every Pokémon in play of that kind, while the Stadium is in play
_HP_FIELD = re.compile(
    r"\bEach (?P<what>[^.]+?) in play \(both yours and your opponent's\) gets (?P<n>[-+]\d+) HP\."
)
_HP_NO_RULE = re.compile(
    r"\bIf the Pokémon this card is attached to doesn't have a Rule Box, it gets \+(?P<n>\d+) HP"
)
_TYPES = {
    "G": "Grass", "R": "Fire", "W": "Water", "L": "Lightning", "P": "Psychic", "F": "Fighting",
    "D": "Darkness", "M": "Metal", "Y": "Fairy", "N": "Dragon", "C": "Colorless",
}  # fmt: skip


def read_object(path: Path) -> dict[str, Any]:
    """One TCGdex card or set file as a dict (JSON5 after the TypeScript wrapping is removed)."""
    import pyjson5  # dev dependency: only this build tool needs it

    text = path.read_text(encoding="utf-8")
    text = _DROP.sub("", text)
    text = _HEAD.sub("", text, count=1)
    text = _UNDEFINED.sub(": null", text)
    text = _CONCAT.sub("", text)
    text = _TAIL.sub("}", text.rstrip())
    obj = pyjson5.decode(text)
    if not isinstance(obj, dict):
        raise ValueError(f"{path}: not an object")
    return obj


def names(value: Any) -> dict[str, str]:
    if not isinstance(value, dict):
        return {}
    return {
        lang: str(value[lang]).strip()
        for lang in LANGS
        if isinstance(value.get(lang), str) and value[lang].strip()
    }


def print_id(set_id: str, local: str) -> str:
    """The client's card id: ``sv06.5`` + ``036`` -> ``sv6-5_36`` (padding and dots as it prints them)."""
    s = re.sub(r"(?<![0-9])0+(?=[0-9])", "", set_id.lower()).replace(".", "-")
    n = re.sub(r"^0+(?=[0-9])", "", local)
    return f"{s}_{n}"


def rule_of(card: dict[str, Any], en: str) -> str:
    """The contract's rule-box kind from TCGdex's suffix, stage, rarity and name."""
    suffix = card.get("suffix")
    stage = card.get("stage")
    rarity = card.get("rarity")
    if rarity == "Radiant Rare" or en.startswith("Radiant "):
        return "radiant"
    if stage == "VMAX":
        return "VMAX"
    if stage == "VSTAR":
        return "VSTAR"
    if stage == "V-UNION":
        return "V_UNION"
    if stage == "BREAK":
        return "BREAK"
    if stage == "LEVEL-UP":
        return "LV_X"
    if suffix == "TAG TEAM-GX":
        return "tag_team"
    if suffix == "GX":
        return "GX"
    # the name tells ex (Scarlet & Violet, Mega Evolution) from EX (Black & White, XY) where the data's
    # suffix mixes them up
    if en.endswith(" ex") or (suffix == "ex" and not en.endswith("EX")):
        return "mega_ex" if en.startswith("Mega ") else "ex"
    if suffix == "EX" or en.endswith("-EX") or en.endswith(" EX"):
        return "mega_EX" if stage == "MEGA" or en.startswith(("M ", "Mega ")) else "EX"
    if suffix == "V":
        return "V"
    if suffix == "Legend":
        return "LEGEND"
    if "◇" in en:
        return "prism_star"
    if "☆" in en:
        return "star"
    from replay.sources.cards import rule_from_name

    return rule_from_name(en)


def record(card: dict[str, Any]) -> dict[str, Any] | None:
    n = names(card.get("name"))
    en = n.get("en")
    category = card.get("category")
    if not en or category not in ("Pokemon", "Trainer", "Energy"):
        return None
    rec: dict[str, Any] = {"c": category[0], "n": n}
    if category == "Pokemon":
        hp = card.get("hp")
        if isinstance(hp, int) and 0 < hp <= 1000:
            rec["hp"] = hp
        rec["r"] = rule_of(card, en)
        if card.get("stage"):
            rec["s"] = card["stage"]
        types = [t for t in card.get("types") or [] if isinstance(t, str)]
        if types:
            rec["y"] = types
        evo = names(card.get("evolveFrom")).get("en")
        if evo:
            rec["e"] = evo
        attacks = [names(a.get("name")) for a in card.get("attacks") or [] if isinstance(a, dict)]
        abilities = [names(a.get("name")) for a in card.get("abilities") or [] if isinstance(a, dict)]
        if attacks:
            rec["a"] = [a for a in attacks if a]
        # each attack's printed damage as the card prints it ("30", "30+", "20×"): the console offers it
        damage = [
            [names(a.get("name")).get("en"), str(a["damage"]).strip()]
            for a in card.get("attacks") or []
            if isinstance(a, dict) and names(a.get("name")).get("en") and str(a.get("damage") or "").strip()
        ]
        if damage:
            rec["d"] = damage
        # moves that discard from the top of their own deck (Seek Inspiration): the log's "P discarded C"
        # in such a move comes from the deck, not the hand
        mills = [
            names(m.get("name")).get("en")
            for m in [*(card.get("attacks") or []), *(card.get("abilities") or [])]
            if isinstance(m, dict) and _MILL.search(str((m.get("effect") or {}).get("en", "")))
        ]
        if any(mills):
            rec["m"] = [m for m in mills if m]
        shifts = [
            names(m.get("name")).get("en")
            for m in [*(card.get("attacks") or []), *(card.get("abilities") or [])]
            if isinstance(m, dict) and _MOVES_ENERGY.search(str((m.get("effect") or {}).get("en", "")))
        ]
        if any(shifts):
            rec["v"] = [m for m in shifts if m]
        moves = [*(card.get("attacks") or []), *(card.get("abilities") or [])]
        for key, kinds in _TEXT_FACTS:
            found = sources_of(moves, kinds)
            if found:
                rec[key] = found
        if abilities:
            rec["b"] = [a for a in abilities if a]
    elif category == "Trainer" and card.get("trainerType"):
        rec["t"] = card["trainerType"]
    elif category == "Energy" and card.get("energyType"):
        rec["t"] = card["energyType"]
    if category in ("Trainer", "Energy"):
        effect = str((card.get("effect") or {}).get("en", ""))
        bonus = field_bonus(effect) if rec.get("t") == "Stadium" else hp_bonus(effect)
        if bonus is not None:
            rec["h"] = bonus
        if _MOVES_ENERGY.search(effect):
            rec["v"] = [en]
        for key, kinds in _TEXT_FACTS:
            zone = attach_source(effect, kinds)
            if zone is not None:
                rec[key] = [[en, zone]]
    return rec


def attach_source(effect: str, kinds: tuple[tuple[str, re.Pattern[str]], ...] = _ATTACH_FROM) -> str | None:
    """The zone an effect's attachments (or, with ``_EVOLVE_FROM``, its Evolution cards) come from: the
    first the text names; None when it names none."""
    found = [(m.start(), zone) for zone, rx in kinds for m in [rx.search(effect)] if m is not None]
    return min(found)[1] if found else None


def sources_of(moves: list[Any], kinds: tuple[tuple[str, re.Pattern[str]], ...]) -> list[list[str]]:
    """[English move name, zone] for each move whose text names where its cards come from."""
    out = []
    for m in moves:
        if not isinstance(m, dict):
            continue
        en = names(m.get("name")).get("en")
        zone = attach_source(str((m.get("effect") or {}).get("en", "")), kinds)
        if en and zone is not None:
            out.append([en, zone])
    return out


def field_bonus(effect: str) -> list[Any] | None:
    """The HP a Stadium gives every Pokémon of a kind in play, ``[N, condition]`` (N signed: Gravity
    Mountain ``[-30, "stage:Stage2"]``), from its English effect text; None when it gives none."""
    m = _HP_FIELD.search(effect)
    if m is None:
        return None
    test = what_test(m.group("what"))
    return [int(m.group("n")), "?" if test is None else test]


def what_test(what: str) -> str | None:
    """The importer's test for the Pokémon a card text names (``Basic Pokémon`` -> ``stage:Basic``,
    ``Fire Pokémon`` -> ``type:Fire``); "" for any Pokémon; None when the catalogue cannot check it."""
    if what == "Pokémon":
        return ""
    if what in ("Basic Pokémon", "Stage 1 Pokémon", "Stage 2 Pokémon"):
        return "stage:" + what.removesuffix(" Pokémon").replace(" ", "")
    if what.endswith("'s Pokémon"):
        return "prefix:" + what.removesuffix(" Pokémon")
    if what.endswith(" Pokémon") and what[:-8].strip("{}") in _TYPES:
        return "type:" + _TYPES[what[:-8].strip("{}")]
    if what.endswith(" Pokémon") and what[:-8] in _TYPES.values():
        return "type:" + what[:-8]
    if not what.endswith("Pokémon"):
        return "name:" + what
    return None


def hp_bonus(effect: str) -> list[Any] | None:
    """The HP a card gives the Pokémon it is attached to, ``[N, condition]``, from its English effect
    text. The condition is ``""`` (always) or space-separated tests the importer checks on the Pokémon:
    ``stage:Basic``, ``rule:none`` (no Rule Box), ``not:GX``, ``type:Fire``, ``prefix:Cynthia's``,
    ``name:Zamazenta V``; ``?`` is one the catalogue cannot check (an Ancient Pokémon, a Retreat Cost).
    None when the card gives no HP."""
    anyhp = _HP_ANY.search(effect)
    if anyhp is None:
        return None
    n = int(anyhp.group("n"))
    if _HP_NO_RULE.search(effect):
        return [n, "rule:none"]
    m = _HP_WHAT.search(effect)
    if m is None:
        return [n, "?"]
    what, rest = m.group("what"), m.group("rest")
    tests: list[str] = []
    rest = rest.strip()
    if "except Pokémon-GX" in rest or "except Pokémon GX" in rest:
        tests.append("not:GX")
    elif "except" in rest or (rest and not rest.startswith(("and", ","))):
        return [n, "?"]
    test = what_test(what)
    if test is None:
        return [n, "?"]
    if test:
        tests.append(test)
    return [n, " ".join(tests)]


# -- Japanese and Korean printings (data-asia/) ------------------------------------------------------------

# A Japanese or Korean name in the shape rule_of reads (the English one's): "かがやくゲッコウガ" -> "Radiant
# ゲッコウガ", "ピカチュウ&ゼクロムGX" -> "ピカチュウ & ゼクロム GX", "MリザードンEX" -> "M リザードン EX"
_ASIA_RADIANT = ("かがやく", "빛나는")
_ASIA_MEGA = ("メガ", "메가")
_ASIA_SUFFIX = re.compile(r"\s*(VMAX|VSTAR|V-UNION|TAG TEAM-GX|GX|EX|ex|V|BREAK|LV\.X|LEGEND|◇|☆)$")
_MEGA_FORM = re.compile(r"\s*[XY]$")  # メガリザードンXex: the form letter is not part of the species


def western(name: str, dex: list[int], species: dict[str, set[int]]) -> str:
    """A Japanese or Korean card name with its prefix and suffix in the English form rule_of reads.

    ``メガ`` (``메가``) is Mega only when what follows is the card's own species (``species``: name ->
    Pokédex numbers, from the plain names of data-asia/): メガルカリオex is Mega Lucario ex, but メガヤンマex
    is Yanmega ex (Yanma is another species) and メガニウム is Meganium."""
    n = unicodedata.normalize("NFKC", name).strip()
    n = re.sub(r"\s*&\s*", " & ", n)
    n = _ASIA_SUFFIX.sub(lambda m: " " + m.group(1), n)
    for prefix in _ASIA_RADIANT:
        if n.startswith(prefix):
            return "Radiant " + n[len(prefix) :].strip()
    for prefix in _ASIA_MEGA:
        if n.startswith(prefix):
            base = _MEGA_FORM.sub("", _ASIA_SUFFIX.sub("", n[len(prefix) :]).strip())
            if species.get(base, set()) & set(dex):
                return "Mega " + n[len(prefix) :].strip()
    if n.startswith("M") and n.endswith(" EX") and not n[1:2].isascii():
        return "M " + n[1:]
    return n


def asia_names(value: Any) -> dict[str, str]:
    """A data-asia name's Japanese and Korean forms (NFKC: data-asia mixes ＆ and &, full-width digits)."""
    return {
        lang: unicodedata.normalize("NFKC", text).strip()
        for lang, text in names(value).items()
        if lang in ASIA_LANGS
    }


def asia_record(card: dict[str, Any], species: dict[str, set[int]]) -> dict[str, Any] | None:
    """A Japanese or Korean printing's record: names in ja/ko, HP, stage, types, rule box (from its own
    name and suffix), Trainer or Energy type, attack and Ability names. None when it has neither name."""
    n = asia_names(card.get("name"))
    own = n.get("ja") or n.get("ko")
    category = card.get("category")
    if not own or category not in ("Pokemon", "Trainer", "Energy"):
        return None
    rec: dict[str, Any] = {"c": category[0], "n": n}
    if category == "Pokemon":
        hp = card.get("hp")
        if isinstance(hp, int) and 0 < hp <= 1000:
            rec["hp"] = hp
        dex = [d for d in card.get("dexId") or [] if isinstance(d, int)]
        rec["r"] = rule_of(card, western(own, dex, species))
        if card.get("stage"):
            rec["s"] = card["stage"]
        types = [t for t in card.get("types") or [] if isinstance(t, str)]
        if types:
            rec["y"] = types
        attacks = [asia_names(a.get("name")) for a in card.get("attacks") or [] if isinstance(a, dict)]
        abilities = [asia_names(a.get("name")) for a in card.get("abilities") or [] if isinstance(a, dict)]
        if any(attacks):
            rec["a"] = [a for a in attacks if a]
        if any(abilities):
            rec["b"] = [a for a in abilities if a]
    elif category == "Trainer" and card.get("trainerType"):
        rec["t"] = card["trainerType"]
    elif category == "Energy" and card.get("energyType"):
        rec["t"] = card["energyType"]
    return rec


def signature(card: dict[str, Any], en: str) -> tuple[Any, ...]:
    """What makes two printings the same Pokémon card for the game: English name, HP, stage, each
    attack's cost and damage (``180＋`` read as ``180+``), and how many Abilities. A Japanese printing
    whose signature is an English card's is that card (its international printing). Types are left out:
    data-asia has a few wrong ones (SV3 125, a Darkness Charizard ex, is typed Fire)."""
    attacks = tuple(
        (
            tuple(sorted(str(c) for c in a.get("cost") or [])),
            unicodedata.normalize("NFKC", str(a.get("damage") or "")).replace("×", "x").strip(),
        )
        for a in card.get("attacks") or []
        if isinstance(a, dict)
    )
    return (en, card.get("hp"), card.get("stage"), attacks, len(card.get("abilities") or []))


def species_of(cards: list[dict[str, Any]]) -> dict[str, set[int]]:
    """Plain Japanese and Korean Pokémon names (no prefix, no suffix) -> their Pokédex numbers."""
    out: dict[str, set[int]] = {}
    for card in cards:
        if card.get("category") != "Pokemon":
            continue
        dex = {d for d in card.get("dexId") or [] if isinstance(d, int)}
        for name in asia_names(card.get("name")).values():
            if not _ASIA_SUFFIX.search(name) and not name.startswith((*_ASIA_RADIANT, *_ASIA_MEGA)):
                out.setdefault(name, set()).update(dex)
    return out


def asia_id(set_id: str, local: str) -> str:
    """A Japanese or Korean printing's own id, TCGdex's (``SV1V`` + ``001`` -> ``sv1v-001``): a hyphen and
    no underscore, so it never meets an international id (``sv1_1``)."""
    return f"{set_id}-{local}".lower()


def pocket_names(data: Path) -> list[dict[str, str]]:
    """The en/ja/ko names of TCG Pocket's cards (a names-only source: see ``POCKET``)."""
    out = []
    for card_file in sorted((data / POCKET).glob("*/*.ts")):
        try:
            name = read_object(card_file).get("name")
        except Exception:  # a names-only source: a file it cannot read only loses its names
            continue
        both = {**names(name), **asia_names(name)}
        if "en" in both and ("ja" in both or "ko" in both):
            out.append(both)
    return out


def _most(counts: dict[str, dict[str, int]]) -> dict[str, str]:
    """Each key's most frequent value (ties: the first in sorted order), for a deterministic build."""
    return {k: min(v, key=lambda x: (-v[x], x)) for k, v in counts.items()}


def _count(table: dict[str, dict[str, int]], key: str, value: str | None) -> None:
    if value:
        row = table.setdefault(key, {})
        row[value] = row.get(value, 0) + 1


TrainerFact = tuple[tuple[str, str, str], frozenset[str], str]


def trainer_fact(card: dict[str, Any], era: str, lang: str, name: str) -> TrainerFact | None:
    """What a Trainer printing shows that does not depend on its language: its era (the English series),
    Trainer type and illustrator (a reprint keeps its art), and the numbers of its effect text other than
    1 (``2 cards`` / ``2枚``; a Japanese "1枚" is an English "a"). None without an illustrator."""
    artist = re.sub(r"\s+", " ", str(card.get("illustrator") or "")).strip().casefold()
    kind = card.get("trainerType")
    if not artist or not isinstance(kind, str) or not name:
        return None
    effect = card.get("effect")
    text = effect.get(lang) if isinstance(effect, dict) else None
    numbers = frozenset(_NUMBER.findall(unicodedata.normalize("NFKC", str(text or "")))) - {"1"}
    return ((era, kind, artist), numbers, name)


def _vote(rows: list[set[str]]) -> tuple[str | None, int]:
    """The one name that at least two thirds of the printings' candidate sets hold, and more of them than
    any other name (None when no name stands out so), and how many printings had candidates."""
    rows = [row for row in rows if row]
    counts: dict[str, int] = {}
    for row in rows:
        for name in row:
            counts[name] = counts.get(name, 0) + 1
    if not counts:
        return None, 0
    best = max(counts.values())
    winners = [name for name, n in counts.items() if n == best]
    if len(winners) == 1 and 3 * best >= 2 * len(rows):
        return winners[0], len(rows)
    return None, len(rows)


def trainer_links(english: list[TrainerFact], japanese: list[TrainerFact]) -> dict[str, str]:
    """Japanese Trainer name -> English Trainer name, where the printings agree both ways.

    Indonesian translates Trainer names, so nothing names a Japanese Trainer's English card; what its
    printings share with the English ones is the era, the Trainer type, the illustrator and the numbers of
    the effect text (:func:`trainer_fact`). Each Japanese printing's candidates are the English names with
    the same facts; a Japanese name links to the English name most of its printings agree on
    (:func:`_vote`: two thirds of them, more than any other), and only when the English name's printings,
    voting the same way over the Japanese names, pick it back, and one side has two printings or more.
    Cards one illustrator drew alike (Nest Ball and Counter Catcher in the same sets) tie and stay
    unlinked."""
    by_key_en: dict[tuple[str, str, str], set[tuple[str, frozenset[str]]]] = {}
    by_key_ja: dict[tuple[str, str, str], set[tuple[str, frozenset[str]]]] = {}
    for key_, numbers, name in english:
        by_key_en.setdefault(key_, set()).add((name, numbers))
    for key_, numbers, name in japanese:
        by_key_ja.setdefault(key_, set()).add((name, numbers))
    forward: dict[str, list[set[str]]] = {}
    backward: dict[str, list[set[str]]] = {}
    for key_, numbers, name in japanese:
        forward.setdefault(name, []).append({n for n, d in by_key_en.get(key_, ()) if d == numbers})
    for key_, numbers, name in english:
        backward.setdefault(name, []).append({n for n, d in by_key_ja.get(key_, ()) if d == numbers})
    back = {en: _vote(rows) for en, rows in sorted(backward.items())}
    out = {}
    for ja, rows in sorted(forward.items()):
        en, seen = _vote(rows)
        if en is None or en not in back:
            continue
        again, seen_back = back[en]
        # one printing each way is one coincidence of illustrator and type: two agreeing printings are not
        if again == ja and max(seen, seen_back) >= 2:
            out[ja] = en
    return out


def basic_energy(card: dict[str, Any], by_en: dict[tuple[str, str], list[int]]) -> str | None:
    """A Japanese basic Energy's English name, from the type its name prints (基本闘エネルギー ->
    Fighting Energy), when the English catalogue has that basic Energy."""
    if card.get("category") != "Energy" or card.get("energyType") != "Normal":
        return None
    m = _JA_BASIC_ENERGY.match(asia_names(card.get("name")).get("ja", ""))
    en = f"{_JA_TYPE[m.group(1)]} Energy" if m else None
    return en if en and ("E", en) in by_en else None


def add_asia(
    checkout: Path,
    records: list[dict[str, Any]],
    prints: dict[str, int],
    sigs: dict[tuple[Any, ...], int],
    trainers: list[TrainerFact] | None = None,
) -> int:
    """Add data-asia/'s Japanese and Korean printings (and TCG Pocket's names) to the catalogue.

    A printing whose English name (its Indonesian one, which keeps the English Pokémon names, or one a
    name table below gives) and signature are an English card's is that card: its id points at the
    English record, whose names gain ``ja``/``ko``, so both printings agree on HP, stage and rule box.
    A Trainer or Energy is linked the same way by its name (cards of one name are one card); a Trainer's
    English name comes from :func:`trainer_links` over ``trainers`` (the English Trainers' facts), a basic
    Energy's from the type its name prints (:func:`basic_energy`). Any other
    printing is a record of its own, with its English name under ``w`` when it is known (shown, never
    looked up: a Japanese-only printing must not answer an English log's name). Name tables: English ->
    Japanese / Korean from linked printings and TCG Pocket; Japanese -> Korean from printings that carry
    both. Returns the number of files that could not be read."""
    asia = checkout / "data-asia"
    if not asia.is_dir():
        raise SystemExit(f"{checkout}: no data-asia/ folder (is this a checkout of tcgdex/cards-database?)")
    errors = 0
    read: list[tuple[str, dict[str, Any]]] = []
    japanese: list[TrainerFact] = []
    for series in ASIA_SERIES:
        for set_file in sorted((asia / series).glob("*.ts")):
            set_dir = set_file.with_suffix("")
            if not set_dir.is_dir():
                continue
            set_id = str(read_object(set_file).get("id") or set_file.stem)
            for card_file in sorted(set_dir.glob("*.ts")):
                try:
                    card = read_object(card_file)
                except Exception as exc:  # a malformed file is reported and skipped, the build goes on
                    print(f"build_catalogue: {card_file}: {exc}", file=sys.stderr)
                    errors += 1
                    continue
                read.append((asia_id(set_id, card_file.stem), card))
                if card.get("category") == "Trainer":
                    ja = asia_names(card.get("name")).get("ja", "")
                    fact = trainer_fact(card, ASIA_ERA[series], "ja", ja)
                    if fact:
                        japanese.append(fact)
    species = species_of([card for _, card in read])
    by_en: dict[tuple[str, str], list[int]] = {}  # (category, English name) -> English records
    for i, rec in enumerate(records):
        by_en.setdefault((rec["c"], rec["n"]["en"]), []).append(i)
    en_of_trainer = trainer_links(trainers or [], japanese)
    to_ja: dict[str, dict[str, int]] = {}
    to_ko: dict[str, dict[str, int]] = {}
    ja_ko: dict[str, dict[str, int]] = {}
    for pocket in pocket_names(checkout / "data"):
        _count(to_ja, pocket["en"], pocket.get("ja"))
        _count(to_ko, pocket["en"], pocket.get("ko"))
    for _, card in read:
        own = asia_names(card.get("name"))
        _count(ja_ko, own.get("ja", ""), own.get("ko"))
        en = english_of(card, by_en, en_of_trainer)
        if en:
            _count(to_ja, en, own.get("ja"))
            _count(to_ko, en, own.get("ko"))
    ja_of, ko_of, ko_of_ja = _most(to_ja), _most(to_ko), _most(ja_ko)
    # English -> Korean (TCG Pocket) -> Japanese (a Korean printing's): Rare Candy / 이상한사탕 / ふしぎなアメ
    ko_ja: dict[str, dict[str, int]] = {}
    for ja, ko in ko_of_ja.items():
        _count(ko_ja, fold(ko), ja)  # spaces aside: Pocket's 카운터 캐처 is the paper 카운터캐처
    ja_of_ko = _most(ko_ja)
    for en, ko in ko_of.items():
        if en not in ja_of and fold(ko) in ja_of_ko:
            ja_of[en] = ja_of_ko[fold(ko)]
    to_en: dict[str, dict[str, int]] = {}
    for en, ja in ja_of.items():
        _count(to_en, ja, en)
    en_of_ja = _most(to_en)
    for rec in records:  # the English cards' names gain ja/ko where a table gives them
        en = rec["n"]["en"]
        if en in ja_of:
            rec["n"]["ja"] = ja_of[en]
        ko = ko_of.get(en) or ko_of_ja.get(rec["n"].get("ja", ""))
        if ko:
            rec["n"]["ko"] = ko
    own_records: dict[str, int] = {}
    for pid, card in read:
        rec = asia_record(card, species)
        if rec is None:
            continue
        if "ko" not in rec["n"] and rec["n"].get("ja") in ko_of_ja:
            rec["n"]["ko"] = ko_of_ja[rec["n"]["ja"]]
        en = english_of(card, by_en, en_of_trainer) or en_of_ja.get(rec["n"].get("ja", ""))
        if en and rec["c"] == "P":  # the English name tells Mega and Radiant best where it is known
            rec["r"] = rule_of(card, en)
        at = linked(card, rec, en, by_en, records, sigs)
        if at is None:
            if en:
                rec["w"] = en
            key = json.dumps(rec, sort_keys=True, ensure_ascii=False)
            at = own_records.get(key)
            if at is None:
                at = own_records[key] = len(records)
                records.append(rec)
        prints.setdefault(pid, at)
    return errors


def english_of(
    card: dict[str, Any], by_en: dict[tuple[str, str], list[int]], trainers: dict[str, str] | None = None
) -> str | None:
    """A data-asia card's English name, where it gives one: ``en``, or its Indonesian name when that is an
    English card's name of the same category (Indonesian prints Pokémon names in English); a Trainer's
    from ``trainers`` (:func:`trainer_links`), a basic Energy's from its type (:func:`basic_energy`)."""
    category = str(card.get("category") or "")[:1]
    name = card.get("name")
    for lang in ("en", "id"):
        value = name.get(lang) if isinstance(name, dict) else None
        if isinstance(value, str) and (category, value.strip()) in by_en:
            return value.strip()
    if category == "T" and trainers:
        en = trainers.get(asia_names(name).get("ja", ""))
        if en and ("T", en) in by_en:
            return en
    return basic_energy(card, by_en)


def linked(
    card: dict[str, Any],
    rec: dict[str, Any],
    en: str | None,
    by_en: dict[tuple[str, str], list[int]],
    records: list[dict[str, Any]],
    sigs: dict[tuple[Any, ...], int],
) -> int | None:
    """The English record a Japanese or Korean printing is (see :func:`add_asia`), None when none is."""
    if not en:
        return None
    if rec["c"] == "P":
        at = sigs.get(signature(card, en))
        if at is None:
            return None
    else:
        hits = [i for i in by_en.get((rec["c"], en), []) if records[i].get("t") == rec.get("t")]
        if not hits:
            return None
        at = hits[0]
    target = records[at]["n"]
    for lang in ASIA_LANGS:
        if lang in rec["n"]:
            target.setdefault(lang, rec["n"][lang])
    for key in ("a", "b"):  # its moves' names too, move by move (the signature lines them up)
        mine, theirs = rec.get(key) or [], records[at].get(key) or []
        if len(mine) == len(theirs):
            for m, t in zip(mine, theirs, strict=True):
                for lang in ASIA_LANGS:
                    if lang in m:
                        t.setdefault(lang, m[lang])
    return at


def pack(doc: dict[str, Any]) -> bytes:
    """The catalogue as ``cards.bin`` (see the module docstring)."""

    def z(obj: Any) -> bytes:
        raw = json.dumps(obj, ensure_ascii=False, separators=(",", ":"), sort_keys=True).encode("utf-8")
        return zlib.compress(raw, 9)

    cards = doc["cards"]
    names: dict[str, dict[str, list[int]]] = {lang: {} for lang in LANGS}
    for i, rec in enumerate(cards):
        for lang, name in sorted(rec.get("n", {}).items()):
            if lang in names:
                names[lang].setdefault(key(name), []).append(i)
    # the printings' ids, then each language's names, then the records: a part is decoded when it is
    # first needed (an English log never decodes the Japanese and Korean names)
    parts = [z(doc["prints"])]
    parts += [z(names[lang]) for lang in LANGS]
    parts += [z(cards[i : i + BLOCK]) for i in range(0, len(cards), BLOCK)]
    where, at = [], 0
    for part in parts:
        where.append([at, len(part)])
        at += len(part)
    head = {k: v for k, v in doc.items() if k not in ("cards", "prints")}
    head.update(
        count=len(cards),
        block=BLOCK,
        prints=where[0],
        names=dict(zip(LANGS, where[1 : 1 + len(LANGS)], strict=True)),
        blocks=where[1 + len(LANGS) :],
    )
    line = json.dumps(head, ensure_ascii=False, separators=(",", ":"), sort_keys=True).encode("utf-8")
    return MAGIC + line + b"\n" + b"".join(parts)


def fold(name: str) -> str:
    """A name as the catalogue searches it (replay/sources/cards.py ``fold``)."""
    from replay.sources.cards import fold as folded

    return folded(name)


def key(name: str) -> str:
    """A card name as the catalogue compares it (replay/sources/cards.py ``_key``)."""
    from replay.sources.cards import _key

    return _key(name)


def commit_of(checkout: Path) -> str:
    try:
        out = subprocess.run(
            ["git", "-C", str(checkout), "rev-parse", "HEAD"], capture_output=True, text=True, check=True
        )
        return out.stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def source_of(checkout: Path, commit: str | None, built_by: str, skipped: int) -> dict[str, Any]:
    """What a file built from ``checkout`` says of its source: the repository, its commit and licence."""
    licence = (checkout / "LICENSE").read_text(encoding="utf-8").splitlines()
    return {
        "repository": "https://github.com/tcgdex/cards-database",
        "commit": commit or commit_of(checkout),
        "licence": "MIT",
        "copyright": next((line for line in licence if line.startswith("Copyright")), "TCGdex"),
        "series": list(SERIES),
        "asia_series": list(ASIA_SERIES),
        "names_only": POCKET,
        "built_by": built_by,
        "skipped_files": skipped,
    }


def build(checkout: Path, commit: str | None = None) -> dict[str, Any]:
    data = checkout / "data"
    if not data.is_dir():
        raise SystemExit(f"{checkout}: no data/ folder (is this a checkout of tcgdex/cards-database?)")
    records: list[dict[str, Any]] = []
    index: dict[str, int] = {}
    prints: dict[str, int] = {}
    sigs: dict[tuple[Any, ...], int] = {}
    trainers: list[TrainerFact] = []
    errors = 0
    for series in SERIES:
        for set_file in sorted((data / series).glob("*.ts")):
            set_dir = set_file.with_suffix("")
            if not set_dir.is_dir():
                continue
            set_id = str(read_object(set_file).get("id") or "")
            for card_file in sorted(set_dir.glob("*.ts")):
                try:
                    card = read_object(card_file)
                    rec = record(card)
                except Exception as exc:  # a malformed file is reported and skipped, the build goes on
                    print(f"build_catalogue: {card_file}: {exc}", file=sys.stderr)
                    errors += 1
                    continue
                if rec is None:
                    continue
                key = json.dumps(rec, sort_keys=True, ensure_ascii=False)
                at = index.get(key)
                if at is None:
                    at = index[key] = len(records)
                    records.append(rec)
                if set_id:
                    prints.setdefault(print_id(set_id, card_file.stem), at)
                if rec["c"] == "P":
                    sigs.setdefault(signature(card, rec["n"]["en"]), at)
                elif rec["c"] == "T":
                    fact = trainer_fact(card, series, "en", rec["n"]["en"])
                    if fact:
                        trainers.append(fact)
    errors += add_asia(checkout, records, prints, sigs, trainers)
    return {
        "format": "prizecheck-cards/3",
        "source": source_of(checkout, commit, "tools/build_catalogue.py", errors),
        "languages": list(LANGS),
        "keys": {
            "c": "category: P(okemon), T(rainer), E(nergy)",
            "n": "names by language (ja/ko: TCGdex's data-asia and the name tables of add_asia)",
            "w": "a Japanese or Korean printing's English name, for display only (never indexed)",
            "hp": "HP",
            "r": "rule-box kind (contract card.rule)",
            "s": "stage",
            "e": "evolves from (English name)",
            "a": "attack names by language",
            "d": "[English name of an attack, its printed damage as printed: '30', '30+', '20×']",
            "b": "Ability names by language",
            "t": "Trainer type or Energy type",
            "m": "English names of the moves that discard from the top of their own deck",
            "h": "HP given to the Pokémon it is attached to (a Stadium: each in play): [N, condition]",
            "y": "types (Fire, Water, ...)",
            "v": "English names of its moves (or of the card) that move Energy between Pokémon",
            "f": "[English name of a move (or of the card), the zone the cards it attaches come from]",
            "g": "[English name of a move (or of the card), the zone its Evolution cards come from]",
            "k": "[English name of a move (or of the card), the zone the cards it shuffles in come from]",
            "o": "[English name of a move (or of the card) that looks at the top of the deck, 'deck']",
            "p": "[English name of a move (or of the card) that makes a player take Prize cards, 'prize']",
            "x": "[English name of a move that Knocks Out without damage, whom: 'self', 'active', 'both']",
            "q": "[English name of a move whose damage counters go on the opponent's Bench only, 'bench']",
            "u": "[English name of a move that uses another card's attack as its own, 'copy']",
        },
        "cards": records,
        "prints": dict(sorted(prints.items())),
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("checkout", type=Path, help="a checkout of tcgdex/cards-database")
    ap.add_argument(
        "--out", type=Path, default=Path(__file__).resolve().parent.parent / "replay/sources/cards.bin"
    )
    ap.add_argument("--commit", help="the checkout's commit, when it is not a git work tree")
    args = ap.parse_args()
    doc = build(args.checkout, args.commit)
    args.out.write_bytes(pack(doc))
    print(
        f"build_catalogue: {len(doc['cards'])} cards, {len(doc['prints'])} printings, "
        f"{args.out.stat().st_size / 1e6:.2f} MB -> {args.out} (source commit {doc['source']['commit']})"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
