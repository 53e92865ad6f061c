"""The Pokémon TCG Live client's battle-log sentences, in every language it ships, matched line by line.

The client writes every line of a battle log from a table of 228 templates (``blog_loc_*`` keys, the same
keys in every language; ``replay/sources/ptcgl/templates/<lang>.json``). ``Sentences.for_language(code)``
reads one language's table as regexes (each compiled the first time a line is tried against it) and
``match(line)`` returns what the line says: a *kind* the importer acts on (``attack``, ``ko``, ``prize``,
``discarded``, ...) and the line's values under language-independent names:

====  ===========================================================================================
p     the acting player (the mover, the attacker, the drawer)
c     the card the line is about (played, drawn, discarded, the attacker, the Pokémon switched out)
q     the owner of the Pokémon acted on (target, knocked out, damaged); q2 the second owner
d     the Pokémon acted on (target, evolution, switched in); a the attack or Ability name
n     a number (damage, cards, counters, mulligans); cond a Special Condition (canonical, lower case)
====  ===========================================================================================

plus the fixed facts of the template: ``spot`` (active|bench), ``zone`` (the zone cards move to),
``order`` (first|second). A line the client wrote by joining two sentences (``... on the Bench. Jet Energy
was activated.``) comes back as two matches.

Matching is fast without trying 228 regexes per line: each template is indexed under its rarest whole
literal word, a line is tried against the templates of the words it contains, most specific first (the
longest literal text wins, so ``drew [c] and played it to the Bench.`` beats ``drew [c].``).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import cache, lru_cache
from importlib import resources
from typing import Any

# template key -> (kind, placeholder -> group, fixed facts). Keys absent here are labels used inside other
# sentences (a_card, heads, condition names, ...) or texts the client shows outside logs (settings).
_P, _Q = "p", "q"
_ATTACK = {
    "attackingPlayerName": "p",
    "attackingPokemonCardName": "c",
    "attackName": "a",
    "defendingPlayerName": "q",
    "targetPokemonCardName": "d",
    "numDamage": "n",
}
_TOOK = {"defendingPlayerName": "q", "targetPokemonCardName": "d", "numDamage": "n"}
_PC = {"playerName": "p", "cardName": "c"}
_MOVE = {"playerName": "p", "targetPlayerName": "q", "cardName": "c"}
_EVOLVE = {"playerName": "p", "sourcePokemonCardName": "c", "targetPokemonCardName": "d"}
_DEVOLVE = {**_EVOLVE, "sourcePlayerName": "q"}
_ATTACH = {"playerName": "p", "sourceCardName": "c", "targetCardName": "d"}
_COND = {"playerName": "q", "pokemonCardName": "d", "specialConditionName": "cond"}
_CDAMAGE = {
    "numDamageCounters": "n",
    "targetPlayerName": "q",
    "targetPokemonCardName": "d",
    "specialConditionName": "cond",
}
_PLACED = {"cardName": "p", "numDamageCounters": "n", "targetPlayerName": "q", "targetPokemonCardName": "d"}
_MOVED_DC = {
    "cardName": "p",
    "numDamageCounters": "n",
    "sourcePlayerName": "q",
    "sourcePokemonCardName": "c",
    "targetPlayerName": "q2",
    "targetPokemonCardName": "d",
}
_ONE = {"n": "1"}

KINDS: dict[str, tuple[str, dict[str, str], dict[str, str]]] = {
    # attacks and damage
    "blog_loc_applied_damage": ("attack", _ATTACK, {}),
    "blog_loc_weak_attack": ("attack", _ATTACK, {}),
    "blog_loc_resistant_attack": ("attack", _ATTACK, {}),
    "blog_loc_weak_and_resistant_attack": ("attack", _ATTACK, {}),
    "blog_loc_used_attack": (
        "used",
        {"playerName": "p", "attackingPokemonCardName": "c", "attackName": "a"},
        {},
    ),
    "blog_loc_secondary_damage": ("took_damage", _TOOK, {}),
    "blog_loc_secondary_weak_attack": ("took_damage", _TOOK, {}),
    "blog_loc_secondary_resistance_attack": ("took_damage", _TOOK, {}),
    "blog_loc_secondary_weak_and_resistant": ("took_damage", _TOOK, {}),
    "blog_loc_player_placed_dc": ("counters", _PLACED, {}),
    "blog_loc_player_placed_single_dc": ("counters", _PLACED, _ONE),
    "blog_loc_player_moved_dc": ("moved_counters", _MOVED_DC, {}),
    "blog_loc_player_moved_single_dc": ("moved_counters", _MOVED_DC, _ONE),
    "blog_loc_condition_damage_many": ("checkup_damage", _CDAMAGE, {}),
    "blog_loc_condition_damage_single": ("checkup_damage", _CDAMAGE, _ONE),
    "blog_loc_healed": ("healed", {"playerName": "q", "pokemonCardName": "d", "numDamage": "n"}, {}),
    "blog_loc_healed_dc": (
        "healed",
        {"sourcePlayerName": "q", "sourcePokemonCardName": "d", "numDamageCounters": "n"},
        {},
    ),
    "blog_loc_special_condition": ("cond_on", _COND, {}),
    "blog_loc_remove_condition": ("cond_off", _COND, {}),
    "blog_loc_remove_all_effects": ("cond_clear", {"playerName": "q", "pokemonCardName": "d"}, {}),
    # knockouts and prizes
    "blog_loc_knockout": ("ko", {"playerName": "q", "cardName": "d"}, {}),
    "blog_loc_took_prize_cards": ("prize", {"playerName": "p", "numCards": "n"}, {}),
    "blog_loc_took_single_prize_card": ("prize", {"playerName": "p"}, _ONE),
    "blog_loc_added_prize": ("added", {"cardName": "c", "playerName": "p"}, {}),
    # the board
    "blog_loc_promote_to_active": ("now_active", {"playerName": "p", "cardName": "c"}, {}),
    "blog_loc_switched_active": (
        "switched",
        {"targetPlayerName": "q", "targetCardName": "c", "sourcePlayerName": "q2", "sourceCardName": "d"},
        {},
    ),
    "blog_loc_switched_fallback": (
        "switched",
        {"sourcePlayerName": "q", "sourceCardName": "c", "targetPlayerName": "q2", "targetCardName": "d"},
        {},
    ),
    "blog_loc_attach_card_active": ("attached", _ATTACH, {"spot": "active"}),
    "blog_loc_attach_card_bench": ("attached", _ATTACH, {"spot": "bench"}),
    "blog_loc_attach_card_fallback": ("attached", _ATTACH, {}),
    "blog_loc_evolved_active": ("evolved", _EVOLVE, {"spot": "active"}),
    "blog_loc_evolved_bench": ("evolved", _EVOLVE, {"spot": "bench"}),
    "blog_loc_evolved_fallback": ("evolved", _EVOLVE, {}),
    "blog_loc_devolved_active": ("devolved", _DEVOLVE, {"spot": "active"}),
    "blog_loc_devolved_bench": ("devolved", _DEVOLVE, {"spot": "bench"}),
    "blog_loc_devolved_fallback": ("devolved", _DEVOLVE, {}),
    "blog_loc_retreated": ("retreated", _PC, {}),
    "blog_loc_manual_end": ("ended", {"playerName": "p"}, {}),
    "blog_loc_timeout": ("inaction", {"playerName": "p"}, {}),
    # setup
    "blog_loc_selected_coinface": ("coin", {"playerName": "p", "coinFace": "face"}, {}),
    "blog_loc_won_coin_toss": ("coin_won", {"playerName": "p"}, {}),
    "blog_loc_rps_choice": ("coin", {"playerName": "p", "rpsChoice": "face"}, {}),
    "blog_loc_rps_won": ("coin_won", {"playerName": "p"}, {}),
    "blog_loc_going_first": ("decided", {"playerName": "p"}, {"order": "first"}),
    "blog_loc_going_second": ("decided", {"playerName": "p"}, {"order": "second"}),
    "blog_loc_draw_opening_hand": ("opening", {"playerName": "p", "numCards": "n"}, {}),
    "blog_loc_took_mulligan_multi": ("mulligan", {"playerName": "p", "numMulligans": "n"}, {}),
    "blog_loc_took_mulligans": ("mulligan", {"playerName": "p", "numMulligans": "n"}, {}),
    "blog_loc_took_mulligan_single": ("mulligan", {"playerName": "p"}, {}),
    "blog_loc_mulligan_draw_multi": ("bonus", {"playerName": "p", "numCards": "n", "opponentName": "q"}, {}),
    "blog_loc_mulligan_draw_single": ("bonus", {"playerName": "p", "opponentName": "q"}, _ONE),
    "blog_loc_drawn_cards_grid_header": ("list_head", {"numCards": "n"}, {}),
    "blog_loc_mulligan_revealed": ("list_head", {"numMulligans": "n"}, {}),
    # cards moving
    "blog_loc_drew_card": ("drew", _PC, {}),
    "blog_loc_drew_then_play_active": ("drew_played", _PC, {"zone": "active"}),
    "blog_loc_drew_then_play_bench": ("drew_played", _PC, {"zone": "bench"}),
    "blog_loc_drew_then_play_fallback": ("drew_played", _PC, {}),
    "blog_loc_drew_then_play_stadium": ("drew_played", _PC, {"zone": "stadium"}),
    "blog_loc_drew_then_play_bench_multi": (
        "drew_n_played",
        {"playerName": "p", "numCards": "n"},
        {"zone": "bench"},
    ),
    "blog_loc_play_to_active": ("played_to", _PC, {"zone": "active"}),
    "blog_loc_played_to_active": ("played_to", _PC, {"zone": "active"}),
    "blog_loc_play_to_bench": ("played_to", _PC, {"zone": "bench"}),
    "blog_loc_played_to_bench": ("played_to", _PC, {"zone": "bench"}),
    "blog_loc_played_to_stadium": ("stadium", _PC, {}),
    "blog_loc_played_card": ("played", _PC, {}),
    "blog_loc_played_to_fallback": ("played", _PC, {}),
    "blog_loc_discarded_from_hand": ("discarded", _PC, {}),
    "blog_loc_discarded_from_board": ("discarded", _PC, {}),
    "blog_loc_discarded_attachment": (
        "detached",
        {"cardName": "c", "playerName": "q", "pokemonCardName": "d"},
        {},
    ),
    "blog_loc_discarded_attachment_multi": (
        "detached",
        {"numCards": "n", "playerName": "q", "pokemonCardName": "d"},
        {},
    ),
    "blog_loc_move_to_active": ("moved", _MOVE, {"zone": "active"}),
    "blog_loc_move_to_bench": ("moved", _MOVE, {"zone": "bench"}),
    "blog_loc_move_to_deck": ("moved", _MOVE, {"zone": "deck"}),
    "blog_loc_move_to_discard": ("moved", _MOVE, {"zone": "discard"}),
    "blog_loc_move_to_hand": ("moved", _MOVE, {"zone": "hand"}),
    "blog_loc_move_to_lostzone": ("moved", _MOVE, {"zone": "lost_zone"}),
    "blog_loc_move_to_prizes": ("moved", _MOVE, {"zone": "prizes"}),
    "blog_loc_move_to_stadium": ("moved", _MOVE, {"zone": "stadium"}),
    "blog_loc_move_to_fallback": ("moved", _MOVE, {}),
    "blog_loc_move_on_top_deck": ("to_deck", _PC, {"where": "top"}),
    "blog_loc_move_to_bottom_deck": ("to_deck", _PC, {"where": "bottom"}),
    "blog_loc_shuffled_card_into_deck": ("shuffled_into", _PC, {"zone": "deck"}),
    "blog_loc_shuffled_card_into_hand": ("shuffled_into", _PC, {"zone": "hand"}),
    "blog_loc_shuffled_card_into_prizes": ("shuffled_into", _PC, {"zone": "prizes"}),
    "blog_loc_shuffled_deck": ("shuffle", {"playerName": "p"}, {"zone": "deck"}),
    "blog_loc_shuffled_hand": ("shuffle", {"playerName": "p"}, {"zone": "hand"}),
    "blog_loc_shuffled_prizes": ("shuffle", {"playerName": "p"}, {"zone": "prizes"}),
    "blog_loc_shuffled_fallback": ("shuffle", {"playerName": "p"}, {}),
    "blog_loc_generic_reveal": ("revealed", _PC, {}),
    "blog_loc_reveal_multi": ("revealed", {"playerName": "p", "numCards": "n"}, {}),
    # lines with nothing for the events (the effect is in the lines around them)
    "blog_loc_card_activated": ("ignore", {"cardName": "c"}, {}),
    "blog_loc_tera_effect": ("ignore", _PC, {}),
    "blog_loc_oncepergame_used": ("ignore", {"playerName": "p", "specialMove": "a"}, {}),
    "blog_loc_performed_action": ("ignore", {"playerName": "p"}, {}),
    "blog_loc_reconnect": ("ignore", {"playerName": "p"}, {}),
    # "P chose Axe Blast": the attack a move that uses another card's attack chose (Seek Inspiration)
    "blog_loc_selected_option": ("chose", {"playerName": "p", "selectedOption": "a"}, {}),
    "blog_loc_coin_flip_single": ("ignore", {"playerName": "p", "coinFace": "face"}, {}),
    "blog_loc_coin_flip_multi": ("ignore", {"playerName": "p", "coinFace": "face"}, {}),
    "blog_loc_damage_blocked": ("ignore", {"targetPokemonCardName": "d"}, {}),
    "blog_loc_move_blocked": ("ignore", {}, {}),
    "blog_loc_export_damage_breakdown_label": ("ignore", {}, {}),
    # headers and the end (the importer reads these through Locale, below)
    "blog_loc_phase_setup": ("setup", {}, {}),
    "blog_loc_phase_checkup": ("checkup", {}, {}),
    "blog_loc_phase_turn": ("turn", {"playerName": "p"}, {}),
    "blog_loc_end_game": ("end", {"gameEndReason": "reason", "playerName": "p"}, {}),
    "battle_draw": ("end_draw", {}, {}),
    "blog_loc_sudden_death": ("end_sudden_death", {}, {}),
}
# effect_prevention_* and damage_detail_* (the breakdown items) are families of "ignore" lines.
_IGNORED_FAMILIES = ("blog_loc_effect_prevention_", "blog_loc_damage_detail_")
CONDITIONS = ("poisoned", "burned", "asleep", "paralyzed", "confused")
# The client's language codes for the tables in replay/sources/ptcgl/templates/.
LANGUAGES = ("en", "de", "fr", "es", "es_la", "it", "pt-BR")
# Placeholders that are a number; player handles have no spaces [docs/importers.md, the export's traps].
_NUMBERS = frozenset(
    {
        "numDamage",
        "numCards",
        "numMulligans",
        "numDamageCounters",
        "numCounted",
        "numCoinFlips",
        "numCoinMeasured",
        "numAdditionalDamage",
        "numReducedDamage",
    }
)
_PLAYERS = frozenset(
    {
        "playerName",
        "targetPlayerName",
        "sourcePlayerName",
        "attackingPlayerName",
        "defendingPlayerName",
        "opponentName",
    }
)
_SLOT = re.compile(r"\[([A-Za-z]+)\]")


def normal_text(text: str) -> str:
    """The spellings the importer compares: both apostrophes as ``'``, ``Pokemon`` with its accent."""
    return text.replace("\u2019", "'").replace("\u2018", "'").replace("Pokemon", "Pokémon")


