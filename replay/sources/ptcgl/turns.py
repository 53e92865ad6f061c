"""Setup, turns, the checkup and the end: the lines that shape the game rather than move cards.

One job: the game's frame. The Setup lines become each player's ``setup`` (Active, Bench, mulligans) and
the mulligan bonus draws; a turn header becomes ``turn_ended`` for the turn before and ``turn_started``
(its player read from the header, or for the client's ``[playerName]'s Turn`` bug from the turn order and
the lines that follow); the end line becomes ``conceded`` where it says so and the ``game_ended`` claim.
A deck-out shows as the loser's header followed straight by the end line [docs/rules.md §1.3].
"""

from __future__ import annotations

from collections.abc import Callable

from replay.engine import InputError
from replay.i18n import notes
from replay.i18n.notes import say
from replay.sources.common import Event
from replay.sources.ptcgl.importer import Importer, Window
from replay.sources.ptcgl.lines import Line
from replay.sources.ptcgl.window import close_window

REASONS = {
    "prizes": "prizes",
    "both": "prizes",
    "no_pokemon": "no_pokemon",
    "deck_out": "deck_out",
    "concession": "concession",
    "timeout": "timeout",
}


def start_header(imp: Importer, ln: Line) -> None:
    """A turn header: the previous turn ends; this one starts at its first line (which may name its
    player)."""
    close_window(imp)
    start_pending(imp, None)
    close_turn(imp)
    if imp.phase in ("setup", "pre"):
        emit_setup(imp)
    imp.phase = "turn"
    imp.pending = ln


def start_checkup(imp: Importer, ln: Line) -> None:
    close_window(imp)
    start_pending(imp, None)
    close_turn(imp)
    imp.phase = "checkup"
    imp.window = Window("checkup", ln.no)
    imp.emit({"type": "checkup_started"})


def start_pending(imp: Importer, nxt: Line | None, *, deck_out_of: str | None = None) -> None:
    """Start the turn whose header is waiting, now that its first line ``nxt`` is known."""
    ln = imp.pending
    if ln is None:
        return
    imp.pending = None
    table = imp.table
    player = ln.player
    expected = imp.other(imp.turn_player) if imp.turn_player is not None else imp.first
    if player is None:
        # The client bug [playerName]'s Turn: turns alternate, so the turn is the other player's; the
        # turn's own draw (its first line) confirms it. The line after the header can be another
        # player's (a prize card, a promotion), so it is not taken as the turn's player on its own.
        draw = (
            nxt.g["p"]
            if nxt is not None and nxt.kind.startswith("drew") and not nxt.detail and nxt.g is not None
            else None
        )
        drawer = draw if draw is not None and table.is_player(draw) else None
        if imp.turn_player is None:
            player, why = (drawer, "the turn's draw") if drawer else (expected, "who goes first")
        elif drawer is not None and drawer != expected:
            player, why = drawer, f"the turn's draw, though the turn order gives {expected}"
        else:
            player, why = expected, "the turn order"
        imp.find(
            "importer_guess_player",
            "warning"
            if drawer is not None and drawer != expected and imp.turn_player is not None
            else "info",
            ln.no,
            say(notes.GUESS_PLAYER_HEADER, line=repr(ln.text), player=player, why=why),
        )
    elif not table.is_player(player):
        imp.find(
            "importer_guess_player",
            "warning",
            ln.no,
            say(notes.HEADER_NOT_IN_GAME, player=player, other=expected),
        )
        player = expected
    imp.turn_no += 1
    imp.turns_of[player] = imp.turns_of.get(player, 0) + 1
    imp.last_effect = None
    imp.turn_player = player
    imp.turn_open = True
    ev: Event = {"type": "turn_started", "player": player, "turn": imp.turn_no}
    deck = 0 if deck_out_of is not None and player == deck_out_of else None
    drawn = nxt is not None and nxt.kind.startswith("drew") and nxt.g is not None and nxt.g["p"] == player
    left = table.zone(player, "deck")
    if deck is None and drawn and left < 1:
        # [docs/rules.md §1.3] The engine counts the deck from the events; a log hides some returns to the
        # deck (searches, shuffles without a count), so that count can reach 0 while the log shows the
        # turn's draw, which proves at least one card was there. Say so instead of a false deck-out, and
        # put that card back from where the events left one (the hand first), so no count goes below 0.
        src = next((z for z in ("hand", "discard", "prizes", "lost_zone") if table.zone(player, z) > 0), None)
        imp.find(
            "importer_deck_floor",
            "info",
            ln.no,
            say(notes.DECK_FLOOR, player=player, zone=src.replace("_", " ") if src else "hand"),
        )
        if src is not None:
            imp.emit({"type": "moved", "player": player, "count": 1, "from": src, "to": "deck"})
        else:
            deck = 1
    if deck is not None:
        ev["deck"] = deck
    imp.emit(ev)


