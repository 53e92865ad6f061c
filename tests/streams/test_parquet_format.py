"""The cold archive's Parquet format (streams/store/parquet.py, docs/storage.md "The cold archive") reads
back what it writes: an events file gives each match its own entries, in order, bytes for bytes, checked
against the match's marker; a records file gives every record row back with its report columns."""

from __future__ import annotations

import tempfile
from typing import Any

import msgpack
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from streams.store.base import ArchivedEvent, EntryKind
from streams.store.parquet import (
    EVENT_COLUMNS,
    RECORD_COLUMNS,
    REPORT_COLUMNS,
    EventRow,
    Marker,
    RecordRow,
    read_events,
    read_records,
    report_summary,
    rows_digest,
    write_files,
)
from tests.sampling import examples

pq = pytest.importorskip("pyarrow.parquet")

MATCHES = ("m1", "league/g2", "é:3/tb1")
names = st.text(max_size=8)
KINDS: tuple[EntryKind, ...] = ("event", "conflict", "late")
HEAD = st.none() | st.text("0123456789abcdef", min_size=64, max_size=64)


@st.composite
def event_rows(draw: st.DrawFn) -> list[EventRow]:
    rows = []
    for match in draw(st.lists(st.sampled_from(MATCHES), max_size=12)):
        seq, sub = draw(st.integers(1, 2**40)), draw(st.integers(0, 2**20))
        data = msgpack.packb({"match": match, "seq": seq, "x": draw(st.binary(max_size=40))})
        kind = draw(st.sampled_from(KINDS))
        rows.append(EventRow(match, ArchivedEvent((seq, sub), data, kind), draw(HEAD)))
    return rows


summaries = st.fixed_dictionaries({c: st.none() | names | st.integers() for c in REPORT_COLUMNS})
record_rows = st.lists(
    st.builds(
        RecordRow,
        st.sampled_from(MATCHES),
        st.integers(0, 2**20),
        names,
        st.binary(max_size=60),
        HEAD,
        st.integers(0, 2**40),
        summaries,
    ),
    max_size=8,
)


@settings(max_examples=examples(200), deadline=None)
@given(event_rows(), record_rows, st.none() | names, st.none() | names)
def test_what_is_written_reads_back(
    events: list[EventRow], records: list[RecordRow], league: str | None, season: str | None
) -> None:
    with tempfile.TemporaryDirectory() as root:
        events_file, records_file = write_files(root, league, season, events, records)
        assert tuple(pq.read_schema(events_file).names) == EVENT_COLUMNS
        assert tuple(pq.read_schema(records_file).names) == RECORD_COLUMNS
        for match in MATCHES:
            mine = [r.entry for r in events if r.match == match]
            marker = Marker(events_file, len(mine), rows_digest(mine), None, "2026-12-06T00:00:00Z")
            assert read_events(marker, match) == (mine, None)
        as_written = [
            RecordRow(*(r.match, r.version, r.cause, r.record, r.chain, r.head), text_of(r.summary))
            for r in records
        ]
        assert read_records(records_file) == as_written


def text_of(summary: dict[str, Any]) -> dict[str, Any]:
    """A report column holds text (the report filters and groups by it): a value as ``str`` gives it."""
    return {c: None if summary[c] is None else str(summary[c]) for c in REPORT_COLUMNS}


def test_a_row_that_is_not_the_markers_is_a_problem_named_in_a_sentence() -> None:
    entry = ArchivedEvent((1, 0), msgpack.packb({"match": "m1", "seq": 1}), "event")
    with tempfile.TemporaryDirectory() as root:
        events_file, _ = write_files(root, None, None, [EventRow("m1", entry, None)], [])
        marker = Marker(events_file, 2, rows_digest([entry]), None, "2026-12-06T00:00:00Z")
        got, problem = read_events(marker, "m1")
        assert got == [entry] and problem is not None and "1 rows, 2 archived" in problem


def test_the_report_columns_are_the_records_status_result_start_event_and_round() -> None:
    record = {
        "status": "finished",
        "result": {"outcome": "win", "winner": "ash"},
        "started_at": "2026-03-14T10:00:00Z",
        "context": {"event": "Cup", "round": 3},
    }
    assert report_summary(record) == {
        "status": "finished",
        "outcome": "win",
        "winner": "ash",
        "started_at": "2026-03-14T10:00:00Z",
        "event": "Cup",
        "round": 3,
    }
    assert report_summary({}) == dict.fromkeys(REPORT_COLUMNS)
