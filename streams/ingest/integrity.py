"""Integrity and checkpoints: the store holds what this service wrote (docs/reliability.md, "Tampering").

Every write carries the signed checkpoint of the store after it (:meth:`Integrity._next_checkpoint`), and
what the writer says the store holds now (:meth:`Integrity._expect`: the write scripts refuse anything
else); each checkpoint goes to the checkpoint log outside the store before the write is answered
(:meth:`Integrity.publish`). What a rebuild reads is checked against both (:meth:`Integrity._verify`);
anything that does not hold is a tamper alarm (:meth:`Integrity._alarm`): kept, audited, counted in the
indexes, and the match takes nothing more until someone clears it (:func:`clear_alarm`).
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from replay import Game
from replay.engine import GENESIS, canonical_bytes, sign
from replay.records import unpack_record
from replay.signing import PublicKeys, SigningKey, receipt
from streams.ingest.memory import Memory
from streams.ingest.state import INDEX_PROBLEM, SHA1_NONE, TAMPERED, MatchMemory, Outcome, unsigned
from streams.store import (
    AuditEntry,
    Expect,
    IndexEntry,
    IngestStore,
    MatchState,
    RecordVersion,
    Stored,
    tamper,
    version_cause,
)
from streams.store.checkpoint import (
    NONE,
    Checkpoint,
    CheckpointError,
    add_version,
    digest,
    index_digest,
    sha1,
    version_chains,
)


class Integrity(Memory):
    """Checkpoints, the checks of what the store holds, and the tamper alarms."""

    @property
    def verifier(self) -> bytes | PublicKeys | None:
        """What record signatures are checked with: the public keys of the checkpoint key (the Ed25519
        keys, and the HMAC secret of records signed before), else the HMAC secret itself, else None."""
        if self.checkpoint_key is not None and self.checkpoint_key.public is not None:
            return self.checkpoint_key.public
        return self.signing_key if isinstance(self.signing_key, bytes) else None

    def receipts(self, outcomes: Sequence[Outcome]) -> list[dict[str, Any]]:
        """A :meth:`receipt` per match an event of ``outcomes`` was accepted for (applied, duplicate or
        buffered): what an answer to a write carries."""
        accepted = sorted({o.match for o in outcomes if o.status != "rejected" and o.match})
        return [r for r in (self.receipt(m) for m in accepted) if r is not None]

    def receipt(self, match: str) -> dict[str, Any] | None:
        """A signed receipt of what is archived of ``match`` now (``replay.signing.receipt``: the head seq,
        the events archived in order, their chain head, the time), from the newest checkpoint this process
        wrote or read for it, which the checkpoint log holds before any write is answered. None without an
        Ed25519 key, or before anything of the match is stored."""
        signer = self.checkpoint_key.signer if self.checkpoint_key is not None else None
        ck = self.checkpoints.latest(match)
        if not isinstance(signer, SigningKey) or ck is None:
            return None
        at = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        return receipt(signer, match=match, seq=ck.seq, events=ck.events, chain=ck.chain, at=at)

    async def publish(self) -> None:
        """Append the checkpoints of the writes done so far to the checkpoint log (every public call does
        it before it returns: a write is answered only once its checkpoint is outside the store). On an
        error they stay, and the next call appends them."""
        if self._outbox:
            batch, self._outbox = self._outbox, []
            try:
                await self.checkpoints.append(batch)
            except BaseException:
                self._outbox[:0] = batch
                raise

    def _empty(self, match: str) -> Checkpoint:
        """The checkpoint of a match the store holds nothing of."""
        return Checkpoint(match, store=self.prefix, chain=GENESIS.hex())

    def _next_checkpoint(
        self,
        st: MatchMemory,
        match: str,
        record: bytes | None,
        cause: str,
        entry: IndexEntry | None,
        board: bytes | None = None,
        game: Game | None = None,
        appended: int = 0,
    ) -> Checkpoint:
        """The signed checkpoint of the store after writing ``record`` (None: taking it away) (and
        ``board`` and ``appended`` events of ``game``, for an append) over what ``st`` says is stored."""
        base = st.ck or self._empty(match)
        changes: dict[str, Any] = {
            "store": self.prefix,
            "writes": st.writes + 1,
            "record": digest(record),
            "index": self._entry_digest(st, entry),
            # what the indexes may show until this write's index step: what the last checkpoint named,
            # or what this writer saw (another writer's index step may have run since, or not yet)
            "index_prev": base.index,
            "index_seen": self._entry_digest(st, st.indexed),
        }
        if board is not None:
            changes["board"] = digest(board)
        if game is not None:
            changes["seq"] = game.log.next_seq - 1 if appended else base.seq
            changes["events"] = game.log.events()
            changes["entries"] = base.entries + appended
            changes["chain"] = game.log.head.hex()
        ck = base.but(**changes)
        if cause and record is not None and self._sha1(record) != (st.record_sha1 or SHA1_NONE):
            ck = add_version(ck, record, cause)  # write.lua keeps it as a new version
        return ck.signed(self.checkpoint_key)

    @staticmethod
    def _entry_digest(st: MatchMemory, entry: IndexEntry | None) -> str:
        """:func:`index_digest` of an entry of ``st``'s match, remembered for the match's last two (a
        write's entry is the next write's entry seen). Per match, not per core: the core writes up to
        ``concurrency`` matches at once, whose writes interleave between one write's checkpoint and the
        next, and a few slots for the whole core were always another match's (two digests a write).
        Known by what the entry shows, not only by identity: every write makes a new entry, which for a
        game in progress mostly shows what the last one did (the digest is of :meth:`IndexEntry.view`
        alone, so an equal view has the same digest)."""
        if entry is None:
            return NONE
        view = entry.view()
        for known, value in st.digests:
            if known is entry or known.view() == view:
                return value
        value = index_digest(view)
        st.digests = [(entry, value), *st.digests[:1]]
        return value

    def _sha1(self, data: bytes) -> str:
        """SHA-1 of a record just packed, computed once for the checkpoint and the next expectation."""
        last, digest_ = self._sha1_last
        if data is not last:
            digest_ = sha1(data)
            self._sha1_last = (data, digest_)
        return digest_

    def _expect(self, st: MatchMemory) -> Expect:
        """What ``st`` says the store holds (the write scripts refuse to write over anything else)."""
        return Expect(
            record=st.record_sha1 or SHA1_NONE,
            board=st.board_sha1 or SHA1_NONE,
            checkpoint=st.ck_raw,
            versions=st.ck.versions if st.ck is not None else 0,
        )

    def _wrote(self, st: MatchMemory, ck: Checkpoint, record: bytes, board: bytes | None) -> None:
        """The store holds ``ck``'s state now (this owner wrote it): remember it, and queue the checkpoint
        for the log (:meth:`publish`)."""
        st.ck, st.ck_raw, st.writes = ck, ck.encode(), ck.writes
        st.record_sha1 = self._sha1(record)
        if board is not None:
            st.board_sha1 = sha1(board)
        self.checkpoints.note(ck)
        self._outbox.append(ck)

    @staticmethod
    def _tamper_detail(st: MatchMemory, match: str, what: str) -> str:
        writes = st.ck.writes if st.ck is not None else 0
        changed = tamper.CHANGED.format(what=what, writes=writes)
        return tamper.detail(match, [changed, tamper.REFUSED])

    def _cause(self, match: str, record: Mapping[str, Any], seq: int, *, provisional: bool = False) -> str:
        """A finished record's cause (``"<match> <seq>"``): empty while the game is in progress, and while
        an effect is still resolving (``provisional``: the record is not a version anyone should see)."""
        if provisional or record.get("status", "in_progress") == "in_progress":
            return ""
        return version_cause(match, seq)

    def _pack(self, record: dict[str, Any]) -> bytes:
        if self.signing_key is not None:
            record = sign(unsigned(record), self.signing_key, self.key_id)
        return canonical_bytes(record)

    def _verify(
        self,
        match: str,
        found: Checkpoint,
        state: MatchState,
        versions: Sequence[RecordVersion],
        indexed: IndexEntry | None,
        problems: list[str],
    ) -> Checkpoint:
        """Check what a rebuild read (``found``: the archive replayed, the stored record and board digests)
        against the stored checkpoint and the checkpoint log; append what does not hold to ``problems``.
        Returns the checkpoint that describes the store (the stored one, or for a match stored before
        checkpoints existed, ``found`` itself)."""
        chains = version_chains((v.record, version_cause(v.cause_match, v.cause_seq)) for v in versions)
        vchain, causes = chains[-1] if chains else ("", "")
        entry = NONE if indexed is None else index_digest(indexed.view())
        latest = self.checkpoints.latest(match)
        if found.seq != state.head:
            problems.append(tamper.HEAD.format(head=state.head, seq=found.seq))
        if state.checkpoint is None:
            if latest is not None:
                problems.append(tamper.NO_CHECKPOINT.format(checkpoint=latest.describes()))
            if state.chain is not None and state.chain != found.chain:
                problems.append(tamper.CHAIN.format(replayed=found.chain, stored=state.chain))
            return replace(
                found,
                versions=len(versions),
                vchain=vchain,
                causes=causes,
                index=entry,
                index_prev=entry,
                index_seen=entry,
            )
        try:
            ck = Checkpoint.decode(state.checkpoint)
        except CheckpointError as exc:
            problems.append(tamper.UNREADABLE.format(reason=exc))
            return found
        if not ck.verify(self.checkpoint_key) or ck.match != match:
            problems.append(tamper.FORGED)
            return ck
        if latest is not None and latest.writes > ck.writes:
            problems.append(tamper.ROLLED_BACK.format(checkpoint=ck.describes(), latest=latest.describes()))
        elif latest is not None and latest.writes == ck.writes and latest != ck:
            problems.append(tamper.NOT_LOGGED.format(writes=ck.writes))
        archive = (found.seq, found.events, found.chain, found.entries, found.others)
        if archive != (ck.seq, ck.events, ck.chain, ck.entries, ck.others):
            problems.append(
                tamper.ARCHIVE.format(
                    seq=found.seq,
                    entries=found.entries,
                    chain=found.chain[:16],
                    signed_seq=ck.seq,
                    signed_entries=ck.entries,
                    signed_chain=ck.chain[:16],
                )
            )
        if state.writes != ck.writes:
            problems.append(tamper.WRITES.format(writes=state.writes, signed=ck.writes))
        if found.record != ck.record:
            problems.append(tamper.RECORD)
        if found.board != ck.board:
            problems.append(tamper.BOARD)
        if (len(versions), vchain, causes) != (ck.versions, ck.vchain, ck.causes):
            problems.append(tamper.VERSIONS.format(count=len(versions), signed=ck.versions))
        if not ck.names_index(entry):
            problems.append(INDEX_PROBLEM)
        return ck

    def _stored_problem(self, match: str, read: Stored, view: MatchMemory) -> str | None:
        """Does a record read for a write by another match's owner agree with its checkpoint? Sets
        ``view.ck`` (None: a match stored before checkpoints existed, written without one)."""
        if read.checkpoint is None:
            return None
        try:
            ck = Checkpoint.decode(read.checkpoint)
        except CheckpointError as exc:
            return tamper.UNREADABLE.format(reason=exc)
        if not ck.verify(self.checkpoint_key) or ck.match != match:
            return tamper.FORGED
        if ck.writes != read.writes or ck.record != digest(read.record):
            return tamper.OTHER_RECORD
        view.ck, view.ck_raw = ck, read.checkpoint
        return None

    async def _alarm(self, st: MatchMemory, match: str, detail: str) -> None:
        """A tamper alarm: the store holds something the service did not write.

        docs/reliability.md: the stored (signed) record is left as it is, never re-signed from changed
        data; the alarm is kept in the store (``prizecheck check`` fails), written to the audit log, and
        counted as an ``archive_tampered`` finding in the indexes; events for the match are refused."""
        detail += tamper.SEP + tamper.KEPT
        st.tampered = detail
        await self.store.alarm(match, detail)
        await self.store.audit(
            AuditEntry(
                "tamper_alarm", self.actor, target=match, origin=self.origin, detail=detail, at=time.time()
            )
        )
        stored = unpack_record(await self.store.record(match))
        if stored is not None and isinstance(stored.get("match"), str):
            entry = IndexEntry.from_record({**stored, "match": match}, st.head)
            findings = {**entry.findings, TAMPERED: 1}
            await self.store.index(replace(entry, seq=st.head, findings=findings))

    async def _alarm_cleared(self, st: MatchMemory, match: str) -> bool:
        """Whether the match's alarm, which this process keeps, was cleared in the store since (``prizecheck
        alarms --clear``, once someone looked into it): then the match is to be read again, which checks
        it again (data still changed raises the alarm again: the evidence stays)."""
        if st.tampered is None or match in await self.store.alarms():
            return False
        st.tampered, st.game = None, None
        return True

    async def _alarm_other(self, match: str, detail: str) -> None:
        """A tamper alarm on a match this process does not own (a playoff game it settles or stubs)."""
        st = self._matches.get(match)
        if st is not None:
            st.game = None  # if it is ours after all, rebuild (and re-check) it on next use
        await self.store.alarm(match, detail)
        await self.store.audit(
            AuditEntry(
                "tamper_alarm", self.actor, target=match, origin=self.origin, detail=detail, at=time.time()
            )
        )


async def clear_alarm(store: IngestStore, match: str) -> str | None:
    """Clear a match's tamper alarm once someone has looked into it (``prizecheck alarms --clear``): take it
    out of the store, and the ``archive_tampered`` finding the alarm counted out of the match's index entry
    (the entry its checkpoint names again). Returns what the alarm said, or None when none stood. The owner
    reads the match again at its next event: data still changed raises the alarm again."""
    detail = await store.clear_alarm(match)
    if detail is None:
        return None
    entry = await store.index_entry(match)
    if entry is not None and TAMPERED in entry.findings:
        findings = {code: n for code, n in entry.findings.items() if code != TAMPERED}
        await store.index(replace(entry, findings=findings))
    return detail


def decoded(data: bytes | None) -> Checkpoint | None:
    """A stored checkpoint, or None when there is none or it is unreadable."""
    if data is None:
        return None
    try:
        return Checkpoint.decode(data)
    except CheckpointError:
        return None
