"""A catalogue's ``.po`` text read straight into translations, without Babel (issue 40 item 2).

Reading a catalogue with Babel (``read_po``, then compiling it in memory) cost a process 0.2 s on the
shared two-core machine, Babel's own import half of it: more than ``prizecheck --help`` may take in
Japanese or Korean (100 ms). The files are gettext's ``.po`` format as ``python -m tools.i18n update``
writes them (Babel's ``write_po``): entries of ``msgid``, ``msgid_plural``, ``msgstr`` / ``msgstr[N]``,
each value a C string over one or more quoted lines, ``#`` comments and flags. :func:`read` reads exactly
that and gives what ``gettext.GNUTranslations`` would have from the compiled file: a fuzzy entry, an
obsolete one (``#~``) and an empty translation are left out (the English shows), as ``write_mo`` does.
``tests/test_i18n_catalogue.py`` checks it reads every catalogue as Babel does.
"""

from __future__ import annotations

import gettext
import re
from pathlib import Path
from typing import Final

_ESCAPE: Final = re.compile(r'\\([\\abfnrtv"])')
_ESCAPES: Final = {"a": "\a", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\v"}
_WORDS: Final = frozenset({"msgctxt", "msgid", "msgid_plural", "msgstr"})
_FORM: Final = re.compile(r"msgstr\[(\d+)\]")
_PLURAL: Final = re.compile(r"plural=([^;\n]+)")


class PoError(ValueError):
    """A line that is not ``.po`` text, with its number."""


def _unquote(text: str, lineno: int) -> str:
    if len(text) < 2 or text[0] != '"' or text[-1] != '"':
        raise PoError(f"not a quoted string on {lineno}: {text[:40]!r}")
    body = text[1:-1]
    return _ESCAPE.sub(_escaped, body) if "\\" in body else body


def _escaped(found: re.Match[str]) -> str:
    return _ESCAPES.get(found.group(1), found.group(1))


def read(path: Path) -> gettext.GNUTranslations:
    """The translations of the catalogue at ``path`` (``OSError`` if it cannot be read, :class:`PoError`
    naming the line if it is not ``.po`` text)."""
    catalog: dict[object, str] = {}
    entry: dict[str, str] = {}
    forms: dict[int, str] = {}
    fuzzy = False
    key: tuple[str, int | None] | None = None

    def close() -> None:
        nonlocal fuzzy
        if "msgid" in entry and not fuzzy:
            msgid = entry["msgid"]
            if "msgctxt" in entry:
                msgid = f"{entry['msgctxt']}\x04{msgid}"
            if "msgid_plural" in entry:
                if forms and all(forms.values()):
                    for n, text in forms.items():
                        catalog[(msgid, n)] = text
            elif entry.get("msgstr") or not msgid:
                catalog[msgid] = entry.get("msgstr", "")
        entry.clear()
        forms.clear()
        fuzzy = False

    with path.open(encoding="utf-8") as fh:
        lines = fh.read().split("\n")
    for lineno, raw in enumerate(lines, start=1):
        line = raw.strip()
        if not line:
            continue
        first = line[0]
        if first == "#":  # a comment, a flag: before the entry they belong to
            if "msgstr" in entry or forms:
                close()
                key = None
            if line.startswith("#,") and "fuzzy" in (f.strip() for f in line[2:].split(",")):
                fuzzy = True
            continue
        if first == '"':
            if key is None:
                raise PoError(f"a string with no keyword on {lineno}")
            text = _unquote(line, lineno)
            if key[1] is None:
                entry[key[0]] += text
            else:
                forms[key[1]] += text
            continue
        word, _, value = line.partition(" ")
        index: int | None = None
        if word.startswith("msgstr["):
            found = _FORM.fullmatch(word)
            if found is None:
                raise PoError(f"not a keyword of .po text on {lineno}: {line[:40]!r}")
            index = int(found.group(1))
        elif word not in _WORDS:
            raise PoError(f"not a keyword of .po text on {lineno}: {line[:40]!r}")
        if (word == "msgid" or word == "msgctxt") and ("msgstr" in entry or forms):
            close()
        text = _unquote(value.strip(), lineno)
        if index is not None:
            forms[index] = text
            key = ("msgstr", index)
        else:
            entry[word] = text
            key = (word, None)
    close()
    return _translations(catalog)


def _translations(catalog: dict[object, str]) -> gettext.GNUTranslations:
    """A ``GNUTranslations`` of ``catalog`` (msgid, or (msgid, n) for a plural form -> translation), its
    plural rule from the header's ``Plural-Forms`` (``plural=0`` for Japanese and Korean)."""
    made = gettext.GNUTranslations()  # no file: the catalogue is set, not parsed from a .mo
    header = str(catalog.get("", ""))
    found = _PLURAL.search(header)
    rule = gettext.c2py(found.group(1).strip()) if found else (lambda n: int(n != 1))
    made.plural = rule  # type: ignore[attr-defined]
    made._catalog = catalog  # type: ignore[attr-defined]
    made._charset = "utf-8"  # type: ignore[attr-defined]
    return made
