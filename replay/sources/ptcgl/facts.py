"""What a battle log says about the game as a whole, read before any event is written.

One job: from the typed lines (replay/sources/ptcgl/lines.py), the two handles, who went first, whose view
the log is (the exporter), which lines are attacks (a damage-less attack prints like an Ability), and the
end of a log whose only ending is a ``P conceded.`` line. Each guess is a finding through ``find``.
"""

from __future__ import annotations

from collections.abc import Callable

from replay.engine import InputError
from replay.i18n import notes
from replay.i18n.notes import say
from replay.sources.ptcgl.lines import ACTIONS, SETUP_KINDS, Line

Find = Callable[[str, str, int | None, str], None]


def _add_player(order: list[str], p: str | None) -> None:
    """``p`` onto ``order``, the handles met so far (at most two). (A module function, not a closure:
    compiled by mypyc, a nested function and its scope would be a reference cycle left for the collector.)"""
    if p and p not in order and len(order) < 2:
        order.append(p)


def find_players(lines: list[Line], filename: str, find: Find) -> list[str]:
    """Both handles, in the order the Setup lines name them."""
    order: list[str] = []
    for ln in lines:
        if ln.kind in SETUP_KINDS and ln.g is not None:
            _add_player(order, ln.g["p"])
        elif ln.kind == "bonus" and ln.g is not None:
            _add_player(order, ln.g["p"])
            _add_player(order, ln.g["q"])
        elif ln.kind == "turn":
            _add_player(order, ln.player)
        if len(order) == 2:
            break
    if len(order) < 2:
        for ln in lines:
            if ln.kind == "end":
                _add_player(order, ln.player)
            elif ln.g is not None and "p" in ln.g and ln.kind in ACTIONS:
                _add_player(order, ln.g["p"])
    if not order:
        raise InputError("no player handle found in the log", file=filename, line=lines[0].no)
    if len(order) == 1:
        other = "opponent" if order[0] != "opponent" else "opponent-2"
        order.append(other)
        find(
            "importer_guess_player",
            "warning",
            None,
            say(notes.GUESS_PLAYER_ONE, player=order[0], other=repr(other)),
        )
    return order


def find_first(lines: list[Line], players: list[str], find: Find) -> str:
    """Who took the first turn: the Setup's decision, else the first turn header."""
    a, b = players
    for ln in lines:
        if ln.kind == "decided" and ln.g is not None and ln.g["p"] in players:
            p = ln.g["p"]
            return p if ln.g["order"] == "first" else (b if p == a else a)
        if ln.kind == "turn":
            if ln.player in players:
                return ln.player
            break
    find("importer_guess_first", "warning", None, say(notes.GUESS_FIRST, player=a))
    return a


def find_exporter(lines: list[Line], players: list[str], find: Find) -> str | None:
    """Whose view the log is: the opening hand it lists, the draws and prizes it names, the end line's
    "You"/"Opponent"."""
    votes: dict[str, int] = dict.fromkeys(players, 0)
    a, b = players
    opening: str | None = None
    setup = True
    for ln in lines:
        k = ln.kind
        if k == "opening" and ln.g is not None:
            opening = ln.g["p"]
            continue
        if k == "turn":
            setup = False
        elif setup and k == "unmatched" and not ln.detail and " 7 " in ln.text:
            # any language: "<P> ... 7 ..." in Setup is the opening-hand line; a card list after it shows
            # whose hand the exporter could see
            first = ln.text.split(" ", 1)[0]
            opening = first if first in votes else None
            continue
        if k == "bullet" and opening is not None:
            if opening in votes:
                votes[opening] += 3
            opening = None
            continue
        if k not in ("ignore", "bullet", "list_head") and not (k == "unmatched" and ln.detail):
            opening = None
        # a turn's named draw and a named prize card are the exporter's; searches ("- P drew C.") are
        # revealed to both players
        if (
            k in ("drew_card", "added")
            and not ln.detail
            and not (ln.g or {}).get("hidden")
            and ln.g is not None
            and ln.g["p"] in votes
        ):
            votes[ln.g["p"]] += 1
        elif k == "end" and ln.player in votes and ln.extra[1] is not None:
            w = ln.player
            votes[w if ln.extra[1] == "winner" else (b if w == a else a)] += 5
    ranked = sorted(votes.items(), key=lambda kv: -kv[1])
    if ranked[0][1] == 0:
        find(
            "importer_exporter_unknown",
            "info",
            None,
            say(notes.EXPORTER_UNKNOWN),
        )
        return None
    if ranked[1][1] > 0:
        find(
            "importer_exporter_conflict",
            "warning",
            None,
            say(notes.EXPORTER_CONFLICT, player=ranked[0][0]),
        )
    return ranked[0][0]


def find_attacks(lines: list[Line], is_ability: Callable[[dict[str, str]], bool]) -> set[int]:
    """The line numbers of attacks. A turn that ends without "ended their turn" ended with an attack; a
    damage-less attack prints like an Ability (``X's C used Name.``), so the turn's last action line is
    the attack, unless the catalogue knows the move as an Ability (``is_ability``)."""
    attacks: set[int] = set()
    last: Line | None = None
    closed = False
    turns = 0

    def settle() -> None:
        # [docs/rules.md §6] the first player does not attack on the first turn: a "used" line there is an
        # Ability (a printed attack with damage stays an attack, for the engine to judge)
        if last is not None and not closed and (last.kind == "attack" or (last.kind == "used" and turns > 1)):
            attacks.add(last.no)

    for ln in lines:
        k = ln.kind
        if k in ("turn", "checkup", "setup"):
            settle()
            turns += k == "turn"
            # no attacks between turns: a "used" line in a checkup is a checkup-time Ability
            last, closed = None, k != "turn"
        elif k == "end":
            if ln.extra[0] not in ("concession", "timeout"):
                settle()
            last, closed = None, True
            break
        elif k == "ended" or k == "inaction":
            closed = True
        elif k == "attack":
            attacks.add(ln.no)
            last = ln
        elif k == "used" and not ln.detail and ln.g is not None and is_ability(ln.g):
            pass  # the catalogue knows this move as an Ability of that Pokémon: never the attack
        elif (
            k == "used"
            and last is not None
            and last.kind == "attack"
            and ln.g is not None
            and last.g is not None
            and ln.g["p"] != last.g["p"]
        ):
            pass  # the defender's Ability reacting to the attack (Hide 'n' Sneak): not the turn's attack
        elif not ln.detail and k in ACTIONS:
            last = ln
    settle()
    return attacks


def conceded_ending(lines: list[Line], players: list[str]) -> None:
    """``P conceded.`` with no end line after it ends the game (a client variant): it becomes the end."""
    if any(ln.kind == "end" for ln in reversed(lines)):  # (from the last line: an end line is last, or near)
        return
    conceded = [ln for ln in lines if ln.kind == "conceded_line" and ln.g and ln.g["p"] in players]
    if conceded:
        ln = conceded[-1]
        assert ln.g is not None
        a, b = players
        ln.kind, ln.player = "end", (b if ln.g["p"] == a else a)
        ln.extra = ("concession", None, ln.text)
