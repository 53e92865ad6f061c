"""The command line in the environment's language (issue 34 item 5; README, "Languages"): with
``LANG=ja_JP.UTF-8`` or ``ko_KR.UTF-8`` a command's errors and summaries are in Japanese or Korean, the
file names, ids, options and numbers as they are; in any other locale the lines are the English they were;
``--json`` and the record's bytes never depend on the language."""

from __future__ import annotations

import errno
import json
import os
import pathlib
import re
import subprocess
import sys

import pytest

from replay.codec import encode_jsonl, unreadable, unwritable
from replay.engine.errors import InputError
from replay.i18n import errors
from tests.builder import Stream, card
from tests.engine.games import full_game
from tests.paths import ROOT

PRIZECHECK = [sys.executable, "-m", "replay.cli"]
LOG = ROOT / "tests" / "data" / "ptcgl" / "deck_out.txt"
LIST = (ROOT / "tests" / "data" / "decks" / "lightning.txt").read_text("utf-8")


def prizecheck(lang: str, *args: str, cwd: pathlib.Path | None = None) -> subprocess.CompletedProcess[str]:
    """``prizecheck ARGS`` with ``LANG=lang`` (and no LC_ALL, LC_MESSAGES over it)."""
    env = {**os.environ, "LC_ALL": "", "LC_MESSAGES": "", "LANG": lang}
    return subprocess.run([*PRIZECHECK, *args], capture_output=True, text=True, timeout=120, env=env, cwd=cwd)


def three(
    *args: str, code: int = 0, cwd: pathlib.Path | None = None
) -> dict[str, subprocess.CompletedProcess[str]]:
    """The command in English, Japanese and Korean, each with the exit status ``code``."""
    out = {}
    for lang, locale in (("en", "C.UTF-8"), ("ja", "ja_JP.UTF-8"), ("ko", "ko_KR.UTF-8")):
        done = prizecheck(locale, *args, cwd=cwd)
        assert done.returncode == code, (lang, done.stdout, done.stderr)
        out[lang] = done
    return out


def numbers(text: str) -> list[str]:
    return sorted(re.findall(r"\d+", text))


# ----------------------------------------------------------------------------------------------- errors
def test_an_error_line_is_in_the_environments_language(tmp_path: pathlib.Path) -> None:
    missing = str(tmp_path / "nowhere.jsonl")
    said = {lang: p.stderr for lang, p in three("replay", missing, code=2).items()}
    assert said["en"] == f"prizecheck replay: {missing}: no such file\n"
    assert said["ja"] == f"prizecheck replay: {missing}: そのファイルはない\n"
    assert said["ko"] == f"prizecheck replay: {missing}: 그런 파일이 없음\n"

    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"a":\n')
    said = {lang: p.stderr for lang, p in three("verify", str(bad), code=2).items()}
    assert said["en"] == f"prizecheck verify: {bad}:1: not valid JSON: Expecting value (column 1)\n"
    # the parser's own words too (Python's JSON reader), the position kept
    assert said["ja"] == f"prizecheck verify: {bad}:1: 正しい JSON ではない: 値がない（1 桁目）\n"
    assert said["ko"] == f"prizecheck verify: {bad}:1: 올바른 JSON이 아님: 값이 없음 (1열)\n"


def test_an_events_field_error_names_the_place_in_the_language(tmp_path: pathlib.Path) -> None:
    s = full_game()
    events = [dict(e) for e in s.events]
    events[3]["seq"] = "x"
    path = tmp_path / "g.jsonl"
    path.write_bytes(encode_jsonl(events))
    said = {lang: p.stderr for lang, p in three("replay", str(path), code=2).items()}
    assert re.match(rf"prizecheck replay: {re.escape(str(path))}:4: .*field seq: ", said["en"]), said["en"]
    assert "項目 seq: " in said["ja"] and "field " not in said["ja"]
    assert "필드 seq: " in said["ko"] and "field " not in said["ko"]
    # the contract's reason, by its keyword (type, minimum, maximum), the value as given
    assert said["en"].endswith("field seq: must be an integer >= 1 and <= 100000 (got 'x')\n")
    assert said["ja"].endswith("項目 seq: 1 以上 100000 以下の整数でなければならない（値: 'x'）\n")
    assert said["ko"].endswith("필드 seq: 1 이상 100000 이하의 정수만 허용됨 (받은 값: 'x')\n")


