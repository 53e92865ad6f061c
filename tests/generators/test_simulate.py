"""The match simulator (replay/generators/simulate.py): deterministic, complete, rule-correct by its own
books.

``Ledger`` below folds a simulated stream with nothing but the contract and docs/rules.md (it shares no code
with the simulator or the engine) and checks, event by event: contiguous seq from 1, 60 cards conserved per
player across deck, hand, prizes, discard, lost zone and play (attachments and evolution stages included),
no zone below 0, prizes never more than remain, knockout claims exactly for the Pokémon at 0 HP inside their
window, prize counts by rule box / explicit value / modifiers, promotion order, first-turn restrictions,
deck-out only at the draw, and that the closing ``game_ended`` claim is what the rules give.
"""

from __future__ import annotations

import io
import json
import statistics
from collections import Counter
from pathlib import Path
from typing import Any

import msgpack
import pytest

from replay.cli import main as cli_main
from replay.generators import simulate
from tests.paths import ROOT

RULESET_DIR = ROOT / "replay" / "engine" / "rulesets"
RULESETS = {p.stem: json.loads(p.read_text("utf-8")) for p in RULESET_DIR.glob("*.json")}
ROTATIONS = {"asleep", "paralyzed", "confused"}


class Ledger:
    """An independent fold of one simulated stream that asserts the rules as it goes."""

    def __init__(self) -> None:
        self.events = 0
        self.match: str | None = None
        self.players: list[str] = []
        self.zones: dict[str, dict[str, int]] = {}
        self.mons: dict[str, dict[str, Any]] = {}
        self.active: dict[str, str | None] = {}
        self.bench: dict[str, list[str]] = {}
        self.taken: dict[str, int] = {}
        self.needed: dict[str, int] = {}
        self.own_turns: dict[str, int] = {}
        self.deck_size = 60
        self.turn = 0
        self.turn_player: str | None = None
        self.first: str | None = None
        self.window: str | None = None
        self.claims: set[str] = set()
        self.owed: dict[str, int] = {}
        self.promote_order: list[str] = []
        self.expected: dict[str, Any] | None = None  # the result a knockout batch gave
        self.lead: str | None = None  # "prizes" in a playoff game, "time" when time ran out level
        self.previous: dict[str, Any] | None = None
        self.ended: dict[str, Any] | None = None
        self.time_called = False
        self.time_end = 0
        self.time_by_lead = False  # [JP 終了コール] a lead decides time in every stage
        self.play_on_taken_differ = False
        self.turn_open = False
        self.this_turn = Counter()
        self.prize_table: dict[str, int] = {}
        self.stage: str | None = None
        self.ruleset = ""

    # ---------------------------------------------------------------- helpers
    def other(self, player: str) -> str:
        a, b = self.players
        return b if player == a else a

    def total(self, player: str) -> int:
        in_play = sum(m["stack"] for m in self.mons.values() if m["owner"] == player)
        return sum(self.zones[player].values()) + in_play

    def move(self, player: str, src: str, dst: str, n: int) -> None:
        self.zones[player][src] -= n
        self.zones[player][dst] += n
        assert self.zones[player][src] >= 0, f"{player}'s {src} below 0"

    def take(self, player: str, src: str, n: int) -> None:
        """Cards from ``src`` into play (the Pokémon's stack counts them from now on)."""
        self.zones[player][src] -= n
        assert self.zones[player][src] >= 0, f"{player}'s {src} below 0"

    def value(self, mon: dict[str, Any]) -> int:
        base = mon["prizes"] if mon["prizes"] is not None else self.prize_table[mon["rule"]]
        return max(0, base + mon["delta"])

    def place(self, player: str, slot: dict[str, Any], where: str) -> None:
        card = slot["card"]
        assert slot["pid"] not in self.mons, f"pid {slot['pid']} reused"
        self.mons[slot["pid"]] = {
            "owner": player,
            "hp": card["hp"],
            "rule": card.get("rule", "none"),
            "prizes": card.get("prizes"),
            "damage": 0,
            "stack": 1,
            "delta": 0,
            "entered": self.turn,
            "evolved": -1,
            "conds": set(),
        }
        if where == "active":
            self.active[player] = slot["pid"]
        else:
            self.bench[player].append(slot["pid"])
            assert len(self.bench[player]) <= 5, "more than 5 on the Bench"

    def at_zero(self) -> set[str]:
        return {pid for pid, m in self.mons.items() if m["damage"] >= m["hp"]}

    def knock_out(self, window: str) -> None:
        """One batch for every Pokémon at 0 HP [docs/rules.md §3]; claims must match it exactly."""
        down = self.at_zero()
        assert self.claims == down, f"{window} window: claimed {sorted(self.claims)}, at 0 HP {sorted(down)}"
        self.claims = set()
        if not down:
            return
        lost_active = []
        for pid in sorted(down):
            mon = self.mons.pop(pid)
            owner = mon["owner"]
            if self.active[owner] == pid:
                self.active[owner] = None
                lost_active.append(owner)
            else:
                self.bench[owner].remove(pid)
            self.zones[owner]["discard"] += mon["stack"]
            taker = self.other(owner)
            self.owed[taker] = self.owed.get(taker, 0) + self.value(mon)
        for taker in self.players:
            if taker in self.owed:
                self.owed[taker] = min(self.owed[taker], self.zones[taker]["prizes"])
                if self.owed[taker] == 0:
                    del self.owed[taker]
        assert self.turn_player is not None
        nxt = self.other(self.turn_player)
        self.promote_order = sorted(
            (p for p in lost_active if self.bench[p]), key=lambda p: 0 if p == nxt else 1
        )
        # The judgment [docs/rules.md §4] once the prizes are taken.
        taken = {p: self.taken[p] + self.owed.get(p, 0) for p in self.players}
        met = {
            p: [
                c
                for c, ok in (
                    ("prizes", taken[p] >= self.needed[p]),
                    (
                        "no_active_opponent",
                        self.active[self.other(p)] is None and not self.bench[self.other(p)],
                    ),
                )
                if ok
            ]
            for p in self.players
        }
        a, b = self.players
        sa, sb = len(met[a]), len(met[b])
        winner = a if sa > sb else b if sb > sa else None
        left = {p: self.needed[p] - taken[p] for p in self.players}
        if self.lead is not None and winner is None and left[a] != left[b]:
            # playoff / time over level: the first player with fewer prizes remaining wins [docs/rules.md §6]
            self.expected = {"outcome": "win", "winner": a if left[a] < left[b] else b, "reason": self.lead}
        elif sa or sb:
            if winner is None:
                self.expected = {"outcome": "draw", "winner": None, "reason": "simultaneous"}
            else:
                reason = "simultaneous" if met[self.other(winner)] else met[winner][0]
                reason = "no_pokemon" if reason == "no_active_opponent" else reason
                self.expected = {"outcome": "win", "winner": winner, "reason": reason}

    def settled(self) -> None:
        assert not self.owed, f"prizes not taken: {self.owed}"
        assert not self.promote_order, f"promotions missing: {self.promote_order}"

    # ---------------------------------------------------------------- the fold
    def apply(self, e: dict[str, Any]) -> None:
        self.events += 1
        assert e["seq"] == self.events, f"seq {e['seq']} at position {self.events}"
        assert self.ended is None, f"{e['type']} after game_ended"
        if self.match is None:
            assert e["type"] == "match_started"
            self.match = e["match"]
        assert e["match"] == self.match
        t = e["type"]
        if self.window == "effect" and t not in ("damage", "knocked_out"):
            # damage outside the windows is checked once the effect has resolved [docs/rules.md §2]
            self.window = None
            self.knock_out("effect")
        if self.expected is not None:
            assert t in ("prize_taken", "penalty", "game_ended"), f"{t} after the game was decided"
        prev = self.previous
        if prev is not None and prev["type"] == "turn_started" and self.expected is None:
            assert t == "drew" and e["player"] == prev["player"] and e.get("count", 1) == 1, "the draw"
        getattr(self, f"on_{t}")(e)
        for p in self.players:
            assert self.total(p) == self.deck_size, f"{p} holds {self.total(p)} cards after seq {e['seq']}"
        self.previous = e

    def on_match_started(self, e: dict[str, Any]) -> None:
        rules = RULESETS[e["ruleset"]]
        self.ruleset = e["ruleset"]
        self.players = list(e["players"])
        self.first = e["first"]
        self.prize_table = rules["prizes_by_rule"]
        playoff = e.get("playoff")
        prizes = e.get("prizes", rules["playoff"]["prizes"] if playoff else rules["prizes"])
        if playoff:
            assert (
                playoff == rules["playoff"]["kind"] and e["parent"] and prizes == rules["playoff"]["prizes"]
            )
            self.lead = "prizes"
        self.deck_size = e.get("deck", rules["deck"])
        self.stage = (e.get("context") or {}).get("stage")
        for p in self.players:
            self.zones[p] = dict.fromkeys(("deck", "hand", "prizes", "discard", "lost_zone", "stadium"), 0)
            self.zones[p]["deck"] = self.deck_size
            self.active[p] = None
            self.bench[p] = []
            self.taken[p] = 0
            self.needed[p] = prizes
            self.own_turns[p] = 0
        assert e["source"] == {
            "kind": "digital",
            "reports_knockouts": True,
            "producer": "prizecheck-simulate",
        }

    def on_setup(self, e: dict[str, Any]) -> None:
        p = e["player"]
        self.move(p, "deck", "hand", 7)
        self.move(p, "deck", "prizes", self.needed[p])
        self.place(p, e["active"], "active")
        for slot in e["bench"]:
            self.place(p, slot, "bench")
        self.take(p, "hand", 1 + len(e["bench"]))

    def on_drew(self, e: dict[str, Any]) -> None:
        n = e.get("count", 1)
        assert 0 < n <= self.zones[e["player"]]["deck"], "drew more than the deck holds"
        if self.turn == 0:
            # mulligan bonus cards: only for the player whose opponent took more mulligans
            assert self.previous is not None and self.previous["type"] in ("setup", "drew")
        self.move(e["player"], "deck", "hand", n)

    def on_moved(self, e: dict[str, Any]) -> None:
        assert e["count"] > 0 and len(e.get("cards", [None] * e["count"])) == e["count"]
        self.move(e["player"], e["from"], e["to"], e["count"])

    def on_turn_started(self, e: dict[str, Any]) -> None:
        self.settled()
        p = e["player"]
        expected = self.first if self.turn == 0 else self.other(self.turn_player or "")
        assert p == expected, "turn order"
        self.turn += 1
        assert e["turn"] == self.turn
        self.turn_player = p
        self.turn_open = True
        self.own_turns[p] += 1
        self.this_turn: Counter[str] = Counter()  # the turn's limits [docs/rules.md §6]
        if "deck" in e:
            assert e["deck"] == self.zones[p]["deck"], "deck count seen by the source"
        if self.zones[p]["deck"] == 0:
            # [docs/rules.md §1.3] the mandatory draw is impossible
            self.expected = {"outcome": "win", "winner": self.other(p), "reason": "deck_out"}
        by_lead = self.stage == "single_elimination" or self.time_by_lead
        if self.time_end and self.turn > self.time_end and by_lead:
            a, b = self.players
            assert self.needed[a] - self.taken[a] == self.needed[b] - self.taken[b], "time over, not level"
            if self.lead != "time":
                # level on prizes remaining; a prize penalty can make the prizes taken differ
                self.play_on_taken_differ = self.taken[a] != self.taken[b]
            self.lead = "time"  # play on until someone leads [TTH §7.4.4]

    def on_turn_ended(self, e: dict[str, Any]) -> None:
        assert e["player"] == self.turn_player and self.window is None
        self.turn_open = False
        self.settled()

    def on_played(self, e: dict[str, Any]) -> None:
        assert e["player"] == self.turn_player
        self.take(e["player"], "hand", 1)
        self.place(e["player"], {"pid": e["pid"], "card": e["card"]}, e.get("to", "bench"))

    def on_evolved(self, e: dict[str, Any]) -> None:
        p, mon = e["player"], self.mons[e["pid"]]
        # [docs/rules.md §6] not on the player's own first turn, nor a Pokémon that came into play this turn
        assert self.own_turns[p] >= 2, f"{p} evolved on their first turn"
        assert mon["entered"] != self.turn and mon["evolved"] != self.turn, "evolved too early"
        assert e["card"]["hp"] > mon["damage"]
        self.take(p, "hand", 1)
        mon.update(
            hp=e["card"]["hp"],
            rule=e["card"].get("rule", "none"),
            prizes=e["card"].get("prizes"),
            evolved=self.turn,
        )
        mon["stack"] += 1
        mon["conds"] = set()

    def on_attached(self, e: dict[str, Any]) -> None:
        self.take(e["player"], e.get("from", "hand"), 1)
        self.mons[e["pid"]]["stack"] += 1
        if e["card"]["kind"] == "energy" and e.get("from", "hand") == "hand" and self.window is None:
            self.this_turn["energy"] += 1
            assert self.this_turn["energy"] <= 1, "a second Energy attached from the hand this turn"

    def on_trainer_played(self, e: dict[str, Any]) -> None:
        p, kind = e["player"], e["card"]["kind"]
        assert p == self.turn_player and kind in ("item", "supporter")
        self.move(p, "hand", "discard", 1)
        if kind == "supporter":
            assert not (self.turn == 1 and p == self.first), "a Supporter on the first turn of the game"
            self.this_turn["supporter"] += 1
            assert self.this_turn["supporter"] <= 1, "a second Supporter this turn"

    def on_switched(self, e: dict[str, Any]) -> None:
        p = e["player"]
        if p == self.turn_player and self.window is None and "effect" not in e:
            self.this_turn["retreat"] += 1
            assert self.this_turn["retreat"] <= 1, "a second retreat this turn"
        old = self.active[p]
        assert old is not None and e["pid"] in self.bench[p]
        self.mons[old]["conds"] = set()
        self.bench[p][self.bench[p].index(e["pid"])] = old
        self.active[p] = e["pid"]

    def on_removed(self, e: dict[str, Any]) -> None:
        p = e["player"]
        self.zones[p][e["to"]] += self.mons.pop(e["pid"])["stack"]
        if e["pid"] in self.bench[p]:
            self.bench[p].remove(e["pid"])
            return
        assert self.active[p] == e["pid"]
        self.active[p] = None
        if self.bench[p]:
            self.promote_order = [p]
        else:
            # [docs/rules.md §1.2] the Active left play and there is nothing to promote
            self.expected = {"outcome": "win", "winner": self.other(p), "reason": "no_pokemon"}

    def on_attack(self, e: dict[str, Any]) -> None:
        self.settled()
        p = e["player"]
        assert p == self.turn_player and e["pid"] == self.active[p]
        assert not (self.turn == 1 and p == self.first), "attack on the first turn of the game"
        assert not self.mons[e["pid"]]["conds"] & {"asleep", "paralyzed"}
        self.window = "attack"

    def on_damage(self, e: dict[str, Any]) -> None:
        assert e["amount"] > 0
        self.mons[e["pid"]]["damage"] += e["amount"]
        if self.window is None:
            self.window = "effect"

    def on_healed(self, e: dict[str, Any]) -> None:
        mon = self.mons[e["pid"]]
        assert mon["damage"] >= e["amount"]
        mon["damage"] -= e["amount"]

    def on_condition(self, e: dict[str, Any]) -> None:
        conds = self.mons[e["pid"]]["conds"]
        if e["on"]:
            assert e["pid"] in self.active.values(), "Special Conditions are for the Active Pokémon"
            if e["condition"] in ROTATIONS:
                conds -= ROTATIONS
            conds.add(e["condition"])
        else:
            assert e["condition"] in conds
            conds.discard(e["condition"])

    def on_knocked_out(self, e: dict[str, Any]) -> None:
        mon = self.mons[e["pid"]]
        assert mon["damage"] >= mon["hp"], f"claimed knockout of {e['pid']} with HP left"
        assert self.window is not None, "a knockout claim outside a window"
        self.claims.add(e["pid"])

    def on_attack_ended(self, e: dict[str, Any]) -> None:
        assert self.window == "attack"
        self.window = None
        self.knock_out("attack")

    def on_checkup_started(self, e: dict[str, Any]) -> None:
        assert self.previous is not None and self.previous["type"] == "turn_ended"
        assert any(self.active[p] and self.mons[self.active[p] or ""]["conds"] for p in self.players)
        self.window = "checkup"

    def on_checkup_ended(self, e: dict[str, Any]) -> None:
        assert self.window == "checkup"
        self.window = None
        self.knock_out("checkup")

    def on_prize_taken(self, e: dict[str, Any]) -> None:
        p, n = e["player"], e["count"]
        assert n <= self.zones[p]["prizes"], "took more prizes than remain"
        assert self.owed.pop(p, 0) == n, f"prize count {n} at seq {e['seq']}"
        self.move(p, "prizes", "hand", n)
        self.taken[p] += n

    def on_prize_modifier(self, e: dict[str, Any]) -> None:
        assert self.window == "attack"
        self.mons[e["pid"]]["delta"] += e["delta"]

    def on_promoted(self, e: dict[str, Any]) -> None:
        assert not self.owed, "promotion before the prizes"
        assert self.promote_order and self.promote_order[0] == e["player"], "promotion order"
        self.promote_order.pop(0)
        p = e["player"]
        assert self.active[p] is None
        self.bench[p].remove(e["pid"])
        self.active[p] = e["pid"]

    def on_penalty(self, e: dict[str, Any]) -> None:
        cut = {"double_prize": 2, "quad_prize": 4}.get(e["kind"])
        if cut:
            gainer = self.other(e["player"])
            self.needed[gainer] = max(0, self.needed[gainer] - cut)
            if self.taken[gainer] >= self.needed[gainer]:
                self.expected = {"outcome": "win", "winner": gainer, "reason": "penalty"}
        elif e["kind"] in ("game_loss", "match_loss", "disqualification"):
            prev = self.previous or {}
            if (
                prev.get("type") == "penalty"
                and prev.get("kind") == "game_loss"
                and prev["player"] != e["player"]
            ):
                # [PG §4] Game Losses to both players at once: no winner, not a tie
                self.expected = {"outcome": "no_winner", "winner": None, "reason": "penalty"}
            else:
                # during the game, or right after it (then it applies to that game) [PG §4]
                self.expected = {"outcome": "win", "winner": self.other(e["player"]), "reason": "penalty"}

    def on_note(self, e: dict[str, Any]) -> None:
        assert e["text"]

    def on_conceded(self, e: dict[str, Any]) -> None:
        self.expected = {"outcome": "win", "winner": self.other(e["player"]), "reason": "concession"}

    def on_effect_result(self, e: dict[str, Any]) -> None:
        winner = e["player"] if e["wins"] else self.other(e["player"])
        self.expected = {"outcome": "win", "winner": winner, "reason": "effect"}

    def on_time_called(self, e: dict[str, Any]) -> None:
        assert not self.time_called and self.stage is not None
        self.time_called = True
        day = e["at"][:10]
        for proc in RULESETS[self.ruleset]["time_called"]:
            if (proc["from"] is None or day >= proc["from"]) and (
                proc["until"] is None or day <= proc["until"]
            ):
                # the current turn (turn 0; between turns, the next one), then this many more [TTH §7.4.3]
                turn_zero = self.turn + (0 if self.turn_open else 1)
                if proc.get("turns") == "finish_round":
                    # [JP 終了コール] the player who went second (even turns) finishes the round
                    self.time_end = turn_zero + turn_zero % 2
                    self.time_by_lead = True
                else:
                    self.time_end = turn_zero + proc["extra_turns"]
                break

    def on_game_ended(self, e: dict[str, Any]) -> None:
        assert self.window is None
        claim = {"outcome": e["outcome"], "winner": e.get("winner"), "reason": e.get("reason")}
        assert not self.owed, f"prizes not taken: {self.owed}"
        if claim["reason"] == "time" and self.expected is None:
            # time over after the last turn allowed [TTH §7.4.3-7.4.4]
            assert self.time_called and self.turn == self.time_end and self.turn_player is not None
            a, b = self.players
            ra, rb = self.needed[a] - self.taken[a], self.needed[b] - self.taken[b]
            if self.stage == "single_elimination" or self.time_by_lead:
                assert ra != rb and claim["winner"] == (a if ra < rb else b)
            else:
                assert claim["outcome"] == "draw"
        else:
            assert claim == self.expected, f"claimed {claim}, the rules give {self.expected}"
        self.ended = claim


