"""Finding codes and their severities (docs/records.md): where the source disagrees with the rules."""

from __future__ import annotations

from typing import Final

from replay.engine.outputs import Finding

INFO, WARNING, VIOLATION = "info", "warning", "violation"
#: The code of a note's finding whose own code is neither the engine's nor one of SOURCE_FINDINGS.
SOURCE_FINDING: Final = "source_finding"

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
    "penalty_prizes": WARNING,
    "reason_mismatch": INFO,
    "corrected": INFO,
    "window_not_closed": INFO,
    SOURCE_FINDING: INFO,
}


#: The codes of the findings that the project's importers put in the stream as notes (docs/importers.md).
#: A note's finding with another code keeps its code for judges only: it is the producer's own text.
SOURCE_FINDINGS: Final = frozenset(
    {
        "unmatched_line",
        "low_confidence",
        "importer_after_end",
        "importer_attachment_moved",
        "importer_concession_after_result",
        "importer_card_unknown",
        "importer_count_unknown",
        "importer_deck_floor",
        "importer_deck_out_turn",
        "importer_exporter_conflict",
        "importer_exporter_unknown",
        "importer_guess_first",
        "importer_guess_owner",
        "importer_guess_pid",
        "importer_guess_player",
        "importer_guess_pokemon",
        "importer_guess_removed",
        "importer_guess_zone",
        "importer_hp_ambiguous",
        "importer_hp_choice",
        "importer_hp_effect",
        "importer_hp_tool",
        "importer_hp_unknown",
        "importer_hp_unverified",
        "importer_ko_by_effect",
        "importer_ko_without_damage",
        "importer_missing_setup",
        "importer_owner_unverified",
        "importer_partly_read",
        "importer_prize_modifier",
        "importer_prize_without_ko",
        "importer_turn_player",
        "importer_unknown_reason",
        "importer_unsupported",
    }
)


def finding(
    code: str, seq: int, message: str, severity: str | None = None, detail: str | None = None
) -> Finding:
    """A finding with its code's severity (unless ``severity`` says otherwise).

    ``message`` must be public-safe (decisions: no free text, no card that may be hidden, no refused
    event's fields); ``detail`` holds those specifics, for judges only.
    """
    sev = severity or SEVERITY.get(code, WARNING)
    if detail is None:
        return Finding(code, sev, seq, message)
    return Finding(code, sev, seq, message, detail)
