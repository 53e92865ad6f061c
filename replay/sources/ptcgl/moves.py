"""The lines that move cards between zones after they are drawn: cards moved (to the hand, the deck, the
discard pile, the Prize cards, the Lost Zone), shuffled into a deck, revealed and put on the bottom of it.

One job: turn each such sentence into the contract's zone events (``moved``, ``to_hand``, ``shuffled``,
``discarded``, ``removed``), taking each card from the zone the log implies. The log often does not name
the zone: the public discard pile, the effect's own shuffle and the catalogue's card text decide, and what
remains a guess is a finding (docs/importers.md, "Counts: every card the log moves").
"""

from __future__ import annotations

from collections.abc import Callable

from replay.i18n import notes
from replay.i18n.notes import say
from replay.sources.common import Event
from replay.sources.ptcgl.importer import Importer, Window
from replay.sources.ptcgl.lines import Line
from replay.sources.ptcgl.play import tool_gone
from replay.sources.ptcgl.zones import play_stadium, put_back, second_owner


def on_moved_n(imp: Importer, ln: Line) -> bool:
    p, q = imp.player_of(ln), imp.player_of(ln, "q")
    if p is None or q is None:
        return False
    assert ln.g is not None
    zone = ln.g.get("zone", "")
    n = int(ln.g["n"])
    names = list(ln.extra or [])
    if zone == "deck":
        # a hand shuffled back (Iono, Judge): a return to the deck, owner checked like the draws after it
        owner = second_owner(imp, ln, q, "return", "cards to the deck")
        imp.emit({"type": "moved", "player": owner, "count": n, "from": "hand", "to": "deck"})
    elif zone == "lost_zone" and names and ko_cards(imp, q, names):
        return True  # a knocked-out Pokémon's cards, to the Lost Zone (Lost City): after its knockout
    elif zone in ("discard", "lost_zone"):
        # The names printed in mill lines are unreliable [docs/importers.md, the export's traps]; a deck
        # is not on the board. When the printed mover is not the player whose action this is (PokéStop
        # prints the opponent as mover and owner), the deck is taken to be the acting player's; otherwise
        # the printed owner stays. Either way the move is marked and reported.
        actor = imp.window.actor if imp.window is not None else None
        owner = q
        if imp.table.is_player(actor) and p != actor:
            assert actor is not None
            owner = actor
            imp.find(
                "importer_guess_owner",
                "warning",
                ln.no,
                say(notes.GUESS_OWNER_MILLED, n=n, player=p, owner=q, actor=actor),
            )
        else:
            imp.find(
                "importer_owner_unverified",
                "info",
                ln.no,
                say(notes.OWNER_UNVERIFIED, n=n, player=q),
            )
        ev: Event = {"type": "moved", "player": owner, "count": n, "from": "deck", "to": zone,
                     "owner_unverified": True}  # fmt: skip
        if names:
            ev["cards"] = names
        imp.emit(ev)
    elif zone == "hand" and names and leaving_stack(imp, ln, q, names):
        return True
    elif zone == "hand":
        src = imp.source_of(ln, q, names, "the cards put into the hand")
        src = "deck" if src == "hand" else src
        ev = {"type": "searched" if src == "deck" else "to_hand", "player": q, "count": n}
        if src != "deck":
            ev["from"] = src
        if names:
            ev["cards"] = names
        imp.emit(ev)
    elif zone == "prizes":
        # Redeemable Ticket-like: cards from the deck become Prize cards
        imp.emit({"type": "moved", "player": q, "count": n, "from": "deck", "to": "prizes"})
    else:
        imp.find(
            "importer_unsupported",
            "warning",
            ln.no,
            say(notes.MOVED_UNREAD, n=n, zone=zone) if zone else say(notes.MOVED_UNREAD_SOMEWHERE, n=n),
        )
    return True


