"""A judge acts from the review page (docs/web.md, "Judges act from the review page"): at the event on
screen, a note, a ruling (free text with the rules section it rests on), a penalty of a kind the game's
ruleset allows, or a correction of that event (void it, or amend it with a replacement).

``POST /review/<match>/act`` takes one action as JSON, makes the contract event of it (``note``,
``penalty``, ``correction``) with the judge's token name as its author, and writes it as ``POST /events``
writes (the ownership check of the judge's scope, then the ingest core, as a judge), at the next seq of
the match. The answer is the event as stored, with its seq and the chain head after it; the page reloads
at that event, so the battle log and the findings show it at once. A refusal is one sentence: outside the
judge's scope (403), an action the contract refuses (400), a game that moved on while the judge typed
(409: reload).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from aiohttp import web

from replay.contract.admit import admit
from replay.engine import EventError, load_ruleset
from replay.records import from_msgpack
from streams.http.access import AUDIT_DETAIL, PRINCIPAL
from streams.http.keys import CORE, STORE
from streams.http.ownership import authorize_request
from streams.http.routes import MATCH, Answer, Problem, Route

JUDGE = frozenset({"judge"})
#: The penalties every ruleset allows (docs/events.md); a ruleset's own prize penalties come besides, and a
#: loss for both players (両者敗北, an event's own decision) last.
PENALTIES = ("caution", "warning", "game_loss", "match_loss", "disqualification")
DOUBLE_LOSS = "double_loss"
ACTIONS = ("note", "ruling", "penalty", "void", "amend")
MAX_TEXT = 4000
#: The named prize penalties [PG §3] and their counts in every ruleset (replay.engine.penalties).
NAMED_PRIZE = {"double_prize": 2, "quad_prize": 4}


def penalty_kinds(ruleset: str) -> tuple[str, ...]:
    """The penalty kinds a judge may give under ``ruleset``: its prize penalties (the named ones where
    its counts are theirs, else ``prize_penalty`` of a number the judge gives), then the common ones."""
    try:
        rules = load_ruleset(ruleset)
    except KeyError:
        return (*PENALTIES, DOUBLE_LOSS)
    counts = rules.prize_penalty.counts
    named = tuple(k for k, n in NAMED_PRIZE.items() if counts is not None and n in counts)
    own = () if counts is not None and set(counts) <= set(NAMED_PRIZE.values()) else ("prize_penalty",)
    return (*PENALTIES[:2], *named, *own, *PENALTIES[2:], DOUBLE_LOSS)


def prize_counts(ruleset: str) -> tuple[int, ...]:
    """The prize counts a judge is offered first for a ``prize_penalty`` under ``ruleset`` (JP: 1 and 3)."""
    try:
        return load_ruleset(ruleset).prize_penalty.usual
    except KeyError:
        return ()


def _prizes(body: Mapping[str, Any], ruleset: str) -> int:
    """A prize penalty's count from the judge's form: a whole number the ruleset gives (Problem 400)."""
    value = body.get("prizes")
    if isinstance(value, str) and value.strip().isdigit():
        value = int(value.strip())
    try:
        rules = load_ruleset(ruleset)
    except KeyError:
        rules = None
    if not isinstance(value, int) or isinstance(value, bool) or not 1 <= value <= 60:
        raise Problem.said(400, "bad_field", "prizes: how many fewer prizes the opponent needs (1 to 60)")
    if rules is not None and not rules.prize_penalty_allowed(value):
        allowed = ", ".join(str(c) for c in rules.prize_penalty.counts or ())
        raise Problem.said(
            400, "bad_field", "prizes: a count {ruleset} gives ({allowed})", ruleset=ruleset, allowed=allowed
        )
    return value


def _text(body: Mapping[str, Any], key: str, *, required: bool) -> str:
    value = body.get(key, "")
    if not isinstance(value, str):
        raise Problem.said(400, "bad_field", "{key}: text expected", key=key)
    value = value.strip()
    if required and not value:
        raise Problem.said(400, "bad_field", "{key}: write what the judge decided", key=key)
    if len(value) > MAX_TEXT:
        raise Problem.said(400, "bad_field", "{key}: at most {n} characters", key=key, n=MAX_TEXT)
    return value


def action_event(
    body: Mapping[str, Any], *, match: str, seq: int, author: str, players: list[str], ruleset: str
) -> dict[str, Any]:
    """The contract event of one judge's action (Problem 400 naming the field when it is not one)."""
    action = body.get("action")
    if action not in ACTIONS:
        raise Problem.said(400, "bad_field", "action: one of {items}", items=", ".join(ACTIONS))
    at = body.get("at")
    if not isinstance(at, int) or isinstance(at, bool) or not 1 <= at < seq:
        raise Problem.said(
            400, "bad_field", "at: the seq of an event of the match (1 to {last})", last=seq - 1
        )
    event: dict[str, Any] = {"match": match, "seq": seq, "author": author}
    if action in ("note", "ruling"):
        text = _text(body, "text", required=True)
        if action == "ruling":
            section = _text(body, "section", required=False)
            text = f"Ruling at seq {at}" + (f" (docs/rules.md §{section})" if section else "") + f": {text}"
        else:
            text = f"At seq {at}: {text}"
        event.update(type="note", text=text)
    elif action == "penalty":
        kinds = penalty_kinds(ruleset)
        if body.get("player") not in players:
            raise Problem.said(
                400, "bad_field", "player: one of the match's players ({items})", items=", ".join(players)
            )
        if body.get("kind") not in kinds:
            raise Problem.said(
                400,
                "bad_field",
                "kind: a penalty {ruleset} allows ({items})",
                ruleset=ruleset,
                items=", ".join(kinds),
            )
        reason = _text(body, "reason", required=False)
        event.update(type="penalty", player=body["player"], kind=body["kind"])
        if body["kind"] == "prize_penalty":
            event["prizes"] = _prizes(body, ruleset)
        event["reason"] = f"at seq {at}" + (f": {reason}" if reason else "")
    else:
        event.update(type="correction", target=at, action=action)
        if action == "amend":
            replacement = body.get("event")
            if not isinstance(replacement, dict):
                raise Problem.said(400, "bad_field", "event: the replacement event, as an object")
            event["event"] = {**replacement, "match": match, "seq": at}
    try:
        admit(event)
    except EventError as exc:
        raise Problem.quoting(400, "invalid_event", "the event is not valid: {words}", exc) from None
    return event


