"""The turn's limits and the first-turn rules, their severity by source and the catalogue of card effects that
lift them [docs/rules.md §6 "Setup", "The turn's limits"] (replay/engine/restrictions.py).
"""

from __future__ import annotations

from typing import Any

import pytest

from replay.engine.card_effects import LIFTS
from replay.engine.restrictions import severity
from tests.builder import Stream, card, codes
from tests.engine.games import basic, two_sides


def test_evolving_too_early_is_a_violation_on_paper() -> None:
    s = basic(source={"kind": "scanned"})
    s.turn("ash")
    s.add("evolved", player="ash", pid="a1", card=card("Raichu", 120))
    s.add("turn_ended", player="ash")
    s.turn("misty")
    s.add("played", player="misty", pid="m3", card=card("Horsea", 60), to="bench")
    s.add("evolved", player="misty", pid="m3", card=card("Seadra", 90))
    found = [f for f in s.record()["findings"] if f["code"] == "evolved_too_early"]
    assert [f["seq"] for f in found] == [6, 11]
    assert all(f["severity"] == "violation" for f in found)


def test_a_named_effect_may_evolve_a_pokemon_twice_in_a_turn() -> None:
    s = basic()
    s.turn("ash")
    s.add("turn_ended", player="ash")
    s.turn("misty")
    s.add("turn_ended", player="misty")
    s.turn("ash")
    s.add("evolved", player="ash", pid="a1", card=card("Raichu", 120))
    s.add("evolved", player="ash", pid="a1", card=card("Raichu ex", 220, "ex"), effect="Grand Tree")
    assert "evolved_too_early" not in codes(s.record())
    s.add("evolved", player="ash", pid="a1", card=card("Raichu VMAX", 320, "VMAX"))
    assert codes(s.record()) == ["evolved_too_early"]


PAPER = {"kind": "manual"}


DIGITAL = {"kind": "digital"}


def found(s: Stream, code: str) -> list[tuple[int, str]]:
    return [(f["seq"], f["severity"]) for f in s.record()["findings"] if f["code"] == code]


# docs/rules.md §6 "Once per turn": one Supporter, one Energy from the hand, one Stadium, one retreat per
# turn; the player who goes first neither attacks nor plays a Supporter on their first turn. A violation
# on a paper game; on a digital client's log a warning, or an info when a card that lifts the rule is in
# view; no finding when the event names the effect.
def _supporter(s: Stream, player: str, name: str, **extra: Any) -> None:
    s.add("trainer_played", player=player, card={"name": name, "kind": "supporter"}, **extra)


def _turn_two(source: dict[str, Any]) -> Stream:
    """misty's first turn (the second of the game): no first-turn restriction applies to her."""
    s = two_sides(source=source, first="ash")
    s.turn("ash")
    s.add("turn_ended", player="ash")
    s.turn("misty")
    return s


@pytest.mark.parametrize(("source", "severity_"), [(PAPER, "violation"), (DIGITAL, "warning")])
def test_a_second_supporter_in_a_turn(source: dict[str, Any], severity_: str) -> None:
    s = _turn_two(source)
    _supporter(s, "misty", "Arven")
    s.add("trainer_played", player="misty", card={"name": "Ultra Ball", "kind": "item"})
    s.add("trainer_played", player="misty", card={"name": "Ultra Ball", "kind": "item"})
    s.add("turn_ended", player="misty")
    s.turn("ash")
    _supporter(s, "ash", "Arven")  # one in each turn: no finding so far
    assert codes(s.record()) == []
    _supporter(s, "ash", "Arven")
    assert found(s, "second_supporter") == [(len(s.events), severity_)]
    f = next(f for f in s.record()["findings"] if f["code"] == "second_supporter")
    assert "one Supporter per turn" in f["message"] and "docs/rules.md §6" in f["message"]
    assert f["message"].startswith("ash played a second Supporter")


