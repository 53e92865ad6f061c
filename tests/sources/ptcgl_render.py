"""A simulated game (replay/generators/simulate.py) printed as the Pokémon TCG Live client prints a battle
log, for round-trip tests of the PTCGL importer (tests/sources/test_ptcgl_roundtrip.py).

Only what the client prints about Pokémon in play is rendered (Setup, turn headers and their draw, Pokémon
played, evolved, attached, attacks and their damage, Special Conditions, checkups, healing, switches,
knockouts, prizes, promotions, the end line), in the client's English templates
(replay/sources/ptcgl/templates/en.json), with the client's habits: spread damage as "took N damage" detail
lines, Phantom Dive's damage as damage counters, an effect's damage counters printed under the acting
player's name, "ended their turn." only for a turn without an attack. Hidden cards stay hidden. Cards that
move between hand, deck and discard pile are left out: the importer's counts may then say so in findings,
which these tests do not look at. ``render`` returns None for a game it cannot print faithfully (a
Pokémon leaving play by an effect, penalties, time, a drawn game).
"""

from __future__ import annotations

from typing import Any

Event = dict[str, Any]

#: event types a printable game may hold
PRINTABLE = frozenset(
    {
        "match_started", "setup", "turn_started", "turn_ended", "drew", "played", "evolved", "attached",
        "trainer_played", "moved", "switched", "attack", "damage", "attack_ended", "condition",
        "checkup_started", "checkup_ended", "healed", "knocked_out", "prize_taken", "prize_modifier",
        "promoted", "conceded", "game_ended",
    }
)  # fmt: skip
_END = {
    "prizes": "All Prize cards taken.",
    "no_pokemon": "No Benched Pokémon for backup.",
    "concession": "Opponent conceded.",
}
_COND = {c: c.capitalize() for c in ("poisoned", "burned", "asleep", "paralyzed", "confused")}


def render(events: list[Event]) -> str | None:
    """The battle log of one simulated game, or None when it holds what this printer does not print."""
    if any(e["type"] not in PRINTABLE for e in events):
        return None
    end = events[-1]
    if end["type"] != "game_ended" or end.get("outcome") != "win" or end.get("reason") not in _END:
        return None
    return _Printer(events).text()


