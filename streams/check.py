"""The invariant checker behind ``prizecheck check``: does what Redis holds agree with what was produced?

It reads everything once (the Redis archive, heads, held events, records, trusted chain heads and tamper
alarms; with Kafka, the whole events topic and its dead-letter topic, from offset 0 to the end offsets
seen when it starts) and checks, without trusting any of it:

1. **Every acknowledged event is archived exactly once at its seq.** Archive entry ids are ``<seq>-0`` for
   events in order (no ``k`` field) and ``<head>-<n>`` (n >= 1, ``k`` = ``conflict`` / ``late``) after the
   head; each entry is one valid event of its match with canonical bytes, at its own seq; the head key is
   the highest in-order seq; a held event waits above the head. With a topic: every valid message keyed by
   its match is archived at its seq with the same canonical bytes, or held behind a gap, or a repeat of a
   message already counted, or quarantined (its coordinates are in the dead-letter topic); every message
   the service must refuse is quarantined; every archived event was produced.
2. **produced = applied + duplicates + dead letters + pending**, each side counted on its own: messages in
   the topic; events archived in order; messages whose (match, seq, bytes) was counted already; distinct
   source coordinates in the dead-letter topic; events held in Redis.
3. **Each match's live record, a replay of its archive and a replay of the topic give the same bytes**
   (the engine, :class:`replay.Game` and :func:`replay.link_records`, as the ingest core builds a record;
   HMAC-signed with the configured key when there is one).
4. **Every chain head matches its archive**: the trusted head the store writes with every append
   (:meth:`Store.state`) against the head of the replayed archive; and no tamper alarm is raised
   (:meth:`Store.alarms`).
5. **What is stored is what the service signed, and nothing was rolled back**
   (:mod:`streams.store.checkpoint`): each match's stored checkpoint verifies under the key and describes
   exactly the stored archive, record, board, write count, version list and index entry; held events carry
   the service's seal; and, against
   the checkpoint log kept outside Redis, the stored checkpoint is the newest the log has for the match,
   and every logged checkpoint describes a prefix of what is stored now (archive and versions only grow).
   The stored board must also be the board a replay of the archive gives.

Every breach is a :class:`Breach` with a stable ``code``. Without Kafka (embedded mode) the topic
invariants are skipped and the report says so (:attr:`Report.notes`). The checker only reads.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from replay import Game, link_records
from replay.contract.admit import admit, decode_event
from replay.contract.validate import checked_game
from replay.engine import EventError, Verifier, canonical_bytes, playoff_stub, sign, verify_signature
from replay.i18n import Joined, Phrase, Spoken, spoken
from replay.i18n.errors import Quoted
from replay.records import unpack_record
from streams.kafka.keys import key_refusal
from streams.reasons import describe
from streams.store import ArchivedEvent, Checked, IndexEntry, RecordVersion
from streams.store.checkpoint import (
    NONE,
    Checkpoint,
    CheckpointError,
    CheckpointKey,
    HeldForged,
    digest,
    entry_step,
    index_digest,
    open_held,
    reason,
    version_chains,
)
from streams.store.tamper import Alarm

#: Every breach code, with what it means (docs/reliability.md lists them too).
CODES: dict[str, str] = {
    "archive_id": "an archive entry's id or kind is not what the append scripts write",
    "archive_entry": "an archived entry is not one valid event of its match at its seq, in canonical bytes",
    "head_mismatch": "the head key is not the highest seq archived in order",
    "pending_stale": "an event is held at or below the head (it can never be applied)",
    "pending_entry": "a held event is not a valid event of its match at its seq",
    "record_missing": "a match has archived events but no stored record",
    "record_mismatch": "the stored record is not the record a replay of the archive gives",
    "orphan_record": "a record is stored for a match with no archive that no playoff announces",
    "chain_mismatch": "the trusted chain head does not match the replayed archive",
    "tamper_alarm": "the ingest core raised a tamper alarm for the match",
    "lost": "a produced event is neither archived at its seq, held, a repeat, nor quarantined",
    "not_quarantined": "a message the service must refuse is not in the dead-letter topic",
    "unproduced": "an archived event matches no produced message",
    "count_mismatch": "produced != applied + duplicates + dead letters + pending",
    "topic_replay_mismatch": "a replay of the topic gives a different record than the one stored",
    "board_mismatch": "the stored board is not the board a replay of the archive gives",
    "checkpoint_invalid": "the stored checkpoint is unreadable, or not signed by the service's key",
    "checkpoint_mismatch": "what is stored (archive, record, board, write count, index entry) is not what "
    "its signed checkpoint says",
    "versions_mismatch": "the version list is not what the signed checkpoint says (truncated or edited)",
    "checkpoint_missing": "the checkpoint log has checkpoints of a match whose store holds none",
    "rollback": "the store is older than the newest checkpoint the log has for the match, or does not "
    "extend a logged checkpoint (its archive or versions were cut or rewritten)",
    "log_entry": "an entry of the checkpoint log is unreadable or not signed by the service's key",
    "archive_copy": "an archived match's Parquet copy (prizecheck archive) is missing, unreadable, or not "
    "the rows that were archived",
    "archive_manifest": "a file of the cold archive is missing, changed or not in its signed manifest, or "
    "the manifest is unsigned, forged or not the signed state (the checkpoints) of its matches",
}

BreachCode = Literal[
    "archive_id",
    "archive_entry",
    "head_mismatch",
    "pending_stale",
    "pending_entry",
    "record_missing",
    "record_mismatch",
    "orphan_record",
    "chain_mismatch",
    "tamper_alarm",
    "lost",
    "not_quarantined",
    "unproduced",
    "count_mismatch",
    "topic_replay_mismatch",
    "board_mismatch",
    "checkpoint_invalid",
    "checkpoint_mismatch",
    "versions_mismatch",
    "checkpoint_missing",
    "rollback",
    "log_entry",
    "archive_copy",
    "archive_manifest",
]

#: Matches read from Redis at once: their five reads each share round trips, and stay well within a client's
#: connection pool (redis-py's default allows 100 connections and refuses more).
READ_CHUNK = 12


@dataclass(frozen=True)
class Breach:
    """One broken invariant: a stable ``code`` (:data:`CODES`), the match and seq when they apply, and a
    sentence saying what was found: written in English (``--json``), a :class:`~replay.i18n.Phrase` where
    the checker words it, said again in the reader's language on a terminal (:meth:`line`)."""

    code: BreachCode
    match: str | None
    seq: int | None
    detail: str

    def as_json(self) -> dict[str, Any]:
        """``{"code", "match", "seq", "detail"}``."""
        return {"code": self.code, "match": self.match, "seq": self.seq, "detail": str(self.detail)}

    def line(self, lang: str = "en") -> str:
        """One line for a terminal: ``BREACH code match seq N: detail``, the detail in ``lang`` (the
        ``BREACH code match seq N`` head stays as it is in every language: what a script greps for)."""
        where = " ".join(
            part for part in (self.match or "", "" if self.seq is None else f"seq {self.seq}") if part
        )
        return f"BREACH {self.code}{' ' + where if where else ''}: {spoken(self.detail, lang)}"


