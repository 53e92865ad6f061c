"""An importer's or a deck list's refusal in the reader's language (issue 34 item 5; replay.i18n.inputs):
every message an importer raises is read back by a template of the catalogues (a check over the source:
a new refusal with no template fails here), said in Japanese and Korean with the values as the input
gave them, and the English bytes unchanged."""

from __future__ import annotations

import ast
import itertools
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from replay.contract.validate import REASONS
from replay.engine import InputError
from replay.i18n import LANGUAGES, gettext
from replay.i18n.errors import MESSAGES, line, message
from replay.i18n.inputs import INPUTS
from replay.i18n.sentences import read
from tests.paths import ROOT

#: Where the importers, the deck lists and the event files' readers raise their refusals.
SOURCES = (
    "replay/sources/decks.py",
    "replay/sources/cards.py",
    "replay/sources/intake.py",
    "replay/sources/sheet.py",
    "replay/sheet_format.py",
    "replay/sources/ptcgl",
    "replay/sources/scan/photo.py",
    "replay/sources/scan/naming.py",
    "replay/report/tdf.py",
    "replay/codec.py",
    "replay/files.py",
    "replay/contract/admit.py",
    "replay/report/parquet.py",
    "replay/generators",
    "replay/records.py",
    "streams/ingest",
    "streams/settings.py",
    "streams/tokens.py",
    "streams/http/intake.py",
)
#: The calls that make a refusal, and which argument (from 0) is its message.
MAKERS = {"InputError": 0, "EventError": 0, "RecordError": 0, "_err": 2}
FIELD = "\x00"  # a field's text in a sample sentence: matches any template's field, never its words


