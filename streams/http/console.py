"""The table console (docs/console.md): an operator records a paper game live, the engine prompting.

Routes (role ``recorder``; an ``admin`` token has it too), all under ``/console/<match>``:

- ``GET /console/<match>``: the page (``templates/console.html``, ``static/console.js``: no inline script);
- ``GET /console/<match>/state``: the engine's view after the archive (:func:`streams.http.prompts.derive`:
  the board, the prompts, the findings with their rule references), the next seq and who writes;
- ``POST /console/<match>/preview`` ``{"events": [...]}``: the same view with the operator's draft folded
  on top of the archive, nothing stored (a draft is the console's until it is published);
- ``POST /console/<match>/events`` ``{"console": id, "events": [...]}``: publish. The events go through
  the one ingest core (:meth:`streams.http.ingest.IngestCore.ingest_many`), after the same ownership
  check as ``POST /events``; the answer is each event's outcome and the view after them;
- ``POST /console/<match>/lease`` ``{"console": id, "action": "take" | "renew" | "release" | "take_over"}``:
  one console writes a match at a time; another is read-only until the first releases (or stops renewing
  for :data:`~streams.http.lease.LEASE_SECONDS`). The lease belongs to the token that took it, and is
  authorised as a write of the match (:mod:`streams.http.lease`);
- ``POST /console/<match>/clock`` ``{"console": id, "action": "start" | "pause" | "reset", "minutes": n}``:
  the match clock the overlays show (:func:`streams.http.tables.set_match_clock`), authorised as the
  lease is; a published ``time_called`` stops it at 0 (time called);
- ``GET /console/<match>/export?format=jsonl|csv``: the game as event files (JSON Lines, what
  ``prizecheck replay`` reads) or as a match sheet (``prizecheck import sheet``).

**Fenced by seq.** The console numbers its events itself. A publish whose events do not continue the
archive (a seq already taken by a different event, or one past the head) is refused whole (409
``fenced``) before anything is written: a stale console never forks the game. An event the archive holds
byte for byte is a duplicate (the core's own idempotence), so resending an outbox is harmless.
"""

from __future__ import annotations

import asyncio
import json
import re
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any, TypeVar

from aiohttp import web

from replay.contract.admit import admit
from replay.engine import EventError, InputError, canonical_bytes, cards_are_public, public_event
from replay.sources.cards import card_database, fold
from replay.sources.decks import parse_ptcgl
from streams.http.access import ACCESS, AUDIT_DETAIL, HIDDEN_SERVED, PRINCIPAL
from streams.http.battle_log import decode, display_names, sentences
from streams.http.console_sheet import sheet_csv
from streams.http.delay import broadcast_delay, reader
from streams.http.edge import read_body
from streams.http.keys import CORE, OPTIONS, STORE
from streams.http.lease import ACTIONS, Holder, lease, view
from streams.http.ownership import Owner, Refusal, authorize, is_judge, may_write, permitted
from streams.http.prompts import derive, playoff_records
from streams.http.routes import LANG, MATCH, QUERY, Answer, Param, Problem, Route, page_lang
from streams.http.rulings import penalty_kinds, prize_counts
from streams.http.tables import clock_minutes, match_clock, set_match_clock, started_at_tables
from streams.http.templating import event_language, render
from streams.store import Access
from streams.tokens import Principal

RECORDER = frozenset({"recorder"})
#: The most events one preview or publish carries (a draft is a few actions; an outbox after an outage
#: a few hundred).
MAX_CONSOLE_EVENTS = 2000
#: The largest console body, in bytes.
MAX_CONSOLE_BODY = 2 * 1024 * 1024
#: What a write's check answers (:func:`_writer`).
T = TypeVar("T")


def _json(obj: Any, status: int = 200) -> web.Response:
    body = json.dumps(obj, ensure_ascii=False, separators=(",", ":"), default=_hex)
    return web.Response(
        text=body, status=status, content_type="application/json", headers={"Cache-Control": "no-store"}
    )


def _hex(obj: object) -> Any:
    if isinstance(obj, bytes | bytearray):
        return obj.hex()
    raise TypeError(f"not JSON serialisable: {type(obj).__name__}")


async def _archive(request: web.Request) -> list[dict[str, Any]]:
    return decode(await request.app[STORE].events(request[MATCH]))


