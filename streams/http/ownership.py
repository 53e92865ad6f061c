"""Who may write which match (docs/http-api.md, "Scopes and ownership"): checked for a whole batch, event
by event, before anything of it is applied.

- **Scope.** A token scoped to leagues and/or events writes only matches inside them. A match's league
  and event are those of its ``match_started`` (its record's ``context``), which its creator's scope must
  cover: so they come from the creator's scope. A match whose league and event are not known is outside
  every scope. A playoff game (``<root>/tbN``, or a ``match_started`` naming a ``parent``) is in its
  parent's league and event: its own context may repeat them, never name others. Only the
  ``match_started`` that opens a match's stream names its parent (the first valid event at seq 1 of a
  match not stored yet, or of a playoff stub); one that does not (another event took seq 1, in the batch
  or before it) is a duplicate or a conflict the core does not apply, and lends the match nothing.
- **Namespaces.** A scoped token creates only ids ``<league>/...`` or ``<event>/...`` of its scope, the
  league or event its ``match_started`` names: two leagues' ids never meet, so squatting is impossible.
- **Ownership.** A match belongs to the producer (token) that created it, recorded atomically before its
  first event is applied (:meth:`Store.claim`: of two producers creating one id at once, exactly one owns
  it). Another producer's events are refused (``not_owner``) unless it is a judge (a token with the
  ``judge`` role besides ``ingest``). A match the service did not see created (written by the Kafka
  workers, or before ownership was recorded) belongs to no producer: only a judge writes into it.
- **After the end** of a game only a judge adds a penalty, a correction, or a playoff link (a playoff game
  naming a parent that is finished). In a batch that ends a game and then penalises, the ingest core
  refuses the penalty itself (``IngestCore.ingest_many(judge=False)``).
- **Playoffs.** A playoff game decides its parent only when it is in the parent's scope and written by a
  producer that may write the parent: its root must exist (or be created by the same batch) and be the
  writer's, or the writer a judge. So no token can pre-create or hijack another league's playoff.

Everything is decided from the store as it is before the batch, and from the batch's own valid
``match_started`` events for the matches it creates; a refusal is a :class:`Problem` 403 naming the match,
and nothing of the batch is written (the new matches' ownership is claimed only once all of it passed).
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web

from replay.contract.admit import admit
from replay.engine import EventError, RecordError
from replay.i18n import Joined, Phrase
from replay.records import from_msgpack
from streams.http.access import ACCESS, PRINCIPAL
from streams.http.routes import Problem
from streams.ingest.state import both
from streams.store import Ownership
from streams.store.base import is_match_id
from streams.tokens import Principal, Scope, namespace

#: Event types only a judge adds once a game has ended.
AMENDMENTS = frozenset({"penalty", "correction"})

_PLAYOFF_ID = re.compile(r"(?P<root>.+)/tb[0-9]+")


def is_judge(principal: Principal) -> bool:
    """A writer that may write any match of its scope, and amend a finished game: the judge role."""
    return "judge" in principal.roles


@dataclass(frozen=True)
class Owner:
    """The producer that created a match (stored as JSON by :meth:`Store.claim`)."""

    producer: str
    name: str
    at: float

    def encode(self) -> bytes:
        return json.dumps({"producer": self.producer, "name": self.name, "at": self.at}).encode()

    @classmethod
    def decode(cls, data: bytes) -> Owner:
        try:
            obj = json.loads(data)
            return cls(str(obj["producer"]), str(obj.get("name", "")), float(obj.get("at", 0.0)))
        except (ValueError, KeyError, TypeError):
            return cls("unreadable", "", 0.0)  # a damaged entry is nobody's: judges only

    def shown(self) -> str:
        return f"{self.producer} ({self.name})" if self.name else self.producer


@dataclass
class _Stored:
    """What the store holds of one match, as far as access is concerned."""

    owner: Owner | None
    exists: bool  # it has a record (events, or a playoff stub)
    league: str | None = None
    event: str | None = None
    table: str | None = None
    status: str = "in_progress"
    parent: str | None = None
    stub: bool = False


def _text(value: Any) -> str | None:
    return None if value is None else str(value)


def _ctx(obj: Mapping[str, Any]) -> Mapping[str, Any]:
    """An event's or a record's ``context`` (empty when it has none, or not a map)."""
    context = obj.get("context")
    return context if isinstance(context, dict) else {}


def _stored(owner: bytes | None, record: bytes | None) -> _Stored:
    out = _Stored(None if owner is None else Owner.decode(owner), record is not None)
    if record is None:
        return out
    try:
        rec = from_msgpack(record)
    except RecordError:  # an unreadable record is in no one's scope
        return out
    context = rec.context or {}
    out.league, out.event, out.table = (_text(context.get(k)) for k in ("league", "event", "table"))
    out.status = rec.status or "in_progress"
    out.parent = rec.parent if rec.parent is not None and is_match_id(rec.parent) else None
    out.stub = rec.stub is True
    return out


def playoff_root(match: str) -> str | None:
    """The game a playoff game id belongs to (``g1`` for ``g1/tb2``), or None for any other id."""
    m = _PLAYOFF_ID.fullmatch(match)
    return m.group("root") if m else None


@dataclass
class _Touched:
    """One match a batch writes: its valid match_started events and the types of its events."""

    starts: list[dict[str, Any]] = field(default_factory=list)  # every valid match_started at seq 1
    types: set[str] = field(default_factory=set)
    opened: bool = False  # a valid event at seq 1 was seen: the first one is what the core applies there
    opening: dict[str, Any] | None = None  # that event, when it is a match_started


def _touched(items: Iterable[Any]) -> dict[str, _Touched]:
    """The matches a batch's items name (any item naming a valid match id counts, valid or not: its
    match must be the writer's), with each one's valid ``match_started`` events at seq 1."""
    out: dict[str, _Touched] = {}
    for item in items:
        if not isinstance(item, dict) or not is_match_id(item.get("match")):
            continue
        t = out.setdefault(item["match"], _Touched())
        kind = item.get("type")
        if isinstance(kind, str):
            t.types.add(kind)
        # Only the event that opens the stream says what a new match is (docs/events.md, "The envelope":
        # match_started is seq 1): the first valid event at seq 1 in body order, which the core applies
        # there. A match_started at another seq, or after another event took seq 1, would lend its league to
        # events it does not govern; what it says is still checked against the writer's scope.
        if item.get("seq") != 1:
            continue
        try:
            admit(item)
        except EventError:
            continue  # an invalid event is refused by the core: it says nothing about the match
        if kind == "match_started":
            t.starts.append(item)
            if not t.opened:
                t.opening = item
        t.opened = True
    return out


class Refusal(Problem):
    """A batch refused whole (403): ``code`` says why, ``match`` which match."""

    def __init__(self, code: str, match: str, template: str, /, **fields: object) -> None:
        """``template``: a sentence of the catalogues (ending "; nothing was written"), with ``fields``."""
        super().__init__(403, code, template.format(**fields))
        self.template, self.fields = template, dict(fields)
        self.match = match


async def authorize(principal: Principal, store: Ownership, items: Sequence[Any]) -> list[str]:
    """Check every event of a batch against the writer's scope and the matches' owners; claim the new
    matches for the writer. Returns the matches created (claimed); raises :class:`Refusal`.

    Two writers creating the same match at once: one claim wins, the other writer's batch is checked
    again against the new owner (and refused unless it is the same producer, or a judge)."""
    touched = _touched(items)
    if not touched:
        return []
    for _ in range(2):
        new = await _checked(principal, store, touched)
        lost = await _claim(principal, store, new)
        if not lost:
            return new
    raise Refusal(
        "not_owner",
        lost[0],
        "match {match} was just created by another producer; nothing was written",
        match=lost[0],
    )


async def permitted(principal: Principal, store: Ownership, items: Sequence[Any]) -> list[str]:
    """:func:`authorize` without claiming anything: whether ``principal`` may write the batch as the store
    is now (raises :class:`Refusal`); the matches it would create (claim). The console checks a publish
    with it before it takes the match's lease, so that a refused publish neither takes a lease nor claims
    a match, and authorises it again only when it creates one."""
    touched = _touched(items)
    return await _checked(principal, store, touched) if touched else []


async def may_write(principal: Principal, store: Ownership, match: str) -> None:
    """Whether ``principal`` may write ``match`` at all (raises :class:`Refusal`), judged as a batch of
    its events would be: a stored match by its record (league, event, table) and owner; a match not
    stored yet by what its id gives, its namespace (``<league>/...`` or ``<event>/...``), as the league
    or event its match_started would have to name, and no table (a token scoped to tables, or to
    leagues and events both, shows the rest with the match_started itself). The console's lease is
    authorised with it (streams/http/lease.py)."""
    here = (await _read(store, [match]))[match]
    if here.exists or playoff_root(match) is not None:
        # a stored match is judged by its record; a playoff game by its root's (_scope_of)
        await _checked(principal, store, {match: _Touched()})
        return
    space = namespace(match)
    context = {
        key: space
        for key, names in (("league", principal.leagues), ("event", principal.events))
        if space in names
    }
    # what a match_started would have to say of the id, never what the writer sent (nothing is claimed)
    start = {"match": match, "seq": 1, "type": "match_started", "context": context}
    await _checked(principal, store, {match: _Touched(starts=[start], opened=True, opening=start)})


async def _checked(principal: Principal, store: Ownership, touched: Mapping[str, _Touched]) -> list[str]:
    """:func:`_check` over the store as it is now: the new matches, or :class:`Refusal`."""
    stored = await _read(store, sorted(touched))
    # the roots of the playoff games among them: named by their ids, their match_started's parent, or
    # the parent their stored record names
    roots = {r for m, t in touched.items() for r in _roots(m, t, stored[m])} - set(stored)
    stored.update(await _read(store, sorted(roots)))
    return _check(principal, touched, stored)


async def _read(store: Ownership, matches: list[str]) -> dict[str, _Stored]:
    if not matches:
        return {}
    # both reads at once (two pooled connections): one round trip's wait on every write, not two
    owners, records = await both(store.owners(matches), store.records(matches))
    return {m: _stored(o, r) for m, o, r in zip(matches, owners, records, strict=True)}


def _roots(match: str, t: _Touched, here: _Stored) -> set[str]:
    return set(_family_roots(match, t, here))


def _parents(t: _Touched, here: _Stored) -> set[str]:
    """The parents a match names: its stored record's, and the one named by the ``match_started`` that
    opens its stream in this batch. Only that one: a ``match_started`` at seq 1 after another event took
    seq 1 (in the batch, or already stored: a match with a record other than a playoff stub has its
    first event) is a duplicate or a conflict the core does not apply, and makes no game a playoff game
    nor lends it a parent's league (found by the property test of tests/streams/http/test_scopes.py)."""
    found = {here.parent} if here.parent else set()
    opens = not here.exists or here.stub
    parent = t.opening.get("parent") if opens and t.opening is not None else None
    if isinstance(parent, str) and is_match_id(parent):
        found.add(parent)
    return found


