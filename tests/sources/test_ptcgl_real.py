"""The PTCGL importer on the real exports in tests/data/ptcgl/real/ (README there: sources and licences) and
on short logs written in the client's own sentences for cases no committed real log holds: true counts,
[playerName] headers, same-named Pokémon, Resistance, HP from Tools, Prize cards taken by an effect."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from replay import Game
from replay.sources.cards import Catalogue
from replay.sources.common import ImportResult
from replay.sources.ptcgl import normalise, parse_ptcgl
from replay.sources.ptcgl.language import detect_locale
from replay.sources.ptcgl.locales import NUMBERED
from tests.paths import DATA

REAL = sorted((DATA / "ptcgl" / "real").glob("*.txt"))
ZONES = ("hand", "deck", "discard", "prizes", "lost_zone", "stadium", "in_play")


def load(path: Path, **kw: Any) -> ImportResult:
    return parse_ptcgl(path.read_text("utf-8-sig"), match="real", filename=path.name, **kw)


def replay(events: list[dict[str, Any]]) -> tuple[Game, dict[str, Any]]:
    game = Game()
    for ev in events:
        game.apply(ev)
        for pl in game.state.p.values():
            low = [z for z in ZONES if pl.zone(z) < 0]
            assert not low, f"seq {ev['seq']} ({ev['type']}): {pl.id}'s {low} below zero"
    return game, game.record()


@pytest.mark.parametrize("path", REAL, ids=[p.name for p in REAL])
def test_every_real_log_reads_whole_with_true_counts(path: Path) -> None:
    res = load(path)
    assert not res.unmatched and not res.partly
    _, rec = replay(res.events)
    assert not [f for f in rec["findings"] if f["code"] == "card_count"]
    assert rec["result"]["winner"] == res.meta["winner"]
    for f in res.findings:  # no count below zero in any finding's text either
        assert " -1 " not in f.message and " -2 " not in f.message, f


def test_the_latin_american_spanish_export() -> None:
    res = load(DATA / "ptcgl" / "real" / "es_la_miraidon-vs-lugia.txt")
    assert res.meta["language"] == "es_la" and (res.meta["winner"], res.meta["reason"]) == (
        "jugador1",
        "prizes",
    )
    _, rec = replay(res.events)
    assert rec["agrees"] and rec["result"]["reason"] == "prizes"


def test_resistance_keeps_the_target_and_the_damage() -> None:
    res = load(DATA / "ptcgl" / "real" / "en_slowking-vs-greninja.txt")
    attack = next(e for e in res.events if e["type"] == "attack" and e["name"] == "Mirage Barrage")
    after = res.events[res.events.index(attack) + 1]
    assert after["type"] == "damage" and after["amount"] == 90 and after["by"] == attack["pid"]


# -- [playerName]'s Turn ------------------------------------------------------------------------------------
def without_names(text: str) -> str:
    """Every turn header rewritten to the client bug, in the log's language."""
    raw = normalise(text)
    loc = detect_locale(raw, "x")
    out = []
    for line in raw:
        nm = NUMBERED.match(line.strip())
        rest = nm.group("rest") if nm else line.strip()
        prefix = line.strip()[: len(line.strip()) - len(rest)]
        out.append(
            prefix + loc.turn_prefix + "[playerName]" + loc.turn_suffix if loc.turn.match(rest) else line
        )
    return "\n".join(out)


def prizes(res: ImportResult) -> list[tuple[str, int]]:
    return [(e["player"], e["count"]) for e in res.events if e["type"] == "prize_taken"]


def turns(res: ImportResult) -> list[str]:
    return [e["player"] for e in res.events if e["type"] == "turn_started"]


def test_a_real_log_exported_with_playername_headers_is_the_game_with_names() -> None:
    bug = load(DATA / "ptcgl" / "real" / "en_playername-headers.txt")
    named = load(DATA / "ptcgl" / "real" / "en_solrock-vs-pidgey.txt")
    rename = {"Bassoonboy135": "Player1", "Player2": "Player2"}
    assert turns(bug) == [rename[p] for p in turns(named)]
    assert prizes(bug) == [(rename[p], n) for p, n in prizes(named)] and len(prizes(bug)) == 3


