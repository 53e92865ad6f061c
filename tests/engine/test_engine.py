"""The rules engine: knockout timing, prizes, deck-out, results, playoffs, findings, the envelope."""

from __future__ import annotations

import ast
import copy
from typing import Any

import pytest

from replay import Game, link_records, replay_events
from replay.engine.chain import canonical_bytes, chain_head, sign, verify_signature
from replay.engine.record import dumps
from tests.builder import Stream, card, codes, drawn_game
from tests.paths import ROOT

# The engine (replay/engine/) is pure: no I/O, clock, randomness or concurrency. What it may import from
# the project is checked by import-linter (pyproject.toml, make lint); this checks the standard library.
FORBIDDEN = {"asyncio", "redis", "faust", "time", "random", "os", "socket", "datetime", "subprocess"}


def test_engine_modules_are_pure() -> None:
    root = ROOT / "replay" / "engine"
    modules = sorted(root.glob("*.py"))
    assert {"game", "knockout", "result", "playoff"} <= {p.stem for p in modules}
    for path in modules:
        name = path.stem
        tree = ast.parse(path.read_text("utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                mods = [a.name.split(".")[0] for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                mods = [(node.module or "").split(".")[0]]
            else:
                continue
            assert not FORBIDDEN & set(mods), f"replay/engine/{name}.py imports {mods}"


def basic(**started: Any) -> Stream:
    s = Stream(**started)
    s.setup("ash", ("a1", card("Pikachu", 60)), ("a2", card("Raichu ex", 200, "ex")))
    s.setup("misty", ("m1", card("Staryu", 50)), ("m2", card("Starmie", 90)))
    return s


# ---------------------------------------------------------------- knockout timing [JP3.4 §I-D]
def test_knockout_is_checked_at_the_end_of_the_attack_not_at_each_damage() -> None:
    s = basic()
    s.turn("ash")
    s.add("turn_ended", player="ash")
    s.turn("misty")
    s.add("attack", player="misty", pid="m1", name="Water Gun")
    s.add("damage", pid="a1", amount=60)
    g = Game()
    for e in s.events:
        g.apply(e)
    assert g.board()["players"]["ash"]["active"]["pid"] == "a1"  # still in play during the attack
    out = g.apply(s.add("attack_ended"))
    kos = [o for o in out if o["type"] == "ko"]
    assert [(k["pid"], k["window"], k["seq"]) for k in kos] == [("a1", "attack", len(s.events))]
    assert [o for o in out if o["type"] == "prizes_due"] == [
        {"type": "prizes_due", "seq": len(s.events), "player": "misty", "count": 1}
    ]
    assert [o["player"] for o in out if o["type"] == "promotion_due"] == ["ash"]


def test_healing_inside_the_attack_before_its_end_prevents_the_knockout() -> None:
    s = basic()
    s.turn("ash")
    s.add("attack", player="ash", pid="a1", name="Recover")  # first-turn attack: a finding, still applied
    s.add("damage", pid="a1", amount=60)
    s.add("healed", pid="a1", amount=30)
    s.add("attack_ended")
    r = s.record()
    assert r["knockouts"] == []
    assert "attack_first_turn" in codes(r)


def test_damage_outside_windows_knocks_out_once_the_effect_has_resolved() -> None:
    s = basic()
    s.turn("ash")
    # an Ability places counters on two Pokémon: one effect, one batch
    s.add("damage", pid="m1", amount=50)
    s.add("damage", pid="m2", amount=90)
    s.add("knocked_out", pid="m1")
    s.add("knocked_out", pid="m2")
    s.add("prize_taken", player="ash", count=2)
    r = s.record()
    assert [(k["pid"], k["window"], k["batch"]) for k in r["knockouts"]] == [
        ("m1", "effect", 1),
        ("m2", "effect", 1),
    ]
    assert r["result"]["winner"] == "ash" and r["result"]["reason"] == "no_pokemon"
    assert r["result"]["decided_at"] == 9  # the last event of the effect (the second claim)
    assert "prize_count_mismatch" not in codes(r)


def test_checkup_knockout_ends_the_game_before_the_next_draw() -> None:
    s = Stream()
    s.setup("ash", ("a1", card("Pikachu", 60)))
    s.setup("misty", ("m1", card("Staryu", 20)))
    s.turn("ash")
    s.add("condition", pid="m1", condition="poisoned", on=True)
    s.add("turn_ended", player="ash")
    s.add("checkup_started")
    s.add("damage", pid="m1", amount=10)
    s.add("damage", pid="m1", amount=10)
    s.add("knocked_out", pid="m1")
    s.add("checkup_ended")
    s.add("turn_started", player="misty", deck=0)  # would be a deck-out, but the game is already over
    r = s.record()
    assert r["result"]["reason"] == "no_pokemon" and r["result"]["winner"] == "ash"
    assert r["knockouts"][0]["window"] == "checkup"
    assert "event_after_end" in codes(r)


# ---------------------------------------------------------------- prizes [docs/rules.md §3]
@pytest.mark.parametrize(
    ("c", "prizes"),
    [
        (card("Pikachu", 10), 1),
        (card("Raichu ex", 10, "ex"), 2),
        (card("Charizard VMAX", 10, "VMAX"), 3),
        (card("Mega Lucario ex", 10, "mega_ex"), 3),
        (card("Pikachu & Zekrom GX", 10, "tag_team"), 3),
        (card("Radiant Greninja", 10, "radiant"), 1),
        (card("Special", 10, "ex", prizes=1), 1),  # an explicit value wins over the kind
    ],
)
def test_prize_values_by_kind(c: dict[str, Any], prizes: int) -> None:
    s = basic()
    s.turn("ash")
    s.add("played", player="ash", pid="a9", card=c, to="bench")
    s.add("damage", pid="a9", amount=10)
    r = s.record()
    assert r["knockouts"][0]["prizes"] == prizes
    assert r["prizes"]["misty"]["taken"] == prizes


def test_prize_modifiers_never_go_below_zero_and_prizes_never_exceed_what_remains() -> None:
    s = basic(prizes=2)
    s.turn("ash")
    s.add("prize_modifier", pid="a1", delta=-1)
    s.add("prize_modifier", pid="a1", delta=-1)
    s.add("prize_modifier", pid="a2", delta=1)  # Briar: a 2-prize ex gives 3
    s.add("damage", pid="a1", amount=60)
    s.add("knocked_out", pid="a1")
    s.add("promoted", player="ash", pid="a2")
    s.add("damage", pid="a2", amount=200)
    r = s.record()
    assert [k["prizes"] for k in r["knockouts"]] == [0, 3]
    assert r["prizes"]["misty"] == {"taken": 2, "needed": 2, "remaining": 0}
    assert r["result"]["winner"] == "misty"


def test_prize_claim_that_disagrees_is_a_finding() -> None:
    s = basic()
    s.turn("ash")
    s.add("turn_ended", player="ash")
    s.turn("misty")
    s.attack("misty", "m1", ("a2", 200), claims=("a2",))
    s.add("prize_taken", player="misty", count=1)  # of 2: short once the claim is over (turn_ended)
    s.add("prize_taken", player="ash", count=1)
    s.add("turn_ended", player="misty")
    r = s.record()
    assert "prize_count_mismatch" in codes(r)
    assert "prize_without_ko" in codes(r)
    assert r["prizes"]["misty"]["taken"] == 2  # the rules, not the claim


# ---------------------------------------------------------------- promotion order [JP3.4 §I-D step 5]
def test_next_turn_player_promotes_first() -> None:
    s = basic()
    s.turn("ash")
    s.add("turn_ended", player="ash")
    s.turn("misty")
    s.attack("misty", "m1", ("a1", 60), ("m1", 50), claims=("a1", "m1"))  # a recoil double knockout
    out = [o for o in s.game().timeline if o["type"] == "promotion_due"]
    assert [(o["player"], o["order"]) for o in out] == [("ash", 1), ("misty", 2)]
    s.add("promoted", player="misty", pid="m2")
    s.add("promoted", player="ash", pid="a2")
    assert "promotion_order" in codes(s.record())


def test_right_promotion_order_is_not_a_finding() -> None:
    s = basic()
    s.turn("ash")
    s.add("turn_ended", player="ash")
    s.turn("misty")
    s.attack("misty", "m1", ("a1", 60), ("m1", 50), claims=("a1", "m1"))
    s.add("promoted", player="ash", pid="a2")
    s.add("promoted", player="misty", pid="m2")
    r = s.record()
    assert "promotion_order" not in codes(r)
    assert r["result"] is None


# ---------------------------------------------------------------- deck-out [docs/rules.md §1.3]
def test_deck_out_only_at_the_start_of_the_turn() -> None:
    s = basic(deck=14)  # 14 - 7 hand - 6 prizes = 1 card left after setup
    s.turn("ash")  # draws the last card
    s.add("drew", player="ash", count=3)  # an effect asks for more than the deck holds: not a loss
    s.add("turn_ended", player="ash")
    s.turn("misty")
    s.add("turn_ended", player="misty")
    s.add("turn_started", player="ash")
    r = s.record()
    assert "draw_from_empty_deck_not_loss" in codes(r)
    assert r["result"]["reason"] == "deck_out" and r["result"]["winner"] == "misty"
    assert r["result"]["decided_at"] == len(s.events)
    assert next(o for o in s.game().timeline if o["type"] == "deck_out")["player"] == "ash"


def test_deck_count_from_the_source_is_used() -> None:
    s = basic()
    s.add("turn_started", player="ash", deck=0)
    r = s.record()
    assert r["result"]["reason"] == "deck_out"
    assert "deck_count_mismatch" in codes(r)


# ---------------------------------------------------------------- other endings
def test_concession_effect_and_penalties() -> None:
    s = basic()
    s.turn("ash")
    s.add("conceded", player="ash")
    assert s.record()["result"]["winner"] == "misty"

    s = basic()
    s.turn("ash")
    s.add("effect_result", player="ash", wins=True, card={"name": "Barry"})
    r = s.record()
    assert (r["result"]["winner"], r["result"]["reason"]) == ("ash", "effect")


def test_double_prize_penalty_lowers_what_the_opponent_needs_and_wins_at_once() -> None:
    s = basic()
    s.turn("ash")
    s.add("played", player="ash", pid="a3", card=card("Mew ex", 10, "ex"), to="bench")
    s.add("played", player="ash", pid="a4", card=card("Mew ex", 10, "ex"), to="bench")
    s.add("damage", pid="a3", amount=10)
    s.add("turn_ended", player="ash")
    s.add("damage", pid="a4", amount=10)
    s.add("turn_started", player="misty")
    assert s.record()["prizes"]["misty"]["taken"] == 4
    s.add("penalty", player="ash", kind="double_prize", reason="slow play")
    r = s.record()
    assert r["prizes"]["misty"]["needed"] == 4
    assert (r["result"]["winner"], r["result"]["reason"]) == ("misty", "penalty")


def test_game_losses_to_both_players_at_once_is_no_winner() -> None:
    s = basic()
    s.turn("ash")
    s.add("penalty", player="ash", kind="game_loss")
    s.add("penalty", player="misty", kind="game_loss")
    r = s.record()
    assert r["result"]["outcome"] == "no_winner" and r["result"]["winner"] is None


def test_time_called_in_swiss_is_a_tie_after_the_extra_turns() -> None:
    s = basic(context={"stage": "swiss"}, at="2026-03-01T10:00:00Z")
    s.turn("ash")
    s.add("time_called", at="2026-03-01T10:50:00Z")
    s.add("turn_ended", player="ash")  # turn 0
    for p in ("misty", "ash", "misty"):  # + 3 turns
        s.turn(p)
        s.add("turn_ended", player=p)
    assert s.record()["result"] is None
    s.add("turn_started", player="ash")
    r = s.record()
    assert (r["result"]["outcome"], r["result"]["reason"]) == ("draw", "time")


def test_time_in_single_elimination_goes_to_fewest_prizes_remaining() -> None:
    s = basic(context={"stage": "single_elimination"}, at="2025-10-01T10:00:00Z")  # +1 turn era
    s.turn("ash")
    s.add("damage", pid="m2", amount=90)
    s.add("time_called")
    s.add("turn_ended", player="ash")
    s.turn("misty")
    s.add("turn_ended", player="misty")
    s.add("turn_started", player="ash")
    r = s.record()
    assert (r["result"]["winner"], r["result"]["reason"]) == ("ash", "time")


# ---------------------------------------------------------------- restrictions and claims
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


def test_claims_only_source_audits_from_claims() -> None:
    s = Stream(source={"kind": "digital", "hp_known": False})
    s.setup("ash", ("a1", card("Pikachu", None)))
    s.setup("misty", ("m1", card("Staryu", None)), ("m2", card("Starmie", None)))
    s.turn("ash")
    s.add("turn_ended", player="ash")
    s.turn("misty")
    s.attack("misty", "m1", ("a1", 999), claims=("a1",))
    r = s.record()
    assert r["knockouts"][0]["verified"] is False
    assert r["audit"]["basis"] == "claims"
    assert r["result"]["winner"] == "misty"


def test_claim_with_hp_left_and_missing_claim_are_findings() -> None:
    s = basic()
    s.turn("ash")
    s.add("turn_ended", player="ash")
    s.turn("misty")
    s.attack("misty", "m1", ("a1", 30), ("a2", 200), claims=("a1",))
    s.add("turn_ended", player="misty")
    r = s.record()
    assert "ko_not_due" in codes(r)
    assert "ko_not_claimed" in codes(r)
    assert [k["pid"] for k in r["knockouts"]] == ["a2"]


def test_result_mismatch_with_the_claim() -> None:
    s = basic()
    s.turn("ash")
    s.add("conceded", player="misty")
    s.add("game_ended", outcome="win", winner="misty", reason="concession")
    r = s.record()
    assert r["agrees"] is False and "result_mismatch" in codes(r)


# ---------------------------------------------------------------- playoffs [docs/rules.md §6]
def drawn(ruleset: str, match: str = "g1") -> Stream:
    return drawn_game(match, ruleset)


def child(ruleset: str, name: str, parent: str, playoff: str, prizes: int) -> Stream:
    s = Stream(name, ruleset=ruleset, parent=parent, playoff=playoff, first="misty")
    s.setup("ash", ("a1", card("Pikachu", 30)), ("a2", card("Pichu", 30)))
    s.setup("misty", ("m1", card("Staryu", 30)), ("m2", card("Starmie", 30)))
    assert s.game().state.p["ash"].needed == prizes
    return s


def test_kr_sudden_death_first_prize_wins_and_a_drawn_one_is_followed_by_another() -> None:
    parent = drawn("kr-1.0")
    pr = parent.record()
    assert pr["status"] == "awaiting_playoff"
    assert pr["playoff"] == {"kind": "sudden_death", "prizes": 1, "child": "g1/tb1"}
    tb1 = child("kr-1.0", "g1/tb1", "g1", "sudden_death", 1)
    tb1.turn("misty")
    tb1.add("turn_ended", player="misty")
    tb1.add("checkup_started")
    tb1.add("damage", pid="a1", amount=30)
    tb1.add("damage", pid="m1", amount=30)
    tb1.add("checkup_ended")
    r1 = tb1.record()
    assert r1["status"] == "awaiting_playoff" and r1["playoff"]["child"] == "g1/tb2"
    tb2 = child("kr-1.0", "g1/tb2", "g1", "sudden_death", 1)
    tb2.turn("misty")
    tb2.add("turn_ended", player="misty")
    tb2.turn("ash")
    tb2.attack("ash", "a1", ("m1", 30), claims=("m1",))
    r2 = tb2.record()
    assert (r2["result"]["winner"], r2["result"]["reason"]) == ("ash", "prizes")
    games = replay_events(parent.events + tb1.events + tb2.events)
    linked = link_records({m: g.record() for m, g in games.items()})
    root = linked["g1"]
    assert root["status"] == "finished"
    assert (root["result"]["winner"], root["result"]["reason"]) == ("ash", "playoff")
    assert root["children"] == ["g1/tb1", "g1/tb2"]
    assert root["playoff"]["child"] == "g1/tb2"


@pytest.mark.parametrize(("ruleset", "kind"), [("jp-3.4", "tiebreak"), ("play-2026", "tiebreaker_game")])
def test_six_prize_playoff_is_won_by_the_first_prize_lead(ruleset: str, kind: str) -> None:
    parent = drawn(ruleset)
    assert parent.record()["playoff"] == {"kind": kind, "prizes": 6, "child": "g1/tb1"}
    tb = child(ruleset, "g1/tb1", "g1", kind, 6)
    tb.turn("misty")
    tb.add("turn_ended", player="misty")
    tb.turn("ash")
    tb.attack("ash", "a1", ("m1", 30), claims=("m1",))
    r = tb.record()
    assert (r["result"]["winner"], r["result"]["reason"]) == ("ash", "prizes")
    assert r["prizes"]["ash"]["taken"] == 1 and r["result"]["decided_at"] == len(tb.events)
    root = link_records({"g1": parent.record(), "g1/tb1": r})["g1"]
    assert (root["result"]["winner"], root["result"]["reason"], root["status"]) == (
        "ash",
        "playoff",
        "finished",
    )


# ---------------------------------------------------------------- the envelope
def full_game() -> Stream:
    s = basic()
    s.turn("ash")
    s.add("attached", player="ash", pid="a1", card={"name": "Lightning Energy", "kind": "energy"})
    s.add("turn_ended", player="ash")
    s.turn("misty")
    s.attack("misty", "m1", ("a1", 60), claims=("a1",))
    s.add("prize_taken", player="misty", count=1)
    s.add("promoted", player="ash", pid="a2")
    s.add("turn_ended", player="misty")
    s.turn("ash")
    s.attack("ash", "a2", ("m1", 50), claims=("m1",))
    s.add("prize_taken", player="ash", count=1)
    s.add("promoted", player="misty", pid="m2")
    s.add("conceded", player="misty")
    s.add("game_ended", outcome="win", winner="ash", reason="concession")
    return s


def test_exact_duplicates_are_no_ops_and_reused_seqs_are_findings() -> None:
    s = full_game()
    g = Game()
    for e in s.events:
        g.apply(e)
        assert g.apply(copy.deepcopy(e)) == []
    assert dumps(g.record()) == dumps(s.record())
    out = g.apply({**s.events[5], "player": "misty"})
    assert [o["code"] for o in out] == ["duplicate_seq"]


def test_gap_is_a_finding_and_a_late_event_is_not_applied() -> None:
    s = full_game()
    g = Game()
    for e in s.events[:5] + s.events[6:]:
        g.apply(e)
    r = g.record()
    assert codes(r)[0] == "seq_gap"
    assert r["chain"]["events"] == len(s.events) - 1
    assert [o["code"] for o in g.apply(s.events[5])] == ["late_event"]


def test_records_are_identical_in_any_chunking_and_order() -> None:
    s = full_game()
    whole = dumps(s.record())
    shuffled = list(reversed(s.events))
    assert dumps(replay_events(shuffled)["m1"].record()) == whole
    g = Game()
    for i, e in enumerate(s.events):
        g.apply(e)
        if i % 3 == 0:
            g.record()  # reading the record mid-stream changes nothing
    assert dumps(g.record()) == whole


def test_chain_is_over_canonical_bytes_and_signatures_verify() -> None:
    s = full_game()
    r = s.record()
    assert r["chain"]["head"] == chain_head(s.events)
    reordered = {k: s.events[3][k] for k in reversed(list(s.events[3]))}
    assert canonical_bytes(reordered) == canonical_bytes(s.events[3])
    signed = sign(r, b"secret", "k1")
    assert verify_signature(signed, b"secret")
    assert not verify_signature(signed, b"other")
    tampered = {**signed, "result": {**signed["result"], "winner": "misty"}}
    assert not verify_signature(tampered, b"secret")


def test_correction_voids_an_event_and_the_game_is_re_derived() -> None:
    s = basic()
    s.turn("ash")
    s.add("turn_ended", player="ash")
    s.turn("misty")
    dmg = s.add("damage", pid="a1", amount=60)  # recorded by mistake
    s.add("turn_ended", player="misty")
    assert len(s.record()["knockouts"]) == 1
    s.add("correction", target=dmg["seq"], action="void")
    r = s.record()
    assert r["knockouts"] == []
    assert codes(r)[-1] == "corrected"
    assert s.game().board()["players"]["ash"]["active"]["pid"] == "a1"


def test_sixty_cards_are_conserved() -> None:
    g = full_game().game()
    for pl in g.state.p.values():
        assert pl.total() == 60


def test_board_view_has_no_hidden_cards() -> None:
    s = basic()
    s.turn("ash")
    s.add("drew", player="ash", cards=["Secret Card"])
    text = dumps(s.game().board()).decode()
    assert "Secret Card" not in text


def test_huge_integers_and_integral_floats_do_not_break_the_chain() -> None:
    s = full_game()
    s.events[3]["note_id"] = 2**70  # an extra field the contract does not limit
    g = Game()
    for e in s.events:
        g.apply(e)
    assert g.record()["chain"]["events"] == len(s.events)
    assert g.apply(copy.deepcopy(s.events[3])) == []  # still recognised as a duplicate
    from replay.codec import decode_events

    line = b'{"match": "m1", "seq": 1.0, "type": "note", "text": "x", "score": 0.5}\n'
    ((_, event),) = decode_events(line, name="x.jsonl", validate=False)
    assert event["seq"] == 1 and isinstance(event["seq"], int) and event["score"] == 0.5


def test_play_on_after_time_is_decided_by_prizes_remaining_not_taken() -> None:
    # TTH §7.4.4: level on prizes remaining when time runs out, so play on until someone leads.
    s = basic(context={"stage": "single_elimination"}, at="2025-10-01T10:00:00Z")  # +1 turn era
    s.turn("ash")
    s.add("damage", pid="a2", amount=200)  # ash's Raichu ex: misty takes 2 (remaining 4)
    s.add("penalty", player="misty", kind="double_prize")  # ash needs 4 (remaining 4)
    s.add("time_called")
    s.add("turn_ended", player="ash")
    s.turn("misty")
    s.add("turn_ended", player="misty")
    s.turn("ash")  # time is over, level 4-4: play on
    assert s.record()["result"] is None
    s.add("damage", pid="m2", amount=90)  # ash takes 1: remaining ash 3, misty 4; taken ash 1, misty 2
    r = s.record()
    assert (r["result"]["winner"], r["result"]["reason"]) == ("ash", "time")


def test_amendments_re_derive_and_invalid_ones_are_refused() -> None:
    s = basic()
    s.turn("ash")
    s.add("turn_ended", player="ash")
    s.turn("misty")
    dmg = s.add("damage", pid="a1", amount=30)
    s.add("correction", target=dmg["seq"], action="amend", event={"amount": "lots"})
    r = s.record()
    assert r["knockouts"] == [] and "amendment of seq" in r["findings"][-1]["message"]
    s.add("correction", target=dmg["seq"], action="amend", event={"amount": 60})  # the judge's real fix
    r = s.record()
    assert [k["pid"] for k in r["knockouts"]] == ["a1"]
    assert r["findings"][-1]["code"] == "corrected" and "amended" in r["findings"][-1]["message"]


def test_a_second_correction_keeps_the_history() -> None:
    s = basic()
    s.turn("ash")
    first = s.add("damage", pid="m1", amount=10)
    s.add("turn_ended", player="ash")
    s.turn("misty")
    second = s.add("damage", pid="a1", amount=60)
    s.add("turn_ended", player="misty")
    s.add("correction", target=first["seq"], action="amend", event={"amount": 50})
    s.add("correction", target=second["seq"], action="void")
    s.turn("ash")
    r = s.record()
    assert [k["pid"] for k in r["knockouts"]] == ["m1"]  # the amended one counts, the voided one not
    assert "no_match_started" not in codes(r)
    assert codes(r).count("corrected") == 2
    assert "ko_not_claimed" in codes(r)  # the amended damage knocks out m1, which the source never claimed
    assert r["chain"]["events"] == len(s.events)


def test_an_effect_that_knocks_out_without_damage_is_accepted_when_named() -> None:
    s = basic()
    s.turn("ash")
    s.add("turn_ended", player="ash")
    s.turn("misty")
    s.add("attack", player="misty", pid="m1", name="Frenzied Gouging")
    s.add("knocked_out", pid="a1", by="Frenzied Gouging")
    s.add("attack_ended")
    s.add("knocked_out", pid="a2")  # an unnamed claim with HP left is still a violation
    r = s.record()
    assert [(k["pid"], k["verified"]) for k in r["knockouts"]] == [("a1", False)]
    assert codes(r) == ["ko_not_due"]


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


def test_a_record_mid_effect_is_provisional_and_never_settles_a_parent() -> None:
    parent = drawn("play-2026")
    tb = child("play-2026", "g1/tb1", "g1", "tiebreaker_game", 6)
    tb.turn("misty")
    tb.add("damage", pid="m1", amount=30)  # an effect: the first of two simultaneous knockouts
    g = tb.game()
    early = g.record()
    assert early["provisional"] is True and early["result"]["winner"] == "ash"  # so far...
    assert g.effect_pending  # reading the record resolved a copy, not the game
    root = link_records({"g1": parent.record(), "g1/tb1": early})["g1"]
    assert root["status"] == "awaiting_playoff" and root["result"]["outcome"] == "draw"
    tb.add("damage", pid="a1", amount=30)  # ...the same effect knocks out ash's Active too: level again
    tb.add("turn_ended", player="misty")
    final = tb.record()
    assert final["provisional"] is False and final["result"] is None
    assert [k["batch"] for k in final["knockouts"]] == [1, 1]


def test_the_board_names_the_last_attack_and_the_damage_its_window_placed() -> None:
    """What the overlay shows as the last attack (issue 37 item 2): damage outside an attack is not its."""
    s = Stream("la")
    s.setup("ash", ("a1", card("Pikachu", 60)))
    s.setup("misty", ("m1", card("Staryu", 90)), ("m2", card("Psyduck", 70)))
    s.turn("ash")
    assert s.game().board()["last_attack"] is None
    s.attack("ash", "a1", ("m1", 30), ("m2", 10))
    s.add("damage", pid="m1", amount=20)  # an Ability's, after the attack
    board = s.game().board()
    assert board["last_attack"] == {
        "seq": 6,
        "player": "ash",
        "pid": "a1",
        "attacker": "Pikachu",
        "name": "Tackle",
        "damage": 40,
    }
    assert board["players"]["misty"]["active"]["damage"] == 50
