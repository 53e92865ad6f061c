"""``prizecheck archive``: finished, settled matches moved out of Redis into Parquet (docs/storage.md, "The
cold archive").

For each league and season partition, in chunks of whole playoff families (a game and its ``/tbN``
playoff games together, so a drawn game is verified with the games that settle it):

1. read each match's slot in one atomic step (``Store.snapshot``); a match with held events, a tamper
   alarm, an unreadable copy or already archived is left as it is, with the reason;
2. write its archive entries (each with the chain head after it, from a replay) and its records (the
   stored one, version 0, and every version) to one events file and one records file of the partition
   (``streams.store.parquet.write_files``);
3. read the rows back from the file and check them as ``prizecheck check`` checks an archive
   (:func:`streams.check.verify_copies`): the same entries, replaying to the stored record, board and
   chain head. A family with any difference is refused: nothing of it is deleted, and the files are
   written again without it;
4. only then replace each verified match's event stream by its marker, in one atomic step that first
   checks the stream is still the one verified (``Archive.archive_swap``). The record, its versions,
   the board, the state (the signed checkpoint) and the index entry stay in Redis.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import functools
import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import msgpack

from replay.contract.validate import checked_game
from replay.i18n import Phrase
from replay.records import unpack_record
from replay.signing import SigningKey
from streams.check import verify_copies
from streams.store import Archived, Snapshot, manifest
from streams.store.checkpoint import CheckpointKey
from streams.store.manifest import ArchivedMatch
from streams.store.parquet import (
    EventRow,
    Marker,
    RecordRow,
    read_events,
    report_summary,
    rows_digest,
    write_files,
)
from streams.store.tamper import Alarm

#: Matches written to one pair of files at most (a partition may take several)
CHUNK = 500
_PLAYOFF = re.compile(r"(/tb\d+)+$")


def family(match: str) -> str:
    """The top game of a match's playoff family (``g1/tb1/tb2`` -> ``g1``)."""
    return _PLAYOFF.sub("", match)


@dataclass
class ArchiveRun:
    """What one run did: the matches archived, those left and why (each a sentence written in English, a
    :class:`~replay.i18n.Phrase`: said again in the reader's language on a terminal), the files written."""

    archived: list[str] = field(default_factory=list)
    events: int = 0
    skipped: dict[str, Phrase] = field(default_factory=dict)
    files: list[str] = field(default_factory=list)


def started_before(record: Mapping[str, Any] | None, before: dt.date | None) -> bool:
    """Whether the record's game started before ``before`` (None: no date bound)."""
    if before is None:
        return True
    started = str((record or {}).get("started_at") or "")
    try:
        return dt.date.fromisoformat(started[:10]) < before
    except ValueError:
        return False


async def archive(
    store: Archived,
    root: str,
    *,
    before: dt.date | None = None,
    league: str | None = None,
    season: str | None = None,
    signing_key: bytes | SigningKey | None = None,
    key_id: str | None = None,
    manifest_key: CheckpointKey | None = None,
) -> ArchiveRun:
    """Move the finished matches selected (``before`` their start day, of ``league``, of ``season``) to
    Parquet under ``root``; see the module docstring. ``signing_key``: the service's
    (``streams.store.checkpoint.service_signer``): an Ed25519 key both signs and checks every key of its
    ring; HMAC secret bytes (named ``key_id``) as before. ``manifest_key``: the checkpoint key, which signs
    the archive's manifest (without one it is written unsigned, and every reader refuses the archive);
    :class:`streams.store.manifest.ManifestError` before anything is moved when the manifest there does
    not verify under it."""
    await asyncio.to_thread(manifest.writable, root, manifest_key, store.prefix)
    run = ArchiveRun()
    names = await store.matches(league=league, season=season, status="finished")
    entries = {e.match: e for e in await store.index_entries(names)}
    alarms = await store.alarms()
    partitions: dict[tuple[str | None, str | None], list[list[str]]] = {}
    families: dict[str, list[str]] = {}
    for name in names:
        families.setdefault(family(name), []).append(name)
    for members in families.values():
        top = entries.get(members[0])
        if top is None:
            continue
        partitions.setdefault((top.league, top.season), []).append(sorted(members))
    for (part_league, part_season), groups in sorted(partitions.items(), key=lambda kv: str(kv[0])):
        write = functools.partial(
            _archive_chunk, store, root, part_league, part_season, before=before, alarms=alarms, run=run,
            signing_key=signing_key, key_id=key_id, manifest_key=manifest_key,
        )  # fmt: skip
        chunk: list[list[str]] = []
        for group in groups:
            chunk.append(group)
            if sum(len(g) for g in chunk) >= CHUNK:
                await write(chunk)
                chunk = []
        if chunk:
            await write(chunk)
    return run


