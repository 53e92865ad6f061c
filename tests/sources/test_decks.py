"""Deck lists in: PTCGL's export, Limitless' JSON and a CSV (replay/sources/decks.py, docs/decks.md);
a malformed list is one error naming the file, the line and the field."""

from __future__ import annotations

from pathlib import Path

import pytest

from replay.engine.errors import InputError
from replay.sources.decks import DeckList, deck_for, deck_key, decode, encode, parse_deck, read_deck
from tests.paths import ROOT

DATA = ROOT / "tests" / "data" / "decks"


def test_a_ptcgl_export_reads_with_its_headings_and_accented_names() -> None:
    deck = read_deck(str(DATA / "lightning.txt"), player="ash", event="Cup")
    assert (deck.total, deck.format, deck.player, deck.event, deck.match) == (60, "ptcgl", "ash", "Cup", None)
    pad = next(c for c in deck.cards if c.name == "Poké Pad")
    assert (pad.count, pad.set, pad.number, pad.section, pad.line) == (4, "POR", "81", "trainer", 14)
    assert {c.section for c in deck.cards} == {"pokemon", "trainer", "energy"}
    assert deck.copies()["Basic {L} Energy"] == 12
    assert deck.copies()["Boss's Orders"] == 3


def test_limitless_json_and_csv_read_the_same_cards() -> None:
    js = read_deck(str(DATA / "lightning.json"), player="ash", event="Cup")
    assert js.format == "limitless"
    assert [(c.count, c.name, c.set, c.number, c.section) for c in js.cards][:3] == [
        (4, "Pikachu ex", "SSP", "57", "pokemon"),
        (1, "Radiant Greninja", "ASR", "46", "pokemon"),
        (4, "Poké Pad", "POR", "81", "trainer"),
    ]
    assert js.cards[2].line == 7  # the line of the card's object, for errors a user can find
    wrapped = parse_deck('{"decklist": {"pokemon": [{"count": 2, "name": "Pikachu ex"}]}}', "limitless",
                         player="a", event="e")  # fmt: skip
    assert wrapped.total == 2
    csv = read_deck(str(DATA / "lightning.csv"), player="ash", event="Cup")
    assert csv.format == "csv"
    assert [(c.count, c.name, c.section, c.line) for c in csv.cards] == [
        (4, "Pikachu ex", "pokemon", 2),
        (4, "Poké Pad", "trainer", 3),
        (12, "Basic Lightning Energy", "energy", 4),
    ]


def test_names_compare_whatever_the_apostrophe_or_the_accent() -> None:
    deck = parse_deck(
        "2 Boss\u2019s Orders PAL 172\n1 Pokemon Catcher SVI 187\n", "ptcgl", player="a", event="e"
    )
    assert list(deck.copies()) == ["Boss's Orders", "Pokémon Catcher"]


@pytest.mark.parametrize(
    ("fmt", "text", "line", "field", "words"),
    [
        ("ptcgl", "Pokémon: 5\n4 Pikachu ex SVI 57\nTrainer: 1\n1 Iono PAL 185\n", 1, "pokemon",
         "says 5 cards"),
        ("ptcgl", "4 Pikachu ex SVI 57\nfour Iono PAL 185\n", 2, None, "not a card line"),
        ("ptcgl", "0 Pikachu ex SVI 57\n", 1, "count", "a card count is 1 to 60"),
        ("ptcgl", "4 Pikachu ex SVI 57\nTotal Cards: 60\n", 2, "Total Cards",
         "says 60 cards, the list holds 4"),
        ("limitless", '{"pokemon": [\n{"count": 4, "name": "Pikachu ex"},\n{"count": "x", "name": "Iono"}]}',
         3, "pokemon[1].count", "a card count"),
        ("limitless", '{"pokemon": [\n{"count": 4}\n]}', 2, "pokemon[0].name", "card name missing"),
        ("limitless", '{"pokemon": [\n', 2, None, "not JSON"),
        ("limitless", "[1, 2]", 1, None, 'expected an object with "pokemon"'),
        ("csv", "count,card\n4,Pikachu ex\n", 1, "name", "no 'name' column"),
        ("csv", "count,name\n4,Pikachu ex\n99,Iono\n", 3, "count", "a card count is 1 to 60, got '99'"),
        ("csv", "count,name,section\n4,Pikachu ex,items\n", 2, "section", "unknown section"),
        ("ptcgl", "\n  \n", None, None, "is empty: nothing to import"),
    ],
)  # fmt: skip
def test_a_malformed_list_is_one_error_naming_its_line(
    fmt: str, text: str, line: int | None, field: str | None, words: str
) -> None:
    with pytest.raises(InputError) as err:
        parse_deck(text, fmt, player="a", event="e", name="deck.txt")
    assert (err.value.file, err.value.line, err.value.field) == ("deck.txt", line, field)
    assert words in err.value.message


def test_a_file_that_is_not_a_list_is_refused(tmp_path: Path) -> None:
    (tmp_path / "latin1.txt").write_bytes(b"4 Pikachu ex SVI 57\n4 Pok\xe9 Pad POR 81\n")
    with pytest.raises(InputError, match=r"latin1\.txt:2: not UTF-8 text"):
        read_deck(str(tmp_path / "latin1.txt"), player="a", event="e")
    with pytest.raises(InputError, match="no such file"):
        read_deck(str(tmp_path / "nope.txt"), player="a", event="e")


def test_a_matchs_own_list_wins_over_the_events() -> None:
    event_list = parse_deck("4 Pikachu ex SVI 57\n", "ptcgl", player="ash", event="Cup")
    r3 = parse_deck("4 Iono PAL 185\n", "ptcgl", player="ash", event="Cup", match="cup/r3/t1/g1")
    stored = {deck_key(d.player, d.match): decode(encode(d)) for d in (event_list, r3)}
    assert set(stored) == {"ash", "ash|cup/r3/t1/g1"}
    found = deck_for(stored, "ash", "cup/r3/t1/g1")
    assert isinstance(found, DeckList) and found.cards[0].name == "Iono"
    other = deck_for(stored, "ash", "cup/r1/t4/g1")
    assert other is not None and other.cards[0].name == "Pikachu ex"
    assert deck_for(stored, "misty", "cup/r1/t4/g1") is None
