"""Replaying event files: every match folded as its events come, each record out as soon as it is final.

``prizecheck replay`` and ``prizecheck report`` read their files here. Two passes over the files' bytes
(:mod:`replay.codec`):

1. **Check**: every event is validated, chunk by chunk, and only its match id and seq are kept. That is
   enough to know where each match's last event is, and whether a match's events come in seq order. A bad
   event anywhere stops everything here, before anything is printed (exit 2).
2. **Fold**: each event goes to its match's game as it comes (``Game.apply_msgpack`` for MessagePack, so
   the engine decodes and hashes the bytes itself; ``Game.apply`` for JSON). The games are grouped by
   match and each match's events are applied in seq order, as they always were: a match whose events come
   in order is folded on the fly, one whose events do not (a late event in a merged file) has its events
   kept until its last one, then sorted by seq (stable) and applied. When a match's last event is folded,
   its record is made and the game is let go, so memory holds the games in progress, not the file's
   events.

A record is yielded as soon as it is final: its game is done, and so is every game of the input it names
or that names it (``parent``, ``playoff.child``, ``children``): a drawn game's record is settled by its
playoff games (:func:`replay.engine.playoff.settle`), so it waits for them. Records therefore come
in the order their games (and playoff families) are completed in the input.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from itertools import compress, count
from operator import le, ne
from typing import Any, NamedTuple, Protocol

import msgspec

from replay.codec import Checked, EventFile, open_input
from replay.contract.validate import checked_game, event_decoders
from replay.engine import Game, InputError, Record, canonical_bytes, settle

__all__ = ["Progress", "Replayed", "fold_events", "replay_files"]


class Replayed(NamedTuple):
    """A match folded to its last event."""

    match: str
    game: Game
    record: Record
    """The game's record (its typed value, ``replay.records``), settled from its playoff games
    (``replay.engine.playoff.settle``), unsigned."""


class Progress(Protocol):
    """Where a long replay is (the command line draws it as a bar on a terminal)."""

    def checking(self, total: int) -> None:
        """The check starts: ``total`` bytes to read."""

    def checked(self, size: int) -> None:
        """``size`` more bytes checked."""

    def folding(self, total: int) -> None:
        """The fold starts: ``total`` events to apply."""

    def folded(self, events: int, games: int) -> None:
        """``events`` more events applied, ``games`` more games done."""


# A run of consecutive events of one match within a chunk: (start, end, match number); -1: left out.
_Run = tuple[int, int, int]
# Where a chunk is (its file, its number in the file); and an event in it (and its index in the chunk).
_At = tuple[EventFile, int]
_Where = tuple[EventFile, int, int]


class _Plan:
    """What the check pass learns: the matches, where each one's last event is, which are out of order."""

    def __init__(self, until: int | None) -> None:
        self.until = until
        self.numbers: dict[str, int] = {}  # match id -> match number, in order of first appearance
        self.names: list[str] = []
        self.last: list[int] = []  # the position (over all events of all files) of each match's last event
        self.prev: list[Any] = []  # each match's seq so far (the largest, while they come in order)
        self.out_of_order: set[int] = set()
        self.events = 0

    def add(self, checked: Checked) -> list[_Run]:
        """Runs of the chunk's events by match, noting order and last positions."""
        matches, seqs = checked.matches, checked.seqs
        n = len(matches)
        if n == 0:  # blank lines only
            return []
        keys: list[str | None] = list(matches)
        if self.until is not None:  # --until: events after that seq are left out, as if not sent
            keys = [m if q <= self.until else None for m, q in zip(matches, seqs, strict=True)]
        cuts = list(compress(count(1), map(ne, keys[1:], keys)))
        runs: list[_Run] = []
        for a, b in zip([0, *cuts], [*cuts, n], strict=True):
            match = keys[a]
            if match is None:
                runs.append((a, b, -1))
                continue
            k = self.numbers.get(match)
            if k is None:
                k = self.numbers[match] = len(self.names)
                self.names.append(match)
                self.last.append(-1)
                self.prev.append(seqs[a])
            part = seqs[a:b]
            if self.prev[k] > part[0] or not all(map(le, part, part[1:])):
                self.out_of_order.add(k)
            self.prev[k] = max(self.prev[k], part[-1])
            self.last[k] = self.events + b - 1
            runs.append((a, b, k))
        self.events += n
        return runs


