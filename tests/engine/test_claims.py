"""The source's claims (knockouts and prizes), compared with what the engine derived and never taken for
it, closed at the end of every stream [docs/rules.md §3, "The source's claims"] (replay/engine/claims.py).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.builder import Stream, card, codes
from tests.engine.games import basic, final_knockout, to_misty_attacking


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


# docs/rules.md §3 step 4: a player takes prizes one card at a time; one claim may be sent per card.
def _ex_knockout(claims_in_window: bool = False) -> Stream:
    s = Stream(first="misty")
    s.setup("ash", ("a1", card("Pikachu ex", 60, "ex")), ("a2", card("Pichu", 30)))
    s.setup("misty", ("m1", card("Staryu", 50)), ("m2", card("Starmie", 90)))
    s.turn("misty")
    s.add("turn_ended", player="misty")
    s.turn("ash")
    s.add("turn_ended", player="ash")
    s.turn("misty")
    s.add("attack", player="misty", pid="m1", name="Water Gun")
    s.add("damage", pid="a1", amount=60)
    s.add("knocked_out", pid="a1")
    if claims_in_window:
        s.add("prize_taken", player="misty", count=1)
        s.add("prize_taken", player="misty", count=1)
    s.add("attack_ended")
    return s


@pytest.mark.parametrize("in_window", [False, True])
def test_prizes_claimed_one_card_at_a_time_are_one_claim(in_window: bool) -> None:
    s = _ex_knockout(in_window)
    if not in_window:
        s.add("prize_taken", player="misty", count=1)
        s.add("prize_taken", player="misty", count=1)
    s.add("promoted", player="ash", pid="a2")
    s.add("turn_ended", player="misty")
    s.turn("ash")
    r = s.record()
    assert r["prizes"]["misty"]["taken"] == 2
    assert not {"prize_count_mismatch", "prize_without_ko"} & set(codes(r)), r["findings"]


def test_a_claim_that_stops_short_is_still_a_mismatch() -> None:
    s = _ex_knockout()
    s.add("prize_taken", player="misty", count=1)
    claim = len(s.events)
    s.add("promoted", player="ash", pid="a2")
    s.add("turn_ended", player="misty")  # the claim is over: 1 of 2
    found = [f for f in s.record()["findings"] if f["code"] == "prize_count_mismatch"]
    assert [(f["seq"], f["message"]) for f in found] == [
        (claim, "misty took 1 prize(s); the knockouts give 2")
    ]


def test_a_claim_beyond_the_knockouts_is_still_found() -> None:
    s = _ex_knockout()
    s.add("prize_taken", player="misty", count=1)
    s.add("prize_taken", player="misty", count=1)
    s.add("prize_taken", player="misty", count=1)  # one more than the knockout gives
    assert codes(s.record()) == ["prize_without_ko"]
    s = _ex_knockout()
    s.add("prize_taken", player="misty", count=1)
    s.add("prize_taken", player="misty", count=2)
    found = [f["message"] for f in s.record()["findings"]]
    assert found == ["misty took 3 prize(s); the knockouts give 2"]


def found_messages(record: dict[str, Any], code: str) -> list[tuple[int, str]]:
    return [(f["seq"], f["message"]) for f in record["findings"] if f["code"] == code]


def test_a_short_prize_claim_at_the_end_is_a_mismatch_without_game_ended() -> None:
    s = final_knockout(prize_claim=1)
    claim = len(s.events) - 1
    record = s.record()
    assert record["status"] == "finished" and record["result"]["winner"] == "misty"
    assert found_messages(record, "prize_count_mismatch") == [
        (claim, "misty took 1 prize(s); the knockouts give 2")
    ]
    # a game_ended after it says the same, once
    s.add("game_ended", outcome="win", winner="misty", reason="prizes")
    assert found_messages(s.record(), "prize_count_mismatch") == [
        (claim, "misty took 1 prize(s); the knockouts give 2")
    ]


def test_an_unclaimed_final_knockout_is_found_without_game_ended() -> None:
    s = final_knockout(prize_claim=2, ko_claim=False)
    record = s.record()
    assert record["status"] == "finished"
    # the knockout is at its batch, attack_ended
    assert [seq for seq, _ in found_messages(record, "ko_not_claimed")] == [len(s.events)]
    s.add("game_ended", outcome="win", winner="misty", reason="prizes")
    assert codes(s.record()).count("ko_not_claimed") == 1


def test_claims_sent_after_the_deciding_event_complete_it() -> None:
    s = final_knockout(prize_claim=None, ko_claim=False)
    assert "ko_not_claimed" in codes(s.record())
    s.add("knocked_out", pid="a1")
    s.add("prize_taken", player="misty", count=2)
    record = s.record()
    assert not {"ko_not_claimed", "prize_count_mismatch"} & set(codes(record)), record["findings"]


def test_a_claim_still_open_mid_game_is_not_closed_early() -> None:
    # one prize card of two taken, the game goes on: the next card may follow (docs/rules.md §3 step 4)
    s = to_misty_attacking(prizes=6)
    s.attack("misty", "m1", ("a1", 60), claims=("a1",))
    s.add("prize_taken", player="misty", count=1)
    record = s.record()
    assert record["status"] == "in_progress" and "prize_count_mismatch" not in codes(record)


def test_the_cli_closes_the_claims_at_the_end_of_the_file(tmp_path: Path) -> None:
    s = final_knockout(prize_claim=1)
    path = tmp_path / "g.jsonl"
    path.write_text("".join(json.dumps(e) + "\n" for e in s.events))
    out = subprocess.run(
        [sys.executable, "-m", "replay.cli", "replay", "--json", str(path)],
        capture_output=True,
        text=True,
        check=True,
    )
    record = json.loads(out.stdout)
    assert record == s.record()
    assert found_messages(record, "prize_count_mismatch") == [
        (len(s.events) - 1, "misty took 1 prize(s); the knockouts give 2")
    ]
