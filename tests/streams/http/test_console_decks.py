"""The console's deck lists (``console.decks`` in match_started, docs/console.md): a list that does not read
as a deck list is refused at the edge, naming the player's list and its line, so the deck check
(docs/decks.md) never meets half a list."""

from __future__ import annotations

from tests.streams.http.served import Served
from tests.streams.http.test_console_api import opening, publish, served

__all__ = ["served"]  # the console's fixture: a recorder token


async def test_a_console_deck_list_is_read_before_it_is_stored(served: Served) -> None:
    s = opening("d1")
    good = "Pokémon: 4\n4 Pikachu ex SVI 57\nTrainer: 4\n4 Poké Pad POR 81\n"
    bad = "Pokémon: 4\n4 Pikachu ex SVI 57\nTrainer: 4\n4 Poké Pad POR 81\nfour Iono PAL 185\n"
    started = {**s.events[0], "console": {"decks": {"ash": good, "misty": bad}}}
    status, answer = await publish(served, "d1", [started, *s.events[1:]])
    assert status == 400 and answer["code"] == "bad_event"
    assert answer["error"] == (
        "event 0: console.decks.misty:5: not a card line (COUNT NAME SET NUMBER) nor a heading: "
        "'four Iono PAL 185'"
    )
    assert await served.store.events("d1") == []
    started["console"]["decks"]["misty"] = ""  # a list not given yet is no list, not a bad one
    status, answer = await publish(served, "d1", [started, *s.events[1:]])
    assert status == 200, answer