def test_a_usage_error_is_in_the_language_with_the_usage_as_argparse_writes_it() -> None:
    said = {
        lang: p.stderr.splitlines()
        for lang, p in three("report", "--records", "--from-store", code=2).items()
    }
    # the usage itself as argparse writes it, its prefix in the language
    assert said["en"][0].startswith("usage: prizecheck report ")
    assert said["ja"][0] == "使い方: " + said["en"][0].removeprefix("usage: ")
    assert said["ko"][0] == "사용법: " + said["en"][0].removeprefix("usage: ")
    assert said["en"][-1] == (
        "prizecheck report: error: --records and --from-store cannot be combined: the records come from "
        "one place"
    )
    assert (
        said["ja"][-1]
        == "prizecheck report: エラー: --records と --from-store は同時に使えない: 記録の読み先は1か所"
    )
    assert (
        said["ko"][-1]
        == "prizecheck report: 오류: --records와 --from-store는 함께 쓸 수 없음: 기록은 한 곳에서 읽음"
    )


@pytest.mark.parametrize(
    ("args", "english", "japanese", "korean"),
    [
        (
            ("replay", "--jsn", "x"),
            "unrecognized arguments: --jsn (did you mean --json?)",
            "認識できない引数: --jsn（--json のことですか?）",
            "알 수 없는 인수: --jsn (--json을(를) 말씀하신 건가요?)",
        ),
        (
            ("replay", "--until", "0", "x"),
            "argument --until: must be >= 1, got 0",
            "引数 --until: 1 以上であること（0 が指定された）",
            "인수 --until: 1 이상이어야 함 (0이 지정됨)",  # 0 is 영: 이, not the generic 이(가)
        ),
        (
            ("replay",),
            "the following arguments are required: FILE",
            "次の引数が必要: FILE",
            "다음 인수가 필요함: FILE",
        ),
        (
            ("report", "--format", "pdf", "x"),
            "argument --format: invalid choice: 'pdf' (choose from 'text', 'html', 'csv', 'json')",
            "引数 --format: 無効な選択: 'pdf'（'text', 'html', 'csv', 'json' から選ぶ）",
            "인수 --format: 잘못된 선택: 'pdf' ('text', 'html', 'csv', 'json' 중에서 선택)",
        ),
    ],
)
def test_argparse_own_errors_are_read_back_into_the_language(
    args: tuple[str, ...], english: str, japanese: str, korean: str
) -> None:
    said = {lang: p.stderr.splitlines()[-1] for lang, p in three(*args, code=2).items()}
    command = f"prizecheck {args[0]}"
    assert said == {
        "en": f"{command}: error: {english}",
        "ja": f"{command}: エラー: {japanese}",
        "ko": f"{command}: 오류: {korean}",
    }


# -------------------------------------------------------------------------------------------- summaries
def test_import_and_verify_summaries_are_in_the_language(tmp_path: pathlib.Path) -> None:
    out = tmp_path / "events.jsonl"
    said = three("import", "ptcgl", str(LOG), "--quiet", "-o", str(out))
    line = {lang: p.stderr.splitlines()[-1] for lang, p in said.items()}
    assert (
        line["en"] == f"prizecheck import: {LOG}: match deck_out: 23 events, 3 findings, 0 unmatched line(s)"
    )
    assert line["ja"] == f"prizecheck import: {LOG}: 対戦 deck_out: 23 イベント、指摘 3 件、読めなかった行 0"
    assert (
        line["ko"] == f"prizecheck import: {LOG}: 대전 deck_out: 이벤트 23개, 지적 사항 3건, 읽지 못한 줄 0개"
    )

    record = tmp_path / "record.jsonl"
    json_out = {
        lang: prizecheck(loc, "replay", "--json", str(out)).stdout
        for lang, loc in (("en", "C"), ("ja", "ja_JP.UTF-8"))
    }
    assert json_out["en"] == json_out["ja"]  # --json: the record's bytes in any language
    record.write_text(json_out["en"])
    said = three("verify", str(record), "--events", str(out))
    assert said["en"].stdout == "deck_out: ok (unsigned, chain, record)\n"
    assert said["ja"].stdout == "deck_out: OK（署名なし, チェーン, 記録）\n"
    assert said["ko"].stdout == "deck_out: 정상 (서명 없음, 체인, 기록)\n"


