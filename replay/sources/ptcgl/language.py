"""Which language a battle log is written in, or why it is not a log we can read.

One job: from the first lines of a normalised log, the client language (a ``Locale`` of
replay/sources/ptcgl/locales.py), or an InputError that says what the text is instead: empty, an older PTCGO
log, a log in a language whose sentence table we do not ship (naming the language it looks like), or not
a battle log at all. ``unread`` tells, once the lines are read, a log cut off before its end line from a
log in a language (or a client's older wording) that the headers' language does not read: the first is
"truncated", the second names the language.
"""

from __future__ import annotations

import re
import unicodedata

from replay.engine import InputError
from replay.sources.ptcgl.locales import LOCALES, NUMBERED, Locale, header_ends
from replay.sources.ptcgl.sentences import Sentences

# Languages whose sentence table we do not ship, told apart by their script or by words every battle log
# has (the Setup header, "Turn", "Prize"), so that the message can name the language it saw.
_SCRIPTS = (
    ("HANGUL", "Korean (ko)"),
    ("HIRAGANA", "Japanese (ja)"),
    ("KATAKANA", "Japanese (ja)"),
    ("CJK", "Chinese (zh)"),
    ("CYRILLIC", "Russian or another Cyrillic-script language"),
    ("THAI", "Thai (th)"),
    ("ARABIC", "Arabic (ar)"),
)
_WORDS = (
    ("Dutch (nl)", re.compile(r"\b(?:Voorbereiding|beurt|heeft|Prijskaart)\b")),
    ("Polish (pl)", re.compile(r"\b(?:Przygotowanie|Tura|został|zagrał|nagrody)\b")),
    ("Turkish (tr)", re.compile(r"\b(?:Hazırlık|sırası|Ödül)\b")),
    ("Indonesian (id)", re.compile(r"\b(?:Persiapan|giliran|kartu Hadiah)\b")),
)
NAMES = {
    "en": "English", "de": "German", "fr": "French", "es": "Spanish (Spain)",
    "es_la": "Latin-American Spanish", "it": "Italian", "pt-BR": "Brazilian Portuguese",
}  # fmt: skip


def name_unread(lines: list[str]) -> str | None:
    """The language a log we cannot read looks like (by its script, else by a few words), or None."""
    counts: dict[str, int] = {}
    for raw in lines[:400]:
        for ch in raw:
            if ord(ch) < 0x250:
                continue
            name = unicodedata.name(ch, "")
            for key, lang in _SCRIPTS:
                if name.startswith(key):
                    counts[lang] = counts.get(lang, 0) + 1
                    break
    if counts:
        # kana decides Japanese even beside many kanji
        if counts.get("Japanese (ja)", 0) >= 5:
            return "Japanese (ja)"
        return max(counts.items(), key=lambda kv: kv[1])[0]
    text = "\n".join(lines[:400])
    for lang, rx in _WORDS:
        if len(rx.findall(text)) >= 2:
            return lang
    return None


def _headers_of(loc: Locale, s: str) -> int:
    # the literal prefix and suffixes first (as lines.header): the regexes run on the few lines they fit
    nm = NUMBERED.match(s) if s.startswith("Turn # ") else None
    if nm is not None:
        s = nm.group("rest")
    if (
        s == loc.setup
        or s == loc.checkup
        or s in loc.draw
        or (s.startswith(loc.turn_prefix) and s.endswith(loc.turn_suffix) and loc.turn.match(s))
    ):
        return 1
    w = loc.wins.match(s) if s.endswith(loc.wins_suffix) else None
    if w is not None and w.group("reason") in loc.reasons:
        return 2
    return 0


def detect_locale(lines: list[str], filename: str) -> Locale:
    """The log's language: its headers and end line first, then (to tell languages that share headers
    apart) how many of its lines are sentences of each language. InputError when none is known."""
    numbered_at: int | None = None
    seen_text = False
    scores: dict[str, int] = dict.fromkeys(LOCALES, 0)  # (in LOCALES' order: a tie is broken in it)
    sample: list[str] = []
    # a line that fails a language's literal header tests scores 0 in it (most lines: sentences)
    tests = [(code, loc, header_ends(loc)) for code, loc in LOCALES.items()]
    # every language's tests at once (a line that fails these fails each language's): two C calls a line
    any_end = tuple(end for _, _, (ends, _, _) in tests for end in ends)
    any_start = tuple(start for _, _, (_, starts, _) in tests for start in starts)
    for i, raw in enumerate(lines[:4000]):
        s = raw.strip()
        if not s or s.startswith("•"):
            continue
        seen_text = True
        if s.startswith("Turn # ") and numbered_at is None and NUMBERED.match(s):
            numbered_at = i + 1
        if len(sample) < 200:
            sample.append(s[2:] if s.startswith("- ") else s)
        if not (s.endswith(any_end) or s.startswith(any_start)):
            continue
        for code, loc, (ends, starts, suffix) in tests:
            # (``header_ends``' tests, each language's)
            if s.endswith(ends) or (starts and s.endswith(suffix) and s.startswith(starts)):
                scores[code] += _headers_of(loc, s)
        if scores["en"] >= 3:
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
    seen = name_unread(lines)
    if numbered_at is not None or seen is not None:
        raise InputError(
            "unsupported language: "
            + (f"the log looks {seen}; " if seen else "")
            + "its turn headers and end lines match none of the languages read ("
            + ", ".join(LOCALES)
            + "; docs/importers.md lists them)",
            file=filename,
            line=numbered_at or next(i for i, raw in enumerate(lines) if raw.strip()) + 1,
        )
    first = next(i for i, raw in enumerate(lines) if raw.strip())
    raise InputError(
        "not a Pokémon TCG Live battle log (no Setup, turn or end line found)",
        file=filename,
        line=first + 1,
    )


def unread(raw: list[str], kinds: list[str], loc: Locale, filename: str) -> InputError | None:
    """For a log with no end line: an error naming the language when most of its sentence lines are read
    by no template of ``loc`` (the headers matched, the sentences do not: another language or variant),
    None when it reads as ``loc`` and was simply cut off. ``kinds`` are the line kinds classify gave."""
    body = [k for k in kinds if k not in ("setup", "turn", "checkup", "end", "bullet")]
    missed = sum(1 for k in body if k == "unmatched")
    if not body or missed * 2 <= len(body):
        return None
    seen = name_unread(raw)
    lang = NAMES.get(loc.code, loc.code)
    return InputError(
        f"unsupported language: {missed} of its {len(body)} sentence lines are not {lang} sentences, though "
        "its headers are"
        + (f"; the log looks {seen}" if seen else f": it looks like another variant of {lang}")
        + " (a language or a client's wording we do not read; docs/importers.md lists the languages read)",
        file=filename,
        line=1,
    )