async def _full_reader(request: web.Request, store: Access, match: str) -> bool:
    """Whether the asker reads the match's events as written (hidden cards, deck lists): a judge, or the
    producer that created the match."""
    if _judge(request):
        return True
    (owner,) = await store.owners([match])
    return owner is not None and Owner.decode(owner).producer == request[PRINCIPAL].id


def _me(request: web.Request, console: str) -> Holder:
    """The asking console, held by the asking token."""
    return Holder(request[PRINCIPAL].id, console)


def _judge(request: web.Request) -> bool:
    return request.app[ACCESS].open or is_judge(request[PRINCIPAL])


async def _writer(request: web.Request, check: Callable[[], Awaitable[T]]) -> T | None:
    """Authorise a write of this match (``check``: :func:`may_write`, :func:`permitted` or :func:`authorize`
    of it) before anything changes: a refusal is audited and answered 403; nothing is
    written, no lease taken. The check's answer; None when the service is open (nothing checked)."""
    access = request.app[ACCESS]
    if access.open:
        return None
    try:
        return await check()
    except Refusal as exc:
        await access.refused(request, request[PRINCIPAL], 403, f"write refused ({exc.code}): {exc.message}")
        raise


async def _view(request: web.Request, events: Sequence[Mapping[str, Any]], draft_from: int | None) -> Any:
    started = next((e for e in events if e.get("type") == "match_started"), {})
    # the page's language: ?lang= (the console page sends its own), the event's, the browser's
    lang = page_lang(request, event_language(started.get("context")))
    playoffs = await playoff_records(request.app[STORE], request[MATCH])
    view = derive(events, draft_from, playoffs, lang)
    view["match"] = request[MATCH]
    view["author"] = author(request[PRINCIPAL])  # how this console's corrections name their writer
    # the penalty form offers what the game's ruleset gives (a JP prize penalty: the judge's count, 1 or 3
    # first) [docs/rules.md §6.1]
    ruleset = str(started.get("ruleset") or "play-2026")
    view["penalties"] = list(penalty_kinds(ruleset))
    view["prize_counts"] = list(prize_counts(ruleset))
    # the log and the draft in the review page's sentences (streams/http/battle_log.py), each from the
    # event's public projection: hidden cards stay out
    public = _public(events)
    lines = [{**e, "text": text} for e, text in zip(public, sentences(public, lang), strict=True)]
    # the board's card names in the page's language, those shown otherwise than the events write them
    shown = {
        str(n)
        for m in view.get("pokemon") or ()
        for n in (m.get("name"), *(m.get("attached") or ()))
        if isinstance(n, str)
    }
    view["names"] = display_names(shown, lang)
    drafted = [draft_from is not None and int(e.get("seq") or 0) >= draft_from for e in events]
    view["log"] = [line for line, d in zip(lines, drafted, strict=True) if not d]
    view["draft"] = [
        {"seq": line.get("seq"), "text": line["text"]} for line, d in zip(lines, drafted, strict=True) if d
    ]
    return view