def fold(stream: list[dict[str, Any]]) -> Ledger:
    ledger = Ledger()
    for event in stream:
        ledger.apply(event)
    assert ledger.ended is not None, "the stream has no game_ended"
    return ledger


@pytest.fixture(scope="module")
def corpus() -> list[list[dict[str, Any]]]:
    return list(simulate.simulate_corpus(300, seed=2026))


def ending(stream: list[dict[str, Any]]) -> tuple[str, str]:
    last = stream[-1]
    return last["outcome"], last["reason"]


# -------------------------------------------------------------------------------------------- tests


def test_same_seed_same_events() -> None:
    for seed in (0, 1, 99, 2**40):
        assert simulate.simulate_series(seed, "m", "jp-3.4") == simulate.simulate_series(seed, "m", "jp-3.4")
    assert list(simulate.simulate_corpus(30, 5)) == list(simulate.simulate_corpus(30, 5))
    assert simulate.simulate_match(3) != simulate.simulate_match(4)


def test_simulate_match_flattens_the_series() -> None:
    for seed in range(200):
        series = simulate.simulate_series(seed, "m", "kr-1.0", scenario="playoff")
        if len(series) > 1:
            flat = simulate.simulate_match(seed, "m", "kr-1.0", scenario="playoff")
            assert flat == [e for s in series for e in s]
            assert [s[0]["match"] for s in series] == ["m"] + [f"m/tb{i}" for i in range(1, len(series))]
            return
    pytest.fail("no playoff in 200 steered games")


