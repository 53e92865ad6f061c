"""One match folded from its events: ``Game.apply(event)`` and the derived timeline.

The envelope lives here (seq order, duplicates, the hash chain, events after the end); each rule area has
its own module and its handlers are registered in ``HANDLERS``. Pure and deterministic: no I/O, no clock.
"""

from __future__ import annotations

import copy
import hashlib
from collections.abc import Callable
from typing import Any, Final

import msgspec

from replay.engine import attack, checkup, knockout, penalties, playoff, result, setup, turn, zones
from replay.engine.board import Player, Pokemon
from replay.engine.chain import _ENCODER, C_LINK, GENESIS, canonical_bytes, canonical_of, link
from replay.engine.findings import finding
from replay.engine.ruleset import Ruleset, load_ruleset

Event = dict[str, Any]

ENGINE_VERSION: Final = "0.1.0"

# Final: a compiled module reads these from a C static, not from its globals dict at every event
_encode: Final = _ENCODER.encode
_decode: Final = msgspec.msgpack.Decoder(dict[str, Any]).decode
_sha256: Final = hashlib.sha256

# Events a source may still send once the engine has decided the game: claims about what just happened,
# annotations, corrections and penalties given right after the game [PG §3-4].
AFTER_END_OK: Final = frozenset(
    {"game_ended", "note", "correction", "prize_taken", "knocked_out", "penalty", "promoted", "turn_ended"}
)
# Events that belong to the effect being resolved outside an attack or checkup: the knockout check for
# that effect waits until they are over [JP3.4 §I-D: "once that effect has resolved"].
EFFECT_PARTS: Final = frozenset({"damage", "knocked_out", "prize_modifier", "note"})


