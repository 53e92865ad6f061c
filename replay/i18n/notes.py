"""An importer's own note in the reader's language (issue 34 item 5).

The importers (replay.sources.ptcgl, replay.sources.sheet, a scan's: replay.i18n.scan_notes) write each
of their findings' sentences in English from one of :data:`SENTENCES`, and that English is what the
``note`` event keeps (``author: "importer"``: the stream's bytes and the golden digests never depend on a
reader). Where such a note is shown (the review page's battle log, a finding's judge-only ``detail``)
:func:`text` reads it back by the template that wrote it and fills the template's translation: the
players, Pokémon ids and numbers as written, each card by the caller's ``card`` (its name in the reader's
language); in Korean each particle after a field in the form the field's text takes (replay.i18n.korean).
A scanned sheet's note rows for unclear marks are the scan's sentences too (:func:`of_note`). A note a
person wrote (a judge's, a recorder's, a typed sheet's note row), and an importer's sentence no template
reads (a record written before a sentence changed), is shown as it is.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Final

from replay import i18n
from replay.i18n import N_, korean, scan_notes
from replay.i18n.sentences import Fill, translate

#: The ``author`` of a note an importer wrote (replay.sources.common.note).
IMPORTER: Final = "importer"

# PTCGL (replay.sources.ptcgl): a card's HP where its printings differ
HP_AMBIGUOUS: Final = N_(
    "{card} has printings with HP {hps}: nothing in the log tells which, its HP is left unknown"
)
HP_CHOICE_FIT: Final = N_(
    "{card} has printings with HP {hps}; the damage read ({damage}) knocks out {fit}: took HP {hp}"
)
HP_CHOICE_EFFECT: Final = N_(
    "{card} has printings with HP {hps}; {effect} Knocks it Out by its card text, whatever its HP: "
    "took HP {hp}"
)
HP_UNVERIFIED: Final = N_(
    "{card} has printings with HP {hps} and none fits the damage read ({damage}): its knockout stays the "
    "log's claim, unverified"
)
HP_UNKNOWN_ALL: Final = N_(
    "HP unknown for all Pokémon: knockouts are audited from the log's own knockout claims"
)
HP_UNKNOWN: Final = N_("HP unknown for {cards}: knockouts are audited from the log's own knockout claims")
# same-named Pokémon: which one a line means
GUESS_PID_SAME: Final = N_("{n} Pokémon named {card} ({pids}) fit {what}; took {pid} (they look identical)")
GUESS_PID_BY: Final = N_("{n} Pokémon named {card} ({pids}) fit {what}; took {pid}, {clue}")
GUESS_PID: Final = N_("{n} Pokémon named {card} ({pids}) fit {what}; took {pid}")
GUESS_OWNER_BOTH: Final = N_(
    "both players have {card} in play and the log's owner name is unreliable in this line; took {player}'s"
)
# players and turns
GUESS_PLAYER_HEADER: Final = N_("turn header without a player name ({line}); took {player} ({why})")
GUESS_PLAYER_ONE: Final = N_(
    "only one handle ({player}) appears in the log; the other player is called {other}"
)
GUESS_FIRST: Final = N_("the log does not say who went first; assumed {player}")
MISSING_SETUP: Final = N_(
    "the log shows no Active Pokémon for {player} at setup (a paste that starts mid-game?): the Pokémon it "
    "names before they enter play are put in a setup for them"
)
# cards the log does not show moving
GUESS_ZONE_ATTACK_N: Final = N_(
    "{player} discarded {n} cards during an attack: from the hand or the deck, the log does not say; took "
    "the hand"
)
GUESS_ZONE_ATTACK: Final = N_(
    "{player} discarded {cards} during an attack: from the hand or the deck, the log does not say; took the "
    "hand"
)
COUNT_UNKNOWN: Final = N_(
    "the log takes {n} more card(s) from {player}'s {zone} than the lines read put there: it does not show "
    "how they got there; counted as cards from the deck (or, when the deck has none left, the discard pile "
    "or the Prize cards)"
)
OWNER_UNVERIFIED: Final = N_(
    "{n} card(s) milled from {player}'s deck as the log prints it; a deck is not on the board, so the owner "
    "could not be checked"
)
PRIZE_MODIFIER: Final = N_(
    "{player} took {n} prize card(s) where the knocked-out kinds give {base}: assumed a card effect changed "
    "the prize value"
)
NO_PRIZE_LINE: Final = N_(
    "no prize line for {player} after the knockout of {cards} (lines {lines}) and the game goes on: taken as "
    "0 Prize cards where the knocked-out kinds give {base} (a card effect such as Legacy Energy)"
)
KO_WITHOUT_DAMAGE: Final = N_(
    "{player}'s {card} ({pid}) is Knocked Out in the log with {left} HP left by the lines read: claimed as a "
    "knockout by an effect"
)
CARD_UNKNOWN: Final = N_(
    "{player} played {card}: the card catalogue does not know it as a Trainer; taken as an effect that moves "
    "no card"
)
GUESS_BENCHED: Final = N_("{player}'s {card} was not seen on the Bench; assumed it was benched as {pid}")
AFTER_END: Final = N_("after the end line: {line}")
TEXT_AFTER_END: Final = N_("text after the end line: {line}")
# whose cards a line means, when the client prints another player's name
OWNER_SHOWN: Final = N_(
    "a '{what}' line printed for {player} names the cards, as the log does only for the exporter: "
    "took {other}"
)
OWNER_HIDDEN: Final = N_(
    "a '{what}' line printed for {player} hides the cards, as the log does only for the other player: "
    "took {other}"
)
OWNER_RETURN: Final = N_(
    "{player} puts cards back, but only {other} shuffled their hand in this effect: took {other}"
)
OWNER_DRAW: Final = N_("{player} draws, but only {other} put cards back in this effect: took {other}")
OWNER_SECOND: Final = N_(
    "a second '{what}' line for {player} in one effect: the client prints the acting player here; "
    "took {other}"
)
# where a card came from, when the log does not say
ZONE_HAND: Final = N_("{card} moved to {player}'s hand from a zone the log does not name; took the deck")
ZONE_DISCARD: Final = N_(
    "{card} moved to the discard pile from a zone the log does not name; took the top of the deck"
)
ZONE_OTHER: Final = N_("{card} moved to {zone} from a zone the log does not name; took the hand")
# attached cards
ATTACHED_LEFT: Final = N_(
    "{card} left {player}'s {pokemon} ({pid}) for {zone}: the card was attached, not in a hand (the contract "
    "moves it through the discard pile)"
)
ATTACHED_MOVED: Final = N_(
    "{card} moved from {player}'s {pokemon} ({holder}) to {target} ({pid}): the effect moves Energy between "
    "Pokémon (the contract moves it through the discard pile)"
)
GUESS_ATTACHED: Final = N_(
    "{card} was attached to {pid}, not {other}: the cards listed with the knockout of {pokemon} do not hold "
    "it (attachment corrected)"
)
HP_TOOL: Final = N_(
    "{card} gives {player}'s {pokemon} ({pid}) {bonus} HP (the card's text): HP {hp} for this stage"
)
KO_BY_EFFECT: Final = N_(
    "{move} Knocks Out {player}'s {card} ({pid}) by its card text: its remaining {left} HP is placed as the "
    "move's damage, so the knockout is checked against HP"
)
UNMATCHED: Final = N_("no template matches: {line}")
# the rarer PTCGL sentences (issue 34 item 5: the last English ones)
HP_EFFECT_ATTACHED: Final = N_(
    "{card} attached to {player}'s {pokemon} ({pid}) may change the HP of {player}'s {pokemon} ({pid}) on a "
    "condition the card catalogue cannot check, or below the damage it survived: its HP is left unknown "
    "(knockouts from the log's claims)"
)
HP_EFFECT_STADIUM: Final = N_(
    "{card} in play may change the HP of {player}'s {pokemon} ({pid}) on a condition the card catalogue "
    "cannot check, or below the damage it survived: its HP is left unknown (knockouts from the log's claims)"
)
HP_EFFECT_LOST: Final = N_(
    "{player}'s {card} ({pid}) lost a card that gave it HP after surviving more damage than its HP without "
    "it: one HP does not fit the whole stage, so it is left unknown (knockouts from the log's claims)"
)
EXPORTER_UNKNOWN: Final = N_("nothing in the log shows whose view it is (no named draw, no opening hand)")
EXPORTER_CONFLICT: Final = N_("the log shows hidden information of both players; took {player}")
GUESS_OWNER_ONLY: Final = N_(
    "the log names {player} as owner of {card}, but only {other} has one in play; took {other}'s"
)
GUESS_OWNER_MILLED: Final = N_(
    "{n} card(s) milled: the line names {player} as mover and {owner} as owner during {actor}'s action; "
    "took {actor}'s deck"
)
GUESS_ENTERED_ACTIVE: Final = N_(
    "{player}'s {card} was not seen entering play; assumed it was put on the Active Spot as {pid}"
)
GUESS_ENTERED_BENCH: Final = N_(
    "{player}'s {card} was not seen entering play; assumed it was put on the Bench as {pid}"
)
GUESS_POKEMON_COUNT: Final = N_("{player} put {n} Pokémon into play but the log lists {count} names")
GUESS_SOURCE_UNNAMED: Final = N_(
    "{what} (cards) came from {player}'s hand, deck or discard pile: the log does not say; took the hand"
)
GUESS_SOURCE: Final = N_(
    "{what} ({cards}) came from {player}'s hand, deck or discard pile: the log does not say; took the hand"
)
GUESS_REMOVED_BENCH: Final = N_(
    "{card} moved to {zone}: no card of that name is in {player}'s discard pile, so the Benched {card} "
    "({pid}) left play"
)
GUESS_REMOVED_ACTIVE: Final = N_(
    "{card} moved to {zone} with no new Active after it: taken as a card from outside play, not {player}'s "
    "Active"
)
GUESS_REMOVED_STADIUM: Final = N_(
    "{player} discarded {card} as a Stadium came into play: taken as the Benched {card} ({pid}) leaving "
    "play (a Bench limit), not a card from the hand"
)
DAMAGE_CORRECTED: Final = N_(
    "{n} damage guessed onto {player}'s {card} ({pid}) went to {twin}: {pid} survived with its HP ({hp}) "
    "reached otherwise (damage corrected)"
)
PROMOTION_KNOCKED_OUT: Final = N_(
    "{player}'s {card}: {twin} was promoted, not {pid}: {pid} is knocked out with HP left otherwise (the "
    "events since the promotion corrected)"
)
PROMOTION_SURVIVES: Final = N_(
    "{player}'s {card}: {twin} was promoted, not {pid}: {pid} survives with its HP reached otherwise (the "
    "events since the promotion corrected)"
)
PRIZE_WITHOUT_KO: Final = N_(
    "{player} took {n} prize card(s) but no knockout of the opponent's Pokémon is printed near it"
)
KO_UNKNOWN_PLAYER: Final = N_("knockout of a Pokémon of unknown player {player}")
MOVED_UNREAD_SOMEWHERE: Final = N_("{n} cards moved to a zone: not read")
MOVED_UNREAD: Final = N_("{n} cards moved to {zone}: not read")
MOVED_NOWHERE: Final = N_("{card} moved: the log does not say where")
DEVOLVED: Final = N_(
    "a devolution ({card} to {target}): the contract has no event for it; the engine's board keeps the "
    "evolved card's name and HP"
)
HEADER_NOT_IN_GAME: Final = N_("turn header names {player}, who is not in this game; took {other}")
TURN_ENDED_OTHER: Final = N_("{player} ended a turn that is {other}'s")
DECK_FLOOR: Final = N_(
    "the events leave {player} no card in deck, but the log shows the turn's draw: one card is put back "
    "from the {zone} (some returns to the deck are not in the log)"
)
DECK_OUT_NO_HEADER: Final = N_(
    "a deck-out end line that does not follow a turn header: the events cannot show it"
)
DECK_OUT_OTHER_TURN: Final = N_("deck-out of {player}, but the last turn header is {other}'s")
UNKNOWN_REASON: Final = N_(
    "unknown end reason {reason}: the game ends with the winner the log names ({player}), reason unknown"
)
CONCEDED_AFTER: Final = N_(
    "{player} conceded after the knockout that took {winner}'s last Prize cards or left {player} no "
    "Pokémon: that knockout decided the game first (docs/rules.md §1), the concession comes after it"
)
CONCEDED_DURING: Final = N_(
    "{player} conceded during the knockout of {cards} (lines {lines}), before its Prize cards were taken: "
    "the concession decides the game (docs/rules.md §3: the result is judged after the prizes); the "
    "knockout is not emitted"
)
PARTLY_READ: Final = N_(
    "read as a shorter sentence ({key}) than the one it holds ({partial}): the rest of the line is not read"
)
NOT_IN_GAME: Final = N_("names a player who is not in this game: {line}")
# a sheet (replay.sources.sheet; a scan's rows too)
SHEET_LOW_CONFIDENCE_SCAN: Final = N_(
    "row {row} ({what}) read with confidence {confidence} (scan {scan}): check it against the sheet"
)
SHEET_LOW_CONFIDENCE: Final = N_(
    "row {row} ({what}) read with confidence {confidence}: check it against the sheet"
)
SHEET_GUESS_OWNER: Final = N_("row {row}: {card} is not in play for {player}; took {owner}'s")
SHEET_GUESS_ACTIVE: Final = N_("row {row}: {n} Pokémon named {card} for {player}; took the Active ({pid})")
SHEET_GUESS_FIRST: Final = N_(
    "row {row}: {n} Pokémon named {card} for {player}; took the first ({pid}); write {card}#2 etc. to choose"
)
SHEET_HP_UNKNOWN: Final = N_(
    "HP unknown for some Pokémon (no catalogue entry): knockouts are audited from the sheet's claims"
)
SHEET_NO_ACTIVE: Final = N_("the sheet gives no Active Pokémon for {player}")
SHEET_AFTER_RESULT: Final = N_("row {row} ({what}) after the result row")

#: Every importer sentence shown in the reader's language, the more specific of two alike first.
SENTENCES: Final[tuple[str, ...]] = (
    HP_AMBIGUOUS,
    HP_CHOICE_FIT,
    HP_CHOICE_EFFECT,
    HP_UNVERIFIED,
    HP_UNKNOWN_ALL,
    HP_UNKNOWN,
    GUESS_PID_SAME,
    GUESS_PID_BY,
    GUESS_PID,
    GUESS_OWNER_BOTH,
    GUESS_PLAYER_HEADER,
    GUESS_PLAYER_ONE,
    GUESS_FIRST,
    MISSING_SETUP,
    GUESS_ZONE_ATTACK_N,
    GUESS_ZONE_ATTACK,
    COUNT_UNKNOWN,
    OWNER_UNVERIFIED,
    PRIZE_MODIFIER,
    NO_PRIZE_LINE,
    KO_WITHOUT_DAMAGE,
    CARD_UNKNOWN,
    GUESS_BENCHED,
    AFTER_END,
    TEXT_AFTER_END,
    OWNER_SHOWN,
    OWNER_HIDDEN,
    OWNER_RETURN,
    OWNER_DRAW,
    OWNER_SECOND,
    ZONE_HAND,
    ZONE_DISCARD,
    ZONE_OTHER,
    ATTACHED_LEFT,
    ATTACHED_MOVED,
    GUESS_ATTACHED,
    HP_TOOL,
    KO_BY_EFFECT,
    UNMATCHED,
    HP_EFFECT_ATTACHED,
    HP_EFFECT_STADIUM,
    HP_EFFECT_LOST,
    EXPORTER_UNKNOWN,
    EXPORTER_CONFLICT,
    GUESS_OWNER_ONLY,
    GUESS_OWNER_MILLED,
    GUESS_ENTERED_ACTIVE,
    GUESS_ENTERED_BENCH,
    GUESS_POKEMON_COUNT,
    GUESS_SOURCE_UNNAMED,
    GUESS_SOURCE,
    GUESS_REMOVED_BENCH,
    GUESS_REMOVED_ACTIVE,
    GUESS_REMOVED_STADIUM,
    DAMAGE_CORRECTED,
    PROMOTION_KNOCKED_OUT,
    PROMOTION_SURVIVES,
    PRIZE_WITHOUT_KO,
    KO_UNKNOWN_PLAYER,
    MOVED_UNREAD_SOMEWHERE,
    MOVED_UNREAD,
    MOVED_NOWHERE,
    DEVOLVED,
    HEADER_NOT_IN_GAME,
    TURN_ENDED_OTHER,
    DECK_FLOOR,
    DECK_OUT_NO_HEADER,
    DECK_OUT_OTHER_TURN,
    UNKNOWN_REASON,
    CONCEDED_AFTER,
    CONCEDED_DURING,
    PARTLY_READ,
    NOT_IN_GAME,
    SHEET_LOW_CONFIDENCE_SCAN,
    SHEET_LOW_CONFIDENCE,
    SHEET_GUESS_OWNER,
    SHEET_GUESS_ACTIVE,
    SHEET_GUESS_FIRST,
    SHEET_HP_UNKNOWN,
    SHEET_NO_ACTIVE,
    SHEET_AFTER_RESULT,
    # a scan's low_confidence note (replay.sources.scan.photo): last, its first field ends at any ": "
    scan_notes.LOW_CONFIDENCE,
)

# A scanned sheet's note rows (replay.i18n.scan_notes): a part of the sheet whose marks the scan could
# not read cleanly, kept as one of the sheet's note rows (``author: "sheet"``, the row's ``scan``).
SCAN_SENTENCES: Final[tuple[str, ...]] = scan_notes.NOTE_ROWS
#: The ``author`` of a sheet's note row (replay.sources.sheet).
SHEET: Final = "sheet"

# What a same-named Pokémon fits, and the clue that picked one (replay.sources.ptcgl.cards: pieces of
# GUESS_PID*, translated with it; one the list does not hold stays English inside the translation).
GUESS: Final = N_("{clue} (a guess)")
PIECES: Final[tuple[str, ...]] = (
    N_("the knockout"),
    N_("the attachment"),
    N_("the new Active Pokémon"),
    N_("the Pokémon put into the hand"),
    N_("the damage counters"),
    N_("the switch"),
    N_("the one just played"),
    N_("the evolution"),
    N_("the devolution"),
    N_("the attacker"),
    N_("the attack's target"),
    N_("the spread damage"),
    N_("the checkup damage"),
    N_("the healing"),
    N_("the damage counters moved"),
    N_("the Special Condition"),
    N_("the discarded attachment"),
    # the lines of one effect whose owner the client prints wrong (OWNER_SHOWN, OWNER_HIDDEN, OWNER_SECOND)
    N_("cards to the deck"),
    N_("cards shuffled into the deck"),
    N_("drew N cards"),
    # a card's printings' HP, with what the cards in play add (HP_AMBIGUOUS and alike)
    N_("{hps} (with {bonus} HP from the cards in play)"),
    # the clue that picked one (replay.sources.ptcgl.cards.clues)
    N_("the one with the most Energy attached, then the least damage (a guess)"),
    N_("one this effect has not hit yet"),
    N_("a Benched one"),
    N_("not one already taken"),
    N_("the one whose damage reaches its HP"),
    N_("the one this effect damaged"),
    N_("the Active one"),
    N_("the damaged one"),
    GUESS,
    # what an effect put into play or onto a Pokémon, when the log does not say where from (GUESS_SOURCE)
    N_("the cards put into the hand"),
    N_("the attached card"),
    N_("the evolution card"),
    # why a turn header without a name is a player's
    N_("the turn's draw"),
    N_("who goes first"),
    N_("the turn order"),
    N_("the turn's draw, though the turn order gives {player}"),
)

#: A zone as a sentence names it (``zone``: the table's zone, its ``_`` written as a space or not).
ZONES: Final[dict[str, str]] = {
    "hand": N_("hand"),
    "deck": N_("deck"),
    "discard": N_("discard pile"),
    "prizes": N_("Prize cards"),
    "lost zone": N_("Lost Zone"),
    "lost_zone": N_("Lost Zone"),
}

#: The fields of :data:`SENTENCES` that hold one card's name, and several (joined by ", ").
CARD_FIELDS: Final[tuple[str, ...]] = ("card", "pokemon", "target")
CARD_LIST_FIELDS: Final[tuple[str, ...]] = ("cards",)


def _fill(lang: str) -> Fill | None:
    """How a translated sentence is filled: in Korean, each particle after a field in the form the field's
    text takes (replay.i18n.korean); else the fields as they are."""
    return korean.fill if lang == "ko" else None


def say(template: str, **fields: object) -> str:
    """An importer's sentence: ``template`` (one of :data:`SENTENCES`) filled, in English."""
    return template.format(**fields)


