"""One match's event log: the events archived in seq order, their hash chain, and the gaps between them.

The log keeps, per archived event, its canonical bytes and the chain head after it; a gap (seqs that never
arrived before a later one) is one range, whatever its length, so one event with a huge ``seq`` costs no
more memory than any other. Pure bookkeeping: the rules never look at it (``replay.engine.state`` is what
they fold), and a judge's correction re-folds the state from the log's events.
"""

from __future__ import annotations

from bisect import bisect_right

from replay.engine.chain import C_LINK, GENESIS, link


class EventLog:
    """The archived events of one match (see the module docstring)."""

    def __init__(self) -> None:
        self.match: str | None = None
        self.next_seq = 1  # the seq the next in-line event must have
        self.head = GENESIS  # the chain head after the last archived event
        self.heads: list[bytes] = [GENESIS]  # heads[i]: the head after the i-th archived event
        self.raw: list[bytes] = []  # raw[i]: the canonical bytes of the (i+1)-th archived event
        # Gaps, in seq order: [gap_starts[k], gap_ends[k]) never arrived; missing_upto[k] counts the
        # missing seqs of gaps 0..k together.
        self.gap_starts: list[int] = []
        self.gap_ends: list[int] = []
        self.missing_upto: list[int] = []
        self.corrections = 0  # judge's corrections applied

    def append(self, canonical: bytes) -> None:
        """Archive the event of seq ``next_seq`` with these canonical bytes: chain it, keep its bytes."""
        if C_LINK is not None:
            head = self.head = C_LINK(self.head, canonical)
        else:
            head = self.head = link(self.head, canonical)
        self.heads.append(head)
        self.raw.append(canonical)
        self.next_seq += 1

    def skip_to(self, seq: int) -> None:
        """Seqs ``next_seq`` .. ``seq - 1`` are missing: one gap; the chain goes on from the last head."""
        missing = seq - self.next_seq
        if missing <= 0:
            return
        self.gap_starts.append(self.next_seq)
        self.gap_ends.append(seq)
        self.missing_upto.append(self.missing() + missing)
        self.next_seq = seq

    def is_missing(self, seq: int) -> bool:
        """Was ``seq`` skipped by a gap (reported missing, never archived)?"""
        k = bisect_right(self.gap_starts, seq)
        return k > 0 and seq < self.gap_ends[k - 1]

    def missing(self) -> int:
        """How many seqs the gaps skipped in all."""
        return self.missing_upto[-1] if self.missing_upto else 0

    def gaps(self) -> list[tuple[int, int]]:
        """The gaps as ``(first missing seq, last missing seq)``, in order."""
        return [(a, b - 1) for a, b in zip(self.gap_starts, self.gap_ends, strict=True)]

    def index(self, seq: int) -> int:
        """The position of archived event ``seq`` in :attr:`raw` (``seq`` below ``next_seq``, not missing)."""
        k = bisect_right(self.gap_starts, seq)
        return seq - 1 - (self.missing_upto[k - 1] if k > 0 else 0)

    def is_duplicate(self, seq: int, canonical: bytes) -> bool:
        """Is this the archived event ``seq`` again, byte for byte (its link gives the same head)?"""
        i = self.index(seq)
        return link(self.heads[i], canonical) == self.heads[i + 1]

    def events(self) -> int:
        """How many events are archived."""
        return len(self.raw)