def test_a_second_supporter_with_a_card_in_view_that_allows_it_is_an_info_on_a_digital_log() -> None:
    s = _turn_two(DIGITAL)
    _supporter(s, "misty", "Lt. Surge's Strategy")
    _supporter(s, "misty", "Iono")
    assert found(s, "second_supporter") == [(len(s.events), "info")]
    f = next(f for f in s.record()["findings"] if f["code"] == "second_supporter")
    assert "Lt. Surge's Strategy" in f["detail"]
    s = _turn_two(DIGITAL)
    s.add("played", player="misty", pid="m3", card=card("Magnezone", 140))  # Dual Brains
    _supporter(s, "misty", "Iono")
    _supporter(s, "misty", "Arven")
    assert found(s, "second_supporter") == [(len(s.events), "info")]
    # a source that names the effect: no finding, even on paper
    s = _turn_two(PAPER)
    _supporter(s, "misty", "Lt. Surge's Strategy")
    _supporter(s, "misty", "Iono", effect="Lt. Surge's Strategy")
    assert s.record()["findings"] == []


@pytest.mark.parametrize(("source", "severity_"), [(PAPER, "violation"), (DIGITAL, "warning")])
def test_a_supporter_on_the_first_turn_of_the_player_who_goes_first(
    source: dict[str, Any], severity_: str
) -> None:
    s = two_sides(source=source)
    s.turn("ash")
    _supporter(s, "ash", "Arven")
    assert found(s, "supporter_first_turn") == [(len(s.events), severity_)]
    s = two_sides(source=source)
    s.turn("ash")
    _supporter(s, "ash", "Carmine")  # "If you go first, you may use this card during your first turn"
    assert found(s, "supporter_first_turn") == ([(len(s.events), "info")] if source is DIGITAL else
                                                [(len(s.events), "violation")])  # fmt: skip


@pytest.mark.parametrize(("source", "severity_"), [(PAPER, "violation"), (DIGITAL, "warning")])
def test_a_second_energy_from_the_hand_in_a_turn(source: dict[str, Any], severity_: str) -> None:
    s = _turn_two(source)
    energy = {"name": "Water Energy", "kind": "energy"}
    s.add("attached", player="misty", pid="m1", card=energy)
    s.add("attached", player="misty", pid="m1", card={"name": "Rescue Board", "kind": "tool"})  # a Tool
    s.add("attached", player="misty", pid="m2", card=energy, **{"from": "discard"})  # not from the hand
    assert codes(s.record()) == []
    s.add("attached", player="misty", pid="m2", card=energy)
    assert found(s, "second_energy") == [(len(s.events), severity_)]


def test_energy_attached_by_a_named_effect_or_during_an_attack_is_not_the_turns_attachment() -> None:
    s = _turn_two(PAPER)
    energy = {"name": "Water Energy", "kind": "energy"}
    s.add("attached", player="misty", pid="m1", card=energy)
    s.add("attached", player="misty", pid="m2", card=energy, effect="Baxcalibur")
    s.add("attack", player="misty", pid="m1", name="Energy Attach")
    s.add("attached", player="misty", pid="m2", card=energy)  # the attack's effect
    s.add("attack_ended")
    assert s.record()["findings"] == []
    s.add("attached", player="misty", pid="m2", card=energy)  # after the attack, from the hand: a second
    assert found(s, "second_energy") == [(len(s.events), "violation")]


def test_a_second_energy_with_baxcalibur_in_play_is_an_info_on_a_digital_log() -> None:
    s = _turn_two(DIGITAL)
    s.add("played", player="misty", pid="m3", card=card("Baxcalibur", 160))
    energy = {"name": "Water Energy", "kind": "energy"}
    s.add("attached", player="misty", pid="m1", card=energy)
    s.add("attached", player="misty", pid="m1", card=energy)
    assert found(s, "second_energy") == [(len(s.events), "info")]


