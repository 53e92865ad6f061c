"""The message catalogues (replay/i18n/locale): every string a person reads, extracted with Babel, and
each language's translation of it (docs/web.md, "Languages").

    python -m tools.i18n update   # add new messages (en: as written; ja, ko: empty), drop gone ones
    python -m tools.i18n check    # what tests/test_i18n_catalogue.py checks: exit 1 and say what is wrong
                                  # (an error of the service made from words outside the catalogues too)

Where the messages are: the page templates and the report's (``{% trans %}``, ``_()``), the pages'
scripts (``_()`` in ``streams/http/static/*.js``, shown through ``static/i18n.js``) and the Python that
words a page, a report or a sheet (``N_()`` marks a message translated where it is shown;
``gettext(lang, ...)``, ``ngettext(lang, ...)`` and a local ``tr(...)`` translate at once).
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.extract import extract_from_dir
from babel.messages.pofile import read_po, write_po

from replay.i18n import LANGUAGES, catalogue_path

ROOT = Path(__file__).resolve().parent.parent

#: (directory, Babel's method map, its options): what is extracted, from where.
SOURCES: tuple[tuple[str, list[tuple[str, str]], dict[str, dict[str, str]]], ...] = (
    (
        "streams/http/templates",
        [("**.html", "jinja2.ext:babel_extract")],
        {"**.html": {"extensions": "jinja2.ext.i18n", "trimmed": "true", "newstyle_gettext": "true"}},
    ),
    (
        "replay/report/templates",
        [("**.html", "jinja2.ext:babel_extract")],
        {"**.html": {"extensions": "jinja2.ext.i18n", "trimmed": "true", "newstyle_gettext": "true"}},
    ),
    ("streams/http/static", [("*.js", "javascript")], {}),
    ("streams", [("**.py", "python")], {}),
    ("replay", [("**.py", "python")], {}),
)
#: The callables whose literal arguments are messages: the argument numbers, from 1.
KEYWORDS: dict[str, tuple[int, ...] | None] = {
    "_": None,
    "N_": None,
    "tr": None,
    "said": (3,),
    "quoting": (3,),
    "Refusal": (3,),
    "Phrase": None,
    "gettext": (2,),
    "ngettext": (2, 3),
}
#: In templates, ``_()`` and the calls ``{% trans %}`` compiles to (Jinja2's own, message first).
TEMPLATE_KEYWORDS: dict[str, tuple[int, ...] | None] = {"_": None, "gettext": None, "ngettext": (1, 2)}
SOURCE_KEYWORDS: dict[str, dict[str, tuple[int, ...] | None]] = {
    "streams/http/templates": TEMPLATE_KEYWORDS,
    "replay/report/templates": TEMPLATE_KEYWORDS,
    "streams/http/static": {"_": None},
}
HEADER = (
    "Prizecheck's messages (replay/i18n): run `python -m tools.i18n update` after changing a shown string."
)


#: The catalogues' header dates: fixed, so that an update changes only what changed.
STAMP = datetime(2026, 12, 6, tzinfo=UTC)


#: The command line's help texts: where argparse is told them (replay.cli.parser.Formatter shows each in
#: the command line's language), as keyword arguments, and a group's title as its first argument.
HELP_SOURCES = ("replay/cli", "streams/kafka/batching.py")
HELP_KEYWORDS = frozenset({"help", "description", "epilog", "title"})
HELP_TITLED = frozenset({"add_argument_group", "add_mutually_exclusive_group"})


def _help_texts(root: Path = ROOT) -> Iterator[tuple[str, int, str | None]]:
    """Each help text of the command line: (file, line, the text), the text None where it is not a
    literal (an f-string, a sum: no catalogue entry can match it). A name (a table's N_-marked text) or
    ``argparse.SUPPRESS`` is passed over: what it holds is extracted where it is written."""
    import ast

    paths = [root / s for s in HELP_SOURCES]
    for path in sorted(p for s in paths for p in ([s] if s.is_file() else s.rglob("*.py"))):
        rel = path.relative_to(root).as_posix()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=rel)):
            if not isinstance(node, ast.Call):
                continue
            values = [k.value for k in node.keywords if k.arg in HELP_KEYWORDS]
            name = node.func.attr if isinstance(node.func, ast.Attribute) else ""
            if name in HELP_TITLED and node.args:
                values.append(node.args[0])
            for value in values:
                if isinstance(value, ast.Constant):
                    if isinstance(value.value, str) and value.value:
                        yield rel, value.lineno, value.value
                elif isinstance(value, ast.JoinedStr | ast.BinOp):
                    yield rel, value.lineno, None


def extract() -> Catalog:
    """Every message the pages, their scripts, the Python and the command line's help show, with where
    it is used."""
    catalog = Catalog(project="prizecheck", header_comment=f"# {HEADER}")
    for filename, lineno, text in _help_texts():
        if text is not None:
            catalog.add(text, locations=[(filename, lineno)])
    for directory, methods, options in SOURCES:
        keywords = SOURCE_KEYWORDS.get(directory, KEYWORDS)
        for filename, lineno, message, _comments, _context in extract_from_dir(
            ROOT / directory, methods, options, keywords=keywords, strip_comment_tags=True
        ):
            if not message or (isinstance(message, tuple) and not message[0]):
                continue
            where = (f"{directory}/{filename}", lineno)
            if isinstance(message, tuple):
                catalog.add(message, string=("", ""), locations=[where])
            else:
                catalog.add(message, locations=[where])
    return catalog


def read(lang: str) -> Catalog:
    """``lang``'s catalogue as it is in the checkout."""
    with catalogue_path(lang).open("rb") as fh:
        return read_po(fh, locale=lang)


def update() -> None:
    """Bring each language's catalogue to the extracted messages: a new message is added (in English
    as itself, elsewhere empty: to translate), a message no longer shown is dropped."""
    found = extract()
    for lang in LANGUAGES:
        path = catalogue_path(lang)
        old = read(lang) if path.exists() else Catalog(locale=lang)
        new = Catalog(
            locale=lang,
            project="prizecheck",
            header_comment=f"# {HEADER}",
            creation_date=STAMP,
            revision_date=STAMP,
            language_team=f"{lang} <prizecheck>",
            last_translator="Prizecheck developers",
        )
        new.fuzzy = False
        for message in found:
            if not message.id:
                continue
            kept = old.get(message.id)
            string = kept.string if kept is not None and _filled(kept.string) else None
            if lang == "en" and string is None:
                string = message.id
            if string is None:
                string = ("", "") if message.pluralizable else ""
            new.add(message.id, string=string, locations=message.locations)
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("wb") as fh:
            write_po(fh, new, width=110, include_lineno=False, sort_output=True)


def _filled(string: object) -> bool:
    if isinstance(string, tuple | list):
        return all(isinstance(s, str) and s.strip() for s in string)
    return isinstance(string, str) and bool(string.strip())


#: How the service's errors are made (streams.http.routes.Problem): each with its sentence (the argument
#: number, from 1) a literal of the catalogues. ``reading`` reads another part's words back by templates
#: marked ``N_`` where they are written.
PROBLEM_MAKERS: dict[str, int | None] = {"said": 3, "quoting": 3, "Refusal": 3, "Phrase": 1, "reading": None}
#: The only module that makes a :class:`Problem` from a sentence already in words (its ``spoken`` form).
PROBLEM_HOME = "streams/http/routes.py"


def unspoken(root: Path = ROOT) -> Iterator[str]:
    """Errors of the service whose sentence is not in the catalogues: a ``Problem(...)`` made from a
    message in words (anywhere but :data:`PROBLEM_HOME`), or a ``Problem.said``/``quoting``/``Refusal``
    whose sentence is not a literal (an f-string, a variable: Babel cannot extract it, and the reader
    would get English), each named with its file and line. A name the module binds to ``N_("...")`` (a
    sentence read back by its template elsewhere: streams.store.tamper) is a literal of the catalogues."""
    import ast

    for path in sorted((root / "streams").rglob("*.py")):
        rel = path.relative_to(root).as_posix()
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=rel)
        marked = {
            target.id
            for node in tree.body
            if isinstance(node, ast.Assign | ast.AnnAssign)
            and isinstance(node.value, ast.Call)
            and isinstance(node.value.func, ast.Name)
            and node.value.func.id == "N_"
            and node.value.args
            and isinstance(node.value.args[0], ast.Constant)
            for target in (node.targets if isinstance(node, ast.Assign) else [node.target])
            if isinstance(target, ast.Name)
        }
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call):
                continue
            name = (
                node.func.id
                if isinstance(node.func, ast.Name)
                else node.func.attr
                if isinstance(node.func, ast.Attribute)
                else ""
            )
            if name == "Problem" and isinstance(node.func, ast.Name) and rel != PROBLEM_HOME:
                yield f"{rel}:{node.lineno}: Problem(...) with a sentence in words: use Problem.said"
            elif name in PROBLEM_MAKERS and PROBLEM_MAKERS[name] is not None:
                if name in ("said", "quoting") and not _is_problem(node.func):
                    continue
                at = PROBLEM_MAKERS[name] or 0
                arg = node.args[at - 1] if len(node.args) >= at else None
                literal = (isinstance(arg, ast.Constant) and isinstance(arg.value, str)) or (
                    isinstance(arg, ast.Name) and arg.id in marked
                )
                if not literal and not (rel == PROBLEM_HOME and isinstance(arg, ast.Name)):
                    yield f"{rel}:{node.lineno}: {name}(...)'s sentence is not a literal of the catalogues"


