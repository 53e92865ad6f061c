"""Build the engine's table of card effects that may lift a turn rule, from TCGdex's ``cards-database`` (MIT).

    python tools/build_card_effects.py CHECKOUT [--out replay/engine/card_effects.py]

CHECKOUT is a clone of https://github.com/tcgdex/cards-database, the same source (and the same series: Black
& White onwards) as the importers' card catalogue (tools/build_catalogue.py). The rules engine imports
nothing outside ``replay/engine`` and never reads card text, so what it knows of card effects is this
table: for each finding about a rule a card effect may lift (docs/rules.md §6, "Once per turn"), the
English names of the cards whose Ability, Trainer or Energy text can allow what the finding reports. On a
digital client's log, whose client enforces the rules, such a finding is then a warning (or an info when
one of those cards is in view), never a violation; a rule no card lifts stays a violation (decisions.md
item 3).

Each rule is a set of regular expressions over one sentence of a card's English text (attacks are left
out, what an attack does happening inside the attack window, which these rules do not count; except for
``attack_first_turn``, which the attack's own text may lift). The output is
a Python module of frozensets, written deterministically, with the source commit and licence at its top.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tools.build_catalogue import SERIES, read_object

# finding code -> (what the cards do, the sentence patterns that say so)
RULES: dict[str, tuple[str, tuple[str, ...]]] = {
    "second_supporter": (
        "let a player play more than one Supporter in a turn",
        (r"\bplay (?:2|3|two|three) Supporter cards\b",),
    ),
    "supporter_first_turn": (
        "may be played by the player who goes first during their first turn",
        (r"\bgo first, you may (?:play|use) this card during your first turn\b",),
    ),
    "second_energy": (
        "attach Energy from the hand besides the one attachment of the turn",
        (
            r"^(?!.*\b[Ww]hen(?:ever)? you attach\b)(?!.*\bopponent\b).*\b[Aa]ttach\b[^.]*\bEnergy cards?\b"
            r"[^.]*\bfrom (?:your|their) hand\b",
            r"\b[Aa]ttach (?:up to )?2 Energy cards\b",
        ),
    ),
    "second_stadium": (
        "put a Stadium into play besides the one Stadium played from the hand in a turn",
        (r"\bput a Stadium card\b[^.]*\binto play\b", r"\bplay (?:2|two|another) Stadium"),
    ),
    "second_retreat": (
        "switch the player's own Active Pokémon without retreating it",
        (
            r"\b[Ss]witch your Active [^.]{0,40}?Pokémon with 1 of your Benched\b",
            r"\b[Ss]witch (?:this Pokémon|it) with (?:your Active|1 of your Benched)\b",
            r"\bEach player switches their Active\b",
            r"\bthat player may switch their Active\b",
        ),
    ),
    "attack_first_turn": (
        "let the player who goes first attack during their first turn",
        (
            r"\bgo first, (?:you can use this attack|this Pokémon can use attacks) "
            r"(?:during|on) your first turn\b",
        ),
    ),
    "evolved_too_early": (
        "evolve a Pokémon on the player's first turn, the turn it came into play, or again in a turn",
        (
            r"\bcan evolve during\b",
            r"\bevolve[^.]*\bduring (?:your|their|his or her) first turn\b",
            r"\bevolve[^.]*\bduring the turn (?:you|they|he or she) play",
            r"\b(?:can|may) use this (?:card|Ability) during your first turn or on (?:a|the) Pokémon\b",
            r"\bput it onto that Pokémon to evolve it\b",
            r"\bonto this (?:Pokémon|[A-Z][\w'-]*) to evolve it\b",  # an Ability that evolves its Pokémon
            r"\bput (?:that|the) card onto (?:the|that) (?:Basic )?Pokémon to evolve it\b",
            r"\bto evolve it, skipping the Stage 1\b",
            r"\bThis counts as evolving that Pokémon\b",
        ),
    ),
}
_SENTENCE = re.compile(r"(?<=[.!?])\s+")


# the rules whose lifting text may be an attack's own
ATTACKS_TOO = frozenset({"attack_first_turn"})


def texts(card: dict[str, Any], attacks: bool = False) -> list[str]:
    """The English texts of a card that act outside an attack (the card's own effect and its Abilities),
    and with ``attacks`` its attacks' texts too."""
    out: list[str] = []
    effect = card.get("effect")
    if isinstance(effect, dict) and isinstance(effect.get("en"), str):
        out.append(effect["en"])
    for ability in card.get("abilities") or []:
        text = (ability.get("effect") or {}).get("en") if isinstance(ability, dict) else None
        if isinstance(text, str):
            out.append(text)
    for attack in (card.get("attacks") or []) if attacks else []:
        effect = attack.get("effect") if isinstance(attack, dict) else None
        if isinstance(effect, dict) and isinstance(effect.get("en"), str):
            out.append(effect["en"])
    return out


def scan(checkout: Path) -> dict[str, set[str]]:
    """Card names per finding code, from every card file of the catalogue's series."""
    found: dict[str, set[str]] = {code: set() for code in RULES}
    compiled = {code: [re.compile(p) for p in pats] for code, (_, pats) in RULES.items()}
    for series in SERIES:
        root = checkout / "data" / series
        for path in sorted(root.glob("*/*.ts")):
            card = read_object(path)
            name = (card.get("name") or {}).get("en")
            if not isinstance(name, str) or not name.strip():
                continue
            for code, pats in compiled.items():
                for text in texts(card, attacks=code in ATTACKS_TOO):
                    for sentence in _SENTENCE.split(text.replace("\n", " ")):
                        if any(p.search(sentence) for p in pats):
                            found[code].add(name.strip().replace("’", "'"))
    return found


def render(found: dict[str, set[str]], commit: str) -> str:
    lines = [
        '"""Card effects that may lift a turn rule: generated by tools/build_card_effects.py, do not edit.',
        "",
        "From TCGdex's cards-database (https://github.com/tcgdex/cards-database, MIT, Copyright (c) 2021",
        f"TCGdex), commit {commit}:",
        "the English names of the cards (Black & White onwards) whose Ability, Trainer or Energy text can",
        'allow what each finding reports (docs/rules.md §6, "Once per turn"). A name stands for every card',
        "of that name: the engine does not know which printing is in play.",
        '"""',
        "",
        "from __future__ import annotations",
        "",
        "from typing import Final",
        "",
        f'SOURCE: Final = "tcgdex/cards-database@{commit}"',
        "",
        "LIFTS: Final[dict[str, frozenset[str]]] = {",
    ]
    for code, (what, _) in RULES.items():
        lines.append(f"    # cards that {what}")
        lines.append(f"    {json.dumps(code)}: frozenset(")
        lines.append("        {")
        for name in sorted(found[code]):
            lines.append(f"            {json.dumps(name, ensure_ascii=False)},")
        lines.append("        }")
        lines.append("    ),")
    lines.append("}")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("checkout", type=Path)
    ap.add_argument("--out", type=Path, default=Path("replay/engine/card_effects.py"))
    ap.add_argument("--commit", help="the checkout's commit, when CHECKOUT is an extracted archive")
    args = ap.parse_args(argv)
    commit = args.commit
    try:
        commit = (
            commit
            or subprocess.run(
                ["git", "-C", str(args.checkout), "rev-parse", "HEAD"],
                capture_output=True,
                text=True,
                check=True,
            ).stdout.strip()
        )
    except (OSError, subprocess.CalledProcessError):
        commit = "unknown"
    found = scan(args.checkout)
    args.out.write_text(render(found, commit), encoding="utf-8")
    for code, names in found.items():
        print(f"{code}: {len(names)} cards")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
