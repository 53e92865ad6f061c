"""An importer's own note in the reader's language (issue 34 item 5): the note keeps its English (the
importers write it from replay.i18n.notes' templates, byte for byte what they wrote before), the battle log
and a finding's judge-only detail show it in ja/ko; a note a person wrote stays as written."""

from __future__ import annotations

import re
from typing import Any

from replay.i18n import findings, notes
from replay.sources.cards import card_name
from replay.sources.ptcgl import parse_ptcgl
from replay.sources.sheet import parse_sheet
from streams.http.battle_log import card_in
from tests.builder import Stream, card
from tests.paths import DATA
from tests.streams.http.served import Served

JA = r"[\u3040-\u30ff\u4e00-\u9fff]"
KO = r"[\uac00-\ud7a3]"

#: Sentences the importers wrote before their templates moved to replay.i18n.notes, as they wrote them
#: (tests/data): the templates must write the same bytes.
WRITTEN = {
    "ptcgl/real": [
        "Froakie has printings with HP 50/60/70: nothing in the log tells which, its HP is left unknown",
        "2 Pokémon named Froakie (A2, A3) fit the attachment; took A2 (they look identical)",
        "HP unknown for Froakie, Pidgey: knockouts are audited from the log's own knockout claims",
        "Pidgey has printings with HP 50/60; the damage read (60) knocks out 50, 60: took HP 60",
    ],
}


def _importer_notes(events: list[dict[str, Any]]) -> list[str]:
    return [e["text"] for e in events if e["type"] == "note" and e.get("author") == notes.IMPORTER]


def test_the_importers_write_their_notes_english_as_before() -> None:
    written: set[str] = set()
    for path in sorted((DATA / "ptcgl").rglob("*.txt")):
        try:
            result = parse_ptcgl(
                path.read_text(encoding="utf-8"), match="m", filename=path.name, partial=True
            )
        except Exception:  # an input the importer refuses (another game, a language it does not read)
            continue
        written.update(_importer_notes(result.events))
    for sentences in WRITTEN.values():
        for sentence in sentences:
            assert sentence in written, sentence
    # most of what they write is read back by a template (the rest: docs/web.md, "Not translated yet")
    read = [s for s in written if notes.text("ja", s) != s]
    assert len(read) >= 0.9 * len(written), sorted(set(written) - set(read))


def test_a_sheets_note_is_read_back() -> None:
    path = DATA / "sheets" / "league_game.csv"
    result = parse_sheet(path.read_text(encoding="utf-8"), match="m", filename=path.name)
    said = _importer_notes(result.events)
    assert said
    for sentence in said:
        shown = notes.text("ko", sentence, card_in("ko"))
        assert shown != sentence and re.search(KO, shown), sentence


def test_an_importers_note_in_the_language_its_cards_named_in_it() -> None:
    text = notes.say(notes.HP_AMBIGUOUS, card="Pikachu ex", hps="200/210")
    assert (
        text
        == "Pikachu ex has printings with HP 200/210: nothing in the log tells which, its HP is left unknown"
    )
    assert notes.text("en", text, card_in("en")) == text
    for lang, script in (("ja", JA), ("ko", KO)):
        shown = notes.text(lang, text, card_in(lang))
        name = card_name("Pikachu ex", lang)
        assert name != "Pikachu ex" and name in shown and "200/210" in shown and re.search(script, shown)
    # a piece of the sentence (what the Pokémon fit, the clue that picked one) in the language too
    text = notes.say(
        notes.GUESS_PID_BY,
        n=2,
        card="Pikachu",
        pids="a1, a2",
        what="the knockout",
        pid="a1",
        clue="the one just played",
    )
    shown = notes.text("ja", text)
    assert "the knockout" not in shown and "the one just played" not in shown and "a1, a2" in shown
    # a zone by its word in the language
    text = notes.say(notes.COUNT_UNKNOWN, n=4, player="Oli", zone="hand")
    assert "手札" in notes.text("ja", text) and "패" in notes.text("ko", text)
    # a sentence no template wrote: as it is
    assert notes.text("ja", "judge called at table 12") == "judge called at table 12"
    # a finding's judge-only detail (the note's text) the same way
    text = notes.say(notes.GUESS_FIRST, player="misty")
    assert findings.detail("ja", text) == notes.text("ja", text) != text


def _game(match: str, said: str) -> list[dict[str, Any]]:
    s = Stream(match, context={"league": "L1", "season": "2026", "round": 1})
    s.setup("ash", ("a1", card("Pikachu ex", 200)))
    s.setup("misty", ("m1", card("Staryu", 30)))
    s.add(
        "note",
        text=said,
        author="importer",
        finding={"code": "importer_hp_ambiguous", "severity": "info", "line": 4},
    )
    s.add("note", text=said, author="judge:kim")  # a person's words: as written, even the same words
    s.turn("ash")
    return s.events


async def test_the_review_pages_log_shows_an_importers_note_in_the_language(served: Served) -> None:
    said = notes.say(notes.HP_AMBIGUOUS, card="Pikachu ex", hps="200/210")
    assert (await served.post(_game("n1", said))).status == 200
    async with served.http.get(f"{served.url}/review/n1/meta?lang=ja", headers=served.auth("judge")) as r:
        assert r.status == 200
        meta: dict[str, Any] = await r.json()
    texts = [line["text"] for line in meta["log"]]
    shown = notes.text("ja", said, card_in("ja"))
    assert shown != said and re.search(JA, shown)
    assert any(t.endswith(": " + shown) for t in texts), texts  # the importer's note, in Japanese
    assert any(t.endswith(": " + said) and "judge:kim" in t for t in texts), texts  # the judge's, as written
    # the finding the importer's note carries: its detail (for judges) in Japanese, the record in English
    found = [f for f in meta["record"]["findings"] if f["code"] == "importer_hp_ambiguous"]
    assert found and found[0]["detail"] == said
    assert meta["findings_detail"][meta["record"]["findings"].index(found[0])] == shown
