"""Reading event files (replay/codec.py): the chunked, typed reading gives what reading event by event gave.

The oracle below is the reader as it was before it read chunks into typed Structs: every event decoded as a
dict (msgpack, or json.loads with integral floats as ints) and checked by validate_event, in file order.
The reader must give the same events in the same order, or fail with the same message at the same place.
"""

from __future__ import annotations

import contextlib
import datetime
import json
from collections.abc import Iterator
from typing import Any

import msgpack
import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import replay.codec as codec
from replay.codec import (
    MAX_DEPTH,
    EventFile,
    _frames_python,
    _json_dicts,
    _number,
    _span_python,
    edge_event,
    encode_jsonl,
    encode_msgpack,
    json_error,
)
from replay.contract.validate import validate_event
from replay.engine.chain import canonical_bytes
from replay.engine.errors import InputError
from replay.generators.simulate import simulate_corpus
from tests.engine.test_validate_fast import BASES, mutate, stamp
from tests.sampling import examples

try:
    from replay.engine._link import frames as c_frames
    from replay.engine._link import span as c_span
except ImportError:  # a plain-Python install: the reader splits with msgpack
    c_frames = c_span = None
needs_c = pytest.mark.skipif(c_frames is None, reason="replay/engine/_link.c is not built")


# ---------------------------------------------------------------------------------------------- oracle


def oracle(data: bytes, name: str) -> list[dict[str, Any]] | str:
    """The events of a file read event by event, or the InputError's message."""
    try:
        return list(_oracle_events(data, name))
    except InputError as exc:
        return str(exc)


def _oracle_events(data: bytes, name: str) -> Iterator[dict[str, Any]]:
    # A file that opens with a UTF-16 byte-order mark is refused whole, before any line is read: its lines
    # would each be "not UTF-8 text" (a damaged line 1 of JSON Lines can be those two bytes).
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        raise InputError(
            "UTF-16 text: events are UTF-8 JSON Lines (convert it: iconv -f UTF-16 -t UTF-8)", file=name
        )
    if codec.sniff_msgpack(name, data):
        unpacker = msgpack.Unpacker(raw=False, strict_map_key=False)
        unpacker.feed(data)
        index = end = 0
        while True:
            try:
                item = unpacker.unpack()
            except msgpack.OutOfData:
                if end < len(data):
                    raise InputError(
                        f"truncated MessagePack after event {index} (byte {end})", file=name, line=index + 1
                    ) from None
                return
            except (msgpack.StackError, RecursionError):
                raise InputError(
                    f"not valid MessagePack at event {index + 1}: nested deeper than {MAX_DEPTH} levels",
                    file=name,
                    line=index + 1,
                ) from None
            except (ValueError, msgpack.UnpackException, TypeError) as exc:  # TypeError: a traceback before
                raise InputError(
                    f"not valid MessagePack at event {index + 1}: {exc}", file=name, line=index + 1
                ) from None
            index += 1
            end = unpacker.tell()
            if type(item) is dict:
                edge_event(item, file=name, line=index)  # the edge's rules, then the schema
            validate_event(item, file=name, line=index)
            yield item
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    for lineno, raw in enumerate(data.split(b"\n"), 1):
        raw = raw.strip()
        if not raw:
            continue
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            raise InputError(
                "not UTF-8 text (is this a MessagePack file? name it .msgpack)", file=name, line=lineno
            ) from None
        try:
            value = json.loads(text, parse_float=_number)
        except json.JSONDecodeError as exc:
            raise InputError(json_error(exc), file=name, line=lineno) from None
        except RecursionError:  # a traceback before; the reader now says so
            raise InputError(f"nested deeper than {MAX_DEPTH} levels", file=name, line=lineno) from None
        for item in value if isinstance(value, list) else [value]:
            if type(item) is dict:
                edge_event(item, file=name, line=lineno)  # the edge's rules, then the schema
            validate_event(item, file=name, line=lineno)
            yield item


def read(data: bytes, name: str) -> list[dict[str, Any]] | str:
    """The events of a file as the two passes give them (MessagePack as the engine decodes it), or the
    InputError's message. Also checks that the first pass saw each event's match and seq."""
    decode = msgspec.msgpack.Decoder(dict[str, Any]).decode
    try:
        source = EventFile(name, data)
        seen = [
            (m, q) for checked in source.check() for m, q in zip(checked.matches, checked.seqs, strict=True)
        ]
    except InputError as exc:
        return str(exc)
    events = [decode(e) if raw else e for chunk, raw in source.events() for e in chunk]
    assert seen == [(e["match"], e["seq"]) for e in events]
    numbered = [e for _, e in source.numbered()]
    assert [canonical_bytes(e) for e in numbered] == [canonical_bytes(e) for e in events]
    return events


