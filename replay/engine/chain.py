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
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Final, Protocol

import msgspec

GENESIS: Final = bytes(32)
#: The algorithm of a signature made with a shared secret (records signed before Ed25519).
HMAC_ALG: Final = "HMAC-SHA256"
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


def chain_head(events: Sequence[Mapping[str, Any]]) -> str:
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


class Signer(Protocol):
    """What signs: its algorithm (``Ed25519``), its key id, and the signature of some bytes.
    (``replay.signing.SigningKey``; the engine itself imports no cryptography.)"""

    @property
    def alg(self) -> str: ...

    @property
    def kid(self) -> str: ...

    def sign(self, data: bytes) -> str: ...


class Verifier(Protocol):
    """What checks signatures by algorithm and key id (``replay.signing.PublicKeys``)."""

    def verify(self, alg: str, kid: str, data: bytes, value: str) -> bool: ...

    def knows(self, alg: str, kid: str) -> bool:
        """Is there a key to check a signature of ``alg`` by ``kid`` with? (No: not checked, not invalid.)"""
        ...


def sign(record: Mapping[str, Any], key: bytes | Signer, key_id: str = "") -> dict[str, Any]:
    """Return a copy of ``record`` (any JSON document) with a ``signature`` over its canonical JSON
    without that field: ``{"alg", "key_id", "value"}``.

    ``key`` is a :class:`Signer` (an Ed25519 key: the signature names the signer's own key id, and
    ``key_id`` is not used), or the bytes of an HMAC-SHA256 secret named ``key_id`` (records signed before;
    only who holds the secret can check those).
    """
    data = _signed_bytes(record)
    if isinstance(key, bytes):
        sig = {"alg": HMAC_ALG, "key_id": key_id, "value": hmac.new(key, data, hashlib.sha256).hexdigest()}
    else:
        sig = {"alg": key.alg, "key_id": key.kid, "value": key.sign(data)}
    signed = dict(record)
    signed["signature"] = sig
    return signed


def verify_signature(record: Mapping[str, Any], key: bytes | Verifier) -> bool:
    """True when the record's signature was made over exactly this record with ``key``: the HMAC secret's
    bytes, or a :class:`Verifier` holding the key the signature names."""
    sig = record.get("signature")
    if not isinstance(sig, Mapping):
        return False
    alg, kid, value = sig.get("alg"), sig.get("key_id"), sig.get("value")
    if not isinstance(alg, str) or not isinstance(kid, str) or not isinstance(value, str):
        return False
    if isinstance(key, bytes):
        if alg != HMAC_ALG:
            return False
        expected = hmac.new(key, _signed_bytes(record), hashlib.sha256).hexdigest()
        return hmac.compare_digest(expected, value)
    return key.verify(alg, kid, _signed_bytes(record), value)
