"""Shared by the commands: loading event files and signing records with the configured key."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from replay.engine.chain import sign
from replay.engine.errors import InputError


def replayed_records(paths: list[str]) -> dict[str, dict[str, Any]]:
    """Every match's record from event files, settled from its playoff games (InputError names file, line
    and field). Only the records are kept, not the games or their events."""
    from replay.files import replay_files

    return {done.match: done.record for done in replay_files(paths)}


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


def read_records(paths: list[str]) -> list[dict[str, Any]]:
    """Records from JSON Lines files (as ``replay --json`` prints them); InputError names file and line."""
    out: list[dict[str, Any]] = []
    for path in paths:
        try:
            lines = Path(path).read_text("utf-8").splitlines()
        except OSError as exc:
            raise InputError(f"cannot read: {exc.strerror}", file=path) from None
        except UnicodeDecodeError:
            raise InputError("not UTF-8 JSON", file=path) from None
        for lineno, line in enumerate(lines, 1):
            if not line.strip():
                continue
            try:
                rec = json.loads(line)
            except json.JSONDecodeError as exc:
                raise InputError(f"not valid JSON: {exc.msg}", file=path, line=lineno) from None
            if not isinstance(rec, dict) or "match" not in rec or "chain" not in rec:
                raise InputError("not a Prizecheck record", file=path, line=lineno, field="match")
            out.append(rec)
    return out