def test_every_stream_passes_the_ledger(corpus: list[list[dict[str, Any]]]) -> None:
    for stream in corpus:
        fold(stream)


def test_every_ending_appears(corpus: list[list[dict[str, Any]]]) -> None:
    roots = [s for s in corpus if "parent" not in s[0]]
    assert len(roots) == 300
    endings = Counter(ending(s) for s in roots)
    for kind in [
        ("win", "prizes"),
        ("win", "no_pokemon"),
        ("win", "deck_out"),
        ("win", "simultaneous"),
        ("draw", "simultaneous"),
        ("win", "concession"),
        ("win", "penalty"),
        ("win", "effect"),
        ("draw", "time"),
        ("win", "time"),
    ]:
        assert endings[kind] > 0, f"no {kind} in {dict(endings)}"
    # prize wins are the usual ending
    assert endings["win", "prizes"] == max(endings.values())
    types = Counter(e["type"] for s in corpus for e in s)
    for etype in ("penalty", "prize_modifier", "checkup_started", "removed", "healed", "switched", "evolved"):
        assert types[etype] > 0, etype
    penalties = Counter(e["kind"] for s in corpus for e in s if e["type"] == "penalty")
    assert penalties["double_prize"] and penalties["game_loss"] and penalties["caution"]
    moves = Counter((e["from"], e["to"]) for s in corpus for e in s if e["type"] == "moved")
    assert moves["deck", "discard"] and moves["deck", "lost_zone"] and moves["deck", "hand"]
    windows = Counter()
    for s in corpus:
        window = None
        for e in s:
            if e["type"] in ("attack", "checkup_started"):
                window = e["type"]
            elif e["type"] in ("attack_ended", "checkup_ended"):
                window = None
            elif e["type"] == "damage":
                windows[window or "effect"] += 1
    assert windows["attack"] and windows["checkup_started"] and windows["effect"]
    assert any(e["type"] == "drew" and e["seq"] <= 5 for s in corpus for e in s), "no mulligan bonus draw"


