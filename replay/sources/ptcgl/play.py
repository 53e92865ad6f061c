"""The lines about Pokémon in play: played, evolved, attached, attacks, damage, Special Conditions, healing,
switches, knockouts and prizes.

One job: turn each such sentence into contract events on the right pid. The log names a Pokémon only by
its name and (often wrongly) its owner; ``Importer.locate`` and ``in_spot`` resolve them from the board.
Knockouts, prizes and promotions are collected into the open window and emitted in rule order when it
closes (replay/sources/ptcgl/window.py).
"""

from __future__ import annotations

from collections.abc import Callable

from replay.i18n import notes
from replay.i18n.notes import say
from replay.sources.common import Event
from replay.sources.ptcgl.cards import Clue
from replay.sources.ptcgl.importer import Importer, Window
from replay.sources.ptcgl.lines import Line
from replay.sources.ptcgl.turns import setup_slot
from replay.sources.ptcgl.window import promote


def on_played_to(imp: Importer, ln: Line) -> bool:
    p = imp.player_of(ln)
    if p is None:
        return False
    assert ln.g is not None
    name = ln.g["c"]
    to = "active" if ln.g.get("zone") == "active" else "bench"
    if imp.phase in ("setup", "pre"):
        slot = setup_slot(imp, p)
        pid, card = imp.new_poke(p, name)
        if to == "active":
            slot["active"] = {"pid": pid, "card": card}
            imp.table.active[p] = pid
        else:
            slot["bench"].append({"pid": pid, "card": card})  # type: ignore[attr-defined]
            imp.table.bench[p].append(pid)
        return True
    imp.put_in_play(p, name, to)
    return True


def on_attached(imp: Importer, ln: Line) -> bool:
    p = imp.player_of(ln)
    if p is None:
        return False
    assert ln.g is not None
    name, target = ln.g["c"], ln.g["d"]
    # no clue on the board tells which copy a card goes to (not even the one just played: real logs
    # attach to the older one as often); a tie is a finding, corrected by the knockout's card list later
    pid = imp.in_spot(p, target, ln, "the attachment", [])
    assert pid is not None
    ev: Event = {
        "type": "attached",
        "player": p,
        "pid": pid,
        "card": {"name": name, "kind": imp.cards.attach_kind(name)},
    }
    others = [x for x in imp.named(p, target) if x != pid]
    if others:
        imp.attach_guesses.setdefault(pid, []).append((ev, name, others))
    holder = shifted_from(imp, ln, pid, name)
    if holder is not None:
        # an effect that moves Energy between Pokémon (Energy Switch, Happy Switch) prints the move as an
        # attachment: the card comes off another Pokémon. The contract moves attached cards only to the
        # discard pile, so it goes through it.
        src_mon = imp.mon(holder)
        src_mon.attached.remove(name)
        imp.emit({"type": "discarded", "player": src_mon.owner, "pid": holder, "count": 1, "cards": [name]})
        ev["from"] = "discard"
        imp.find(
            "importer_attachment_moved",
            "info",
            ln.no,
            say(
                notes.ATTACHED_MOVED,
                card=name,
                player=src_mon.owner,
                pokemon=src_mon.name,
                holder=holder,
                target=imp.mon(pid).name,
                pid=pid,
            ),
        )
        imp.emit(ev)
        imp.mon(pid).attached.append(name)
        return True
    src = imp.source_of(ln, p, [name], "the attached card")
    if src != "hand":
        ev["from"] = src
    if ln.detail:
        # attached by an effect (an Ability, a Trainer), not the turn's one Energy from the hand
        named = effect_name(imp)
        if named:
            ev["effect"] = named
    imp.emit(ev)
    imp.mon(pid).attached.append(name)
    tool_hp(imp, pid, name, ln.no)
    return True


