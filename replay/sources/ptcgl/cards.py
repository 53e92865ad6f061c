"""Cards named in a battle log: catalogue look-ups in the log's language, and same-named Pokémon.

One job: answer what the log's card names mean. ``LogCards`` looks a name up in the packaged catalogue
(replay/sources/cards.py) in the log's language (the printing its card id names, when the log printed one)
and in a user's ``--cards`` file: the contract card map (HP, rule box), the HP printings disagree on
(chosen by the damage at a knockout), Trainer and attachment kinds, whether a move is an Ability or
discards from the deck. ``choose`` picks one of several same-named Pokémon in play from the clues the
table holds, and says so with a finding when the clues do not decide.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from replay.i18n import notes
from replay.i18n.notes import say
from replay.sources.cards import CardDatabase, CardInfo, Catalogue, pokemon_facts
from replay.sources.table import Mon, Table

Find = Callable[[str, str, int | None, str], None]

# The catalogue's Trainer types -> the contract's trainer_played.card.kind
TRAINER_KINDS = {
    "Item": "item",
    "Supporter": "supporter",
    "Stadium": "stadium",
    "Tool": "tool",
    "Technical Machine": "tool",
    "Rocket's Secret Machine": "item",
}


class LogCards:
    """The card facts of one log: ``lang`` is the catalogue's language for the log's language; ``ids``
    the card ids the log printed before names; ``cards`` a user's catalogue (its entries win)."""

    def __init__(
        self,
        cards: Catalogue,
        db: CardDatabase | None,
        lang: str,
        ids: dict[str, set[str]],
        find: Find,
    ) -> None:
        self.cards = cards
        self.db = db
        self.lang = lang
        self.ids = ids
        self.find = find
        # HP chosen at the end: by the id of the card map waiting (its Pokémon, the map, the HP printed); a
        # map is made for one stage of one Pokémon, so the map's id finds it without a scan
        self.hp_open: dict[int, tuple[Mon, dict[str, Any], list[int]]] = {}
        self.hp_chosen: dict[str, int] = {}
        self.hp_missing: set[str] = set()
        self._kinds: dict[str, str | None] = {}  # trainer_kind's answers: asked at every Trainer played
        # card_map's catalogue facts of a name (its printings' one rule, or None; their HP): asked at every
        # Pokémon put into play or evolved, the same few names again and again
        self._facts: dict[str, tuple[str | None, tuple[int, ...]]] = {}
        self._bonuses: dict[str, frozenset[tuple[int, str] | None]] = {}  # hp_bonus: each printing's bonus
        self._attach_kinds: dict[str, str] = {}  # attach_kind's answers

    def infos(self, name: str) -> list[CardInfo]:
        """The catalogue's cards printed as ``name`` in the log's language (one printing when the log
        printed the card's id before it)."""
        db = self.db
        if db is None:
            return []
        ids = self.ids.get(name)
        if ids is not None and len(ids) == 1:
            info = db.printing(next(iter(ids)))
            if info is not None and name in (info.names.get(self.lang), info.name):
                return [info]  # the printing itself (an id that names another card is not trusted)
        return db.lookup(name, self.lang)

    def is_ability(self, g: dict[str, str]) -> bool:
        """Whether the catalogue knows the move of a ``used`` line as an Ability of that Pokémon."""
        db = self.db
        return db is not None and db.is_ability(g.get("c", ""), g.get("a", ""), self.lang) is True

    def english(self, name: str) -> str | None:
        """The English name of the card the log prints as ``name`` (the printing its card id names, when
        the log printed one), None when the catalogue does not know it or its printings disagree."""
        names = {i.name for i in self.infos(name)}
        return next(iter(names)) if len(names) == 1 else None

    def has_move(self, card: str, move: str) -> bool:
        """Whether some printing of ``card`` has an attack or Ability named ``move`` in the log's language
        (or in English)."""
        return any(_has_move(info, move, self.lang) for info in self.infos(card))

    def mills(self, card: str, move: str) -> bool:
        """Whether ``card``'s move discards from the top of its own deck (Seek Inspiration)."""
        return self.db is not None and self.db.mills(card, move, self.lang)

    def shifts_energy(self, card: str, move: str | None = None) -> bool:
        """Whether the move (or, with no move, the Trainer ``card``) moves Energy between Pokémon: the
        "attached" lines it prints take the card from another Pokémon, not the hand."""
        return self.db is not None and self.db.shifts_energy(card, move, self.lang)

    def attach_source(self, card: str, move: str | None = None, *, of: str = "attach") -> str | None:
        """The zone the cards a move (or, with no move, the Trainer ``card``) attaches come from, when the
        catalogue's card text names it (Infernal Reign: the deck; Magma Basin: the discard pile); with
        ``of="evolve"``, where its Evolution cards come from (Rare Candy: the hand); ``"shuffle"``, where the
        cards it shuffles into the deck come from (Super Rod: the discard pile); ``"top"``, "deck" when it
        looks at the top of the deck (Flower Selecting)."""
        if self.db is None:
            return None
        return self.db.attach_source(card, move, self.lang, of=of)

    def card_map(self, name: str, mon: Mon | None = None) -> dict[str, Any]:
        """The contract card for a Pokémon named ``name``: a user catalogue's HP first, else the packaged
        catalogue's when every printing of that name agrees; several HP wait for the damage to choose."""
        card = self.cards.card(name)
        if "hp" in card or name in self.cards.rules:
            return card
        facts = self._facts.get(name)
        if facts is None:
            db = self.db
            # a name the log printed no card id for is the catalogue's by its name alone (``infos``): its
            # facts are kept by the catalogue itself, for every log
            facts = self._facts[name] = (
                db.pokemon_facts(name, self.lang)
                if db is not None and name not in self.ids
                else pokemon_facts(self.infos(name))
            )
        rule, hps = facts
        if rule is not None:
            card["rule"] = rule
        if len(hps) == 1:
            card["hp"] = hps[0]
        elif len(hps) > 1 and mon is not None:
            self.hp_open[id(card)] = (mon, card, list(hps))
        else:
            self.hp_missing.add(name)
        return card

    def settle_hp(
        self, mon: Mon, no: int | None, knocked_out_at: int | None = None, effect: str | None = None
    ) -> None:
        """Choose the HP of ``mon``'s current card among its printings' HP: at a knockout, the HP the
        damage read fits (survived < HP <= damage); at a knockout by a move's card text (``effect``), which
        does not depend on HP, the highest above what it survived; otherwise the one HP above what it
        survived."""
        entry = self.hp_open.get(id(mon.card))
        if entry is None or entry[0] is not mon:
            return
        _, card, hps = entry
        del self.hp_open[id(card)]
        hps = [h + mon.hp_bonus for h in hps]  # what the Tools attached and the Stadium add (hp_bonus)
        shown = "/".join(str(h) for h in hps)
        if mon.hp_bonus:
            shown += f" (with {mon.hp_bonus:+d} HP from the cards in play)"
        if effect is not None and any(h > mon.survived for h in hps):
            card["hp"] = max(hps)
            self.find(
                "importer_hp_choice",
                "info",
                no,
                say(notes.HP_CHOICE_EFFECT, card=mon.name, hps=shown, effect=effect, hp=card["hp"]),
            )
            return
        if knocked_out_at is not None:
            fit = [h for h in hps if mon.survived < h <= knocked_out_at]
            if fit:
                card["hp"] = max(fit)
                self.find(
                    "importer_hp_choice",
                    "info",
                    no,
                    say(
                        notes.HP_CHOICE_FIT,
                        card=mon.name,
                        hps=shown,
                        damage=knocked_out_at,
                        fit=", ".join(str(h) for h in fit),
                        hp=card["hp"],
                    ),
                )
            else:
                self.hp_missing.add(mon.name)
                self.find(
                    "importer_hp_unverified",
                    "warning",
                    no,
                    say(notes.HP_UNVERIFIED, card=mon.name, hps=shown, damage=knocked_out_at),
                )
            return
        fit = [h for h in hps if h > mon.survived]
        if len(fit) == 1:
            card["hp"] = fit[0]
        else:
            self.hp_missing.add(mon.name)
            if mon.name not in self.hp_chosen:
                self.hp_chosen[mon.name] = 0
                self.find(
                    "importer_hp_ambiguous",
                    "info",
                    no,
                    say(notes.HP_AMBIGUOUS, card=mon.name, hps=shown),
                )

    def settle_hp_by_move(self, mon: Mon, move: str) -> None:
        """Printings of ``mon``'s name with different HP, and the log shows it using ``move``: only the
        printings that have that move count (Dusclops with Cursed Blast has 90 HP)."""
        entry = self.hp_open.get(id(mon.card))
        if entry is not None and entry[0] is mon:
            card = entry[1]
            hps = {
                info.hp
                for info in self.infos(mon.name)
                if info.category == "pokemon" and info.hp and _has_move(info, move, self.lang)
            }
            if len(hps) == 1:
                del self.hp_open[id(card)]
                card["hp"] = next(iter(hps)) + mon.hp_bonus

    def hp_bonus(self, card: str, mon: Mon) -> int | None:
        """The HP ``card`` gives ``mon`` attached to it (Hero's Cape: +100), from the catalogue's card text
        and its condition checked on ``mon``'s current card; 0 when it gives none; None when the catalogue
        cannot tell (a condition it cannot check, or printings that give different HP here)."""
        bonuses = self._bonuses.get(card)
        if bonuses is None:  # (kept: asked at every card attached, an Energy's answer is always 0)
            bonuses = self._bonuses[card] = frozenset(i.hp_bonus for i in self.infos(card))
        results = {self._bonus(bonus, mon) for bonus in bonuses}
        if not results:
            return 0
        return next(iter(results)) if len(results) == 1 else None

    def gives_hp(self, card: str) -> bool:
        """Whether some printing of ``card`` changes a Pokémon's HP (the catalogue's card text)."""
        return any(i.hp_bonus is not None for i in self.infos(card))

    def _bonus(self, bonus: tuple[int, str] | None, mon: Mon) -> int | None:
        if bonus is None:
            return 0
        n, cond = bonus
        pokemon = [i for i in self.infos(mon.name) if i.category == "pokemon"]
        for test in cond.split():
            kind, _, value = test.partition(":")
            if kind == "stage":  # printings the catalogue gives no stage or type for are not counted
                holds = {i.stage == value for i in pokemon if i.stage}
            elif kind == "type":
                holds = {value in i.types for i in pokemon if i.types}
            elif kind == "rule":
                holds = {mon.rule == value}
            elif kind == "not":
                holds = {mon.rule != value}
            elif kind == "prefix":
                holds = {mon.name.startswith(value + " ")}
            elif kind == "name":
                holds = {mon.name == value}
            else:
                return None  # a condition the catalogue cannot check ("?")
            if holds != {True}:
                return 0 if holds == {False} else None  # mixed, or nothing known: cannot tell
        return n

    def settle_dropped(self, mon: Mon, no: int | None) -> None:
        """A stage a card that gave HP left (``mon.hp_dropped``): its HP without the card when nothing it
        survived before says it had more (every check of the stage then holds), else unknown (knockouts from
        the log's claims), said so. The contract has no event that changes HP within a stage."""
        dropped, mon.hp_dropped = mon.hp_dropped, 0
        hp = mon.card.get("hp")
        if not dropped or not isinstance(hp, int):
            return
        if mon.survived < hp - dropped:
            mon.card["hp"] = hp - dropped
            return
        del mon.card["hp"]
        self.hp_missing.add(mon.name)
        self.find(
            "importer_hp_effect",
            "info",
            no,
            say(notes.HP_EFFECT_LOST, player=mon.owner, card=mon.name, pid=mon.pid),
        )

    def trainer_kind(self, name: str) -> str | None:
        """item | supporter | stadium | tool for a Trainer the catalogue knows, else None."""
        if name in self._kinds:
            return self._kinds[name]
        kinds = {TRAINER_KINDS.get(i.kind or "") for i in self.infos(name) if i.category == "trainer"}
        kinds.discard(None)
        out = self._kinds[name] = next(iter(kinds)) if len(kinds) == 1 else None
        return out

    def attach_kind(self, name: str) -> str:
        """energy | tool | other for an attached card."""
        kind = self._attach_kinds.get(name)
        if kind is not None:
            return kind
        infos = self.infos(name)
        if any(i.category == "energy" for i in infos) or (not infos and "Energ" in name):
            kind = "energy"
        elif any(i.category == "trainer" for i in infos) or not infos:
            kind = "tool"
        else:
            kind = "other"
        self._attach_kinds[name] = kind
        return kind

    def is_pokemon(self, name: str) -> bool:
        return any(i.category == "pokemon" for i in self.infos(name))


