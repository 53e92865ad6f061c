"""Error lines that point the right way (issue 31 items 4 and 7): each mistake a newcomer makes gets one line
that says what the file is or what to do, never a misleading parser error or a traceback."""

from __future__ import annotations

import gzip
import json
import os
import pathlib
import subprocess
import sys

import msgpack
import pytest

from tests.paths import ROOT

PRIZECHECK = [sys.executable, "-m", "replay.cli"]
LOG = ROOT / "tests" / "data" / "ptcgl" / "deck_out.txt"


def prizecheck(
    *args: str, cwd: pathlib.Path, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*PRIZECHECK, *args],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=cwd,
        env=env or os.environ.copy(),
    )


def one_line(done: subprocess.CompletedProcess[str]) -> str:
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert "Traceback" not in done.stderr
    lines = [line for line in done.stderr.splitlines() if not line.startswith(("usage:", " "))]
    assert len(lines) == 1, done.stderr
    return lines[0]


@pytest.fixture(scope="module")
def game(tmp_path_factory: pytest.TempPathFactory) -> pathlib.Path:
    folder = tmp_path_factory.mktemp("game")
    done = prizecheck("simulate", "--matches", "1", "--seed", "3", "--out", "g.jsonl", cwd=folder)
    assert done.returncode == 0, done.stderr
    records = prizecheck("replay", "--json", "g.jsonl", cwd=folder)
    assert records.returncode == 0, records.stderr
    (folder / "rec.jsonl").write_text(records.stdout)
    return folder


def test_a_utf16_log_with_its_mark_is_read(tmp_path: pathlib.Path) -> None:
    (tmp_path / "log.txt").write_bytes(LOG.read_text("utf-8").encode("utf-16"))  # BOM first: Notepad's way
    done = prizecheck("import", "ptcgl", "log.txt", "-q", "-o", "e.jsonl", cwd=tmp_path)
    assert done.returncode in (0, 1), done.stderr
    plain = prizecheck("import", "ptcgl", str(LOG), "-q", "--match", "log", cwd=tmp_path)
    assert (tmp_path / "e.jsonl").read_text() == plain.stdout  # the same events as the UTF-8 log


def test_a_utf16_log_without_its_mark_is_named_utf16(tmp_path: pathlib.Path) -> None:
    (tmp_path / "log.txt").write_bytes(LOG.read_text("utf-8").encode("utf-16-le"))
    line = one_line(prizecheck("import", "ptcgl", "log.txt", cwd=tmp_path))
    assert "UTF-16" in line and "NUL" not in line and "log.txt" in line


@pytest.mark.parametrize(
    ("name", "data", "said"),
    [
        ("photo.png", b"\x89PNG\r\n\x1a\n" + bytes(64), "a PNG image, not events"),
        ("photo.jpg", b"\xff\xd8\xff\xe0" + bytes(64), "a JPEG image, not events"),
        ("sheet.pdf", b"%PDF-1.7\n" + bytes(64), "a PDF document, not events"),
        ("games.zip", b"PK\x03\x04" + bytes(64), "a ZIP archive"),
        ("events.json", '{"match": "m"}\n'.encode("utf-16"), "UTF-16 text"),
    ],
)
def test_a_file_that_is_not_events_is_named_for_what_it_is(
    tmp_path: pathlib.Path, name: str, data: bytes, said: str
) -> None:
    (tmp_path / name).write_bytes(data)
    line = one_line(prizecheck("replay", name, cwd=tmp_path))
    assert line.startswith(f"prizecheck replay: {name}: {said}"), line
    assert "MessagePack" not in line and "map keys" not in line


def test_a_gzip_file_says_decompress_it(game: pathlib.Path, tmp_path: pathlib.Path) -> None:
    (tmp_path / "g.jsonl.gz").write_bytes(gzip.compress((game / "g.jsonl").read_bytes()))
    line = one_line(prizecheck("replay", "g.jsonl.gz", cwd=tmp_path))
    assert "gzip-compressed: decompress it first" in line


def test_a_record_file_given_to_replay_points_to_verify_and_report(game: pathlib.Path) -> None:
    line = one_line(prizecheck("replay", "rec.jsonl", cwd=game))
    assert "rec.jsonl:1: a record (replay --json output), not events" in line
    assert "prizecheck verify" in line and "report --records" in line


