"""Best-of-three matches, match points and standings [TTH §7.2, §7.4] from game records."""

from __future__ import annotations

import json
import pathlib
from typing import Any

from replay.codec import encode_jsonl
from replay.engine.outputs import Record, Result
from replay.series import Pairing, infer_byes_and_drops, match_result, standings, swiss_standings, top_cut
from tests.builder import Stream, card
from tests.cli.test_cli import run


def game(
    series: str,
    n: int,
    winner: str | None,
    stage: str = "swiss",
    status: str = "finished",
    players: tuple[str, str] = ("ash", "misty"),
    ruleset: str = "play-2026",
    reason: str = "prizes",
) -> Record:
    """A game's record (its typed value, as the readers get it)."""
    result = None
    if status == "finished":
        loser = None if winner is None else next(p for p in players if p != winner)
        outcome = "win" if winner else "no_winner" if reason == "double_loss" else "draw"
        result = Result(outcome, winner, loser, reason, {}, None, None)
    return Record(
        match=f"{series}-g{n}",
        players=list(players),
        status=status,
        result=result,
        parent=None,
        ruleset=ruleset,
        context={
            "league": "kanto",
            "season": "2026",
            "round": "1",
            "series": series,
            "game": n,
            "stage": stage,
        },
    )


def test_two_game_wins_take_the_match() -> None:
    m = match_result([game("s", 1, "ash"), game("s", 2, "misty"), game("s", 3, "ash")])
    assert (m["status"], m["winner"], m["wins"], m["points"]) == (
        "finished",
        "ash",
        {"ash": 2, "misty": 1},
        {"ash": 3, "misty": 0},
    )


def test_match_still_going_and_time_decisions() -> None:
    assert (
        match_result([game("s", 1, "ash"), game("s", 2, None, status="in_progress")])["status"]
        == "in_progress"
    )
    # time after game 1, before game 3: game 1's winner takes the match
    m = match_result([game("s", 1, "ash"), game("s", 2, None)])
    assert (m["winner"], m["points"]) == ("ash", {"ash": 3, "misty": 0})
    # level in Swiss: a tie, 1 point each
    m = match_result([game("s", 1, "ash"), game("s", 2, "misty"), game("s", 3, None)])
    assert (m["status"], m["winner"], m["points"]) == ("finished", None, {"ash": 1, "misty": 1})
    # level in single elimination: a tiebreaker game must decide
    m = match_result([game("s", 1, "ash", "single_elimination"), game("s", 2, "misty", "single_elimination")])
    assert (m["status"], m["points"]) == ("needs_tiebreaker", None)


def test_jp_level_match_at_time_goes_to_a_sudden_death_game_in_swiss_too() -> None:
    """JP 終了コール ②: games 1 and 2 won by different players, then time: a sudden death decides the
    match (docs/rules.md §6.1), where play-2026's Swiss makes it a tie."""
    jp = {"ruleset": "jp-3.4"}
    one_each = [game("s", 1, "ash", **jp), game("s", 2, "misty", reason="time", **jp)]
    m = match_result(one_each)
    assert (m["status"], m["winner"], m["points"], m["decided_by"]) == ("needs_tiebreaker", None, None, None)
    # the sudden death, recorded as the match's next game, takes it
    m = match_result([*one_each, game("s", 3, "misty", **jp)])
    assert (m["status"], m["winner"], m["points"]) == ("finished", "misty", {"ash": 0, "misty": 3})
    # game 2 at time with 3 or more prizes left each is undecided: game 1's winner takes the match
    m = match_result([game("s", 1, "ash", **jp), game("s", 2, None, reason="time", **jp)])
    assert (m["winner"], m["decided_by"]) == ("ash", "time")
    # the same games under play-2026: a Swiss tie
    m = match_result([game("s", 1, "ash"), game("s", 2, "misty", reason="time")])
    assert (m["status"], m["points"], m["decided_by"]) == ("finished", {"ash": 1, "misty": 1}, "level")


def test_a_double_loss_is_a_match_lost_by_both_and_counts_in_the_standings() -> None:
    """両者敗北 (docs/rules.md §6): no winner and no tie; 0 match points each, a loss in W-L-T."""
    m = match_result([game("d", 1, None, reason="double_loss", ruleset="jp-3.4")])
    assert (m["status"], m["winner"], m["decided_by"]) == ("finished", None, "double_loss")
    assert (m["result"], m["points"]) == ({"ash": "loss", "misty": "loss"}, {"ash": 0, "misty": 0})
    # a game won before it: more game wins still take the match
    m = match_result([game("d", 1, "ash"), game("d", 2, None, reason="double_loss")])
    assert (m["winner"], m["decided_by"]) == ("ash", "time")
    table = standings([game("d", 1, None, reason="double_loss")])["table"]
    assert [(r["player"], r["points"], r["win"], r["loss"], r["tie"]) for r in table] == [
        ("ash", 0, 0, 1, 0),
        ("misty", 0, 0, 1, 0),
    ]


