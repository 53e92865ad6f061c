"""The cold archive's signed manifest: what ``prizecheck archive`` wrote under a directory, signed, so that
a reader of the files (``prizecheck report --parquet``, ``prizecheck check``) can tell them from files put
there, changed or taken away (docs/storage.md, "The cold archive"; docs/reliability.md).

``<dir>/manifest.json`` is one JSON object, signed with the service's signing function
(:func:`replay.engine.chain.sign`, the one that signs records, under the checkpoint key): ``store``, the key
prefix the matches were archived from, and ``parts``, the SHA-256 of each part. A part,
``<dir>/manifest/<name>.json``, says what one chunk of one ``prizecheck archive`` run wrote:

- ``files``: each Parquet file (its path under ``<dir>``) with its SHA-256 and size;
- ``matches``: each archived match with its events file and records file, and the signed state it was
  archived at (from its checkpoint: ``writes``, ``entries``, the SHA-256 of its stored record, how many
  versions and their running digest ``vchain``), so the records rows can be named row by row and the
  manifest compared with the checkpoint log.

Two levels, so that a run adds a part and signs again a root of one line per part, never a document that
grows with every match of the archive (a season of 1,000,000 matches in 2,000 chunks).

:func:`verify` checks a directory against it: the signature, every file listed (present, the same bytes),
no file that is not listed, and for each match its rows and its state against the newest checkpoint the
checkpoint log has of it. Each breach is one :class:`Breach` naming the file and the match.
"""

from __future__ import annotations

import hashlib
import json
import os
import uuid
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from replay.engine import sign, verify_signature
from streams.store.checkpoint import Checkpoint, CheckpointKey, digest, read_log, version_chains
from streams.store.parquet import read_records

MANIFEST = "manifest.json"
FORMAT = "prizecheck-archive-manifest/1"
TABLES = ("events", "records")


class ManifestError(ValueError):
    """The manifest cannot be read or written (a sentence naming the file)."""


@dataclass(frozen=True)
class ArchivedMatch:
    """What the manifest keeps of one archived match: its files (paths under the archive) and the signed
    state it was archived at."""

    events: str
    records: str
    writes: int
    entries: int
    record: str  # SHA-256 of the stored record (version 0 in the records file)
    versions: int
    vchain: str  # running digest over the versions' records, as the checkpoint keeps it

    @classmethod
    def of(
        cls,
        events: str,
        records: str,
        writes: int,
        entries: int,
        record: bytes | None,
        versions: Iterable[bytes],
    ) -> ArchivedMatch:
        """The entry of a match whose stored record and versions (oldest first) are those given."""
        listed = list(versions)
        return cls(events, records, writes, entries, digest(record), len(listed), vchain(listed))


@dataclass(frozen=True)
class Breach:
    """One way the archive differs from its signed manifest or from the signed state."""

    match: str | None
    file: str | None
    detail: str


def vchain(records: Iterable[bytes]) -> str:
    """The running digest over versions' records, as the checkpoint keeps it (``vchain``)."""
    chains = version_chains((record, "") for record in records)
    return chains[-1][0] if chains else ""


def file_digest(path: str) -> tuple[str, int]:
    """SHA-256 (hex) and size of a file, read in blocks."""
    h = hashlib.sha256()
    size = 0
    with open(path, "rb") as fh:
        while block := fh.read(1 << 20):
            h.update(block)
            size += len(block)
    return h.hexdigest(), size


def _path(root: str) -> str:
    return os.path.join(os.path.abspath(root), MANIFEST)


def read(root: str) -> dict[str, Any] | None:
    """The manifest under ``root`` as stored (None when there is none); :class:`ManifestError` when it is
    not one JSON object."""
    path = _path(root)
    try:
        with open(path, "rb") as fh:
            data = json.loads(fh.read())
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as exc:
        raise ManifestError(f"{path}: cannot read the archive's manifest: {exc}") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ManifestError(f"{path}: not an archive manifest ({FORMAT})")
    return data


PARTS = "manifest"
PART_FORMAT = "prizecheck-archive-manifest-part/1"


