"""A scanned sheet's own sentences in the reader's language (replay.i18n.scan_notes; issue 34 item 5):
the low_confidence note that names the region, each unclear mark's problem in the mark reader's words, the
confidence and the crop; and the note rows for unclear marks where no event comes from. The stream keeps
them in English, as the scan wrote them."""

from __future__ import annotations

import json
import re

from replay.i18n import findings, notes, scan_notes
from replay.sources.scan.layout import LAYOUT, Header
from replay.sources.scan.marks import GroupRead, clear_reads, sheet_document
from replay.sources.scan.reader import EMPTY, MARKED, BoxRead, _group
from replay.sources.sheet import parse_sheet

JA = r"[\u3040-\u30ff\u4e00-\u9fff]"
KO = r"[\uac00-\ud7a3]"
#: English words left in a sentence shown in Japanese or Korean (the crop's name, a box's digit are not).
ENGLISH = re.compile(r"\b(?:box|read|marked|empty|the|no|not|who|whose|turn|penalty|confidence|crop)\b")


def _unclear_group(key: str, start: int = 0) -> GroupRead:
    """A mark group the reader read with the kinds of problem it names (its own words) from ``start`` on,
    as many as the group has boxes but one, which is marked."""
    mid = (EMPTY + MARKED) / 2
    boxes = [
        BoxRead(0.9, True, "unclear", spilled=True),
        BoxRead(mid - 0.01, False, "unclear", faint=True),
        BoxRead(mid + 0.01, False, "unclear"),
        BoxRead(mid - 0.01, False, "unclear"),
        BoxRead(0.9, True, "scribbled"),
        BoxRead(0.5, False, "shadow"),
    ]
    group = LAYOUT.group(key)
    return _group(group, [*boxes[start : start + len(group.choices) - 1], BoxRead(0.95, False, "marked")])


def test_every_problem_the_reader_and_the_marks_name_is_shown_in_the_language() -> None:
    reads = clear_reads({"r1.who": {"A"}, "r2.who": {"B"}, "r3.ko.B": {"active"}, "r3.pen.side": {"A"}})
    reads["r2.prizes.B"] = _unclear_group("r2.prizes.B")
    reads["r3.who"] = GroupRead()  # a row with marks but no player: read as the turns alternate, said so
    reads["mull.A"] = _unclear_group("mull.A", 3)
    reads["end.winner"] = GroupRead(frozenset({"A"}))  # who won, but not how: no result read
    doc = sheet_document(Header(match="t-1", players=("Mara", "Teodor")), reads, scan="k-1")
    problems = [p for c in doc.carriers for p in c.problems]
    said = "; ".join(problems)
    for kind in (
        "inked past",
        "faint",
        "read as marked",
        "read as empty",
        "scribbled out",
        "shadow",
        "boxes marked",
    ):
        assert kind in said, kind
    assert "(the turns alternate)" in said and "penalty: no kind marked; not read" in said
    assert "who won is marked but not how the game ended" in said
    for lang, script in (("ja", JA), ("ko", KO)):
        for problem in problems:
            shown = scan_notes.problems(lang, problem)
            assert re.search(script, shown) and not ENGLISH.search(shown), (problem, shown)


def test_a_low_confidence_note_in_the_language() -> None:
    said = notes.say(
        scan_notes.LOW_CONFIDENCE,
        region=notes.say(scan_notes.ROW, row=3),
        problems="whose turn: box A scribbled out, read as not marked; prizes B took: box 3 faint, between "
        "empty and marked, read as empty; box 4 at the edge of a shadow, read as not marked",
        confidence="0.50",
        ref="k3/r3",
    )
    assert said == (
        "sheet row 3: whose turn: box A scribbled out, read as not marked; prizes B took: box 3 faint, "
        "between empty and marked, read as empty; box 4 at the edge of a shadow, read as not marked; "
        "confidence 0.50: check the crop k3/r3"
    )
    ja = notes.text("ja", said)
    assert ja.startswith("シートの3行目: ［だれの番か］Aの欄は塗りつぶして消してある") and "k3/r3" in ja, ja
    assert not ENGLISH.search(ja), ja
    ko = notes.text("ko", said)
    assert ko.startswith("시트의 3행: [누구의 차례인지] A 칸은") and not ENGLISH.search(ko), ko
    # a finding's judge-only detail (the note's text) the same way
    assert findings.detail("ko", said) == ko
    # where the reader names no problem
    said = notes.say(
        scan_notes.LOW_CONFIDENCE,
        region=notes.say(scan_notes.END),
        problems=notes.say(scan_notes.NEAR_THRESHOLDS),
        confidence="0.71",
        ref="k3/end",
    )
    assert (
        notes.text("ja", said)
        == "シートの対戦結果の欄: しきい値に近い印; 確信度 0.71: 切り抜きk3/endを確かめてください"
    )


def test_the_note_rows_of_a_scan_keep_their_english() -> None:
    reads = clear_reads({"r1.who": {"A"}, "r2.who": {"B"}})
    reads["r9.who"] = GroupRead(frozenset(), 0.6, "box B between empty and marked, read as empty")
    doc = sheet_document(Header(match="t-1", players=("Mara", "Teodor")), reads, scan="k-1")
    result = parse_sheet(json.dumps(doc.doc), match="t-1", cards=doc.cards)
    rows = [e["text"] for e in result.events if e["type"] == "note" and e["author"] == notes.SHEET]
    assert rows == ["unclear marks in the sheet's row 9"]


def test_a_sheet_read_from_its_spare_code_says_so_in_the_language() -> None:
    reads = clear_reads({"r1.who": {"A"}, "r2.who": {"B"}})
    header = Header(match="t-1", players=("Mara", "Teodor"), spare=True, context_unread=True)
    doc = sheet_document(header, reads, scan="k-1")
    result = parse_sheet(json.dumps(doc.doc), match="t-1", cards=doc.cards)
    rows = [e for e in result.events if e["type"] == "note" and e["author"] == notes.SHEET]
    assert [e["text"] for e in rows] == [notes.say(scan_notes.SPARE_CODE)]
    [lost] = [p for c in doc.carriers for p in c.problems]
    assert lost == scan_notes.CONTEXT_UNREAD
    for lang, script in (("ja", JA), ("ko", KO)):
        row = notes.of_note(lang, rows[0]) or ""
        shown = scan_notes.problems(lang, lost)
        assert re.search(script, row) and not ENGLISH.search(row), row
        assert re.search(script, shown) and not ENGLISH.search(shown), shown
