"""``prizecheck check``'s sentences in the reader's language (issue 34 item 5): every breach's detail and
every note the checker words is a :class:`~replay.i18n.Phrase` of the catalogues (a check over the
source: a new breach written as an f-string, which no reader's language could say, fails here), each
translated in Japanese and Korean with the same fields, and the English bytes what they were."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from string import Formatter

import pytest

from replay.engine import EventError
from replay.i18n import Joined, Phrase, gettext, spoken
from replay.i18n.errors import Quoted
from streams.check import Breach, Report
from tests.paths import ROOT

#: The checker, the command that prints it, and the checkpoint's description a breach quotes.
SOURCES = ("streams/check.py", "replay/cli/check.py", "streams/store/checkpoint.py")
#: The store's sentences a breach quotes: the cold archive's manifest, an archived copy's problems.
QUOTED = ("streams/store/manifest.py", "streams/store/parquet.py")
#: The calls that take a sentence a person reads, and which argument (from 0) it is.
TAKERS = {"breach": 3, "append": 0}
#: The lists whose ``append`` takes such a sentence (a report's notes, a checkpoint log's errors).
SAID_LISTS = ("notes", "errors")


def _calls(path: str) -> Iterator[tuple[int, ast.expr]]:
    """Each sentence argument of a breach or of a note or error appended, with its line."""
    tree = ast.parse((ROOT / path).read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Attribute):
            continue
        name = node.func.attr
        if name not in TAKERS or len(node.args) <= TAKERS[name]:
            continue
        target = node.func.value
        if name == "append" and not (isinstance(target, ast.Attribute) and target.attr in SAID_LISTS):
            continue
        yield node.lineno, node.args[TAKERS[name]]


def _phrases(path: str) -> Iterator[str]:
    """Each Phrase's sentence: a literal, or a name the module binds to ``N_("...")`` (a sentence read
    back by its template elsewhere: a checkpoint's description, an archived copy's problem)."""
    tree = ast.parse((ROOT / path).read_text(encoding="utf-8"))
    marked = {
        target.id: node.value.args[0].value
        for node in tree.body
        if isinstance(node, ast.Assign)
        and isinstance(node.value, ast.Call)
        and isinstance(node.value.func, ast.Name)
        and node.value.func.id == "N_"
        and isinstance(node.value.args[0], ast.Constant)
        for target in node.targets
        if isinstance(target, ast.Name)
    }
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "Phrase":
            arg = node.args[0]
            if isinstance(arg, ast.Name) and arg.id in marked:
                yield marked[arg.id]
                continue
            assert isinstance(arg, ast.Constant) and isinstance(arg.value, str), f"{path}:{node.lineno}"
            yield arg.value


def test_every_breach_and_note_is_a_phrase_not_words_written_in_place() -> None:
    """A literal, an f-string or a sum can only be English; a Phrase (or a name: another module's
    sentence, a variable holding a Phrase) can be said again."""
    written = [
        f"{path}:{line}"
        for path in SOURCES
        for line, arg in _calls(path)
        if isinstance(arg, ast.Constant | ast.JoinedStr | ast.BinOp)
    ]
    assert written == []
    assert sum(1 for path in SOURCES for _ in _calls(path)) >= 45  # the walk found the checker's calls


@pytest.mark.parametrize("lang", ["ja", "ko"])
def test_every_phrase_of_the_checker_is_translated_with_its_fields(lang: str) -> None:
    templates = {t for path in SOURCES + QUOTED for t in _phrases(path)}
    assert len(templates) >= 60

    def fields(text: str) -> set[str | None]:
        return {name for _, name, _, _ in Formatter().parse(text) if name is not None}

    untranslated = [t for t in templates if gettext(lang, t) == t]
    assert untranslated == []
    assert [t for t in templates if fields(gettext(lang, t)) != fields(t)] == []


def test_the_english_is_the_sentence_as_it_was_written() -> None:
    """--json and an English terminal read the same bytes as before the phrases (f-strings then)."""
    exc = EventError("unknown event type 'x'", match="m1", seq=3, field="type")
    what = Phrase("the archived event {seq}-0", seq=3)
    detail = Phrase("{what} is not a valid event: {reason}", what=what, reason=Quoted(exc))
    old = f"{'the archived event 3-0'} is not a valid event: {exc}"
    assert detail == old
    breach = Breach("archive_entry", "m1", 3, detail)
    assert breach.line() == f"BREACH archive_entry m1 seq 3: {old}"
    assert type(breach.as_json()["detail"]) is str and breach.as_json()["detail"] == old
    report = Report(mode="redis", notes=[Phrase("no source")])
    assert type(report.as_json()["notes"][0]) is str
    problems = Joined("; ", [Phrase("its first {count} versions", count=2), Phrase("index entry")])
    assert problems == "its first 2 versions; index entry"


def test_a_breach_line_keeps_its_head_and_says_the_rest() -> None:
    exc = EventError("unknown event type 'x'", match="m1", seq=3, field="type")
    detail = Phrase(
        "{what} is not a valid event: {reason}",
        what=Phrase("the archived event {seq}-0", seq=3),
        reason=Quoted(exc),
    )
    ja = Breach("archive_entry", "m1", 3, detail).line("ja")
    assert ja.startswith(
        "BREACH archive_entry m1 seq 3: アーカイブされたイベント 3-0 は有効なイベントではない: "
    )
    assert "unknown event type" not in ja  # the contract's reason, said again (replay.i18n.errors)
    ko = str(spoken(detail, "ko"))
    assert ko.startswith("아카이브된 이벤트 3-0은 유효한 이벤트가 아님: ")
