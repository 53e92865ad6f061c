"""The review page's game in windows (``GET /review/<match>/meta?from=&to=``, issue 40 item 4): the steps
``from`` to ``to`` (their frames, as :func:`streams.http.frames.frames` gives them, and their battle log
lines), folded only as far as ``to``.

A match's fold (:class:`ReviewFold`) is kept per process (a :class:`streams.http.lru.ByteBoundLRU`, trimmed
after each window as the fold grows) under the same key as the whole answer
(:meth:`streams.http.pages._MetaInputs.key`) and goes on from where the last window left it:
the page's first window folds the first few hundred steps of a 50,000-event game, not 50,000, and its
next windows fold only the steps after it; a step folded once is kept encoded. The concatenated windows
are the whole answer's ``frames`` and ``log`` (tests/streams/http/test_review_window.py).
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Final

import msgspec

from replay.engine import public_event, public_record
from streams.http.battle_log import (
    RULE_OF_FINDING,
    LogWriter,
    decode,
    display_names,
    finding_shown,
    outputs_by_seq,
    rule_ref,
)
from streams.http.frames import SNAPSHOT, Event, StepFold, board_delta
from streams.http.prompts import prompts

if TYPE_CHECKING:
    from replay.records import Record
    from streams.store import ArchivedEvent, ArchiveExtent

_ENCODE = msgspec.json.Encoder().encode


def public_output(out: Mapping[str, Any]) -> dict[str, Any]:
    """A derived output as a spectator reads it: a finding without its judge-only detail."""
    return {k: v for k, v in out.items() if k != "detail"}


def public_step(step: Mapping[str, Any]) -> dict[str, Any]:
    """One step of the review as a spectator saw it: its event and extra events projected, its outputs
    without judge-only details (the board is the public board already)."""
    out = dict(step)
    if out.get("event") is not None:
        out["event"] = public_event(out["event"])
    out["extra"] = [
        {**x, "event": public_event(x["event"])} if isinstance(x, Mapping) and "event" in x else x
        for x in out.get("extra") or []
    ]
    out["outputs"] = [public_output(o) for o in out.get("outputs") or []]
    return out


def card_names(events: Iterable[Mapping[str, Any]]) -> set[str]:
    """Every card name the events give (the names the board shows: Pokémon in play, attached cards)."""
    seen: set[str] = set()
    for ev in events:
        for holder in (ev, ev.get("active"), *(ev.get("bench") or ())):
            card = holder.get("card") if isinstance(holder, Mapping) else None
            name = card.get("name") if isinstance(card, Mapping) else card
            if isinstance(name, str):
                seen.add(name)
    return seen


def record_fields(typed: Record | None, public: bool, lang: str) -> dict[str, Any]:
    """The review's record (its public projection in the public view) and each of its findings'
    sentences and details in the page's language, in the record's order (the record itself stays as
    stored: its findings' messages are the engine's English)."""
    record = typed.to_json() if typed is not None else None
    if public and record is not None:
        record = public_record(record)
    in_lang = [finding_shown(f, lang) for f in (record or {}).get("findings") or []]
    return {
        "record": record,
        "findings_text": [f["text"] for f in in_lang],
        "findings_detail": [f.get("detail_text") for f in in_lang],
    }


class ReviewFold:
    """One match's review folded step by step, each step kept as its frame's and its log lines' JSON.

    The archive is read into it a range at a time (:meth:`read`, what :meth:`wants` asks for): a window
    reads the entries of its own steps, the next step's (which says whether an effect ended there) and an
    attack's to its end (its line names the damage it did), not the game's. ``extent`` (the store's
    :meth:`~streams.store.roles.Reader.extent`) gives the game's length before its entries are read; the
    entries read past its last position (appended since) are not this fold's."""

    def __init__(
        self,
        match: str,
        extent: ArchiveExtent,
        public: bool,
        lang: str,
        typed: Record | None,
        playoff: dict[str, Record],
    ) -> None:
        self.match, self.public, self.lang = match, public, lang
        self.typed, self.playoff = typed, playoff
        self.entries: list[ArchivedEvent] = []
        self._events: list[Event] = []
        self._shown: list[Event] = [] if public else self._events
        self._fold: StepFold | None = StepFold(self.entries, self._events)  # None once every step is kept
        self._writer = LogWriter(self.entries, self._shown, lang)
        self._groups = self._fold.groups
        self.count = extent.steps
        self._end = extent.last
        self.last = extent.last[0] if extent.last is not None else 0
        #: Every entry of the archive (up to ``extent``'s last) read.
        self.read_all = extent.last is None
        self._attack_open = False  # an attack read whose end is not read yet: its line waits for it
        #: Held by whoever reads into the fold or answers from it (two windows at once read no entry twice).
        self.lock = asyncio.Lock()
        self.frames: list[bytes] = []
        self.lines: list[bytes] = []
        #: Each step's late marks: [line, mark] for the lines before it that an output derived at that step
        #: marks (the page adds them to those lines).
        self.late: list[list[tuple[int, dict[str, Any]]]] = []
        self._late_now: list[tuple[int, dict[str, Any]]] = []
        self.size = 0
        self._board: Mapping[str, Any] | None = None
        self._by_seq: dict[int, list[Mapping[str, Any]]] = {}
        self._indexed = 0
        self.due: list[dict[str, Any]] | None = None

    @property
    def after(self) -> tuple[int, int] | None:
        """The position of the last entry read (None before the first): where the next range starts."""
        return self.entries[-1].position if self.entries else None

    def wants(self, stop: int) -> bool:
        """Whether entries are still to be read to answer the steps up to ``stop``: the steps' own, the
        one after them, and the rest of an attack read."""
        if self.read_all:
            return False
        complete = len(self._groups) - 1  # the last step read may go on in the next range
        return complete < min(stop, self.count) + 1 or self._attack_open

    def read(self, batch: Sequence[ArchivedEvent]) -> None:
        """Add the next range of the archive (:meth:`after` onwards, in archive order); an empty range, or
        one reaching the extent's last position, is the archive's end."""
        end = self._end
        if end is not None:
            batch = [e for e in batch if e.position <= end]
        events = decode(batch)
        self.entries.extend(batch)
        self._events.extend(events)
        if self.public:
            self._shown.extend(public_event(e) for e in events)
        for ev in self._shown[len(self._shown) - len(events) :]:
            # what _attack_hits reads: an attack's damage up to its end (another attack, the turn's end)
            t = ev.get("type")
            if t == "attack":
                self._attack_open = True
            elif t == "attack_ended" or t == "turn_ended":
                self._attack_open = False
        if self._fold is not None:
            self._fold.more()
        if not batch or (end is not None and self.entries[-1].position >= end):
            self.read_all = True

    def names(self, start: int, stop: int) -> dict[str, str]:
        """The display names of the cards the events of steps ``start`` to ``stop`` give (the page keeps
        each window's: the boards up to a step show only cards named by then)."""
        shown = self._shown
        return display_names(card_names(shown[i] for g in self._groups[start:stop] for i in g), self.lang)

    def advance(self, n: int) -> None:
        """Fold until the first ``n`` steps are final and encoded."""
        fold = self._fold
        while fold is not None and len(self.frames) < min(n, self.count):
            if fold.done and self.read_all:
                last = fold.finish()
                if last is not None:
                    timeline = fold.game.resolved().timeline
                    self._by_seq = (
                        outputs_by_seq(public_output(o) for o in timeline)
                        if self.public
                        else (outputs_by_seq(timeline))
                    )
                    self._keep(last)
                self.due = [
                    {"id": p["id"], "text": p["text"]} for p in prompts(fold.game, self.playoff, self.lang)
                ]
                # every step kept encoded: the fold (the game, its events) is not needed again
                self._fold = None
                return
            if fold.applied >= len(self._groups) - (0 if self.read_all else 1):
                raise RuntimeError(f"{self.match}: step {fold.applied} folded before its entries were read")
            final = fold.step()
            timeline = fold.game.timeline
            for out in timeline[self._indexed :]:
                if isinstance(out.get("seq"), int):
                    shown = public_output(out) if self.public else out
                    late = self._writer.late_mark(shown)
                    if late is not None:
                        self._late_now.append(late)
                    else:
                        self._by_seq.setdefault(out["seq"], []).append(shown)
            self._indexed = len(timeline)
            if final is not None:
                self._keep(final)

    def _keep(self, step: dict[str, Any]) -> None:
        k = len(self.frames)
        if self.public:
            step = public_step(step)
        lang = self.lang
        step["outputs"] = [
            finding_shown(o, lang) if o.get("type") == "finding" else o for o in step.get("outputs") or []
        ]
        board = step["board"]
        frame = dict(step)
        frame["board"] = dict(board) if k % SNAPSHOT == 0 else board_delta(self._board, board)
        self._board = board
        encoded = _ENCODE(frame)
        lines = b",".join(_ENCODE(self._writer.line(i, self._by_seq)) for i in self._groups[k])
        self.frames.append(encoded)
        self.lines.append(lines)
        self.late.append(self._late_now)
        self._late_now = []
        self.size += len(encoded) + len(lines)

    def window(self, start: int, stop: int) -> bytes:
        """The answer for steps ``start`` to ``stop`` (``start`` taken down to a snapshot: the window's
        first board is whole); the record, the names and the rules with the first window, what is due
        next with the last."""
        stop = max(0, min(stop, self.count))
        start = min(max(0, start), stop) // SNAPSHOT * SNAPSHOT
        self.advance(stop)
        head: dict[str, Any] = {
            "match": self.match,
            "view": "public" if self.public else "judge",
            "first": self.entries[0].position[0] if self.entries else 0,
            "last": self.last,
            "count": self.count,
            "from": start,
            "to": stop,
            "lang": self.lang,
            "snapshot": SNAPSHOT,
        }
        if start == 0:
            head.update(record_fields(self.typed, self.public, self.lang))
            head["rules"] = {code: rule_ref(code) for code in RULE_OF_FINDING}
        if stop == self.count:
            head["due"] = self.due or []
        head["names"] = self.names(start, stop)
        frames = b",".join(self.frames[start:stop])
        lines = b",".join(x for x in self.lines[start:stop] if x)
        late = [[line, mark] for step in self.late[start:stop] for line, mark in step]
        if late:
            head["late_marks"] = late
        return _ENCODE(head)[:-1] + b',"frames":[' + frames + b'],"log":[' + lines + b"]}"


#: The steps kept encoded in all (the folds' :class:`streams.http.lru.ByteBoundLRU`, by
#: :attr:`ReviewFold.size`): some three 50,000-event games.
FOLD_CACHE_BYTES: Final = 64 * 1024 * 1024
