"""The cold archive's files: finished matches' events and records in Parquet (pyarrow), partitioned by league
and season (docs/storage.md, "The cold archive").

``<dir>/events/league=<L>/season=<S>/<name>.parquet``: one row per archive entry, ordered by match then
position: ``match``, ``seq``, ``sub`` (the entry id ``<seq>-<sub>``), ``kind`` (``event``, ``conflict``,
``late``), ``event`` (the canonical msgpack bytes, as the Redis stream held them) and ``chain`` (the
chain head after the entry, hex, as a replay links it).

``<dir>/records/league=<L>/season=<S>/<name>.parquet``: one row per record version and one for the record
as stored (``version`` 0): ``match``, ``version``, ``cause``, ``record`` (bytes as stored), ``chain`` (the
trusted chain head), ``head``, and the columns a season report filters and groups by (``status``,
``outcome``, ``started_at``, ``event``, ``round``).

In Redis, an archived match keeps its record, versions, board, state and index entry; its event stream is
replaced by ``<p>:{<m>}:archived``, the marker :class:`Marker` (JSON): the events file, how many rows,
their digest and the chain head. Reading an archived match's events (``RedisStore.snapshot``, ``events``,
``event``) reads the rows back and checks them against the marker (:func:`read_events`): a file that is
missing or whose rows differ is a problem named in a sentence, raised as an alarm by the ingest core and a
breach by ``prizecheck check``, as a tampered archive is.

pyarrow is the ``archive`` extra; it is imported only when a file is read or written.
"""

from __future__ import annotations

import hashlib
import json
import os
import uuid
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any, cast

import msgpack

from replay.extras import needs_extra
from replay.i18n import N_, Phrase
from streams.store.base import ArchivedEvent, EntryKind
from streams.store.keys import key_part

MARKER_VERSION = 1


class ArchiveUnavailable(RuntimeError):
    """pyarrow is not installed (the ``archive`` extra)."""


def _pyarrow() -> tuple[Any, Any]:
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError as exc:  # pragma: no cover - the archive extra is part of make install
        raise ArchiveUnavailable(f"the cold archive {needs_extra(exc, 'archive')}") from None
    return pa, pq


@dataclass(frozen=True)
class Marker:
    """What Redis keeps of an archived match's events: where its rows are, how many, their digest
    (:func:`rows_digest`), the chain head after the last, and when they were archived."""

    file: str
    rows: int
    sha256: str
    chain: str | None
    at: str
    version: int = MARKER_VERSION

    def encode(self) -> bytes:
        return json.dumps(asdict(self), sort_keys=True, separators=(",", ":")).encode()

    @classmethod
    def decode(cls, raw: bytes) -> Marker:
        """The marker of ``raw``; ValueError when it is not one."""
        try:
            data = json.loads(raw)
            return cls(
                file=str(data["file"]),
                rows=int(data["rows"]),
                sha256=str(data["sha256"]),
                chain=None if data.get("chain") is None else str(data["chain"]),
                at=str(data["at"]),
                version=int(data.get("version", MARKER_VERSION)),
            )
        except (ValueError, KeyError, TypeError) as exc:
            raise ValueError(f"not an archive marker: {exc}") from None


def rows_digest(entries: Iterable[ArchivedEvent]) -> str:
    """SHA-256 over every entry's position, kind and bytes, in order (what the marker keeps)."""
    h = hashlib.sha256()
    for e in entries:
        seq, sub = e.position
        h.update(b"%d-%d %s %d\n" % (seq, sub, e.kind.encode(), len(e.data)))
        h.update(e.data)
    return h.hexdigest()


def partition(root: str, table: str, league: str | None, season: str | None) -> str:
    """``<root>/<table>/league=<L>/season=<S>``: names encoded as key parts (no ``/`` nor ``..`` can
    leave the directory); none is ``-``."""
    parts = [f"league={key_part(league) if league else '-'}", f"season={key_part(season) if season else '-'}"]
    return os.path.join(os.path.abspath(root), table, *parts)