async def _claim(principal: Principal, store: Ownership, new: list[str]) -> list[str]:
    """Claim the new matches; the ones another producer claimed first (a race lost)."""
    mine = Owner(principal.id, principal.name, time.time()).encode()
    held = await store.claim(new, mine)  # one round trip
    return [
        m
        for m, now in zip(new, held, strict=True)
        if now != mine and Owner.decode(now).producer != principal.id
    ]


def _check(principal: Principal, touched: Mapping[str, _Touched], stored: Mapping[str, _Stored]) -> list[str]:
    """Every match of the batch may be written by ``principal`` (else :class:`Refusal`); the new ones."""
    judge = is_judge(principal)
    new: list[str] = []
    for match in sorted(touched):
        t = touched[match]
        here = stored[match]
        families = _family_roots(match, t, here)
        # a playoff game is in each of its roots' scope (they are one when its id and parent agree)
        roots: list[str | None] = [*families] or [None]
        scopes = [_scope_of(match, t, here, root, stored, touched) for root in roots]
        for league, event, table in scopes:
            for start in t.starts:  # no event outside the writer's scope, whatever it says
                ctx = _ctx(start)
                said = (_text(ctx.get("league")), _text(ctx.get("event")), _text(ctx.get("table")) or table)
                if principal.scoped and said[:2] != (None, None) and not principal.covers(*said):
                    raise Refusal(
                        "out_of_scope",
                        match,
                        "match {match}: its match_started names {where}, outside this token's scope "
                        "({scope}); nothing was written",
                        match=match,
                        where=_scope_words(*said),
                        scope=principal.scope_text(),
                    )
            if principal.scoped and not principal.covers(league, event, table):
                where = _scope_words(league, event, table)
                raise Refusal(
                    "out_of_scope",
                    match,
                    "match {match} ({where}) is outside this token's scope ({scope}); nothing was written",
                    match=match,
                    where=where,
                    scope=principal.scope_text(),
                )
        for root in families:
            _check_playoff(principal, match, t, here, root, touched, stored)
        if here.owner is not None:
            if here.owner.producer != principal.id and not judge:
                raise Refusal(
                    "not_owner",
                    match,
                    "match {match} belongs to the producer {owner}: only a judge may write into another "
                    "producer's match; nothing was written",
                    match=match,
                    owner=here.owner.shown(),
                )
        elif here.exists and not families and not judge:
            raise Refusal(
                "not_owner",
                match,
                "match {match} was not created through this service (no producer owns it): only a judge "
                "may write into it; nothing was written",
                match=match,
            )
        elif not here.exists or families:  # a new match, or a playoff game not yet claimed
            if not families and principal.scoped:
                _check_namespace(principal, match, league, event)
            new.append(match)
        if not judge and here.status != "in_progress" and t.types & AMENDMENTS:
            kinds = " or ".join(sorted(t.types & AMENDMENTS))
            raise Refusal(
                "judge_only",
                match,
                "match {match} has ended ({status}): only a judge may add a {kinds} now; nothing was written",
                match=match,
                status=here.status,
                kinds=kinds,
            )
    return new


