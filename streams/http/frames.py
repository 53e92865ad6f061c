"""Every step of a game for the review page, from one fold of its archive: the page steps without asking.

:func:`frames` replays the archive once with the engine and gives one frame per archived event (a step):
the event, the conflicting or late entries archived while it was the head, the derived outputs it
caused, the status and the number of findings so far, and the board after it. A board is sent whole at
every :data:`SNAPSHOT`-th step (a snapshot) and as a delta of the step before otherwise
(:func:`board_delta`: only the top-level fields and the player fields that changed), so a 1,200-event
game's every board is some tens of KB. The page rebuilds a step's board when it is first shown, folding
the deltas forward from the snapshot at or before it (at most ``SNAPSHOT - 1`` of them), so opening a
50,000-event game does not rebuild 50,000 boards and a step to any seq needs no server round trip
(docs/web.md).

Damage outside the attack and checkup windows is checked for knockouts once its effect has resolved
[rules §2], which the engine learns from the next event. When the effect ends at a step (the next
archived event is not part of it, or there is none) the step shows it resolved: the knockouts, prizes
and decision stamped with its seq, and the board after them.

Prize cards are shown taken at the step they are taken (``due``): the engine counts a knockout's prizes
as due at the knockout, and the source's ``prize_taken`` claim that follows takes them [rules §3]; until
that claim, or until the turn moves on without one, the frame says how many each player has due.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final

from replay import Game
from replay.contract.validate import checked_game
from replay.engine import EventLog, State, build_board

Event = dict[str, Any]

#: Events after which prizes still due are taken whatever the source claims: the turn moved on.
_TURN_MOVES = frozenset({"turn_started", "turn_ended", "attack"})


#: Every this many steps a frame carries its board whole (step 0, SNAPSHOT, 2 * SNAPSHOT, ...): a step's
#: board is then at most SNAPSHOT - 1 deltas from one the page has whole. 64 deltas fold in well under a
#: millisecond in the page; a snapshot costs ~1 KB of JSON where a delta costs ~50 bytes.
SNAPSHOT: Final = 64

out_of = object()  # a value no field has: a field that was absent differs from any value


def board_delta(before: Mapping[str, Any] | None, after: Mapping[str, Any]) -> dict[str, Any]:
    """``after`` as the fields that differ from ``before``: top-level fields, and per player the changed
    fields (``players: {name: {field: value}}``); removed fields are listed in ``"-"``. With no
    ``before``, ``after`` whole. :func:`apply_delta` undoes it."""
    if before is None:
        return dict(after)
    out: dict[str, Any] = {k: v for k, v in after.items() if k != "players" and before.get(k, out_of) != v}
    gone = [k for k in before if k not in after]
    players: dict[str, Any] = {}
    old = before.get("players") or {}
    for name, now in (after.get("players") or {}).items():
        was = old.get(name)
        if was == now:  # most steps change one player, or none
            continue
        if not isinstance(was, Mapping) or not isinstance(now, Mapping):
            if was != now:
                players[name] = now
            continue
        changed: dict[str, Any] = {k: v for k, v in now.items() if was.get(k, out_of) != v}
        dropped = [k for k in was if k not in now]
        if dropped:
            changed["-"] = dropped
        if changed:
            players[name] = changed
    if players:
        out["players"] = players
    if gone:
        out["-"] = gone
    return out


def apply_delta(before: Mapping[str, Any] | None, delta: Mapping[str, Any]) -> dict[str, Any]:
    """The board that :func:`board_delta` described (what the page's script does, for the tests)."""
    if before is None:
        return dict(delta)
    board = {k: v for k, v in before.items() if k not in delta.get("-", ())}
    board.update({k: v for k, v in delta.items() if k not in ("players", "-")})
    players = dict(before.get("players") or {})
    for name, change in (delta.get("players") or {}).items():
        was = players.get(name)
        if isinstance(was, Mapping) and isinstance(change, Mapping):
            merged = {k: v for k, v in was.items() if k not in change.get("-", ())}
            merged.update({k: v for k, v in change.items() if k != "-"})
            players[name] = merged
        else:
            players[name] = change
    if "players" in before or "players" in delta:
        board["players"] = players
    return board


def _state(state: State, log: EventLog, start: int) -> dict[str, Any]:
    return {
        "outputs": list(state.timeline[start:]),
        "board": build_board(state, log),
        "status": state.status,
        "findings_so_far": len(state.findings),
    }


def _steps(entries: Sequence[Any]) -> list[list[int]]:
    """The archive's entries grouped by step: the indexes of the entries at one position's seq."""
    groups: list[list[int]] = []
    last: int | None = None
    for i, entry in enumerate(entries):
        seq = entry.position[0]
        if groups and seq == last:
            groups[-1].append(i)
        else:
            groups.append([i])
            last = seq
    return groups


def replay_steps(
    entries: Sequence[Any], events: Sequence[Event], until: int | None = None
) -> tuple[list[dict[str, Any]], Game]:
    """Each step's full state (``seq``, ``event``, ``extra``, ``outputs``, ``board``, ``status``,
    ``findings_so_far``, ``due``) from one fold of the archive (``events``: the entries decoded), and the
    game after it. With ``until``, the steps up to that seq only (and the next one, which tells whether
    an effect ended there).

    Entries are applied in archive order; a conflicting or late event archived while the head was a
    seq belongs to that seq's step (``extra``).
    """
    fold = StepFold(entries, events)
    steps: list[dict[str, Any]] = []
    while not fold.done:
        if until is not None and fold.last is not None and fold.last["seq"] > until:
            break
        final = fold.step()
        if final is not None:
            steps.append(final)
    last = fold.finish()
    if last is not None:
        steps.append(last)
    return steps, fold.game


class StepFold:
    """:func:`replay_steps` a step at a time: the review's windows (``/meta?from=&to=``) fold only as far
    as the window they answer, and the fold is kept to go on from there for the next one.

    A step is final once the next step's entries are applied (they tell whether an effect the step left
    resolving ended there) or once :meth:`finish` says nothing follows."""

    def __init__(self, entries: Sequence[Any], events: Sequence[Event]) -> None:
        self.entries = entries
        self.events = events
        self.groups = _steps(entries)
        self._grouped = len(entries)
        self.game = checked_game()
        #: The step applied last, not final yet.
        self.last: dict[str, Any] | None = None
        self._pending: tuple[dict[str, Any], dict[str, Any]] | None = None  # last's: (resolved, plain)
        self._next = 0
        self._due: dict[str, int] = {}

    def more(self) -> None:
        """Group the entries added to ``entries`` (and ``events``) since: an archive read a range at a
        time. A step whose last entry has been read may still get more from the next range: the caller
        applies a step only once an entry after it has been read, or the archive's end."""
        entries, groups = self.entries, self.groups
        for i in range(self._grouped, len(entries)):
            if groups and entries[groups[-1][0]].position[0] == entries[i].position[0]:
                groups[-1].append(i)
            else:
                groups.append([i])
        self._grouped = len(entries)

    @property
    def done(self) -> bool:
        """Every step applied."""
        return self._next >= len(self.groups)

    @property
    def applied(self) -> int:
        """The number of steps applied."""
        return self._next

    def step(self) -> dict[str, Any] | None:
        """Apply the next step's entries; the step before it, final now (None before the first)."""
        group = self.groups[self._next]
        self._next += 1
        game, entries, before = self.game, self.entries, self.last
        seq = entries[group[0]].position[0]
        mark = len(game.timeline)
        shown: int | None = None
        event: Event | None = None
        extra: list[dict[str, Any]] = []
        for n, i in enumerate(group):
            ev = self.events[i]
            game.apply(ev)
            if n == 0 and self._pending is not None and before is not None:
                # The step before left an effect resolving: did it end there? It did when this event
                # resolved it with that step's seq; it goes on when this event is part of it (the
                # outputs then carry a later seq), and the step before shows it unresolved.
                ended = any(o.get("seq") == before["seq"] for o in game.timeline[mark:])
                before.update(self._pending[0] if ended else self._pending[1])
                shown = before["seq"] if ended else None  # shown there: not again here
                self._pending = None
            if entries[i].kind == "event" and event is None:
                event = ev
            else:
                extra.append({"kind": entries[i].kind, "event": ev})
        view = game.resolved()
        state = _state(game.state, game.log, mark)
        if shown is not None:
            state["outputs"] = [o for o in state["outputs"] if o.get("seq") != shown]
        if view is not game.state:
            self._pending = (_state(view, game.log, mark), state)
        self.last = {"seq": seq, "event": event, "extra": extra, **state}
        if before is not None:
            self._final(before)
        return before

    def finish(self) -> dict[str, Any] | None:
        """The step applied last, final: nothing follows it (an effect it left resolving ends there)."""
        last, self.last = self.last, None
        if last is None:
            return None
        if self._pending is not None:
            last.update(self._pending[0])
            self._pending = None
        self._final(last)
        return last

    def _final(self, step: dict[str, Any]) -> None:
        _prizes_due(self._due, step["event"], step["outputs"])
        step["due"] = dict(self._due)


def _prizes_due(due: dict[str, int], event: Event | None, outputs: Sequence[Mapping[str, Any]]) -> None:
    """Prizes a knockout made due and no ``prize_taken`` has taken yet, per player [rules §3]: the turn
    moving on takes what is left; a step's knockouts add theirs; its ``prize_taken`` takes them (also
    when the claim is the event at which an effect's knockout was checked)."""
    t = event.get("type") if event is not None else None
    if t in _TURN_MOVES:
        due.clear()
    for out in outputs:
        if out.get("type") == "prizes_due" and isinstance(out.get("player"), str):
            count = out.get("count")
            if isinstance(count, int) and count > 0:
                due[out["player"]] = due.get(out["player"], 0) + count
    if event is not None and t == "prize_taken" and not event.get("effect"):
        player, count = event.get("player"), event.get("count")
        if isinstance(player, str) and isinstance(count, int) and player in due:
            due[player] -= min(due[player], count)
            if not due[player]:
                del due[player]


def frames(steps: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The steps as the review page gets them: the board whole at every :data:`SNAPSHOT`-th step, a
    delta of the step before's otherwise (:func:`boards` undoes it)."""
    out: list[dict[str, Any]] = []
    before: Mapping[str, Any] | None = None
    for i, step in enumerate(steps):
        frame = dict(step)
        board = step["board"]
        frame["board"] = dict(board) if i % SNAPSHOT == 0 else board_delta(before, board)
        before = board
        out.append(frame)
    return out


def boards(frames: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Every step's board from :func:`frames` (what the page's script does step by step, for the tests):
    a snapshot as it is, a delta folded on the board before."""
    out: list[dict[str, Any]] = []
    for i, frame in enumerate(frames):
        out.append(dict(frame["board"]) if i % SNAPSHOT == 0 else apply_delta(out[-1], frame["board"]))
    return out