class Game:
    """The state of one match, folded event by event. See docs/engine-api.md."""

    def __init__(self) -> None:
        self.match: str | None = None
        self.next_seq = 1
        self.head = GENESIS
        self.heads: list[bytes] = [GENESIS]  # heads[seq]: the chain head after event seq
        self.raw: list[bytes] = []  # raw[seq - 1]: the canonical bytes of event seq (b"" for a gap)
        self.missing: set[int] = set()
        self.timeline: list[dict[str, Any]] = []
        self.findings: list[dict[str, Any]] = []
        self.ruleset: Ruleset = load_ruleset("play-2026")
        self.ruleset_id = "play-2026"
        self.started: Event | None = None
        self.players: list[str] = []
        self.first: str | None = None
        self.p: dict[str, Player] = {}
        self.mons: dict[str, Pokemon] = {}
        self.context: dict[str, Any] = {}
        self.source: dict[str, Any] = {}
        self.reports_knockouts = True
        self.parent: str | None = None
        self.playoff_kind: str | None = None
        self.must_decide = False
        # turns
        self.turn = 0
        self.source_turn: int | None = None  # the turn as the source numbers it (turn_started.turn)
        self.turn_player: str | None = None
        self.turn_open = False
        # windows: None | "attack" | "checkup"; an effect outside them is pending until it resolves
        self.window: str | None = None
        self.window_claims: set[str] = set()
        self.effect_pending = False
        self.effect_seq = 0
        self.effect_claims: set[str] = set()
        # knockouts and prizes
        self.batch = 0
        self.knockouts: list[dict[str, Any]] = []
        self.unclaimed: list[dict[str, Any]] = []
        self.prizes_owed: dict[str, int] = {}
        self.prize_claims: list[Event] = []
        self.forced_kos: set[str] = set()  # knocked out by a named effect, whatever their HP
        self.promotions_due: list[str] = []
        # the result
        self.result: dict[str, Any] | None = None
        self.status = "in_progress"
        self.claimed: dict[str, Any] | None = None
        self.penalties: list[dict[str, Any]] = []
        self.playoff: dict[str, Any] | None = None
        self.children: list[str] = []
        self.time: dict[str, Any] | None = None
        self.lead_mode: str | None = None  # "time" when time ran out level in single elimination
        self.corrections = 0

    # ------------------------------------------------------------------ envelope
    def apply(self, event: Event, canonical: bytes | None = None) -> list[dict[str, Any]]:
        """Fold one schema-valid event; returns the derived outputs it caused (never raises on such input).

        The returned list is this event's outputs only; an exact duplicate returns ``[]``.
        ``canonical``: the event's canonical bytes (:func:`replay.engine.chain.canonical_bytes`), when the
        caller
        has them already; the engine encodes the event otherwise.
        """
        seq = event["seq"]
        if seq != self.next_seq or event["match"] != self.match:
            return self._apply_out_of_line(event, canonical)
        # The hot path: the next event of this match. Only untracked bytes are kept per event (the chain
        # heads and the canonical bytes), so a long replay does not feed the cyclic garbage collector.
        if canonical is not None:
            canon = canonical
        else:
            try:
                canon = _encode(event)
            except OverflowError:
                canon = canonical_bytes(event)
        if C_LINK is not None:
            head = self.head = C_LINK(self.head, canon)
        else:
            head = self.head = _sha256(self.head + canon).digest()
        self.heads.append(head)
        self.raw.append(canon)
        self.next_seq += 1
        if type(seq) is not int:
            event = _integral(event)  # seq 5.0 (after its canonical bytes, the event as sent, are chained)
        timeline = self.timeline
        mark = len(timeline)
        etype: str = event["type"]
        if etype == "correction":
            self._correct(event)
            return self.timeline[-1:]
        # fold(), inlined: this is the per-event path of every replay
        if (self.effect_pending or self.result is not None or self.started is None) and not self._admit(
            event, etype
        ):
            return timeline[mark:]
        handler = _handler(etype)
        if handler is not None:
            handler(self, event)
        return timeline[mark:] if len(timeline) != mark else []

    def apply_msgpack(self, raw: bytes) -> list[dict[str, Any]]:
        """:meth:`apply` for one event as MessagePack bytes (one message of the Kafka topic, say).

        ``raw`` must hold one schema-valid event. When its bytes are canonical already (keys sorted, as
        ``prizecheck produce`` sends them), the chain hashes them as they are; otherwise the decoded event
        is encoded. Either way the chain, the archive and the record are what :meth:`apply` gives.
        """
        event = _decode(raw)
        return self.apply(event, canonical_of(raw, event))

    def _apply_out_of_line(self, event: Event, canonical: bytes | None) -> list[dict[str, Any]]:
        """The first event, duplicates, reused seqs, gaps and events of another match."""
        seq = int(event["seq"])  # JSON Schema counts 5.0 as an integer; the event keeps it as sent
        match = event["match"]
        mark = len(self.timeline)
        if self.match is None:
            self.match = match
        elif match != self.match:
            self.find("wrong_match", seq, f"event for match {match!r} sent to match {self.match!r}; ignored")
            return self.timeline[mark:]
        if seq < self.next_seq:
            if seq in self.missing:
                self.find("late_event", seq, f"seq {seq} arrived after its gap was reported; not applied")
            elif link(self.heads[seq - 1], canonical or canonical_bytes(event)) == self.heads[seq]:
                return []  # an exact duplicate: at-least-once delivery, a no-op
            else:
                self.find("duplicate_seq", seq, f"a different event reuses seq {seq}; not applied")
            return self.timeline[mark:]
        if seq > self.next_seq:
            gap = f"{self.next_seq}" if seq == self.next_seq + 1 else f"{self.next_seq}..{seq - 1}"
            self.find("seq_gap", seq, f"events {gap} are missing before seq {seq}")
            self.missing.update(range(self.next_seq, seq))
            # the chain goes on from the last head; a missing seq keeps that head and no bytes
            for _ in range(self.next_seq, seq):
                self.heads.append(self.head)
                self.raw.append(b"")
            self.next_seq = seq
        return self.timeline[mark:] + self.apply(event, canonical)

    def fold(self, event: Event) -> None:
        """Apply the rules for one event (the envelope has been checked)."""
        if type(event["seq"]) is not int:
            event = _integral(event)
        etype: str = event["type"]
        if (self.effect_pending or self.result is not None or self.started is None) and not self._admit(
            event, etype
        ):
            return
        handler = _handler(etype)
        if handler is not None:
            handler(self, event)

    def _admit(self, event: Event, etype: str) -> bool:
        """Before the start, after the end, or with an effect still resolving: may this event go on?"""
        seq: int = event["seq"]
        if self.started is None and etype != "match_started":
            self.find("no_match_started", seq, f"{etype} before match_started; ignored")
            return False
        if self.effect_pending and etype not in EFFECT_PARTS:
            knockout.resolve_effect(self)
        if self.result is not None and etype not in AFTER_END_OK:
            decided = self.result["decided_at"]
            self.find("event_after_end", seq, f"{etype} after the game was decided at seq {decided}; ignored")
            return False
        return True

    def events(self) -> list[Event]:
        """The applied events (decoded again from their canonical bytes), in seq order."""
        return [_decode(raw) for raw in self.raw if raw]

    # ------------------------------------------------------------------ helpers for rule modules
    def emit(self, output: dict[str, Any]) -> None:
        self.timeline.append(output)

    def find(self, code: str, seq: int, message: str, severity: str | None = None) -> None:
        f = finding(code, seq, message, severity)
        self.findings.append(f)
        self.emit({"type": "finding", **f})

    def opponent(self, player: str) -> str:
        a, b = self.players
        return b if player == a else a

    def player(self, event: Event, field: str = "player") -> Player | None:
        pid = event.get(field, "")
        pl = self.p.get(pid)
        if pl is None:
            self.find("unknown_player", event["seq"], f"{event['type']}: unknown player {pid!r} in {field}")
        return pl

    def mon(self, event: Event, field: str = "pid") -> Pokemon | None:
        pid = event.get(field, "")
        mon = self.mons.get(pid)
        if mon is None:
            self.find("unknown_pokemon", event["seq"], f"{event['type']}: no Pokémon {pid!r} in play")
        return mon

    def next_turn_player(self) -> str | None:
        """Who takes the next turn: the opponent of the player whose turn it is (or just was)."""
        if self.turn_player is None:
            return self.first
        return self.opponent(self.turn_player)

    # ------------------------------------------------------------------ corrections
    def _correct(self, event: Event) -> None:
        """A judge's correction: history is never edited, the game is re-derived with it applied."""
        target = event.get("target")
        if isinstance(target, float) and target.is_integer():
            target = int(target)
        action = event.get("action")
        seq = event["seq"]
        history = [_integral(e) for e in self.events()]
        known = {e["seq"] for e in history}
        if target not in known or target == 1:
            self.find(
                "corrected",
                seq,
                f"correction of seq {target!r} ignored: no such event (or match_started)",
                "warning",
            )
            return
        if action != "void":
            original = next(e for e in history if e["seq"] == target)
            problem = _amendment_problem(original, event.get("event"))
            if problem:
                self.find("corrected", seq, f"amendment of seq {target} ignored: {problem}", "warning")
                return
        self.corrections += 1
        effective: list[Event] = []
        voided: set[int] = set()
        amended: dict[int, Event] = {}
        for e in history:
            if e["type"] == "correction" and e.get("target") in known:
                if e.get("action") == "void":
                    voided.add(e["target"])
                elif not _amendment_problem(
                    next(x for x in history if x["seq"] == e["target"]), e.get("event")
                ):
                    amended[e["target"]] = e["event"]
        for e in history:
            if e["type"] == "correction" or e["seq"] in voided:
                continue
            if e["seq"] in amended:
                e = _amend(e, amended[e["seq"]])
            effective.append(e)
        fresh = Game()
        fresh.match = self.match
        for e in effective:
            fresh.fold(e)
        # keep the envelope (chain, seq bookkeeping, stream findings) and take the re-derived game
        stream_codes = {"seq_gap", "duplicate_seq", "late_event", "wrong_match", "corrected"}
        kept = [f for f in self.findings if f["code"] in stream_codes]
        for name in _DERIVED_STATE:
            setattr(self, name, getattr(fresh, name))
        self.findings = kept + fresh.findings
        self.timeline = fresh.timeline
        self.find(
            "corrected",
            seq,
            f"seq {target} {'voided' if action == 'void' else 'amended'} by a judge; "
            f"game re-derived ({self.corrections} correction(s))",
        )

    # ------------------------------------------------------------------ read side
    def resolved(self) -> Game:
        """This game with a pending effect resolved (a copy when one is pending; never mutates self)."""
        if not self.effect_pending:
            return self
        # Resolving the effect only appends to the timeline and findings and changes the board, so the
        # history (bytes), the chain, the ruleset and the entries already derived are shared, not copied.
        shared: list[Any] = [self.raw, self.heads, self.ruleset, self.started]
        memo: dict[int, Any] = {id(x): x for x in shared}
        memo[id(self.timeline)] = list(self.timeline)
        memo[id(self.findings)] = list(self.findings)
        memo[id(self.knockouts)] = list(self.knockouts)
        for entry in self.knockouts:
            memo[id(entry)] = entry
        g = copy.deepcopy(self, memo)
        knockout.resolve_effect(g)
        return g

    def __deepcopy__(self, memo: dict[int, Any]) -> Game:
        # Attribute by attribute, one memo: what copy.deepcopy does for a plain class, and cannot do for
        # a class compiled by mypyc (no __dict__ to copy).
        g = Game()
        memo[id(self)] = g
        for name in GAME_STATE:
            setattr(g, name, copy.deepcopy(getattr(self, name), memo))
        return g

    def record(self) -> dict[str, Any]:
        """The end-of-game record (contract §3), deterministic for the events applied so far."""
        from replay.engine.record import build_record

        record = build_record(self.resolved())
        record["provisional"] = self.effect_pending
        return record

    def board(self) -> dict[str, Any]:
        """The public board: what a spectator may see (counts for hidden zones)."""
        from replay.engine.record import build_board

        return build_board(self)


