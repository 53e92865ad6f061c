"""Stream tables and stream slots: one overlay URL that follows whatever is played there (docs/web.md,
"Stream tables and slots"; issue 37 items 1 and 5).

- A **stream table** is a table of an event (``context.event``, ``context.table``). Each match the table
  console starts there (its ``match_started``, or a playoff game's, played at its parent's table) is
  remembered, newest last (:func:`table_started`); ``/overlay/table/{event}/{table}`` shows the newest one
  the reader may see (a match under a broadcast delay shows once its start is that old:
  :mod:`streams.http.delay`).
- A **stream slot** (``/overlay/slot/{slot}``: ``main``, ``feature-2``) is what a stream crew drives from a
  Stream Deck: it follows a table, or the match taken from its queue ("up next"), and holds the scene on
  air (the game, the standings, up next), the players' sides, whether the Bench shows, and a match
  clock. Its actions (:data:`ACTIONS`) are authenticated HTTP posts (role ``stream``, scoped to the slot's
  event like any token); each is one atomic replacement of the slot's state (:meth:`Store.swap_on_air`),
  so two presses at once never lose one.

The overlay page polls ``/overlay/.../now`` (public JSON: the match to show, the scene and its data) and
subscribes to that match's live board as the match overlay does; no browser source is ever edited.
"""

from __future__ import annotations

import hashlib
import json
import re
import time
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field, replace
from typing import Any

from aiohttp import web

from replay.engine import RecordError
from replay.records import Record, from_msgpack
from replay.report.build import Filters, ReportBuilder
from streams.http.access import AUDIT_DETAIL, PRINCIPAL, match_scopes
from streams.http.delay import MAX_DELAY, Reader, reader
from streams.http.edge import BODY_TIMEOUT, read_body
from streams.http.keys import STORE
from streams.http.overlay import overlay_page
from streams.http.routes import MATCH, Answer, Problem, Route
from streams.store import Store, Venue
from streams.store.base import is_match_id

#: How many matches a table remembers (the newest shows; older ones only while a delay holds it back).
TABLE_HISTORY = 20
#: The longest "up next" queue of a slot.
QUEUE_MAX = 50
#: Rows of the standings scene.
STANDINGS_ROWS = 8
#: What an event, table or slot name may be (a key part of the store, and one path segment).
NAME = re.compile(r"[A-Za-z0-9._:-]{1,64}")
SCENES = ("game", "standings", "next")
#: The actions that put a scene on air.
SCENE_OF = {"game": "game", "standings": "standings", "up-next": "next"}
#: The clock's actions (:meth:`Clock.act`), a slot's and a match's.
CLOCK_ACTIONS = ("clock-start", "clock-pause", "time-called", "clock-reset")
STREAM = frozenset({"stream"})


def _name(raw: str, what: str) -> str:
    if not NAME.fullmatch(raw):
        raise Problem.said(
            400, "bad_parameter", "{what} must be 1 to 64 characters from A-Z a-z 0-9 . _ : -", what=what
        )
    return raw


def table_key(event: str, table: str) -> str:
    return f"table:{event}:{table}"


def slot_key(slot: str) -> str:
    return f"slot:{slot}"


# ------------------------------------------------------------------------------------------- tables
async def _swap(
    store: Venue, key: str, change: Callable[[Any], Any], default: Any
) -> tuple[Any, bytes | None, bytes]:
    """Read ``key``'s JSON state, change it and store it if nobody changed it meanwhile (else again)."""
    for _ in range(20):
        old = await store.on_air(key)
        state = json.loads(old) if old is not None else default
        new = json.dumps(change(state), sort_keys=True, separators=(",", ":")).encode()
        if await store.swap_on_air(key, old, new):
            return json.loads(new), old, new
    raise Problem.said(503, "busy", "{key} changed 20 times while this change was made; try again", key=key)


async def table_started(store: Venue, event: str, table: str, match: str, at: float | None = None) -> None:
    """Remember that ``match`` started at ``table`` of ``event`` (the newest shows on the table's overlay)."""
    when = time.time() if at is None else at

    def add(history: list[list[Any]]) -> list[list[Any]]:
        kept = [h for h in history if h[0] != match]
        return [*kept, [match, when]][-TABLE_HISTORY:]

    await _swap(store, table_key(event, table), add, [])


async def started_at_tables(store: Store, events: Sequence[Mapping[str, Any]]) -> None:
    """The table console started these matches (their ``match_started`` events, applied): each one's table
    (a playoff game's is its parent's) follows it."""
    started = [str(e["match"]) for e in events if e.get("type") == "match_started" and e.get("match")]
    if not started:
        return
    for match, (_league, event, table) in zip(started, await match_scopes(store, started), strict=True):
        if event is not None and table is not None and NAME.fullmatch(event) and NAME.fullmatch(table):
            await table_started(store, event, table, match)


