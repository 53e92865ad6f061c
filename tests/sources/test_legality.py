"""Deck legality (replay/sources/legality.py, docs/rules.md §8): each deck rule, the regulation marks at the
event's date, reprints, the ban list; each breach a finding naming the card and the rule."""

from __future__ import annotations

import re
from datetime import date

import pytest

from replay.sources.decks import parse_deck
from replay.sources.legality import DeckFinding, check_deck, legality_data, standard_marks
from tests.paths import ROOT

# The test list without its headings (so a test may change it freely), legal on SEASON_2026: Squawkabilly
# ex for its Radiant Greninja, whose mark F left Standard in April 2025.
_TEXT = (ROOT / "tests" / "data" / "decks" / "lightning.txt").read_text("utf-8")
LIGHTNING = re.sub(r"(?m)^(Pokémon|Trainer|Energy|Total Cards): \d+\n", "", _TEXT).replace(
    "1 Radiant Greninja ASR 46", "1 Squawkabilly ex PAL 169"
)
SEASON_2026 = date(2026, 4, 1)  # Standard: G and later (and Poké Pad, POR 2026-03-27, is out)
AFTER_2026 = date(2026, 5, 1)  # Standard: H and later


def findings(text: str, play: str = "standard", on: date = SEASON_2026) -> list[DeckFinding]:
    return check_deck(parse_deck(text, "ptcgl", player="a", event="e"), play, on)


def swap(old: str, new: str, text: str = LIGHTNING) -> str:
    assert old in text, old
    return text.replace(old, new)


def test_a_legal_list_has_no_finding() -> None:
    assert findings(LIGHTNING) == []
    assert findings(LIGHTNING, "expanded") == []


def test_sixty_cards() -> None:
    (f,) = findings(swap("12 Basic {L} Energy SVE 4", "11 Basic {L} Energy SVE 4"))
    assert (f.code, f.rule, f.message) == ("deck_size", "rules.md §8.1", "the deck holds 59 cards, not 60")


def test_four_of_a_name_counted_over_printings_basic_energy_excepted() -> None:
    text = swap("4 Iono PAL 185", "3 Iono PAL 185\n2 Iono PAL 254")
    text = swap("4 Switch SVI 194", "3 Switch SVI 194", text)
    (f,) = findings(text)
    assert (f.code, f.card, f.line) == ("too_many_copies", "Iono", 8)
    assert f.message == "5 copies of Iono: at most 4 of a name (basic Energy excepted)"
    # 12 basic Energy, two printings of them even, is no breach
    mixed = swap("12 Basic {L} Energy SVE 4", "6 Basic {L} Energy SVE 4\n6 Lightning Energy SVE 12")
    assert findings(mixed) == []


def test_one_ace_spec_and_one_radiant() -> None:
    text = swap("1 Prime Catcher TEF 157", "1 Prime Catcher TEF 157\n1 Master Ball TEF 153")
    text = swap("1 Squawkabilly ex PAL 169", "1 Radiant Greninja ASR 46\n1 Radiant Charizard PGO 11", text)
    text = swap("4 Switch SVI 194", "2 Switch SVI 194", text)
    codes = {f.code: f for f in findings(text, "expanded")}
    assert set(codes) == {"ace_spec", "radiant"}
    assert codes["ace_spec"].message == "1 Prime Catcher, 1 Master Ball: at most 1 ACE SPEC card in a deck"
    assert codes["radiant"].message == (
        "1 Radiant Greninja, 1 Radiant Charizard: at most 1 Radiant Pokémon in a deck"
    )
    # a Black & White ACE SPEC counts too (TCGdex does not mark those: replay/sources/legality.py)
    old = swap("4 Switch SVI 194", "3 Switch SVI 194\n1 Computer Search BCR 137")
    assert [f.code for f in findings(old, "expanded")] == ["ace_spec"]


def test_regulation_marks_at_the_events_date() -> None:
    assert [standard_marks(date(y, 5, 1)) for y in (2022, 2023, 2024, 2025, 2026)] == [
        None,
        "E",
        "F",
        "G",
        "H",
    ]
    greninja = swap("1 Squawkabilly ex PAL 169", "1 Radiant Greninja ASR 46")
    (f,) = findings(greninja)
    assert (f.code, f.card, f.line, f.rule) == ("regulation_mark", "Radiant Greninja", 4, "rules.md §8.2")
    assert (
        f.message == "1 Radiant Greninja ASR 46: regulation mark F; Standard at 2026-04-01 allows G and later"
    )
    after = {f.card for f in findings(LIGHTNING, on=AFTER_2026)}
    assert {"Arven", "Iono", "Nest Ball", "Earthen Vessel", "Electric Generator"} <= after  # G rotated out
    # reprints: Boss's Orders and Ultra Ball were reprinted with mark I, so their G printings stay legal
    assert not {"Boss's Orders", "Ultra Ball", "Pikachu ex"} & after


def test_the_ban_list_and_cards_not_out_yet() -> None:
    (f,) = findings(swap("1 Prime Catcher TEF 157", "1 Lysandre's Trump Card PHF 99"), "expanded")
    assert (f.code, f.rule, f.card) == ("banned", "rules.md §8.4", "Lysandre's Trump Card")
    assert f.message == "1 Lysandre's Trump Card PHF 99: banned in Expanded since 2015-03-18"
    # a ban of some printings only: Archeops NVI 67 is banned, Archeops SIT 147 is not
    banned = swap("1 Bloodmoon Ursaluna ex TWM 141", "1 Archeops NVI 67")
    assert [f.code for f in findings(banned, "expanded")] == ["banned"]
    assert findings(swap("1 Bloodmoon Ursaluna ex TWM 141", "1 Archeops SIT 147"), "expanded") == []
    # a card none of whose printings was out by the date
    late = swap("1 Squawkabilly ex PAL 169", "1 Mega Lucario ex MEG 77")
    assert [(f.code, f.card) for f in findings(late, on=date(2025, 6, 1))] == [
        ("not_released", "Mega Lucario ex"),
        ("not_released", "Poké Pad"),
    ]


def test_a_card_the_catalogue_does_not_know_is_said_not_checked() -> None:
    (f,) = findings(swap("1 Prime Catcher TEF 157", "1 Made Up Card XYZ 1"))
    assert (f.code, f.card) == ("unknown_card", "Made Up Card")


def test_the_data_names_its_source() -> None:
    source = legality_data().source
    assert source["repository"] == "https://github.com/tcgdex/cards-database"
    assert (source["licence"], source["built_by"]) == ("MIT", "tools/build_legality.py")
    assert len(source["commit"]) == 40
    assert legality_data().set_ids["SVI"] == "sv1"


@pytest.mark.parametrize("play", ["standard", "expanded"])
def test_every_finding_names_a_section_of_rules_md(play: str) -> None:
    rules = (ROOT / "docs" / "rules.md").read_text("utf-8")
    for f in findings(LIGHTNING, play, AFTER_2026):
        assert f.rule.startswith("rules.md §8.") and f"### {f.rule.split('§')[1]} " in rules
