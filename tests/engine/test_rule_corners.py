"""The rules corners of issue 18 §6, each against the rule it implements (docs/rules.md): events in, the
record's result and findings out."""

from __future__ import annotations

from typing import Any

import pytest

from replay import Game
from replay.engine.card_effects import LIFTS
from replay.engine.restrictions import severity
from tests.builder import Stream, card, codes

PAPER = {"kind": "manual"}
DIGITAL = {"kind": "digital"}


def two_sides(**started: Any) -> Stream:
    """ash goes first; each side has an Active and a Benched Pokémon."""
    s = Stream(**started)
    s.setup("ash", ("a1", card("Pikachu", 60)), ("a2", card("Pichu", 30)))
    s.setup("misty", ("m1", card("Staryu", 50)), ("m2", card("Starmie", 90)))
    return s


def result_of(s: Stream) -> tuple[Any, ...]:
    res = s.record()["result"]
    return (res["outcome"], res["winner"], res["reason"], res["decided_at"]) if res else ()


def found(s: Stream, code: str) -> list[tuple[int, str]]:
    return [(f["seq"], f["severity"]) for f in s.record()["findings"] if f["code"] == code]


# ---------------------------------------------------------------- 1. game losses to both, after the game
# docs/rules.md §6 [PG §4]: Game Losses to both players at once mean no winner, right after a game too.


@pytest.mark.parametrize("first", ["ash", "misty"])
def test_game_losses_to_both_players_right_after_the_game_give_no_winner(first: str) -> None:
    s = Stream(prizes=1)
    s.setup("ash", ("a1", card("Pikachu", 60)))
    s.setup("misty", ("m1", card("Staryu", 50)), ("m2", card("Starmie", 90)))
    s.turn("ash")
    s.add("turn_ended", player="ash")
    s.turn("misty")
    s.attack("misty", "m1", ("a1", 60), claims=("a1",))  # misty takes her only prize: she wins
    assert result_of(s)[:3] == ("win", "misty", "prizes")
    second = "misty" if first == "ash" else "ash"
    s.add("penalty", player=first, kind="game_loss", reason="marked cards")
    s.add("penalty", player=second, kind="game_loss", reason="marked cards")
    r = s.record()
    assert result_of(s) == ("no_winner", None, "penalty", len(s.events))
    assert r["result"]["loser"] is None and r["status"] == "finished"
    overs = [o for o in s.game().timeline if o["type"] == "game_over"]
    assert overs[-1] == {
        "type": "game_over", "seq": len(s.events), "outcome": "no_winner", "winner": None, "reason": "penalty"
    }  # fmt: skip


def test_a_game_loss_right_after_a_drawn_game_and_one_to_the_other_player_give_no_winner() -> None:
    s = Stream(prizes=1)
    s.setup("ash", ("a1", card("Pikachu", 30)))
    s.setup("misty", ("m1", card("Staryu", 30)))
    s.turn("ash")
    s.add("turn_ended", player="ash")
    s.add("checkup_started")
    s.add("damage", pid="a1", amount=30)
    s.add("damage", pid="m1", amount=30)
    s.add("checkup_ended")  # a double knockout: a draw
    assert result_of(s)[:3] == ("draw", None, "simultaneous")
    s.add("penalty", player="ash", kind="game_loss")
    s.add("penalty", player="misty", kind="match_loss")
    assert result_of(s) == ("no_winner", None, "penalty", len(s.events))


# ---------------------------------------------------------------- 2. nothing follows game_over
# docs/rules.md §2: a window the source never closes is checked where the next turn event closes it; when
# its knockouts end the game, that event does nothing more.


def _checkup_ko_closed_by_the_next_turn(next_deck: int) -> Stream:
    s = Stream(prizes=1, deck=9)
    s.setup("ash", ("a1", card("Pikachu", 60)), ("a2", card("Pichu", 30)))
    s.setup("misty", ("m1", card("Staryu", 30)))
    s.turn("ash")
    s.add("turn_ended", player="ash")
    s.add("checkup_started")
    s.add("damage", pid="m1", amount=30)  # Poison knocks out misty's last Pokémon
    s.add("turn_started", player="misty", deck=next_deck)  # the source never closed the checkup
    return s


