"""Card facts an importer can know: the rule kind read from a card's name, and HP from a catalogue.

Battle logs name cards but never print HP, prize values or kinds [ptcgl-format.md, Traps]. The kind is
read from the name (`` ex``, `` V``, ``VMAX``, ``VSTAR``, `` GX``, ``Mega ... ex``, ``Radiant ...``);
HP comes only from an optional catalogue file the user supplies (format in docs/importers.md).
"""

from __future__ import annotations

import csv
import io
import json
import re
from dataclasses import dataclass, field
from typing import Any

from replay.engine.errors import InputError

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
