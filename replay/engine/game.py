"""One match folded from its events: ``Game.apply(event)`` and the derived timeline.

A game is its event log (``replay.engine.log``: seq order, duplicates, gaps, the hash chain) and the state
the rules fold from the log's events (``replay.engine.state``). Each rule area has its own module, and its
handlers are registered in ``HANDLERS``; they change the result only through ``replay.engine.judgment``.
Pure and deterministic: no I/O, no clock.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any, Final

import msgspec

from replay.engine import (
    attack,
    checkup,
    claims,
    judgment,
    knockout,
    notes,
    penalties,
    result,
    setup,
    turn,
    zones,
)
from replay.engine import findings as F
from replay.engine.chain import _ENCODER, canonical_bytes, canonical_of
from replay.engine.findings import say
from replay.engine.log import EventLog
from replay.engine.outputs import ENGINE_VERSION, Finding, Record
from replay.engine.record import build_board, build_record
from replay.engine.state import Event, State

__all__ = ["ENGINE_VERSION", "HANDLERS", "Event", "Game"]

# Final: a compiled module reads these from a C static, not from its globals dict at every event
_encode: Final = _ENCODER.encode
_decode: Final = msgspec.msgpack.Decoder(dict[str, Any]).decode

# Events a source may still send once the engine has decided the game: claims about what just happened,
# annotations, corrections and penalties given right after the game [PG §3-4].
AFTER_END_OK: Final = frozenset(
    {"game_ended", "note", "correction", "prize_taken", "knocked_out", "penalty", "promoted", "turn_ended"}
)
# Events that belong to the effect being resolved outside an attack or checkup: the knockout check for
# that effect waits until they are over [JP3.4 §I-D: "once that effect has resolved"].
EFFECT_PARTS: Final = frozenset({"damage", "knocked_out", "prize_modifier", "note"})
# Findings about the stream itself, which a judge's correction keeps when it re-folds the game.
STREAM_FINDINGS: Final = frozenset({"seq_gap", "duplicate_seq", "late_event", "wrong_match", "corrected"})


class Game:
    """One match: its event log and the state folded from it. See docs/engine-api.md."""

    def __init__(self, *, check_amendment: Callable[[Event], object] | None = None) -> None:
        self.log = EventLog()
        self.state = State()
        #: The edge's check of an amended event (a correction's ``event`` over the event it amends), handed
        #: in by the caller (``replay.contract.validate.validate_event``: the engine imports nothing of the
        #: edge): it raises :class:`~replay.engine.errors.EventError` for an event the contract refuses,
        #: and the correction is then refused. None: only the shape is checked (the amendment is an event
        #: object), as every event the engine folds is taken as contract-valid already.
        self.check_amendment = check_amendment

    # ------------------------------------------------------------------ what callers read
    @property
    def match(self) -> str | None:
        """The match id (of the first event), None before any."""
        return self.log.match

    @property
    def next_seq(self) -> int:
        """The seq the next in-line event must have."""
        return self.log.next_seq

    @property
    def status(self) -> str:
        """``in_progress``, ``finished`` or ``awaiting_playoff``."""
        return self.state.status

    @property
    def effect_pending(self) -> bool:
        """An effect outside the attack and checkup windows is still resolving: the record is provisional."""
        return self.state.effect_pending

    @property
    def timeline(self) -> list[dict[str, Any]]:
        """Every derived output so far, in order."""
        return self.state.timeline

    @property
    def findings(self) -> list[Finding]:
        """The findings so far (``Finding.to_json()`` is each one's record JSON)."""
        return self.state.findings

    # ------------------------------------------------------------------ the envelope
    def apply(self, event: Event, canonical: bytes | None = None) -> list[dict[str, Any]]:
        """Fold one schema-valid event; returns the derived outputs it caused (never raises on such input).

        The returned list is this event's outputs only; an exact duplicate returns ``[]``.
        ``canonical``: the event's canonical bytes (:func:`replay.engine.chain.canonical_bytes`), when the
        caller has them already; the engine encodes the event otherwise.
        """
        seq = event["seq"]
        log = self.log
        if seq != log.next_seq or event["match"] != log.match:
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
        log.append(canon)
        if type(seq) is not int:
            event = _integral(event)  # seq 5.0 (after its canonical bytes, the event as sent, are chained)
        st = self.state
        timeline = st.timeline
        mark = len(timeline)
        etype: str = event["type"]
        if etype == "correction":
            self._correct(event)
            return self.state.timeline[-1:]
        # fold(), inlined: this is the per-event path of every replay
        if (st.effect_pending or st.result is not None or st.started is None) and not _admit(
            st, event, etype
        ):
            return timeline[mark:]
        handler = _handler(etype)
        if handler is not None:
            handler(st, event)
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
        log = self.log
        st = self.state
        mark = len(st.timeline)
        if log.match is None:
            log.match = st.match = match
        elif match != log.match:
            st.find("wrong_match", seq, say(F.WRONG_MATCH, match=match, log=log.match))
            return st.timeline[mark:]
        if seq < log.next_seq:
            if log.is_missing(seq):
                st.find("late_event", seq, say(F.LATE_EVENT, seq=seq))
            elif log.is_duplicate(seq, canonical or canonical_bytes(event)):
                return []  # an exact duplicate: at-least-once delivery, a no-op
            else:
                st.find("duplicate_seq", seq, say(F.DUPLICATE_SEQ, seq=seq))
            return st.timeline[mark:]
        if seq > log.next_seq:
            gap = f"{log.next_seq}" if seq == log.next_seq + 1 else f"{log.next_seq}..{seq - 1}"
            st.find("seq_gap", seq, say(F.SEQ_GAP, gap=gap, seq=seq))
            log.skip_to(seq)  # one range, whatever its length
        return st.timeline[mark:] + self.apply(event, canonical)

    def events(self) -> list[Event]:
        """The applied events (decoded again from their canonical bytes), in seq order."""
        return [_decode(raw) for raw in self.log.raw]

    # ------------------------------------------------------------------ corrections
    def _correct(self, event: Event) -> None:
        """A judge's correction: history is never edited; the state is re-folded from the effective events
        (the log's events with every correction so far applied)."""
        target = event.get("target")
        if isinstance(target, float) and target.is_integer():
            target = int(target)
        action = event.get("action")
        seq = event["seq"]
        history = [_integral(e) for e in self.events()]
        by_seq = {e["seq"]: e for e in history}
        old = self.state
        if target not in by_seq or target == 1:
            old.find(
                "corrected",
                seq,
                say(F.CORRECTION_NO_TARGET, target=target),
                "warning",
            )
            return
        if action != "void":
            problem = _amendment_problem(by_seq[target], event.get("event"), self.check_amendment)
            if problem:
                # The refused amendment's fields (a hidden card, say) are for judges: the detail.
                old.find(
                    "corrected",
                    seq,
                    say(problem[0], target=target),
                    "warning",
                    problem[1],
                )
                return
        self.log.corrections += 1
        voided: set[int] = set()
        amended: dict[int, Event] = {}
        for e in history:
            if e["type"] == "correction" and e.get("target") in by_seq:
                if e.get("action") == "void":
                    voided.add(e["target"])
                elif not _amendment_problem(by_seq[e["target"]], e.get("event"), self.check_amendment):
                    amended[e["target"]] = e["event"]
        fresh = State(match=self.log.match)
        for e in history:
            if e["type"] == "correction" or e["seq"] in voided:
                continue
            fold(fresh, _amend(e, amended[e["seq"]]) if e["seq"] in amended else e)
        # the stream's own findings (gaps, duplicates, corrections) stay, before the re-derived ones
        fresh.findings = [f for f in old.findings if f.code in STREAM_FINDINGS] + fresh.findings
        self.state = fresh
        # who made it is what the correction says (the service checks it names its writer), never
        # assumed: during the game the match's recorder corrects it too (docs/events.md, correction)
        author = event.get("author")
        by = say(F.BY, author=author) if isinstance(author, str) and author else ""
        fresh.find(
            "corrected",
            seq,
            say(
                F.VOIDED if action == "void" else F.AMENDED,
                target=target,
                by=by,
                corrections=self.log.corrections,
            ),
        )

    # ------------------------------------------------------------------ read side
    def resolved(self) -> State:
        """The state as the stream stands: a pending effect resolved and, once the game is decided, the
        source's claims closed (a copy when either is due; never changes this game).

        A decided game's claims close where its stream ends: a prize claim that stopped short and a
        knockout the source never claimed are findings of the record even when no ``game_ended`` (or other
        closing event) follows the deciding one [docs/rules.md §3 step 4; docs/records.md, Findings]. A
        claim sent later (they are admitted after the end) completes them, and the record then has none.
        A provisional view (an effect still resolving) leaves them open: the effect's claims may follow.
        """
        st = self.state
        if not st.effect_pending and not _claims_open(st):
            return st
        # Resolving the effect appends to the timeline, the findings and the knockouts and changes the
        # board: the entries already derived (immutable) and the ruleset are shared, not copied.
        memo: dict[int, Any] = {id(st.ruleset): st.ruleset, id(st.started): st.started}
        memo[id(st.timeline)] = list(st.timeline)
        memo[id(st.findings)] = list(st.findings)
        memo[id(st.knockouts)] = list(st.knockouts)
        for ko in st.knockouts:
            memo[id(ko)] = ko
        copied = copy.deepcopy(st, memo)
        if copied.effect_pending:
            # a provisional view: the effect's own knockout claims may still come (EFFECT_PARTS), so
            # its claims are not closed here
            judgment.resolve_effect(copied)
        elif _claims_open(copied):
            claims.close(copied, self.log.next_seq - 1)
        return copied

    def typed_record(self) -> Record:
        """The end-of-game record as a typed value (:class:`replay.engine.outputs.Record`)."""
        return build_record(self.resolved(), self.log, provisional=self.state.effect_pending)

    def record(self) -> dict[str, Any]:
        """The end-of-game record (docs/records.md) as JSON, deterministic for the events applied so far."""
        return self.typed_record().to_json()

    def board(self) -> dict[str, Any]:
        """The public board: what a spectator may see (counts for hidden zones)."""
        return build_board(self.state, self.log)


def fold(st: State, event: Event) -> None:
    """Apply the rules for one event whose envelope has been checked (seq order, match, chain)."""
    if type(event["seq"]) is not int:
        event = _integral(event)
    etype: str = event["type"]
    if (st.effect_pending or st.result is not None or st.started is None) and not _admit(st, event, etype):
        return
    handler = _handler(etype)
    if handler is not None:
        handler(st, event)


def _admit(st: State, event: Event, etype: str) -> bool:
    """Before the start, after the end, or with an effect still resolving: may this event go on?"""
    seq: int = event["seq"]
    if st.started is None and etype != "match_started":
        st.find("no_match_started", seq, say(F.NO_START, type=etype))
        return False
    if st.effect_pending and not _continues_effect(st, event, etype):
        ongoing = st.result is None
        judgment.resolve_effect(st)
        if ongoing and st.result is not None and etype not in AFTER_END_OK:
            return False  # the effect ended the game before this event: nothing follows its game_over
    if st.result is not None and etype not in AFTER_END_OK:
        decided = st.result.decided_at
        st.find("event_after_end", seq, say(F.AFTER_END, type=etype, decided=decided))
        return False
    return True


def _continues_effect(st: State, event: Event, etype: str) -> bool:
    """Is this event part of the effect being resolved outside the windows? Damage and its knockouts; or,
    for an effect that made a player take Prize cards, the same effect's prize_taken for the other player
    (both sides' last prizes taken by one effect are judged together) [docs/rules.md §1.1, §2]."""
    if st.prize_effect is None:
        return etype in EFFECT_PARTS
    return etype == "note" or (etype == "prize_taken" and event.get("effect") == st.prize_effect)


def _claims_open(st: State) -> bool:
    """The game is decided and the source's claims about its knockouts are not complete."""
    return st.result is not None and bool(st.unclaimed or st.prizes_claimed)


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


def _amendment_problem(
    original: Event, amendment: object, check: Callable[[Event], object] | None
) -> tuple[str, str | None] | None:
    """Why an amendment cannot be applied (it must give a contract-valid event, as ``check``, the edge's
    validator handed in to the game, says), or None: the public reason, and the validator's words (which
    quote the refused value) for the finding's detail."""
    from replay.engine.errors import EventError

    if not isinstance(amendment, dict):
        return F.AMENDMENT_NO_EVENT, None
    if check is None:
        return None
    try:
        check(_amend(original, amendment))
    except EventError as exc:
        where = f" in {exc.field}" if exc.field else ""
        return F.AMENDMENT_INVALID, f"{exc.message}{where}"
    return None


HANDLERS: Final[dict[str, Callable[[State, Event], None]]] = {
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
    "note": notes.on_note,
    "discarded": zones.on_discarded,
    "trainer_played": zones.on_trainer_played,
    "searched": zones.on_searched,
    "to_hand": zones.on_to_hand,
    "shuffled": zones.on_shuffled,
}
_handler: Final = HANDLERS.get
