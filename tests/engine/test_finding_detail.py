"""Findings carry a public message and a judge-only detail (decisions item 2; docs/records.md, Findings).

Each finding that quoted an event's text or a card that may be hidden now keeps those specifics in
``detail``; its ``message`` says what happened in the engine's own words. Events in, the record's
findings out, as the engine's other tests.
"""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

from replay.engine.findings import SEVERITY, SOURCE_FINDINGS
from replay.engine.public import public_record
from tests.builder import Stream, card
from tests.paths import ROOT


def started() -> Stream:
    s = Stream("m1")
    s.setup("ash", ("a1", card("Pikachu", 60)))
    s.setup("misty", ("m1", card("Staryu", 60)))
    s.turn("ash")  # seq 4, the draw at 5
    s.events[-1]["cards"] = ["Iono"]
    return s


def findings(s: Stream, code: str) -> list[dict[str, Any]]:
    return [f for f in s.record()["findings"] if f["code"] == code]


def test_a_refused_amendment_keeps_the_refused_value_in_the_detail() -> None:
    s = started()
    s.add("correction", target=5, action="amend", event={"cards": "Professor's Research"})
    s.add("correction", target=5, action="amend", event="not an event")
    refused, empty = findings(s, "corrected")
    assert refused["severity"] == "warning"
    assert refused["message"] == "amendment of seq 5 ignored: the amended event is not valid"
    assert "Professor's Research" in refused["detail"] and "cards" in refused["detail"]
    assert empty["message"] == "amendment of seq 5 ignored: the correction carries no event to amend with"
    assert "detail" not in empty


def test_an_applied_correction_quotes_nothing() -> None:
    s = started()
    s.add("correction", target=5, action="amend", event={"cards": ["Professor's Research"]})
    (f,) = findings(s, "corrected")
    assert f["message"] == "seq 5 amended; game re-derived (1 correction(s))" and "detail" not in f


def test_a_correction_names_its_author_and_no_one_else() -> None:
    # issue 33 item 8: "by a judge" was said of every correction, the recorder's during the game too
    s = started()
    s.add("correction", target=5, action="void", author="recorder table 7 operator")
    (f,) = findings(s, "corrected")
    assert f["message"] == "seq 5 voided by recorder table 7 operator; game re-derived (1 correction(s))"


def test_a_note_s_finding_has_the_note_s_text_as_its_detail() -> None:
    s = started()
    s.add(
        "note", text="ash drew Iono", author="importer", finding={"code": "importer_guess_owner", "line": 9}
    )
    s.add("note", text="judge: see table 3", author="judge:kim")  # no finding: not in the record
    s.add("note", text="ash drew Iono", finding={"code": "my_app_saw_iono", "severity": "warning"})
    s.add("note", text="x", finding={"code": "importer_guess_pid", "line": "9"})  # a line that is not one
    guess, own, other = s.record()["findings"]
    assert guess == {
        "code": "importer_guess_owner",
        "severity": "info",
        "seq": 6,
        "message": "reported by the source in a note (line 9 of its input); the note's text is for judges",
        "detail": "ash drew Iono",
    }
    assert own["code"] == "source_finding" and own["severity"] == "warning"
    assert own["detail"] == "my_app_saw_iono: ash drew Iono" and "iono" not in own["message"].lower()
    assert other["message"] == "reported by the source in a note; the note's text is for judges"


def test_a_claimed_reason_in_the_source_s_own_words_is_the_detail() -> None:
    s = started()
    s.add("conceded", player="misty")
    s.add("game_ended", outcome="win", winner="ash", reason="misty showed me her Iono")
    (f,) = findings(s, "reason_mismatch")
    assert f["message"] == "the source gives a reason in its own words; the engine 'concession'"
    assert f["detail"] == "the source gives reason 'misty showed me her Iono'"
    t = started()
    t.add("conceded", player="misty")
    t.add("game_ended", outcome="win", winner="ash", reason="deck_out")  # a word the engine knows
    (g,) = findings(t, "reason_mismatch")
    assert g["message"] == "the source gives reason 'deck_out'; the engine 'concession'" and "detail" not in g


def test_the_timeline_carries_the_detail_too() -> None:
    s = started()
    s.add("note", text="ash drew Iono", finding={"code": "importer_guess_pid"})
    outputs = s.game().state.timeline
    (f,) = [o for o in outputs if o["type"] == "finding"]
    assert f["detail"] == "ash drew Iono" and "Iono" not in f["message"]


def test_the_public_record_leaves_every_detail_out() -> None:
    s = started()
    s.add("note", text="ash drew Iono", finding={"code": "importer_guess_pid"})
    s.add("penalty", player="misty", kind="caution", reason="looked at Iono")
    s.add("conceded", player="misty", reason="ash has Iono")
    public = public_record(s.record())
    assert "Iono" not in str(public)
    assert public["findings"][0]["message"].startswith("reported by the source in a note")
    assert public["penalties"] == [{"seq": 7, "player": "misty", "kind": "caution"}]
    assert public["result"]["reason"] == "concession" and "detail" not in public["result"]
    assert public["redacted"] is True and public["signature"] is None
    assert "Iono" not in str(s.game().board())  # the board shows the public result


def _codes_the_sources_emit() -> set[str]:
    """Every literal code the project's sources pass to ``find(...)`` or ``Finding(...)``."""
    codes = set()
    for path in sorted(Path(ROOT, "replay", "sources").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            if not isinstance(node, ast.Call) or not node.args:
                continue
            name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
            first = node.args[0]
            if (
                name in ("find", "Finding")
                and isinstance(first, ast.Constant)
                and isinstance(first.value, str)
            ):
                codes.add(first.value)
    return codes


def test_every_code_an_importer_writes_is_a_public_code() -> None:
    """An importer's new finding code must join SOURCE_FINDINGS, or the record calls it source_finding."""
    codes = _codes_the_sources_emit()
    assert len(codes) >= 20, codes  # the walk does find them
    assert codes <= SOURCE_FINDINGS | set(SEVERITY), sorted(codes - SOURCE_FINDINGS - set(SEVERITY))


def test_an_attacker_not_active_is_named_by_its_card() -> None:
    # issue 33 item 3: "the attacker 'p2-3' is not ash's Active Pokémon" named a pid only
    s = started()
    s.add("played", player="ash", pid="a2", card={"name": "Pichu", "hp": 30}, to="bench")
    s.add("attack", player="ash", pid="a2", name="Tackle")
    (f,) = findings(s, "attacker_not_active")
    assert f["message"] == "the attacker Pichu (a2) is not ash's Active Pokémon"
