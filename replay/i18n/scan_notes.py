"""The scan importer's own sentences in the reader's language (issue 34 item 5).

A scanned sheet (replay.sources.scan) says what it could not read cleanly in two places, both kept in
English in the stream: a note row for marks in a part of the sheet no event comes from (``unclear marks
in the sheet's row 9``: one of the sheet's note rows, ``author: "sheet"``, with the row's ``scan``), and
the ``low_confidence`` finding's note (``author: "importer"``), which names the region, each unclear
mark's problem (the mark reader's words: replay.sources.scan.reader, .marks), the confidence and the crop.
:func:`problems` reads the problems back one by one (they are joined by ``"; "``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

from replay.i18n import N_
from replay.i18n.sentences import Fill, translate

# the note rows (replay.sources.scan.marks)
UNCLEAR_HEADER: Final = N_("unclear marks in the sheet's header")
UNCLEAR_ROW: Final = N_("unclear marks in the sheet's row {row}")
UNCLEAR_END: Final = N_("unclear marks in the sheet's end-of-game box")
UNCLEAR: Final[tuple[str, ...]] = (UNCLEAR_HEADER, UNCLEAR_ROW, UNCLEAR_END)
#: The header's note row when the main QR code could not be read and the spare one named the sheet.
SPARE_CODE: Final = N_(
    "the sheet's main QR code could not be read: its match, players and number were read from the small "
    "spare code beside it"
)
#: ... and the problem it is flagged for when the main code holds a context the spare one does not.
CONTEXT_UNREAD: Final = N_("the event, round and table are in the unread main QR code only: not known")
#: The header's note row when neither QR code could be read and the sheet was named from its printed
#: header (replay.sources.scan.printed): what was read, and where the players' names came from ...
PRINTED_NAMED: Final = N_(
    "neither of the sheet's QR codes could be read: the match id {match} and the ruleset {ruleset} were "
    "read from the text printed at its top, the players' names are those given with --players"
)
PRINTED_LETTERS: Final = N_(
    "neither of the sheet's QR codes could be read: the match id {match} and the ruleset {ruleset} were "
    "read from the text printed at its top, the players are named A and B (--players names them)"
)
PRINTED_READ_NAMES: Final = N_(
    "neither of the sheet's QR codes could be read: the match id {match}, the ruleset {ruleset} and the "
    "players' names {a} and {b} were read from the text printed at its top"
)
#: ... and the problem it is always flagged for: a judge checks the id against the header's crop.
PRINTED_CHECK: Final = N_(
    "the match id {match} was read from the printed text, not the QR code: check it against the crop"
)
#: ... and the names, when they were read from print too.
PRINTED_NAMES_CHECK: Final = N_(
    "the players' names {a} and {b} were read from the printed text, not the QR code: check them against "
    "the crop"
)
#: ... and the sheet's number in its batch, when it was read from print too.
PRINTED_NUMBER_CHECK: Final = N_(
    "the sheet's number, {n} of {count}, was read from the printed text, not the QR code: check it against "
    "the crop"
)
#: ... and the context (event, round, table...), when it was read from print too (its contract fields).
PRINTED_CONTEXT_CHECK: Final = N_(
    "the context ({context}) was read from the printed text, not the QR code: check it against the crop"
)
#: The header's note row when neither QR code nor the printed match id could be read and the match id
#: is the one ``import scan --match`` gave (a judge named the sheet by hand; issue 39) ...
GIVEN_NAMED: Final = N_(
    "neither of the sheet's QR codes could be read, nor its printed match id: the match id {match} was "
    "given with --match, not read from the sheet, the ruleset is {ruleset}, the players' names are those "
    "given with --players"
)
GIVEN_LETTERS: Final = N_(
    "neither of the sheet's QR codes could be read, nor its printed match id: the match id {match} was "
    "given with --match, not read from the sheet, the ruleset is {ruleset}, the players are named A and B "
    "(--players names them)"
)
#: ... with the players' printed names read (the id given, the rest of the header still read from print)
GIVEN_READ_NAMES: Final = N_(
    "neither of the sheet's QR codes could be read, nor its printed match id: the match id {match} was "
    "given with --match, not read from the sheet, the ruleset is {ruleset}, the players' names {a} and {b} "
    "were read from the text printed at its top"
)
#: ... and the problem it is always flagged for: a judge checks the photo is the game of that id.
GIVEN_CHECK: Final = N_(
    "the match id {match} was given with --match, not read from the sheet: check the crop is that game's "
    "sheet"
)
#: Every note row of a scanned sheet.
NOTE_ROWS: Final[tuple[str, ...]] = (
    *UNCLEAR,
    SPARE_CODE,
    PRINTED_NAMED,
    PRINTED_LETTERS,
    PRINTED_READ_NAMES,
    GIVEN_NAMED,
    GIVEN_LETTERS,
    GIVEN_READ_NAMES,
)

# the low_confidence finding's note (replay.sources.scan.photo)
LOW_CONFIDENCE: Final = N_("{region}: {problems}; confidence {confidence}: check the crop {ref}")
HEADER: Final = N_("the sheet's header")
END: Final = N_("the sheet's end-of-game box")
ROW: Final = N_("sheet row {row}")
REGIONS: Final[tuple[str, ...]] = (HEADER, END, ROW)
#: The problems when the reader names none.
NEAR_THRESHOLDS: Final = N_("marks near the thresholds")

#: One problem of a mark group, as the reader writes it (replay.sources.scan.reader._group), the more
#: specific of two alike first; each follows its group's label the first time (``LABELLED``).
BOXES: Final[tuple[str, ...]] = (
    N_("box {box} inked past its edges: scribbled out? read as marked"),
    N_("box {box} faint, between empty and marked, read as empty"),
    N_("box {box} faint, read as marked"),
    N_("box {box} holds a stroke from the row below, read as marked"),
    N_("box {box} holds a stroke from the row below, read as empty"),
    N_("box {box} between empty and marked, read as marked"),
    N_("box {box} between empty and marked, read as empty"),
    N_("box {box} scribbled out, read as not marked"),
    N_("box {box} at the edge of a shadow, read as not marked"),
    N_("{n} boxes marked ({boxes}), read as {box}"),
)
#: A row's or the end box's own problems (replay.sources.scan.marks), each part between ``"; "`` apart.
OWN: Final[tuple[str, ...]] = (
    N_("whose turn: no box marked"),
    N_("read as {side} (the turns alternate)"),
    N_("penalty: no kind marked"),
    N_("penalty: no player marked"),
    N_("not read"),
    N_("how the game ended is marked but not who won"),
    N_("no result read"),
    N_("who won is marked but not how the game ended"),
    N_("a concession with no winner"),
    CONTEXT_UNREAD,
    PRINTED_CHECK,
    PRINTED_NAMES_CHECK,
    PRINTED_NUMBER_CHECK,
    PRINTED_CONTEXT_CHECK,
    GIVEN_CHECK,
    NEAR_THRESHOLDS,
)
LABELLED: Final = N_("{label}: {problem}")
#: The mark groups' labels (replay.sources.scan.layout) and the words printed by boxes (the printer's).
LABELS: Final[tuple[str, ...]] = (
    N_("{side}'s mulligans"),
    N_("whose turn"),
    N_("prizes {side} took"),
    N_("{side}'s Pokémon Knocked Out"),
    N_("time called"),
    N_("penalty to"),
    N_("penalty"),
    N_("how the game ended"),
    N_("who won"),
    N_("Act"),
    N_("Prizes"),
    N_("No Pokémon"),
    N_("Deck-out"),
    N_("Concession"),
    N_("Time"),
    N_("Penalty"),
    N_("Draw"),
)
#: Every sentence of the scan's that a note holds whole.
SENTENCES: Final[tuple[str, ...]] = (*NOTE_ROWS, LOW_CONFIDENCE)


def problems(lang: str, said: str, fill: Fill | None = None) -> str:
    """The reader's problems ``said`` (joined by ``"; "``) in ``lang``, each by its template; one no
    template reads stays as written."""
    shown = []
    for part in said.split("; "):
        found = translate(lang, (*OWN, *BOXES), part, LABELS, fill=fill)
        if found is None:
            found = translate(lang, (LABELLED,), part, (*LABELS, *BOXES), fill=fill)
        shown.append(found or part)
    return "; ".join(shown)


def names(lang: str, fill: Fill | None = None) -> dict[str, Callable[[str], str]]:
    """How :data:`LOW_CONFIDENCE`'s fields are shown in ``lang`` (for :func:`translate`'s ``names``)."""
    return {
        "problems": lambda said: problems(lang, said, fill),
        "region": lambda said: translate(lang, REGIONS, said, fill=fill) or said,
    }