def normal_template(text: str) -> str:
    """:func:`normal_text` on a template's literal text (placeholder names such as ``[pokemonCardName]``
    stay)."""
    parts = _SLOT.split(text)
    return "".join(normal_text(p) if i % 2 == 0 else f"[{p}]" for i, p in enumerate(parts))


# kinds whose card value ``_refine`` reads for a hidden card or a count ("drew a card", "drew 2 cards")
_CARD_KINDS = frozenset({"drew", "discarded", "to_deck", "moved", "shuffled_into", "added"})


@dataclass(frozen=True, slots=True)
class Template:
    key: str
    kind: str
    text: str
    pattern: str  # its regex, compiled the first time a line is tried against it (Sentences._regex)
    groups: tuple[tuple[str, str], ...]  # (the template's placeholder name = its regex group, canonical name)
    fixed: tuple[tuple[str, str], ...]
    literal: int  # characters of literal text: the most specific template is tried first
    pieces: tuple[str, ...] = ()  # its literal text between placeholders, in order
    # the groups' names in the regex's order (its groups are its placeholders' first appearances) and
    # their canonical names: a match's values are zipped onto them, no groupdict
    phs: tuple[str, ...] = ()
    names: tuple[str, ...] = ()
    refined: bool = False  # whether _refine has anything to read (a condition, a card of _CARD_KINDS)