async def at_table(matches: Reader, event: str, table: str) -> str | None:
    """The match ``table`` of ``event`` shows this reader now: the newest started there that the reader
    may see (under a broadcast delay, the public sees a new match once its start is that old)."""
    raw = await matches.store.on_air(table_key(event, table))
    history = json.loads(raw) if raw is not None else []
    for match, _at in reversed(history):
        seen = await matches.seen(str(match))
        if seen is None or seen.board is not None or seen.record is not None:
            return str(match)
    return None


# -------------------------------------------------------------------------------------------- slots
@dataclass
class Clock:
    """A match clock: running since ``since`` (seconds since the epoch; None: paused) after ``elapsed``
    seconds; ``called``: time was called. The overlay counts down from ``limit``. A stream slot has one
    (its Stream Deck's), and so has each match (its table console's: :func:`set_match_clock`)."""

    since: float | None = None
    elapsed: float = 0.0
    called: bool = False
    limit: float = 50 * 60.0

    def shown(self, now: float) -> float:
        """The seconds left."""
        used = self.elapsed + (now - self.since if self.since is not None else 0.0)
        return max(0.0, self.limit - used)

    def act(self, action: str, now: float) -> Clock:
        """The clock after ``action`` (``clock-start``, ``clock-pause``, ``time-called``, ``clock-reset``)
        at ``now``; a start of a running clock or a pause of a paused one changes nothing."""
        if action == "clock-start":
            return self if self.since is not None else replace(self, since=now)
        if action == "clock-pause":
            if self.since is None:
                return self
            return replace(self, since=None, elapsed=self.elapsed + now - self.since)
        if action == "time-called":  # the clock stops at 0
            used = self.elapsed + (now - self.since if self.since is not None else 0.0)
            return replace(self, since=None, elapsed=max(used, self.limit), called=True)
        if action == "clock-reset":
            return Clock(limit=self.limit)
        raise ValueError(f"no clock action {action!r}")

    def touched(self) -> bool:
        """Whether the clock was used since it was made or reset (started, or time called)."""
        return self != Clock(limit=self.limit)

    def view(self, now: float) -> dict[str, Any]:
        """What an overlay is told of the clock at ``now`` (it counts down by itself while it runs)."""
        return {
            "left": round(self.shown(now), 1),
            "limit": self.limit,
            "running": self.since is not None,
            "called": self.called,
        }


def clock_minutes(value: Any) -> float:
    """A clock's length from a body's ``minutes`` (1 to 180), in seconds; else a 400 naming the field."""
    if isinstance(value, bool) or not isinstance(value, int | float) or not 1 <= value <= 180:
        raise Problem.said(400, "bad_field", "minutes: the clock's length, 1 to 180")
    return float(value) * 60


#: The most states a match clock keeps (:func:`set_match_clock`).
CLOCK_HISTORY = 32


def clock_key(match: str) -> str:
    return f"clock:{match}"


def _clock_states(raw: Any) -> list[tuple[float, Clock]]:
    return [(float(at), Clock(**state)) for at, state in raw or []]


async def set_match_clock(
    store: Store, match: str, action: str, now: float, limit: float | None = None
) -> Clock:
    """Change ``match``'s clock (the table console's: ``action`` as :meth:`Clock.act` takes it; ``limit``:
    its new length in seconds) at ``now``, and return it.

    The stored value is the clock's states, each with the moment it was set, oldest first: the public
    view of a match under a broadcast delay is the clock as it was N seconds ago (:func:`match_clock`), so
    a start or pause made within the last N seconds must not show yet while the state before it does.
    Kept: the states set within the longest delay and the newest one before them (at most
    :data:`CLOCK_HISTORY`)."""

    def change(raw: Any) -> Any:
        states = _clock_states(raw)
        current = states[-1][1] if states else Clock()
        new = current.act(action, now)
        if limit is not None:
            new = replace(new, limit=limit)
        if new != current:
            states.append((now, new))
        recent = [i for i, (at, _) in enumerate(states) if at > now - MAX_DELAY]
        first = max(0, (recent[0] if recent else len(states)) - 1)
        return [[at, asdict(c)] for at, c in states[first:][-CLOCK_HISTORY:]]

    state, _, _ = await _swap(store, clock_key(match), change, [])
    return _clock_states(state)[-1][1] if state else Clock()


