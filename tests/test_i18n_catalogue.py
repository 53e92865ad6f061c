"""The message catalogues (replay/i18n, docs/web.md "Languages"): every string a person reads is in them,
translated in every language, and no page template has words outside ``{% trans %}``/``_()``.

``tools/i18n.py`` extracts the messages with Babel (templates, the pages' scripts, the Python that words
a page); this is the check ``make test`` runs on them (issue 34 item 5).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from html.parser import HTMLParser
from pathlib import Path

import pytest

from replay import i18n
from tests.paths import ROOT
from tools.i18n import problems, read

TEMPLATES = ROOT / "streams" / "http" / "templates"
#: The report's page (replay/report/templates), checked as the service's pages are
REPORT_TEMPLATES = ROOT / "replay" / "report" / "templates"
STATIC = ROOT / "streams" / "http" / "static"
#: Words a page shows as they are in every language: names and codes, not sentences.
AS_THEY_ARE = {"Prizecheck", "play-2026", "jp-3.4", "kr-1.0", "HP", "TOM"}


def test_every_shown_string_is_in_every_catalogue_and_translated() -> None:
    wrong = list(problems())
    assert not wrong, "\n".join(wrong[:40])


def _placeholders(text: str) -> set[str]:
    return set(re.findall(r"%\(\w+\)s|\{\w+\}", text))


@pytest.mark.parametrize("lang", i18n.LANGUAGES)
def test_a_translation_keeps_every_placeholder_of_its_message(lang: str) -> None:
    wrong = []
    for message in read(lang):
        if not message.id:
            continue
        ids = [str(m) for m in message.id] if isinstance(message.id, tuple | list) else [str(message.id)]
        strings = (
            [str(s) for s in message.string]
            if isinstance(message.string, tuple | list)
            else [str(message.string)]
        )
        wanted = set().union(*(_placeholders(m) for m in ids))
        for string in strings:
            if _placeholders(string) != wanted:
                wrong.append(f"{lang}: {ids[0]!r} -> {string!r}")
    assert not wrong, "\n".join(wrong)


def test_japanese_and_korean_are_written_in_their_own_scripts() -> None:
    # a catalogue filled with the English by mistake would pass the check above
    for lang, script in (("ja", r"[\u3040-\u30ff\u4e00-\u9fff]"), ("ko", r"[\uac00-\ud7a3]")):
        entries = [m for m in read(lang) if m.id]
        native = [m for m in entries if re.search(script, str(m.string))]
        assert len(native) > 0.9 * len(entries), (lang, len(native), len(entries))


# ------------------------------------------------------------------------------- bare words in templates
_JINJA = re.compile(
    r"\{%-?\s*trans\b.*?%\}.*?\{%-?\s*endtrans\s*-?%\}"  # a message
    # class names and attributes, not words
    r"|\{%\s*block (?:body_class|header_class|body_attrs) %\}.*?\{%\s*endblock\s*%\}"
    r"|\{\{.*?\}\}|\{%.*?%\}|\{#.*?#\}",
    re.S,
)
_SHOWN_ATTRS = ("title", "placeholder", "aria-label", "alt")
_KEPT = {"code", "kbd", "script", "style", "pre"}


class _BareWords(HTMLParser):
    """Text nodes and shown attributes with letters in them, outside Jinja2 (already replaced by \\x00)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.stack: list[tuple[str, bool]] = []
        self.found: list[str] = []

    def _kept(self) -> bool:
        return any(kept for _tag, kept in self.stack)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        for name in _SHOWN_ATTRS:
            self._check(values.get(name) or "", f"<{tag} {name}>")
        if tag not in ("input", "meta", "link", "br", "img"):
            self.stack.append((tag, tag in _KEPT or values.get("translate") == "no"))

    def handle_endtag(self, tag: str) -> None:
        while self.stack:
            if self.stack.pop()[0] == tag:
                break

    def handle_data(self, data: str) -> None:
        if not self._kept():
            self._check(data, "text")

    def _check(self, text: str, where: str) -> None:
        words = " ".join(w for w in text.replace("\x00", " ").split() if w not in AS_THEY_ARE)
        if re.search(r"[A-Za-z]{2,}", words):
            self.found.append(f"{where}: {words!r}")


@pytest.mark.parametrize(
    "template",
    [
        *(p.name for p in sorted(TEMPLATES.glob("*.html"))),
        *(f"report/{p.name}" for p in sorted(REPORT_TEMPLATES.glob("*.html"))),
    ],
)
def test_a_template_has_no_words_outside_trans(template: str) -> None:
    folder, name = (
        (REPORT_TEMPLATES, template[7:]) if template.startswith("report/") else (TEMPLATES, template)
    )
    source = (folder / name).read_text(encoding="utf-8")
    parser = _BareWords()
    parser.feed(_JINJA.sub("\x00", source))
    assert not parser.found, parser.found


