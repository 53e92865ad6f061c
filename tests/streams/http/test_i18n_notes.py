"""An importer's own note in the reader's language (issue 34 item 5): the note keeps its English (the
importers write it from replay.i18n.notes' templates, byte for byte what they wrote before), the battle log
and a finding's judge-only detail show it in ja/ko; a note a person wrote stays as written."""

from __future__ import annotations

import json
import re
from string import Formatter
from typing import Any

from replay import i18n
from replay.i18n import findings, notes
from replay.i18n.sentences import read
from replay.sources.cards import card_name
from replay.sources.ptcgl import parse_ptcgl
from replay.sources.scan.layout import Header
from replay.sources.scan.marks import GroupRead, clear_reads, sheet_document
from replay.sources.sheet import parse_sheet
from streams.http.battle_log import card_in
from streams.http.battle_log import sentences as log_lines
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
        # written from f-strings before their templates (issue 34 item 5: the last English ones)
        "Ancient Booster Energy Capsule attached to player2's Brute Bonnet (B1) may change the HP of "
        "player2's Brute Bonnet (B1) on a condition the card catalogue cannot check, or below the damage it "
        "survived: its HP is left unknown (knockouts from the log's claims)",
        "the log names italianPlayer1 as owner of Pidgey, but only italianPlayer2 has one in play; took "
        "italianPlayer2's",
    ],
    "ptcgl": ["the log names Yuki as owner of Pidgey, but only Wren has one in play; took Wren's"],
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
    # every sentence they write is read back by a template, and shown in Japanese and Korean
    for lang, script in (("ja", JA), ("ko", KO)):
        unread = [s for s in written if not re.search(script, notes.text(lang, s))]
        assert not unread, (lang, sorted(unread))


def _sample(template: str) -> str:
    """``template`` filled with a value naming each field (a field written twice: the same value)."""
    return notes.say(template, **{name: f"<{name}>" for _, name, _, _ in Formatter().parse(template) if name})


def test_each_template_reads_back_as_itself() -> None:
    # the order of SENTENCES puts the more specific of two alike first: no sentence is read by another's
    # template (which would fill the wrong translation)
    templates = notes.SENTENCES + notes.SCAN_SENTENCES
    for template in templates:
        found = read(templates, _sample(template))
        assert found is not None and found[0] == template, template
        assert i18n.gettext("ja", template) != template and i18n.gettext("ko", template) != template
    for piece in notes.PIECES:
        assert i18n.gettext("ja", piece) != piece and i18n.gettext("ko", piece) != piece, piece


def test_a_sheets_note_is_read_back() -> None:
    path = DATA / "sheets" / "league_game.csv"
    result = parse_sheet(path.read_text(encoding="utf-8"), match="m", filename=path.name)
    said = _importer_notes(result.events)
    assert said
    for sentence in said:
        shown = notes.text("ko", sentence, card_in("ko"))
        assert shown != sentence and re.search(KO, shown), sentence


def test_a_scanned_sheets_unclear_marks_rows_are_read_back() -> None:
    # a scan with an unclear mark in a row no turn uses (and one in the header): the scan writes a note
    # row for each, in English as before; the review page's log shows it in the reader's language
    reads = clear_reads({"r1.who": {"A"}, "r2.who": {"B"}})
    reads["r9.who"] = GroupRead(frozenset(), 0.6, "box B between empty and marked, read as empty")
    reads["mull.A"] = GroupRead(frozenset(), 0.5, "box 1 scribbled out, read as not marked")
    header = Header(match="t-1", players=("Mara", "Teodor"), ruleset="play-2026")
    doc = sheet_document(header, reads, scan="abc0123456789def-1")
    result = parse_sheet(json.dumps(doc.doc), match=header.match, cards=doc.cards)
    rows = [e for e in result.events if e["type"] == "note" and e["author"] == notes.SHEET]
    assert [e["text"] for e in rows] == [
        "unclear marks in the sheet's header",
        "unclear marks in the sheet's row 9",
    ]
    assert all(e["scan"].startswith("abc0123456789def-1/") for e in rows)
    assert notes.of_note("ja", rows[1]) == "シートの9行目に不明瞭な印がある"
    assert notes.of_note("ko", rows[0]) == "시트의 머리글에 불분명한 표시가 있음"
    assert notes.of_note("en", rows[1]) == rows[1]["text"]
    # the same words typed into a sheet's note row (no scan), or a judge's: a person's, as written
    typed = {k: v for k, v in rows[1].items() if k != "scan"}
    assert notes.of_note("ja", typed) is None
    assert notes.of_note("ja", {**rows[1], "author": "judge:kim"}) is None
    # the battle log (the review page's, the console's) says so
    shown = log_lines(result.events, "ja")
    assert any(line.endswith(": シートの9行目に不明瞭な印がある") for line in shown), shown
    assert any(line.endswith(": unclear marks in the sheet's row 9") for line in log_lines([typed], "ja"))


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
