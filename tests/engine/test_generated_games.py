"""Digital games as the engine meets them (issue 19). The generated games are legal games: the
simulator's contract streams and the synthetic Pokémon TCG Live battle logs keep the turn's limits
(docs/rules.md §6), so the engine finds no once-per-turn or first-turn finding in them; the demo keeps
the generated log's card list; and a real client-enforced log has no violation for card effects the
engine does not model."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from replay import replay_events
from replay.cli import main as cli_main
from replay.engine.restrictions import RULES
from replay.generators import simulate
from replay.generators.synthetic import synthetic_log
from replay.sources.cards import Catalogue
from replay.sources.ptcgl import parse_ptcgl
from tests.paths import ROOT

TURN_RULES = frozenset(RULES)
REAL = ROOT / "tests" / "data" / "ptcgl" / "real"


def test_simulated_games_keep_the_turns_limits() -> None:
    seen: Counter[str] = Counter()
    games = 0
    for stream in simulate.simulate_corpus(400, seed=20261219):
        games += 1
        seen.update(e["type"] for e in stream)
        rec = replay_events(stream)[stream[0]["match"]].record()
        bad = [f for f in rec["findings"] if f["code"] in TURN_RULES]
        assert bad == [], (stream[0]["match"], bad)
    # the games do what the limits count: Supporters, Items, Energy from the hand, retreats and switches
    assert (
        games >= 150 and seen["trainer_played"] > 1000 and seen["attached"] > 1000 and seen["switched"] > 100
    )


@pytest.mark.parametrize("start", [0, 40])
def test_synthetic_battle_logs_keep_the_turns_limits(start: int) -> None:
    supporters = 0
    for seed in range(start, start + 40):
        text, hp, _, _ = synthetic_log(seed)
        res = parse_ptcgl(text, match=f"g{seed}", cards=Catalogue(hp=hp))
        supporters += sum(
            1 for e in res.events if e["type"] == "trainer_played" and e["card"]["kind"] == "supporter"
        )
        rec = replay_events(res.events)[f"g{seed}"].record()
        bad = [f for f in rec["findings"] if f["code"] in TURN_RULES]
        assert bad == [], (seed, bad)
    assert supporters > 40  # Arven is played, once a turn at most


def test_a_second_supporter_injected_by_the_simulator_is_found() -> None:
    found = 0
    for seed in range(40):
        streams, injected = simulate.simulate_with_faults(seed, ["second_supporter"], f"f{seed}")
        if not injected:
            continue
        rec = replay_events(streams[0])[f"f{seed}"].record()
        got = [(f["code"], f["seq"], f["severity"]) for f in rec["findings"]]
        assert got == [("second_supporter", injected[0]["seq"], "warning")]  # a digital source
        found += 1
    assert found >= 20


def test_the_demo_keeps_the_generated_logs_card_list() -> None:
    from replay.cli.demo import demo_events

    events = [e for e in demo_events(2026) if e["match"] == "demo-ptcgl-log"]
    game = replay_events(events)["demo-ptcgl-log"]
    board = game.board()
    mons = [m for side in board["players"].values() for m in ([side["active"]] if side["active"] else [])]
    mons += [m for side in board["players"].values() for m in side["bench"]]
    assert mons and all(m["hp"] is not None for m in mons)
    rec = game.record()
    assert rec["audit"]["basis"] == "hp"
    assert [f for f in rec["findings"] if f["code"] in TURN_RULES or f["severity"] == "violation"] == []


@pytest.mark.parametrize("log", ["en_slowking-vs-beedrill.txt", "en_slowking-vs-froslass-mill.txt"])
def test_real_client_logs_have_no_violation_for_effects_the_engine_does_not_model(
    log: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A client-enforced game (Forest of Vitality in play, Phantump's Spiteful Evolution) is legal by
    construction: the importer names the effect of its evolutions the turn a Pokémon came into play
    (evolved.effect: the Ability, else the Stadium in play), any finding left is an info, and --strict
    passes."""
    res = parse_ptcgl((REAL / log).read_text("utf-8"), match="real", filename=log)
    named = {e["effect"] for e in res.events if e["type"] == "evolved" and e.get("effect")}
    assert named & {"Forest of Vitality", "Spiteful Evolution"}
    rec = replay_events(res.events)["real"].record()
    early = [f for f in rec["findings"] if f["code"] == "evolved_too_early"]
    assert {f["severity"] for f in early} <= {"info"}
    assert all("may allow it" in f["detail"] for f in early)
    assert [f for f in rec["findings"] if f["severity"] == "violation"] == []
    path = tmp_path / "real.jsonl"
    path.write_text("".join(json.dumps(e) + "\n" for e in res.events), "utf-8")
    assert cli_main(["replay", "--strict", str(path)]) == 0
    capsys.readouterr()