@dataclass
class Report:
    """What :func:`check` found. ``produced``, ``duplicates`` and ``dead_letters`` are None without a
    topic (Redis-only mode); ``notes`` say what was not checked and why."""

    mode: Literal["kafka", "redis"]
    matches: int = 0
    events: int = 0  # archive entries (in order, conflicts and late events)
    produced: int | None = None
    applied: int = 0  # archive entries in order (ids <seq>-0)
    duplicates: int | None = None
    dead_letters: int | None = None
    pending: int = 0
    alarms: int = 0
    breaches: list[Breach] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """True when every invariant holds."""
        return not self.breaches

    def breach(self, code: BreachCode, match: str | None, seq: int | None, detail: str) -> None:
        """Record one breach."""
        self.breaches.append(Breach(code, match, seq, detail))

    def as_json(self) -> dict[str, Any]:
        """The ``--json`` object of ``prizecheck check``."""
        return {
            "ok": self.ok,
            "mode": self.mode,
            "matches": self.matches,
            "events": self.events,
            "produced": self.produced,
            "applied": self.applied,
            "duplicates": self.duplicates,
            "dead_letters": self.dead_letters,
            "pending": self.pending,
            "alarms": self.alarms,
            "breaches": [b.as_json() for b in self.breaches],
            "notes": [str(note) for note in self.notes],
        }


@dataclass(frozen=True)
class Message:
    """One record of the events topic, as consumed."""

    partition: int
    offset: int
    key: bytes | None
    value: bytes


@dataclass
class TopicSnapshot:
    """The events topic and its dead letters, read from offset 0 up to the end offsets seen at the start.

    ``dead``: the source coordinates ``(partition, offset)`` in ``topic`` of every dead letter (each once);
    ``dead_records``: the dead-letter topic's records (a record quarantined twice, after a redelivery,
    counts twice here and once in ``dead``); ``dead_elsewhere``: dead letters of another source topic.
    """

    topic: str
    dlq_topic: str
    messages: list[Message] = field(default_factory=list)
    dead: set[tuple[int, int]] = field(default_factory=set)
    dead_records: int = 0
    dead_elsewhere: int = 0


@dataclass(frozen=True)
class Acknowledged:
    """An event a client was told was taken (``applied``, ``duplicate`` or ``buffered``): it must be
    archived at its seq or held (``prizecheck check --acknowledged FILE``)."""

    match: str
    seq: int
    data: bytes  # canonical msgpack


class CheckError(Exception):
    """The check cannot run (cannot connect, no such topic...): a message for the operator (its first
    argument, in English; a :class:`~replay.i18n.Phrase` or words already in the reader's language)."""


# --------------------------------------------------------------------------------------------- the topic


async def read_topic(bootstrap: str, topic: str, dlq_topic: str, *, timeout: float = 30.0) -> TopicSnapshot:
    """Read ``topic`` and ``dlq_topic`` from the beginning to their end offsets as of now (bounded by
    ``timeout`` seconds in all). Raises :class:`CheckError` when Kafka cannot be read."""
    try:
        return await asyncio.wait_for(_read_topic(bootstrap, topic, dlq_topic), timeout)
    except TimeoutError:
        raise CheckError(
            Phrase(
                "Kafka at {bootstrap} did not deliver {topic} within {timeout} s",
                bootstrap=bootstrap,
                topic=topic,
                timeout=f"{timeout:g}",
            )
        ) from None


async def _read_topic(bootstrap: str, topic: str, dlq_topic: str) -> TopicSnapshot:
    from streams.kafka.dlq import DeadLetter

    snapshot = TopicSnapshot(topic, dlq_topic)
    for r in await _read_all(bootstrap, topic, required=True):
        snapshot.messages.append(Message(r.partition, r.offset, r.key, r.value))
    for r in await _read_all(bootstrap, dlq_topic, required=False):
        snapshot.dead_records += 1
        letter = DeadLetter.from_record(r.key, r.value, list(r.headers or ()))
        if letter.topic == topic:
            snapshot.dead.add((letter.partition, letter.offset))
        else:
            snapshot.dead_elsewhere += 1
    snapshot.messages.sort(key=lambda m: (m.partition, m.offset))
    return snapshot


