"""The command line reads well (issue 19, "the demo and the CLI read well"): findings by severity with the
info notes counted, timelines that name cards, one JSON style, standings that explain their columns and
say when the top cut is not theirs; and the report's modules import each other in one direction only."""

from __future__ import annotations

import json
import os
import pathlib
import re
import subprocess
import sys

from replay.cli.common import json_line
from replay.cli.replay import summary
from replay.codec import encode_jsonl
from replay.records import from_mapping
from replay.report.build import check_top_cut
from replay.report.document import Ranked, Standing
from replay.series import SINGLE_ELIMINATION, SWISS, Pairing, swiss_standings
from tests.engine.games import full_game

PRIZECHECK = [sys.executable, "-m", "replay.cli"]


def run(*args: str) -> str:
    done = subprocess.run([*PRIZECHECK, *args], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout


def finding(severity: str, code: str, seq: int) -> dict[str, object]:
    return {"code": code, "severity": severity, "seq": seq, "message": f"{code} at {seq}"}


def test_a_summary_lists_findings_by_severity_and_counts_the_info_notes() -> None:
    record = full_game().record()
    notes = [finding("info", "card_count", n) for n in range(1, 141)] + [finding("info", "hp_unknown", 3)]
    record["findings"] = [
        *notes,
        finding("warning", "evolved_too_early", 7),
        finding("violation", "turn_order", 9),
    ]
    lines = summary(from_mapping(record)).splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("  findings:"))
    assert lines[at : at + 4] == [
        "  findings: 143 (1 violation, 1 warning, 141 info)",
        "    [violation] seq 9 turn_order: turn_order at 9",  # the violations first, then the warnings
        "    [warning] seq 7 evolved_too_early: evolved_too_early at 7",
        "    [info] 141 note(s): card_count 140, hp_unknown 1 (each with --json)",  # counted, not listed
    ]
    assert not any("card_count at" in line for line in lines)


def test_the_summary_of_replay_is_in_the_environments_language(tmp_path: pathlib.Path) -> None:
    """``LANG=ja_JP.UTF-8 prizecheck replay``: the summary's own words in Japanese (README, "Languages");
    ids, codes and numbers as the record has them; ``--json`` the same bytes in any language."""
    path = tmp_path / "g.jsonl"
    path.write_bytes(encode_jsonl(full_game().events))

    def replay(lang: str, *args: str) -> str:
        env = {**os.environ, "LC_ALL": "", "LC_MESSAGES": "", "LANG": lang}
        done = subprocess.run(
            [*PRIZECHECK, "replay", *args, str(path)], capture_output=True, text=True, timeout=120, env=env
        )
        assert done.returncode == 0, done.stderr
        return done.stdout

    english, japanese, korean = replay("C"), replay("ja_JP.UTF-8"), replay("ko_KR.UTF-8")
    assert "  prizes: " in english and " wins by concession at seq " in english
    assert "  サイド: " in japanese and "の勝ち(concession、seq " in japanese and "prizes: " not in japanese
    assert "  프라이즈: " in korean and "체인: sha256 " in korean and "knockouts:" not in korean
    for said in (japanese, korean):  # every number of the English is there
        assert sorted(re.findall(r"\d+", said)) == sorted(re.findall(r"\d+", english))
    assert replay("ja_JP.UTF-8", "--json") == replay("C", "--json")
    # the board at --until: its words in the language, ids and names as the events write them
    board_en, board_ja = replay("C", "--until", "5"), replay("ja_JP.UTF-8", "--until", "5")
    assert "prizes left 6 (taken 0/6), deck " in board_en and "残りサイド 6(取った 0/6)、山札 " in board_ja
    assert "deck " not in board_ja and sorted(re.findall(r"\d+", board_ja)) == sorted(
        re.findall(r"\d+", board_en)
    )
    record = full_game().record()
    record["findings"] = [finding("info", "card_count", 1), finding("warning", "evolved_too_early", 7)]
    lines = summary(from_mapping(record), "ko").splitlines()
    assert "  지적 사항: 2(위반 0, 경고 1, 정보 1)" in lines
    assert "    [info] 정보 1건: card_count 1(각 항목은 --json으로 표시)" in lines


