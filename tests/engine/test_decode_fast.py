"""The fast path straight from bytes (``replay.contract.validate.event_decoders``) and its C timestamp check.

``prizecheck replay`` decodes a file's events into the fast path's Structs without a dict per event, and
checks their timestamps in one C call per chunk. Sound means: whatever the decoders accept (and
``accepts`` confirms), ``validate_event`` accepts too, for the same bytes decoded as a dict the way every
event used to be (msgpack, or ``json.loads`` with integral floats as ints).
"""

from __future__ import annotations

import datetime
import json
import re
from typing import Any

import msgpack
import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import replay.contract.validate as V
from replay.codec import _number
from replay.engine.errors import EventError
from replay.generators.simulate import simulate_corpus
from tests.engine.test_validate_fast import BAD_TIMES, BASES, GOOD_TIMES, mutate, stamp
from tests.sampling import examples

needs_c = pytest.mark.skipif(V._C_TIMESTAMPS is None, reason="replay/engine/_link.c is not built")
P1 = V._REGEX[V._EVENTS_SCHEMA["$defs"]["timestamp"]["pattern"]]
P2 = V._REGEX["date-time_re_pattern"]


def schema_timestamp(value: str) -> bool:
    """The two checks fastjsonschema makes of an event's ``at``: the pattern, then the format."""
    return bool(P1.search(value)) and bool(P2.match(value))


def c_timestamp(value: str) -> bool:
    assert V._C_TIMESTAMPS is not None
    return V._C_TIMESTAMPS([value]) < 0


# ------------------------------------------------------------------------------------ timestamps in C


@needs_c
def test_timestamps_in_c_are_the_schemas() -> None:
    for value in BAD_TIMES + GOOD_TIMES:
        assert c_timestamp(value) == schema_timestamp(value), value
    for year in (0, 1, 4, 100, 400, 1900, 2000, 2023, 2024, 2100, 9996, 9999):
        for month in range(14):
            for day in range(33):
                value = f"{year:04d}-{month:02d}-{day:02d}T00:00:00Z"
                assert c_timestamp(value) == schema_timestamp(value), value
    for a in range(62):
        for b in (0, 9, 23, 24, 59, 60, 61):
            for value in (f"2026-01-01T{b:02d}:{a:02d}:{a:02d}Z", f"2026-01-01T00:00:00-{b:02d}:{a:02d}"):
                assert c_timestamp(value) == schema_timestamp(value), value


TIME_CHARS = "0123456789-:TtZz+.,\u0662\u00e9 \n"


@needs_c
@settings(max_examples=examples(1500), deadline=None)
@given(
    st.sampled_from([*GOOD_TIMES, "2026-03-14T10:05:00Z", "2000-02-29T00:00:00.5-00:00"]),
    st.lists(st.tuples(st.integers(0, 40), st.sampled_from(TIME_CHARS), st.integers(0, 2)), max_size=3),
)
def test_timestamps_in_c_agree_on_damaged_ones(base: str, edits: list[tuple[int, str, int]]) -> None:
    value = list(base)
    for at, char, op in edits:
        at = min(at, len(value))
        if op == 0 and at < len(value):
            value[at] = char
        elif op == 1:
            value.insert(at, char)
        elif at < len(value):
            del value[at]
    text = "".join(value)
    assert c_timestamp(text) == schema_timestamp(text), text


@needs_c
def test_timestamps_check_takes_only_exact_strings() -> None:
    assert V._C_TIMESTAMPS is not None
    assert V._C_TIMESTAMPS([]) == -1
    assert V._C_TIMESTAMPS([None, "2026-03-14T10:05:00Z", None]) == -1
    assert V._C_TIMESTAMPS(["2026-03-14T10:05:00Z", 5]) == 1
    assert V._C_TIMESTAMPS([b"2026-03-14T10:05:00Z"]) == 0

    class Lying(str):
        pass

    assert V._C_TIMESTAMPS([Lying("2026-03-14T10:05:00Z")]) == 0


# ------------------------------------------------------------------------------- decoders: soundness


