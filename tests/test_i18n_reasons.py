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


# ------------------------------------------------------------------------ every keyword, every document
#: Every value a document's field is replaced by (or the field left out) in :func:`_every_refusal`.
WORSE: list[Any] = [*BAD, [1], [{}], {"zz": 1}, 2**70, -0.5, "2026-13-99T00:00:00Z"]
DROP = object()  # a field left out
#: The schema keywords the contract words itself (replay.contract.validate._explain, by name), and those
#: that only hold others (their failures are the inner keyword's).
WORDED = frozenset(
    {
        "required", "enum", "type", "minimum", "maximum", "minLength", "const", "pattern", "format",
        "maxLength", "minItems", "maxItems", "uniqueItems", "additionalProperties", "anyOf", "oneOf",
    }
)  # fmt: skip
HOLDERS = frozenset({"allOf", "if", "then", "else", "items", "$ref", "properties", "$defs"})
#: Words that say something of a schema and check nothing.
NOTES = frozenset({"description", "title", "default", "$comment", "examples", "$schema", "$id"})


def _keywords(node: Any, into: set[str]) -> set[str]:
    """Every keyword of a schema (a property's name under ``properties``/``$defs`` is not one)."""
    if isinstance(node, dict):
        for key, value in node.items():
            into.add(key)
            if key in ("properties", "$defs") and isinstance(value, dict):
                for inner in value.values():
                    _keywords(inner, into)
            else:
                _keywords(value, into)
    elif isinstance(node, list):
        for value in node:
            _keywords(value, into)
    return into


def test_every_keyword_of_the_contracts_schemas_has_a_sentence() -> None:
    """A keyword the contract has no sentence for would be refused in fastjsonschema's own words (English
    on every page): the schemas use none."""
    import json

    from tests.paths import ROOT

    for name in ("events", "record", "ruleset"):
        schema = json.loads((ROOT / "schemas" / f"{name}.schema.json").read_text("utf-8"))
        unworded = _keywords(schema, set()) - WORDED - HOLDERS - NOTES
        assert not unworded, (name, sorted(unworded))


def _every_refusal() -> dict[str, str]:
    """The reasons the contract gives (with one document each) for one event of every type the
    simulator's games have, a record and each ruleset: every field at every depth (three items of a list)
    replaced by each of :data:`WORSE`, or left out."""
    import json

    from tests.engine_outputs import corpus
    from tests.paths import ROOT

    reasons: dict[str, str] = {}

    def check(validate: Any, doc: Any) -> None:
        try:
            validate(doc)
        except InputError as exc:
            reasons.setdefault(exc.message, json.dumps(doc, default=str)[:200])

    def paths(node: Any, path: list[Any]) -> Any:
        yield path
        if isinstance(node, dict):
            for key, value in node.items():
                yield from paths(value, [*path, key])
        elif isinstance(node, list):
            for i, value in enumerate(node[:3]):
                yield from paths(value, [*path, i])

    def mutate(validate: Any, doc: Any) -> None:
        for path in list(paths(doc, []))[1:]:
            for bad in [*WORSE, DROP]:
                changed = copy.deepcopy(doc)
                parent = changed
                for step in path[:-1]:
                    parent = parent[step]
                if bad is DROP and isinstance(parent, dict):
                    del parent[path[-1]]
                elif bad is DROP:
                    parent.pop(path[-1])
                else:
                    parent[path[-1]] = bad
                check(validate, changed)

    types: dict[str, Any] = {}
    for stream in corpus(40):
        for event in stream:
            types.setdefault(str(event.get("type")), dict(event))
    assert len(types) > 25
    for event in types.values():
        mutate(V.validate_event, event)
    mutate(V.validate_record, full_game().record())
    for path in sorted((ROOT / "replay" / "engine" / "rulesets").glob("*.json")):
        mutate(V.validate_ruleset, json.loads(path.read_text("utf-8")))
    return reasons


def test_every_reason_for_any_event_type_a_record_or_a_ruleset_is_said_in_japanese_and_korean() -> None:
    reasons = _every_refusal()
    assert len(reasons) > 500
    unread = {reason: doc for reason, doc in reasons.items() if said("ja", reason) is None}
    assert not unread, unread
    english = re.compile(r"\b(must|got|an integer|a string|missing|unknown|field|one of|data)\b")
    for reason in reasons:
        shown = said("ko", reason)
        assert shown is not None and not english.search(shown), (reason, shown)