def close_turn(imp: Importer) -> None:
    if imp.turn_open and imp.turn_player is not None:
        imp.emit({"type": "turn_ended", "player": imp.turn_player})
    imp.turn_open = False


def setup_slot(imp: Importer, p: str) -> dict[str, object]:
    return imp.setup.setdefault(p, {"active": None, "bench": [], "mulligans": 0})


def emit_setup(imp: Importer) -> None:
    """Each player's ``setup`` (the first player first), then the mulligan bonus draws."""
    if imp.phase == "done_setup":
        return
    imp.setup_at = len(imp.out.events)
    for p in sorted(imp.players, key=lambda x: x != imp.first):
        slot = imp.setup.get(p)
        if slot is None or slot["active"] is None:
            imp.find(
                "importer_missing_setup",
                "warning",
                None,
                say(notes.MISSING_SETUP, player=p),
            )
            imp.late_setup[p] = {"active": None, "bench": []}
            imp.table.count({"type": "setup", "player": p})  # the hand and Prize cards, set aside
            continue
        ev: Event = {"type": "setup", "player": p, "active": slot["active"], "bench": slot["bench"]}
        if slot["mulligans"]:
            ev["mulligans"] = slot["mulligans"]
        imp.emit(ev)
    for ev in imp.bonus:
        imp.emit(ev)
    imp.bonus = []
    imp.phase = "done_setup"


def end(imp: Importer, ln: Line) -> None:
    """The end line: the turn waiting for its first line (a deck-out), the window, the claim."""
    kind = ln.extra[0]
    table = imp.table
    loser_named = imp.other(ln.player) if ln.player is not None and table.is_player(ln.player) else None
    if imp.pending is not None:
        # [docs/rules.md §1.3] a deck-out shows as the loser's turn header followed by the end line
        start_pending(imp, ln, deck_out_of=loser_named if kind == "deck_out" else None)
    elif kind == "deck_out":
        imp.find(
            "importer_deck_out_turn",
            "warning",
            ln.no,
            say(notes.DECK_OUT_NO_HEADER),
        )
    conceded_first = kind in ("concession", "timeout") and concession_in_knockout(imp, ln)
    close_window(imp, ending=True)
    if imp.phase in ("setup", "pre"):
        emit_setup(imp)
    winner = ln.player
    imp.out.end_at = len(imp.out.events)
    if kind in ("draw", "sudden_death"):
        imp.emit({"type": "game_ended", "outcome": "draw"})
        finish(imp, ln)
        return
    if not table.is_player(winner):
        raise InputError(
            f"the end line names {winner}, who is not in this game",
            file=imp.filename,
            line=ln.no,
            field="winner",
        )
    assert winner is not None
    loser = imp.other(winner)
    if kind == "unknown":
        # locales.py: an unknown reason is never guessed, but the client ended the game and named its
        # winner: the claim keeps that winner with the reason marked unknown; where the events alone do not
        # end the game, the import ends it by the loser's concession (parse_ptcgl, ``end_unknown``)
        imp.find(
            "importer_unknown_reason",
            "warning",
            ln.no,
            say(notes.UNKNOWN_REASON, reason=repr(ln.extra[2]), player=winner),
        )
    if kind == "deck_out" and imp.turn_player != loser:
        imp.find(
            "importer_deck_out_turn",
            "warning",
            ln.no,
            say(notes.DECK_OUT_OTHER_TURN, player=loser, other=imp.turn_player),
        )
    if conceded_first:
        pass
    elif kind == "concession":
        imp.emit({"type": "conceded", "player": loser})
    elif kind == "timeout":
        imp.emit({"type": "conceded", "player": loser, "reason": "inactive"})
    ev: Event = {"type": "game_ended", "outcome": "win", "winner": winner}
    ev["reason"] = REASONS.get(kind, "unknown")
    imp.emit(ev)
    finish(imp, ln)


