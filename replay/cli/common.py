"""Shared by the commands: loading event files and signing records with the configured key."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from replay.codec import read_events
from replay.engine.chain import sign
from replay.engine.errors import InputError


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
            except RecursionError:
                raise InputError(
                    "not a Prizecheck record: nested far too deep", file=path, line=lineno
                ) from None
            if not isinstance(rec, dict) or "match" not in rec or "chain" not in rec:
                raise InputError("not a Prizecheck record", file=path, line=lineno, field="match")
            out.append(rec)
    return out
