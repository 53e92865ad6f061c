"""The review page's battle log: every archived event as a sentence with card names, grouped by turn.

:func:`battle_log` folds a match's archive once with the engine and returns one line per archived
entry, the way Showdown's replay viewer reads: ``Raging Bolt ex (b2) attacks Dragapult ex (a3) with
Bellowing Thunder: 240 damage``. Each line carries the turn as the source numbers it
(``turn_started.turn``; the engine's own count only where the source gives none) and its marks: the
knockouts, prizes, decisions and findings the engine derived at that seq, findings with the section of
docs/rules.md they rest on (:data:`RULE_OF_FINDING`).

Card names come from the events themselves; :func:`card_name` is the one place a name is looked up.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import msgpack

from replay import Game
from replay.sources.cards import display_name

Event = dict[str, Any]

# Which section of docs/rules.md (numbered as the rules reference the engine implements) a finding rests
# on. Findings about the stream itself (gaps, reused seqs, unknown ids) rest on the event contract, not a
# rule: they have no entry.
RULE_OF_FINDING: dict[str, str] = {
    "unknown_ruleset": "7",
    "turn_order": "6",
    "card_count": "6",
    "attack_first_turn": "6",
    "evolved_too_early": "6",
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
    "reason_mismatch": "1",
    "event_after_end": "1",
}
RULE_TITLES: dict[str, str] = {
    "1": "How a game is won or lost",
    "2": "When knockouts are checked",
    "3": "Knockout procedure",
    "4": "Simultaneous results",
    "5": "Pokémon Checkup",
    "6": "Tournament layer",
    "7": "Rulesets",
}


def rule_ref(code: str) -> dict[str, str] | None:
    """The docs/rules.md section a finding code rests on: ``{"section", "title", "href"}``, or None."""
    section = RULE_OF_FINDING.get(code)
    if section is None:
        return None
    top = section.split(".")[0]
    return {"section": section, "title": RULE_TITLES[top], "href": f"/rules#s{top}"}


def card_name(card: Any) -> str:
    """A card's display name from an event's card (``{"name": ...}``) or a bare name: its English name in
    the card catalogue (replay/sources/cards.py) where the catalogue knows the card, with the name as the
    source wrote it beside it when that differs (a localised log: ``Charizard ex (Glurak-ex)``)."""
    if isinstance(card, Mapping):
        card = card.get("name")
    if card in (None, ""):
        return "?"
    name = str(card)
    known = display_name(name)
    return name if known == name else f"{known} ({name})"


@dataclass
class _Names:
    """What each pid is called, as the events name it (kept after it leaves play, for the log)."""

    pids: dict[str, str] = field(default_factory=dict)

    def see(self, event: Event) -> None:
        t = event.get("type")
        if t == "setup":
            for slot in [event.get("active"), *(event.get("bench") or [])]:
                if isinstance(slot, Mapping) and isinstance(slot.get("pid"), str):
                    self.pids[slot["pid"]] = card_name(slot.get("card"))
        elif t in ("played", "evolved") and isinstance(event.get("pid"), str):
            self.pids[event["pid"]] = card_name(event.get("card"))

    def mon(self, pid: Any) -> str:
        if not isinstance(pid, str):
            return "?"
        name = self.pids.get(pid)
        return f"{name} ({pid})" if name else pid


def _n(count: Any, word: str) -> str:
    n = count if isinstance(count, int) else 1
    return f"{n} {word}{'' if n == 1 else 's'}"


def _cards(event: Event) -> str:
    cards = event.get("cards")
    if isinstance(cards, list) and cards:
        return ": " + ", ".join(card_name(c) for c in cards)
    return ""


def describe(event: Event, names: _Names, hits: Sequence[tuple[str, Any]] = ()) -> str:
    """One event as a sentence. ``hits`` are the (pid, amount) damage of an attack, for the attack line."""
    t = event.get("type")
    who = str(event.get("player", "?"))
    mon = names.mon(event.get("pid"))
    if t == "match_started":
        players = " vs ".join(str(p) for p in event.get("players") or [])
        return f"Match started: {players}; {event.get('first')} goes first ({event.get('ruleset')})"
    if t == "setup":
        bench = [names.mon(b.get("pid")) for b in event.get("bench") or [] if isinstance(b, Mapping)]
        active = event.get("active") or {}
        text = f"{who} sets up {names.mon(active.get('pid'))} as Active"
        if bench:
            text += ", Bench " + ", ".join(bench)
        if event.get("mulligans"):
            text += f" ({_n(event['mulligans'], 'mulligan')})"
        return text
    if t == "turn_started":
        deck = f" (deck {event['deck']})" if "deck" in event else ""
        return f"{who}'s turn starts{deck}"
    if t == "drew":
        return (
            f"{who} draws {_n(event.get('count', len(event.get('cards') or []) or 1), 'card')}{_cards(event)}"
        )
    if t == "moved":
        count = event.get("count", len(event.get("cards") or []) or 1)
        return f"{who} moves {_n(count, 'card')} from {event.get('from')} to {event.get('to')}{_cards(event)}"
    if t == "played":
        return f"{who} plays {mon} to the {event.get('to', 'bench').capitalize()}"
    if t == "evolved":
        return f"{who} evolves {event.get('pid')} into {card_name(event.get('card'))}"
    if t == "attached":
        return f"{who} attaches {card_name(event.get('card'))} to {mon}"
    if t == "attack":
        attack = f" with {event['name']}" if event.get("name") else ""
        if len(hits) == 1:
            pid, amount = hits[0]
            return f"{mon} attacks {names.mon(pid)}{attack}: {amount} damage"
        if hits:
            dealt = ", ".join(f"{amount} to {names.mon(pid)}" for pid, amount in hits)
            return f"{mon} attacks{attack}: {dealt}"
        return f"{mon} attacks{attack}"
    if t == "damage":
        by = f" from {names.mon(event['by'])}" if isinstance(event.get("by"), str) else ""
        return f"{mon} takes {event.get('amount')} damage{by}"
    if t == "healed":
        return f"{mon} is healed by {event.get('amount')}"
    if t == "attack_ended":
        return "The attack ends"
    if t == "condition":
        state = "is now" if event.get("on", True) else "is no longer"
        return f"{mon} {state} {str(event.get('condition', '?')).capitalize()}"
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
        return f"{mon} leaves play to the {event.get('to', '?')}"
    if t == "knocked_out":
        return f"{mon} is Knocked Out (the source says)"
    if t == "prize_taken":
        return f"{who} takes {_n(event.get('count', 1), 'Prize card')}"
    if t == "prize_modifier":
        delta = event.get("delta", 0)
        more = "more" if isinstance(delta, int) and delta > 0 else "fewer"
        return f"{mon} gives {abs(delta) if isinstance(delta, int) else delta} {more} Prize cards"
    if t == "conceded":
        return f"{who} concedes"
    if t == "penalty":
        why = f": {event['reason']}" if event.get("reason") else ""
        return f"Penalty for {who}: {str(event.get('kind', '?')).replace('_', ' ')}{why}"
    if t == "time_called":
        return "Time is called"
    if t == "effect_result":
        verb = "wins" if event.get("wins") else "loses"
        return f"{who} {verb} by the effect of {card_name(event.get('card'))}"
    if t == "game_ended":
        why = f" ({event['reason']})" if event.get("reason") else ""
        if event.get("outcome") == "win":
            return f"The source reports: {event.get('winner')} wins{why}"
        return f"The source reports: {str(event.get('outcome', '?')).replace('_', ' ')}{why}"
    if t == "correction":
        return f"Judge's correction: seq {event.get('target')} {event.get('action', '?')}"
    if t == "note":
        by = f" by {event['author']}" if event.get("author") else ""
        return f"Note{by}: {event.get('text', '')}"
    rest = {k: v for k, v in event.items() if k not in ("match", "seq", "type")}
    return f"{t}: {rest}"


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
    if t == "ko":
        pid = out.get("pid")
        kos[str(out.get("owner"))] = kos.get(str(out.get("owner")), 0) + 1
        n = sum(kos.values())
        text = (
            f"Knockout #{n}: {names.mon(pid)}, {out.get('owner')}'s "
            f"(gives {_n(out.get('prizes'), 'prize')}, {out.get('window')} window)"
        )
        return {"kind": "ko", "pid": pid, "n": n, "text": text}
    if t == "prizes_due":
        return {"kind": "prize", "text": f"{out.get('player')} takes {_n(out.get('count'), 'prize')}"}
    if t == "promotion_due":
        return {"kind": "promotion", "text": f"{out.get('player')} must promote a new Active"}
    if t == "deck_out":
        return {"kind": "decision", "text": f"Deck-out: {out.get('player')} cannot draw"}
    if t == "game_over":
        winner = f", {out.get('winner')} wins" if out.get("winner") else ""
        return {"kind": "decision", "text": f"Game over: {out.get('outcome')}{winner} ({out.get('reason')})"}
    if t == "playoff_required":
        return {"kind": "decision", "text": f"Playoff required: {out.get('child')} ({out.get('playoff')})"}
    if t == "finding":
        code = str(out.get("code"))
        return {
            "kind": "finding",
            "severity": out.get("severity"),
            "code": code,
            "text": f"{code}: {out.get('message')}",
            "rule": rule_ref(code),
        }
    return None


def battle_log(entries: Sequence[Any]) -> list[dict[str, Any]]:
    """One line per archived entry (:class:`streams.store.ArchivedEvent`), in archive order.

    A line: ``seq``, ``position``, ``kind`` (event, conflict, late), ``type``, ``turn`` (the source's
    number; None before the first turn), ``player`` (whose turn), ``text`` and ``marks``.
    """
    events: list[Event] = []
    for entry in entries:
        ev = msgpack.unpackb(entry.data, raw=False, strict_map_key=False)
        events.append(ev if isinstance(ev, dict) else {"type": "?", "value": ev})
    game = Game()
    for ev in events:
        game.apply(ev)
    by_seq: dict[int, list[dict[str, Any]]] = {}
    for out in game.resolved().timeline:
        if isinstance(out.get("seq"), int):
            by_seq.setdefault(out["seq"], []).append(out)
    names = _Names()
    kos: dict[str, int] = {}
    turn: Any = None
    player: Any = None
    counted = 0
    lines: list[dict[str, Any]] = []
    seen: set[int] = set()
    for i, (entry, ev) in enumerate(zip(entries, events, strict=True)):
        names.see(ev)
        if ev.get("type") == "turn_started" and entry.kind == "event":
            counted += 1
            turn = ev.get("turn", counted)
            player = ev.get("player")
        seq = entry.position[0]
        marks: list[dict[str, Any]] = []
        if entry.kind == "event" and seq not in seen:
            seen.add(seq)
            marks = [m for out in by_seq.get(seq, []) if (m := _mark(out, names, kos)) is not None]
        hits = _attack_hits(events, i) if ev.get("type") == "attack" else ()
        lines.append(
            {
                "seq": seq,
                "position": list(entry.position),
                "kind": entry.kind,
                "type": ev.get("type"),
                "turn": turn,
                "player": player,
                "text": describe(ev, names, hits),
                "marks": marks,
            }
        )
    return lines
