"""A resolution window's events in rule order, not printed order.

One job: when a window closes (the next action line, a header, the end), emit what its lines said in
the order the rules resolve it [JP3.4 §I-D]: ``knocked_out`` for each knockout (with a ``prize_modifier``
first where the prize line differs from the kinds knocked out), the window's end (``attack_ended`` /
``checkup_ended``), ``prize_taken``, then the new Active Pokémon, the player who takes the next turn
first. The log prints prize lines before the knockouts they pay for and knockouts before their cause;
the window collects them and this module orders them.
"""

from __future__ import annotations

from replay.i18n import notes
from replay.i18n.notes import say
from replay.sources.common import Event
from replay.sources.ptcgl.cards import Clue, clues
from replay.sources.ptcgl.importer import Importer, Window


def close_window(imp: Importer, *, ending: bool = False) -> None:
    """Emit the open window's knockouts, end, prizes and promotions; no window: nothing.

    ``ending``: the window is closed by the log's end (the end line, or the last line of a partial log),
    where the client leaves the last prize line out (real/en_slowking-vs-beedrill.txt): a knockout with
    no prize line there is not read as one that gave no Prize cards (``prize_modifiers``)."""
    w = imp.window
    if w is None:
        return
    imp.window = None
    if not (w.kos or w.prizes or w.promos or w.hit or w.leaving or w.lost_with_ko):
        # most windows (a Trainer, an Energy, a draw) hold nothing to order: only their end, if any
        if w.kind == "attack":
            imp.emit({"type": "attack_ended"})
        elif w.kind == "checkup":
            imp.emit({"type": "checkup_ended"})
        return
    table = imp.table
    kos: list[tuple[int, str]] = []
    for no, q, d in w.kos:
        owner = q if table.is_player(q) else None
        if owner is None:
            imp.find("unmatched_line", "warning", no, say(notes.KO_UNKNOWN_PLAYER, player=q))
            continue
        taken = {pid for _, pid in kos}
        cands = [pid for pid in imp.named(owner, d) if pid not in taken]
        if not cands and not imp.named(imp.other(owner), d):
            pid: str | None = imp.materialise(owner, d, no)
        elif not cands:
            # the log's owner name is wrong: the Pokémon is the other player's
            by = knockout_clues(imp, w, imp.other(owner), taken, ending=ending)
            pid = imp.locate(owner, d, no, "the knockout", by=by)
        else:
            # (the clues only when there is a choice: most knockouts have one candidate)
            by = knockout_clues(imp, w, owner, taken, ending=ending) if len(cands) > 1 else []
            pid = imp.choose(cands, no, "the knockout", by)
        if pid is not None and pid not in taken:
            kos.append((no, pid))
    for i, (no, pid) in enumerate(kos):
        mon = imp.mon(pid)
        hp = mon.card.get("hp")
        if isinstance(hp, int) and mon.damage < hp and not knocks_out(imp, w, pid):
            # knocked out with HP left: the twin promoted instead would have been knocked out
            fixed = promotion_fix(imp, w, pid, no, knocked_out=True)
            if fixed is not None:
                kos[i] = (no, fixed)
    for no, pid in kos:
        mon = imp.mon(pid)
        revise_attachments(imp, pid, w.ko_lists.get((mon.owner, mon.name)), no)
    # the catalogue is asked about the window's card only when the window has prize lines (most have none)
    effect = prize_effect(imp, w) if w.prizes else None
    modifiers, no_ko = prize_modifiers(imp, w, kos, effect, ending=ending)
    out = {pid for _, pid in kos}
    for pid in dict.fromkeys(w.hit):
        # survived this check: its HP is above the damage it has now [JP3.4 §I-D]
        if pid not in out and pid in table.mons:
            revise_damage(imp, pid, w.line)
            promotion_fix(imp, w, pid, w.line, knocked_out=False)
            mon = imp.mon(pid)
            mon.survived = max(mon.survived, mon.damage)
    for ko_line, pid in kos:
        mon = imp.mon(pid)
        imp.cards.settle_dropped(mon, ko_line)
        by_text = knocks_out(imp, w, pid)
        if (
            by_text
            and w.move is not None
            and w.user is None
            and w.move[0] == mon.name
            and mon.owner == w.actor
        ):
            imp.cards.settle_hp_by_move(mon, w.move[1])  # the printing that has the move
        by_move = w.move[1] if by_text and w.move is not None else None
        imp.cards.settle_hp(mon, ko_line, knocked_out_at=mon.damage, effect=by_move)
        hp = mon.card.get("hp")
        ko: Event = {"type": "knocked_out", "pid": pid, "player": mon.owner}
        if mon.devolved:
            # the engine still has the evolved card's HP (the contract has no devolution): the client
            # knocked out the devolved Pokémon, so the claim names an effect, accepted unverified
            ko["by"] = "effect"
        elif hp is not None and mon.damage < hp and by_text:
            # The move's card text Knocks this Pokémon Out without damage (Cursed Blast: the user; Frenzied
            # Gouging, Axe Blast: the opponent's Active; Destined Fight: both Actives; the catalogue reads
            # it, as it reads Hero's Cape's HP): its remaining HP is placed as the move's damage, so the
            # engine checks the knockout against HP like a damage knockout [docs/rules.md §2]
            assert w.move is not None
            left = hp - mon.damage
            imp.find(
                "importer_ko_by_effect",
                "info",
                ko_line,
                say(notes.KO_BY_EFFECT, move=w.move[1], player=mon.owner, card=mon.name, pid=pid, left=left),
            )
            imp.emit({"type": "damage", "pid": pid, "amount": left})
            mon.damage = hp
        elif hp is not None and mon.damage < hp:
            # With HP known the engine checks the claim against the damage; a knockout the log shows
            # without enough damage is an effect ("this Pokémon is Knocked Out", e.g. Cursed Blast) or
            # damage in a line no template read. The client decided it: the claim names an effect
            # (contract: knocked_out.by), so the engine accepts it, marked unverified.
            imp.find(
                "importer_ko_without_damage",
                "warning",
                ko_line,
                say(notes.KO_WITHOUT_DAMAGE, player=mon.owner, card=mon.name, pid=pid, left=hp - mon.damage),
            )
            ko["by"] = "effect"
        for delta in modifiers.get(pid, ()):
            imp.emit({"type": "prize_modifier", "pid": pid, "delta": delta})
        imp.emit(ko)
        # JP3.4 §I-D step 3: the Pokémon and everything attached go to the discard pile
        table.knocked_out(pid)
    for owner, d, names in w.lost_with_ko:
        # Lost City: the knocked-out Pokémon (the card on top and the cards the log lists under it) goes
        # to the Lost Zone instead of the discard pile
        gone = [mon for _, pid in kos for mon in [imp.mon(pid)] if mon.owner == owner and mon.name == d]
        cards = ([gone[0].name] if gone and gone[0].name not in names else []) + names
        imp.emit({"type": "moved", "player": owner, "cards": cards, "from": "discard", "to": "lost_zone"})
    if w.kind == "attack":
        imp.emit({"type": "attack_ended"})
    elif w.kind == "checkup":
        imp.emit({"type": "checkup_ended"})
    for _, taker, n in w.prizes:
        ev: Event = {"type": "prize_taken", "player": taker, "count": n}
        if taker in no_ko and effect is not None:
            # decisions.md 1: Prize cards taken by a card effect (Lt. Surge's Bargain: each player takes
            # one), which the engine applies; both players' lines of one effect come out one after the other
            ev["effect"] = effect
            imp.emit(ev)
        elif taker in no_ko:
            # a prize line with no knockout near it and no effect known to give prizes: the claim stays a
            # claim (the engine moves no card for it); the card the log shows going to the hand moves
            imp.emit(ev, counted=False)
            imp.emit({"type": "to_hand", "player": taker, "from": "prizes", "count": n})
        else:
            imp.emit(ev)
        imp.prizes_left[taker] = max(0, imp.prizes_left[taker] - n)
    # JP3.4 §I-D step 5: when both Actives are out, the player who takes the next turn promotes first.
    nxt = imp.other(imp.turn_player) if imp.turn_player is not None else imp.first
    promoted = {who for _, who, _ in w.promos}
    for owner, (pid, zone, no) in w.leaving.items():
        if owner in promoted and table.active[owner] == pid:
            imp.emit({"type": "removed", "player": owner, "pid": pid, "to": zone})
            table.removed(pid, zone)
        else:
            imp.find(
                "importer_guess_removed",
                "info",
                no,
                say(notes.GUESS_REMOVED_ACTIVE, card=imp.mon(pid).name, zone=zone, player=owner),
            )
    for no, who, c in sorted(w.promos, key=lambda t: 0 if t[1] == nxt else 1):
        promote(imp, no, who, c, who in w.retreated)


