"""A deck check's sentence in the reader's language (issue 34 item 5).

The deck check (replay.sources.deckcheck) writes each finding's ``message`` in English from one of
:data:`SENTENCES`, and that English is what a report's document keeps (its JSON and CSV bytes never depend
on a reader). The report's text and HTML forms show it through :func:`message`, read back by the template
that wrote it (replay.i18n.sentences) and filled in the reader's language: the player and the card as
written (the card's name is then shown in the reader's language by the report, as everywhere), the counts
as numbers. A sentence no template reads (a document written before a sentence changed) is shown as it is.
"""

from __future__ import annotations

from typing import Final

from replay import i18n
from replay.i18n import N_
from replay.i18n.sentences import translate

NOT_ON_LIST: Final = N_("{player} put {card} into play; it is not on their deck list")
OTHER_PRINTING: Final = N_(
    "{player} put {card} (HP {hp}) into play; the {card} on their deck list is another card (same name, "
    "other card text)"
)
MORE_THAN_LISTED: Final = N_(
    "{player} has put {seen} copies of {card} into play; their deck list holds {listed}"
)
#: Every sentence the deck check writes.
SENTENCES: Final[tuple[str, ...]] = (NOT_ON_LIST, OTHER_PRINTING, MORE_THAN_LISTED)

# A deck list's breaches of the deck rules (replay.sources.legality.check_deck: ``decks import --play``)
DECK_SIZE: Final = N_("the deck holds {total} cards, not {size}")
TOO_MANY_COPIES: Final = N_("{n} copies of {card}: at most {most} of a name (basic Energy excepted)")
ACE_SPEC: Final = N_("{cards}: at most 1 ACE SPEC card in a deck")
RADIANT: Final = N_("{cards}: at most 1 Radiant Pokémon in a deck")
UNKNOWN_CARD: Final = N_("{line}: not in the card catalogue, so its legality is not checked")
NOT_RELEASED: Final = N_("{line}: not released by {date}")
BANNED: Final = N_("{line}: banned in {format} since {date}")
REGULATION_MARK: Final = N_("{line}: regulation mark {marks}; Standard at {date} allows {oldest} and later")
#: Every sentence the deck rules' check writes.
RULES: Final[tuple[str, ...]] = (
    DECK_SIZE,
    TOO_MANY_COPIES,
    ACE_SPEC,
    RADIANT,
    UNKNOWN_CARD,
    NOT_RELEASED,
    BANNED,
    REGULATION_MARK,
)


def message(lang: str, text: str) -> str:
    """A deck check's ``text`` (as its finding keeps it, in English) in ``lang``; ``text`` itself in
    English or when no template of :data:`SENTENCES` wrote it."""
    if lang == i18n.DEFAULT:
        return text
    return translate(lang, SENTENCES, text) or text


def rule(lang: str, text: str) -> str:
    """A deck rule's breach ``text`` (replay.sources.legality, in English) in ``lang``; as it is in English
    or when none of :data:`RULES` wrote it."""
    if lang == i18n.DEFAULT:
        return text
    return translate(lang, RULES, text) or text
