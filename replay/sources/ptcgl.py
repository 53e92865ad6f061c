"""Pokémon TCG Live battle-log exports -> contract events (docs/importers.md).

Pure functions over text: no file I/O here (replay/cli/import_.py reads files). Two passes:

1. match every line against the client's sentence table in the log's language (replay/sources/sentences.py:
   the 228 templates, the same keys in en, de, fr, es, it and pt-BR), find both handles (from the Setup
   lines), the language, who exported the log and who went first;
2. walk the lines with a board tracker, grouping lines into resolution windows (an action line and the
   consequence lines that follow it) and emitting each window's events in rule order, not printed order:
   damage, then knockout claims, then the window's end, then prizes, then promotions [JP3.4 §I-D].

The log is one player's view: hidden draws and prizes stay counts, never names [docs/importers.md, point of
view]. Every guess (an owner, which of two same-named Pokémon, a missing Pokémon, an HP) is a finding.
Cards are looked up in the packaged catalogue (replay/sources/cards.py) by their name in the log's
language: HP, rule box, Trainer type, and whether a ``used`` move is an Ability or an attack.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from replay.engine.errors import InputError
from replay.engine.ruleset import Ruleset, load_ruleset
from replay.sources.cards import NO_CATALOGUE, CardDatabase, CardInfo, Catalogue, card_database
from replay.sources.common import Event, Finding, ImportResult, note, number
from replay.sources.locales import LOCALES, NUMBERED, Locale
from replay.sources.sentences import Sentences, language_of, normal_text

# A battle log is tens of KB (the largest of ~80 real exports read: 19 KB). Above this the importer refuses
# the input before reading it, which bounds its memory: a 4 MiB log of real-log lines peaks under 200 MB
# (bench/importers.py --memory measures it); larger files would not stay under 300 MB.
MAX_LOG_BYTES = 4 * 1024 * 1024

# "(sv6_163) ", "(me3_48_ph) ", "(sv6-5_36) ": a set id, "_", a number, maybe a variant. Names such as
# "Professor's Research (Professor Oak)" have no "_" inside their parentheses and are left alone.
_CARD_ID = re.compile(r"\(([A-Za-z0-9.-]+(?:_[A-Za-z0-9.-]+)+)\) ")

# Lines that start a resolution window (the acting player does something); all others are consequences.
_ACTIONS = frozenset(
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
_LIST_KINDS = frozenset(
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
_SETUP_KINDS = frozenset({"coin", "coin_won", "decided", "opening", "mulligan", "played_to"})
_REASONS = {
    "prizes": "prizes",
    "both": "prizes",
    "no_pokemon": "no_pokemon",
    "deck_out": "deck_out",
    "concession": "concession",
    "timeout": "timeout",
}
# The catalogue's Trainer types -> the contract's trainer_played.card.kind
_TRAINER_KINDS = {
    "Item": "item",
    "Supporter": "supporter",
    "Stadium": "stadium",
    "Tool": "tool",
    "Technical Machine": "tool",
    "Rocket's Secret Machine": "item",
}
# Lines the client writes that its sentence table does not hold, seen in real English exports.
_EXTRA_EN = (("conceded_line", re.compile(r"^(?P<p>\S+) conceded\.$")),)


@dataclass(slots=True)
class _Line:
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


@dataclass(slots=True)
class _Poke:
    pid: str
    owner: str
    name: str
    rule: str
    damage: int = 0
    conditions: list[str] = field(default_factory=list)
    attached: list[str] = field(default_factory=list)
    card: dict[str, Any] = field(default_factory=dict)  # the card map of the current stage (in the events)
    survived: int = 0  # the most damage this stage is known to have survived a knockout check with
    stages: list[str] = field(default_factory=list)  # the Pokémon cards in the stack, lowest first


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
    stadium_played: bool = False
    replaced: tuple[str, str] | None = None  # the Stadium a Stadium played in this effect sent away
    ko_lists: dict[tuple[str, str], list[str]] = field(default_factory=dict)  # cards printed with a KO
    prizes_shuffled: set[str] = field(default_factory=set)
    move: tuple[str, str] | None = None  # (Pokémon, attack or Ability) the window's action used
    hands_shuffled: set[str] = field(default_factory=set)  # players whose hand an effect shuffled away
    returned: set[str] = field(default_factory=set)  # players who put their hand back this effect
    searched: bool = False


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


def _detect_locale(lines: list[str], filename: str) -> Locale:
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


def _refine(kind: str, g: dict[str, str] | None) -> str:
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


class _Importer:
    def __init__(
        self,
        lines: list[str],
        loc: Locale,
        match: str,
        rules: Ruleset,
        cards: Catalogue,
        filename: str,
        db: CardDatabase | None = None,
        ids: dict[str, set[str]] | None = None,
    ):
        self.raw = lines
        self.loc = loc
        self.sentences = Sentences.for_language(loc.code)
        self.lang = language_of(loc.code)
        self.match = match
        self.rules = rules
        self.cards = cards
        self.db = db
        self.ids = ids or {}
        self.filename = filename
        self.discard: dict[str, list[str]] = {}  # each player's discard pile by name (all public)
        self.stadium: tuple[str, str] | None = None  # (owner, name) of the Stadium in play
        self.hp_open: list[tuple[_Poke, dict[str, Any], list[int], int]] = []  # HP chosen at the end
        self.hp_chosen: dict[str, int] = {}
        # attachments to one of several same-named Pokémon: (event, card, the other candidates)
        self.attach_guesses: dict[str, list[tuple[Event, str, list[str]]]] = {}  # by the pid taken
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
        self.deck: dict[str, int] = {}  # the engine's deck count from our events (docs/rules.md §1.3 floor)
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
        p: str = ev.get("player", "")
        n: int = ev.get("count", len(ev.get("cards", ())) or 1)
        if p not in self.deck:
            return
        if t in ("drew", "searched"):
            self.deck[p] -= n
        elif t in ("moved", "shuffled", "to_hand", "discarded"):
            src = ev.get("from", "hand")
            dst = {"shuffled": ev.get("zone"), "to_hand": "hand", "discarded": "discard"}.get(t, ev.get("to"))
            if t == "shuffled" and "from" not in ev:
                return
            if src == "deck":
                self.deck[p] -= n
            if dst == "deck":
                self.deck[p] += n
            if dst == "discard":
                self.discard.setdefault(p, []).extend(ev.get("cards") or [])
            if src == "discard":
                for c in ev.get("cards") or ():
                    if c in self.discard.get(p, []):
                        self.discard[p].remove(c)
        elif t == "attached" and ev.get("from") == "deck":
            self.deck[p] -= 1
        elif t == "removed" and ev.get("to") == "deck":
            self.deck[p] += 1

    # -- pass 1 ---------------------------------------------------------------------------------------
    def classify(self) -> list[_Line]:
        sentences = self.sentences
        en = self.loc.code == "en"
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
            parts: list[tuple[str, dict[str, str] | None, str]] = [
                (m.kind, m.g, m.key) for m in sentences.match(s)
            ]
            if not parts and en:
                for kind, rx in _EXTRA_EN:
                    em = rx.match(s)
                    if em is not None:
                        parts = [(kind, em.groupdict(), kind)]
                        break
            if not parts:
                parts = [("unmatched", None, "")]
            for j, (kind, g, key) in enumerate(parts):
                kind = _refine(kind, g)
                ln = _Line(i, s, detail or j > 0, kind, g, key=key)
                prev = out[-1] if out else None
                if prev is not None and detail:
                    if kind == "unmatched" and prev.kind in _LIST_KINDS:
                        ln.kind = "bullet"  # a card list written as a "- a, b" line (newer clients)
                    elif (
                        kind == "drew_card"
                        and prev.kind == "bonus"
                        and g is not None
                        and prev.g is not None
                        and g["p"] == prev.g["p"]
                    ):
                        ln.kind = "ignore"  # names the mulligan bonus card(s) already counted
                if ln.kind == "bullet" and prev is not None:
                    head = prev if prev.kind in _LIST_KINDS else None
                    if head is not None and head.kind != "bullet":
                        names = [n.strip() for n in s.lstrip("•").split(", ") if n.strip()]
                        head.extra = (head.extra or []) + names
                        ln.extra = head
                append(ln)
        # An effect that shuffles its player's deck searched it: the cards it puts into play or onto
        # Pokémon came from the deck (Nest Ball, Trinity Charge, Technical Machine: Evolution).
        group: list[_Line] = []

        def close(group: list[_Line]) -> None:
            zones = {x.g.get("zone") for x in group if x.kind == "shuffle" and x.g is not None}
            for x in group:
                x.searched = "deck" in zones
                x.from_prizes = "prizes" in zones

        for line in out:
            if (not line.detail and line.kind in _ACTIONS) or line.kind in ("turn", "checkup", "end"):
                close(group)
                group = []
            group.append(line)
        close(group)
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
            if ln.kind in _SETUP_KINDS and ln.g is not None:
                add(ln.g["p"])
            elif ln.kind == "bonus" and ln.g is not None:
                add(ln.g["p"])
                add(ln.g["q"])
            elif ln.kind == "turn":
                add(ln.player)
            if len(order) == 2:
                break
        if len(order) < 2:
            for ln in lines:
                if ln.kind == "end":
                    add(ln.player)
                elif ln.g is not None and "p" in ln.g and ln.kind in _ACTIONS:
                    add(ln.g["p"])
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
            if ln.kind == "decided" and ln.g is not None and ln.g["p"] in self.players:
                p = ln.g["p"]
                return p if ln.g["order"] == "first" else self.other(p)
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
            if k == "opening" and ln.g is not None:
                opening = ln.g["p"]
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
                and not (ln.g or {}).get("hidden")
                and ln.g is not None
                and ln.g["p"] in votes
            ):
                votes[ln.g["p"]] += 1
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
            # [docs/rules.md §6] the first player does not attack on the first turn: a "used" line there is an
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
            elif ln.kind == "used" and not ln.detail and ln.g is not None and self.move_is_ability(ln.g):
                pass  # the catalogue knows this move as an Ability of that Pokémon: never the attack
            elif not ln.detail and ln.kind in _ACTIONS:
                last = ln
        settle()

    def move_is_ability(self, g: dict[str, str]) -> bool:
        db = self.db
        return db is not None and db.is_ability(g.get("c", ""), g.get("a", ""), self.lang) is True

    # -- cards ----------------------------------------------------------------------------------------
    def infos(self, name: str) -> list[CardInfo]:
        """The catalogue's cards printed as ``name`` in the log's language (one printing when the log
        printed the card's id before it)."""
        db = self.db
        if db is None:
            return []
        ids = self.ids.get(name)
        if ids is not None and len(ids) == 1:
            info = db.printing(next(iter(ids)))
            if info is not None and name in (info.names.get(self.lang), info.name):
                return [info]  # the printing itself (an id that names another card is not trusted)
        return db.lookup(name, self.lang)

    def card_map(self, name: str, poke: _Poke | None = None) -> dict[str, Any]:
        """The contract card for a Pokémon named ``name``: a user catalogue's HP first, else the packaged
        catalogue's when every printing of that name agrees; several HP wait for the damage to choose."""
        card = self.cards.card(name)
        if "hp" in card or name in self.cards.rules:
            return card
        pokemon = [i for i in self.infos(name) if i.category == "pokemon"]
        rules = {i.rule for i in pokemon if i.rule}
        if len(rules) == 1:
            card["rule"] = next(iter(rules))
        hps = sorted({i.hp for i in pokemon if i.hp})
        if len(hps) == 1:
            card["hp"] = hps[0]
        elif len(hps) > 1 and poke is not None:
            self.hp_open.append((poke, card, hps, self.turn_no))
        else:
            self.hp_missing.add(name)
        return card

    def settle_hp(self, poke: _Poke, no: int | None, knocked_out_at: int | None = None) -> None:
        """Choose the HP of ``poke``'s current card among its printings' HP: at a knockout, the HP the
        damage read fits (survived < HP <= damage); otherwise the one HP above what it survived."""
        for i, (p, card, hps, _) in enumerate(self.hp_open):
            if p is not poke or card is not poke.card:
                continue
            del self.hp_open[i]
            shown = "/".join(str(h) for h in hps)
            if knocked_out_at is not None:
                fit = [h for h in hps if poke.survived < h <= knocked_out_at]
                if fit:
                    card["hp"] = max(fit)
                    self.find(
                        "importer_hp_choice",
                        "info",
                        no,
                        f"{poke.name} has printings with HP {shown}; the damage read ({knocked_out_at}) "
                        f"knocks out {', '.join(str(h) for h in fit)}: took HP {card['hp']}",
                    )
                else:
                    self.hp_missing.add(poke.name)
                    self.find(
                        "importer_hp_unverified",
                        "warning",
                        no,
                        f"{poke.name} has printings with HP {shown} and none fits the damage read "
                        f"({knocked_out_at}): its knockout stays the log's claim, unverified",
                    )
                return
            fit = [h for h in hps if h > poke.survived]
            if len(fit) == 1:
                card["hp"] = fit[0]
            else:
                self.hp_missing.add(poke.name)
                if poke.name not in self.hp_chosen:
                    self.hp_chosen[poke.name] = 0
                    self.find(
                        "importer_hp_ambiguous",
                        "info",
                        no,
                        f"{poke.name} has printings with HP {shown}: nothing in the log tells which, "
                        "its HP is left unknown",
                    )
            return

    # -- board ----------------------------------------------------------------------------------------
    def new_poke(self, owner: str, name: str) -> tuple[str, dict[str, Any]]:
        self.counter[owner] += 1
        pid = f"{'AB'[self.players.index(owner)]}{self.counter[owner]}"
        poke = _Poke(pid, owner, name, "none")
        card = self.card_map(name, poke)
        poke.rule, poke.card, poke.stages = card["rule"], card, [name]
        self.pokes[pid] = poke
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
        assert ln.g is not None
        spot = ln.g.get("spot")  # the fallback sentences name no spot
        a = self.active[p]
        if spot != "bench" and a is not None and self.pokes[a].name == name:
            return a
        cands = [x for x in self.bench[p] if self.pokes[x].name == name] if spot != "active" else []
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
        assert ln.g is not None
        p = ln.g[group]
        if p in self.active:
            return p
        return None

    def run(self, lines: list[_Line]) -> None:
        for ln in lines:
            k = ln.kind
            if self.phase == "ended":
                if k in ("unmatched", "bullet") and ln.extra is None:
                    self.unmatched.append((ln.no, self.raw[ln.no - 1]))
                    self.find("unmatched_line", "info", ln.no, f"text after the end line: {ln.text[:80]!r}")
                elif k not in ("bullet", "ignore"):
                    # the client can print an effect that resolves after the game is over (Boomerang
                    # Energy): a sentence it wrote, read, but the game has ended
                    self.find("importer_after_end", "info", ln.no, f"after the end line: {ln.text[:80]!r}")
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
                actor = ln.g["p"] if ln.g is not None and "p" in ln.g else None
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
            if nxt is not None and nxt.g is not None and "p" in nxt.g:
                guess = nxt.g["p"]
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
        drawn = nxt is not None and nxt.kind.startswith("drew") and nxt.g is not None and nxt.g["p"] == player
        if deck is None and drawn and self.deck[player] < 1:
            # [docs/rules.md §1.3] The engine counts the deck from the events; a log hides some returns to the
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
            # [docs/rules.md §1.3] a deck-out shows as the loser's turn header followed by the end line
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
        for no, pid in kos:
            poke = self.pokes[pid]
            self.revise_attachments(pid, w.ko_lists.get((poke.owner, poke.name)), no)
        modifiers = self.prize_modifiers(w, kos)
        out = {pid for _, pid in kos}
        for pid in dict.fromkeys(w.hit):
            # survived this check: its HP is above the damage it has now [JP3.4 §I-D]
            if pid not in out and pid in self.pokes:
                poke = self.pokes[pid]
                poke.survived = max(poke.survived, poke.damage)
        for ko_line, pid in kos:
            p = self.pokes[pid]
            self.settle_hp(p, ko_line, knocked_out_at=p.damage)
            hp = p.card.get("hp")
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
            # JP3.4 §I-D step 3: the Pokémon and everything attached go to the discard pile
            self.discard.setdefault(p.owner, []).extend(p.stages + p.attached)
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

    def revise_attachments(self, pid: str, listed: list[str] | None, no: int) -> None:
        """The client lists a knocked-out Pokémon's cards: an attachment guessed onto it that the list does
        not hold was on a same-named twin. The earlier ``attached`` event is corrected (events are numbered
        only when the import ends), so the discard piles count the right cards."""
        if not listed:
            return
        poke = self.pokes[pid]
        surplus = list(poke.attached)
        for name in listed:
            if name in surplus:
                surplus.remove(name)
        guesses = self.attach_guesses.pop(pid, [])
        in_play = set(self.in_play(poke.owner))
        for name in surplus:
            for ev, card, others in reversed(guesses):
                alive = [x for x in others if x in in_play]
                if ev["pid"] != pid or card != name or not alive:
                    continue
                ev["pid"] = alive[0]
                self.attach_guesses.setdefault(alive[0], []).append((ev, card, [pid]))
                poke.attached.remove(name)
                self.pokes[alive[0]].attached.append(name)
                self.find(
                    "importer_guess_pid",
                    "info",
                    no,
                    f"{name} was attached to {alive[0]}, not {pid}: the cards listed with the knockout of "
                    f"{poke.name} do not hold it (attachment corrected)",
                )
                break

    def prize_modifiers(self, w: _Window, kos: list[tuple[int, str]]) -> dict[str, list[int]]:
        """A prize line that differs from what the knocked-out Pokémon's kinds give means a card effect
        changed the value (Briar +1, Legacy Energy -1) [docs/rules.md §3]: say so with a prize_modifier."""
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
        assert ln.g is not None
        name = ln.g["c"]
        to = "active" if ln.g.get("zone") == "active" else "bench"
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
        assert ln.g is not None
        c = ln.g["c"]
        if ln.g.get("zone") == "stadium" or self.trainer_kind(c) == "stadium":
            self.emit({"type": "searched", "player": p, "count": 1, "cards": [c]})
            self.play_stadium(p, c, ln.no)
            return True
        # a search that puts the card straight into play: deck -> hand -> play [contract: searched, played]
        self.emit({"type": "searched", "player": p, "count": 1, "cards": [c]})
        return self.on_played_to(ln)

    def on_drew_hidden(self, ln: _Line) -> bool:
        p = self.player_of(ln)
        if p is None:
            return False
        self.emit({"type": "drew", "player": p, "count": 1})
        return True

    def second_owner(self, ln: _Line, p: str, group: str, what: str) -> str:
        """Effects that make both players shuffle their hands away and draw (Iono) print both players'
        lines under the acting player's name [docs/importers.md, the export's traps]: in one effect, a second
        line of the same kind for the same printed player is the other player's, when the other has none."""
        w = self.window
        if w is None or not ln.detail:
            return p
        q = self.other(p)
        # Special Red Card-like: only the opponent shuffled their hand, yet the client prints the acting
        # player putting cards back and drawing: those lines are the opponent's
        if group == "return" and p not in w.hands_shuffled and q in w.hands_shuffled and q not in w.returned:
            w.returned.add(q)
            self.find(
                "importer_guess_owner",
                "info",
                ln.no,
                f"{p} puts cards back, but only {q} shuffled their hand in this effect: took {q}",
            )
            return q
        if group == "draw" and p not in w.returned and q in w.returned and w.seen.get(("draw", q), 0) == 0:
            w.seen[("draw", q)] = 1
            self.find(
                "importer_guess_owner",
                "info",
                ln.no,
                f"{p} draws, but only {q} put cards back in this effect: took {q}",
            )
            return q
        if group == "return":
            w.returned.add(p)
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
        assert ln.g is not None
        p = self.second_owner(ln, p, "draw", "drew N cards")
        ev: Event = {"type": "drew", "player": p, "count": int(ln.g["n"])}
        if ln.extra:
            ev["cards"] = list(ln.extra)  # shown to the exporter, or revealed
        self.emit(ev)
        return True

    def on_drew_n_played(self, ln: _Line) -> bool:
        p = self.player_of(ln)
        if p is None:
            return False
        assert ln.g is not None
        n = int(ln.g["n"])
        names: list[str] = list(ln.extra or [])
        ev: Event = {"type": "searched", "player": p, "count": n}
        if names:
            ev["cards"] = names
        self.emit(ev)
        if len(names) != n:
            self.find(
                "importer_guess_pokemon",
                "warning",
                ln.no,
                f"{p} put {n} Pokémon into play but the log lists {len(names)} names",
            )
        to = "active" if ln.g.get("zone") == "active" else "bench"
        for name in names[:n]:
            self.put_in_play(p, name, to)
        return True

    def on_healed(self, ln: _Line) -> bool:
        q = self.player_of(ln, "q")
        if q is None:
            return False
        assert ln.g is not None
        pid = self.locate(q, ln.g["d"], ln.no, "the healing")
        assert pid is not None
        n = int(ln.g["n"])
        self.emit({"type": "healed", "pid": pid, "amount": n})
        self.pokes[pid].damage = max(0, self.pokes[pid].damage - n)
        return True

    def on_moved_counters(self, ln: _Line) -> bool:
        p, q, q2 = self.player_of(ln), self.player_of(ln, "q"), self.player_of(ln, "q2")
        if p is None or q is None or q2 is None:
            return False
        assert ln.g is not None
        n = 10 * int(ln.g["n"])
        src = self.locate(q, ln.g["c"], ln.no, "the damage counters moved")
        dst = self.locate(q2, ln.g["d"], ln.no, "the damage counters moved")
        assert src is not None and dst is not None
        self.emit({"type": "healed", "pid": src, "amount": n})
        self.pokes[src].damage = max(0, self.pokes[src].damage - n)
        self.damage(dst, n)
        return True

    def on_drew_card(self, ln: _Line) -> bool:
        p = self.player_of(ln)
        if p is None:
            return False
        assert ln.g is not None
        # the turn's draw is a main line; a named card drawn by an effect was searched for (revealed)
        kind = "searched" if ln.detail else "drew"
        self.emit({"type": kind, "player": p, "count": 1, "cards": [ln.g["c"]]})
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
        assert ln.g is not None
        slot = self.setup.setdefault(p, {"active": None, "bench": [], "mulligans": 0})
        n = ln.g.get("n")
        # "took 2 mulligans." is a total; "took a mulligan." may be printed once per mulligan
        slot["mulligans"] = max(slot["mulligans"], int(n)) if n else slot["mulligans"] + 1
        return True

    def on_bonus(self, ln: _Line) -> bool:
        p = self.player_of(ln)
        if p is None:
            return False
        assert ln.g is not None
        ev: Event = {"type": "drew", "player": p, "count": int(ln.g["n"])}
        if self.phase in ("setup", "pre"):
            self.bonus.append(ev)
        else:
            self.emit(ev)
        return True

    def on_attached(self, ln: _Line) -> bool:
        p = self.player_of(ln)
        if p is None:
            return False
        assert ln.g is not None
        name, target = ln.g["c"], ln.g["d"]
        pid = self.in_spot(p, target, ln, "the attachment", lambda x: (0,))
        assert pid is not None
        ev: Event = {
            "type": "attached",
            "player": p,
            "pid": pid,
            "card": {"name": name, "kind": self.attach_kind(name)},
        }
        others = [x for x in self.named(p, target) if x != pid]
        if others:
            self.attach_guesses.setdefault(pid, []).append((ev, name, others))
        src = self.source_of(ln, p, [name], "the attached card")
        if src != "hand":
            ev["from"] = src
        self.emit(ev)
        poke = self.pokes[pid]
        poke.attached.append(name)
        return True

    def attach_kind(self, name: str) -> str:
        infos = self.infos(name)
        if any(i.category == "energy" for i in infos) or (not infos and "Energ" in name):
            return "energy"
        if any(i.category == "trainer" for i in infos) or not infos:
            return "tool"
        return "other"

    def source_of(self, ln: _Line, p: str, names: list[str], what: str) -> str:
        """Where cards an effect puts into play or onto a Pokémon come from: the turn's own actions take
        them from the hand; an effect that shuffles the deck searched it; cards that are all in the
        player's discard pile (every discard is public) came from there; else the hand, said so."""
        if not ln.detail:
            return "hand"
        if ln.searched:
            return "deck"
        pile = list(self.discard.get(p, ()))
        if names and all(n in pile and not pile.remove(n) for n in names):  # type: ignore[func-returns-value]
            return "discard"
        self.find(
            "importer_guess_zone",
            "info",
            ln.no,
            f"{what} ({', '.join(names) or 'cards'}) came from {p}'s hand, deck or discard pile: the log "
            "does not say; took the hand",
        )
        return "hand"

    def on_evolved(self, ln: _Line) -> bool:
        p = self.player_of(ln)
        if p is None:
            return False
        assert ln.g is not None
        old, new = ln.g["c"], ln.g["d"]
        # [docs/rules.md §6] a Pokémon that came into play (or evolved) this turn cannot evolve: that rule,
        # not a guess, picks between same-named copies when it can.
        pid = self.in_spot(
            p, old, ln, "the evolution", lambda x: (0 if self.entered[x] < self.turn_no else 1,)
        )
        assert pid is not None
        poke = self.pokes[pid]
        self.settle_hp(poke, ln.no)  # the stage below is covered now: its HP is what it survived with
        src = self.source_of(ln, p, [new], "the evolution card")
        if src == "deck":
            # Technical Machine: Evolution and the like take the Evolution card from the deck
            self.emit({"type": "searched", "player": p, "count": 1, "cards": [new]})
        elif src == "discard":
            self.emit({"type": "to_hand", "player": p, "from": "discard", "count": 1, "cards": [new]})
        card = self.card_map(new, poke)
        poke.name, poke.rule, poke.card = new, card["rule"], card
        poke.stages.append(new)
        poke.survived = poke.damage
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
        assert ln.g is not None
        p, q = self.player_of(ln), self.player_of(ln, "q")
        if p is None or q is None:
            return False
        by = self.attacker(p, ln.g["c"], ln.no)
        if self.window is not None:
            self.window.move = (ln.g["c"], ln.g["a"])
        self.emit({"type": "attack", "player": p, "pid": by, "name": ln.g["a"]})
        d = ln.g["d"]
        a = self.active[q]
        target = (
            a
            if a is not None and self.pokes[a].name == d
            else self.locate(q, d, ln.no, "the attack's target")
        )
        assert target is not None
        self.damage(target, int(ln.g["n"]), by)
        return True

    def on_used(self, ln: _Line) -> bool:
        p = self.player_of(ln)
        if p is None:
            return False
        assert ln.g is not None
        if self.window is not None:
            self.window.move = (ln.g["c"], ln.g["a"])
        if ln.no not in self.attack_lines:
            self.last_effect = ln.g["a"]  # an Ability (or a damage-less attack)
            return True
        a = self.active[p]
        name = ln.g["c"]
        if (a is None or self.pokes[a].name != name) and any(
            self.pokes[x].name == name for x in self.bench[p]
        ):
            # attacks come from the Active Pokémon: a Benched one's "used" line is an Ability
            self.last_effect = ln.g["a"]
            if self.window is not None and self.window.kind == "attack":
                self.window.kind = "effect"
            return True
        by = self.attacker(p, name, ln.no)
        self.emit({"type": "attack", "player": p, "pid": by, "name": ln.g["a"]})
        return True

    def on_took_damage(self, ln: _Line) -> bool:
        q = self.player_of(ln, "q")
        if q is None:
            return False
        assert ln.g is not None
        hit = self.window.hit if self.window is not None else []

        def prefer(pid: str) -> tuple[int, ...]:
            # spread damage: each line is a different Pokémon; the attack's own target is already hit
            return (1 if pid in hit else 0, -self.pokes[pid].damage)

        pid = self.locate(q, ln.g["d"], ln.no, "the spread damage", prefer=prefer)
        assert pid is not None
        self.damage(pid, int(ln.g["n"]))
        return True

    def on_counters(self, ln: _Line) -> bool:
        p, q = self.player_of(ln), self.player_of(ln, "q")
        if p is None or q is None:
            return False
        assert ln.g is not None
        d = ln.g["d"]
        if q == p and self.named(q, d) and self.named(self.other(p), d):
            # The printed owner is unreliable here [docs/importers.md, the export's traps] and both players
            # have one: an effect of P's that places damage counters targets the opponent's Pokémon far more
            # often.
            q = self.other(p)
            self.find(
                "importer_guess_owner",
                "warning",
                ln.no,
                f"both players have {d} in play and the log's owner name is unreliable in this line; "
                f"took {q}'s",
            )
        pid = self.locate(q, d, ln.no, "the damage counters")
        assert pid is not None
        self.damage(pid, 10 * int(ln.g["n"]))
        return True

    def on_checkup_damage(self, ln: _Line) -> bool:
        q = self.player_of(ln, "q")
        if q is None:
            return False
        assert ln.g is not None
        pid = self.locate(q, ln.g["d"], ln.no, "the checkup damage")
        assert pid is not None
        self.damage(pid, 10 * int(ln.g["n"]))
        return True

    def condition(self, ln: _Line, on: bool) -> bool:
        q = self.player_of(ln, "q")
        if q is None:
            return False
        assert ln.g is not None
        pid = self.locate(q, ln.g["d"], ln.no, "the Special Condition")
        assert pid is not None
        poke = self.pokes[pid]
        conds = [ln.g["cond"].lower()] if ln.kind != "cond_clear" else list(poke.conditions)
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
        assert ln.g is not None
        c, d = ln.g["c"], ln.g["d"]
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
        assert ln.g is not None
        if self.window is None:
            self.promote(ln.no, p, ln.g["c"])
        else:
            self.window.promos.append((ln.no, p, ln.g["c"]))
        return True

    def on_ko(self, ln: _Line) -> bool:
        q = self.player_of(ln, "q")
        if q is None:
            return False
        assert ln.g is not None
        if self.window is None:
            self.window = _Window("effect", ln.no)
        self.window.kos.append((ln.no, q, ln.g["d"]))
        return True

    def on_prize(self, ln: _Line) -> bool:
        p = self.player_of(ln)
        if p is None:
            return False
        assert ln.g is not None
        n = int(ln.g["n"] or 1)
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

    # -- cards leaving and entering zones --------------------------------------------------------------
    def trainer_kind(self, name: str) -> str | None:
        """item | supporter | stadium | tool for a Trainer the catalogue knows, else None."""
        kinds = {_TRAINER_KINDS.get(i.kind or "") for i in self.infos(name) if i.category == "trainer"}
        kinds.discard(None)
        return next(iter(kinds)) if len(kinds) == 1 else None

    def play_stadium(self, p: str, name: str, no: int) -> None:
        """A Stadium comes into play; the one in play (either player's) goes to its owner's discard
        pile [contract: trainer_played, kind stadium]."""
        self.emit({"type": "trainer_played", "player": p, "card": {"name": name, "kind": "stadium"}})
        if self.stadium is not None:
            self.discard.setdefault(self.stadium[0], []).append(self.stadium[1])
        if self.window is not None:
            self.window.stadium_played = True
            self.window.replaced = self.stadium
        self.stadium = (p, name)
        self.last_effect = name

    def on_stadium(self, ln: _Line) -> bool:
        p = self.player_of(ln)
        if p is None:
            return False
        assert ln.g is not None
        self.play_stadium(p, ln.g["c"], ln.no)
        return True

    def on_played(self, ln: _Line) -> bool:
        p = self.player_of(ln)
        if p is None:
            return False
        assert ln.g is not None
        c = ln.g["c"]
        self.last_effect = c
        if self.named(p, c):
            return True  # a Pokémon in play: the line is its Ability (Dudunsparce's "played Dudunsparce.")
        kind = self.trainer_kind(c)
        if kind == "stadium":
            if self.stadium is not None and self.stadium[1] == c:
                return True  # the Stadium in play: its effect was used
            self.play_stadium(p, c, ln.no)
        elif kind in ("item", "supporter"):
            # [contract: trainer_played] the card leaves the hand; once used it is in the discard pile
            self.emit({"type": "trainer_played", "player": p, "card": {"name": c, "kind": kind}})
            self.discard.setdefault(p, []).append(c)
        elif kind is None and not any(i.category == "pokemon" for i in self.infos(c)):
            self.find(
                "importer_card_unknown",
                "info",
                ln.no,
                f"{p} played {c}: the card catalogue does not know it as a Trainer; taken as an effect "
                "that moves no card",
            )
        return True

    def on_discarded(self, ln: _Line) -> bool:
        p = self.player_of(ln)
        if p is None:
            return False
        assert ln.g is not None
        names = [ln.g["c"]] if not ln.g.get("hidden") else list(ln.extra or [])
        n = int(ln.g.get("n", "1"))
        w0 = self.window
        if w0 is not None and w0.replaced is not None and ln.g.get("c") == w0.replaced[1]:
            return True  # the Stadium just replaced: trainer_played put it in its owner's discard
        if not ln.g.get("hidden") and self.stadium is not None and ln.g["c"] == self.stadium[1]:
            owner, name = self.stadium
            self.stadium = None
            self.emit({"type": "discarded", "player": owner, "from": "stadium", "count": 1, "cards": [name]})
            return True
        # "P discarded C" does not say from where: the hand, unless the move being used discards from the
        # top of its deck (the catalogue knows Seek Inspiration's text). Any other attack: said so.
        w = self.window
        move = w.move if w is not None and ln.detail else None
        if move is not None and self.db is not None and self.db.mills(move[0], move[1], self.lang):
            ev0: Event = {"type": "discarded", "player": p, "from": "deck", "count": n}
            if names:
                ev0["cards"] = names
            self.emit(ev0)
            return True
        if w is not None and w.kind == "attack" and ln.detail:
            self.find(
                "importer_guess_zone",
                "info",
                ln.no,
                f"{p} discarded {', '.join(names) or f'{n} cards'} during an attack: from the hand or the "
                "deck, the log does not say; took the hand",
            )
        ev: Event = {"type": "discarded", "player": p, "count": n}
        if names:
            ev["cards"] = names
        self.emit(ev)
        return True

    def on_detached(self, ln: _Line) -> bool:
        q = self.player_of(ln, "q")
        if q is None:
            return False
        assert ln.g is not None
        d = ln.g["d"]
        w = self.window
        if w is not None and any(qq == q and dd == d for _, qq, dd in w.kos):
            # the knocked-out Pokémon's cards: the knockout discards all of them; the list tells which
            # cards were on it (close_window checks the attachments it guessed against it)
            listed = [ln.g["c"]] if "c" in ln.g else list(ln.extra or [])
            w.ko_lists.setdefault((q, d), []).extend(listed)
            return True
        if not self.named(q, d):
            return True  # no longer in play (knocked out or removed earlier): its cards went with it
        pid = self.locate(q, d, ln.no, "the discarded attachment", materialise=False)
        if pid is None:
            return True
        names = [ln.g["c"]] if "c" in ln.g else list(ln.extra or [])
        n = int(ln.g.get("n", "1"))
        poke = self.pokes[pid]
        for name in names:
            if name in poke.attached:
                poke.attached.remove(name)
        ev: Event = {"type": "discarded", "player": q, "pid": pid, "count": n}
        if names:
            ev["cards"] = names
        self.emit(ev)
        return True

    def on_devolved(self, ln: _Line) -> bool:
        if self.player_of(ln) is None:
            return False
        self.find(
            "importer_unsupported",
            "warning",
            ln.no,
            "a devolution: the contract has no event for it; the board keeps the evolved card",
        )
        return True

    def on_moved_n(self, ln: _Line) -> bool:
        p, q = self.player_of(ln), self.player_of(ln, "q")
        if p is None or q is None:
            return False
        assert ln.g is not None
        zone = ln.g.get("zone", "")
        n = int(ln.g["n"])
        names = list(ln.extra or [])
        if zone == "deck":
            # a hand shuffled back (Iono, Judge): a return to the deck, owner checked like the draws after it
            owner = self.second_owner(ln, q, "return", "cards to the deck")
            self.emit({"type": "moved", "player": owner, "count": n, "from": "hand", "to": "deck"})
        elif zone in ("discard", "lost_zone"):
            # The names printed in mill lines are unreliable [docs/importers.md, the export's traps]; a deck
            # is not on the board. When the printed mover is not the player whose action this is (PokéStop
            # prints the opponent as mover and owner), the deck is taken to be the acting player's; otherwise
            # the printed owner stays. Either way the move is marked and reported.
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
                self.find(
                    "importer_owner_unverified",
                    "info",
                    ln.no,
                    f"{n} card(s) milled from {q}'s deck as the log prints it; a deck is not on the "
                    "board, so the owner could not be checked",
                )
            ev: Event = {"type": "moved", "player": owner, "count": n, "from": "deck", "to": zone,
                         "owner_unverified": True}  # fmt: skip
            if names:
                ev["cards"] = names
            self.emit(ev)
        elif zone == "hand":
            src = self.source_of(ln, q, names, "the cards put into the hand")
            src = "deck" if src == "hand" else src
            ev = {"type": "searched" if src == "deck" else "to_hand", "player": q, "count": n}
            if src != "deck":
                ev["from"] = src
            if names:
                ev["cards"] = names
            self.emit(ev)
        elif zone == "prizes":
            # Redeemable Ticket-like: cards from the deck become Prize cards
            self.emit({"type": "moved", "player": q, "count": n, "from": "deck", "to": "prizes"})
        else:
            self.find(
                "importer_unsupported", "warning", ln.no, f"{n} cards moved to {zone or 'a zone'}: not read"
            )
        return True

    def on_moved(self, ln: _Line) -> bool:
        p, q = self.player_of(ln), self.player_of(ln, "q")
        if p is None or q is None:
            return False
        assert ln.g is not None
        zone = ln.g.get("zone", "")
        name = ln.g["c"]
        if zone == "hand" and ln.from_prizes:
            # Hisuian Heavy Ball-like: a card from the Prize cards, which the effect then shuffles
            self.emit({"type": "to_hand", "player": q, "from": "prizes", "count": 1, "cards": [name]})
            return True
        if zone in ("prizes", "deck") and self.last_effect == name and name in self.discard.get(q, ()):
            # the Trainer being played puts itself there (it was counted into the discard pile when played)
            self.emit({"type": "moved", "player": q, "cards": [name], "from": "discard", "to": zone})
            return True
        in_discard = name in self.discard.get(q, ())
        if zone in ("active", "bench"):
            src = "discard" if in_discard else "deck"
            if src == "discard":
                self.emit({"type": "to_hand", "player": q, "from": "discard", "count": 1, "cards": [name]})
            else:
                self.emit({"type": "searched", "player": q, "count": 1, "cards": [name]})
            self.put_in_play(q, name, zone)
            return True
        if zone in ("hand", "deck") and in_discard:
            # a card from the discard pile (Night Stretcher, Super Rod): every discard is public
            if zone == "hand":
                self.emit({"type": "to_hand", "player": q, "from": "discard", "count": 1, "cards": [name]})
            else:
                self.emit({"type": "moved", "player": q, "cards": [name], "from": "discard", "to": "deck"})
            return True
        # The same line moves a Pokémon in play (Scoop Up, Turo's Scenario). Only an Active replaced in the
        # same effect proves the Pokémon left play: the removal waits for that promotion line
        # (close_window); a Benched one is taken when no card of that name is in the discard pile.
        cands = [x for x in self.named(q, name) + self.named(self.other(q), name)]
        active = next((x for x in cands if self.active[self.pokes[x].owner] == x), None)
        if (
            zone in ("hand", "deck", "lost_zone", "discard")
            and active is not None
            and self.window is not None
        ):
            self.window.leaving[self.pokes[active].owner] = (active, zone, ln.no)
            return True
        benched = [x for x in cands if x != active]
        if zone in ("hand", "deck", "lost_zone") and benched:
            pid = benched[0]
            owner = self.pokes[pid].owner
            self.find(
                "importer_guess_removed",
                "info",
                ln.no,
                f"{name} moved to {zone}: no card of that name is in {q}'s discard pile, so the Benched "
                f"{name} ({pid}) left play",
            )
            self.emit({"type": "removed", "player": owner, "pid": pid, "to": zone})
            self.leave_play(pid)
            return True
        if zone == "hand":
            self.find(
                "importer_guess_zone",
                "info",
                ln.no,
                f"{name} moved to {q}'s hand from a zone the log does not name; took the deck",
            )
            self.emit({"type": "searched", "player": q, "count": 1, "cards": [name]})
        elif zone in ("deck", "discard", "lost_zone", "prizes"):
            self.find(
                "importer_guess_zone",
                "info",
                ln.no,
                f"{name} moved to {zone} from a zone the log does not name; took the hand",
            )
            if zone == "discard":
                self.emit({"type": "discarded", "player": q, "count": 1, "cards": [name]})
            else:
                self.emit({"type": "moved", "player": q, "cards": [name], "from": "hand", "to": zone})
        elif zone == "stadium":
            self.play_stadium(q, name, ln.no)
        else:
            self.find("importer_unsupported", "warning", ln.no, f"{name} moved: the log does not say where")
        return True

    def on_shuffled(self, ln: _Line) -> bool:
        """ "P shuffled C (or N cards) into their deck/hand/Prize cards": from the discard pile when every
        named card is there, from play when the names are a Pokémon's cards (Run Away Draw), else from
        the hand (Lillie's Determination)."""
        p = self.player_of(ln)
        if p is None:
            return False
        assert ln.g is not None
        zone = ln.g.get("zone", "deck")
        names = [ln.g["c"]] if not ln.g.get("hidden") else list(ln.extra or [])
        n = int(ln.g.get("n", "1"))
        pile = list(self.discard.get(p, ()))
        if names and all(x in pile and not pile.remove(x) for x in names):  # type: ignore[func-returns-value]
            src = "discard"
        else:
            stack = sorted(names)
            mon = next(
                (
                    x
                    for x in self.in_play(p)
                    if sorted(self.pokes[x].stages + self.pokes[x].attached) == stack
                ),
                None,
            )
            if mon is not None and zone == "deck":
                self.emit({"type": "removed", "player": p, "pid": mon, "to": "deck"})
                self.leave_play(mon)
                self.emit({"type": "shuffled", "player": p, "zone": "deck"})
                return True
            src = "hand"
        ev: Event = {"type": "shuffled", "player": p, "zone": zone, "from": src, "count": n}
        if names:
            ev["cards"] = names
        if src == zone:
            return True
        self.emit(ev)
        return True

    def on_shuffle(self, ln: _Line) -> bool:
        p = self.player_of(ln)
        if p is None:
            return False
        assert ln.g is not None
        zone = ln.g.get("zone")
        if self.window is not None:
            if zone == "prizes":
                self.window.prizes_shuffled.add(p)
            elif zone == "hand":
                self.window.hands_shuffled.add(p)
        if zone in ("deck", "hand", "prizes"):
            self.emit({"type": "shuffled", "player": p, "zone": zone})
        return True

    def on_revealed(self, ln: _Line) -> bool:
        return self.player_of(ln) is not None  # shows cards; moves none

    def on_to_deck(self, ln: _Line) -> bool:
        p = self.player_of(ln)
        if p is None:
            return False
        assert ln.g is not None
        self.emit({"type": "moved", "player": p, "cards": [ln.g["c"]], "from": "hand", "to": "deck"})
        return True

    def on_bottom(self, ln: _Line) -> bool:
        p = self.player_of(ln)
        if p is None:
            return False
        assert ln.g is not None
        w = self.window
        if w is not None and p in w.prizes_shuffled:
            # Redeemable Ticket-like: the Prize cards were shuffled and put on the bottom of the deck
            self.emit({"type": "moved", "player": p, "count": int(ln.g["n"]), "from": "prizes", "to": "deck"})
            return True
        p = self.second_owner(ln, p, "return", "cards to the deck")
        ev: Event = {"type": "moved", "player": p, "count": int(ln.g["n"]), "from": "hand", "to": "deck"}
        self.emit(ev)
        return True

    def on_conceded_line(self, ln: _Line) -> bool:
        return self.player_of(ln) is not None  # the end line that follows says it again


def too_large(filename: str, size: int) -> InputError:
    """The error for a log above MAX_LOG_BYTES, naming the limit."""
    return InputError(
        f"{size / 1024 / 1024:.1f} MiB is larger than the {MAX_LOG_BYTES // 1024 // 1024} MiB limit for a "
        "battle log (a Pokémon TCG Live export is tens of KB); refused to keep the import's memory bounded",
        file=filename,
    )


def parse_ptcgl(
    text: str,
    *,
    match: str,
    ruleset: str = "play-2026",
    cards: Catalogue | None = None,
    filename: str = "<log>",
    partial: bool = False,
    catalogue: bool = True,
) -> ImportResult:
    """Turn a Pokémon TCG Live battle-log export into contract events.

    Card facts (HP, rule box, Trainer types, Ability names) come from the packaged catalogue unless
    ``catalogue`` is False; ``cards`` (a user's catalogue file) wins for the names it lists.

    Raises InputError (naming ``filename`` and the line) when the text is not a readable battle log: empty,
    binary, another game's log, an unsupported language, or truncated (no end line) unless ``partial``.
    Everything else the importer cannot read or had to guess is a finding, returned and also written into
    the stream as a ``note`` event (``author: "importer"``).
    """
    try:
        rules = load_ruleset(ruleset)
    except KeyError:
        raise InputError(f"unknown ruleset {ruleset!r}", field="ruleset") from None
    if len(text) > MAX_LOG_BYTES:
        raise too_large(filename, len(text.encode("utf-8")))
    if "\x00" in text:
        line = text.count("\n", 0, text.index("\x00")) + 1
        raise InputError("binary data (NUL byte): not a text battle log", file=filename, line=line)
    ids = card_ids(text)
    raw = normalise(text)
    loc = _detect_locale(raw, filename)
    db = card_database() if catalogue else None
    imp = _Importer(raw, loc, match, rules, cards or NO_CATALOGUE, filename, db, ids)
    lines = imp.classify()
    imp.find_players(lines)
    imp.first = imp.players[0]
    imp.first = imp.find_first(lines)
    if not any(ln.kind == "end" for ln in lines):
        # "P conceded." with no end line after it ends the game (a client variant)
        conceded = [ln for ln in lines if ln.kind == "conceded_line" and ln.g and ln.g["p"] in imp.active]
        if conceded:
            ln = conceded[-1]
            assert ln.g is not None
            ln.kind, ln.player = "end", imp.other(ln.g["p"])
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
    for poke in list(imp.pokes.values()):
        imp.settle_hp(poke, None)  # what is left: the HP every printing agrees with above what it survived
    late = [
        {"type": "setup", "player": p, "active": slot["active"], "bench": slot["bench"]}
        for p, slot in imp.late_setup.items()
        if slot["active"] is not None
    ]
    imp.events[imp.setup_at : imp.setup_at] = late
    hp_known = not imp.hp_missing and bool(imp.pokes)
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
