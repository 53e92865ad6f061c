"""The per-match hash chain, the canonical encodings (events as MessagePack, records as JSON) and record
signatures.

Every archived event is chained: ``head = sha256(previous_head + canonical_bytes(event))``, starting from
32 zero bytes. The canonical bytes are the event's MessagePack with map keys sorted at every level, so the
same event gives the same bytes whether it arrived as JSON or as MessagePack.
"""

from __future__ import annotations

import hashlib
import hmac
import json
from collections.abc import Callable, Mapping
from typing import Any, Final

import msgspec

GENESIS: Final = bytes(32)
_ENCODER: Final = msgspec.msgpack.Encoder(order="deterministic")

# sha256(head + canonical) in one C call (replay/engine/_link.c, built by make install): hashlib's digest
# costs several times more per call under OpenSSL 3. The same bytes; hashlib without it (a plain-Python
# install).


def _c_link() -> Callable[[bytes, bytes], bytes] | None:
    try:
        from replay.engine._link import link
    except ImportError:
        return None
    return link


C_LINK: Final = _c_link()


def _c_canonical() -> Callable[[bytes], bool] | None:
    try:
        from replay.engine._link import canonical
    except ImportError:
        return None
    return canonical


# canonical(raw): is raw already the canonical MessagePack of what it decodes to? Then the chain hashes
# raw as it is, without encoding the decoded event again (a producer that sorts its keys, as
# ``prizecheck produce`` does, saves every consumer that step). Without the C extension: never, encode.
C_CANONICAL: Final = _c_canonical()


def canonical_bytes(event: Mapping[str, Any]) -> bytes:
    """The event's canonical MessagePack: keys sorted at every level.

    Integers beyond MessagePack's 64 bits (JSON allows them, in fields the contract does not limit) are
    encoded as ``{"$bigint": "<decimal>"}``, so that every schema-valid event has canonical bytes.
    """
    try:
        return _ENCODER.encode(event)
    except OverflowError:
        return _ENCODER.encode(_big_ints(event))


def _big_ints(value: Any) -> Any:
    if isinstance(value, bool):
        return value
    if isinstance(value, int):
        return value if -(2**63) <= value < 2**64 else {"$bigint": str(value)}
    if isinstance(value, Mapping):
        return {k: _big_ints(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_big_ints(v) for v in value]
    return value


def canonical_of(raw: bytes, event: Mapping[str, Any]) -> bytes:
    """The canonical bytes of ``event``, which was decoded from the MessagePack ``raw``: ``raw`` itself
    when it is canonical already (checked in C; byte for byte what :func:`canonical_bytes` would give),
    else the event encoded."""
    if C_CANONICAL is not None and C_CANONICAL(raw):
        return raw
    return canonical_bytes(event)


def link(head: bytes, canonical: bytes) -> bytes:
    """The next chain head after ``head`` for an event with these canonical bytes."""
    if C_LINK is not None:
        return C_LINK(head, canonical)
    return hashlib.sha256(head + canonical).digest()


def chain_head(events: list[Mapping[str, Any]]) -> str:
    """Hex head of the chain over ``events`` in the given order (for offline verification)."""
    head = GENESIS
    for event in events:
        head = link(head, canonical_bytes(event))
    return head.hex()


def dumps(obj: Any) -> bytes:
    """Canonical JSON: sorted keys, no spaces, UTF-8. Records rebuilt from the same events are identical."""
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def _signed_bytes(record: Mapping[str, Any]) -> bytes:
    unsigned = {k: v for k, v in record.items() if k != "signature"}
    return dumps(unsigned)


def sign(record: Mapping[str, Any], key: bytes, key_id: str) -> dict[str, Any]:
    """Return a copy of ``record`` with an HMAC-SHA256 ``signature`` over its canonical JSON."""
    value = hmac.new(key, _signed_bytes(record), hashlib.sha256).hexdigest()
    signed = dict(record)
    signed["signature"] = {"alg": "HMAC-SHA256", "key_id": key_id, "value": value}
    return signed


def verify_signature(record: Mapping[str, Any], key: bytes) -> bool:
    """True when the record's signature was made with ``key`` over exactly this record."""
    sig = record.get("signature")
    if not isinstance(sig, Mapping) or sig.get("alg") != "HMAC-SHA256":
        return False
    expected = hmac.new(key, _signed_bytes(record), hashlib.sha256).hexdigest()
    value = sig.get("value")
    return isinstance(value, str) and hmac.compare_digest(expected, value)
