"""The edge's rules on one event (replay/codec.py ``edge_event``), the same for files, HTTP and Kafka:
regression tests for issue 10 items 1 and 6 on the command line and in the ingest core."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import msgpack
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from replay.codec import decode_events, loads_json, shallow_json
from replay.contract.admit import decode_event
from replay.contract.shape import MAX_DEPTH, edge_event
from replay.engine.chain import canonical_bytes
from replay.engine.errors import EventError, InputError
from streams.ingest import IngestCore
from streams.store import MemoryStore
from tests.paths import ROOT
from tests.sampling import examples
from tests.streams.ingest.support import game


def prizecheck(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "replay.cli", *args], cwd=ROOT, capture_output=True, text=True, timeout=120
    )


def nested(depth: int) -> Any:
    value: Any = "x"
    for _ in range(depth):
        value = {"a": value}
    return value


def test_a_seq_far_beyond_any_game_is_refused_by_replay(tmp_path: Path) -> None:
    # Old code: the engine recorded every missing seq one by one (MemoryError / the kernel's OOM killer).
    events = [game("m1")[0], {"match": "m1", "seq": 10**12, "type": "note", "text": "x"}]
    path = tmp_path / "two.jsonl"
    path.write_text("".join(json.dumps(e) + "\n" for e in events))
    done = prizecheck("replay", str(path))
    assert done.returncode == 2, done.stderr
    assert f"{path}:2" in done.stderr and "field seq" in done.stderr and "<= 100000" in done.stderr
    assert "Traceback" not in done.stderr


@pytest.mark.parametrize("command", ["replay", "verify"])
def test_json_nested_100000_deep_is_a_clear_error(tmp_path: Path, command: str) -> None:
    # Old code: RecursionError traceback in both commands.
    deep = '{"match":"m1","seq":1,"type":"note","text":' + "[" * 100_000 + "]" * 100_000 + "}\n"
    path = tmp_path / "deep.jsonl"
    path.write_text(deep)
    args = ["replay", str(path)] if command == "replay" else ["verify", str(path)]
    done = prizecheck(*args)
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr and "deep" in done.stderr and str(path) in done.stderr


def test_msgpack_with_integer_keys_is_a_clear_error(tmp_path: Path) -> None:
    # Old code: a TypeError traceback from the canonical encoder.
    event: dict[Any, Any] = {**game("m1")[0], 7: "x"}
    path = tmp_path / "keys.msgpack"
    path.write_bytes(msgpack.packb(event))
    done = prizecheck("replay", str(path))
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "map keys must be strings" in done.stderr and f"{path}:1" in done.stderr


def test_edge_event_rules() -> None:
    ok = {"match": "m1", "seq": 2.0, "type": "note", "text": "x", "extra": [{"n": 3.0, "f": 2.5}]}
    assert edge_event(ok) == {
        "match": "m1",
        "seq": 2,
        "type": "note",
        "text": "x",
        "extra": [{"n": 3, "f": 2.5}],
    }
    assert type(ok["seq"]) is int
    edge_event({"match": "m1", "seq": 1, "x": nested(MAX_DEPTH - 1)})
    with pytest.raises(EventError, match=f"deeper than {MAX_DEPTH}") as info:
        edge_event({"match": "m1", "seq": 1, "x": nested(MAX_DEPTH + 1)})
    assert info.value.match == "m1" and info.value.field is not None and info.value.field.startswith("x.a")
    with pytest.raises(EventError, match="map keys must be strings"):
        edge_event({"match": "m1", "seq": 1, "x": {1: 2}})
    with pytest.raises(EventError, match="must be an object"):
        edge_event([1])
    # deeper than the interpreter's stack: still a clear error, no RecursionError
    with pytest.raises(EventError, match="deeper"):
        edge_event({"x": nested(200_000)})


def test_files_and_messages_follow_the_same_rules() -> None:
    event = {**game("m1")[0], "x": nested(MAX_DEPTH + 5)}
    with pytest.raises(InputError, match="deeper"):
        list(decode_events(msgpack.packb(event), name="a.msgpack"))
    with pytest.raises(InputError, match="deeper"):  # canonical bytes too (prizecheck produce's)
        list(decode_events(canonical_bytes(event), name="a.msgpack"))
    floats = canonical_bytes({**game("m1")[0], "seq": 1.0})  # canonical, with a float: still made an int
    assert [type(e["seq"]) for _, e in decode_events(floats, name="a.msgpack")] == [int]
    with pytest.raises(InputError, match="deeper"):
        list(decode_events(json.dumps(event).encode(), name="a.jsonl"))
    with pytest.raises(EventError, match="deeper"):
        decode_event(msgpack.packb(event))
    with pytest.raises(EventError, match="deeper"):
        decode_event(b"\x91" * 100_000 + b"\x90")


async def test_a_float_seq_is_the_integer_it_equals_in_the_ingest_core() -> None:
    # Old code: seq 2.0 reached the store as "2.0" (a Redis stream id error, 503 after part of a batch).
    store = MemoryStore()
    core = IngestCore(store)
    events = game("m1")[:3]
    assert (await core.ingest(msgpack.packb(events[0]))).status == "applied"
    out = await core.ingest(msgpack.packb({**events[1], "seq": 2.0}))
    assert out.status == "applied" and out.seq == 2 and type(out.seq) is int
    assert await store.head("m1") == 2


_json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner, max_size=3),
    max_leaves=200,
)


@settings(max_examples=examples(300), deadline=None)
@given(st.dictionaries(st.text(max_size=3), _json_values, max_size=4))
def test_a_shallow_json_line_needs_no_walk(event: dict[str, Any]) -> None:
    """What the readers skip (shallow_json) is what the walk would accept unchanged."""
    text = json.dumps(event)
    if shallow_json(text):
        parsed = loads_json(text)
        walked = edge_event(copy.deepcopy(parsed))  # no error, and nothing to change
        assert walked == parsed and json.dumps(walked) == json.dumps(parsed)
