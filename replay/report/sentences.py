"""The report's own sentences: written in English into the document, shown in the reader's language.

The JSON document keeps each sentence in English (its bytes are the same whatever the reader's language:
tests/report/test_report_document.py); each is written here by filling one of these templates, and the
HTML and text forms show it through :func:`replay.i18n.sentences.shown`, which reads the fields back by
the same templates. A sentence no template wrote is shown as it is.
"""

from __future__ import annotations

from typing import Final

from replay.i18n import N_, words
from replay.i18n.sentences import shown

# Why a game is to review (ReviewItem.why).
VIOLATIONS: Final = N_("{n} violation(s): {codes}")
DISAGREES: Final = N_("claimed result disagrees with the rules")
AWAITING_PLAYOFF: Final = N_("awaiting playoff {child}")
DECK_CHECK: Final = N_("deck check: {n} card(s) against the deck list ({cards})")
REVIEW: Final[tuple[str, ...]] = (VIOLATIONS, DISAGREES, AWAITING_PLAYOFF, DECK_CHECK)

# Why a top cut differs from the standings (TopCutCheck.why).
LET_IN: Final = N_("{player} (Swiss #{rank}) played in it")
LEFT_OUT: Final = N_("{player} (Swiss #{rank}) did not")
UNUSUAL_PAIRING: Final = N_("#{a} v #{b} is not the seeding's pairing")
TOP_CUT: Final[tuple[str, ...]] = (LET_IN, LEFT_OUT, UNUSUAL_PAIRING)

# A match result as the TDF and the records give it (reconciliation's ``tdf`` and ``records``); the other
# values are codes, shown by :func:`result_said`: a TDF outcome's name (``bye``) and a match status, written
# with spaces (``in progress``).
WON: Final = N_("{player} won")
TIE: Final = N_("tie")
DOUBLE_LOSS: Final = N_("double loss")
UNKNOWN_OUTCOME: Final = N_("unknown outcome code {code}")
RESULT: Final[tuple[str, ...]] = (WON, TIE, DOUBLE_LOSS, UNKNOWN_OUTCOME)

# Why TOM's standings differ from Prizecheck's (StandingDifference.why); the rows it names stay as written.
NO_STANDING: Final = N_("TOM places {player} in {division}; Prizecheck has no {division} standing for them")
DROPPED_ABOVE: Final = N_(
    "TOM ranks {player}, who dropped after round {round} ({points} pts, OWP {owp}%), above {rows}, who did "
    "not drop and have better tiebreakers (a known TOM behaviour: it appears to keep a dropped player's "
    "standing from the round they dropped)"
)
BELOW_DROPPED: Final = N_("below {players}, whom TOM ranks above them")
DROPPED_WORSE: Final = N_("{player}, who dropped after round {round} with worse tiebreakers")
RESULTS_DIFFER: Final = N_(
    "a match result of theirs in the records differs from the TDF's (see disagree and missing)"
)
LEVEL: Final = N_(
    "level with {players} on points, OWP and OOWP: TOM breaks such ties at random, Prizecheck by "
    "head-to-head, then player id"
)
TIEBREAKERS: Final = N_("Prizecheck's tiebreakers place them at {rank} ({row})")
ROW: Final = N_("{player}: {points} pts, OWP {owp}%, OOWP {oowp}%")
STANDINGS: Final[tuple[str, ...]] = (
    NO_STANDING,
    DROPPED_ABOVE,
    BELOW_DROPPED,
    RESULTS_DIFFER,
    LEVEL,
    TIEBREAKERS,
)
#: The parts of a standings sentence that are sentences of their own (one row, one dropped player).
STANDINGS_PIECES: Final[tuple[str, ...]] = (ROW, DROPPED_WORSE)


def result_said(lang: str, text: str) -> str:
    """A reconciliation's result (``tdf``, ``records``) in words of ``lang``: a sentence of :data:`RESULT`,
    a match's status (the document writes ``in progress`` for ``in_progress``) or a TDF outcome's name."""
    code = text.replace(" ", "_")
    if code in words.STATUSES or code in words.TDF_OUTCOMES:
        return words.said(lang, code, words.STATUSES, words.TDF_OUTCOMES)
    return shown(lang, RESULT, text)
