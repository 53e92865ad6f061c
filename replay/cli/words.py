"""The command line's words for a person: in the environment's language (README, "Languages"), chosen
once here (:func:`language`) for every command, the parser's errors included; the messages themselves are
in the catalogues (replay/i18n). This module imports nothing at start-up: every command imports it."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from replay.engine import InputError


#: The two-letter prefixes of the locales that name a language other than English (replay.i18n.LANGUAGES
#: after the first: tests/cli/test_languages.py checks they agree).
OTHER_LANGUAGES = ("ja", "ko")
#: replay.i18n.LOCALE_VARIABLES (the same test checks them).
_LOCALE_VARIABLES = ("LC_ALL", "LC_MESSAGES", "LANG")


def language() -> str:
    """The language of a command's messages for a person (the findings' sentences): the environment's
    ``LC_ALL``, ``LC_MESSAGES`` or ``LANG`` (``ja_JP.UTF-8``: Japanese), else English (README, "Languages";
    replay.i18n.from_environment). JSON output is never translated: a record's bytes are the same
    everywhere."""
    if not any(os.environ.get(name, "")[:2].lower() in OTHER_LANGUAGES for name in _LOCALE_VARIABLES):
        return "en"  # none can name another language: replay.i18n is not imported (``--help``: issue 40)
    from replay.i18n import from_environment

    return from_environment(os.environ)


def tr(message: str, /, **fields: object) -> str:
    """``message`` (marked for the catalogues: tools/i18n.py extracts ``tr("...")``) in the command line's
    language (:func:`language`), its ``{fields}`` filled. English is the message as written: the
    catalogues are not read for it (a command's English start-up stays as fast as before)."""
    lang = language()
    if lang == "en":
        return message.format(**fields) if fields else message
    from replay.i18n import fill, gettext

    message = gettext(lang, message)
    return fill(lang, message, fields) if fields else message


def error_line(exc: InputError) -> str:
    """``exc`` as the command line shows it: in its language (replay.i18n.errors.line)."""
    lang = language()
    if lang == "en":
        return str(exc)
    from replay.i18n.errors import line

    return line(lang, exc)


def why(exc: BaseException) -> str:
    """What ``exc`` says in the command line's language: its message said again when it is a
    :class:`~replay.i18n.Spoken` (a checkpoint's problem: streams.store.checkpoint), else read back by the
    library's templates (a key file's problem: replay.signing; replay.i18n.errors.message); a text none
    reads (the OS's own words), and English, as written."""
    lang = language()
    if lang == "en":
        return str(exc)  # replay.i18n is not imported for English
    from replay.i18n.errors import message

    said = exc.args[0] if len(exc.args) == 1 and isinstance(exc.args[0], str) else str(exc)
    return str(message(lang, said))


def said(text: object) -> str:
    """``text`` in the command line's language when it can be said again in another
    (a :class:`~replay.i18n.Spoken`: a :class:`~replay.i18n.Phrase` a module worded, a tamper alarm); else,
    and in English, as it is."""
    lang = language()
    if lang == "en":
        return str(text)  # replay.i18n is not imported for English
    from replay.i18n import spoken

    return str(spoken(text, lang))
