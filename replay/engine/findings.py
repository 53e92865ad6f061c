"""Finding codes and their severities (docs/records.md): where the source disagrees with the rules."""

from __future__ import annotations

from typing import Final

from replay.engine.outputs import Finding

INFO, WARNING, VIOLATION = "info", "warning", "violation"

SEVERITY: Final[dict[str, str]] = {
    # the stream itself
    "seq_gap": WARNING,
    "duplicate_seq": WARNING,
    "late_event": WARNING,
    "wrong_match": VIOLATION,
    "no_match_started": VIOLATION,
    "unknown_ruleset": VIOLATION,
    "event_after_end": WARNING,
    "unknown_pokemon": WARNING,
    "unknown_player": WARNING,
    # turns and draws
    "turn_order": WARNING,
    "deck_count_mismatch": INFO,
    "draw_from_empty_deck_not_loss": INFO,
    "card_count": INFO,
    # restrictions
    "attack_first_turn": VIOLATION,
    "evolved_too_early": VIOLATION,
    "supporter_first_turn": VIOLATION,
    "second_supporter": VIOLATION,
    "second_energy": VIOLATION,
    "second_stadium": VIOLATION,
    "second_retreat": VIOLATION,
    "attacker_not_active": WARNING,
    "attack_while_unable": WARNING,
    # knockouts and prizes
    "ko_not_due": VIOLATION,
    "ko_not_claimed": WARNING,
    "prize_count_mismatch": WARNING,
    "prize_without_ko": WARNING,
    "prizes_not_left": WARNING,
    "promotion_order": WARNING,
    "promotion_missing": WARNING,
    # the result
    "result_mismatch": VIOLATION,
    "reason_mismatch": INFO,
    "corrected": INFO,
    "window_not_closed": INFO,
}


def finding(
    code: str, seq: int, message: str, severity: str | None = None, detail: str | None = None
) -> Finding:
    """A finding with its code's severity (unless ``severity`` says otherwise); ``detail``: the specifics
    that only roles seeing hidden information get (decisions: public message, judge-only detail)."""
    sev = severity or SEVERITY.get(code, WARNING)
    if detail is None:
        return Finding(code, sev, seq, message)
    return Finding(code, sev, seq, message, detail)