def test_a_failed_verification_says_why_in_the_language(tmp_path: pathlib.Path) -> None:
    events = tmp_path / "g.jsonl"
    events.write_bytes(encode_jsonl(full_game().events))
    record = tmp_path / "r.jsonl"
    record.write_text(prizecheck("C", "replay", "--json", str(events)).stdout)
    other = tmp_path / "other.jsonl"
    other.write_bytes(encode_jsonl([{**e, "match": "someone-else"} for e in full_game().events]))
    said = {
        lang: p.stdout for lang, p in three("verify", str(record), "--events", str(other), code=1).items()
    }
    match = json.loads(record.read_text())["match"]
    assert said["en"] == f"{match}: FAILED: no events for this match\n"
    assert said["ja"] == f"{match}: 不合格: この対戦のイベントがない\n"
    assert said["ko"] == f"{match}: 실패: 이 대전의 이벤트가 없음\n"


def test_report_and_token_summaries_are_in_the_language(tmp_path: pathlib.Path) -> None:
    events = tmp_path / "g.jsonl"
    events.write_bytes(encode_jsonl(full_game().events))
    out = tmp_path / "r.txt"
    said = {lang: p.stderr for lang, p in three("report", str(events), "--out", str(out)).items()}
    assert said["en"] == f"prizecheck report: 1 game(s), text written to {out}\n"
    assert said["ja"] == f"prizecheck report: 1 ゲーム、text を {out} に書き出した\n"
    assert said["ko"] == f"prizecheck report: 게임 1개, text을(를) {out}에 씀\n"

    data = tmp_path / "data"
    tokens = data / "tokens.json"
    env_dir = {"PRIZECHECK_DATA_DIR": str(data)}
    said = {}
    for lang, locale in (("en", "C.UTF-8"), ("ja", "ja_JP.UTF-8"), ("ko", "ko_KR.UTF-8")):
        env = {**os.environ, **env_dir, "LC_ALL": "", "LC_MESSAGES": "", "LANG": locale}
        done = subprocess.run(
            [*PRIZECHECK, "token", "list"], capture_output=True, text=True, env=env, timeout=60
        )
        assert done.returncode == 0, done.stderr
        said[lang] = done.stderr
    assert said == {
        "en": f"no tokens in {tokens}\n",
        "ja": f"{tokens} にトークンがない\n",
        "ko": f"{tokens}에 토큰이 없음\n",
    }


def test_the_steps_due_are_worded_in_the_language(tmp_path: pathlib.Path) -> None:
    s = Stream(first="ash")
    s.setup("ash", ("a1", card("Pikachu", 60)), ("a2", card("Pichu", 30)))
    s.setup("misty", ("m1", card("Staryu", 60)))
    s.turn("ash")
    s.add("attack", player="ash", pid="a1", name="Thunder")
    s.add("damage", pid="m1", amount=60)  # a knockout due: post knocked_out, then attack_ended
    path = tmp_path / "g.jsonl"
    path.write_bytes(encode_jsonl(s.events))
    said = {lang: p.stdout for lang, p in three("replay", "--due", str(path)).items()}
    assert "    post {" in said["en"]
    assert "    送る {" in said["ja"] and "post {" not in said["ja"]
    assert "    보낼 것 {" in said["ko"] and "post {" not in said["ko"]
    for lang in ("ja", "ko"):  # the events to post are the contract's JSON, the same in every language
        assert re.findall(r"\{.*\}", said[lang]) == re.findall(r"\{.*\}", said["en"])


def test_show_renders_a_record_in_the_language() -> None:
    from replay.cli.show import render, render_history
    from replay.records import from_mapping

    record = from_mapping(full_game().record())
    english, japanese, korean = render(record, "en"), render(record, "ja"), render(record, "ko")
    assert "  players: " in english and "  findings" in english
    assert "  対戦者: " in japanese and "players:" not in japanese and "signed:" not in japanese
    assert "  플레이어: " in korean and "players:" not in korean
    assert numbers(japanese) == numbers(english) == numbers(korean)
    assert (
        render_history("m", [], "ja")
        == "m: 版がない: ゲームは終わっていない（版 1 は最初に終わったときの記録）\n"
    )
    assert render_history("m", [], "en") == (
        "m: no versions: the game is not finished (version 1 is its first finished record)\n"
    )


def test_serve_says_why_it_cannot_listen_in_the_language() -> None:
    from streams.http.serve import cannot_listen

    busy = OSError(errno.EADDRINUSE, "Address in use")
    assert cannot_listen("127.0.0.1", 8080, busy) == (
        "cannot listen on 127.0.0.1:8080: the port is in use (another prizecheck serve?); choose another "
        "with --port or PRIZECHECK_PORT"
    )
    assert cannot_listen("127.0.0.1", 8080, busy, "ja") == (
        "127.0.0.1:8080 で待ち受けできない: ポートが使用中（別の prizecheck serve?）; --port か "
        "PRIZECHECK_PORT で別のポートを選ぶ"
    )
    assert cannot_listen("127.0.0.1", 8080, busy, "ko").startswith(
        "127.0.0.1:8080에서 대기할 수 없음: 포트가 사용 중"
    )