@dataclass(frozen=True)
class EventRow:
    """One archive entry of one match, with the chain head after it."""

    match: str
    entry: ArchivedEvent
    chain: str | None


@dataclass(frozen=True)
class RecordRow:
    """One record of one match: ``version`` 0 is the record as stored, 1.. its versions."""

    match: str
    version: int
    cause: str
    record: bytes
    chain: str | None
    head: int
    summary: dict[str, Any]


#: The columns of an events file and of a records file, in their order (the report's columns last).
EVENT_COLUMNS = ("match", "seq", "sub", "kind", "event", "chain")
REPORT_COLUMNS = ("status", "outcome", "winner", "started_at", "event", "round")
RECORD_COLUMNS = ("match", "version", "cause", "record", "chain", "head", *REPORT_COLUMNS)


def report_summary(record: Mapping[str, Any]) -> dict[str, Any]:
    """What a records file's report columns (:data:`REPORT_COLUMNS`) hold for ``record``: its status, its
    result's outcome and winner, when it started, and its event and round."""
    result = record.get("result") or {}
    context = record.get("context") or {}
    return {
        "status": record.get("status"),
        "outcome": result.get("outcome") if isinstance(result, Mapping) else None,
        "winner": result.get("winner") if isinstance(result, Mapping) else None,
        "started_at": record.get("started_at"),
        "event": context.get("event") if isinstance(context, Mapping) else None,
        "round": context.get("round") if isinstance(context, Mapping) else None,
    }


def write_files(
    root: str,
    league: str | None,
    season: str | None,
    events: Sequence[EventRow],
    records: Sequence[RecordRow],
) -> tuple[str, str]:
    """Write one events file and one records file into the league's and season's partitions under
    ``root`` (made as needed); their paths. Written under a temporary name, fsynced and renamed: a file
    is whole or absent."""
    pa, pq = _pyarrow()
    name = f"part-{uuid.uuid4().hex}.parquet"
    events_columns: dict[str, Any] = {
        "match": pa.array([r.match for r in events], pa.string()),
        "seq": pa.array([r.entry.position[0] for r in events], pa.int64()),
        "sub": pa.array([r.entry.position[1] for r in events], pa.int32()),
        "kind": pa.array([r.entry.kind for r in events], pa.string()),
        "event": pa.array([r.entry.data for r in events], pa.binary()),
        "chain": pa.array([r.chain for r in events], pa.string()),
    }
    events_table = pa.table(events_columns)
    columns: dict[str, Any] = {
        "match": pa.array([r.match for r in records], pa.string()),
        "version": pa.array([r.version for r in records], pa.int32()),
        "cause": pa.array([r.cause for r in records], pa.string()),
        "record": pa.array([r.record for r in records], pa.binary()),
        "chain": pa.array([r.chain for r in records], pa.string()),
        "head": pa.array([r.head for r in records], pa.int64()),
    }
    for column in REPORT_COLUMNS:
        values = [r.summary.get(column) for r in records]
        columns[column] = pa.array([None if v is None else str(v) for v in values], pa.string())
    records_table = pa.table(columns)
    paths = []
    for table, sub in ((events_table, "events"), (records_table, "records")):
        folder = partition(root, sub, league, season)
        os.makedirs(folder, exist_ok=True)
        path = os.path.join(folder, name)
        tmp = path + ".tmp"
        pq.write_table(table, tmp, compression="zstd", row_group_size=64 * 1024)
        with open(tmp, "rb") as fh:
            os.fsync(fh.fileno())
        os.replace(tmp, path)
        paths.append(path)
    return paths[0], paths[1]