@pytest.mark.parametrize(("source", "severity_"), [(PAPER, "violation"), (DIGITAL, "warning")])
def test_a_second_stadium_in_a_turn(source: dict[str, Any], severity_: str) -> None:
    s = _turn_two(source)
    s.add("trainer_played", player="misty", card={"name": "Artazon", "kind": "stadium"})
    s.add("trainer_played", player="misty", card={"name": "Town Store", "kind": "stadium"})
    assert found(s, "second_stadium") == [(len(s.events), severity_)]
    assert s.record()["prizes"]  # the game goes on
    assert s.game().board()["players"]["misty"]["discard"] == 1  # the first Stadium, replaced


@pytest.mark.parametrize(("source", "severity_"), [(PAPER, "violation"), (DIGITAL, "warning")])
def test_a_second_retreat_in_a_turn(source: dict[str, Any], severity_: str) -> None:
    s = _turn_two(source)
    s.add("switched", player="misty", pid="m2")  # a retreat
    s.add("switched", player="misty", pid="m1")
    assert found(s, "second_retreat") == [(len(s.events), severity_)]


def test_switches_that_are_not_retreats() -> None:
    s = _turn_two(PAPER)
    s.add("switched", player="misty", pid="m2")  # the retreat
    s.add("trainer_played", player="misty", card={"name": "Switch", "kind": "item"})
    s.add("switched", player="misty", pid="m1", effect="Switch")  # named: not a retreat
    _supporter(s, "misty", "Boss's Orders")
    s.add("switched", player="ash", pid="a2", effect="Boss's Orders")  # the opponent's Active
    s.add("switched", player="ash", pid="a1")  # not the turn player's own: never their retreat
    s.add("attack", player="misty", pid="m1", name="U-turn")
    s.add("switched", player="misty", pid="m2")  # the attack's effect
    s.add("attack_ended")
    assert "second_retreat" not in codes(s.record())
    s.add("switched", player="misty", pid="m1")  # by no named effect, outside the attack: a second retreat
    assert found(s, "second_retreat") == [(len(s.events), "violation")]


def test_a_second_switch_after_a_switching_card_is_an_info_on_a_digital_log() -> None:
    s = _turn_two(DIGITAL)
    s.add("switched", player="misty", pid="m2")
    s.add("trainer_played", player="misty", card={"name": "Switch", "kind": "item"})
    s.add("switched", player="misty", pid="m1")  # the importer did not say it was Switch's
    assert found(s, "second_retreat") == [(len(s.events), "info")]


def test_the_limits_start_again_each_turn() -> None:
    s = _turn_two(PAPER)
    energy = {"name": "Water Energy", "kind": "energy"}
    for _ in range(2):
        s.add("attached", player="misty", pid="m1", card=energy)
        _supporter(s, "misty", "Iono")
        s.add("trainer_played", player="misty", card={"name": "Artazon", "kind": "stadium"})
        s.add("switched", player="misty", pid="m2")
        s.add("switched", player="misty", pid="m1")
        s.add("turn_ended", player="misty")
        s.turn("ash")
        s.add("turn_ended", player="ash")
        s.turn("misty")
    assert codes(s.record()) == ["second_retreat", "second_retreat"]


def test_an_attack_on_the_first_turn_is_a_violation_on_paper_and_a_warning_on_a_digital_log() -> None:
    for source, severity_ in ((PAPER, "violation"), (DIGITAL, "warning")):
        s = two_sides(source=source)
        s.turn("ash")
        s.attack("ash", "a1", ("m1", 10))
        assert found(s, "attack_first_turn") == [(6, severity_)]


def test_an_attack_on_the_first_turn_by_a_pokemon_whose_attack_allows_it() -> None:
    s = Stream()
    s.setup("ash", ("a1", card("Raichu V", 200, "V")))  # Fast Charge: "If you go first, you can use ..."
    s.setup("misty", ("m1", card("Staryu", 50)))
    s.turn("ash")
    s.attack("ash", "a1")
    assert found(s, "attack_first_turn") == [(6, "info")]
    s = Stream(source=PAPER)
    s.setup("ash", ("a1", card("Raichu V", 200, "V")))
    s.setup("misty", ("m1", card("Staryu", 50)))
    s.turn("ash")
    s.add("attack", player="ash", pid="a1", name="Fast Charge", effect="Fast Charge")
    assert codes(s.record()) == []


