"""The rules engine's one public face: everything outside ``replay/engine/`` imports from here, never from
the engine's modules (issue 41 item 2; the "one face" contract in pyproject.toml checks it).

The engine is rules only: events in, state, derived timeline and record out, pure and deterministic (no
I/O, clock or randomness; docs/engine-api.md). Behind this face, its modules (one per rule area, the
judgment, the state, the chain...) are free to change; in front of it, these names, by purpose:

- folding a game: :class:`Game` (its ``check_amendment``: the edge's validator of an amended event),
  :func:`steps_due` (what the rules ask for next; named so, not ``due``, as ``replay.engine.due`` is the
  module), the state and event log a game holds (:class:`State`, :class:`EventLog`), the public board of
  a state (:func:`build_board`), the rulesets (:data:`KNOWN_RULESETS`, :func:`load_ruleset`,
  :class:`Ruleset`), :data:`ENGINE_VERSION` and whether the engine runs compiled (:func:`compiled`);
- the record and its typed values (:class:`Record`, :class:`Finding`, :class:`Result`,
  :class:`Signature`) and the playoffs that settle records (:func:`link_records`, :func:`settle`,
  :func:`playoff_games`, :func:`playoff_stub`);
- what the public may see (:func:`public_event`, :func:`public_record`, :func:`cards_are_public`,
  :data:`EVENT_FIELDS`, :data:`PUBLIC_ZONES`);
- the words of findings and end reasons, for the catalogues and the pages (:data:`SENTENCES`,
  :data:`DETAIL_SENTENCES`, :data:`DETAIL_AFTER`, :data:`NOTE_SENTENCES`, :data:`PIECES`,
  :data:`SOURCE_FINDINGS`, :data:`REASON_KINDS`, :func:`reason_kind`) and the cards' effects the
  importers read (:data:`LIFTS`);
- the chain: canonical bytes, the hash chain and signatures (:func:`canonical_bytes`,
  :func:`canonical_of`, :data:`C_CANONICAL`, :func:`chain_head`, :data:`GENESIS`, :func:`dumps`,
  :func:`sign`, :func:`verify_signature`, :data:`HMAC_ALG`, :class:`Signer`, :class:`Verifier`);
- the errors every edge raises (:class:`InputError`, :class:`EventError`, :class:`RecordError`,
  :class:`RulesetError`);
- the C extension's MessagePack and timestamp scanners (:func:`frames`, :func:`span`,
  :func:`timestamps`): asking for one raises ImportError when the extension is not built (a plain-Python
  install), which its callers catch to use their Python fallbacks.

Every name is imported when first asked for (``__getattr__``): this package is imported before any of the
engine's modules, and a command's usage line must not load the engine, msgspec or the validator
(tests/cli/test_startup.py). The same imports, under ``TYPE_CHECKING``, are what mypy and the import
linter read. Tests may import the engine's modules directly, white-box, by rule area.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from replay.engine._link import frames, span, timestamps
    from replay.engine.card_effects import LIFTS
    from replay.engine.chain import (
        C_CANONICAL,
        GENESIS,
        HMAC_ALG,
        Signer,
        Verifier,
        canonical_bytes,
        canonical_of,
        chain_head,
        dumps,
        sign,
        verify_signature,
    )
    from replay.engine.due import due as steps_due
    from replay.engine.errors import EventError, InputError, RecordError, RulesetError
    from replay.engine.findings import (
        DETAIL_AFTER,
        DETAIL_SENTENCES,
        NOTE_SENTENCES,
        PIECES,
        SENTENCES,
        SOURCE_FINDINGS,
    )
    from replay.engine.game import Game
    from replay.engine.log import EventLog
    from replay.engine.outputs import ENGINE_VERSION, Finding, Record, Result, Signature
    from replay.engine.playoff import link_records, playoff_games, playoff_stub, settle
    from replay.engine.public import EVENT_FIELDS, PUBLIC_ZONES, cards_are_public, public_event, public_record
    from replay.engine.record import build_board
    from replay.engine.result import REASON_KINDS, reason_kind
    from replay.engine.ruleset import Ruleset, load_ruleset
    from replay.engine.ruleset_ids import KNOWN_RULESETS
    from replay.engine.state import State

# folding a game
__all__ = [
    "ENGINE_VERSION",
    "KNOWN_RULESETS",
    "EventLog",
    "Game",
    "Ruleset",
    "State",
    "build_board",
    "compiled",
    "load_ruleset",
    "steps_due",
]
# the record, its typed values, the playoffs
__all__ += [
    "Finding",
    "Record",
    "Result",
    "Signature",
    "link_records",
    "playoff_games",
    "playoff_stub",
    "settle",
]
# what the public may see
__all__ += ["EVENT_FIELDS", "PUBLIC_ZONES", "cards_are_public", "public_event", "public_record"]
# the words of findings and end reasons, the cards' effects
__all__ += [
    "DETAIL_AFTER",
    "DETAIL_SENTENCES",
    "LIFTS",
    "NOTE_SENTENCES",
    "PIECES",
    "REASON_KINDS",
    "SENTENCES",
    "SOURCE_FINDINGS",
    "reason_kind",
]
# the chain: canonical bytes, hash chain, signatures
__all__ += [
    "C_CANONICAL",
    "GENESIS",
    "HMAC_ALG",
    "Signer",
    "Verifier",
    "canonical_bytes",
    "canonical_of",
    "chain_head",
    "dumps",
    "sign",
    "verify_signature",
]
# the errors
__all__ += ["EventError", "InputError", "RecordError", "RulesetError"]
# the C extension's scanners (ImportError without it)
__all__ += ["frames", "span", "timestamps"]

# Each name's module (and its name there, when the face renames it).
_FACE: dict[str, tuple[str, str]] = {
    **{n: ("_link", n) for n in ("frames", "span", "timestamps")},
    "LIFTS": ("card_effects", "LIFTS"),
    **{
        n: ("chain", n)
        for n in (
            "C_CANONICAL",
            "GENESIS",
            "HMAC_ALG",
            "Signer",
            "Verifier",
            "canonical_bytes",
            "canonical_of",
            "chain_head",
            "dumps",
            "sign",
            "verify_signature",
        )
    },
    "steps_due": ("due", "due"),
    **{n: ("errors", n) for n in ("EventError", "InputError", "RecordError", "RulesetError")},
    **{
        n: ("findings", n)
        for n in (
            "DETAIL_AFTER",
            "DETAIL_SENTENCES",
            "NOTE_SENTENCES",
            "PIECES",
            "SENTENCES",
            "SOURCE_FINDINGS",
        )
    },
    "Game": ("game", "Game"),
    "EventLog": ("log", "EventLog"),
    **{n: ("outputs", n) for n in ("ENGINE_VERSION", "Finding", "Record", "Result", "Signature")},
    **{n: ("playoff", n) for n in ("link_records", "playoff_games", "playoff_stub", "settle")},
    **{
        n: ("public", n)
        for n in ("EVENT_FIELDS", "PUBLIC_ZONES", "cards_are_public", "public_event", "public_record")
    },
    "build_board": ("record", "build_board"),
    **{n: ("result", n) for n in ("REASON_KINDS", "reason_kind")},
    **{n: ("ruleset", n) for n in ("Ruleset", "load_ruleset")},
    "KNOWN_RULESETS": ("ruleset_ids", "KNOWN_RULESETS"),  # without the compiled engine: an option's choices
    "State": ("state", "State"),
}


def compiled() -> bool:
    """True when the engine runs compiled by mypyc (``make install`` builds it in place), False when it
    runs as plain Python (a wheel, or ``make install PRIZECHECK_COMPILE=0``)."""
    from replay.engine import game

    return not str(getattr(game, "__file__", "") or "").endswith(".py")


if not TYPE_CHECKING:  # mypy reads the imports above: a misspelt name stays an error, not Any

    def __getattr__(name: str) -> Any:
        where = _FACE.get(name)
        if where is None:
            raise AttributeError(f"module 'replay.engine' has no attribute {name!r}")
        value = getattr(import_module(f"replay.engine.{where[0]}"), where[1])
        globals()[name] = value  # once: the next look-up is the module's own
        return value
