"""The state of one PTCGL import while its lines are walked, and the board questions every handler asks.

One job: hold what the walk knows between lines (the table, the stream being written, the card facts,
the open resolution window, the turn, the setup) and answer "which of my Pokémon does this line mean?":
``locate`` checks the log's owner against the board, ``in_spot`` uses the spot the line names,
``materialise`` puts in play a Pokémon the log refers to but never showed entering play, ``source_of``
says where cards an effect moves came from. The line handlers themselves are in ``turns``, ``play`` and
``zones``; the window's rule order in ``window``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from replay.engine import Ruleset
from replay.i18n import notes
from replay.i18n.notes import say
from replay.sources.common import Event
from replay.sources.ptcgl.cards import Clue, LogCards, choose, clues
from replay.sources.ptcgl.events import Stream
from replay.sources.ptcgl.lines import Line
from replay.sources.ptcgl.locales import Locale
from replay.sources.table import Mon, Table


@dataclass(slots=True, init=False)
class Window:
    """A resolution window: an action line and the consequence lines that follow it (a whole Pokémon
    Checkup is one), emitted in rule order when it closes (replay/sources/ptcgl/window.py)."""

    kind: str  # attack | effect | checkup
    line: int
    actor: str | None = None  # who did the action line that opened the window
    kos: list[tuple[int, str, str]] = field(default_factory=list)
    prizes: list[tuple[int, str, int]] = field(default_factory=list)
    promos: list[tuple[int, str, str]] = field(default_factory=list)
    hit: list[str] = field(default_factory=list)
    damaged: list[Event] = field(default_factory=list)  # the damage events placed in this window
    played: list[str] = field(default_factory=list)  # Pokémon this window put into play
    retreated: set[str] = field(default_factory=set)
    seen: dict[tuple[str, str], int] = field(default_factory=dict)
    leaving: dict[str, tuple[str, str, int]] = field(default_factory=dict)  # owner -> (pid, zone, line)
    stadium_played: bool = False
    replaced: tuple[str, str] | None = None  # the Stadium a Stadium played in this effect sent away
    ko_lists: dict[tuple[str, str], list[str]] = field(default_factory=dict)  # cards printed with a KO
    prizes_shuffled: set[str] = field(default_factory=set)
    move: tuple[str, str] | None = None  # (Pokémon, attack or Ability) the window's action used
    user: str | None = None  # the Pokémon that used an attack of another card (Seek Inspiration)
    hands_shuffled: set[str] = field(default_factory=set)  # players whose hand an effect shuffled away
    returned: set[str] = field(default_factory=set)  # players who put their hand back this effect
    searched: bool = False
    trainer: str | None = None  # the Trainer the window's action played
    from_hand: int = 0  # cards this effect has moved out of a hand (a Trainer's cost comes first)
    lost_with_ko: list[tuple[str, str, list[str]]] = field(default_factory=list)  # (owner, KO'd name, cards)
    devolved: dict[tuple[str, str], str] = field(default_factory=dict)  # (owner, card taken off) -> pid
    gone: dict[str, list[str]] = field(default_factory=dict)  # owner -> cards of a Pokémon shuffled away

    def __init__(self, kind: str, line: int, actor: str | None = None) -> None:
        # written out (dataclass's own __init__ called a factory for each of its 15 containers): a log
        # opens a window at almost every action line, ~160 a log
        self.kind = kind
        self.line = line
        self.actor = actor
        self.kos = []
        self.prizes = []
        self.promos = []
        self.hit = []
        self.damaged = []
        self.played = []
        self.retreated = set()
        self.seen = {}
        self.leaving = {}
        self.stadium_played = False
        self.replaced = None
        self.ko_lists = {}
        self.prizes_shuffled = set()
        self.move = None
        self.user = None
        self.hands_shuffled = set()
        self.returned = set()
        self.searched = False
        self.trainer = None
        self.from_hand = 0
        self.lost_with_ko = []
        self.devolved = {}
        self.gone = {}


class Importer:
    """One log's import in progress (the pipeline in replay/sources/ptcgl/__init__.py drives it)."""

    def __init__(
        self,
        raw: list[str],
        loc: Locale,
        rules: Ruleset,
        players: list[str],
        table: Table,
        out: Stream,
        cards: LogCards,
        filename: str,
    ) -> None:
        self.raw = raw
        self.loc = loc
        self.rules = rules
        self.players = players
        self.table = table
        self.out = out
        # the stream's own methods (a handler's ``imp.emit(ev)`` and ``imp.find(...)``, ~500 a log, with no
        # call of a method that only passes them on)
        self.emit = out.emit
        self.find = out.find
        self.named = table.named  # ``owner``'s Pokémon in play named ``name`` (Table.named)
        self._in_game = table.active  # (its keys are the two players: ``player_of`` asks it directly)
        self.cards = cards
        self.filename = filename
        self.window: Window | None = None
        self.turn_player: str | None = None
        self.turn_no = 0
        self.turns_of: dict[str, int] = {}  # turns each player has started
        self.turn_open = False
        self.pending: Line | None = None  # a turn header waiting for its first line (its player)
        self.phase = "pre"
        self.setup: dict[str, dict[str, Any]] = {}
        self.bonus: list[Event] = []
        self.added_due: dict[str, int] = {}
        self.ended: Line | None = None
        self.attack_lines: set[int] = set()
        self.first = players[0]
        self.exporter: str | None = None  # whose view the log is (facts.find_exporter)
        self.last_effect: str | None = None  # the last Trainer or Ability line of this turn
        self.setup_at = 0  # where the setup events are in the stream
        self.late_setup: dict[str, dict[str, Any]] = {}  # players the log shows no setup for
        # attachments to one of several same-named Pokémon: (event, card, the other candidates)
        self.attach_guesses: dict[str, list[tuple[Event, str, list[str]]]] = {}  # by the pid taken
        self.prizes_left: dict[str, int] = dict.fromkeys(players, rules.prizes)
        # the Stadium whose HP change (Gravity Mountain: Stage 2 -30) the board counts, and the stages
        # it is counted on (play.stadium_hp)
        self.field: tuple[str, str] | None = None
        self.field_on: set[str] = set()
        # the last choice between twins the log did not decide (pid taken, the others), and the damage
        # placed by such choices (by the pid taken: the event, the other candidates, the damage events of
        # its window)
        self.guessed: tuple[str, list[str]] | None = None
        self.damage_guesses: dict[str, list[tuple[Event, list[str], list[Event]]]] = {}
        # promotions (and retreats) to one of several twins the log did not decide: where the event is in
        # the stream, the pid taken, the others, and each one's damage and cards attached then
        self.promo_guesses: list[tuple[int, str, list[str], dict[str, tuple[int, list[str]]]]] = []

    # -- players --------------------------------------------------------------------------------------
    def other(self, p: str) -> str:
        return self.table.other(p)

    def player_of(self, ln: Line, group: str = "p") -> str | None:
        """The player a line's value ``group`` names, None when it is not one of the two."""
        assert ln.g is not None
        p = ln.g[group]
        return p if p in self._in_game else None  # (Table.is_player, without its call: asked at every line)

    # -- the board ------------------------------------------------------------------------------------
    def mon(self, pid: str) -> Mon:
        return self.table.mons[pid]

    def new_poke(self, owner: str, name: str) -> tuple[str, dict[str, Any]]:
        mon = self.table.new_mon(owner, name, turn=self.turn_no)
        card = self.cards.card_map(name, mon)
        mon.card, mon.rule = card, card["rule"]
        return mon.pid, card

    def choose(self, cands: list[str], no: int, what: str, by: list[Clue]) -> str:
        """Pick one of several same-named Pokémon by the board's clues; a finding when they do not decide
        (the choice is then kept as ``guessed``, for ``damage`` to remember, until the log says more)."""
        if len(cands) == 1:  # (most choices: one candidate, no finding, nothing to look at)
            self.guessed = None
            return cands[0]
        before = len(self.out.findings)
        pid = choose(self.table, cands, no, what, by, self.find)
        guessed = any(f.code == "importer_guess_pid" for f in self.out.findings[before:])
        self.guessed = (pid, [c for c in cands if c != pid]) if guessed else None
        return pid

    def clues(self, *names: str, taken: set[str] | None = None, owner: str | None = None) -> list[Clue]:
        """The board's clues (cards.clues), with this window's damaged Pokémon and those it played."""
        w = self.window
        hit, played = (w.hit, w.played) if w is not None else ([], [])
        return clues(self.table, *names, hit=hit, taken=taken, played=played, owner=owner)

    def put_in_play(self, p: str, name: str, to: str) -> str:
        """A Pokémon of ``p`` enters play mid-game (to the Active Spot if it is empty, else the Bench)."""
        pid, card = self.new_poke(p, name)
        self.emit({"type": "played", "player": p, "pid": pid, "card": card, "to": to})
        self.table.place(self.mon(pid), to)
        if self.window is not None:
            self.window.played.append(pid)
        return pid

    def in_spot(self, p: str, name: str, ln: Line, what: str, by: list[Clue]) -> str | None:
        """The Pokémon ``name`` of ``p`` that a line places "in the Active Spot" or "on the Bench"."""
        assert ln.g is not None
        spot = ln.g.get("spot")  # the fallback sentences name no spot
        a = self.table.active[p]
        if spot != "bench" and a is not None and self.mon(a).name == name:
            return a
        mons = self.table.mons
        cands = [x for x in self.table.bench[p] if mons[x].name == name] if spot != "active" else []
        if cands:
            return self.choose(cands, ln.no, what, by)
        return self.locate(p, name, ln.no, what)

    def locate(
        self,
        owner: str,
        name: str,
        no: int,
        what: str,
        *,
        materialise: bool = True,
        by: list[Clue] | None = None,
    ) -> str | None:
        """The pid of ``owner``'s ``name`` in play; the log's owner is checked against the board."""
        cands = self.named(owner, name)
        if not cands:
            other = self.other(owner)
            cands = self.named(other, name)
            if cands:
                self.find(
                    "importer_guess_owner",
                    "info",
                    no,
                    say(notes.GUESS_OWNER_ONLY, player=owner, card=name, other=other),
                )
            elif materialise:
                return self.materialise(owner, name, no)
            else:
                return None
        if len(cands) == 1:  # no choice: no clues to make
            return self.choose(cands, no, what, [])
        return self.choose(cands, no, what, by or self.clues("hit", "active", "damaged"))

    def _late_slot(self, owner: str) -> dict[str, Any] | None:
        if self.phase == "setup" or owner in self.late_setup:
            # before the game (or in a log that starts mid-game): part of the player's setup
            return self.late_setup.get(owner) or self.setup.setdefault(
                owner, {"active": None, "bench": [], "mulligans": 0}
            )
        return None

    def materialise(self, owner: str, name: str, no: int) -> str:
        """A Pokémon the log refers to but never showed entering play: put in play, said so."""
        to = "active" if self.table.active[owner] is None else "bench"
        pid, card = self.new_poke(owner, name)
        self.find(
            "importer_guess_pokemon",
            "warning",
            no,
            say(
                notes.GUESS_ENTERED_ACTIVE if to == "active" else notes.GUESS_ENTERED_BENCH,
                player=owner,
                card=name,
                pid=pid,
            ),
        )
        slot = self._late_slot(owner)
        if slot is not None:
            if slot["active"] is None:
                slot["active"] = {"pid": pid, "card": card}
            else:
                slot["bench"].append({"pid": pid, "card": card})
        else:
            self.emit({"type": "played", "player": owner, "pid": pid, "card": card, "to": to})
        self.table.place(self.mon(pid), to)
        return pid

    def materialise_bench(self, owner: str, name: str, no: int) -> str:
        """A Pokémon the log promotes or switches in but never showed on the Bench."""
        pid, card = self.new_poke(owner, name)
        self.find(
            "importer_guess_pokemon",
            "warning",
            no,
            say(notes.GUESS_BENCHED, player=owner, card=name, pid=pid),
        )
        slot = self.late_setup.get(owner)
        if slot is None:
            self.emit({"type": "played", "player": owner, "pid": pid, "card": card, "to": "bench"})
        elif slot["active"] is None:
            slot["active"] = {"pid": pid, "card": card}
        else:
            slot["bench"].append({"pid": pid, "card": card})
        self.table.bench[owner].append(pid)
        return pid

    def damage(self, pid: str, amount: int, by: str | None = None) -> None:
        ev: Event = {"type": "damage", "pid": pid, "amount": amount}
        if by is not None:
            ev["by"] = by
        w = self.window
        if self.guessed is not None and self.guessed[0] == pid:
            # which twin took it was a guess: kept, so a later line that contradicts it can move it
            # (window.revise_damage)
            self.damage_guesses.setdefault(pid, []).append((ev, self.guessed[1], w.damaged if w else []))
        self.guessed = None
        self.emit(ev)
        self.mon(pid).damage += amount
        if w is not None:
            w.hit.append(pid)
            w.damaged.append(ev)

    def source_of(self, ln: Line, p: str, names: list[str], what: str) -> str:
        """Where cards an effect puts into play or onto a Pokémon come from: the turn's own actions take
        them from the hand; an effect that shuffles the deck searched it; cards that are all in the
        player's discard pile (every discard is public) came from there; else the hand, said so."""
        if not ln.detail:
            return "hand"
        w = self.window
        said = None
        if w is not None and ln.kind in ("attached", "evolved"):
            # the effect's own text says where its attachments or Evolution cards come from (the catalogue)
            of = "evolve" if ln.kind == "evolved" else "attach"
            if w.move is not None:
                said = self.cards.attach_source(*w.move, of=of)
            elif w.trainer is not None:
                said = self.cards.attach_source(w.trainer, of=of)
        if said is not None:
            return said
        if ln.searched:
            return "deck"
        pile = list(self.table.discard_pile(p))
        if names and all(n in pile and not pile.remove(n) for n in names):  # type: ignore[func-returns-value]
            return "discard"
        self.find(
            "importer_guess_zone",
            "info",
            ln.no,
            say(notes.GUESS_SOURCE, what=what, cards=", ".join(names), player=p)
            if names
            else say(notes.GUESS_SOURCE_UNNAMED, what=what, player=p),
        )
        return "hand"

    def unread(self, ln: Line, message: str, severity: str = "warning") -> None:
        self.out.unread(ln.no, self.raw[ln.no - 1], message, severity)
