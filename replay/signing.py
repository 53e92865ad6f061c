"""Ed25519 signatures anyone can verify: the service's keys, their public document, write receipts.

Records, checkpoints, receipts (and whatever else calls :func:`replay.engine.chain.sign` with a
:class:`SigningKey`) are signed with Ed25519 (RFC 8032: deterministic, so a record rebuilt and signed
again with the same key gives the same bytes). Each signature names its key by a **key id**: the first 16
hex digits of the SHA-256 of the raw 32-byte public key, so an id cannot be given to another key.

**Keys** live in a directory (``PRIZECHECK_KEYS_DIR``, by default ``<data dir>/keys``): ``<kid>.pem``, a
private key (PKCS#8 PEM, mode 0600), or ``<kid>.pub``, a retired key kept only as its public key (SPKI
PEM); ``active`` names the key new signatures are made with. :meth:`KeyRing.rotate` makes a new key the
active one; the old ones stay, so every signature made before still verifies under its key id.

**The public document** (:meth:`PublicKeys.document`; served at ``/.well-known/prizecheck-keys.json``,
printed by ``prizecheck keys``) lists every key's id and raw public key (hex) and which one is active. It
is all ``prizecheck verify --keys FILE`` needs: no secret.

Records signed before, with HMAC-SHA256 (``PRIZECHECK_SIGNING_KEY``), stay readable: a
:class:`PublicKeys` given that secret (``hmac``) verifies them too, under their key id.

Why ``cryptography``: it is the Python Cryptographic Authority's binding to OpenSSL, maintained, with
wheels for every platform the project supports, and its Ed25519 is OpenSSL's (the standard library has
no public-key signature at all).
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Final

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from replay.engine import HMAC_ALG, dumps

__all__ = [
    "ALG",
    "KeyFileError",
    "KeyRing",
    "PublicKeys",
    "SigningKey",
    "key_id",
    "receipt",
    "verify_receipt",
]

#: The algorithm of every signature made now.
ALG: Final = "Ed25519"
#: The public document's format (its ``format`` field).
DOCUMENT_FORMAT: Final = "prizecheck-keys/1"
#: The file in a key directory naming the active key.
ACTIVE_FILE: Final = "active"
_KID: Final = re.compile(r"[0-9a-f]{16}")


class KeyFileError(ValueError):
    """A key file, key directory or public key document that cannot be read (the message names it)."""


def _raw(public: Ed25519PublicKey) -> bytes:
    return public.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)


def key_id(public: Ed25519PublicKey) -> str:
    """The key's id: the first 16 hex digits of the SHA-256 of its raw public key."""
    return hashlib.sha256(_raw(public)).hexdigest()[:16]


@dataclass(frozen=True)
class SigningKey:
    """An Ed25519 private key and its id: a :class:`replay.engine.chain.Signer`, and a
    :class:`replay.engine.chain.Verifier` with ``keys`` (its key ring's public keys and HMAC secrets; by
    default its own public key alone), so that one value both signs and checks what was signed before."""

    private: Ed25519PrivateKey
    kid: str = ""
    alg: str = ALG
    keys: PublicKeys | None = field(default=None, compare=False, repr=False)

    def __post_init__(self) -> None:
        if not self.kid:
            object.__setattr__(self, "kid", key_id(self.private.public_key()))

    @classmethod
    def generate(cls) -> SigningKey:
        """A new random key."""
        return cls(Ed25519PrivateKey.generate())

    @property
    def public(self) -> Ed25519PublicKey:
        return self.private.public_key()

    def sign(self, data: bytes) -> str:
        """The signature of ``data`` (hex, 128 digits)."""
        return self.private.sign(data).hex()

    def verify(self, alg: str, kid: str, data: bytes, value: str) -> bool:
        """:meth:`PublicKeys.verify` with ``keys`` (or this key alone)."""
        keys = self.keys if self.keys is not None else PublicKeys({self.kid: self.public}, self.kid)
        return keys.verify(alg, kid, data, value)

    def knows(self, alg: str, kid: str) -> bool:
        """:meth:`PublicKeys.knows` of the keys this key checks with."""
        keys = self.keys if self.keys is not None else PublicKeys({self.kid: self.public}, self.kid)
        return keys.knows(alg, kid)

    def secret(self, purpose: bytes) -> bytes:
        """A 32-byte secret for ``purpose`` derived from the private key: for what only the key's holder
        checks (the seals of held events), where a MAC is cheaper than a signature."""
        raw = self.private.private_bytes(
            serialization.Encoding.Raw, serialization.PrivateFormat.Raw, serialization.NoEncryption()
        )
        return hmac.new(raw, b"prizecheck\0" + purpose, hashlib.sha256).digest()


