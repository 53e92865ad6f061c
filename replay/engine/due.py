"""What is due next in a game: the steps the rules ask for now (Pokémon Showdown's ``getRequests``).

:func:`due` reads a :class:`~replay.engine.game.Game` and answers, in the order the rules ask for them,
the steps due before the game can go on, each with the events a source posts to do it (bodies without
``match`` and ``seq``: the caller numbers them). Posting a step's events as given makes the engine derive
exactly what the step says (its ``outputs``): accepting a step is recording what any other producer
records, and the engine then judges it like any other (``tests/engine/test_due.py`` checks it over
simulated games). Pure: the window a step closes is closed on a copy of the game.

A step is a dict with ``step`` and, by step:

- ``start``: nothing has started (no ``match_started``);
- ``setup`` ``players``: who still places an Active Pokémon;
- ``game_over`` ``status``, ``result``: the game has ended; the result is the record's, **settled by its
  playoff games** when their records are given (a drawn game decided by its playoff is won by the
  playoff's winner, ``reason: playoff``, and no playoff is due any more);
- ``playoff`` ``child``, ``kind``, ``prizes``, ``start``: a drawn game that must be decided awaits its
  playoff game ``child``; ``start`` is the body of its ``match_started`` (players, ruleset, prizes,
  parent, kind, context and source; who goes first is for the table to say) [docs/rules.md §6];
- ``attack_ended`` / ``checkup_ended`` ``events``, ``outputs``: the open window closes; its knockouts are
  checked once [JP3.4 §I-D; docs/rules.md §2], and ``events`` first claims them as a source that reports
  knockouts does (a ``knocked_out`` per knockout, a ``prize_taken`` per player owed prizes, docs/rules.md
  §3); ``outputs`` are what the engine derives at the close;
- ``checkup_damage`` ``events``: the Poisoned and Burned damage of this checkup not placed yet, both
  players together, Poisoned first, each amount the ruleset's (``Ruleset.checkup_damage``) [JP3.4 §I-F;
  docs/rules.md §5];
- ``promote`` ``player``, ``order``, ``choices`` [{``pid``, ``events``}]: a player must promote a new
  Active Pokémon, the player who takes the next turn first [JP3.4 §I-D step 5];
- ``checkup`` ``events``: a turn ended, the Pokémon Checkup comes next [docs/rules.md §5];
- ``turn_started`` ``player``, ``events``, ``outputs``: the next turn starts and its player draws (no draw
  when the start decides the game: a deck-out [docs/rules.md §1.3]).
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from typing import Any, Final

from replay.engine.game import Game
from replay.engine.outputs import Record
from replay.engine.playoff import settle
from replay.engine.state import Event

Step = dict[str, Any]

#: How checkup damage is marked (``damage.by``), so that damage placed is not due again in that checkup.
CHECKUP_BY: Final = {"poisoned": "Poisoned", "burned": "Burned"}


def due(game: Game, playoffs: Mapping[str, Record] | None = None) -> list[Step]:
    """The steps due now in ``game`` (see the module docstring); ``playoffs``: the records of its playoff
    games by match id (``replay.engine.playoff.playoff_games`` names them), which settle a drawn game."""
    st = game.state
    if st.started is None or game.match is None:
        return [{"step": "start"}]
    if game.status != "in_progress":
        # a stub is a playoff its parent announced that has not started: not a playoff game yet
        started = {m: r for m, r in (playoffs or {}).items() if r.stub is not True}
        return _ended(game, started)
    missing = [p for p in st.players if p not in st.p or (st.p[p].active is None and not st.p[p].bench)]
    if missing:
        return [{"step": "setup", "players": missing}]
    if st.window == "attack":
        return [_close(game, "attack_ended")]
    events = game.events()
    if st.window == "checkup":
        damage = _checkup_damage(game, events)
        if damage:
            return [{"step": "checkup_damage", "events": damage}]
        return [_close(game, "checkup_ended")]
    if st.promotions_due:
        first = st.promotions_due[0]
        return [
            {
                "step": "promote",
                "player": first,
                "order": list(st.promotions_due),
                "choices": [
                    {"pid": pid, "events": [{"type": "promoted", "player": first, "pid": pid}]}
                    for pid in st.p[first].bench
                ],
            }
        ]
    if st.turn_open:
        return []
    marks = [e["type"] for e in events if e["type"] in ("turn_ended", "checkup_ended")]
    if marks and marks[-1] == "turn_ended":
        return [_checkup(game)]
    turn = _next_turn(game)
    return [turn] if turn is not None else []


def _next_turn(game: Game) -> Step | None:
    """The next turn's start and its draw (no draw when the start ends the game: a deck-out)."""
    assert game.match is not None
    player = game.state.next_turn_player()
    if player is None:
        return None
    start: Event = {"type": "turn_started", "player": player}
    trial = copy.deepcopy(game)
    outputs = trial.apply({"match": game.match, "seq": game.next_seq, **start})
    draw = [{"type": "drew", "player": player}] if trial.status == "in_progress" else []
    return {"step": "turn_started", "player": player, "events": [start, *draw], "outputs": outputs}