def knockout_clues(imp: Importer, w: Window, owner: str, taken: set[str], *, ending: bool) -> list[Clue]:
    """The clues to which of ``owner``'s same-named Pokémon a knockout line means: one not taken by an
    earlier line, the one whose damage reaches its HP, one this window hit; then the Active Spot, as the
    window's own lines tell it. A knocked-out Active Pokémon is replaced in the same window ("is now in
    the Active Spot"), so a new Active Pokémon for ``owner`` (not a retreat's, nor one replacing an
    Active that left play another way) says the Active one was knocked out, and none, in a game that goes
    on, says a Benched one was. With HP unknown both twins can reach it, and taking the Active one there
    took the wrong twin without a word (round-trip seeds 2088852059, 89033072). Where the log ends with
    the window (the last Prize card taken) it does not tell: the most damaged, then the Active one, is a
    guess, said so."""
    promoted = any(who == owner for _, who, _ in w.promos) and owner not in w.retreated
    if promoted and owner not in w.leaving:
        spot = ["active"]
    elif not promoted and not ending:
        spot = ["bench"]
    else:
        spot = ["damaged?", "active?"]
    return clues(imp.table, "taken", "fits", "hit", *spot, "damaged", hit=w.hit, taken=taken)


def revise_damage(imp: Importer, pid: str, no: int) -> None:
    """A Pokémon the log shows surviving a check with its HP known and damage at least its HP: damage
    guessed onto it among twins (``Importer.damage``) went to a twin instead. The latest such damage moves
    to the first twin still in play it leaves alive; the earlier ``damage`` event is corrected (events are
    numbered only when the import ends), said so. A twin that another line of the same effect hit (spread
    damage: one line per Pokémon) takes this line and gives its own line back, as the two were printed
    about two different Pokémon (round-trip seed 2005577351)."""
    guesses = imp.damage_guesses.get(pid)
    if not guesses:
        return  # (most Pokémon: no damage guessed onto them, nothing to revise)
    mon = imp.mon(pid)
    hp = mon.card.get("hp")
    in_play = set(imp.table.in_play(mon.owner))
    while isinstance(hp, int) and mon.damage >= hp and guesses:
        ev, others, group = guesses.pop()
        n = int(ev["amount"])
        for x in others:
            other = imp.mon(x)
            x_hp = other.card.get("hp")
            if x not in in_play or not isinstance(x_hp, int):
                continue
            # the same effect's line for the twin (not an attack's own hit, which the log decides)
            back = next((e for e in group if e is not ev and e["pid"] == x and "by" not in e), None)
            m = int(back["amount"]) if back is not None else 0
            if other.damage + n - m >= x_hp or (back is not None and mon.damage - n + m >= hp):
                continue
            ev["pid"] = x
            mon.damage += m - n
            other.damage += n - m
            other.survived = max(other.survived, other.damage)
            imp.damage_guesses.setdefault(x, []).append((ev, [pid], group))
            if back is not None:
                back["pid"] = pid
            imp.find(
                "importer_guess_pid",
                "info",
                no,
                say(notes.DAMAGE_CORRECTED, n=n, player=mon.owner, card=mon.name, pid=pid, twin=x, hp=hp),
            )
            break