def add(
    root: str,
    key: CheckpointKey | None,
    store: str,
    files: Iterable[str],
    matches: Mapping[str, ArchivedMatch],
    *,
    part: str | None = None,
) -> str:
    """Write a part listing ``files`` (absolute paths under ``root``) and ``matches`` (``part``: write that
    part again, as given now) and sign the root again with ``key`` (without a key it is written unsigned:
    every reader then refuses it); the part's name. The root there must verify first: a write never signs
    what it did not check."""
    manifest = writable(root, key, store)
    base = os.path.abspath(root)
    name = part or f"{PARTS}/part-{uuid.uuid4().hex}.json"
    digests = {os.path.relpath(p, base): file_digest(p) for p in files}
    listed = {
        "format": PART_FORMAT,
        "files": {rel: {"sha256": sha, "bytes": size} for rel, (sha, size) in digests.items()},
        "matches": {m: asdict(e) for m, e in matches.items()},
    }
    os.makedirs(os.path.join(base, PARTS), exist_ok=True)
    manifest["parts"][name] = _write(os.path.join(base, name), listed)
    manifest.pop("signature", None)
    _write(_path(root), _signed(manifest, key) if key is not None else manifest)
    return name


def _write(path: str, data: Mapping[str, Any]) -> str:
    """Write ``data`` as JSON whole or not at all (a temporary file, fsynced, renamed); its SHA-256."""
    body = (json.dumps(data, sort_keys=True, indent=1) + "\n").encode()
    tmp = path + ".tmp"
    with open(tmp, "wb") as fh:
        fh.write(body)
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, path)
    return hashlib.sha256(body).hexdigest()


def writable(root: str, key: CheckpointKey | None, store: str) -> dict[str, Any]:
    """The manifest under ``root`` to extend (a new one when there is none); :class:`ManifestError` when
    the one there is not signed with ``key`` or lists another store's matches: a run never signs what it
    did not check."""
    current = read(root)
    if current is None:
        return {"format": FORMAT, "store": store, "parts": {}}
    if not (_signed_by(current, key) if key is not None else "signature" not in current):
        raise ManifestError(f"{_path(root)}: its signature does not verify under this service's key")
    if current.get("store") != store:
        raise ManifestError(
            f"{_path(root)}: the archive of store prefix {current.get('store')!r}, not {store!r}"
        )
    return current


def _signed(manifest: Mapping[str, Any], key: CheckpointKey) -> dict[str, Any]:
    """The manifest signed as the service signs its records: with its Ed25519 key (under its key id),
    else the HMAC secret of before."""
    return sign(manifest, key.signer if key.signer is not None else key.key, key.kid)


def _signed_by(manifest: Mapping[str, Any], key: CheckpointKey | None) -> bool:
    """Does the manifest's signature check under ``key``: any key of its ring (public keys), or the HMAC
    secret of before?"""
    if key is None:
        return False
    return verify_signature(manifest, key.public if key.public is not None else key.key)