def leaving_stack(imp: Importer, ln: Line, q: str, names: list[str]) -> bool:
    """``P moved Q's 3 cards to their hand.`` listing exactly the Pokémon cards of a Pokémon in play
    (Professor Turo's Scenario puts a Pokémon with its Evolution cards into the hand, its attached cards
    discarded on their own lines): that Pokémon leaves play. The Active, when it is one of them, waits for
    the promotion line that replaces it (as ``on_moved``: close_window removes it); else a Benched one."""
    table = imp.table
    want = sorted(names)
    cands = [x for x in table.in_play(q) if sorted(imp.mon(x).stages or [imp.mon(x).name]) == want]
    if not cands:
        return False
    active = next((x for x in cands if table.is_active(x)), None)
    if active is not None and imp.window is not None:
        imp.window.leaving[q] = (active, "hand", ln.no)
        return True
    pid = cands[0] if len(cands) == 1 else imp.choose(cands, ln.no, "the Pokémon put into the hand", [])
    imp.emit({"type": "removed", "player": q, "pid": pid, "to": "hand"})
    table.removed(pid, "hand")
    return True


def on_moved(imp: Importer, ln: Line) -> bool:
    p, q = imp.player_of(ln), imp.player_of(ln, "q")
    if p is None or q is None:
        return False
    assert ln.g is not None
    table = imp.table
    zone = ln.g.get("zone", "")
    name = ln.g["c"]
    if zone == "hand" and ln.from_prizes:
        # Hisuian Heavy Ball-like: a card from the Prize cards, which the effect then shuffles
        imp.emit({"type": "to_hand", "player": q, "from": "prizes", "count": 1, "cards": [name]})
        return True
    pile = table.discard_pile(q)
    if zone in ("prizes", "deck") and imp.last_effect == name and name in pile:
        # the Trainer being played puts itself there (it was counted into the discard pile when played)
        imp.emit({"type": "moved", "player": q, "cards": [name], "from": "discard", "to": zone})
        return True
    in_discard = name in pile
    if zone in ("active", "bench"):
        if in_discard:
            imp.emit({"type": "to_hand", "player": q, "from": "discard", "count": 1, "cards": [name]})
        else:
            imp.emit({"type": "searched", "player": q, "count": 1, "cards": [name]})
        imp.put_in_play(q, name, zone)
        return True
    if zone in ("hand", "deck") and in_discard:
        # a card from the discard pile (Night Stretcher, Super Rod): every discard is public
        if zone == "hand":
            imp.emit({"type": "to_hand", "player": q, "from": "discard", "count": 1, "cards": [name]})
        else:
            imp.emit({"type": "moved", "player": q, "cards": [name], "from": "discard", "to": "deck"})
        return True
    w = imp.window
    stadium = table.stadium
    leaving = zone in ("lost_zone", "discard", "hand", "deck") and (w is None or w.trainer != name)
    if leaving and stadium is not None and stadium[1] == name:
        # the Stadium in play leaves it (Lost Vacuum puts it in the Lost Zone)
        table.stadium = None
        imp.emit({"type": "moved", "player": stadium[0], "cards": [name], "from": "stadium", "to": zone})
        return True
    if zone == "lost_zone" and w is not None and any(qq == q and dd == name for _, qq, dd in w.kos):
        w.lost_with_ko.append((q, name, []))  # Lost City: the knocked-out Pokémon itself, after its knockout
        return True
    devolved = w.devolved.pop((q, name), None) if w is not None else None
    if devolved is not None and devolved in table.mons:
        # the card a devolution took off the Pokémon (replay/sources/ptcgl/play.py, on_devolved)
        detach_to(imp, ln, devolved, name, zone, finding=False)
        return True
    holder = attachment_holder(imp, q, name) if zone in ("lost_zone", "discard", "hand", "deck") else None
    if holder is not None:
        detach_to(imp, ln, holder, name, zone)
        return True
    if zone in ("lost_zone", "discard", "deck") and imp.window is not None:
        imp.window.from_hand += 1  # a card this effect moved (its first is a Trainer's cost)
    # The same line moves a Pokémon in play (Scoop Up, Turo's Scenario). Only an Active replaced in the
    # same effect proves the Pokémon left play: the removal waits for that promotion line
    # (close_window); a Benched one is taken when no card of that name is in the discard pile.
    cands = imp.named(q, name) + imp.named(imp.other(q), name)
    active = next((x for x in cands if table.is_active(x)), None)
    if zone in ("hand", "deck", "lost_zone", "discard") and active is not None and imp.window is not None:
        imp.window.leaving[imp.mon(active).owner] = (active, zone, ln.no)
        return True
    benched = [x for x in cands if x != active]
    if zone in ("hand", "deck", "lost_zone") and benched:
        pid = benched[0]
        owner = imp.mon(pid).owner
        imp.find(
            "importer_guess_removed",
            "info",
            ln.no,
            say(notes.GUESS_REMOVED_BENCH, card=name, zone=zone, player=q, pid=pid),
        )
        imp.emit({"type": "removed", "player": owner, "pid": pid, "to": zone})
        table.removed(pid, zone)
        return True
    if zone == "hand":
        imp.find(
            "importer_guess_zone",
            "info",
            ln.no,
            say(notes.ZONE_HAND, card=name, player=q),
        )
        imp.emit({"type": "searched", "player": q, "count": 1, "cards": [name]})
    elif zone == "discard":
        # a discard from the hand prints as "P discarded C"; "moved Q's C to the discard pile" is a card
        # from the top of the deck (Trekking Shoes, a mill of one card)
        imp.find(
            "importer_guess_zone",
            "info",
            ln.no,
            say(notes.ZONE_DISCARD, card=name),
        )
        imp.emit({"type": "discarded", "player": q, "from": "deck", "count": 1, "cards": [name]})
    elif zone == "lost_zone" and looks_at_deck(imp):
        # the effect looks at the top of the deck (Flower Selecting): the card it puts away came from there
        imp.emit({"type": "moved", "player": q, "cards": [name], "from": "deck", "to": zone})
    elif zone in ("deck", "lost_zone", "prizes"):
        imp.find(
            "importer_guess_zone",
            "info",
            ln.no,
            say(notes.ZONE_OTHER, card=name, zone=zone),
        )
        imp.emit({"type": "moved", "player": q, "cards": [name], "from": "hand", "to": zone})
    elif zone == "stadium":
        play_stadium(imp, q, name)
    else:
        imp.find("importer_unsupported", "warning", ln.no, say(notes.MOVED_NOWHERE, card=name))
    return True