def _check_namespace(principal: Principal, match: str, league: str | None, event: str | None) -> None:
    """A scoped token creates matches only in its own namespace: an id ``<league>/...`` or ``<event>/...``
    naming one of its scope's leagues or events, the one its ``match_started`` names. Two leagues' ids
    never meet, so no token can take an id that another league's producer will need (squatting)."""
    if not principal.may_create(match) or namespace(match) not in (league, event):
        spaces = ", ".join(f"{n}/..." for n in (*principal.leagues, *principal.events))
        raise Refusal(
            "out_of_scope",
            match,
            "match {match}: a token scoped to {scope} creates only matches whose id starts with its league "
            "or event, the one its match_started names ({spaces}); nothing was written",
            match=match,
            scope=principal.scope_text(),
            spaces=spaces,
        )


def _family_roots(match: str, t: _Touched, here: _Stored) -> list[str]:
    """The roots of the playoff families ``match`` is a playoff game of (none for any other game): the
    one its id names (``<root>/tbN``), and those of the parents it names (:func:`_parents`). Each must
    let the writer in: an id under one league's game naming another league's game as its parent is
    checked against both."""
    root = playoff_root(match)
    found = {root} if root is not None else set()
    found.update(playoff_root(parent) or parent for parent in _parents(t, here))
    return sorted(found)


