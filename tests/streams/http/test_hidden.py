"""Hidden information (issue 18 item 2; docs/http-api.md, "What each role sees"), against the real service.

Tokens are planted in the events so that a leak is found by a plain search of the bytes a route answers:
``ZHIDDEN<n>Z`` (or its lower-case form, for a finding's code) where only judges may look, ``ZPUBLIC<n>Z``
where everyone may. Where each goes is this file's own reading of the contract (docs/events.md,
docs/http-api.md), not the projection's lists: hidden are the cards of a hand, the deck and the prizes,
free text (notes, reasons), a correction's replacement event, the producer's event ``id``, and every field
the contract does not define, at any depth (``source``, ``context``, cards, a Pokémon put into play, a
note's ``finding``); public are the fields a spectator sees (names of cards in play or in a public zone,
attack names, context, source, authors).

- **The audit's cases**, one test each: a hidden card inside a refused correction, ``conceded.reason``,
  note texts, ``penalty.reason`` / ``game_ended.reason``, a note's own finding code, and extra fields under
  ``source``, ``context`` and a card: none reaches ``/record``, any ``?version=N``, ``/board`` (and the
  organizer's archive), while a judge's record holds each in the finding's ``detail``.
- **Planted games** (a property over seeded random games that play every event type of the schema, each
  event with tokens in every field it has and in unknown ones, top-level and nested): every GET route of
  the route table (a route added later fails the test until it is crawled) is read as every role:
  anonymous, ingest, ingest scoped to L2, organizer, organizer scoped to L1, judge scoped to L1, judge,
  admin and a judge's login session. No hidden token reaches a role that may not see it; a judge (in
  scope) sees every one; the organizer's archive and the public record still show the public ones.
- **Simulated and imported games** (the corpus of replay.sources): hidden cards stay hidden over many
  real-looking games, cards that became public stay visible.
- **The projection alone** (``replay.engine.public``): every field of the contract is either shown or left
  out by name; hypothesis plants tokens in every field of every event type.

``PRIZECHECK_HIDDEN_GAMES`` sets the size (CI: 72 corpus games and 6 planted games; ``make test-long``:
2,500 and 208).
"""

from __future__ import annotations

import asyncio
import json
import os
import random
from collections.abc import Iterator
from typing import Any
from urllib.parse import quote

import aiohttp
import msgpack
from hypothesis import given, settings
from hypothesis import strategies as st

from replay.contract.validate import checked_game, validate_record
from replay.engine.public import (
    CONTEXT,
    ENVELOPE,
    EVENT_FIELDS,
    FINDING,
    IN_PLAY,
    KIND_CARD,
    LEFT_OUT,
    NAMED_CARD,
    POKEMON_CARD,
    RECORD_FIELDS,
    RESULT,
    SOURCE,
    public_event,
    public_record,
)
from replay.generators.simulate import simulate_corpus
from replay.generators.synthetic import synthetic_log
from replay.records import from_mapping
from replay.report import render
from replay.report.build import ReportBuilder
from replay.sources.ptcgl import parse_ptcgl
from schemas import load_schema
from streams.http.api import STATIC_DIR
from streams.http.tables import table_started
from streams.tokens import new_token, read_book, write_book
from tests.builder import Stream, card
from tests.streams.http.served import SCAN_CROP, Served

