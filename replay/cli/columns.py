"""Lines of a help text as a terminal shows them: Japanese and Korean characters take two columns.

argparse wraps by characters (``textwrap``): a Japanese line of 60 characters fills 120 columns, and a
sentence without spaces is cut anywhere. :func:`wrap` counts columns (East Asian Wide and Fullwidth
characters are two), breaks Japanese between any two characters but never before closing punctuation
(、。) and brackets, and Korean, which puts spaces between words, at its spaces only. Imported only for a
help text in Japanese or Korean.
"""

from __future__ import annotations

import re
import unicodedata

#: Characters a line never starts with (Japanese line breaking: kinsoku).
_NO_START = frozenset("、。，．・：；？！）」』】〕〉》ー’”%),.:;?!")
#: Characters a line never ends with (opening brackets).
_NO_END = frozenset("（「『【〔〈《‘“(")
#: Hangul: a Korean word is not cut (Korean breaks at its spaces).
_HANGUL = re.compile(r"[\u1100-\u11ff\u3130-\u318f\uac00-\ud7a3]")


def width(text: str) -> int:
    """The columns ``text`` takes in a terminal."""
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


def _tokens(text: str) -> list[str]:
    """``text`` cut where a line may break: a space, a Japanese character on its own, a run of others
    (closing punctuation kept with what it closes)."""
    tokens: list[str] = []
    run = ""
    for ch in text:
        if ch == " ":
            if run:
                tokens.append(run)
            tokens.append(" ")
            run = ""
        elif ch in _NO_START or run[-1:] in _NO_END:
            run += ch
        elif unicodedata.east_asian_width(ch) in "WF" and not _HANGUL.match(ch):
            if run:
                tokens.append(run)
            run = ch
        else:
            if run and not run[-1:].isspace() and _breaks_after(run):
                tokens.append(run)
                run = ""
            run += ch
    if run:
        tokens.append(run)
    return tokens


def _breaks_after(run: str) -> bool:
    """A line may break after ``run`` before a narrow character: after a Japanese character (or its
    closing punctuation), not inside a word."""
    last = run[-1]
    if last in _NO_END:
        return False
    return (unicodedata.east_asian_width(last) in "WF" and not _HANGUL.match(last)) or (
        last in _NO_START and width(last) == 2
    )


def wrap(text: str, columns: int) -> list[str]:
    """``text`` (its runs of white space folded) in lines of at most ``columns`` columns where it can be
    broken; a word longer than a line has a line of its own."""
    text = re.sub(r"\s+", " ", text).strip()
    columns = max(columns, 11)
    lines: list[str] = []
    line, used = "", 0
    for token in _tokens(text):
        size = width(token)
        if token == " ":
            if line:
                line, used = line + " ", used + 1
            continue
        if line and used + size > columns:
            lines.append(line.rstrip())
            line, used = "", 0
        line, used = line + token, used + size
    if line.strip():
        lines.append(line.rstrip())
    return lines
