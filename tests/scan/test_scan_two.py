"""Two sheets in one phone photo (issue 39 item 1): each read as its own match from its own corner
markers, or the one that cannot be read refused, naming why; never one sheet read from the markers of
both, never a sheet read with another lying over its boxes.

The photos are the generator's (:func:`replay.generators.scan.photograph_together`): two filled sheets on
one table, each with its own tilt, perspective and distance, side by side, edge to edge, one upside down,
one above the other, or one lying over the other's corner.
"""

from __future__ import annotations

import json
import os
import random
from pathlib import Path

import numpy as np
import pytest

from replay.cli import main
from replay.engine.errors import InputError
from replay.generators.scan import (
    ARRANGEMENTS,
    PhotoSpec,
    Sample,
    fill,
    headers,
    photograph_together,
    random_game,
    score,
)
from replay.sources.scan.layout import Header, marker_rects
from replay.sources.scan.photo import SheetScan, import_scan
from tests.scan.helpers import marked, raster

FIRST = {
    "r1.who": {"A"},
    "r2.who": {"B"},
    "r2.ko.A": {"active"},
    "r2.prizes.B": {"1"},
    "r3.who": {"A"},
    "r4.who": {"B"},
    "r5.who": {"A"},
    "r5.ko.B": {"active"},
    "r5.prizes.A": {"2"},
}
# marks down to the sheet's last rows: a sheet lying over its corner hides some of them
FIRST |= {f"r{r}.who": {"B" if r % 2 == 0 else "A"} for r in range(6, 29)}
SECOND = {"r1.who": {"B"}, "r2.who": {"A"}, "r2.ko.B": {"active"}, "r2.prizes.A": {"1"}, "r3.who": {"B"}}
OTHER = Header(match="scan-test-2", players=("Kai", "Yuki"))


@pytest.fixture(scope="module")
def sheets() -> tuple[object, object]:
    return marked(FIRST), marked(SECOND, header=OTHER)


def chosen(res: SheetScan) -> dict[str, set[str]]:
    assert res.read is not None
    return {k: set(r.chosen) for k, r in res.read.reads.items() if r.chosen}


def by_match(results: list[SheetScan | InputError]) -> dict[str, SheetScan]:
    return {r.read.header.match: r for r in results if isinstance(r, SheetScan) and r.read is not None}


@pytest.mark.parametrize(
    ("arrangement", "seed"), [("apart", 1), ("touching", 2), ("turned", 3), ("stacked", 4)]
)
def test_two_whole_sheets_are_two_matches_each_read_exactly(
    sheets: tuple[object, object], arrangement: str, seed: int
) -> None:
    photo, placed = photograph_together(list(sheets), random.Random(seed), arrangement=arrangement)  # type: ignore[arg-type]
    assert not any(p.covered for p in placed)
    results = import_scan(photo, "table.jpg")
    assert all(isinstance(r, SheetScan) for r in results), results
    read = by_match(results)
    assert sorted(read) == ["scan-test-1", "scan-test-2"]
    assert chosen(read["scan-test-1"]) == FIRST and chosen(read["scan-test-2"]) == SECOND
    assert read["scan-test-1"].key != read["scan-test-2"].key
    assert {r.where for r in read.values()} == {
        f"table.jpg (sheet {n} of 2 in the photo, left to right)" for n in (1, 2)
    }


@pytest.mark.parametrize("seed", [0, 2])  # over the first's bottom right corner (0), its top right (2)
def test_a_sheet_lying_under_another_is_refused_naming_why_and_the_one_on_top_is_read(
    sheets: tuple[object, object], seed: int
) -> None:
    photo, placed = photograph_together(list(sheets), random.Random(seed), arrangement="overlap")  # type: ignore[arg-type]
    assert [p.covered for p in placed] == [True, False]
    results = import_scan(photo, "table.jpg")
    read = by_match(results)
    assert list(read) == ["scan-test-2"] and chosen(read["scan-test-2"]) == SECOND
    [refused] = [r for r in results if isinstance(r, InputError)]
    assert "lies partly under another one and is not read" in str(refused)
    assert "photograph each sheet on its own, none over another" in str(refused)