def _check_playoff(
    principal: Principal,
    match: str,
    t: _Touched,
    here: _Stored,
    root: str,
    touched: Mapping[str, _Touched],
    stored: Mapping[str, _Stored],
) -> None:
    """A playoff game decides its parent only when written by a producer that may write the parent."""
    judge = is_judge(principal)
    top = stored.get(root)
    if top is None or (not top.exists and root not in touched):
        if here.owner is None and not here.exists:
            raise Refusal(
                "playoff_parent",
                match,
                "match {match} is a playoff game of {root}, which is not known: send the playoff after its "
                "parent; nothing was written",
                match=match,
                root=root,
            )
        return
    if top.owner is not None:
        if top.owner.producer != principal.id and not judge:
            raise Refusal(
                "playoff_parent",
                match,
                "match {match} is a playoff game of {root}, which belongs to the producer {owner}: only "
                "that producer or a judge may play its playoff; nothing was written",
                match=match,
                root=root,
                owner=top.owner.shown(),
            )
    elif top.exists and not judge:
        raise Refusal(
            "playoff_parent",
            match,
            "match {match} is a playoff game of {root}, which no producer owns: only a judge may play its "
            "playoff; nothing was written",
            match=match,
            root=root,
        )
    if not judge and top.status == "finished" and t.starts and here.owner is None:
        raise Refusal(
            "judge_only",
            match,
            "match {match}: its parent {root} is finished: only a judge may add a playoff game to it; "
            "nothing was written",
            match=match,
            root=root,
        )


