"""Build the packaged legality data from a checkout of TCGdex's ``cards-database`` (MIT).

    python tools/build_legality.py CHECKOUT [--out replay/sources/legality.json]

What deck legality needs and the card catalogue (``cards.bin``, tools/build_catalogue.py) does not keep:
per set, its code as Pokémon TCG Live prints it in a deck list (``abbreviations.official``: ``SVI``), its
release date and series; per printing, its regulation mark (``regulationMark``: ``G``) and whether it is an
ACE SPEC (``rarity: "ACE SPEC Rare"``). The same series as the catalogue are read (Black & White onwards:
the Expanded card pool), and printings are named by the catalogue's own ids (``sv1_57``), so a deck list's
``SVI 57`` finds its catalogue card. Written deterministically, with the source commit and licence, as
compact JSON (replay/sources/legality.py reads it; docs/decks.md says how to rebuild).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tools.build_catalogue import SERIES, print_id, read_object, source_of


def build(checkout: Path, commit: str | None = None) -> dict[str, Any]:
    """The legality data of ``checkout`` (see the module docstring)."""
    data = checkout / "data"
    if not data.is_dir():
        raise SystemExit(f"{checkout}: no data/ folder (is this a checkout of tcgdex/cards-database?)")
    sets: dict[str, dict[str, Any]] = {}
    skipped = 0
    for series in SERIES:
        for set_file in sorted((data / series).glob("*.ts")):
            set_dir = set_file.with_suffix("")
            if not set_dir.is_dir():
                continue
            meta = read_object(set_file)
            set_id = str(meta.get("id") or "")
            if not set_id:
                continue
            sid = print_id(set_id, "0").rsplit("_", 1)[0]
            abbreviations = meta.get("abbreviations") or {}
            marks: dict[str, str] = {}
            aces: list[str] = []
            for card_file in sorted(set_dir.glob("*.ts")):
                try:
                    card = read_object(card_file)
                except Exception as exc:  # a malformed file is reported and skipped, the build goes on
                    print(f"build_legality: {card_file}: {exc}", file=sys.stderr)
                    skipped += 1
                    continue
                number = print_id(set_id, card_file.stem).rsplit("_", 1)[1]
                mark = card.get("regulationMark")
                if isinstance(mark, str) and mark.strip():
                    marks[number] = mark.strip().upper()
                if str(card.get("rarity") or "").upper().startswith("ACE SPEC"):
                    aces.append(number)
            sets[sid] = {
                "code": str(abbreviations.get("official") or "") if isinstance(abbreviations, dict) else "",
                "series": series,
                "date": str(meta.get("releaseDate") or ""),
                "marks": marks,
                "ace_spec": aces,
            }
    return {
        "format": "prizecheck-legality/1",
        "source": source_of(checkout, commit, "tools/build_legality.py", skipped),
        "sets": dict(sorted(sets.items())),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("checkout", type=Path, help="a checkout of tcgdex/cards-database")
    parser.add_argument("--out", type=Path, default=Path("replay/sources/legality.json"))
    parser.add_argument("--commit", help="the checkout's commit, when it is not a git clone")
    args = parser.parse_args()
    doc = build(args.checkout, args.commit)
    args.out.write_text(json.dumps(doc, sort_keys=True, separators=(",", ":"), ensure_ascii=False) + "\n")
    print(f"build_legality: {len(doc['sets'])} sets -> {args.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