def test_the_bare_words_check_can_fail() -> None:
    parser = _BareWords()
    parser.feed(_JINJA.sub("\x00", '<p title="a tip">{{ _("fine") }} not fine <code>kept as is</code></p>'))
    assert parser.found == ["<p title>: 'a tip'", "text: 'not fine'"]
    parser.feed(_JINJA.sub("\x00", "<h1>Prizecheck · {{ match }}</h1>"))
    assert len(parser.found) == 2


# ---------------------------------------------------------------------- bare words in the pages' scripts
_SHOWN_JS = re.compile(
    r"\.(?:textContent|title|placeholder|alt)\s*=\s*(?:\"[^\"]*[A-Za-z]{2}|`[^`]*[A-Za-z]{2})"
)


@pytest.mark.parametrize("script", sorted(p.name for p in STATIC.glob("*.js")))
def test_a_script_sets_no_shown_text_outside_its_messages(script: str) -> None:
    wrong = [
        f"{script}:{n}: {line.strip()}"
        for n, line in enumerate((STATIC / script).read_text(encoding="utf-8").splitlines(), 1)
        if _SHOWN_JS.search(line.replace("Prizecheck", ""))
    ]
    assert not wrong, wrong


def test_each_script_gets_every_message_it_shows() -> None:
    from streams.http.templating import script_messages
    from tools.i18n import extract

    catalogue = extract()
    for script in sorted(p.name for p in STATIC.glob("*.js")):
        where = f"streams/http/static/{script}"
        wanted = {
            m.id if isinstance(m.id, str) else m.id[0]
            for m in catalogue
            if m.id and any(f == where for f, _n in m.locations)
        }
        assert set(script_messages(script)) == wanted, script


# ------------------------------------------------------------------------------------ the language choice
@pytest.mark.parametrize(
    ("asked", "setting", "header", "chosen"),
    [
        ("ko", "ja", "en", "ko"),  # ?lang= first
        (None, "ja", "ko-KR,ko;q=0.9", "ja"),  # then the event's own
        (None, None, "fr-FR,ko;q=0.8,ja;q=0.9", "ja"),  # then the browser's, by q
        (None, None, "ko-KR", "ko"),
        (None, None, "fr, de;q=0.5", "en"),  # none of ours: English
        (None, None, "ja;q=0", "en"),  # refused outright
        ("xx", "zz", "", "en"),  # not languages of ours: passed over
    ],
)
def test_the_language_is_chosen_in_order(
    asked: str | None, setting: str | None, header: str, chosen: str
) -> None:
    assert i18n.choose(asked, setting, header) == chosen


def test_a_catalogue_that_cannot_be_read_says_which_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bad = tmp_path / "ja" / "LC_MESSAGES"
    bad.mkdir(parents=True)
    (bad / "messages.po").write_text('msgid "a"\nmsgstr "b"\nmsgtext "c"\n', encoding="utf-8")
    monkeypatch.setattr(i18n, "LOCALE_DIR", tmp_path)
    i18n.translations.cache_clear()
    try:
        with pytest.raises(i18n.CatalogueError, match=r"ja/LC_MESSAGES/messages\.po: .*on 3"):
            i18n.translations("ja")
        with pytest.raises(i18n.CatalogueError, match=r"ko/LC_MESSAGES/messages\.po: cannot be read"):
            i18n.translations("ko")
    finally:
        i18n.translations.cache_clear()


def test_words_translate() -> None:
    assert i18n.gettext("ja", "prizes left") == "残りサイド"
    assert i18n.gettext("ko", "prizes left") == "남은 프라이즈"
    assert i18n.gettext("en", "prizes left") == "prizes left"


# ------------------------------------------------------------------------ bare words in the command line
CLI = ROOT / "replay" / "cli"
#: The calls whose text a person reads: printed, written, raised as an error, or drawn on a progress bar.
_SHOWN_CALLS = {
    "print",
    "write",
    "error",
    "InputError",
    "UsageError",
    "ArgumentTypeError",
    "Bar",
    "track",
    "phase",
}
#: Words a line shows as they are: the program and its commands, options, environment variables, units.
_KEPT_WORD = re.compile(r"^(?:--?[\w-]+|prizecheck|seq|HP|MB|MiB|[A-Z][A-Z0-9_]+)$")
#: A line that says why its English is not translated where it is written (read back later).
_READ_BACK = "i18n: read back"


def _cli_words() -> set[str]:
    from replay.cli import COMMANDS

    return {word for name in COMMANDS for word in name.split("-")} | {"print", "create", "list", "revoke"}


