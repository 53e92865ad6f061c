"""``prizecheck verify`` refuses what it cannot vouch for (issue 10, item 3): a record whose signature was
removed while a key is configured, and a record file without any record."""

from __future__ import annotations

import json
import pathlib
from typing import Any

import pytest

from tests.cli.test_cli import run, write
from tests.engine.games import full_game

KEY = {"PRIZECHECK_SIGNING_KEY": "s3cret", "PRIZECHECK_KEY_ID": "league-2026"}


@pytest.fixture
def signed(tmp_path: pathlib.Path) -> tuple[dict[str, Any], str]:
    """A signed record of a full game and its event file."""
    events = write(tmp_path, "g.jsonl", full_game().events)
    p = run("replay", "--json", events, env=KEY)
    assert p.returncode == 0, p.stderr
    record = json.loads(p.stdout)
    assert record["signature"]["key_id"] == "league-2026"
    return record, events


@pytest.mark.parametrize("how", ["absent", "null"])
def test_a_removed_signature_is_refused_when_a_key_is_set(
    tmp_path: pathlib.Path, signed: tuple[dict[str, Any], str], how: str
) -> None:
    record, events = signed
    stripped = {k: v for k, v in record.items() if k != "signature"}
    if how == "null":
        stripped["signature"] = None
    path = tmp_path / "stripped.json"
    path.write_text(json.dumps(stripped))
    p = run("verify", str(path), env=KEY)
    assert p.returncode == 1
    out = p.stdout.decode()
    assert out.startswith("m1: FAILED: not signed, but PRIZECHECK_SIGNING_KEY is set")
    assert "--allow-unsigned" in out and "Traceback" not in p.stderr.decode()
    # the events re-derive the same record, signature aside: still refused, that is not a signature
    p = run("verify", str(path), "--events", events, env=KEY)
    assert p.returncode == 1 and b"m1: FAILED: not signed" in p.stdout
    # asked for explicitly, an unsigned record is accepted, and still checked against its events
    p = run("verify", str(path), "--events", events, "--allow-unsigned", env=KEY)
    assert p.returncode == 0 and p.stdout == b"m1: ok (unsigned, chain, record)\n"
    # --allow-unsigned does not let a tampered unsigned record through
    changed = {**stripped, "result": {**stripped["result"], "winner": "misty"}}
    path.write_text(json.dumps(changed))
    p = run("verify", str(path), "--events", events, "--allow-unsigned", env=KEY)
    assert p.returncode == 1 and b"the events re-derive a different record" in p.stdout


def test_one_unsigned_record_among_signed_ones_fails_the_run(
    tmp_path: pathlib.Path, signed: tuple[dict[str, Any], str]
) -> None:
    record, _ = signed
    other = {**record, "match": "m2", "signature": None}
    path = tmp_path / "two.jsonl"
    path.write_text(json.dumps(record) + "\n" + json.dumps(other) + "\n")
    p = run("verify", str(path), env=KEY)
    assert p.returncode == 1
    assert p.stdout.decode().splitlines()[0] == "m1: ok (signature)"
    assert p.stdout.decode().splitlines()[1].startswith("m2: FAILED: not signed")


def test_without_a_key_an_unsigned_record_still_verifies(tmp_path: pathlib.Path) -> None:
    events = write(tmp_path, "g.jsonl", full_game().events)
    p = run("replay", "--json", events, env={"PRIZECHECK_SIGNING_KEY": ""})
    path = tmp_path / "r.json"
    path.write_bytes(p.stdout)
    p = run("verify", str(path), "--events", events, env={"PRIZECHECK_SIGNING_KEY": ""})
    assert p.returncode == 0 and p.stdout == b"m1: ok (unsigned, chain, record)\n"


@pytest.mark.parametrize(
    ("content", "message"), [(b"", "is empty: no records"), (b"\n  \n\n", "is empty: no records")]
)
def test_a_record_file_without_records_is_bad_input(
    tmp_path: pathlib.Path, content: bytes, message: str
) -> None:
    path = tmp_path / "records.jsonl"
    path.write_bytes(content)
    for env in ({}, KEY):
        p = run("verify", str(path), env=env)
        assert p.returncode == 2 and p.stdout == b""
        assert p.stderr.decode() == f"prizecheck verify: {path}: {message}\n"
    # report --records reads record files the same way
    p = run("report", "--records", str(path))
    assert p.returncode == 2 and p.stderr.decode() == f"prizecheck report: {path}: {message}\n"