def verify(
    root: str,
    key: CheckpointKey | None,
    latest: Mapping[str, Checkpoint] | None = None,
    tables: Sequence[str] = TABLES,
) -> list[Breach]:
    """Every breach of the archive under ``root``: see the module docstring. ``key``: the checkpoint key
    (None: the signature is not checked, only the files against what the manifest says: the caller says
    so); ``latest``: the newest signed checkpoint of each match (None: the manifest is compared with
    nothing but the files); ``tables``: whose files are checked (a report reads the records alone, and
    need not read every event again)."""
    try:
        manifest = read(root)
    except ManifestError as exc:
        return [Breach(None, MANIFEST, str(exc))]
    if manifest is None:
        return [Breach(None, MANIFEST, f"{_path(root)}: no signed manifest: its files cannot be trusted")]
    if key is not None and not _signed_by(manifest, key):
        return [Breach(None, MANIFEST, f"{_path(root)}: its signature does not verify under key {key.kid!r}")]
    base = os.path.abspath(root)
    out: list[Breach] = []
    files: dict[str, str] = {}
    matches: dict[str, ArchivedMatch] = {}
    try:
        parts = {str(name): str(sha) for name, sha in manifest["parts"].items()}
    except (KeyError, TypeError, AttributeError) as exc:  # signed by us, it has them: changed by hand
        return [
            Breach(None, MANIFEST, f"{_path(root)}: not an archive manifest ({type(exc).__name__}: {exc})")
        ]
    for name, sha in sorted(parts.items()):
        part, problem = _part(base, name, sha)
        if problem is not None:
            out.append(Breach(None, name, problem))
            continue
        for rel, f in part["files"].items():
            if _table(rel) in tables:
                files[rel] = str(f["sha256"])
        matches.update({str(m): ArchivedMatch(**entry) for m, entry in part["matches"].items()})
    for rel in _on_disk(base, (PARTS,), ".json"):
        if rel not in parts:
            out.append(Breach(None, rel, f"{rel}: a manifest part the signed manifest does not list"))
    for rel in _on_disk(base, tables, ".parquet"):
        if rel not in files:
            out.append(Breach(None, rel, f"{rel}: not in the signed manifest (a file put there)"))
    for rel, signed in sorted(files.items()):
        path = os.path.join(base, rel)
        owners = sorted(m for m, e in matches.items() if rel in (e.events, e.records))
        if not os.path.isfile(path):
            named = f" (the {_table(rel)} of {', '.join(owners[:5])}{'...' if len(owners) > 5 else ''})"
            out.append(
                Breach(None, rel, f"{rel}: missing{named if owners else ''}: a deleted partition file")
            )
            continue
        try:
            sha, _ = file_digest(path)
        except OSError as exc:
            out.append(Breach(None, rel, f"{rel}: cannot be read: {exc.strerror or exc}"))
            continue
        if sha == signed:
            continue
        found = (
            _records_breaches(path, rel, {m: matches[m] for m in owners}) if _table(rel) == "records" else []
        )
        out += found or [Breach(None, rel, f"{rel}: its bytes are not the ones archived")]
    for name, entry in sorted(matches.items()):
        ck = (latest or {}).get(name)
        if ck is not None and ck.store == manifest.get("store"):
            out += _state_breaches(name, entry, ck)
    return out


def _on_disk(base: str, folders: Iterable[str], suffix: str) -> list[str]:
    """The files ending in ``suffix`` under ``folders`` of ``base`` (paths under ``base``)."""
    return sorted(
        os.path.relpath(os.path.join(folder, name), base)
        for top in folders
        for folder, _, names in os.walk(os.path.join(base, top))
        for name in names
        if name.endswith(suffix)
    )


def _part(base: str, name: str, sha: str) -> tuple[dict[str, Any], str | None]:
    """A part the root lists, and None; or what is wrong with it."""
    try:
        with open(os.path.join(base, name), "rb") as fh:
            body = fh.read()
    except FileNotFoundError:
        return {}, f"{name}: a manifest part is missing (with the files it lists?)"
    except OSError as exc:
        return {}, f"{name}: a manifest part cannot be read: {exc.strerror or exc}"
    if hashlib.sha256(body).hexdigest() != sha:
        return {}, f"{name}: a manifest part is not the one signed (changed)"
    try:
        data = json.loads(body)
        if data.get("format") != PART_FORMAT:
            raise ValueError(f"not {PART_FORMAT}")
        for entry in data["matches"].values():
            ArchivedMatch(**entry)
        if not all(isinstance(f, dict) and "sha256" in f for f in data["files"].values()):
            raise ValueError("a file without its sha256")
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        return {}, f"{name}: not a manifest part ({exc})"
    return dict(data), None


def newest(checkpoints: Iterable[Checkpoint], store: str) -> dict[str, Checkpoint]:
    """The newest (highest write count) of each match's checkpoints under the store prefix ``store``."""
    out: dict[str, Checkpoint] = {}
    for ck in checkpoints:
        if ck.store == store and (ck.match not in out or ck.writes > out[ck.match].writes):
            out[ck.match] = ck
    return out


