"""A finished record's history (docs/records.md, "Versions"): what each stored version says.

Every change to a finished record is a new version that names the event that caused it; the store keeps
them all (:meth:`Store.versions`, :meth:`Store.version`). This module turns one stored version into the
public summary that ``GET /matches/{match}/versions`` answers, ``prizecheck show --history`` prints and
the review page lists: its number, its cause, the record's status and result, and its signature's status.

A record holds no hidden card (docs/http-api.md, ``GET /matches/{match}/record``), so neither does a
summary: it is a few fields of the record, and the signature checked against the service's own key.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from replay.engine import RecordError, Verifier
from replay.records import Record, from_msgpack, signature_valid
from streams.store import RecordVersion

SignatureStatus = Literal["valid", "invalid", "not_checked", "unsigned", "unreadable"]


def unpack_version(version: RecordVersion) -> Record | None:
    """The version's record as its typed value (:mod:`replay.records`), or None when its stored bytes are
    not a record."""
    try:
        return from_msgpack(version.record, match=version.cause_match)
    except RecordError:
        return None


def signature_status(record: Record, key: bytes | Verifier | None) -> SignatureStatus:
    """``valid`` / ``invalid`` against ``key``; ``not_checked`` when signed but there is no key to check it
    with; ``unsigned`` when the record carries no signature."""
    if record.signature is None:
        return "unsigned"
    if key is None:
        return "not_checked"
    sig = record.signature
    if not isinstance(key, bytes) and not key.knows(sig.alg, sig.key_id):
        return "not_checked"  # an HMAC record beside a key ring without the old secret: unknown, not forged
    return "valid" if signature_valid(record, key) else "invalid"


def summary(version: RecordVersion, key: bytes | Verifier | None) -> dict[str, Any]:
    """The public summary of one version (the ``VersionSummary`` of the OpenAPI document).

    ``key``: what to check the signature with (the service's public keys, or an HMAC secret; None: not
    checked). A version
    whose stored bytes are unreadable is still listed, with ``unreadable: true`` and nulls, so that one
    corrupt version does not hide the others.
    """
    record = unpack_version(version)
    out: dict[str, Any] = {
        "version": version.version,
        "cause": {"match": version.cause_match, "seq": version.cause_seq},
    }
    if record is None:
        return {
            **out,
            "status": None,
            "result": None,
            "agrees": None,
            "findings": None,
            "events": None,
            "signature": {"status": "unreadable", "key_id": None},
            "unreadable": True,
        }
    result = record.result
    sig = record.signature
    return {
        **out,
        "status": record.status,
        "result": (
            {
                "outcome": result.outcome,
                "winner": result.winner,
                "loser": result.loser,
                "reason": result.reason,
                "decided_at": result.decided_at,
                "turn": result.turn,
            }
            if result is not None
            else None
        ),
        "agrees": record.agrees,
        "findings": len(record.findings),
        "events": record.chain.events if record.chain else None,
        "signature": {
            "status": signature_status(record, key),
            "key_id": sig.key_id if sig is not None else None,
        },
    }


def result_text(result: Mapping[str, Any] | None) -> str:
    """One line for a summary's result: ``ash beat misty by penalty at seq 38``."""
    if not result:
        return "no result"
    at = f" at seq {result['decided_at']}" if result.get("decided_at") is not None else ""
    if result.get("outcome") == "win":
        return f"{result.get('winner')} beat {result.get('loser')} by {result.get('reason')}{at}"
    if result.get("outcome") == "draw":
        return f"draw ({result.get('reason')}){at}"
    return f"no winner ({result.get('reason')}){at}"