def test_standings_rank_by_points() -> None:
    recs = [
        game("s1", 1, "ash"),
        game("s1", 2, "ash"),
        game("s2", 1, "brock", players=("brock", "misty")),
        game("s2", 2, None, players=("brock", "misty")),
        game("s3", 1, "ash", players=("ash", "brock")),
        game("s3", 2, "brock", players=("ash", "brock")),
        game("s3", 3, None, players=("ash", "brock")),
    ]
    table = standings(recs)["table"]
    assert [(r["player"], r["points"], r["win"], r["loss"], r["tie"]) for r in table] == [
        ("ash", 4, 1, 0, 1),
        ("brock", 4, 1, 0, 1),
        ("misty", 0, 0, 2, 0),
    ]
    # By hand: ash and brock are 1-0-1 (win % (1 + 1/2) / 2 = 75 %), misty 0-2 (0 %, floored to 25 %).
    # OWP: ash (misty 25 % + brock 75 %) / 2 = 50 %, brock the same; misty (75 % + 75 %) / 2 = 75 %.
    # OOWP: ash (misty's 75 % + brock's 50 %) / 2 = 62.5 %, brock the same. Level on everything, and
    # their own match was a tie (no head-to-head winner): the player id orders them.
    assert [(r["owp"], r["oowp"]) for r in table[:2]] == [(0.5, 0.625), (0.5, 0.625)]


def test_report_prints_matches_and_standings(tmp_path: pathlib.Path) -> None:
    events: list[dict[str, Any]] = []
    for n, loser in enumerate(("misty", "ash", "misty"), 1):
        s = Stream(
            f"r1-t4-g{n}",
            context={
                "league": "kanto",
                "season": "2026",
                "round": 1,
                "series": "r1-t4",
                "game": n,
                "stage": "swiss",
            },
        )
        s.setup("ash", ("a1", card("Pikachu")))
        s.setup("misty", ("m1", card("Staryu")))
        s.turn("ash")
        s.add("conceded", player=loser)
        events += s.events
    path = tmp_path / "league.jsonl"
    path.write_bytes(encode_jsonl(events))
    rep = json.loads(run("report", "--json", str(path)).stdout)
    (section,) = rep["sections"]
    (event,) = section["events"]
    (m,) = event["matches"]
    assert (m["winner"], m["wins"]) == ("ash", {"ash": 2, "misty": 1})
    top = event["standings"][0]
    assert (top["player"], top["points"], top["win"], top["loss"], top["tie"]) == ("ash", 3, 1, 0, 0)
    text = run("report", str(path)).stdout.decode()
    assert "r1-t4: ash 2-1 misty: ash wins" in text and "1. ash" in text


# ---------------------------------------------------------------------- Swiss standings, by hand
def test_swiss_standings_match_a_hand_worked_event() -> None:
    """Six players, three Swiss rounds; F drops after round 2, so round 3 has five players and E gets the
    bye. Worked by hand with the rules in docs/reports.md (win % = (wins + ties / 2) / matches played,
    byes counted in neither; at least 25 %; at most 75 % for a player who dropped; OWP the mean of the
    opponents' win %, OOWP the mean of the opponents' OWP):

        round 1: A beat B, C tied D, F beat E
        round 2: A beat C, F beat D, B beat E            (F drops: 2-0)
        round 3: D beat A, B tied C, E bye

        player  record       points     matches played  win %
        A       2-1-0            6      3               2/3
        B       1-1-1            4      3               (1 + 1/2)/3 = 1/2
        C       0-1-2            2      3               (0 + 1)/3   = 1/3
        D       1-1-1            4      3               1/2
        E       0-2-0 + bye      3      2               0   -> 25 % floor
        F       2-0-0 dropped    6      2               1   -> 75 % cap

        OWP  A: (B 1/2 + C 1/3 + D 1/2) / 3 = 4/9   = 0.4444
             B: (A 2/3 + E 1/4 + C 1/3) / 3 = 5/12  = 0.4167
             C: (D 1/2 + A 2/3 + B 1/2) / 3 = 5/9   = 0.5556
             D: (C 1/3 + F 3/4 + A 2/3) / 3 = 7/12  = 0.5833
             E: (F 3/4 + B 1/2) / 2       = 5/8   = 0.625
             F: (E 1/4 + D 1/2) / 2       = 3/8   = 0.375
        OOWP A: (5/12 + 5/9 + 7/12) / 3   = 14/27 = 0.5185
             B: (4/9 + 5/8 + 5/9) / 3     = 13/24 = 0.5417
             C: (7/12 + 4/9 + 5/12) / 3   = 13/27 = 0.4815
             D: (5/9 + 3/8 + 4/9) / 3     = 11/24 = 0.4583
             E: (3/8 + 5/12) / 2          = 19/48 = 0.3958
             F: (5/8 + 7/12) / 2          = 29/48 = 0.6042

    Order: A and F have 6 points, A's OWP is higher; D and B have 4, D's OWP is higher; then E (3), C (2).
    """
    w, lo, t = "win", "loss", "tie"
    pairings = [
        Pairing(1, ("A", "B"), {"A": w, "B": lo}),
        Pairing(1, ("C", "D"), {"C": t, "D": t}),
        Pairing(1, ("F", "E"), {"F": w, "E": lo}),
        Pairing(2, ("A", "C"), {"A": w, "C": lo}),
        Pairing(2, ("F", "D"), {"F": w, "D": lo}),
        Pairing(2, ("B", "E"), {"B": w, "E": lo}),
        Pairing(3, ("D", "A"), {"D": w, "A": lo}),
        Pairing(3, ("B", "C"), {"B": t, "C": t}),
    ]
    rows = swiss_standings(pairings, byes={"E": {3}}, dropped={"F": 2})
    got = [
        (r["player"], r["points"], r["bye"], r["dropped"], r["win_pct"], r["owp"], r["oowp"]) for r in rows
    ]
    assert got == [
        ("A", 6, 0, None, 0.6667, 0.4444, 0.5185),
        ("F", 6, 0, 2, 0.75, 0.375, 0.6042),
        ("D", 4, 0, None, 0.5, 0.5833, 0.4583),
        ("B", 4, 0, None, 0.5, 0.4167, 0.5417),
        ("E", 3, 1, None, 0.25, 0.625, 0.3958),
        ("C", 2, 0, None, 0.3333, 0.5556, 0.4815),
    ]
    assert [r["rank"] for r in rows] == [1, 2, 3, 4, 5, 6]
    # Without the cap F would count 100 % for their opponents: D's OWP would be (1/3 + 1 + 2/3) / 3 = 2/3.
    uncapped = {r["player"]: r["owp"] for r in swiss_standings(pairings, byes={"E": {3}})}
    assert uncapped["D"] == 0.6667