class _Printer:
    def __init__(self, events: list[Event]) -> None:
        self.events = events
        self.out: list[str] = []
        self.name: dict[str, str] = {}
        self.owner: dict[str, str] = {}
        self.active: dict[str, str | None] = {}
        self.conds: dict[str, list[str]] = {}
        self.turn: str | None = None
        self.attacked = False
        self.drawn = False
        self.attack: Event | None = None  # the attack whose damage lines are being printed
        self.main_printed = False
        self.effect: str | None = None  # the effect (Cursed Blast, Toxic Spread) whose lines are printed
        self.healed: Event | None = None

    def text(self) -> str:
        start = self.events[0]
        a, b = start["players"]
        first = start["first"]
        self.players = (a, b)
        self.out += ["Setup", f"{first} won the coin toss.", f"{first} decided to go first."]
        for e in self.events[1:]:
            getattr(self, "on_" + e["type"], lambda _e: None)(e)
        return "\n".join(self.out) + "\n"

    # -- helpers ----------------------------------------------------------------------------------------
    def other(self, p: str) -> str:
        a, b = self.players
        return b if p == a else a

    def spot(self, pid: str) -> str:
        return "in the Active Spot" if self.active.get(self.owner[pid]) == pid else "on the Bench"

    def mon(self, pid: str) -> str:
        return f"{self.owner[pid]}'s {self.name[pid]}"

    def enter(self, player: str, pid: str, card: Event) -> None:
        self.name[pid], self.owner[pid] = card["name"], player
        self.conds[pid] = []

    # -- the events -------------------------------------------------------------------------------------
    def on_setup(self, e: Event) -> None:
        p = e["player"]
        act = e["active"]
        self.enter(p, act["pid"], act["card"])
        self.active[p] = act["pid"]
        self.out.append(f"{p} played {act['card']['name']} to the Active Spot.")
        for m in e.get("bench") or []:
            self.enter(p, m["pid"], m["card"])
            self.out.append(f"{p} played {m['card']['name']} to the Bench.")

    def on_turn_started(self, e: Event) -> None:
        self.turn, self.attacked, self.drawn = e["player"], False, False
        self.out += ["", f"{e['player']}'s Turn"]

    def on_drew(self, e: Event) -> None:
        if not self.drawn and e["player"] == self.turn:
            self.drawn = True
            self.out.append(f"{e['player']} drew a card.")

    def on_turn_ended(self, e: Event) -> None:
        if not self.attacked:
            self.out.append(f"{e['player']} ended their turn.")

    def on_played(self, e: Event) -> None:
        p, pid = e["player"], e["pid"]
        self.enter(p, pid, e["card"])
        if e.get("to") == "active" or self.active.get(p) is None:
            self.active[p] = pid
            self.out.append(f"{p} played {e['card']['name']} to the Active Spot.")
        else:
            self.out.append(f"{p} played {e['card']['name']} to the Bench.")

    def on_evolved(self, e: Event) -> None:
        pid = e["pid"]
        old, new = self.name[pid], e["card"]["name"]
        self.out.append(f"{e['player']} evolved {old} to {new} {self.spot(pid)}.")
        self.name[pid] = new
        self.conds[pid] = []

    def on_attached(self, e: Event) -> None:
        pid = e["pid"]
        self.out.append(f"{e['player']} attached {e['card']['name']} to {self.name[pid]} {self.spot(pid)}.")

    def on_trainer_played(self, e: Event) -> None:
        self.out.append(f"{e['player']} played {e['card']['name']}.")

    def on_switched(self, e: Event) -> None:
        p, pid = e["player"], e["pid"]
        old = self.active.get(p)
        self.active[p] = pid
        if e.get("effect") is None and old is not None:
            self.out += [
                f"{p} retreated {self.name[old]} to the Bench.",
                f"{self.mon(pid)} is now in the Active Spot.",
            ]
        elif old is not None:
            self.out.append(
                f"- {self.mon(pid)} was switched with {self.mon(old)} to become the Active Pokémon."
            )
        if old is not None:
            self.conds[old] = []  # a Benched Pokémon has no Special Condition

    def on_attack(self, e: Event) -> None:
        self.attacked = True
        self.attack, self.main_printed = e, False
        self.effect = None

    def flush_attack(self) -> None:
        """A damage-less attack: printed at its end."""
        e = self.attack
        if e is not None and not self.main_printed:
            self.out.append(f"{self.mon(e['pid'])} used {e['name']}.")
            self.main_printed = True

    def on_damage(self, e: Event) -> None:
        pid, n = e["pid"], e["amount"]
        by = e.get("by")
        a = self.attack
        if a is not None and by == a["pid"]:
            q = self.owner[pid]
            if not self.main_printed and self.active.get(q) == pid and q != a["player"]:
                self.out.append(
                    f"{self.mon(a['pid'])} used {a['name']} on {q}'s {self.name[pid]} for {n} damage."
                )
                self.main_printed = True
                return
            self.flush_attack()
            if a["name"] == "Phantom Dive" and q != a["player"]:
                self.out.append(f"- {a['player']} put {n // 10} damage counters on {self.mon(pid)}.")
            else:
                self.out.append(f"- {self.mon(pid)} took {n} damage.")
            return
        if a is not None and by is None:
            # a confused attacker's coin flip: "3 damage counters were placed on ... for the Special
            # Condition Confused." after the attack's line
            self.flush_attack()
            self.out.append(
                f"{n // 10} damage counters were placed on {self.mon(pid)} for the Special Condition "
                "Confused."
            )
            return
        if self.turn is None or self.phase_checkup:
            cond = "Burned" if n == 20 and "burned" in self.conds[pid] else "Poisoned"
            self.out.append(
                f"{n // 10} damage counters were placed on {self.mon(pid)} for the Special Condition {cond}."
            )
            return
        p = self.turn
        if by != self.effect:
            self.effect = by
            user = self.active.get(p)
            assert user is not None
            self.out.append(f"{self.mon(user)} used {by}.")
        if self.healed is not None:
            src = self.healed
            self.healed = None
            self.out.append(
                f"- {p} moved {n // 10} damage counters from {self.mon(src['pid'])} to {self.mon(pid)}."
            )
            return
        # the client prints an effect's counters under the acting player's name [docs/importers.md]
        self.out.append(f"- {p} put {n // 10} damage counters on {p}'s {self.name[pid]}.")

    phase_checkup = False

    def on_healed(self, e: Event) -> None:
        self.healed = e  # Adrena-Brain: the counters move on to the next damage's Pokémon

    def on_attack_ended(self, e: Event) -> None:
        self.flush_attack()
        self.attack = None

    def on_condition(self, e: Event) -> None:
        pid = e["pid"]
        cond = e["condition"]
        if e.get("on"):
            self.conds[pid].append(cond)
            self.out.append(f"- {self.mon(pid)} is now {_COND[cond]}.")
        else:
            if cond in self.conds[pid]:
                self.conds[pid].remove(cond)
            self.out.append(f"{self.mon(pid)} is no longer {_COND[cond]}.")

    def on_checkup_started(self, e: Event) -> None:
        self.phase_checkup = True
        self.out += ["", "Pokémon Checkup"]

    def on_checkup_ended(self, e: Event) -> None:
        self.phase_checkup = False

    def on_knocked_out(self, e: Event) -> None:
        self.flush_attack()
        pid = e["pid"]
        self.out.append(f"{self.mon(pid)} was Knocked Out!")
        if self.active.get(self.owner[pid]) == pid:
            self.active[self.owner[pid]] = None

    def on_prize_taken(self, e: Event) -> None:
        p, n = e["player"], e["count"]
        self.out.append(f"{p} took a Prize card." if n == 1 else f"{p} took {n} Prize cards.")
        self.out += [f"A card was added to {p}'s hand."] * n

    def on_promoted(self, e: Event) -> None:
        p, pid = e["player"], e["pid"]
        self.active[p] = pid
        self.out.append(f"{self.mon(pid)} is now in the Active Spot.")

    def on_game_ended(self, e: Event) -> None:
        self.out.append(f"{_END[e['reason']]} {e['winner']} wins.")