def clock_as_of(raw: Any, when: float) -> Clock | None:
    """A match clock's stored states (:func:`set_match_clock`) as they stood at ``when``: the newest set by
    then (None: none was, or an older one is no longer kept)."""
    shown = [clock for at, clock in _clock_states(raw) if at <= when]
    return shown[-1] if shown else None


async def match_clock(matches: Reader, match: str) -> dict[str, Any] | None:
    """``match``'s clock as this reader may see it (None: never set): live for a judge, a recorder or the
    producer; for the public of a match under a broadcast delay, as it was N seconds ago."""
    raw = await matches.store.on_air(clock_key(match))
    if raw is None:
        return None
    when = await matches.as_of(match)
    clock = clock_as_of(json.loads(raw), when)
    return clock.view(when) if clock is not None else None


@dataclass
class Slot:
    """A stream slot's state (see the module docstring)."""

    event: str | None = None
    table: str | None = None
    league: str | None = None  # the standings' league (an event's records are found by their league)
    queue: list[str] = field(default_factory=list)
    match: str | None = None  # taken from the queue; None: the table's
    scene: str = "game"
    swap: bool = False
    bench: bool = True
    clock: Clock = field(default_factory=Clock)

    @classmethod
    def load(cls, raw: Mapping[str, Any] | None) -> Slot:
        if not raw:
            return cls()
        fields = dict(raw)
        fields["clock"] = Clock(**(fields.get("clock") or {}))
        return cls(**fields)


def _slot_change(action: str, body: Mapping[str, Any], now: float) -> Callable[[Any], Any]:
    """The change an action makes to a slot's stored state."""

    def change(state: Any) -> Any:
        slot = Slot.load(state)
        if action == "set":
            slot = _configured(slot, body)
        elif action == "next":
            slot.match = slot.queue.pop(0) if slot.queue else None
            slot.clock = Clock(limit=slot.clock.limit)
            slot.scene = "game"
        elif action == "swap":
            slot.swap = not slot.swap
        elif action == "bench":
            slot.bench = not slot.bench
        elif action in SCENE_OF:
            scene = SCENE_OF[action]
            slot.scene = "game" if slot.scene == scene else scene  # a scene's button toggles it
        elif action in CLOCK_ACTIONS:
            slot.clock = slot.clock.act(action, now)
        return asdict(slot)

    return change


def _configured(slot: Slot, body: Mapping[str, Any]) -> Slot:
    """A slot with what ``POST /slots/{slot}`` sets: ``event``, ``table``, ``league``, ``queue`` (match ids),
    ``minutes`` (the clock's length); a field left out keeps its value; a bad one is a 400 naming it."""
    out = replace(slot)
    for key in ("event", "table", "league"):
        if key in body:
            value = body[key]
            if value is not None and not (isinstance(value, str) and NAME.fullmatch(value)):
                raise Problem.said(
                    400, "bad_field", "{key}: 1 to 64 characters from A-Z a-z 0-9 . _ : -, or null", key=key
                )
            setattr(out, key, value)
    if "queue" in body:
        queue = body["queue"]
        if (
            not isinstance(queue, list)
            or len(queue) > QUEUE_MAX
            or not all(isinstance(m, str) for m in queue)
        ):
            raise Problem.said(400, "bad_field", "queue: a list of up to {n} match ids", n=QUEUE_MAX)
        bad = [m for m in queue if not is_match_id(m)]
        if bad:
            raise Problem.said(400, "bad_field", "queue: not a match id: {bad}", bad=repr(bad[0][:60]))
        out.queue = list(queue)
    if "minutes" in body:
        out.clock = replace(out.clock, limit=clock_minutes(body["minutes"]))
    return out


async def _slot(store: Venue, name: str) -> Slot:
    raw = await store.on_air(slot_key(name))
    return Slot.load(json.loads(raw) if raw is not None else None)


# --------------------------------------------------------------------------------------- the scenes
def _record(raw: bytes | None, match: str) -> Record | None:
    try:
        return from_msgpack(raw, match=match) if raw is not None else None
    except RecordError:
        return None


async def up_next(matches: Reader, queue: Sequence[str]) -> list[dict[str, Any]]:
    """The "up next" scene: each queued match's players and round, as this reader may see them."""
    out = []
    for match, raw in zip(queue, await matches.records(list(queue)), strict=True):
        record = _record(raw, match)
        ctx = (record.context or {}) if record is not None else {}
        out.append(
            {
                "match": match,
                "players": [str(p) for p in record.players] if record is not None else [],
                "round": ctx.get("round"),
                "table": ctx.get("table"),
            }
        )
    return out


