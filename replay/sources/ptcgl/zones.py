"""The lines that take cards from the deck and the hand: draws and searches, Trainers played, Stadiums,
discards and attachments discarded (cards moved, shuffled and put back: replay/sources/ptcgl/moves.py).

One job: turn each such sentence into the contract's zone events (``drew``, ``searched``,
``trainer_played``, ``discarded``, ``to_hand``), taking each card from the zone the log implies. The log
often does not name the zone: the public discard pile, the effect's own shuffle and the catalogue's card
text decide, and what remains a guess is a finding (docs/importers.md, "Counts: every card the log moves").
"""

from __future__ import annotations

from collections.abc import Callable

from replay.engine import LIFTS
from replay.i18n import notes
from replay.i18n.notes import say
from replay.sources.common import Event
from replay.sources.ptcgl.importer import Importer
from replay.sources.ptcgl.lines import Line
from replay.sources.ptcgl.play import on_played_to, tool_gone


def second_owner(imp: Importer, ln: Line, p: str, group: str, what: str) -> str:
    """Effects that make both players shuffle their hands away and draw (Iono) print both players'
    lines under the acting player's name [docs/importers.md, the export's traps]: in one effect, a second
    line of the same kind for the same printed player is the other player's, when the other has none."""
    w = imp.window
    if w is None or not ln.detail:
        return p
    q = imp.other(p)
    exporter = imp.exporter
    hands_back = bool(w.returned or w.hands_shuffled) or (
        w.trainer is not None and imp.cards.attach_source(w.trainer, of="shuffle") == "hand"
    )
    if (
        exporter is not None
        and hands_back
        and (group == "draw" or (group == "return" and ln.kind != "bottom"))
    ):
        # after a hand is put back (Iono, Unfair Stamp, Special Red Card) the log names the exporter's new
        # cards and hides the other player's: the names say whose draw it is, whatever name the line
        # prints (Special Red Card prints the opponent's draw under the acting player)
        shown = bool(ln.extra) or (ln.g is not None and "c" in ln.g and not ln.g.get("hidden"))
        mine = exporter if shown else imp.other(exporter)
        w.seen[(group, mine)] = w.seen.get((group, mine), 0) + 1
        if group == "return":
            w.returned.add(mine)
        if mine != p:
            imp.find(
                "importer_guess_owner",
                "info",
                ln.no,
                say(notes.OWNER_SHOWN if shown else notes.OWNER_HIDDEN, what=what, player=p, other=mine),
            )
        return mine
    # Special Red Card-like: only the opponent shuffled their hand, yet the client prints the acting
    # player putting cards back and drawing: those lines are the opponent's
    if group == "return" and p not in w.hands_shuffled and q in w.hands_shuffled and q not in w.returned:
        w.returned.add(q)
        imp.find(
            "importer_guess_owner",
            "info",
            ln.no,
            say(notes.OWNER_RETURN, player=p, other=q),
        )
        return q
    if group == "draw" and p not in w.returned and q in w.returned and w.seen.get(("draw", q), 0) == 0:
        w.seen[("draw", q)] = 1
        imp.find(
            "importer_guess_owner",
            "info",
            ln.no,
            say(notes.OWNER_DRAW, player=p, other=q),
        )
        return q
    if group == "return":
        w.returned.add(p)
    key, other_key = (group, p), (group, q)
    if w.seen.get(key) and not w.seen.get(other_key):
        w.seen[other_key] = 1
        imp.find(
            "importer_guess_owner",
            "info",
            ln.no,
            say(notes.OWNER_SECOND, what=what, player=p, other=q),
        )
        return q
    w.seen[key] = w.seen.get(key, 0) + 1
    return p


def put_back(imp: Importer, p: str) -> None:
    """``p`` put cards from their hand into their deck in this effect (Iono, Unfair Stamp, Lillie's
    Determination): the draws after it are theirs (``second_owner``)."""
    if imp.window is not None:
        imp.window.returned.add(p)


def on_drew_hidden(imp: Importer, ln: Line) -> bool:
    p = imp.player_of(ln)
    if p is None:
        return False
    imp.emit({"type": "drew", "player": p, "count": 1})
    return True


def on_drew_card(imp: Importer, ln: Line) -> bool:
    p = imp.player_of(ln)
    if p is None:
        return False
    assert ln.g is not None
    # the turn's draw is a main line; a named card drawn by an effect was searched for (revealed)
    kind = "searched" if ln.detail else "drew"
    imp.emit({"type": kind, "player": p, "count": 1, "cards": [ln.g["c"]]})
    return True