class _Fold:
    """The fold pass: games in progress, events held for matches out of order, finished playoff families."""

    def __init__(self, plan: _Plan, keep: bool = False) -> None:
        self.plan = plan
        self.keep = keep  # keep every game (fold_events), without records, instead of yielding each one
        self.kept: dict[str, Game] = {}
        self.games: dict[int, Game] = {}
        self.held: dict[int, list[tuple[Any, bool, _Where | None]]] = {k: [] for k in plan.out_of_order}
        self.done = [False] * len(plan.names)
        self.finished = 0
        self.events = 0
        # finished games whose records wait for a game of their playoff family: match -> (order, game, record)
        self.waiting: dict[str, tuple[int, Game, Record]] = {}
        self.family: dict[str, set[str]] = {}

    def chunk(self, runs: list[_Run], events: Sequence[Any], raw: bool, at: _At | None) -> Iterator[Replayed]:
        """Apply one chunk's events (MessagePack bytes when ``raw``, else dicts); ``at``: where the chunk is
        (its file and number), to name an event the engine cannot take (None: events from memory, whose
        errors go to the caller as they are)."""
        base = self.events
        last = self.plan.last
        for a, b, k in runs:
            if k < 0:
                continue
            held = self.held.get(k)
            if held is not None:
                held.extend((event, raw, at and (*at, a + i)) for i, event in enumerate(events[a:b]))
            else:
                game = self.games.get(k)
                if game is None:
                    game = self.games[k] = checked_game()
                try:  # each event to the engine, in C: map over the run, nothing kept
                    _drain(map(game.apply_msgpack if raw else game.apply, events[a:b]))
                except Exception as exc:  # the first event the engine could not take, and the rest
                    if at is None:
                        raise
                    self._recover(game, events, a, b, raw, at, exc)
            if base + b - 1 == last[k]:
                yield from self._finish(k)
        self.events += len(events)

    def _recover(
        self, game: Game, events: Sequence[Any], a: int, b: int, raw: bool, at: _At, exc: Exception
    ) -> None:
        """Events that passed the check but that the engine could not take (a value it cannot encode in a
        field the contract leaves open, say): the engine refuses them before changing anything, so the
        events before the first such one are applied, and that one is applied the way events were read
        before, or named in an InputError; then the rest of the run."""
        bad = next((i for i in range(a, b) if not _takes(events[i], raw)), None)
        if bad is None:
            raise exc
        _apply_one(game, events[bad], raw, (*at, bad))
        apply = game.apply_msgpack if raw else game.apply
        for i in range(bad + 1, b):
            if _takes(events[i], raw):
                apply(events[i])
            else:
                _apply_one(game, events[i], raw, (*at, i))

    def _finish(self, k: int) -> Iterator[Replayed]:
        held = self.held.pop(k, None)
        if held is not None:  # out of order: by seq now (a stable sort: equal seqs keep their order)
            game = self.games[k] = checked_game()
            held.sort(key=_seq)
            for event, raw, where in held:
                if where is None or _takes(event, raw):
                    (game.apply_msgpack if raw else game.apply)(event)
                else:
                    _apply_one(game, event, raw, where)
        game = self.games.pop(k)
        self.done[k] = True
        match = self.plan.names[k]
        self.finished += 1
        if self.keep:
            self.kept[match] = game
            return
        record = game.typed_record()
        self.waiting[match] = (self.finished, game, record)
        numbers = self.plan.numbers
        links = _links(record)
        if not links and match not in self.family:  # a game on its own: nothing to settle
            yield Replayed(match, game, self.waiting.pop(match)[2])
            return
        family = {match}
        for name in (match, *links):
            if name in numbers:
                family |= self.family.get(name, {name})
        for name in family:
            self.family[name] = family
        if not all(self.done[numbers[name]] for name in family):
            return  # a game it names, or that names it, is still to come: its record may still change
        for name in family:
            del self.family[name]
        yield from self._release([name for name in family if name in self.waiting])

    def _release(self, names: Iterable[str]) -> Iterator[Replayed]:
        ready = sorted((self.waiting.pop(name), name) for name in names)
        family = {name: record for (_, _, record), name in ready}
        for (_, game, record), name in ready:
            yield Replayed(name, game, settle(record, family))

    def rest(self) -> Iterator[Replayed]:
        """What still waits once every event is applied (``keep``: every game)."""
        yield from self._release(list(self.waiting))


