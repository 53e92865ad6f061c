"""The report document is typed (replay/report/document.py) and its JSON is the report's, byte for byte.

A stored example pins the JSON form: the records of a simulated league event (``tests/data/report/
records.jsonl``, the engine's records as ``prizecheck replay --json`` prints them: the report's input, so
the example does not move when the simulator does), its tournament file (``league.tdf``) and a deck check,
folded into a report whose JSON must be ``report.json``. The stored JSON also decodes into the typed
document, strictly (no key the document does not name), and encodes back to the same bytes.

After a deliberate change of the report: ``python -m tests.report.test_report_document --write``.
"""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path

import msgspec
import pytest

from replay.records import from_json_line
from replay.report import ReportBuilder, read_tdf, render
from replay.report.document import Report
from tests.paths import ROOT

DATA = ROOT / "tests" / "data" / "report"
ENGINE = "prizecheck (engine version of the stored example)"
DECK_CHECK = {
    "seq": 7,
    "player": "ash",
    "card": "Pikachu",
    "code": "not_on_list",
    "message": "ash put Pikachu into play: it is not on their deck list",
    "listed": 0,
    "seen": 1,
}


def _report(monkeypatch: pytest.MonkeyPatch | None = None) -> Report:
    """The report of the stored records, with the tournament file and a deck check on the first game."""
    from replay.report import build

    if monkeypatch is not None:  # the engine's version is not the report's concern here
        monkeypatch.setattr(build, "ENGINE_VERSION", "(engine version of the stored example)")
    lines = (DATA / "records.jsonl").read_bytes().splitlines()
    records = [from_json_line(line, file="records.jsonl", line=n) for n, line in enumerate(lines, 1)]
    builder = ReportBuilder(base_url="http://prizecheck.test").add_all(records)
    builder.add_deck_checks(records[0], [{**DECK_CHECK, "match": records[0].match}])
    # the file as the report names it, wherever the checkout is
    tdf = dataclasses.replace(read_tdf(str(DATA / "league.tdf")), path="tests/data/report/league.tdf")
    return builder.finish(tdf)


def test_the_typed_reports_json_is_the_stored_example(monkeypatch: pytest.MonkeyPatch) -> None:
    stored = (DATA / "report.json").read_bytes()
    report = _report(monkeypatch)
    assert report.engine == ENGINE
    assert render(report, "json") == stored
    assert msgspec.json.encode(report, order="sorted") + b"\n" == stored


def test_the_stored_example_decodes_into_the_typed_document_and_back() -> None:
    stored = (DATA / "report.json").read_bytes()
    report = msgspec.json.decode(stored, type=Report)
    assert msgspec.json.encode(report, order="sorted") + b"\n" == stored
    # what the example holds, read as a reader of the document reads it: by attribute
    (sec,) = report.sections
    assert sec.deck_checks[0].card == "Pikachu" and sec.review
    (event,) = sec.events
    assert event.standings and event.top_cut and event.byes_from == "tdf"
    assert report.reconciliation is not None and report.reconciliation.reported > 0
    # a pending game has no winner or reason in the JSON; a decided one has both (null when drawn)
    games = [g for m in event.matches for g in m.games]
    assert all((g.winner is msgspec.UNSET) == (g.result is None) for g in games)


def test_a_key_the_document_does_not_name_is_refused() -> None:
    stored = msgspec.json.decode((DATA / "report.json").read_bytes())
    stored["sections"][0]["verification"]["extra"] = 1
    with pytest.raises(msgspec.ValidationError, match=r"extra.*\$\.sections\[0\]\.verification"):
        msgspec.json.decode(msgspec.json.encode(stored), type=Report)


def _write() -> None:
    """Store the example anew: the league's records and tournament file, and the report of them."""
    from replay.cli.simulate import write_league_tdf
    from replay.report import build
    from tests.report.league import league

    lg = league()
    DATA.mkdir(parents=True, exist_ok=True)
    (DATA / "records.jsonl").write_bytes(
        b"".join(msgspec.json.encode(r) + b"\n" for r in lg.records.values())
    )
    write_league_tdf(lg.sim, str(DATA / "league.tdf"))
    build.ENGINE_VERSION = "(engine version of the stored example)"
    (DATA / "report.json").write_bytes(render(_report(), "json"))


if __name__ == "__main__":
    if sys.argv[1:] != ["--write"]:
        sys.exit(__doc__)
    _write()
    print(f"wrote {Path(DATA).relative_to(ROOT)}/records.jsonl, league.tdf, report.json")
