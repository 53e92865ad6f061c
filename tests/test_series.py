"""Best-of-three matches, match points and standings [TTH §7.2, §7.4] from game records."""

from __future__ import annotations

import json
import pathlib
from typing import Any

from replay.codec import encode_jsonl
from replay.series import match_result, standings
from tests.builder import Stream, card
from tests.cli.test_cli import run


def game(
    series: str,
    n: int,
    winner: str | None,
    stage: str = "swiss",
    status: str = "finished",
    players: tuple[str, str] = ("ash", "misty"),
) -> dict[str, Any]:
    result = None
    if status == "finished":
        result = {"outcome": "win" if winner else "draw", "winner": winner, "reason": "prizes"}
    return {
        "match": f"{series}-g{n}",
        "players": list(players),
        "status": status,
        "result": result,
        "parent": None,
        "context": {
            "league": "kanto",
            "season": "2026",
            "round": "1",
            "series": series,
            "game": n,
            "stage": stage,
        },
    }


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
