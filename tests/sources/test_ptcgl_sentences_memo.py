"""``Sentences.match`` keeps each line text's reading (issue 40 item 2: a log repeats most of its lines, and
the regexes ran again for every one): a repeated line is not read again, and what it returns is the same
as a reading without the memo, in new objects a caller may change."""

from __future__ import annotations

import re
from collections.abc import Sequence

import pytest

from replay.engine import InputError
from replay.sources.ptcgl.language import detect_locale
from replay.sources.ptcgl.lines import normalise
from replay.sources.ptcgl.sentences import _SLOT, LANGUAGES, Match, Sentences
from tests.paths import ROOT

PTCGL = ROOT / "tests" / "data" / "ptcgl"
# a value for each kind of placeholder: numbers, handles (no spaces), anything else a card or attack name
_VALUES = {"num": "30", "player": "Ash", "other": "Pikachu ex"}


def fresh(code: str) -> Sentences:
    """The language's table as ``for_language`` builds it, a new instance: its memo is empty."""
    built: Sentences = Sentences.for_language.__wrapped__(code)
    return built


def fields(found: Sequence[Match]) -> list[tuple[object, ...]]:
    return [(m.kind, m.key, m.g, m.phs, m.values, m.partial) for m in found]


def samples(sen: Sentences) -> list[str]:
    """Every template of the table filled in: a number, a handle, a name; a Special Condition's own label."""
    cond = sen.labels.get("blog_loc_condition_poisoned", "Poisoned")
    out = []
    for t in sen.templates:

        def value(m: re.Match[str]) -> str:
            ph = m.group(1)
            if ph == "specialConditionName":
                return cond
            if ph.startswith("num"):
                return _VALUES["num"]
            if ph.endswith("PlayerName") or ph in ("playerName", "opponentName"):
                return _VALUES["player"]
            return _VALUES["other"]

        out.append(_SLOT.sub(value, t.text))
    return out


def log_lines() -> list[tuple[str, str]]:
    """(language, line) for every sentence line of every log under tests/data/ptcgl in a language the
    importer reads (as it finds the language)."""
    out = []
    for f in sorted(PTCGL.rglob("*.txt")):
        raw = normalise(f.read_text("utf-8-sig"))
        try:
            code = detect_locale(raw, f.name).code
        except InputError:
            continue  # another game's log, a language the client table does not hold
        for line in raw:
            s = line.strip()
            if s and not s.startswith("•"):
                out.append((code, s[2:] if s.startswith("- ") else s))
    return out


@pytest.mark.parametrize("code", LANGUAGES)
def test_every_template_reads_its_own_sample_the_same_with_the_memo(code: str) -> None:
    sen, plain = fresh(code), fresh(code)
    lines = samples(sen)
    own = 0
    for t, line in zip(sen.templates, lines, strict=True):
        want = fields(plain._read(line))
        first, again = sen.match(line), sen.match(line)
        assert fields(first) == want, line
        assert fields(again) == want, line
        own += bool(first) and first[0].key == t.key
    # the samples are read, all but two a language by their own template (those two are another key's text
    # with these values)
    assert all(plain._read(line) for line in lines)
    assert len(lines) - own <= 2, (own, len(lines))  # 192-202 of 194-204 in each language


def test_every_line_of_the_test_logs_reads_the_same_with_the_memo() -> None:
    tables: dict[str, tuple[Sentences, Sentences]] = {}
    for code, line in log_lines() * 2:  # twice: the second pass reads each line from the memo
        if code not in tables:
            tables[code] = fresh(code), fresh(code)
        sen, plain = tables[code]
        assert fields(sen.match(line)) == fields(plain._read(line)), (code, line)


def test_a_repeated_line_is_not_read_again_and_its_values_are_new_objects() -> None:
    sen = fresh("en")
    calls: list[str] = []
    read = sen.match_one

    def counted(line: str) -> Match | None:
        calls.append(line)
        return read(line)

    sen.match_one = counted  # type: ignore[method-assign]
    line = "Ash drew Pikachu ex."
    first = sen.match(line)
    assert len(calls) == 1
    first[0].g["c"] = "changed by a caller"
    first[0].partial = "changed too"
    again = sen.match(line)
    assert len(calls) == 1  # read once: the second answer is the memo's
    assert again[0] is not first[0] and again[0].g is not first[0].g
    assert again[0].g["c"] == "Pikachu ex" and again[0].partial == ""
    assert sen.match("no sentence of the client at all") == []
    assert sen.match("no sentence of the client at all") == []
    assert calls.count("no sentence of the client at all") == 1


def test_the_memo_is_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    import replay.sources.ptcgl.sentences as sentences

    monkeypatch.setattr(sentences, "_SEEN_MAX", 5)
    sen = fresh("en")
    for n in range(12):
        assert sen.match(f"Ash drew {n} cards.")
        assert len(sen._seen) <= 5


def test_classify_gives_each_line_its_own_values() -> None:
    """``classify`` reads the table's kept Match objects: a Line's values are its own copy, so the walk
    changing one line's values leaves the next line of the same text (and the table's reading) alone."""
    from replay.sources.ptcgl.lines import classify
    from replay.sources.ptcgl.locales import LOCALES

    raw = ["Ash drew Pikachu ex.", "Ash drew Pikachu ex."]
    first, second = classify(raw, LOCALES["en"], [])
    assert first.g is not None and second.g is not None and first.g is not second.g
    first.g["c"] = "changed by the walk"
    assert second.g["c"] == "Pikachu ex"
    (again,) = classify(raw[:1], LOCALES["en"], [])
    assert again.g is not None and again.g["c"] == "Pikachu ex"