async def _read_all(bootstrap: str, topic: str, *, required: bool) -> list[Any]:
    """Every record of ``topic`` up to its end as of the first fetch (one consumer, no group)."""
    from aiokafka import AIOKafkaConsumer
    from aiokafka.errors import KafkaError

    consumer = AIOKafkaConsumer(
        bootstrap_servers=bootstrap, enable_auto_commit=False, group_id=None, auto_offset_reset="earliest"
    )
    try:
        await consumer.start()
    except KafkaError as exc:
        with contextlib.suppress(Exception):  # or aiokafka says "Unclosed AIOKafkaConsumer" on stderr
            await consumer.stop()
        raise CheckError(
            Phrase("cannot reach Kafka at {bootstrap}: {reason}", bootstrap=bootstrap, reason=describe(exc))
        ) from None
    try:
        return await _read_partitions(consumer, topic, required=required)
    except KafkaError as exc:
        raise CheckError(
            Phrase(
                "cannot read {topic} from Kafka at {bootstrap}: {reason}",
                topic=topic,
                bootstrap=bootstrap,
                reason=exc,
            )
        ) from None
    finally:
        await consumer.stop()


async def _read_partitions(consumer: Any, topic: str, *, required: bool) -> list[Any]:
    from aiokafka import TopicPartition

    partitions = consumer.partitions_for_topic(topic) if topic in await consumer.topics() else None
    if not partitions:
        if required:
            raise CheckError(
                Phrase("topic {topic} does not exist (check --topic / PRIZECHECK_TOPIC)", topic=topic)
            )
        return []
    tps = [TopicPartition(topic, p) for p in sorted(partitions)]
    consumer.assign(tps)
    # Where each partition ends is the high watermark of its first fetch, not ListOffsets: Tansu answers
    # ListOffsets(latest) with the last record batch's base offset + 1 (1 for a topic of one batch of 50
    # records, measured), which would cut the read short. ListOffsets still tells an empty partition (0).
    listed = await consumer.end_offsets(tps)
    await consumer.seek_to_beginning(*tps)
    out: list[Any] = []
    todo = {tp for tp in tps if listed[tp] > 0}
    ends: dict[Any, int] = {}
    while todo:
        batch = await consumer.getmany(*todo, timeout_ms=500)
        for tp in list(todo):
            if tp not in ends and consumer.highwater(tp) is not None:
                ends[tp] = consumer.highwater(tp)  # fixed at the first fetch: a snapshot
            for r in batch.get(tp, ()):
                if tp not in ends or r.offset < ends[tp]:
                    out.append(r)
            if tp in ends and await consumer.position(tp) >= ends[tp]:
                todo.discard(tp)
    return out


def admit_message(key: bytes | None, value: bytes) -> tuple[dict[str, Any], bytes] | str:
    """What the service does with one topic message: the event and the canonical bytes it archives, or
    why it must be quarantined (the worker's order, ``streams.kafka.agents``: the message decoded, its key
    checked, then the edge every transport shares, :func:`replay.contract.admit.admit`)."""
    try:
        event = decode_event(value)
        match = event.get("match")
        why = key_refusal(key, match) if isinstance(match, str) else None
        if why is not None:
            return why
        return admit(event, value)
    except EventError as exc:
        return str(exc)


# -------------------------------------------------------------------------------------------- the store


@dataclass
class _Match:
    """What Redis holds for one match, and what replaying its archive gives."""

    name: str
    archive: list[ArchivedEvent]
    head: int
    held: dict[int, bytes]
    record: bytes | None
    chain: str | None  # the trusted chain head the store keeps with every append
    board: bytes | None = None
    writes: int = 0
    checkpoint: bytes | None = None  # the signed checkpoint kept with the last write
    versions: list[RecordVersion] = field(default_factory=list)
    indexed: IndexEntry | None = None
    in_order: dict[int, bytes] = field(default_factory=dict)  # seq -> bytes of entries <seq>-0
    after_head: set[bytes] = field(default_factory=set)  # bytes of conflict / late entries
    game: Game | None = None
    copy_problem: str | None = None  # an archived match's Parquet copy, missing or changed
    # seq -> the bytes of each held event whose seal opens (``held`` keeps the values as stored: sealed)
    held_events: dict[int, bytes] = field(default_factory=dict)


async def _read_match(store: Checked, match: str) -> _Match:
    # the index entry first, then the match's slot in one atomic read (the order the ingest core reads)
    indexed = await store.index_entry(match)
    snap = await store.snapshot(match)
    state = snap.state
    return _Match(
        match,
        snap.events,
        state.head,
        snap.held,
        snap.record,
        state.chain,
        board=snap.board,
        writes=state.writes,
        checkpoint=state.checkpoint,
        versions=snap.versions,
        indexed=indexed,
        copy_problem=snap.copy_problem,
    )


async def _read_matches(store: Checked, names: Sequence[str]) -> list[_Match]:
    out: list[_Match] = []
    for i in range(0, len(names), READ_CHUNK):
        out += await asyncio.gather(*(_read_match(store, m) for m in names[i : i + READ_CHUNK]))
    return out


def _check_event(
    report: Report, code: BreachCode, match: str, seq: int | None, data: bytes, what: Phrase
) -> dict[str, Any] | None:
    """The event in ``data`` if it is one valid event of ``match`` in canonical bytes (and at ``seq`` when
    given); a breach otherwise."""
    try:
        event, canonical = admit(data)
    except EventError as exc:
        report.breach(
            code, match, seq, Phrase("{what} is not a valid event: {reason}", what=what, reason=Quoted(exc))
        )
        return None
    if event.get("match") != match:
        report.breach(
            code,
            match,
            seq,
            Phrase("{what} belongs to match {match}", what=what, match=repr(event.get("match"))),
        )
        return None
    if seq is not None and event.get("seq") != seq:
        report.breach(
            code, match, seq, Phrase("{what} carries seq {seq}", what=what, seq=repr(event.get("seq")))
        )
        return None
    if canonical != data:
        report.breach(code, match, seq, Phrase("{what} is not in canonical msgpack", what=what))
        return None
    return event


