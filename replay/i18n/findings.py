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

from collections.abc import Callable, Mapping
from typing import Any, Final

from replay import i18n
from replay.engine import DETAIL_AFTER, DETAIL_SENTENCES, NOTE_SENTENCES, PIECES, SENTENCES
from replay.i18n import notes, words
from replay.i18n.sentences import read, translate

#: A card's name in the reader's language: ``(name as the sentence has it) -> name shown``; the caller
#: gives it (the card catalogue is above this package: replay.sources.cards), None keeps names as written.
CardName = Callable[[str], str]

#: The fields of the engine's sentences that hold a card's name (``cards``: several, joined by ", ").
CARD_FIELDS: Final[tuple[str, ...]] = ("card", "named")
CARD_LIST_FIELDS: Final[tuple[str, ...]] = ("cards",)


def _names(card: CardName | None) -> dict[str, CardName]:
    if card is None:
        return {}
    named: dict[str, CardName] = dict.fromkeys(CARD_FIELDS, card)
    for name in CARD_LIST_FIELDS:
        named[name] = lambda listed: ", ".join(card(n) for n in listed.split(", "))
    return named


def message(lang: str, code: str, text: str, card: CardName | None = None) -> str:
    """The finding ``code``'s public message ``text`` (as the record keeps it, in English) in ``lang``,
    each card it names shown by ``card`` (its name in ``lang`` where the catalogue knows it: issue 34
    item 4); ``text`` itself when ``lang`` is English or no template of ``code`` wrote it."""
    if lang == i18n.DEFAULT or not isinstance(text, str):
        return text
    templates = SENTENCES.get(code, ()) + NOTE_SENTENCES
    names = _names(card)
    if code == "result_mismatch":  # the results it compares and the rules' reason are codes: in words
        names.update(
            said=lambda value: words.result_said(lang, value),
            got=lambda value: words.result_said(lang, value),
            reason=lambda value: words.said(lang, value, words.REASONS),
        )
    return translate(lang, templates, text, PIECES, names) or text


def detail(lang: str, text: str, card: CardName | None = None) -> str:
    """A finding's judge-only ``detail`` (as the record keeps it) in ``lang`` where it is the engine's own
    sentence (:data:`replay.engine.findings.DETAIL_SENTENCES`, after the card it names, shown by
    ``card``) or one of the project's importers' (:data:`replay.i18n.notes.SENTENCES`: a note's text);
    else as it is (another source's note, a refused event's fields: quoted, never translated)."""
    if lang == i18n.DEFAULT or not isinstance(text, str):
        return text
    found = translate(lang, DETAIL_SENTENCES, text, (), _names(card))
    if found is None and (said := notes.text(lang, text, card)) != text:
        found = said  # an importer's note: its own sentence (replay.i18n.notes)
    if found is None:
        found = translate(lang, (DETAIL_AFTER,), text, DETAIL_SENTENCES, _names(card))
    return found or text


def known(code: str, text: str) -> bool:
    """Whether one of ``code``'s templates wrote ``text`` (tests: every message the engine writes is)."""
    return read(SENTENCES.get(code, ()) + NOTE_SENTENCES, text) is not None


def shown(finding: Mapping[str, Any], lang: str, card: CardName | None = None) -> dict[str, Any]:
    """A finding (a record's or the timeline's, as JSON) with ``text``: its public message in ``lang``
    (its cards shown by ``card``), beside the record's own English ``message`` (which stays as the record
    keeps it); with its ``detail`` (a judge's view), ``detail_text``: the detail in ``lang``
    (:func:`detail`)."""
    code, said = str(finding.get("code", "")), str(finding.get("message", ""))
    out = {**finding, "text": message(lang, code, said, card)}
    if isinstance(finding.get("detail"), str):  # a judge's view: the detail in ``lang`` beside it too
        out["detail_text"] = detail(lang, finding["detail"], card)
    return out
