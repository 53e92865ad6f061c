"""The review page's battle log: every archived event as a sentence with card names, grouped by turn.

:func:`battle_log` folds a match's archive once with the engine and returns one line per archived
entry, the way Showdown's replay viewer reads: ``Raging Bolt ex (b2) attacks Dragapult ex (a3) with
Bellowing Thunder: 240 damage``, ``Wonder_Squid plays the Item Sacred Ash``, ``Wonder_Squid shuffles
2 Weedle from the discard pile into the deck``. Every event type of the contract (schemas/) has its
sentence (:func:`describe`), and no line ever shows a raw structure: a value of an unexpected shape is
``?``, an event type this version does not know is named with its plain fields. Each line carries the
turn as the source numbers it (``turn_started.turn``; the engine's own count only where the source gives
none) and its marks: the knockouts, prizes, decisions and findings the engine derived at that seq,
findings with the section of docs/rules.md they rest on (:data:`RULE_OF_FINDING`).

Card names come from the events themselves; :func:`card_name` is the one place a name is looked up
(the board of the review page shows the same names: :func:`display_names`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import msgpack

from replay import i18n
from replay.contract.validate import checked_game
from replay.engine import SOURCE_FINDINGS
from replay.i18n import N_, notes
from replay.i18n.findings import detail as finding_detail
from replay.i18n.findings import message as finding_message
from replay.i18n.findings import shown as shown_finding
from replay.i18n.words import OUTCOMES, PLAYOFFS, REASONS, said
from replay.sources.cards import card_name as catalogue_name
from replay.sources.cards import move_name

Event = dict[str, Any]

# Which section of docs/rules.md (numbered as the rules reference the engine implements) a finding rests
# on: every code the engine finds has one (tests/streams/http/test_battle_log.py checks it against
# replay.engine.findings.SEVERITY and the engine's source); findings about the stream itself (gaps, reused
# seqs, unknown ids) rest on §9, the stream itself.
RULE_OF_FINDING: dict[str, str] = {
    "unknown_ruleset": "7",
    "turn_order": "6",
    "card_count": "6",
    "attack_first_turn": "6",
    "evolved_too_early": "6",
    "supporter_first_turn": "6",
    "second_supporter": "6",
    "second_energy": "6",
    "second_stadium": "6",
    "second_retreat": "6",
    "prizes_not_left": "1.1",
    "deck_count_mismatch": "1.3",
    "draw_from_empty_deck_not_loss": "1.3",
    "promotion_missing": "1.2",
    "attack_while_unable": "5",
    "ko_not_due": "2",
    "ko_not_claimed": "2",
    "window_not_closed": "2",
    "prize_count_mismatch": "3",
    "prize_without_ko": "3",
    "promotion_order": "3",
    "result_mismatch": "1",
    "penalty_prizes": "6",
    "reason_mismatch": "1",
    "event_after_end": "1",
    "seq_gap": "9",
    "duplicate_seq": "9",
    "late_event": "9",
    "wrong_match": "9",
    "no_match_started": "9",
    "unknown_player": "9",
    "unknown_pokemon": "9",
    "attacker_not_active": "9",
    "corrected": "9",
    "source_finding": "9",
}
RULE_TITLES: dict[str, str] = {
    "1": "How a game is won or lost",
    "2": "When knockouts are checked",
    "3": "Knockout procedure",
    "4": "Simultaneous results",
    "5": "Pokémon Checkup",
    "6": "Tournament layer",
    "7": "Rulesets",
    "8": "Deck legality",
    "9": "The stream itself",
}

#: How a zone reads in a sentence (translated where it is shown).
ZONES: dict[str, str] = {
    "deck": N_("the deck"),
    "hand": N_("the hand"),
    "discard": N_("the discard pile"),
    "prizes": N_("the Prize cards"),
    "lost_zone": N_("the Lost Zone"),
    "stadium": N_("the Stadium spot"),
    "bench": N_("the Bench"),
    "active": N_("the Active Spot"),
}
TRAINER_KINDS = {
    "item": N_("Item"),
    "supporter": N_("Supporter"),
    "stadium": N_("Stadium"),
    "tool": N_("Pokémon Tool"),
}
#: Special Conditions as a sentence names them (docs/rules.md §5).
CONDITIONS: dict[str, str] = {
    "asleep": N_("Asleep"),
    "burned": N_("Burned"),
    "confused": N_("Confused"),
    "paralyzed": N_("Paralyzed"),
    "poisoned": N_("Poisoned"),
}
#: A penalty's kind in words (docs/events.md, penalty).
PENALTIES: dict[str, str] = {
    "caution": N_("caution"),
    "warning": N_("warning"),
    "prize_penalty": N_("prize penalty"),
    "double_prize": N_("double prize"),
    "quad_prize": N_("quad prize"),
    "game_loss": N_("game loss"),
    "match_loss": N_("match loss"),
    "disqualification": N_("disqualification"),
    "double_loss": N_("double loss"),
}


def reason_words(code: Any, lang: str = i18n.DEFAULT) -> str:
    """A result's reason code in ``lang``'s words (replay.i18n.words.REASONS, the one wording of each
    code); a code the contract adds later as written, its ``_`` as spaces."""
    if not isinstance(code, str):
        return _word(code)
    return said(lang, code, REASONS) if code in REASONS else code.replace("_", " ")


def rule_ref(code: str) -> dict[str, str] | None:
    """The docs/rules.md section a finding code rests on: ``{"section", "title", "href"}``, or None."""
    section = RULE_OF_FINDING.get(code)
    if section is None and code in SOURCE_FINDINGS:
        section = "9"  # an importer's finding, kept with its code [docs/rules.md §9]
    if section is None:
        return None
    top = section.split(".")[0]
    return {"section": section, "title": RULE_TITLES[top], "href": f"/rules#s{top}"}


_SPELLING = re.compile(r"[\s\-‐‑·.]+")


def _same_card_name(a: str, b: str) -> bool:
    """Names that differ only by case, spaces and hyphens (``Rayquaza-EX`` / ``Rayquaza ex``): the source
    wrote the card's own name, and the catalogue's other spelling would only name another card."""
    return _SPELLING.sub("", a).casefold() == _SPELLING.sub("", b).casefold()


def card_name(card: Any, lang: str = "en", *, source: bool = True) -> str:
    """A card's display name from an event's card (``{"name": ...}``) or a bare name: its name in ``lang``
    (en, ja, ko: the page's language) in the card catalogue (replay/sources/cards.py ``card_name``) where
    the catalogue knows the card, with the name as the source wrote it beside it when that differs (a
    localised log: ``Charizard ex (Glurak-ex)``; a Japanese page: ``リザードンex (Charizard ex)``). A name
    the catalogue spells only differently (``Rayquaza-EX`` for ``Rayquaza ex``) stays as the source wrote
    it: the old Pokémon-EX and the new Pokémon ex are different cards. ``source=False``: the name in
    ``lang`` alone (the overlay: spectators read their language, not the source's spelling)."""
    if isinstance(card, Mapping):
        card = card.get("name")
    if not isinstance(card, str) or not card:
        return "?"
    known = catalogue_name(card, lang)
    if _same_card_name(known, card):
        return card
    return f"{known} ({card})" if source else known


def card_in(lang: str) -> Callable[[str], str]:
    """How a sentence of the service (a finding's, its detail's) names a card on a page in ``lang``: its
    name in ``lang`` alone where the catalogue knows it (:func:`card_name` without the source's
    spelling: a sentence is not a log line), else as written."""
    return lambda name: card_name(name, lang, source=False)


def finding_text(lang: str, code: str, text: str) -> str:
    """A finding's public message in ``lang`` (replay.i18n.findings), its cards named in ``lang``."""
    return finding_message(lang, code, text, card_in(lang))


def finding_shown(finding: Mapping[str, Any], lang: str) -> dict[str, Any]:
    """A finding with ``text`` (and a judge's ``detail_text``) in ``lang``, its cards named in ``lang``
    (replay.i18n.findings.shown)."""
    return shown_finding(finding, lang, card_in(lang))


def display_names(names: Iterable[str], lang: str = "en", *, source: bool = True) -> dict[str, str]:
    """The display name of each card name that :func:`card_name` shows differently (for the board)."""
    return {n: shown for n in set(names) if (shown := card_name(n, lang, source=source)) != n}


def display_moves(events: Iterable[Event], lang: str = "en") -> dict[str, dict[str, str]]:
    """The attacks the events name, in ``lang`` where the card catalogue names them otherwise, by the
    attacker's card and the attack's name as written (``{"Pikachu": {"Thunder Shock": "..."}}``): the
    overlay's last attack, in the overlay's language."""
    names = _Names(lang=lang)
    moves: dict[str, dict[str, str]] = {}
    for event in events:
        names.see(event)
        pid, named = event.get("pid"), event.get("name")
        if event.get("type") == "attack" and isinstance(pid, str) and isinstance(named, str):
            card = names.written.get(pid)
            if card is not None and (shown := names.move(pid, named)) != named:
                moves.setdefault(card, {})[named] = shown
    return moves


@dataclass
class _Names:
    """What each pid is called, as the events name it (kept after it leaves play, for the log)."""

    pids: dict[str, str] = field(default_factory=dict)
    lang: str = "en"  # the page's language: every card name of the log is shown in it
    written: dict[str, str] = field(default_factory=dict)  # pid -> its card's name as the event gave it

    def card(self, card: Any) -> str:
        return card_name(card, self.lang)

    def tr(self, message: str, **fields: Any) -> str:
        """``message`` in the log's language, its ``{fields}`` filled."""
        return (
            i18n.gettext(self.lang, message).format(**fields) if fields else i18n.gettext(self.lang, message)
        )

    def cards(self, cards: Any) -> list[str]:
        return [self.card(c) for c in _list(cards)]

    def see(self, event: Event) -> None:
        t = event.get("type")
        if t == "setup":
            for slot in [event.get("active"), *_list(event.get("bench"))]:
                if isinstance(slot, Mapping) and isinstance(slot.get("pid"), str):
                    self._name(slot["pid"], slot.get("card"))
        elif t in ("played", "evolved") and isinstance(event.get("pid"), str):
            self._name(event["pid"], event.get("card"))

    def _name(self, pid: str, card: Any) -> None:
        self.pids[pid] = self.card(card)
        written = card.get("name") if isinstance(card, Mapping) else card
        if isinstance(written, str):
            self.written[pid] = written

    def move(self, pid: Any, move: str) -> str:
        """The attack or Ability ``move`` of the Pokémon ``pid`` in the log's language (the card catalogue's
        name for that card's move; as written where the catalogue has none)."""
        card = self.written.get(pid) if isinstance(pid, str) else None
        return move_name(card, move, self.lang) if card else move

    def mon(self, pid: Any) -> str:
        if not isinstance(pid, str):
            return "?"
        name = self.pids.get(pid)
        return f"{name} ({pid})" if name else pid


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _word(value: Any) -> str:
    """A scalar as text; anything else (a map, a list) as ``?``: a sentence never shows a structure."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, str | int | float):
        return str(value)
    return "?"


def _zone(value: Any, lang: str = "en") -> str:
    text = ZONES.get(value) if isinstance(value, str) else None
    return i18n.gettext(lang, text) if text else "?"


def _number(count: Any) -> int:
    return count if isinstance(count, int) and not isinstance(count, bool) else 1


def _cards_n(count: Any, lang: str) -> str:
    n = _number(count)
    return i18n.ngettext(lang, "{n} card", "{n} cards", n).format(n=n)


def _prizes_n(count: Any, lang: str) -> str:
    n = _number(count)  # the review page's script has these two messages (static/review.js)
    return (i18n.gettext(lang, "{n} prize") if n == 1 else i18n.gettext(lang, "{n} prizes")).format(n=n)


def _grouped(names: Sequence[str]) -> str:
    """``["Weedle", "Weedle", "Nest Ball"]`` -> ``2 Weedle, Nest Ball`` (in first-seen order)."""
    counts: dict[str, int] = {}
    for name in names:
        counts[name] = counts.get(name, 0) + 1
    return ", ".join(name if n == 1 else f"{n} {name}" for name, n in counts.items())


def _what(event: Event, names: _Names) -> str:
    """The cards an event moves: their names when the event gives them (``2 Weedle``), else a count."""
    shown = names.cards(event.get("cards"))
    if shown:
        return _grouped(shown)
    return _cards_n(event.get("count", 1), names.lang)


def _listed(event: Event, names: _Names) -> str:
    """``: A, B`` when the event names its cards (after a sentence that says how many)."""
    shown = names.cards(event.get("cards"))
    return ": " + ", ".join(shown) if shown else ""


def _count(event: Event) -> Any:
    return event.get("count", len(_list(event.get("cards"))) or 1)


def describe(
    event: Event,
    names: _Names,
    hits: Sequence[tuple[str, Any]] = (),
    earlier: Mapping[Any, Event] | None = None,
) -> str:
    """One event as a sentence in ``names.lang``. ``hits`` are the (pid, amount) damage of an attack, for
    the attack line.

    ``names`` is what each pid was called before this event (an evolution names the Pokémon it evolves
    by its old name); ``earlier``, the events before it by seq (a correction says what it corrects)."""
    t = event.get("type")
    lang = names.lang
    tr = names.tr
    who = _word(event.get("player", "?"))
    mon = names.mon(event.get("pid"))
    if t == "match_started":
        players = " vs ".join(_word(p) for p in _list(event.get("players")))
        first, ruleset = _word(event.get("first")), _word(event.get("ruleset"))
        return tr(
            "Match started: {players}; {first} goes first ({ruleset})",
            players=players,
            first=first,
            ruleset=ruleset,
        )
    if t == "setup":
        bench = [names.mon(b.get("pid")) for b in _list(event.get("bench")) if isinstance(b, Mapping)]
        active = event.get("active")
        text = tr(
            "{player} sets up {pokemon} as Active",
            player=who,
            pokemon=names.mon(active.get("pid") if isinstance(active, Mapping) else None),
        )
        if bench:
            text += tr(", Bench {pokemon}", pokemon=", ".join(bench))
        if event.get("mulligans"):
            n = _number(event["mulligans"])
            text += " (" + i18n.ngettext(lang, "{n} mulligan", "{n} mulligans", n).format(n=n) + ")"
        return text
    if t == "turn_started":
        if "deck" in event:
            return tr("{player}'s turn starts (deck {deck})", player=who, deck=_word(event["deck"]))
        return tr("{player}'s turn starts", player=who)
    if t == "drew":
        text = tr("{player} draws {cards}", player=who, cards=_cards_n(_count(event), lang))
        return text + _listed(event, names)
    if t == "moved":
        text = tr(
            "{player} moves {cards} from {origin} to {zone}",
            player=who,
            cards=_what(event, names),
            origin=_zone(event.get("from"), lang),
            zone=_zone(event.get("to"), lang),
        )
        return text + (tr(" (revealed)") if event.get("revealed") is True else "")
    if t == "played":
        return tr(
            "{player} plays {pokemon} to {zone}",
            player=who,
            pokemon=mon,
            zone=_zone(event.get("to", "bench"), lang),
        )
    if t == "evolved":
        how = tr(" (allowed by {effect})", effect=_word(event["effect"])) if event.get("effect") else ""
        return (
            tr(
                "{player} evolves {pokemon} into {card}",
                player=who,
                pokemon=mon,
                card=names.card(event.get("card")),
            )
            + how
        )
    if t == "attached":
        text = tr(
            "{player} attaches {card} to {pokemon}",
            player=who,
            card=names.card(event.get("card")),
            pokemon=mon,
        )
        if event.get("from", "hand") != "hand":
            text += tr(" from {zone}", zone=_zone(event["from"], lang))
        return text
    if t == "attack":
        named = event.get("name")
        attack = (
            tr(" with {attack}", attack=names.move(event.get("pid"), named))
            if isinstance(named, str) and named
            else ""
        )
        if len(hits) == 1:
            pid, amount = hits[0]
            return tr(
                "{pokemon} attacks {target}{attack}: {amount} damage",
                pokemon=mon,
                target=names.mon(pid),
                attack=attack,
                amount=_word(amount),
            )
        if hits:
            dealt = ", ".join(
                tr("{amount} to {target}", amount=_word(amount), target=names.mon(pid))
                for pid, amount in hits
            )
            return tr("{pokemon} attacks{attack}: {dealt}", pokemon=mon, attack=attack, dealt=dealt)
        return tr("{pokemon} attacks{attack}", pokemon=mon, attack=attack)
    if t == "damage":
        if isinstance(event.get("by"), str):
            return tr(
                "{pokemon} takes {amount} damage from {source}",
                pokemon=mon,
                amount=_word(event.get("amount")),
                source=names.mon(event["by"]),
            )
        return tr("{pokemon} takes {amount} damage", pokemon=mon, amount=_word(event.get("amount")))
    if t == "healed":
        return tr("{pokemon} is healed by {amount}", pokemon=mon, amount=_word(event.get("amount")))
    if t == "attack_ended":
        return tr("The attack ends")
    if t == "condition":
        condition = _word(event.get("condition", "?"))
        shown = (
            i18n.gettext(lang, CONDITIONS[condition]) if condition in CONDITIONS else condition.capitalize()
        )
        if event.get("on", True) is not False:
            return tr("{pokemon} is now {condition}", pokemon=mon, condition=shown)
        return tr("{pokemon} is no longer {condition}", pokemon=mon, condition=shown)
    if t == "turn_ended":
        return tr("{player} ends the turn", player=who)
    if t == "checkup_started":
        return tr("Pokémon Checkup")
    if t == "checkup_ended":
        return tr("Pokémon Checkup ends")
    if t == "switched":
        return tr("{player} switches {pokemon} into the Active Spot", player=who, pokemon=mon)
    if t == "promoted":
        return tr("{player} promotes {pokemon} to Active", player=who, pokemon=mon)
    if t == "removed":
        return tr("{pokemon} leaves play to {zone}", pokemon=mon, zone=_zone(event.get("to"), lang))
    if t == "knocked_out":
        if isinstance(event.get("by"), str):
            return tr(
                "{pokemon} is Knocked Out by {source} (the source says)",
                pokemon=mon,
                source=_word(event["by"]),
            )
        return tr("{pokemon} is Knocked Out (the source says)", pokemon=mon)
    if t == "prize_taken":
        n = _number(event.get("count", 1))
        text = i18n.ngettext(
            lang, "{player} takes {n} Prize card", "{player} takes {n} Prize cards", n
        ).format(player=who, n=n)
        if event.get("effect"):
            text += tr(" by the effect of {card}", card=names.card(event["effect"]))
        return text + _listed(event, names)
    if t == "prize_modifier":
        delta = event.get("delta", 0)
        n = abs(delta) if isinstance(delta, int) else 0
        if isinstance(delta, int) and delta > 0:
            said = i18n.ngettext(
                lang,
                "{pokemon} gives {n} more Prize card when Knocked Out",
                "{pokemon} gives {n} more Prize cards when Knocked Out",
                n,
            )
        else:
            said = i18n.ngettext(
                lang,
                "{pokemon} gives {n} fewer Prize card when Knocked Out",
                "{pokemon} gives {n} fewer Prize cards when Knocked Out",
                n,
            )
        return said.format(pokemon=mon, n=n)
    if t == "conceded":
        if event.get("reason"):
            return tr("{player} concedes: {reason}", player=who, reason=_word(event["reason"]))
        return tr("{player} concedes", player=who)
    if t == "penalty":
        why = f": {_word(event['reason'])}" if event.get("reason") else ""
        kind = _word(event.get("kind", "?"))
        given = i18n.gettext(lang, PENALTIES[kind]) if kind in PENALTIES else kind.replace("_", " ")
        count = event.get("prizes")
        if isinstance(count, int) and not isinstance(count, bool):
            given += i18n.ngettext(lang, " of {n} prize", " of {n} prizes", count).format(n=count)
        return tr("Penalty for {player}: {penalty}", player=who, penalty=given) + why
    if t == "time_called":
        return tr("Time is called")
    if t == "effect_result":
        card = names.card(event.get("card"))
        if event.get("wins") is True:
            return tr("{player} wins by the effect of {card}", player=who, card=card)
        return tr("{player} loses by the effect of {card}", player=who, card=card)
    if t == "game_ended":
        why = f" ({_word(event['reason'])})" if event.get("reason") else ""
        if event.get("outcome") == "win":
            return tr("The source reports: {player} wins", player=_word(event.get("winner"))) + why
        outcome = _word(event.get("outcome", "?"))
        shown = i18n.gettext(lang, OUTCOMES[outcome]) if outcome in OUTCOMES else outcome.replace("_", " ")
        return tr("The source reports: {outcome}", outcome=shown) + why
    if t == "correction":
        return _correction(event, names, earlier or {})
    if t == "note":
        text = _word(event.get("text", ""))
        # an importer's own sentence, a scan's note row: in ``lang`` (a person's words: as written)
        text = notes.of_note(lang, event, card_in(lang)) or text
        head = tr("Note by {author}", author=_word(event["author"])) if event.get("author") else tr("Note")
        return f"{head}: {text}" if text else head  # a public view has no free text
    if t == "discarded":
        if isinstance(event.get("pid"), str):
            return tr(
                "{player} discards {cards} attached to {pokemon}",
                player=who,
                cards=_what(event, names),
                pokemon=mon,
            )
        return tr(
            "{player} discards {cards} from {zone}",
            player=who,
            cards=_what(event, names),
            zone=_zone(event.get("from", "hand"), lang),
        )
    if t == "trainer_played":
        played = event.get("card")
        trainer = TRAINER_KINDS.get(played.get("kind", "")) if isinstance(played, Mapping) else None
        if trainer:
            return tr(
                "{player} plays the {kind} {card}",
                player=who,
                kind=i18n.gettext(lang, trainer),
                card=names.card(played),
            )
        return tr("{player} plays {card}", player=who, card=names.card(played))
    if t == "searched":
        return tr(
            "{player} searches the deck and puts {cards} into the hand", player=who, cards=_what(event, names)
        )
    if t == "to_hand":
        return tr(
            "{player} puts {cards} from {zone} into the hand",
            player=who,
            cards=_what(event, names),
            zone=_zone(event.get("from"), lang),
        )
    if t == "shuffled":
        zone = _zone(event.get("zone"), lang)
        if event.get("from"):
            return tr(
                "{player} shuffles {cards} from {origin} into {zone}",
                player=who,
                cards=_what(event, names),
                origin=_zone(event["from"], lang),
                zone=zone,
            )
        return tr("{player} shuffles {zone}", player=who, zone=zone)
    plain = [
        f"{k} {_word(v)}" for k, v in event.items() if k not in ("match", "seq", "type") and _word(v) != "?"
    ]
    return tr("Event “{type}”", type=_word(t)) + (f" ({', '.join(plain)})" if plain else "")


def _correction(event: Event, names: _Names, earlier: Mapping[Any, Event]) -> str:
    """A correction as a sentence: who made it (its ``author``; never assumed: during the game the
    match's own recorder corrects it too, after the end only a judge may, streams/http/ownership.py),
    what it corrects, and for an amendment each value it changes, in words."""
    tr = names.tr
    if isinstance(event.get("author"), str) and event["author"]:
        head = tr("Correction by {author}", author=_word(event["author"]))
    else:
        head = tr("Correction")
    target = _word(event.get("target"))
    original = earlier.get(event.get("target"))
    was = f" (“{describe(original, names)}”)" if original is not None else ""
    if event.get("action") == "void":
        return head + tr(": seq {seq}{was} is void", seq=target, was=was)
    replacement = event.get("event")
    if event.get("action") != "amend":
        return head + f": seq {target} {_word(event.get('action', '?'))}"
    if not isinstance(replacement, Mapping):  # a public view without the replacement's fields
        return head + tr(": seq {seq}{was} is amended", seq=target, was=was)
    changed = {k: v for k, v in replacement.items() if k not in ("match", "seq")}
    if original is None:  # not archived before it: the replacement read on its own
        if "type" in changed:
            return head + tr(
                ": seq {seq} is amended to “{event}”", seq=target, event=describe(dict(changed), names)
            )
        fields = ", ".join(f"{k.replace('_', ' ')} {_word(v)}" for k, v in changed.items())
        return head + tr(": seq {seq} is amended: {fields}", seq=target, fields=fields or tr("no change"))
    values = ", ".join(
        f"{k.replace('_', ' ')} {_word(original[k])} → {_word(v)}" if k in original else f"{k} {_word(v)}"
        for k, v in changed.items()
    )
    now = describe({**original, **changed}, names)
    return head + tr(
        ": seq {seq} is amended ({values}): “{event}”",
        seq=target,
        values=values or tr("no change"),
        event=now,
    )


def sentence(
    event: Event,
    names: _Names,
    hits: Sequence[tuple[str, Any]] = (),
    earlier: Mapping[Any, Event] | None = None,
) -> str:
    """:func:`describe` ``event``, and learn the names it gives (``names`` then knows its Pokémon): a
    Pokémon set up or played is named by this event, an evolving one by what it was before it."""
    if event.get("type") == "evolved":
        text = describe(event, names, hits, earlier)
        names.see(event)
        return text
    names.see(event)
    return describe(event, names, hits, earlier)


def sentences(events: Sequence[Event], lang: str = "en") -> list[str]:
    """Each of ``events`` (one match's, in seq order) as its battle-log sentence: what the table console
    shows for its log and its draft, in the review page's words (one describer for both); card names in
    ``lang``."""
    names = _Names(lang=lang)
    earlier: dict[Any, Event] = {}
    out: list[str] = []
    for i, ev in enumerate(events):
        hits = _attack_hits(events, i) if ev.get("type") == "attack" else ()
        out.append(sentence(ev, names, hits, earlier))
        earlier.setdefault(ev.get("seq"), ev)
    return out


def _attack_hits(events: Sequence[Event], start: int) -> list[tuple[str, Any]]:
    """The damage events of the attack opened at ``events[start]``, up to its ``attack_ended``."""
    hits: list[tuple[str, Any]] = []
    for e in events[start + 1 :]:
        t = e.get("type")
        if t == "attack_ended" or t == "attack" or t == "turn_ended":
            break
        if t == "damage" and isinstance(e.get("pid"), str):
            hits.append((e["pid"], e.get("amount")))
    return hits


def _mark(out: Mapping[str, Any], names: _Names, kos: dict[str, int]) -> dict[str, Any] | None:
    """A derived output as a mark on its line (None for outputs the list does not show)."""
    t = out.get("type")
    lang, tr = names.lang, names.tr
    if t == "ko":
        pid = out.get("pid")
        kos[_word(out.get("owner"))] = kos.get(_word(out.get("owner")), 0) + 1
        n = sum(kos.values())
        text = tr(
            "Knockout #{n}: {pokemon}, {owner}'s (gives {prizes}, {window} window)",
            n=n,
            pokemon=names.mon(pid),
            owner=_word(out.get("owner")),
            prizes=_prizes_n(out.get("prizes"), lang),
            window=_word(out.get("window")),
        )
        return {"kind": "ko", "pid": pid, "n": n, "text": text}
    if t == "prizes_due":
        text = tr(
            "{player} takes {prizes}",
            player=_word(out.get("player")),
            prizes=_prizes_n(out.get("count"), lang),
        )
        return {"kind": "prize", "text": text}
    if t == "promotion_due":
        return {
            "kind": "promotion",
            "text": tr("{player} must promote a new Active", player=_word(out.get("player"))),
        }
    if t == "deck_out":
        return {
            "kind": "decision",
            "text": tr("Deck-out: {player} cannot draw", player=_word(out.get("player"))),
        }
    if t == "game_over":
        winner = tr(", {player} wins", player=_word(out.get("winner"))) if out.get("winner") else ""
        outcome = _word(out.get("outcome"))
        shown = i18n.gettext(lang, OUTCOMES[outcome]) if outcome in OUTCOMES else outcome.replace("_", " ")
        text = tr(
            "Game over: {outcome}{winner} ({reason})",
            outcome=shown,
            winner=winner,
            reason=reason_words(out.get("reason"), lang),
        )
        return {"kind": "decision", "text": text}
    if t == "playoff_required":
        child = out.get("child")
        kind = _word(out.get("playoff"))
        shown = i18n.gettext(lang, PLAYOFFS[kind]) if kind in PLAYOFFS else kind.replace("_", " ")
        return {
            "kind": "decision",
            "text": tr("Playoff required: {kind} {child}", kind=shown, child=_word(child)),
            "child": child if isinstance(child, str) else None,
        }
    if t == "finding":
        code = _word(out.get("code"))
        mark = {
            "kind": "finding",
            "severity": out.get("severity"),
            "code": code,
            "text": f"{code}: {finding_text(lang, code, _word(out.get('message')))}",
            "rule": rule_ref(code),
        }
        if isinstance(out.get("detail"), str):
            # the engine's own words in the page's language (a source's note: quoted as written)
            mark["detail"] = finding_detail(
                lang, out["detail"], card_in(lang)
            )  # judge-only (decisions.md item 2): the review page is
        return mark
    return None


def decode(entries: Sequence[Any]) -> list[Event]:
    """The archive entries' events (an entry that is not a map reads as an event of unknown type)."""
    events: list[Event] = []
    for entry in entries:
        ev = msgpack.unpackb(entry.data, raw=False, strict_map_key=False)
        events.append(ev if isinstance(ev, dict) else {"type": "?"})
    return events


def battle_log(
    entries: Sequence[Any],
    events: Sequence[Event] | None = None,
    timeline: Sequence[Mapping[str, Any]] | None = None,
    lang: str = "en",
) -> list[dict[str, Any]]:
    """One line per archived entry (:class:`streams.store.ArchivedEvent`), in archive order.

    A line: ``seq``, ``position``, ``kind`` (event, conflict, late), ``type``, ``turn`` (the source's
    number; None before the first turn), ``player`` (whose turn), ``text`` and ``marks``. ``events`` (the
    entries decoded) and ``timeline`` (the resolved timeline of the whole archive) save a fold when the
    caller has them. Card names are shown in ``lang`` (the page's language: en, ja, ko).
    """
    if events is None:
        events = decode(entries)
    if timeline is None:
        game = checked_game()
        for ev in events:
            game.apply(ev)
        timeline = game.resolved().timeline
    by_seq = outputs_by_seq(timeline)
    writer = LogWriter(entries, events, lang)
    return [writer.line(i, by_seq) for i in range(len(entries))]


def outputs_by_seq(timeline: Iterable[Mapping[str, Any]]) -> dict[int, list[Mapping[str, Any]]]:
    """The derived outputs by the seq they carry (a line's marks: :meth:`LogWriter.line`)."""
    by_seq: dict[int, list[Mapping[str, Any]]] = {}
    for out in timeline:
        if isinstance(out.get("seq"), int):
            by_seq.setdefault(out["seq"], []).append(out)
    return by_seq


class LogWriter:
    """:func:`battle_log`'s lines one entry at a time, in archive order (what a line says depends on the
    lines before it: the turn, the cards named, the knockouts counted, what a correction corrects)."""

    def __init__(self, entries: Sequence[Any], events: Sequence[Event], lang: str = "en") -> None:
        self.entries = entries
        self.events = events
        self.names = _Names(lang=lang)
        self.kos: dict[str, int] = {}
        self.turn: Any = None
        self.player: Any = None
        self.counted = 0
        self.seen: dict[int, int] = {}  # seq -> the line that carries its marks (its first event's)
        self.earlier: dict[Any, Event] = {}  # the archived events so far, by seq: what a correction corrects

    def line(self, i: int, by_seq: Mapping[int, Sequence[Mapping[str, Any]]]) -> dict[str, Any]:
        """Entry ``i``'s line (call it for each entry in order), its marks from ``by_seq`` (the outputs at
        its seq: :func:`outputs_by_seq`)."""
        entry, ev, events, names = self.entries[i], self.events[i], self.events, self.names
        if ev.get("type") == "turn_started" and entry.kind == "event":
            self.counted += 1
            self.turn = ev.get("turn", self.counted)
            self.player = ev.get("player")
        seq = entry.position[0]
        hits = _attack_hits(events, i) if ev.get("type") == "attack" else ()
        text = sentence(ev, names, hits, self.earlier)
        if entry.kind == "event":
            self.earlier.setdefault(seq, ev)
        marks: list[dict[str, Any]] = []
        if entry.kind == "event" and seq not in self.seen:
            self.seen[seq] = i
            marks = [m for out in by_seq.get(seq, []) if (m := _mark(out, names, self.kos)) is not None]
        return {
            "seq": seq,
            "position": list(entry.position),
            "kind": entry.kind,
            "type": ev.get("type"),
            "turn": self.turn,
            "player": self.player,
            "text": text,
            "marks": marks,
        }

    def late_mark(self, out: Mapping[str, Any]) -> tuple[int, dict[str, Any]] | None:
        """An output derived after its seq's line was written (a conflicting event archived later, whose
        finding carries the seq it reuses): the line and the mark :func:`battle_log` gives it there, or
        None when its line is still to be written (it gets its marks then) or it shows no mark."""
        seq = out.get("seq")
        line = self.seen.get(seq) if isinstance(seq, int) else None
        if line is None:
            return None
        mark = _mark(out, self.names, self.kos)
        return None if mark is None else (line, mark)
