"""The C check that MessagePack bytes are canonical already (``replay/engine/_link.c``, ``C_CANONICAL``).

When it says yes, the chain hashes the producer's bytes as they are instead of encoding the decoded event
again. A wrong yes would put different bytes into the chain than ``canonical_bytes`` gives, so records
would differ by how the event was sent: the properties below must hold for every input. A no is always
safe (the engine encodes), but the fast path must be taken for what ``canonical_bytes`` itself writes.
"""

from __future__ import annotations

import math
import struct
from collections.abc import Callable
from typing import Any

import msgpack
import msgspec
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from replay import Game
from replay.contract.admit import decode_event
from replay.contract.shape import edge_event
from replay.engine import chain
from replay.engine.errors import EventError
from replay.engine.record import dumps
from replay.generators.simulate import simulate_corpus
from tests.sampling import examples

CHECK = chain.C_CANONICAL
needs_c = pytest.mark.skipif(CHECK is None, reason="replay/engine/_link.c is not built (make compile)")
_decode = msgspec.msgpack.Decoder(dict[str, Any]).decode
_decode_any = msgspec.msgpack.decode


def canonical(raw: bytes) -> bool:
    assert CHECK is not None
    return CHECK(raw)


# Values an event can hold once decoded: JSON-like, plus bytes and the whole 64-bit integer ranges.
scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**63), max_value=2**64 - 1)
    | st.floats(allow_nan=True)
    | st.text(max_size=40)
    | st.binary(max_size=40)
)
# Keys near each other in sort order (prefixes, non-ASCII), so ordering mistakes show.
keys = st.text(alphabet="ab\u00e9\uffff\U0001f600_", max_size=4)
values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(keys, inner, max_size=6),
    max_leaves=25,
)
events = st.dictionaries(keys, values, min_size=1, max_size=8)


def _has_nan(value: Any) -> bool:
    if isinstance(value, float):
        return math.isnan(value)
    if isinstance(value, dict):
        return any(_has_nan(v) for v in value.values())
    if isinstance(value, list):
        return any(_has_nan(v) for v in value)
    return False


def _assert_sound(raw: bytes) -> None:
    """A yes must mean: raw decodes, and canonical_bytes of what it decodes to is raw itself."""
    if canonical(raw):
        assert chain.canonical_bytes(_decode(raw)) == raw


@needs_c
@settings(max_examples=examples(600), suppress_health_check=[HealthCheck.too_slow])
@given(events)
def test_what_canonical_bytes_writes_is_recognised(event: dict[str, Any]) -> None:
    raw = chain.canonical_bytes(event)
    # NaN is left to the encoder on purpose (its payload need not survive a round trip).
    assert canonical(raw) is (not _has_nan(event))
    _assert_sound(raw)


@needs_c
@settings(max_examples=examples(600), suppress_health_check=[HealthCheck.too_slow])
@given(events, st.sampled_from(["insertion", "single-float", "reversed"]))
def test_other_encodings_are_recognised_only_when_they_are_canonical(event: dict[str, Any], how: str) -> None:
    if how == "insertion":
        raw = msgpack.packb(event)
    elif how == "single-float":
        try:
            raw = msgpack.packb(event, use_single_float=True)
        except OverflowError:  # a float64 beyond float32's range
            assume(False)
    else:
        raw = msgpack.packb(dict(reversed(list(event.items()))))
    _assert_sound(raw)
    if how != "single-float" and not _has_nan(event):
        # keys already in order at every level: the same bytes as the canonical encoder
        assert canonical(raw) is (raw == chain.canonical_bytes(event))


@needs_c
@settings(max_examples=examples(1500), suppress_health_check=[HealthCheck.too_slow])
@given(events, st.data())
def test_damaged_bytes_never_pass_for_canonical_ones(event: dict[str, Any], data: st.DataObject) -> None:
    raw = bytearray(chain.canonical_bytes(event))
    for _ in range(data.draw(st.integers(1, 3))):
        i = data.draw(st.integers(0, len(raw) - 1))
        raw[i] = data.draw(st.integers(0, 255))
    try:
        _decode(bytes(raw))
    except (msgspec.DecodeError, msgspec.ValidationError):
        return  # not an event at all: the engine never gets here with it
    _assert_sound(bytes(raw))