def same(data: bytes, name: str) -> None:
    expected, got = oracle(data, name), read(data, name)
    if isinstance(expected, str) or isinstance(got, str):
        assert got == expected
    else:
        # canonical bytes: what the chain hashes; tells 1 from 1.0 and keeps key order out of it
        assert [canonical_bytes(e) for e in got] == [canonical_bytes(e) for e in expected]


# --------------------------------------------------------------------------------------- the corpora


def corpus(games: int = 6, seed: int = 3, stamped: bool = True) -> list[dict[str, Any]]:
    events = [e for stream in simulate_corpus(games, seed) for e in stream]
    if stamped:
        base = datetime.datetime(2026, 3, 1, 9, 0, 0)
        events = [stamp(e, base) for e in events]
    return events


@pytest.mark.parametrize("name", ["g.msgpack", "g.jsonl", "-"])
def test_a_simulated_corpus_reads_as_it_did(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    events = corpus()
    data = encode_msgpack(events) if name != "g.jsonl" else encode_jsonl(events)
    monkeypatch.setattr(codec, "CHUNK_EVENTS", 50)  # several chunks, each read the fast way
    monkeypatch.setattr(codec, "CHUNK_BYTES", 4000)
    same(data, name)
    source = EventFile(name, data)
    list(source.check())
    assert len(source._chunks) > 5 and all(chunk.typed for chunk in source._chunks)


NASTY_LINES = [
    b"",
    b"   ",
    b"\r",
    b"\x0b",
    b"[]",
    b"{}",
    b"null",
    b"5",
    b'"x"',
    b"{not json",
    b"\xff\xfe",
    b'{"seq": NaN}',
    b"[" * 5000,
]


def test_a_damaged_first_line_that_is_a_utf16_mark_refuses_the_file_as_utf16() -> None:
    # Found by the property test below (2026-12-07): two bytes FF FE as line 1 of JSON Lines.
    lines = b"\n".join(json.dumps(e).encode() for e in corpus(1)) + b"\n"
    for mark in (b"\xff\xfe", b"\xfe\xff"):
        same(mark + b"\n" + lines, "f.jsonl")
        assert "UTF-16 text" in str(read(mark + b"\n" + lines, "f.jsonl"))


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_damaged_json_lines_read_as_they_did(data: st.DataObject) -> None:
    events = corpus(2, data.draw(st.integers(1, 50)), stamped=data.draw(st.booleans()))
    lines = [json.dumps(e).encode() for e in events]
    for _ in range(data.draw(st.integers(0, 3))):
        at = data.draw(st.integers(0, len(lines)))
        kind = data.draw(st.sampled_from(["event", "nasty", "list", "float", "crlf"]))
        if kind == "event":
            base = data.draw(st.sampled_from(BASES))
            event = mutate(base, lambda seq: data.draw(st.sampled_from(list(seq))))
            with contextlib.suppress(TypeError, ValueError):  # JSON cannot hold it (bytes, 5000 digits)
                lines.insert(at, json.dumps(event).encode())
        elif kind == "nasty":
            lines.insert(at, data.draw(st.sampled_from(NASTY_LINES)))
        elif kind == "list" and at < len(lines):
            lines[at] = b"[" + lines[at] + b"," + lines[at] + b"]"
        elif kind == "float" and at < len(lines) and lines[at].startswith(b'{"'):
            event = json.loads(lines[at])
            if type(event.get("seq")) is int:
                lines[at] = json.dumps({**event, "seq": float(event["seq"]), "x_big": 10**30}).encode()
        elif kind == "crlf" and at < len(lines):
            lines[at] += b"\r"
    text = (b"\xef\xbb\xbf" if data.draw(st.booleans()) else b"") + b"\n".join(lines) + b"\n"
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(codec, "CHUNK_BYTES", data.draw(st.sampled_from([200, 3000, 1 << 19])))
        same(text, "f.jsonl")


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_damaged_msgpack_reads_as_it_did(data: st.DataObject) -> None:
    events: list[Any] = corpus(2, data.draw(st.integers(1, 50)), stamped=data.draw(st.booleans()))
    for _ in range(data.draw(st.integers(0, 3))):
        at = data.draw(st.integers(0, len(events)))
        kind = data.draw(st.sampled_from(["event", "value", "float"]))
        if kind == "event":
            base = data.draw(st.sampled_from(BASES))
            events.insert(at, mutate(base, lambda seq: data.draw(st.sampled_from(list(seq)))))
        elif kind == "value":
            events.insert(at, data.draw(st.sampled_from([None, 5, "x", [], [events[0]], b"\x00"])))
        elif at < len(events) and isinstance(events[at], dict) and type(events[at].get("seq")) is int:
            events[at] = {**events[at], "seq": float(events[at]["seq"]), "x_ratio": 0.5}
    raw = b"".join(map(_packed, events))
    cut = data.draw(st.sampled_from([None, None, "tail", "junk", "c1"]))
    if cut == "tail":
        raw = raw[: data.draw(st.integers(0, len(raw)))]
    elif cut == "junk":
        raw += data.draw(
            st.sampled_from([b"\xc1", b"\x92\x01", b"\xdb\xff\xff\xff\xff", b"\xdf\x00\x00\x10\x00"])
        )
    elif cut == "c1":
        at = data.draw(st.integers(0, len(raw)))
        raw = raw[:at] + b"\xc1" + raw[at:]
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(codec, "CHUNK_EVENTS", data.draw(st.sampled_from([1, 7, 4096])))
        same(raw, "f.msgpack")


def _packed(value: Any) -> bytes:
    try:
        return bytes(msgpack.packb(value))
    except (OverflowError, TypeError, ValueError):  # a mutated event MessagePack cannot hold
        return b""


def test_errors_name_the_file_and_place() -> None:
    events = corpus(1)
    bad = [dict(e) for e in events]
    bad[30]["seq"] = 0
    assert read(encode_msgpack(bad), "g.msgpack") == oracle(encode_msgpack(bad), "g.msgpack")
    message = read(encode_msgpack(bad), "g.msgpack")
    assert isinstance(message, str) and message.startswith("g.msgpack:31: ") and "field seq" in message
    message = read(encode_jsonl(bad), "g.jsonl")
    assert isinstance(message, str) and message.startswith("g.jsonl:31: ") and "field seq" in message
    truncated = encode_msgpack(events)[:-3]
    assert read(truncated, "t.msgpack") == (
        f"t.msgpack:{len(events)}: truncated MessagePack after event {len(events) - 1} "
        f"(byte {len(encode_msgpack(events[:-1]))})"
    )


def test_empty_inputs_hold_no_events() -> None:
    for data, name in [
        (b"", "e.jsonl"),
        (b"\n \n\r\n", "e.jsonl"),
        (b"\xef\xbb\xbf", "e.jsonl"),
        (b"", "e.msgpack"),
    ]:
        assert read(data, name) == []


# ---------------------------------------------------------------------------- JSON numbers the fast way


@settings(max_examples=200, deadline=None)
@given(
    st.recursive(
        st.none()
        | st.booleans()
        | st.integers(min_value=-(2**80), max_value=2**80)
        | st.floats(allow_nan=False, allow_infinity=False)
        | st.text(),
        lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
        max_leaves=8,
    ),
    st.sampled_from(["{:.1f}", "{!r}", "{:e}", "{:.0f}.0"]),
)
def test_json_numbers_read_the_fast_way_as_json_loads_reads_them(value: Any, number: str) -> None:
    """The second pass decodes JSON Lines with msgspec: the same values, types included, as the old way."""
    base = {**BASES[0], "x_value": value}
    text = json.dumps(base)
    floats = [2.0, 3.5, 1e20, 2.0**53, 2.0**53 + 2, -0.0, 1e-7]
    text = text[:-1] + ", " + ", ".join(f'"x{i}": {number.format(f)}' for i, f in enumerate(floats)) + "}"
    expected = json.loads(text, parse_float=_number)
    (got,) = _json_dicts(text.encode())
    assert canonical_bytes(got) == canonical_bytes(expected)


# --------------------------------------------------------------------------------- MessagePack frames


msgpack_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**63), max_value=2**64 - 1)
    | st.floats(width=32)
    | st.text()
    | st.binary()
    | st.builds(msgpack.ExtType, st.integers(0, 127), st.binary()),
    lambda inner: st.lists(inner, max_size=20) | st.dictionaries(st.text(max_size=5), inner, max_size=20),
    max_leaves=40,
)


