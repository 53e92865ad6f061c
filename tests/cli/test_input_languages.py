"""An input's refusal on the command line in the environment's language (issue 34 item 5; README,
"Languages"): a deck list's, a battle log's, a match sheet's and a MessagePack file's parse errors in
Japanese and Korean with ``LC_ALL``, the file, the line, the field and what the input said as they are,
the English line byte for byte what it was."""

from __future__ import annotations

import os
import pathlib
import subprocess
import sys

import msgpack

from tests.paths import ROOT

PRIZECHECK = [sys.executable, "-m", "replay.cli"]
LOCALES = {"en": "C.UTF-8", "ja": "ja_JP.UTF-8", "ko": "ko_KR.UTF-8"}


def stderr(*args: str, cwd: pathlib.Path) -> dict[str, str]:
    """The command's error line with ``LC_ALL`` set to each language's locale (exit status 2)."""
    said = {}
    for lang, locale in LOCALES.items():
        env = {**os.environ, "LC_ALL": locale, "LC_MESSAGES": "", "LANG": ""}
        done = subprocess.run(
            [*PRIZECHECK, *args], capture_output=True, text=True, timeout=120, env=env, cwd=cwd
        )
        assert done.returncode == 2, (lang, done.stdout, done.stderr)
        said[lang] = done.stderr
    return said


def test_a_deck_lists_parse_error(tmp_path: pathlib.Path) -> None:
    (tmp_path / "deck.txt").write_text("Pokémon: 2\n3 Pikachu ex SVI 57\n", encoding="utf-8")
    said = stderr("decks", "import", "deck.txt", "--event", "Cup", "--player", "ash", cwd=tmp_path)
    assert said["en"] == (
        "prizecheck decks: deck.txt:1: field pokemon: the heading says 2 cards, the lines under it hold 3\n"
    )
    assert (
        said["ja"] == "prizecheck decks: deck.txt:1: 項目 pokemon: 見出しは 2 枚と言うが、その下の行は 3 枚\n"
    )
    assert (
        said["ko"] == "prizecheck decks: deck.txt:1: 필드 pokemon: 제목은 2장이라고 하지만 그 아래 줄은 3장\n"
    )

    (tmp_path / "deck.csv").write_text("count,name\n0,Pikachu ex\n", encoding="utf-8")
    said = stderr("decks", "import", "deck.csv", "--event", "Cup", "--player", "ash", cwd=tmp_path)
    assert said["en"] == "prizecheck decks: deck.csv:2: field count: a card count is 1 to 60, got '0'\n"
    assert said["ja"] == (
        "prizecheck decks: deck.csv:2: 項目 count: カードの枚数は 1 から 60 まで（'0' が指定された）\n"
    )
    assert said["ko"] == (
        "prizecheck decks: deck.csv:2: 필드 count: 카드 매수는 1에서 60까지만 허용됨 (받은 값: '0')\n"
    )


def test_a_battle_logs_parse_error(tmp_path: pathlib.Path) -> None:
    (tmp_path / "cut.txt").write_text("Setup\nash drew 7 cards for the opening hand.\n", encoding="utf-8")
    said = stderr("import", "ptcgl", "cut.txt", cwd=tmp_path)
    assert said["en"] == (
        "prizecheck import: cut.txt:2: truncated log: no end line ('<reason>. <winner> wins.'); use "
        "--partial to import it anyway\n"
    )
    assert said["ja"] == (
        "prizecheck import: cut.txt:2: 途切れたログ: 終わりの行（'<reason>. <winner> wins.'）がない。"
        "それでも取り込むには --partial を使う\n"
    )
    assert said["ko"] == (
        "prizecheck import: cut.txt:2: 끊긴 로그: 끝 줄('<reason>. <winner> wins.')이 없음. 그래도 "
        "가져오려면 --partial을 사용할 것\n"
    )


def test_a_match_sheets_parse_error_quotes_the_cell_as_written(tmp_path: pathlib.Path) -> None:
    sheet = (ROOT / "tests" / "data" / "sheets" / "league_game.csv").read_text("utf-8")
    (tmp_path / "s.csv").write_text(sheet.replace("ruleset: play-2026", "ruleset: play-1999"), "utf-8")
    said = stderr("import", "sheet", "s.csv", cwd=tmp_path)
    assert said["en"] == "prizecheck import: s.csv:1: field ruleset: unknown ruleset 'play-1999'\n"
    assert said["ja"] == "prizecheck import: s.csv:1: 項目 ruleset: 不明なルールセット 'play-1999'\n"
    assert said["ko"] == "prizecheck import: s.csv:1: 필드 ruleset: 알 수 없는 규칙 세트 'play-1999'\n"


def test_a_limits_reason_inside_a_codec_error_is_said_too(tmp_path: pathlib.Path) -> None:
    """``not valid MessagePack at event 1: nested deeper than 64 levels``: the codec's sentence and the
    limit's reason inside it, both in the language."""
    head = b"".join(msgpack.packb(x) for x in ("match", "m1", "seq", 1, "deep"))
    # deeper than msgpack itself unpacks (its StackError): written by hand, as no packer nests so deep
    (tmp_path / "deep.msgpack").write_bytes(b"\x83" + head + b"\x91" * 5000 + b"\x01")
    said = stderr("replay", "deep.msgpack", cwd=tmp_path)
    assert said["en"] == (
        "prizecheck replay: deep.msgpack:1: not valid MessagePack at event 1: nested deeper than 64 levels\n"
    )
    assert said["ja"] == (
        "prizecheck replay: deep.msgpack:1: イベント 1 が正しい MessagePack ではない: "
        "入れ子が 64 段より深い\n"
    )
    assert said["ko"].startswith("prizecheck replay: deep.msgpack:1: ") and "64단계보다 깊음" in said["ko"]
    assert "nested" not in said["ko"], said["ko"]
