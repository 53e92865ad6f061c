"""A battle log's lines as typed sentences: the first stage of the PTCGL importer.

One job: text in, ``Line``s out. Each line is normalised (BOM, CRLF, both apostrophes, card-id prefixes),
recognised as a phase header (``Setup``, ``Turn # N - P's Turn``, ``P's Turn``, ``[playerName]'s Turn``,
the checkup), the end line (``<reason>. <winner> wins.``), a card list (``   • a, b``), or one or more
sentences of the client's table in the log's language (replay/sources/ptcgl/sentences.py), with its values
under language-independent names. Nothing about the game is decided here: which Pokémon a name means,
and what the sentence does to the table, are the later stages' (docs/importers.md, "The pipeline").
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from replay.sources.ptcgl.locales import NUMBERED, Locale, header_ends
from replay.sources.ptcgl.sentences import Sentences, normal_text

# "(sv6_163) ", "(me3_48_ph) ", "(sv6-5_36) ": a set id, "_", a number, maybe a variant. Names such as
# "Professor's Research (Professor Oak)" have no "_" inside their parentheses and are left alone.
_CARD_ID = re.compile(r"\(([A-Za-z0-9.-]+(?:_[A-Za-z0-9.-]+)+)\) ")

# Lines that start a resolution window (the acting player does something); all others are consequences.
ACTIONS = frozenset(
    {
        "attack",
        "used",
        "attached",
        "evolved",
        "devolved",
        "retreated",
        "ended",
        "drew_played",
        "drew_hidden",
        "drew_n",
        "drew_card",
        "played_to",
        "played",
        "stadium",
        "discarded",
        "shuffled",
        "bottom",
        "inaction",
        "drew_n_played",
        "to_deck",
    }
)
# Lines a card list ("   • a, b" or "- a, b") may follow; the list's names go to the line's ``extra``.
LIST_KINDS = frozenset(
    {
        "drew_n",
        "drew_n_played",
        "bottom",
        "moved_n",
        "shuffled",
        "discarded",
        "list_head",
        "detached",
        "revealed",
    }
)
SETUP_KINDS = frozenset({"coin", "coin_won", "decided", "opening", "mulligan", "played_to"})
# Lines the client writes that its sentence table does not hold, seen in real English exports.
_EXTRA_EN = (("conceded_line", re.compile(r"^(?P<p>\S+) conceded\.$")),)


@dataclass(slots=True)
class Line:
    """One sentence of the log: where it is (``no``, 1-based), what it says (``kind``, values ``g``)."""

    no: int
    text: str
    detail: bool
    kind: str
    g: dict[str, str] | None = None
    player: str | None = None  # headers: the turn's player; end: the winner
    extra: Any = None
    key: str = ""  # the client's template key
    searched: bool = False  # this line's effect shuffles its deck: cards it moves came from the deck
    from_prizes: bool = False  # this line's effect shuffles the Prize cards: cards to the hand came from them
    partial: str = ""  # read by a vaguer sentence than the one it holds (that one's key): partly read


def normalise(text: str) -> list[str]:
    """BOM, CRLF, both apostrophes and card-id prefixes removed; one string per line."""
    if text.startswith("\ufeff"):
        text = text[1:]
    text = normal_text(text)
    if "_" in text:
        text = _CARD_ID.sub("", text)
    return text.splitlines()


def card_ids(text: str) -> dict[str, set[str]]:
    """Card name -> the client's card ids printed before it (``(sv6_163) Secret Box``): the printing."""
    out: dict[str, set[str]] = {}
    if "_" not in text:
        return out
    pattern = r"\(([A-Za-z0-9.-]+(?:_[A-Za-z0-9.-]+)+)\) ([^,.!\n]+?)(?=,|\.| to | on | in | and |$)"
    for m in re.finditer(pattern, normal_text(text), re.M):  # fmt: skip
        out.setdefault(m.group(2).strip(), set()).add(m.group(1))
    return out


# the kinds ``refine`` can change, and the draws a mulligan bonus line's detail lines name
_REFINED = frozenset({"drew", "moved", "to_deck", "shuffled_into"})
_BONUS_DRAWS = ("drew_card", "drew_hidden", "drew_n")


def refine(kind: str, g: dict[str, str] | None) -> str:
    """The importer's kind for a sentence whose meaning depends on its values (``drew a card`` is hidden,
    ``drew 2 cards`` a count, ``drew Arven`` a named card)."""
    if g is None:
        return kind
    if kind == "drew":
        if g.get("hidden") and "n" in g and g.get("c", "").split(" ")[0].isdigit():
            return "drew_n"
        return "drew_hidden" if g.get("hidden") else "drew_card"
    if kind == "moved":
        return "moved_n" if "n" in g else "moved"
    if kind == "to_deck":
        return "bottom" if "n" in g else "to_deck"
    if kind == "shuffled_into":
        return "shuffled"
    return kind


def header(loc: Locale, no: int, s: str) -> Line | None:
    """A phase header or the end line, else None."""
    if s == loc.setup:
        return Line(no, s, False, "setup")
    if s == loc.checkup:
        return Line(no, s, False, "checkup")
    rest, n = s, None
    nm = NUMBERED.match(s) if s.startswith("Turn # ") else None
    if nm is not None:
        rest, n = nm.group("rest"), int(nm.group("n"))
    tm = loc.turn.match(rest) if rest.startswith(loc.turn_prefix) and rest.endswith(loc.turn_suffix) else None
    if tm is not None:
        p = tm.group("p")
        return Line(no, s, False, "turn", player=None if p == "[playerName]" else p, extra=n)
    if nm is not None:
        return None
    if s in loc.draw:
        return Line(no, s, False, "end", extra=(loc.draw[s], None))
    w = loc.wins.match(s) if s.endswith(loc.wins_suffix) else None
    if w is not None:
        reason = loc.reasons.get(w.group("reason"))
        if reason is None:
            reason = ("unknown", None)
        return Line(no, s, False, "end", player=w.group("w"), extra=(*reason, w.group("reason")))
    return None