@needs_c
@settings(max_examples=150, deadline=None)
@given(st.lists(msgpack_values, max_size=6), st.booleans(), st.integers(0, 10**6))
def test_frames_split_a_stream_where_msgpack_does(values: list[Any], single_float: bool, cut: int) -> None:
    packer = msgpack.Packer(use_single_float=single_float)
    messages = [packer.pack(v) for v in values]
    data = b"".join(messages)
    assert c_frames is not None
    assert c_frames(data, 0, 10**6) == messages == _frames_python(data, 0, 10**6)
    assert c_span is not None and c_span(data, 0, 10**6) == (len(messages), len(data))
    assert c_frames(data, 0, 2) == messages[:2]
    if messages:
        assert c_frames(data, len(messages[0]), 10**6) == messages[1:]
    # a stream cut anywhere: the whole messages before the cut, nothing after
    cut %= len(data) + 1
    whole = [m for i, m in enumerate(messages) if sum(map(len, messages[: i + 1])) <= cut]
    assert c_frames(data[:cut], 0, 10**6) == whole == _frames_python(data[:cut], 0, 10**6)


@needs_c
@settings(max_examples=examples(1000), deadline=None)
@given(st.binary(max_size=64))
def test_frames_answer_any_bytes(data: bytes) -> None:
    """Untrusted input to C code: any bytes give whole messages msgpack reads, never a crash."""
    assert c_frames is not None and c_span is not None
    got = c_frames(data, 0, 100)
    assert b"".join(got) == data[: sum(map(len, got))]
    assert c_span(data, 0, 100) == _span_python(data, 0, 100)
    count, end = c_span(data, 0, 100)
    assert count <= len(got) and end == sum(map(len, got[:count]))  # span stops at bad UTF-8 too
    for frame in got:  # one whole object each
        unpacker = msgpack.Unpacker()
        unpacker.feed(frame)
        unpacker.skip()
        assert unpacker.tell() == len(frame)
    assert got == _frames_python(data, 0, 100)