def verify_with_log(
    root: str, key: CheckpointKey | None, log: str | None, tables: Sequence[str] = TABLES
) -> list[Breach]:
    """:func:`verify` (of ``tables``' files) against the checkpoint log file ``log`` (``prizecheck
    serve``'s ``checkpoints.log``: None or a missing file is no log); an unreadable or unsigned line of it
    is a breach too."""
    problems: list[Breach] = []

    def error(line: int, why: str) -> None:
        problems.append(Breach(None, log, f"{log} line {line}: {why}"))

    store = str((_readable(root) or {}).get("store", ""))
    latest = None
    if log is not None and os.path.isfile(log):
        try:
            latest = newest(read_log(log, key, errors=error), store)
        except OSError as exc:
            problems.append(
                Breach(None, log, f"{log}: the checkpoint log cannot be read: {exc.strerror or exc}")
            )
    return verify(root, key, latest, tables) + problems


def _readable(root: str) -> dict[str, Any] | None:
    try:
        return read(root)
    except ManifestError:
        return None  # verify says why


def _table(rel: str) -> str:
    return rel.split(os.sep, 1)[0].split("/", 1)[0]


def _records_breaches(path: str, rel: str, owners: Mapping[str, ArchivedMatch]) -> list[Breach]:
    """What differs, match by match, in a records file whose bytes are not the archived ones."""
    try:
        rows = read_records(path)
    except Exception as exc:  # pyarrow's errors for a damaged file are many and untyped here
        return [Breach(None, rel, f"{rel}: cannot be read: {str(exc)[:200]}")]
    by_match: dict[str, dict[int, bytes]] = {}
    for row in rows:
        by_match.setdefault(row.match, {})[row.version] = row.record
    out: list[Breach] = []
    for name, entry in sorted(owners.items()):
        if entry.records != rel:
            continue
        got = by_match.pop(name, {})
        versions = [got[v] for v in sorted(got) if v > 0]
        where = f"{rel}: {name}"
        if 0 not in got:
            out.append(Breach(name, rel, f"{where}: its record's row was deleted"))
        elif digest(got[0]) != entry.record:
            other = _record_match(got[0])
            if other != name:
                out.append(Breach(name, rel, f"{where}: its record is another match's ({other!r})"))
            elif any(digest(got[0]) == digest(v) for v in versions):
                out.append(Breach(name, rel, f"{where}: an older signed version was put back as its record"))
            else:
                out.append(Breach(name, rel, f"{where}: its record is not the archived one"))
        if len(versions) < entry.versions:
            gone = entry.versions - len(versions)
            out.append(
                Breach(name, rel, f"{where}: {gone} of its {entry.versions} versions' rows were deleted")
            )
        elif vchain(versions) != entry.vchain:
            out.append(Breach(name, rel, f"{where}: its versions are not the archived ones"))
    for name in sorted(by_match):
        out.append(Breach(name, rel, f"{rel}: rows of {name}, which were not archived in this file"))
    return out


def _record_match(data: bytes) -> object:
    import msgpack

    try:
        record = msgpack.unpackb(data, raw=False)
    except Exception:  # not a record at all: say so as "another match's" (None)
        return None
    return record.get("match") if isinstance(record, dict) else None


def _state_breaches(name: str, entry: ArchivedMatch, ck: Checkpoint) -> list[Breach]:
    """The archived state against the newest checkpoint the log has of the match."""
    held = f"{name}: the archive holds its records at write {entry.writes}"
    if ck.writes > entry.writes:
        why = f"{held}, the checkpoint log's newest is write {ck.writes}: older than the signed state"
    elif ck.writes < entry.writes:
        why = f"{held}, which the checkpoint log does not have (its newest: write {ck.writes})"
    elif (ck.entries, ck.record, ck.versions, ck.vchain) != (
        entry.entries,
        entry.record,
        entry.versions,
        entry.vchain,
    ):
        why = f"{held}, not the state the checkpoint log signs for it (entries, record or versions)"
    else:
        return []
    return [Breach(name, entry.records, why)]


__all__ = [
    "MANIFEST",
    "ArchivedMatch",
    "Breach",
    "ManifestError",
    "add",
    "newest",
    "read",
    "verify",
    "verify_with_log",
    "writable",
]