@needs_c
@settings(max_examples=examples(2000), suppress_health_check=[HealthCheck.too_slow])
@given(st.binary(max_size=300))
def test_any_bytes_get_an_answer_and_a_yes_is_sound(raw: bytes) -> None:
    """Kafka values are untrusted input to C code: any bytes get an answer (libFuzzer with ASan/UBSan ran
    79M inputs through the same scanner without a finding), and a yes still means canonical."""
    try:
        _decode(raw)
    except (msgspec.DecodeError, msgspec.ValidationError):
        assert CHECK is not None
        CHECK(raw)  # no crash, whatever it answers: the engine never gets such bytes anyway
        return
    _assert_sound(raw)


def _uint(tag: int, fmt: str, value: int) -> bytes:
    return bytes([0x81, 0xA1, ord("v"), tag]) + struct.pack(">" + fmt, value)


@needs_c
@pytest.mark.parametrize(
    ("raw", "why"),
    [
        (_uint(0xCC, "B", 5), "uint8 for a fixint"),
        (_uint(0xCD, "H", 200), "uint16 for a uint8"),
        (_uint(0xCE, "I", 60000), "uint32 for a uint16"),
        (_uint(0xCF, "Q", 2**32 - 1), "uint64 for a uint32"),
        (_uint(0xD0, "b", 5), "int8 for a positive value"),
        (_uint(0xD0, "b", -32), "int8 for a negative fixint"),
        (_uint(0xD1, "h", -100), "int16 for an int8"),
        (_uint(0xD2, "i", -30000), "int32 for an int16"),
        (_uint(0xD3, "q", -(2**31)), "int64 for an int32"),
        (_uint(0xD3, "q", 7), "int64 for a positive value"),
        (_uint(0xCA, "f", 1.5), "float32"),  # type: ignore[arg-type]
        (bytes([0x81, 0xA1, ord("v"), 0xD9, 3]) + b"abc", "str8 for a fixstr"),
        (bytes([0x81, 0xA1, ord("v"), 0xDA, 0, 3]) + b"abc", "str16 for a fixstr"),
        (bytes([0x81, 0xA1, ord("v"), 0xC5, 0, 3]) + b"abc", "bin16 for a bin8"),
        (bytes([0x81, 0xA1, ord("v"), 0xDC, 0, 1, 1]), "array16 for a fixarray"),
        (bytes([0xDE, 0, 1, 0xA1, ord("v"), 1]), "map16 for a fixmap"),
        (bytes([0x81, 0xD9, 1, ord("v"), 1]), "a key in str8 for a fixstr"),
        (bytes([0x82, 0xA1, ord("b"), 1, 0xA1, ord("a"), 2]), "keys out of order"),
        (bytes([0x82, 0xA2, ord("a"), ord("b"), 1, 0xA1, ord("a"), 2]), "a longer key before its prefix"),
        (bytes([0x82, 0xA1, ord("a"), 1, 0xA1, ord("a"), 2]), "a repeated key"),
        (bytes([0x81, 0x01, 1]), "an integer key"),
        (bytes([0x81, 0xA1, ord("v"), 0xD4, 1, 0]), "an ext type"),
        (bytes([0x81, 0xA1, ord("v"), 0xD6, 0xFF, 0, 0, 0, 0]), "a timestamp"),
        (bytes([0x81, 0xA1, ord("v"), 1, 0xC0]), "trailing bytes"),
        (bytes([0x81, 0xA1, ord("v")]), "truncated"),
        (bytes([0x81, 0xA1, ord("v"), 0xCB]) + struct.pack(">d", math.nan), "NaN"),
        (b"", "empty"),
        ((b"\x81\xa1v" * 70) + b"\x01", "nested deeper than the check follows"),
    ],
)
def test_non_canonical_forms_are_refused(raw: bytes, why: str) -> None:
    assert not canonical(raw), why


