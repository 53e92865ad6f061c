"""Sentences kept in English, shown in the reader's language (issue 34 item 5).

A record, a report's JSON document and the engine's outputs keep each sentence in English, written by
filling an English template (``str.format``); their bytes never depend on a reader. Where a sentence is
shown, :func:`translate` reads its fields back out of the English text by the templates that could have
written it, and fills the template's translation with them. A sentence no template reads is ``None`` (the
caller shows it as it is, in English): never a guess.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from functools import cache
from string import Formatter
from typing import Final

from replay import i18n

_FORMATTER: Final = Formatter()


def _fields(template: str) -> list[tuple[str, str | None]]:
    """``template`` as (literal text, field name or None) pieces, in order."""
    return [(literal, name) for literal, name, _spec, _conv in _FORMATTER.parse(template)]


@cache
def _pattern(template: str) -> re.Pattern[str]:
    """A regular expression that reads ``template``'s fields back out of a sentence it wrote."""
    out: list[str] = []
    seen: set[str] = set()
    for literal, name in _fields(template):
        out.append(re.escape(literal))
        if name is None:
            continue
        if name in seen:  # a field written twice reads the same text twice
            out.append(f"(?P={name})")
        else:
            seen.add(name)
            out.append(f"(?P<{name}>.*?)")
    return re.compile("".join(out) + r"\Z", re.DOTALL)


@cache
def _bare(template: str) -> str:
    """``template`` with each field's conversion and format spec dropped: a field read back out of a
    sentence is the text it was written as (already converted: no ``!r`` twice, no ``:,`` on a str)."""
    return "".join(
        literal.replace("{", "{{").replace("}", "}}") + ("{" + name + "}" if name is not None else "")
        for literal, name in _fields(template)
    )


def read(templates: tuple[str, ...], text: str) -> tuple[str, dict[str, str]] | None:
    """The first of ``templates`` that wrote ``text``, with its fields as read; None when none did."""
    for template in templates:
        found = _pattern(template).match(text)
        if found is not None:
            return template, found.groupdict()
    return None


#: How a translated template is filled with its fields' texts (by default replay.i18n.fill).
Fill = Callable[[str, dict[str, str]], str]


def translate(
    lang: str,
    templates: tuple[str, ...],
    text: str,
    pieces: tuple[str, ...] = (),
    names: Mapping[str, Callable[[str], str]] | None = None,
    fill: Fill | None = None,
) -> str | None:
    """``text`` (written in English by one of ``templates``) in ``lang``; each field that one of
    ``pieces`` wrote (a sentence's own part, such as " by judge-1") translated the same way; each field
    ``names`` has a function for (a card's name) shown by it; the translation filled by ``fill`` (the
    fields as they are by default). None when no template wrote ``text``."""
    found = read(templates, text)
    if found is None:
        return None
    template, values = found
    for name, show in (names or {}).items():
        if values.get(name):
            values[name] = show(values[name])
    if pieces:
        for name, value in values.items():
            if value:
                # a list first: one piece's lazy last field would read a whole list as one piece
                values[name] = (
                    _listed(lang, pieces, value, fill)
                    or translate(lang, pieces, value, pieces, fill=fill)
                    or value
                )
    said = _bare(i18n.gettext(lang, template))
    if fill is not None:
        return fill(said, values)
    return i18n.fill(lang, said, values)


#: How a sentence joins several of its pieces (a list of rows, of players).
_SEPARATORS: Final[tuple[str, ...]] = ("; ", ", ")


def _listed(lang: str, pieces: tuple[str, ...], value: str, fill: Fill | None = None) -> str | None:
    """``value`` as a list of one piece's sentences joined by one of :data:`_SEPARATORS`, each translated;
    None when it is not one. A list is cut after the piece's last words (a name may hold a comma)."""
    for piece in pieces:
        tail = _fields(piece)[-1]
        if tail[1] is not None or not tail[0]:
            continue  # a piece that ends with a field has no words to cut after
        for sep in _SEPARATORS:
            parts = value.split(tail[0] + sep)
            if len(parts) < 2:
                continue
            parts = [part + tail[0] for part in parts[:-1]] + parts[-1:]
            shown = [translate(lang, (piece,), part, pieces, fill=fill) for part in parts]
            if all(s is not None for s in shown):
                return sep.join(s for s in shown if s is not None)
    return None


def each(
    lang: str,
    templates: tuple[str, ...],
    text: str,
    sep: str,
    pieces: tuple[str, ...] = (),
    names: Mapping[str, Callable[[str], str]] | None = None,
) -> str | None:
    """``text``, sentences joined by ``sep`` each written by one of ``templates`` (not all by the same one,
    and a sentence may hold ``sep`` itself: a tamper alarm's problems), each said in ``lang`` by
    :func:`translate` and joined by ``sep`` again; None unless every sentence is read. The sentences are cut
    at the first ``sep`` after which the text before reads as one and the rest reads as such a list."""
    parts = text.split(sep)

    def rest(start: int) -> list[str] | None:
        if start == len(parts):
            return []
        for end in range(start + 1, len(parts) + 1):
            said = translate(lang, templates, sep.join(parts[start:end]), pieces, names)
            if said is not None and (after := rest(end)) is not None:
                return [said, *after]
        return None

    found = rest(0)
    return None if found is None else sep.join(found)


def shown(lang: str, templates: tuple[str, ...], text: str, pieces: tuple[str, ...] = ()) -> str:
    """``text`` in ``lang`` by :func:`translate`; ``text`` itself in English or when no template wrote it."""
    if lang == i18n.DEFAULT:
        return text
    return translate(lang, templates, text, pieces) or text
