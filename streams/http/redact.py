"""What a role that may not see hidden cards gets of an event: an allowlist projection.

Hidden information in the contract's events (docs/events.md): the cards of a hand (``drew.cards``, a
``moved`` between hidden zones), prize identities (``moved`` from or to ``prizes``), the deck and its
order (``match_started.deck``, ``moved`` to or from ``deck``), and anything a producer added that the
contract does not define (extra fields, a judge's ``note`` text, a correction's replacement event).

Cards become public when they are played (``played``, ``evolved``, ``attached``, ``setup``: in play), when
they go to or come from a public zone (``discard``, ``lost_zone``, ``stadium``: discarded, used), when a
``moved`` says ``revealed: true`` (shown to both players), or when a card effect names its card
(``effect_result``). So the projection keeps, for each event type, only the fields that are public, and
for ``moved`` keeps ``cards`` only when the move is public. It is an allowlist: a field nobody listed here
never leaves, so a new field is hidden until someone decides it is public.
"""

from __future__ import annotations

from typing import Any

PUBLIC_ZONES = frozenset({"discard", "lost_zone", "stadium"})
_ENVELOPE = ("match", "seq", "type", "at")

#: The fields each type may show to every role (besides the envelope). ``moved.cards`` is decided apart.
PUBLIC_FIELDS: dict[str, tuple[str, ...]] = {
    "match_started": (
        "players",
        "first",
        "ruleset",
        "prizes",
        "source",
        "context",
        "must_decide",
        "parent",
        "playoff",
    ),
    "setup": ("player", "active", "bench", "mulligans"),
    "turn_started": ("player", "turn", "deck"),
    "drew": ("player", "count"),
    "moved": ("player", "count", "from", "to", "revealed"),
    "played": ("player", "pid", "card", "to"),
    "evolved": ("player", "pid", "card"),
    "attached": ("player", "pid", "card"),
    "attack": ("player", "pid", "name"),
    "damage": ("pid", "amount", "by"),
    "healed": ("pid", "amount"),
    "attack_ended": (),
    "condition": ("pid", "condition", "on"),
    "turn_ended": ("player",),
    "checkup_started": (),
    "checkup_ended": (),
    "switched": ("player", "pid"),
    "promoted": ("player", "pid"),
    "removed": ("player", "pid", "to"),
    "knocked_out": ("pid", "player"),
    "prize_taken": ("player", "count"),
    "prize_modifier": ("pid", "delta"),
    "conceded": ("player",),
    "penalty": ("player", "kind", "reason"),
    "time_called": (),
    "effect_result": ("player", "wins", "card"),
    "game_ended": ("outcome", "winner", "reason"),
    "correction": ("target", "action"),
    "note": ("author",),
}


def moved_is_public(event: dict[str, Any]) -> bool:
    """A move whose cards both players see: to or from a public zone, or declared revealed."""
    return (
        event.get("revealed") is True or event.get("from") in PUBLIC_ZONES or event.get("to") in PUBLIC_ZONES
    )


def public_event(event: dict[str, Any]) -> dict[str, Any]:
    """The event as a role without hidden information sees it (``"redacted": true`` when anything was
    left out, so a reader knows the archive it reads is not the whole one)."""
    kind = event.get("type")
    allowed = PUBLIC_FIELDS.get(kind) if isinstance(kind, str) else None
    out: dict[str, Any] = {k: event[k] for k in _ENVELOPE if k in event}
    for key in allowed or ():
        if key in event:
            out[key] = event[key]
    if kind == "moved" and "cards" in event and moved_is_public(event):
        out["cards"] = event["cards"]
    if kind in ("drew", "moved") and "cards" not in out and isinstance(event.get("cards"), list):
        out.setdefault("count", len(event["cards"]))  # how many is public; which is not
    if len(out) != len(event):
        out["redacted"] = True
    return out