def test_verify_reads_a_messagepack_record_as_the_service_serves_it(
    game: pathlib.Path, tmp_path: pathlib.Path
) -> None:
    env = {**os.environ, "PRIZECHECK_SIGNING_KEY": "k" * 32, "PRIZECHECK_KEY_ID": "k1"}
    signed = prizecheck("replay", "--json", str(game / "g.jsonl"), cwd=tmp_path, env=env)
    assert signed.returncode == 0, signed.stderr
    record = json.loads(signed.stdout)
    assert record["signature"]
    (tmp_path / "m.record.msgpack").write_bytes(msgpack.packb(record))
    done = prizecheck("verify", "m.record.msgpack", "--events", str(game / "g.jsonl"), cwd=tmp_path, env=env)
    assert done.returncode == 0, done.stderr
    assert done.stdout == f"{record['match']}: ok (signature, chain, record)\n"
    # an edited one fails, as its JSON form would
    record["result"]["winner"] = "nobody"
    (tmp_path / "edited.msgpack").write_bytes(msgpack.packb(record))
    done = prizecheck("verify", "edited.msgpack", cwd=tmp_path, env=env)
    assert done.returncode == 1 and "signature does not verify" in done.stdout
    # cut short: bad input, never a record fewer
    (tmp_path / "cut.msgpack").write_bytes(msgpack.packb(record)[:-7])
    line = one_line(prizecheck("verify", "cut.msgpack", cwd=tmp_path))
    assert "cut.msgpack:1: not a MessagePack record" in line


def test_a_redis_url_as_an_option_points_to_the_environment(tmp_path: pathlib.Path) -> None:
    line = one_line(prizecheck("report", "--from-store", "--redis", "redis://127.0.0.1:6379/0", cwd=tmp_path))
    assert "REDIS_URL=URL" in line and "--redis-prefix" not in line


def test_a_command_s_option_before_the_command_says_where_it_goes(game: pathlib.Path) -> None:
    line = one_line(prizecheck("--json", "replay", "g.jsonl", cwd=game))
    assert "--json goes after the command: prizecheck replay --json" in line
    assert "did you mean" not in line


def test_version_and_help(tmp_path: pathlib.Path) -> None:
    done = prizecheck("--version", cwd=tmp_path)
    assert done.returncode == 0 and done.stdout.startswith("prizecheck 0.1.0 (engine ")
    listed = prizecheck("help", cwd=tmp_path)
    assert listed.returncode == 0 and "replay" in listed.stdout and "prizecheck help COMMAND" in listed.stdout
    sub = prizecheck("help", "import", "ptcgl", cwd=tmp_path)
    assert sub.returncode == 0 and sub.stdout.startswith("usage: prizecheck import ptcgl")


def _without(tmp_path: pathlib.Path, *modules: str) -> dict[str, str]:
    """An environment in which ``modules`` cannot be imported, as in an install without their extra."""
    shadow = tmp_path / "shadow"
    for name in modules:
        (shadow / name).mkdir(parents=True)
        (shadow / name / "__init__.py").write_text(
            f"raise ModuleNotFoundError(\"No module named '{name}'\", name={name!r})\n"
        )
    return {**os.environ, "PYTHONPATH": f"{shadow}{os.pathsep}{ROOT}"}


@pytest.mark.parametrize("missing", ["pyarrow", "platformdirs"])
def test_archive_without_its_extras_names_them_in_one_line(tmp_path: pathlib.Path, missing: str) -> None:
    done = prizecheck("archive", "--to", "cold", cwd=tmp_path, env=_without(tmp_path, missing))
    line = one_line(done)
    assert line == (
        f"prizecheck archive: needs the service and archive extras, which this installation lacks (No module "
        f"named '{missing}'): pip install '.[service,archive]' in a checkout, or "
        "'dist/prizecheck-0.1.0-py3-none-any.whl[service,archive]' from make dist"
    )
    assert not (tmp_path / "cold").exists()  # refused before anything was made


def test_report_parquet_without_duckdb_names_the_extra(tmp_path: pathlib.Path) -> None:
    (tmp_path / "cold" / "records").mkdir(parents=True)
    (tmp_path / "cold" / "records" / "x.parquet").write_bytes(b"")
    line = one_line(prizecheck("report", "--parquet", "cold", cwd=tmp_path, env=_without(tmp_path, "duckdb")))
    assert "needs the archive extra" in line and "pip install '.[archive]'" in line
    assert "prizecheck[" not in line  # never a package name anyone could register
