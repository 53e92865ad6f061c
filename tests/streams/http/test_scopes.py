"""Scopes and ownership against the real service (issue 18 item 1): every case of the audit, then a
property test that posts random batches of mixed scopes as random tokens and checks that no event outside
a token's scope, or into another producer's match, is ever applied.

Tokens: ``ingest_l1`` and ``ingest_l1b`` (two producers of league L1), ``ingest_l2`` (L2), ``ingest`` and
``ingest_b`` (two producers of every league), ``judge_ingest_l2`` (a judge who writes, in L2), ``admin``
(a judge of everything), ``organizer_l1`` / ``organizer`` (counts).
"""

from __future__ import annotations

import json
import random
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import msgpack
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from streams.http.ownership import Owner, playoff_root
from streams.store import RedisStore
from streams.tokens import Principal, namespace
from tests.builder import drawn_game, sudden_death
from tests.streams.http.served import Served, start_served
from tests.streams.ingest.support import game

pytestmark = pytest.mark.redis

Event = dict[str, Any]
EXTRA: tuple[tuple[str, list[str], dict[str, list[str]]], ...] = (
    ("ingest_l1", ["ingest"], {"leagues": ["L1"]}),
    ("ingest_l1b", ["ingest"], {"leagues": ["L1"]}),
    ("ingest_b", ["ingest"], {}),
    ("judge_ingest_l2", ["ingest", "judge"], {"leagues": ["L2"]}),
    ("organizer_l1", ["organizer"], {"leagues": ["L1"]}),
    ("ingest_cup", ["ingest"], {"events": ["Cup"]}),
)


@pytest.fixture
async def scoped(redis_store: RedisStore, tmp_path: Path) -> AsyncIterator[Served]:
    s, server = await start_served(redis_store, tmp_path, extra_tokens=EXTRA)
    try:
        yield s
    finally:
        await s.http.close()
        await server.close()


def in_league(events: list[Event], league: str | None, event: str | None = None, **more: Any) -> list[Event]:
    out = [dict(e) for e in events]
    ctx = {k: v for k, v in {"league": league, "event": event}.items() if v is not None}
    out[0] = {**out[0], "context": {**ctx, **more}}
    return out


def league_game(match: str, league: str | None, event: str | None = None) -> list[Event]:
    return in_league(game(match), league, event)


async def record(s: Served, match: str) -> dict[str, Any]:
    r = await s.http.get(f"{s.url}/matches/{match}/record")
    assert r.status == 200, match
    return dict(await r.json())


async def archive(s: Served, match: str) -> list[bytes]:
    return [e.data for e in await s.store.events(match)]


async def refused(s: Served, events: list[Event], who: str, code: str) -> str:
    before = {m: await archive(s, m) for m in {e["match"] for e in events if isinstance(e.get("match"), str)}}
    r = await s.post(events, who=who)
    body = await r.json()
    assert r.status == 403 and body["code"] == code, (who, body)
    for match, entries in before.items():
        assert await archive(s, match) == entries, f"{match}: written although the batch was refused"
    return str(body["error"])


def penalty(match: str, seq: int, player: str) -> Event:
    return {"match": match, "seq": seq, "type": "penalty", "player": player, "kind": "game_loss"}


# ---------------------------------------------------------------------------------- the audit's cases
async def test_an_invalid_first_event_naming_my_league_does_not_open_another_leagues_match(
    scoped: Served,
) -> None:
    s = scoped
    events = league_game("L2/m2", "L2")
    assert (await s.post(events, who="ingest_l2")).status == 200
    winner = (await record(s, "L2/m2"))["result"]["winner"]
    last = events[-1]["seq"]
    invalid_start = {**events[0], "context": {"league": "L1"}, "first": None}  # invalid, naming L1
    attack = [invalid_start, penalty("m2", last + 1, winner)]
    await refused(s, attack, "ingest_l1", "out_of_scope")
    valid_start = {**events[0], "context": {"league": "L1"}}  # the valid variant
    note = {"match": "L2/m2", "seq": last + 1, "type": "note", "text": "L1 was here"}
    await refused(s, [valid_start, note], "ingest_l1", "out_of_scope")
    assert (await record(s, "L2/m2"))["result"]["winner"] == winner


