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


def N_(message: str) -> str:
    """Marks ``message`` as a sentence of the catalogues (tools/i18n.py extracts it); the engine writes
    it in English, and a page, the API or the command line shows it in the reader's language
    (replay.i18n.findings): the engine itself never translates."""
    return message


# Every sentence a finding's public ``message`` is made of: English templates whose ``{fields}`` are
# filled by :func:`say`. The record keeps the English sentence (its bytes and digests do not depend on a
# reader's language); replay.i18n.findings reads the fields back out of it by its code's templates and
# writes the sentence again in the reader's language.
# the stream
WRONG_MATCH: Final = N_("event for match {match!r} sent to match {log!r}; ignored")
LATE_EVENT: Final = N_("seq {seq} arrived after its gap was reported; not applied")
DUPLICATE_SEQ: Final = N_("a different event reuses seq {seq}; not applied")
SECOND_START: Final = N_("a second match_started; ignored")
SEQ_GAP: Final = N_("events {gap} are missing before seq {seq}")
NO_START: Final = N_("{type} before match_started; ignored")
AFTER_END: Final = N_("{type} after the game was decided at seq {decided}; ignored")
UNKNOWN_RULESET: Final = N_("unknown ruleset {ruleset!r}; judged under play-2026")
UNKNOWN_PLAYER: Final = N_("{type}: unknown player {player!r} in {field}")
NO_POKEMON: Final = N_("{type}: no Pokémon {pid!r} in play")
PID_IN_PLAY: Final = N_("pid {pid!r} is already in play; the new card is ignored")
NOT_ON_BENCH: Final = N_("{pid} is not on {player}'s Bench")
PROMOTED_NOT_ON_BENCH: Final = N_("promoted: {pid} is not on {player}'s Bench")
# corrections
CORRECTION_NO_TARGET: Final = N_("correction of seq {target!r} ignored: no such event (or match_started)")
AMENDMENT_NO_EVENT: Final = N_(
    "amendment of seq {target} ignored: the correction carries no event to amend with"
)
AMENDMENT_INVALID: Final = N_("amendment of seq {target} ignored: the amended event is not valid")
VOIDED: Final = N_("seq {target} voided{by}; game re-derived ({corrections} correction(s))")
AMENDED: Final = N_("seq {target} amended{by}; game re-derived ({corrections} correction(s))")
BY: Final = N_(" by {author}")
# turns and draws
TURN_STARTED: Final = N_("turn started for {player}, expected {expected}")
TURN_ENDED: Final = N_("{player} ended a turn that was {turn_player}'s")
FIRST_NOT_PLAYER: Final = N_("first player {first!r} is not one of the players")
ATTACK_OTHERS_TURN: Final = N_("{player} attacked during {turn_player}'s turn")
NO_NEW_ACTIVE: Final = N_("no new Active reported for {players}")
DECK_COUNT: Final = N_("{player}'s deck: the source saw {seen} cards, the events give {deck}; using {seen}")
EMPTY_DECK: Final = N_(
    "{player} drew {count} with {left} left in the deck: takes what there is, not a loss (rules §1.3)"
)
CARD_COUNT: Final = N_("{player}'s {zone} would hold {count} cards after this move")
# restrictions (docs/rules.md §6): each cites its rule
SUPPORTER_FIRST_TURN: Final = N_(
    "{player} played a Supporter on the first turn (no Supporter on the first turn of the player who goes "
    "first: docs/rules.md §6)"
)
SECOND_SUPPORTER: Final = N_(
    "{player} played a second Supporter this turn (one Supporter per turn: docs/rules.md §6)"
)
SECOND_STADIUM: Final = N_(
    "{player} played a second Stadium this turn (one Stadium per turn: docs/rules.md §6)"
)
SECOND_ENERGY: Final = N_(
    "{player} attached a second Energy from the hand (one Energy attached from the hand per turn: "
    "docs/rules.md §6)"
)
SECOND_RETREAT: Final = N_(
    "{player} retreated a second time this turn (one retreat per turn: docs/rules.md §6)"
)
ATTACK_FIRST_TURN: Final = N_(
    "{player} attacked on the first turn of the game (no attack on the first turn of the player who goes "
    "first: docs/rules.md §6)"
)
EVOLVED_FIRST_TURN: Final = N_(
    "{player} evolved {card} ({pid}) on their first turn (no evolution on a player's first turn, nor of a "
    "Pokémon that came into play or evolved this turn: docs/rules.md §6)"
)
EVOLVED_NEW: Final = N_(
    "{card} ({pid}) evolved on the turn it came into play (no evolution on a player's first turn, nor of a "
    "Pokémon that came into play or evolved this turn: docs/rules.md §6)"
)
EVOLVED_TWICE: Final = N_(
    "{card} ({pid}) evolved on the turn it already evolved (no evolution on a player's first turn, nor of "
    "a Pokémon that came into play or evolved this turn: docs/rules.md §6)"
)
NOT_ACTIVE: Final = N_("the attacker {attacker} is not {player}'s Active Pokémon")
UNABLE: Final = N_("{card} ({pid}) attacked while {condition}")
# knockouts and prizes
KO_NOT_DUE: Final = N_("{card} ({pid}) claimed Knocked Out with {left} HP left ({damage} damage of {hp})")
KO_NOT_CLAIMED: Final = N_("{card} ({pid}) reached 0 HP at seq {seq} but the source reported no knockout")
PRIZE_COUNT: Final = N_("{player} took {claimed} prize(s); the knockouts give {owed}")
PRIZE_WITHOUT_KO: Final = N_("{player} took {count} prize(s) with no knockout owing any")
PRIZES_NOT_LEFT: Final = N_(
    "{player} took {count} prize card(s) by a card effect with {left} left; took {took}"
)
PROMOTED_EARLY: Final = N_(
    "{player} promoted before {due}, who takes the next turn and promotes first (JP3.4 §I-D step 5)"
)
PROMOTED_WHILE_ACTIVE: Final = N_("{player} promoted {pid} while {active} is still Active")
WINDOW_NOT_CLOSED: Final = N_("the {window} window was not closed; checked for knockouts here")
# the result and penalties
SECOND_CLAIM: Final = N_("a second game_ended claim replaces the first")
CLAIM_NOT_ENDED: Final = N_("the source says {said}; the events do not end the game")
CLAIM_DIFFERS: Final = N_("the source says {said}; the rules give {got} ({reason} at seq {decided})")
REASON_DIFFERS: Final = N_("the source gives reason {said!r}; the engine {reason!r}")
REASON_OWN_WORDS: Final = N_("the source gives a reason in its own words; the engine {reason!r}")
PENALTY_NO_COUNT: Final = N_("a prize_penalty without its number of prizes: recorded, no prizes applied")
PENALTY_COUNT: Final = N_(
    "a prize penalty of {count} prize(s) is not one {ruleset} gives ({allowed}); applied as given"
)
# an importer's note that carries a finding: its text is for judges
NOTE_FINDING: Final = N_("reported by the source in a note{where}; the note's text is for judges")
NOTE_OWN_FINDING: Final = N_(
    "the source reports a finding of its own in a note{where}; its code and text are for judges"
)
NOTE_LINE: Final = N_(" (line {line} of its input)")