def _public(events: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The events' public projections (``replay.engine.public``), an amendment keeping what the public
    projection of the event it amends shows of the fields it changes (an amount, never a hidden card)."""
    by_seq = {e.get("seq"): e for e in events}
    out = []
    for event in events:
        shown = public_event(dict(event))
        replacement, target = event.get("event"), by_seq.get(event.get("target"))
        if event.get("type") == "correction" and isinstance(replacement, Mapping) and target is not None:
            amended = public_event({**target, **replacement, "seq": target.get("seq")})
            kept = {k: amended[k] for k in replacement if k in amended and k not in ("match", "seq", "type")}
            if kept:
                shown["event"] = kept
        out.append(shown)
    return out


def _console_id(raw: Any) -> str:
    if not isinstance(raw, str) or not 1 <= len(raw) <= 64 or not raw.isascii():
        raise Problem.said(400, "bad_body", "console must be the console's id: 1 to 64 ASCII characters")
    return raw


async def _body(request: web.Request) -> dict[str, Any]:
    timeout = request.app[OPTIONS]["body_timeout"]
    raw = await read_body(request, timeout, MAX_CONSOLE_BODY)
    try:
        body = json.loads(raw or b"{}")
    except (ValueError, RecursionError):
        raise Problem.said(400, "bad_body", "the body is not JSON") from None
    if not isinstance(body, dict):
        raise Problem.said(400, "bad_body", "the body must be a JSON object")
    return body


def author(principal: Principal) -> str:
    """How a correction names the console's writer (``correction.author``): its role as a corrector
    (``judge`` or ``recorder``) and its token's name."""
    return f"{'judge' if is_judge(principal) else 'recorder'} {principal.name}"


def _events(body: Mapping[str, Any], match: str, writer: str | None = None) -> list[dict[str, Any]]:
    """The body's events, each valid against the contract and of this match (400 naming the one that is
    not, by its index and field); a correction's ``author`` must be ``writer`` (:func:`author`): a
    correction never names someone else."""
    events = body.get("events", [])
    if not isinstance(events, list):
        raise Problem.said(400, "bad_body", "events must be a list of events")
    if len(events) > MAX_CONSOLE_EVENTS:
        raise Problem.said(413, "too_many_events", "at most {n} events in one request", n=MAX_CONSOLE_EVENTS)
    out = []
    for i, ev in enumerate(events):
        if not isinstance(ev, dict):
            raise Problem.said(400, "bad_event", "event {i}: not an object", i=i)
        if ev.get("match") != match:
            raise Problem.said(
                400,
                "bad_event",
                "event {i}: match must be {match!r} (this console's match)",
                i=i,
                match=match,
            )
        try:
            admit(ev)
        except EventError as exc:
            raise Problem.said(400, "bad_event", "event {i}: {error}", i=i, error=exc) from None
        if ev.get("type") == "correction" and "author" in ev and ev["author"] != writer:
            raise Problem.said(
                400,
                "bad_event",
                "event {i}: a correction's author must be its writer ({writer!r}), not {author!r}",
                i=i,
                writer=writer,
                author=ev["author"],
            )
        _check_decks(ev, i)
        if "hidden" in ev and ev.get("type") == "moved" and cards_are_public(ev):
            raise Problem.said(
                400,
                "bad_event",
                "event {i}: cards moved to or from a public zone (or revealed) cannot be marked hidden",
                i=i,
            )
        out.append(ev)
    return out


def _check_decks(ev: Mapping[str, Any], i: int) -> None:
    """A match_started's deck lists (``console.decks``: player -> PTCGL export) must read as deck lists,
    so the deck check finds them whole (docs/decks.md); 400 naming the player's list and its line."""
    extra = ev.get("console") if ev.get("type") == "match_started" else None
    lists = extra.get("decks") if isinstance(extra, Mapping) else None
    for player, text in (lists or {}).items() if isinstance(lists, Mapping) else ():
        if isinstance(text, str) and text.strip():
            try:
                parse_ptcgl(text, f"console.decks.{player}")
            except InputError as exc:
                raise Problem.said(400, "bad_event", "event {i}: {error}", i=i, error=exc) from None


async def _fence(request: web.Request, match: str, events: Sequence[dict[str, Any]], head: int) -> None:
    """Refuse (409 ``fenced``) events that do not continue the archive, whose last seq is ``head``: a seq
    taken by another event, or one that skips ahead. Nothing is written then."""
    store = request.app[STORE]
    expected = head + 1
    for ev in events:
        seq = int(ev["seq"])
        if seq <= head:
            stored = await store.event(match, seq)
            if stored is None or stored != canonical_bytes(ev):
                raise Problem.said(
                    409,
                    "fenced",
                    "seq {seq} of {match} holds another event already (the archive is at seq {head}): "
                    "another console wrote this match",
                    seq=seq,
                    match=match,
                    head=head,
                )
            continue
        if seq != expected:
            raise Problem.said(
                409,
                "fenced",
                "seq {seq} of {match} does not follow the archive (next is {expected})",
                seq=seq,
                match=match,
                expected=expected,
            )
        expected += 1


# ----------------------------------------------------------------------------------------- handlers
async def console_page(request: web.Request) -> web.StreamResponse:
    """GET /console/<match>: the table console's page."""
    return render(request, "console.html", match=request[MATCH])


async def console_state(request: web.Request) -> web.StreamResponse:
    """GET /console/<match>/state[?console=ID]: the engine's view after the archive, and who writes."""
    me = _me(request, request[QUERY].get("console") or "")
    events = await _archive(request)
    state = await _view(request, events, None)
    held = await lease(request.app[STORE], request[MATCH], me, "peek")  # a read never renews a lease
    state["lease"] = view(held, me, _judge(request))
    state["delay"] = broadcast_delay(events[0]) if events else 0.0  # what the live hub holds boards back by
    state["clock"] = await match_clock(await reader(request), request[MATCH])
    return _json(state)


async def console_preview(request: web.Request) -> web.StreamResponse:
    """POST /console/<match>/preview: the view with the draft folded on the archive; nothing stored."""
    match = request[MATCH]
    draft = _events(await _body(request), match, author(request[PRINCIPAL]))
    archive = await _archive(request)
    start = max((int(e.get("seq") or 0) for e in archive), default=0) + 1
    view = await _view(request, [*archive, *draft], start)
    if not archive and draft and draft[0].get("type") == "match_started":
        # the start still a draft: its deck lists' cards for the picks (GET /cards reads the archive's),
        # from the asker's own body
        view["deck"] = deck_cards(draft[0])
    return _json(view)


async def console_publish(request: web.Request) -> web.StreamResponse:
    """POST /console/<match>/events: publish the console's events through the ingest core."""
    match = request[MATCH]
    store = request.app[STORE]
    body = await _body(request)
    me = _me(request, _console_id(body.get("console")))
    console = me.console
    events = _events(body, match, author(request[PRINCIPAL]))
    principal = request[PRINCIPAL]
    judge = _judge(request)
    if not events:  # nothing to write: the view, and no lease taken
        held = await lease(store, match, me, "peek")
    else:
        # the ownership of POST /events (streams/http/ownership.py) first: a publish it refuses takes no
        # lease; then the lease, the fence, and, when the publish creates a match, the same check again
        # as it is claimed
        new = await _writer(request, lambda: permitted(principal, store, events))
        # the archive's head is read with the lease's take, in one round trip (serve's autopipelined store
        # sends both in one pipeline, in this order): the fence's own read after the take was one more
        # wait before the write, tens of ms each under a venue's load (docs/performance.md, issue 40 item
        # 5). Another console's write can fall between the head read and the write only from a holder
        # whose lease lapsed, as it could between the fence and the write before.
        held, head = await asyncio.gather(lease(store, match, me, "take"), store.head(match))
        if held != me:
            raise Problem.said(
                409,
                "read_only",
                "another console writes {match}: this one is read-only until it hands over",
                match=match,
            )
        await _fence(request, match, events, head)
        if new:
            # a match this publish creates (or a playoff game it opens) is claimed, checked again against
            # the store as it is then: another producer may have created it meanwhile. A stored match's
            # owner never changes once set, so its check above stands; reading it again cost one more
            # round trip before every write (docs/performance.md, issue 40 item 5)
            await _writer(request, lambda: authorize(principal, store, events))
    outcomes = await request.app[CORE].ingest_many(events, judge=judge) if events else []
    answers = [o.as_json() for o in outcomes]
    # a match this console started: its stream table follows it (streams/http/tables.py)
    applied = {
        (o.match, s) for o in outcomes for s in (*o.applied, *([o.seq] if o.status == "applied" else []))
    }
    done = [e for e in events if (e.get("match"), e.get("seq")) in applied]
    await started_at_tables(store, done)
    if any(e.get("type") == "time_called" for e in done):  # the overlays' clock shows time called
        await set_match_clock(store, match, "time-called", time.time())
    counts: dict[str, int] = {}
    for a in answers:
        counts[a["status"]] = counts.get(a["status"], 0) + 1
    request[AUDIT_DETAIL] = f"console {console}: {json.dumps(counts, sort_keys=True)} match {match}"
    state = await _view(request, await _archive(request), None)
    state["lease"] = view(held, me, judge)
    state["outcomes"] = answers
    state["receipts"] = request.app[CORE].receipts(outcomes)  # signed: docs/records.md, "Receipts"
    state["clock"] = await match_clock(await reader(request), match)
    return _json(state, 400 if counts.get("rejected") else 200)


async def console_lease(request: web.Request) -> web.StreamResponse:
    """POST /console/<match>/lease: take, renew, hand over or take over the match's lease
    (:mod:`streams.http.lease`), authorised as a write of the match before anything changes."""
    match = request[MATCH]
    store = request.app[STORE]
    body = await _body(request)
    me = _me(request, _console_id(body.get("console")))
    action = body.get("action", "take")
    if action not in ACTIONS:
        raise Problem.said(400, "bad_body", "action must be one of {actions}", actions=", ".join(ACTIONS))
    await _writer(request, lambda: may_write(request[PRINCIPAL], store, match))
    judge = _judge(request)
    held = await lease(store, match, me, "peek")
    detail = f"console {me.console}: {action}"
    if action in ("take", "renew") or held is None or held == me:
        held = await lease(store, match, me, "take" if action == "take_over" else action)
    elif not (judge or held.token == me.token):  # another token's lease: a judge's alone to take or free
        await request.app[ACCESS].refused(request, request[PRINCIPAL], 403, f"lease of {match}: {action}")
        raise Problem.said(
            403,
            "not_lease_holder",
            "another token's console holds the lease of {match}: only that token or a judge may {action} it",
            match=match,
            action=action,
        )
    else:
        before = held
        if action == "release":  # the holder seen, and no one who took it since
            held = await lease(store, match, before, "release")
        else:
            held = await lease(store, match, me, "replace", expected=before)
        late = "" if held in (None, me) else " (too late: another console took it meanwhile)"
        detail += f" of the lease held by {before.shown()}{late}"
    request[AUDIT_DETAIL] = detail
    return _json(view(held, me, judge))


#: The console's clock actions (``POST /console/<match>/clock``) as :meth:`~streams.http.tables.Clock.act`
#: takes them.
CLOCK_ACTIONS = {"start": "clock-start", "pause": "clock-pause", "reset": "clock-reset"}


async def console_clock(request: web.Request) -> web.StreamResponse:
    """POST /console/<match>/clock: start, pause or reset the match clock (and set its length), authorised
    as a write of the match before anything changes, as the lease is."""
    match = request[MATCH]
    store = request.app[STORE]
    body = await _body(request)
    me = _me(request, _console_id(body.get("console")))
    action = body.get("action")
    if action not in CLOCK_ACTIONS:
        raise Problem.said(400, "bad_field", "action: one of {actions}", actions=", ".join(CLOCK_ACTIONS))
    limit = clock_minutes(body["minutes"]) if "minutes" in body else None
    await _writer(request, lambda: may_write(request[PRINCIPAL], store, match))
    now = time.time()
    clock = await set_match_clock(store, match, CLOCK_ACTIONS[action], now, limit)
    length = f" ({body['minutes']} min)" if limit is not None else ""
    request[AUDIT_DETAIL] = f"console {me.console}: clock {action}{length} of {match}"
    return _json({"clock": clock.view(now)})


async def console_export(request: web.Request) -> web.StreamResponse:
    """GET /console/<match>/export?format=jsonl|csv: the archive as event files (as written, hidden
    cards included, for the match's own producer or a judge; the public projection for anyone else),
    or as a match sheet (CSV, ``prizecheck import sheet``)."""
    match = request[MATCH]
    store = request.app[STORE]
    entries = await store.events(match)
    if not entries:
        raise Problem.said(404, "not_found", "match {match}: no events archived", match=match)
    events = [e for e in decode(entries)]
    full = await _full_reader(request, store, match)
    if not full:
        events = [public_event(e) for e in events]
    else:
        request[HIDDEN_SERVED] = True
        request[AUDIT_DETAIL] = f"console export of {match}, {len(events)} events"
    name = match.replace("/", "_").replace(":", "_")
    if request[QUERY].get("format") == "csv":
        return web.Response(
            text=sheet_csv(events),
            content_type="text/csv",
            headers={"Content-Disposition": f'attachment; filename="{name}.csv"'},
        )
    lines = [
        json.dumps(e, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=_hex) for e in events
    ]
    return web.Response(
        text="".join(line + "\n" for line in lines),
        content_type="application/x-ndjson",
        headers={"Content-Disposition": f'attachment; filename="{name}.jsonl"'},
    )


_DECK_LINE = re.compile(r"^\s*(\d{1,2})\s+(.+?)(?:\s+[A-Z][A-Za-z0-9-]{1,7}\s+[0-9A-Za-z-]{1,8})?\s*$")
#: Names a type-ahead answer holds at most.
CARD_HITS = 20
#: The deck lists' names an answer holds at most (two 60-card lists have fewer different names).
DECK_HITS = 120


def deck_names(text: str) -> list[str]:
    """The card names of a PTCGL deck list export (``4 Pikachu ex SVI 57`` lines; headings skipped)."""
    names: list[str] = []
    for line in text.splitlines()[:200]:
        m = _DECK_LINE.match(line)
        if m and m.group(2) not in names:
            names.append(m.group(2).strip())
    return names


def _card(name: str, lang: str = "en") -> dict[str, Any]:
    """A type-ahead answer: the name as the operator will record it, the language it is in, the card's
    names in the others (so that a card typed in kana also shows its English name), and its HP, rule
    box, kind and attack names (in the name's language where the catalogue has them)."""
    hits = card_database().lookup(name, lang)
    # key: the name as searched (kana as hiragana): the page's suggestion list matches what is typed
    # against an option's text, so a name in katakana is offered to an operator typing hiragana
    info: dict[str, Any] = {"name": name, "lang": lang, "key": fold(name)}
    if hits:
        c = hits[0]
        info.update(category=c.category, hp=c.hp, rule=c.rule or "none", kind=c.kind)
        attacks = [a for a in c.attacks if isinstance(a, Mapping)][:6]
        info["attacks"] = [a.get(lang) or a.get("en") for a in attacks]
        # each attack's printed damage ("30", "30+", "20×"; "" when it prints none), beside its name: the
        # catalogue keys it by the attack's English name, whatever language the page shows
        printed = dict(c.damage)
        info["damage"] = [printed.get(str(a.get("en")), "") for a in attacks]
        info.update(types=list(c.types), stage=c.stage, evolves_from=c.evolves_from)
        info["names"] = {lg: n for lg, n in sorted(c.names.items()) if n != name}
    return info


def _deck_lists(started: Mapping[str, Any]) -> dict[str, list[str]]:
    """A match_started's deck lists (``console.decks``) as card name -> the players whose list holds it."""
    decks: dict[str, list[str]] = {}
    extra = started.get("console")
    lists = extra.get("decks") if isinstance(extra, Mapping) else None
    if isinstance(lists, Mapping):
        for player, text in lists.items():
            if isinstance(text, str):
                for name in deck_names(text):
                    decks.setdefault(name, []).append(str(player))
    return decks


def deck_cards(started: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The cards of a match_started's deck lists, each as :func:`_card` gives it and with ``decks``, the
    players whose list holds it (the console's picks)."""
    return [{**_card(n), "decks": players} for n, players in list(_deck_lists(started).items())[:DECK_HITS]]


async def console_cards(request: web.Request) -> web.StreamResponse:
    """GET /console/<match>/cards?q=: card names for the type-ahead and the console's picks, the match's
    deck lists first (from its match_started: for a judge and the match's own producer only, the ones who
    hold its events as written), each naming the players whose list holds it (``decks``), then the
    catalogue's names in any language that start with ``q``, then those that contain it
    (:meth:`~replay.sources.cards.CardDatabase.search`: kana in either script, half-width, kanji, hangul,
    accents and case folded); each with its HP, rule box, stage, evolves-from, types, and attacks with
    their printed damage where the catalogue knows the card."""
    typed = str(request[QUERY].get("q", "")).strip()
    q = fold(typed)
    store = request.app[STORE]
    match = request[MATCH]
    # deck lists are hidden information: another recorder in scope gets the catalogue alone
    entries = await store.events(match) if await _full_reader(request, store, match) else []
    decks: dict[str, list[str]] = {}
    for ev in decode(entries[:1]):
        decks = _deck_lists(ev)
    found = dict(list({n: "en" for n in decks if q in fold(n)}.items())[:DECK_HITS])
    if found and _judge(request):  # a judge's read of hidden information is in the audit log
        request[HIDDEN_SERVED] = True
        request[AUDIT_DETAIL] = f"deck lists of {match} (the console's type-ahead)"
    listed = len(found)
    if len(typed) >= 2:
        for name, lang in card_database().search(typed, CARD_HITS):
            if len(found) >= listed + CARD_HITS:
                break
            found.setdefault(name, lang)
    cards = [_card(n, lang) for n, lang in found.items()]
    for c in cards[:listed]:
        c["decks"] = decks[c["name"]]
    return _json({"cards": cards})


# ------------------------------------------------------------------------------------------- table
def console_routes() -> tuple[Route, ...]:
    """The console's routes (see :mod:`streams.http.routes`)."""
    html = Answer("HTML", "text/html", {"type": "string"})
    view = Answer("the engine's view: board, prompts, findings, log, lease", schema={"type": "object"})
    refused = Answer(
        "fenced (a stale console) or read-only (another console writes)",
        schema={"$ref": "#/components/schemas/Error"},
    )
    not_writer = Answer(
        "this token may not write the match (out_of_scope, not_owner) or act on another token's lease "
        "(not_lease_holder); nothing changed",
        schema={"$ref": "#/components/schemas/Error"},
    )
    lease_view = {
        "type": "object",
        "required": ["held", "mine", "take_over"],
        "properties": {
            "held": {"type": "boolean", "description": "some console holds the lease"},
            "mine": {"type": "boolean", "description": "this console, of this token, holds it"},
            "take_over": {
                "type": "boolean",
                "description": "this token may take it over (its own or a judge)",
            },
        },
    }
    events_body = {
        "application/json": {
            "type": "object",
            "properties": {
                "console": {"type": "string", "minLength": 1, "maxLength": 64},
                "events": {"type": "array", "items": {"type": "object"}},
            },
        }
    }
    return (
        Route(
            "GET",
            "/console/{match}",
            console_page,
            RECORDER,
            "The table console: record a paper game live (docs/console.md)",
            query=(LANG,),
            answers={200: html},
            page=True,
            tag="console",
        ),
        Route(
            "GET",
            "/console/{match}/state",
            console_state,
            RECORDER,
            "The engine's view of the match for the console: board, prompts, findings",
            query=(
                Param("console", description="the asking console's id (renews its lease)", max_length=64),
                LANG,
            ),
            answers={200: view},
            tag="console",
        ),
        Route(
            "POST",
            "/console/{match}/preview",
            console_preview,
            RECORDER,
            "The view with the console's draft folded on the archive (nothing stored)",
            query=(LANG,),
            answers={200: view},
            body=events_body,
            tag="console",
        ),
        Route(
            "POST",
            "/console/{match}/events",
            console_publish,
            RECORDER,
            "Publish the console's events (fenced by seq; idempotent)",
            query=(LANG,),
            answers={200: view, 400: view, 403: not_writer, 409: refused},
            body=events_body,
            audited=True,
            tag="console",
        ),
        Route(
            "POST",
            "/console/{match}/lease",
            console_lease,
            RECORDER,
            "Take, renew, hand over or take over the match's writing lease (authorised as a write)",
            query=(LANG,),
            answers={
                200: Answer("whether the lease is held, and by this console", schema=lease_view),
                403: not_writer,
            },
            body={
                "application/json": {
                    "type": "object",
                    "required": ["console"],
                    "properties": {
                        "console": {"type": "string", "minLength": 1, "maxLength": 64},
                        "action": {"enum": list(ACTIONS)},
                    },
                }
            },
            audited=True,
            tag="console",
        ),
        Route(
            "POST",
            "/console/{match}/clock",
            console_clock,
            RECORDER,
            "Start, pause or reset the match clock the overlays show (authorised as a write)",
            answers={
                200: Answer(
                    "the clock: seconds left, length, running, time called", schema={"type": "object"}
                ),
                403: not_writer,
            },
            body={
                "application/json": {
                    "type": "object",
                    "required": ["console", "action"],
                    "properties": {
                        "console": {"type": "string", "minLength": 1, "maxLength": 64},
                        "action": {"enum": list(CLOCK_ACTIONS)},
                        "minutes": {"type": "number", "minimum": 1, "maximum": 180},
                    },
                }
            },
            audited=True,
            tag="console",
        ),
        Route(
            "GET",
            "/console/{match}/cards",
            console_cards,
            RECORDER,
            "Card names for the console's type-ahead and picks: the match's deck lists, then the catalogue",
            query=(
                Param(
                    "q", description="what the operator typed (none: the deck lists alone)", max_length=128
                ),
            ),
            answers={
                200: Answer(
                    "the deck lists' cards, then up to 20 of the catalogue's, each with its HP, rule box and "
                    "attacks with their printed damage",
                    schema={"type": "object"},
                )
            },
            tag="console",
        ),
        Route(
            "GET",
            "/console/{match}/export",
            console_export,
            RECORDER,
            "The game as event files (JSON Lines) or a match sheet (CSV)",
            query=(Param("format", enum=("jsonl", "csv"), description="jsonl (default) or csv"),),
            answers={
                200: Answer(
                    "JSON Lines or CSV", "application/x-ndjson", {"type": "string"}, also=("text/csv",)
                )
            },
            tag="console",
        ),
    )


def add_console(app: web.Application) -> None:
    """Register the console's routes on an app (:func:`streams.http.pages.add_pages` calls it)."""
    from streams.http.routes import register

    register(app, console_routes())
