"""The league index: each match's entry, written after its record, over the entry this owner last wrote.

An entry changed since by anyone but a writer of the match's record (whose checkpoint then names the
entry) is a tamper alarm, not overwritten (docs/storage.md, "League indexes").
"""

from __future__ import annotations

import asyncio
from typing import Any

from streams.ingest.integrity import Integrity, decoded
from streams.ingest.state import INDEX_READS, MatchMemory
from streams.store import IndexChanged, IndexEntry, tamper
from streams.store.checkpoint import NONE, index_digest


class LeagueIndex(Integrity):
    """The index step of every write (:meth:`LeagueIndex._index`)."""

    async def _index(
        self,
        st: MatchMemory,
        record: dict[str, Any],
        *,
        force: bool = False,
        entry: IndexEntry | None = None,
    ) -> None:
        """Index ``record`` (``entry``: its entry at ``st.head``, when the write already made it), over the
        entry this owner wrote or verified last (``st.indexed``): an entry changed since by anyone but a
        writer of this match's record (whose checkpoint then names the entry) is an alarm, not
        overwritten."""
        entry = self._index_change(st, record, force=force, entry=entry)
        if entry is None:
            return
        try:
            await self.store.index(entry, last=st.indexed, guess=True, strict=True)
        except IndexChanged as exc:
            match, found = entry.match, exc.stored
            for attempt in range(INDEX_READS):
                if attempt:  # another writer may be between its checkpoint and its index step: again
                    await asyncio.sleep(0.05 * attempt)
                    found = await self.store.index_entry(match)
                ck = decoded((await self.store.state(match)).checkpoint)  # read after the entry
                seen = NONE if found is None else index_digest(found.view())
                if ck is not None and ck.verify(self.checkpoint_key) and ck.names_index(seen):
                    break
            else:
                await self._alarm(
                    st,
                    match,
                    tamper.detail(match, [tamper.INDEX_CHANGED]),
                )
                return
            if ck.writes > st.writes:
                st.game = None  # another writer of the record (a playoff game settling it): read again
                st.indexed = found
                return
            await self.store.index(entry, last=found, guess=True)
        st.indexed = entry

    def _index_change(
        self, st: MatchMemory, record: dict[str, Any], *, force: bool = False, entry: IndexEntry | None = None
    ) -> IndexEntry | None:
        """The index entry to write for ``record`` (``entry``, or made here), or None when nothing the
        indexes show has changed (which saves the second round trip)."""
        if entry is None:
            entry = IndexEntry.from_record(record, st.head)
        last = st.indexed
        if not force and last is not None and last.view() == entry.view():
            return None
        return entry
