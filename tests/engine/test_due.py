"""``replay.due``: the steps due next in a game (issue 33 item 2), the engine's own answer that the table
console, the review page and ``prizecheck replay --until N --due`` read.

- A property over simulated games cut at any event: the first step's events, posted as given, make the
  engine derive what the step says (its ``outputs``), and the record then holds no finding about the
  source's claims (the claims the step posts are the ones the rules derive).
- A drawn game settled by its playoff is over, won by the playoff's winner; no playoff is due again.
- The checkup's damage comes from the ruleset.
"""

from __future__ import annotations

import copy
import dataclasses
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from replay import Game, due
from replay.engine.outputs import Record
from replay.generators import simulate
from tests.builder import Stream, card, drawn_game

#: Findings about the source's claims: none may follow a step's own events.
CLAIM_CODES = {"ko_not_claimed", "ko_not_due", "prize_count_mismatch", "prize_without_ko", "promotion_order"}


def fold(events: list[dict[str, Any]]) -> Game:
    game = Game()
    for e in events:
        game.apply(e)
    return game


def post(game: Game, bodies: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The bodies numbered from the game's next seq and applied; the outputs they derived."""
    outputs: list[dict[str, Any]] = []
    for body in bodies:
        assert game.match is not None
        outputs += game.apply({"match": game.match, "seq": game.next_seq, **body})
    return outputs


def derived(outputs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Outputs without their seq (a step's claims come before its close) and without findings."""
    return [{k: v for k, v in o.items() if k != "seq"} for o in outputs if o.get("type") != "finding"]


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 100_000))
def test_a_steps_own_events_give_what_the_step_says(seed: int) -> None:
    stream = next(iter(simulate.simulate_corpus(1, seed)))
    game = Game()
    checked = 0
    for event in stream:  # the game cut after every event
        game.apply(event)
        acting = [s for s in due(game) if s.get("events") or s.get("choices")]
        if acting:
            check_step(copy.deepcopy(game), acting[0])
            checked += 1
    assert checked > 0


def check_step(game: Game, step: dict[str, Any]) -> None:
    before = {(f.code, f.seq) for f in game.resolved().findings}
    already = set(game.state.window_claims)  # knockouts the source claimed in the window already
    bodies = step["choices"][0]["events"] if step["step"] == "promote" else step["events"]
    outputs = post(game, bodies)
    if "outputs" in step:
        assert derived(outputs) == derived(step["outputs"]), (step["step"], outputs, step["outputs"])
    after = {(f.code, f.seq) for f in game.resolved().findings if f.code in CLAIM_CODES}
    assert after <= before, (step, after - before)
    if step["step"] in ("attack_ended", "checkup_ended"):
        knocked = {o["pid"] for o in step["outputs"] if o.get("type") == "ko"}
        claimed = {b["pid"] for b in bodies if b["type"] == "knocked_out"}
        assert claimed == knocked - already  # each knockout claimed once
        verified = {k["pid"]: k["verified"] for k in game.record()["knockouts"]}
        assert all(verified[pid] for pid in knocked)


def test_a_drawn_game_settled_by_its_playoff_is_over_and_offers_no_playoff() -> None:
    parent = drawn_game("g1")
    game = fold(parent.events)
    steps = due(game)
    assert [s["step"] for s in steps] == ["game_over", "playoff"]
    assert steps[0]["result"]["outcome"] == "draw"
    playoff = steps[1]
    assert playoff["child"] == "g1/tb1" and playoff["start"]["parent"] == "g1"
    child = Stream("g1/tb1", parent="g1", playoff=playoff["kind"], prizes=playoff["prizes"])
    child.setup("ash", ("a1", card("Pikachu", 30)))
    child.setup("misty", ("m1", card("Staryu", 30)))
    child.add("conceded", player="misty")
    records = {"g1/tb1": Record.from_json(fold(child.events).record())}
    steps = due(game, records)
    assert [s["step"] for s in steps] == ["game_over"]  # the console used to offer the same playoff again
    assert steps[0]["status"] == "finished"
    assert (steps[0]["result"]["winner"], steps[0]["result"]["reason"]) == ("ash", "playoff")
    # a child still in progress: the game awaits it, and it is not offered again either
    child.events.pop()
    steps = due(game, {"g1/tb1": Record.from_json(fold(child.events).record())})
    assert [s["step"] for s in steps] == ["game_over"] and steps[0]["status"] == "awaiting_playoff"


def test_the_checkup_damage_is_the_rulesets() -> None:
    s = Stream(first="ash")
    s.setup("ash", ("a1", card("Pikachu", 60)))
    s.setup("misty", ("m1", card("Staryu", 60)))
    s.turn("ash")
    s.add("condition", pid="m1", condition="burned", on=True)
    s.add("condition", pid="a1", condition="poisoned", on=True)
    s.add("turn_ended", player="ash")
    s.add("checkup_started")
    game = fold(s.events)
    (step,) = due(game)
    assert step["step"] == "checkup_damage"
    assert [(e["pid"], e["amount"], e["by"]) for e in step["events"]] == [
        ("a1", 10, "Poisoned"),
        ("m1", 20, "Burned"),
    ]
    game.state.ruleset = dataclasses.replace(
        game.state.ruleset, checkup_damage=(("burned", 30), ("poisoned", 20))
    )
    (step,) = due(game)
    assert [(e["pid"], e["amount"]) for e in step["events"]] == [("m1", 30), ("a1", 20)]


def test_replay_until_due_prints_the_steps(tmp_path: Path) -> None:
    s = Stream(first="ash")
    s.setup("ash", ("a1", card("Pikachu", 60)), ("a2", card("Pichu", 30)))
    s.setup("misty", ("m1", card("Staryu", 60)))
    s.turn("ash")
    s.add("attack", player="ash", pid="a1", name="Thunder")
    s.add("damage", pid="m1", amount=60)
    path = tmp_path / "g.jsonl"
    path.write_text("".join(json.dumps(e) + "\n" for e in s.events))
    run = [sys.executable, "-m", "replay.cli", "replay", str(path), "--until", str(len(s.events)), "--due"]
    text = subprocess.run(run, capture_output=True, text=True, check=True).stdout
    assert "attack_ended" in text and "knocked_out" in text, text
    steps = json.loads(subprocess.run([*run, "--json"], capture_output=True, text=True, check=True).stdout)
    assert steps == due(fold(s.events))


def test_a_close_claims_only_what_the_table_has_not_and_says_what_it_took() -> None:
    # issue 33 item 6: the table took 1 prize card where the knockout gives 2
    s = Stream(first="misty", source={"kind": "manual", "reports_knockouts": True})
    s.setup("ash", ("a1", card("Pikachu ex", 60, "ex")), ("a2", card("Pichu", 30)))
    s.setup("misty", ("m1", card("Staryu", 50)))
    s.turn("misty")
    s.add("attack", player="misty", pid="m1", name="Water Gun")
    s.add("damage", pid="a1", amount=60)
    s.add("knocked_out", pid="a1")
    s.add("prize_taken", player="misty", count=1)
    game = fold(s.events)
    (step,) = due(game)
    assert step["claimed"] == {"misty": 1}
    assert step["events"] == [
        {"type": "prize_taken", "player": "misty", "count": 1},
        {"type": "attack_ended"},
    ]
    rules = copy.deepcopy(game)
    post(rules, step["events"])  # the rules' count: nothing to find
    assert "prize_count_mismatch" not in [f.code for f in rules.findings]
    # what the table did: the finding says what the rules required, once the claim is over (the turn
    # ends: a claim may go on one card at a time until then, docs/rules.md §3)
    post(game, [{"type": "attack_ended"}, {"type": "turn_ended", "player": "misty"}])
    assert [(f.code, f.message) for f in game.findings if f.code == "prize_count_mismatch"] == [
        ("prize_count_mismatch", "misty took 1 prize(s); the knockouts give 2")
    ]