def test_playoffs_follow_drawn_games_that_must_be_decided(corpus: list[list[dict[str, Any]]]) -> None:
    by_match = {s[0]["match"]: s for s in corpus}
    kinds: Counter[str] = Counter()
    for match, stream in by_match.items():
        start = stream[0]
        if "parent" in start:
            root = by_match[start["parent"]]
            assert "/" not in start["parent"], "a playoff's parent stays the root match"
            rules = RULESETS[start["ruleset"]]["playoff"]
            assert start["playoff"] == rules["kind"] and start["prizes"] == rules["prizes"]
            assert set(start["players"]) == set(root[0]["players"])
            kinds[match.rsplit("/", 1)[1]] += 1
            kinds[start["playoff"]] += 1
            continue
        decides = start.get("must_decide", (start.get("context") or {}).get("stage") == "single_elimination")
        drawn = stream[-1]["outcome"] == "draw"
        assert (f"{match}/tb1" in by_match) == (drawn and decides), match
    n = 1
    while True:
        # a drawn playoff game is followed by the next one
        for match, stream in by_match.items():
            if match.endswith(f"/tb{n}") and stream[-1]["outcome"] == "draw":
                assert f"{match.rsplit('/', 1)[0]}/tb{n + 1}" in by_match
        n += 1
        if n > 8:
            break
    assert kinds["tb1"] and kinds["sudden_death"] and kinds["tiebreak"] and kinds["tiebreaker_game"]
    sd = [s for s in corpus if s[0].get("playoff") == "sudden_death"]
    # sudden death: one prize each, the first prize wins
    assert all(s[0]["prizes"] == 1 for s in sd)