async def test_only_the_match_started_at_seq_1_gives_a_new_match_its_league(scoped: Served) -> None:
    # found by the property test below: a match_started at seq 5 naming L2 lent its league to a new match
    # whose stream it does not open, and L2's token wrote into a match of no known league
    s = scoped
    late_start = {**league_game("late1", "L2")[0], "seq": 5}
    note = {"match": "late1", "seq": 6, "type": "note", "text": "no opening event"}
    await refused(s, [late_start, note], "ingest_l2", "out_of_scope")
    await refused(s, [late_start, note], "judge_ingest_l2", "out_of_scope")
    assert await s.store.owners(["late1"]) == [None]  # and the id was not claimed
    # nor one after another event took seq 1: the core applies the first valid event at seq 1
    first = {"match": "late1", "seq": 1, "type": "note", "text": "takes seq 1"}
    await refused(s, [first, {**late_start, "seq": 1}], "ingest_l2", "out_of_scope")


async def test_a_match_id_cannot_be_squatted_by_another_league(scoped: Served) -> None:
    s = scoped
    # a scoped token creates matches only in its own namespace, <league>/... or <event>/...: the id that
    # L2's producer will use is not L1's to take, whatever its match_started says
    for league in ("L1", "L2", None):
        await refused(s, league_game("L2/r1-t4", league)[:1], "ingest_l1", "out_of_scope")
    error = await refused(s, league_game("r1-t4", "L1")[:1], "ingest_l1", "out_of_scope")
    assert "L1/..." in error  # the refusal says which ids the token may create
    assert await s.store.owners(["r1-t4", "L2/r1-t4"]) == [None, None]  # and no id was claimed
    # L1's game and L2's game of the same table each live in their own league's id, each judged
    # under its own first player, ruleset and league
    l1 = league_game("L1/r1-t4", "L1")
    assert (await s.post(l1, who="ingest_l1")).status == 200
    l2 = league_game("L2/r1-t4", "L2")
    l2[0] = {**l2[0], "first": "misty", "ruleset": "kr-1.0"}
    assert (await s.post(l2, who="ingest_l2")).status == 200
    rec1, rec2 = await record(s, "L1/r1-t4"), await record(s, "L2/r1-t4")
    assert (rec1["context"]["league"], rec1["first"], rec1["ruleset"]) == ("L1", "ash", "play-2026")
    assert (rec2["context"]["league"], rec2["first"], rec2["ruleset"]) == ("L2", "misty", "kr-1.0")
    assert len(await archive(s, "L2/r1-t4")) == len(l2)
    # the namespace must be the league its match_started names, and inside the token's scope
    await refused(s, league_game("L1/mislabelled", "L2")[:1], "ingest_l1", "out_of_scope")
    await refused(s, league_game("L1/fresh", None)[:2], "ingest_l1", "out_of_scope")  # nor one of no league
    await refused(s, game("L1/fresh")[1:3], "ingest_l1", "out_of_scope")  # nor one not known at all
    await refused(s, league_game("Cup/cup1", "L9", "Other")[:1], "ingest_cup", "out_of_scope")
    await refused(s, league_game("Other/cup1", "L9", "Other")[:1], "ingest_cup", "out_of_scope")
    assert (await s.post(league_game("Cup/cup1", "L9", "Cup")[:1], who="ingest_cup")).status == 200
    # an unscoped producer is trusted with every league: its ids are its own choice, and a match it
    # created is still its own (another producer, scoped or not, is refused)
    assert (await s.post(league_game("r1-t4", "L1")[:1], who="ingest")).status == 200
    await refused(s, league_game("r1-t4", "L1")[1:3], "ingest_b", "not_owner")
    await refused(s, league_game("r1-t4", "L1")[1:3], "ingest_l1", "not_owner")


async def test_only_the_producer_that_created_a_match_writes_it_and_after_the_end_only_a_judge(
    scoped: Served,
) -> None:
    s = scoped
    events = game("m3")
    assert (await s.post(events, who="ingest")).status == 200
    winner = (await record(s, "m3"))["result"]["winner"]
    last = events[-1]["seq"]
    flip = [penalty("m3", last + 1, winner)]
    error = await refused(s, flip, "ingest_b", "not_owner")  # another producer
    assert "belongs to the producer" in error and "(ingest)" in error
    error = await refused(s, flip, "ingest", "judge_only")  # its own producer, after the end
    assert "has ended" in error
    correction = {"match": "m3", "seq": last + 1, "type": "correction", "target": 10, "action": "void"}
    await refused(s, [correction], "ingest", "judge_only")
    note = {"match": "m3", "seq": last + 1, "type": "note", "text": "a producer's note is fine"}
    assert (await s.post([note], who="ingest")).status == 200
    assert (await record(s, "m3"))["result"]["winner"] == winner
    r = await s.post([{**flip[0], "seq": last + 2}], who="admin")  # a judge may
    assert r.status == 200
    assert (await record(s, "m3"))["result"]["winner"] != winner
    stored = await s.store.owners(["m3"])
    assert stored[0] is not None and Owner.decode(stored[0]).producer == s.tokens["ingest"].split("_")[1]