@dataclass(slots=True)
class Match:
    """What one sentence says: its ``kind``, ``key`` (the client's template key) and values (``g``).

    Not frozen: a frozen dataclass sets each field through ``object.__setattr__``, and one is made per line
    read (nothing hashes a Match: its values are a dict)."""

    kind: str
    key: str
    g: dict[str, str]
    # the template's placeholder names and the values read for them, in the regex's order: ``raw`` is made
    # of them when asked (only the log translator asks; the importer reads ``g``)
    phs: tuple[str, ...] = ()
    values: tuple[str, ...] = ()
    # a more specific sentence's words are all in the line, in order, but it did not match: this vaguer
    # one read it, and the rest of the line (in a value) was not read (the key of the one it holds)
    partial: str = ""

    @property
    def raw(self) -> dict[str, str]:
        """The values by the template's own placeholder names (``cardName``, ``playerName``, ...)."""
        return dict(zip(self.phs, self.values, strict=True))


def _compile(key: str, text: str, players: str = r"\S+?") -> Template | None:
    """One template as a regex; ``players`` is the pattern of a player's handle (no spaces, unless the
    log's own opening lines named handles that have them: ``Sentences.with_handles``)."""
    spec = KINDS.get(key)
    if spec is None:
        if not key.startswith(_IGNORED_FAMILIES):
            return None
        spec = ("ignore", {}, {})
    kind, names, fixed = spec
    text = normal_template(text)
    if not _SLOT.search(text) and kind == "ignore" and text.startswith("<"):
        return None  # an untranslated key the client prints as "<key>": not a sentence
    parts: list[str] = []
    groups: list[tuple[str, str]] = []
    seen: set[str] = set()
    pos = 0
    literal = 0
    for m in _SLOT.finditer(text):
        lit = text[pos : m.start()]
        parts.append(re.escape(lit))
        literal += len(lit)
        ph = m.group(1)
        if ph in seen:
            parts.append(f"(?P={ph})")  # the same value again (the target named twice)
        else:
            seen.add(ph)
            if ph in _NUMBERS:
                body = r"-?\d{1,6}"  # signed: Resistance prints "took -30 less damage"
            elif ph in _PLAYERS:
                body = players
            else:
                body = r".+?"
            parts.append(f"(?P<{ph}>{body})")  # a placeholder's name is a word: a group name as it is
            groups.append((ph, names.get(ph, ph)))
        pos = m.end()
    lit = text[pos:]
    parts.append(re.escape(lit))
    literal += len(lit)
    pieces = tuple(p.strip() for p in _SLOT.split(text)[::2] if p.strip())
    refined = kind in _CARD_KINDS or any(name == "cond" for _, name in groups)
    return Template(
        key,
        kind,
        text,
        "".join(parts),
        tuple(groups),
        tuple(fixed.items()),
        literal,
        pieces,
        tuple(ph for ph, _ in groups),
        tuple(name for _, name in groups),
        refined,
    )