Clue = tuple[str, Callable[[str], int], bool]  # (what it says, smaller is likelier, strong)


def clues(
    table: Table,
    *names: str,
    hit: list[str] | tuple[str, ...] = (),
    taken: set[str] | None = None,
    played: list[str] | tuple[str, ...] = (),
    owner: str | None = None,
) -> list[Clue]:
    """The board's clues to which of several same-named Pokémon a line means, in the order given:

    - ``taken``: not one already taken by another line of this window (two knockouts of one name);
    - ``fits``: the one whose damage reaches its HP (the knockout);
    - ``hit``: one this window damaged;
    - ``fresh``: one this window has not damaged yet (an effect that places counters on each Pokémon of a
      kind, Freezing Shroud, prints one line per Pokémon);
    - ``played``: the one this window put into play (Risky Ruins' counters go on the Pokémon just played);
    - ``bench``: a Benched one (an attack whose text places its counters on the Bench only, Phantom Dive);
    - ``owner``: ``owner``'s (the opponent of the player whose effect it is, when the log's owner name is
      unreliable);
    - ``active``: the Active Pokémon;
    - ``damaged``: the one with damage (a heal, moved damage counters), the most first;
    - ``ready``: a weak clue for a promotion the log does not decide: the one with the most Energy
      attached, then the least damaged (what a player promotes to attack next).

    A name ending in ``?`` is that clue as a weak one: it picks, and a finding says the log did not.
    """
    out: list[Clue] = []
    for name in names:
        if name.endswith("?"):
            # the same clue, weak: it picks one, but the log does not say so (a finding names the others)
            what, fn, _ = clues(table, name[:-1], hit=hit, taken=taken, played=played, owner=owner)[0]
            out.append((what + " (a guess)", fn, False))
        elif name == "fresh":
            out.append(("one this effect has not hit yet", lambda pid: 1 if pid in hit else 0, True))
        elif name == "played":
            out.append(("the one just played", lambda pid: 0 if pid in played else 1, True))
        elif name == "bench":
            out.append(("a Benched one", lambda pid: 1 if table.is_active(pid) else 0, True))
        elif name == "owner":
            out.append((f"{owner}'s", lambda pid: 0 if table.mons[pid].owner == owner else 1, True))
        elif name == "ready":
            out.append(
                (
                    "the one with the most Energy attached, then the least damage (a guess)",
                    lambda pid: _readiness(table.mons[pid]),
                    False,
                )
            )
        if name == "taken":
            out.append(("not one already taken", lambda pid: 1 if taken and pid in taken else 0, True))
        elif name == "fits":
            out.append(
                ("the one whose damage reaches its HP", lambda pid: 0 if _fits(table.mons[pid]) else 1, True)
            )
        elif name == "hit":
            out.append(("the one this effect damaged", lambda pid: 0 if pid in hit else 1, True))
        elif name == "active":
            out.append(("the Active one", lambda pid: 0 if table.is_active(pid) else 1, True))
        elif name == "damaged":
            out.append(("the damaged one", lambda pid: -table.mons[pid].damage, True))
    return out