async def _archive_chunk(
    store: Archived,
    root: str,
    league: str | None,
    season: str | None,
    groups: Sequence[Sequence[str]],
    before: dt.date | None,
    alarms: Mapping[str, str],
    run: ArchiveRun,
    signing_key: bytes | SigningKey | None,
    key_id: str | None,
    manifest_key: CheckpointKey | None,
) -> None:
    names = [m for g in groups for m in g]
    snaps = dict(zip(names, await _snapshots(store, names), strict=True))
    markers = dict(zip(names, await asyncio.gather(*(store.archive_marker(m) for m in names)), strict=True))
    chosen: list[list[str]] = []
    for group in groups:
        why = None
        for m in group:
            snap = snaps[m]
            why = why or _refusal(m, snap, markers[m], alarms, before)
        if why is None:
            chosen.append(list(group))
        else:
            for m in group:
                run.skipped[m] = why
    if not chosen:
        return
    rows = {m: _rows(m, snaps[m]) for g in chosen for m in g}
    while chosen:
        members = [m for g in chosen for m in g]
        events_file, records_file = await asyncio.to_thread(
            write_files,
            root,
            league,
            season,
            [r for m in members for r in rows[m][0]],
            [r for m in members for r in rows[m][1]],
        )
        markers_now = {m: _marker(events_file, snaps[m]) for m in members}
        copies = {}
        for m in members:
            back, problem = await asyncio.to_thread(read_events, markers_now[m], m)
            copies[m] = back if problem is None else []
        report, _ = await verify_copies(store, copies, signing_key=signing_key, key_id=key_id)
        refused = {b.match for b in report.breaches if b.match is not None}
        if not refused:
            break
        for path in (events_file, records_file):
            os.remove(path)  # written again without the refused families
        kept: list[list[str]] = []
        for g in chosen:
            bad = [b for b in report.breaches if b.match in g]
            if bad:
                for m in g:
                    run.skipped[m] = Phrase(
                        "its copy did not verify: {code}: {detail}", code=bad[0].code, detail=bad[0].detail
                    )
            else:
                kept.append(g)
        chosen = kept
    if not chosen:
        return
    run.files += [events_file, records_file]
    members = [m for g in chosen for m in g]
    # signed before any stream leaves Redis: a crash after this leaves matches listed but still in Redis
    # (their rows are the stored state), never archived matches whose files the manifest does not cover
    base = os.path.abspath(root)
    listed = {
        m: ArchivedMatch.of(
            os.path.relpath(events_file, base),
            os.path.relpath(records_file, base),
            snaps[m].state.writes,
            len(snaps[m].events),
            snaps[m].record,
            [v.record for v in snaps[m].versions],
        )
        for m in members
    }
    files = [events_file, records_file]
    part = await asyncio.to_thread(manifest.add, root, manifest_key, store.prefix, files, listed)
    left: list[str] = []
    for m in members:
        snap = snaps[m]
        last = snap.events[-1].position
        if await store.archive_swap(m, markers_now[m].encode(), len(snap.events), last):
            run.archived.append(m)
            run.events += len(snap.events)
        else:
            run.skipped[m] = Phrase(
                "its archive changed while it was copied (an event arrived): left in Redis"
            )
            left.append(m)
    if left:  # the part again, without them (their rows in the files are the state still in Redis)
        still = {m: e for m, e in listed.items() if m not in left}
        await asyncio.to_thread(manifest.add, root, manifest_key, store.prefix, files, still, part=part)


async def _snapshots(store: Archived, names: Sequence[str]) -> list[Snapshot]:
    out: list[Snapshot] = []
    for i in range(0, len(names), 16):
        out += await asyncio.gather(*(store.snapshot(m) for m in names[i : i + 16]))
    return out


def _refusal(
    match: str, snap: Snapshot, marker: bytes | None, alarms: Mapping[str, str], before: dt.date | None
) -> Phrase | None:
    """Why a match of the selection is not archived now, or None."""
    if marker is not None:
        return Phrase("archived already")
    if snap.copy_problem is not None:
        return Phrase("its copy is not readable: {problem}", problem=snap.copy_problem)
    if match in alarms:
        return Phrase("it has a tamper alarm: {alarm}", alarm=Alarm(alarms[match]))
    if snap.held:
        return Phrase("{count} events are held behind a gap: not settled", count=len(snap.held))
    if not snap.events:
        return Phrase("no archived events (a playoff stub)")
    record = unpack_record(snap.record)
    if record is None or record.get("status") != "finished":
        return Phrase("its record is not finished")
    if not started_before(record, before):
        return Phrase("started on or after --before")
    return None


def _rows(match: str, snap: Snapshot) -> tuple[list[EventRow], list[RecordRow]]:
    """The match's event rows (each with the chain head a replay reaches after it) and record rows."""
    game = checked_game()
    events: list[EventRow] = []
    for entry in snap.events:
        game.apply(msgpack.unpackb(entry.data, raw=False), entry.data)
        events.append(EventRow(match, entry, game.log.head.hex()))
    record = unpack_record(snap.record) or {}
    summary = report_summary(record)
    head, chain = snap.state.head, snap.state.chain
    records = [RecordRow(match, 0, "", snap.record or b"", chain, head, summary)]
    for v in snap.versions:
        old = unpack_record(v.record) or {}
        cause = f"{v.cause_match} {v.cause_seq}"
        records.append(RecordRow(match, v.version, cause, v.record, chain, head, report_summary(old)))
    return events, records


def _marker(path: str, snap: Snapshot) -> Marker:
    now = dt.datetime.now(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    return Marker(path, len(snap.events), rows_digest(snap.events), snap.state.chain, now)