# issue 19: engine findings about card effects the engine does not model are never violations on digital
# logs; with Forest of Vitality in play, evolving a Pokémon the turn it came into play is an info.
def _evolve_the_turn_it_came(source: dict[str, Any], stadium: str | None) -> Stream:
    s = _turn_two(source)
    s.add("turn_ended", player="misty")
    s.turn("ash")
    if stadium:
        s.add("trainer_played", player="ash", card={"name": stadium, "kind": "stadium"})
    s.add("played", player="ash", pid="a3", card=card("Weedle", 50))
    s.add("evolved", player="ash", pid="a3", card=card("Kakuna", 80))
    return s


def test_evolving_the_turn_it_came_into_play_is_never_a_violation_on_a_digital_log() -> None:
    cases = [
        (PAPER, None, "violation"),
        (PAPER, "Forest of Vitality", "violation"),
        (DIGITAL, None, "warning"),
        (DIGITAL, "Forest of Vitality", "info"),
        (DIGITAL, "Artazon", "warning"),
    ]
    for source, stadium, severity_ in cases:
        s = _evolve_the_turn_it_came(source, stadium)
        assert found(s, "evolved_too_early") == [(len(s.events), severity_)], (source, stadium)


def test_the_stadium_in_play_is_the_last_one_played_and_leaves_when_discarded() -> None:
    s = _evolve_the_turn_it_came(DIGITAL, "Forest of Vitality")
    s.add("turn_ended", player="ash")
    s.turn("misty")
    s.add("played", player="misty", pid="m4", card=card("Weedle", 50))
    s.add("evolved", player="misty", pid="m4", card=card("Kakuna", 80))  # either player's Stadium
    s.add("discarded", player="ash", **{"from": "stadium"}, cards=["Forest of Vitality"])
    s.add("turn_ended", player="misty")
    s.turn("ash")
    s.add("played", player="ash", pid="a4", card=card("Weedle", 50))
    s.add("evolved", player="ash", pid="a4", card=card("Kakuna", 80))
    assert [sev for _, sev in found(s, "evolved_too_early")] == ["info", "info", "warning"]


def test_an_evolution_that_names_its_effect_is_no_finding() -> None:
    s = _turn_two(PAPER)
    s.add("played", player="misty", pid="m3", card=card("Weedle", 50))
    s.add("evolved", player="misty", pid="m3", card=card("Kakuna", 80), effect="Forest of Vitality")
    assert s.record()["findings"] == []


def test_severity_by_source_and_catalogue() -> None:
    assert severity("manual", LIFTS["second_energy"], {"Baxcalibur"}) == ("violation", None)
    assert severity("scanned", frozenset(), set())[0] == "violation"
    assert severity("digital", LIFTS["second_energy"], {"Baxcalibur"})[0] == "info"
    assert severity("digital", LIFTS["second_energy"], {"Pikachu"})[0] == "warning"
    # a rule no card of the catalogue lifts stays a violation, even on a digital client's log
    assert severity("digital", frozenset(), {"Pikachu"})[0] == "violation"


def test_every_turn_rule_has_its_catalogue_entry() -> None:
    from replay.engine.restrictions import RULES

    assert set(RULES) == set(LIFTS)
    # spot checks against the card texts (TCGdex, tools/build_card_effects.py)
    assert {"Lt. Surge's Strategy", "Magnezone"} <= LIFTS["second_supporter"]
    assert {"Forest of Vitality", "Grand Tree", "Rare Candy"} <= LIFTS["evolved_too_early"]
    assert {"Baxcalibur", "Welder"} <= LIFTS["second_energy"]
    assert {"Switch", "Escape Rope", "Prime Catcher"} <= LIFTS["second_retreat"]
    assert "Gothitelle" in LIFTS["second_stadium"]
