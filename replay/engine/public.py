"""What a role without hidden information sees: the public projection of events, records and results.

Every view that roles other than a judge get (the archive as an organizer sees it, the record and its
versions as anyone reads them, the board, the live boards, the overlay, the league report) is built from
the lists below: the fields each event type shows, and the fields of each nested object (``source``,
``context``, a card, a Pokémon put into play, a finding, a result...). **Anything not listed is left out**:
a producer's extra fields at any depth, free text (a note's ``text``, ``conceded.reason``,
``penalty.reason``, ``game_ended.reason``), a correction's replacement event, a finding's ``detail``. A
new field is hidden until someone lists it here. A value of the wrong shape (an object where a name is
expected) is left out too, so nothing travels inside a listed field.

Hidden information in the contract (docs/events.md, docs/http-api.md "What each role sees"): the cards of
a hand, the deck and its order, prize identities. Cards become public when they go to or come from a
public zone (``discard``, ``lost_zone``, ``stadium``), when a move says ``revealed: true``, when they are
played (``played``, ``evolved``, ``attached``, ``setup``, ``trainer_played``) or when an effect names them
(``effect_result``, ``knocked_out.by``, the ``effect`` of ``evolved``, ``attached``, ``attack``, ``switched``,
``trainer_played`` and ``prize_taken``). A few fields of free-text type are shown only
when they hold one of the engine's own words (a vocabulary, not text): ``conceded.reason`` (``inactive``,
``timeout``) and ``game_ended.reason`` (the reasons of ``replay.engine.result.REASON_KINDS``).

The engine's findings follow the same rule (docs/records.md, "Findings"): a finding's ``message`` never
quotes free text, a card that may be hidden or a refused event's fields; those go to its ``detail``, which
this projection leaves out.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Final

from replay.engine.outputs import TIMEOUT_DETAILS
from replay.engine.result import REASON_KINDS

__all__ = [
    "EVENT_FIELDS",
    "LEFT_OUT",
    "PUBLIC_ZONES",
    "RECORD_FIELDS",
    "cards_are_public",
    "public_event",
    "public_finding",
    "public_record",
    "public_result",
]

PUBLIC_ZONES: Final = frozenset({"discard", "lost_zone", "stadium"})

# What a listed field may hold. SCALAR: a string, number, boolean or null as it is. NAMES: a list of
# strings. A dict: an object with those fields (``"*"``: any key, e.g. a player id, with that spec). A list
# of one spec: a list of such values. A Rule: shown when its test passes.
SCALAR: Final = "scalar"
NAMES: Final = "names"
ANY_KEY: Final = "*"


class Rule:
    """A field shown only when ``test(value, parent)`` holds: it sees the value and the object holding it."""

    def __init__(self, spec: Any, test: Callable[[Any, Mapping[str, Any]], bool], why: str) -> None:
        self.spec = spec
        self.test = test
        self.why = why


def cards_are_public(event: Mapping[str, Any]) -> bool:
    """A move of cards that both players see: shown (``revealed: true``), or to or from a public zone
    (``shuffled`` names its destination ``zone``)."""
    if event.get("revealed") is True:
        return True
    return any(event.get(k) in PUBLIC_ZONES for k in ("from", "to", "zone"))


def _public_move(value: Any, parent: Mapping[str, Any]) -> bool:
    return cards_are_public(parent)


def _concession_word(value: Any, parent: Mapping[str, Any]) -> bool:
    return value in TIMEOUT_DETAILS


def _reason_word(value: Any, parent: Mapping[str, Any]) -> bool:
    return isinstance(value, str) and value.lower() in REASON_KINDS


def _engine_detail(value: Any, parent: Mapping[str, Any]) -> bool:
    # A result's detail is the engine's own words (the penalty, the lead rule, the effect's card, which
    # effect_result shows), except a concession's: that is the conceded event's reason, free text.
    return parent.get("reason") != "concession" or value in TIMEOUT_DETAILS


CARDS_WHEN_PUBLIC: Final = Rule(NAMES, _public_move, "cards moved where both players see them")
CONCESSION_REASON: Final = Rule(SCALAR, _concession_word, "a concession's reason word (inactive, timeout)")
CLAIMED_REASON: Final = Rule(SCALAR, _reason_word, "a reason the engine knows (REASON_KINDS)")
RESULT_DETAIL: Final = Rule(SCALAR, _engine_detail, "the engine's own words")

# ---------------------------------------------------------------------------------- nested objects
POKEMON_CARD: Final[dict[str, Any]] = {"name": SCALAR, "hp": SCALAR, "rule": SCALAR, "prizes": SCALAR}
NAMED_CARD: Final[dict[str, Any]] = {"name": SCALAR}
KIND_CARD: Final[dict[str, Any]] = {"name": SCALAR, "kind": SCALAR}  # attached, trainer_played
IN_PLAY: Final[dict[str, Any]] = {"pid": SCALAR, "card": POKEMON_CARD}
#: match_started.source: the contract's fields and the ones the project's importers write (docs/importers.md).
SOURCE: Final[dict[str, Any]] = {
    "kind": SCALAR,
    "producer": SCALAR,
    "exporter": SCALAR,
    "reports_knockouts": SCALAR,
    "client": SCALAR,
    "hp_known": SCALAR,
    "language": SCALAR,
    "format": SCALAR,
    "tool": SCALAR,
}
CONTEXT: Final[dict[str, Any]] = {
    "league": SCALAR,
    "season": SCALAR,
    "event": SCALAR,
    "round": SCALAR,
    "table": SCALAR,
    "series": SCALAR,
    "game": SCALAR,
    "stage": SCALAR,
    "time_result": SCALAR,  # the event's own rule at time (double_loss): public, as the stage is
}

# ------------------------------------------------------------------------------------------ events
ENVELOPE: Final[dict[str, Any]] = {"match": SCALAR, "seq": SCALAR, "type": SCALAR, "at": SCALAR}

#: The fields each event type shows to every role, besides the envelope (``id``, the producer's own event
#: id, is not shown). A type not listed shows its envelope only.
EVENT_FIELDS: Final[dict[str, dict[str, Any]]] = {
    "match_started": {
        "players": NAMES,
        "first": SCALAR,
        "ruleset": SCALAR,
        "prizes": SCALAR,
        "source": SOURCE,
        "context": CONTEXT,
        "must_decide": SCALAR,
        "parent": SCALAR,
        "playoff": SCALAR,
    },  # deck (the deck's size) is left out, as before
    "setup": {"player": SCALAR, "active": IN_PLAY, "bench": [IN_PLAY], "mulligans": SCALAR},
    "turn_started": {"player": SCALAR, "turn": SCALAR, "deck": SCALAR},
    "drew": {"player": SCALAR, "count": SCALAR},
    "moved": {
        "player": SCALAR,
        "count": SCALAR,
        "from": SCALAR,
        "to": SCALAR,
        "revealed": SCALAR,
        "cards": CARDS_WHEN_PUBLIC,
    },
    "played": {"player": SCALAR, "pid": SCALAR, "card": POKEMON_CARD, "to": SCALAR},
    "evolved": {"player": SCALAR, "pid": SCALAR, "card": POKEMON_CARD, "effect": SCALAR},
    # effect (attached, attack, switched, trainer_played): the card whose effect did it, used face up
    "attached": {"player": SCALAR, "pid": SCALAR, "card": KIND_CARD, "from": SCALAR, "effect": SCALAR},
    "attack": {"player": SCALAR, "pid": SCALAR, "name": SCALAR, "effect": SCALAR},
    "damage": {"pid": SCALAR, "amount": SCALAR, "by": SCALAR},
    "healed": {"pid": SCALAR, "amount": SCALAR},
    "attack_ended": {},
    "condition": {"pid": SCALAR, "condition": SCALAR, "on": SCALAR},
    "turn_ended": {"player": SCALAR},
    "checkup_started": {},
    "checkup_ended": {},
    "switched": {"player": SCALAR, "pid": SCALAR, "effect": SCALAR},
    "promoted": {"player": SCALAR, "pid": SCALAR},
    "removed": {"player": SCALAR, "pid": SCALAR, "to": SCALAR},
    "knocked_out": {"pid": SCALAR, "player": SCALAR, "by": SCALAR},
    # effect: the card whose effect made the player take them (decisions: prize_taken.effect)
    "prize_taken": {"player": SCALAR, "count": SCALAR, "effect": SCALAR},
    "prize_modifier": {"pid": SCALAR, "delta": SCALAR},
    "conceded": {"player": SCALAR, "reason": CONCESSION_REASON},
    "penalty": {"player": SCALAR, "kind": SCALAR, "prizes": SCALAR},  # prizes: a prize penalty's count
    "time_called": {},
    "effect_result": {"player": SCALAR, "wins": SCALAR, "card": NAMED_CARD},
    "game_ended": {"outcome": SCALAR, "winner": SCALAR, "reason": CLAIMED_REASON},
    # author: who made it, as the service that took it names its writer (a token's role and name)
    "correction": {"target": SCALAR, "action": SCALAR, "author": SCALAR},
    "note": {"author": SCALAR},
    "discarded": {"player": SCALAR, "count": SCALAR, "cards": NAMES, "from": SCALAR, "pid": SCALAR},
    "trainer_played": {"player": SCALAR, "card": KIND_CARD, "effect": SCALAR},
    "searched": {"player": SCALAR, "count": SCALAR},
    "to_hand": {"player": SCALAR, "count": SCALAR, "from": SCALAR, "cards": CARDS_WHEN_PUBLIC},
    "shuffled": {
        "player": SCALAR,
        "zone": SCALAR,
        "from": SCALAR,
        "count": SCALAR,
        "cards": CARDS_WHEN_PUBLIC,
    },
}
#: The contract's fields (schemas/events.schema.json) that no role but a judge sees, so that every field of
#: the contract is decided: listed above, or here (tests/streams/http/test_hidden.py checks both lists
#: against the schema).
LEFT_OUT: Final[dict[str, tuple[str, ...]]] = {
    "*": ("id",),  # the producer's own event id, for its logs
    "match_started": ("deck",),
    "drew": ("cards",),  # a hand
    "searched": ("cards",),  # deck to hand: a hand (whether the effect reveals them, the event does not say)
    "penalty": ("reason",),  # free text
    "correction": ("event",),  # the replacement fields: anything, hidden cards included
    "note": ("text",),  # free text
}
_EVENT_SPECS: Final[dict[str, dict[str, Any]]] = {k: {**ENVELOPE, **v} for k, v in EVENT_FIELDS.items()}
#: Types whose hidden ``cards`` still tell how many moved.
_COUNTED: Final = frozenset({"drew", "moved", "searched", "to_hand", "shuffled"})

# ----------------------------------------------------------------------------------------- records
FINDING: Final[dict[str, Any]] = {"code": SCALAR, "severity": SCALAR, "seq": SCALAR, "message": SCALAR}
RESULT: Final[dict[str, Any]] = {
    "outcome": SCALAR,
    "winner": SCALAR,
    "loser": SCALAR,
    "reason": SCALAR,
    "conditions": {ANY_KEY: NAMES},
    "decided_at": SCALAR,
    "turn": SCALAR,
    "detail": RESULT_DETAIL,
    "playoff": SCALAR,
    "drawn": {"reason": SCALAR, "decided_at": SCALAR},
}
#: The record's fields (docs/records.md) and what each shows. ``signature`` is kept only when nothing else
#: was left out: it signs the whole record, so it would not verify a projection.
RECORD_FIELDS: Final[dict[str, Any]] = {
    "match": SCALAR,
    "ruleset": SCALAR,
    "ruleset_version": SCALAR,
    "engine": SCALAR,
    "players": NAMES,
    "first": SCALAR,
    "context": CONTEXT,
    "source": SOURCE,
    "status": SCALAR,
    "result": RESULT,
    "claimed": {"outcome": SCALAR, "winner": SCALAR, "reason": CLAIMED_REASON},
    "agrees": SCALAR,
    "prizes": {ANY_KEY: {"taken": SCALAR, "needed": SCALAR, "remaining": SCALAR}},
    "knockouts": [
        {
            "seq": SCALAR,
            "pid": SCALAR,
            "owner": SCALAR,
            "card": SCALAR,
            "prizes": SCALAR,
            "window": SCALAR,
            "batch": SCALAR,
            "verified": SCALAR,
            "prizes_taken": SCALAR,
        }
    ],
    "findings": [FINDING],
    "penalties": [{"seq": SCALAR, "player": SCALAR, "kind": SCALAR, "prizes": SCALAR}],  # reason: free text
    "turn": SCALAR,
    "audit": {"basis": SCALAR, "unverified_knockouts": SCALAR},
    "parent": SCALAR,
    "children": NAMES,
    "playoff": {"kind": SCALAR, "prizes": SCALAR, "child": SCALAR},
    "playoff_of": {"kind": SCALAR, "parent": SCALAR},
    "chain": {"alg": SCALAR, "head": SCALAR, "events": SCALAR},
    "started_at": SCALAR,
    "provisional": SCALAR,
    "stub": SCALAR,
}


# -------------------------------------------------------------------------------------- projection
class _Dropped:
    """Nothing of a value is shown."""


DROPPED: Final = _Dropped()


def _scalar(value: Any) -> bool:
    return value is None or isinstance(value, str | int | float | bool)


def _keep(value: Any, spec: Any, parent: Mapping[str, Any]) -> tuple[Any, bool]:
    """(what ``spec`` shows of ``value``, or DROPPED; whether that is all of it)."""
    if isinstance(spec, Rule):
        if not spec.test(value, parent):
            return DROPPED, False
        return _keep(value, spec.spec, parent)
    if isinstance(spec, str):
        if spec == SCALAR:
            return (value, True) if _scalar(value) else (DROPPED, False)
        if isinstance(value, list) and all(isinstance(x, str) for x in value):
            return list(value), True
        return DROPPED, False
    if isinstance(spec, list):
        if not isinstance(value, list):
            return DROPPED, False
        items: list[Any] = []
        whole = True
        for item in value:
            kept, all_of_it = _keep(item, spec[0], parent)
            whole = whole and all_of_it
            if kept is not DROPPED:
                items.append(kept)
        return items, whole
    if value is None:
        return None, True
    if not isinstance(value, dict):
        return DROPPED, False
    return _object(value, spec)


def _object(value: Mapping[str, Any], spec: Mapping[str, Any]) -> tuple[dict[str, Any], bool]:
    out: dict[str, Any] = {}
    whole = True
    every = spec.get(ANY_KEY)
    for key, item in value.items():
        field_spec = spec.get(key, every) if isinstance(key, str) else None
        if field_spec is None:
            whole = False
            continue
        kept, all_of_it = _keep(item, field_spec, value)
        whole = whole and all_of_it
        if kept is not DROPPED:
            out[key] = kept
    return out, whole


def public_event(event: Mapping[str, Any]) -> dict[str, Any]:
    """The event as a role without hidden information sees it: the envelope and its type's listed fields
    (``"redacted": true`` when anything was left out, so a reader knows the archive is not the whole one).
    Hidden cards of a move still tell how many moved (``count``)."""
    kind = event.get("type")
    spec = _EVENT_SPECS.get(kind, ENVELOPE) if isinstance(kind, str) else ENVELOPE
    out, whole = _object(event, spec)
    if kind in _COUNTED and "cards" not in out and isinstance(event.get("cards"), list):
        out.setdefault("count", len(event["cards"]))  # how many is public; which is not
    if not whole:
        out["redacted"] = True
    return out


def public_result(result: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """A record's (or board's) ``result`` as every role sees it (a concession's free-text reason left out)."""
    if result is None:
        return None
    return _object(result, RESULT)[0]


def public_finding(finding: Mapping[str, Any]) -> dict[str, Any]:
    """A finding as every role sees it: code, severity, seq and its public message (never ``detail``)."""
    return _object(finding, FINDING)[0]


def public_record(record: Mapping[str, Any]) -> dict[str, Any]:
    """The record as a role without hidden information sees it (docs/http-api.md, "What each role sees").

    When nothing had to be left out, that is the record itself, signature included. Otherwise the listed
    fields only, ``"redacted": true`` and ``"signature": null``: the signature signs the whole record (the
    one judges get), so it could not verify the projection.
    """
    body = {k: v for k, v in record.items() if k != "signature"}
    out, whole = _object(body, RECORD_FIELDS)
    if whole:
        if "signature" in record:
            out["signature"] = record["signature"]
        return out
    out["signature"] = None
    out["redacted"] = True
    return out