def promotion_fix(imp: Importer, w: Window, pid: str, no: int, *, knocked_out: bool) -> str | None:
    """A promotion between twins the log did not decide (``promote``), contradicted by a later line: the
    Pokémon taken is knocked out with HP left (``knocked_out``), or survives a check with its HP reached,
    and a twin that was a candidate, had it been promoted and taken what this one took since, would fit.
    Then the twin was promoted: every event since the promotion is corrected (the two pids swapped; events
    are numbered only when the import ends), the board's two Pokémon take each other's part, said so.
    Returns the twin, or None."""
    mon = imp.mon(pid)
    hp = mon.card.get("hp")
    if not isinstance(hp, int) or (mon.damage < hp) != knocked_out:
        return None  # no contradiction: what the log shows fits the twin taken
    for k in range(len(imp.promo_guesses) - 1, -1, -1):
        at, taken, others, states = imp.promo_guesses[k]
        if taken != pid:
            continue
        since = mon.damage - states[pid][0]
        in_play = set(imp.table.in_play(mon.owner))
        for twin in others:
            t = imp.mon(twin) if twin in in_play else None
            t_hp = t.card.get("hp") if t is not None else None
            if t is None or not isinstance(t_hp, int) or twin not in states:
                continue
            would = states[twin][0] + since
            if (knocked_out and would >= t_hp) or (not knocked_out and would < t_hp):
                del imp.promo_guesses[k]
                swap_twins(imp, w, at, pid, twin, states)
                imp.find(
                    "importer_guess_pid",
                    "info",
                    no,
                    say(
                        notes.PROMOTION_KNOCKED_OUT if knocked_out else notes.PROMOTION_SURVIVES,
                        player=mon.owner,
                        card=mon.name,
                        twin=twin,
                        pid=pid,
                    ),
                )
                return twin
    return None


