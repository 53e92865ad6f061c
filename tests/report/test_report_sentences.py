"""The report's own sentences in the reader's language (issue 34 item 5): the JSON document keeps them in
English, byte for byte; the HTML and text forms show them in Japanese and Korean, read back from the
English by the templates that wrote them (replay/report/sentences.py)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from replay import i18n
from replay.cli import main
from replay.codec import encode_jsonl
from replay.i18n.sentences import shown
from replay.report import sentences as s
from tests.report import test_divisions, test_reconcile

# Each sentence as the report writes it, with fields whose text must come through untouched.
WRITTEN = [
    (
        s.REVIEW,
        s.VIOLATIONS.format(n=2, codes="attack_twice, bench_over_limit"),
        ("2", "attack_twice, bench_over_limit"),
    ),
    (s.REVIEW, s.DISAGREES, ()),
    (s.REVIEW, s.AWAITING_PLAYOFF.format(child="cup/r1/t1/g1-playoff"), ("cup/r1/t1/g1-playoff",)),
    (s.REVIEW, s.DECK_CHECK.format(n=1, cards="ash: Charmander"), ("1", "ash: Charmander")),
    (s.TOP_CUT, s.LET_IN.format(player="Blake", rank=3), ("Blake", "3")),
    (s.TOP_CUT, s.LEFT_OUT.format(player="Avery", rank=2), ("Avery", "2")),
    (s.TOP_CUT, s.UNUSUAL_PAIRING.format(a=1, b=3), ("1", "3")),
    (s.RESULT, s.WON.format(player="Brock Harrison (4034567)"), ("Brock Harrison (4034567)",)),
    (s.RESULT, s.TIE, ()),
    (s.RESULT, s.DOUBLE_LOSS, ()),
    (
        s.STANDINGS,
        s.NO_STANDING.format(player="Dana (5100204)", division="masters"),
        ("Dana (5100204)", "masters"),
    ),
    (s.STANDINGS, s.RESULTS_DIFFER, ()),
    (s.STANDINGS, s.LEVEL.format(players="Avery (1), Blake (2)"), ("Avery (1), Blake (2)",)),
    (
        s.STANDINGS,
        s.TIEBREAKERS.format(rank=4, row=s.ROW.format(player="Finley", points=6, owp="50.00", oowp="41.67")),
        ("4", "Finley", "6", "50.00", "41.67"),
    ),
]
ENGLISH = re.compile(
    r"\b(?:violation|claimed|awaiting|deck check|played in|did not|seeding|won|tie|double loss|"
    r"places|differs|level with|tiebreakers place|pts)\b"
)


@pytest.mark.parametrize("lang", ["ja", "ko"])
@pytest.mark.parametrize(("templates", "text", "fields"), WRITTEN)
def test_each_sentence_is_shown_in_the_language_with_its_fields(
    lang: str, templates: tuple[str, ...], text: str, fields: tuple[str, ...]
) -> None:
    said = shown(lang, templates, text, s.STANDINGS_PIECES)
    assert said != text and not ENGLISH.search(said), said
    for field in fields:
        assert field in said, (field, said)
    assert shown(i18n.DEFAULT, templates, text) == text  # English: as the document keeps it


def test_a_list_of_rows_is_translated_row_by_row() -> None:
    rows = "; ".join(
        s.ROW.format(player=p, points=3, owp="50.00", oowp="40.00") for p in ("Casey, M. (1)", "Finley (2)")
    )
    text = s.DROPPED_ABOVE.format(player="Dana (5100204)", round=2, points=3, owp="33.33", rows=rows)
    said = shown("ja", s.STANDINGS, text, s.STANDINGS_PIECES)
    assert "Casey, M. (1): 3 点、OWP 50.00%、OOWP 40.00%; Finley (2): 3 点" in said
    assert "pts" not in said and "ドロップ" in said
    below = s.BELOW_DROPPED.format(
        players=", ".join(s.DROPPED_WORSE.format(player=p, round=2) for p in ("Dana (4)", "Eve (5)"))
    )
    said = shown("ko", s.STANDINGS, below, s.STANDINGS_PIECES)
    assert (
        "2라운드 후 드롭했고 타이브레이커가 더 나쁜 Dana (4), "
        "2라운드 후 드롭했고 타이브레이커가 더 나쁜 Eve (5)" in said
    )


def test_a_sentence_no_template_wrote_is_shown_as_it_is() -> None:
    assert shown("ja", s.RESULT, "awaiting playoff") == "awaiting playoff"  # a match status: a code
    assert shown("ko", s.REVIEW, "a reason from an older report") == "a reason from an older report"


def _report(tmp_path: Path, events: list[dict[str, object]], tdf: Path, fmt: str, lang: str | None) -> str:
    path = tmp_path / "events.jsonl"
    path.write_bytes(encode_jsonl(events))
    out = tmp_path / f"report-{fmt}-{lang}"
    args = ["report", str(path), "--tdf", str(tdf), "--format", fmt, "--out", str(out)]
    assert main([*args, *(["--lang", lang] if lang else [])]) == 0
    return out.read_text(encoding="utf-8")


def test_the_japanese_report_says_the_reconciliation_and_the_reasons_in_japanese(tmp_path: Path) -> None:
    events = test_reconcile.pallet_events()
    english = _report(tmp_path, events, test_reconcile.FIXTURE, "text", "en")
    assert "TDF Brock Harrison (4034567) won, records Ash Ketchum (4012345) won" in english
    text = _report(tmp_path, events, test_reconcile.FIXTURE, "text", "ja")
    assert "TDF Brock Harrison (4034567)の勝ち" in text and "Ash Ketchum (4012345)の勝ち" in text
    assert " won" not in text
    html = _report(tmp_path, events, test_reconcile.FIXTURE, "html", "ko")
    assert "Brock Harrison (4034567) 승리" in html and " won" not in html
    # the document keeps its English whatever the reader's language
    doc = json.loads(_report(tmp_path, events, test_reconcile.FIXTURE, "json", None))
    assert doc["reconciliation"]["disagree"][0]["tdf"] == "Brock Harrison (4034567) won"


def test_a_match_still_playing_and_a_tdf_code_are_words_of_the_language(tmp_path: Path) -> None:
    # round 3, table 2 (Ash v May, reported in the TDF): its first game still being played, the others not
    # begun, as the records stand when the TDF is reported before the recorder catches up
    events = [
        e
        for e in test_reconcile.pallet_events()
        if e["match"] not in ("pallet/r3/t2/g2", "pallet/r3/t2/g3")
        and not (e["match"] == "pallet/r3/t2/g1" and e["type"] in ("conceded", "game_ended"))
    ]
    doc = json.loads(_report(tmp_path, events, test_reconcile.FIXTURE, "json", None))
    playing = [d for d in doc["reconciliation"]["disagree"] if (d["round"], d["table"]) == (3, 2)]
    assert [d["records"] for d in playing] == ["in progress"]  # the document keeps its English
    text = _report(tmp_path, events, test_reconcile.FIXTURE, "text", "ja")
    (line,) = [
        ln
        for ln in text.splitlines()
        if "DISAGREE" not in ln and "Ash Ketchum" in ln and "3" in ln and "May Maple" in ln and "TDF" in ln
    ]
    assert "対戦中" in line and "in progress" not in line, line
    html = _report(tmp_path, events, test_reconcile.FIXTURE, "html", "ko")
    assert "진행 중" in html and "in progress" not in html
    # a TDF outcome code's name, and one no version of TOM wrote
    assert s.result_said("ja", "bye") == i18n.gettext("ja", "bye") != "bye"
    assert s.result_said("ko", "not reported") == "미보고"
    assert s.result_said("ja", s.UNKNOWN_OUTCOME.format(code=7)) == "不明な結果コード 7"
    assert s.result_said("en", "awaiting playoff") == "awaiting its playoff"


def test_the_top_cut_and_the_standings_differences_in_korean_and_japanese(tmp_path: Path) -> None:
    events = test_divisions._events()
    english = _report(tmp_path, events, test_divisions.FIXTURE, "text", "en")
    assert "(Swiss #3) played in it" in english
    text = _report(tmp_path, events, test_divisions.FIXTURE, "text", "ko")
    assert "(스위스 3위)가 참가했습니다" in text and "played in it" not in text
    doc = json.loads(_report(tmp_path, events, test_divisions.FIXTURE, "json", None))
    whys = [d["why"] for div in doc["reconciliation"]["standings"] for d in div["differences"]]
    html = _report(tmp_path, events, test_divisions.FIXTURE, "html", "ja")
    for why in whys:  # each difference's reason is the page's language, none left in English
        assert shown("ja", s.STANDINGS, why, s.STANDINGS_PIECES) != why
        assert why not in html