@needs_c
def test_frames_refuse_bad_arguments() -> None:
    assert c_frames is not None
    with pytest.raises(ValueError):
        c_frames(b"\x01", 2, 1)
    with pytest.raises(ValueError):
        c_frames(b"\x01", -1, 1)
    assert c_frames(b"\x01\x02", 2, 5) == []
    assert c_frames(b"\x01\x02", 0, 0) == []
    # a header that claims more items than there are bytes stops the scan, whatever the nesting
    assert c_frames(b"\x01\xdd\xff\xff\xff\xff", 0, 5) == [b"\x01"]
    deep = b"\x91" * 100_000 + b"\xc0"
    assert c_frames(deep, 0, 1) == [deep]
    assert c_span is not None and c_span(deep, 0, 5) == (1, len(deep))


@needs_c
@pytest.mark.parametrize(
    "text",
    [b"\xff", b"\xc0\x80", b"\xed\xa0\x80", b"\xf4\x90\x80\x80", b"\xe2\x82", b"ok\xe9", b"\xf0\x9f\x98"],
)
def test_span_stops_at_a_string_that_is_not_utf8(text: bytes) -> None:
    """Strings the decoders would skip unread (fields the contract does not know): checked here."""
    assert c_frames is not None and c_span is not None
    good = msgpack.packb({"x_note": "é€😀"})
    bad = b"\x81" + msgpack.packb("x_note") + bytes([0xA0 + len(text)]) + text  # {"x_note": <broken>}
    data = good + bad + good
    assert c_span(data, 0, 10) == (1, len(good)) == _span_python(data, 0, 10)
    assert len(c_frames(data, 0, 10)) == 3  # frames only splits (the check pass has read them)
    with pytest.raises(UnicodeDecodeError):
        text.decode("utf-8")


def test_huge_files_are_mapped_not_read(tmp_path: Any) -> None:
    path = tmp_path / "g.msgpack"
    events = corpus(3, 9)
    path.write_bytes(encode_msgpack(events))
    source = codec.open_input(str(path))
    try:
        assert not isinstance(source.data, bytes)  # an mmap
        assert [e for _, e in source.numbered()] == [msgpack.unpackb(msgpack.packb(e)) for e in events]
    finally:
        source.close()