def looks_at_deck(imp: Importer) -> bool:
    """Whether the window's move or Trainer looks at the top of the deck (the catalogue's card text)."""
    w = imp.window
    if w is None:
        return False
    if w.move is not None and w.move[1]:
        return imp.cards.attach_source(*w.move, of="top") == "deck"
    return w.trainer is not None and imp.cards.attach_source(w.trainer, of="top") == "deck"


def ko_cards(imp: Importer, q: str, names: list[str]) -> bool:
    """Whether ``names`` are the cards of a Pokémon of ``q`` knocked out in this window (Lost City puts a
    knocked-out Pokémon in the Lost Zone): then they move there after the knockout (window.py)."""
    w = imp.window
    if w is None:
        return False
    for _, owner, d in w.kos:
        for pid in imp.named(owner, d):
            mon = imp.mon(pid)
            stack = list(mon.stages + mon.attached)
            if all(n in stack and not stack.remove(n) for n in names):  # type: ignore[func-returns-value]
                w.lost_with_ko.append((owner, d, list(names)))
                return True
    return False


def attachment_holder(imp: Importer, q: str, name: str) -> str | None:
    """The pid of ``q``'s Pokémon that has ``name`` attached, when a "moved Q's C to ..." line takes an
    attached card (Lost Impact's Energy, Lost Vacuum's Tool): in an attack or Ability, the acting
    Pokémon's first; in a Trainer's effect, not its first card (the cost comes from the hand)."""
    w = imp.window
    holders = [x for x in imp.table.in_play(q) if name in imp.mon(x).attached]
    if not holders and w is not None and w.trainer is not None and w.from_hand > 0:
        # the owner printed in such a line is often the acting player's (Lost Vacuum on the opponent's
        # Tool): the other player's Pokémon with that card attached
        holders = [x for x in imp.table.in_play(imp.other(q)) if name in imp.mon(x).attached]
    if not holders or w is None:
        return None
    if w.move is None and w.from_hand == 0 and w.trainer is not None:
        return None  # a Trainer's first card moved is its cost, from the hand (Lost Vacuum)
    if w.move is not None:
        acting = [x for x in holders if imp.mon(x).name == w.move[0]]
        if acting:
            return acting[0]
    active = [x for x in holders if imp.table.is_active(x)]
    return (active or holders)[0]


