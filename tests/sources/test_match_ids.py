"""Match ids from file names: valid for the contract, one to one, readable by any tool."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from replay.cli.import_ import _matches
from replay.sources.common import match_id_from, valid_match_id

NAMES = [
    "game-3.txt",
    "ドラパルト　おまつり.txt",
    "ドラパルト　めたぐろすー.txt",
    "ドラパルト　サーナイト２.txt",
    "ドラパルト　サーナイト３.txt",
    "ドラパルト　タケルライコ - コピー (2).txt",
    "ドラパルト　タケルライコ - コピー.txt",
    "PTCGL log10.txt",
    "PTCGL_log10.txt",
    "a b.txt",
    "a-b.txt",
    "a#b.txt",
    "ñandú.txt",
    "nandu.txt",
    "x" * 300 + ".txt",
    "x" * 300 + "y.txt",
]


def test_every_id_is_a_valid_match_id() -> None:
    for name in NAMES:
        assert valid_match_id(match_id_from(name)), name


def test_names_that_differ_only_in_japanese_or_punctuation_get_different_ids() -> None:
    ids = [match_id_from(n) for n in NAMES]
    assert len(set(ids)) == len(NAMES), ids


def test_plain_names_stay_as_they_are_and_others_decode() -> None:
    assert match_id_from("game-3.txt") == "game-3"
    assert match_id_from("logs/r1.t4.txt") == "r1.t4"
    jp = match_id_from("ドラパルト　おまつり.txt")
    assert jp.startswith("xn--")
    assert jp.removeprefix("xn--").encode("ascii").decode("punycode") == "ドラパルト　おまつり"


def test_same_name_in_two_folders_in_one_run(tmp_path: Path) -> None:
    a, b = tmp_path / "a" / "log.txt", tmp_path / "b" / "log.txt"
    args = argparse.Namespace(match=None)
    ids = _matches(args, [str(a), str(b), str(tmp_path / "log.2.txt")])
    assert len(set(ids)) == 3 and ids[0] == "log"
    assert all(valid_match_id(m) for m in ids)


@pytest.mark.parametrize("given", ["m1", "league:2026/r1/t3"])
def test_match_flag_names_them(given: str) -> None:
    args = argparse.Namespace(match=given)
    assert _matches(args, ["x.txt"]) == [given]
    assert _matches(args, ["x.txt", "y.txt"]) == [f"{given}.1", f"{given}.2"]