def test_a_drawn_sudden_death_leads_to_tb2() -> None:
    for seed in range(300):
        series = simulate.simulate_series(seed, "sd", "kr-1.0", scenario="playoff")
        if len(series) >= 3:
            assert series[1][-1]["outcome"] == "draw"
            assert series[2][0]["match"] == "sd/tb2" and series[2][0]["parent"] == "sd"
            for s in series:
                fold(s)
            return
    pytest.fail("no tb2 in 300 steered kr-1.0 playoffs")


def test_each_scenario_can_be_asked_for() -> None:
    for scenario in simulate.SCENARIOS:
        hits = 0
        for seed in range(30):
            series = simulate.simulate_series(seed, "s", simulate.RULESETS[seed % 3], scenario=scenario)
            for s in series:
                fold(s)
            hits += 1
        assert hits == 30
    with pytest.raises(Exception, match="unknown scenario"):
        simulate.simulate_series(1, scenario="nope")
    with pytest.raises(Exception, match="unknown ruleset"):
        simulate.simulate_series(1, ruleset="nope")


def test_typical_game_length(corpus: list[list[dict[str, Any]]]) -> None:
    prize_games = [len(s) for s in corpus if ending(s) == ("win", "prizes")]
    assert 150 <= statistics.median(prize_games) <= 500
    assert max(len(s) for s in corpus) < 1500