def _integral(event: Event) -> Event:
    """The event with its seq (and a correction's target) as ints where the source sent integral floats.

    JSON Schema counts 5.0 as the integer 5 and MessagePack carries it as a float (the JSON decoder already
    reads it as 5); the rules, their outputs and the record always see the int. The chain is not
    affected: an event's canonical bytes are those of the event as sent.
    """
    seq = event["seq"]
    target = event.get("target")
    if type(seq) is int and not isinstance(target, float):
        return event
    out = dict(event)
    out["seq"] = int(seq)
    if isinstance(target, float) and target.is_integer():
        out["target"] = int(target)
    return out


def _amend(original: Event, amendment: Event) -> Event:
    return {**original, **amendment, "seq": original["seq"], "match": original["match"]}


def _amendment_problem(original: Event, amendment: object) -> str | None:
    """Why an amendment cannot be applied (it must give a contract-valid event), or None."""
    from replay.engine.errors import EventError
    from replay.engine.validate import validate_event

    if not isinstance(amendment, dict):
        return "the correction carries no event to amend with"
    try:
        validate_event(_amend(original, amendment))
    except EventError as exc:
        return f"the amended event is not valid ({exc.message}{f' in {exc.field}' if exc.field else ''})"
    return None


# Every attribute of a Game, in the order __init__ sets them: what resolved() copies (a compiled Game has
# no __dict__ to list them; a test checks this list against the class).
GAME_STATE: Final = (
    "match",
    "next_seq",
    "head",
    "heads",
    "raw",
    "missing",
    "timeline",
    "findings",
    "ruleset",
    "ruleset_id",
    "started",
    "players",
    "first",
    "p",
    "mons",
    "context",
    "source",
    "reports_knockouts",
    "parent",
    "playoff_kind",
    "must_decide",
    "turn",
    "source_turn",
    "turn_player",
    "turn_open",
    "window",
    "window_claims",
    "effect_pending",
    "effect_seq",
    "effect_claims",
    "batch",
    "knockouts",
    "unclaimed",
    "prizes_owed",
    "prize_claims",
    "forced_kos",
    "promotions_due",
    "result",
    "status",
    "claimed",
    "penalties",
    "playoff",
    "children",
    "time",
    "lead_mode",
    "corrections",
)
# The envelope a correction keeps (history, chain, seq bookkeeping); everything else is re-derived.
ENVELOPE_STATE: Final = frozenset(
    {"match", "next_seq", "head", "heads", "raw", "missing", "timeline", "findings", "corrections"}
)
_DERIVED_STATE: Final = [name for name in GAME_STATE if name not in ENVELOPE_STATE]