async def test_a_penalty_after_the_end_in_the_same_batch_is_refused_for_a_producer(scoped: Served) -> None:
    s = scoped
    events = game("m4")
    winner = events[-1]["winner"]
    r = await s.post([*events, penalty("m4", events[-1]["seq"] + 1, winner)], who="ingest")
    body = await r.json()
    assert r.status == 400 and body["counts"] == {"applied": len(events), "rejected": 1}
    assert "only a judge may add a penalty" in body["outcomes"][-1]["reason"]
    assert (await record(s, "m4"))["result"]["winner"] == winner
    # a penalty that would wait behind a gap (its game may end meanwhile) neither
    r = await s.post([penalty("m5", 3, "ash")], who="ingest")
    assert r.status == 400 and "cannot wait behind a gap" in (await r.json())["outcomes"][0]["reason"]
    # during the game, in line, a producer records the table judge's penalty as ever
    early = game("m6")[:5]
    r = await s.post([*early, {**penalty("m6", 6, "ash"), "kind": "warning"}], who="ingest")
    assert r.status == 200


async def test_a_playoff_game_decides_its_parent_only_for_a_producer_that_may_write_the_parent(
    scoped: Served,
) -> None:
    s = scoped
    parent = drawn_game("L2/g2", "kr-1.0", context={"league": "L2"})
    assert (await s.post(parent.events, who="ingest_l2")).status == 200
    assert (await record(s, "L2/g2"))["status"] == "awaiting_playoff"
    hijack = sudden_death("L2/g2/tb1", decided=True, parent="L2/g2", context={"league": "L1"}).events
    await refused(s, hijack, "ingest_l1", "out_of_scope")
    plain = sudden_death("L2/g2/tb1", decided=True, parent="L2/g2").events  # no context: the parent's league
    await refused(s, plain, "ingest_l1", "out_of_scope")
    await refused(s, plain, "ingest", "playoff_parent")  # unscoped, but not the parent's producer
    await refused(s, plain, "ingest_l1b", "out_of_scope")
    other_id = sudden_death("evil", decided=True, parent="L2/g2").events  # any id naming the parent
    await refused(s, other_id, "ingest", "playoff_parent")
    assert (await record(s, "L2/g2"))["status"] == "awaiting_playoff"  # still undecided
    # a playoff announced before its parent exists (to be picked up when the parent draws): refused
    await refused(
        s, sudden_death("later/tb1", decided=True, parent="later").events, "ingest", "playoff_parent"
    )
    # the parent's producer plays it: it decides the parent
    assert (await s.post(plain, who="ingest_l2")).status == 200
    rec = await record(s, "L2/g2")
    assert (rec["status"], rec["result"]["reason"]) == ("finished", "playoff")
    # and a judge of L2 may write the playoff family too, but not an L1 token that is a judge of nothing
    note = {"match": "L2/g2/tb1", "seq": len(plain) + 1, "type": "note", "text": "judge"}
    assert (await s.post([note], who="judge_ingest_l2")).status == 200
    # after the end, a new playoff link is a judge's
    late = sudden_death("L2/g2/tb9", decided=True, parent="L2/g2").events
    await refused(s, late, "ingest_l2", "judge_only")