def _checkup(game: Game) -> Step:
    """The checkup after a turn ends [docs/rules.md §5]. When no Pokémon in play has a Special Condition
    there is nothing for the table to place, flip or recover: the checkup, its end and the next turn's
    start and draw are one step (``then``: the next turn's player), whose events derive what the
    checkup's end and the turn's start derive (``outputs``)."""
    assert game.match is not None
    st = game.state
    checkup: list[Event] = [{"type": "checkup_started"}]
    if any(m.conditions for p in st.players for m in (st.mons.get(pid) for pid in _in_play(game, p)) if m):
        return {"step": "checkup", "events": checkup}
    trial = copy.deepcopy(game)
    outputs: list[dict[str, Any]] = []
    for body in [*checkup, {"type": "checkup_ended"}]:
        outputs += trial.apply({"match": game.match, "seq": trial.next_seq, **body})
    turn = _next_turn(trial) if trial.status == "in_progress" and not trial.state.promotions_due else None
    if outputs or turn is None:
        return {"step": "checkup", "events": checkup}
    return {
        "step": "checkup",
        "then": turn["player"],
        "events": [*checkup, {"type": "checkup_ended"}, *turn["events"]],
        "outputs": turn["outputs"],
    }


def _in_play(game: Game, player: str) -> list[str]:
    pl = game.state.p.get(player)
    if pl is None:
        return []
    return [pid for pid in [pl.active, *pl.bench] if pid is not None]


def _ended(game: Game, playoffs: Mapping[str, Record]) -> list[Step]:
    """The game's end, settled by its playoff games; the playoff still due, when one is."""
    record = settle(game.typed_record(), playoffs)
    result = record.result.to_json() if record.result is not None else None
    steps: list[Step] = [{"step": "game_over", "status": record.status, "result": result}]
    link = record.playoff
    if record.status == "awaiting_playoff" and link is not None and link.child not in playoffs:
        st = game.state
        start: Event = {
            "type": "match_started",
            "players": list(st.players),
            "ruleset": st.ruleset_id,
            "prizes": link.prizes,
            "parent": game.match,
            "playoff": link.kind,
            "context": dict(st.context),
            "source": dict(st.source),
        }
        steps.append(
            {"step": "playoff", "child": link.child, "kind": link.kind, "prizes": link.prizes, "start": start}
        )
    return steps


def _close(game: Game, kind: str) -> Step:
    """The step that closes the open window: the source's claims of what its close derives that it has
    not made yet in the window, then the close (the outputs derived on a copy of the game). ``claimed``:
    the prize cards each player has claimed in the window already (what the table took, which may differ
    from what the rules give: the close then finds it, docs/rules.md §3)."""
    assert game.match is not None
    st = game.state
    trial = copy.deepcopy(game)
    outputs = trial.apply({"match": game.match, "seq": game.next_seq, "type": kind})
    claimed: dict[str, int] = {}
    for e in st.prize_claims:
        if isinstance(e.get("player"), str) and not e.get("effect"):
            claimed[e["player"]] = claimed.get(e["player"], 0) + int(e.get("count", 1))
    claims: list[Event] = [
        {"type": "knocked_out", "pid": out["pid"], "player": out["owner"]}
        for out in outputs
        if out.get("type") == "ko" and out["pid"] not in st.window_claims
    ]
    for out in outputs:
        if out.get("type") == "prizes_due" and "effect" not in out:
            more = int(out.get("count") or 0) - claimed.get(out["player"], 0)
            if more > 0:
                claims.append({"type": "prize_taken", "player": out["player"], "count": more})
    step: Step = {"step": kind, "events": [*claims, {"type": kind}], "outputs": outputs}
    if claimed:
        step["claimed"] = claimed
    return step


def _checkup_damage(game: Game, events: Sequence[Event]) -> list[Event]:
    """The Poisoned and Burned damage of this checkup not placed yet [JP3.4 §I-F: Poisoned, then Burned,
    both players together], each amount the ruleset's."""
    start = max((i for i, e in enumerate(events) if e["type"] == "checkup_started"), default=-1)
    placed = {(e.get("pid"), e.get("by")) for e in events[start + 1 :] if e["type"] == "damage"}
    st = game.state
    out: list[Event] = []
    for condition, amount in st.ruleset.checkup_damage:
        by = CHECKUP_BY.get(condition, condition.capitalize())
        for player in st.players:
            pl = st.p[player]
            for pid in [pl.active, *pl.bench]:
                mon = st.mons.get(pid) if pid is not None else None
                if mon is not None and condition in mon.conditions and (mon.pid, by) not in placed:
                    out.append({"type": "damage", "pid": mon.pid, "amount": amount, "by": by})
    return out