def on_drew_n(imp: Importer, ln: Line) -> bool:
    p = imp.player_of(ln)
    if p is None:
        return False
    assert ln.g is not None
    p = second_owner(imp, ln, p, "draw", "drew N cards")
    ev: Event = {"type": "drew", "player": p, "count": int(ln.g["n"])}
    if ln.extra:
        ev["cards"] = list(ln.extra)  # shown to the exporter, or revealed
    imp.emit(ev)
    return True


def on_drew_played(imp: Importer, ln: Line) -> bool:
    p = imp.player_of(ln)
    if p is None:
        return False
    assert ln.g is not None
    c = ln.g["c"]
    if ln.g.get("zone") == "stadium" or imp.cards.trainer_kind(c) == "stadium":
        imp.emit({"type": "searched", "player": p, "count": 1, "cards": [c]})
        play_stadium(imp, p, c)
        return True
    # a search that puts the card straight into play: deck -> hand -> play [contract: searched, played]
    imp.emit({"type": "searched", "player": p, "count": 1, "cards": [c]})
    return on_played_to(imp, ln)


def on_drew_n_played(imp: Importer, ln: Line) -> bool:
    p = imp.player_of(ln)
    if p is None:
        return False
    assert ln.g is not None
    n = int(ln.g["n"])
    names: list[str] = list(ln.extra or [])
    ev: Event = {"type": "searched", "player": p, "count": n}
    if names:
        ev["cards"] = names
    imp.emit(ev)
    if len(names) != n:
        imp.find(
            "importer_guess_pokemon",
            "warning",
            ln.no,
            say(notes.GUESS_POKEMON_COUNT, player=p, n=n, count=len(names)),
        )
    to = "active" if ln.g.get("zone") == "active" else "bench"
    for name in names[:n]:
        imp.put_in_play(p, name, to)
    return True


def play_stadium(imp: Importer, p: str, name: str) -> None:
    """A Stadium comes into play; the one in play (either player's) goes to its owner's discard
    pile [contract: trainer_played, kind stadium]."""
    table = imp.table
    imp.emit({"type": "trainer_played", "player": p, "card": {"name": name, "kind": "stadium"}})
    if table.stadium is not None:
        table.discard_pile(table.stadium[0]).append(table.stadium[1])
    if imp.window is not None:
        imp.window.stadium_played = True
        imp.window.replaced = table.stadium
        imp.window.trainer = name
    table.stadium = (p, name)
    imp.last_effect = name


def on_stadium(imp: Importer, ln: Line) -> bool:
    p = imp.player_of(ln)
    if p is None:
        return False
    assert ln.g is not None
    play_stadium(imp, p, ln.g["c"])
    return True


def on_played(imp: Importer, ln: Line) -> bool:
    p = imp.player_of(ln)
    if p is None:
        return False
    assert ln.g is not None
    c = ln.g["c"]
    imp.last_effect = c
    if imp.named(p, c):
        if imp.window is not None:
            imp.window.move = (c, "")
        return True  # a Pokémon in play: the line is its Ability (Dudunsparce's "played Dudunsparce.")
    kind = imp.cards.trainer_kind(c)
    table = imp.table
    if kind == "stadium":
        if table.stadium is not None and table.stadium[1] == c:
            if imp.window is not None:
                imp.window.trainer = c
            return True  # the Stadium in play: its effect was used
        play_stadium(imp, p, c)
    elif kind in ("item", "supporter"):
        # [contract: trainer_played] the card leaves the hand; once used it is in the discard pile
        ev: Event = {"type": "trainer_played", "player": p, "card": {"name": c, "kind": kind}}
        allowed = first_turn_supporter(imp, p, c) if kind == "supporter" else None
        if allowed is not None:
            ev["effect"] = allowed
        imp.emit(ev)
        table.discard_pile(p).append(c)
        if imp.window is not None:
            imp.window.trainer = c
    elif kind is None and not imp.cards.is_pokemon(c):
        imp.find(
            "importer_card_unknown",
            "info",
            ln.no,
            say(notes.CARD_UNKNOWN, player=p, card=c),
        )
    return True