async def test_a_match_started_that_does_not_open_a_match_lends_it_no_parent(scoped: Served) -> None:
    # found by the property test below (seed 514678, 4 rounds): a match_started at seq 1 naming a parent
    # made a match a playoff game in its parent's league although another event took seq 1, so the core
    # never applied it: an L2 judge wrote into a match of no league
    s = scoped
    assert (await s.post(league_game("p9", "L2"), who="ingest")).status == 200  # an L2 game, unscoped
    start = {**sudden_death("p9/x-tb1", decided=True, parent="p9").events[0], "context": {"league": "L2"}}
    note = {"match": "p9/x-tb1", "seq": 1, "type": "note", "text": "takes seq 1"}
    # in one batch: the note opens the new match, the match_started after it is a duplicate of seq 1
    error = await refused(s, [note, start], "judge_ingest_l2", "out_of_scope")
    assert "no league or event" in error
    assert await s.store.owners(["p9/x-tb1"]) == [None]
    # stored: an unscoped producer's match opened by a note, no league and no parent
    assert (await s.post([note], who="ingest")).status == 200
    assert (await record(s, "p9/x-tb1"))["context"] == {}
    before = await archive(s, "p9/x-tb1")
    for who in ("judge_ingest_l2", "ingest_l2"):
        await refused(s, [start], who, "out_of_scope")
        await refused(s, [{**start, "seq": 1, "context": {}}], who, "out_of_scope")
    assert await archive(s, "p9/x-tb1") == before
    # the match_started that does open a match still makes it its parent's playoff game
    assert (await s.post([{**start, "match": "p9/x-tb2"}], who="judge_ingest_l2")).status == 200
    assert (await record(s, "p9/x-tb2"))["parent"] == "p9"
    # a playoff game's id and its parent are both its roots: L2's id does not carry an L1 parent in
    l1 = drawn_game("L1/g7", "kr-1.0", context={"league": "L1"})
    assert (await s.post(l1.events, who="ingest_l1")).status == 200
    assert (await s.post(league_game("L2/g7", "L2")[:3], who="ingest_l2")).status == 200  # in progress
    cross = sudden_death("L2/g7/tb1", decided=True, parent="L1/g7").events
    error = await refused(s, cross, "ingest_l2", "out_of_scope")  # it was applied, a match of L1's
    assert "league 'L1'" in error
    assert (await record(s, "L1/g7"))["status"] == "awaiting_playoff"


async def test_stats_and_every_count_are_scoped(scoped: Served) -> None:
    s = scoped
    l1 = league_game("L1/c1", "L1")
    l2 = [*league_game("L2/c2", "L2"), {"match": "L2/c2", "seq": 99, "type": "note", "text": "gap"}]
    assert (await s.post(l1, who="ingest_l1")).status == 200
    assert (await s.post(l2, who="ingest_l2")).status == 200
    r = await s.http.get(f"{s.url}/stats", headers=s.auth("organizer"))
    everything = await r.json()
    r = await s.http.get(f"{s.url}/stats", headers=s.auth("organizer_l1"))
    mine = await r.json()
    assert r.status == 200 and mine["matches"] == 1 and mine["scope"] == {"leagues": ["L1"], "events": []}
    assert "seq_gap" not in mine["findings"]  # L2's finding is not counted for L1
    assert "seq_gap" in everything["findings"] or everything["ingest"]["buffered"] == 1
    assert "ingest" not in mine and "live" not in mine  # the process's counters count every league
    expected: dict[str, int] = {}
    for f in (await record(s, "L1/c1"))["findings"]:
        expected[f["code"]] = expected.get(f["code"], 0) + 1
    assert mine["findings"] == expected


# -------------------------------------------------------------------------------------- the property
TOKENS = ("ingest_l1", "ingest_l1b", "ingest_l2", "ingest", "ingest_b", "judge_ingest_l2", "admin")


def principal_of(s: Served, who: str) -> Principal:
    return s.book.check(s.tokens[who])


async def snapshot(s: Served, matches: list[str]) -> dict[str, tuple[list[bytes], bytes | None, str]]:
    """Each match's archive, owner and record status."""
    owners = await s.store.owners(matches)
    records = await s.store.records(matches)
    out = {}
    for m, o, rec in zip(matches, owners, records, strict=True):
        status = "none" if rec is None else str(msgpack.unpackb(rec, raw=False).get("status"))
        out[m] = (await archive(s, m), o, status)
    return out


async def scope_of(s: Served, match: str) -> tuple[str | None, str | None]:
    """A match's league and event: its record's, or for a playoff game (by its parent, or by its id
    ``<root>/tbN`` when nothing of it names one) its parent's."""
    rec = await s.store.record(match)
    data = {} if rec is None else msgpack.unpackb(rec, raw=False)
    ctx = data.get("context") or {}
    parent = data.get("parent") or playoff_root(match)
    if not ctx.get("league") and not ctx.get("event") and parent:
        return await scope_of(s, parent)
    return ctx.get("league"), ctx.get("event")


#: The matches a random batch writes: new ones (an unscoped token may create any of them, a scoped one
#: those of its league's namespace), playoff games of them, and two finished games created beforehand,
#: one by an unscoped producer and one by L2's.
MATCHES = ["p0", "L1/p1", "L2/p2", "L1/p3", "p0/tb1", "L1/p1/tb1", "f1", "L2/f2", "f1/tb1", "L2/f2/tb1"]


