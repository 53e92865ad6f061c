"""A finding's sentence in the reader's language (issue 34 item 5; replay/i18n/findings.py): the engine writes
its English template, the record keeps it, and a page reads its fields back to write the ja or ko sentence."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from replay.contract.validate import checked_game
from replay.engine import findings as F
from replay.i18n import findings
from replay.i18n.findings import message
from tests.engine_outputs import corpus


def _engine_messages() -> list[tuple[str, str]]:
    seen: dict[tuple[str, str], None] = {}
    for stream in corpus(40):
        game = checked_game()
        for event in stream:
            game.apply(dict(event))
        for f in game.resolved().findings:
            seen.setdefault((f.code, f.message), None)
    return list(seen)


def test_every_message_the_engine_writes_is_read_back_by_its_codes_templates() -> None:
    found = _engine_messages()
    assert len({code for code, _ in found}) >= 8  # the corpus's games, faults and messy deliveries
    unread = [(code, text) for code, text in found if not findings.known(code, text)]
    assert not unread, unread[:5]
    # and each is written anew in Japanese and Korean: no English sentence left of a known template
    for lang in ("ja", "ko"):
        for code, text in found:
            assert message(lang, code, text) != text, (lang, code, text)


def test_every_template_of_the_engine_is_listed_for_its_code() -> None:
    templates = {
        value
        for name, value in vars(F).items()
        if name.isupper()
        and isinstance(value, str)
        and value not in (F.INFO, F.WARNING, F.VIOLATION)
        and name != "SOURCE_FINDING"
    }
    listed = {t for ts in F.SENTENCES.values() for t in ts} | set(F.NOTE_SENTENCES) | set(F.PIECES)
    listed |= {*F.DETAIL_SENTENCES, F.DETAIL_AFTER}  # a detail's own words (replay.i18n.findings.detail)
    assert templates == listed
    assert set(F.SENTENCES) <= set(F.SEVERITY)


def test_a_sentence_in_japanese_and_korean_with_its_fields_as_written() -> None:
    text = F.say(F.PRIZE_COUNT, player="ash", claimed=1, owed=2)
    assert text == "ash took 1 prize(s); the knockouts give 2"  # the record's bytes, as before
    assert message("ja", "prize_count_mismatch", text) == "ashはサイドを1枚とった; きぜつで得られるのは2枚"
    assert (
        message("ko", "prize_count_mismatch", text) == "ash은(는) 프라이즈를 1장 가져감; 기절로 얻는 것은 2장"
    )
    assert message("en", "prize_count_mismatch", text) == text
    # a field converted with !r is shown as the record wrote it (quotes once)
    text = F.say(F.UNKNOWN_RULESET, ruleset="jp-9")
    assert message("ja", "unknown_ruleset", text) == "不明なルールセット'jp-9'; play-2026で判定"
    # a field that is a piece of sentence itself (who corrected) is translated with it
    text = F.say(F.VOIDED, target=4, by=F.say(F.BY, author="judge j1"), corrections=1)
    assert message("ja", "corrected", text) == "seq 4を無効化 (実施: judge j1); ゲームを再計算 (訂正1件)"
    text = F.say(F.DECK_COUNT, player="ash", seen=40, deck=41)
    assert (
        message("ko", "deck_count_mismatch", text)
        == "ash의 덱: 기록 출처는 40장, 이벤트로는 41장; 40장을 사용"
    )


@pytest.mark.parametrize("lang", ["ja", "ko"])
def test_a_message_no_template_wrote_is_shown_as_it_is(lang: str) -> None:
    # a record from before a sentence changed, or an importer's own code: never a guess
    assert message(lang, "prize_count_mismatch", "something else entirely") == "something else entirely"
    assert message(lang, "importer_guess_owner", "the owner is a guess") == "the owner is a guess"
    # a note's finding keeps an importer's code: its sentence is the engine's, translated
    text = F.say(F.NOTE_FINDING, where=F.say(F.NOTE_LINE, line=12))
    shown = message(lang, "importer_guess_owner", text)
    assert shown != text and "12" in shown and not re.search("[a-z]{4}", shown.replace("importer", ""))


@pytest.mark.parametrize(
    ("environ", "lang"),
    [
        ({"LANG": "ja_JP.UTF-8"}, "ja"),
        ({"LANG": "ko_KR.UTF-8"}, "ko"),
        ({"LANG": "ja_JP.UTF-8", "LC_MESSAGES": "ko_KR"}, "ko"),  # LC_MESSAGES over LANG
        ({"LC_ALL": "en_US.UTF-8", "LC_MESSAGES": "ja_JP"}, "en"),  # LC_ALL over both
        ({"LANG": "C.UTF-8"}, "en"),
        ({"LANG": "fr_FR.UTF-8"}, "en"),  # not a language of Prizecheck
        ({}, "en"),
    ],
)
def test_the_command_lines_language_is_the_environments(environ: dict[str, str], lang: str) -> None:
    from replay.i18n import from_environment

    assert from_environment(environ) == lang


def test_replay_prints_the_findings_in_the_environments_language(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from replay.cli import main
    from tests.builder import Stream, card

    s = Stream("cli-ja")
    s.setup("ash", ("a1", card("Pikachu", 60)))
    s.setup("misty", ("m1", card("Staryu", 60)))
    s.turn("ash")
    s.add("turn_ended", player="misty")  # the wrong player ends the turn: turn_order
    path = tmp_path / "g.jsonl"
    path.write_text("".join(json.dumps(e) + "\n" for e in s.events), "utf-8")
    said = {}
    for environ in ("C.UTF-8", "ja_JP.UTF-8", "ko_KR.UTF-8"):
        monkeypatch.setenv("LANG", environ)
        monkeypatch.delenv("LC_ALL", raising=False)
        monkeypatch.delenv("LC_MESSAGES", raising=False)
        assert main(["replay", str(path)]) == 0
        said[environ] = capsys.readouterr().out
    assert "misty ended a turn that was ash's" in said["C.UTF-8"]
    assert "mistyがashの番を終えた" in said["ja_JP.UTF-8"]
    assert "misty이(가) ash의 차례를 끝냄" in said["ko_KR.UTF-8"]
    # JSON is the record as it is, whatever the language
    monkeypatch.setenv("LANG", "ja_JP.UTF-8")
    assert main(["replay", "--json", str(path)]) == 0
    assert "misty ended a turn that was ash's" in capsys.readouterr().out


@pytest.mark.parametrize("lang", ["ja", "ko"])
def test_a_findings_detail_in_the_engines_own_words_is_shown_in_the_language(lang: str) -> None:
    """A judge reads a turn rule's detail (why its severity, after the card it names) in the page's
    language; a detail that quotes a source (a note's text, a refused event's fields) stays as written."""
    script = {"ja": r"[\u3040-\u30ff\u4e00-\u9fff]", "ko": r"[\uac00-\ud7af]"}[lang]
    for english in (
        F.ENFORCED,
        "Hop; " + F.ENFORCED,  # as records.jsonl keeps a second Supporter's detail
        F.IN_VIEW.format(cards="Hop, Pokémon Catcher"),
        "Iono; " + F.NOT_LIFTED,
    ):
        shown = findings.detail(lang, english)
        assert shown != english and re.search(script, shown) and "digital client" not in shown, shown
        for kept in ("Hop", "Iono", "Pokémon Catcher"):
            assert (kept in english) == (kept in shown)
        assert findings.detail("en", english) == english
    assert findings.detail(lang, "judge-7: player took two prizes") == "judge-7: player took two prizes"
    with_detail = {"code": "second_supporter", "message": "x", "detail": "Hop; " + F.ENFORCED}
    assert findings.shown(with_detail, lang)["detail_text"] == findings.detail(lang, "Hop; " + F.ENFORCED)
    assert "detail_text" not in findings.shown({"code": "x", "message": "y"}, lang)  # a public view


def test_the_league_reports_finding_names_its_card_in_the_reports_language() -> None:
    """A knockout finding naming Pikachu ex, in the HTML report in Japanese and Korean: the card by the
    catalogue's name in that language (issue 34 item 4); the report's JSON keeps the engine's English."""
    from replay import replay_records
    from replay.records import from_mapping
    from replay.report import ReportBuilder, render
    from replay.sources.cards import card_name
    from tests.streams.http.test_i18n_errors import unclaimed_knockout

    record = replay_records(unclaimed_knockout("p1"))["p1"]
    (message,) = [f["message"] for f in record["findings"] if f["code"] == "ko_not_claimed"]
    assert message.startswith("Pikachu ex (a1) ")
    report = ReportBuilder().add_all([from_mapping(record)]).finish()
    for lang in ("ja", "ko"):
        name = card_name("Pikachu ex", lang)
        page = render(report, "html", lang=lang, card_name=lambda c, lang=lang: card_name(c, lang)).decode()
        assert f"<td>{name} (a1)" in page and "Pikachu ex (a1)" not in page, lang
    assert message in render(report, "json").decode()
