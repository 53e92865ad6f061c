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
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import msgpack

from replay import Game
from replay.engine.findings import SOURCE_FINDINGS
from replay.sources.cards import card_name as catalogue_name

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

#: How a zone reads in a sentence.
ZONES: dict[str, str] = {
    "deck": "the deck",
    "hand": "the hand",
    "discard": "the discard pile",
    "prizes": "the Prize cards",
    "lost_zone": "the Lost Zone",
    "stadium": "the Stadium spot",
    "bench": "the Bench",
    "active": "the Active Spot",
}
TRAINER_KINDS = {"item": "Item", "supporter": "Supporter", "stadium": "Stadium", "tool": "Pokémon Tool"}


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


def display_names(names: Iterable[str], lang: str = "en", *, source: bool = True) -> dict[str, str]:
    """The display name of each card name that :func:`card_name` shows differently (for the board)."""
    return {n: shown for n in set(names) if (shown := card_name(n, lang, source=source)) != n}


@dataclass
class _Names:
    """What each pid is called, as the events name it (kept after it leaves play, for the log)."""

    pids: dict[str, str] = field(default_factory=dict)
    lang: str = "en"  # the page's language: every card name of the log is shown in it

    def card(self, card: Any) -> str:
        return card_name(card, self.lang)

    def cards(self, cards: Any) -> list[str]:
        return [self.card(c) for c in _list(cards)]

    def see(self, event: Event) -> None:
        t = event.get("type")
        if t == "setup":
            for slot in [event.get("active"), *_list(event.get("bench"))]:
                if isinstance(slot, Mapping) and isinstance(slot.get("pid"), str):
                    self.pids[slot["pid"]] = self.card(slot.get("card"))
        elif t in ("played", "evolved") and isinstance(event.get("pid"), str):
            self.pids[event["pid"]] = self.card(event.get("card"))

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


def _zone(value: Any) -> str:
    return ZONES.get(value, "?") if isinstance(value, str) else "?"