Event = dict[str, Any]
GAMES = int(os.environ.get("PRIZECHECK_HIDDEN_GAMES", "72"))
PLANTED = max(6, GAMES // 12)
EXAMPLES = max(300, GAMES * 2)
HIDDEN_MARKS = (b"ZHIDDEN", b"zhidden")
PUBLIC_ZONES = ("discard", "lost_zone", "stadium")  # docs/events.md, moved
MSGPACK = {"Accept": "application/msgpack"}

#: Who reads, and whether they may see a match's hidden information (by the match's league).
READERS: tuple[str | None, ...] = (
    None,
    "ingest",
    "ingest_l2",
    "organizer",
    "organizer_l1",
    "judge_l1",
    "judge",
    "admin",
    "judge_session",
)


def may_see_hidden(who: str | None, league: str | None) -> bool:
    return who in ("judge", "admin", "judge_session") or (who == "judge_l1" and league == "L1")


class Marker:
    """Hands out tokens, remembering which match each belongs to and who may see it."""

    def __init__(self) -> None:
        self.n = 0
        self.hidden: dict[str, set[str]] = {}
        self.public: dict[str, set[str]] = {}

    def hide(self, match: str) -> str:
        self.n += 1
        token = f"ZHIDDEN{self.n:06d}Z"
        self.hidden.setdefault(match, set()).add(token)
        return token

    def show(self, match: str) -> str:
        self.n += 1
        token = f"ZPUBLIC{self.n:06d}Z"
        self.public.setdefault(match, set()).add(token)
        return token

    def hidden_code(self, match: str) -> str:
        """A note's own finding code: lower case, as codes are."""
        self.n += 1
        code = f"zhidden{self.n:06d}z"
        self.hidden.setdefault(match, set()).add(code)
        return code


# ------------------------------------------------------------------------------------------ reading
async def login_cookie(s: Served) -> str:
    """A judge's session cookie, from POST /login (same origin)."""
    r = await s.http.post(
        f"{s.url}/login", json={"token": s.tokens["judge"], "next": "/ui"}, headers={"Origin": s.url}
    )
    assert r.status == 200, await r.text()
    return r.cookies["prizecheck_session"].value


async def more_readers(s: Served) -> None:
    """The readers the shared fixture has not: a scoped organizer, and a judge's login session."""
    entries = read_book(s.token_file) if s.token_file else []
    token, entry = new_token("organizer_l1", ["organizer"], leagues=["L1"])
    s.tokens["organizer_l1"] = token
    assert s.token_file is not None
    write_book(s.token_file, [*entries, entry])
    s.book.reload(force=True)
    s.tokens["judge_session"] = await login_cookie(s)


def headers(s: Served, who: str | None) -> dict[str, str]:
    if who == "judge_session":
        return {"Cookie": f"prizecheck_session={s.tokens[who]}"}
    return s.auth(who)


async def read(s: Served, path: str, who: str | None, extra: dict[str, str] | None = None) -> bytes:
    async with s.http.get(
        f"{s.url}{path}", headers={**headers(s, who), **(extra or {})}, allow_redirects=False
    ) as r:
        body = await r.read()
        assert r.status < 500, (path, who, r.status, body[:300])
        return body


async def live_frame(s: Served, match: str, who: str | None) -> bytes:
    """The first board of the match's live stream."""
    timeout = aiohttp.ClientTimeout(total=20)
    path = f"{s.url}/matches/{quote(match, safe='/:')}/live"
    async with s.http.get(path, headers=headers(s, who), timeout=timeout) as r:
        assert r.status == 200
        async for raw in r.content:
            if raw.startswith(b"data: "):
                return raw
    raise AssertionError("no board on the live stream")


LIVE = "/matches/{match}/live"


def match_paths(match: str, versions: int, last: int, rng: random.Random) -> dict[str, list[tuple[str, Any]]]:
    """Each per-match route of the route table and the requests that read it (path, extra headers)."""
    m = quote(match, safe="/:")
    seqs = sorted({rng.randint(1, last), rng.randint(1, last), last})
    return {
        "/matches/{match}/record": [
            (f"/matches/{m}/record{q}", h)
            for q in ["", *(f"?version={v}" for v in range(1, versions + 1))]
            for h in (None, MSGPACK)
        ],
        "/matches/{match}/versions": [(f"/matches/{m}/versions", None)],
        "/matches/{match}/board": [(f"/matches/{m}/board", None), (f"/matches/{m}/board", MSGPACK)],
        "/matches/{match}/events": [
            (f"/matches/{m}/events", None),
            (f"/matches/{m}/events?format=msgpack", None),
        ],
        LIVE: [],  # read by live_frame
        "/review/{match}": [(f"/review/{m}", None)],
        "/review/{match}/meta": [
            (f"/review/{m}/meta", None),
            (f"/review/{m}/meta?view=public", None),
            # the page's windows (issue 40 item 4): a first one, and the whole game in one
            (f"/review/{m}/meta?from=0&to=64", None),
            (f"/review/{m}/meta?view=public&from=0&to=100000", None),
        ],
        "/review/{match}/case": [(f"/review/{m}/case", None)],  # the case file: the review page's data
        "/matches/{match}/deck-check": [(f"/matches/{m}/deck-check", None)],
        "/review/{match}/state": [(f"/review/{m}/state", None)]
        + [(f"/review/{m}/state?seq={n}", None) for n in seqs],
        "/overlay/{match}": [(f"/overlay/{m}", None)],
        "/overlay/{match}/score": [(f"/overlay/{m}/score", None)],
        "/overlay/{match}/clock": [(f"/overlay/{m}/clock", None)],
        # the table console (recorders; admin has the role): the export is a judge's or the producer's
        "/console/{match}": [(f"/console/{m}", None)],
        "/console/{match}/state": [(f"/console/{m}/state", None)],
        "/console/{match}/cards": [(f"/console/{m}/cards?q=pi", None)],
        "/console/{match}/export": [
            (f"/console/{m}/export", None),
            (f"/console/{m}/export?format=csv", None),
        ],
    }


def global_paths(players: list[str]) -> dict[str, list[tuple[str, Any]]]:
    """The routes that are not a match's, with their filters."""
    static = sorted(p.name for p in STATIC_DIR.iterdir() if p.is_file())[0]
    who = players[0] if players else "ash"
    return {
        "/": [("/", None)],
        "/matches": [
            ("/matches?limit=10000", None),
            ("/matches?league=L1", None),
            (f"/matches?player={who}", None),
            ("/matches?status=finished", None),
            (f"/matches?q={who[1:3]}&sort=-findings&limit=2", None),  # the search, the top findings
        ],
        "/ui": [("/ui?limit=100", None), ("/ui?league=L2&sort=-findings", None), (f"/ui?q={who[:2]}", None)],
        "/stats": [("/stats", None)],
        "/healthz": [("/healthz", None)],
        "/.well-known/prizecheck-keys.json": [("/.well-known/prizecheck-keys.json", None)],
        "/openapi.json": [("/openapi.json", None)],
        "/docs": [("/docs", None)],
        "/static/{path}": [(f"/static/{static}", None)],
        "/login": [("/login", None)],
        "/import": [("/import", None)],  # the page: a form, no game in it
        "/players/{player}": [(f"/players/{who}", None)],
        "/decks/{event}": [("/decks/L1-cup", None), ("/decks/L2-cup?play=standard", None)],
        "/rules": [("/rules", None)],
        "/favicon.ico": [("/favicon.ico", None)],
        "/scans/{sheet}/{region}": [(f"/scans/{SCAN_CROP}", None)],
        # stream tables and slots (streams/http/tables.py): what they show of a match is its public view
        "/overlay/table/{event}/{table}": [("/overlay/table/L1-cup/7", None)],
        "/overlay/table/{event}/{table}/now": [("/overlay/table/L1-cup/7/now", None)],
        "/overlay/slot/{slot}": [("/overlay/slot/main", None)],
        "/cards/{card}": [("/cards/pikachu", None)],
        "/overlay/slot/{slot}/now": [
            (f"/overlay/slot/{slot}/now", None) for slot in ("main", "next", "standings")
        ],
    }


def assert_every_route_is_crawled(s: Served) -> None:
    planned = set(match_paths("m", 1, 1, random.Random(0))) | set(global_paths([]))
    table = {r.path for r in s.routes if r.method == "GET"}
    assert table == planned, f"routes not crawled: {sorted(table - planned)}; gone: {sorted(planned - table)}"


async def crawl_match(s: Served, match: str, who: str | None, versions: int, last: int) -> list[bytes]:
    bodies = []
    for path_list in match_paths(match, versions, last, random.Random(match)).values():
        for path, extra in path_list:
            bodies.append(await read(s, path, who, extra))
    bodies.append(await live_frame(s, match, who))
    return bodies


def leak(body: bytes) -> str:
    for mark in HIDDEN_MARKS:
        at = body.find(mark)
        if at >= 0:
            return body[max(0, at - 200) : at + 40].decode("utf-8", "replace")
    return ""


async def versions_of(s: Served, match: str) -> int:
    return len(json.loads(await read(s, f"/matches/{quote(match, safe='/:')}/versions", "judge")))


# --------------------------------------------------------------------------------- the audit's cases
def short_game(match: str, league: str = "L1", **started: Any) -> Stream:
    """Set-up and ash's first turn (ash drew Iono at seq 5); nobody has won yet."""
    s = Stream(match, context={"league": league, "season": "2026", "round": 1}, **started)
    s.setup("ash", ("a1", card("Pikachu", 60)), ("a2", card("Pichu", 30)))
    s.setup("misty", ("m1", card("Staryu", 60)), ("m2", card("Starmie", 90)))
    s.turn("ash")
    s.events[-1]["cards"] = ["Iono"]
    s.add("turn_ended", player="ash")
    return s


async def public_reads(s: Served, match: str) -> dict[str, bytes]:
    """What the public and an organizer read of a match: record, every version, board, archive."""
    out = {}
    versions = await versions_of(s, match)
    assert versions >= 1, "the game must be finished, with versions to read"
    for who in (None, "organizer"):
        paths = [f"/matches/{match}/record", f"/matches/{match}/board"]
        paths += [f"/matches/{match}/record?version={v}" for v in range(1, versions + 1)]
        if who == "organizer":
            paths.append(f"/matches/{match}/events")
        for path in paths:
            for extra in (None, MSGPACK):
                out[f"{who} {path} {extra or ''}"] = await read(s, path, who, extra)
    return out


def assert_hidden(reads: dict[str, bytes], *secrets: str) -> None:
    for where, body in reads.items():
        for secret in secrets:
            assert secret.encode() not in body, (where, secret, body[:600])


async def judge_record(s: Served, match: str) -> dict[str, Any]:
    out: dict[str, Any] = json.loads(await read(s, f"/matches/{match}/record", "judge"))
    return out


async def test_a_hidden_card_in_a_refused_correction_is_in_the_detail_only(served: Served) -> None:
    s = short_game("c1")
    # the judge's amendment names the card drawn, in a shape the contract refuses: the validator's
    # message quotes it
    s.add("correction", target=5, action="amend", event={"cards": "Secret Iono ZHIDDEN000001Z"})
    s.add("conceded", player="misty")
    s.add("correction", target=5, action="amend", event={"count": "ZHIDDEN000002Z"})  # after the end
    assert (await served.post(s.events, who="admin")).status == 200  # a judge: amends after the end
    assert_hidden(await public_reads(served, "c1"), "ZHIDDEN000001Z", "ZHIDDEN000002Z")
    found = [f for f in (await judge_record(served, "c1"))["findings"] if f["code"] == "corrected"]
    assert [f["message"] for f in found] == ["amendment of seq 5 ignored: the amended event is not valid"] * 2
    assert "ZHIDDEN000001Z" in found[0]["detail"] and "ZHIDDEN000002Z" in found[1]["detail"]


async def test_a_concession_reason_stays_with_judges(served: Served) -> None:
    s = short_game("c2")
    s.add("conceded", player="misty", reason="saw ZHIDDEN000003Z in the prizes")
    s.add("game_ended", outcome="win", winner="ash", reason="concession")
    s.add("note", text="table judge notified", author="judge:kim")  # a second version after the end
    assert (await served.post(s.events, who="ingest")).status == 200
    reads = await public_reads(served, "c2")
    assert_hidden(reads, "ZHIDDEN000003Z")
    public = json.loads(reads["None /matches/c2/record "])
    assert public["result"]["reason"] == "concession" and "detail" not in public["result"]
    assert public["redacted"] is True and public["signature"] is None
    assert (await judge_record(served, "c2"))["result"]["detail"] == "saw ZHIDDEN000003Z in the prizes"
    # a reason word of the engine's (inactive: a timeout) is not free text: everyone sees it
    t = short_game("c3")
    t.add("conceded", player="misty", reason="inactive")
    assert (await served.post(t.events, who="ingest")).status == 200
    board = json.loads(await read(served, "/matches/c3/board", None))
    assert board["result"]["detail"] == "inactive"


async def test_note_texts_are_not_quoted_in_public_findings(served: Served) -> None:
    s = short_game("c4")
    s.add(
        "note",
        text="the log names ZHIDDEN000004Z drawn by ash",
        author="importer",
        finding={"code": "importer_guess_owner", "severity": "info", "line": 36},
    )
    s.add(
        "note", text="ZHIDDEN000005Z", author="app", finding={"code": "zhidden000006z", "severity": "warning"}
    )
    s.add("conceded", player="misty")
    s.add("note", text="after the end: ZHIDDEN000007Z", author="importer", finding={"code": "unmatched_line"})
    assert (await served.post(s.events, who="ingest")).status == 200
    secrets = ("ZHIDDEN000004Z", "ZHIDDEN000005Z", "zhidden000006z", "ZHIDDEN000007Z")
    assert_hidden(await public_reads(served, "c4"), *secrets)
    for who in (None, "organizer"):  # the index and the counters name findings by code
        for path in ("/matches?limit=100", "/stats", "/ui", "/ui?q=c4&sort=-findings"):
            if who is None and path == "/stats":
                continue
            assert b"zhidden" not in await read(served, path, who), (who, path)
    findings = (await judge_record(served, "c4"))["findings"]
    assert [f["code"] for f in findings] == ["importer_guess_owner", "source_finding", "unmatched_line"]
    assert (
        findings[0]["message"]
        == "reported by the source in a note (line 36 of its input); the note's text is for judges"
    )
    assert [f["detail"] for f in findings] == [
        "the log names ZHIDDEN000004Z drawn by ash",
        "zhidden000006z: ZHIDDEN000005Z",
        "after the end: ZHIDDEN000007Z",
    ]


async def test_penalty_and_claimed_reasons_are_free_text(served: Served) -> None:
    s = short_game("c5")
    s.add("penalty", player="misty", kind="caution", reason="showed ZHIDDEN000008Z")
    s.add("conceded", player="misty")
    s.add("game_ended", outcome="win", winner="ash", reason="he saw my ZHIDDEN000009Z")
    assert (await served.post(s.events, who="ingest")).status == 200
    assert_hidden(await public_reads(served, "c5"), "ZHIDDEN000008Z", "ZHIDDEN000009Z")
    record = await judge_record(served, "c5")
    assert record["penalties"][0]["reason"] == "showed ZHIDDEN000008Z"
    mismatch = next(f for f in record["findings"] if f["code"] == "reason_mismatch")
    assert mismatch["message"] == "the source gives a reason in its own words; the engine 'concession'"
    assert "ZHIDDEN000009Z" in mismatch["detail"]


async def test_extra_fields_under_source_context_and_cards_are_dropped(served: Served) -> None:
    s = short_game(
        "c6",
        source={"kind": "digital", "producer": "table-app", "vendor": {"deck_list": ["ZHIDDEN000010Z"]}},
    )
    s.events[0]["context"]["scout"] = "ZHIDDEN000011Z"
    s.events[1]["active"]["card"]["vendor_id"] = "ZHIDDEN000012Z"  # setup: a card object
    s.events[1]["bench"][0]["slot_note"] = "ZHIDDEN000013Z"  # a Pokémon put into play
    s.add("played", player="ash", pid="a3", card=card("Raichu", 90, scan={"top": "ZHIDDEN000014Z"}))
    s.add(
        "attached",
        player="ash",
        pid="a1",
        card={"name": "Lightning Energy", "kind": "energy", "x": "ZHIDDEN000015Z"},
    )
    s.add("conceded", player="misty")
    assert (await served.post(s.events, who="ingest")).status == 200
    reads = await public_reads(served, "c6")
    assert_hidden(reads, *(f"ZHIDDEN{n:06d}Z" for n in range(10, 16)))
    public = json.loads(reads["None /matches/c6/record "])
    assert public["source"] == {"kind": "digital", "producer": "table-app"}
    assert public["context"] == {"league": "L1", "season": "2026", "round": 1}
    archive = reads["organizer /matches/c6/events "].decode()
    assert '"name":"Raichu"' in archive and '"name":"Lightning Energy"' in archive  # still shown
    judge = await read(served, "/matches/c6/events", "judge")
    assert all(f"ZHIDDEN{n:06d}Z".encode() in judge for n in range(10, 16))


async def test_a_judge_outside_its_scope_reads_the_public_record(served: Served) -> None:
    s = short_game("c7", league="L2")
    s.add("conceded", player="misty", reason="ZHIDDEN000016Z")
    assert (await served.post(s.events, who="ingest")).status == 200
    assert b"ZHIDDEN000016Z" not in await read(served, "/matches/c7/record", "judge_l1")
    assert b"ZHIDDEN000016Z" in await read(served, "/matches/c7/record", "judge")
    t = short_game("c8", league="L1")
    t.add("conceded", player="misty", reason="ZHIDDEN000017Z")
    assert (await served.post(t.events, who="ingest")).status == 200
    assert b"ZHIDDEN000017Z" in await read(served, "/matches/c8/record", "judge_l1")
    reads = [e for e in await served.audit() if e.action == "read_hidden" and "c8" in e.target]
    assert reads, "a judge's read of what the projection leaves out is audited"


def test_the_report_shows_public_messages_only() -> None:
    s = short_game("c9")
    s.add("note", text="ZHIDDEN000018Z", author="importer", finding={"code": "importer_guess_pid"})
    s.add("conceded", player="misty", reason="ZHIDDEN000019Z")
    report = render(ReportBuilder().add_all([from_mapping(s.record())]).finish(), "json").decode()
    assert "importer_guess_pid" in report and "ZHIDDEN" not in report


# ----------------------------------------------------------------------------------- planted games
def _unknown(m: Marker, match: str, rng: random.Random) -> Any:
    """A producer's field the contract does not define, in one of the shapes a producer might use."""
    shape = rng.randrange(4)
    if shape == 0:
        return m.hide(match)
    if shape == 1:
        return [m.hide(match), rng.randint(0, 9)]
    if shape == 2:
        return {"value": m.hide(match), "deep": {"list": [m.hide(match)]}}
    return {"n": rng.random(), "cards": [m.hide(match)]}


def _extras(e: Any, m: Marker, match: str, rng: random.Random, depth: int = 0) -> None:
    """An unknown field in the event and in every object nested in it (source, context, cards, slots)."""
    if isinstance(e, dict):
        for v in list(e.values()):
            _extras(v, m, match, rng, depth + 1)
        e[f"vendor_{rng.randrange(100)}"] = _unknown(m, match, rng)
    elif isinstance(e, list):
        for v in e:
            _extras(v, m, match, rng, depth + 1)


def planted_game(match: str, league: str, rng: random.Random, m: Marker) -> list[Event]:
    """A game that plays every event type, with tokens in every field each event has.

    Hidden tokens go to hidden fields (hands, deck, prizes, free text, replacement events, the event id)
    and, in every object of every event, to a field the contract does not define. Public tokens go to
    fields a spectator sees: card names in play and in public zones, attack names, context, source, author.
    """
    H, P = (lambda: m.hide(match)), (lambda: m.show(match))
    context = {"league": league, "season": "2026", "round": 1, "table": P(), "series": P(), "event": P()}
    source = {"kind": rng.choice(["digital", "manual"]), "producer": P(), "exporter": "ash"}
    s = Stream(match, context=context, source=source, deck=60)
    s.setup("ash", ("a1", card("Pikachu", 60, "ex")), ("a2", card(P(), 30)))
    s.setup("misty", ("m1", card("Staryu", 60)), ("m2", card("Starmie", 90)), ("m3", card("Horsea", 50)))
    s.turn("ash")
    drew = s.events[-1]
    drew["cards"] = [H()]
    mid: list[list[tuple[str, dict[str, Any]]]] = [
        [("trainer_played", {"player": "ash", "card": {"name": P(), "kind": "item"}})],
        [("discarded", {"player": "ash", "count": 2, "cards": [P(), P()]})],
        [("searched", {"player": "ash", "count": 1, "cards": [H()]})],
        [("to_hand", {"player": "ash", "from": "discard", "cards": [P()]})],
        [("to_hand", {"player": "ash", "from": "prizes", "cards": [H()]})],
        [("shuffled", {"player": "ash", "zone": "deck", "from": "hand", "cards": [H()]})],
        [("shuffled", {"player": "ash", "zone": "deck", "from": "discard", "cards": [P()]})],
        [("moved", {"player": "ash", "from": "hand", "to": "deck", "cards": [H(), H()]})],
        [("moved", {"player": "ash", "from": "deck", "to": "hand", "revealed": True, "cards": [P()]})],
        [("moved", {"player": "ash", "from": "prizes", "to": "hand", "cards": [H()]})],
        [("moved", {"player": "ash", "from": "hand", "to": "lost_zone", "cards": [P()]})],
        [("played", {"player": "ash", "pid": "a3", "card": card(P(), 90)})],
        [
            (
                "attached",
                {"player": "ash", "pid": "a1", "card": {"name": P(), "kind": "energy"}, "from": "hand"},
            )
        ],
        [("note", {"text": H(), "author": P()})],
        [("note", {"text": H(), "author": "importer", "finding": {"code": "importer_guess_pid", "line": 3}})],
        [
            (
                "note",
                {"text": H(), "author": P(), "finding": {"code": m.hidden_code(match), "severity": "info"}},
            )
        ],
        [("penalty", {"player": "misty", "kind": "caution", "reason": H()})],
        [("prize_modifier", {"pid": "m2", "delta": 1})],
    ]
    rng.shuffle(mid)
    for block in mid:
        for kind, fields in block:
            s.add(kind, **fields)
    s.add("turn_ended", player="ash")
    s.turn("misty")
    s.events[-1]["cards"] = [H()]
    s.add("switched", player="misty", pid="m2")
    s.add("attack", player="misty", pid="m2", name=P())
    s.add("damage", pid="a2", amount=30, by=P())
    s.add("condition", pid="a1", condition="poisoned", on=True)
    s.add("healed", pid="a1", amount=10)
    s.add("knocked_out", pid="a2", player="ash")
    s.add("attack_ended")
    s.add("prize_taken", player="misty", count=1)
    s.add("turn_ended", player="misty")
    s.add("checkup_started")
    s.add("checkup_ended")
    s.turn("ash")
    s.events[-1]["cards"] = [H()]
    s.add("evolved", player="ash", pid="a1", card=card(P(), 120), effect=P())
    s.add("removed", player="misty", pid="m3", to="deck")
    s.add("promoted", player="misty", pid="m1")  # out of order: a finding that quotes public fields only
    s.add("correction", target=drew["seq"], action="amend", event={"cards": H()})  # refused: echoed
    s.add("correction", target=drew["seq"], action="amend", event={"cards": [H()], "vendor": H()})
    s.add("time_called")
    # one of three endings decides the game; the others come after it (ignored by the rules, archived)
    endings: list[tuple[str, dict[str, Any]]] = [
        ("conceded", {"player": "misty", "reason": H()}),
        ("effect_result", {"player": "ash", "wins": True, "card": {"name": P()}}),
        ("penalty", {"player": "misty", "kind": "game_loss", "reason": H()}),
    ]
    rng.shuffle(endings)
    s.add(endings[0][0], **endings[0][1])
    s.add("game_ended", outcome="win", winner="ash", reason=H())
    for kind, fields in endings[1:]:
        s.add(kind, **fields)
    s.add("note", text=H(), author="importer", finding={"code": "unmatched_line", "severity": "info"})
    s.add("penalty", player="ash", kind="warning", reason=H())  # after the end: more versions
    for e in s.events:
        e["id"] = H()
        _extras(e, m, match, rng)
    return s.events


def planted_corpus(games: int, seed: int) -> tuple[Marker, list[list[Event]]]:
    m = Marker()
    rng = random.Random(seed)
    corpus = [planted_game(f"pl-{i:04d}", "L1" if i % 2 == 0 else "L2", rng, m) for i in range(games)]
    return m, corpus


def test_planted_games_play_every_event_type_of_the_contract() -> None:
    schema_types = set(load_schema("events")["$defs"]["envelope"]["properties"]["type"]["enum"])
    _, corpus = planted_corpus(2, 1)
    assert {e["type"] for e in corpus[0]} == schema_types


def test_a_record_s_public_projection_is_a_valid_record_without_hidden_tokens() -> None:
    m, corpus = planted_corpus(PLANTED, 11)
    for stream in corpus:
        g = checked_game()
        for e in stream:
            g.apply(e)
        full = g.record()
        public = public_record(full)
        validate_record(public)
        assert public["redacted"] is True and not leak(json.dumps(public).encode()), leak(
            json.dumps(public).encode()
        )
        assert m.public[stream[0]["match"]] & set(json.dumps(public).split('"'))  # context and names stay
        assert "ZHIDDEN" in json.dumps(full)  # the details did reach the record (judges)
        for f in full["findings"]:  # the engine's messages are public-safe whatever the events say
            assert not leak(f["message"].encode()), f
        board = json.dumps(g.board())
        assert not leak(board.encode()), leak(board.encode())


async def test_planted_tokens_reach_only_the_roles_that_may_see_them(served: Served) -> None:
    s = served
    assert_every_route_is_crawled(s)
    await more_readers(s)
    m, corpus = planted_corpus(PLANTED, 2026)
    for i in range(0, len(corpus), 20):  # 20 games per request
        # a judge's token: the planted games' penalties and corrections after the end are a judge's
        r = await s.post([e for stream in corpus[i : i + 20] for e in stream], who="admin")
        assert r.status == 200, (await r.text())[:500]
    leagues = {stream[0]["match"]: stream[0]["context"]["league"] for stream in corpus}
    # the stream table and slots show planted games: the game, up next and standings scenes (issue 37)
    planted = [stream[0]["match"] for stream in corpus]
    await table_started(s.store, "L1-cup", "7", planted[0])
    for slot, scene in (("main", None), ("next", "up-next"), ("standings", "standings")):
        body = {"event": "L1-cup", "table": "7", "league": "L1", "queue": planted[:10]}
        assert (
            await s.http.post(f"{s.url}/slots/{slot}/set", json=body, headers=s.auth("admin"))
        ).status == 200
        if scene:
            assert (await s.http.post(f"{s.url}/slots/{slot}/{scene}", headers=s.auth("admin"))).status == 200
    shown = json.loads(await read(s, "/overlay/slot/next/now", None))
    assert shown["match"] == planted[0] and len(shown["next"]) == min(10, len(planted))
    sem = asyncio.Semaphore(8)

    async def check(stream: list[Event]) -> None:
        match = stream[0]["match"]
        async with sem:
            versions = await versions_of(s, match)
            assert versions >= 2
            for who in READERS:
                bodies = await crawl_match(s, match, who, versions, len(stream))
                seen = b"\n".join(bodies)
                if may_see_hidden(who, leagues[match]):
                    missing = [t for t in m.hidden[match] if t.encode() not in seen]
                    assert not missing, (match, who, missing[:5])
                    continue
                assert not leak(seen), (match, who, leak(seen))
                record = json.loads(bodies[0])  # the record as it is now, as this role reads it
                assert record["redacted"] is True and record["context"]["table"] in m.public[match]
                if who == "organizer":
                    missing = [t for t in m.public[match] if t.encode() not in seen]
                    assert not missing, (match, who, missing[:5])  # nothing public was over-redacted

    await asyncio.gather(*(check(stream) for stream in corpus))
    for who in READERS:
        if may_see_hidden(who, "L1") and may_see_hidden(who, "L2"):
            continue
        # a page across games (a player's penalties) shows a scoped judge the hidden marks of its own
        # league's games, and never another's
        mine = {t for match, marks in m.hidden.items() if may_see_hidden(who, leagues[match]) for t in marks}
        for path_list in global_paths(["ash"]).values():
            for path, extra in path_list:
                body = await read(s, path, who, extra)
                for t in mine:
                    body = body.replace(t.encode(), b"")
                assert not leak(body), (path, who, leak(body))


# ------------------------------------------------------------------------ simulated and imported games
class CardMarker:
    """Renames cards in hidden and public places of real-looking games, and adds producers' extra fields
    (top-level and in source, context and card objects)."""

    def __init__(self) -> None:
        self.m = Marker()
        self.played: dict[str, set[str]] = {}

    def event(self, e: Event, rng: random.Random) -> Event:
        e = json.loads(json.dumps(e))
        match, kind, m = e["match"], e["type"], self.m
        if kind == "drew":
            e["cards"] = [m.hide(match) for _ in range(max(1, int(e.get("count", 1))))]
            e["count"] = len(e["cards"])
        elif kind == "moved":
            public = e.get("from") in PUBLIC_ZONES or e.get("to") in PUBLIC_ZONES
            e["cards"] = [
                (m.show if public else m.hide)(match) for _ in range(max(1, int(e.get("count", 1))))
            ]
            e["count"] = len(e["cards"])
        elif kind == "played":
            self.played.setdefault(match, set()).add(e["card"]["name"])
        if rng.random() < 0.05:
            e["secret"] = m.hide(match)
        for key in ("source", "context", "card"):
            if isinstance(e.get(key), dict) and rng.random() < 0.3:
                e[key]["vendor"] = {"x": m.hide(match)}
        return e


def games(marker: CardMarker) -> Iterator[list[Event]]:
    """The corpus: simulated games (with their playoff games) and imported PTCGL battle logs."""
    rng = random.Random(7)
    imported = max(1, GAMES // 5)
    for stream in simulate_corpus(GAMES - imported, 2026):
        yield [marker.event(e, rng) for e in stream]
    for i in range(imported):
        text, _catalogue, _winner, _reason = synthetic_log(100 + i)
        events = parse_ptcgl(text, match=f"ptcgl-{i:04d}", filename=f"log-{i}.txt").events
        yield [marker.event(e, rng) for e in events]


async def test_no_hidden_card_reaches_a_role_that_may_not_see_it(served: Served) -> None:
    s = served
    marker = CardMarker()
    corpus = list(games(marker))
    matches = [stream[0]["match"] for stream in corpus]
    for i in range(0, len(corpus), 20):  # 20 games per request
        batch = [e for stream in corpus[i : i + 20] for e in stream]
        r = await s.post(batch, who="admin")  # a judge: the simulated games' penalties after the end
        assert r.status == 200, (await r.text())[:500]
    hidden = marker.m.hidden
    assert len(matches) >= GAMES and sum(len(v) for v in hidden.values()) > GAMES

    sem = asyncio.Semaphore(16)

    async def check(match: str) -> None:
        async with sem:
            last = len(next(g for g in corpus if g[0]["match"] == match))
            m = quote(match, safe="/:")
            paths = [
                f"/matches/{m}/record",
                f"/matches/{m}/board",
                f"/matches/{m}/events",
                f"/review/{m}",
                f"/review/{m}/meta",
                f"/review/{m}/meta?view=public&from=0&to=100000",
                f"/review/{m}/state?seq={random.Random(match).randint(1, last)}",
                f"/review/{m}/state",
                f"/overlay/{m}",
            ]
            for who in (None, "ingest", "organizer", "judge"):
                seen = [await read(s, path, who) for path in paths]
                seen.append(await live_frame(s, match, who))
                text = b"\n".join(seen)
                if who == "judge":
                    missing = [t for t in hidden.get(match, ()) if t.encode() not in text]
                    assert not missing, (match, missing[:5])
                    continue
                assert not leak(text), (match, who, leak(text))
                if who == "organizer":
                    archive = seen[2].decode()
                    for name in marker.played.get(match, set()) | marker.m.public.get(match, set()):
                        assert json.dumps(name)[1:-1] in archive, (match, name)

    await asyncio.gather(*(check(m) for m in matches))
    for who in (None, "ingest", "organizer"):  # the lists: index, match list, stats
        for path in ("/matches?limit=10000", "/ui?limit=5000", "/stats", "/healthz"):
            assert not leak(await read(s, path, who)), (path, who)


# ------------------------------------------------------------------------------- the projection alone
def _props(schema: dict[str, Any], name: str) -> set[str]:
    return set(schema["$defs"][name]["properties"]) - {"type"}


def test_every_field_of_the_contract_is_shown_or_left_out() -> None:
    """A field added to the schema fails here until it is decided: listed as shown, or as left out."""
    schema = load_schema("events")
    defs = schema["$defs"]
    envelope = _props(schema, "envelope") | {"type"}
    for kind in defs["envelope"]["properties"]["type"]["enum"]:
        fields = _props(schema, kind) | envelope
        decided = set(ENVELOPE) | set(EVENT_FIELDS[kind]) | set(LEFT_OUT.get(kind, ())) | set(LEFT_OUT["*"])
        assert fields <= decided, (kind, fields - decided)
        extra = decided - fields
        assert extra <= ({"effect"} if kind == "prize_taken" else set()), (kind, extra)  # decisions item 1
    started = defs["match_started"]["properties"]
    assert set(started["source"]["properties"]) <= set(SOURCE)
    assert set(started["context"]["properties"]) == set(CONTEXT)
    assert set(defs["pokemon_card"]["properties"]) == set(POKEMON_CARD)
    assert set(defs["named_card"]["properties"]) == set(NAMED_CARD)
    assert set(defs["in_play"]["properties"]) == set(IN_PLAY)
    for kind in ("attached", "trainer_played"):
        assert set(defs[kind]["properties"]["card"]["properties"]) == set(KIND_CARD)
    record = load_schema("record")
    assert set(record["properties"]) - {"signature", "redacted"} == set(RECORD_FIELDS)
    assert set(record["$defs"]["finding"]["properties"]) - {"detail"} == set(FINDING)
    assert set(record["$defs"]["result"]["properties"]) == set(RESULT)
    assert set(record["$defs"]["penalty"]["properties"]) - {"reason"} == set(RECORD_FIELDS["penalties"][0])


# One event of each type with every field the contract defines (zones apart: drawn by hypothesis).
TEMPLATES: dict[str, dict[str, Any]] = {
    "match_started": {
        "players": ["S", "S"],
        "first": "S",
        "ruleset": "S",
        "prizes": 6,
        "deck": 60,
        "source": {"kind": "digital", "producer": "S", "exporter": "S", "reports_knockouts": True},
        "context": {
            "league": "S",
            "season": "S",
            "event": "S",
            "round": 1,
            "table": "S",
            "series": "S",
            "game": 1,
            "stage": "swiss",
            "lang": "ja",
        },
        "must_decide": True,
        "parent": "S",
        "playoff": "tiebreak",
    },
    "setup": {
        "player": "S",
        "active": {"pid": "S", "card": {"name": "S", "hp": 60, "rule": "ex", "prizes": 2}},
        "bench": [{"pid": "S", "card": {"name": "S", "hp": 30}}],
        "mulligans": 1,
    },
    "turn_started": {"player": "S", "turn": 1, "deck": 40},
    "drew": {"player": "S", "count": 1, "cards": ["H"]},
    "moved": {"player": "S", "count": 1, "cards": ["Z"], "from": "Z", "to": "Z", "revealed": False},
    "played": {"player": "S", "pid": "S", "card": {"name": "S", "hp": 60}, "to": "bench"},
    "evolved": {"player": "S", "pid": "S", "card": {"name": "S", "hp": 90, "rule": "V"}, "effect": "S"},
    "attached": {
        "player": "S",
        "pid": "S",
        "card": {"name": "S", "kind": "energy"},
        "from": "hand",
        "effect": "S",
    },
    "attack": {"player": "S", "pid": "S", "name": "S", "effect": "S"},
    "damage": {"pid": "S", "amount": 30, "by": "S"},
    "healed": {"pid": "S", "amount": 30},
    "attack_ended": {},
    "condition": {"pid": "S", "condition": "asleep", "on": True},
    "turn_ended": {"player": "S"},
    "checkup_started": {},
    "checkup_ended": {},
    "switched": {"player": "S", "pid": "S", "effect": "S"},
    "promoted": {"player": "S", "pid": "S"},
    "removed": {"player": "S", "pid": "S", "to": "deck"},
    "knocked_out": {"pid": "S", "player": "S", "by": "S"},
    "prize_taken": {"player": "S", "count": 1, "effect": "S"},
    "prize_modifier": {"pid": "S", "delta": -1},
    "conceded": {"player": "S", "reason": "H"},
    "penalty": {"player": "S", "kind": "caution", "reason": "H"},
    "time_called": {},
    "effect_result": {"player": "S", "wins": True, "card": {"name": "S"}},
    "game_ended": {"outcome": "win", "winner": "S", "reason": "H"},
    "correction": {"target": 3, "action": "amend", "event": {"cards": ["H"], "card": {"name": "H"}}},
    "note": {"text": "H", "author": "S"},
    "discarded": {"player": "S", "count": 1, "cards": ["S"], "from": "hand", "pid": "S"},
    "trainer_played": {"player": "S", "card": {"name": "S", "kind": "supporter"}, "effect": "S"},
    "searched": {"player": "S", "count": 1, "cards": ["H"]},
    "to_hand": {"player": "S", "from": "Z", "count": 1, "cards": ["Z"]},
    "shuffled": {"player": "S", "zone": "Z", "from": "Z", "count": 1, "cards": ["Z"]},
}
_ZONES = ["deck", "hand", "discard", "prizes", "lost_zone", "stadium"]


def test_every_event_type_has_a_template() -> None:
    assert set(TEMPLATES) == set(load_schema("events")["$defs"]["envelope"]["properties"]["type"]["enum"])


@st.composite
def planted_events(draw: st.DrawFn) -> tuple[Event, set[str], set[str]]:
    """An event of any type, every string of it a token (S: public, H: hidden, Z: a zone, and the cards
    of a move public when the zones or ``revealed`` say so), with unknown fields at random depths."""
    kind = draw(st.sampled_from(sorted(TEMPLATES)))
    hidden: set[str] = set()
    public: set[str] = set()
    count = iter(range(1, 10_000))
    zones = {k: draw(st.sampled_from(_ZONES)) for k in ("from", "to", "zone")}
    revealed = draw(st.booleans())
    shown_cards = revealed if kind == "moved" else False
    shown_cards = shown_cards or any(
        zones[k] in PUBLIC_ZONES for k in ("from", "to", "zone") if k in TEMPLATES[kind]
    )

    def token(hide: bool) -> str:
        t = f"{'ZHIDDEN' if hide else 'ZPUBLIC'}{next(count):06d}Z"
        (hidden if hide else public).add(t)
        return t

    def fill(value: Any, key: str, inside_hidden: bool) -> Any:
        if isinstance(value, dict):
            out = {k: fill(v, k, inside_hidden or key == "event") for k, v in value.items()}
            if draw(st.booleans()):
                out[f"x{next(count)}"] = fill(draw(st.sampled_from(["H", ["H"], {"deep": "H"}])), "x", True)
            return out
        if isinstance(value, list):
            return [fill(v, key, inside_hidden) for v in value]
        if value == "Z" and key in zones:
            return zones[key]
        if value == "Z":  # the cards of a move
            return token(not shown_cards)
        if value in ("S", "H"):
            return token(inside_hidden or value == "H")
        return value

    event = fill({"match": "m1", "seq": 2, "type": kind, **TEMPLATES[kind]}, "", False)
    if kind == "moved":
        event["revealed"] = revealed
    event["id"] = token(True)
    return event, hidden, public


@settings(max_examples=EXAMPLES, deadline=None)
@given(planted_events())
def test_the_public_projection_keeps_only_public_fields(planted: tuple[Event, set[str], set[str]]) -> None:
    event, hidden, public = planted
    out = public_event(event)
    text = json.dumps(out)
    assert not [t for t in hidden if t in text], (event, out)
    assert not [t for t in public if t not in text], (event, out)  # nothing public is lost
    assert out["redacted"] is True  # the id, at least, was left out
    assert (out["match"], out["seq"], out["type"]) == ("m1", 2, event["type"])
    if event["type"] in ("drew", "moved", "searched", "to_hand", "shuffled"):
        assert out["count"] == event["count"]


def test_a_hidden_move_still_tells_how_many_cards() -> None:
    out = public_event({"match": "m", "seq": 4, "type": "drew", "player": "ash", "cards": ["A", "B"]})
    assert out == {"match": "m", "seq": 4, "type": "drew", "player": "ash", "count": 2, "redacted": True}


def test_a_wrong_shape_in_a_listed_field_is_left_out() -> None:
    event = {
        "match": "m",
        "seq": 5,
        "type": "attack",
        "player": {"x": "ZHIDDEN1Z"},
        "pid": "a1",
        "name": ["ZHIDDEN2Z"],
    }
    assert public_event(event) == {"match": "m", "seq": 5, "type": "attack", "pid": "a1", "redacted": True}
    raw = msgpack.packb(public_event(event))
    assert b"ZHIDDEN" not in raw


def test_reason_words_of_the_engine_are_not_free_text() -> None:
    def shown(kind: str, reason: str) -> bool:
        return "reason" in public_event(
            {"match": "m", "seq": 9, "type": kind, "player": "a", "reason": reason}
        )

    assert shown("conceded", "inactive") and shown("conceded", "timeout") and not shown("conceded", "tired")
    assert (
        shown("game_ended", "prizes")
        and shown("game_ended", "Deck_Out")
        and not shown("game_ended", "he won")
    )
    assert not shown("penalty", "caution")  # a penalty's reason is always free text