_STANDINGS: OrderedDict[str, list[dict[str, Any]]] = OrderedDict()


async def standings(matches: Reader, league: str | None, event: str | None) -> list[dict[str, Any]]:
    """The standings scene: the report's Swiss standings of the event (docs/reports.md: its matches are the
    records with ``context.series``), from the league's records as this reader may see them (a result under
    a broadcast delay counts once it shows), the first rows. Made once per set of records (the overlay asks
    every second; a new result makes them again)."""
    if league is None and event is None:
        return []
    names = await matches.store.matches(league=league)
    raws = await matches.records(names)
    digest = hashlib.sha1(repr((league, event)).encode())
    for raw in raws:
        digest.update(hashlib.sha1(raw or b"").digest())
    key = digest.hexdigest()
    hit = _STANDINGS.get(key)
    if hit is not None:
        return hit
    builder = ReportBuilder(Filters(league=league, event=event))
    for match, raw in zip(names, raws, strict=True):
        record = _record(raw, match)
        if record is not None and record.status == "finished":
            builder.add(record)
    report = builder.finish()
    rows: list[dict[str, Any]] = []
    for section in report.sections:
        for ev in section.events:
            if event is None or ev.event == event:
                rows = [
                    {
                        "rank": r.rank,
                        "player": r.player,
                        "points": r.points,
                        "win": r.win,
                        "loss": r.loss,
                        "tie": r.tie,
                    }
                    for r in ev.standings[:STANDINGS_ROWS]
                ]
    _STANDINGS[key] = rows
    while len(_STANDINGS) > 64:
        _STANDINGS.popitem(last=False)
    return rows


# ------------------------------------------------------------------------------------------- routes
async def table_page(request: web.Request) -> web.StreamResponse:
    """GET /overlay/table/{event}/{table}: the overlay that follows the table."""
    event = _name(request.match_info["event"], "event")
    table = _name(request.match_info["table"], "table")
    return overlay_page(request, follow=f"/overlay/table/{event}/{table}/now")


async def table_now(request: web.Request) -> web.StreamResponse:
    """GET /overlay/table/{event}/{table}/now: the match the table shows now."""
    event = _name(request.match_info["event"], "event")
    table = _name(request.match_info["table"], "table")
    matches = await reader(request)
    match = await at_table(matches, event, table)
    clock = await match_clock(matches, match) if match is not None else None
    return _json({"event": event, "table": table, "match": match, "scene": "game", "clock": clock})


async def clock_now(request: web.Request) -> web.StreamResponse:
    """GET /overlay/<match>/clock: the match's clock, as the table console sets it (a match's own overlay
    polls it every few seconds: it reads the clock's stored states alone, never the archive)."""
    match = request[MATCH]
    return _json({"match": match, "clock": await match_clock(await reader(request), match)})


async def slot_page(request: web.Request) -> web.StreamResponse:
    """GET /overlay/slot/{slot}: the overlay the slot's controls drive."""
    slot = _name(request.match_info["slot"], "slot")
    return overlay_page(request, follow=f"/overlay/slot/{slot}/now")


async def slot_now(request: web.Request) -> web.StreamResponse:
    """GET /overlay/slot/{slot}/now: what the slot shows now (public: the reader's view of each match)."""
    name = _name(request.match_info["slot"], "slot")
    slot = await _slot(request.app[STORE], name)
    return _json(await _slot_view(await reader(request), name, slot))


async def _slot_view(matches: Reader, name: str, slot: Slot) -> dict[str, Any]:
    match = slot.match
    if match is None and slot.event is not None and slot.table is not None:
        match = await at_table(matches, slot.event, slot.table)
    # the slot's own clock once its Stream Deck used it; until then (and after its reset) the clock the
    # shown match's table console sets
    clock = slot.clock.view(time.time())
    if not slot.clock.touched() and match is not None:
        clock = await match_clock(matches, match) or clock
    out: dict[str, Any] = {
        "slot": name,
        "match": match,
        "scene": slot.scene,
        "swap": slot.swap,
        "bench": slot.bench,
        "clock": clock,
        "next": await up_next(matches, slot.queue) if slot.scene == "next" else [],
        "standings": await standings(matches, slot.league, slot.event) if slot.scene == "standings" else [],
    }
    return out


