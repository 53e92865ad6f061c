"""Fuzzing the importers: any text gives events that validate and replay, or an InputError; never a crash."""

from __future__ import annotations

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from replay import replay_events
from replay.contract.validate import validate_event
from replay.engine.errors import InputError
from replay.sheet_format import ACTIONS
from replay.sources.common import ImportResult
from replay.sources.ptcgl import parse_ptcgl
from replay.sources.sheet import parse_sheet
from tests.paths import DATA as TEST_DATA

DATA = TEST_DATA / "ptcgl"
LOGS = sorted(p.name for p in DATA.glob("*.txt"))
EDITS = ["drop", "dup", "swap", "curly", "crlf", "junk"]
SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def check(res: ImportResult) -> None:
    for ev in res.events:
        validate_event(ev)
    games = replay_events(res.events)
    for g in games.values():
        g.record()


def attempt_ptcgl(text: str, partial: bool = True) -> None:
    try:
        res = parse_ptcgl(text, match="fz", filename="fuzz.txt", partial=partial)
    except InputError as exc:
        assert exc.file == "fuzz.txt"
        return
    check(res)


@SETTINGS
@given(st.text(max_size=400))
def test_any_text(text: str) -> None:
    attempt_ptcgl(text)


@SETTINGS
@given(
    st.sampled_from(LOGS),
    st.lists(st.tuples(st.sampled_from(EDITS), st.integers(0, 200)), max_size=6),
    st.booleans(),
)  # fmt: skip
def test_mutated_logs(name: str, edits: list[tuple[str, int]], partial: bool) -> None:
    lines = (DATA / name).read_text("utf-8-sig").splitlines()
    for op, at in edits:
        if not lines:
            break
        i = at % len(lines)
        if op == "drop":
            del lines[i]
        elif op == "dup":
            lines.insert(i, lines[i])
        elif op == "swap" and i + 1 < len(lines):
            lines[i], lines[i + 1] = lines[i + 1], lines[i]
        elif op == "curly":
            lines[i] = lines[i].replace("'", "\u2019")
        elif op == "crlf":
            lines[i] += "\r"
        elif op == "junk":
            lines.insert(i, "Ash's Pidgey used Gust on Ashley’s Pidgey for 10 damage.")
    attempt_ptcgl("\n".join(lines), partial)


@SETTINGS
@given(st.sampled_from([n for n in LOGS if not n.startswith(("lang_ja", "truncated", "other"))]))
def test_bom_crlf_and_apostrophes_do_not_change_the_events(name: str) -> None:
    text = (DATA / name).read_text("utf-8-sig").replace("\r\n", "\n")
    plain = parse_ptcgl(text, match="x").events
    dressed = parse_ptcgl("\ufeff" + text.replace("'", "\u2019").replace("\n", "\r\n"), match="x").events
    assert json.dumps(plain, sort_keys=True) == json.dumps(dressed, sort_keys=True)


_cell = st.one_of(
    st.none(), st.text(max_size=12), st.sampled_from(["Pidgey", "Dreepy", "active", "A:Pidgey"])
)
_row = st.fixed_dictionaries(
    {"action": st.sampled_from(sorted(ACTIONS))},
    optional={
        "turn": st.integers(0, 9),
        "player": st.sampled_from(["A", "B", "C", ""]),
        "target": _cell,
        "card": st.one_of(_cell, st.sampled_from(["burned", "hand", "warning", "Fire Energy", "Pidgeot"])),
        "amount": st.integers(-20, 400),
        "note": _cell,
        "confidence": st.floats(-1, 2, allow_nan=False),
        "scan": _cell,
        "ref": st.integers(0, 30),
    },
)
_setup = [
    {"action": "active", "player": "A", "card": "Pidgey"},
    {"action": "active", "player": "B", "card": "Dreepy"},
    {"action": "bench", "player": "B", "card": "Pidgey"},
]


@SETTINGS
@given(st.lists(_row, max_size=25), st.booleans())
def test_any_sheet(rows: list[dict[str, object]], with_setup: bool) -> None:
    doc = {
        "format": "prizecheck-sheet/1",
        "players": ["A", "B"],
        "rows": (_setup if with_setup else []) + rows,
    }
    try:
        res = parse_sheet(json.dumps(doc), match="fz", filename="fuzz.json")
    except InputError as exc:
        assert exc.file == "fuzz.json"
        return
    check(res)


@SETTINGS
@given(st.text(alphabet=st.sampled_from(list('#:,\n"ABab01 .-xturnplayeractionPidgey')), max_size=300))
def test_any_csv_like_text(text: str) -> None:
    head = "# players: A, B\nturn,player,action,target,card,amount,note,confidence,scan,ref\n"
    for doc in (text, head + text):
        try:
            res = parse_sheet(doc, match="fz", filename="fuzz.csv")
        except InputError as exc:
            assert exc.file == "fuzz.csv"
            continue
        check(res)
