"""The PTCGL importer's output: contract events in order, and the findings that travel with them.

One job: keep the stream being written. ``emit`` appends a contract event and applies its card moves to
the table's counts (replay/sources/table.py); ``find`` records a finding and writes it into the stream as
a ``note`` where it happened: findings about the whole log right after ``match_started``, findings about
text after the end line just before the ``game_ended`` claim, so nothing follows the claim
(docs/importers.md, "Findings travel with the events").
"""

from __future__ import annotations

from replay.i18n import notes
from replay.i18n.notes import say
from replay.sources.common import Event, Finding, note
from replay.sources.table import Table


class Stream:
    """The events and findings of one import."""

    def __init__(self, table: Table | None = None) -> None:
        self.table = table  # set once the players are known
        self.events: list[Event] = []
        self.findings: list[Finding] = []
        self.unmatched: list[tuple[int, str]] = []
        self.partly: list[tuple[int, str]] = []  # lines a vaguer sentence read (importer_partly_read)
        self.head_notes: list[Event] = []
        self.ended = False  # the end line was read: later notes go before the claim
        self.line: int | None = None  # the line being read (for the findings emit makes)
        self.corrections = 0  # counts the log does not explain (importer_count_unknown)
        self.end_at = 0  # where the end's events start in ``events``
        self._short_said: dict[tuple[str, str, int], str] = {}  # importer_count_unknown's sentences

    def emit(self, ev: Event, line: int | None = None, *, counted: bool = True) -> None:
        """Append a contract event; the table counts the cards it moves. An event that takes more cards
        from a zone than the events so far put there (the log moved cards it never showed arriving) is
        preceded by the cards it lacks, taken from the deck, and a finding that says the log does not
        show how they got there: no count ever goes below zero."""
        table = self.table
        if table is None or not counted:  # not counted: an event the engine moves no card for
            self.events.append(ev)
            return
        table.count(ev)
        if not table.short or self.ended:
            self.events.append(ev)
            return
        for player, zone, n in list(table.short):
            said = self._short_said.get((player, zone, n))
            if said is None:
                # (kept: a log without its draws repeats the same few sentences, ~100 a log)
                said = self._short_said[player, zone, n] = say(
                    notes.COUNT_UNKNOWN, n=n, player=player, zone=zone.replace("_", " ")
                )
            self.find("importer_count_unknown", "info", line if line is not None else self.line, said)
            self.corrections += 1
            zones = table.zones[player]
            for src in ("deck", "discard", "prizes", "lost_zone"):
                k = min(n, max(0, getattr(zones, src)))
                if src == zone or k <= 0:
                    continue
                fix: Event = (
                    {"type": "searched", "player": player, "count": k}
                    if (src, zone) == ("deck", "hand")
                    else {"type": "to_hand", "player": player, "from": src, "count": k}
                    if zone == "hand"
                    else {"type": "moved", "player": player, "count": k, "from": src, "to": zone}
                )
                self.events.append(fix)
                # the fix's count, as ``table.count(fix)`` makes it: ``k`` cards the zone holds move (never
                # short), and no card is named (the public zones' names stay)
                setattr(zones, src, getattr(zones, src) - k)
                setattr(zones, zone, getattr(zones, zone) + k)
                n -= k
                if n <= 0:
                    break
        self.events.append(ev)

    def find(self, code: str, severity: str, line: int | None, message: str) -> None:
        """A finding, returned and written into the stream as a ``note`` event."""
        f = Finding(code, severity, line, message)
        self.findings.append(f)
        if line is None:
            self.head_notes.append(note(f))  # about the whole log: right after match_started
        elif self.ended:
            # after the end line (trailing user notes): keep the claim last, so nothing follows the end
            self.events.insert(self.end_at, note(f))
            self.end_at += 1
        else:
            self.events.append(note(f))

    def unread(self, no: int, text: str, message: str, severity: str = "warning") -> None:
        """A line no template read: counted in ``unmatched`` and a finding."""
        self.unmatched.append((no, text))
        self.find("unmatched_line", severity, no, message)
