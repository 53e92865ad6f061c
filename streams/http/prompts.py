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

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from replay import Game, due, i18n
from replay.contract.validate import checked_game
from replay.engine import Record, playoff_games
from replay.i18n.words import OUTCOMES, PLAYOFFS
from replay.records import from_msgpack
from streams.http.battle_log import card_name, finding_text, reason_words, rule_ref
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


def _mon_name(game: Game, pid: str, lang: str) -> str:
    mon = game.state.mons.get(pid)
    return card_name(mon.name, lang) if mon is not None else pid


def _ko_text(game: Game, outputs: Sequence[Mapping[str, Any]], lang: str) -> list[str]:
    tr = _words(lang)
    lines = []
    for out in outputs:
        if out.get("type") == "ko":
            n = int(out["prizes"])
            lines.append(
                i18n.ngettext(
                    lang,
                    "{pokemon} ({owner}) is Knocked Out: {n} prize card",
                    "{pokemon} ({owner}) is Knocked Out: {n} prize cards",
                    n,
                ).format(pokemon=_mon_name(game, str(out["pid"]), lang), owner=out["owner"], n=n)
            )
        elif out.get("type") == "prizes_due":
            n = int(out["count"])
            text = i18n.ngettext(lang, "{player} takes {n} prize card", "{player} takes {n} prize cards", n)
            lines.append(text.format(player=out["player"], n=n))
        elif out.get("type") == "promotion_due":
            lines.append(tr("{player} must promote a new Active Pokémon", player=out["player"]))
        elif out.get("type") == "game_over":
            lines.append(tr("the game ends: {result}", result=_over_text(out, lang)))
        elif out.get("type") == "deck_out":
            lines.append(tr("{player} cannot draw: deck-out", player=out["player"]))
    return lines


def _words(lang: str) -> Callable[..., str]:
    """``tr(message, **fields)``: ``message`` in ``lang`` with its ``{fields}`` filled (tools/i18n.py
    extracts the messages of ``tr``)."""

    def tr(message: str, **fields: Any) -> str:
        return i18n.gettext(lang, message).format(**fields)

    return tr


def _over_text(out: Mapping[str, Any], lang: str) -> str:
    tr = _words(lang)
    outcome = out.get("outcome")
    reason = out.get("reason")
    if outcome == "win":
        return tr("{player} wins ({reason})", player=out.get("winner"), reason=reason_words(reason, lang))
    shown = i18n.gettext(lang, OUTCOMES[str(outcome)]) if outcome in OUTCOMES else outcome
    return f"{shown} ({reason_words(reason, lang)})"


def _close_prompt(game: Game, step: Mapping[str, Any], lang: str) -> dict[str, Any]:
    """The prompt that closes a window with the claims the rules derive (Enter); when the table took
    other prize cards than the rules give (recorded with the prize action), a choice closes it as the
    table did, and the engine's finding then says what the rules required (docs/rules.md §3)."""
    tr = _words(lang)
    kind, events = step["step"], list(step["events"])
    attack = kind == "attack_ended"
    if len(events) > 1:
        text = tr("End the attack: knockouts due") if attack else tr("End the checkup: knockouts due")
    else:
        text = tr("End the attack") if attack else tr("End the checkup")
    prompt: dict[str, Any] = {
        "id": kind,
        "text": text,
        "detail": _ko_text(game, step["outputs"], lang),
        "events": events,
    }
    claimed: Mapping[str, int] = step.get("claimed") or {}
    more = {e["player"]: e["count"] for e in events if e["type"] == "prize_taken" and e["player"] in claimed}
    if more:
        took = ", ".join(f"{p} {n}" for p, n in claimed.items())
        prompt["detail"] += [
            i18n.ngettext(
                lang,
                "{player} took {took} prize card so far; the rules give {n} more",
                "{player} took {took} prize cards so far; the rules give {n} more",
                claimed[p],
            ).format(player=p, took=claimed[p], n=n)
            for p, n in more.items()
        ]
        as_took = (
            tr("End the attack as the table took them ({took})", took=took)
            if attack
            else tr("End the checkup as the table took them ({took})", took=took)
        )
        prompt["choices"] = [
            {
                "text": as_took,
                "events": [e for e in events if not (e["type"] == "prize_taken" and e["player"] in more)],
            }
        ]
    return prompt


