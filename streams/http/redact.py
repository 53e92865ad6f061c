"""What each role gets over HTTP: the whole, or the public projection (``replay.engine.public``).

The projection itself is the engine's (an allow-list of the fields each event type, each nested object
and the record may show; the league report and the board use the same one). This module decides, per
request, who gets which:

- a **judge** whose token covers the match (an unscoped judge, or one scoped to the match's league or
  event) gets events and records as stored, hidden cards, free text and findings' ``detail`` included;
  serving any of that is a ``read_hidden`` entry in the audit log;
- **every other caller** (the public, ingest, organizers, a judge outside its scope) gets the public
  projection: of each archived event, and of the record and each of its versions. A record with nothing
  to leave out is served as stored, byte for byte and signed; otherwise its projection, with
  ``"redacted": true`` and no signature (docs/http-api.md, "What each role sees").

Boards (and the live boards, the overlay) are public by construction: the engine builds them from counts
and the public result (``replay.engine.record.build_board``).
"""

from __future__ import annotations

from typing import Any

from aiohttp import web

from replay.engine import (
    EVENT_FIELDS,
    PUBLIC_ZONES,
    canonical_bytes,
    cards_are_public,
    dumps,
    public_event,
    public_record,
)
from streams.http.access import ACCESS, AUDIT_DETAIL, HIDDEN_SERVED, PRINCIPAL, match_scope

__all__ = [
    "EVENT_FIELDS",
    "PUBLIC_ZONES",
    "moved_is_public",
    "public_event",
    "public_record",
    "record_body",
    "sees_hidden",
]

moved_is_public = cards_are_public


async def sees_hidden(request: web.Request, match: str) -> bool:
    """Whether the caller may see the hidden information of ``match``: a judge, within its token's scope."""
    principal = request[PRINCIPAL]
    if "judge" not in principal.roles:
        return False
    if not principal.scoped:
        return True
    return principal.covers(*await match_scope(request.app[ACCESS].store, match))


async def record_body(
    request: web.Request, match: str, data: bytes, record: dict[str, Any], as_msgpack: bool
) -> bytes:
    """The bytes of a stored record (``data``, decoded: ``record``) that the caller may read, in JSON or
    msgpack. A judge's read of what the projection leaves out is audited (``read_hidden``)."""
    public = public_record(record)
    if not public.get("redacted"):
        return data if as_msgpack else dumps(record)
    if await sees_hidden(request, match):
        request[HIDDEN_SERVED] = True
        request[AUDIT_DETAIL] = f"record of {match} (what the public projection leaves out)"
        return data if as_msgpack else dumps(record)
    return canonical_bytes(public) if as_msgpack else dumps(public)