def tool_hp(imp: Importer, pid: str, name: str, no: int, *, stadium: bool = False) -> None:
    """A card attached that changes HP (Hero's Cape +100, read from the catalogue), or a Stadium in play
    that does (Gravity Mountain: Stage 2 -30): the stage's HP counts it. The contract has no event that
    changes HP, so the card map of the stage carries it (the board shows it from the stage's start); a
    bonus the catalogue cannot check, or a loss below what the stage survived, leaves the HP unknown."""
    mon = imp.mon(pid)
    bonus = imp.cards.hp_bonus(name, mon)
    if bonus == 0:
        return
    card = mon.card
    if bonus is not None:
        mon.hp_bonus += bonus
        hp = card.get("hp")
        if not isinstance(hp, int):
            return  # several printings: the choice counts it (LogCards.settle_hp)
        if hp + bonus > mon.survived:
            card["hp"] = hp + bonus
            imp.find(
                "importer_hp_tool",
                "info",
                no,
                say(
                    notes.HP_TOOL,
                    card=name,
                    player=mon.owner,
                    pokemon=mon.name,
                    pid=pid,
                    bonus=f"{bonus:+d}",
                    hp=card["hp"],
                ),
            )
            return
    if "hp" in card:
        del card["hp"]
        imp.cards.hp_missing.add(mon.name)
        imp.find(
            "importer_hp_effect",
            "info",
            no,
            say(
                notes.HP_EFFECT_STADIUM if stadium else notes.HP_EFFECT_ATTACHED,
                card=name,
                player=mon.owner,
                pokemon=mon.name,
                pid=pid,
            ),
        )


def stadium_hp(imp: Importer, no: int) -> None:
    """A Stadium that changes the HP of every Pokémon of a kind in play (Gravity Mountain: each Stage 2
    -30, the catalogue's card text): counted on each Pokémon in play while it is in play (a Pokémon that
    comes into play or evolves included), taken off when it leaves (``tool_gone``). Run after each line."""
    table = imp.table
    st = table.stadium
    if st != imp.field:
        if imp.field is not None:
            gone = imp.field[1]
            for pid in imp.field_on:
                if pid in table.in_play(table.mons[pid].owner):
                    tool_gone(imp, pid, gone, no)
            imp.field_on.clear()
        imp.field = st
    if st is None or not imp.cards.gives_hp(st[1]):
        return
    for p in table.players:
        for pid in table.in_play(p):
            if pid not in imp.field_on:
                imp.field_on.add(pid)
                tool_hp(imp, pid, st[1], no, stadium=True)


def tool_gone(imp: Importer, pid: str, name: str, no: int) -> None:
    """A card that gave HP leaves the Pokémon: the stage's HP drops. The contract has no event that
    changes HP, so the stage keeps one HP: settled when the stage ends (``settle_dropped``)."""
    mon = imp.mon(pid)
    bonus = imp.cards.hp_bonus(name, mon) if mon.hp_bonus else 0
    if bonus:
        mon.hp_bonus -= bonus
        mon.hp_dropped += bonus


def shifted_from(imp: Importer, ln: Line, pid: str, name: str) -> str | None:
    """The Pokémon an Energy-moving effect took ``name`` from, when the window's move or Trainer moves
    Energy between Pokémon (the catalogue's card text) and another Pokémon has that card attached:
    a Benched one when the target is Active (Happy Switch), else the Active, else the first."""
    w = imp.window
    if not ln.detail or w is None:
        return None
    moving = (w.move is not None and imp.cards.shifts_energy(*w.move)) or (
        w.trainer is not None and imp.cards.shifts_energy(w.trainer)
    )
    if not moving:
        return None
    owner = imp.mon(pid).owner
    holders = [x for x in imp.table.in_play(owner) if x != pid and name in imp.mon(x).attached]
    if not holders:
        return None
    if imp.table.is_active(pid):
        return holders[0] if not imp.table.is_active(holders[0]) else (holders[1:] or holders)[0]
    active = [x for x in holders if imp.table.is_active(x)]
    return (active or holders)[0]