def _is_problem(func: object) -> bool:
    import ast

    return (
        isinstance(func, ast.Attribute)
        and isinstance(func.value, ast.Name)
        and func.value.id in ("Problem", "cls", "Refusal")
    )


def problems() -> Iterator[str]:
    """What is wrong with the catalogues: a message shown but in no catalogue, an entry no longer
    shown, an entry missing or empty in a language (each named with its file); an error of the service
    made from words outside them (:func:`unspoken`)."""
    yield from unspoken()
    for filename, lineno, text in _help_texts():
        if text is None:
            yield f"{filename}:{lineno}: a help text that is not a literal of the catalogues: use %(name)s"
    found = {m.id if isinstance(m.id, str) else m.id[0]: m for m in extract() if m.id}
    for lang in LANGUAGES:
        path = catalogue_path(lang).relative_to(ROOT)
        catalog = read(lang)
        have = {m.id if isinstance(m.id, str) else m.id[0]: m for m in catalog if m.id}
        for key, message in found.items():
            where = ", ".join(f"{f}:{n}" for f, n in message.locations[:2])
            entry = have.get(key)
            if entry is None:
                yield f"{path}: no entry for {key!r} (shown at {where}): run python -m tools.i18n update"
            elif not _filled(entry.string):
                yield f"{path}: {key!r} (shown at {where}) has no translation"
            elif entry.fuzzy:
                yield f"{path}: {key!r} is marked fuzzy: check its translation and drop the flag"
        for key in have.keys() - found.keys():
            yield f"{path}: {key!r} is shown nowhere any more: run python -m tools.i18n update"


def main(argv: list[str]) -> int:
    if argv[:1] == ["update"]:
        update()
        return 0
    if argv[:1] == ["check"]:
        wrong = list(problems())
        for line in wrong:
            print(line)
        return 1 if wrong else 0
    print(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
