"""The contract's reasons a value is refused, in a reader's language (issue 34 item 5).

The contract (:mod:`replay.contract.validate`) words why an event, a record or a ruleset is refused by
the schema keyword that refused it (required, enum, type, minimum, pattern, additionalProperties...),
in English, from the templates it names in ``REASONS``: the error's bytes are the same everywhere (a log,
the dead-letter topic, the service's English answer). Where a person reads one, :func:`said` reads its
fields back by those templates (:mod:`replay.i18n.sentences`) and fills the template's translation: the
field's name, the value as given, the choices and the names are kept as they are; what the value must be
(``an integer >= 1 or null``) is said again in the language, piece by piece. A reason no template wrote
(a schema keyword the contract has no sentence for: fastjsonschema's own words) is None: shown as it is.
"""

from __future__ import annotations

from replay import i18n
from replay.contract.validate import EXPECTED, OR, REASONS
from replay.i18n.sentences import translate

#: The fields of a reason that are words of the contract's :data:`EXPECTED` (the rest are quoted values).
_WORDS = ("expected", "kind")


def said(lang: str, text: str) -> str | None:
    """``text`` (a reason the contract wrote) in ``lang``; None when no template of the contract wrote it."""
    names = {name: (lambda value: expected(lang, value)) for name in _WORDS}
    return translate(lang, REASONS, text, names=names)


def expected(lang: str, text: str) -> str:
    """What a value must be (``a non-empty string or null``, ``an integer >= 1 and <= 5``) in ``lang``:
    each alternative by the templates of :data:`EXPECTED`; one they did not write (a constant such as
    ``'game_end'``) as it is."""
    parts: list[str] = []
    for part in text.split(OR):
        if part == "false" and parts and parts[-1] == "true":  # "true or false" is one alternative
            parts[-1] = f"true{OR}false"
        else:
            parts.append(part)
    kind = {"kind": lambda value: i18n.gettext(lang, value)}
    return i18n.gettext(lang, OR).join(translate(lang, EXPECTED, p, names=kind) or p for p in parts)
