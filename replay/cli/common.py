"""Shared by the commands: loading event files and signing records with the configured key."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
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
    return list(iter_records(paths))


def iter_records(paths: list[str]) -> Iterator[dict[str, Any]]:
    """The records of JSON Lines files, one line in memory at a time (see :func:`read_records`).

    A file without any record (empty, or blank lines only) is bad input, as an event file without events
    is for ``replay``: InputError ``FILE: is empty: no records`` / ``FILE: holds no records``.
    """
    for path in paths:
        try:
            fh = open(path, "rb")  # noqa: SIM115  (closed below; a generator cannot hold a with across yields cleanly)
        except OSError as exc:
            raise InputError(f"cannot read: {exc.strerror or exc}", file=path) from None
        with fh:
            found = False
            for lineno, raw in enumerate(fh, 1):
                if not raw.strip():
                    continue
                try:
                    rec = json.loads(raw.decode("utf-8"))
                except UnicodeDecodeError:
                    raise InputError("not UTF-8 JSON", file=path, line=lineno) from None
                except json.JSONDecodeError as exc:
                    raise InputError(f"not valid JSON: {exc.msg}", file=path, line=lineno) from None
                except RecursionError:
                    raise InputError(
                        "not a Prizecheck record: nested far too deep", file=path, line=lineno
                    ) from None
                if not isinstance(rec, dict) or "match" not in rec or "chain" not in rec:
                    raise InputError("not a Prizecheck record", file=path, line=lineno, field="match")
                found = True
                yield rec
            if not found:
                raise InputError("holds no records" if fh.tell() else "is empty: no records", file=path)
