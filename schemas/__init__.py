"""The public contract as JSON Schema (draft 2020-12), language-neutral.

- ``events.schema.json``: one event of a game's stream (docs/events.md); ``$defs/<type>`` checks one event
  type on its own, envelope included.
- ``record.schema.json``: the end-of-game record (docs/records.md).
- ``ruleset.schema.json``: the ruleset data files in ``replay/engine/rulesets/``.

``replay.contract.validate`` compiles these once and is the fast way to check data in Python.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

__all__ = ["SCHEMA_DIR", "load_schema", "schema_path"]

SCHEMA_DIR = Path(__file__).resolve().parent


def schema_path(name: str) -> Path:
    """Return the path of schema ``name``: ``"events"``, ``"events.schema.json"`` and the like.

    Raises ``FileNotFoundError`` if there is no such schema.
    """
    base = name.removesuffix(".json").removesuffix(".schema")
    path = SCHEMA_DIR / f"{base}.schema.json"
    if not path.is_file():
        known = ", ".join(
            sorted(p.name.removesuffix(".schema.json") for p in SCHEMA_DIR.glob("*.schema.json"))
        )
        raise FileNotFoundError(f"no schema named {name!r} (known: {known})")
    return path


def load_schema(name: str) -> dict[str, Any]:
    """Load schema ``name`` (see :func:`schema_path`) as a fresh dict the caller may modify."""
    with schema_path(name).open(encoding="utf-8") as f:
        doc = json.load(f)
    if not isinstance(doc, dict):
        raise ValueError(f"schema {name!r} is not a JSON object")
    return doc