def detach_to(imp: Importer, ln: Line, pid: str, name: str, zone: str, *, finding: bool = True) -> None:
    """An attached card (or a devolved card) leaves its Pokémon for ``zone``. The contract moves such cards
    only to the discard pile (``discarded`` with ``pid``): another zone is that, then the card moved on from
    there."""
    mon = imp.mon(pid)
    owner = mon.owner
    if name in mon.attached:
        mon.attached.remove(name)
        tool_gone(imp, pid, name, ln.no)
    imp.emit({"type": "discarded", "player": owner, "pid": pid, "count": 1, "cards": [name]})
    if zone == "hand":
        imp.emit({"type": "to_hand", "player": owner, "from": "discard", "count": 1, "cards": [name]})
    elif zone != "discard":
        imp.emit({"type": "moved", "player": owner, "cards": [name], "from": "discard", "to": zone})
    if not finding:
        return
    imp.find(
        "importer_attachment_moved",
        "info",
        ln.no,
        say(
            notes.ATTACHED_LEFT,
            card=name,
            player=owner,
            pokemon=mon.name,
            pid=pid,
            zone=zone.replace("_", " "),
        ),
    )


def _whole(imp: Importer, pid: str, stack: list[str], names: list[str], w: Window | None) -> bool:
    """Whether the shuffled cards ``names`` (sorted: ``stack``) are the whole of Pokémon ``pid``, its
    stages and attached cards. (A module function, not a closure: compiled by mypyc, a nested function
    and its scope would be a reference cycle left for the collector; see tools/compile_engine.py.)"""
    m = imp.mon(pid)
    if sorted(m.stages + m.attached) == stack:
        return True
    # the Pokémon using the move shuffles itself away (Run Away Draw): its top card is named
    return w is not None and w.move is not None and names == [m.name] == [w.move[0]]


def on_shuffled(imp: Importer, ln: Line) -> bool:
    """ "P shuffled C (or N cards) into their deck/hand/Prize cards": from the discard pile when every
    named card is there, from play when the names are a Pokémon's cards (Run Away Draw), else from
    the hand (Lillie's Determination)."""
    p = imp.player_of(ln)
    if p is None:
        return False
    assert ln.g is not None
    zone = ln.g.get("zone", "deck")
    names = [ln.g["c"]] if not ln.g.get("hidden") else list(ln.extra or [])
    n = int(ln.g.get("n", "1"))
    pile = list(imp.table.discard_pile(p))
    w = imp.window
    said = None
    if w is not None and zone == "deck":
        # the effect's text says where the cards come from (Super Rod, Sacred Ash: the discard pile)
        if w.move is not None:
            said = imp.cards.attach_source(*w.move, of="shuffle")
        elif w.trainer is not None:
            said = imp.cards.attach_source(w.trainer, of="shuffle")
    if said == "discard" or (
        said is None and names and all(x in pile and not pile.remove(x) for x in names)  # type: ignore[func-returns-value]
    ):
        src = "discard"
    elif said == "hand":
        src = "hand"
    else:
        stack = sorted(names)
        mon = next((x for x in imp.table.in_play(p) if _whole(imp, x, stack, names, w)), None)
        if mon is not None and zone == "deck":
            left = list(imp.mon(mon).stages + imp.mon(mon).attached)
            for x in names:
                if x in left:
                    left.remove(x)
            if w is not None and left:
                w.gone.setdefault(p, []).extend(left)  # the lines that name the rest move nothing more
            imp.emit({"type": "removed", "player": p, "pid": mon, "to": "deck"})
            imp.table.removed(mon, "deck")
            imp.emit({"type": "shuffled", "player": p, "zone": "deck"})
            return True
        src = "hand"
    ev: Event = {"type": "shuffled", "player": p, "zone": zone, "from": src, "count": n}
    if names:
        ev["cards"] = names
    if src == zone:
        return True
    if src == "hand" and zone == "deck":
        ev["player"] = p = second_owner(imp, ln, p, "return", "cards shuffled into the deck")
        put_back(imp, p)
    imp.emit(ev)
    return True


