"""``prizecheck import`` keeps every file's result to the end (``--strict`` writes nothing if one fails), so
the batch freezes what is alive after each file (``gc.freeze``): the collector's passes no longer walk the
kept events again and again (issue 40 item 2, 14 % of a 200-log batch's CPU). That is sound only if a
log's import leaves no garbage cycles to be frozen with them: pinned here for every log under tests/data
(a sheet's import leaves one, so a batch of sheets is not frozen)."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from pathlib import Path

import pytest

from replay.cli import main
from replay.engine import InputError
from replay.sources.intake import import_file
from tests.paths import DATA

LOGS = sorted((DATA / "ptcgl").rglob("*.txt"))


@pytest.fixture
def no_collector() -> Iterator[None]:
    gc.collect()
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


@pytest.mark.parametrize("path", LOGS, ids=lambda p: p.name)
def test_a_log_s_import_leaves_no_garbage_cycles(path: Path, no_collector: None) -> None:
    def once() -> object:
        try:
            return import_file(str(path), path.read_bytes(), match="m", kind="ptcgl", partial=True)
        except InputError as exc:  # a log the importer refuses: its error must leave no cycles either
            return exc

    once()  # the first import of a language makes its classes and tables once, kept for the process
    gc.collect()
    res = once()
    assert gc.collect() == 0, f"{path.name}: garbage cycles after its import (they would be frozen)"
    del res


def test_a_batch_of_sheets_is_not_frozen(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    frozen: list[int] = []
    monkeypatch.setattr(gc, "freeze", lambda: frozen.append(1))
    sheet = str(DATA / "sheets" / "league_game.csv")
    assert main(["import", "sheet", sheet, sheet, "-o", str(tmp_path / "ev.jsonl"), "-q"]) == 0
    assert frozen == []


def test_a_batch_freezes_after_each_file_and_thaws_at_the_end(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    frozen: list[int] = []
    real = gc.freeze

    def counted() -> None:
        frozen.append(1)
        real()

    monkeypatch.setattr(gc, "freeze", counted)
    logs = [str(DATA / "ptcgl" / name) for name in ("deck_out.txt", "lang_de.txt", "prizes_numbered.txt")]
    out = tmp_path / "ev.jsonl"
    assert main(["import", "ptcgl", *logs, "-o", str(out), "-q"]) == 0
    assert len(frozen) == 3
    assert gc.get_freeze_count() == 0  # thawed: a caller in the same process is left as it was
    assert out.read_text("utf-8").count('"match_started"') == 3


def test_a_refused_file_thaws_too(tmp_path: Path) -> None:
    bad = tmp_path / "bad.txt"
    bad.write_text("not a battle log\n", "utf-8")
    logs = [str(DATA / "ptcgl" / "deck_out.txt"), str(bad)]
    assert main(["import", "ptcgl", *logs, "-o", str(tmp_path / "ev.jsonl"), "-q"]) == 2
    assert gc.get_freeze_count() == 0