@needs_c
@pytest.mark.parametrize(
    "value",
    [
        {"v": 5},
        {"v": 200, "w": -100, "x": 60000, "y": -30000, "z": 2**40},
        {"a": 1, "ab": 2, "b": 3, "\u00e9": 4, "\uffff": 5, "\U0001f600": 6},
        {"v": "x" * 40, "w": b"\x00" * 300, "x": list(range(20)), "y": {str(i): i for i in range(20)}},
        {"v": -0.0, "w": math.inf, "x": 1.5, "y": None, "z": [True, False]},
        {"v": 2**64 - 1, "w": -(2**63)},
    ],
)
def test_canonical_forms_are_taken_as_they_are(value: dict[str, Any]) -> None:
    raw = chain.canonical_bytes(value)
    assert canonical(raw)
    assert chain.canonical_of(raw, _decode(raw)) is raw


@settings(max_examples=examples(400), suppress_health_check=[HealthCheck.too_slow])
@given(events)
def test_the_worker_decodes_canonical_messages_as_msgpack_would(event: dict[str, Any]) -> None:
    """replay.contract.admit.decode_event reads canonical bytes with msgspec: the same values, types and all,
    after the edge's rules (replay.contract.shape.edge_event: an integral float is the int it equals)."""
    raw = chain.canonical_bytes(event)
    try:
        expected = edge_event(msgpack.unpackb(raw, raw=False, strict_map_key=False))
    except EventError:  # beyond the edge's bounds: the worker refuses it too
        with pytest.raises(EventError):
            decode_event(raw)
        return
    decoded = decode_event(raw)
    if not _has_nan(event):
        assert decoded == expected
    assert msgpack.packb(decoded) == msgpack.packb(expected)  # the same types (list, bytes, int, float)


def test_canonical_bytes_that_are_not_an_event_get_the_usual_errors() -> None:
    with pytest.raises(EventError, match="must be a msgpack map, got list"):
        decode_event(chain.canonical_bytes([1, 2]))  # type: ignore[arg-type]
    bad_utf8 = bytes([0x81, 0xA1, ord("v"), 0xA2, 0xC3, 0x28])  # canonical in form, not UTF-8
    if CHECK is not None:
        assert canonical(bad_utf8)
    with pytest.raises(EventError, match="not msgpack"):
        decode_event(bad_utf8)


def test_canonical_of_encodes_what_is_not_canonical() -> None:
    event = {"seq": 1, "match": "m", "type": "note"}
    raw = msgpack.packb(event)  # keys in insertion order: not sorted
    assert chain.canonical_of(raw, event) == chain.canonical_bytes(event) != raw


def _replayed(streams: list[list[dict[str, Any]]], pack: Callable[[dict[str, Any]], bytes]) -> list[Any]:
    out = []
    for stream in streams:
        game = Game()
        outputs = [game.apply_msgpack(pack(e)) for e in stream]
        out.append((dumps(game.record()), game.log.heads, game.log.raw, outputs))
    return out


def test_apply_msgpack_derives_what_apply_derives_however_the_keys_are_ordered() -> None:
    streams = list(simulate_corpus(40, 7))
    expected = []
    for stream in streams:
        game = Game()
        outputs = [game.apply(e) for e in stream]
        expected.append((dumps(game.record()), game.log.heads, game.log.raw, outputs))
    assert _replayed(streams, chain.canonical_bytes) == expected  # the fast path
    assert _replayed(streams, msgpack.packb) == expected  # keys as the simulator wrote them
    # a duplicate, sent again as canonical bytes, is still recognised as one (no finding)
    stream = streams[0]
    game = Game()
    for e in stream:
        game.apply(e)
    findings = len(game.findings)
    assert game.apply_msgpack(chain.canonical_bytes(stream[3])) == []
    assert len(game.findings) == findings