def spaced_handles(raw: list[str], loc: Locale) -> list[str]:
    """The two handles the log's opening lines name, when one of them holds a space (``[abc] Gary``): the
    client allows it, and a handle is then matched as a whole, exactly (``classify``); else []."""
    found = Sentences.for_language(loc.code).opening_handles(raw)
    return found if len(found) == 2 and any(any(ch.isspace() for ch in h) for h in found) else []


def classify(raw: list[str], loc: Locale, handles: list[str] | None = None) -> list[Line]:
    """Every non-empty line of ``raw`` as a Line (two sentences on one line give two Lines); ``handles``
    (``spaced_handles``) when the players' handles hold spaces."""
    sentences = (
        Sentences.with_handles(loc.code, tuple(handles)) if handles else Sentences.for_language(loc.code)
    )
    en = loc.code == "en"
    extra_en = _EXTRA_EN
    if handles:
        alts = "|".join(re.escape(h) for h in sorted(handles, key=len, reverse=True))
        extra_en = (("conceded_line", re.compile(rf"^(?P<p>{alts}|\S+) conceded\.$")),)
    out: list[Line] = []
    append = out.append
    readings = sentences.readings
    # a header's or the end line's text passes these literal tests (``header`` is asked only then): most
    # lines are sentences, and one or two C calls tell them apart
    head_ends, head_starts, turn_suffix = header_ends(loc)
    for i, text in enumerate(raw, 1):
        s = text.strip()
        if not s:
            continue
        if s[0] == "•":
            prev = out[-1] if out else None
            if prev is not None and prev.kind in LIST_KINDS:
                names = [n.strip() for n in s[1:].split(", ") if n.strip()]
                prev.extra = (prev.extra or []) + names
            append(Line(i, s, True, "bullet"))
            continue
        detail = s.startswith("- ")
        if detail:
            s = s[2:].strip()
        elif s.endswith(head_ends) or (
            head_starts and s.endswith(turn_suffix) and s.startswith(head_starts)
        ):  # (``locales.header_ends``' tests)
            head = header(loc, i, s)
            if head is not None:
                append(head)
                continue
        found = readings(s)  # the table's own Match objects: each ``g`` is copied into its Line
        if len(found) == 1:
            # most lines: one sentence, read into one Line here (the loop below does the same for the
            # others); positional arguments and the kind refined only when ``refine`` can change it
            m = found[0]
            g1 = dict(m.g)
            kind = m.kind
            if kind in _REFINED:
                kind = refine(kind, g1)
            ln = Line(i, s, detail, kind, g1, None, None, m.key, False, False, m.partial)
            if detail and out and kind in _BONUS_DRAWS:
                prev = out[-1]
                if prev.kind == "bonus" and prev.g is not None and g1["p"] == prev.g["p"]:
                    ln.kind = "ignore"  # names the mulligan bonus card(s) already counted
            append(ln)
            continue
        parts: list[tuple[str, dict[str, str] | None, str]]
        partial = next((m.partial for m in found if m.partial), "")
        parts = [(m.kind, dict(m.g), m.key) for m in found]
        if not parts and en:
            for kind, rx in extra_en:
                em = rx.match(s)
                if em is not None:
                    parts = [(kind, em.groupdict(), kind)]
                    break
        if not parts:
            parts = [("unmatched", None, "")]
        for j, (kind, g, key) in enumerate(parts):
            kind = refine(kind, g)
            ln = Line(i, s, detail or j > 0, kind, g, key=key, partial=partial if j == 0 else "")
            prev = out[-1] if out else None
            if prev is not None and detail:
                if kind == "unmatched" and prev.kind in LIST_KINDS:
                    ln.kind = "bullet"  # a card list written as a "- a, b" line (newer clients)
                elif (
                    kind in _BONUS_DRAWS
                    and prev.kind == "bonus"
                    and g is not None
                    and prev.g is not None
                    and g["p"] == prev.g["p"]
                ):
                    ln.kind = "ignore"  # names the mulligan bonus card(s) already counted
            if ln.kind == "bullet" and prev is not None:
                head = prev if prev.kind in LIST_KINDS else None
                if head is not None and head.kind != "bullet":
                    names = [n.strip() for n in s.lstrip("•").split(", ") if n.strip()]
                    head.extra = (head.extra or []) + names
                    ln.extra = head
            append(ln)
    mark_effects(out)
    return out


def mark_effects(lines: list[Line]) -> None:
    """An effect that shuffles its player's deck searched it: the cards it puts into play or onto Pokémon
    came from the deck (Nest Ball, Trinity Charge, Technical Machine: Evolution); one that shuffles the
    Prize cards took its card from them (Hisuian Heavy Ball)."""
    start = 0  # where the open group starts
    shuffles = False  # whether it holds a shuffle line (most groups do not: their flags stay False)

    def close(group: list[Line]) -> None:
        zones = {x.g.get("zone") for x in group if x.kind == "shuffle" and x.g is not None}
        if "deck" in zones or "prizes" in zones:
            for x in group:
                x.searched = "deck" in zones
                x.from_prizes = "prizes" in zones

    for i, line in enumerate(lines):
        kind = line.kind
        if (not line.detail and kind in ACTIONS) or kind in ("turn", "checkup", "end"):
            if shuffles:
                close(lines[start:i])
            start, shuffles = i, False
        if kind == "shuffle":
            shuffles = True
    if shuffles:
        close(lines[start:])
