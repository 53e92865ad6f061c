"""A finding's sentence in the reader's language (issue 34 item 5).

The engine stays pure: it writes each finding's public ``message`` in English, from one of its code's
templates (``replay.engine.findings.SENTENCES``, filled by ``say``), and that English sentence is what
the record keeps (its bytes, its chain and the golden digests never depend on a reader). A page, the API
and the command line show it through :func:`message`: the fields are read back out of the English sentence
by its code's templates, and the template's translation is filled with them. A message no template reads
(a record written before a sentence changed, an importer's own code) is shown as it is, in English: never
a guess.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from functools import cache
from string import Formatter
from typing import Any, Final

from replay import i18n
from replay.engine.findings import NOTE_SENTENCES, PIECES, SENTENCES

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


def _fill(template: str, values: dict[str, str]) -> str:
    """``template`` with each field replaced by its text as read (already converted: no ``!r`` twice)."""
    return "".join(
        literal + (values.get(name, "") if name is not None else "") for literal, name in _fields(template)
    )


def _read(templates: tuple[str, ...], text: str) -> tuple[str, dict[str, str]] | None:
    for template in templates:
        found = _pattern(template).match(text)
        if found is not None:
            return template, found.groupdict()
    return None


def _translate(lang: str, templates: tuple[str, ...], text: str) -> str | None:
    read = _read(templates, text)
    if read is None:
        return None
    template, values = read
    for name, value in values.items():
        if value:  # a field that is itself a sentence's piece (" by judge-1", " (line 4 of its input)")
            values[name] = _translate(lang, PIECES, value) or value
    return _fill(i18n.gettext(lang, template), values)


def message(lang: str, code: str, text: str) -> str:
    """The finding ``code``'s public message ``text`` (as the record keeps it, in English) in ``lang``;
    ``text`` itself when ``lang`` is English or no template of ``code`` wrote it."""
    if lang == i18n.DEFAULT or not isinstance(text, str):
        return text
    templates = SENTENCES.get(code, ()) + NOTE_SENTENCES
    return _translate(lang, templates, text) or text


def known(code: str, text: str) -> bool:
    """Whether one of ``code``'s templates wrote ``text`` (tests: every message the engine writes is)."""
    return _read(SENTENCES.get(code, ()) + NOTE_SENTENCES, text) is not None


def shown(finding: Mapping[str, Any], lang: str) -> dict[str, Any]:
    """A finding (a record's or the timeline's, as JSON) with ``text``: its public message in ``lang``,
    beside the record's own English ``message`` (which stays as the record keeps it)."""
    return {**finding, "text": message(lang, str(finding.get("code", "")), str(finding.get("message", "")))}