def decoded(event: Any) -> tuple[Any, Any]:
    """The event as MessagePack and as JSON, each read by the typed decoder (None where it refuses)."""
    dec = V.event_decoders()
    out: list[Any] = []
    for encode, decode in ((msgpack.packb, dec.msgpack.decode), (_json, dec.json.decode)):
        try:
            raw = encode(event)
        except (TypeError, ValueError, OverflowError):
            out.append(None)
            continue
        try:
            item = decode(raw)
        except (msgspec.ValidationError, msgspec.DecodeError):
            out.append(None)
            continue
        out.append((raw, item) if dec.accepts([item]) else None)
    return out[0], out[1]


def _json(event: Any) -> bytes:
    return json.dumps(event, allow_nan=False).encode("utf-8")


def accepted_as_dict(raw: bytes, as_json: bool) -> bool:
    """validate_event on the bytes decoded as a dict, the way every event used to be."""
    if as_json:
        value = json.loads(raw, parse_float=_number)
    else:
        value = msgpack.unpackb(raw, raw=False, strict_map_key=False)
    try:
        V.validate_event(value)
    except EventError:
        return False
    return True


def check_sound(event: Any) -> None:
    as_msgpack, as_json = decoded(event)
    if as_msgpack is not None:
        assert accepted_as_dict(as_msgpack[0], False), f"msgpack decoder accepted an invalid event: {event!r}"
    if as_json is not None:
        assert accepted_as_dict(as_json[0], True), f"JSON decoder accepted an invalid event: {event!r}"


@settings(max_examples=examples(1000), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(BASES), st.data())
def test_fuzz_decoders_are_sound(event: dict[str, Any], data: st.DataObject) -> None:
    check_sound(mutate(event, lambda seq: data.draw(st.sampled_from(list(seq)))))


def test_single_mutations_are_sound() -> None:
    from tests.engine.test_validate_fast import single_mutations

    for event in single_mutations():
        check_sound(event)


def test_decoders_take_every_simulated_and_example_event() -> None:
    events = [e for stream in simulate_corpus(40, 5) for e in stream]
    base = datetime.datetime(2026, 3, 1, 23, 59, 0)
    events += [stamp(e, base) for e in events[:3000]] + BASES
    for event in events:
        as_msgpack, as_json = decoded(event)
        if "device" in (event.get("source") or {}):
            # an extra field goes the dict way, where the edge checks it (replay.contract.shape.edge_event)
            assert as_msgpack is None and as_json is None, event
            continue
        assert as_msgpack is not None and as_json is not None, event
        assert (as_msgpack[1].match, as_msgpack[1].seq) == (event["match"], event["seq"])


def test_what_the_decoders_refuse_is_decided_the_dict_way() -> None:
    (base,) = BASES[:1]
    for event, valid in [
        ({**base, "seq": 5.0}, True),  # an integer for the schema: msgspec refuses, the schema says yes
        ({**base, "match": "no spaces allowed"}, False),  # read as a str, refused by accepts
        ({**base, "at": "2026-02-29T10:00:00Z"}, False),  # not a leap year: refused by the C check
        ({**base, "type": "no_such_type"}, False),
        ({**base, "extra": {"deep": [1.0, {"x": 2.0}]}}, True),  # an extra field: the edge checks it
    ]:
        as_msgpack, as_json = decoded(event)
        assert as_msgpack is None and as_json is None, event
        for raw, as_text in ((msgpack.packb(event), False), (_json(event), True)):
            assert accepted_as_dict(raw, as_text) == valid, event


def test_a_duplicate_key_is_read_as_the_dict_reads_it() -> None:
    """msgpack and JSON allow a key twice; the last one counts, for the typed decoder as for a dict."""
    (base,) = BASES[:1]
    text = json.dumps(base)[:-1] + ', "seq": -1}'
    with pytest.raises(msgspec.ValidationError):
        V.event_decoders().json.decode(text.encode())
    assert not accepted_as_dict(text.encode(), True)
    raw = msgpack.packb(base)
    assert raw[0] & 0xF0 == 0x80  # a fixmap: add one more entry, seq again
    again = bytes([raw[0] + 1]) + raw[1:] + msgpack.packb("seq") + msgpack.packb(-1)
    with pytest.raises(msgspec.ValidationError):
        V.event_decoders().msgpack.decode(again)


def test_the_decoders_name_every_type_by_its_tag() -> None:
    names = {re.sub("^_Fast_", "", struct.__name__) for struct, _, _ in V._FAST.values()}
    assert names == set(V._FAST) == set(V.EVENT_TYPES)
