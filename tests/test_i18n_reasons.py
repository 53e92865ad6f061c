"""The contract's reasons a value is refused, in the reader's language (issue 34 item 5): each schema
keyword's sentence (replay.contract.validate) read back and said in Japanese and Korean, the field's name,
the value and the choices as they are, the English unchanged (replay.i18n.reasons)."""

from __future__ import annotations

import copy
import re
from typing import Any

import pytest

from replay.contract import validate as V
from replay.engine import InputError
from replay.i18n.errors import line, message
from replay.i18n.reasons import said
from tests.engine.games import full_game

CASES = [
    # (keyword, English as the contract writes it, Japanese, Korean)
    (
        "required",
        V.MISSING_FIELDS.format(names="'pid', 'card'"),
        "必須の項目 'pid', 'card' がない",
        "필수 필드 'pid', 'card'이(가) 없음",
    ),
    (
        "enum",
        V.ONE_OF.format(choices="win, draw, no_winner", value="'lost'"),
        "win, draw, no_winner のいずれかでなければならない（値: 'lost'）",
        "win, draw, no_winner 중 하나만 허용됨 (받은 값: 'lost')",
    ),
    (
        "type",
        V.MUST_BE.format(expected="a non-empty string or null", value="7"),
        "空でない文字列 または nullでなければならない（値: 7）",
        "비어 있지 않은 문자열 또는 null만 허용됨 (받은 값: 7)",
    ),
    (
        "minimum",
        V.MUST_BE.format(expected="an integer >= 1", value="0"),
        "1 以上の整数でなければならない（値: 0）",
        "1 이상의 정수만 허용됨 (받은 값: 0)",
    ),
    (
        "maximum",
        V.MUST_BE.format(expected="a number <= 1", value="1.5"),
        "1 以下の数値でなければならない（値: 1.5）",
        "1 이하의 숫자만 허용됨 (받은 값: 1.5)",
    ),
    (
        "pattern",
        V.MATCH_PATTERN.format(pattern="^[A-Z]+$", value="'ab'"),
        "パターン ^[A-Z]+$ に合わなければならない（値: 'ab'）",
        "패턴 ^[A-Z]+$에 맞는 값만 허용됨 (받은 값: 'ab')",
    ),
    (
        "additionalProperties",
        V.UNKNOWN_FIELD.format(name="'colour'", allowed="name, hp, rule"),
        "不明な項目 'colour'（使える項目: name, hp, rule）",
        "알 수 없는 필드 'colour' (허용되는 필드: name, hp, rule)",
    ),
    (
        "minLength",
        V.MUST_BE.format(expected="a string of at least 3 characters", value="'ab'"),
        "3 文字以上の文字列でなければならない（値: 'ab'）",
        "3자 이상의 문자열만 허용됨 (받은 값: 'ab')",
    ),
    (
        "maxLength",
        V.AT_MOST_CHARACTERS.format(count=256, value="'aaa...'"),
        "256 文字以下でなければならない（値: 'aaa...'）",
        "256자 이하만 허용됨 (받은 값: 'aaa...')",
    ),
    (
        "const",
        V.MUST_BE.format(expected="'game_end'", value="'game_start'"),
        "'game_end'でなければならない（値: 'game_start'）",
        "'game_end'만 허용됨 (받은 값: 'game_start')",
    ),
    (
        "format",
        V.VALID_FORMAT.format(format="email", value="'x'"),
        "正しい email でなければならない（値: 'x'）",
        "올바른 email만 허용됨 (받은 값: 'x')",
    ),
    (
        "minItems",
        V.ITEMS["exactly", False].format(size=2, count=3),
        "要素がちょうど 2 個のリストでなければならない（実際は 3 個）",
        "항목이 정확히 2개인 리스트만 허용됨 (실제: 3개)",
    ),
    (
        "boolean or null",
        V.MUST_BE.format(expected="true or false or null", value="'yes'"),
        "true または false または nullでなければならない（値: 'yes'）",
        "true 또는 false 또는 null만 허용됨 (받은 값: 'yes')",
    ),
]


@pytest.mark.parametrize(("keyword", "english", "japanese", "korean"), CASES, ids=[c[0] for c in CASES])
def test_a_keywords_reason_is_said_in_the_language(
    keyword: str, english: str, japanese: str, korean: str
) -> None:
    assert said("ja", english) == japanese
    assert said("ko", english) == korean
    assert message("en", english) == english


def test_the_english_reasons_are_the_contracts_words_as_before() -> None:
    """The templates write today's English, word for word (logs, the dead-letter topic, an English reader)."""
    event = {"match": "m1", "seq": 0, "type": "drew", "player": "ash"}
    with pytest.raises(InputError) as caught:
        V.validate_event(event)
    assert str(caught.value) == "match m1 seq 0: field seq: must be an integer >= 1 and <= 100000 (got 0)"
    assert line("ja", caught.value) == (
        "対戦 m1 seq 0: 項目 seq: 1 以上 100000 以下の整数でなければならない（値: 0）"
    )
    with pytest.raises(InputError) as caught:
        V.validate_event({"match": "m1", "seq": 1, "type": "drew"})
    assert str(caught.value) == "match m1 seq 1: field player: missing required field 'player'"
    assert line("ko", caught.value) == "대전 m1 seq 1: 필드 player: 필수 필드 'player'이(가) 없음"


def test_a_reason_no_template_wrote_is_shown_as_it_is() -> None:
    assert said("ja", "data must be valid exactly by one definition") is None
    assert message("ja", "data must be valid exactly by one definition") == (
        "data must be valid exactly by one definition"
    )


BAD: list[Any] = [None, "x", -1, 0, 10**9, [], {}, "", "a" * 300, 1.5, True, ["a", "a"]]


def _refusals() -> list[str]:
    """The reasons the contract gives for every event of a full game with one field (or one field of a
    field) replaced by a bad value, or left out."""
    reasons: list[str] = []

    def check(event: Any) -> None:
        try:
            V.validate_event(event)
        except InputError as exc:
            reasons.append(exc.message)

    for event in full_game().events:
        for key, value in event.items():
            for bad in BAD:
                check({**event, key: bad})
            check({k: v for k, v in event.items() if k != key})
            if isinstance(value, dict):
                for inner in value:
                    for bad in BAD:
                        changed = copy.deepcopy(dict(event))
                        changed[key][inner] = bad
                        check(changed)
    return sorted(set(reasons))


def test_every_reason_the_contract_gives_a_game_is_said_in_japanese_and_korean() -> None:
    reasons = _refusals()
    assert len(reasons) > 100
    english = re.compile(r"\b(must|got|an integer|a string|missing|unknown|field|one of)\b")
    for reason in reasons:
        for lang in ("ja", "ko"):
            shown = said(lang, reason)
            assert shown is not None and not english.search(shown), (lang, reason, shown)