def _check_archive(report: Report, m: _Match, key: CheckpointKey | None = None) -> list[dict[str, Any]]:
    """Invariant 1 on Redis alone; returns the archived events that replay (in archive order)."""
    events: list[dict[str, Any]] = []
    last_in_order = 0
    for entry in m.archive:
        seq, sub = entry.position
        if entry.kind == "event":
            if sub != 0:
                report.breach(
                    "archive_id",
                    m.name,
                    seq,
                    Phrase("entry {seq}-{sub} is an in-order event not at <seq>-0", seq=seq, sub=sub),
                )
            if seq <= last_in_order:
                report.breach(
                    "archive_id",
                    m.name,
                    seq,
                    Phrase("seq {seq} archived in order after seq {last}", seq=seq, last=last_in_order),
                )
            last_in_order = max(last_in_order, seq)
            m.in_order[seq] = entry.data
            what = Phrase("the archived event {seq}-0", seq=seq)
            event = _check_event(report, "archive_entry", m.name, seq, entry.data, what)
        else:
            if sub < 1 or seq != last_in_order:
                report.breach(
                    "archive_id",
                    m.name,
                    seq,
                    Phrase(
                        "{kind} entry {seq}-{sub} is not after the head it was archived at "
                        "(last in-order seq {last})",
                        kind=entry.kind,
                        seq=seq,
                        sub=sub,
                        last=last_in_order,
                    ),
                )
            m.after_head.add(entry.data)
            what = Phrase("the archived {kind} entry {seq}-{sub}", kind=entry.kind, seq=seq, sub=sub)
            event = _check_event(report, "archive_entry", m.name, None, entry.data, what)
        if event is not None:
            events.append(event)
    if m.head != last_in_order:
        report.breach(
            "head_mismatch",
            m.name,
            m.head,
            Phrase(
                "the head key says {head}, the highest seq archived in order is {last}",
                head=m.head,
                last=last_in_order,
            ),
        )
    for seq, data in m.held.items():
        if seq <= m.head:
            report.breach(
                "pending_stale",
                m.name,
                seq,
                Phrase("an event is held at seq {seq}, at or below the head {head}", seq=seq, head=m.head),
            )
        try:
            opened = open_held(key, m.name, seq, data)
        except HeldForged as exc:
            report.breach("pending_entry", m.name, seq, Phrase("forged: {reason}", reason=Quoted(exc)))
            continue
        held = Phrase("the event held at seq {seq}", seq=seq)
        if _check_event(report, "pending_entry", m.name, seq, opened, held):
            m.held_events[seq] = opened
    return events


def _fold_archive(
    report: Report, m: _Match, games: dict[str, Game], key: CheckpointKey | None = None
) -> None:
    """Check ``m``'s archive (invariant 1) and replay what of it replays into ``games`` and ``m.game``."""
    events = _check_archive(report, m, key)
    if m.archive:
        game = _replay(events, m.name, report)
        if game is not None:
            games[m.name] = m.game = game


def _replay(events: Iterable[dict[str, Any]], match: str, report: Report) -> Game | None:
    game = checked_game()
    for event in events:
        try:
            game.apply(event)
        except Exception as exc:  # a valid event the engine cannot take is an engine bug: say so
            report.breach(
                "record_mismatch",
                match,
                event.get("seq"),
                Phrase("the engine failed replaying the archive: {error}", error=repr(exc)),
            )
            return None
    return game


def _expected_records(games: Mapping[str, Game]) -> dict[str, dict[str, Any]]:
    """The record of every game as the ingest core stores it: the engine's, settled by its playoff family
    (``link_records`` over every game; the service settles a family from its stored records the same way),
    plus the stub of a playoff game announced but not started."""
    records = link_records({m: g.record() for m, g in games.items()})
    for rec in list(records.values()):
        po = rec.get("playoff")
        if rec.get("status") == "awaiting_playoff" and isinstance(po, Mapping):
            child = po.get("child")
            if isinstance(child, str) and child not in records:
                records[child] = playoff_stub(rec, child)
    return records


class _Records:
    """Packs expected records as the store holds them (signed with the configured key, if any) and
    compares them with stored bytes."""

    def __init__(self, key: bytes | Verifier | None, key_id: str | None) -> None:
        self.key = key
        self.key_id = key_id or "default"
        self.unsigned_seen = False

    def same(self, stored: bytes, expected: Mapping[str, Any]) -> bool:
        unsigned = {**expected, "signature": None} if "signature" in expected else dict(expected)
        if isinstance(self.key, bytes):
            return stored == canonical_bytes(sign(unsigned, self.key, self.key_id))
        record = unpack_record(stored)
        if record is None:
            return False
        if self.key is not None:  # public keys: the signature checked under its key id (any rotation)
            return verify_signature(record, self.key) and canonical_bytes(
                {**record, "signature": None}
            ) == canonical_bytes(unsigned)
        if record.get("signature") is not None:
            self.unsigned_seen = True
            record = {**record, "signature": None}
        return canonical_bytes(record) == canonical_bytes(unsigned)


def _difference(stored: bytes, expected: Mapping[str, Any]) -> Phrase:
    record = unpack_record(stored) or {}
    keys = sorted(set(record) | set(expected))
    differ = [k for k in keys if k != "signature" and record.get(k) != expected.get(k)]
    if not differ:
        return Phrase("only the signature differs")
    return Phrase("differing fields: {fields}", fields=", ".join(differ[:6]))


# ---------------------------------------------------------------------------------------------- check


