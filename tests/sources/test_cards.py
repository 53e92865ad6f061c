"""The packaged card catalogue (replay/sources/cards.py, cards.bin): what a look-up answers, that loading
reads the index only, and the HP bonuses tools/build_catalogue.py reads from effect texts."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from replay.sources.cards import MAGIC, CardDatabase, card_names, display_name, load_catalogue

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tools"))
from build_catalogue import field_bonus, hp_bonus


def test_loading_reads_the_index_and_decodes_records_on_demand() -> None:
    db = load_catalogue()
    assert db.count > 10_000 and not db._cards  # no record decoded yet
    hits = db.lookup("Pikachu ex")
    assert hits and all(i.name == "Pikachu ex" and i.hp for i in hits)
    assert 0 < len(db._cards) <= db._block * len(hits)  # only the blocks those records are in
    assert len(db.cards()) == db.count == len(db)


def test_the_file_names_its_source_and_licence() -> None:
    db = load_catalogue()
    assert db.source["repository"] == "https://github.com/tcgdex/cards-database"
    assert db.source["licence"] == "MIT" and len(db.source["commit"]) == 40
    with pytest.raises(ValueError):
        CardDatabase(b"{}")
    assert MAGIC.startswith(b"prizecheck-cards/")


def test_lookups_by_name_in_each_language_and_by_printing() -> None:
    db = load_catalogue()
    assert {i.name for i in db.lookup("Glurak-ex", "de")} == {"Charizard ex"}
    assert db.lookup("Hyperball", "de")[0].kind == "Item"
    assert db.lookup("Ultra Ball", "fr")  # an English name is tried in any language
    card = db.printing("sv6_163")
    assert card is not None and card.name == "Secret Box"
    assert db.printing("(sv6_163)") == card and db.printing("nope_1") is None
    assert card_names("Glurak-ex")["fr"] == "Dracaufeu-ex"
    assert display_name("Hyperball", "en") == "Ultra Ball"
    assert display_name("No Such Card", "de") == "No Such Card"


def test_moves_abilities_and_deck_discards() -> None:
    db = load_catalogue()
    assert db.is_ability("Drakloak", "Recon Directive") is True
    assert db.is_ability("Slowking", "Seek Inspiration") is False
    assert db.is_ability("No Such Card", "Anything") is None
    assert db.mills("Slowking", "Seek Inspiration")
    assert not db.mills("Drakloak", "Recon Directive")


def test_each_attack_keeps_its_printed_damage() -> None:
    # issue 33 item 4: the console offers the attack's printed damage (tools/build_catalogue.py ``d``), as
    # printed: a plain number, or with its sign (+, ×); an attack without damage has none
    db = load_catalogue()
    printings = db.lookup("Pikachu ex")
    assert ("Thunder", "220") in {d for c in printings for d in c.damage}
    staryu = {d for c in db.lookup("Staryu") for d in c.damage}
    assert ("Continuous Spin", "10×") in staryu and "Recover" not in {a for a, _ in staryu}
    assert any(d.endswith("+") for c in db.lookup("Raichu") for _, d in c.damage)


def test_moves_that_knock_out_place_on_the_bench_or_use_another_attack() -> None:
    # issue 35: what the card text says that the log leaves out (tools/build_catalogue.py _KNOCKS_OUT,
    # _BENCH_COUNTERS, _USES_ATTACK)
    db = load_catalogue()
    assert db.attach_source("Dusclops", "Cursed Blast", of="knock") == "self"
    assert db.attach_source("Roaring Moon ex", "Frenzied Gouging", of="knock") == "active"
    assert db.attach_source("Haxorus", "Axe Blast", of="knock") == "active"
    assert db.attach_source("Annihilape", "Destined Fight", of="knock") == "both"
    assert db.attach_source("Pidgey", "Gust", of="knock") is None
    assert db.attach_source("Dragapult ex", "Phantom Dive", of="bench") == "bench"
    assert db.attach_source("Slowking", "Seek Inspiration", of="copy") == "copy"
    assert db.attach_source("Dracaufeu-ex", "Démon Ardent", "fr", of="knock") is None


def test_tools_that_change_hp_carry_the_bonus() -> None:
    db = load_catalogue()
    assert db.lookup("Hero's Cape")[0].hp_bonus == (100, "")
    assert db.lookup("Dracaufeu-ex", "fr")[0].types == ("Fire",)


def test_stadiums_that_change_hp_in_play_carry_it() -> None:
    db = load_catalogue()
    assert db.lookup("Gravity Mountain")[0].hp_bonus == (-30, "stage:Stage2")
    assert db.lookup("Stade en Liesse", "fr")[0].hp_bonus == (30, "stage:Basic")  # Lively Stadium
    assert field_bonus("Each Mega Floette ex in play (both yours and your opponent's) gets +150 HP.") == [
        150,
        "name:Mega Floette ex",
    ]
    assert field_bonus("Draw 2 cards.") is None


@pytest.mark.parametrize(
    ("text", "bonus"),
    [
        ("The Pokémon this card is attached to gets +100 HP.", [100, ""]),
        (
            "The Basic Pokémon this card is attached to gets +50 HP, except Pokémon-GX.",
            [50, "not:GX stage:Basic"],
        ),
        ("The Stage 1 Pokémon this card is attached to gets +40 HP.", [40, "stage:Stage1"]),
        (
            "If the Pokémon this card is attached to doesn't have a Rule Box, it gets +100 HP, and",
            [100, "rule:none"],
        ),
        ("The Cynthia's Pokémon this card is attached to gets +70 HP.", [70, "prefix:Cynthia's"]),
        ("The Zamazenta V this card is attached to gets +70 HP.", [70, "name:Zamazenta V"]),
        (
            "As long as this card is attached to a Pokémon, it provides {G} Energy.\n"
            "The {G} Pokémon this card is attached to gets +20 HP.",
            [20, "type:Grass"],
        ),
        (
            "The Ancient Pokémon this card is attached to gets +60 HP, recovers from all Special Conditions.",
            [60, "?"],
        ),
        (
            "If the Retreat Cost of the Pokémon this card is attached to is 3 or more, that Pokémon gets "
            "+20 HP.",
            [20, "?"],
        ),
        ("Draw 2 cards.", None),
    ],
)
def test_hp_bonus_read_from_the_effect_text(text: str, bonus: list[object] | None) -> None:
    assert hp_bonus(text) == bonus
