"""The record is complete when a stream ends on its deciding event (issue 33 item 7): the source's claims
close at the end of every stream, so a prize claim that stopped short and a final knockout the source
never claimed are findings without a ``game_ended`` after them [docs/rules.md §3 step 4; docs/records.md,
Findings], in the engine (the CLI and the service fold through it: tests/cli and the console's own test).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from tests.builder import Stream, card, codes

SOURCE = {"kind": "manual", "reports_knockouts": True}


def to_misty_attacking(match: str = "m1", prizes: int = 2) -> Stream:
    """ash's Pikachu ex (60 HP, 2 prizes) faces misty's Staryu; misty's second turn has started."""
    s = Stream(match, first="misty", prizes=prizes, source=SOURCE)
    s.setup("ash", ("a1", card("Pikachu ex", 60, "ex")), ("a2", card("Pichu", 30)))
    s.setup("misty", ("m1", card("Staryu", 50)))
    s.turn("misty")
    s.add("turn_ended", player="misty")
    s.turn("ash")
    s.add("turn_ended", player="ash")
    s.turn("misty")
    return s


def final_knockout(prize_claim: int | None, ko_claim: bool = True, match: str = "m1") -> Stream:
    """A 2-prize game decided by its first knockout (an ex: 2 prizes), the source's claims as given."""
    s = to_misty_attacking(match)
    s.add("attack", player="misty", pid="m1", name="Water Gun")
    s.add("damage", pid="a1", amount=60)
    if ko_claim:
        s.add("knocked_out", pid="a1")
    if prize_claim is not None:
        s.add("prize_taken", player="misty", count=prize_claim)
    s.add("attack_ended")  # the deciding event: misty has taken both prizes
    return s


def found(record: dict[str, Any], code: str) -> list[tuple[int, str]]:
    return [(f["seq"], f["message"]) for f in record["findings"] if f["code"] == code]


def test_a_short_prize_claim_at_the_end_is_a_mismatch_without_game_ended() -> None:
    s = final_knockout(prize_claim=1)
    claim = len(s.events) - 1
    record = s.record()
    assert record["status"] == "finished" and record["result"]["winner"] == "misty"
    assert found(record, "prize_count_mismatch") == [(claim, "misty took 1 prize(s); the knockouts give 2")]
    # a game_ended after it says the same, once
    s.add("game_ended", outcome="win", winner="misty", reason="prizes")
    assert found(s.record(), "prize_count_mismatch") == [
        (claim, "misty took 1 prize(s); the knockouts give 2")
    ]


def test_an_unclaimed_final_knockout_is_found_without_game_ended() -> None:
    s = final_knockout(prize_claim=2, ko_claim=False)
    record = s.record()
    assert record["status"] == "finished"
    # the knockout is at its batch, attack_ended
    assert [seq for seq, _ in found(record, "ko_not_claimed")] == [len(s.events)]
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
    assert found(record, "prize_count_mismatch") == [
        (len(s.events) - 1, "misty took 1 prize(s); the knockouts give 2")
    ]