def text(lang: str, said: str, card: Callable[[str], str] | None = None) -> str:
    """An importer's note ``said`` (as the note keeps it, in English) in ``lang``, each card it names
    shown by ``card``; ``said`` itself in English or when no template of :data:`SENTENCES` wrote it."""
    if lang == i18n.DEFAULT or not isinstance(said, str):
        return said
    names: dict[str, Callable[[str], str]] = {
        "zone": lambda zone: i18n.gettext(lang, ZONES[zone]) if zone in ZONES else zone,
        **scan_notes.names(lang, _fill(lang)),
    }
    if card is not None:
        names.update(dict.fromkeys(CARD_FIELDS, card))
        for field in CARD_LIST_FIELDS:
            names[field] = lambda listed: ", ".join(card(n) for n in listed.split(", "))
    return translate(lang, SENTENCES, said, PIECES, names, _fill(lang)) or said


def of_note(lang: str, event: Mapping[str, Any], card: Callable[[str], str] | None = None) -> str | None:
    """A ``note`` event's text in ``lang``, each card it names shown by ``card``: an importer's own
    sentence (:func:`text`), a scanned sheet's note row the scan wrote (author ``sheet``, the row read
    from a scan: :data:`SCAN_SENTENCES`); None for any other note (a person's words: shown as written)."""
    said = event.get("text")
    if not isinstance(said, str) or not said:
        return None
    if event.get("author") == IMPORTER:
        return text(lang, said, card)
    if event.get("author") == SHEET and isinstance(event.get("scan"), str):
        return (
            said if lang == i18n.DEFAULT else translate(lang, SCAN_SENTENCES, said, fill=_fill(lang)) or said
        )
    return None