def _has_move(info: CardInfo, move: str, lang: str) -> bool:
    key = move.casefold()
    return any(
        key in (mv.get(lang, "").casefold(), mv.get("en", "").casefold())
        for mv in (*info.attacks, *info.abilities)
    )


def _readiness(mon: Mon) -> int:
    energy = sum(1 for c in mon.attached if "Energ" in c)
    return -energy * 10_000 + mon.damage


def _fits(mon: Mon) -> bool:
    hp = mon.card.get("hp")
    return isinstance(hp, int) and mon.damage >= hp


def choose(table: Table, cands: list[str], no: int, what: str, by: list[Clue], find: Find) -> str:
    """Pick one of several same-named Pokémon by the clues ``by`` (the first that tells them apart
    decides). A finding when none does (info when they look identical, else a warning), and an info
    finding when only a weak clue (the one just played) decided."""
    if len(cands) == 1:
        return cands[0]

    fns = [fn for _, fn, _ in by]
    keyed = sorted(((tuple(fn(pid) for fn in fns), i, pid) for i, pid in enumerate(cands)))
    ranked = [pid for _, _, pid in keyed]
    a = table.mons[ranked[0]]
    ka, kb = keyed[0][0], keyed[1][0]
    decided = next((i for i in range(len(by)) if ka[i] != kb[i]), None)
    if decided is None:
        # identical only when every candidate looks the same on the board (damage, Special Conditions,
        # cards attached): then the choice cannot change the board
        looks = {
            (m.damage, tuple(sorted(m.conditions)), tuple(sorted(m.attached)))
            for m in (table.mons[pid] for pid in cands)
        }
        same = len(looks) == 1
        find(
            "importer_guess_pid",
            "info" if same else "warning",
            no,
            say(
                notes.GUESS_PID_SAME if same else notes.GUESS_PID,
                n=len(cands),
                card=a.name,
                pids=", ".join(cands),
                what=what,
                pid=ranked[0],
            ),
        )
    elif not by[decided][2]:
        find(
            "importer_guess_pid",
            "info",
            no,
            say(
                notes.GUESS_PID_BY,
                n=len(cands),
                card=a.name,
                pids=", ".join(cands),
                what=what,
                pid=ranked[0],
                clue=by[decided][0],
            ),
        )
    return ranked[0]