@dataclass
class PublicKeys:
    """The keys signatures are verified with, by key id: Ed25519 public keys, and the HMAC secrets of
    records signed before (``hmac``, kid -> secret; only the operator has those). A
    :class:`replay.engine.chain.Verifier`."""

    keys: dict[str, Ed25519PublicKey] = field(default_factory=dict)
    active: str | None = None
    hmac: dict[str, bytes] = field(default_factory=dict)

    def add(self, public: Ed25519PublicKey) -> str:
        kid = key_id(public)
        self.keys[kid] = public
        return kid

    def verify(self, alg: str, kid: str, data: bytes, value: str) -> bool:
        """True when ``value`` is the signature of ``data`` by the key ``kid`` under ``alg``."""
        if alg == ALG:
            public = self.keys.get(kid)
            if public is None:
                return False
            try:
                public.verify(bytes.fromhex(value), data)
            except (InvalidSignature, ValueError):
                return False
            return True
        if alg == HMAC_ALG:
            # An HMAC key id is the operator's label (PRIZECHECK_KEY_ID), not part of the secret: a record
            # signed under another label than today's is checked with every secret known, as before the
            # key ring (a service upgraded to Ed25519 without its old label still reads its old records).
            secrets = [self.hmac[kid]] if kid in self.hmac else list(self.hmac.values())
            return any(
                hmac.compare_digest(hmac.new(secret, data, hashlib.sha256).hexdigest(), value)
                for secret in secrets
            )
        return False

    def knows(self, alg: str, kid: str) -> bool:
        """Is there a key to check a signature of ``alg`` by ``kid`` with? (Any HMAC secret checks an HMAC
        signature, whatever its label.)"""
        if alg == HMAC_ALG:
            return bool(self.hmac)
        return kid in (self.keys if alg == ALG else {})

    def document(self) -> dict[str, Any]:
        """The public document (no secret): every key's id, algorithm, raw public key (hex) and status."""
        return {
            "format": DOCUMENT_FORMAT,
            "active": self.active,
            "keys": [
                {
                    "kid": kid,
                    "alg": ALG,
                    "public_key": _raw(pub).hex(),
                    "status": "active" if kid == self.active else "retired",
                }
                for kid, pub in sorted(self.keys.items())
            ],
        }

    @classmethod
    def from_document(cls, doc: Any, *, where: str = "the keys document") -> PublicKeys:
        """The keys of a public document (:meth:`document`); :class:`KeyFileError` naming what is wrong."""
        if not isinstance(doc, Mapping) or doc.get("format") != DOCUMENT_FORMAT:
            raise KeyFileError(f"{where}: not a Prizecheck keys document (format {DOCUMENT_FORMAT})")
        entries = doc.get("keys")
        if not isinstance(entries, list):
            raise KeyFileError(f"{where}: field keys: expected a list")
        out = cls(active=doc.get("active") if isinstance(doc.get("active"), str) else None)
        for n, entry in enumerate(entries):
            raw = entry.get("public_key") if isinstance(entry, Mapping) else None
            try:
                public = Ed25519PublicKey.from_public_bytes(
                    bytes.fromhex(raw if isinstance(raw, str) else "")
                )
            except ValueError:
                raise KeyFileError(
                    f"{where}: field keys[{n}].public_key: not a raw Ed25519 key in hex"
                ) from None
            kid = out.add(public)
            if entry.get("kid") != kid:  # the id is the key's digest: a document cannot relabel a key
                raise KeyFileError(
                    f"{where}: field keys[{n}].kid: {entry.get('kid')!r} is not this key's id {kid}"
                )
        return out

    @classmethod
    def from_file(cls, path: str) -> PublicKeys:
        """The public document in ``path`` (as ``prizecheck keys`` prints it, or the served one)."""
        try:
            with open(path, "rb") as fh:
                doc = json.loads(fh.read(1 << 20))
        except FileNotFoundError:
            raise KeyFileError(f"{path}: no such file") from None
        except OSError as exc:
            raise KeyFileError(f"{path}: cannot read: {exc.strerror or exc}") from None
        except ValueError as exc:
            raise KeyFileError(f"{path}: not JSON ({exc})") from None
        return cls.from_document(doc, where=path)