def test_the_command_writes_the_sheet_on_top_and_exits_2_naming_the_one_under_it(
    sheets: tuple[object, object], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    photo, _ = photograph_together(list(sheets), random.Random(0), arrangement="overlap")  # type: ignore[arg-type]
    (tmp_path / "table.jpg").write_bytes(photo)
    out = tmp_path / "ev.jsonl"
    code = main(
        ["import", "scan", str(tmp_path / "table.jpg"), "-o", str(out), "--crops", str(tmp_path / "c")]
    )
    assert code == 2
    events = [json.loads(line) for line in out.read_text("utf-8").splitlines()]
    assert {e["match"] for e in events} == {"scan-test-2"}
    err = capsys.readouterr().err
    assert "table.jpg (in the photo): a game sheet in this photo lies partly under another one" in err


def test_a_sheet_only_partly_found_where_the_photo_shows_paper_is_said_as_hidden_not_out_of_frame(
    sheets: tuple[object, object],
) -> None:
    # the second sheet's two right-hand markers inked over (a hand, a phone's shadow): it is in the frame
    first, second = sheets
    hidden = np.array(second)
    k = 200 / 25.4
    for r in (marker_rects()[1], marker_rects()[2]):
        x0, y0 = round((10 + r.x - 0.5) * k), round((21 + r.y - 0.5) * k)
        hidden[y0 : y0 + round((r.h + 1) * k), x0 : x0 + round((r.w + 1) * k)] = 40
    photo, _ = photograph_together([first, hidden], random.Random(1), arrangement="apart")  # type: ignore[list-item]
    results = import_scan(photo, "table.jpg")
    assert list(by_match(results)) == ["scan-test-1"]
    [refused] = [r for r in results if isinstance(r, InputError)]
    assert "another game sheet in this photo is not read: 2 of its 4 corner markers found" in str(refused)


SPEC = PhotoSpec(0.0, 0.0, 0.0, 0.0, 0, 0.0, 0.0)  # the photo's own figures are not the score's
SWEEP = int(os.environ.get("PRIZECHECK_SCAN_TWO", "0"))


@pytest.mark.skipif(not SWEEP, reason="make test-long sets PRIZECHECK_SCAN_TWO (photos an arrangement)")
@pytest.mark.parametrize("arrangement", ARRANGEMENTS)
def test_generated_games_two_to_a_photo_never_a_silent_misread(arrangement: str) -> None:
    # games played by the rules, filled by the generator's hand (ticks, crosses, fills, pens, pencil,
    # scribbled-out marks), two to a photo: each sheet read with every misread mark flagged, or, lying
    # under the other, refused; never a sheet left unsaid
    problems: list[str] = []
    read = refused = 0
    for seed in range(SWEEP):
        rng = random.Random(f"{arrangement}-{seed}")
        made = []
        for header in headers(2, 900 + seed, prefix=f"two-{arrangement}"):
            game = random_game(rng, header.ruleset)
            filled = fill(raster(header), 200, "a4", game.marks, rng, scribbles=0.03)
            made.append((header, game, filled))
        photo, placed = photograph_together([f.channels for _, _, f in made], rng, arrangement=arrangement)
        results = import_scan(photo, f"{arrangement}-{seed}.jpg")
        got = by_match(results)
        errors = [r for r in results if isinstance(r, InputError)]
        for (header, game, filled), where in zip(made, placed, strict=True):
            scan = got.get(header.match)
            if scan is None:
                refused += 1
                if not errors:
                    problems.append(f"{arrangement} {seed}: {header.match} neither read nor refused")
                elif not where.covered:
                    problems.append(f"{arrangement} {seed}: {header.match} refused: {errors}")
                continue
            read += 1
            if where.covered:
                problems.append(f"{arrangement} {seed}: {header.match} read while lying under the other")
            sample = Sample(header, game, photo, 200, "a4", SPEC, filled.scribbled, filled.pen)
            sc = score(sample, scan)
            if sc.silent:
                problems.append(f"{arrangement} {seed}: {header.match}: silent misreads {sc.silent}")
    print(f"{arrangement}: {SWEEP} photos, {read} sheets read, {refused} refused")
    assert not problems, "\n".join(problems)