#: What is wrong with an archived match's copy (:func:`read_events`; the marker itself: the Redis reader), a
#: sentence written in English (a :class:`~replay.i18n.Phrase`, kept in a tamper alarm as its English
#: text): said again in a reader's language where it is shown (``prizecheck check``, ``archive``; read back
#: out of an alarm by :mod:`streams.store.tamper`).
MARKER_UNREADABLE = N_("its archive marker is unreadable ({reason})")
COPY_MISSING = N_("its archived events' file {file} is missing")
COPY_UNREADABLE = N_("its archived events' file {file} cannot be read: {reason}")
COPY_CHANGED = N_(
    "its archived events in {file} are not the ones archived ({count} rows, {rows} archived; their digest "
    "differs from the marker's)"
)
COPY_NOT_ITS_OWN = N_(
    "its archived events in {file} are not its own: the row at {seq}-{sub} is an event of {owner}"
)
COPY_PROBLEMS = (MARKER_UNREADABLE, COPY_MISSING, COPY_UNREADABLE, COPY_CHANGED, COPY_NOT_ITS_OWN)


def unreadable_marker(exc: ValueError) -> Phrase:
    """What is wrong with a copy whose marker :meth:`Marker.decode` refused."""
    return Phrase(MARKER_UNREADABLE, reason=str(exc))


def read_events(marker: Marker, match: str) -> tuple[list[ArchivedEvent], Phrase | None]:
    """The archive entries of ``match`` in the marker's file, and None; or what is wrong with the copy (a
    sentence of :data:`COPY_PROBLEMS`) and the rows that could be read: a missing or unreadable file, rows
    that are not the marker's (their count or digest)."""
    _, pq = _pyarrow()
    if not os.path.isfile(marker.file):
        return [], Phrase(COPY_MISSING, file=marker.file)
    try:
        table = pq.read_table(marker.file, columns=list(EVENT_COLUMNS[:5]), filters=[("match", "=", match)])
    except Exception as exc:  # pyarrow's errors for a damaged file are many and untyped here
        return [], Phrase(COPY_UNREADABLE, file=marker.file, reason=str(exc)[:200])
    rows = table.to_pydict()
    entries = [
        ArchivedEvent((int(seq), int(sub)), bytes(data), cast(EntryKind, kind))
        for seq, sub, kind, data in zip(rows["seq"], rows["sub"], rows["kind"], rows["event"], strict=True)
    ]
    if len(entries) != marker.rows or rows_digest(entries) != marker.sha256:
        return entries, Phrase(COPY_CHANGED, file=marker.file, count=len(entries), rows=marker.rows)
    # the digest covers positions and bytes, not the match: rows of another match relabelled (with a marker
    # to match) are refused by what each event says it is
    for entry in entries:
        owner = _event_match(entry.data)
        if owner != match:
            seq, sub = entry.position
            return entries, Phrase(COPY_NOT_ITS_OWN, file=marker.file, seq=seq, sub=sub, owner=repr(owner))
    return entries, None


def read_records(path: str) -> list[RecordRow]:
    """Every row of a records file, in its order (pyarrow's errors when it cannot be read). A report
    column holds text, as written (:func:`write_files`)."""
    _, pq = _pyarrow()
    rows = pq.read_table(path, columns=list(RECORD_COLUMNS)).to_pydict()
    return [
        RecordRow(
            str(rows["match"][i]),
            int(rows["version"][i]),
            str(rows["cause"][i]),
            bytes(rows["record"][i]),
            rows["chain"][i],
            int(rows["head"][i]),
            {c: rows[c][i] for c in REPORT_COLUMNS},
        )
        for i in range(len(rows["match"]))
    ]


def _event_match(data: bytes) -> object:
    """The ``match`` an archived event's bytes name (None when they are not one msgpack map)."""
    try:
        event = msgpack.unpackb(data, raw=False)
    except (ValueError, msgpack.ExtraData, msgpack.FormatError, msgpack.StackError):
        return None
    return event.get("match") if isinstance(event, dict) else None
