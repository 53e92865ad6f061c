"""Rulesets are data, one file each, named in every record [docs/rules.md §7] (replay/engine/ruleset.py)."""

from __future__ import annotations

import pytest

from replay.engine.ruleset import KNOWN_RULESETS, load_ruleset
from tests.builder import Stream, drawn_game

# docs/rules.md §7's table: id -> (playoff, playoff prizes, how it is won, coin flip for who goes first)
TABLE = {
    "kr-1.0": ("sudden_death", 1, "first_prize", False),
    "jp-3.4": ("tiebreak", 6, "prize_lead", False),
    "play-2026": ("tiebreaker_game", 6, "prize_lead", True),
}


@pytest.mark.parametrize("ruleset_id", KNOWN_RULESETS)
def test_each_ruleset_file_says_what_the_rules_page_says(ruleset_id: str) -> None:
    r = load_ruleset(ruleset_id)
    assert r.id == ruleset_id and r.version >= 1
    p = r.playoff
    assert (p.kind, p.prizes, p.won_by, p.coin_flip_for_first) == TABLE[ruleset_id]
    assert (r.deck, r.hand, r.prizes) == (60, 7, 6)  # docs/rules.md §6, Setup


def test_every_record_names_its_ruleset_and_version() -> None:
    r = Stream(ruleset="jp-3.4").record()
    assert (r["ruleset"], r["ruleset_version"]) == ("jp-3.4", load_ruleset("jp-3.4").version)


def test_an_unknown_ruleset_is_judged_under_play_2026_with_a_finding() -> None:
    r = drawn_game("g1", ruleset="xx-9").record()  # drawn, and it must be decided: whose playoff?
    assert [(f["seq"], f["severity"]) for f in r["findings"] if f["code"] == "unknown_ruleset"] == [
        (1, "violation")
    ]
    assert r["playoff"]["kind"] == "tiebreaker_game" and r["playoff"]["prizes"] == 6
