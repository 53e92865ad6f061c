"""The table tracker shared by the importers (replay/sources/table.py): the Pokémon in play and each
player's zone counts, kept from the contract events the way the engine counts them."""

from __future__ import annotations

from replay import Game
from replay.sources.table import Table


def table() -> Table:
    return Table(["Ash", "Misty"])


def test_pids_places_and_the_bench_order() -> None:
    t = table()
    a = t.new_mon("Ash", "Pikachu", {"name": "Pikachu", "rule": "none", "hp": 60}, turn=0)
    b = t.new_mon("Ash", "Pikachu")
    m = t.new_mon("Misty", "Staryu")
    assert (a.pid, b.pid, m.pid) == ("A1", "A2", "B1") and (a.order, b.order, m.order) == (1, 2, 3)
    t.place(a, "active")
    t.place(b, "active")  # the Active Spot is taken: the Bench
    assert t.active["Ash"] == "A1" and t.bench["Ash"] == ["A2"]
    assert t.named("Ash", "Pikachu") == ["A1", "A2"] and t.is_active("A1") and not t.is_active("A2")
    a.conditions.append("poisoned")
    t.make_active("Ash", "A2")  # the old Active to the end of the Bench, its Special Conditions end
    assert t.in_play("Ash") == ["A2", "A1"] and a.conditions == []
    t.leave("A2")
    assert t.active["Ash"] is None and t.in_play("Ash") == ["A1"]
    assert t.other("Ash") == "Misty" and t.is_player("Misty") and not t.is_player("Brock")


def test_counts_follow_the_events_like_the_engine() -> None:
    events = [
        {"type": "match_started", "players": ["Ash", "Misty"], "first": "Ash", "ruleset": "play-2026"},
        {"type": "setup", "player": "Ash", "active": {"pid": "A1", "card": {"name": "Pikachu"}}, "bench": []},
        {"type": "setup", "player": "Misty", "active": {"pid": "B1", "card": {"name": "Staryu"}}},
        {"type": "turn_started", "player": "Ash", "turn": 1},
        {"type": "drew", "player": "Ash", "count": 1},
        {"type": "trainer_played", "player": "Ash", "card": {"name": "Ultra Ball", "kind": "item"}},
        {"type": "discarded", "player": "Ash", "count": 2, "cards": ["Iono", "Switch"]},
        {"type": "searched", "player": "Ash", "count": 1, "cards": ["Raichu"]},
        {
            "type": "attached",
            "player": "Ash",
            "pid": "A1",
            "card": {"name": "E", "kind": "energy"},
            "from": "deck",
        },
        {"type": "to_hand", "player": "Ash", "from": "discard", "count": 1, "cards": ["Iono"]},
        {"type": "shuffled", "player": "Ash", "zone": "deck", "from": "hand", "count": 2},
        {"type": "trainer_played", "player": "Ash", "card": {"name": "Artazon", "kind": "stadium"}},
        {"type": "trainer_played", "player": "Misty", "card": {"name": "Jamming Tower", "kind": "stadium"}},
        {"type": "moved", "player": "Misty", "count": 3, "from": "deck", "to": "lost_zone"},
    ]
    t = table()
    t.mons["A1"] = t.new_mon("Ash", "Pikachu")
    game = Game()
    for i, ev in enumerate(events):
        game.apply({"match": "m", "seq": i + 1, **ev})
        t.count(ev)
    for p in ("Ash", "Misty"):
        pl = game.state.p[p]
        z = t.zones[p]
        got = (z.hand, z.deck, z.discard, z.stadium, z.lost_zone)
        assert got == (pl.hand, pl.deck, pl.discard, pl.stadium, pl.lost_zone), p
    hand = t.zones["Ash"].hand
    # a prize card goes to the hand with the claim (the engine moves it at the knockout that owes it)
    t.count({"type": "prize_taken", "player": "Ash", "count": 1})
    assert t.zones["Ash"].prizes == 5 and t.zones["Ash"].hand == hand + 1
    assert t.discard_pile("Ash") == ["Switch"]  # Iono came back out; Ultra Ball is named by the importer
    assert t.zones["Ash"].discard == 3  # Ultra Ball, Switch and Artazon (replaced by Jamming Tower)


def test_a_move_that_takes_more_than_a_zone_holds_is_reported_not_hidden() -> None:
    t = table()
    t.count({"type": "setup", "player": "Ash", "active": {"pid": "A1"}, "bench": []})
    assert t.zone("Ash", "hand") == 6 and not t.short
    t.count({"type": "moved", "player": "Ash", "count": 8, "from": "hand", "to": "deck"})
    assert t.short == [("Ash", "hand", 2)]
    t.count({"type": "drew", "player": "Ash", "count": 99})  # a draw takes what there is
    assert t.zone("Ash", "deck") == 0 and not t.short


def test_knockouts_and_removals_move_the_whole_stack() -> None:
    t = table()
    mon = t.new_mon("Ash", "Raichu")
    mon.stages = ["Pikachu", "Raichu"]
    mon.attached = ["Lightning Energy"]
    t.place(mon, "active")
    t.zones["Ash"].in_play = 3
    t.knocked_out("A1")
    z = t.zones["Ash"]
    assert (z.in_play, z.discard) == (0, 3) and t.active["Ash"] is None
    assert t.discard_pile("Ash") == ["Pikachu", "Raichu", "Lightning Energy"]
    other = t.new_mon("Ash", "Dudunsparce")
    t.place(other, "bench")
    z.in_play = 1
    t.removed(other.pid, "deck")
    assert z.deck == 61 and z.in_play == 0 and t.in_play("Ash") == []


def test_a_snapshot_is_independent() -> None:
    t = table()
    t.place(t.new_mon("Ash", "Pikachu"), "active")
    copy = t.snapshot()
    copy.leave("A1")
    copy.zones["Ash"].hand = 9
    assert t.active["Ash"] == "A1" and t.zones["Ash"].hand == 0