def swap_twins(
    imp: Importer, w: Window, at: int, a: str, b: str, states: dict[str, tuple[int, list[str]]]
) -> None:
    """``a`` and ``b`` (twins) take each other's part in every event from stream index ``at`` on, and on
    the board: each keeps its own state from before, plus what the other took since."""
    swap = {a: b, b: a}
    for ev in imp.out.events[at:]:
        for key in ("pid", "by"):
            if ev.get(key) in swap:
                ev[key] = swap[ev[key]]
    ma, mb = imp.mon(a), imp.mon(b)
    (da, att_a), (db, att_b) = states[a], states[b]
    new_a = da + (mb.damage - db)
    new_b = db + (ma.damage - da)
    got_a = _moved(att_a, mb.attached, att_b)
    got_b = _moved(att_b, ma.attached, att_a)
    ma.damage, mb.damage = new_a, new_b
    ma.attached, mb.attached = got_a, got_b
    ma.conditions, mb.conditions = mb.conditions, ma.conditions
    ma.survived, mb.survived = min(ma.survived, new_a), max(mb.survived, new_b)
    table = imp.table
    owner = ma.owner
    if table.active[owner] in swap:
        table.active[owner] = swap[table.active[owner]]  # type: ignore[index]
    table.bench[owner] = [swap.get(x, x) for x in table.bench[owner]]
    w.hit[:] = [swap.get(x, x) for x in w.hit]
    for guesses in (imp.damage_guesses, imp.attach_guesses):
        ga, gb = guesses.pop(a, None), guesses.pop(b, None)
        if ga is not None:
            guesses[b] = ga  # type: ignore[assignment]
        if gb is not None:
            guesses[a] = gb  # type: ignore[assignment]


def _moved(before: list[str], other_now: list[str], other_before: list[str]) -> list[str]:
    """The cards attached to one twin: its own from before, plus what the other gained since, less what
    the other lost since."""
    out = list(before)
    gained = list(other_now)
    for c in other_before:
        if c in gained:
            gained.remove(c)
        elif c in out:
            out.remove(c)  # the other lost it since: it was this one's
    return out + gained


def knocks_out(imp: Importer, w: Window, pid: str) -> bool:
    """Whether the window's move Knocks Out ``pid`` without damage by its card text (the catalogue):
    "self" the Pokémon that used it, "active" the opponent's Active, "both" either Active."""
    if w.move is None or not w.move[1]:
        return False
    whom = imp.cards.attach_source(*w.move, of="knock")
    mon, table = imp.mon(pid), imp.table
    active = table.active[mon.owner] == pid
    if whom == "self":
        return mon.owner == w.actor and mon.name == (w.user or w.move[0])
    if whom == "active":
        return active and mon.owner != w.actor
    return whom == "both" and active


def revise_attachments(imp: Importer, pid: str, listed: list[str] | None, no: int) -> None:
    """The client lists a knocked-out Pokémon's cards: an attachment guessed onto it that the list does
    not hold was on a same-named twin. The earlier ``attached`` event is corrected (events are numbered
    only when the import ends), so the discard piles count the right cards."""
    if not listed:
        return
    mon = imp.mon(pid)
    surplus = list(mon.attached)
    for name in listed:
        if name in surplus:
            surplus.remove(name)
    guesses = imp.attach_guesses.pop(pid, [])
    in_play = set(imp.table.in_play(mon.owner))
    for name in surplus:
        for ev, card, others in reversed(guesses):
            alive = [x for x in others if x in in_play]
            if ev["pid"] != pid or card != name or not alive:
                continue
            ev["pid"] = alive[0]
            imp.attach_guesses.setdefault(alive[0], []).append((ev, card, [pid]))
            mon.attached.remove(name)
            imp.mon(alive[0]).attached.append(name)
            imp.find(
                "importer_guess_pid",
                "info",
                no,
                say(notes.GUESS_ATTACHED, card=name, pid=alive[0], other=pid, pokemon=mon.name),
            )
            break


def prize_effect(imp: Importer, w: Window) -> str | None:
    """The card whose effect makes players take Prize cards in this window (Lt. Surge's Bargain), by the
    catalogue's card text: the window's Trainer, else its attack or Ability."""
    if w.trainer is not None and imp.cards.attach_source(w.trainer, of="prize") == "prize":
        return w.trainer
    if w.move is not None and w.move[1] and imp.cards.attach_source(*w.move, of="prize") == "prize":
        return w.move[1]
    return None


