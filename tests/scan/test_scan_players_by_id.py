"""``import scan --players-file`` with a match id a line (issue 39): ``ID,A,B`` (or ``ID,-`` for the names
printed on the sheet) names the sheet whose own id is ID, whatever the batch's order; every sheet read
needs its line and every line its sheet; a file of order lines and id lines together is refused naming
the file and the line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from replay.cli import main
from tests.scan.helpers import Header, marked, pdf_of, phone


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Three sheets in page order hand-1, hand-2 (its names printed: Ana, Ines), hand-3."""
    d = tmp_path_factory.mktemp("stack")
    one, three = (marked({"r1.who": {"A"}}, header=Header(match=f"hand-{n}")) for n in (1, 3))
    printed = marked({"r1.who": {"B"}}, header=Header(match="hand-2", players=("Ana", "Ines")))
    (d / "stack.pdf").write_bytes(pdf_of(one, printed, three))
    return d / "stack.pdf"


def _run(stack: Path, tmp_path: Path, names: str) -> tuple[int, list[tuple[object, object]], Path]:
    file = tmp_path / "names.txt"
    file.write_text(names, "utf-8")
    out = tmp_path / "ev.jsonl"
    crops = str(tmp_path / "c")
    code = main(
        ["import", "scan", str(stack), "--players-file", str(file), "--crops", crops, "--out", str(out)]
    )
    events = [json.loads(line) for line in out.read_text("utf-8").splitlines()] if out.exists() else []
    starts = [(e["match"], e["players"]) for e in events if e["type"] == "match_started"]
    return code, starts, file


def test_a_players_file_by_match_id_names_each_sheet_by_its_own_id_in_any_order(
    stack: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, starts, _ = _run(
        stack,
        tmp_path,
        "# the judge's stack, not the scanner's order\nhand-3, Mara, Teodor\nhand-2,-\n\nhand-1,Kai,Yuki\n",
    )
    assert code == 0, capsys.readouterr().err
    assert starts == [
        ("hand-1", ["Kai", "Yuki"]),
        ("hand-2", ["Ana", "Ines"]),
        ("hand-3", ["Mara", "Teodor"]),
    ]


def test_a_sheet_without_its_line_is_left_out_and_a_line_without_its_sheet_is_named(
    stack: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, starts, file = _run(stack, tmp_path, "hand-1,Kai,Yuki\nhand-2,-\nhand-4,Mara,Teodor\n")
    err = capsys.readouterr().err
    assert code == 2
    # the sheets the file names are written; hand-3 is not named by a guess, nor by letters
    assert starts == [("hand-1", ["Kai", "Yuki"]), ("hand-2", ["Ana", "Ines"])]
    assert (
        f"{stack} page 3: match hand-3 has no line in {file} (ID,A,B, or ID,- for the names printed on the "
        "sheet): this sheet is left out" in err
    )
    assert f"{file}:3: no sheet read has match id hand-4: this line names no sheet" in err
    assert "Traceback" not in err


@pytest.mark.parametrize(
    ("names", "said"),
    [
        (
            "Kai,Yuki\nhand-2,-\n",
            ":2: names a sheet by its match id (ID,A,B) but line 1 by its place in the batch (A,B): one "
            "kind of line a file",
        ),
        (
            "# by id\nhand-1,Kai,Yuki\n-\n",
            ":3: names a sheet by its place in the batch (A,B) but line 2 by its match id (ID,A,B)",
        ),
        ("hand-1,Kai,Yuki\nhand 2,Mara,Teodor\n", ":2: 'hand 2' is not a match id"),
        ("hand-1,Kai,Yuki\nhand-1,Mara,Teodor\n", ":2: match hand-1 is named on line 1 already"),
        ("hand-1,Kai,Kai\n", ":1: match hand-1: two different names after the id, ID,A,B"),
    ],
)
def test_a_players_file_of_both_kinds_or_a_bad_id_line_is_refused_naming_its_line(
    stack: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], names: str, said: str
) -> None:
    code, starts, file = _run(stack, tmp_path, names)
    err = capsys.readouterr().err
    assert code == 2 and starts == []
    assert f"{file}{said}" in err, err
    assert "Traceback" not in err


def test_a_sheet_named_by_match_is_named_by_its_line_under_that_id(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # a sheet that cannot name itself (both codes lost, no Tesseract): the id --match gives it is its own
    from replay.sources.scan import printed
    from tests.scan.test_scan_match import thumbed
    from tests.scan.test_scan_spare import MARKS

    monkeypatch.setattr(printed, "available", lambda: False)
    (tmp_path / "t.jpg").write_bytes(phone(thumbed(marked(MARKS)), seed=11))
    names = tmp_path / "names.txt"
    names.write_text("judge-1,Kai,Yuki\n", "utf-8")
    out = tmp_path / "ev.jsonl"
    base = ["import", "scan", str(tmp_path / "t.jpg"), "--crops", str(tmp_path / "c"), "--out", str(out)]
    assert main([*base, "--players-file", str(names), "--match", "judge-1"]) == 0, capsys.readouterr().err
    start = json.loads(out.read_text("utf-8").splitlines()[0])
    assert (start["match"], start["players"]) == ("judge-1", ["Kai", "Yuki"])


# One reader of a list of players (replay.sources.scan.naming.players_list) for the command line's
# --players-file and the upload page's players_by_id: the same lines give the same names, the same bad line
# the same sentence, each naming where it was given.
LIST = "# by id\nhand-3, Mara, Teodor\nhand-2,-\n\nhand-1,Kai,Yuki  # table 4\n"


def test_a_list_by_match_id_is_read_once_for_the_command_line_and_the_page(tmp_path: Path) -> None:
    from replay.cli.import_scan import _players_file
    from replay.sources.scan.naming import ByMatch, players_list
    from streams.http.intake import _players_by_id

    read = players_list(LIST)
    assert read == ByMatch(
        {"hand-3": ("Mara", "Teodor"), "hand-2": None, "hand-1": ("Kai", "Yuki")},
        {"hand-3": 2, "hand-2": 3, "hand-1": 5},
    )
    file = tmp_path / "names.txt"
    file.write_text(LIST, "utf-8")
    assert _players_file(str(file)) == read
    assert _players_by_id(LIST, "t.jpg", []) == read
    assert players_list("Kai,Yuki\n-\n") == [("Kai", "Yuki"), None]


@pytest.mark.parametrize(
    "text",
    [
        "hand-1,Kai,Yuki\nhand 2,Mara,Teodor\n",
        "hand-1,Kai,Kai\n",
        "Kai,Yuki\nhand-2,-\n",
        "Kai\n",
        "# none\n",
    ],
)
def test_a_bad_list_is_the_same_sentence_where_the_file_or_the_field_is_named(
    tmp_path: Path, text: str
) -> None:
    from replay.cli.import_scan import _players_file
    from replay.engine import InputError
    from replay.sources.scan.naming import players_list
    from streams.http.intake import _players_by_id
    from streams.http.routes import Problem

    file = tmp_path / "names.txt"
    file.write_text(text, "utf-8")
    with pytest.raises(InputError) as cli:
        _players_file(str(file))
    with pytest.raises(InputError) as field:
        players_list(text, field="players_by_id")
    assert cli.value.message == field.value.message and cli.value.line == field.value.line
    assert (cli.value.file, field.value.field) == (str(file), "players_by_id")
    with pytest.raises(Problem) as page:
        _players_by_id(text, "t.jpg", [])
    assert page.value.english == str(field.value) and page.value.code == "bad_field"
