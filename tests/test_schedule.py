"""make unit starts the longest test files first (tests/conftest.py LONGEST_FIRST): each name is a file
of the suite, so a renamed file is noticed here rather than silently dropping back to the tail."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import LONGEST_FIRST

ROOT = Path(__file__).resolve().parent.parent


def test_every_file_started_first_exists_once() -> None:
    assert len(set(LONGEST_FIRST)) == len(LONGEST_FIRST)
    missing = [name for name in LONGEST_FIRST if not (ROOT / name).is_file()]
    assert not missing, missing
