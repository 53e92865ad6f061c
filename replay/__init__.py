"""Prizecheck's rules engine: Pokémon TCG game events in, state + derived timeline + record out.

The engine is pure and deterministic (no I/O, clock or randomness). See docs/engine-api.md.
"""

from __future__ import annotations

from collections.abc import Iterable
from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from replay.engine.due import due
    from replay.engine.game import ENGINE_VERSION, Game
    from replay.engine.playoff import link_records

__all__ = ["ENGINE_VERSION", "Game", "compiled", "due", "link_records", "replay_events", "replay_records"]

# The engine's names, imported when first asked for: every ``replay.*`` module imports this package first,
# and the engine (with msgspec) is a third of a command's start, which ``prizecheck --help`` and a
# command's usage line never need (issue 40 item 2).
_LAZY = {
    "due": "replay.engine.due",
    "ENGINE_VERSION": "replay.engine.game",
    "Game": "replay.engine.game",
    "link_records": "replay.engine.playoff",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'replay' has no attribute {name!r}")
    value = getattr(import_module(module), name)
    globals()[name] = value  # once: the next look-up is the module's own
    return value


def compiled() -> bool:
    """True when the engine runs compiled by mypyc (``make install`` builds it in place), False when it
    runs as plain Python (a wheel, or ``make install PRIZECHECK_COMPILE=0``)."""
    from replay.engine import game

    return not str(getattr(game, "__file__", "") or "").endswith(".py")


def replay_events(events: Iterable[dict[str, Any]]) -> dict[str, Game]:
    """Fold events of any number of matches: grouped by match, ordered by seq (stable), applied.

    Matches appear in the order of their first event. The same fold as ``prizecheck replay`` over files
    (:func:`replay.files.fold_events`).
    """
    from replay.files import fold_events

    return fold_events(events)


def replay_records(events: Iterable[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Records of every match in ``events``, parents settled from their playoff children."""
    from replay.engine.playoff import link_records

    games = replay_events(events)
    return link_records({m: g.record() for m, g in games.items()})