def test_faults_are_injected_once_where_reported() -> None:
    for i, kind in enumerate(simulate.FAULTS):
        for seed in range(20):
            streams, injected = simulate.simulate_with_faults(seed * 7 + i, [kind], f"f-{kind}")
            if injected:
                assert [f["fault"] for f in injected] == [kind]
                assert injected[0]["code"] == simulate.FAULTS[kind]
                assert 1 <= injected[0]["seq"] <= len(streams[0])
                with pytest.raises(AssertionError):
                    fold(streams[0])
                break
        else:
            pytest.fail(f"{kind} never injected")
    with pytest.raises(Exception, match="unknown fault"):
        simulate.simulate_with_faults(1, ["nope"])


def test_fault_free_by_default() -> None:
    assert simulate.simulate_with_faults(11, [])[1] == []


def test_cli_jsonl_and_msgpack(tmp_path: Path, capsysbinary: pytest.CaptureFixture[bytes]) -> None:
    expected = [e for s in simulate.simulate_corpus(4, 12) for e in s]
    assert cli_main(["simulate", "--matches", "4", "--seed", "12"]) == 0
    out = capsysbinary.readouterr().out
    assert [json.loads(line) for line in out.decode("utf-8").splitlines()] == expected
    path = tmp_path / "games.msgpack"
    assert cli_main(["simulate", "--matches", "4", "--seed", "12", "--out", str(path)]) == 0
    assert list(msgpack.Unpacker(io.BytesIO(path.read_bytes()), raw=False)) == expected
    path = tmp_path / "games.jsonl"
    args = ["simulate", "--matches", "2", "--seed", "1", "--ruleset", "kr-1.0", "--out", str(path)]
    assert cli_main([*args, "--format", "jsonl"]) == 0
    events = [json.loads(line) for line in path.read_text("utf-8").splitlines()]
    assert events and {e["ruleset"] for e in events if e["type"] == "match_started"} == {"kr-1.0"}
    assert cli_main(["simulate", "--matches", "1", "--faults", "prize_count", "--out", str(path)]) == 0
    assert cli_main(["simulate", "--matches", "1", "--faults", "nope", "--out", str(path)]) == 2


