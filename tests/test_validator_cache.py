"""The compiled event validators are kept between processes (issue 40 item 2: they were a third of an
``import sheet``'s start): the same validator whether made or loaded, a spoiled file made again, a cache
that cannot be written only not used, and a schema change never served an old validator."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import fastjsonschema
import pytest

from replay.contract import validate as v
from schemas import load_schema

BAD: list[Any] = [
    {"type": "note", "match": "m1", "seq": 1, "text": 5},
    {"type": "note", "match": "m1", "seq": 0, "text": "x"},
    {"type": "note", "match": "bad id!", "seq": 1, "text": "x"},
    {"type": "note", "seq": 1, "text": "x"},
]


def _said(check: Any, data: Any) -> str | None:
    try:
        check(data)
    except fastjsonschema.JsonSchemaValueException as exc:
        return f"{exc.message} | {exc.name} | {exc.rule}"
    return None


def test_a_kept_validator_is_the_one_fastjsonschema_makes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PRIZECHECK_CACHE_DIR", str(tmp_path))
    schema = load_schema("events")
    made = v._compile(schema, "note")
    kept = list((tmp_path / "validators").iterdir())
    assert len(kept) == 1 and kept[0].suffix == ".bin"

    # loaded from the file: fastjsonschema's generator is not asked again
    def refuse(*args: Any, **kwargs: Any) -> str:
        raise AssertionError("compiled again")

    monkeypatch.setattr(fastjsonschema, "compile_to_code", refuse)
    loaded = v._compile(schema, "note")
    monkeypatch.undo()
    fresh = fastjsonschema.compile(
        {"$schema": schema["$schema"], "$defs": schema["$defs"], "$ref": "#/$defs/note"}, use_default=False
    )
    good = {"type": "note", "match": "m1", "seq": 1, "at": "2026-12-07T10:00:00Z", "text": "x"}
    for data in [good, *BAD]:
        assert _said(loaded, data) == _said(made, data) == _said(fresh, data)
    assert all(_said(loaded, data) for data in BAD)


def test_a_spoiled_file_is_made_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PRIZECHECK_CACHE_DIR", str(tmp_path))
    schema = load_schema("events")
    v._compile(schema, "note")
    (kept,) = (tmp_path / "validators").iterdir()
    for spoiled in (b"", b"\x00garbage", kept.read_bytes()[:40]):
        kept.write_bytes(spoiled)
        check = v._compile(schema, "note")
        assert _said(check, BAD[0]) is not None
        assert kept.read_bytes() not in (b"", b"\x00garbage") and len(kept.read_bytes()) > 40


def test_a_cache_that_cannot_be_written_is_not_used(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    schema = load_schema("events")
    monkeypatch.setenv("PRIZECHECK_CACHE_DIR", "")
    assert v.cache_dir() is None
    assert _said(v._compile(schema, "note"), BAD[0]) is not None
    blocked = tmp_path / "file"
    blocked.write_text("not a folder")
    monkeypatch.setenv("PRIZECHECK_CACHE_DIR", str(blocked))
    assert _said(v._compile(schema, "note"), BAD[0]) is not None
    assert blocked.read_text() == "not a folder"


def test_a_changed_schema_is_never_served_an_old_validator(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PRIZECHECK_CACHE_DIR", str(tmp_path))
    schema = load_schema("events")
    v._compile(schema, "note")
    changed = {**schema, "$defs": {**schema["$defs"], "note": {"type": "integer"}}}
    check = v._compile(changed, "note")
    assert len(os.listdir(tmp_path / "validators")) == 2
    assert _said(check, 5) is None and _said(check, BAD[0]) is not None
    assert _said(v._compile(schema, "note"), 5) is not None  # and the old one still the old schema's


def test_cache_dir_follows_xdg(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("PRIZECHECK_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert v.cache_dir() == tmp_path / "prizecheck" / "validators"