def on_evolved(imp: Importer, ln: Line) -> bool:
    p = imp.player_of(ln)
    if p is None:
        return False
    assert ln.g is not None
    old, new = ln.g["c"], ln.g["d"]
    # [docs/rules.md §6] a Pokémon that came into play (or evolved) this turn cannot evolve: that rule,
    # not a guess, picks between same-named copies when it can.
    # [docs/rules.md §6] a Pokémon that came into play (or evolved) this turn cannot evolve: that rule,
    # not a guess, picks between same-named copies when it can
    rule: Clue = ("one that may evolve now", lambda x: 0 if imp.mon(x).entered < imp.turn_no else 1, True)
    pid = imp.in_spot(p, old, ln, "the evolution", [rule])
    assert pid is not None
    mon = imp.mon(pid)
    imp.cards.settle_dropped(mon, ln.no)
    imp.cards.settle_hp(mon, ln.no)  # the stage below is covered now: its HP is what it survived with
    src = imp.source_of(ln, p, [new], "the evolution card")
    if src == "deck":
        # Technical Machine: Evolution and the like take the Evolution card from the deck
        imp.emit({"type": "searched", "player": p, "count": 1, "cards": [new]})
    elif src == "discard":
        imp.emit({"type": "to_hand", "player": p, "from": "discard", "count": 1, "cards": [new]})
    card = imp.cards.card_map(new, mon)
    mon.name, mon.rule, mon.card = new, card["rule"], card
    mon.stages.append(new)
    mon.survived = mon.damage
    mon.hp_bonus = 0
    imp.field_on.discard(pid)  # a Stadium's HP change: counted on the new stage after this line
    mon.devolved = False  # evolved again: the engine has this card
    for attached in mon.attached:  # Tools stay attached: what they give the new stage
        tool_hp(imp, pid, attached, ln.no)
    early = mon.entered == imp.turn_no or imp.turns_of.get(p, 0) <= 1  # came into play this turn, first turn
    mon.entered = mon.evolved_at = imp.turn_no
    mon.conditions.clear()
    ev: Event = {"type": "evolved", "player": p, "pid": pid, "card": card}
    if early:
        # An evolution the rules alone would not allow (again this turn, the turn it came into play, the
        # player's first turn) needs a card that allows it (Rare Candy, Grand Tree, Forest of Vitality): the
        # client did it, so name the effect of the turn: the window's Trainer or Ability, else the Stadium
        # in play, else the last effect (contract: evolved.effect)
        ev["effect"] = effect_name(imp) or (imp.table.stadium[1] if imp.table.stadium else None) or "effect"
    imp.emit(ev)
    return True


def effect_name(imp: Importer) -> str | None:
    """The card or Ability the open window's action used, else the last Trainer or Ability of the turn."""
    w = imp.window
    if w is not None and w.trainer is not None:
        return w.trainer
    if w is not None and w.move is not None and w.move[1] and w.kind != "attack":
        return w.move[1]
    return imp.last_effect


def on_devolved(imp: Importer, ln: Line) -> bool:
    """``P devolved Q's C to D``: the top card comes off (the next line says where it goes: window.devolved).
    The contract has no event for it: the engine keeps the evolved card's name and HP, said so."""
    p, q = imp.player_of(ln), imp.player_of(ln, "q")
    if p is None or q is None:
        return False
    assert ln.g is not None
    c, d = ln.g["c"], ln.g["d"]
    pid = imp.in_spot(q, c, ln, "the devolution", imp.clues("hit", "active"))
    if pid is not None:
        mon = imp.mon(pid)
        if len(mon.stages) > 1 and mon.stages[-1] == c:
            mon.stages.pop()
            card = imp.cards.card_map(d, mon)
            mon.name, mon.rule, mon.card = d, card["rule"], card
            mon.devolved = True
            if imp.window is not None:
                imp.window.devolved[(q, c)] = pid
    imp.find(
        "importer_unsupported",
        "warning",
        ln.no,
        say(notes.DEVOLVED, card=c, target=d),
    )
    return True


def on_retreated(imp: Importer, ln: Line) -> bool:
    p = imp.player_of(ln)
    if p is None:
        return False
    if imp.window is not None:
        # the next "is now in the Active Spot" is the retreat's switch, even to a same-named Pokémon
        imp.window.retreated.add(p)
    return True


