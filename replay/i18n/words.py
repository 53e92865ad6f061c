"""The records' codes in words of a reader's language (issue 34 item 5): one table per kind of code.

The records, the report's JSON and CSV and the service's API write a game's status, its outcome, why it
ended, how a match was decided, where a game was recorded from, the state of a hash chain or a signature
and a finding's severity as codes (``awaiting_playoff``, ``deck_out``, ``two_game_wins``, ``unsigned``):
machines read them, and they stay. Where a person reads one (the review pages, the match list, the
report's text and HTML forms) it is shown by :func:`said` through one of these tables, each value a
message of the catalogues; a code no table knows (a newer version's) is shown as it is. The service
(``streams/http``) and the report (``replay/report``) read the same tables: a code has one wording.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

from replay import i18n
from replay.i18n import N_

Table = Mapping[str, str]

#: A game's or a match's status (a record's ``status``; a match's, replay/series.py).
STATUSES: Final[Table] = {
    "in_progress": N_("in progress"),
    "finished": N_("finished"),
    "awaiting_playoff": N_("awaiting its playoff"),
    "needs_tiebreaker": N_("needs a tiebreaker game"),
}

#: A TDF match's outcome code by its name (replay/report/tdf.py ``OUTCOMES``), as the report's
#: reconciliation writes it where the TDF gives no result of two players.
TDF_OUTCOMES: Final[Table] = {
    "not_reported": N_("not reported"),
    "player1": N_("player 1 won"),
    "player2": N_("player 2 won"),
    "tie": N_("tie"),
    "bye": N_("bye"),
}

#: A finding's severity (replay/engine/findings.py).
SEVERITIES: Final[Table] = {
    "violation": N_("violation"),
    "warning": N_("warning"),
    "info": N_("info"),
}

#: A token's role as the pages name it (docs/deployment.md's tokens); the command line keeps the codes.
ROLES: Final[Table] = {
    "judge": N_("judge"),
    "organizer": N_("organizer"),
    "ingest": N_("ingest"),
    "recorder": N_("recorder"),
}

#: A game's outcome (a record's ``result.outcome``) and a player's or a match's result (replay/series.py).
OUTCOMES: Final[Table] = {
    "win": N_("win"),
    # "draw" alone is the catalogues' word for drawing a card: the outcome has its own message, whose
    # English translation is "draw" (the English catalogue keeps a filled msgstr: tools/i18n.py)
    "draw": N_("draw (outcome)"),
    "no_winner": N_("no winner"),
    "double_loss": N_("double loss"),
    "undecided": N_("undecided"),
    "tie": N_("tie"),
    "loss": N_("loss"),
    "bye": N_("bye"),
}

#: Why a game ended (a record's ``result.reason``; docs/rules.md §1).
REASONS: Final[Table] = {
    "prizes": N_("every Prize card taken"),
    "no_pokemon": N_("no Pokémon in play"),
    "deck_out": N_("deck out"),
    "concession": N_("concession"),
    "penalty": N_("penalty"),
    "effect": N_("card effect"),
    "simultaneous": N_("both won at once"),
    "playoff": N_("playoff game"),
    "time": N_("time"),
    "double_loss": N_("double loss"),
}

#: How a best-of-three match was decided (replay/series.py's ``decided_by``).
DECIDED_BY: Final[Table] = {
    "two_game_wins": N_("two game wins"),
    "time": N_("more game wins at time"),
    "double_loss": N_("double loss"),
    "level": N_("level at time"),
}

#: A playoff's kind (docs/rules.md §6).
PLAYOFFS: Final[Table] = {
    "sudden_death": N_("sudden death"),
    "tiebreak": N_("tiebreak"),
    "tiebreaker_game": N_("tiebreaker game"),
}

#: Where a game was recorded from (``match_started.source.kind``; ``unknown`` when it gives none).
SOURCE_KINDS: Final[Table] = {
    "digital": N_("digital"),
    "scanned": N_("scanned sheet"),
    "manual": N_("entered by hand"),
    "unknown": N_("unknown"),
}

#: The state of a record's hash chain (replay/report/build.py).
CHAIN_STATES: Final[Table] = {
    "ok": N_("intact"),
    "missing": N_("missing"),
    "malformed": N_("malformed"),
}

#: The state of a record's signature (replay/report/build.py).
SIGNATURE_STATES: Final[Table] = {
    "unsigned": N_("unsigned"),
    "not_checked": N_("not checked"),
    "valid": N_("valid"),
    "invalid": N_("invalid"),
}

#: Where an event's byes and drops come from (the report's ``byes_from``).
BYES_FROM: Final[Table] = {
    "games": N_("the games"),
    "tdf": N_("the TDF"),
}

#: How a record's knockouts were audited (a record's ``audit.basis``).
BASES: Final[Table] = {
    "hp": N_("from HP"),
    "claims": N_("from claims"),
    "mixed": N_("mixed"),
}

#: The report's columns and row names that are codes (replay/report/tables.py).
COLUMNS: Final[Table] = {
    "games": N_("games"),
    "playoffs": N_("playoffs"),
    "playoff_games": N_("playoff games"),
    "second_tiebreaks": N_("second tiebreaks"),
    "rate": N_("rate"),
    "claims": N_("claims"),
    "agree": N_("agreeing"),
    "knockouts": N_("knockouts"),
    "verified": N_("verified from HP"),
    "from_claims": N_("taken from claims"),
    "basis": N_("audit basis"),
    "chain": N_("chain"),
    "signature": N_("signature"),
}


#: A claimed or derived result as the engine's ``result_mismatch`` sentence writes it: ``win for ash``.
RESULT_FOR: Final = N_("{outcome} for {player}")


def result_said(lang: str, text: str) -> str:
    """A result as the engine writes it in a finding (``win for ash``, ``draw``;
    ``replay.engine.outputs.Claim.said``) in words of ``lang``: ``ashの勝ち``."""
    outcome, sep, player = text.partition(" for ")
    shown = said(lang, outcome, OUTCOMES)
    if not sep:
        return shown
    return i18n.fill(lang, i18n.gettext(lang, RESULT_FOR), {"outcome": shown, "player": player})


def said(lang: str, code: str, *tables: Table) -> str:
    """``code`` in words of ``lang`` by the first of ``tables`` that knows it; as it is when none does."""
    for table in tables:
        message = table.get(code)
        if message is not None:
            return i18n.gettext(lang, message)
    return code