@pytest.mark.parametrize(
    "name",
    ["es_la_miraidon-vs-lugia.txt", "it_charizard-vs-gardevoir.txt", "de_rotom-vs-raging-bolt.txt",
     "pt-BR_gible-vs-dragapult.txt", "en_slowking-vs-beedrill.txt", "en_dipplin-vs-mega-excadrill.txt"],
)  # fmt: skip
def test_real_logs_with_their_headers_rewritten_keep_every_prize_pickup(name: str) -> None:
    path = DATA / "ptcgl" / "real" / name
    res = load(path)
    bug = parse_ptcgl(without_names(path.read_text("utf-8-sig")), match="bug", filename=name)
    assert turns(bug) == turns(res) and prizes(bug) == prizes(res)
    outcome = ("outcome", "winner", "reason", "conditions")
    got, want = replay(bug.events)[1]["result"], replay(res.events)[1]["result"]
    assert {k: got[k] for k in outcome} == {k: want[k] for k in outcome}


def test_both_players_take_prizes_in_one_turn_under_playername_headers() -> None:
    res = parse_ptcgl((DATA / "ptcgl" / "playername_bug.txt").read_text("utf-8"), match="m")
    assert turns(res) == ["Kai", "Ashley-B"] * 3
    # turn 3: Kai's Dusknoir knocks itself out (Ashley-B's prize), then Kai's attack (Kai's prize)
    assert prizes(res) == [("Ashley-B", 1), ("Kai", 1), ("Ashley-B", 3), ("Kai", 2), ("Ashley-B", 2)]
    assert replay(res.events)[1]["result"]["winner"] == "Ashley-B"


# -- short logs in the client's sentences ------------------------------------------------------------------
SETUP = """Setup
Ash chose heads for the opening coin flip.
Ash won the coin toss.
Ash decided to go first.
Ash drew 7 cards for the opening hand.
- 7 drawn cards.
   • Charmander, Potion, Hero's Cape, Fire Energy, Fire Energy, Switch, Lt. Surge's Bargain
Misty drew 7 cards for the opening hand.
- 7 drawn cards.
Ash played Charmander to the Active Spot.
Misty played Pidgey to the Active Spot.
Misty played Pidgey to the Bench.
"""


def test_two_identical_pokemon_hit_healed_and_knocked_out_in_turn() -> None:
    log = (
        SETUP
        + """
Turn # 1 - Ash's Turn
Ash drew Fire Energy.
Ash ended their turn.

Turn # 1 - Misty's Turn
Misty drew a card.
Misty ended their turn.

Turn # 2 - Ash's Turn
Ash drew Fire Energy.
Ash attached Fire Energy to Charmander in the Active Spot.
Ash's Charmander used Scratch on Misty’s Pidgey for 30 damage.

Turn # 2 - Misty's Turn
Misty drew a card.
Misty retreated Pidgey to the Bench.
Misty's Pidgey is now in the Active Spot.
Misty played Potion.
- Misty's Pidgey healed 30 damage.
Misty ended their turn.

Turn # 3 - Ash's Turn
Ash drew Switch.
Ash's Charmander used Scratch on Misty’s Pidgey for 30 damage.
Ash's Charmander used Flare on Misty’s Pidgey for 30 damage.
Misty's Pidgey was Knocked Out!
Ash took a Prize card.
A card was added to Ash's hand.
Misty's Pidgey is now in the Active Spot.
Opponent conceded. Ash wins.
"""
    )
    cards = Catalogue(hp={"Pidgey": 60, "Charmander": 70})
    res = parse_ptcgl(log, match="m", cards=cards, catalogue=False)
    hits = [(e["type"], e["pid"]) for e in res.events if e["type"] in ("damage", "healed", "knocked_out")]
    # B1 (the first Active) is hit, retreats; B2 comes in; the heal takes the damaged B1 on the Bench; B2
    # is hit twice and knocked out (its damage reaches its HP); B1 is promoted
    assert hits == [
        ("damage", "B1"),
        ("healed", "B1"),
        ("damage", "B2"),
        ("damage", "B2"),
        ("knocked_out", "B2"),
    ]
    game, rec = replay(res.events)
    assert game.board()["players"]["Misty"]["active"]["pid"] == "B1"
    assert [k["pid"] for k in rec["knockouts"]] == ["B2"] and rec["knockouts"][0]["verified"]