def prompts(
    game: Game, playoffs: Mapping[str, Record] | None = None, lang: str = i18n.DEFAULT
) -> list[dict[str, Any]]:
    """What the rules ask for now (:func:`replay.due`, the engine's own answer), in the operator's
    words in ``lang``: each prompt ``{"id", "text", "detail": [lines], "events": [...]}`` (or ``"choices":
    [{"text", "events"}]`` when the operator picks one, ``"start"`` for a playoff game, ``"then"``, the next
    turn's player, on a checkup with nothing to place that starts that turn and draws). ``playoffs``: the
    stored records of the game's playoff games, which settle a drawn game."""
    tr = _words(lang)
    out: list[dict[str, Any]] = []
    for step in due(game, playoffs):
        kind = step["step"]
        events: list[dict[str, Any]] = step.get("events", [])
        if kind == "start":
            text = tr("Start the match: players, who goes first, ruleset")
            out.append({"id": "start", "text": text, "events": []})
        elif kind == "setup":
            text = tr("Setup: {players} to place an Active", players=", ".join(step["players"]))
            out.append({"id": "setup", "text": text, "events": []})
        elif kind == "game_over":
            result = step["result"]
            text = _over_text(result, lang) if result else step["status"]
            out.append(
                {
                    "id": "game_over",
                    "text": tr("Game over: {result}", result=text),
                    "detail": [],
                    "events": [],
                }
            )
        elif kind == "playoff":
            playoff = str(step["kind"])
            shown = i18n.gettext(lang, PLAYOFFS[playoff]) if playoff in PLAYOFFS else playoff
            n = int(step["prizes"])
            text = i18n.ngettext(
                lang,
                "A drawn game that must be decided: start the {kind} ({n} prize card) as {child}",
                "A drawn game that must be decided: start the {kind} ({n} prize cards) as {child}",
                n,
            ).format(kind=shown, n=n, child=step["child"])
            out.append(
                {"id": "playoff", "text": text, "child": step["child"], "start": step["start"], "events": []}
            )
        elif kind in ("attack_ended", "checkup_ended"):
            out.append(_close_prompt(game, step, lang))
        elif kind == "checkup_damage":
            out.append(
                {
                    "id": "checkup_damage",
                    "text": tr("Checkup: place Poisoned and Burned damage"),
                    "detail": [
                        tr(
                            "{pokemon} takes {amount} damage ({by})",
                            pokemon=_mon_name(game, d["pid"], lang),
                            amount=d["amount"],
                            by=d["by"],
                        )
                        for d in events
                    ],
                    "events": events,
                }
            )
        elif kind == "promote":
            player = step["player"]
            order = tr(" then ").join(step["order"])
            out.append(
                {
                    "id": "promote",
                    "text": tr(
                        "{player} must promote a new Active Pokémon (order: {order})",
                        player=player,
                        order=order,
                    ),
                    "choices": [
                        {"text": _mon_name(game, c["pid"], lang), "events": c["events"]}
                        for c in step["choices"]
                    ],
                    "events": [],
                }
            )
        elif kind == "checkup":
            text = tr("Pokémon Checkup (between turns)")
            if "then" in step:  # nothing to place: the checkup and the next turn are one step
                text = tr(
                    "Pokémon Checkup: nothing to place; start {player}'s turn and draw",
                    player=step["then"],
                )
            detail = _ko_text(game, step.get("outputs", []), lang)
            prompt = {"id": "checkup", "text": text, "detail": detail, "events": events}
            if "then" in step:  # the next turn's player: the console ends a turn and draws in one step
                prompt["then"] = step["then"]
            out.append(prompt)
        elif kind == "turn_started":
            out.append(
                {
                    "id": "turn_started",
                    "text": tr("Start {player}'s turn and draw", player=step["player"]),
                    "detail": _ko_text(game, step["outputs"], lang),
                    "events": events,
                }
            )
    return out


def findings(game: Game, lang: str = i18n.DEFAULT) -> list[dict[str, Any]]:
    """The engine's findings as the stream stands (:meth:`replay.Game.resolved`: a decided game's claims
    closed, as the record has them), each with the docs/rules.md section it rests on and its sentence in
    ``lang`` (``text``; ``message`` is the record's own, in English)."""
    return [
        {
            "code": f.code,
            "severity": f.severity,
            "seq": f.seq,
            "message": f.message,
            "text": finding_text(lang, f.code, f.message),
            "rule": rule_ref(f.code),
        }
        for f in game.resolved().findings
    ]


def derive(
    events: Sequence[Mapping[str, Any]],
    draft_from: int | None = None,
    playoffs: Mapping[str, Record] | None = None,
    lang: str = i18n.DEFAULT,
) -> dict[str, Any]:
    """The console's view of a match after ``events`` (archived ones, then the draft from seq
    ``draft_from``): the engine's board, the prompts, the findings and the outputs the draft derived;
    ``playoffs``, the stored records of its playoff games (a drawn game settled by them); prompts and
    findings in ``lang``."""
    game = checked_game()
    draft_outputs: list[dict[str, Any]] = []
    for event in events:
        outputs = game.apply(dict(event))
        if draft_from is not None and int(event.get("seq") or 0) >= draft_from:
            draft_outputs += outputs
    view: dict[str, Any] = {
        "next_seq": game.next_seq if game.match is not None else 1,
        "status": game.status if game.match is not None else "not_started",
        "board": game.board() if game.match is not None else None,
        "prompts": prompts(game, playoffs, lang),
        "findings": findings(game, lang) if game.match is not None else [],
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
