"""What the rules say must happen next, for the table console (docs/console.md, "The engine prompts").

The console's page derives nothing: after every action it shows what this module answers. Everything here
is read from a :class:`replay.Game` folded from the match's events (the archive, plus the operator's draft
when previewing): the state as the engine holds it, and the outputs the engine itself derives when a
window closes (the window is closed on a *copy* of the game, so nothing is applied). A prompt carries the
events a source posts to do what it says (bodies without ``match``/``seq``: the console numbers them), so
accepting it posts what any other producer would post, and the engine then judges them like any other.

Prompts, in the order the rules ask for them:

- the game's end (``game_over``), and the playoff game a drawn game that must be decided needs
  (``playoff_required``: the console offers to start it, linked to its parent);
- in an attack: the knockouts due when the attack's processing ends [JP3.4 §I-D], each player's prizes
  for them (the engine's count: rule box, modifiers, what is left) [docs/rules.md §3], and the close;
- in a checkup: the Poisoned and Burned damage to place [JP3.4 §I-F], then the knockouts due at its end;
- the promotions due, in order: the player who takes the next turn first [JP3.4 §I-D step 5];
- between turns: the checkup after a turn ends, then the next turn's start and its draw.

Findings are listed with the docs/rules.md section they rest on (:func:`streams.http.battle_log.rule_ref`).
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from typing import Any, Final

from replay import Game
from streams.http.battle_log import card_name, rule_ref

#: Damage placed at the Pokémon Checkup, in HP points: Poisoned 1 damage counter, Burned 2 (the classic
#: rulebook p.20; JP3.4 §I-F orders them: Poisoned, then Burned). A card that says more is the operator's
#: to record as damage of its own.
CHECKUP_DAMAGE: Final = (("poisoned", 10), ("burned", 20))

#: How the console marks the checkup damage it placed (``damage.by``): so a second prompt is not offered.
CHECKUP_BY: Final = {"poisoned": "Poisoned", "burned": "Burned"}


def _mon_name(game: Game, pid: str) -> str:
    mon = game.state.mons.get(pid)
    return card_name(mon.name) if mon is not None else pid


def _closing(game: Game, kind: str) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The outputs the engine derives if the open window closed now (on a copy), and the claims a source
    that reports knockouts posts before it closes: a ``knocked_out`` per knockout, a ``prize_taken`` per
    player owed prizes."""
    trial = copy.deepcopy(game)
    outputs = trial.apply({"match": game.match, "seq": game.next_seq, "type": kind})
    claims: list[dict[str, Any]] = []
    for out in outputs:
        if out.get("type") == "ko":
            claims.append({"type": "knocked_out", "pid": out["pid"], "player": out["owner"]})
    for out in outputs:
        if out.get("type") == "prizes_due" and "effect" not in out and int(out.get("count") or 0) > 0:
            claims.append({"type": "prize_taken", "player": out["player"], "count": int(out["count"])})
    return outputs, claims


def _close_prompt(game: Game, kind: str, text: str) -> dict[str, Any]:
    """The prompt that closes the open window (``attack_ended`` or ``checkup_ended``), posting first the
    knockouts and prizes the engine derives for its close."""
    outputs, claims = _closing(game, kind)
    return {
        "id": kind,
        "text": text + (": knockouts due" if claims else ""),
        "detail": _ko_text(game, outputs),
        "events": [*claims, {"type": kind}],
    }


def _ko_text(game: Game, outputs: Sequence[Mapping[str, Any]]) -> list[str]:
    lines = []
    for out in outputs:
        if out.get("type") == "ko":
            lines.append(
                f"{_mon_name(game, str(out['pid']))} ({out['owner']}) is Knocked Out: "
                f"{out['prizes']} prize card(s)"
            )
        elif out.get("type") == "prizes_due":
            lines.append(f"{out['player']} takes {out['count']} prize card(s)")
        elif out.get("type") == "promotion_due":
            lines.append(f"{out['player']} must promote a new Active Pokémon")
        elif out.get("type") == "game_over":
            lines.append(f"the game ends: {_over_text(out)}")
        elif out.get("type") == "deck_out":
            lines.append(f"{out['player']} cannot draw: deck-out")
    return lines


def _over_text(out: Mapping[str, Any]) -> str:
    outcome = out.get("outcome")
    reason = out.get("reason")
    if outcome == "win":
        return f"{out.get('winner')} wins ({reason})"
    return f"{outcome} ({reason})"


def _since(events: Sequence[Mapping[str, Any]], kind: str) -> list[Mapping[str, Any]]:
    """The events after the last one of type ``kind`` (all of them when there is none)."""
    for i in range(len(events) - 1, -1, -1):
        if events[i].get("type") == kind:
            return list(events[i + 1 :])
    return list(events)