HANDLERS: Final[dict[str, Callable[[Game, Event], None]]] = {
    "match_started": setup.on_match_started,
    "setup": setup.on_setup,
    "turn_started": turn.on_turn_started,
    "drew": turn.on_drew,
    "moved": turn.on_moved,
    "turn_ended": turn.on_turn_ended,
    "played": setup.on_played,
    "evolved": setup.on_evolved,
    "attached": setup.on_attached,
    "switched": setup.on_switched,
    "removed": knockout.on_removed,
    "attack": attack.on_attack,
    "damage": attack.on_damage,
    "healed": attack.on_healed,
    "attack_ended": attack.on_attack_ended,
    "condition": checkup.on_condition,
    "checkup_started": checkup.on_checkup_started,
    "checkup_ended": checkup.on_checkup_ended,
    "knocked_out": knockout.on_knocked_out,
    "prize_taken": knockout.on_prize_taken,
    "prize_modifier": knockout.on_prize_modifier,
    "promoted": knockout.on_promoted,
    "conceded": result.on_conceded,
    "effect_result": result.on_effect_result,
    "game_ended": result.on_game_ended,
    "penalty": penalties.on_penalty,
    "time_called": penalties.on_time_called,
    "note": playoff.on_note,
    "discarded": zones.on_discarded,
    "trainer_played": zones.on_trainer_played,
    "searched": zones.on_searched,
    "to_hand": zones.on_to_hand,
    "shuffled": zones.on_shuffled,
}
_handler: Final = HANDLERS.get
