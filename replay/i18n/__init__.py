"""The languages people read Prizecheck in: English, Japanese and Korean (issue 34 items 5-7).

One place gives the words of a language (:func:`translations`, :func:`gettext`, :func:`ngettext`) and
chooses the language of a page (:func:`choose`). The catalogues are Babel's gettext ``.po`` files under
``replay/i18n/locale/<lang>/LC_MESSAGES/messages.po``, under version control and shipped as package data.

They are read from the ``.po`` text when a language is first asked for (:mod:`replay.i18n.po`, about
0.03 s a language on a busy two-core machine; once a process),
never from compiled ``.mo`` files: a compiled file would be a build step a fresh clone could forget, or a
binary in git that drifts from its source. English is the source language: its catalogue holds every
message with itself as the translation, so that a missing entry is visible in all three the same way
(``tests/test_i18n_catalogue.py`` checks that no entry is missing or empty in any language).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

if TYPE_CHECKING:  # Jinja2 is read when a template is first made, not to name the languages (issue 40 item 2)
    from gettext import GNUTranslations

    import jinja2

#: The languages of the pages, the report and the sheet; the first is the default.
LANGUAGES: Final[tuple[str, ...]] = ("en", "ja", "ko")
DEFAULT: Final[str] = "en"
#: Each language's own name, as a language menu shows it.
NAMES: Final[Mapping[str, str]] = {"en": "English", "ja": "日本語", "ko": "한국어"}

LOCALE_DIR: Final[Path] = Path(__file__).resolve().parent / "locale"
DOMAIN: Final[str] = "messages"


class CatalogueError(Exception):
    """A catalogue that cannot be read: its file and what is wrong with it."""


def catalogue_path(lang: str) -> Path:
    """The ``.po`` file of ``lang``."""
    return LOCALE_DIR / lang / "LC_MESSAGES" / f"{DOMAIN}.po"


@cache
def translations(lang: str) -> GNUTranslations:
    """The translations of ``lang`` (one of :data:`LANGUAGES`), read from its ``.po`` file once
    (:mod:`replay.i18n.po`: without Babel, whose import alone costs a command's start-up more than its
    help may take)."""
    if lang not in LANGUAGES:
        raise ValueError(f"not a language of Prizecheck: {lang!r} (one of {', '.join(LANGUAGES)})")
    from replay.i18n.po import PoError, read

    path = catalogue_path(lang)
    try:
        return read(path)
    except OSError as exc:
        raise CatalogueError(f"{path}: cannot be read ({exc.strerror})") from None
    except (PoError, UnicodeDecodeError) as exc:
        raise CatalogueError(f"{path}: {exc}") from None


def N_(message: str) -> str:
    """Marks ``message`` for the catalogues (tools/i18n.py extracts it); it is translated where shown."""
    return message


def gettext(lang: str, message: str) -> str:
    """``message`` in ``lang`` (the English text when the catalogue has no translation)."""
    return translations(lang).gettext(message)


def ngettext(lang: str, singular: str, plural: str, n: int) -> str:
    """The form of ``singular``/``plural`` for ``n`` in ``lang`` (Japanese and Korean have one form)."""
    return translations(lang).ngettext(singular, plural, n)


def fill(lang: str, template: str, fields: Mapping[str, object]) -> str:
    """``template`` (a message in ``lang``, ``str.format``'s syntax) filled with ``fields``: the one way a
    translated message gets its fields. In Korean, each generic particle after a field (``{card}을(를)``)
    takes the form the field's text needs (replay.i18n.korean); elsewhere ``str.format``."""
    if lang == "ko":
        from replay.i18n import korean

        return korean.fill(template, fields)
    return template.format_map(fields)


class Spoken(str):
    """A text written in English (the string itself: a log line or an English answer reads it as it is)
    that can be said again in another language (:func:`spoken`)."""

    def spoken(self, lang: str) -> str:
        """The text in ``lang``."""
        raise NotImplementedError


class Phrase(Spoken):
    """A piece of a sentence, written in English from ``template`` (a message of the catalogues) with
    ``fields``, that can be said again in another language (:func:`spoken`): the English text is the
    string itself (a log line or an English answer reads it as before). A field may itself be a
    :class:`Phrase` or :class:`Joined`."""

    template: str
    fields: dict[str, object]

    def __new__(cls, template: str, /, **fields: object) -> Phrase:
        made = super().__new__(cls, template.format(**fields))
        made.template, made.fields = template, dict(fields)
        return made

    def spoken(self, lang: str) -> str:
        said = {k: spoken(v, lang) for k, v in self.fields.items()}
        return fill(lang, gettext(lang, self.template), said)


class Joined(Spoken):
    """Pieces joined by ``sep`` (a :class:`Phrase` when it is words, such as " and "), each said again in
    another language by :func:`spoken`."""

    sep: object
    parts: tuple[object, ...]

    def __new__(cls, sep: object, parts: Sequence[object]) -> Joined:
        made = super().__new__(cls, str(sep).join(str(p) for p in parts))
        made.sep, made.parts = sep, tuple(parts)
        return made

    def spoken(self, lang: str) -> str:
        return str(spoken(self.sep, lang)).join(str(spoken(p, lang)) for p in self.parts)


def spoken(value: object, lang: str) -> object:
    """``value`` said in ``lang`` when it is :class:`Spoken` (a :class:`Phrase`, :class:`Joined`, an error's
    :class:`~replay.i18n.errors.Quoted` message); else as it is."""
    if lang != DEFAULT and isinstance(value, Spoken):
        return value.spoken(lang)
    return value


def template_environment(loader: jinja2.BaseLoader, lang: str) -> jinja2.Environment:
    """A Jinja2 environment of templates in ``lang``, set up as every template of Prizecheck is (the
    service's pages, the report's page): autoescaped, strict about undefined names (a typo is an error),
    blocks trimmed, and ``lang``'s catalogue installed for ``{% trans %}``, ``_()`` and ``ngettext()``
    (newstyle: a translation's ``%(name)s`` is filled and escaped by Jinja2; a ``{% trans %}`` over
    several lines is one message, its spaces folded)."""
    import jinja2

    env = jinja2.Environment(
        loader=loader,
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        extensions=["jinja2.ext.i18n"],
    )
    env.policies["ext.i18n.trimmed"] = True
    env.install_gettext_translations(translations(lang), newstyle=True)  # type: ignore[attr-defined]
    if lang == "ko":
        _korean_particles(env, translations(lang))
    env.globals["lang"] = lang
    return env


def _korean_particles(env: jinja2.Environment, catalogue: GNUTranslations) -> None:
    """Jinja2's newstyle ``gettext``/``ngettext`` for Korean, with each generic particle after a field in
    the form the field's text takes (replay.i18n.korean.particled), as :func:`fill` does for the
    catalogue's other messages: Jinja2's own, the particle step added before its ``%``."""
    import jinja2
    from markupsafe import Markup

    from replay.i18n import korean

    def said(context: jinja2.runtime.Context, text: str, variables: dict[str, Any]) -> str:
        text = korean.particled(text, variables)
        rv = Markup(text) if context.eval_ctx.autoescape else text
        return rv % variables

    @jinja2.pass_context
    def gettext_(context: jinja2.runtime.Context, string: str, /, **variables: Any) -> str:
        return said(context, catalogue.gettext(string), variables)

    @jinja2.pass_context
    def ngettext_(
        context: jinja2.runtime.Context, singular: str, plural: str, num: int, /, **variables: Any
    ) -> str:
        variables.setdefault("num", num)
        return said(context, catalogue.ngettext(singular, plural, num), variables)

    env.globals.update(gettext=gettext_, ngettext=ngettext_)


_RANGE = re.compile(r"^([A-Za-z]{1,8})(?:-[A-Za-z0-9]{1,8})*$")


def from_accept_language(header: str) -> str | None:
    """The first of :data:`LANGUAGES` a browser's ``Accept-Language`` asks for, by its q-values
    (``ko-KR,ko;q=0.9,en;q=0.8`` -> ``ko``); None when it names none of them (``*`` names none)."""
    wanted: list[tuple[float, int, str]] = []
    for i, part in enumerate(header.split(",")):
        tag, _, params = part.strip().partition(";")
        found = _RANGE.match(tag.strip())
        if not found:
            continue
        q = 1.0
        for param in params.split(";"):
            key, _, value = param.strip().partition("=")
            if key.strip().lower() == "q":
                try:
                    q = float(value)
                except ValueError:
                    q = 0.0
        lang = found.group(1).lower()
        if q > 0 and lang in LANGUAGES:
            wanted.append((-q, i, lang))
    return min(wanted)[2] if wanted else None


#: The environment variables that name the command line's language, first found first (POSIX's order for
#: messages: LC_ALL overrides LC_MESSAGES, which overrides LANG).
LOCALE_VARIABLES: Final[tuple[str, ...]] = ("LC_ALL", "LC_MESSAGES", "LANG")


def from_environment(environ: Mapping[str, str]) -> str:
    """The command line's language: the first of ``LC_ALL``, ``LC_MESSAGES`` and ``LANG`` that is set
    (``ja_JP.UTF-8`` -> ``ja``, ``ko_KR`` -> ``ko``); English when it names none of :data:`LANGUAGES`
    (``C``, ``POSIX``, ``C.UTF-8``, ``fr_FR``) or none is set."""
    for name in LOCALE_VARIABLES:
        value = environ.get(name, "")
        if value:
            lang = re.split(r"[_.@-]", value, maxsplit=1)[0].lower()
            return lang if lang in LANGUAGES else DEFAULT
    return DEFAULT


def choose(asked: str | None, setting: str | None, accept_language: str | None) -> str:
    """The language of a page: ``?lang=`` (``asked``) first, then the event's setting (the match's
    ``context.lang``), then the browser's ``Accept-Language``, then English. A value that is not one of
    :data:`LANGUAGES` is passed over (the route itself refuses a bad ``?lang=`` with a 400)."""
    for lang in (asked, setting):
        if lang in LANGUAGES:
            return str(lang)
    return from_accept_language(accept_language or "") or DEFAULT