def test_a_tool_that_gives_hp_counts_in_the_knockout() -> None:
    log = (
        SETUP
        + """
Turn # 1 - Ash's Turn
Ash drew Fire Energy.
Ash attached Hero's Cape to Charmander in the Active Spot.
Ash ended their turn.

Turn # 1 - Misty's Turn
Misty drew a card.
Misty's Pidgey used Gust on Ash’s Charmander for 120 damage.
Opponent conceded. Misty wins.
"""
    )
    res = parse_ptcgl(log, match="m", cards=Catalogue(hp={"Pidgey": 60, "Charmander": 70}))
    charmander = next(e for e in res.events if e["type"] == "setup" and e["player"] == "Ash")["active"]
    assert charmander["card"]["hp"] == 170  # 70 + Hero's Cape's 100 (the catalogue's card text)
    assert any(f.code == "importer_hp_tool" for f in res.findings)
    _, rec = replay(res.events)
    assert not rec["knockouts"]  # 120 damage does not knock out 170 HP: no knockout the log never shows


def test_a_stadium_that_lowers_hp_counts_in_the_knockout() -> None:
    log = (
        SETUP
        + """
Turn # 1 - Ash's Turn
Ash drew Fire Energy.
Ash ended their turn.

Turn # 1 - Misty's Turn
Misty drew a card.
Misty played Rare Candy.
- Misty evolved Pidgey to Pidgeot in the Active Spot.
Misty ended their turn.

Turn # 2 - Ash's Turn
Ash drew Gravity Mountain.
Ash played Gravity Mountain to the Stadium spot.
Ash's Charmander used Scratch on Misty’s Pidgeot for 100 damage.
Misty's Pidgeot was Knocked Out!
Ash took a Prize card.
A card was added to Ash's hand.
Misty's Pidgey is now in the Active Spot.
Opponent conceded. Ash wins.
"""
    )
    res = parse_ptcgl(log, match="m", cards=Catalogue(hp={"Pidgey": 60, "Charmander": 70}))
    pidgeot = next(e for e in res.events if e["type"] == "evolved")["card"]
    # Pidgeot (Stage 2, 130 HP) under Gravity Mountain: "Each Stage 2 Pokémon in play ... gets -30 HP."
    assert pidgeot["hp"] == 100
    assert any(f.code == "importer_hp_tool" and "-30 HP" in f.message for f in res.findings)
    assert not any(f.code == "importer_ko_without_damage" for f in res.findings)
    _, rec = replay(res.events)
    assert [k["verified"] for k in rec["knockouts"]] == [True]  # 100 damage knocks out 130 - 30


def test_prize_cards_taken_by_an_effect_carry_it() -> None:
    log = (
        SETUP
        + """
Turn # 1 - Ash's Turn
Ash drew Fire Energy.
Ash played Lt. Surge's Bargain.
Ash took a Prize card.
A card was added to Ash's hand.
Misty took a Prize card.
A card was added to Misty's hand.
Ash ended their turn.
Opponent conceded. Ash wins.
"""
    )
    res = parse_ptcgl(log, match="m", cards=Catalogue(hp={"Pidgey": 60, "Charmander": 70}))
    taken = [e for e in res.events if e["type"] == "prize_taken"]
    # decisions.md 1: both lines of the one effect, one after the other, each naming the effect
    assert [(e["player"], e["count"], e.get("effect")) for e in taken] == [
        ("Ash", 1, "Lt. Surge's Bargain"),
        ("Misty", 1, "Lt. Surge's Bargain"),
    ]
    i = res.events.index(taken[0])
    assert res.events[i + 1] is taken[1]
    assert not any(f.code == "importer_prize_without_ko" for f in res.findings)
    # and the engine takes them (it dropped them as prize_without_ko before the effect field)
    _, rec = replay(res.events)
    assert {p: v["taken"] for p, v in rec["prizes"].items()} == {"Ash": 1, "Misty": 1}
    assert not any(f["code"] == "prize_without_ko" for f in rec["findings"])
