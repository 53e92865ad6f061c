"""The ingest core's shared state (streams/ingest/state.py): the per-event answer the HTTP API gives, and
which playoff family a match belongs to (the unit the core decides one match after the other)."""

from __future__ import annotations

from streams.ingest import Outcome
from streams.ingest.state import family_of


def test_an_outcome_answers_only_what_it_knows() -> None:
    # docs/http-api.md, "POST /events": status, match and seq always; reason, field and applied when set
    assert Outcome("duplicate", "m1", 3).as_json() == {"status": "duplicate", "match": "m1", "seq": 3}
    rejected = Outcome("rejected", "m1", 4, "match m1 seq 4: not applied", field="seq")
    assert rejected.as_json() == {
        "status": "rejected",
        "match": "m1",
        "seq": 4,
        "reason": "match m1 seq 4: not applied",
        "field": "seq",
    }
    applied = Outcome("applied", "m1", 5, applied=[5, 6, 7])
    assert applied.as_json()["applied"] == [5, 6, 7]
    assert applied.as_json()["applied"] is not applied.applied  # the answer is a copy


def test_a_playoff_game_is_in_its_root_games_family() -> None:
    assert family_of("g1") == "g1"
    assert family_of("g1/tb1") == "g1"
    assert family_of("league/r1/g1/tb12") == "league/r1/g1"
    assert family_of("g1/tbx") == "g1/tbx"  # not a playoff game's name: its own family
