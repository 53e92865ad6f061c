"""Prizecheck's rules engine: Pokémon TCG game events in, state + derived timeline + record out.

The engine is pure and deterministic (no I/O, clock or randomness). See docs/engine-api.md.
"""

from __future__ import annotations

from collections.abc import Iterable
from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from replay.engine import ENGINE_VERSION, Game, compiled, link_records
    from replay.engine import steps_due as due

__all__ = ["ENGINE_VERSION", "Game", "compiled", "due", "link_records", "replay_events", "replay_records"]

# The engine's names, imported when first asked for: every ``replay.*`` module imports this package first,
# and the engine (with msgspec) is a third of a command's start, which ``prizecheck --help`` and a
# command's usage line never need (issue 40 item 2). Each is the engine's face's (replay.engine) name
# here, by its name there (``due`` is its ``steps_due``).
_LAZY = {
    "due": "steps_due",
    "ENGINE_VERSION": "ENGINE_VERSION",
    "Game": "Game",
    "compiled": "compiled",
    "link_records": "link_records",
}


def __getattr__(name: str) -> Any:
    there = _LAZY.get(name)
    if there is None:
        raise AttributeError(f"module 'replay' has no attribute {name!r}")
    value = getattr(import_module("replay.engine"), there)
    globals()[name] = value  # once: the next look-up is the module's own
    return value


def replay_events(events: Iterable[dict[str, Any]]) -> dict[str, Game]:
    """Fold events of any number of matches: grouped by match, ordered by seq (stable), applied.

    Matches appear in the order of their first event. The same fold as ``prizecheck replay`` over files
    (:func:`replay.files.fold_events`).
    """
    from replay.files import fold_events

    return fold_events(events)


def replay_records(events: Iterable[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Records of every match in ``events``, parents settled from their playoff children."""
    from replay.engine import link_records

    games = replay_events(events)
    return link_records({m: g.record() for m, g in games.items()})