async def check(
    store: Checked,
    *,
    signing_key: bytes | None = None,
    key_id: str | None = None,
    topic: TopicSnapshot | None = None,
    acknowledged: Sequence[Acknowledged] = (),
    checkpoint_key: CheckpointKey | None = None,
    checkpoints: CheckpointLogSnapshot | None = None,
) -> Report:
    """Check every invariant over ``store`` (and ``topic``, when given); see the module docstring.

    ``acknowledged``: events a client was told were taken (over HTTP, say), which must each be archived
    at its seq or held; ``signing_key``/``key_id``: the service's (records are compared signed);
    ``checkpoint_key``: the key of the checkpoints and held events' seals (None: their MACs are not
    checked); ``checkpoints``: the checkpoint log kept outside Redis (None: rollbacks are not checked).
    """
    report = Report(mode="kafka" if topic is not None else "redis")
    if topic is None:
        report.notes.append(
            Phrase(
                "Redis only: the topic invariants were not checked (every produced event archived, "
                "produced = applied + duplicates + dead letters + pending, the topic's replay); give --kafka "
                "or KAFKA_URL"
            )
        )
    if checkpoint_key is None:
        report.notes.append(
            Phrase(
                "no checkpoint key (the key directory PRIZECHECK_KEYS_DIR, else the data directory's keys/; "
                "PRIZECHECK_SIGNING_KEY or checkpoint.key for those signed before): the "
                "signatures of checkpoints and the seals of held events were not checked"
            )
        )
    logged: dict[str, list[Checkpoint]] = {}
    if checkpoints is None:
        report.notes.append(
            Phrase(
                "no checkpoint log: a rollback to an older state the service signed cannot be seen in Redis "
                "alone (give --checkpoints FILE, or --kafka for the workers' checkpoint topic)"
            )
        )
    else:
        for where in checkpoints.errors:
            report.breach("log_entry", None, None, where)
        for ck in checkpoints.checkpoints:
            if ck.store == store.prefix:
                logged.setdefault(ck.match, []).append(ck)
        report.notes.append(
            Phrase(
                "checkpoint log: {checkpoints} checkpoints of {matches} matches under prefix {prefix} "
                "({sources})",
                checkpoints=sum(len(v) for v in logged.values()),
                matches=len(logged),
                prefix=store.prefix,
                sources=Joined(", ", checkpoints.sources) if checkpoints.sources else Phrase("no source"),
            )
        )
    admitted = [] if topic is None else [admit_message(msg.key, msg.value) for msg in topic.messages]
    names = set(await store.match_names())
    names.update(str(a[0]["match"]) for a in admitted if not isinstance(a, str))
    names.update(logged)
    matches = {m.name: m for m in await _read_matches(store, sorted(names))}
    report.matches = sum(1 for m in matches.values() if m.archive or m.record is not None or m.held)
    games: dict[str, Game] = {}
    for m in matches.values():
        if m.copy_problem is not None:
            report.breach(
                "archive_copy",
                m.name,
                m.head,
                Phrase("the match is archived, but {problem}", problem=m.copy_problem),
            )
        report.events += len(m.archive)
        report.applied += sum(1 for e in m.archive if e.kind == "event")
        report.pending += sum(1 for s in m.held if s > m.head)
        _fold_archive(report, m, games, checkpoint_key)
    expected = _expected_records(games)
    packer = _Records(
        checkpoint_key.public if checkpoint_key is not None and checkpoint_key.public else signing_key, key_id
    )
    suspects: list[str] = []
    for m in matches.values():
        _check_record(report, m, expected, packer)
        _check_chain(report, m)
        _check_board(report, m)
        _check_checkpoint(report, m, checkpoint_key, logged.get(m.name, []), suspects)
    await _check_index_again(report, store, checkpoint_key, suspects)
    alarms = await store.alarms()
    report.alarms = len(alarms)
    for match, detail in sorted(alarms.items()):
        report.breach("tamper_alarm", match, None, Alarm(detail))
    await _check_cold_archives(report, store, matches, checkpoint_key, logged)
    if acknowledged:
        _check_acknowledged(report, matches, acknowledged)
    if topic is not None:
        _check_topic(report, matches, topic, admitted)
        _check_topic_replay(report, matches, topic, admitted, packer)
    if packer.unsigned_seen:
        report.notes.append(
            Phrase(
                "records are signed, but no signing key is configured here (PRIZECHECK_KEYS_DIR, "
                "PRIZECHECK_SIGNING_KEY): they were compared without their signatures"
            )
        )
    return report


def _check_record(
    report: Report, m: _Match, expected: Mapping[str, Mapping[str, Any]], packer: _Records
) -> None:
    want = expected.get(m.name)
    if m.record is None:
        if m.game is not None:
            report.breach(
                "record_missing",
                m.name,
                m.head,
                Phrase("{count} archived events but no stored record", count=len(m.archive)),
            )
        return
    if want is None:
        if not m.archive:
            report.breach(
                "orphan_record",
                m.name,
                None,
                Phrase("a record is stored, but no archive and no playoff announces it"),
            )
        return  # an archive that could not be replayed is a breach already
    if not packer.same(m.record, want):
        report.breach(
            "record_mismatch",
            m.name,
            m.head,
            Phrase(
                "the stored record is not what a replay of the archive gives ({difference})",
                difference=_difference(m.record, want),
            ),
        )


def _check_chain(report: Report, m: _Match) -> None:
    if m.game is None:
        return
    replayed = m.game.log.head.hex()
    if m.chain is None:
        report.breach(
            "chain_mismatch", m.name, m.head, Phrase("no trusted chain head is stored for an archived match")
        )
    elif m.chain != replayed:
        report.breach(
            "chain_mismatch",
            m.name,
            m.head,
            Phrase(
                "the trusted chain head {stored}... is not the replayed archive's {replayed}...",
                stored=m.chain[:16],
                replayed=replayed[:16],
            ),
        )