@dataclass
class KeyRing:
    """A key directory: the active signing key, and the public keys of every key it holds (retired ones
    included)."""

    path: str
    signer: SigningKey
    public: PublicKeys

    @classmethod
    def open(cls, path: str, *, create: bool) -> KeyRing | None:
        """The keys in ``path``; with ``create``, a first key is made when there is none. None when there
        is no key and ``create`` is false. :class:`KeyFileError` for a file that is not a key."""
        names = sorted(os.listdir(path)) if os.path.isdir(path) else []
        if not any(n.endswith(".pem") for n in names):
            if not create:
                return None
            os.makedirs(path, mode=0o700, exist_ok=True)
            _write_private(path, SigningKey.generate())
            names = sorted(os.listdir(path))
        public = PublicKeys()
        private: dict[str, SigningKey] = {}
        for name in names:
            kid, _, ext = name.partition(".")
            if ext not in ("pem", "pub"):
                continue
            where = os.path.join(path, name)
            with open(where, "rb") as fh:
                data = fh.read()
            try:
                if ext == "pem":
                    key = serialization.load_pem_private_key(data, password=None)
                    if not isinstance(key, Ed25519PrivateKey):
                        raise ValueError("not an Ed25519 key")
                    signer = SigningKey(key)
                    private[signer.kid] = signer
                    found = signer.kid
                    public.add(key.public_key())
                else:
                    pub = serialization.load_pem_public_key(data)
                    if not isinstance(pub, Ed25519PublicKey):
                        raise ValueError("not an Ed25519 key")
                    found = public.add(pub)
            except ValueError as exc:
                raise KeyFileError(f"{where}: not an Ed25519 key file ({exc})") from None
            if found != kid:
                raise KeyFileError(f"{where}: holds key {found}, not {kid} (the file is named by its key id)")
        active = _read_active(path) or max(private)  # no "active" file: a directory made by hand
        if active not in private:
            raise KeyFileError(
                f"{os.path.join(path, ACTIVE_FILE)}: names {active}, whose private key is not here"
            )
        public.active = active
        return cls(path, SigningKey(private[active].private, keys=public), public)

    def rotate(self) -> SigningKey:
        """Make a new key the active one; the old ones stay (their signatures still verify)."""
        new = SigningKey(Ed25519PrivateKey.generate(), keys=self.public)
        _write_private(self.path, new)
        self.signer = new
        self.public.add(new.public)
        self.public.active = new.kid
        return new


def _read_active(path: str) -> str | None:
    try:
        with open(os.path.join(path, ACTIVE_FILE), encoding="ascii") as fh:
            text = fh.read().strip()
    except FileNotFoundError:
        return None
    if not _KID.fullmatch(text):
        raise KeyFileError(f"{os.path.join(path, ACTIVE_FILE)}: not a key id: {text[:40]!r}")
    return text


def _write_private(path: str, key: SigningKey) -> None:
    """``<kid>.pem`` (0600, never replaced), then ``active`` replaced atomically: a crash between the two
    leaves the old key active and the new one unused."""
    pem = key.private.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )
    fd = os.open(os.path.join(path, f"{key.kid}.pem"), os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "wb") as fh:
        fh.write(pem)
        fh.flush()
        os.fsync(fh.fileno())
    tmp = os.path.join(path, f".{ACTIVE_FILE}.{os.getpid()}")
    with open(tmp, "w", encoding="ascii") as fh:
        fh.write(key.kid + "\n")
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, os.path.join(path, ACTIVE_FILE))


# ------------------------------------------------------------------------------------------ receipts

#: What a receipt's signature covers besides its fields: never the bytes of a record or checkpoint.
_RECEIPT: Final = b"prizecheck-receipt/1\0"
RECEIPT_FIELDS: Final = ("match", "seq", "events", "chain", "at")


def receipt(signer: SigningKey, *, match: str, seq: int, events: int, chain: str, at: str) -> dict[str, Any]:
    """A signed receipt: the service archived ``match`` up to ``seq`` (``events`` in order, chain head
    ``chain``) at ``at`` (RFC 3339, UTC). A producer keeps it; ``prizecheck verify --receipts`` checks it
    with the public keys alone, and with the match's events that they chain to ``chain``."""
    body = {"match": match, "seq": seq, "events": events, "chain": chain, "at": at}
    return {**body, "alg": signer.alg, "key_id": signer.kid, "value": signer.sign(_RECEIPT + dumps(body))}


def verify_receipt(doc: Any, keys: PublicKeys) -> str | None:
    """None when ``doc`` is a receipt signed by one of ``keys``, else what is wrong."""
    if not isinstance(doc, Mapping):
        return "not a receipt (a JSON object)"
    missing = [f for f in (*RECEIPT_FIELDS, "alg", "key_id", "value") if f not in doc]
    if missing:
        return f"not a receipt: no field {missing[0]}"
    alg, kid, value = doc["alg"], doc["key_id"], doc["value"]
    if alg != ALG or not isinstance(kid, str) or not isinstance(value, str):
        return f"not an {ALG} receipt"
    if not keys.knows(alg, kid):
        return f"signed by key {kid}, which the keys given do not list"
    body = {f: doc[f] for f in RECEIPT_FIELDS}
    if not keys.verify(alg, kid, _RECEIPT + dumps(body), value):
        return f"the signature does not verify under key {kid}"
    return None