def test_a_timeline_names_the_cards(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "g.jsonl"
    path.write_bytes(encode_jsonl(full_game().events))
    kos = [line for line in run("replay", "--timeline", str(path)).splitlines() if " ko " in line]
    assert kos and all("pid=" in line for line in kos)
    assert "pid=Pikachu (a1)" in kos[0], kos  # the card's name, with its pid
    assert "pid=a1," not in kos[0]


def test_every_json_output_is_in_one_style(tmp_path: pathlib.Path) -> None:
    """Canonical JSON everywhere (a record's style): sorted keys, no spaces, UTF-8 as is."""
    path = tmp_path / "g.jsonl"
    path.write_bytes(encode_jsonl(full_game().events))
    outputs = {
        "replay --json": run("replay", "--json", str(path)),
        "replay --timeline --json": run("replay", "--timeline", "--json", str(path)),
        "replay --until --json": run("replay", "--until", "5", "--json", str(path)),
        "report --json": run("report", "--json", str(path)),
    }
    for what, text in outputs.items():
        for line in text.splitlines():
            assert line == json_line(json.loads(line)), what
    assert ", " not in outputs["replay --timeline --json"].splitlines()[0]


def _pairings(cut: list[tuple[str, str]]) -> list[Pairing]:
    swiss = [
        Pairing(1, ("a", "f"), {"a": "win", "f": "loss"}, SWISS),
        Pairing(1, ("b", "e"), {"b": "win", "e": "loss"}, SWISS),
        Pairing(1, ("c", "d"), {"c": "win", "d": "loss"}, SWISS),
        Pairing(2, ("a", "b"), {"a": "win", "b": "loss"}, SWISS),
        Pairing(2, ("c", "e"), {"c": "win", "e": "loss"}, SWISS),
        Pairing(2, ("d", "f"), {"d": "win", "f": "loss"}, SWISS),
    ]
    top = [Pairing(3, pair, {pair[0]: "win", pair[1]: "loss"}, SINGLE_ELIMINATION) for pair in cut]
    return swiss + top


def test_a_top_cut_that_is_not_the_standings_top_is_flagged() -> None:
    rows = swiss_standings([p for p in _pairings([]) if p.stage == SWISS])
    table = [Standing(division=None, top_cut=None, **row) for row in rows]
    top4 = [row.player for row in table[:4]]
    right = check_top_cut(table, _pairings([(top4[0], top4[3]), (top4[1], top4[2])]))
    assert right is not None and right.differs is False and right.why == []
    fifth = table[4].player
    wrong = check_top_cut(table, _pairings([(top4[0], top4[1]), (top4[2], fifth)]))
    assert wrong is not None and wrong.differs is True
    assert wrong.let_in == [Ranked(player=fifth, rank=5)]
    assert wrong.left_out == [Ranked(player=top4[3], rank=4)]
    assert [1, 2] in wrong.pairings and [3, 5] in wrong.pairings


def test_the_standings_explain_their_columns_and_the_flag(tmp_path: pathlib.Path) -> None:
    from replay.cli.simulate import write_league_tdf
    from replay.generators.league import LeagueSim
    from replay.report import Filters, ReportBuilder, read_tdf, render

    sim = LeagueSim("L", 8, 3, seed=4, top_cut=4)
    events = [e for stream in sim.streams() for e in stream]
    write_league_tdf(sim, str(tmp_path / "l.tdf"))
    from replay import replay_records

    report = (
        ReportBuilder(Filters())
        .add_all(map(from_mapping, replay_records(events).values()))
        .finish(read_tdf(str(tmp_path / "l.tdf")))
    )
    (event,) = report.sections[0].events  # type: ignore[index]
    check = event.top_cut_check
    assert check is not None and check.players == 4
    text = render(report, "text").decode()
    assert "cut: place in the top cut (1 champion, 2 finalist, 3 semifinalists" in text
    assert "OWP, OOWP: the opponents' and their opponents' match-win rate" in text
    assert ("TOP CUT DIFFERS" in text) == check.differs
    check.differs, check.why = True, ["x (Swiss #6) played in it"]
    check.let_in = [Ranked(player="x", rank=6)]
    again = render(report, "text").decode()
    assert "TOP CUT DIFFERS from these standings: the top 4 should play round" in again
    # the page words it from the check's fields, in the reader's language
    assert "x (Swiss #6) played in it" in render(report, "html").decode()
    assert "x(スイスドロー6位)が参加しました" in render(report, "html", lang="ja").decode()


def test_the_report_builder_and_reconciliation_import_in_one_direction() -> None:
    """Issue 21 item 5: replay/report/build.py imports reconcile.py, never the other way round (not even
    for types), so no import circle."""
    import grimp

    graph = grimp.build_graph("replay")
    assert (
        graph.find_shortest_chain(importer="replay.report.reconcile", imported="replay.report.build") is None
    )
    assert graph.direct_import_exists(importer="replay.report.build", imported="replay.report.reconcile")