async def act(request: web.Request) -> web.StreamResponse:
    """POST /review/<match>/act: one judge's action, written at the match's next seq."""
    match = request[MATCH]
    try:
        body = json.loads(await request.read())
    except (ValueError, UnicodeDecodeError):
        raise Problem.said(400, "bad_request", "send one action as a JSON object") from None
    if not isinstance(body, dict):
        raise Problem.said(400, "bad_request", "send one action as a JSON object")
    store = request.app[STORE]
    entries = await store.events(match)
    if not entries:
        raise Problem.said(404, "not_found", "match {match}: no events archived", match=match)
    seq = max(e.position[0] for e in entries) + 1
    raw = await store.record(match)
    record = from_msgpack(raw, match=match) if raw is not None else None
    principal = request[PRINCIPAL]
    event = action_event(
        body,
        match=match,
        seq=seq,
        author=f"judge {principal.name}" if principal.name else "judge",
        players=[str(p) for p in (record.players if record else [])],
        ruleset=record.ruleset if record else "play-2026",
    )
    await authorize_request(request, [event], "judge's action")
    (outcome,) = await request.app[CORE].ingest_many([event], judge=True)
    if outcome.status != "applied":
        raise Problem.said(
            409,
            "moved_on",
            "not recorded: {outcome} (the game moved on while you wrote: reload)",
            outcome=outcome.reason or outcome.status,
        )
    request[AUDIT_DETAIL] = f"judge's {body['action']} at seq {body['at']}: seq {seq}"
    answer = {"event": event, **outcome.as_json()}
    receipts = request.app[CORE].receipts([outcome])  # signed (docs/records.md, "Receipts")
    if receipts:
        answer["receipts"] = receipts
    return web.json_response(answer, headers={"Cache-Control": "no-store"})


def ruling_routes() -> tuple[Route, ...]:
    """The judges' actions (see :mod:`streams.http.routes`)."""
    schema = {
        "type": "object",
        "required": ["action", "at"],
        "properties": {
            "action": {"enum": list(ACTIONS)},
            "at": {"type": "integer", "minimum": 1},
            "text": {"type": "string"},
            "section": {"type": "string"},
            "player": {"type": "string"},
            "kind": {"type": "string"},
            "prizes": {"type": "integer", "minimum": 1, "maximum": 60},
            "reason": {"type": "string"},
            "event": {"type": "object"},
        },
    }
    return (
        Route(
            "POST",
            "/review/{match}/act",
            act,
            JUDGE,
            "A judge's note, ruling, penalty or correction at an event of the match, from the review page",
            body={"application/json": schema},
            answers={
                200: Answer("the event as written, with its seq", schema={"type": "object"}),
                409: Answer("the game moved on: reload", schema={"type": "object"}),
            },
            audited=True,
            tag="pages",
            cookie_writes=True,
            description="`action`: `note`, `ruling` (`text`, `section`), `penalty` (`player`, `kind`: the "
            "ruleset's, `prizes` with a `prize_penalty`: a count the ruleset gives, `reason`), `void`, "
            "`amend` (`event`: the replacement); `at`: the seq acted on. "
            "Written at the next seq, authored by the judge's token name.",
        ),
    )
