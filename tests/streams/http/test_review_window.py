"""The review's game in windows (``GET /review/<match>/meta?from=&to=``, issue 40 item 4): the windows
put together are the whole answer's frames and log, each window folds no further than its end, and the
public view's windows hold no hidden card."""

from __future__ import annotations

import json
from typing import Any

import msgpack
import pytest

from replay.generators.simulate import simulate_series
from streams.http.frames import SNAPSHOT
from streams.http.review_window import ReviewFold
from streams.store import ArchivedEvent, RedisStore
from streams.store.base import extent_of
from tests.streams.http.test_pages import (
    SECRET,
    Served,
    effect_knockout_game,
    long_game,
    playoff_game,
    served,
)

__all__ = ["served"]  # the pages' fixture: the app with no access control

HEAD = ("record", "findings_text", "findings_detail", "rules", "lang")


def log_of(parts: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The windows' log lines put together as the page does: each window's late marks added to the lines
    they mark."""
    log: list[dict[str, Any]] = []
    for part in parts:
        log.extend(part["log"])
        for i, mark in part.get("late_marks", []):
            log[i]["marks"].append(mark)
    return log


async def windows(
    served: Served, match: str, size: int, view: str = "", start: int = 0
) -> list[dict[str, Any]]:
    """Every window of ``size`` steps of the match from ``start``, in order, as the page asks for them."""
    out: list[dict[str, Any]] = []
    while True:
        got = await served.get_json(f"/review/{match}/meta?from={start}&to={start + size}{view}")
        out.append(got)
        start = got["to"]
        if start >= got["count"]:
            return out


async def test_the_windows_put_together_are_the_whole_answer(served: Served) -> None:
    parent, child = playoff_game()
    effect = effect_knockout_game()
    pending = [dict(e, match="fx2") for e in effect[:7]]  # ends with its effect still resolving
    await served.post(parent + child + effect + pending)
    for match in ("g1", "g1/tb1", "fx1", "fx2"):
        for view in ("", "&view=public"):
            whole = await served.get_json(f"/review/{match}/meta?{view[1:]}")
            for size in (SNAPSHOT, 3 * SNAPSHOT, 10_000):
                parts = await windows(served, match, size, view)
                assert [f for p in parts for f in p["frames"]] == whole["frames"], (match, view, size)
                assert log_of(parts) == whole["log"], (match, view, size)
                first, last = parts[0], parts[-1]
                assert {k: first[k] for k in HEAD} == {k: whole[k] for k in HEAD}
                # each window names its own steps' cards: the page keeps them all (static/review.js)
                assert {n: d for p in parts for n, d in p["names"].items()} == whole["names"]
                assert last["due"] == whole["due"] and all("due" not in p for p in parts[:-1])
                assert all("record" not in p for p in parts[1:])  # the record comes once
                assert first["count"] == len(whole["frames"]) and first["last"] == whole["last"]


async def test_a_window_starts_at_a_whole_board(served: Served) -> None:
    parent, _ = playoff_game()
    await served.post(parent)
    whole = await served.get_json("/review/g1/meta")
    got = await served.get_json(f"/review/g1/meta?from={SNAPSHOT + 5}&to={SNAPSHOT + 9}")
    assert got["from"] == SNAPSHOT and got["to"] == SNAPSHOT + 9
    assert got["frames"] == whole["frames"][SNAPSHOT : SNAPSHOT + 9]
    assert set(got["frames"][0]["board"]) >= {"players", "seq"}  # whole, not a delta
    r = await served.http.get(f"{served.url}/review/g1/meta?from=9&to=3")
    assert r.status == 400 and "from" in (await r.json())["error"]
    r = await served.http.get(f"{served.url}/review/g1/meta?from=-1")
    assert r.status == 400


def archived(events: list[dict[str, Any]]) -> list[ArchivedEvent]:
    return [ArchivedEvent((e["seq"], 0), msgpack.packb(e)) for e in events]


def answer(fold: ReviewFold, entries: list[ArchivedEvent], start: int, stop: int, size: int) -> bytes:
    """The window as the server answers it: the archive read into the fold ``size`` entries at a time
    (the store's ``events_after``) while it wants them."""
    while fold.wants(stop):
        after = fold.after
        at = 0 if after is None else next(i for i, e in enumerate(entries) if e.position > after)
        fold.read(entries[at : at + size])
    return fold.window(start, stop)


def test_a_window_folds_and_reads_no_further_than_its_end() -> None:
    """The first window of a long game reads and folds its own steps (and the one after, which says
    whether an effect ended there, and an attack to its end), not the game; the next window goes on from
    there; the windows read so are the whole answer's."""
    events = simulate_series(3, "w1", "play-2026")[0]
    assert len(events) > 3 * SNAPSHOT
    entries = archived(events)
    fold = ReviewFold("w1", extent_of(entries), False, "en", None, {})
    assert fold.count == len(events) and not fold.entries  # the game's length, nothing read yet
    first = json.loads(answer(fold, entries, 0, SNAPSHOT, 16))
    assert fold._fold is not None and fold._fold.applied == SNAPSHOT + 1
    assert SNAPSHOT + 1 < len(fold.entries) < 2 * SNAPSHOT  # its steps, the next, an attack's rest: a range
    assert first["count"] == len(events) and first["last"] == events[-1]["seq"]
    answer(fold, entries, SNAPSHOT, 2 * SNAPSHOT, 16)
    assert fold._fold.applied == 2 * SNAPSHOT + 1 and len(fold.entries) < 3 * SNAPSHOT
    answer(fold, entries, 2 * SNAPSHOT, 10**6, 16)
    assert fold._fold is None and len(fold.frames) == fold.count  # every step kept: the fold let go
    assert fold.entries == entries
    whole = ReviewFold("w1", extent_of(entries), False, "en", None, {})
    assert json.loads(answer(whole, entries, 0, 10**6, len(entries)))["frames"] == [
        f
        for part in (
            first,
            *(json.loads(fold.window(s, s + SNAPSHOT)) for s in range(SNAPSHOT, fold.count, SNAPSHOT)),
        )
        for f in part["frames"]
    ]


async def test_the_public_windows_hold_no_hidden_card(served: Served) -> None:
    parent, _ = playoff_game()
    player = parent[0].get("players", ["ash"])[0] if parent[0].get("players") else "ash"
    at = parent[-1]["seq"]
    hidden = {"match": "g1", "seq": at + 1, "type": "drew", "player": player, "cards": [SECRET]}
    await served.post([*parent, hidden])
    judge = b"".join([await (await served.http.get(f"{served.url}/review/g1/meta?from=0&to=100000")).read()])
    assert SECRET.encode() in judge
    for part in await windows(served, "g1", SNAPSHOT, "&view=public"):
        assert SECRET not in str(part)


async def test_a_window_read_again_after_the_archive_changed_is_the_new_archive_s(served: Served) -> None:
    """A conflicting event archived after the head (it moves no head) changes the windows read after it:
    the fold kept for the archive before is not the one answered."""
    parent, _ = playoff_game()
    await served.post(parent)
    before = await windows(served, "g1", SNAPSHOT)
    reused = {**parent[5], "id": "resent-with-changes"}
    assert (await served.http.post(f"{served.url}/events", json=reused)).status == 400  # archived, refused
    whole = await served.get_json("/review/g1/meta")
    after = await windows(served, "g1", SNAPSHOT)
    assert [f for p in after for f in p["frames"]] == whole["frames"]
    assert log_of(after) == whole["log"]
    assert any(p.get("late_marks") for p in after)  # the conflict's finding, on the line of the seq reused
    assert log_of(before) != whole["log"]


async def test_a_long_game_s_first_window_reads_its_start_from_the_store(
    served: Served, redis_store: RedisStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The first window of a long game on the Redis store reads a range at the archive's start, never the
    whole archive (``events``); the windows read after it are the whole answer's, and its length is the
    game's."""
    events = long_game("f3", 40 * SNAPSHOT)
    await served.post(events)
    whole = await served.get_json("/review/f3/meta")
    read: list[int] = []
    events_after = redis_store.events_after

    async def counted(match: str, after: tuple[int, int] | None, count: int) -> list[ArchivedEvent]:
        got = await events_after(match, after, count)
        read.append(len(got))
        return got

    async def refused(match: str) -> list[ArchivedEvent]:
        raise AssertionError("the whole archive read for a window")

    monkeypatch.setattr(redis_store, "events_after", counted)
    monkeypatch.setattr(redis_store, "events", refused)
    first = await served.get_json("/review/f3/meta?from=0&to=256")
    assert first["count"] == len(events) and first["last"] == events[-1]["seq"]
    assert 256 < sum(read) < len(events) // 2
    parts = [first, *await windows(served, "f3", 4 * SNAPSHOT, start=256)]
    assert [f for p in parts for f in p["frames"]] == whole["frames"]
    assert log_of(parts) == whole["log"]
    assert sum(read) == len(events)  # each entry read once
