"""Replaying event files (replay/files.py): the same records as folding every event at once, streamed.

The reference is the fold as the command line did it before: all events of all files in memory, grouped by
match, each match's events sorted by seq (stable), applied, then every record settled from its playoff games.
"""

from __future__ import annotations

import pathlib
import random
import tracemalloc
from typing import Any

import pytest

import replay.codec as codec
from replay.codec import encode_jsonl, encode_msgpack
from replay.engine.errors import InputError
from replay.engine.game import Game
from replay.engine.playoff import link_records
from replay.engine.record import dumps
from replay.files import Replayed, fold_events, replay_files
from replay.generators.simulate import simulate_corpus
from tests.engine.games import child, drawn


def reference(events: list[dict[str, Any]], until: int | None = None) -> dict[str, bytes]:
    """Records as the command line made them before: everything in memory, sorted per match, linked."""
    by_match: dict[str, list[dict[str, Any]]] = {}
    for event in events:
        if until is None or event["seq"] <= until:
            by_match.setdefault(str(event["match"]), []).append(event)
    records = {}
    for match, evs in by_match.items():
        game = Game()
        for event in sorted(evs, key=lambda e: e["seq"]):
            game.apply(event)
        records[match] = game.record()
    return {m: dumps(r) for m, r in link_records(records).items()}


def write(tmp: pathlib.Path, name: str, events: list[dict[str, Any]]) -> str:
    path = tmp / name
    path.write_bytes(encode_msgpack(events) if name.endswith(".msgpack") else encode_jsonl(events))
    return str(path)


def replayed(paths: list[str], **kw: Any) -> list[Replayed]:
    return list(replay_files(paths, **kw))


def records(done: list[Replayed]) -> dict[str, bytes]:
    out = {r.match: dumps(r.record.to_json()) for r in done}
    assert len(out) == len(done), "a match came out twice"
    return out


def corpus(games: int, seed: int) -> list[list[dict[str, Any]]]:
    return [list(stream) for stream in simulate_corpus(games, seed)]


def family() -> list[list[dict[str, Any]]]:
    """A drawn jp-3.4 game and its tiebreak, which ash wins."""
    parent = drawn("jp-3.4")
    tb = child("jp-3.4", "g1/tb1", "g1", "tiebreak", 6)
    tb.turn("misty")
    tb.add("turn_ended", player="misty")
    tb.turn("ash")
    tb.attack("ash", "a1", ("m1", 30), claims=("m1",))
    return [parent.events, tb.events]


@pytest.mark.parametrize("suffix", [".msgpack", ".jsonl"])
def test_games_one_after_the_other(tmp_path: pathlib.Path, suffix: str) -> None:
    streams = corpus(12, 4)
    events = [e for s in streams for e in s]
    done = replayed([write(tmp_path, "g" + suffix, events)])
    assert records(done) == reference(events)
    assert [r.match for r in done] == [s[0]["match"] for s in streams]  # each as soon as it is done