@pytest.mark.parametrize("deck", [0, 1])
def test_a_checkup_closed_by_the_next_turn_that_ends_the_game_is_followed_by_nothing(deck: int) -> None:
    s = _checkup_ko_closed_by_the_next_turn(deck)
    timeline = s.game().timeline
    types = [o["type"] for o in timeline]
    assert types[-1] == "game_over" and "deck_out" not in types
    assert result_of(s) == ("win", "ash", "prizes", len(s.events))
    assert "turn_order" not in codes(s.record()) and "deck_count_mismatch" not in codes(s.record())


@pytest.mark.parametrize("closer", ["attack", "checkup_started", "turn_ended"])
def test_no_output_follows_game_over_when_any_window_is_closed_by_the_next_event(closer: str) -> None:
    s = Stream(prizes=1)
    s.setup("ash", ("a1", card("Pikachu", 60)))
    s.setup("misty", ("m1", card("Staryu", 30)))
    s.turn("ash")
    s.add("turn_ended", player="ash")
    s.turn("misty")
    s.add("attack", player="misty", pid="m1", name="Tackle")
    s.add("damage", pid="m1", amount=30)  # recoil: misty's last Pokémon; the attack is never closed
    fields: dict[str, Any] = {"attack": {"player": "misty", "pid": "m1", "name": "Tackle"}}.get(closer, {})
    if closer == "turn_ended":
        fields = {"player": "misty"}
    g = Game()
    for e in s.events:
        g.apply(e)
    out = g.apply(s.add(closer, **fields))
    assert [o["type"] for o in out][-1] == "game_over", out
    assert result_of(s)[:3] == ("win", "ash", "prizes")


def test_an_effect_that_ends_the_game_is_followed_by_nothing_at_the_next_event() -> None:
    s = Stream(prizes=1)
    s.setup("ash", ("a1", card("Pikachu", 60)))
    s.setup("misty", ("m1", card("Staryu", 30)))
    s.turn("ash")
    s.add("damage", pid="m1", amount=30)  # an Ability's damage counters: checked once it has resolved
    g = Game()
    for e in s.events:
        g.apply(e)
    out = g.apply(s.add("attack", player="ash", pid="a1", name="Tackle"))
    assert [o["type"] for o in out][-1] == "game_over", out
    assert "event_after_end" not in codes(g.record())
    # the next events are after the end, as ever
    g.apply(s.add("attack_ended"))
    assert codes(g.record()).count("event_after_end") == 1


# ---------------------------------------------------------------- 3. Prize cards taken by an effect
# docs/rules.md §1.1, §4: prize_taken with `effect` is taken by the engine, checked against the prizes
# left; a player who takes their last Prize card by an effect wins; both at once: the simultaneous table.

BARGAIN = "Lt. Surge's Bargain"


def _prizes_left(left: int, **started: Any) -> Stream:
    """A game where ash has ``left`` prizes left and misty 1."""
    s = two_sides(prizes=left, **started)
    s.turn("ash")
    return s


def test_the_last_prize_taken_by_an_effect_wins() -> None:
    s = _prizes_left(1)
    s.add("prize_taken", player="ash", count=1, effect=BARGAIN)
    s.add("turn_ended", player="ash")
    r = s.record()
    assert result_of(s) == ("win", "ash", "prizes", 6)
    assert r["prizes"]["ash"] == {"taken": 1, "needed": 1, "remaining": 0}
    assert not {"prize_without_ko", "prize_count_mismatch"} & set(codes(r))
    due = {"type": "prizes_due", "seq": 6, "player": "ash", "count": 1, "effect": BARGAIN}
    assert due in s.game().timeline
    # without `effect`, prize_taken is what it was: a source's claim of the prizes a knockout gave
    s = _prizes_left(1)
    s.add("prize_taken", player="ash", count=1)
    assert s.record()["result"] is None and codes(s.record()) == ["prize_without_ko"]


def test_a_prize_taken_by_an_effect_that_is_not_the_last_goes_on() -> None:
    s = _prizes_left(6)
    s.add("prize_taken", player="ash", count=1, effect=BARGAIN)
    s.add("prize_taken", player="misty", count=1, effect=BARGAIN)
    s.add("turn_ended", player="ash")
    r = s.record()
    assert r["result"] is None and r["findings"] == []
    assert r["prizes"]["ash"]["remaining"] == r["prizes"]["misty"]["remaining"] == 5


