"""Pokémon TCG Live battle-log exports -> contract events (docs/importers.md, ptcgl-format.md).

Pure functions over text: no file I/O here (replay/cli/import_.py reads files). Two passes:

1. classify every line against the client's sentence templates (cheap substring hints, then one regex),
   find both handles (from the Setup lines), the language, who exported the log and who went first;
2. walk the lines with a board tracker, grouping lines into resolution windows (an action line and the
   consequence lines that follow it) and emitting each window's events in rule order, not printed order:
   damage, then knockout claims, then the window's end, then prizes, then promotions [JP3.4 §I-D].

The log is one player's view: hidden draws and prizes stay counts, never names [ptcgl-format.md].
Every guess (an owner, which of two same-named Pokémon, a missing Pokémon) is a finding.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from replay.engine.errors import InputError
from replay.engine.ruleset import Ruleset, load_ruleset
from replay.sources.cards import NO_CATALOGUE, Catalogue
from replay.sources.common import Event, Finding, ImportResult, note, number
from replay.sources.locales import LOCALES, NUMBERED, Locale

# "(sv6_163) ", "(me3_48_ph) ", "(sv6-5_36) ": a set id, "_", a number, maybe a variant. Names such as
# "Professor's Research (Professor Oak)" have no "_" inside their parentheses and are left alone.
_CARD_ID = re.compile(r"\([A-Za-z0-9.-]+(?:_[A-Za-z0-9.-]+)+\) ")
_P = r"(?P<p>\S+)"
_Q = r"(?P<q>\S+?)'s "
_COND = r"(?P<cond>Poisoned|Burned|Asleep|Paralyzed|Confused)"
_ZONE = r"(?P<z>the discard pile|their hand|their deck|the Lost Zone|the Prize cards)"

# (kind, substrings that must all occur, pattern). Order matters where templates overlap.
_TEMPLATES: tuple[tuple[str, tuple[str, ...], str], ...] = (
    ("attack", (" used ", " damage."), rf"^(?P<p>\S+?)'s (?P<c>.+?) used (?P<a>.+?) on {_Q}(?P<d>.+?) "
     r"for (?P<n>\d{1,6}) damage\.(?P<rest>.*)$"),
    ("used", (" used ",), r"^(?P<p>\S+?)'s (?P<c>.+?) used (?P<a>.+)\.$"),
    ("ko", (" was Knocked Out!",), rf"^{_Q}(?P<d>.+) was Knocked Out!$"),
    ("prize", (" Prize card",), rf"^{_P} took (?:a Prize card|(?P<n>\d{{1,6}}) Prize cards)\.(?: .*)?$"),
    ("added_hidden", ("A card was added to ",), r"^A card was added to (?P<p>\S+?)'s hand\.$"),
    ("added", (" was added to ",), r"^(?P<c>.+) was added to (?P<p>\S+?)'s hand\.$"),
    ("now_active", (" is now in the Active Spot.",),
     r"^(?P<p>\S+?)'s (?P<c>.+) is now in the Active Spot\.$"),
    ("cond_on", (" is now ",), rf"^{_Q}(?P<d>.+) is now {_COND}\.$"),
    ("cond_off", (" is no longer ",), rf"^{_Q}(?P<d>.+) is no longer {_COND}\.$"),
    ("cond_clear", (" has recovered from all Special Conditions.",),
     rf"^{_Q}(?P<d>.+) has recovered from all Special Conditions\.$"),
    ("checkup_damage", (" placed on ", " for the Special Condition "),
     rf"^(?P<n>\d{{1,6}}) damage counters? (?:was|were) placed on {_Q}(?P<d>.+) for the Special Condition "
     rf"{_COND}\.$"),
    ("counters", (" damage counter", " put "),
     rf"^{_P} put (?P<n>\d{{1,6}}) damage counters? on {_Q}(?P<d>.+)\.$"),
    ("took_damage", (" took ", " damage."), rf"^{_Q}(?P<d>.+) took (?P<n>\d{{1,6}}) damage\.$"),
    ("switched", (" was switched with ",),
     rf"^{_Q}(?P<c>.+) was switched with (?P<q2>\S+?)'s (?P<d>.+) to become the Active Pokémon\.$"),
    ("attached", (" attached ",),
     rf"^{_P} attached (?P<c>.+?) to (?P<d>.+?) (?:in the (?P<a>Active Spot)|on the (?P<b>Bench))"
     r"\.(?: .*)?$"),
    ("evolved", (" evolved ",),
     rf"^{_P} evolved (?P<c>.+) to (?P<d>.+) (?:in the (?P<a>Active Spot)|on the (?P<b>Bench))\.$"),
    ("retreated", (" retreated ",), rf"^{_P} retreated (?P<c>.+) to the Bench\.$"),
    ("ended", (" ended their turn.",), rf"^{_P} ended their turn\.$"),
    ("opening", (" cards for the opening hand.",),
     rf"^{_P} drew (?P<n>\d{{1,6}}) cards for the opening hand\.$"),
    ("bonus", (" took at least 1 mulligan.",),
     rf"^{_P} drew (?P<n>\d{{1,6}}) more cards? because (?P<q>\S+) took at least 1 mulligan\.$"),
    ("drew_n_played", (" cards and played them to the ",),
     rf"^{_P} drew (?P<n>\d{{1,6}}) cards and played them to the (?P<zone>Bench|Active Spot)\.$"),
    ("drew_played", (" and played it to the ",),
     rf"^{_P} drew (?P<c>.+) and played it to the (?P<zone>Bench|Active Spot)\.$"),
    ("drew_hidden", (" drew a card.",), rf"^{_P} drew a card\.$"),
    ("drew_n", (" drew ", " cards."), rf"^{_P} drew (?P<n>\d{{1,6}}) cards\.$"),
    ("drew_card", (" drew ",), rf"^{_P} drew (?P<c>.+)\.$"),
    ("played_to", (" played ", " to the "), rf"^{_P} played (?P<c>.+) to the (?P<zone>Active Spot|Bench)\.$"),
    ("played", (" played ",), rf"^{_P} played (?P<c>.+)\.$"),
    ("mulligan", (" mulligan",), rf"^{_P} took (?:a mulligan|(?P<n>\d{{1,6}}) mulligans)\.$"),
    ("coin", (" for the opening coin flip.",), rf"^{_P} chose (?:heads|tails) for the opening coin flip\.$"),
    ("coin_won", (" won the coin toss.",), rf"^{_P} won the coin toss\.$"),
    ("decided", (" decided to go ",), rf"^{_P} decided to go (?P<order>first|second)\.$"),
    ("discarded", (" discarded ",), rf"^{_P} discarded (?P<c>.+)\.$"),
    ("moved_counters", (" damage counter", " moved "),
     rf"^{_P} moved (?P<n>\d{{1,6}}|a) damage counters? from {_Q}(?P<c>.+) to (?P<q2>\S+?)'s (?P<d>.+)\.$"),
    ("moved_n", (" moved ", " card"), rf"^{_P} moved {_Q}(?P<n>\d{{1,6}}) cards? to {_ZONE}\.$"),
    ("moved", (" moved ",), rf"^{_P} moved {_Q}(?P<c>.+) to {_ZONE}\.$"),
    ("shuffled", (" shuffled ", " into their deck."), rf"^{_P} shuffled (?P<c>.+) into their deck\.$"),
    ("bottom", (" on the bottom of their deck.",),
     rf"^{_P} put (?P<n>\d{{1,6}}) cards? on the bottom of their deck\.$"),
    ("inaction", (" didn't take an action in time.",), rf"^{_P} didn't take an action in time\.$"),
    ("list_head", ("drawn cards.",), r"^\d+ drawn cards\.$"),
    ("list_head", ("Cards revealed from Mulligan",), r"^Cards revealed from Mulligan \d+$"),
    ("ignore", ("Damage breakdown:",), r"^Damage breakdown:$"),
    ("ignore", (" damage",), r"^[^:]{1,60}: \d+ damage$"),  # breakdown items written as "- " lines
    ("list_head", (" discarded from ",), r"^.+ (?:was|were) discarded from \S+?'s .+\.$"),
    ("ignore", (" shuffled their ",), rf"^{_P} shuffled their (?:deck|hand|Prize cards)\.$"),
    ("ignore", (" flipped ",), rf"^{_P} flipped .+\.$"),
    ("ignore", (" was activated.",), r"^.+ was activated\.$"),
    ("ignore", (" did not affect ",), r"^Effects of .+ did not affect .+\.$"),
    ("conceded_line", (" conceded.",), rf"^{_P} conceded\.$"),
    ("ignore", (" can no longer use ",), rf"^{_P} can no longer use .+\.$"),
    ("healed", (" healed ",), rf"^{_Q}(?P<d>.+) healed (?P<n>\d{{1,6}}) damage\.$"),
)  # fmt: skip
_Template = tuple[str, tuple[str, ...], re.Pattern[str]]
_COMPILED: tuple[_Template, ...] = tuple((kind, hints, re.compile(pat)) for kind, hints, pat in _TEMPLATES)


def _index_templates() -> tuple[
    dict[str, tuple[_Template, ...]], tuple[_Template, ...], tuple[_Template, ...]
]:
    """Templates by the verb after the handle (``<P> drew ...``), the possessive ones (``<P>'s <C> ...``)
    and the rest, so a line is tried against a handful of templates, in table order, not all of them."""
    by_verb: dict[str, list[_Template]] = {}
    possessive: list[_Template] = []
    other: list[_Template] = []
    head = "^" + _P + " "
    for tpl, (_, _, pat) in zip(_COMPILED, _TEMPLATES, strict=True):
        if pat.startswith(head):
            verb = re.match(r"[A-Za-z']+", pat[len(head) :])
            assert verb is not None
            by_verb.setdefault(verb.group(), []).append(tpl)
        elif pat.startswith(("^" + _Q, r"^(?P<p>\S+?)'s ")):
            possessive.append(tpl)
        else:
            other.append(tpl)
    return {k: tuple(v) for k, v in by_verb.items()}, tuple(possessive), tuple(other)


_BY_VERB, _POSSESSIVE, _OTHER = _index_templates()

# Lines that start a resolution window (the acting player does something); all others are consequences.
_ACTIONS = frozenset(
    {
        "attack", "used", "attached", "evolved", "retreated", "ended", "drew_played", "drew_hidden",
        "drew_n", "drew_card", "played_to", "played", "discarded", "shuffled", "bottom", "inaction",
        "drew_n_played",
    }
)  # fmt: skip
# Lines a card list ("   • a, b" or "- a, b") may follow; the list's names go to the line's ``extra``.
_LIST_KINDS = frozenset(
    {"drew_n", "drew_n_played", "bottom", "moved_n", "shuffled", "discarded", "list_head"}
)
_SETUP_KINDS = frozenset({"coin", "coin_won", "decided", "opening", "mulligan", "played_to"})
_ZONES = {
    "the discard pile": "discard",
    "their hand": "hand",
    "their deck": "deck",
    "the Lost Zone": "lost_zone",
    "the Prize cards": "prizes",
}
_REASONS = {
    "prizes": "prizes",
    "both": "prizes",
    "no_pokemon": "no_pokemon",
    "deck_out": "deck_out",
    "concession": "concession",
    "timeout": "timeout",
}


@dataclass(slots=True)
class _Line:
    no: int
    text: str
    detail: bool
    kind: str
    m: re.Match[str] | None = None
    player: str | None = None  # headers: the turn's player; end: the winner
    extra: Any = None


@dataclass(slots=True)
class _Poke:
    pid: str
    owner: str
    name: str
    rule: str
    damage: int = 0
    conditions: list[str] = field(default_factory=list)


@dataclass(slots=True)
class _Window:
    kind: str  # attack | effect | checkup
    line: int
    actor: str | None = None  # who did the action line that opened the window
    kos: list[tuple[int, str, str]] = field(default_factory=list)
    prizes: list[tuple[int, str, int]] = field(default_factory=list)
    promos: list[tuple[int, str, str]] = field(default_factory=list)
    hit: list[str] = field(default_factory=list)
    retreated: set[str] = field(default_factory=set)
    seen: dict[tuple[str, str], int] = field(default_factory=dict)
    leaving: dict[str, tuple[str, str, int]] = field(default_factory=dict)  # owner -> (pid, zone, line)


def normalise(text: str) -> list[str]:
    """BOM, CRLF, both apostrophes and card-id prefixes removed; one string per line."""
    if text.startswith("\ufeff"):
        text = text[1:]
    text = text.replace("\u2019", "'").replace("\u2018", "'")
    if "Pokemon" in text:
        text = text.replace("Pokemon", "Pokémon")  # some exports drop the accent
    if "_" in text:
        text = _CARD_ID.sub("", text)
    return text.splitlines()


def _classify_en(text: str) -> tuple[str, re.Match[str] | None]:
    first, _, rest = text.partition(" ")
    if first.endswith("'s"):
        candidates = _POSSESSIVE + _OTHER
    else:
        candidates = _BY_VERB.get(rest.partition(" ")[0].rstrip(".!"), ()) + _OTHER
    for kind, hints, rx in candidates:
        for h in hints:
            if h not in text:
                break
        else:
            m = rx.match(text)
            if m is not None:
                return kind, m
    return "unmatched", None


def _detect_locale(lines: list[str], filename: str) -> Locale:
    """The log's language, from its headers and end line; InputError when none is known."""
    best: tuple[int, Locale] | None = None
    numbered_at: int | None = None
    seen_text = False
    for loc in LOCALES.values():
        score = 0
        for i, raw in enumerate(lines[:4000]):
            s = raw.strip()
            if not s or s.startswith(("-", "•")):
                continue
            seen_text = True
            nm = NUMBERED.match(s)
            if nm is not None:
                numbered_at = numbered_at or i + 1
                s = nm.group("rest")
            if s == loc.setup or s == loc.checkup or s in loc.draw or loc.turn.match(s):
                score += 1
            else:
                w = loc.wins.match(s)
                if w is not None and w.group("reason") in loc.reasons:
                    score += 2
        if score and (best is None or score > best[0]):
            best = (score, loc)
        if loc.code == "en" and score >= 2:
            break
    if best is not None:
        return best[1]
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


class _Importer:
    def __init__(
        self, lines: list[str], loc: Locale, match: str, rules: Ruleset, cards: Catalogue, filename: str
    ):
        self.raw = lines
        self.loc = loc
        self.match = match
        self.rules = rules
        self.cards = cards
        self.filename = filename
        self.events: list[Event] = []
        self.findings: list[Finding] = []
        self.unmatched: list[tuple[int, str]] = []
        self.players: list[str] = []
        self.pokes: dict[str, _Poke] = {}
        self.active: dict[str, str | None] = {}
        self.bench: dict[str, list[str]] = {}
        self.counter: dict[str, int] = {}
        self.prizes_left: dict[str, int] = {}
        self.window: _Window | None = None
        self.turn_player: str | None = None
        self.turn_no = 0
        self.turn_open = False
        self.pending: _Line | None = None
        self.phase = "pre"
        self.setup: dict[str, dict[str, Any]] = {}
        self.bonus: list[Event] = []
        self.added_due: dict[str, int] = {}
        self.ended: _Line | None = None
        self.hp_missing: set[str] = set()
        self.attack_lines: set[int] = set()
        self.first = ""
        self.deck: dict[str, int] = {}  # the engine's deck count from our events (rules.md §1.3 floor)
        self.entered: dict[str, int] = {}  # pid -> turn it came into play or last evolved
        self.evolved_at: dict[str, int] = {}  # pid -> turn it last evolved
        self.last_effect: str | None = None  # the last Trainer or Ability line of this turn
        self.head_notes: list[Event] = []
        self.setup_at = 0  # where the setup events are in self.events
        self.late_setup: dict[str, dict[str, Any]] = {}  # players the log shows no setup for
        self.end_at = 0

    # -- findings -------------------------------------------------------------------------------------
    def find(self, code: str, severity: str, line: int | None, message: str) -> None:
        f = Finding(code, severity, line, message)
        self.findings.append(f)
        if line is None:
            self.head_notes.append(note(f))  # about the whole log: right after match_started
        elif self.phase == "ended":
            # after the end line (trailing user notes): keep the claim last, so nothing follows the end
            self.events.insert(self.end_at, note(f))
            self.end_at += 1
        else:
            self.events.append(note(f))

    def emit(self, ev: Event) -> None:
        self.events.append(ev)
        t = ev["type"]
        if t == "drew":
            self.deck[ev["player"]] -= ev.get("count", 1)
        elif t == "moved":
            n = ev.get("count", len(ev.get("cards", ())))
            if ev["from"] == "deck":
                self.deck[ev["player"]] -= n
            if ev["to"] == "deck":
                self.deck[ev["player"]] += n

    # -- pass 1 ---------------------------------------------------------------------------------------
    def classify(self) -> list[_Line]:
        loc = self.loc
        en = loc.code == "en"
        out: list[_Line] = []
        append = out.append
        for i, raw in enumerate(self.raw, 1):
            s = raw.strip()
            if not s:
                continue
            if s[0] == "•":
                prev = out[-1] if out else None
                if prev is not None and prev.kind in _LIST_KINDS:
                    names = [n.strip() for n in s[1:].split(", ") if n.strip()]
                    prev.extra = (prev.extra or []) + names
                append(_Line(i, s, True, "bullet"))
                continue
            detail = s.startswith("- ")
            if detail:
                s = s[2:].strip()
            else:
                head = self._header(i, s)
                if head is not None:
                    append(head)
                    continue
            if en:
                kind, m = _classify_en(s)
            else:
                kind, m = "unmatched", None
            ln = _Line(i, s, detail, kind, m)
            prev = out[-1] if out else None
            if prev is not None and detail:
                if kind == "unmatched" and prev.kind in _LIST_KINDS:
                    ln.kind = "bullet"  # a card list written as a "- a, b" line (newer clients)
                elif (
                    kind == "drew_card"
                    and prev.kind == "bonus"
                    and m is not None
                    and prev.m is not None
                    and m.group("p") == prev.m.group("p")
                ):
                    ln.kind = "ignore"  # names the mulligan bonus card(s) already counted
            if ln.kind == "bullet" and prev is not None:
                head = prev if prev.kind in _LIST_KINDS else None
                if head is not None and head.kind != "bullet":
                    names = [n.strip() for n in s.lstrip("•").split(", ") if n.strip()]
                    head.extra = (head.extra or []) + names
                    ln.extra = head
            append(ln)
        return out

    def _header(self, no: int, s: str) -> _Line | None:
        loc = self.loc
        if s == loc.setup:
            return _Line(no, s, False, "setup")
        if s == loc.checkup:
            return _Line(no, s, False, "checkup")
        rest, n = s, None
        nm = NUMBERED.match(s) if s.startswith("Turn # ") else None
        if nm is not None:
            rest, n = nm.group("rest"), int(nm.group("n"))
        tm = (
            loc.turn.match(rest)
            if rest.startswith(loc.turn_prefix) and rest.endswith(loc.turn_suffix)
            else None
        )
        if tm is not None:
            p = tm.group("p")
            return _Line(no, s, False, "turn", player=None if p == "[playerName]" else p, extra=n)
        if nm is not None:
            return None
        if s in loc.draw:
            return _Line(no, s, False, "end", extra=(loc.draw[s], None))
        w = loc.wins.match(s) if s.endswith(loc.wins_suffix) else None
        if w is not None:
            reason = loc.reasons.get(w.group("reason"))
            if reason is None:
                reason = ("unknown", None)
            return _Line(no, s, False, "end", player=w.group("w"), extra=(*reason, w.group("reason")))
        return None

    def find_players(self, lines: list[_Line]) -> None:
        order: list[str] = []

        def add(p: str | None) -> None:
            if p and p not in order and len(order) < 2:
                order.append(p)

        for ln in lines:
            if ln.kind in _SETUP_KINDS and ln.m is not None:
                add(ln.m.group("p"))
            elif ln.kind == "bonus" and ln.m is not None:
                add(ln.m.group("p"))
                add(ln.m.group("q"))
            elif ln.kind == "turn":
                add(ln.player)
            if len(order) == 2:
                break
        if len(order) < 2:
            for ln in lines:
                if ln.kind == "end":
                    add(ln.player)
                elif ln.m is not None and "p" in ln.m.re.groupindex and ln.kind in _ACTIONS:
                    add(ln.m.group("p"))
        if not order:
            raise InputError("no player handle found in the log", file=self.filename, line=lines[0].no)
        if len(order) == 1:
            other = "opponent" if order[0] != "opponent" else "opponent-2"
            order.append(other)
            self.find(
                "importer_guess_player",
                "warning",
                None,
                f"only one handle ({order[0]}) appears in the log; the other player is called {other!r}",
            )
        self.players = order
        for p in order:
            self.active[p] = None
            self.bench[p] = []
            self.counter[p] = 0
            self.prizes_left[p] = self.rules.prizes
            self.deck[p] = self.rules.deck - self.rules.hand - self.rules.prizes

    def other(self, p: str) -> str:
        a, b = self.players
        return b if p == a else a

    def find_first(self, lines: list[_Line]) -> str:
        for ln in lines:
            if ln.kind == "decided" and ln.m is not None and ln.m.group("p") in self.players:
                p = ln.m.group("p")
                return p if ln.m.group("order") == "first" else self.other(p)
            if ln.kind == "turn":
                if ln.player in self.players:
                    return ln.player
                break
        self.find(
            "importer_guess_first",
            "warning",
            None,
            f"the log does not say who went first; assumed {self.players[0]}",
        )
        return self.players[0]

    def find_exporter(self, lines: list[_Line]) -> str | None:
        votes: dict[str, int] = dict.fromkeys(self.players, 0)
        opening: str | None = None
        setup = True
        for ln in lines:
            k = ln.kind
            if k == "opening" and ln.m is not None:
                opening = ln.m.group("p")
                continue
            if k == "turn":
                setup = False
            elif setup and k == "unmatched" and not ln.detail and " 7 " in ln.text:
                # any language: "<P> ... 7 ..." in Setup is the opening-hand line; a card list after it shows
                # whose hand the exporter could see
                first = ln.text.split(" ", 1)[0]
                opening = first if first in votes else None
                continue
            if k == "bullet" and opening is not None:
                if opening in votes:
                    votes[opening] += 3
                opening = None
                continue
            if k not in ("ignore", "bullet", "list_head") and not (k == "unmatched" and ln.detail):
                opening = None
            # a turn's named draw and a named prize card are the exporter's; searches ("- P drew C.") are
            # revealed to both players
            if (
                k in ("drew_card", "added")
                and not ln.detail
                and ln.m is not None
                and ln.m.group("p") in votes
            ):
                votes[ln.m.group("p")] += 1
            elif k == "end" and ln.player in votes and ln.extra[1] is not None:
                w = ln.player
                votes[w if ln.extra[1] == "winner" else self.other(w)] += 5
        ranked = sorted(votes.items(), key=lambda kv: -kv[1])
        if ranked[0][1] == 0:
            self.find(
                "importer_exporter_unknown",
                "info",
                None,
                "nothing in the log shows whose view it is (no named draw, no opening hand)",
            )
            return None
        if ranked[1][1] > 0:
            self.find(
                "importer_exporter_conflict",
                "warning",
                None,
                f"the log shows hidden information of both players; took {ranked[0][0]}",
            )
        return ranked[0][0]

    def find_attacks(self, lines: list[_Line]) -> None:
        """A turn that ends without "ended their turn" ended with an attack; a damage-less attack prints
        like an Ability (``X's C used Name.``), so the turn's last action line is the attack."""
        last: _Line | None = None
        closed = False
        turns = 0

        def settle() -> None:
            # [rules.md §6] the first player does not attack on the first turn: a "used" line there is an
            # Ability (a printed attack with damage stays an attack, for the engine to judge)
            if (
                last is not None
                and not closed
                and (last.kind == "attack" or (last.kind == "used" and turns > 1))
            ):
                self.attack_lines.add(last.no)

        for ln in lines:
            if ln.kind in ("turn", "checkup", "setup"):
                settle()
                turns += ln.kind == "turn"
                # no attacks between turns: a "used" line in a checkup is a checkup-time Ability
                last, closed = None, ln.kind != "turn"
            elif ln.kind == "end":
                if ln.extra[0] not in ("concession", "timeout"):
                    settle()
                last, closed = None, True
                break
            elif ln.kind == "ended" or ln.kind == "inaction":
                closed = True
            elif ln.kind == "attack":
                self.attack_lines.add(ln.no)
                last = ln
            elif not ln.detail and ln.kind in _ACTIONS:
                last = ln
        settle()

    # -- board ----------------------------------------------------------------------------------------
    def new_poke(self, owner: str, name: str) -> tuple[str, dict[str, Any]]:
        self.counter[owner] += 1
        pid = f"{'AB'[self.players.index(owner)]}{self.counter[owner]}"
        card = self.cards.card(name)
        if "hp" not in card:
            self.hp_missing.add(name)
        self.pokes[pid] = _Poke(pid, owner, name, card["rule"])
        self.entered[pid] = self.turn_no
        return pid, card

    def in_play(self, owner: str) -> list[str]:
        a = self.active[owner]
        return ([a] if a is not None else []) + self.bench[owner]

    def named(self, owner: str, name: str) -> list[str]:
        return [pid for pid in self.in_play(owner) if self.pokes[pid].name == name]

    def choose(self, cands: list[str], no: int, what: str, prefer: Callable[[str], tuple[int, ...]]) -> str:
        """Pick one of several same-named Pokémon; a finding when the rules of thumb do not decide."""
        if len(cands) == 1:
            return cands[0]
        ranked = sorted(cands, key=prefer)
        if prefer(ranked[0]) == prefer(ranked[1]):
            a, b = self.pokes[ranked[0]], self.pokes[ranked[1]]
            same = a.damage == b.damage and a.conditions == b.conditions
            self.find(
                "importer_guess_pid",
                "info" if same else "warning",
                no,
                f"{len(cands)} Pokémon named {a.name} ({', '.join(cands)}) fit {what}; took {ranked[0]}"
                + (" (they look identical)" if same else ""),
            )
        return ranked[0]

    def put_in_play(self, p: str, name: str, to: str) -> str:
        """A Pokémon of ``p`` enters play mid-game (to the Active Spot if it is empty, else the Bench)."""
        pid, card = self.new_poke(p, name)
        self.emit({"type": "played", "player": p, "pid": pid, "card": card, "to": to})
        if to == "active" and self.active[p] is None:
            self.active[p] = pid
        else:
            self.bench[p].append(pid)
        return pid

    def in_spot(
        self, p: str, name: str, ln: _Line, what: str, prefer: Callable[[str], tuple[int, ...]]
    ) -> str | None:
        """The Pokémon ``name`` of ``p`` that a line places "in the Active Spot" or "on the Bench"."""
        assert ln.m is not None
        in_active = ln.m.group("a") is not None
        a = self.active[p]
        if in_active and a is not None and self.pokes[a].name == name:
            return a
        cands = [x for x in self.bench[p] if self.pokes[x].name == name] if not in_active else []
        if cands:
            return self.choose(cands, ln.no, what, prefer)
        return self.locate(p, name, ln.no, what)

    def locate(
        self,
        owner: str,
        name: str,
        no: int,
        what: str,
        *,
        materialise: bool = True,
        prefer: Callable[[str], tuple[int, ...]] | None = None,
    ) -> str | None:
        """The pid of ``owner``'s ``name`` in play; the log's owner is checked against the board."""
        cands = self.named(owner, name)
        if not cands:
            other = self.other(owner)
            cands = self.named(other, name)
            if cands:
                self.find(
                    "importer_guess_owner",
                    "info",
                    no,
                    f"the log names {owner} as owner of {name}, but only {other} has one in play; "
                    f"took {other}'s",
                )
            elif materialise:
                return self.materialise(owner, name, no)
            else:
                return None
        win = self.window
        hit = win.hit if win is not None else []

        def default(pid: str) -> tuple[int, ...]:
            p = self.pokes[pid]
            return (0 if pid in hit else 1, 0 if self.active[p.owner] == pid else 1, -p.damage)

        return self.choose(cands, no, what, prefer or default)

    def materialise(self, owner: str, name: str, no: int) -> str:
        to = "active" if self.active[owner] is None else "bench"
        pid, card = self.new_poke(owner, name)
        self.find(
            "importer_guess_pokemon",
            "warning",
            no,
            f"{owner}'s {name} was not seen entering play; assumed it was put on the "
            f"{'Active Spot' if to == 'active' else 'Bench'} as {pid}",
        )
        if self.phase == "setup" or owner in self.late_setup:
            # before the game (or in a log that starts mid-game): part of the player's setup
            slot = self.late_setup.get(owner) or self.setup.setdefault(
                owner, {"active": None, "bench": [], "mulligans": 0}
            )
            if slot["active"] is None:
                slot["active"] = {"pid": pid, "card": card}
            else:
                slot["bench"].append({"pid": pid, "card": card})
        else:
            self.emit({"type": "played", "player": owner, "pid": pid, "card": card, "to": to})
        if to == "active":
            self.active[owner] = pid
        else:
            self.bench[owner].append(pid)
        return pid

    def leave_play(self, pid: str) -> None:
        p = self.pokes[pid]
        if self.active[p.owner] == pid:
            self.active[p.owner] = None
        elif pid in self.bench[p.owner]:
            self.bench[p.owner].remove(pid)

    def make_active(self, owner: str, pid: str) -> None:
        old = self.active[owner]
        if pid in self.bench[owner]:
            self.bench[owner].remove(pid)
        if old is not None and old != pid:
            self.bench[owner].append(old)
            self.pokes[
                old
            ].conditions.clear()  # RB: Special Conditions end when a Pokémon leaves the Active Spot
        self.active[owner] = pid

    # -- pass 2 ---------------------------------------------------------------------------------------
    def player_of(self, ln: _Line, group: str = "p") -> str | None:
        assert ln.m is not None
        p = ln.m.group(group)
        if p in self.active:
            return p
        return None

    def run(self, lines: list[_Line]) -> None:
        for ln in lines:
            k = ln.kind
            if self.phase == "ended":
                self.unmatched.append((ln.no, self.raw[ln.no - 1]))
                self.find("unmatched_line", "info", ln.no, f"text after the end line: {ln.text[:80]!r}")
                continue
            if k == "setup":
                self.close_window()
                self.phase = "setup"
                continue
            if k == "turn":
                self.start_header(ln)
                continue
            if k == "checkup":
                self.close_window()
                self.start_pending(None)
                self.close_turn()
                self.phase = "checkup"
                self.window = _Window("checkup", ln.no)
                self.emit({"type": "checkup_started"})
                continue
            if k == "end":
                self.end(ln)
                continue
            if k in ("bullet", "ignore", "list_head"):
                continue
            if k == "unmatched":
                self.unmatched.append((ln.no, self.raw[ln.no - 1]))
                self.find("unmatched_line", "warning", ln.no, f"no template matches: {ln.text[:80]!r}")
                continue
            if self.pending is not None:
                self.start_pending(ln)
            handler = getattr(self, "on_" + k)
            if not ln.detail and k in _ACTIONS and self.phase != "checkup":
                self.close_window()
                actor = ln.m.group("p") if ln.m is not None and "p" in ln.m.re.groupindex else None
                self.window = _Window("attack" if ln.no in self.attack_lines else "effect", ln.no, actor)
            elif self.window is None and self.phase == "turn":
                self.window = _Window("effect", ln.no)
            if not handler(ln):
                self.unmatched.append((ln.no, self.raw[ln.no - 1]))
                self.find(
                    "unmatched_line",
                    "warning",
                    ln.no,
                    f"names a player who is not in this game: {ln.text[:80]!r}",
                )

    # headers, turns and the end
    def start_header(self, ln: _Line) -> None:
        self.close_window()
        self.start_pending(None)
        self.close_turn()
        if self.phase in ("setup", "pre"):
            self.emit_setup()
        self.phase = "turn"
        self.pending = ln

    def start_pending(self, nxt: _Line | None, *, deck_out_of: str | None = None) -> None:
        ln = self.pending
        if ln is None:
            return
        self.pending = None
        player = ln.player
        expected = self.other(self.turn_player) if self.turn_player is not None else self.first
        if player is None:
            guess: str | None = None
            if nxt is not None and nxt.m is not None and "p" in nxt.m.re.groupindex:
                guess = nxt.m.group("p")
            if guess not in self.active:
                guess = expected
            player = guess
            assert player is not None
            self.find(
                "importer_guess_player",
                "info",
                ln.no,
                f"turn header without a player name ({ln.text!r}); took {player} from the next line",
            )
        elif player not in self.active:
            self.find(
                "importer_guess_player",
                "warning",
                ln.no,
                f"turn header names {player}, who is not in this game; took {expected}",
            )
            player = expected
        self.turn_no += 1
        self.last_effect = None
        self.turn_player = player
        self.turn_open = True
        ev: Event = {"type": "turn_started", "player": player, "turn": self.turn_no}
        deck = 0 if deck_out_of is not None and player == deck_out_of else None
        drawn = (
            nxt is not None
            and nxt.kind.startswith("drew")
            and nxt.m is not None
            and nxt.m.group("p") == player
        )
        if deck is None and drawn and self.deck[player] < 1:
            # [rules.md §1.3] The engine counts the deck from the events; a log hides some returns to the
            # deck (searches, shuffles without a count), so that count can reach 0 while the log shows the
            # turn's draw, which proves at least one card was there. Say so instead of a false deck-out.
            deck = 1
            self.find(
                "importer_deck_floor",
                "info",
                ln.no,
                f"the events leave {player} {self.deck[player]} cards in deck, but the log shows the "
                "turn's draw: deck set to 1 (some returns to the deck are not in the log)",
            )
            self.deck[player] = 1
        if deck is not None:
            ev["deck"] = deck
            self.deck[player] = deck
        self.emit(ev)

    def close_turn(self) -> None:
        if self.turn_open and self.turn_player is not None:
            self.emit({"type": "turn_ended", "player": self.turn_player})
        self.turn_open = False

    def emit_setup(self) -> None:
        if self.phase == "done_setup":
            return
        self.setup_at = len(self.events)
        for p in sorted(self.players, key=lambda x: x != self.first):
            slot = self.setup.get(p)
            if slot is None or slot["active"] is None:
                self.find(
                    "importer_missing_setup",
                    "warning",
                    None,
                    f"the log shows no Active Pokémon for {p} at setup (a paste that starts mid-game?): "
                    "the Pokémon it names before they enter play are put in a setup for them",
                )
                self.late_setup[p] = {"active": None, "bench": []}
                continue
            ev: Event = {"type": "setup", "player": p, "active": slot["active"], "bench": slot["bench"]}
            if slot["mulligans"]:
                ev["mulligans"] = slot["mulligans"]
            self.emit(ev)
        for ev in self.bonus:
            self.emit(ev)
        self.bonus = []
        self.phase = "done_setup"

    def end(self, ln: _Line) -> None:
        kind = ln.extra[0]
        loser_named = self.other(ln.player) if ln.player in self.active else None
        if self.pending is not None:
            # [rules.md §1.3] a deck-out shows as the loser's turn header followed by the end line
            self.start_pending(ln, deck_out_of=loser_named if kind == "deck_out" else None)
        elif kind == "deck_out":
            self.find(
                "importer_deck_out_turn",
                "warning",
                ln.no,
                "a deck-out end line that does not follow a turn header: the events cannot show it",
            )
        self.close_window()
        if self.phase in ("setup", "pre"):
            self.emit_setup()
        winner = ln.player
        self.end_at = len(self.events)
        if kind in ("draw", "sudden_death"):
            self.emit({"type": "game_ended", "outcome": "draw"})
            self.phase = "ended"
            self.ended = ln
            return
        if winner not in self.active:
            raise InputError(
                f"the end line names {winner}, who is not in this game",
                file=self.filename,
                line=ln.no,
                field="winner",
            )
        assert winner is not None
        loser = self.other(winner)
        if kind == "unknown":
            self.find("importer_unknown_reason", "warning", ln.no, f"unknown end reason {ln.extra[2]!r}")
        if kind == "deck_out" and self.turn_player != loser:
            self.find(
                "importer_deck_out_turn",
                "warning",
                ln.no,
                f"deck-out of {loser}, but the last turn header is {self.turn_player}'s",
            )
        if kind == "concession":
            self.emit({"type": "conceded", "player": loser})
        elif kind == "timeout":
            self.emit({"type": "conceded", "player": loser, "reason": "inactive"})
        ev: Event = {"type": "game_ended", "outcome": "win", "winner": winner}
        if kind in _REASONS:
            ev["reason"] = _REASONS[kind]
        self.emit(ev)
        self.phase = "ended"
        self.ended = ln

    # windows
    def close_window(self) -> None:
        w = self.window
        if w is None:
            return
        self.window = None
        kos: list[tuple[int, str]] = []
        for no, q, d in w.kos:
            owner = q if q in self.active else None
            if owner is None:
                self.find("unmatched_line", "warning", no, f"knockout of a Pokémon of unknown player {q}")
                continue
            taken = {pid for _, pid in kos}

            def prefer(pid: str, taken: set[str] = taken) -> tuple[int, ...]:
                p = self.pokes[pid]
                return (
                    1 if pid in taken else 0,
                    0 if pid in w.hit else 1,
                    0 if self.active[p.owner] == pid else 1,
                    -p.damage,
                )

            cands = [pid for pid in self.named(owner, d) if pid not in taken]
            if not cands and not self.named(self.other(owner), d):
                pid: str | None = self.materialise(owner, d, no)
            elif not cands:
                pid = self.locate(owner, d, no, "the knockout", prefer=prefer)
            else:
                pid = self.choose(cands, no, "the knockout", prefer)
            if pid is not None and pid not in taken:
                kos.append((no, pid))
        modifiers = self.prize_modifiers(w, kos)
        for ko_line, pid in kos:
            p = self.pokes[pid]
            hp = self.cards.hp.get(p.name)
            ko: Event = {"type": "knocked_out", "pid": pid, "player": p.owner}
            if hp is not None and p.damage < hp:
                # With HP known the engine checks the claim against the damage; a knockout the log shows
                # without enough damage is an effect ("this Pokémon is Knocked Out", e.g. Cursed Blast) or
                # damage in a line no template read. The client decided it: the claim names an effect
                # (contract: knocked_out.by), so the engine accepts it, marked unverified.
                self.find(
                    "importer_ko_without_damage",
                    "warning",
                    ko_line,
                    f"{p.owner}'s {p.name} ({pid}) is Knocked Out in the log with {hp - p.damage} HP left "
                    "by the lines read: claimed as a knockout by an effect",
                )
                ko["by"] = "effect"
            for delta in modifiers.get(pid, ()):
                self.emit({"type": "prize_modifier", "pid": pid, "delta": delta})
            self.emit(ko)
            self.leave_play(pid)
        if w.kind == "attack":
            self.emit({"type": "attack_ended"})
        elif w.kind == "checkup":
            self.emit({"type": "checkup_ended"})
        for _, taker, n in w.prizes:
            self.emit({"type": "prize_taken", "player": taker, "count": n})
            self.prizes_left[taker] = max(0, self.prizes_left[taker] - n)
        # JP3.4 §I-D step 5: when both Actives are out, the player who takes the next turn promotes first.
        nxt = self.other(self.turn_player) if self.turn_player is not None else self.first
        promoted = {who for _, who, _ in w.promos}
        for owner, (pid, zone, no) in w.leaving.items():
            if owner in promoted and self.active[owner] == pid:
                self.emit({"type": "removed", "player": owner, "pid": pid, "to": zone})
                self.leave_play(pid)
            else:
                self.find(
                    "importer_guess_removed",
                    "info",
                    no,
                    f"{self.pokes[pid].name} moved to {zone} with no new Active after it: taken as a card "
                    f"from outside play, not {owner}'s Active",
                )
        for no, who, c in sorted(w.promos, key=lambda t: 0 if t[1] == nxt else 1):
            self.promote(no, who, c, who in w.retreated)

    def prize_modifiers(self, w: _Window, kos: list[tuple[int, str]]) -> dict[str, list[int]]:
        """A prize line that differs from what the knocked-out Pokémon's kinds give means a card effect
        changed the value (Briar +1, Legacy Energy -1) [rules.md §3]: say so with a prize_modifier."""
        out: dict[str, list[int]] = {}
        claimed: dict[str, tuple[int, int]] = {}
        for no, taker, n in w.prizes:
            first_no, total = claimed.get(taker, (no, 0))
            claimed[taker] = (first_no, total + n)
        for taker, (no, n) in claimed.items():
            victims = [pid for _, pid in kos if self.pokes[pid].owner != taker]
            if not victims:
                self.find(
                    "importer_prize_without_ko",
                    "warning",
                    no,
                    f"{taker} took {n} prize card(s) but no knockout of the opponent's Pokémon is printed "
                    "near it",
                )
                continue
            values = {pid: self.rules.prize_value(self.pokes[pid].rule) for pid in victims}
            base = sum(values.values())
            left = self.prizes_left[taker]
            if n == min(base, left) or n > left:
                continue
            delta = n - base
            if delta > 0:
                out[victims[0]] = [delta]
            else:
                for pid in sorted(victims, key=lambda x: -values[x]):
                    d = max(delta, -values[pid])
                    if d:
                        out[pid] = [d]
                    delta -= d
                    if not delta:
                        break
            self.find(
                "importer_prize_modifier",
                "info",
                no,
                f"{taker} took {n} prize card(s) where the knocked-out kinds give {base}: assumed a card "
                "effect changed the prize value",
            )
        return out

    def promote(self, no: int, p: str, c: str, retreat: bool = False) -> None:
        a = self.active[p]
        if a is not None and self.pokes[a].name == c and not retreat:
            return  # already Active (e.g. printed after a switch line)
        cands = [pid for pid in self.bench[p] if self.pokes[pid].name == c]
        if not cands:
            pid = self.materialise_bench(p, c, no)
        else:
            pid = self.choose(cands, no, "the new Active Pokémon", lambda x: (0,))
        kind = "promoted" if a is None else "switched"
        self.make_active(p, pid)
        self.emit({"type": kind, "player": p, "pid": pid})

    def materialise_bench(self, owner: str, name: str, no: int) -> str:
        pid, card = self.new_poke(owner, name)
        self.find(
            "importer_guess_pokemon",
            "warning",
            no,
            f"{owner}'s {name} was not seen on the Bench; assumed it was benched as {pid}",
        )
        slot = self.late_setup.get(owner)
        if slot is None:
            self.emit({"type": "played", "player": owner, "pid": pid, "card": card, "to": "bench"})
        elif slot["active"] is None:
            slot["active"] = {"pid": pid, "card": card}
        else:
            slot["bench"].append({"pid": pid, "card": card})
        self.bench[owner].append(pid)
        return pid

    def damage(self, pid: str, amount: int, by: str | None = None) -> None:
        ev: Event = {"type": "damage", "pid": pid, "amount": amount}
        if by is not None:
            ev["by"] = by
        self.emit(ev)
        self.pokes[pid].damage += amount
        if self.window is not None:
            self.window.hit.append(pid)

    # line handlers: return False when the line names someone who is not a player
    def on_played_to(self, ln: _Line) -> bool:
        p = self.player_of(ln)
        if p is None:
            return False
        assert ln.m is not None
        name = ln.m.group("c")
        to = "active" if ln.m.group("zone") == "Active Spot" else "bench"
        if self.phase in ("setup", "pre"):
            slot = self.setup.setdefault(p, {"active": None, "bench": [], "mulligans": 0})
            pid, card = self.new_poke(p, name)
            if to == "active":
                slot["active"] = {"pid": pid, "card": card}
                self.active[p] = pid
            else:
                slot["bench"].append({"pid": pid, "card": card})
                self.bench[p].append(pid)
            return True
        self.put_in_play(p, name, to)
        return True

    def on_drew_played(self, ln: _Line) -> bool:
        p = self.player_of(ln)
        if p is None:
            return False
        assert ln.m is not None
        self.emit({"type": "drew", "player": p, "count": 1, "cards": [ln.m.group("c")]})
        return self.on_played_to(ln)

    def on_drew_hidden(self, ln: _Line) -> bool:
        p = self.player_of(ln)
        if p is None:
            return False
        self.emit({"type": "drew", "player": p, "count": 1})
        return True

    def second_owner(self, ln: _Line, p: str, group: str, what: str) -> str:
        """Effects that make both players shuffle their hands away and draw (Iono) print both players'
        lines under the acting player's name [ptcgl-format.md, Traps]: in one effect, a second line of
        the same kind for the same printed player is the other player's, when the other has none."""
        w = self.window
        if w is None or not ln.detail:
            return p
        key, other_key = (group, p), (group, self.other(p))
        if w.seen.get(key) and not w.seen.get(other_key):
            q = self.other(p)
            w.seen[other_key] = 1
            self.find(
                "importer_guess_owner",
                "info",
                ln.no,
                f"a second '{what}' line for {p} in one effect: the client prints the acting player here; "
                f"took {q}",
            )
            return q
        w.seen[key] = w.seen.get(key, 0) + 1
        return p

    def on_drew_n(self, ln: _Line) -> bool:
        p = self.player_of(ln)
        if p is None:
            return False
        assert ln.m is not None
        p = self.second_owner(ln, p, "draw", "drew N cards")
        ev: Event = {"type": "drew", "player": p, "count": int(ln.m.group("n"))}
        if ln.extra:
            ev["cards"] = list(ln.extra)  # shown to the exporter, or revealed
        self.emit(ev)
        return True

    def on_drew_n_played(self, ln: _Line) -> bool:
        p = self.player_of(ln)
        if p is None:
            return False
        assert ln.m is not None
        n = int(ln.m.group("n"))
        names: list[str] = list(ln.extra or [])
        ev: Event = {"type": "drew", "player": p, "count": n}
        if names:
            ev["cards"] = names
        self.emit(ev)
        if len(names) != n:
            self.find("importer_guess_pokemon", "warning", ln.no,
                      f"{p} put {n} Pokémon into play but the log lists {len(names)} names")  # fmt: skip
        to = "active" if ln.m.group("zone") == "Active Spot" else "bench"
        for name in names[:n]:
            self.put_in_play(p, name, to)
        return True

    def on_healed(self, ln: _Line) -> bool:
        q = self.player_of(ln, "q")
        if q is None:
            return False
        assert ln.m is not None
        pid = self.locate(q, ln.m.group("d"), ln.no, "the healing")
        assert pid is not None
        n = int(ln.m.group("n"))
        self.emit({"type": "healed", "pid": pid, "amount": n})
        self.pokes[pid].damage = max(0, self.pokes[pid].damage - n)
        return True

    def on_moved_counters(self, ln: _Line) -> bool:
        p, q, q2 = self.player_of(ln), self.player_of(ln, "q"), self.player_of(ln, "q2")
        if p is None or q is None or q2 is None:
            return False
        assert ln.m is not None
        n = 10 * (1 if ln.m.group("n") == "a" else int(ln.m.group("n")))
        src = self.locate(q, ln.m.group("c"), ln.no, "the damage counters moved")
        dst = self.locate(q2, ln.m.group("d"), ln.no, "the damage counters moved")
        assert src is not None and dst is not None
        self.emit({"type": "healed", "pid": src, "amount": n})
        self.pokes[src].damage = max(0, self.pokes[src].damage - n)
        self.damage(dst, n)
        return True

    def on_drew_card(self, ln: _Line) -> bool:
        p = self.player_of(ln)
        if p is None:
            return False
        assert ln.m is not None
        self.emit({"type": "drew", "player": p, "count": 1, "cards": [ln.m.group("c")]})
        return True

    def on_opening(self, ln: _Line) -> bool:
        return self.player_of(ln) is not None

    def on_coin(self, ln: _Line) -> bool:
        return self.player_of(ln) is not None

    on_coin_won = on_coin
    on_decided = on_coin
    on_inaction = on_coin

    def on_mulligan(self, ln: _Line) -> bool:
        p = self.player_of(ln)
        if p is None:
            return False
        assert ln.m is not None
        slot = self.setup.setdefault(p, {"active": None, "bench": [], "mulligans": 0})
        n = ln.m.group("n")
        # "took 2 mulligans." is a total; "took a mulligan." may be printed once per mulligan
        slot["mulligans"] = max(slot["mulligans"], int(n)) if n else slot["mulligans"] + 1
        return True

    def on_bonus(self, ln: _Line) -> bool:
        p = self.player_of(ln)
        if p is None:
            return False
        assert ln.m is not None
        ev: Event = {"type": "drew", "player": p, "count": int(ln.m.group("n"))}
        if self.phase in ("setup", "pre"):
            self.bonus.append(ev)
        else:
            self.emit(ev)
        return True

    def on_attached(self, ln: _Line) -> bool:
        p = self.player_of(ln)
        if p is None:
            return False
        assert ln.m is not None
        name, target = ln.m.group("c"), ln.m.group("d")
        pid = self.in_spot(p, target, ln, "the attachment", lambda x: (0,))
        kind = "energy" if "Energy" in name else "tool"
        self.emit({"type": "attached", "player": p, "pid": pid, "card": {"name": name, "kind": kind}})
        return True

    def on_evolved(self, ln: _Line) -> bool:
        p = self.player_of(ln)
        if p is None:
            return False
        assert ln.m is not None
        old, new = ln.m.group("c"), ln.m.group("d")
        # [rules.md §6] a Pokémon that came into play (or evolved) this turn cannot evolve: that rule, not
        # a guess, picks between same-named copies when it can.
        pid = self.in_spot(
            p, old, ln, "the evolution", lambda x: (0 if self.entered[x] < self.turn_no else 1,)
        )
        assert pid is not None
        card = self.cards.card(new)
        if "hp" not in card:
            self.hp_missing.add(new)
        poke = self.pokes[pid]
        poke.name, poke.rule = new, card["rule"]
        again = self.evolved_at.get(pid) == self.turn_no
        self.entered[pid] = self.evolved_at[pid] = self.turn_no
        poke.conditions.clear()
        ev: Event = {"type": "evolved", "player": p, "pid": pid, "card": card}
        if again:
            # A second evolution this turn needs a card that allows it (Grand Tree, Rare Candy): the client
            # did it, so name the last Trainer or Ability of the turn (contract: evolved.effect).
            ev["effect"] = self.last_effect or "effect"
        self.emit(ev)
        return True

    def on_retreated(self, ln: _Line) -> bool:
        p = self.player_of(ln)
        if p is None:
            return False
        if self.window is not None:
            # the next "is now in the Active Spot" is the retreat's switch, even to a same-named Pokémon
            self.window.retreated.add(p)
        return True

    def on_ended(self, ln: _Line) -> bool:
        p = self.player_of(ln)
        if p is None:
            return False
        self.close_window()
        if p != self.turn_player:
            self.find(
                "importer_turn_player", "warning", ln.no, f"{p} ended a turn that is {self.turn_player}'s"
            )
        self.close_turn()
        return True

    def attacker(self, p: str, name: str, no: int) -> str | None:
        a = self.active[p]
        if a is not None and self.pokes[a].name == name:
            return a
        return self.locate(p, name, no, "the attacker")

    def on_attack(self, ln: _Line) -> bool:
        assert ln.m is not None
        p, q = self.player_of(ln), self.player_of(ln, "q")
        if p is None or q is None:
            return False
        by = self.attacker(p, ln.m.group("c"), ln.no)
        self.emit({"type": "attack", "player": p, "pid": by, "name": ln.m.group("a")})
        d = ln.m.group("d")
        a = self.active[q]
        target = (
            a
            if a is not None and self.pokes[a].name == d
            else self.locate(q, d, ln.no, "the attack's target")
        )
        assert target is not None
        self.damage(target, int(ln.m.group("n")), by)
        return True

    def on_used(self, ln: _Line) -> bool:
        p = self.player_of(ln)
        if p is None:
            return False
        assert ln.m is not None
        if ln.no not in self.attack_lines:
            self.last_effect = ln.m.group("a")  # an Ability (or a damage-less attack)
            return True
        a = self.active[p]
        name = ln.m.group("c")
        if (a is None or self.pokes[a].name != name) and any(
            self.pokes[x].name == name for x in self.bench[p]
        ):
            # attacks come from the Active Pokémon: a Benched one's "used" line is an Ability
            self.last_effect = ln.m.group("a")
            if self.window is not None and self.window.kind == "attack":
                self.window.kind = "effect"
            return True
        by = self.attacker(p, name, ln.no)
        self.emit({"type": "attack", "player": p, "pid": by, "name": ln.m.group("a")})
        return True

    def on_took_damage(self, ln: _Line) -> bool:
        q = self.player_of(ln, "q")
        if q is None:
            return False
        assert ln.m is not None
        hit = self.window.hit if self.window is not None else []

        def prefer(pid: str) -> tuple[int, ...]:
            # spread damage: each line is a different Pokémon; the attack's own target is already hit
            return (1 if pid in hit else 0, -self.pokes[pid].damage)

        pid = self.locate(q, ln.m.group("d"), ln.no, "the spread damage", prefer=prefer)
        assert pid is not None
        self.damage(pid, int(ln.m.group("n")))
        return True

    def on_counters(self, ln: _Line) -> bool:
        p, q = self.player_of(ln), self.player_of(ln, "q")
        if p is None or q is None:
            return False
        assert ln.m is not None
        d = ln.m.group("d")
        if q == p and self.named(q, d) and self.named(self.other(p), d):
            # The printed owner is unreliable here [ptcgl-format.md, Traps] and both players have one:
            # an effect of P's that places damage counters targets the opponent's Pokémon far more often.
            q = self.other(p)
            self.find("importer_guess_owner", "warning", ln.no,
                      f"both players have {d} in play and the log's owner name is unreliable in this line; "
                      f"took {q}'s")  # fmt: skip
        pid = self.locate(q, d, ln.no, "the damage counters")
        assert pid is not None
        self.damage(pid, 10 * int(ln.m.group("n")))
        return True

    def on_checkup_damage(self, ln: _Line) -> bool:
        q = self.player_of(ln, "q")
        if q is None:
            return False
        assert ln.m is not None
        pid = self.locate(q, ln.m.group("d"), ln.no, "the checkup damage")
        assert pid is not None
        self.damage(pid, 10 * int(ln.m.group("n")))
        return True

    def condition(self, ln: _Line, on: bool) -> bool:
        q = self.player_of(ln, "q")
        if q is None:
            return False
        assert ln.m is not None
        pid = self.locate(q, ln.m.group("d"), ln.no, "the Special Condition")
        assert pid is not None
        poke = self.pokes[pid]
        conds = [ln.m.group("cond").lower()] if ln.kind != "cond_clear" else list(poke.conditions)
        for cond in conds:
            self.emit({"type": "condition", "pid": pid, "condition": cond, "on": on})
            if on and cond not in poke.conditions:
                poke.conditions.append(cond)
            elif not on and cond in poke.conditions:
                poke.conditions.remove(cond)
        return True

    def on_cond_on(self, ln: _Line) -> bool:
        return self.condition(ln, True)

    def on_cond_off(self, ln: _Line) -> bool:
        return self.condition(ln, False)

    def on_cond_clear(self, ln: _Line) -> bool:
        return self.condition(ln, False)

    def on_switched(self, ln: _Line) -> bool:
        q = self.player_of(ln, "q")
        if q is None:
            return False
        assert ln.m is not None
        c, d = ln.m.group("c"), ln.m.group("d")
        a = self.active[q]
        a_name = self.pokes[a].name if a is not None else None
        incoming = d if a_name == c else c if a_name == d else d
        cands = [x for x in self.bench[q] if self.pokes[x].name == incoming]
        if not cands:
            pid = self.materialise_bench(q, incoming, ln.no)
        else:
            pid = self.choose(cands, ln.no, "the switch", lambda x: (0,))
        self.make_active(q, pid)
        self.emit({"type": "switched", "player": q, "pid": pid})
        return True

    def on_now_active(self, ln: _Line) -> bool:
        p = self.player_of(ln)
        if p is None:
            return False
        assert ln.m is not None
        if self.window is None:
            self.promote(ln.no, p, ln.m.group("c"))
        else:
            self.window.promos.append((ln.no, p, ln.m.group("c")))
        return True

    def on_ko(self, ln: _Line) -> bool:
        q = self.player_of(ln, "q")
        if q is None:
            return False
        assert ln.m is not None
        if self.window is None:
            self.window = _Window("effect", ln.no)
        self.window.kos.append((ln.no, q, ln.m.group("d")))
        return True

    def on_prize(self, ln: _Line) -> bool:
        p = self.player_of(ln)
        if p is None:
            return False
        assert ln.m is not None
        n = int(ln.m.group("n") or 1)
        if self.window is None:
            self.window = _Window("effect", ln.no)
        self.window.prizes.append((ln.no, p, n))
        self.added_due[p] = self.added_due.get(p, 0) + n
        return True

    def on_added_hidden(self, ln: _Line) -> bool:
        p = self.player_of(ln)
        if p is None:
            return False
        if self.added_due.get(p):
            self.added_due[p] -= 1  # a prize card going to hand: part of prize_taken
        return True

    on_added = on_added_hidden

    def on_discarded(self, ln: _Line) -> bool:
        return self.player_of(ln) is not None  # from hand or from a Pokémon: the line does not say

    def on_moved_n(self, ln: _Line) -> bool:
        p, q = self.player_of(ln), self.player_of(ln, "q")
        if p is None or q is None:
            return False
        assert ln.m is not None
        zone = _ZONES[ln.m.group("z")]
        if zone == "deck":
            # a hand shuffled back (Iono, Judge): a return to the deck, owner checked like the draws after it
            owner = self.second_owner(ln, q, "return", "cards to the deck")
            self.emit(
                {
                    "type": "moved",
                    "player": owner,
                    "count": int(ln.m.group("n")),
                    "from": "hand",
                    "to": "deck",
                }
            )
        elif zone in ("discard", "lost_zone"):
            # The names printed in mill lines are unreliable [ptcgl-format.md, Traps]; a deck is not on the
            # board. When the printed mover is not the player whose action this is (PokéStop prints the
            # opponent as mover and owner), the deck is taken to be the acting player's; otherwise the
            # printed owner stays. Either way the move is marked and reported.
            n = int(ln.m.group("n"))
            actor = self.window.actor if self.window is not None else None
            owner = q
            if actor in self.active and p != actor:
                owner = actor
                self.find(
                    "importer_guess_owner",
                    "warning",
                    ln.no,
                    f"{n} card(s) milled: the line names {p} as mover and {q} as owner during {actor}'s "
                    f"action; took {actor}'s deck",
                )
            else:
                self.find("importer_owner_unverified", "info", ln.no,
                          f"{n} card(s) milled from {q}'s deck as the log prints it; a deck is not on the "
                          "board, so the owner could not be checked")  # fmt: skip
            self.emit(
                {
                    "type": "moved",
                    "player": owner,
                    "count": n,
                    "from": "deck",
                    "to": zone,
                    "owner_unverified": True,
                }
            )
        return True

    def on_moved(self, ln: _Line) -> bool:
        p, q = self.player_of(ln), self.player_of(ln, "q")
        if p is None or q is None:
            return False
        assert ln.m is not None
        zone = _ZONES[ln.m.group("z")]
        name = ln.m.group("c")
        if zone == "discard":
            return True  # a card from hand or deck: zone unknown, nothing the audit needs
        # The same line moves a card from the discard pile (Night Stretcher) or a Pokémon in play (Scoop Up,
        # Turo's Scenario). Only an Active replaced in the same effect proves the Pokémon left play: the
        # removal waits for that promotion line (close_window); anything else is a card from elsewhere.
        cands = [x for x in self.named(q, name) + self.named(self.other(q), name)]
        active = next((x for x in cands if self.active[self.pokes[x].owner] == x), None)
        if active is not None and self.window is not None:
            self.window.leaving[self.pokes[active].owner] = (active, zone, ln.no)
        elif cands:
            self.find(
                "importer_guess_removed",
                "info",
                ln.no,
                f"{name} moved to {zone}: taken as a card from outside play, not the Benched {name} "
                "(the log prints both alike)",
            )
        return True

    def on_shuffled(self, ln: _Line) -> bool:
        p = self.player_of(ln)
        if p is None:
            return False
        assert ln.m is not None
        c = ln.m.group("c")
        m = re.fullmatch(r"(\d+) cards", c)
        if m is not None:
            self.emit({"type": "moved", "player": p, "count": int(m.group(1)), "from": "hand", "to": "deck"})
        elif not c.startswith("their "):
            self.emit({"type": "moved", "player": p, "cards": [c], "from": "hand", "to": "deck"})
        return True

    def on_bottom(self, ln: _Line) -> bool:
        p = self.player_of(ln)
        if p is None:
            return False
        assert ln.m is not None
        p = self.second_owner(ln, p, "return", "cards to the deck")
        self.emit({"type": "moved", "player": p, "count": int(ln.m.group("n")), "from": "hand", "to": "deck"})
        return True

    def on_conceded_line(self, ln: _Line) -> bool:
        return self.player_of(ln) is not None  # the end line that follows says it again

    def on_played(self, ln: _Line) -> bool:
        if self.player_of(ln) is None:
            return False
        assert ln.m is not None
        self.last_effect = ln.m.group("c")  # a Trainer or an Ability: no event in the contract
        return True


def parse_ptcgl(
    text: str,
    *,
    match: str,
    ruleset: str = "play-2026",
    cards: Catalogue | None = None,
    filename: str = "<log>",
    partial: bool = False,
) -> ImportResult:
    """Turn a Pokémon TCG Live battle-log export into contract events.

    Raises InputError (naming ``filename`` and the line) when the text is not a readable battle log: empty,
    binary, another game's log, an unsupported language, or truncated (no end line) unless ``partial``.
    Everything else the importer cannot read or had to guess is a finding, returned and also written into
    the stream as a ``note`` event (``author: "importer"``).
    """
    try:
        rules = load_ruleset(ruleset)
    except KeyError:
        raise InputError(f"unknown ruleset {ruleset!r}", field="ruleset") from None
    if "\x00" in text:
        line = text.count("\n", 0, text.index("\x00")) + 1
        raise InputError("binary data (NUL byte): not a text battle log", file=filename, line=line)
    raw = normalise(text)
    loc = _detect_locale(raw, filename)
    imp = _Importer(raw, loc, match, rules, cards or NO_CATALOGUE, filename)
    lines = imp.classify()
    imp.find_players(lines)
    imp.first = imp.players[0]
    imp.first = imp.find_first(lines)
    if not any(ln.kind == "end" for ln in lines):
        # "P conceded." with no end line after it ends the game (a client variant)
        conceded = [
            ln for ln in lines if ln.kind == "conceded_line" and ln.m and ln.m.group("p") in imp.active
        ]
        if conceded:
            ln = conceded[-1]
            assert ln.m is not None
            ln.kind, ln.player = "end", imp.other(ln.m.group("p"))
            ln.extra = ("concession", None, ln.text)
    exporter = imp.find_exporter(lines)
    imp.find_attacks(lines)
    if not any(ln.kind == "end" for ln in lines) and not partial:
        last = lines[-1].no
        raise InputError(
            "truncated log: no end line ('<reason>. <winner> wins.'); use --partial to import it anyway",
            file=filename,
            line=last,
        )
    imp.run(lines)
    if imp.phase != "ended":
        imp.close_window()
        imp.start_pending(None)
        if imp.phase in ("setup", "pre"):
            imp.emit_setup()
    late = [
        {"type": "setup", "player": p, "active": slot["active"], "bench": slot["bench"]}
        for p, slot in imp.late_setup.items()
        if slot["active"] is not None
    ]
    imp.events[imp.setup_at : imp.setup_at] = late
    if loc.code != "en":
        imp.find(
            "importer_language",
            "warning",
            None,
            f"log language {loc.code}: only headers and the end line are read; "
            f"{len(imp.unmatched)} other lines are not",
        )
    hp_known = cards is not None and not imp.hp_missing and bool(imp.pokes)
    if not hp_known:
        imp.find(
            "importer_hp_unknown",
            "info",
            None,
            "HP unknown for "
            + (", ".join(sorted(imp.hp_missing)) or "all Pokémon")
            + ": knockouts are audited from the log's own knockout claims",
        )
    source: dict[str, Any] = {
        "kind": "digital",
        "client": "ptcgl",
        "exporter": exporter,
        "reports_knockouts": True,
        "hp_known": hp_known,
        "language": loc.code,
    }
    if exporter is None:
        del source["exporter"]
    start: Event = {
        "type": "match_started",
        "players": list(imp.players),
        "first": imp.first,
        "ruleset": rules.id,
        "source": source,
    }
    events = number(match, [start, *imp.head_notes, *imp.events])
    meta = {"players": list(imp.players), "first": imp.first, "exporter": exporter, "language": loc.code}
    if imp.ended is not None and imp.ended.player is not None:
        meta["winner"] = imp.ended.player
        meta["reason"] = _REASONS.get(imp.ended.extra[0], imp.ended.extra[0])
    return ImportResult(events, imp.findings, imp.unmatched, meta)
