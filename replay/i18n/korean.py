"""Korean particles chosen by the word they follow (issue 34 item 5).

A Korean particle has two forms, chosen by whether the word before it ends in a consonant (has a final
consonant, batchim): ``피카츄를`` but ``이상해씨를``, ``꼬부기를``... A catalogue's translation cannot know
the word a placeholder will hold, so it writes the generic form (``{card}을(를)``); :func:`fill` puts the
right one in once the word is known. A word that does not end in a hangul syllable (a handle in Latin
letters, an id, a number) keeps the generic form: its reading is not known here.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from string import Formatter
from typing import Final

_FORMATTER: Final = Formatter()

#: Hangul syllables: U+AC00 (가) to U+D7A3 (힣), 28 final-consonant slots each (0: none).
_FIRST: Final = 0xAC00
_LAST: Final = 0xD7A3
_FINALS: Final = 28
#: The final consonant ㄹ, after which 으로 is 로 (서울로, 물로).
_RIEUL: Final = 8

#: Each generic form: (after a final consonant, after a vowel). ``(으)로``: ㄹ takes the vowel's form.
PARTICLES: Final[dict[str, tuple[str, str]]] = {
    "이(가)": ("이", "가"),
    "은(는)": ("은", "는"),
    "을(를)": ("을", "를"),
    "과(와)": ("과", "와"),
    "와(과)": ("과", "와"),
    "(으)로": ("으로", "로"),
    "(이)": ("이", ""),  # (이)라고, (이)라는, (이)다
}


#: The final consonant of each digit read in Sino-Korean, as a count or a seq is read (영 일 이 삼 사 오
#: 육 칠 팔 구): ㅇ 21, ㄹ 8, none 0, ㅁ 16, ㄱ 1.
_DIGIT_FINALS: Final = (21, 8, 0, 16, 0, 0, 1, 8, 8, 0)
#: A number ending in zeros ends in its unit's syllable: 십 (ㅂ 17), 백 (ㄱ 1), 천 (ㄴ 4), then 만 (ㄴ),
#: 억 (ㄱ), 조 (none) for each four zeros more (120 is 백이십: 십).
_TENS_FINALS: Final = (17, 1, 4)
_MYRIAD_FINALS: Final = (4, 1, 0)


def final(word: str) -> int | None:
    """The final consonant of ``word``'s last syllable (0: none): of its last hangul syllable, or of its
    number as read aloud when it ends in digits (``3``: 삼, ㅁ; ``12``: 십이, none); None when it ends in
    anything else (a Latin letter, a bracket: its reading is not known here)."""
    code = ord(word[-1]) if word else 0
    if _FIRST <= code <= _LAST:
        return (code - _FIRST) % _FINALS
    digits = len(word) - len(word.rstrip("0123456789"))
    if not digits:
        return None
    number = word[-digits:].lstrip("0")
    if not number:
        return _DIGIT_FINALS[0]  # 영
    zeros = len(number) - len(number.rstrip("0"))
    if zeros == 0:
        return _DIGIT_FINALS[int(number[-1])]
    if zeros < 4:
        return _TENS_FINALS[zeros - 1]
    return _MYRIAD_FINALS[min(zeros // 4, 3) - 1] if zeros // 4 <= 3 else None


def particle(word: str, generic: str) -> str:
    """The form of the particle ``generic`` (a key of :data:`PARTICLES`) that follows ``word``; ``generic``
    itself when ``word`` does not end in hangul or ``generic`` is not one of them."""
    forms = PARTICLES.get(generic)
    end = final(word)
    if forms is None or end is None:
        return generic
    if generic == "(으)로":
        return forms[1] if end in (0, _RIEUL) else forms[0]
    return forms[0] if end else forms[1]


def after(word: str, text: str) -> str:
    """``text`` (what follows ``word`` in a sentence) with its leading generic particle, if any, in the form
    ``word`` takes."""
    for generic in PARTICLES:
        if text.startswith(generic):
            return particle(word, generic) + text[len(generic) :]
    return text


def fill(template: str, values: Mapping[str, object]) -> str:
    """``template`` (a Korean translation with ``{field}`` placeholders, ``str.format``'s syntax: a field's
    conversion and format spec are applied) filled from ``values``, and each generic particle right after
    a field in the form that field's text takes."""
    out: list[str] = []
    word: str | None = None  # the text the last field put, when the literal that follows is its particle
    for literal, name, spec, conv in _FORMATTER.parse(template):
        out.append(after(word, literal) if word is not None else literal)
        if name is None:
            word = None
            continue
        # a field the values lack reads as nothing (a part a sentence read back did not have)
        value = _FORMATTER.get_field(name, (), values)[0] if _head(name) in values else ""
        value = _FORMATTER.convert_field(value, conv)
        word = _FORMATTER.format_field(value, _FORMATTER.vformat(spec or "", (), values))
        out.append(word)
    return "".join(out)


def _head(name: str) -> str:
    """The value's own name in a field name (``card`` in ``card.name`` or ``card[0]``)."""
    return name.partition(".")[0].partition("[")[0]


#: A template's ``%(name)s`` (Jinja2's newstyle gettext) and the generic particle right after it, if any.
_PERCENT: Final = re.compile(r"%\((\w+)\)s(" + "|".join(re.escape(g) for g in PARTICLES) + ")")


def particled(template: str, values: Mapping[str, object]) -> str:
    """``template`` (a Korean translation in Jinja2's ``%(name)s`` syntax, before it is filled) with each
    generic particle right after a field in the form that field's text takes (the pages' ``{% trans %}``:
    ``%(roles)s이(가)`` with 저지 -> ``%(roles)s가``). Escaping and filling stay Jinja2's."""
    return _PERCENT.sub(
        lambda m: f"%({m[1]})s" + (particle(str(values[m[1]]), m[2]) if m[1] in values else m[2]), template
    )