def attacker(imp: Importer, p: str, name: str, no: int) -> str | None:
    a = imp.table.active[p]
    if a is not None and imp.mon(a).name == name:
        return a
    return imp.locate(p, name, no, "the attacker")


def on_attack(imp: Importer, ln: Line) -> bool:
    assert ln.g is not None
    p, q = imp.player_of(ln), imp.player_of(ln, "q")
    if p is None or q is None:
        return False
    by = attacker(imp, p, ln.g["c"], ln.no)
    if imp.window is not None:
        imp.window.move = (ln.g["c"], ln.g["a"])
    imp.emit({"type": "attack", "player": p, "pid": by, "name": ln.g["a"]})
    d = ln.g["d"]
    a = imp.table.active[q]
    target = a if a is not None and imp.mon(a).name == d else imp.locate(q, d, ln.no, "the attack's target")
    assert target is not None
    imp.damage(target, int(ln.g["n"]), by)
    return True


def reacting(imp: Importer, ln: Line) -> bool:
    """A ``used`` line of the defending player inside an open attack (Hide 'n' Sneak, and its "Effects of
    ... did not affect" lines): an Ability reacting to the attack, part of the attack's window."""
    w = imp.window
    return (
        ln.kind == "used"
        and w is not None
        and w.kind == "attack"
        and w.actor is not None
        and ln.g is not None
        and ln.g["p"] != w.actor
        and imp.table.is_player(ln.g["p"])
    )


def on_chose(imp: Importer, ln: Line) -> bool:
    """``P chose Axe Blast.`` in a move that uses another card's attack as its own (Seek Inspiration, by
    the catalogue's card text): the window's move becomes that attack of the card it came from (the card
    the move just put in P's discard pile), so its damage and knockouts are read as that attack's."""
    p = imp.player_of(ln)
    if p is None:
        return False
    assert ln.g is not None
    w = imp.window
    if w is None or w.move is None or imp.cards.attach_source(*w.move, of="copy") != "copy":
        return True
    chosen = ln.g["a"].strip().rstrip(".")
    source = next(
        (c for c in reversed(list(imp.table.discard_pile(p))) if imp.cards.has_move(c, chosen)), None
    )
    w.user = w.move[0]
    w.move = (source or w.move[0], chosen)
    return True


def on_used(imp: Importer, ln: Line) -> bool:
    p = imp.player_of(ln)
    if p is None:
        return False
    assert ln.g is not None
    if reacting(imp, ln):
        return True  # the defender's Ability inside the attack: the attack's move stays the window's
    if imp.window is not None:
        imp.window.move = (ln.g["c"], ln.g["a"])
    if ln.no not in imp.attack_lines:
        imp.last_effect = ln.g["a"]  # an Ability (or a damage-less attack)
        return True
    a = imp.table.active[p]
    name = ln.g["c"]
    if (a is None or imp.mon(a).name != name) and any(imp.mon(x).name == name for x in imp.table.bench[p]):
        # attacks come from the Active Pokémon: a Benched one's "used" line is an Ability
        imp.last_effect = ln.g["a"]
        if imp.window is not None and imp.window.kind == "attack":
            imp.window.kind = "effect"
        return True
    by = attacker(imp, p, name, ln.no)
    imp.emit({"type": "attack", "player": p, "pid": by, "name": ln.g["a"]})
    return True


def on_took_damage(imp: Importer, ln: Line) -> bool:
    q = imp.player_of(ln, "q")
    if q is None:
        return False
    assert ln.g is not None
    # spread damage: each line is a different Pokémon (the attack's own target is already hit); damage to
    # the attacker's own side is its recoil, on the Active Pokémon that attacked; which of the rest an
    # attack chose ("2 of your opponent's Pokémon") the log does not say
    w = imp.window
    names = ["fresh", *(["active"] if w is not None and q == w.actor else []), "damaged?"]
    pid = imp.locate(q, ln.g["d"], ln.no, "the spread damage", by=imp.clues(*names))
    assert pid is not None
    imp.damage(pid, int(ln.g["n"]))
    return True


