"""Issue 35, the second pass over real battle logs: each case on a log the team wrote itself (never a
player's), imported and replayed through the engine.

Identical Pokémon told apart by everything the log says, handles with spaces, knockouts that are not
damage, a concession after a lethal attack, Festival Lead's two attacks, unknown end lines, reacting
Abilities inside an attack, attacks used through another card, card names by language.
"""

from __future__ import annotations

from typing import Any

from replay import replay_events
from replay.sources.common import ImportResult
from replay.sources.ptcgl import parse_ptcgl
from tests.paths import DATA as TEST_DATA

DATA = TEST_DATA / "ptcgl"


def imp(*lines: str, name: str = "t.txt") -> ImportResult:
    return parse_ptcgl("\n".join(lines), match="m1", filename=name)


def record(res: ImportResult) -> dict[str, Any]:
    games = replay_events(res.events)
    return next(iter(games.values())).record()


def of(res: ImportResult, etype: str) -> list[dict[str, Any]]:
    return [e for e in res.events if e["type"] == etype]


def codes(res: ImportResult) -> list[str]:
    return [f.code for f in res.findings]


# ---------------------------------------------------------------- 2. handles with spaces and tags


def test_handles_with_spaces_and_a_bracketed_tag_are_read_from_the_opening_lines() -> None:
    res = imp(
        "Setup",
        "[abc] Gary chose heads for the opening coin flip.",
        "[abc] Gary won the coin toss.",
        "[abc] Gary decided to go first.",
        "[abc] Gary drew 7 cards for the opening hand.",
        "- 7 drawn cards.",
        "   • Pikachu, Iono, Nest Ball, Basic Lightning Energy, Pikachu, Switch, Ultra Ball",
        "Misty Rose drew 7 cards for the opening hand.",
        "- 7 drawn cards.",
        "[abc] Gary played Pikachu to the Active Spot.",
        "Misty Rose played Staryu to the Active Spot.",
        "",
        "[abc] Gary's Turn",
        "[abc] Gary drew Arven.",
        "[abc] Gary attached Basic Lightning Energy to Pikachu in the Active Spot.",
        "[abc] Gary ended their turn.",
        "",
        "Misty Rose's Turn",
        "Misty Rose drew a card.",
        "Misty Rose's Staryu used Tackle on [abc] Gary's Pikachu for 60 damage.",
        "[abc] Gary's Pikachu was Knocked Out!",
        "Misty Rose took a Prize card.",
        "A card was added to Misty Rose's hand.",
        "No Benched Pokémon for backup. Misty Rose wins.",
    )
    assert res.unmatched == []
    assert res.meta["players"] == ["[abc] Gary", "Misty Rose"]
    assert res.meta["winner"] == "Misty Rose"
    rec = record(res)
    assert rec["result"]["winner"] == "Misty Rose" and rec["result"]["reason"] == "no_pokemon"
    assert rec["agrees"] is True


# ---------------------------------------------------------------- 6. end lines


def test_the_french_concession_wording_ends_the_game() -> None:
    # the team's own French log (tests/data/ptcgl/lang_fr.txt), ended as the client ends a concession
    text = (DATA / "lang_fr.txt").read_text("utf-8").rstrip("\n").rsplit("\n", 2)[0]
    res = parse_ptcgl(
        text + "\nL'adversaire a concédé la partie. Léa gagne.\n", match="m1", filename="fr.txt"
    )
    assert res.unmatched == [] and "importer_unknown_reason" not in codes(res)
    rec = record(res)
    assert rec["result"]["winner"] == "Léa" and rec["result"]["reason"] == "concession"
    assert rec["agrees"] is True


def test_an_unknown_end_line_ends_the_game_with_the_claimed_winner() -> None:
    text = (DATA / "lang_fr.txt").read_text("utf-8").rstrip("\n").rsplit("\n", 2)[0]
    res = parse_ptcgl(text + "\nLa partie a été interrompue. Léa gagne.\n", match="m1", filename="fr.txt")
    assert "importer_unknown_reason" in codes(res)
    claim = of(res, "game_ended")[0]
    assert claim["winner"] == "Léa" and claim["reason"] == "unknown"
    assert of(res, "conceded") == [{"match": "m1", "seq": claim["seq"] - 1, "type": "conceded",
                                    "player": "Hugo", "reason": "unknown"}]  # fmt: skip
    rec = record(res)
    assert rec["status"] == "finished"
    assert rec["result"]["winner"] == "Léa"
    assert not any(f["code"] == "result_mismatch" for f in rec["findings"])


def test_an_unknown_end_line_after_the_deciding_knockout_adds_no_concession() -> None:
    text = (DATA / "prizes_numbered.txt").read_text("utf-8").rstrip("\n").rsplit("\n", 1)[0]
    res = parse_ptcgl(text + "\nSomething the client never printed before. Ash wins.\n", match="m1",
                      filename="x.txt")  # fmt: skip
    assert of(res, "conceded") == []
    rec = record(res)
    assert rec["result"]["winner"] == "Ash" and rec["result"]["reason"] == "no_pokemon"