def concession_in_knockout(imp: Importer, ln: Line) -> bool:
    """A concession (or a timeout) printed right after an attack or effect that knocked out the loser's
    Pokémon, decided as docs/rules.md says, and said so in the record (a note):

    - the winner's prize line was printed: the knockout was complete, and when it took the last Prize
      cards (or left the loser no Pokémon) it had already decided the game [docs/rules.md §1: the first
      decision stands]: the concession comes after, the claim keeps the log's reason; False;
    - no prize line: the loser conceded during the knockout, before its Prize cards were taken, and the
      result is judged only after them [docs/rules.md §3 steps 4-5]: the concession decides the game. It
      is emitted here, before the window's knockouts, which are then not emitted (the game was over; the
      note names them); True."""
    w = imp.window
    winner = ln.player
    if w is None or winner is None or not imp.table.is_player(winner):
        return False
    loser = imp.other(winner)
    kos = [(no, d) for no, q, d in w.kos if q == loser]
    if not kos:
        return False
    paid = sum(n for _, taker, n in w.prizes if taker == winner)
    if paid:
        if paid >= imp.prizes_left[winner] or not imp.table.bench[loser]:
            imp.find(
                "importer_concession_after_result",
                "info",
                ln.no,
                say(notes.CONCEDED_AFTER, player=loser, winner=winner),
            )
        return False
    imp.emit(
        {"type": "conceded", "player": loser, **({"reason": "inactive"} if ln.extra[0] == "timeout" else {})}
    )
    imp.find(
        "importer_concession_after_result",
        "info",
        ln.no,
        say(
            notes.CONCEDED_DURING,
            player=loser,
            cards=", ".join(d for _, d in kos),
            lines=", ".join(str(no) for no, _ in kos),
        ),
    )
    imp.window = None
    return True


def finish(imp: Importer, ln: Line) -> None:
    imp.phase = "ended"
    imp.out.ended = True
    imp.ended = ln


# -- line handlers: False when the line names someone who is not a player -----------------------------
def on_known(imp: Importer, ln: Line) -> bool:
    """Lines with nothing for the events (coin flips, the opening hand, a timeout warning)."""
    return imp.player_of(ln) is not None


def on_mulligan(imp: Importer, ln: Line) -> bool:
    p = imp.player_of(ln)
    if p is None:
        return False
    assert ln.g is not None
    slot = setup_slot(imp, p)
    n = ln.g.get("n")
    # "took 2 mulligans." is a total; "took a mulligan." may be printed once per mulligan
    had = int(slot["mulligans"])  # type: ignore[call-overload]
    slot["mulligans"] = max(had, int(n)) if n else had + 1
    return True


def on_bonus(imp: Importer, ln: Line) -> bool:
    p = imp.player_of(ln)
    if p is None:
        return False
    assert ln.g is not None
    ev: Event = {"type": "drew", "player": p, "count": int(ln.g["n"])}
    if imp.phase in ("setup", "pre"):
        imp.bonus.append(ev)
    else:
        imp.emit(ev)
    return True


def on_ended(imp: Importer, ln: Line) -> bool:
    p = imp.player_of(ln)
    if p is None:
        return False
    close_window(imp)
    if p != imp.turn_player:
        imp.find(
            "importer_turn_player",
            "warning",
            ln.no,
            say(notes.TURN_ENDED_OTHER, player=p, other=imp.turn_player),
        )
    close_turn(imp)
    return True


HANDLERS: dict[str, Callable[[Importer, Line], bool]] = {
    "opening": on_known,
    "coin": on_known,
    "coin_won": on_known,
    "decided": on_known,
    "inaction": on_known,
    "conceded_line": on_known,  # the end line that follows says it again
    "mulligan": on_mulligan,
    "bonus": on_bonus,
    "ended": on_ended,
}