def on_counters(imp: Importer, ln: Line) -> bool:
    assert ln.g is not None
    # the placer is a player, or the card whose effect it is (a Stadium: "Risky Ruins put 2 damage
    # counters on ..."): then the acting player is the window's
    p = imp.player_of(ln) or (imp.window.actor if imp.window is not None else None) or imp.turn_player
    q = imp.player_of(ln, "q")
    if p is None or q is None or not imp.table.is_player(p):
        return False
    d = ln.g["d"]
    pool = imp.named(q, d)
    unsure = q == p and bool(imp.named(imp.other(p), d))
    if unsure:
        # The printed owner is unreliable here [docs/importers.md, the export's traps] and both players
        # have one: an effect of P's that places damage counters targets the opponent's Pokémon far more
        # often, but an effect that places one on each Pokémon of a kind (Freezing Shroud) prints one
        # line per Pokémon under one owner name: every same-named Pokémon is a candidate.
        pool = imp.named(imp.other(p), d) + pool
    if not pool:
        pid = imp.locate(q, d, ln.no, "the damage counters")
    else:
        # Everything the log says, in order: one line per Pokémon (not one this effect already hit), the
        # Pokémon this effect put into play (Risky Ruins), the Bench when the move's text places its
        # counters there only (Phantom Dive), the opponent's when the owner name is unreliable, then the
        # usual board clues
        names = ["fresh", "played"]
        w = imp.window
        if w is not None and w.move is not None and imp.cards.attach_source(*w.move, of="bench") == "bench":
            names.append("bench")
        # which of the rest an effect chose ("1 of your opponent's Pokémon") the log does not say
        names += ["owner", "hit?", "active?", "damaged?"]
        pid = imp.choose(pool, ln.no, "the damage counters", imp.clues(*names, owner=imp.other(p)))
    assert pid is not None
    owner = imp.mon(pid).owner
    if unsure and owner != q:
        imp.find(
            "importer_guess_owner",
            "warning",
            ln.no,
            say(notes.GUESS_OWNER_BOTH, card=d, player=owner),
        )
    imp.damage(pid, 10 * int(ln.g["n"]))
    return True


def on_checkup_damage(imp: Importer, ln: Line) -> bool:
    q = imp.player_of(ln, "q")
    if q is None:
        return False
    assert ln.g is not None
    pid = imp.locate(q, ln.g["d"], ln.no, "the checkup damage")
    assert pid is not None
    imp.damage(pid, 10 * int(ln.g["n"]))
    return True


def on_healed(imp: Importer, ln: Line) -> bool:
    q = imp.player_of(ln, "q")
    if q is None:
        return False
    assert ln.g is not None
    pid = imp.locate(q, ln.g["d"], ln.no, "the healing", by=imp.clues("damaged", "hit", "active"))
    assert pid is not None
    n = int(ln.g["n"])
    imp.emit({"type": "healed", "pid": pid, "amount": n})
    imp.mon(pid).damage = max(0, imp.mon(pid).damage - n)
    return True


def on_moved_counters(imp: Importer, ln: Line) -> bool:
    p, q, q2 = imp.player_of(ln), imp.player_of(ln, "q"), imp.player_of(ln, "q2")
    if p is None or q is None or q2 is None:
        return False
    assert ln.g is not None
    n = 10 * int(ln.g["n"])
    # the counters moved were on the source: one with at least that much damage; which of those the log
    # does not say
    enough: Clue = (
        "one with that many damage counters",
        lambda pid: 0 if imp.mon(pid).damage >= n else 1,
        True,
    )
    src = imp.locate(
        q, ln.g["c"], ln.no, "the damage counters moved", by=[enough, *imp.clues("damaged?", "active?")]
    )
    dst = imp.locate(
        q2, ln.g["d"], ln.no, "the damage counters moved", by=imp.clues("hit?", "active?", "damaged?")
    )
    assert src is not None and dst is not None
    imp.emit({"type": "healed", "pid": src, "amount": n})
    imp.mon(src).damage = max(0, imp.mon(src).damage - n)
    imp.damage(dst, n)
    return True