def _checkup_damage(game: Game, events: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The Poisoned and Burned damage of this checkup not placed yet [JP3.4 §I-F: Poisoned, then Burned,
    both players together]."""
    placed = {
        (str(e.get("pid")), str(e.get("by")))
        for e in _since(events, "checkup_started")
        if e.get("type") == "damage"
    }
    due: list[dict[str, Any]] = []
    for condition, amount in CHECKUP_DAMAGE:
        for player in game.state.players:
            pl = game.state.p[player]
            for pid in [pl.active, *pl.bench]:
                mon = game.state.mons.get(pid) if pid else None
                if mon is None or condition not in mon.conditions:
                    continue
                if (mon.pid, CHECKUP_BY[condition]) in placed:
                    continue
                due.append({"type": "damage", "pid": mon.pid, "amount": amount, "by": CHECKUP_BY[condition]})
    return due


def prompts(game: Game, events: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """What the rules ask for now: each prompt ``{"id", "text", "detail": [lines], "events": [...]}`` (or
    ``"choices": [{"text", "events"}]`` when the operator picks one, ``"start"`` for a playoff game)."""
    st = game.state
    out: list[dict[str, Any]] = []
    if st.started is None:
        return [{"id": "start", "text": "Start the match: players, who goes first, ruleset", "events": []}]
    if game.status != "in_progress":
        record = game.record()
        result = record.get("result") or {}
        text = _over_text(result) if result else game.status
        out.append({"id": "game_over", "text": f"Game over: {text}", "detail": [], "events": []})
        playoff = record.get("playoff")
        if isinstance(playoff, Mapping) and game.status == "awaiting_playoff":
            start = {
                "type": "match_started",
                "players": list(st.players),
                "ruleset": st.ruleset_id,
                "prizes": playoff.get("prizes"),
                "parent": game.match,
                "playoff": playoff.get("kind"),
                "context": dict(st.context),
                "source": dict(st.source),
            }
            out.append(
                {
                    "id": "playoff",
                    "text": f"A drawn game that must be decided: start the {playoff.get('kind')} "
                    f"({playoff.get('prizes')} prize card(s)) as {playoff.get('child')}",
                    "child": playoff.get("child"),
                    "start": start,
                    "events": [],
                }
            )
        return out
    ready = len(st.players) == 2 and all(
        st.p[p].active is not None or st.p[p].bench for p in st.players if p in st.p
    )
    if not ready:
        missing = [p for p in st.players if p not in st.p or st.p[p].active is None]
        return [{"id": "setup", "text": f"Setup: {', '.join(missing)} to place an Active", "events": []}]
    if st.window == "attack":
        out.append(_close_prompt(game, "attack_ended", "End the attack"))
        return out
    if st.window == "checkup":
        damage = _checkup_damage(game, events)
        if damage:
            out.append(
                {
                    "id": "checkup_damage",
                    "text": "Checkup: place Poisoned and Burned damage",
                    "detail": [
                        f"{_mon_name(game, d['pid'])} takes {d['amount']} damage ({d['by']})" for d in damage
                    ],
                    "events": damage,
                }
            )
            return out
        out.append(_close_prompt(game, "checkup_ended", "End the checkup"))
        return out
    if st.promotions_due:
        player = st.promotions_due[0]
        pl = st.p[player]
        order = " then ".join(st.promotions_due)
        out.append(
            {
                "id": "promote",
                "text": f"{player} must promote a new Active Pokémon (order: {order})",
                "choices": [
                    {
                        "text": _mon_name(game, pid),
                        "events": [{"type": "promoted", "player": player, "pid": pid}],
                    }
                    for pid in pl.bench
                ],
                "events": [],
            }
        )
        return out
    if not st.turn_open:
        turn_marks = [e.get("type") for e in events if e.get("type") in ("turn_ended", "checkup_ended")]
        if turn_marks and turn_marks[-1] == "turn_ended":
            out.append(
                {
                    "id": "checkup",
                    "text": "Pokémon Checkup (between turns)",
                    "detail": [],
                    "events": [{"type": "checkup_started"}],
                }
            )
            return out
        nxt = st.next_turn_player()
        if nxt is not None:
            player = nxt
            trial = copy.deepcopy(game)
            outputs = trial.apply(
                {"match": game.match, "seq": game.next_seq, "type": "turn_started", "player": player}
            )
            out.append(
                {
                    "id": "turn_started",
                    "text": f"Start {player}'s turn and draw",
                    "detail": _ko_text(game, outputs),
                    "events": [
                        {"type": "turn_started", "player": player},
                        *([] if trial.status != "in_progress" else [{"type": "drew", "player": player}]),
                    ],
                }
            )
    return out


def findings(game: Game) -> list[dict[str, Any]]:
    """The engine's findings as the stream stands (:meth:`replay.Game.resolved`: a decided game's claims
    closed, as the record has them), each with the docs/rules.md section it rests on."""
    return [
        {"code": f.code, "severity": f.severity, "seq": f.seq, "message": f.message, "rule": rule_ref(f.code)}
        for f in game.resolved().findings
    ]


def derive(events: Sequence[Mapping[str, Any]], draft_from: int | None = None) -> dict[str, Any]:
    """The console's view of a match after ``events`` (archived ones, then the draft from seq
    ``draft_from``): the engine's board, the prompts, the findings and the outputs the draft derived."""
    game = Game()
    draft_outputs: list[dict[str, Any]] = []
    for event in events:
        outputs = game.apply(dict(event))
        if draft_from is not None and int(event.get("seq") or 0) >= draft_from:
            draft_outputs += outputs
    view: dict[str, Any] = {
        "next_seq": game.next_seq if game.match is not None else 1,
        "status": game.status if game.match is not None else "not_started",
        "board": game.board() if game.match is not None else None,
        "prompts": prompts(game, events),
        "findings": findings(game) if game.match is not None else [],
        "outputs": [o for o in draft_outputs if o.get("type") != "finding"],
        "pokemon": _in_play(game),
    }
    return view


def _in_play(game: Game) -> list[dict[str, Any]]:
    """The Pokémon in play, for the console's choosers (pid, owner, name, where)."""
    st = game.state
    out = []
    for player in st.players:
        pl = st.p.get(player)
        if pl is None:
            continue
        for where, pid in [("active", pl.active), *(("bench", b) for b in pl.bench)]:
            mon = st.mons.get(pid) if pid else None
            if mon is not None:
                out.append({"pid": mon.pid, "player": player, "name": mon.name, "where": where})
    return out