def samples(node: ast.expr) -> Iterator[str] | None:
    """The sentences ``node`` can write, each field as :data:`FIELD`; None when it is not written here
    (a name: the words come from elsewhere, read where they are written)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return iter([node.value])
    if isinstance(node, ast.JoinedStr):
        return iter(
            ["".join(v.value if isinstance(v, ast.Constant) else FIELD for v in node.values)]  # type: ignore[misc]
        )
    if isinstance(node, ast.IfExp):
        a, b = samples(node.body), samples(node.orelse)
        return None if a is None or b is None else itertools.chain(a, b)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = samples(node.left), samples(node.right)
        if left is None or right is None:
            return None
        return ("".join(pair) for pair in itertools.product(list(left), list(right)))
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "str":
        return iter([FIELD])
    return None


def refusals() -> list[tuple[str, str]]:
    """(where, a sentence with its fields as FIELD) for every refusal written in :data:`SOURCES`."""
    out: list[tuple[str, str]] = []
    paths = [ROOT / s for s in SOURCES]
    for path in sorted(p for s in paths for p in ([s] if s.is_file() else s.rglob("*.py"))):
        rel = path.relative_to(ROOT).as_posix()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Name):
                continue
            at = MAKERS.get(node.func.id)
            if at is None or len(node.args) <= at:
                continue
            for sample in samples(node.args[at]) or ():
                if sample != FIELD:
                    out.append((f"{rel}:{node.lineno}", sample))
    return out


def test_every_refusal_an_importer_writes_is_read_by_a_template() -> None:
    found = refusals()
    assert len(found) > 120  # the walk sees the importers' refusals (a path renamed would see none)
    templates = (*MESSAGES, *REASONS, *INPUTS)
    unread = [(where, s.replace(FIELD, "{}")) for where, s in found if read(templates, s) is None]
    assert not unread, f"refusals no template of replay/i18n/inputs.py reads: {unread}"


def test_every_template_is_translated() -> None:
    for lang in LANGUAGES[1:]:
        for template in INPUTS:
            said = gettext(lang, template)
            assert said != template, (lang, template)
            assert set(re.findall(r"\{(\w+)", said)) == set(re.findall(r"\{(\w+)", template))


JA = re.compile(r"[\u3040-\u30ff\u4e00-\u9fff]")
KO = re.compile(r"[\uac00-\ud7a3]")
ENGLISH = re.compile(r"\b(?:is|are|not|must|needs?|has|got|expected|larger|unknown|missing|empty)\b")


@pytest.mark.parametrize(
    ("english", "japanese", "korean"),
    [
        (
            "the heading says 12 cards, the lines under it hold 11",
            "見出しは 12 枚と言うが、その下の行は 11 枚",
            "제목은 12장이라고 하지만 그 아래 줄은 11장",
        ),
        (
            "a card count is 1 to 60, got '0'",
            "カードの枚数は 1 から 60 まで（'0' が指定された）",
            "카드 매수는 1에서 60까지만 허용됨 (받은 값: '0')",
        ),
        (
            "not a card line (COUNT NAME SET NUMBER) nor a heading: 'Pikachu ex'",
            "カードの行（枚数 名前 セット 番号）でも見出しでもない: 'Pikachu ex'",
            "카드 줄(매수 이름 세트 번호)도 제목도 아님: 'Pikachu ex'",
        ),
        (
            "HP is not a number: 'lots'",
            "HP が数ではない: 'lots'",
            "HP가 숫자가 아님: 'lots'",
        ),
        (
            "row 4: gives a damage event the contract refuses: must be an integer >= 1 and <= 100000 (got 0)",
            "行 4: 契約が受け付けない damage イベントになる: "
            "1 以上 100000 以下の整数でなければならない（値: 0）",
            "행 4: 계약이 거부하는 damage 이벤트가 됨: 1 이상 100000 이하의 정수만 허용됨 (받은 값: 0)",
        ),
        (
            "unsupported language: the log looks Korean (ko); its turn headers and end lines match none of "
            "the languages read (en, de; docs/importers.md lists them)",
            "対応していない言語: ログは韓国語（ko）に見える。ターンの見出しも終わりの行も、読める言語"
            "（en, de。docs/importers.md に一覧がある）のどれにも合わない",
            "지원하지 않는 언어: 로그가 한국어(ko)처럼 보임. 턴 제목과 끝 줄이 읽을 수 있는 언어"
            "(en, de. docs/importers.md에 목록이 있음) 중 어느 것에도 맞지 않음",
        ),
    ],
)
def test_a_refusal_is_said_in_the_language_the_input_as_given(
    english: str, japanese: str, korean: str
) -> None:
    assert message("en", english) == english
    assert message("ja", english) == japanese
    assert message("ko", english) == korean


def test_the_where_and_the_what_of_a_deck_lists_refusal() -> None:
    from replay.sources.decks import parse_deck

    with pytest.raises(InputError) as caught:
        parse_deck("Pokémon: 2\n3 Pikachu ex SVI 1\n", "ptcgl", player="ash", event="e1", name="deck.txt")
    assert (
        str(caught.value) == "deck.txt:1: field pokemon: the heading says 2 cards, the lines under it hold 3"
    )
    assert line("ja", caught.value) == ("deck.txt:1: 項目 pokemon: 見出しは 2 枚と言うが、その下の行は 3 枚")
    assert line("ko", caught.value) == "deck.txt:1: 필드 pokemon: 제목은 2장이라고 하지만 그 아래 줄은 3장"


def test_each_template_said_has_no_english_left() -> None:
    """Each template filled with values, said in Japanese and Korean: the language's script, none of the
    English words a refusal is made of (only the fields, as given, are left as they are)."""
    for template in INPUTS:
        for lang, script in (("ja", JA), ("ko", KO)):
            said = gettext(lang, template)
            bare = re.sub(r"\{\w+\}", "", said)
            assert script.search(bare), (lang, template, said)
            assert not ENGLISH.search(bare), (lang, template, said)


def test_a_refusal_inside_another_is_said_too() -> None:
    """A ``{reason}`` that is itself a refusal of the catalogues (an extra not installed, here) is said
    in the language inside the sentence that quotes it."""
    from replay.extras import needs_extra

    try:
        import prizecheck_no_such_module  # type: ignore[import-not-found]  # noqa: F401
    except ImportError as exc:
        english = "--parquet " + needs_extra(exc, "archive")
    ja = message("ja", english)
    assert ja.startswith("--parquet を使うには: 追加機能 archive が必要だが、") and "extra" not in ja, ja
    ko = message("ko", english)
    assert ko.startswith("--parquet 옵션을 쓰려면: ") and "extra" not in ko, ko
    assert message("en", english) == english


def test_a_token_files_refusal_is_said_in_the_language(tmp_path: Path) -> None:
    import json

    from streams.tokens import read_book

    entry = {"id": "0123456789ab", "hash": "hmac-sha256:aa:bb", "roles": ["wizard"]}
    path = tmp_path / "tokens.json"
    path.write_text(json.dumps({"tokens": [entry]}), "utf-8")
    with pytest.raises(InputError) as caught:
        read_book(path)
    assert caught.value.message == "token entry '0123456789ab': unknown roles ['wizard']"
    assert line("ja", caught.value) == f"{path}: トークンの項目 '0123456789ab': 不明な役割 ['wizard']"
    assert line("ko", caught.value) == f"{path}: 토큰 항목 '0123456789ab': 알 수 없는 역할 ['wizard']"