def on_discarded(imp: Importer, ln: Line) -> bool:
    p = imp.player_of(ln)
    if p is None:
        return False
    g = ln.g
    assert g is not None
    table = imp.table
    hidden = g.get("hidden")
    names = [g["c"]] if not hidden else list(ln.extra or [])
    n = int(g.get("n", "1"))
    w0 = imp.window
    if w0 is not None and w0.replaced is not None and g.get("c") == w0.replaced[1]:
        return True  # the Stadium just replaced: trainer_played put it in its owner's discard
    if (
        not hidden
        and table.stadium is not None
        and g["c"] == table.stadium[1]
        and not (w0 is not None and w0.trainer is not None and w0.move is None)
    ):
        # the Stadium in play leaves it (an attack or Ability discarding it); during a Trainer's effect
        # (Earthen Vessel's cost) a card of the same name comes from the hand
        owner, name = table.stadium
        table.stadium = None
        imp.emit({"type": "discarded", "player": owner, "from": "stadium", "count": 1, "cards": [name]})
        return True
    stadium_played = w0 is not None and w0.stadium_played
    bench = (
        [x for x in table.bench[p] if imp.mon(x).name == g.get("c")] if stadium_played and not hidden else []
    )
    if bench:
        # a Stadium that limits the Bench (Collapsed Stadium): the player discards Benched Pokémon, with
        # their cards; the client prints it as a discard
        pid = bench[-1]
        imp.find(
            "importer_guess_removed",
            "info",
            ln.no,
            say(notes.GUESS_REMOVED_STADIUM, player=p, card=g["c"], pid=pid),
        )
        imp.emit({"type": "removed", "player": p, "pid": pid, "to": "discard"})
        imp.table.removed(pid, "discard", names=True)
        return True
    # "P discarded C" does not say from where: the hand, unless the move being used discards from the
    # top of its deck (the catalogue knows Seek Inspiration's text). Any other attack: said so.
    w = imp.window
    move = w.move if w is not None and ln.detail else None
    if move is not None and imp.cards.mills(move[0], move[1]):
        ev0: Event = {"type": "discarded", "player": p, "from": "deck", "count": n}
        if names:
            ev0["cards"] = names
        imp.emit(ev0)
        return True
    if w is not None and w.kind == "attack" and ln.detail:
        imp.find(
            "importer_guess_zone",
            "info",
            ln.no,
            say(notes.GUESS_ZONE_ATTACK, player=p, cards=", ".join(names))
            if names
            else say(notes.GUESS_ZONE_ATTACK_N, player=p, n=n),
        )
    ev: Event = {"type": "discarded", "player": p, "count": n}
    if names:
        ev["cards"] = names
    imp.emit(ev)
    return True


def on_detached(imp: Importer, ln: Line) -> bool:
    q = imp.player_of(ln, "q")
    if q is None:
        return False
    assert ln.g is not None
    d = ln.g["d"]
    w = imp.window
    if w is not None and any(qq == q and dd == d for _, qq, dd in w.kos):
        # the knocked-out Pokémon's cards: the knockout discards all of them; the list tells which
        # cards were on it (close_window checks the attachments it guessed against it)
        listed = [ln.g["c"]] if "c" in ln.g else list(ln.extra or [])
        w.ko_lists.setdefault((q, d), []).extend(listed)
        return True
    if not imp.named(q, d):
        return True  # no longer in play (knocked out or removed earlier): its cards went with it
    pid = imp.locate(q, d, ln.no, "the discarded attachment", materialise=False)
    if pid is None:
        return True
    names = [ln.g["c"]] if "c" in ln.g else list(ln.extra or [])
    n = int(ln.g.get("n", "1"))
    mon = imp.mon(pid)
    for name in names:
        if name in mon.attached:
            mon.attached.remove(name)
            tool_gone(imp, pid, name, ln.no)
    ev: Event = {"type": "discarded", "player": q, "pid": pid, "count": n}
    if names:
        ev["cards"] = names
    imp.emit(ev)
    return True


def first_turn_supporter(imp: Importer, p: str, c: str) -> str | None:
    """A Supporter played on the first turn of the player who went first, whose own text allows it
    (Carmine, Team Rocket's Proton) [docs/rules.md §6]: its English name (the engine's list of such cards
    is English), from the printing the log's card id names, else from its name in the log's language
    (``Roseille`` is Carmine), for ``trainer_played.effect``; None otherwise."""
    if imp.turn_no != 1 or p != imp.first:
        return None
    english = imp.cards.english(c)
    return english if english in LIFTS["supporter_first_turn"] else None


HANDLERS: dict[str, Callable[[Importer, Line], bool]] = {
    "drew_hidden": on_drew_hidden,
    "drew_card": on_drew_card,
    "drew_n": on_drew_n,
    "drew_played": on_drew_played,
    "drew_n_played": on_drew_n_played,
    "stadium": on_stadium,
    "played": on_played,
    "discarded": on_discarded,
    "detached": on_detached,
}