def _whole_words(text: str) -> list[str]:
    """Words of the template's literal text with a space (or the line's edge) on both sides: a line
    written from this template contains each of them as a space-separated word."""
    out: list[str] = []
    pieces = _SLOT.split(text)[::2]  # the literal text between placeholders
    last = len(pieces) - 1
    for k, seg in enumerate(pieces):
        words = seg.split(" ")
        for i, w in enumerate(words):
            if w and (i > 0 or k == 0) and (i < len(words) - 1 or k == last):
                out.append(w)
    return out


def _in_order(pieces: tuple[str, ...], line: str) -> bool:
    """Whether every literal piece of a template is in ``line``, in order (its values aside)."""
    at = 0
    for piece in pieces:
        at = line.find(piece, at)
        if at < 0:
            return False
        at += len(piece)
    return bool(pieces)


def _pattern(label: str) -> re.Pattern[str]:
    """A label with a number slot (``[numCards] cards``) as a regex capturing the number."""
    return re.compile(r"(\d{1,6})".join(re.escape(p) for p in _SLOT.split(label)[::2]))


@cache
def sentence_table(code: str) -> dict[str, str]:
    """One language's template table (``templates/<code>.json``, the client's texts as it ships them), read
    once."""
    base = resources.files("replay.sources.ptcgl").joinpath("templates")
    table: dict[str, str] = json.loads(base.joinpath(f"{code}.json").read_text(encoding="utf-8"))
    return table


