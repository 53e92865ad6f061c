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
from replay.i18n import N_, Phrase
from streams.store.checkpoint import Checkpoint, CheckpointKey, digest, read_log, version_chains
from streams.store.parquet import read_records

MANIFEST = "manifest.json"
FORMAT = "prizecheck-archive-manifest/1"
TABLES = ("events", "records")


class ManifestError(ValueError):
    """The manifest cannot be read or written (a sentence naming the file: its first argument, a
    :class:`~replay.i18n.Phrase`)."""


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
    """One way the archive differs from its signed manifest or from the signed state: ``detail`` is a
    sentence written in English (a :class:`~replay.i18n.Phrase`, said again in a reader's language where it
    is shown: ``prizecheck check``, ``report --parquet``)."""

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
        raise ManifestError(
            Phrase("{path}: cannot read the archive's manifest: {reason}", path=path, reason=str(exc))
        ) from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ManifestError(Phrase("{path}: not an archive manifest ({reason})", path=path, reason=FORMAT))
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
        raise ManifestError(
            Phrase("{path}: its signature does not verify under this service's key", path=_path(root))
        )
    if current.get("store") != store:
        raise ManifestError(
            Phrase(
                "{path}: the archive of store prefix {prefix}, not {store}",
                path=_path(root),
                prefix=repr(current.get("store")),
                store=repr(store),
            )
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
        return [Breach(None, MANIFEST, exc.args[0])]
    if manifest is None:
        unsigned = Phrase("{path}: no signed manifest: its files cannot be trusted", path=_path(root))
        return [Breach(None, MANIFEST, unsigned)]
    if key is not None and not _signed_by(manifest, key):
        forged = Phrase(
            "{path}: its signature does not verify under key {key}", path=_path(root), key=repr(key.kid)
        )
        return [Breach(None, MANIFEST, forged)]
    base = os.path.abspath(root)
    out: list[Breach] = []
    files: dict[str, str] = {}
    matches: dict[str, ArchivedMatch] = {}
    try:
        parts = {str(name): str(sha) for name, sha in manifest["parts"].items()}
    except (KeyError, TypeError, AttributeError) as exc:  # signed by us, it has them: changed by hand
        why = f"{type(exc).__name__}: {exc}"
        return [
            Breach(
                None,
                MANIFEST,
                Phrase("{path}: not an archive manifest ({reason})", path=_path(root), reason=why),
            )
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
            out.append(
                Breach(
                    None, rel, Phrase("{file}: a manifest part the signed manifest does not list", file=rel)
                )
            )
    for rel in _on_disk(base, tables, ".parquet"):
        if rel not in files:
            out.append(
                Breach(None, rel, Phrase("{file}: not in the signed manifest (a file put there)", file=rel))
            )
    for rel, signed in sorted(files.items()):
        path = os.path.join(base, rel)
        owners = sorted(m for m, e in matches.items() if rel in (e.events, e.records))
        if not os.path.isfile(path):
            out.append(Breach(None, rel, _missing(rel, owners)))
            continue
        try:
            sha, _ = file_digest(path)
        except OSError as exc:
            out.append(Breach(None, rel, Phrase(UNREADABLE, file=rel, reason=exc.strerror or exc)))
            continue
        if sha == signed:
            continue
        found = (
            _records_breaches(path, rel, {m: matches[m] for m in owners}) if _table(rel) == "records" else []
        )
        out += found or [Breach(None, rel, Phrase("{file}: its bytes are not the ones archived", file=rel))]
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


#: A file of the archive that cannot be read (its path under the archive, and why).
UNREADABLE = N_("{file}: cannot be read: {reason}")


def _missing(rel: str, owners: Sequence[str]) -> Phrase:
    """A listed file that is not there, with the matches whose events or records it held."""
    if not owners:
        return Phrase("{file}: missing: a deleted partition file", file=rel)
    named = ", ".join(owners[:5]) + ("..." if len(owners) > 5 else "")
    if _table(rel) == "events":
        return Phrase(
            "{file}: missing (the events of {matches}): a deleted partition file", file=rel, matches=named
        )
    return Phrase(
        "{file}: missing (the records of {matches}): a deleted partition file", file=rel, matches=named
    )


def _part(base: str, name: str, sha: str) -> tuple[dict[str, Any], Phrase | None]:
    """A part the root lists, and None; or what is wrong with it."""
    try:
        with open(os.path.join(base, name), "rb") as fh:
            body = fh.read()
    except FileNotFoundError:
        return {}, Phrase("{file}: a manifest part is missing (with the files it lists?)", file=name)
    except OSError as exc:
        return {}, Phrase(
            "{file}: a manifest part cannot be read: {reason}", file=name, reason=exc.strerror or exc
        )
    if hashlib.sha256(body).hexdigest() != sha:
        return {}, Phrase("{file}: a manifest part is not the one signed (changed)", file=name)
    try:
        data = json.loads(body)
        if data.get("format") != PART_FORMAT:
            raise ValueError(f"not {PART_FORMAT}")
        for entry in data["matches"].values():
            ArchivedMatch(**entry)
        if not all(isinstance(f, dict) and "sha256" in f for f in data["files"].values()):
            raise ValueError("a file without its sha256")
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        return {}, Phrase("{file}: not a manifest part ({reason})", file=name, reason=str(exc))
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
        problems.append(
            Breach(None, log, Phrase("{file} line {line}: {reason}", file=log, line=line, reason=why))
        )

    store = str((_readable(root) or {}).get("store", ""))
    latest = None
    if log is not None and os.path.isfile(log):
        try:
            latest = newest(read_log(log, key, errors=error), store)
        except OSError as exc:
            unread = Phrase(
                "{file}: the checkpoint log cannot be read: {reason}", file=log, reason=exc.strerror or exc
            )
            problems.append(Breach(None, log, unread))
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
        return [Breach(None, rel, Phrase(UNREADABLE, file=rel, reason=str(exc)[:200]))]
    by_match: dict[str, dict[int, bytes]] = {}
    for row in rows:
        by_match.setdefault(row.match, {})[row.version] = row.record
    out: list[Breach] = []
    for name, entry in sorted(owners.items()):
        if entry.records != rel:
            continue
        got = by_match.pop(name, {})
        versions = [got[v] for v in sorted(got) if v > 0]
        if 0 not in got:
            out.append(
                Breach(
                    name, rel, Phrase("{file}: {match}: its record's row was deleted", file=rel, match=name)
                )
            )
        elif digest(got[0]) != entry.record:
            other = _record_match(got[0])
            if other != name:
                another = Phrase(
                    "{file}: {match}: its record is another match's ({other})",
                    file=rel,
                    match=name,
                    other=repr(other),
                )
                out.append(Breach(name, rel, another))
            elif any(digest(got[0]) == digest(v) for v in versions):
                older = Phrase(
                    "{file}: {match}: an older signed version was put back as its record",
                    file=rel,
                    match=name,
                )
                out.append(Breach(name, rel, older))
            else:
                out.append(
                    Breach(
                        name,
                        rel,
                        Phrase("{file}: {match}: its record is not the archived one", file=rel, match=name),
                    )
                )
        if len(versions) < entry.versions:
            gone = Phrase(
                "{file}: {match}: {gone} of its {versions} versions' rows were deleted",
                file=rel,
                match=name,
                gone=entry.versions - len(versions),
                versions=entry.versions,
            )
            out.append(Breach(name, rel, gone))
        elif vchain(versions) != entry.vchain:
            out.append(
                Breach(
                    name,
                    rel,
                    Phrase("{file}: {match}: its versions are not the archived ones", file=rel, match=name),
                )
            )
    for name in sorted(by_match):
        out.append(
            Breach(
                name,
                rel,
                Phrase("{file}: rows of {match}, which were not archived in this file", file=rel, match=name),
            )
        )
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
    if ck.writes > entry.writes:
        why = Phrase(
            "{match}: the archive holds its records at write {writes}, the checkpoint log's newest is write "
            "{newest}: older than the signed state",
            match=name,
            writes=entry.writes,
            newest=ck.writes,
        )
    elif ck.writes < entry.writes:
        why = Phrase(
            "{match}: the archive holds its records at write {writes}, which the checkpoint log does not "
            "have (its newest: write {newest})",
            match=name,
            writes=entry.writes,
            newest=ck.writes,
        )
    elif (ck.entries, ck.record, ck.versions, ck.vchain) != (
        entry.entries,
        entry.record,
        entry.versions,
        entry.vchain,
    ):
        why = Phrase(
            "{match}: the archive holds its records at write {writes}, not the state the checkpoint log "
            "signs for it (entries, record or versions)",
            match=name,
            writes=entry.writes,
        )
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
