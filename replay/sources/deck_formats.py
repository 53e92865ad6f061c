"""The names a deck list's options choose among, apart from the readers that use them: ``prizecheck decks
--help`` lists them without importing the deck reader (msgspec) or the legality check (the card catalogue)
(issue 40 item 2: a command's own start-up under 150 ms)."""

from __future__ import annotations

from typing import Final

#: A deck list file's formats (replay.sources.decks).
LIST_FORMATS: Final = ("ptcgl", "limitless", "csv")
#: The formats of play whose legality is checked (replay.sources.legality, docs/rules.md §8).
PLAY_FORMATS: Final = ("standard", "expanded")