def test_both_players_last_prizes_by_the_same_effect_are_a_simultaneous_draw() -> None:
    s = _prizes_left(1)
    s.add("prize_taken", player="ash", count=1, effect=BARGAIN)
    s.add("prize_taken", player="misty", count=1, effect=BARGAIN)
    s.add("turn_ended", player="ash")
    r = s.record()
    assert result_of(s) == ("draw", None, "simultaneous", 7)
    assert r["result"]["conditions"] == {"ash": ["prizes"], "misty": ["prizes"]}


def test_the_simultaneous_draw_by_an_effect_is_provisional_until_the_effect_ends() -> None:
    s = _prizes_left(1)
    s.add("prize_taken", player="ash", count=1, effect=BARGAIN)
    r = s.record()
    assert r["provisional"] is True and result_of(s)[:2] == ("win", "ash")  # so far
    s.add("prize_taken", player="misty", count=1, effect=BARGAIN)
    assert s.record()["result"]["outcome"] == "draw"


def test_last_prizes_by_two_different_effects_are_not_simultaneous() -> None:
    s = _prizes_left(1)
    s.add("prize_taken", player="ash", count=1, effect=BARGAIN)
    s.add("prize_taken", player="misty", count=1, effect="Another Card")
    assert result_of(s) == ("win", "ash", "prizes", 6)
    assert codes(s.record()) == ["event_after_end"]


def test_a_drawn_game_that_must_be_decided_by_an_effect_awaits_its_playoff() -> None:
    s = _prizes_left(1, must_decide=True)
    s.add("prize_taken", player="misty", count=1, effect=BARGAIN)
    s.add("prize_taken", player="ash", count=1, effect=BARGAIN)
    s.add("turn_ended", player="ash")
    r = s.record()
    assert r["status"] == "awaiting_playoff" and r["playoff"]["child"] == "m1/tb1"


def test_prizes_taken_by_an_effect_are_checked_against_the_prizes_left() -> None:
    s = _prizes_left(2)
    s.add("prize_taken", player="ash", count=3, effect=BARGAIN)
    r = s.record()
    assert [(f["code"], f["seq"], f["severity"]) for f in r["findings"]] == [
        ("prizes_not_left", 6, "warning")
    ]
    assert BARGAIN not in r["findings"][0]["message"] and BARGAIN in r["findings"][0]["detail"]
    assert r["prizes"]["ash"] == {"taken": 2, "needed": 2, "remaining": 0}
    assert result_of(s) == ("win", "ash", "prizes", 6)


def test_a_prize_taken_by_an_effect_inside_an_attack_is_judged_when_the_attack_ends() -> None:
    s = _prizes_left(1)
    s.add("turn_ended", player="ash")
    s.turn("misty")
    s.add("attack", player="misty", pid="m1", name="Prize Grab")
    s.add("prize_taken", player="misty", count=1, effect="Prize Grab")
    assert s.record()["result"] is None
    s.add("attack_ended")
    assert result_of(s) == ("win", "misty", "prizes", len(s.events))


def test_in_a_sudden_death_the_first_prize_by_an_effect_wins() -> None:
    s = Stream("g1/tb1", ruleset="kr-1.0", parent="g1", first="misty")
    s.setup("ash", ("a1", card("Pikachu", 30)))
    s.setup("misty", ("m1", card("Staryu", 30)))
    s.turn("misty")
    s.add("prize_taken", player="misty", count=1, effect=BARGAIN)
    s.add("turn_ended", player="misty")
    assert result_of(s) == ("win", "misty", "prizes", 6)


def test_a_prize_effect_then_damage_are_two_effects() -> None:
    s = _prizes_left(6)
    s.add("prize_taken", player="ash", count=1, effect=BARGAIN)
    s.add("damage", pid="m1", amount=50)  # another effect: checked once it resolves
    s.add("turn_ended", player="ash")
    r = s.record()
    assert [k["pid"] for k in r["knockouts"]] == ["m1"] and r["prizes"]["ash"]["taken"] == 2


# ---------------------------------------------------------------- 4. the turn's limits
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


# ---------------------------------------------------------------- 5. evolution timing on a digital log
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


# ---------------------------------------------------------------- 6. how the severity is chosen
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