def _n(count: Any, word: str) -> str:
    n = count if isinstance(count, int) and not isinstance(count, bool) else 1
    return f"{n} {word}{'' if n == 1 else 's'}"


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
    return _n(event.get("count", 1), "card")


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
    """One event as a sentence. ``hits`` are the (pid, amount) damage of an attack, for the attack line.

    ``names`` is what each pid was called before this event (an evolution names the Pokémon it evolves
    by its old name); ``earlier``, the events before it by seq (a correction says what it corrects)."""
    t = event.get("type")
    who = _word(event.get("player", "?"))
    mon = names.mon(event.get("pid"))
    if t == "match_started":
        players = " vs ".join(_word(p) for p in _list(event.get("players")))
        first, ruleset = _word(event.get("first")), _word(event.get("ruleset"))
        return f"Match started: {players}; {first} goes first ({ruleset})"
    if t == "setup":
        bench = [names.mon(b.get("pid")) for b in _list(event.get("bench")) if isinstance(b, Mapping)]
        active = event.get("active")
        text = (
            f"{who} sets up {names.mon(active.get('pid') if isinstance(active, Mapping) else None)} as Active"
        )
        if bench:
            text += ", Bench " + ", ".join(bench)
        if event.get("mulligans"):
            text += f" ({_n(event['mulligans'], 'mulligan')})"
        return text
    if t == "turn_started":
        deck = f" (deck {_word(event['deck'])})" if "deck" in event else ""
        return f"{who}'s turn starts{deck}"
    if t == "drew":
        return f"{who} draws {_n(_count(event), 'card')}{_listed(event, names)}"
    if t == "moved":
        shown = " (revealed)" if event.get("revealed") is True else ""
        where = f"from {_zone(event.get('from'))} to {_zone(event.get('to'))}"
        return f"{who} moves {_what(event, names)} {where}{shown}"
    if t == "played":
        return f"{who} plays {mon} to {_zone(event.get('to', 'bench'))}"
    if t == "evolved":
        how = f" (allowed by {_word(event['effect'])})" if event.get("effect") else ""
        return f"{who} evolves {mon} into {names.card(event.get('card'))}{how}"
    if t == "attached":
        where = f" from {_zone(event['from'])}" if event.get("from", "hand") != "hand" else ""
        return f"{who} attaches {names.card(event.get('card'))} to {mon}{where}"
    if t == "attack":
        attack = f" with {_word(event['name'])}" if event.get("name") else ""
        if len(hits) == 1:
            pid, amount = hits[0]
            return f"{mon} attacks {names.mon(pid)}{attack}: {_word(amount)} damage"
        if hits:
            dealt = ", ".join(f"{_word(amount)} to {names.mon(pid)}" for pid, amount in hits)
            return f"{mon} attacks{attack}: {dealt}"
        return f"{mon} attacks{attack}"
    if t == "damage":
        by = f" from {names.mon(event['by'])}" if isinstance(event.get("by"), str) else ""
        return f"{mon} takes {_word(event.get('amount'))} damage{by}"
    if t == "healed":
        return f"{mon} is healed by {_word(event.get('amount'))}"
    if t == "attack_ended":
        return "The attack ends"
    if t == "condition":
        state = "is now" if event.get("on", True) is not False else "is no longer"
        return f"{mon} {state} {_word(event.get('condition', '?')).capitalize()}"
    if t == "turn_ended":
        return f"{who} ends the turn"
    if t == "checkup_started":
        return "Pokémon Checkup"
    if t == "checkup_ended":
        return "Pokémon Checkup ends"
    if t == "switched":
        return f"{who} switches {mon} into the Active Spot"
    if t == "promoted":
        return f"{who} promotes {mon} to Active"
    if t == "removed":
        return f"{mon} leaves play to {_zone(event.get('to'))}"
    if t == "knocked_out":
        by = f" by {_word(event['by'])}" if isinstance(event.get("by"), str) else ""
        return f"{mon} is Knocked Out{by} (the source says)"
    if t == "prize_taken":
        effect = f" by the effect of {names.card(event['effect'])}" if event.get("effect") else ""
        return f"{who} takes {_n(event.get('count', 1), 'Prize card')}{effect}{_listed(event, names)}"
    if t == "prize_modifier":
        delta = event.get("delta", 0)
        n = abs(delta) if isinstance(delta, int) else 0
        more = "more" if isinstance(delta, int) and delta > 0 else "fewer"
        return f"{mon} gives {n} {more} Prize card{'' if n == 1 else 's'} when Knocked Out"
    if t == "conceded":
        why = f": {_word(event['reason'])}" if event.get("reason") else ""
        return f"{who} concedes{why}"
    if t == "penalty":
        why = f": {_word(event['reason'])}" if event.get("reason") else ""
        given = _word(event.get("kind", "?")).replace("_", " ")
        count = event.get("prizes")
        if isinstance(count, int) and not isinstance(count, bool):
            given += f" of {count} prize{'' if count == 1 else 's'}"
        return f"Penalty for {who}: {given}{why}"
    if t == "time_called":
        return "Time is called"
    if t == "effect_result":
        verb = "wins" if event.get("wins") is True else "loses"
        return f"{who} {verb} by the effect of {names.card(event.get('card'))}"
    if t == "game_ended":
        why = f" ({_word(event['reason'])})" if event.get("reason") else ""
        if event.get("outcome") == "win":
            return f"The source reports: {_word(event.get('winner'))} wins{why}"
        return f"The source reports: {_word(event.get('outcome', '?')).replace('_', ' ')}{why}"
    if t == "correction":
        return _correction(event, names, earlier or {})
    if t == "note":
        by = f" by {_word(event['author'])}" if event.get("author") else ""
        text = _word(event.get("text", ""))
        return f"Note{by}: {text}" if text else f"Note{by}"  # a public view has no free text
    if t == "discarded":
        if isinstance(event.get("pid"), str):
            return f"{who} discards {_what(event, names)} attached to {mon}"
        return f"{who} discards {_what(event, names)} from {_zone(event.get('from', 'hand'))}"
    if t == "trainer_played":
        card = event.get("card")
        kind = TRAINER_KINDS.get(card.get("kind", "")) if isinstance(card, Mapping) else None
        return f"{who} plays {'the ' + kind + ' ' if kind else ''}{names.card(card)}"
    if t == "searched":
        return f"{who} searches the deck and puts {_what(event, names)} into the hand"
    if t == "to_hand":
        return f"{who} puts {_what(event, names)} from {_zone(event.get('from'))} into the hand"
    if t == "shuffled":
        zone = _zone(event.get("zone"))
        if event.get("from"):
            return f"{who} shuffles {_what(event, names)} from {_zone(event['from'])} into {zone}"
        return f"{who} shuffles {zone}"
    plain = [
        f"{k} {_word(v)}" for k, v in event.items() if k not in ("match", "seq", "type") and _word(v) != "?"
    ]
    return f"Event “{_word(t)}”" + (f" ({', '.join(plain)})" if plain else "")


def _correction(event: Event, names: _Names, earlier: Mapping[Any, Event]) -> str:
    """A correction as a sentence: who made it (its ``author``; never assumed: during the game the
    match's own recorder corrects it too, after the end only a judge may, streams/http/ownership.py),
    what it corrects, and for an amendment each value it changes, in words."""
    by = f" by {_word(event['author'])}" if isinstance(event.get("author"), str) and event["author"] else ""
    target = event.get("target")
    original = earlier.get(target)
    was = f" (“{describe(original, names)}”)" if original is not None else ""
    if event.get("action") == "void":
        return f"Correction{by}: seq {_word(target)}{was} is void"
    replacement = event.get("event")
    if event.get("action") != "amend":
        return f"Correction{by}: seq {_word(target)} {_word(event.get('action', '?'))}"
    if not isinstance(replacement, Mapping):  # a public view without the replacement's fields
        return f"Correction{by}: seq {_word(target)}{was} is amended"
    changed = {k: v for k, v in replacement.items() if k not in ("match", "seq")}
    if original is None:  # not archived before it: the replacement read on its own
        if "type" in changed:
            return f"Correction{by}: seq {_word(target)} is amended to “{describe(dict(changed), names)}”"
        fields = ", ".join(f"{k.replace('_', ' ')} {_word(v)}" for k, v in changed.items())
        return f"Correction{by}: seq {_word(target)} is amended: {fields or 'no change'}"
    values = ", ".join(
        f"{k.replace('_', ' ')} {_word(original[k])} → {_word(v)}" if k in original else f"{k} {_word(v)}"
        for k, v in changed.items()
    )
    now = describe({**original, **changed}, names)
    return f"Correction{by}: seq {_word(target)} is amended ({values or 'no change'}): “{now}”"


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