def condition(imp: Importer, ln: Line, on: bool) -> bool:
    q = imp.player_of(ln, "q")
    if q is None:
        return False
    assert ln.g is not None
    pid = imp.locate(q, ln.g["d"], ln.no, "the Special Condition")
    assert pid is not None
    mon = imp.mon(pid)
    conds = [ln.g["cond"].lower()] if ln.kind != "cond_clear" else list(mon.conditions)
    for cond in conds:
        imp.emit({"type": "condition", "pid": pid, "condition": cond, "on": on})
        if on and cond not in mon.conditions:
            mon.conditions.append(cond)
        elif not on and cond in mon.conditions:
            mon.conditions.remove(cond)
    return True


def on_cond_on(imp: Importer, ln: Line) -> bool:
    return condition(imp, ln, True)


def on_cond_off(imp: Importer, ln: Line) -> bool:
    return condition(imp, ln, False)


def on_switched(imp: Importer, ln: Line) -> bool:
    q = imp.player_of(ln, "q")
    if q is None:
        return False
    assert ln.g is not None
    c, d = ln.g["c"], ln.g["d"]
    table = imp.table
    a = table.active[q]
    a_name = imp.mon(a).name if a is not None else None
    incoming = d if a_name == c else c if a_name == d else d
    cands = [x for x in table.bench[q] if imp.mon(x).name == incoming]
    if not cands:
        pid = imp.materialise_bench(q, incoming, ln.no)
    else:
        pid = imp.choose(cands, ln.no, "the switch", [])
    table.make_active(q, pid)
    ev: Event = {"type": "switched", "player": q, "pid": pid}
    named = effect_name(imp)
    if named:
        ev["effect"] = named  # a switch by a card or Ability (Switch, Boss's Orders), not a retreat
    imp.emit(ev)
    return True


def on_now_active(imp: Importer, ln: Line) -> bool:
    p = imp.player_of(ln)
    if p is None:
        return False
    assert ln.g is not None
    if imp.window is None:
        promote(imp, ln.no, p, ln.g["c"])
    else:
        imp.window.promos.append((ln.no, p, ln.g["c"]))
    return True


def on_ko(imp: Importer, ln: Line) -> bool:
    q = imp.player_of(ln, "q")
    if q is None:
        return False
    assert ln.g is not None
    if imp.window is None:
        imp.window = Window("effect", ln.no)
    imp.window.kos.append((ln.no, q, ln.g["d"]))
    return True


def on_prize(imp: Importer, ln: Line) -> bool:
    p = imp.player_of(ln)
    if p is None:
        return False
    assert ln.g is not None
    n = int(ln.g["n"] or 1)
    if imp.window is None:
        imp.window = Window("effect", ln.no)
    imp.window.prizes.append((ln.no, p, n))
    imp.added_due[p] = imp.added_due.get(p, 0) + n
    return True


def on_added(imp: Importer, ln: Line) -> bool:
    p = imp.player_of(ln)
    if p is None:
        return False
    if imp.added_due.get(p):
        imp.added_due[p] -= 1  # a prize card going to hand: part of prize_taken
    return True


HANDLERS: dict[str, Callable[[Importer, Line], bool]] = {
    "played_to": on_played_to,
    "attached": on_attached,
    "evolved": on_evolved,
    "devolved": on_devolved,
    "retreated": on_retreated,
    "attack": on_attack,
    "used": on_used,
    "chose": on_chose,
    "took_damage": on_took_damage,
    "counters": on_counters,
    "checkup_damage": on_checkup_damage,
    "healed": on_healed,
    "moved_counters": on_moved_counters,
    "cond_on": on_cond_on,
    "cond_off": on_cond_off,
    "cond_clear": on_cond_off,
    "switched": on_switched,
    "now_active": on_now_active,
    "ko": on_ko,
    "prize": on_prize,
    "added": on_added,
    "added_hidden": on_added,
}
