"""The league simulator (replay/generators/league.py): Swiss rounds of best-of-three matches, byes, drops, a
single-elimination top cut, playoff games and a second tiebreak; and ``prizecheck simulate --league``."""

from __future__ import annotations

from collections import Counter, defaultdict
from pathlib import Path

import pytest

from replay.cli import main
from replay.codec import read_events
from replay.contract.validate import validate_event
from replay.engine.errors import InputError
from replay.generators.league import LeagueSim, _bracket
from replay.report import read_tdf
from tests.report.league import league


def test_every_game_is_a_valid_stream_with_its_place_in_the_tournament() -> None:
    lg = league()
    for e in lg.events:
        validate_event(e)
    started = [e for e in lg.events if e["type"] == "match_started"]
    for e in started:
        ctx = e["context"]
        assert {"league", "season", "event", "round", "table", "series", "game", "stage"} <= set(ctx)
        assert ctx["series"] == f"r{ctx['round']}-t{ctx['table']}"
        assert e["source"]["kind"] in ("digital", "scanned", "manual")
        # a Swiss game that ends drawn stays drawn; a top-cut game must be decided
        if "parent" not in e:
            assert e["must_decide"] is (ctx["stage"] == "single_elimination")
    # best of three in Swiss: at most three games, and none after a player's second game win
    games = defaultdict(list)
    for r in lg.records.values():
        if r["parent"] is None:
            games[(r["context"]["round"], r["context"]["table"])].append(r)
    for (_, _), recs in games.items():
        recs.sort(key=lambda r: r["context"]["game"])
        wins: Counter[str] = Counter()
        for r in recs:
            assert max(wins.values(), default=0) < 2, [x["match"] for x in recs]
            if (r["result"] or {}).get("outcome") == "win":
                wins[r["result"]["winner"]] += 1
        if recs[0]["context"]["stage"] == "swiss":
            assert len(recs) <= 3


def test_swiss_pairings_byes_drops_and_top_cut() -> None:
    lg = league()
    t = lg.sim.tournament
    swiss = [m for m in t.matches if m.stage == "swiss"]
    rounds = sorted({m.round for m in swiss})
    assert rounds == [1, 2, 3, 4]
    seen: set[frozenset[str]] = set()
    had_bye: Counter[str] = Counter()
    for rnd in rounds:
        here = [m for m in swiss if m.round == rnd]
        players = [p for m in here for p in m.players]
        assert len(players) == len(set(players)), f"a player paired twice in round {rnd}"
        active = {p.id for p in t.players if t.dropped.get(p.id, 99) >= rnd}
        assert set(players) == active  # everyone still in is paired or has the bye; dropped players are not
        byes = [m.players[0] for m in here if m.outcome == 5]
        assert len(byes) == len(active) % 2
        had_bye.update(byes)
        for m in here:
            if len(m.players) == 2:
                pair = frozenset(m.players)
                assert pair not in seen, f"a rematch in round {rnd}"
                seen.add(pair)
    assert max(had_bye.values()) == 1
    assert t.dropped and all(2 <= r < 4 for r in t.dropped.values())
    assert any(m.outcome == 3 for m in swiss)  # ties
    # the top cut: 4 players, two rounds of single elimination after the Swiss rounds
    cut = [m for m in t.matches if m.stage == "single_elimination"]
    assert [m.round for m in cut] == [5, 5, 6] and all(m.outcome in (1, 2) for m in cut)
    finalists = set(cut[-1].players)
    semi_winners = {m.players[0] if m.outcome == 1 else m.players[1] for m in cut[:2]}
    assert finalists == semi_winners
    # the playoff games, a drawn first tiebreak followed by a second, all in the top cut
    tbs = [r for r in lg.records.values() if r["parent"] is not None]
    assert tbs and all(r["context"]["stage"] == "single_elimination" for r in tbs)
    (tb2,) = [r for r in tbs if r["match"].endswith("/tb2")][:1]
    tb1 = lg.records[tb2["match"][: -len("/tb2")] + "/tb1"]
    # the first tiebreak was drawn; its own playoff (tb2) decided, it is settled from it too
    assert tb1["result"]["reason"] == "playoff" and tb1["result"]["drawn"]["reason"] == "simultaneous"
    assert tb2["parent"] == tb1["parent"]
    assert lg.records[tb2["parent"]]["result"]["reason"] == "playoff"


def test_brackets_meet_the_top_seeds_last() -> None:
    assert _bracket(2) == [1, 2]
    assert _bracket(4) == [1, 4, 2, 3]
    assert _bracket(8) == [1, 8, 4, 5, 2, 7, 3, 6]


def test_same_seed_same_league() -> None:
    a = [e for s in LeagueSim("L", 5, 2, seed=4).streams() for e in s]
    b = [e for s in LeagueSim("L", 5, 2, seed=4).streams() for e in s]
    assert a == b and a != [e for s in LeagueSim("L", 5, 2, seed=5).streams() for e in s]


def test_the_command_writes_the_league_and_its_tdf(tmp_path: Path) -> None:
    out, tdf = tmp_path / "league.msgpack", tmp_path / "league.tdf"
    league_args = ["--league", "Johto", "--players", "6", "--rounds", "2", "--seed", "3"]
    code = main(["simulate", *league_args, "--out", str(out), "--tdf-out", str(tdf)])
    assert code == 0
    events = [e for _, e in read_events(str(out))]
    assert {e["context"]["league"] for e in events if e["type"] == "match_started"} == {"Johto"}
    t = read_tdf(str(tdf))
    assert t.name == "League Cup" and len(t.players) == 6
    assert {m.round for m in t.matches} == {1, 2}  # 6 players: no top cut by default
    with pytest.raises(InputError, match="at least 2"):
        LeagueSim("L", 1, 2)
    assert main(["simulate", "--league", "L", "--top-cut", "3"]) == 2
    assert main(["simulate", "--tdf-out", str(tdf)]) == 2