_drain: Callable[[Iterable[Any]], None] = deque(maxlen=0).extend  # runs an iterator out, keeping nothing


def _seq(item: tuple[Any, bool, _Where | None]) -> Any:
    event, raw, _ = item
    # MessagePack comes raw only from chunks the typed decoder read whole: it reads each message again
    return event_decoders().msgpack.decode(event).seq if raw else event["seq"]


_as_dict = msgspec.msgpack.Decoder(dict[str, Any]).decode  # as Game.apply_msgpack decodes


def _takes(event: Any, raw: bool) -> bool:
    """Whether the engine can take the event: decode it (MessagePack) and encode its canonical bytes."""
    try:
        canonical_bytes(_as_dict(event) if raw else event)
    except Exception:
        return False
    return True


def _apply_one(game: Game, event: Any, raw: bool, where: _Where) -> None:
    """An event the engine cannot take as it is: MessagePack read the way it was before the engine decoded
    the bytes itself (msgpack, then Game.apply), else an InputError naming the event."""
    source, chunk, k = where
    position = source.where(chunk, k)
    try:
        game.apply(source.as_dict(event, position) if raw else event)
    except InputError:
        raise
    except Exception as exc:
        raise InputError(
            f"cannot be replayed: {type(exc).__name__}: {exc}", file=source.name, line=position
        ) from None


def _links(record: Record) -> list[str]:
    """The matches a record names: its parent, its playoff game, the playoff games it lists."""
    names = [record.parent, *record.children]
    if record.playoff is not None:
        names.append(record.playoff.child)
    return [name for name in names if name is not None]


def replay_files(
    paths: Sequence[str],
    *,
    until: int | None = None,
    progress: Progress | None = None,
    observe: Callable[[list[Any], bool], None] | None = None,
) -> Iterator[Replayed]:
    """Fold the events of ``paths`` (``-`` is stdin) and yield each match as soon as its record is final.

    Several files are one input: a match's events may be spread over them, and a playoff game settles its
    parent from another file. ``until``: leave out the events after that seq (the board at that seq).
    Raises InputError, before anything is yielded, for a file that cannot be read, holds no events, or holds
    an invalid event (naming file, line or event position, and field). ``observe``: called with each chunk
    of checked events (dicts, or MessagePack bytes when the flag is True) before they are folded, so it
    has seen a match's events before its record is yielded (the report's deck check, docs/decks.md).
    """
    if not paths:
        raise InputError("no event files given (use - for stdin)")
    files = [open_input(path) for path in paths]
    try:
        plan = _Plan(until)
        runs: list[list[list[_Run]]] = []
        if progress is not None:
            progress.checking(sum(f.size for f in files))
        for f in files:
            before = plan.events
            runs.append([])
            for checked in f.check():
                runs[-1].append(plan.add(checked))
                if progress is not None:
                    progress.checked(checked.size)
            if plan.events == before:
                raise InputError("is empty: no events", file=f.name)  # blank lines only too: one message
        fold = _Fold(plan)
        if progress is not None:
            progress.folding(plan.events)
        for f, file_runs in zip(files, runs, strict=True):
            for number, (chunk_runs, (events, raw)) in enumerate(zip(file_runs, f.events(), strict=True)):
                finished = fold.finished
                if observe is not None:
                    observe(events, raw)
                yield from fold.chunk(chunk_runs, events, raw, (f, number))
                if progress is not None:
                    progress.folded(len(events), fold.finished - finished)
            f.close()
        yield from fold.rest()
    finally:
        for f in files:
            f.close()


def fold_events(events: Iterable[dict[str, Any]]) -> dict[str, Game]:
    """Fold events of any number of matches already in memory, as :func:`replay_files` folds a file's:
    grouped by match, ordered by seq (stable), applied. Every game, in order of its match's first event."""
    events = list(events)
    plan = _Plan(None)
    runs = plan.add(Checked([str(e["match"]) for e in events], [e["seq"] for e in events], 0))
    fold = _Fold(plan, keep=True)
    for _ in fold.chunk(runs, events, False, None):
        pass
    return {name: fold.kept[name] for name in plan.names}