def test_simultaneous_results_follow_the_table() -> None:
    """Double knockouts judged by counting conditions [docs/rules.md §4]: draws and wins, from every window.

    A/B: the winner / the other player took all the prizes they need; C/D: the winner / the other player
    cannot put out an Active (for a draw, "winner" is the first player listed).
    """
    rows: Counter[tuple[str, str]] = Counter()
    windows: Counter[str] = Counter()
    games = [
        simulate.simulate_series(seed, f"s{seed}", simulate.RULESETS[seed % 3], scenario="simultaneous")[0]
        for seed in range(300)
    ]
    for stream in games:
        if stream[-1]["reason"] != "simultaneous":
            continue
        ledger = fold(stream)
        w = stream[-1].get("winner") or ledger.players[0]
        other = ledger.other(w)

        def gone(p: str, ledger: Ledger = ledger) -> bool:
            return ledger.active[p] is None and not ledger.bench[p]

        marks = (
            ("A", ledger.taken[w] >= ledger.needed[w]),
            ("B", ledger.taken[other] >= ledger.needed[other]),
            ("C", gone(w)),
            ("D", gone(other)),
        )
        rows[stream[-1]["outcome"], "".join(k for k, ok in marks if ok)] += 1
        last_window = next(
            e["type"] for e in reversed(stream) if e["type"] in ("attack_ended", "checkup_ended", "damage")
        )
        windows[last_window] += 1
    for row in [("draw", "AB"), ("draw", "ABCD"), ("draw", "CD"), ("win", "ABD"), ("win", "ACD")]:
        assert rows[row], f"no {row} in {dict(rows)}"
    assert set(rows) <= {
        ("draw", "AB"),
        ("draw", "AC"),
        ("draw", "BD"),
        ("draw", "ABCD"),
        ("draw", "CD"),
        ("win", "ABD"),
        ("win", "ACD"),
    }, rows
    assert windows["attack_ended"] and windows["checkup_ended"] and windows["damage"], windows
