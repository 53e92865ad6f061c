"""Korean particles chosen by the word they follow (issue 34 item 5).

A Korean particle has two forms, chosen by whether the word before it ends in a consonant (has a final
consonant, batchim): ``피카츄를`` but ``이상해씨를``, ``꼬부기를``... A catalogue's translation cannot know
the word a placeholder will hold, so it writes the generic form (``{card}을(를)``); :func:`fill` puts the
right one in once the word is known. A word that does not end in a hangul syllable (a handle in Latin
letters, an id, a number) keeps the generic form: its reading is not known here.
"""

from __future__ import annotations

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


def final(word: str) -> int | None:
    """The final consonant of ``word``'s last syllable (0: none); None when it does not end in hangul."""
    code = ord(word[-1]) if word else 0
    if not _FIRST <= code <= _LAST:
        return None
    return (code - _FIRST) % _FINALS


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


def fill(template: str, values: dict[str, str]) -> str:
    """``template`` (a Korean translation with ``{field}`` placeholders) with each field replaced by its
    text in ``values``, and each generic particle right after a field in the form that text takes."""
    out: list[str] = []
    word: str | None = None  # the text the last field put, when the literal that follows is its particle
    for literal, name, _spec, _conv in _FORMATTER.parse(template):
        out.append(after(word, literal) if word is not None else literal)
        word = values.get(name, "") if name is not None else None
        if word is not None:
            out.append(word)
    return "".join(out)
