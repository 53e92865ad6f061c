"""Rebuild: a match's game read again from the archive (and the held events), and checked.

Used when a match is not in memory (first sight, eviction, a store error, another writer): the archive is
replayed, the stored record, board, versions and index entry are checked against the signed checkpoint and
the checkpoint log (:meth:`streams.ingest.integrity.Integrity._verify`), each held event against its seal
and the event contract (:func:`streams.ingest.held.held_event`). Anything that does not hold raises the
tamper alarm; nothing stored is rewritten or re-signed.
"""

from __future__ import annotations

import asyncio

import msgpack

from replay import Game
from replay.contract.validate import checked_game
from replay.engine import EventError
from replay.records import unpack_record
from streams.ingest.held import held_event
from streams.ingest.index import LeagueIndex
from streams.ingest.state import INDEX_PROBLEM, INDEX_READS, MatchMemory, Pending
from streams.store import IndexEntry, MatchState, tamper
from streams.store.checkpoint import (
    NONE,
    Checkpoint,
    HeldForged,
    digest,
    entry_step,
    index_digest,
    open_held,
    sha1,
)


class Rebuild(LeagueIndex):
    """:meth:`Rebuild._game`: the match's game, from memory or rebuilt from the store and checked."""

    async def _game(self, st: MatchMemory, match: str) -> Game:
        """The match's game, rebuilt from the archive (and the held events) when not in memory.

        The rebuild checks what the store holds against the signed checkpoint kept with it, and that
        checkpoint against the newest the checkpoint log knows (:meth:`_verify`); each held event against
        its seal and the event rules. Anything that does not hold raises the tamper alarm (:meth:`_alarm`)
        and nothing more is written to the match: nothing stored is rewritten or re-signed."""
        if st.game is not None:
            return st.game
        for attempt in range(INDEX_READS):
            game, head, state, record, board, indexed, ck, problems = await self._read(st, match)
            if problems != [INDEX_PROBLEM] or attempt == INDEX_READS - 1:
                break
            # Only the index entry disagrees: it is written after the checkpoint that names it, by the
            # match's owner or a playoff game settling it, so another writer may be between the two
            # steps right now. Read again; tampering stays.
            await asyncio.sleep(0.05 * (attempt + 1))
        st.game, st.head, st.writes, st.indexed = game, head, state.writes, indexed
        st.ck, st.ck_raw = ck, state.checkpoint or b""
        st.record_sha1, st.board_sha1 = sha1(record), sha1(board)
        st.tampered = None
        if problems:
            await self._alarm(st, match, tamper.detail(match, problems))
        elif record is not None and game.match is not None:
            stored = unpack_record(record)
            view = NONE if indexed is None else index_digest(indexed.view())
            if stored is not None and view != ck.index:
                # heal a crash between an append and its index step: index the record the checkpoint names
                await self._index(st, stored, force=True)
        return game

    async def _read(
        self, st: MatchMemory, match: str
    ) -> tuple[Game, int, MatchState, bytes | None, bytes | None, IndexEntry | None, Checkpoint, list[str]]:
        """Read a match (its index entry first, then its slot in one atomic read: a playoff game settling
        this one writes its checkpoint before the index entry it names, so in this order the entry is one
        that the checkpoint read after it, or its predecessor, names), replay it and check it."""
        game = checked_game()
        head = 0
        others = ""
        st.quarantined.clear()
        indexed = await self.store.index_entry(match)
        snap = await self.store.snapshot(match)
        for entry in snap.events:
            game.apply(msgpack.unpackb(entry.data, raw=False), entry.data)  # archived: canonical
            if entry.kind == "event":
                head = entry.position[0]
            else:
                st.quarantined.add(entry.data)
                others = entry_step(others, entry.position[0], entry.kind, entry.data)
        now = self.clock()
        problems: list[str] = []
        if snap.copy_problem is not None:  # an archived match whose Parquet copy is gone or changed
            problems.append(snap.copy_problem)
        for seq, sealed in snap.held.items():
            try:
                data = open_held(self.checkpoint_key, match, seq, sealed)
                event = held_event(match, seq, data)
            except (HeldForged, EventError) as exc:
                problems.append(tamper.HELD.format(reason=exc))
                continue
            if seq >= game.next_seq and seq not in st.buffer:
                st.buffer[seq] = Pending(event, data, now)
        for seq in [s for s in st.buffer if s < game.next_seq]:
            del st.buffer[seq]
        found = Checkpoint(
            match,
            store=self.prefix,
            seq=head,
            events=game.log.events(),
            entries=len(snap.events),
            chain=game.log.head.hex(),
            others=others,
            writes=snap.state.writes,
            record=digest(snap.record),
            board=digest(snap.board),
        )
        ck = self._verify(match, found, snap.state, snap.versions, indexed, problems)
        return game, head, snap.state, snap.record, snap.board, indexed, ck, problems