def on_shuffle(imp: Importer, ln: Line) -> bool:
    p = imp.player_of(ln)
    if p is None:
        return False
    assert ln.g is not None
    zone = ln.g.get("zone")
    if imp.window is not None:
        if zone == "prizes":
            imp.window.prizes_shuffled.add(p)
        elif zone == "hand":
            imp.window.hands_shuffled.add(p)
    if zone in ("deck", "hand", "prizes"):
        imp.emit({"type": "shuffled", "player": p, "zone": zone})
    return True


def on_revealed(imp: Importer, ln: Line) -> bool:
    return imp.player_of(ln) is not None  # shows cards; moves none


def on_to_deck(imp: Importer, ln: Line) -> bool:
    p = imp.player_of(ln)
    if p is None:
        return False
    assert ln.g is not None
    name = ln.g["c"]
    w = imp.window
    if w is not None and name in w.gone.get(p, ()):
        w.gone[p].remove(name)
        return True  # a card of the Pokémon that left play with this effect (counted with it)
    from_pile = w is not None and (
        (w.trainer is not None and imp.cards.attach_source(w.trainer, of="shuffle") == "discard")
        or (
            w.move is not None
            and bool(w.move[1])
            and imp.cards.attach_source(*w.move, of="shuffle") == "discard"
        )
    )
    if ln.detail and from_pile and name in imp.table.discard_pile(p):
        # Super Rod and the like put cards from the discard pile back in the deck (the card's text says
        # so); Academy at Night or Iono put them there from the hand
        imp.emit({"type": "moved", "player": p, "cards": [name], "from": "discard", "to": "deck"})
        return True
    put_back(imp, p)
    imp.emit({"type": "moved", "player": p, "cards": [name], "from": "hand", "to": "deck"})
    return True


def on_bottom(imp: Importer, ln: Line) -> bool:
    p = imp.player_of(ln)
    if p is None:
        return False
    assert ln.g is not None
    w = imp.window
    if w is not None and p in w.prizes_shuffled:
        # Redeemable Ticket-like: the Prize cards were shuffled and put on the bottom of the deck
        imp.emit({"type": "moved", "player": p, "count": int(ln.g["n"]), "from": "prizes", "to": "deck"})
        return True
    p = second_owner(imp, ln, p, "return", "cards to the deck")
    ev: Event = {"type": "moved", "player": p, "count": int(ln.g["n"]), "from": "hand", "to": "deck"}
    if ln.extra:
        ev["cards"] = list(ln.extra)
    imp.emit(ev)
    return True


HANDLERS: dict[str, Callable[[Importer, Line], bool]] = {
    "moved_n": on_moved_n,
    "moved": on_moved,
    "shuffled": on_shuffled,
    "shuffle": on_shuffle,
    "revealed": on_revealed,
    "to_deck": on_to_deck,
    "bottom": on_bottom,
}
