"""Setup and the Pokémon on the table: match_started, setup, played, evolved, attached, switched.

[docs/rules.md §6 Setup]: 60-card decks, 7-card hand, 6 prizes; nobody evolves a Pokémon on their own first
turn or one that came into play that turn.
"""

from __future__ import annotations

from typing import Any

from replay.engine import findings as F
from replay.engine import judgment, restrictions
from replay.engine.board import Player, Pokemon
from replay.engine.findings import say
from replay.engine.ruleset import load_ruleset
from replay.engine.state import Event, State


def on_match_started(g: State, e: Event) -> None:
    if g.started is not None:
        g.find("duplicate_seq", e["seq"], say(F.SECOND_START))
        return
    g.started = e
    rid = str(e.get("ruleset"))
    try:
        g.ruleset = load_ruleset(rid)
        g.ruleset_id = rid
    except KeyError:
        g.ruleset_id = rid
        g.find("unknown_ruleset", e["seq"], say(F.UNKNOWN_RULESET, ruleset=rid))
    g.players = [str(x) for x in e["players"]]
    g.first = str(e.get("first"))
    if g.first not in g.players:
        g.find("turn_order", e["seq"], say(F.FIRST_NOT_PLAYER, first=g.first))
        g.first = g.players[0]
    g.context = dict(e.get("context") or {})
    g.source = dict(e.get("source") or {})
    kind = g.source.get("kind")
    g.reports_knockouts = bool(g.source.get("reports_knockouts", kind == "digital"))
    g.parent = e.get("parent")
    # A game that names its parent is that game's playoff, with or without the "playoff" field: its
    # ruleset's playoff gives its kind, its prizes and how it is won [docs/rules.md §6].
    kind = e.get("playoff")
    g.playoff_kind = (
        str(kind) if kind is not None else g.ruleset.playoff.kind if g.parent is not None else None
    )
    # A drawn game must be decided when the producer says so, in single elimination [TTH §7.4.3.1],
    # and always in a playoff game (a drawn sudden death is followed by another one [KR1.0]).
    g.must_decide = bool(
        e.get("must_decide", g.context.get("stage") == "single_elimination" or g.parent is not None)
    )
    # a playoff of another kind than the ruleset's own is one its time procedure goes to (a drawn
    # extension's sudden death [JP 終了コール]): that playoff's prizes
    default_prizes = g.ruleset.playoff_of(g.playoff_kind).prizes if g.playoff_kind else g.ruleset.prizes
    prizes = int(e.get("prizes", default_prizes))
    deck = int(e.get("deck", g.ruleset.deck))
    g.p = {pid: Player(pid, deck, prizes) for pid in g.players}


def _place(g: State, pl: Player, slot: dict[str, Any], to: str, seq: int) -> None:
    pid = str(slot.get("pid"))
    if pid in g.mons:
        g.find("unknown_pokemon", seq, say(F.PID_IN_PLAY, pid=pid))
        return
    mon = Pokemon(pid, pl.id, slot.get("card") or {}, g.turn)
    g.mons[pid] = mon
    pl.move("hand", "in_play", 1)
    if to == "active" and pl.active is None:
        pl.active = pid
    else:
        pl.bench.append(pid)


def on_setup(g: State, e: Event) -> None:
    pl = g.player(e)
    if pl is None:
        return
    # The 7-card opening hand and the prize cards are set aside implicitly [docs/events.md, setup].
    pl.mulligans = int(e.get("mulligans", 0))
    pl.move("deck", "hand", g.ruleset.hand)
    pl.move("deck", "prizes", pl.needed)
    if isinstance(e.get("active"), dict):
        _place(g, pl, e["active"], "active", e["seq"])
    for slot in e.get("bench") or []:
        if isinstance(slot, dict):
            _place(g, pl, slot, "bench", e["seq"])


def on_played(g: State, e: Event) -> None:
    pl = g.player(e)
    if pl is None:
        return
    to = e.get("to") or ("active" if pl.active is None and not pl.bench else "bench")
    _place(g, pl, {"pid": e.get("pid"), "card": e.get("card")}, to, e["seq"])


def on_evolved(g: State, e: Event) -> None:
    mon = g.mon(e)
    pl = g.player(e)
    if mon is None or pl is None:
        return
    seq = e["seq"]
    # [docs/rules.md §6 Setup]: not on the player's own first turn, nor a Pokémon that came into play
    # (or evolved) this turn, unless a card effect does it (Grand Tree, Rare Candy, Forest of Vitality):
    # a source that names the effect makes no finding.
    effect = e.get("effect")
    if effect:
        if g.turn_player == pl.id:
            g.turn_cards.append(str(effect))
    elif not g.ruleset.first_turn_evolve and g.turn_player == pl.id and pl.turns <= 1 and g.turn > 0:
        restrictions.restriction(
            g,
            "evolved_too_early",
            seq,
            pl,
            say(F.EVOLVED_FIRST_TURN, player=pl.id, card=mon.name, pid=mon.pid),
        )
    elif mon.entered_turn == g.turn or mon.evolved_turn == g.turn:
        when = F.EVOLVED_NEW if mon.entered_turn == g.turn else F.EVOLVED_TWICE
        restrictions.restriction(g, "evolved_too_early", seq, pl, say(when, card=mon.name, pid=mon.pid))
    pl.move("hand", "in_play", 1)
    mon.evolve(e.get("card") or {}, g.turn)
    if g.window is None and mon.knocked_out:
        g.effect_pending = True
        g.effect_seq = seq


def on_attached(g: State, e: Event) -> None:
    mon = g.mon(e)
    pl = g.player(e)
    if mon is None or pl is None:
        return
    src = e.get("from")
    if src is None or src == "hand":
        pl.hand -= 1
        pl.in_play += 1
    else:
        pl.move(src if src in ("deck", "discard", "lost_zone", "prizes") else "hand", "in_play", 1)
    card = e.get("card") or {}
    name = str(card.get("name", "?"))
    if card.get("kind") == "energy" and (src is None or src == "hand") and g.window is None:
        restrictions.energy_attached(g, e, pl, name)  # [docs/rules.md §6] one Energy from the hand a turn
    mon.attached.append(name)
    mon.cards += 1
    if mon.owner != pl.id:
        g.p[mon.owner].in_play += 1
        pl.in_play -= 1


def on_switched(g: State, e: Event) -> None:
    pl = g.player(e)
    mon = g.mon(e)
    if pl is None or mon is None:
        return
    if mon.pid not in pl.bench:
        if pl.active != mon.pid:
            g.find("unknown_pokemon", e["seq"], say(F.NOT_ON_BENCH, pid=mon.pid, player=pl.id))
        return
    if pl.active is None:
        # A new Active after a knockout, reported as a switch: the same as a promotion.
        judgment.promote(g, pl, mon, e["seq"])
        return
    if g.window is None:
        restrictions.switched(g, e, pl)  # [docs/rules.md §6] a retreat, once per turn
    old = g.mons[pl.active]
    old.conditions = []  # moving to the Bench ends Special Conditions
    pl.bench[pl.bench.index(mon.pid)] = old.pid
    pl.active = mon.pid