REASONS: dict[str, str] = {
    "prizes": "took every Prize card needed",
    "no_pokemon": "the opponent had no Pokémon left in play",
    "deck_out": "the opponent could not draw at the start of their turn",
    "concession": "the opponent conceded",
    "penalty": "a penalty",
    "effect": "a card effect",
    "simultaneous": "both players met a win condition at once",
    "playoff": "the playoff game",
    "time": "time was called",
    "double_loss": "a loss for both players",
}


def _mark(out: Mapping[str, Any], names: _Names, kos: dict[str, int]) -> dict[str, Any] | None:
    """A derived output as a mark on its line (None for outputs the list does not show)."""
    t = out.get("type")
    if t == "ko":
        pid = out.get("pid")
        kos[_word(out.get("owner"))] = kos.get(_word(out.get("owner")), 0) + 1
        n = sum(kos.values())
        text = (
            f"Knockout #{n}: {names.mon(pid)}, {_word(out.get('owner'))}'s "
            f"(gives {_n(out.get('prizes'), 'prize')}, {_word(out.get('window'))} window)"
        )
        return {"kind": "ko", "pid": pid, "n": n, "text": text}
    if t == "prizes_due":
        return {"kind": "prize", "text": f"{_word(out.get('player'))} takes {_n(out.get('count'), 'prize')}"}
    if t == "promotion_due":
        return {"kind": "promotion", "text": f"{_word(out.get('player'))} must promote a new Active"}
    if t == "deck_out":
        return {"kind": "decision", "text": f"Deck-out: {_word(out.get('player'))} cannot draw"}
    if t == "game_over":
        winner = f", {_word(out.get('winner'))} wins" if out.get("winner") else ""
        outcome = _word(out.get("outcome")).replace("_", " ")
        return {"kind": "decision", "text": f"Game over: {outcome}{winner} ({_word(out.get('reason'))})"}
    if t == "playoff_required":
        child = out.get("child")
        kind = _word(out.get("playoff")).replace("_", " ")
        return {
            "kind": "decision",
            "text": f"Playoff required: {kind} {_word(child)}",
            "child": child if isinstance(child, str) else None,
        }
    if t == "finding":
        code = _word(out.get("code"))
        mark = {
            "kind": "finding",
            "severity": out.get("severity"),
            "code": code,
            "text": f"{code}: {_word(out.get('message'))}",
            "rule": rule_ref(code),
        }
        if isinstance(out.get("detail"), str):
            mark["detail"] = out["detail"]  # judge-only (decisions.md item 2): the review page is
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
        game = Game()
        for ev in events:
            game.apply(ev)
        timeline = game.resolved().timeline
    by_seq: dict[int, list[Mapping[str, Any]]] = {}
    for out in timeline:
        if isinstance(out.get("seq"), int):
            by_seq.setdefault(out["seq"], []).append(out)
    names = _Names(lang=lang)
    kos: dict[str, int] = {}
    turn: Any = None
    player: Any = None
    counted = 0
    lines: list[dict[str, Any]] = []
    seen: set[int] = set()
    earlier: dict[Any, Event] = {}  # the archived events so far, by seq: what a correction corrects
    for i, (entry, ev) in enumerate(zip(entries, events, strict=True)):
        if ev.get("type") == "turn_started" and entry.kind == "event":
            counted += 1
            turn = ev.get("turn", counted)
            player = ev.get("player")
        seq = entry.position[0]
        hits = _attack_hits(events, i) if ev.get("type") == "attack" else ()
        text = sentence(ev, names, hits, earlier)
        if entry.kind == "event":
            earlier.setdefault(seq, ev)
        marks: list[dict[str, Any]] = []
        if entry.kind == "event" and seq not in seen:
            seen.add(seq)
            marks = [m for out in by_seq.get(seq, []) if (m := _mark(out, names, kos)) is not None]
        lines.append(
            {
                "seq": seq,
                "position": list(entry.position),
                "kind": entry.kind,
                "type": ev.get("type"),
                "turn": turn,
                "player": player,
                "text": text,
                "marks": marks,
            }
        )
    return lines