# ------------------------------------------------------------------------ the library's shared messages
@pytest.mark.parametrize(
    "exc",
    [
        unreadable(FileNotFoundError(errno.ENOENT, "No such file"), "a.jsonl"),
        unreadable(IsADirectoryError(errno.EISDIR, "Is a directory"), "a.jsonl"),
        unreadable(PermissionError(errno.EACCES, "Permission denied"), "a.jsonl"),
        unwritable(FileNotFoundError(errno.ENOENT, "No such file"), "out/a.json"),
        unwritable(NotADirectoryError(errno.ENOTDIR, "Not a directory"), "out/a.json"),
    ],
)
def test_every_codec_message_is_read_back(exc: InputError) -> None:
    for lang in ("ja", "ko"):
        shown = errors.line(lang, exc)
        assert shown != str(exc) and shown.startswith(str(exc.file) + ": "), shown
        assert not re.search(r"\b(no such|cannot|is a directory)\b", shown), shown
    assert errors.line("en", exc) == str(exc)


def test_a_message_no_template_reads_is_shown_as_it_is_with_its_place_translated() -> None:
    exc = InputError("expected string, got 3", file="g.jsonl", line=4, field="type")
    assert errors.line("en", exc) == "g.jsonl:4: field type: expected string, got 3"
    assert errors.line("ja", exc) == "g.jsonl:4: 項目 type: expected string, got 3"
    assert errors.line("ko", InputError("x", match="m1", seq=3)) == "대전 m1 seq 3: x"


# ----------------------------------------------------------------------------------------- deck checks
def test_a_deck_checks_sentence_is_in_the_reports_language(tmp_path: pathlib.Path) -> None:
    s = Stream("cup/r2/t4/g1", context={"event": "Cerulean Cup"}, console={"decks": {"ash": LIST}})
    s.setup("ash", ("a1", card("Pikachu ex", 200, "ex")))
    s.setup("misty", ("m1", card("Staryu", 60)))
    s.turn("ash")
    s.add("played", player="ash", pid="a2", card={"name": "Charmander", "hp": 70})
    s.add("conceded", player="misty")
    s.add("game_ended", outcome="win", winner="ash", reason="concession")
    path = tmp_path / "g.jsonl"
    path.write_bytes(encode_jsonl(s.events))

    def report(lang: str, fmt: str) -> str:
        done = prizecheck("C", "report", str(path), "--format", fmt, "--lang", lang)
        assert done.returncode == 0, done.stderr
        return done.stdout

    english = report("en", "text")
    assert "ash put Charmander into play; it is not on their deck list" in english
    japanese = report("ja", "text")
    assert "ash は ヒトカゲ を場に出した; デッキリストにないカード" in japanese
    assert "not on their deck list" not in japanese
    page = report("ko", "html")
    assert "ash이(가) 파이리을(를) 냈음; 덱 리스트에 없는 카드" in page
    # the document keeps the English sentence: the JSON's bytes are the same in every language
    assert report("ja", "json") == report("en", "json")
    assert "it is not on their deck list" in report("ko", "json")


def test_every_deck_check_sentence_is_read_back() -> None:
    from replay.i18n import deckcheck

    filled: dict[str, dict[str, object]] = {
        deckcheck.NOT_ON_LIST: {"player": "ash", "card": "Pikachu"},
        deckcheck.OTHER_PRINTING: {"player": "ash", "card": "Pikachu", "hp": 70},
        deckcheck.MORE_THAN_LISTED: {"player": "ash", "card": "Pikachu", "seen": 5, "listed": 4},
    }
    assert set(filled) == set(deckcheck.SENTENCES)
    for template, values in filled.items():
        english = template.format(**values)
        for lang in ("ja", "ko"):
            shown = deckcheck.message(lang, english)
            assert shown != english and "Pikachu" in shown and "ash" in shown
            assert numbers(shown) == numbers(english)
        assert deckcheck.message("en", english) == english
    assert deckcheck.message("ja", "an older sentence") == "an older sentence"