def _literal_texts(node: object) -> Iterator[str]:
    """The literal text of an argument: its string, an f-string's literal parts, each side of a ``+`` and
    of a conditional (a call, ``tr("...")`` among them, is not literal: it is translated or data)."""
    import ast

    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        yield node.value
    elif isinstance(node, ast.JoinedStr):
        for part in node.values:
            if isinstance(part, ast.Constant) and isinstance(part.value, str):
                yield part.value
    elif isinstance(node, ast.BinOp):
        yield from _literal_texts(node.left)
        yield from _literal_texts(node.right)
    elif isinstance(node, ast.IfExp):
        yield from _literal_texts(node.body)
        yield from _literal_texts(node.orelse)


def bare_cli_words(source: str) -> list[str]:
    """The lines of a command's module that show words outside the catalogues: a literal (or an f-string's
    text) given to print, a write, an error or a progress bar, with a word that is not a name the command
    line shows as it is."""
    import ast

    kept = _cli_words()
    lines = source.splitlines()
    found = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
        if name not in _SHOWN_CALLS or _READ_BACK in lines[node.lineno - 2]:
            continue
        for arg in node.args[:2]:
            for text in _literal_texts(arg):
                words = re.findall(r"[A-Za-z][A-Za-z'-]+", text)
                if any(not _KEPT_WORD.match(w) and w not in kept for w in words):
                    found.append(f"{node.lineno}: {text!r}")
    return found


@pytest.mark.parametrize("module", sorted(p.name for p in CLI.glob("*.py")))
def test_a_command_shows_no_words_outside_the_catalogues(module: str) -> None:
    # every message goes through tr()/gettext() (replay.cli.common.tr): README, "Languages"
    assert not bare_cli_words((CLI / module).read_text("utf-8")), bare_cli_words(
        (CLI / module).read_text("utf-8")
    )


def test_the_command_line_check_can_fail() -> None:
    source = (
        "print(f'{path}: no such file')\n"
        "raise InputError('is empty', file=path)\n"
        "print('prizecheck import: ' + tr('fine'))\n"
        "sys.stderr.write(f'prizecheck report: {n}\\n')\n"
        "bar = Bar('sending', unit='events')\n"
        "parser.error('expected one argument')\n"
        "# i18n: read back elsewhere\n"
        "parser.error('unrecognized arguments: x')\n"
    )
    assert bare_cli_words(source) == [
        "1: ': no such file'",
        "2: 'is empty'",
        "5: 'sending'",
        "6: 'expected one argument'",
    ]


@pytest.mark.parametrize("lang", i18n.LANGUAGES)
def test_the_catalogue_is_read_as_babel_compiles_it(lang: str) -> None:
    """replay.i18n.po reads each .po file as Babel's read_po and write_mo give it to gettext."""
    from io import BytesIO

    from babel.messages.mofile import write_mo
    from babel.messages.pofile import read_po
    from babel.support import Translations

    from replay.i18n.po import read

    with i18n.catalogue_path(lang).open("rb") as fh:
        catalog = read_po(fh, locale=lang, domain=i18n.DOMAIN)
    compiled = BytesIO()
    write_mo(compiled, catalog, use_fuzzy=False)
    compiled.seek(0)
    babel = Translations(compiled, domain=i18n.DOMAIN)
    mine = read(i18n.catalogue_path(lang))
    theirs = {k: v for k, v in babel._catalog.items() if k != ""}
    assert {k: v for k, v in mine._catalog.items() if k != ""} == theirs  # type: ignore[attr-defined]
    assert [mine.plural(n) for n in (0, 1, 2)] == [babel.plural(n) for n in (0, 1, 2)]


def test_a_fuzzy_or_empty_translation_is_left_out(tmp_path: Path) -> None:
    from replay.i18n.po import read

    po = tmp_path / "messages.po"
    po.write_text(
        'msgid ""\nmsgstr ""\n"Plural-Forms: nplurals=1; plural=0;\\n"\n\n'
        '#, fuzzy\nmsgid "a"\nmsgstr "A"\n\nmsgid "b"\nmsgstr ""\n\n'
        '#: x.py\n#, python-brace-format\nmsgid "c {n}"\nmsgstr ""\n"C \\"{n}\\"\\n"\n\n'
        'msgid "one"\nmsgid_plural "many"\nmsgstr[0] "ひとつ"\n',
        encoding="utf-8",
    )
    t = read(po)
    assert (t.gettext("a"), t.gettext("b"), t.gettext("c {n}")) == ("a", "b", 'C "{n}"\n')
    assert t.ngettext("one", "many", 5) == "ひとつ"