async def slot_action(request: web.Request) -> web.StreamResponse:
    """POST /slots/{slot}/{action}: a Stream Deck's button (see :data:`ACTIONS`)."""
    name = _name(request.match_info["slot"], "slot")
    action = request.match_info["action"]
    if action not in ACTIONS:
        raise Problem.said(
            404,
            "not_found",
            "no slot action {action} (actions: {items})",
            action=repr(action[:40]),
            items=", ".join(ACTIONS),
        )
    body: Mapping[str, Any] = {}
    if action == "set":
        try:
            parsed = json.loads(await read_body(request, request.app[BODY_TIMEOUT], 64 * 1024) or b"{}")
        except (ValueError, UnicodeDecodeError) as exc:
            raise Problem.said(400, "bad_json", "the body is not JSON: {exc}", exc=exc) from None
        if not isinstance(parsed, dict):
            raise Problem.said(400, "bad_json", "the body must be a JSON object")
        body = parsed
    store = request.app[STORE]
    await _in_scope(request, await _slot(store, name), body)
    state, _, _ = await _swap(store, slot_key(name), _slot_change(action, body, time.time()), None)
    request[AUDIT_DETAIL] = f"slot {name}: {action}"
    return _json(await _slot_view(await reader(request), name, Slot.load(state)))


async def _in_scope(request: web.Request, slot: Slot, body: Mapping[str, Any]) -> None:
    """A scoped token drives only the slots of its events (and leagues, tables): the slot's, and the one a
    ``set`` would make it."""
    principal = request[PRINCIPAL]
    if not principal.scoped:
        return
    now = (slot.event, slot.table, slot.league)
    after = (body.get("event", slot.event), body.get("table", slot.table), body.get("league", slot.league))
    for event, table, league in (now, after) if now != (None, None, None) else (after,):
        if (event, league) == (None, None) or not principal.covers(league, event, table):
            raise Problem.said(
                403,
                "out_of_scope",
                "this slot is outside this token's scope ({scope})",
                scope=principal.scope_text(),
            )


def _json(obj: Any) -> web.Response:
    return web.Response(
        text=json.dumps(obj, ensure_ascii=False, separators=(",", ":")),
        content_type="application/json",
        headers={"Cache-Control": "no-store"},
    )


#: The slot's actions (``POST /slots/{slot}/{action}``): what each Stream Deck button sends.
ACTIONS: dict[str, str] = {
    "set": "configure the slot (JSON body: event, table, league, queue, minutes)",
    "next": "the next match of the queue (none left: the table's match again); the clock reset",
    "swap": "the players the other way round",
    "bench": "show or hide the Bench",
    "standings": "the standings scene on or off",
    "up-next": "the up next scene (the queue) on or off",
    "game": "the game scene",
    "clock-start": "start the match clock",
    "clock-pause": "pause the match clock",
    "time-called": "time is called: the clock stops at 0",
    "clock-reset": "the clock back to its length, paused",
}


def table_routes() -> tuple[Route, ...]:
    """The stream tables' and slots' routes (see :mod:`streams.http.routes`)."""
    public = frozenset({"public"})
    html = Answer("HTML", "text/html", {"type": "string"})
    now = Answer("what the overlay shows now", "application/json", {"type": "object"})
    return (
        Route(
            "GET",
            "/overlay/table/{event}/{table}",
            table_page,
            public,
            "A stream table's overlay",
            answers={200: html},
            tag="pages",
        ),
        Route(
            "GET",
            "/overlay/table/{event}/{table}/now",
            table_now,
            public,
            "The match a stream table shows now",
            answers={200: now},
            tag="pages",
        ),
        Route(
            "GET",
            "/overlay/slot/{slot}",
            slot_page,
            public,
            "A stream slot's overlay",
            answers={200: html},
            tag="pages",
        ),
        Route(
            "GET",
            "/overlay/slot/{slot}/now",
            slot_now,
            public,
            "What a stream slot shows now: the match, the scene, the clock",
            answers={200: now},
            tag="pages",
        ),
        Route(
            "POST",
            "/slots/{slot}/{action}",
            slot_action,
            STREAM,
            "A stream slot's action (a Stream Deck button)",
            description="Actions: " + "; ".join(f"`{k}`: {v}" for k, v in ACTIONS.items()) + ".",
            answers={200: now},
            body={"application/json": {"type": "object"}},
            audited=True,
            tag="pages",
        ),
        # after the /overlay/table/ and /overlay/slot/ routes: a match's routes take the rest of /overlay/
        Route(
            "GET",
            "/overlay/{match}/clock",
            clock_now,
            public,
            "A match's clock, set from its table console (under a broadcast delay: as it was then)",
            answers={
                200: Answer(
                    "the clock (null: never set): seconds left, length, running, time called",
                    schema={
                        "type": "object",
                        "required": ["match", "clock"],
                        "properties": {"match": {"type": "string"}, "clock": {"type": ["object", "null"]}},
                    },
                )
            },
            tag="pages",
        ),
    )