def _scope_of(
    match: str,
    t: _Touched,
    here: _Stored,
    root: str | None,
    stored: Mapping[str, _Stored],
    touched: Mapping[str, _Touched],
) -> Scope:
    """A match's league, event and table: a playoff game's are its root's (it is played at the same
    table); a stored match's its record's; a new match's those of its valid match_started in the batch
    (all of them must agree)."""
    if root is not None:
        top = stored.get(root)
        if top is not None and top.exists:
            scope: Scope = (top.league, top.event, top.table)
        else:
            scope = _batch_scope(root, touched.get(root, _Touched()))
        for start in t.starts:
            ctx = _ctx(start)
            for key, value in (("league", scope[0]), ("event", scope[1])):
                if ctx.get(key) is not None and _text(ctx.get(key)) != value:
                    raise Refusal(
                        "out_of_scope",
                        match,
                        "match {match} is a playoff game of {root} ({where}): its match_started names "
                        "another {key}; nothing was written",
                        match=match,
                        root=root,
                        where=_scope_words(*scope),
                        key=Phrase("league") if key == "league" else Phrase("event"),
                    )
        return scope
    if here.exists:
        return here.league, here.event, here.table
    return _batch_scope(match, t)


def _batch_scope(match: str, t: _Touched) -> Scope:
    scopes: set[Scope] = set()
    for start in t.starts:
        ctx = _ctx(start)
        scopes.add((_text(ctx.get("league")), _text(ctx.get("event")), _text(ctx.get("table"))))
    if len(scopes) > 1:
        raise Refusal(
            "out_of_scope",
            match,
            "match {match}: its match_started events name different leagues, events or tables; nothing was "
            "written",
            match=match,
        )
    if t.opening is None:
        return None, None, None  # nothing opens it as a match of a league or event: outside every scope
    return next(iter(scopes), (None, None, None))


def _scope_words(league: str | None, event: str | None, table: str | None = None) -> str:
    """A match's scope in words (English; phrases a refusal says again in the reader's language)."""
    parts: list[object] = []
    if league is not None:
        parts.append(Phrase("league {name}", name=repr(league[:60])))
    if event is not None:
        parts.append(Phrase("event {name}", name=repr(event[:60])))
    if table is not None:
        parts.append(Phrase("table {name}", name=repr(table[:20])))
    return Joined(Phrase(" and "), parts) if parts else Phrase("no league or event")


async def authorize_request(request: web.Request, events: Sequence[Any], what: str = "write") -> list[str]:
    """:func:`authorize` for the request's caller, before anything of ``events`` is written: a refusal is
    in the audit log (``WHAT refused (CODE): ...``) and raised (403). The matches created; none on a
    service without access control."""
    access = request.app[ACCESS]
    if access.open:
        return []
    principal = request[PRINCIPAL]
    try:
        return await authorize(principal, access.store, events)
    except Refusal as exc:
        await access.refused(request, principal, 403, f"{what} refused ({exc.code}): {exc.message}")
        raise