def _check_board(report: Report, m: _Match) -> None:
    if m.game is None:
        return
    if m.board is None:
        report.breach("board_mismatch", m.name, m.head, Phrase("archived events, but no stored board"))
    elif m.board != canonical_bytes(m.game.board()):
        report.breach(
            "board_mismatch",
            m.name,
            m.head,
            Phrase("the stored board is not the board a replay of the archive gives"),
        )


@dataclass
class CheckpointLogSnapshot:
    """The checkpoint log as read: its checkpoints in order, what could not be read (one sentence each,
    naming where), and where it was read from."""

    checkpoints: list[Checkpoint] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)  # each a Phrase where the checker words it
    sources: list[str] = field(default_factory=list)


def read_checkpoint_file(snapshot: CheckpointLogSnapshot, path: str, key: CheckpointKey | None) -> None:
    """Add the checkpoints of a log file (``prizecheck serve``'s ``checkpoints.log``) to ``snapshot``."""
    from streams.store.checkpoint import read_log

    def error(line: int, why: str) -> None:
        snapshot.errors.append(
            Phrase(
                "{path} line {line}: {reason}",
                path=path,
                line=line,
                reason=why if isinstance(why, Spoken) else Quoted(why),
            )
        )

    snapshot.checkpoints.extend(read_log(path, key, errors=error))
    snapshot.sources.append(path)


def _stored_checkpoint(m: _Match) -> Checkpoint:
    """What the store holds for a match, described as a checkpoint would (from the replay)."""
    game = m.game or checked_game()
    others = ""
    for entry in m.archive:
        if entry.kind != "event":
            others = entry_step(others, entry.position[0], entry.kind, entry.data)
    chains = version_chains((v.record, f"{v.cause_match} {v.cause_seq}") for v in m.versions)
    vchain, causes = chains[-1] if chains else ("", "")
    return Checkpoint(
        m.name,
        seq=m.head,
        events=game.log.events(),
        entries=len(m.archive),
        chain=game.log.head.hex(),
        others=others,
        writes=m.writes,
        record=digest(m.record),
        board=digest(m.board),
        versions=len(m.versions),
        vchain=vchain,
        causes=causes,
    )


def _check_checkpoint(
    report: Report,
    m: _Match,
    key: CheckpointKey | None,
    logged: Sequence[Checkpoint],
    suspects: list[str] | None = None,
) -> None:
    """Invariant 5 for one match: its stored checkpoint, and the checkpoint log's."""
    replayable = m.game is not None or not m.archive  # an archive that does not replay is a breach already
    latest = max(logged, key=lambda c: c.writes) if logged else None
    if m.checkpoint is None:
        if latest is not None:
            report.breach(
                "checkpoint_missing",
                m.name,
                m.head,
                Phrase(
                    "the store holds no checkpoint, but the checkpoint log has {count} (the newest: "
                    "{newest}): the match's state was removed or replaced",
                    count=len(logged),
                    newest=latest.describes(),
                ),
            )
        return
    try:
        ck = Checkpoint.decode(m.checkpoint)
    except CheckpointError as exc:
        report.breach(
            "checkpoint_invalid",
            m.name,
            m.head,
            Phrase("the stored checkpoint is unreadable: {reason}", reason=reason(exc)),
        )
        return
    if not ck.verify(key) or ck.match != m.name:
        report.breach(
            "checkpoint_invalid",
            m.name,
            m.head,
            Phrase("the stored checkpoint is not signed by the service's key"),
        )
        return
    found = _stored_checkpoint(m)
    if replayable:
        differs = [
            name
            for name, mine, theirs in (
                (Phrase("head"), found.seq, ck.seq),
                (Phrase("events in order"), found.events, ck.events),
                (Phrase("chain head"), found.chain, ck.chain),
                (Phrase("archive entries"), found.entries, ck.entries),
                (Phrase("entries after the head"), found.others, ck.others),
                (Phrase("write count"), found.writes, ck.writes),
                (Phrase("record"), found.record, ck.record),
                (Phrase("board"), found.board, ck.board),
            )
            if mine != theirs
        ]
        entry = NONE if m.indexed is None else index_digest(m.indexed.view())
        if not ck.names_index(entry):
            if not differs and suspects is not None:
                suspects.append(m.name)  # maybe a writer between its two steps: read again (below)
            else:
                differs.append(Phrase("index entry"))
        if differs:
            report.breach(
                "checkpoint_mismatch",
                m.name,
                m.head,
                Phrase(
                    "the stored {fields} differ from what its checkpoint ({checkpoint}) signs: changed "
                    "outside the service",
                    fields=Joined(", ", differs),
                    checkpoint=ck.describes(),
                ),
            )
    if (found.versions, found.vchain, found.causes) != (ck.versions, ck.vchain, ck.causes):
        report.breach(
            "versions_mismatch",
            m.name,
            m.head,
            Phrase(
                "{stored} versions are stored; the checkpoint signs {signed}, and they differ: the version "
                "list was truncated or edited",
                stored=found.versions,
                signed=ck.versions,
            ),
        )
    if latest is not None and latest.writes > ck.writes:
        report.breach(
            "rollback",
            m.name,
            m.head,
            Phrase(
                "the store holds {stored}, but the checkpoint log's newest is {newest}: an older state "
                "was put back",
                stored=ck.describes(),
                newest=latest.describes(),
            ),
        )
    elif latest is not None and latest.writes == ck.writes and latest != ck:
        report.breach(
            "rollback",
            m.name,
            m.head,
            Phrase("the stored checkpoint of write {writes} is not the logged one", writes=ck.writes),
        )
    if replayable:
        _check_prefixes(report, m, logged)


