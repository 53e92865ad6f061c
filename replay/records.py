"""The end-of-game record where it enters, decoded once into its typed value (docs/records.md).

A record reaches a reader from one of three places, and each is decoded here, once, into a
:class:`replay.engine.outputs.Record` (msgspec Structs checked against ``schemas/record.schema.json`` by
``tests/test_record_types.py``):

- the engine: ``Game.typed_record()`` is one already (:func:`replay.files.replay_files` yields it);
- a file: a line of ``prizecheck replay --json`` output, :func:`from_json_line`;
- Redis: the MessagePack the service stores, :func:`from_msgpack` (straight from the bytes, in C).

Every reader (the series, the report, the command line's summaries, the service's pages and version
history) reads the typed value's attributes; none indexes a dict by string keys. A record that is not one
(a wrong type, a missing field) is an :class:`replay.engine.errors.RecordError` naming where it came from
and the field, never a traceback or a silent drop.

The typed value is the record's JSON: ``to_json()`` gives the engine's record back field for field (and
:func:`dumps` its canonical bytes), so a record read here and printed again is byte-identical. A field
this version does not know is not part of the value: a signature is checked (:func:`signature_valid`)
over the record as this version reads it, which is the whole record for every record it writes
(``prizecheck verify`` checks a stored document byte for byte).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, Final

import msgpack
import msgspec

from replay.engine import Record, RecordError, Signature, Signer, Verifier, settle, sign, verify_signature
from replay.engine import dumps as _dumps

__all__ = [
    "Record",
    "dumps",
    "from_json_line",
    "from_mapping",
    "from_msgpack",
    "settled",
    "signature_valid",
    "signed",
    "unpack_record",
]

_MISSING: Final = re.compile(r"Object missing required field `([^`]*)`")
_MSGPACK: Final = msgspec.msgpack.Decoder(Record)
_JSON: Final = msgspec.json.Decoder(Record)


def _error(exc: msgspec.DecodeError, **where: Any) -> RecordError:
    """A decode error as a RecordError naming the field (``result.winner``) msgspec points at."""
    text = str(exc)
    message, _, path = text.partition(" - at `$")
    field = path.rstrip("`").lstrip(".") or None
    missing = _MISSING.fullmatch(message)
    if missing is not None:  # the field missing, not the object that misses it
        field = f"{field}.{missing[1]}" if field else missing[1]
    if not isinstance(exc, msgspec.ValidationError):
        message, field = f"not a record ({text})", None
    return RecordError(f"not a Prizecheck record: {message}", field=field, **where)


def from_msgpack(data: bytes, *, match: str | None = None) -> Record:
    """A stored record (the service's MessagePack) as its typed value; RecordError naming ``match`` and
    the field when the bytes are not a record."""
    try:
        return _MSGPACK.decode(data)
    except msgspec.DecodeError as exc:
        raise _error(exc, match=match) from None


def unpack_record(data: bytes | None) -> dict[str, Any] | None:
    """A stored record (its canonical msgpack, as the service stores it) as a dict, untyped: what the
    ingest core settles and signs, and what ``prizecheck check`` and the archive compare byte for byte.
    None for no bytes, or bytes that are not a map."""
    if data is None:
        return None
    obj = msgpack.unpackb(data, raw=False)
    return obj if isinstance(obj, dict) else None


def from_json_line(data: bytes, *, file: str | None = None, line: int | None = None) -> Record:
    """One line of ``prizecheck replay --json`` output as its typed value; RecordError naming the file,
    the line and the field when it is not a record."""
    try:
        return _JSON.decode(data)
    except msgspec.DecodeError as exc:
        raise _error(exc, file=file, line=line) from None


def from_mapping(doc: Any, *, match: str | None = None) -> Record:
    """A record already decoded as builtin types (JSON or MessagePack maps) as its typed value."""
    try:
        return Record.from_json(doc)
    except msgspec.ValidationError as exc:
        raise _error(exc, match=match) from None


def settled(records: Mapping[str, Record]) -> dict[str, Record]:
    """Every drawn game of ``records`` settled by its playoff games (the typed form of
    :func:`replay.engine.playoff.link_records`: the same records, not read again)."""
    return {match: settle(rec, records) for match, rec in records.items()}


def dumps(rec: Record) -> bytes:
    """The record's canonical JSON (sorted keys, no spaces, UTF-8): ``prizecheck replay --json``'s line."""
    return _dumps(rec.to_json())


def signed(rec: Record, key: bytes | Signer, key_id: str = "") -> Record:
    """``rec`` signed with ``key`` over its canonical JSON without the signature: an Ed25519 key
    (``replay.signing.SigningKey``), or an HMAC-SHA256 secret named ``key_id`` (:func:`sign`)."""
    doc = sign(rec.to_json(), key, key_id)
    sig = doc["signature"]
    return msgspec.structs.replace(rec, signature=Signature(sig["alg"], sig["key_id"], sig["value"]))


def signature_valid(rec: Record, key: bytes | Verifier) -> bool:
    """True when ``rec`` carries a signature made over exactly this record with ``key`` (an HMAC secret,
    or public keys: ``replay.signing.PublicKeys``)."""
    return rec.signature is not None and verify_signature(rec.to_json(), key)
