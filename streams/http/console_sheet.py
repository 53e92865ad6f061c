"""A console's game as a match sheet (CSV, the form ``prizecheck import sheet`` reads: docs/importers.md,
"Match sheets").

One row per action, in the archive's order. Pokémon are named as the sheet names them: ``Player:Name#k``,
the k-th Pokémon of that name the player has in play, by entry. What the sheet has no action for (Trainers,
cards moved between zones) becomes a ``note`` row, so the sheet still shows it; a correction's ``void``
names the row of the event it voids.

**Clean as the report's CSV** (docs/console.md, "Export"). Names come from the operator (players, cards,
notes, the league): never trusted. The format module writes every cell and header value neutralised and
on one line (:func:`replay.sheet_format.write_sheet`); the names here keep the sheet's own grammar besides
(a player's name holds no ``,`` of the players line and no ``:`` of a target, a card's no ``#`` of its
number: their full-width forms stand in), so the sheet always reads back with ``prizecheck import sheet``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from replay.sheet_format import COLUMNS, neutral_cell, neutral_piece, one_line, write_sheet

_HEAD = ("match", "first", "ruleset", "prizes", "deck")
_CONTEXT = ("league", "season", "event", "series", "round", "table", "game", "stage")
#: A console's game has no OCR confidence, scan reference or time per row: those columns are left out.
_WRITTEN = tuple(c for c in COLUMNS if c not in ("confidence", "scan", "at"))


def _players(players: Any) -> dict[str, str]:
    """How the sheet names each player: one line, stripped (the reader strips), without the players
    line's ``,`` and a target's ``:``, neutralised, and never the same as the other player."""
    out: dict[str, str] = {}
    for i, p in enumerate(players if isinstance(players, list) else [], 1):
        name = one_line(p).replace(",", "\uff0c").replace(":", "\uff1a").strip()
        name = neutral_piece(name) or f"player {i}"
        while name in out.values():
            name += f" ({i})"
        out[str(p)] = name
    return out


def _card_name(card: Any) -> str:
    """How the sheet names a card: one line, stripped, without the ``#`` of a target's number, never the
    word ``active`` alone, and neutralised where it is written, so that the target naming it
    (``Player:Name``) matches it."""
    name = one_line(_name(card)).replace("#", "\uff03").strip()
    if name.lower() == "active":  # a target named "active" is the player's Active, whatever it is
        name += " (card)"
    return neutral_cell(name) or "(no name)"


class _Table:
    """The Pokémon in play, in entry order, to name them as the sheet does."""

    def __init__(self) -> None:
        self.order: list[str] = []
        self.owner: dict[str, str] = {}
        self.name: dict[str, str] = {}

    def enter(self, player: str, pid: str, name: str) -> None:
        self.order.append(pid)
        self.owner[pid] = player
        self.name[pid] = name

    def leave(self, pid: str) -> None:
        if pid in self.order:
            self.order.remove(pid)

    def ref(self, pid: Any) -> str:
        pid = str(pid)
        if pid not in self.owner:
            return ""
        owner, name = self.owner[pid], self.name[pid]
        same = [p for p in self.order if self.owner[p] == owner and self.name[p] == name]
        k = same.index(pid) + 1 if pid in same else 1
        return f"{owner}:{name}" + (f"#{k}" if len(same) > 1 else "")


def _name(card: Any) -> str:
    return str(card.get("name", "")) if isinstance(card, Mapping) else str(card or "")


def sheet_csv(events: Sequence[Mapping[str, Any]]) -> str:
    """The CSV match sheet of a game's events (the first is its ``match_started``)."""
    rows: list[dict[str, Any]] = []
    row_of: dict[int, int] = {}  # seq -> the sheet row it became (1-based, data rows)
    table = _Table()
    turn = 0
    meta: dict[str, Any] = {}
    shown: dict[str, str] = {}
    for i, ev in enumerate(events):
        t = ev.get("type")
        p: Any = ev.get("player", "")
        p = shown.get(p, p) if isinstance(p, str) else p
        new: list[dict[str, Any]] = []
        if t == "match_started":
            shown = _players(ev.get("players"))
            meta["players"] = list(shown.values())
            for key in _HEAD:
                value = ev.get(key)
                if key == "first" and isinstance(value, str):
                    value = shown.get(value, value)
                if value is not None:
                    meta[key] = value
            meta["kind"] = "manual"
            meta["tool"] = "prizecheck console"
            context = ev.get("context") or {}
            for key in _CONTEXT:
                if context.get(key) is not None:
                    meta[key] = context[key]
            continue
        if t == "setup":
            if ev.get("mulligans"):
                new.append({"player": p, "action": "mulligan", "amount": ev["mulligans"]})
            for slot, action in [
                (ev.get("active"), "active"),
                *((b, "bench") for b in ev.get("bench") or []),
            ]:
                if isinstance(slot, Mapping):
                    table.enter(str(p), str(slot.get("pid")), _card_name(slot.get("card")))
                    new.append({"player": p, "action": action, "card": _card_name(slot.get("card"))})
        elif t == "turn_started":
            turn += 1
            new.append({"player": p, "action": "turn", "amount": ev.get("deck", "")})
        elif t == "drew":
            new.append({"player": p, "action": "draw", "amount": ev.get("count", 1)})
        elif t == "played":
            table.enter(str(p), str(ev.get("pid")), _card_name(ev.get("card")))
            new.append({"player": p, "action": "bench", "card": _card_name(ev.get("card"))})
        elif t == "evolved":
            new.append(
                {
                    "player": p,
                    "action": "evolve",
                    "target": table.ref(ev.get("pid")),
                    "card": _card_name(ev.get("card")),
                }
            )
            table.name[str(ev.get("pid"))] = _card_name(ev.get("card"))
        elif t == "attached":
            new.append(
                {
                    "player": p,
                    "action": "attach",
                    "target": table.ref(ev.get("pid")),
                    "card": _name(ev.get("card")),
                }
            )
        elif t == "switched":
            action = "switch" if ev.get("effect") else "retreat"
            new.append({"player": p, "action": action, "target": table.ref(ev.get("pid"))})
        elif t == "promoted":
            new.append({"player": p, "action": "promote", "target": table.ref(ev.get("pid"))})
        elif t == "attack":
            new.append({"player": p, "action": "attack", "card": ev.get("name", ""), "amount": 0})
        elif t in ("damage", "healed"):
            action = "damage" if t == "damage" else "heal"
            new.append({"action": action, "target": table.ref(ev.get("pid")), "amount": ev.get("amount", 0)})
        elif t == "condition":
            new.append(
                {
                    "action": "condition",
                    "target": table.ref(ev.get("pid")),
                    "card": ev.get("condition", ""),
                    "amount": "" if ev.get("on", True) else 0,
                }
            )
        elif t == "knocked_out":
            owner = table.owner.get(str(ev.get("pid")), p)
            new.append({"player": owner, "action": "ko", "target": table.ref(ev.get("pid"))})
        elif t == "prize_taken":
            new.append({"player": p, "action": "prize", "amount": ev.get("count", 1)})
        elif t == "prize_modifier":
            new.append(
                {"action": "prize_modifier", "target": table.ref(ev.get("pid")), "amount": ev.get("delta", 0)}
            )
        elif t == "removed":
            new.append(
                {
                    "player": p,
                    "action": "remove",
                    "target": table.ref(ev.get("pid")),
                    "card": ev.get("to", ""),
                }
            )
            table.leave(str(ev.get("pid")))
        elif t == "turn_ended":
            following = events[i + 1].get("type") if i + 1 < len(events) else None
            if following != "checkup_started":  # the sheet's checkup row ends the turn itself
                new.append({"player": p, "action": "end_turn"})
        elif t == "checkup_started":
            new.append({"action": "checkup"})
        elif t == "conceded":
            new.append({"player": p, "action": "concede", "note": ev.get("reason", "")})
        elif t == "penalty":
            row = {"player": p, "action": "penalty", "card": ev.get("kind", ""), "note": ev.get("reason", "")}
            if "prizes" in ev:
                row["amount"] = ev["prizes"]  # a prize_penalty's number of prizes (the sheet's amount)
            new.append(row)
        elif t == "time_called":
            new.append({"action": "time"})
        elif t == "game_ended":
            winner = ev.get("winner", "")
            new.append(
                {"player": shown.get(winner, winner), "action": "result", "card": ev.get("reason", "")}
            )
        elif t == "note":
            new.append({"action": "note", "note": ev.get("text", "")})
        elif t == "correction" and ev.get("action") == "void" and int(ev.get("target") or 0) in row_of:
            new.append({"action": "void", "note": "", "ref": row_of[int(ev["target"])]})
        elif t in ("attack_ended", "checkup_ended"):
            pass  # a window closes at the next row that is not part of it
        else:
            new.append({"action": "note", "note": f"{t} ({p})" if p else str(t)})
        for row in new:
            row.setdefault("turn", turn)
            rows.append(row)
        if new and isinstance(ev.get("seq"), int):
            row_of[ev["seq"]] = len(rows) - len(new) + 1
        for ko in [ev] if t == "knocked_out" else []:
            table.leave(str(ko.get("pid")))
    return write_sheet(meta, rows, _WRITTEN)
