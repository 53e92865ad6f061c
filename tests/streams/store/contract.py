"""What the role suites of the store's contract share: events, appends and runs of a match, and index
entries of the match list (issue 36 item 6) in Japanese, Korean and English."""

from __future__ import annotations

import msgpack

from streams.store import Append, AppendRun, IndexEntry
from streams.store.base import TopFinding


def ev(match: str, seq: int, **extra: object) -> bytes:
    data: bytes = msgpack.packb({"match": match, "seq": seq, "type": "note", "text": "x", **extra})
    return data


def app(match: str, seq: int, prev: int, *, data: bytes | None = None, **kw: object) -> Append:
    return Append(
        match=match,
        seq=seq,
        event=data if data is not None else ev(match, seq),
        prev=prev,
        board=msgpack.packb({"seq": seq}),
        record=msgpack.packb({"match": match, "head": seq}),
        **kw,  # type: ignore[arg-type]
    )


def run_of(match: str, seqs: range, prev: int) -> AppendRun:
    return AppendRun(
        match=match,
        prev=prev,
        events=tuple((s, ev(match, s)) for s in seqs),
        board=msgpack.packb({"seq": seqs[-1]}),
        record=msgpack.packb({"match": match, "head": seqs[-1]}),
    )


CUP = IndexEntry(
    "cup/r3-t12",
    5,
    "finished",
    "JP",
    "2026",
    ("Ｓａｔｏｓｈｉ", "カスミ"),
    {"seq_gap": 1, "turn_order": 1},
    {"warning": 1, "violation": 1},
    event="チャンピオンズリーグ 横浜",
    round="3",
    table="12",
    date="2026-03-14",
    top=TopFinding("violation", "turn_order", 4, "the second player attacked on the first turn"),
)


SEOUL = IndexEntry(
    "kr/r1-t7",
    3,
    "in_progress",
    "KR",
    "2026",
    ("지우", "STRAẞE"),
    event="서울 리그",
    round="1",
    table="7",
)


OLD = IndexEntry("m3", 2, "finished", "EU", "2025", ("Misty", "Brock"), {"seq_gap": 2})


def names(page: object) -> list[str]:
    return [e.match for e in page.entries]  # type: ignore[attr-defined]