@pytest.mark.parametrize("suffix", [".msgpack", ".jsonl"])
def test_interleaved_shuffled_and_repeated_events(
    tmp_path: pathlib.Path, suffix: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(codec, "CHUNK_EVENTS", 64)
    monkeypatch.setattr(codec, "CHUNK_BYTES", 5000)
    streams = corpus(10, 8)
    rng = random.Random(8)
    # games interleaved as at a tournament, in order within each game
    queues = [list(s) for s in streams]
    events: list[dict[str, Any]] = []
    while any(queues):
        events.append(rng.choice([q for q in queues if q]).pop(0))
    # one game with late and repeated events, one with a different event reusing a seq
    late = [e for e in events if e["match"] == streams[3][0]["match"]]
    events.remove(late[5])
    events.append(late[5])
    events.insert(events.index(late[9]) + 1, dict(late[9]))
    other = [e for e in events if e["match"] == streams[6][0]["match"]]
    events.insert(events.index(other[12]) + 3, {**other[12], "x_note": "rewritten"})
    done = replayed([write(tmp_path, "g" + suffix, events)])
    assert records(done) == reference(events)


@pytest.mark.parametrize("order", ["parent first", "child first"])
def test_a_parent_waits_for_its_playoff_game_in_another_file(tmp_path: pathlib.Path, order: str) -> None:
    parent, tb = family()
    filler = [e for s in corpus(3, 2) for e in s]
    files = [
        write(tmp_path, "p.jsonl", parent + filler[:300]),
        write(tmp_path, "c.msgpack", tb + filler[300:]),
    ]
    if order == "child first":
        files.reverse()
    done = replayed(files)
    recs = records(done)
    assert recs == reference(parent + tb + filler)
    g1 = next(r for r in done if r.match == "g1")
    assert g1.record.result is not None
    assert (g1.record.result.reason, g1.record.result.winner) == ("playoff", "ash")
    names = [r.match for r in done]
    assert abs(names.index("g1") - names.index("g1/tb1")) == 1  # out together, once both were done


def test_a_parent_whose_playoff_game_is_not_in_the_input_still_comes_out(tmp_path: pathlib.Path) -> None:
    parent, _ = family()
    (done,) = replayed([write(tmp_path, "p.msgpack", parent)])
    assert dumps(done.record.to_json()) == reference(parent)["g1"]
    assert done.record.status == "awaiting_playoff"


def test_until_leaves_out_the_later_events(tmp_path: pathlib.Path) -> None:
    events = [e for s in corpus(4, 6) for e in s]
    done = replayed([write(tmp_path, "g.msgpack", events)], until=40)
    assert records(done) == reference(events, until=40)
    assert all(r.game.next_seq == 41 for r in done)


def test_a_match_spread_over_files(tmp_path: pathlib.Path) -> None:
    (stream,) = corpus(1, 3)
    half = len(stream) // 2
    done = replayed([write(tmp_path, "a.jsonl", stream[half:]), write(tmp_path, "b.msgpack", stream[:half])])
    assert records(done) == reference(stream)


def test_each_record_comes_out_before_the_next_game_is_folded(
    tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Streaming: a game's record is yielded once its last event is folded, not at the end of the input."""
    monkeypatch.setattr(codec, "CHUNK_EVENTS", 16)
    streams = corpus(5, 11)
    path = write(tmp_path, "g.msgpack", [e for s in streams for e in s])

    class Count:
        events = 0

        def checking(self, total: int) -> None: ...
        def checked(self, size: int) -> None: ...
        def folding(self, total: int) -> None: ...

        def folded(self, events: int, games: int) -> None:
            self.events += events

    count = Count()
    ends = {s[0]["match"]: sum(len(x) for x in streams[: i + 1]) for i, s in enumerate(streams)}
    out = 0
    for done in replay_files([path], progress=count):
        # done when its last event is folded, or the last of its playoff family's (a drawn game and its
        # tiebreak in this corpus): out within the chunk (16 events) that holds that event
        family = [done.match, done.record.parent, *done.record.children]
        end = max(ends[m] for m in family if m in ends)
        assert count.events <= end < count.events + 16 + 16, (done.match, count.events, end)
        out += 1
    assert out == len(streams)


def test_memory_holds_the_games_in_progress_not_the_file(
    tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(codec, "CHUNK_EVENTS", 64)  # the same chunk size for both files

    def peak(games: int) -> tuple[int, int]:
        path = write(tmp_path, f"g{games}.msgpack", [e for s in corpus(games, 5) for e in s])
        tracemalloc.start()
        try:
            for _ in replay_files([path]):
                pass
            return tracemalloc.get_traced_memory()[1], pathlib.Path(path).stat().st_size
        finally:
            tracemalloc.stop()

    # Caches filled on first use (compiled schemas, interned strings, the match ids already checked) would
    # count in whichever run comes first, and how full an earlier test in this process left them varies
    # under xdist: warm them first with every game both runs read. Warming with the small file only left the
    # large run's 50 new match ids to grow the id cache, and a set that crosses a resize threshold then
    # (about 1,200 ids from earlier tests) holds its old and new tables at once: +130 KB, a failed CI run.
    peak(60)
    (small, small_bytes), (large, large_bytes) = peak(10), peak(60)
    # Six times the games, not six times the memory. What grows with the file is bookkeeping (the check's
    # index of its chunks for the second pass, the runs): about a sixth of the file's own bytes, where
    # holding its events as Python objects would take several times them.
    assert (large - small) < 0.25 * (large_bytes - small_bytes), (small, large, small_bytes, large_bytes)


def test_inputs_without_events_are_refused_before_anything_is_folded(tmp_path: pathlib.Path) -> None:
    good = write(tmp_path, "g.jsonl", corpus(1, 1)[0])
    empty = tmp_path / "empty.jsonl"
    empty.write_bytes(b"")
    blank = tmp_path / "blank.msgpack"
    blank.write_bytes(b"")
    spaces = tmp_path / "spaces.jsonl"
    spaces.write_bytes(b"\n  \n")
    for path, message in [
        (empty, "empty.jsonl: is empty: no events"),
        (blank, "blank.msgpack: is empty: no events"),
        (spaces, "spaces.jsonl: is empty: no events"),
    ]:
        with pytest.raises(InputError) as info:
            replayed([good, str(path)])
        assert str(info.value) == str(tmp_path / message)
    with pytest.raises(InputError, match="no event files"):
        replayed([])


def test_bad_input_anywhere_stops_before_the_first_record(tmp_path: pathlib.Path) -> None:
    streams = corpus(3, 7)
    events = [e for s in streams for e in s]
    events[-1] = {**events[-1], "seq": -1}
    it = replay_files([write(tmp_path, "g.msgpack", events)])
    with pytest.raises(InputError, match=f"g.msgpack:{len(events)}: .*field seq"):
        next(it)


def test_an_event_the_engine_cannot_encode_is_named_not_a_traceback(tmp_path: pathlib.Path) -> None:
    """A lone surrogate in a field the contract leaves open (json.loads takes it) has no UTF-8 for the hash
    chain: the edge refuses it (replay.contract.shape.edge_event), naming the line and the field."""
    (stream,) = corpus(1, 2)
    path = tmp_path / "g.jsonl"
    lines = encode_jsonl(stream).splitlines()
    lines[4] = lines[4][:-1] + b', "x_text": "\\ud800"}'
    path.write_bytes(b"\n".join(lines) + b"\n")
    # refused at the edge now (issue 18 item 4), naming the field, before the engine could fail on it
    with pytest.raises(InputError, match=r"g.jsonl:5: .*field x_text: must be Unicode text"):
        replayed([str(path)])


def test_fold_events_is_the_same_fold() -> None:
    streams = corpus(4, 9)
    events = [e for s in streams for e in s]
    random.Random(2).shuffle(events)
    games = fold_events(events)
    assert list(games) == list(dict.fromkeys(str(e["match"]) for e in events))
    linked = link_records({m: g.record() for m, g in games.items()})
    assert {m: dumps(r) for m, r in linked.items()} == reference(events)
