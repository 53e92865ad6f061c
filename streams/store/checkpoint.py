"""Signed checkpoints: what the service last wrote for a match, signed with a key that is not in Redis.

A Redis-level attacker can rewrite anything in Redis, and the archive's hash chain is plain SHA-256, so
a chain head alone proves nothing: delete the last event, recompute the head, put back an older record.
A **checkpoint** commits to everything the service keeps of a match after one of its writes, and carries
an HMAC-SHA256 under the service's key (:class:`CheckpointKey`, never stored in Redis):

- the archive: the head seq, how many events were archived in order and the engine's chain head after
  them, how many entries there are in all and a digest over the entries archived after the head
  (conflicting and late events, which the engine's chain does not cover);
- the record's write count (the write fence), the SHA-256 of the stored record and of the stored board;
- the version list: its length and running digests over the versions' records and over their causes;
- the league index entry the record indexes to, and the ones indexed before this write (a crash between
  the append and the index step leaves one of those): the entry the previous checkpoint names, and the
  entry the writer saw.

Every record writer computes the next checkpoint from the one the store holds (it has verified it), and the
store writes it atomically with the data (``state`` field ``ck``, ``write.lua``), refusing the write when
what is stored is not what the caller's checkpoint says (``tampered``). So Redis can only hold data that
matches a checkpoint the service signed: an edited, injected or deleted entry, a swapped record or board,
a truncated or edited version list, a forged held event, each is an alarm. What an attacker can still do in
Redis alone is put a whole older, consistent state back (rollback). That is what the **checkpoint log**
catches: every checkpoint is also appended, before the write is acknowledged, to a log outside Redis
(:class:`FileCheckpoints`, the embedded service's append-only file; ``streams.kafka.checkpoints``, the
workers' append-only topic), the way transparency logs anchor their signed tree heads with witnesses. A
store whose checkpoint is older than the log's newest for the match has been rolled back, and every logged
checkpoint must describe a prefix of what is stored now (the archive and the version list only grow).

Events held behind a gap are kept sealed (:func:`seal_held`: an HMAC under the same key over match, seq
and bytes), so an event written into the pending hash by hand is refused and raises an alarm.

docs/reliability.md ("Tampering") says what this detects against which attacker.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import hashlib
import hmac
import json
import os
import secrets
import time
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, fields
from typing import Any, Protocol

import msgspec

from replay.engine import HMAC_ALG, Signer
from replay.i18n import N_, Phrase
from replay.signing import ALG, KeyFileError, KeyRing, PublicKeys, SigningKey
from streams.settings import Settings

#: The checkpoint format's version (the ``v`` field).
FORMAT = 1
#: The digest of nothing (no record, no board stored yet): what an absent value is compared as.
NONE = ""
#: How held events are sealed: this prefix, then the 32-byte HMAC, then the event's canonical bytes.
HELD_PREFIX = b"pcH1"
#: The key file the embedded service creates in its data directory when no PRIZECHECK_SIGNING_KEY is set.
KEY_FILE = "checkpoint.key"
#: The Ed25519 key directory in the data directory, when PRIZECHECK_KEYS_DIR is unset.
KEYS_DIR = "keys"
#: The embedded service's checkpoint log, in its data directory.
LOG_FILE = "checkpoints.log"


class CheckpointError(ValueError):
    """A checkpoint (or a line of a checkpoint log) that cannot be read."""


# Why a checkpoint cannot be read, or the checkpoint key: a CheckpointError's message is a Phrase of one of
# these (the English as before; said in the reader's language where a person reads it: check, verify, the
# alarm of a rebuild). A reason quoted from the JSON parser or Python stays as written.
NOT_JSON = N_("not JSON: {reason}")
NOT_FORMAT = N_("not a checkpoint of format {format}")
UNEXPECTED = N_("unexpected fields: {reason}")
WRONG_TYPE = N_("field {name} must be {kind}, got {got}")
NOT_HEX = N_("{path}: not a hex key")
TOO_SHORT = N_("{path}: a key must have at least 16 bytes")
#: What a checkpoint that cannot be read is said to be (a stored alarm's ``{reason}`` is read back by these).
DECODE_PROBLEMS: tuple[str, ...] = (NOT_JSON, NOT_FORMAT, UNEXPECTED, WRONG_TYPE)


def reason(exc: BaseException) -> str:
    """``exc``'s message: its :class:`~replay.i18n.Phrase` when it has one (said again in the reader's
    language), else its text as written (a key file's problem, read back by replay.i18n.errors; the OS's)."""
    message = exc.args[0] if len(exc.args) == 1 else None
    return message if isinstance(message, Phrase) else str(exc)


@dataclass(frozen=True)
class CheckpointKey:
    """What checkpoints are signed and checked with, and held events sealed with.

    ``signer``: the service's Ed25519 key (:mod:`replay.signing`): checkpoints are signed with it, under its
    key id (``kid``), and anyone with the public keys can check them. Without one (an ``IngestCore`` given
    only an HMAC secret, checkpoints written before), they carry an HMAC-SHA256 under ``key``.
    ``public``: the keys checkpoints are checked with, by their ``kid`` (Ed25519 public keys, and the HMAC
    secrets of checkpoints signed before); None: the HMAC under ``key``.
    ``key``: the secret held events are sealed with (a MAC: only this service opens them); ``older``:
    secrets events held before a change of key were sealed with (still opened).
    """

    key: bytes
    kid: str = "default"
    signer: Signer | None = None
    public: PublicKeys | None = None
    older: tuple[bytes, ...] = ()

    @classmethod
    def of_ring(cls, ring: KeyRing, legacy: CheckpointKey | None = None) -> CheckpointKey:
        """The service's key: its key ring's active key signs; every key of the ring, and the HMAC key
        of checkpoints signed before (``legacy``), check."""
        if legacy is not None:  # the ring's signer checks with these too (replay.signing.SigningKey.verify)
            ring.public.hmac[legacy.kid] = legacy.key
        return cls.of_signer(ring.signer, ring.public, (legacy.key,) if legacy is not None else ())

    @classmethod
    def of_signer(
        cls, signer: SigningKey, public: PublicKeys | None = None, older: tuple[bytes, ...] = ()
    ) -> CheckpointKey:
        """Sign with ``signer``; check with ``public`` (default: ``signer``'s public key alone)."""
        if public is None:
            public = PublicKeys({signer.kid: signer.public}, signer.kid)
        return cls(signer.secret(b"held events"), signer.kid, signer, public, older)

    @classmethod
    def verifying(cls, public: PublicKeys) -> CheckpointKey:
        """A key that checks checkpoints with public keys alone (``prizecheck verify --checkpoints``)."""
        return cls(b"", "", None, public)

    def mac(self, data: bytes) -> str:
        """The signature of a checkpoint's body: Ed25519 with :attr:`signer`, else an HMAC under ``key``."""
        if self.signer is not None:
            return self.signer.sign(data)
        return hmac.new(self.key, data, hashlib.sha256).hexdigest()

    def check(self, kid: str, data: bytes, value: str) -> bool:
        """Is ``value`` the signature of ``data`` by the key ``kid``?"""
        if self.public is None:
            return hmac.compare_digest(value, hmac.new(self.key, data, hashlib.sha256).hexdigest())
        alg = ALG if kid in self.public.keys else HMAC_ALG
        return self.public.verify(alg, kid, data, value)


def digest(data: bytes | None) -> str:
    """SHA-256 (hex) of stored bytes; :data:`NONE` for an absent value."""
    return NONE if data is None else hashlib.sha256(data).hexdigest()


def sha1(data: bytes | None) -> str:
    """SHA-1 (hex) of stored bytes (absent = empty), as Redis's ``redis.sha1hex`` computes it.

    Only the write scripts' compare-before-write uses it (Lua in Redis has no SHA-256): "is the stored
    record still the one this service wrote?". The checkpoint itself commits with SHA-256.
    """
    return hashlib.sha1(data or b"", usedforsecurity=False).hexdigest()


def step(chain: str, item: str) -> str:
    """One step of a running digest: ``sha256(chain "\\n" item)`` (hex); the empty chain is ``""``."""
    return hashlib.sha256(f"{chain}\n{item}".encode()).hexdigest()


def entry_step(chain: str, head: int, kind: str, data: bytes) -> str:
    """The running digest over the archive entries after the head (conflicts, late events): each one's
    head when it was archived (its entry id's first part), kind and bytes."""
    return step(chain, f"{head} {kind} {hashlib.sha256(data).hexdigest()}")


def index_digest(
    fields: tuple[
        str, str | None, str | None, Sequence[str], Mapping[str, int], Mapping[str, int], Mapping[str, Any]
    ]
    | None,
) -> str:
    """The digest of what an index entry shows: status, league, season, players, findings by code and by
    severity, and the rest (``IndexEntry.about``: event, round, table, date, top finding), not its seq,
    which is only the head when it was written. None (no entry) is :data:`NONE`. An entry without the
    rest (indexed before it existed) digests as it did then, so that its checkpoint still names it."""
    if fields is None:
        return NONE
    status, league, season, players, findings, severities, about = fields
    shown: list[Any] = [
        status,
        league or "",
        season or "",
        list(players),
        sorted(findings.items()),
        sorted(severities.items()),
    ]
    if about:
        shown.append(sorted(about.items()))
    text = _dumps(shown)
    return hashlib.sha256(text).hexdigest()


@dataclass(frozen=True)
class Checkpoint:
    """What the store holds for ``match`` after one write of the service (see the module docstring)."""

    match: str
    store: str = ""  # the key prefix of the store (several prefixes may share one log)
    seq: int = 0  # the head: the highest seq archived in order
    events: int = 0  # events archived in order (the engine's chain covers them)
    entries: int = 0  # archive entries in all (in order, conflicting, late)
    chain: str = ""  # the engine's chain head after the events archived in order (hex)
    others: str = ""  # running digest over the entries archived after the head
    writes: int = 0  # the record's write count after this write
    record: str = NONE  # sha256 of the stored record
    board: str = NONE  # sha256 of the stored board
    versions: int = 0  # length of the version list
    vchain: str = ""  # running digest over the versions' records (sha256 each)
    causes: str = ""  # running digest over the versions' causes
    index: str = NONE  # digest of the index entry this record indexes to
    index_prev: str = NONE  # digest of the index entry the previous checkpoint names
    index_seen: str = NONE  # digest of the index entry the writer saw indexed before this write
    kid: str = ""
    mac: str = ""

    def _fields(self) -> dict[str, Any]:
        # every field is a str or an int: no copy needed (dataclasses.asdict deep-copies, which costs)
        out = {k: v for k, v in self.__dict__.items() if k != "encoded"}
        out["v"] = FORMAT
        return out

    def but(self, **changes: Any) -> Checkpoint:
        """A copy with ``changes`` (``dataclasses.replace``, at a fraction of its cost: one is made per
        write)."""
        out = {k: v for k, v in self.__dict__.items() if k != "encoded"}
        out.update(changes)
        new = object.__new__(Checkpoint)  # a frozen dataclass's __init__ sets each field the slow way
        new.__dict__.update(out)
        return new

    def body(self) -> bytes:
        """The signed bytes: canonical JSON of every field but ``mac``."""
        out = self._fields()
        del out["mac"]
        return _dumps(out)

    def signed(self, key: CheckpointKey | None) -> Checkpoint:
        """This checkpoint with its MAC (unsigned, ``mac == ""``, without a key)."""
        if key is None:
            return self.but(kid="", mac="")
        out = self._fields()
        del out["mac"]
        out["kid"] = key.kid
        body = _dumps(out)
        mac = key.mac(body)
        ck = self.but(kid=key.kid, mac=mac)
        # its stored form, without encoding it again: the body with the MAC as its last member (readers
        # take the fields by name and recompute the body to check the MAC, so the order is free)
        ck.__dict__["encoded"] = body[:-1] + b',"mac":"' + mac.encode() + b'"}'
        return ck

    def verify(self, key: CheckpointKey | None) -> bool:
        """Whether the MAC is the key's over this checkpoint (True without a key: nothing to check)."""
        if key is None:
            return True
        return bool(self.mac) and key.check(self.kid, self.body(), self.mac)

    def names_index(self, entry: str) -> bool:
        """Is ``entry`` (an :func:`index_digest`) one the indexes may show with this checkpoint stored:
        the one it names, or one shown before its write's index step ran?"""
        return entry in (self.index, self.index_prev, self.index_seen)

    @functools.cached_property
    def encoded(self) -> bytes:
        """The stored form: one line of JSON (``state`` field ``ck``, one line of a log)."""
        return _dumps(self._fields())

    def encode(self) -> bytes:
        """:attr:`encoded` (computed once)."""
        return self.encoded

    @classmethod
    def decode(cls, data: bytes | str) -> Checkpoint:
        """Read a checkpoint back; :class:`CheckpointError` when it is not one."""
        try:
            obj = json.loads(data)
        except (ValueError, UnicodeDecodeError) as exc:
            raise CheckpointError(Phrase(NOT_JSON, reason=exc)) from None
        if not isinstance(obj, dict) or obj.get("v") != FORMAT:
            raise CheckpointError(Phrase(NOT_FORMAT, format=FORMAT))
        obj.pop("v")
        try:
            ck = cls(**obj)
        except TypeError as exc:
            raise CheckpointError(Phrase(UNEXPECTED, reason=exc)) from None
        for name, kind in _TYPES.items():
            value = getattr(ck, name)
            if type(value) is not kind:
                raise CheckpointError(
                    Phrase(WRONG_TYPE, name=name, kind=kind.__name__, got=type(value).__name__)
                )
        return ck

    def describes(self) -> Phrase:
        """A short description for messages: ``write N (seq S, E entries, V versions)`` (:data:`DESCRIBES`,
        said again in the reader's language where a person reads it: ``prizecheck check``, ``verify``)."""
        return Phrase(
            DESCRIBES,
            writes=self.writes,
            seq=self.seq,
            entries=self.entries,
            versions=self.versions,
        )


#: How a checkpoint is named in a message (:meth:`Checkpoint.describes`); a sentence of a tamper alarm
#: that names one reads it back by this (streams.store.tamper).
DESCRIBES = N_("write {writes} (seq {seq}, {entries} entries, {versions} versions)")

#: Why a line of the checkpoint log is passed over (:func:`read_log`; else a :class:`CheckpointError`'s).
LOG_LINE_CUT = N_("an incomplete last line (a write cut short)")
LOG_LINE_FORGED = N_("the MAC of {match}'s checkpoint {checkpoint} does not verify")

#: Canonical JSON: keys sorted, no spaces, UTF-8 (what ``json.dumps(sort_keys=True, separators=(",", ":"),
#: ensure_ascii=False)`` gives for these fields, ints and strings, several times faster).
_dumps = msgspec.json.Encoder(order="sorted").encode


_NAMES: tuple[str, ...] = tuple(f.name for f in fields(Checkpoint))

_TYPES: dict[str, type] = {
    "match": str,
    "store": str,
    "seq": int,
    "events": int,
    "entries": int,
    "chain": str,
    "others": str,
    "writes": int,
    "record": str,
    "board": str,
    "versions": int,
    "vchain": str,
    "causes": str,
    "index": str,
    "index_prev": str,
    "index_seen": str,
    "kid": str,
    "mac": str,
}


def add_version(ck: Checkpoint, record: bytes, cause: str) -> Checkpoint:
    """``ck`` with one more version (``record`` as stored, its cause)."""
    return ck.but(
        versions=ck.versions + 1,
        vchain=step(ck.vchain, hashlib.sha256(record).hexdigest()),
        causes=step(ck.causes, cause),
    )


def version_chains(records: Iterable[tuple[bytes, str]]) -> list[tuple[str, str]]:
    """The running ``(vchain, causes)`` after each version of a stored list (records and causes)."""
    out: list[tuple[str, str]] = []
    vchain = causes = ""
    for record, cause in records:
        vchain = step(vchain, hashlib.sha256(record).hexdigest())
        causes = step(causes, cause)
        out.append((vchain, causes))
    return out


# ------------------------------------------------------------------------------------------ held events


class HeldForged(ValueError):
    """A held event whose seal does not verify: it was not held by this service."""


def _held_mac(secret: bytes, match: str, seq: int, data: bytes) -> bytes:
    return hmac.new(secret, b"held\0%s\0%d\0%s" % (match.encode(), seq, data), hashlib.sha256).digest()


def seal_held(key: CheckpointKey | None, match: str, seq: int, data: bytes) -> bytes:
    """What the pending hash keeps for an event held behind a gap: the bytes sealed with a MAC over match,
    seq and bytes (without a key, the bytes as they are)."""
    if key is None:
        return data
    return HELD_PREFIX + _held_mac(key.key, match, seq, data) + data


def open_held(key: CheckpointKey | None, match: str, seq: int, stored: bytes) -> bytes:
    """The event's bytes from a pending hash value; :class:`HeldForged` when the seal is missing or wrong.

    Without a key nothing can be checked: a sealed value is unwrapped, anything else taken as it is.
    """
    sealed = stored.startswith(HELD_PREFIX) and len(stored) > len(HELD_PREFIX) + 32
    if key is None:
        return stored[len(HELD_PREFIX) + 32 :] if sealed else stored
    if not sealed:
        raise HeldForged(f"the event held at seq {seq} carries no seal (the service seals what it holds)")
    mac, data = stored[len(HELD_PREFIX) : len(HELD_PREFIX) + 32], stored[len(HELD_PREFIX) + 32 :]
    if not any(hmac.compare_digest(mac, _held_mac(k, match, seq, data)) for k in (key.key, *key.older)):
        raise HeldForged(f"the seal of the event held at seq {seq} does not verify under key {key.kid!r}")
    return data


# ------------------------------------------------------------------------------------------ the key


def key_from_file(path: str, *, create: bool) -> CheckpointKey | None:
    """The key kept in ``path`` (hex, one line), created (32 random bytes, mode 0600) when ``create`` and
    it does not exist yet. None when it does not exist and ``create`` is false."""
    try:
        with open(path, encoding="ascii") as fh:
            text = fh.read().strip()
    except FileNotFoundError:
        if not create:
            return None
        os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
        text = secrets.token_hex(32)
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:  # another process made it first: use theirs
            return key_from_file(path, create=False)
        with os.fdopen(fd, "w", encoding="ascii") as fh:
            fh.write(text + "\n")
            fh.flush()
            os.fsync(fh.fileno())
    try:
        key = bytes.fromhex(text)
    except ValueError:
        raise CheckpointError(Phrase(NOT_HEX, path=path)) from None
    if len(key) < 16:
        raise CheckpointError(Phrase(TOO_SHORT, path=path))
    return CheckpointKey(key, "local")


def configured_key(
    signing_key: bytes | None,
    key_id: str | None,
    data_dir: str,
    *,
    create: bool,
    keys_dir: str | None = None,
) -> CheckpointKey | None:
    """The service's checkpoint key: the Ed25519 key ring in ``keys_dir`` (default ``<data_dir>/keys``;
    created by ``prizecheck serve`` on first start when ``create``), checking also what the HMAC key signed
    before (``PRIZECHECK_SIGNING_KEY`` with ``PRIZECHECK_KEY_ID``, else the data directory's key file).
    Without a key ring (and not ``create``): that HMAC key alone, or None."""
    legacy = (
        CheckpointKey(signing_key, key_id or "default")
        if signing_key is not None
        else key_from_file(os.path.join(data_dir, KEY_FILE), create=False)
    )
    return ring_key(keys_dir or os.path.join(data_dir, KEYS_DIR), legacy, create=create)


def service_signer(settings: Settings) -> SigningKey | bytes | None:
    """What the service signs records (and archive manifests) with, for a command run beside it: the
    Ed25519 key of its key ring, which also checks what every key of the ring and the HMAC key of before
    signed; else the HMAC secret ``PRIZECHECK_SIGNING_KEY``; else None. Never creates a key."""
    key = configured_key(
        settings.signing_key, settings.key_id, settings.data_dir, create=False, keys_dir=settings.keys_dir
    )
    if key is not None and isinstance(key.signer, SigningKey):
        return key.signer
    return settings.signing_key


def ring_key(keys_dir: str, legacy: CheckpointKey | None, *, create: bool) -> CheckpointKey | None:
    """The key ring in ``keys_dir`` as the checkpoint key, also checking what ``legacy`` (an HMAC key)
    signed before; ``legacy`` itself when there is no key ring (and not ``create``)."""
    try:
        ring = KeyRing.open(keys_dir, create=create)
    except (KeyFileError, OSError) as exc:
        raise CheckpointError(reason(exc)) from None
    return legacy if ring is None else CheckpointKey.of_ring(ring, legacy)


# ------------------------------------------------------------------------------------------ the log


class CheckpointLog(Protocol):
    """Where checkpoints are kept outside Redis. ``append`` returns once they are written (the caller
    then acknowledges the writes they describe); ``latest`` is the newest (highest write count) this
    process knows for a match: those it appended and those it loaded."""

    async def append(self, checkpoints: Sequence[Checkpoint]) -> None: ...

    def note(self, ck: Checkpoint) -> None:
        """Know ``ck`` as written (before it is appended: its write is in the store already)."""
        ...

    def latest(self, match: str) -> Checkpoint | None: ...

    async def close(self) -> None: ...


class Latest:
    """The newest checkpoint per match (by write count): what a log knows, kept in memory. ``store``:
    only checkpoints of this key prefix count (None: all)."""

    def __init__(self, store: str | None = None) -> None:
        self.store = store
        self._by_match: dict[str, Checkpoint] = {}

    def note(self, ck: Checkpoint) -> None:
        if self.store is not None and ck.store != self.store:
            return
        old = self._by_match.get(ck.match)
        if old is None or ck.writes >= old.writes:
            self._by_match[ck.match] = ck

    def latest(self, match: str) -> Checkpoint | None:
        return self._by_match.get(match)

    def __len__(self) -> int:
        return len(self._by_match)


class MemoryCheckpoints(Latest):
    """A log in this process's memory: a core given no log still remembers the newest checkpoint it
    wrote per match, so a rollback under a running process is caught. ``keep``: also keep every
    checkpoint appended, in order (tests)."""

    def __init__(self, store: str | None = None, *, keep: bool = False) -> None:
        super().__init__(store)
        self.keep = keep
        self.appended: list[Checkpoint] = []

    async def append(self, checkpoints: Sequence[Checkpoint]) -> None:
        for ck in checkpoints:
            self.note(ck)
        if self.keep:
            self.appended.extend(checkpoints)

    async def close(self) -> None:
        return None


class FileCheckpoints(Latest):
    """The embedded service's checkpoint log: an append-only file of signed checkpoints, one per line
    (``<data dir>/checkpoints.log``).

    Appends are one ``write`` of whole lines (``O_APPEND``) before the writes they describe are answered;
    the file is fsynced at most once a second (``fsync_every``), as Redis's ``appendfsync everysec``: after
    a power loss the log may lack the last second, never hold what Redis lacks but for that second too.
    Opening reads the file once to know each match's newest checkpoint.
    """

    def __init__(
        self, path: str, key: CheckpointKey | None, *, store: str | None = None, fsync_every: float = 1.0
    ) -> None:
        super().__init__(store)
        self.path = path
        self.key = key  # what the checkpoints are signed with (and held events sealed with)
        self.key = key
        self.fsync_every = fsync_every
        self.skipped = 0  # lines that are not a checkpoint signed by the key (reported by check)
        os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
        for ck in read_log(path, key, errors=self._skip):
            self.note(ck)
        self._fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        self._synced = time.monotonic()
        self._dirty = False

    def _skip(self, line: int, why: str) -> None:
        self.skipped += 1

    async def append(self, checkpoints: Sequence[Checkpoint]) -> None:
        if not checkpoints:
            return
        data = b"".join(ck.encode() + b"\n" for ck in checkpoints)
        view = memoryview(data)
        while view:
            view = view[os.write(self._fd, view) :]
        for ck in checkpoints:
            self.note(ck)
        self._dirty = True
        if time.monotonic() - self._synced >= self.fsync_every:
            self._synced = time.monotonic()
            self._dirty = False
            await asyncio.to_thread(os.fsync, self._fd)

    async def close(self) -> None:
        if self._fd < 0:
            return
        with contextlib.suppress(OSError):
            if self._dirty:
                os.fsync(self._fd)
            os.close(self._fd)
        self._fd = -1


def read_log(
    path: str,
    key: CheckpointKey | None,
    *,
    errors: Any = None,
) -> Iterator[Checkpoint]:
    """The checkpoints of a log file, in order. A line that is not a checkpoint, or whose MAC does not
    verify under ``key``, is passed to ``errors(line_number, why)`` (and skipped); a missing file is an
    empty log. A last line without its newline (a write cut by a crash) is skipped the same way."""
    try:
        fh = open(path, "rb")  # noqa: SIM115 - closed below
    except FileNotFoundError:
        return
    with fh:
        for n, line in enumerate(fh, start=1):
            if not line.endswith(b"\n"):
                if errors is not None:
                    errors(n, Phrase(LOG_LINE_CUT))
                continue
            try:
                ck = Checkpoint.decode(line)
            except CheckpointError as exc:
                if errors is not None:
                    errors(n, reason(exc))
                continue
            if not ck.verify(key):
                if errors is not None:
                    errors(n, Phrase(LOG_LINE_FORGED, match=ck.match, checkpoint=ck.describes()))
                continue
            yield ck


def open_local_log(
    signing_key: bytes | None, key_id: str | None, data_dir: str, prefix: str, *, keys_dir: str | None = None
) -> FileCheckpoints:
    """The embedded service's checkpoint log, ``<data dir>/checkpoints.log``, with its key (``.key``): the
    Ed25519 key ring (``keys_dir``, else ``<data dir>/keys``), made on first use (:func:`configured_key`)."""
    key = configured_key(signing_key, key_id, data_dir, create=True, keys_dir=keys_dir)
    return FileCheckpoints(os.path.join(data_dir, LOG_FILE), key, store=prefix)
