"""Shared by the commands: loading event files and signing records with the configured key."""

from __future__ import annotations

import os
from typing import Any

from replay.chain import sign
from replay.codec import read_events
from replay.errors import InputError


def load_events(paths: list[str]) -> list[dict[str, Any]]:
    """Every event of every file, validated (InputError names file, line and field)."""
    if not paths:
        raise InputError("no event files given (use - for stdin)")
    events: list[dict[str, Any]] = []
    for path in paths:
        events.extend(e for _, e in read_events(path))
    return events


def signing_key() -> tuple[bytes, str] | None:
    """(key, key_id) from PRIZECHECK_SIGNING_KEY / PRIZECHECK_KEY_ID, or None when unset."""
    key = os.environ.get("PRIZECHECK_SIGNING_KEY")
    if not key:
        return None
    return key.encode("utf-8"), os.environ.get("PRIZECHECK_KEY_ID", "default")


def maybe_sign(record: dict[str, Any]) -> dict[str, Any]:
    """Sign ``record`` when a signing key is configured."""
    key = signing_key()
    return sign(record, key[0], key[1]) if key else record
