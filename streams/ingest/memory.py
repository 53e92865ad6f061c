"""Per-match memory: each match's game and state kept by its owner, one call at a time per match.

Calls for the same match are serialised by the match's lock (:meth:`Memory._locked`); the least recently
used idle matches are dropped beyond ``max_matches`` (the archive has them all: they are rebuilt on next
sight, :mod:`streams.ingest.rebuild`).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from streams.ingest.state import _T, MatchMemory, Shared


class Memory(Shared):
    """The matches in memory (:class:`MatchMemory` each), their locks and their eviction."""

    def stats(self) -> dict[str, int]:
        """Counts since start: applied, duplicate, rejected (quarantined), buffered (waiting now)."""
        out = dict(self.counts)
        out["buffered"] = sum(len(st.buffer) for st in self._matches.values())
        out["matches"] = len(self._matches)
        return out

    def waiting(self, match: str) -> bool:
        """Whether events of ``match`` wait behind a gap in memory."""
        st = self._matches.get(match)
        return st is not None and bool(st.buffer)

    def forget(self, match: str) -> None:
        """Drop a match from memory (e.g. its partition was revoked); it is rebuilt on next sight."""
        st = self._matches.get(match)
        if st is not None and not st.lock.locked():
            del self._matches[match]

    async def _locked(self, match: str, work: Callable[[MatchMemory], Awaitable[_T]]) -> _T:
        """Run ``work`` holding the match's lock; memory possibly ahead of the store is dropped on error."""
        st = self._state(match)
        st.users += 1
        try:
            async with st.lock:
                waiting = dict(st.buffer)
                try:
                    return await work(st)
                except BaseException:
                    st.game = None  # memory may be ahead of the store: rebuild on next use
                    # A store error (Redis down) after a gap's release or a drain took held events out of
                    # memory: they are still held in the store, so keep them in memory too, with their
                    # arrival times, for flush_gaps to retry them (the rebuild on next use drops any that a
                    # partial write did archive). Else they would wait for the match's next event or a
                    # restart (docs/reliability.md, guarantee 3).
                    st.buffer.update({s: p for s, p in waiting.items() if s not in st.buffer})
                    raise
        finally:
            st.users -= 1

    def _state(self, match: str) -> MatchMemory:
        st = self._matches.get(match)
        if st is None:
            st = self._matches[match] = MatchMemory()
            if len(self._matches) > self.max_matches:
                self._evict(keep=match)
        else:
            self._matches.move_to_end(match)
        return st

    def _evict(self, keep: str) -> None:
        """Drop the least recently used games that wait for nothing (the archive has them all)."""
        excess = len(self._matches) - self.max_matches
        for match, st in list(self._matches.items()):
            if excess <= 0:
                break
            if not st.buffer and not st.users and match != keep:
                del self._matches[match]
                excess -= 1