def prize_modifiers(
    imp: Importer, w: Window, kos: list[tuple[int, str]], effect: str | None, *, ending: bool = False
) -> tuple[dict[str, list[int]], set[str]]:
    """A prize line that differs from what the knocked-out Pokémon's kinds give means a card effect
    changed the value (Briar +1, Legacy Energy -1) [docs/rules.md §3]: say so with a prize_modifier.
    Also returns the players whose prize lines have no knockout of the other player's near them.
    ``effect``: the window's ``prize_effect``; ``ending``: the log ends with this window
    (``close_window``)."""
    out: dict[str, list[int]] = {}
    no_ko: set[str] = set()
    claimed: dict[str, tuple[int, int]] = {}
    for no, taker, n in w.prizes:
        first_no, total = claimed.get(taker, (no, 0))
        claimed[taker] = (first_no, total + n)
    if not ending:
        unpaid(imp, kos, claimed, out)
    for taker, (no, n) in claimed.items():
        victims = [pid for _, pid in kos if imp.mon(pid).owner != taker]
        if not victims:
            no_ko.add(taker)
            if effect is None:
                imp.find(
                    "importer_prize_without_ko",
                    "warning",
                    no,
                    say(notes.PRIZE_WITHOUT_KO, player=taker, n=n),
                )
            continue
        values = {pid: imp.rules.prize_value(imp.mon(pid).rule) for pid in victims}
        base = sum(values.values())
        left = imp.prizes_left[taker]
        if n == min(base, left) or n > left:
            continue
        delta = n - base
        if delta > 0:
            out[victims[0]] = [delta]
        else:
            for pid in sorted(victims, key=lambda x: -values[x]):
                d = max(delta, -values[pid])
                if d:
                    out[pid] = [d]
                delta -= d
                if not delta:
                    break
        imp.find(
            "importer_prize_modifier",
            "info",
            no,
            say(notes.PRIZE_MODIFIER, player=taker, n=n, base=base),
        )
    return out, no_ko


def unpaid(
    imp: Importer, kos: list[tuple[int, str]], claimed: dict[str, tuple[int, int]], out: dict[str, list[int]]
) -> None:
    """Knockouts no prize line pays for, in a window the game goes on after: they gave no Prize cards.

    The client prints a prize line for every knockout that gives Prize cards, before or after the
    knockout's own line but in its window (every mid-game knockout of the real exports in
    tests/data/ptcgl/real/); only the log's end leaves it out. A knockout worth 0 (Legacy Energy on a
    1-prize Pokémon [docs/rules.md §3]) has nothing to print. Without a modifier the engine would take
    the kinds' value for it, and the taker's count would run ahead of the log's, ending the game early
    (round-trip seed 317193)."""
    victims: dict[str, list[tuple[int, str]]] = {}
    for no, pid in kos:
        taker = imp.other(imp.mon(pid).owner)
        if taker not in claimed:
            victims.setdefault(taker, []).append((no, pid))
    for taker, mons in victims.items():
        values = {pid: imp.rules.prize_value(imp.mon(pid).rule) for _, pid in mons}
        base = sum(values.values())
        if base <= 0:
            continue
        for pid, v in values.items():
            if v > 0:
                out[pid] = [-v]
        imp.find(
            "importer_prize_modifier",
            "info",
            mons[0][0],
            say(
                notes.NO_PRIZE_LINE,
                player=taker,
                cards=", ".join(imp.mon(pid).name for _, pid in mons),
                lines=", ".join(str(no) for no, _ in mons),
                base=base,
            ),
        )


def promote(imp: Importer, no: int, p: str, c: str, retreat: bool = False) -> None:
    """``p``'s Benched ``c`` becomes the Active (a promotion, or a switch when an Active is in place)."""
    table = imp.table
    a = table.active[p]
    if a is not None and imp.mon(a).name == c and not retreat:
        return  # already Active (e.g. printed after a switch line)
    mons = table.mons
    cands = [pid for pid in table.bench[p] if mons[pid].name == c]
    if not cands:
        pid = imp.materialise_bench(p, c, no)
    else:
        # the promotion line names no copy: a guess, said so, unless they look identical [issue 35]
        pid = imp.choose(cands, no, "the new Active Pokémon", clues(table, "ready"))
        if imp.guessed is not None:
            # kept, so that a later line the other twin explains can correct it (``promotion_fix``)
            states = {x: (imp.mon(x).damage, list(imp.mon(x).attached)) for x in cands}
            imp.promo_guesses.append((len(imp.out.events), pid, imp.guessed[1], states))
            imp.guessed = None
    kind = "promoted" if a is None else "switched"
    table.make_active(p, pid)
    imp.emit({"type": kind, "player": p, "pid": pid})