async def _check_index_again(
    report: Report, store: Checked, key: CheckpointKey | None, suspects: Sequence[str]
) -> None:
    """A match whose index entry alone is not one its checkpoint names may have been read between a
    write's two steps (the checkpoint, then the index entry): read both again, a little later, in that
    order, before it is a breach."""
    for match in suspects:
        for attempt in range(3):
            await asyncio.sleep(0.1 * (attempt + 1))
            indexed = await store.index_entry(match)
            raw = (await store.state(match)).checkpoint
            try:
                ck = Checkpoint.decode(raw) if raw is not None else None
            except CheckpointError:
                ck = None
            entry = NONE if indexed is None else index_digest(indexed.view())
            if ck is not None and ck.verify(key) and ck.names_index(entry):
                break
        else:
            report.breach(
                "checkpoint_mismatch",
                match,
                None,
                Phrase(
                    "the stored index entry is not one its signed checkpoint names: changed outside the "
                    "service"
                ),
            )


def _check_prefixes(report: Report, m: _Match, logged: Sequence[Checkpoint]) -> None:
    """Every logged checkpoint describes a prefix of what is stored: the archive and the version list only
    ever grow, so a logged state that is not a prefix means they were cut or rewritten."""
    game = m.game or checked_game()
    heads = game.log.heads
    others = [""]
    for entry in m.archive:
        if entry.kind != "event":
            others.append(entry_step(others[-1], entry.position[0], entry.kind, entry.data))
    chains = [("", ""), *version_chains((v.record, f"{v.cause_match} {v.cause_seq}") for v in m.versions)]
    for c in sorted(logged, key=lambda c: c.writes, reverse=True):
        after = c.entries - c.events
        problems: list[Phrase] = []
        if c.events >= len(heads) or heads[c.events].hex() != c.chain:
            problems.append(
                Phrase(
                    "its first {count} events in order (chain head {chain}...)",
                    count=c.events,
                    chain=c.chain[:16],
                )
            )
        if not 0 <= after < len(others) or others[after] != c.others:
            problems.append(Phrase("its {count} entries after the head", count=max(after, 0)))
        if c.versions >= len(chains) or chains[c.versions] != (c.vchain, c.causes):
            problems.append(Phrase("its first {count} versions", count=c.versions))
        if problems:
            report.breach(
                "rollback",
                m.name,
                m.head,
                Phrase(
                    "the store does not hold what the logged checkpoint {checkpoint} signs: {problems} are "
                    "gone or rewritten",
                    checkpoint=c.describes(),
                    problems=Joined("; ", problems),
                ),
            )
            return  # the newest that fails says it; older ones fail the same way


async def _check_cold_archives(
    report: Report,
    store: Checked,
    matches: Mapping[str, _Match],
    key: CheckpointKey | None,
    logged: Mapping[str, Sequence[Checkpoint]],
) -> None:
    """Every cold archive the matches' markers name, against its signed manifest and the newest signed
    state of each of its matches (the checkpoint log's, or the store's own checkpoint when it verifies)."""
    from streams.store import manifest
    from streams.store.parquet import Marker

    names = sorted(matches)
    roots: set[str] = set()
    for i in range(0, len(names), READ_CHUNK):
        chunk = names[i : i + READ_CHUNK]
        for raw in await asyncio.gather(*(store.archive_marker(m) for m in chunk)):
            try:
                marker = None if raw is None else Marker.decode(raw)
            except ValueError:
                continue  # an unreadable marker is an archive_copy breach already
            if marker is not None:  # <root>/events/league=<L>/season=<S>/<file>
                roots.add(os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(marker.file)))))
    signed: list[Checkpoint] = [c for cks in logged.values() for c in cks]
    for m in matches.values():
        with contextlib.suppress(CheckpointError):  # an unreadable one is a breach already
            ck = None if m.checkpoint is None else Checkpoint.decode(m.checkpoint)
            if ck is not None and ck.match == m.name and ck.verify(key):
                signed.append(ck)
    latest = manifest.newest(signed, store.prefix)
    if roots and key is None:
        report.notes.append(
            Phrase("no checkpoint key: the signatures of the cold archives' manifests were not checked")
        )
    for root in sorted(roots):
        found = await asyncio.to_thread(manifest.verify, root, key, latest)
        for b in found:
            report.breach("archive_manifest", b.match, None, b.detail)


def _check_acknowledged(report: Report, matches: Mapping[str, _Match], acked: Sequence[Acknowledged]) -> None:
    for ack in acked:
        m = matches.get(ack.match)
        if m is not None and ack.data in (m.in_order.get(ack.seq), m.held_events.get(ack.seq)):
            continue
        if m is not None and ack.data in m.after_head:
            continue  # taken, and found conflicting or late: archived after the head with its finding
        found = Phrase("different bytes") if m is not None and ack.seq in m.in_order else Phrase("nothing")
        report.breach(
            "lost",
            ack.match,
            ack.seq,
            Phrase("acknowledged, but the archive holds {found} at this seq and none is held", found=found),
        )


Admitted = tuple[dict[str, Any], bytes] | str


