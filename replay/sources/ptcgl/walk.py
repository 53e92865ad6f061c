"""The walk over a log's typed lines: each line to its handler, resolution windows opened and closed.

One job: the second pass. Headers start setup, turns and checkups (replay/sources/ptcgl/turns.py); an
action line (the acting player does something) closes the open window and opens one (an attack window
when ``facts.find_attacks`` says the line is the turn's attack); each line goes to the handler of its
kind (``turns``, ``play``, ``zones``); lines after the end line are noted, and unread lines are findings.
"""

from __future__ import annotations

from collections.abc import Callable

import replay.sources.ptcgl.moves as moves
import replay.sources.ptcgl.play as play
import replay.sources.ptcgl.turns as turns
import replay.sources.ptcgl.zones as zones
from replay.i18n import notes
from replay.i18n.notes import say
from replay.sources.ptcgl.importer import Importer, Window
from replay.sources.ptcgl.lines import ACTIONS, Line
from replay.sources.ptcgl.window import close_window

HANDLERS: dict[str, Callable[[Importer, Line], bool]] = {
    **turns.HANDLERS,
    **play.HANDLERS,
    **zones.HANDLERS,
    **moves.HANDLERS,
}


# lines with nothing to walk (a card list, a line the client prints for show) and the headers and end
_SKIPPED = frozenset({"bullet", "ignore", "list_head"})
_HEADS = frozenset({"setup", "turn", "checkup", "end"})


def after_end(imp: Importer, ln: Line) -> None:
    k = ln.kind
    if k in ("unmatched", "bullet") and ln.extra is None:
        imp.unread(ln, say(notes.TEXT_AFTER_END, line=repr(ln.text[:80])), "info")
    elif k not in ("bullet", "ignore"):
        # the client can print an effect that resolves after the game is over (Boomerang Energy): a
        # sentence it wrote, read, but the game has ended
        imp.find("importer_after_end", "info", ln.no, say(notes.AFTER_END, line=repr(ln.text[:80])))


def walk_lines(imp: Importer, lines: list[Line]) -> None:
    """Every line, in order, into events."""
    out, table, attack_lines = imp.out, imp.table, imp.attack_lines
    reacting = play.reacting
    for ln in lines:
        k = ln.kind
        if imp.phase == "ended":
            after_end(imp, ln)
            continue
        if k in _SKIPPED:
            continue
        if k in _HEADS:
            if k == "setup":
                close_window(imp)
                imp.phase = "setup"
            elif k == "turn":
                turns.start_header(imp, ln)
            elif k == "checkup":
                turns.start_checkup(imp, ln)
            else:
                turns.end(imp, ln)
            continue
        if k == "unmatched":
            imp.unread(ln, say(notes.UNMATCHED, line=repr(ln.text[:80])))
            continue
        out.line = ln.no
        if ln.partial:
            out.partly.append((ln.no, imp.raw[ln.no - 1]))
            imp.find(
                "importer_partly_read",
                "warning",
                ln.no,
                say(notes.PARTLY_READ, key=ln.key, partial=ln.partial),
            )
        if imp.pending is not None:
            turns.start_pending(imp, ln)
        handler = HANDLERS[k]
        detail = ln.detail
        w = imp.window
        # (only a "used" line can be a reaction: ``reacting`` is not asked of the others)
        if not detail and k in ACTIONS and imp.phase != "checkup" and (k != "used" or not reacting(imp, ln)):
            # (a defender's Ability reacting inside an attack, Hide 'n' Sneak, keeps the attack's window:
            # the attack's knockouts are checked at its end [docs/rules.md §2])
            if w is not None:
                close_window(imp)
            g = ln.g
            actor = g["p"] if g is not None and "p" in g else None
            w = imp.window = Window("attack" if ln.no in attack_lines else "effect", ln.no, actor)
        elif w is None and imp.phase == "turn":
            w = imp.window = Window("effect", ln.no)
        if detail and k == "attack" and w is not None and w.kind == "effect":
            # an attack printed under an Ability that lets the Pokémon attack (Festival Lead: "used
            # Festival Lead.", "- chose Rapid Draw", "- ... used Rapid Draw on ... for 70 damage."): the
            # window is that attack's, closed (and its knockouts checked) at its end [docs/rules.md §2]
            w.kind = "attack"
        # a guess between twins is the line's that made it (``Importer.choose``): a switch's guess left over
        # must not mark the next line's damage to the Active Pokémon, which the log decides, as a guess
        # that a later check may move to a twin (round-trip seed 1329127588)
        imp.guessed = None
        if not handler(imp, ln):
            imp.unread(ln, say(notes.NOT_IN_GAME, line=repr(ln.text[:80])))
        if table.stadium is not None or imp.field is not None:
            play.stadium_hp(imp, ln.no)


def finish(imp: Importer) -> None:
    """A log read to its last line without an end line (``--partial``): close what is open."""
    if imp.phase != "ended":
        close_window(imp, ending=True)
        turns.start_pending(imp, None)
        if imp.phase in ("setup", "pre"):
            turns.emit_setup(imp)
