"""Which language a battle log is written in, or why it is not a log we can read.

One job: from the first lines of a normalised log, the client language (a ``Locale`` of
replay/sources/locales.py), or an InputError that says what the text is instead: empty, an older PTCGO
log, a log in a language whose sentence table we do not ship (naming the language it looks like), or not
a battle log at all. A log cut off before its end line is *not* decided here: its language is read, and
the pipeline says it is truncated (replay/sources/ptcgl/__init__.py).
"""

from __future__ import annotations

from replay.engine.errors import InputError
from replay.sources.locales import LOCALES, NUMBERED, Locale
from replay.sources.sentences import Sentences


def _headers_of(loc: Locale, s: str) -> int:
    nm = NUMBERED.match(s)
    if nm is not None:
        s = nm.group("rest")
    if s == loc.setup or s == loc.checkup or s in loc.draw or loc.turn.match(s):
        return 1
    w = loc.wins.match(s)
    if w is not None and w.group("reason") in loc.reasons:
        return 2
    return 0


def detect_locale(lines: list[str], filename: str) -> Locale:
    """The log's language: its headers and end line first, then (to tell languages that share headers
    apart) how many of its lines are sentences of each language. InputError when none is known."""
    numbered_at: int | None = None
    seen_text = False
    scores: dict[str, int] = {}
    sample: list[str] = []
    for i, raw in enumerate(lines[:4000]):
        s = raw.strip()
        if not s or s.startswith("•"):
            continue
        seen_text = True
        if s.startswith("Turn # ") and numbered_at is None and NUMBERED.match(s):
            numbered_at = i + 1
        if len(sample) < 200:
            sample.append(s[2:] if s.startswith("- ") else s)
        for code, loc in LOCALES.items():
            scores[code] = scores.get(code, 0) + _headers_of(loc, s)
        if scores.get("en", 0) >= 3:
            break
    best = max(scores.values(), default=0)
    if best:
        tied = [code for code, v in scores.items() if v == best]
        if len(tied) == 1:
            return LOCALES[tied[0]]

        def body(code: str) -> int:
            sen = Sentences.for_language(code)
            return sum(1 for s in sample if sen.match_one(s) is not None)

        return LOCALES[max(tied, key=body)]
    if not seen_text:
        raise InputError("empty battle log", file=filename, line=1)
    for i, raw in enumerate(lines[:50]):
        if "Game Log Output Begins Here" in raw:
            raise InputError(
                "an older Pokémon TCG Online log: not supported (export from Pokémon TCG Live)",
                file=filename,
                line=i + 1,
            )
    if numbered_at is not None:
        raise InputError(
            "unsupported language: turn headers and end lines match none of "
            + ", ".join(LOCALES)
            + " (docs/importers.md lists the supported languages)",
            file=filename,
            line=numbered_at,
        )
    first = next(i for i, raw in enumerate(lines) if raw.strip())
    raise InputError(
        "not a Pokémon TCG Live battle log (no Setup, turn or end line found)",
        file=filename,
        line=first + 1,
    )