#: The sentences of each code's findings (replay.i18n.findings reads a message back by them).
SENTENCES: Final[dict[str, tuple[str, ...]]] = {
    "wrong_match": (WRONG_MATCH,),
    "late_event": (LATE_EVENT,),
    "duplicate_seq": (DUPLICATE_SEQ, SECOND_START),
    "seq_gap": (SEQ_GAP,),
    "no_match_started": (NO_START,),
    "event_after_end": (AFTER_END,),
    "unknown_ruleset": (UNKNOWN_RULESET,),
    "unknown_player": (UNKNOWN_PLAYER,),
    "unknown_pokemon": (NO_POKEMON, PID_IN_PLAY, NOT_ON_BENCH, PROMOTED_NOT_ON_BENCH),
    "corrected": (CORRECTION_NO_TARGET, AMENDMENT_NO_EVENT, AMENDMENT_INVALID, VOIDED, AMENDED),
    "turn_order": (TURN_STARTED, TURN_ENDED, FIRST_NOT_PLAYER, ATTACK_OTHERS_TURN),
    "promotion_missing": (NO_NEW_ACTIVE,),
    "deck_count_mismatch": (DECK_COUNT,),
    "draw_from_empty_deck_not_loss": (EMPTY_DECK,),
    "card_count": (CARD_COUNT,),
    "supporter_first_turn": (SUPPORTER_FIRST_TURN,),
    "second_supporter": (SECOND_SUPPORTER,),
    "second_stadium": (SECOND_STADIUM,),
    "second_energy": (SECOND_ENERGY,),
    "second_retreat": (SECOND_RETREAT,),
    "attack_first_turn": (ATTACK_FIRST_TURN,),
    "evolved_too_early": (EVOLVED_FIRST_TURN, EVOLVED_NEW, EVOLVED_TWICE),
    "attacker_not_active": (NOT_ACTIVE,),
    "attack_while_unable": (UNABLE,),
    "ko_not_due": (KO_NOT_DUE,),
    "ko_not_claimed": (KO_NOT_CLAIMED,),
    "prize_count_mismatch": (PRIZE_COUNT,),
    "prize_without_ko": (PRIZE_WITHOUT_KO,),
    "prizes_not_left": (PRIZES_NOT_LEFT,),
    "promotion_order": (PROMOTED_EARLY, PROMOTED_WHILE_ACTIVE),
    "window_not_closed": (WINDOW_NOT_CLOSED,),
    "result_mismatch": (SECOND_CLAIM, CLAIM_NOT_ENDED, CLAIM_DIFFERS),
    "reason_mismatch": (REASON_DIFFERS, REASON_OWN_WORDS),
    "penalty_prizes": (PENALTY_NO_COUNT, PENALTY_COUNT),
    SOURCE_FINDING: (NOTE_OWN_FINDING,),
}
#: The sentences of a note's finding, whatever its code (an importer's code keeps its own).
NOTE_SENTENCES: Final[tuple[str, ...]] = (NOTE_FINDING,)
#: Pieces a sentence's field is made of, translated with it (an author, a line of the input).
PIECES: Final[tuple[str, ...]] = (BY, NOTE_LINE)

# Why a turn rule's finding has its severity on a digital client's log [decisions 3]: the judge-only
# ``detail`` of the finding (replay/engine/restrictions.py), after the card it names when it names one.
NOT_LIFTED: Final = N_("no card effect in the catalogue lifts this rule, even on a digital client's log")
IN_VIEW: Final = N_("{cards} (in view) may allow it on this digital client's log")
ENFORCED: Final = N_(
    "a digital client enforces the rules: a card effect the engine does not model may allow it"
)
#: The sentences of a finding's ``detail`` that are the engine's own words (the others quote a source).
DETAIL_SENTENCES: Final[tuple[str, ...]] = (NOT_LIFTED, IN_VIEW, ENFORCED)
#: A detail that names a card before its sentence: the card as written, the sentence translated.
DETAIL_AFTER: Final = "{named}; {why}"


def say(template: str, **fields: object) -> str:
    """A finding's message: ``template`` (one of :data:`SENTENCES`) with its fields filled, in English."""
    return template.format(**fields)


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
