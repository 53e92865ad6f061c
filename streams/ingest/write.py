"""The write path: a match's in-line events applied in memory and written as one run.

Each run is one atomic store call (:meth:`WritePath._flush`: the archived events, the board and the
signed record, fenced by the record's write count and by what the store is expected to hold); its
outcomes are handed out only once it is stored (:meth:`WritePath._commit`). Then the index step and the
playoff links (:meth:`WritePath._after_write`). A different event at an archived seq is archived as a
conflict and reported as the engine's finding (:meth:`WritePath._old_seq`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from replay import Game
from replay.engine import canonical_bytes
from streams.ingest.playoffs import Playoffs
from streams.ingest.state import MAX_RUN, MatchMemory, Outcome, Run, Stale, Tamper, both, tampered
from streams.store import Append, AppendRun, CopyRefused, IndexEntry, tamper
from streams.store.checkpoint import entry_step


class WritePath(Playoffs):
    """Runs of events written to the store, and the steps after each write."""

    async def _add(self, st: MatchMemory, match: str, game: Game, run: Run, seq: int, data: bytes) -> None:
        run.events.append((seq, data))
        if run_ends(game, run.events, st):
            await self._flush(st, match, run)

    async def _flush(self, st: MatchMemory, match: str, run: Run) -> None:
        """Write the run (one atomic store call), then commit the outcomes that waited for it."""
        if run.events:
            game = st.game
            assert game is not None
            record = await self._final_record(match, game)
            events = tuple(run.events)
            last = events[-1][0]
            packed, board = self._pack(record), canonical_bytes(game.board())
            cause = self._cause(match, record, last, provisional=game.effect_pending)
            entry = IndexEntry.from_record(
                record, last
            )  # made once: the checkpoint names it, the index writes it
            ck = self._next_checkpoint(st, match, packed, cause, entry, board, game, len(events))
            result = await self.store.append_run(
                AppendRun(
                    match,
                    st.head,
                    events,
                    board,
                    packed,
                    writes=st.writes,
                    chain=game.log.head.hex(),
                    cause=cause,
                    allow_gap=run.gap,
                    expect=self._expect(st),
                    checkpoint=ck.encode(),
                )
            )
            if result.status == "tampered":
                await self._alarm(st, match, self._tamper_detail(st, match, result.what))
                raise Tamper
            if result.status != "applied":
                raise Stale
            run.events.clear()
            run.gap = False
            st.head = last
            self._wrote(st, ck, packed, board)
            self.counts["applied"] += len(events)
            await self._after_write(st, match, record, game, entry)
        self._commit(run, done=False)

    def _commit(self, run: Run, *, done: bool) -> None:
        """Hand out the decided outcomes; ``done``: the current item is decided too."""
        for i, outcome in run.decided:
            run.outcomes[i] = outcome
            if outcome.status != "applied":
                self.counts[outcome.status] += 1
        run.decided.clear()
        run.start = run.pos + 1 if done else run.pos

    async def _old_seq(
        self, st: MatchMemory, match: str, seq: int, ev: dict[str, Any], data: bytes, game: Game
    ) -> Outcome:
        try:
            archived = await self.store.event(match, seq)
        except CopyRefused as exc:  # an archived match whose copy changed since this process read it
            await self._alarm(st, match, tamper.detail(match, [exc.problem]))
            return tampered(match, seq, st.tampered or exc.problem)
        if archived == data or data in st.quarantined:
            # a redelivery (of an event, or of a conflict already archived and reported)
            return Outcome("duplicate", match, seq)
        late = game.log.is_missing(seq)
        before = len(game.findings)
        game.apply(ev, data)  # the engine records duplicate_seq / late_event and does not fold it
        if len(game.findings) == before:  # the engine saw an exact duplicate the archive did not have
            raise Stale
        record = await self._final_record(match, game)
        packed = self._pack(record)
        cause = self._cause(match, record, seq, provisional=game.effect_pending)
        entry = IndexEntry.from_record(record, st.head)
        ck = self._next_checkpoint(st, match, packed, cause, entry)
        base = st.ck or self._empty(match)
        ck = replace(
            ck,
            entries=base.entries + 1,
            others=entry_step(base.others, st.head, "late" if late else "conflict", data),
        ).signed(self.checkpoint_key)
        result = await self.store.append(
            Append(
                match=match,
                seq=seq,
                event=data,
                prev=st.head,
                board=canonical_bytes(game.board()),
                record=packed,
                conflict=True,
                writes=st.writes,
                chain=game.log.head.hex(),
                cause=cause,
                expect=self._expect(st),
                checkpoint=ck.encode(),
            )
        )
        if result.status == "tampered":
            await self._alarm(st, match, self._tamper_detail(st, match, result.what))
            raise Tamper
        if not (result.status == "conflict" and result.archived):
            raise Stale
        self._wrote(st, ck, packed, None)
        await self._after_write(st, match, record, game, entry)
        st.quarantined.add(data)
        why = (
            "arrived after the gap before it was reported (late_event)"
            if late
            else "a different event already holds this seq (duplicate_seq)"
        )
        return Outcome(
            "rejected",
            match,
            seq,
            f"match {match} seq {seq}: {why}; kept in the archive and reported as a finding, not applied",
            field="seq",
        )

    async def _after_write(
        self, st: MatchMemory, match: str, record: dict[str, Any], game: Game, entry: IndexEntry
    ) -> None:
        """The index step (``entry``: the record's, as the write's checkpoint names it) and the playoff
        links."""
        await both(
            self._index(st, record, entry=entry),
            self._playoff_links(st, match, record, provisional=game.effect_pending),
        )


def run_ends(game: Game, events: Sequence[tuple[int, bytes]], st: MatchMemory) -> bool:
    """Must a run be written after its last event (both batch paths cut runs here)?

    After every event of a decided game (no effect still resolving): the playoff links (_playoff_links)
    may act on its record (a playoff child not yet handed to its parent settles the parent; a game
    awaiting a playoff writes its child's stub), and every change to a finished record is a version of
    its own, whatever the batching. While the game is in progress, or an effect is still resolving (the
    record is provisional), the record, the board and the indexes keep only the last write's values, so
    the events join the run; then only ``MAX_RUN`` (one call's size) cuts it.
    """
    if len(events) >= MAX_RUN:
        return True
    if game.status == "in_progress" or game.effect_pending:
        return False
    if game.state.parent is not None and not st.child_done:
        return True
    if game.status == "awaiting_playoff":
        link = game.state.playoff
        return link is None or link.child != st.stubbed
    # A decided game: each event after the end is its own write, so that every change to the finished
    # record is its own version (Store.versions), however the events were batched.
    return True