def _check_topic(
    report: Report, matches: Mapping[str, _Match], topic: TopicSnapshot, admitted: Sequence[Admitted]
) -> None:
    """Invariants 1 and 2 against the topic: every message accounted for, each side counted on its own."""
    report.produced = len(topic.messages)
    report.dead_letters = len(topic.dead)
    duplicates = 0
    seen: set[tuple[str, int, bytes]] = set()  # what the core would answer "duplicate" to
    matched: set[tuple[str, int]] = set()  # archive entries <seq>-0 a message accounts for
    for msg, verdict in zip(topic.messages, admitted, strict=True):
        where = Phrase("partition {partition} offset {offset}", partition=msg.partition, offset=msg.offset)
        if isinstance(verdict, str):
            if (msg.partition, msg.offset) not in topic.dead:
                report.breach(
                    "not_quarantined",
                    None,
                    None,
                    Phrase(
                        "{where} must be refused ({reason}): not in the DLQ",
                        where=where,
                        reason=Quoted(verdict),
                    ),
                )
            continue
        event, data = verdict
        match, seq = str(event["match"]), int(event["seq"])
        triple = (match, seq, data)
        m = matches.get(match)
        if (msg.partition, msg.offset) in topic.dead:
            if m is not None and data in m.after_head:
                seen.add(
                    triple
                )  # a conflict or a late event, archived after the head: repeats are duplicates
            continue
        if triple in seen:
            duplicates += 1
        elif m is not None and m.in_order.get(seq) == data:
            seen.add(triple)
            matched.add((match, seq))
        elif m is not None and m.held_events.get(seq) == data and seq > m.head:
            seen.add(triple)
        else:
            found = Phrase("different bytes") if m is not None and seq in m.in_order else Phrase("nothing")
            report.breach(
                "lost",
                match,
                seq,
                Phrase(
                    "produced at {where}, but the archive holds {found} at this seq; not held, not in the "
                    "DLQ",
                    where=where,
                    found=found,
                ),
            )
    report.duplicates = duplicates
    for m in matches.values():
        for seq in m.in_order:
            if (m.name, seq) not in matched:
                report.breach(
                    "unproduced",
                    m.name,
                    seq,
                    Phrase("archived at {seq}-0, but no produced message has these bytes", seq=seq),
                )
    offsets = {(msg.partition, msg.offset) for msg in topic.messages}
    stray = sorted(c for c in topic.dead if c not in offsets)
    if stray:
        p, o = stray[0]
        report.notes.append(
            Phrase(
                "{count} dead letter(s) name offsets that are not in the topic (first: partition {partition} "
                "offset {offset})",
                count=len(stray),
                partition=p,
                offset=o,
            )
        )
    again = topic.dead_records - len(topic.dead) - topic.dead_elsewhere
    if again:
        report.notes.append(
            Phrase(
                "{count} dead letter(s) were quarantined again after a redelivery (counted once)", count=again
            )
        )
    if topic.dead_elsewhere:
        report.notes.append(
            Phrase("{count} dead letter(s) come from another topic (not counted)", count=topic.dead_elsewhere)
        )
    total = report.applied + duplicates + report.dead_letters + report.pending
    if report.produced != total:
        report.breach(
            "count_mismatch",
            None,
            None,
            Phrase(
                "produced {produced} != applied {applied} + duplicates {duplicates} + dead letters {dead} + "
                "pending {pending} (= {total})",
                produced=report.produced,
                applied=report.applied,
                duplicates=duplicates,
                dead=report.dead_letters,
                pending=report.pending,
                total=total,
            ),
        )


def _check_topic_replay(
    report: Report,
    matches: Mapping[str, _Match],
    topic: TopicSnapshot,
    admitted: Sequence[Admitted],
    packer: _Records,
) -> None:
    """Invariant 3 against the topic: a replay of its events (every message the core takes, in partition
    order, folded in seq order as ``prizecheck replay`` folds a file) gives each stored record."""
    from replay import replay_events

    games = replay_events(v[0] for v in admitted if not isinstance(v, str))
    for name, want in _expected_records(games).items():
        m = matches.get(name)
        if m is None or m.record is None or m.held:
            continue  # nothing stored (a breach already), or events still wait: not comparable yet
        if packer.same(m.record, want):
            continue
        late = [e.position for e in m.archive if e.kind == "late"]
        if late:
            seq, n = late[0]
            report.notes.append(
                Phrase(
                    "{match}: the topic's replay differs from the stored record, as it must: an event "
                    "arrived after its gap was reported (archived at {seq}-{sub}), which a replay in seq "
                    "order cannot see",
                    match=name,
                    seq=seq,
                    sub=n,
                )
            )
            continue
        report.breach(
            "topic_replay_mismatch",
            name,
            m.head,
            Phrase(
                "a replay of the topic gives another record ({difference})",
                difference=_difference(m.record, want),
            ),
        )


def acknowledged_events(events: Iterable[Mapping[str, Any]]) -> list[Acknowledged]:
    """:class:`Acknowledged` entries for events as a client sent them (as dicts)."""
    return [Acknowledged(str(e["match"]), int(e["seq"]), canonical_bytes(e)) for e in events]


async def verify_copies(
    store: Checked,
    copies: Mapping[str, Sequence[ArchivedEvent]],
    *,
    signing_key: bytes | Verifier | None = None,
    key_id: str | None = None,
) -> tuple[Report, dict[str, Game]]:
    """The check ``prizecheck archive`` makes before it deletes anything: each match's archive as read back
    from its copy (``copies``: match -> entries) must be the stored one entry for entry, and replay to the
    stored record, board and chain head (playoff families settled over the matches given); the report (a
    breach per difference) and the replayed games."""
    report = Report(mode="redis")
    matches = await _read_matches(store, sorted(copies))
    games: dict[str, Game] = {}
    for m in matches:
        copy = list(copies[m.name])
        if [(e.position, e.kind, e.data) for e in copy] != [(e.position, e.kind, e.data) for e in m.archive]:
            report.breach(
                "archive_copy",
                m.name,
                m.head,
                Phrase(
                    "the copy read back holds {count} entries, not the {archived} archived ones",
                    count=len(copy),
                    archived=len(m.archive),
                ),
            )
            continue
        _fold_archive(report, m, games)
    expected = _expected_records(games)
    packer = _Records(signing_key, key_id)
    for m in matches:
        _check_record(report, m, expected, packer)
        _check_chain(report, m)
        _check_board(report, m)
    return report, games
