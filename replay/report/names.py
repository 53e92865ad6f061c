"""Card names as a report shows them: in the reader's language (issue 34 item 4)."""

from __future__ import annotations

from collections.abc import Callable

#: How a report shows a card's name: the command line hands in the card catalogue's, in the reader's
#: language (replay.sources.cards.card_name; the reports do not read the catalogue themselves)
CardName = Callable[[str], str]


def with_card_name(text: str, card: str, card_name: CardName | None) -> str:
    """``text``, a sentence that names ``card`` as the events write it, with the card's name as
    ``card_name`` shows it (``ash put Charmander into play`` -> ``ash put ヒトカゲ into play``)."""
    if card_name is None or not card:
        return text
    shown = card_name(card)
    return text if shown == card else text.replace(card, shown)
