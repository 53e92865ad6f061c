"""One match's game state: what the rules derive from its effective events, and the derived timeline.

The rule handlers (one module per rule area) fold events into a :class:`State`; the functions that change
the result live in ``replay.engine.judgment``. The state knows nothing of the event log (seq order, the
chain, gaps): ``replay.engine.game`` keeps that, and re-folds a fresh state from the log's effective events
when a judge corrects one.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from replay.engine import findings as F
from replay.engine.board import Player, Pokemon
from replay.engine.findings import finding, say
from replay.engine.outputs import Claim, Finding, Knockout, Penalty, PlayoffLink, Result
from replay.engine.ruleset import Ruleset, load_ruleset

Event = dict[str, Any]


def _default_ruleset() -> Ruleset:
    return load_ruleset("play-2026")


@dataclass(eq=False)
class TimeCalled:
    """Time was called at ``seq``: ``turns_left`` more turns start before time is over [TTH §7.4.3]."""

    seq: int = 0
    turns_left: int = 0
    extra_turns: int = 0
    turn_zero: bool = False
    overtime_minutes: int | None = None
    # the procedure's date (its ruleset's time_procedure resolves it again), kept as plain data so the
    # state copies the same compiled or not
    date: str | None = None
    checkup: bool = True  # False: time is over when the last turn ends, before its checkup [JP 終了コール]


# A dataclass whose every field has a default: compiled by mypyc it is a native class, and copy.deepcopy
# copies it (what Game.record() does to resolve a pending effect on a copy) without a hand-kept field list.
@dataclass(eq=False)
class State:
    """The state of one match, folded event by event (see the module docstring)."""

    match: str | None = None
    # what match_started says
    started: Event | None = None
    ruleset: Ruleset = field(default_factory=_default_ruleset)
    ruleset_id: str = "play-2026"
    players: list[str] = field(default_factory=list)
    first: str | None = None
    context: dict[str, Any] = field(default_factory=dict)
    source: dict[str, Any] = field(default_factory=dict)
    reports_knockouts: bool = True
    parent: str | None = None
    playoff_kind: str | None = None  # set for every playoff game (a game that names its parent)
    must_decide: bool = False
    # the table
    p: dict[str, Player] = field(default_factory=dict)
    mons: dict[str, Pokemon] = field(default_factory=dict)
    # turns
    turn: int = 0
    source_turn: int | None = None  # the turn as the source numbers it (turn_started.turn)
    turn_player: str | None = None
    turn_open: bool = False
    # the turn's limits [docs/rules.md §6]: what the turn player did this turn, the cards they played
    turn_counts: dict[str, int] = field(default_factory=dict)
    turn_cards: list[str] = field(default_factory=list)
    stadium: str | None = None  # the name of the Stadium in play (whoever's)
    # the last attack, as a spectator saw it (the board's ``last_attack``): who attacked with what, and the
    # damage its attack window placed
    last_attack: dict[str, Any] | None = None
    # windows: None | "attack" | "checkup"; an effect outside them is pending until it resolves
    window: str | None = None
    window_claims: set[str] = field(default_factory=set)
    window_removal: bool = False  # an Active left play in this window with nothing to promote
    effect_pending: bool = False
    effect_seq: int = 0
    effect_claims: set[str] = field(default_factory=set)
    effect_prizes: bool = False  # prize cards were taken by a card effect in this window or effect
    prize_effect: str | None = None  # outside the windows: the effect whose prize_taken events go together
    # knockouts and prizes
    batch: int = 0
    knockouts: list[Knockout] = field(default_factory=list)
    unclaimed: list[Knockout] = field(default_factory=list)  # derived, not yet claimed by the source
    forced_kos: set[str] = field(default_factory=set)  # knocked out by a named effect, whatever their HP
    prizes_owed: dict[str, int] = field(default_factory=dict)  # by the knockouts, not yet claimed
    prizes_claimed: dict[str, int] = field(default_factory=dict)  # a claim made one card at a time, so far
    prize_claim_seq: dict[str, int] = field(default_factory=dict)  # ... and the seq of its last card
    prize_claims: list[Event] = field(default_factory=list)  # claims inside a window, compared at its end
    promotions_due: list[str] = field(default_factory=list)
    # the result
    result: Result | None = None
    status: str = "in_progress"
    claimed: Claim | None = None
    penalties: list[Penalty] = field(default_factory=list)
    loss_penalty_seq: int = 0  # the last Game Loss (Match Loss, DQ) penalty's seq, and its offender
    loss_penalty_player: str | None = None
    playoff: PlayoffLink | None = None
    children: list[str] = field(default_factory=list)
    time: TimeCalled | None = None
    lead_mode: str | None = None  # "time" when time ran out level (single elimination, the JP extension)
    time_date: str | None = None  # once time is over: the date its procedure was read for ("" unknown)
    # the derived timeline (every output, in order) and the findings among it
    timeline: list[dict[str, Any]] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)

    def emit(self, output: dict[str, Any]) -> None:
        """Add one derived output to the timeline."""
        self.timeline.append(output)

    def find(
        self, code: str, seq: int, message: str, severity: str | None = None, detail: str | None = None
    ) -> None:
        """Record a finding (and its timeline entry). ``message`` is public; the specifics that quote an
        event (free text, cards that may be hidden) go to ``detail`` (judges only)."""
        f = finding(code, seq, message, severity, detail)
        self.findings.append(f)
        out = {"type": "finding", "code": code, "severity": f.severity, "seq": seq, "message": message}
        if detail is not None:
            out["detail"] = detail
        self.timeline.append(out)

    def opponent(self, player: str) -> str:
        a, b = self.players
        return b if player == a else a

    def player(self, event: Event, field: str = "player") -> Player | None:
        """The player the event names in ``field``; a finding when there is none."""
        pid = event.get(field, "")
        pl = self.p.get(pid)
        if pl is None:
            self.find(
                "unknown_player",
                event["seq"],
                say(F.UNKNOWN_PLAYER, type=event["type"], player=pid, field=field),
            )
        return pl

    def mon(self, event: Event, field: str = "pid") -> Pokemon | None:
        """The Pokémon in play the event names in ``field``; a finding when there is none."""
        pid = event.get(field, "")
        mon = self.mons.get(pid)
        if mon is None:
            self.find("unknown_pokemon", event["seq"], say(F.NO_POKEMON, type=event["type"], pid=pid))
        return mon

    def next_turn_player(self) -> str | None:
        """Who takes the next turn: the opponent of the player whose turn it is (or just was)."""
        if self.turn_player is None:
            return self.first
        return self.opponent(self.turn_player)