def test_head_to_head_orders_two_players_level_on_every_tiebreaker() -> None:
    """A round robin of four: zed beat amy, amy beat cal, zed lost to cal, both beat dee, dee beat cal.
    zed and amy are 2-1 (6 points); their opponents are each other (both 2/3), cal (1-2: 1/3) and dee
    (1-2: 1/3), so OWP (2/3 + 1/3 + 1/3) / 3 = 4/9 for both, and OOWP the same for both too. Only their own
    match tells them apart: zed beat amy, so zed is above amy though "amy" sorts first."""
    w, lo = "win", "loss"
    pairings = [
        Pairing(1, ("zed", "amy"), {"zed": w, "amy": lo}),
        Pairing(1, ("cal", "dee"), {"cal": lo, "dee": w}),
        Pairing(2, ("zed", "cal"), {"zed": lo, "cal": w}),
        Pairing(2, ("amy", "dee"), {"amy": w, "dee": lo}),
        Pairing(3, ("zed", "dee"), {"zed": w, "dee": lo}),
        Pairing(3, ("amy", "cal"), {"amy": w, "cal": lo}),
    ]
    rows = swiss_standings(pairings)
    assert [(r["player"], r["points"], r["owp"]) for r in rows[:2]] == [
        ("zed", 6, 0.4444),
        ("amy", 6, 0.4444),
    ]
    assert rows[0]["oowp"] == rows[1]["oowp"]


def test_byes_and_drops_are_read_from_the_rounds_played() -> None:
    # five players: one bye per round; eve plays round 1 only and is gone after (a drop)
    pairings = [
        Pairing(1, ("ash", "may"), None),
        Pairing(1, ("eve", "dawn"), None),  # misty: bye in round 1
        Pairing(2, ("ash", "misty"), None),
        Pairing(2, ("may", "dawn"), None),  # eve: gone after round 1
        Pairing(3, ("ash", "dawn"), None),
        Pairing(3, ("may", "misty"), None),
    ]
    byes, dropped = infer_byes_and_drops(pairings)
    assert (byes, dropped) == ({"misty": {1}}, {"eve": 1})
    # five players, nobody drops: one player missing from the last round alone, in an odd field, had
    # the bye (not a drop)
    odd_field = [
        Pairing(1, ("ash", "may"), None),
        Pairing(1, ("misty", "dawn"), None),  # eve: bye
        Pairing(2, ("ash", "eve"), None),
        Pairing(2, ("may", "misty"), None),  # dawn: bye
        Pairing(3, ("ash", "dawn"), None),
        Pairing(3, ("may", "eve"), None),  # misty: bye in the last round
    ]
    assert infer_byes_and_drops(odd_field) == ({"eve": {1}, "dawn": {2}, "misty": {3}}, {})


def test_top_cut_places_by_the_round_each_player_went_out() -> None:
    w, lo = "win", "loss"
    se = "single_elimination"
    pairings = [
        Pairing(4, ("s1", "s4"), {"s1": w, "s4": lo}, se),
        Pairing(4, ("s2", "s3"), {"s2": lo, "s3": w}, se),
        Pairing(5, ("s1", "s3"), {"s1": lo, "s3": w}, se),
    ]
    rows = top_cut(pairings, ["s1", "s2", "s3", "s4"])
    assert [(r["place"], r["player"], r["eliminated_in"]) for r in rows] == [
        (1, "s3", None),
        (2, "s1", 5),
        (3, "s2", 4),  # both semifinal losers share 3rd, in Swiss order
        (3, "s4", 4),
    ]