# the readings ``Sentences.match`` keeps (a 300-line log holds ~130 distinct lines, a batch of 200 logs
# ~4,300); above it they are dropped and read again: the memo's memory stays a few MB
_SEEN_MAX = 20_000


class Sentences:
    """One language's sentence table, compiled. ``match(line)`` -> list of Match (empty: no sentence)."""

    def __init__(
        self,
        code: str,
        table: dict[str, str],
        variants: dict[str, list[str]] | None = None,
        players: str = r"\S+?",
    ) -> None:
        self.code = code
        self.variants = variants
        self._loose_rx: list[re.Pattern[str]] | None = None
        self.table = table
        self.labels = {k: normal_template(v) for k, v in table.items()}
        templates: list[Template] = []
        seen: set[str] = set()
        # keys in KINDS order first, so that of two keys with the same text the first listed is kept
        order = [k for k in KINDS if k in table] + sorted(k for k in table if k not in KINDS)
        # an older client's wording of a key (templates/<code>.variants.json) reads as that key
        texts = [(key, table[key]) for key in order]
        texts += [(key, text) for key in order for text in (variants or {}).get(key, ())]
        for key, text in texts:
            t = _compile(key, text, players)
            if t is None or t.text in seen:
                continue
            seen.add(t.text)
            templates.append(t)
        self.templates = templates
        freq: dict[str, int] = {}
        words: list[list[str]] = []
        for t in templates:
            ws = _whole_words(t.text)
            words.append(ws)
            for w in set(ws):
                freq[w] = freq.get(w, 0) + 1
        self.index: dict[str, list[int]] = {}
        self.always: list[int] = []  # templates with no whole literal word
        for i, ws in enumerate(words):
            if not ws:
                self.always.append(i)
                continue
            best = min(ws, key=lambda w: (freq[w], -len(w)))
            self.index.setdefault(best, []).append(i)
        # most specific first: longer literal text, then more placeholders
        self.rank = {i: (-t.literal, -len(t.groups), i) for i, t in enumerate(templates)}
        self.always.sort(key=self.rank.__getitem__)
        self._words = frozenset(self.index)
        # the templates to try for a set of index words, in order: a log repeats a few dozen such sets
        self._orders: dict[frozenset[str], tuple[int, ...]] = {}
        # each template's regex, compiled the first time a line is tried against it: a log meets a few
        # dozen of a language's ~230 templates, and compiling them all cost a one-log import 0.1 s
        self._rx: list[re.Pattern[str] | None] = [None] * len(templates)
        # each line text's reading (``match``): a log repeats its lines ("drew a card.", the same attack,
        # the same Energy attached), 56 % of a generated log's lines and 92 % of a batch's repeat one read
        # before; a hit costs a dict lookup and a copy of the values, a miss the word index and the regexes
        self._seen: dict[str, tuple[Match, ...]] = {}
        self.conditions = {
            self.labels[f"blog_loc_condition_{c}"].casefold(): c
            for c in CONDITIONS
            if f"blog_loc_condition_{c}" in self.labels
        }
        self.n_cards = _pattern(self.labels.get("blog_loc_number_of_cards", "[numCards] cards"))
        self.a_card = {self.labels.get("blog_loc_a_card", "a card").casefold()}
        self.hidden = {
            self.labels.get(k, "").casefold()
            for k in ("blog_loc_hidden_card", "blog_loc_another_card", "blog_loc_unspecified_pokemon")
        } - {""}

    @staticmethod
    @cache
    def for_language(code: str) -> Sentences:
        """The table of one of LANGUAGES (cached: read once per process, when a log in that language is
        met: compiling every language's ~230 templates cost a command 0.3 s at start-up; each template's
        regex is compiled when a line is first tried against it)."""
        base = resources.files("replay.sources.ptcgl").joinpath("templates")
        extra = base.joinpath(f"{code}.variants.json")
        variants = json.loads(extra.read_text(encoding="utf-8"))["variants"] if extra.is_file() else None
        return Sentences(code, sentence_table(code), variants)

    @staticmethod
    @lru_cache(maxsize=8)
    def with_handles(code: str, handles: tuple[str, ...]) -> Sentences:
        """The table of ``code`` for a log whose handles hold spaces (``[abc] Gary``): a player's value is
        one of ``handles`` (longest first), else a word as usual. The client allows such handles; the
        importer reads them from the log's own opening lines (``opening_handles``) and matches them
        exactly."""
        base = Sentences.for_language(code)
        alts = "|".join(re.escape(h) for h in sorted(handles, key=len, reverse=True))
        return Sentences(code, base.table, base.variants, players=f"(?:{alts}|\\S+?)")

    def opening_handles(self, lines: list[str]) -> list[str]:
        """The handles the Setup lines name (coin flip, coin toss, going first, opening hand, mulligans),
        read with a handle that may be anything, spaces and brackets included, in order of appearance."""
        loose = self._loose()
        out: list[str] = []
        for raw in lines[:60]:
            s = raw.strip()
            if s.startswith("- "):
                continue
            for rx in loose:
                m = rx.fullmatch(s)
                if m is not None:
                    p = m.group("p").strip()
                    if p and p not in out:
                        out.append(p)
                    break
            if len(out) == 2:
                break
        return out

    def _loose(self) -> list[re.Pattern[str]]:
        if self._loose_rx is not None:
            return self._loose_rx
        out: list[re.Pattern[str]] = []
        for key, (kind, names, _) in KINDS.items():
            if kind not in ("coin", "coin_won", "decided", "opening", "mulligan") or key not in self.labels:
                continue
            parts = _SLOT.split(self.labels[key])
            rx = ""
            for i, part in enumerate(parts):
                if i % 2 == 0:
                    rx += re.escape(part)
                elif names.get(part) == "p":
                    rx += "(?P<p>.+?)" if "(?P<p>" not in rx else ".+?"
                else:
                    rx += ".+?"
            out.append(re.compile(rx))
        self._loose_rx = out
        return out

    def match(self, line: str) -> list[Match]:
        """What ``line`` says: its sentences (two when the client joined two on one line), or [] when it is
        none of the table's. New Match objects with their own ``g`` (callers may change them)."""
        return [Match(m.kind, m.key, dict(m.g), m.phs, m.values, m.partial) for m in self.readings(line)]

    def readings(self, line: str) -> tuple[Match, ...]:
        """``match`` without the copies: the table's own reading of ``line``, kept for the next line with
        the same text (a caller must not change it; ``classify`` copies ``g`` into its Line)."""
        seen = self._seen.get(line)
        if seen is None:
            seen = self._read(line)
            if len(self._seen) >= _SEEN_MAX:
                self._seen.clear()  # bounded: a 4 MiB log of distinct lines must not keep them all
            self._seen[line] = seen
        return seen

    def _read(self, line: str) -> tuple[Match, ...]:
        """``readings`` without the memo: the word index and the regexes run."""
        return tuple(self._sentences(line))

    def _sentences(self, line: str) -> list[Match]:
        one = self.match_one(line)
        if one is not None:
            if (". " in line or "! " in line) and any(". " in v or "! " in v for v in one.g.values()):
                # a value that holds a sentence joint ("... on the Bench. Jet Energy was activated" read
                # as one card name): two sentences on one line, when both parts are sentences
                parts = self._split(line, 0)
                if parts:
                    return parts
            return [one]
        return self._split(line, 0)

    def _split(self, line: str, depth: int) -> list[Match]:
        # two sentences on one line: try each ". " (or "! ") as the joint, the first part must match
        if depth > 3:
            return []
        for m in re.finditer(r"[.!] ", line):
            head, tail = line[: m.start() + 1], line[m.end() :]
            if tail.startswith("- "):
                tail = tail[2:]  # a detail line pasted onto its main line (a flattened copy)
            first = self.match_one(head)
            if first is None:
                continue
            rest = self.match_one(tail)
            if rest is not None:
                return [first, rest]
            more = self._split(tail, depth + 1)
            if more:
                return [first, *more]
        return []

    def _order(self, words: frozenset[str]) -> tuple[int, ...]:
        """The templates indexed under ``words`` (a line's index words), most specific first, then those
        with no whole literal word (``always``)."""
        order = self._orders.get(words)
        if order is None:
            cands = {i for w in words for i in self.index[w]}
            order = self._orders[words] = (*sorted(cands, key=self.rank.__getitem__), *self.always)
        return order

    def _regex(self, i: int) -> re.Pattern[str]:
        rx = self._rx[i]
        if rx is None:
            rx = self._rx[i] = re.compile(self.templates[i].pattern)
        return rx

    def match_one(self, line: str) -> Match | None:
        # The line's few candidates (1.5 tried per line on average), one C call each: the cost of a line is
        # the Python around the regexes, kept to a dict lookup, a zip of the values and one Match.
        words = self._words.intersection(line.split(" "))
        order = self._orders.get(words) or self._order(words)
        rxs = self._rx
        for k, i in enumerate(order):
            m = (rxs[i] or self._regex(i)).fullmatch(line)
            if m is None:
                continue
            t = self.templates[i]
            values = m.groups()
            g = dict(zip(t.names, values, strict=True))
            if t.fixed:
                g.update(t.fixed)
            if t.refined:
                out = self._refine(t, g, values)
                if out is None:
                    return None
            else:
                out = Match(t.kind, t.key, g, t.phs, values)
            if k:
                # a more specific template tried before (all failed) whose words are all in the line
                fell = next(
                    (
                        u
                        for u in map(self.templates.__getitem__, order[:k])
                        if u.literal > t.literal and _in_order(u.pieces, line)
                    ),
                    None,
                )
                if fell is not None:
                    out.partial = fell.key
            return out
        return None

    def _refine(self, t: Template, g: dict[str, str], values: tuple[str, ...]) -> Match | None:
        kind = t.kind
        cond = g.get("cond")
        if cond is not None:
            canon = self.conditions.get(cond.casefold())
            if canon is None:
                return None  # not a Special Condition: not this sentence
            g["cond"] = canon
        c = g.get("c")
        if c is not None and kind in _CARD_KINDS:
            low = c.casefold()
            nm = self.n_cards.fullmatch(c)
            if low in self.a_card or low in self.hidden:
                g["hidden"] = "1"
                g["n"] = "1"
            elif nm is not None:
                g["n"] = nm.group(1)
                g["hidden"] = "1"
        return Match(kind, t.key, g, t.phs, values)


def language_of(code: str) -> str:
    """The catalogue's language for a log language (the client's pt-BR is the catalogue's pt, its es_la
    Latin-American Spanish the catalogue's es: the cards are printed with the same Spanish names)."""
    return "pt" if code.startswith("pt") else code.replace("_", "-").split("-")[0]


def template_count(code: str) -> int:
    """How many of the client's sentence templates a language table holds (the 228 keys)."""
    return len(Sentences.for_language(code).table)


def describe() -> dict[str, Any]:
    """Per language: template keys, compiled sentences (docs and tests)."""
    return {
        code: {"keys": len(s.table), "sentences": len(s.templates)}
        for code in LANGUAGES
        for s in [Sentences.for_language(code)]
    }