def test_a_deck_lists_rule_breaches_are_read_back_into_the_language() -> None:
    """``decks import --play``'s lines: each breach of the deck rules in the reader's language, the
    list's own lines and names as written."""
    from datetime import date

    from replay.i18n.deckcheck import RULES, rule
    from replay.sources.decks import parse_deck
    from replay.sources.legality import check_deck

    text = "4 Pikachu ex SSP 57\n2 Radiant Greninja ASR 46\n5 Nest Ball SVI 181\n4 Unknown Cardname XYZ 1\n"
    found = check_deck(parse_deck(text, "ptcgl", player="ash", event="e"), "standard", date(2023, 1, 1))
    assert {f.code for f in found} >= {
        "deck_size",
        "too_many_copies",
        "radiant",
        "not_released",
        "unknown_card",
    }
    for f in found:
        for lang in ("ja", "ko"):
            shown = rule(lang, f.message)
            assert shown != f.message and numbers(shown) == numbers(f.message), (lang, f.message, shown)
        assert rule("en", f.message) == f.message
    assert rule("ja", "2 Radiant Greninja: at most 1 Radiant Pokémon in a deck") == (
        "2 Radiant Greninja: かがやくポケモンはデッキに 1 枚まで"
    )
    assert len(RULES) == 8


# ------------------------------------------------------------------------------------- --help in words
def test_the_help_is_in_the_language_and_english_as_argparse_writes_it() -> None:
    said = {lang: p.stdout for lang, p in three("replay", "--help").items()}
    en, ja, ko = said["en"], said["ja"], said["ko"]
    assert en.startswith("usage: prizecheck replay [-h] [--json]")
    assert "\noptions:\n" in en and "\npositional arguments:\n" in en
    assert "  -h, --help   show this help message and exit\n" in en
    assert "  --json       print exactly the record JSON, one per line\n" in en
    assert ja.startswith("使い方: prizecheck replay [-h] [--json]")
    assert "\nオプション:\n" in ja and "\n位置引数:\n" in ja
    assert "  -h, --help   このヘルプを表示して終了する\n" in ja
    assert "  --json       記録の JSON だけを 1 行に 1 つ表示する\n" in ja
    assert "イベントファイルを畳み込み、ゲーム終了時の記録を表示する" in ja  # the command's description
    assert ko.startswith("사용법: prizecheck replay [-h] [--json]")
    assert "\n옵션:\n" in ko and "\n위치 인수:\n" in ko
    assert "  --json       기록 JSON만 한 줄에 하나씩 출력함\n" in ko


def test_the_top_level_help_lists_the_commands_in_the_language() -> None:
    said = {lang: p.stdout for lang, p in three("--help").items()}
    assert "    replay    fold event files and print the end-of-game record\n" in said["en"]
    assert "    replay    イベントファイルを畳み込み、ゲーム終了時の記録を表示する\n" in said["ja"]
    assert "    replay    이벤트 파일을 적용해 게임 종료 기록을 출력함\n" in said["ko"]
    # argparse's %(default)g filled into a translated help, and a group's title
    worker = {lang: p.stdout for lang, p in three("worker", "--help").items()}
    assert "(default 60)" in worker["en"] and "（既定 60）" in worker["ja"] and "(기본값 60)" in worker["ko"]
    report = {lang: p.stdout for lang, p in three("report", "--help").items()}
    assert "\nwhich games:\n" in report["en"] and "\n対象のゲーム:\n" in report["ja"]


def test_a_help_in_japanese_is_wrapped_by_its_columns() -> None:
    from replay.cli.columns import width

    env = {**os.environ, "LC_ALL": "", "LC_MESSAGES": "", "LANG": "ja_JP.UTF-8", "COLUMNS": "60"}
    done = subprocess.run(
        [*PRIZECHECK, "import", "scan", "--help"], capture_output=True, text=True, timeout=120, env=env
    )
    assert done.returncode == 0, done.stderr
    lines = [line for line in done.stdout.splitlines() if not line.isascii()]  # words (usage: options)
    # a Japanese character takes two columns: no line is wider than the terminal (argparse keeps 2 free)
    assert max(width(line) for line in lines) <= 58, done.stdout
    assert any(width(line) > 50 for line in lines if "、" in line)  # and the lines are filled
    # a line never starts with closing punctuation
    assert not [line for line in lines if line.strip()[:1] in "、。）」"]


def test_the_quick_look_at_the_locale_knows_the_languages() -> None:
    """replay.cli.words.language looks at the locale without importing replay.i18n when none of its
    variables can name Japanese or Korean: it must know the same languages and variables."""
    from replay import i18n
    from replay.cli import words

    assert i18n.LANGUAGES[1:] == words.OTHER_LANGUAGES
    assert words._LOCALE_VARIABLES == i18n.LOCALE_VARIABLES