def _batch(rng: random.Random) -> list[Event]:
    out: list[Event] = []
    focus = rng.sample(MATCHES, rng.choice([1, 1, 2, 3]))  # mostly one match: more batches get through
    for _ in range(rng.randint(1, 6)):
        match = rng.choice(focus)
        seq = rng.randint(1, 40)
        kind = rng.choice(["start", "start", "note", "penalty", "correction", "invalid"])
        if kind == "start":
            start = {**game(match)[0], "seq": 1 if rng.random() < 0.8 else seq}
            if "/tb" in match:
                start["parent"] = playoff_root(match)
            league = rng.choice(["L1", "L2", None])
            if league is None:
                start.pop("context", None)
            else:
                start["context"] = {"league": league}
            out.append(start)
        elif kind == "note":
            out.append({"match": match, "seq": seq, "type": "note", "text": "n"})
        elif kind == "penalty":
            out.append(penalty(match, seq, rng.choice(["ash", "misty"])))
        elif kind == "correction":
            out.append({"match": match, "seq": seq, "type": "correction", "target": 2, "action": "void"})
        else:  # an invalid match_started naming L1
            out.append({"match": match, "seq": 1, "type": "match_started", "context": {"league": "L1"}})
    return out


def _tag(tag: str, match: str) -> str:
    """``match`` made unique to one example, in the same namespace (``L1/x…-p1`` for ``L1/p1``)."""
    ns = namespace(match)
    return tag + match if ns is None else f"{ns}/{tag}{match[len(ns) + 1 :]}"


def _tagged(tag: str, events: list[Event]) -> list[Event]:
    out = []
    for e in events:
        e = {**e, "match": _tag(tag, e["match"])}
        if isinstance(e.get("parent"), str):
            e["parent"] = _tag(tag, e["parent"])
        out.append(e)
    return out


async def rounds_of_random_batches(s: Served, seed: int, rounds: int) -> None:
    """``rounds`` random batches (from ``seed``) posted by random tokens: none may write anything outside
    the token's scope, into another producer's match, or amend an ended game but a judge's."""
    rng = random.Random(seed)
    tag = f"x{seed:x}r{rounds}-"
    names = [_tag(tag, m) for m in MATCHES]
    assert (await s.post(_tagged(tag, game("f1")), who="ingest")).status == 200
    assert (await s.post(_tagged(tag, league_game("L2/f2", "L2")), who="ingest_l2")).status == 200
    for _ in range(rounds):
        who = rng.choice(TOKENS)
        p = principal_of(s, who)
        batch = _tagged(tag, _batch(rng))
        before = await snapshot(s, names)
        r = await s.post(batch, who=who)
        assert r.status in (200, 400, 403), await r.text()
        after = await snapshot(s, names)
        if r.status == 403:
            assert after == before, "a refused batch wrote something"
            continue
        for match in names:
            (old, owner_before, status_before), (new, owner_after, _) = before[match], after[match]
            if owner_before is not None:
                assert owner_after == owner_before, f"{match}: its owner changed"
            if new == old:
                continue
            # the match took events from this token: it is in the token's scope...
            assert p.covers(*await scope_of(s, match)), (who, match, json.dumps(batch)[:400])
            # ...it is the token's own match, or the token is a judge...
            assert owner_after is not None, f"{match}: written without an owner"
            assert Owner.decode(owner_after).producer == p.id or "judge" in p.roles, (who, match)
            # ...a match a scoped token created is in its own namespace (no squatting)...
            if owner_before is None and p.scoped and playoff_root(match) is None:
                assert namespace(match) in (*p.leagues, *p.events), (who, match)
            # ...and no penalty or correction landed in a game that had ended, unless from a judge
            if "judge" not in p.roles and status_before not in ("in_progress", "none"):
                added = [msgpack.unpackb(d, raw=False).get("type") for d in new[len(old) :]]
                assert not {"penalty", "correction"} & set(added), (who, match, added)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 2**32), rounds=st.integers(1, 5))
async def test_property_no_event_outside_a_tokens_scope_or_into_anothers_match_is_ever_applied(
    scoped: Served, seed: int, rounds: int
) -> None:
    await rounds_of_random_batches(scoped, seed, rounds)


@pytest.mark.parametrize(("seed", "rounds"), [(514678, 4)])
async def test_the_property_examples_it_once_failed(scoped: Served, seed: int, rounds: int) -> None:
    # 514678/4: an L2 judge's batch into an unscoped producer's match, whose seq 1 a note takes, with
    # match_started events at seq 1 naming an L2 game as parent: accepted, and the note applied into a
    # match of no league (test_a_match_started_that_does_not_open_a_match_lends_it_no_parent)
    await rounds_of_random_batches(scoped, seed, rounds)
