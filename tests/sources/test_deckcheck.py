"""The deck check (replay/sources/deckcheck.py, docs/decks.md): each card put into play against the
player's registered list; not on the list, more copies than listed, same-name cards with other text,
reprints, returns to the hand, the match's own list and the console's."""

from __future__ import annotations

from typing import Any

from replay.sources.deckcheck import DeckCheck, DeckChecker
from replay.sources.decks import DeckList, deck_key, parse_deck
from tests.builder import Stream, card
from tests.paths import ROOT

LIST = (ROOT / "tests" / "data" / "decks" / "lightning.txt").read_text("utf-8")
EVENT = "Cerulean Cup"


def registered(*decks: DeckList) -> dict[str, dict[str, DeckList]]:
    return {EVENT: {deck_key(d.player, d.match): d for d in decks}}


def ash(match: str | None = None, text: str = LIST) -> DeckList:
    return parse_deck(text, "ptcgl", player="ash", event=EVENT, match=match)


def game(match: str = "cup/r1/t1/g1", **started: Any) -> Stream:
    s = Stream(match, context={"event": EVENT, "round": 1}, **started)
    s.setup("ash", ("a1", card("Pikachu ex", 200, "ex")), ("a2", card("Magnemite")))
    s.setup("misty", ("m1", card("Staryu", 60)))
    s.turn("ash")
    return s


def check(s: Stream, lists: dict[str, dict[str, DeckList]]) -> list[DeckCheck]:
    checker = DeckChecker(lists)
    for ev in s.events:
        checker.feed(ev)
    return checker.pop(s.match)


def test_cards_on_the_list_give_nothing() -> None:
    s = game()
    s.add("attached", player="ash", pid="a1", card={"name": "Basic {L} Energy", "kind": "energy"})
    s.add("trainer_played", player="ash", card={"name": "Poké Pad", "kind": "item"})
    s.add("evolved", player="ash", pid="a2", card={"name": "Magneton"})
    assert check(s, registered(ash())) == []


def test_a_card_not_on_the_list_is_found_at_its_event() -> None:
    s = game()
    played = s.add("played", player="ash", pid="a3", card={"name": "Charmander", "hp": 70})
    (f,) = check(s, registered(ash()))
    assert (f.match, f.seq, f.player, f.card, f.code) == (
        s.match,
        played["seq"],
        "ash",
        "Charmander",
        "not_on_list",
    )
    assert f.message == "ash put Charmander into play; it is not on their deck list"
    # misty has no list: nothing of hers is checked
    s.add("played", player="misty", pid="m2", card={"name": "Charmander"})
    assert len(check(s, registered(ash()))) == 1


def test_more_copies_than_listed_counting_what_came_back() -> None:
    s = game()
    for _ in range(4):
        s.add("trainer_played", player="ash", card={"name": "Nest Ball", "kind": "item"})
    s.add("to_hand", player="ash", **{"from": "discard"}, cards=["Nest Ball"])  # one back: 3 out
    fifth = s.add("trainer_played", player="ash", card={"name": "Nest Ball", "kind": "item"})
    assert check(s, registered(ash())) == []
    sixth = s.add("trainer_played", player="ash", card={"name": "Nest Ball", "kind": "item"})
    (f,) = check(s, registered(ash()))
    assert (f.seq, f.code, f.listed, f.seen) == (sixth["seq"], "more_than_listed", 4, 5)
    assert fifth["seq"] < sixth["seq"]
    assert f.message == "ash has put 5 copies of Nest Ball into play; their deck list holds 4"


def test_same_name_other_text_is_another_card_a_reprint_the_same() -> None:
    s = game()
    other = s.add("played", player="ash", pid="a3", card={"name": "Pikachu ex", "hp": 190, "rule": "ex"})
    (f,) = check(s, registered(ash()))
    assert (f.seq, f.card, f.code) == (other["seq"], "Pikachu ex", "not_on_list")
    assert "another card (same name, other card text)" in f.message
    # the list's Pikachu ex (SSP 57, 200 HP) played: the same card, whatever printing it came from
    assert check(game(), registered(ash())) == []


def test_the_matchs_own_list_wins_and_the_console_list_is_used_when_none_is_registered() -> None:
    s = game("cup/r3/t1/g1")
    s.add("played", player="ash", pid="a3", card={"name": "Charmander"})
    changed = ash("cup/r3/t1/g1", LIST.replace("1 Bloodmoon Ursaluna ex TWM 141", "1 Charmander PAF 7"))
    assert check(s, registered(ash(), changed)) == []
    assert [f.code for f in check(s, registered(ash()))] == ["not_on_list"]
    console = game("cup/r4/t2/g1", console={"decks": {"ash": "4 Pikachu ex SSP 57\n4 Magnemite SSP 65\n"}})
    console.add("played", player="ash", pid="a3", card={"name": "Charmander"})
    assert [f.card for f in check(console, {})] == ["Charmander"]
