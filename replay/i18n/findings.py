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

from collections.abc import Mapping
from typing import Any

from replay import i18n
from replay.engine import DETAIL_AFTER, DETAIL_SENTENCES, NOTE_SENTENCES, PIECES, SENTENCES
from replay.i18n.sentences import read, translate


def message(lang: str, code: str, text: str) -> str:
    """The finding ``code``'s public message ``text`` (as the record keeps it, in English) in ``lang``;
    ``text`` itself when ``lang`` is English or no template of ``code`` wrote it."""
    if lang == i18n.DEFAULT or not isinstance(text, str):
        return text
    templates = SENTENCES.get(code, ()) + NOTE_SENTENCES
    return translate(lang, templates, text, PIECES) or text


def detail(lang: str, text: str) -> str:
    """A finding's judge-only ``detail`` (as the record keeps it) in ``lang`` where it is the engine's own
    sentence (:data:`replay.engine.findings.DETAIL_SENTENCES`, after the card it names); else as it is (a
    source's note, a refused event's fields: quoted, never translated)."""
    if lang == i18n.DEFAULT or not isinstance(text, str):
        return text
    found = translate(lang, DETAIL_SENTENCES, text)
    if found is None:
        found = translate(lang, (DETAIL_AFTER,), text, DETAIL_SENTENCES)
    return found or text


def known(code: str, text: str) -> bool:
    """Whether one of ``code``'s templates wrote ``text`` (tests: every message the engine writes is)."""
    return read(SENTENCES.get(code, ()) + NOTE_SENTENCES, text) is not None


def shown(finding: Mapping[str, Any], lang: str) -> dict[str, Any]:
    """A finding (a record's or the timeline's, as JSON) with ``text``: its public message in ``lang``,
    beside the record's own English ``message`` (which stays as the record keeps it); with its ``detail``
    (a judge's view), ``detail_text``: the detail in ``lang`` (:func:`detail`)."""
    out = {**finding, "text": message(lang, str(finding.get("code", "")), str(finding.get("message", "")))}
    if isinstance(finding.get("detail"), str):  # a judge's view: the detail in ``lang`` beside it too
        out["detail_text"] = detail(lang, finding["detail"])
    return out
