"""The ingest core: one function that takes events and lands them in the store, whoever delivered them.

``prizecheck serve`` (HTTP, embedded) and the Kafka workers both call :meth:`IngestCore.ingest_many`
(:meth:`IngestCore.ingest` is that call with one event): there is one path. The core admits each event at
the edge every transport shares (:func:`replay.contract.admit.admit`: decoded, its shape and schema checked,
its canonical bytes), applies it to the match's :class:`replay.Game` (kept in memory by the owner of the
match), and hands the store the archived bytes with the new board and record in one atomic append: the
in-line events of one match in a batch are one append (a run); a conflict is its own. Then it updates the
league indexes (a second, idempotent step) and the playoff links between parent and child records.

Guarantees (docs/reliability.md, docs/storage.md): the archive is the source of truth and a record rebuilt
from it is byte for byte the one stored; delivery may repeat (exact duplicates are no-ops); events ahead of
a gap wait in a bounded buffer (count and time; kept in the store, and picked up again by the next owner
on start-up or when a partition moves: :meth:`IngestCore.recover`), then the gap is handed to the engine,
which reports it; every record write is fenced by the record's write count, so two processes writing one
record (a match's owner and the owner of a playoff game settling it) never overwrite each other; a rebuild
checks the archive against the trusted chain head the store keeps and raises a tamper alarm instead of
re-signing a changed archive; a finished record that changes is kept as a new version. Nothing is dropped
silently: every event ends as applied, duplicate, buffered or rejected (quarantined by the caller), and
``stats()`` counts them.

This module holds the public calls and the decision for each event of a batch; each guarantee is a module
of its own under it (the package's ``__init__`` lists them), which :class:`IngestCore` is built from.
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Callable, Sequence
from typing import Any, cast

from replay.contract.admit import admit
from replay.engine import EventError
from replay.signing import SigningKey
from streams.ingest.held import GapStart, HeldEvents, Writes, waited_since
from streams.ingest.rebuild import Rebuild
from streams.ingest.state import (
    AMENDMENTS,
    MAX_ATTEMPTS,
    Item,
    MatchMemory,
    Outcome,
    Run,
    Stale,
    StoreContention,
    Tamper,
    family_of,
    judge_only,
    tampered,
)
from streams.ingest.write import WritePath
from streams.settings import Settings
from streams.store import IndexEntry, IngestStore, Tampered
from streams.store.checkpoint import CheckpointKey


class IngestCore(WritePath, Rebuild):
    """Apply events to matches and land them in a :class:`~streams.store.Store`.

    One instance per process; it must own the matches it is given (Kafka: partitions keyed by match).
    Calls for the same match are serialised; different matches run concurrently.

    ``gap_limit``: events that may wait behind a gap per match before the gap is reported anyway;
    ``gap_timeout``: seconds the oldest waiting event may wait (enforced by :meth:`flush_gaps`, which the
    caller runs periodically); ``signing_key``: sign every stored record (``replay.engine.chain.sign``)
    with this Ed25519 key (``replay.signing.SigningKey``: the service's, :meth:`from_settings`), or with
    these HMAC-SHA256 secret bytes named ``key_id`` (as records were signed before);
    ``max_matches``: games kept in memory; the least recently used idle ones are dropped beyond it (they
    are rebuilt from the archive if they are seen again); ``actor``: who this process is in the audit log;
    ``concurrency``: the most matches (playoff families) of one batch decided at once.
    ``checkpoint_key``: the key of the signed checkpoints and of the seals of held events (default: the
    signing key; None and no signing key: checkpoints are kept unsigned and held events unsealed, which
    protects against nothing but accidents: ``prizecheck serve`` and ``prizecheck worker`` always have a
    key); ``checkpoints``: the log outside the store every checkpoint is appended to before the writes it
    describes are answered (default: this process's memory). docs/reliability.md, "Tampering".
    Store errors (e.g. Redis down) propagate: the event was not processed and must be retried.
    """

    @functools.cached_property
    def held(self) -> HeldEvents:
        """The events waiting behind a gap, handed this core's write path (:mod:`streams.ingest.held`)."""
        return HeldEvents(self, Writes(self._game, self._alarm_cleared, self._add, self._flush))

    @classmethod
    def from_settings(cls, store: IngestStore, settings: Settings, **options: Any) -> IngestCore:
        """A core with the gap limits from ``settings`` (the environment); records are signed with the
        Ed25519 key of ``checkpoint_key`` (the service's key ring) when it has one, else with the HMAC key
        ``PRIZECHECK_SIGNING_KEY`` when set (a deployment without a key ring yet)."""
        ck = options.get("checkpoint_key")
        signer = ck.signer if isinstance(ck, CheckpointKey) else None
        return cls(
            store,
            gap_limit=settings.gap_limit,
            gap_timeout=settings.gap_timeout,
            signing_key=signer if isinstance(signer, SigningKey) else settings.signing_key,
            key_id=settings.key_id,
            **options,
        )

    async def ingest(self, event: dict[str, Any] | bytes) -> Outcome:
        """Take one event: a dict (decoded JSON) or the bytes of one msgpack map (:meth:`ingest_many`)."""
        return (await self.ingest_many([event]))[0]

    async def ingest_many(
        self,
        items: Sequence[dict[str, Any] | bytes],
        raws: Sequence[bytes] | None = None,
        *,
        judge: bool = True,
    ) -> list[Outcome]:
        """Take a batch of events: one outcome per item, in the order given.

        ``raws``: for items already decoded from messages, the messages' bytes (item by item): when they
        are canonical already they are archived and chained as they came, without encoding the event again.

        Items are grouped by match (each match keeps the batch's order); playoff families (``g1``,
        ``g1/tb1``...) go one match after the other, so a playoff game's finish settles its parent's
        stored record as it would one event at a time; different families run concurrently. Within a
        match, the events that are next in line are applied to the game in memory and written together
        (one :meth:`Store.append_run`); a run is also written where the playoff links act on the record
        (``run_ends``). The stored archive, record and board are byte for byte those of one event per call
        (``tests/streams/ingest/test_write.py``).

        A store error propagates (nothing is returned): events of other matches may have been stored, and
        a retry of the batch finds them as duplicates.

        ``judge=False`` (an HTTP producer that is not a judge: docs/http-api.md, "Scopes and ownership"):
        a penalty or a correction is rejected once its game has ended (also when an earlier event of the
        same batch ended it), and when it would wait behind a gap (its game may end meanwhile).
        """
        outcomes: list[Outcome | None] = [None] * len(items)
        families: dict[str, dict[str, list[Item]]] = {}
        for i, item in enumerate(items):
            try:
                ev, data = admit(item, None if raws is None else raws[i])
            except EventError as exc:
                self.counts["rejected"] += 1
                outcomes[i] = Outcome("rejected", exc.match, exc.seq, str(exc), field=exc.field, error=exc)
                continue
            match: str = ev["match"]
            families.setdefault(family_of(match), {}).setdefault(match, []).append((i, ev["seq"], ev, data))
        if len(families) == 1:
            await self._ingest_family(next(iter(families.values())), outcomes, judge)
        elif families:
            # at most ``concurrency`` families at once: their store calls share the client's connections
            gate = asyncio.Semaphore(self.concurrency)

            async def gated(family: dict[str, list[Item]]) -> None:
                async with gate:
                    await self._ingest_family(family, outcomes, judge)

            work = [gated(f) for f in families.values()]
            for result in await asyncio.gather(*work, return_exceptions=True):
                if isinstance(result, BaseException):
                    raise result
        await self.publish()
        return cast(list[Outcome], outcomes)

    async def flush_gaps(self, now: float | None = None, started: GapStart | None = None) -> list[Outcome]:
        """Report every gap whose oldest waiting event has waited ``gap_timeout`` seconds.

        The engine gets the next waiting event (and records a ``seq_gap`` finding); whatever then follows
        in order is applied too. Returns one ``applied`` outcome per gap, listing the seqs applied.

        ``started(match)``: from when the match's wait counts, if not from its oldest waiting event's
        arrival (the later of the two counts; None: not yet). The Kafka worker starts it once it has caught
        up with what the partition held when the gap opened (:mod:`streams.kafka.gaps`).
        """
        now = self.clock() if now is None else now
        outcomes: list[Outcome] = []
        for match, st in list(self._matches.items()):
            since = waited_since(st, match, started)
            if since is None or now - since < self.gap_timeout:
                continue
            outcomes += await self._locked(
                match, functools.partial(self.held.flush_match, match=match, now=now, started=started)
            )
        await self.publish()
        return outcomes

    async def recover(self, owns: Callable[[str], bool] | None = None) -> list[str]:
        """Pick up the events a previous owner left waiting behind a gap (in the store), for the matches
        this process owns (``owns``; all by default): called on start-up and when partitions are assigned.

        Their wait starts now, so :meth:`flush_gaps` releases them after ``gap_timeout`` even if no other
        event for the match ever arrives. Returns the matches picked up.
        """
        found = [m for m in await self.store.pending_matches() if owns is None or owns(m)]
        for match in found:
            await self._locked(match, functools.partial(self._game, match=match))
        await self.publish()
        return found

    async def rebuild(self, match: str) -> dict[str, Any] | None:
        """Re-derive a match from its archive, store its record again and re-index it.

        Returns the record (None for an unknown match). Recovery after an engine upgrade or a crash
        between the append and the index step. An archive that does not arrive at the trusted chain head
        raises the tamper alarm and is not re-signed: :class:`EventError` names it.
        """

        async def work(st: MatchMemory) -> dict[str, Any] | None:
            st.game = None
            game = await self._game(st, match)
            if st.tampered is not None:
                raise EventError(st.tampered, match=match, field="archive")
            if game.match is None:
                return None
            record = await self._final_record(match, game)
            packed = self._pack(record)
            cause = self._cause(match, record, st.head, provisional=game.effect_pending)
            ck = self._next_checkpoint(st, match, packed, cause, IndexEntry.from_record(record, st.head))
            try:
                written = await self.store.put_record(
                    match,
                    packed,
                    writes=st.writes,
                    cause=cause,
                    expect=self._expect(st),
                    checkpoint=ck.encode(),
                )
            except Tampered as exc:
                detail = self._tamper_detail(st, match, exc.what)
                await self._alarm(st, match, detail)
                raise EventError(detail, match=match, field="archive") from None
            if not written:
                raise StoreContention(f"match {match}: its record was written during the rebuild; retry")
            self._wrote(st, ck, packed, None)
            await self._index(st, record, force=True)
            return record

        try:
            return await self._locked(match, work)
        finally:
            await self.publish()

    async def copy_refused(self, match: str) -> str | None:
        """A reader found that an archived match's cold copy is not the one archived (the store refused to
        serve it: :class:`streams.store.CopyRefused`): the match is read again from the store, which checks
        the copy and raises the tamper alarm as a rebuild does (kept, audited, counted in the indexes,
        further events refused; once per match and process). Returns the alarm, or None when the copy
        checks out now."""

        async def work(st: MatchMemory) -> str | None:
            if st.tampered is None:
                st.game = None  # what memory holds was read before the copy changed: read it again
                await self._game(st, match)
            return st.tampered

        return await self._locked(match, work)

    async def _ingest_family(
        self, groups: dict[str, list[Item]], outcomes: list[Outcome | None], judge: bool = True
    ) -> None:
        # A playoff parent and its children, one match after the other: a child's finish settles the
        # parent's stored record, as it would one event after the other.
        for match, items in groups.items():
            work = functools.partial(
                self._ingest_items, match=match, items=items, outcomes=outcomes, judge=judge
            )
            await self._locked(match, work)

    async def _ingest_items(
        self,
        st: MatchMemory,
        match: str,
        items: list[Item],
        outcomes: list[Outcome | None],
        judge: bool = True,
    ) -> None:
        """Decide a match's items; where another writer moved the head or the record, rebuild and decide
        again from the first item whose outcome was not handed out."""
        for _ in range(MAX_ATTEMPTS):
            run = Run(outcomes, judge=judge)
            try:
                await self._decide(st, match, items, run)
                return
            except Stale:
                st.game = None
                items = items[run.start :]
            except Tamper:
                # nothing of the run was written: every item not handed out yet is refused (the alarm
                # stands; the next rebuild finds the same evidence and keeps the match quarantined)
                st.game = None
                for i, seq, _, _ in items[run.start :]:
                    outcomes[i] = tampered(match, seq, st.tampered or "")
                    self.counts["rejected"] += 1
                return
        raise StoreContention(
            f"match {match}: another writer kept changing its head or record over {MAX_ATTEMPTS} attempts"
        )

    async def _decide(self, st: MatchMemory, match: str, items: list[Item], run: Run) -> None:
        for pos, (i, seq, ev, data) in enumerate(items):
            run.pos = pos
            game = await self._game(st, match)
            if await self._alarm_cleared(st, match):
                game = await self._game(st, match)
            if st.tampered is not None:
                run.decided.append((i, tampered(match, seq, st.tampered)))
                continue
            if game.next_seq in st.buffer:  # held events a previous owner left in line (it stopped first)
                await self.held.drain(st, match, game, run, None)
            if (
                not run.judge
                and ev.get("type") in AMENDMENTS
                and (seq > game.next_seq or (seq == game.next_seq and game.status != "in_progress"))
            ):  # a producer's penalty or correction after the end, or one that would wait behind a gap
                run.decided.append((i, judge_only(match, seq, ev["type"], game.status)))
                continue
            if seq == game.next_seq:
                game.apply(ev, data)
                applied = [seq]
                await self._add(st, match, game, run, seq, data)
                await self.held.drain(st, match, game, run, applied)
                run.decided.append((i, Outcome("applied", match, seq, applied=applied)))
            elif seq > game.next_seq:
                run.decided.append((i, await self.held.ahead(st, match, game, run, seq, ev, data)))
            else:
                await self._flush(st, match, run)
                run.decided.append((i, await self._old_seq(st, match, seq, ev, data, game)))
            if not run.events:
                self._commit(run, done=True)
        await self._flush(st, match, run)
        self._commit(run, done=True)
