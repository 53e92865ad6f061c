"""What the rules say must happen next, for the table console (docs/console.md, "The engine prompts").

The console's page derives nothing: after every action it shows what this module answers. The steps due
are the engine's own answer (:func:`replay.due`, over a :class:`replay.Game` folded from the archive plus
the operator's draft when previewing, a drawn game settled by its playoff games' stored records); this
module only puts them in the operator's words. A prompt carries the events a source posts to do what it
says (bodies without ``match``/``seq``: the console numbers them), so accepting it posts what any other
producer would post, and the engine then judges them like any other.

Findings are listed with the docs/rules.md section they rest on (:func:`streams.http.battle_log.rule_ref`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from replay import Game, due
from replay.engine.outputs import Record
from replay.engine.playoff import playoff_games
from replay.records import from_msgpack
from streams.http.battle_log import card_name, rule_ref
from streams.store import Reader


async def playoff_records(store: Reader, match: str) -> dict[str, Record]:
    """The stored records of ``match``'s playoff games (those its stored record names), which settle a
    drawn game in :func:`replay.due`."""
    data = await store.record(match)
    if data is None:
        return {}
    out: dict[str, Record] = {}
    for name in playoff_games(from_msgpack(data, match=match).to_json()):
        child = await store.record(name)
        if child is not None:
            out[name] = from_msgpack(child, match=name)
    return out


def _mon_name(game: Game, pid: str) -> str:
    mon = game.state.mons.get(pid)
    return card_name(mon.name) if mon is not None else pid


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


def _close_prompt(game: Game, step: Mapping[str, Any]) -> dict[str, Any]:
    """The prompt that closes a window with the claims the rules derive (Enter); when the table took
    other prize cards than the rules give (recorded with the prize action), a choice closes it as the
    table did, and the engine's finding then says what the rules required (docs/rules.md §3)."""
    kind, events = step["step"], list(step["events"])
    text = "End the attack" if kind == "attack_ended" else "End the checkup"
    prompt: dict[str, Any] = {
        "id": kind,
        "text": text + (": knockouts due" if len(events) > 1 else ""),
        "detail": _ko_text(game, step["outputs"]),
        "events": events,
    }
    claimed: Mapping[str, int] = step.get("claimed") or {}
    more = {e["player"]: e["count"] for e in events if e["type"] == "prize_taken" and e["player"] in claimed}
    if more:
        took = ", ".join(f"{p} {n}" for p, n in claimed.items())
        prompt["detail"] += [
            f"{p} took {claimed[p]} prize card(s) so far; the rules give {n} more" for p, n in more.items()
        ]
        prompt["choices"] = [
            {
                "text": f"{text} as the table took them ({took})",
                "events": [e for e in events if not (e["type"] == "prize_taken" and e["player"] in more)],
            }
        ]
    return prompt


def prompts(game: Game, playoffs: Mapping[str, Record] | None = None) -> list[dict[str, Any]]:
    """What the rules ask for now (:func:`replay.due`, the engine's own answer), in the operator's
    words: each prompt ``{"id", "text", "detail": [lines], "events": [...]}`` (or ``"choices": [{"text",
    "events"}]`` when the operator picks one, ``"start"`` for a playoff game, ``"then"``, the next turn's
    player, on a checkup with nothing to place that starts that turn and draws). ``playoffs``: the stored
    records of the game's playoff games, which settle a drawn game."""
    out: list[dict[str, Any]] = []
    for step in due(game, playoffs):
        kind = step["step"]
        events: list[dict[str, Any]] = step.get("events", [])
        if kind == "start":
            out.append(
                {"id": "start", "text": "Start the match: players, who goes first, ruleset", "events": []}
            )
        elif kind == "setup":
            text = f"Setup: {', '.join(step['players'])} to place an Active"
            out.append({"id": "setup", "text": text, "events": []})
        elif kind == "game_over":
            result = step["result"]
            text = _over_text(result) if result else step["status"]
            out.append({"id": "game_over", "text": f"Game over: {text}", "detail": [], "events": []})
        elif kind == "playoff":
            out.append(
                {
                    "id": "playoff",
                    "text": f"A drawn game that must be decided: start the {step['kind']} "
                    f"({step['prizes']} prize card(s)) as {step['child']}",
                    "child": step["child"],
                    "start": step["start"],
                    "events": [],
                }
            )
        elif kind in ("attack_ended", "checkup_ended"):
            out.append(_close_prompt(game, step))
        elif kind == "checkup_damage":
            out.append(
                {
                    "id": "checkup_damage",
                    "text": "Checkup: place Poisoned and Burned damage",
                    "detail": [
                        f"{_mon_name(game, d['pid'])} takes {d['amount']} damage ({d['by']})" for d in events
                    ],
                    "events": events,
                }
            )
        elif kind == "promote":
            player = step["player"]
            order = " then ".join(step["order"])
            out.append(
                {
                    "id": "promote",
                    "text": f"{player} must promote a new Active Pokémon (order: {order})",
                    "choices": [
                        {"text": _mon_name(game, c["pid"]), "events": c["events"]} for c in step["choices"]
                    ],
                    "events": [],
                }
            )
        elif kind == "checkup":
            text = "Pokémon Checkup (between turns)"
            if "then" in step:  # nothing to place: the checkup and the next turn are one step
                text = f"Pokémon Checkup: nothing to place; start {step['then']}'s turn and draw"
            detail = _ko_text(game, step.get("outputs", []))
            prompt = {"id": "checkup", "text": text, "detail": detail, "events": events}
            if "then" in step:  # the next turn's player: the console ends a turn and draws in one step
                prompt["then"] = step["then"]
            out.append(prompt)
        elif kind == "turn_started":
            out.append(
                {
                    "id": "turn_started",
                    "text": f"Start {step['player']}'s turn and draw",
                    "detail": _ko_text(game, step["outputs"]),
                    "events": events,
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


def derive(
    events: Sequence[Mapping[str, Any]],
    draft_from: int | None = None,
    playoffs: Mapping[str, Record] | None = None,
) -> dict[str, Any]:
    """The console's view of a match after ``events`` (archived ones, then the draft from seq
    ``draft_from``): the engine's board, the prompts, the findings and the outputs the draft derived;
    ``playoffs``, the stored records of its playoff games (a drawn game settled by them)."""
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
        "prompts": prompts(game, playoffs),
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
