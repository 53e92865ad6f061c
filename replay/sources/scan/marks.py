"""The marks read from a game sheet -> a match sheet of the sheet importer (``prizecheck-sheet/1`` JSON).

A scanned sheet is turned into events the same way as any match sheet: this module writes the rows
(``turn``, ``ko``, ``prize``, ``promote``, ``time``, ``penalty``, ``concede``, ``result``...) and
:func:`replay.sources.sheet.parse_sheet` makes the events. Pure: no image library.

**The Pokémon.** A sheet says which board position was Knocked Out (the Active, Bench 1-5), not which
card: the names are handwriting, kept as crops. So the Pokémon in play are placeholders, ``Pokémon A1``,
``Pokémon A2``... (the n-th Pokémon of player A that the sheet shows): each player's Active at setup, and a
Benched Pokémon wherever the sheet needs one, put onto the Bench at the start of its owner's latest turn
before it is needed (at setup when there is none): one for each Benched Pokémon Knocked Out, and one for
each Active Knocked Out (it is promoted after the knockouts: the player who takes the next turn first
[JP3.4 §I-D step 5]), except for the player who loses by having no Pokémon (the sheet's end: "No
Pokémon"). A placeholder's prize value is what the sheet says the opponent took for it in that turn (the
prizes of one turn shared among its knockouts, the Active first, at least 1 each): so the engine counts the
prizes the sheet shows, and checks the rest (turn order, who won, by which condition, penalties, time).

**One turn row -> rows:** ``turn`` (``amount`` 0 on the row of a deck-out: the turn started with an
empty deck), the placeholders benched, the knockouts (one batch), the prizes, the promotions, ``time``,
``penalty``; at the end ``concede`` (the loser) or ``end_turn`` (time), and ``result``.

**Confidence.** The ``turn`` row of each turn row carries that row's confidence (its least clear mark);
the header's (mulligans) and the foot's (the end) are carried by the ``mulligan`` and ``result`` rows, or
by a ``note`` row when the sheet gives none. The other rows carry none, so that each printed row gives at
most one ``low_confidence`` finding.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Final

from replay.i18n import scan_notes
from replay.i18n.notes import say
from replay.sheet_format import FORMAT
from replay.sources.cards import Catalogue
from replay.sources.scan.layout import (
    END_REASONS,
    LAYOUT,
    PENALTIES,
    ROWS,
    SIDES,
    SLOTS,
    Header,
    penalty_boxes,
)

#: Reasons with which the game ends during its last turn row (deck-out: as that turn starts; time: after).
ENDS_IN_ROW: Final = frozenset({"prizes", "no_pokemon", "concession", "penalty"})
CLEAR: Final = 1.0
#: The confidence of a sheet named from its printed header (neither QR code read): below any
#: ``--min-confidence`` a judge would set, so it is always a ``low_confidence`` finding.
PRINTED_CONFIDENCE: Final = 0.3


@dataclass(frozen=True, slots=True)
class GroupRead:
    """What one group of mark boxes says: the values marked, how clear that is (0..1), and, when it is not
    clear, why (``"two marks (2, 3)"``, ``"box 4 between empty and marked"``, ``"box 2 crossed out"``)."""

    chosen: frozenset[str] = frozenset()
    confidence: float = CLEAR
    problem: str = ""


Reads = Mapping[str, GroupRead]


def clear_reads(marks: Mapping[str, frozenset[str] | set[str]]) -> dict[str, GroupRead]:
    """Reads of a sheet filled exactly with ``marks`` (group key -> values marked), every mark clear."""
    return {g.key: GroupRead(frozenset(marks.get(g.key, ()))) for g in LAYOUT.groups}


@dataclass(slots=True)
class TurnRow:
    row: int
    who: str | None
    prizes: dict[str, int]
    kos: dict[str, list[str]]
    time: bool
    penalty: tuple[str, str] | None
    confidence: float
    problems: list[str] = field(default_factory=list)


@dataclass(slots=True)
class End:
    reason: str | None
    winner: str | None  # "A", "B", "draw"
    confidence: float
    problems: list[str] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class Carrier:
    """Which sheet row carries a printed region's confidence: ``region`` is ``r7``, ``head`` or ``end``."""

    region: str
    row_n: int
    confidence: float
    problems: tuple[str, ...]


@dataclass(slots=True)
class SheetDoc:
    """The match sheet (JSON form) a scan gives, the card values of its placeholders, the carriers."""

    doc: dict[str, Any]
    cards: PlaceholderCards
    carriers: list[Carrier]


@dataclass(slots=True)
class PlaceholderCards(Catalogue):
    """The placeholders' cards: a name and the prize value the sheet gives it (contract: an explicit
    ``prizes`` wins over the rule box); no HP (knockouts are audited from the sheet's claims)."""

    prizes: dict[str, int] = field(default_factory=dict)

    def card(self, name: str) -> dict[str, Any]:
        return {"name": name, "prizes": self.prizes.get(name, 1)}

    def __bool__(self) -> bool:  # never an empty catalogue (the importer's ``cards or NO_CATALOGUE``)
        return True


def _one(read: GroupRead) -> str | None:
    return next(iter(sorted(read.chosen)), None) if read.chosen else None


def _problem(label: str, read: GroupRead) -> list[str]:
    return [f"{label}: {read.problem}"] if read.problem else []


def _turn_rows(reads: Reads) -> tuple[list[TurnRow], list[TurnRow]]:
    """(the turn rows used, the unused rows with unclear marks)."""
    used: list[TurnRow] = []
    unclear_empty: list[TurnRow] = []
    for r in range(1, ROWS + 1):
        groups = {name: reads.get(f"r{r}.{name}", GroupRead()) for name in _ROW_NAMES}
        conf = min(g.confidence for g in groups.values())
        problems = [p for name, g in groups.items() for p in _problem(LAYOUT.group(f"r{r}.{name}").label, g)]
        who = _one(groups["who"])
        anything = any(g.chosen for g in groups.values())
        if not anything:
            if problems:
                unclear_empty.append(TurnRow(r, None, {}, {}, False, None, conf, problems))
            continue
        if who is None:
            # marks in a row with no player: the turns alternate, so the player is guessed (and said)
            prev = used[-1].who if used else None
            who = "B" if prev == "A" else "A"
            conf = min(conf, 0.3)
            problems.append(f"whose turn: no box marked; read as {who} (the turns alternate)")
        side, kind = _one(groups["pen.side"]), _one(groups["pen.kind"])
        penalty = (side, kind) if side and kind else None
        if (side is None) != (kind is None):
            conf = min(conf, 0.4)
            problems.append(
                "penalty: " + ("no kind marked" if kind is None else "no player marked") + "; not read"
            )
        used.append(
            TurnRow(
                row=r,
                who=who,
                prizes={s: int(_one(groups[f"prizes.{s}"]) or 0) for s in SIDES},
                kos={s: [v for v in SLOTS if v in groups[f"ko.{s}"].chosen] for s in SIDES},
                time=bool(groups["time"].chosen),
                penalty=penalty,
                confidence=conf,
                problems=problems,
            )
        )
    # A row with nothing read between rows that hold marks: the game went on past it, so a turn was
    # played there (a row is never skipped on purpose) and its marks were not seen (faint pencil, a
    # shadow, a fold). Never dropped unsaid: a finding on that row, with its crop.
    last = used[-1].row if used else 0
    said = {u.row for u in unclear_empty}
    # Rows below whose marks are all unclear (faint, scribbled out: ink a judge must look at) carry the
    # game on too when they follow close: on a blurred pencil sheet the rows after a clear one are often
    # all unclear, with here and there a row read as nothing, which would otherwise be no turn at all,
    # unflagged. A lone unclear row far below the game's last row is a stray mark: said on its own.
    inked = last
    for u in sorted(unclear_empty, key=lambda t: t.row):
        if last < u.row <= inked + 1 + NEAR:
            inked = u.row
    for r in range(1, inked):
        if r not in said and not any(t.row == r for t in used):
            if r < last:
                why = f"no box read, yet the game goes on in row {last}"
            else:
                why = f"no box read, yet row {inked} below it holds unclear marks"
            unclear_empty.append(TurnRow(r, None, {}, {}, False, None, GAP, [why]))
    unclear_empty.sort(key=lambda t: t.row)
    return used, unclear_empty


#: The confidence of a turn row read empty where the game went on past it.
GAP: Final = 0.3
#: How many rows read as nothing may lie between a row that holds marks and an unclear row below it for
#: the unclear one to carry the game on (its gap rows then findings).
NEAR: Final = 2

_ROW_NAMES: Final = ("who", "prizes.A", "ko.B", "prizes.B", "ko.A", "time", "pen.side", "pen.kind")


def _end(reads: Reads) -> End:
    reason_read = reads.get("end.reason", GroupRead())
    winner_read = reads.get("end.winner", GroupRead())
    reason, winner = _one(reason_read), _one(winner_read)
    conf = min(reason_read.confidence, winner_read.confidence)
    problems = _problem("how the game ended", reason_read) + _problem("who won", winner_read)
    if reason is not None and winner is None:
        conf = min(conf, 0.4)
        problems.append("how the game ended is marked but not who won; no result read")
    elif winner is not None and reason is None:
        conf = min(conf, 0.6)
        problems.append("who won is marked but not how the game ended")
    elif reason == "concession" and winner == "draw":
        conf = min(conf, 0.4)
        problems.append("a concession with no winner")
    return End(reason, winner, conf, problems)


def sheet_document(
    header: Header,
    reads: Reads,
    *,
    scan: str = "",
    players: tuple[str, str] | None = None,
    tool: str = f"prizecheck import scan (layout {LAYOUT.version})",
) -> SheetDoc:
    """The match sheet (``prizecheck-sheet/1`` JSON) that a sheet's marks give.

    ``reads``: each group's read (:func:`clear_reads` for exact marks); ``scan``: the prefix of the crop
    references (``<scan>/r7`` for turn row 7, ``<scan>/head``, ``<scan>/end``); ``players`` overrides the
    names printed on the sheet (and names sheets printed without them; else ``A`` and ``B``).

    In the last turn row, whether a player whose Active was Knocked Out had a Benched Pokémon to promote
    is not on the sheet (it matters when the game ends there: [docs/rules.md §4], the simultaneous
    table): the first reading of it whose record agrees with the end marked, winner and reason, is
    taken (a Pokémon on the Bench unless the end says that player had none), checked by the engine
    itself; when none does, the first, and the engine's findings say how the sheet disagrees.
    """
    first = _document(header, reads, scan, players, tool, None)
    turns, _ = _turn_rows(reads)
    end = _end(reads)
    if not turns or end.reason is None or end.winner is None or _agrees(first, header):
        return first
    last = turns[-1]
    sides = [s for s in SIDES if "active" in last.kos[s]]
    for n in range(1, 1 << len(sides)):
        stranded = frozenset(s for i, s in enumerate(sides) if n >> i & 1)
        other = _document(header, reads, scan, players, tool, stranded)
        if _agrees(other, header):
            return other
    return first


def _agrees(doc: SheetDoc, header: Header) -> bool:
    """Does the engine's record of ``doc`` agree with the result the sheet claims, reason included?"""
    import json

    from replay.engine import Game
    from replay.sources.sheet import parse_sheet

    res = parse_sheet(json.dumps(doc.doc), match=header.match, cards=doc.cards, min_confidence=0.0)
    game = Game()
    for ev in res.events:
        game.apply(ev)
    rec = game.record()
    return bool(rec.get("agrees")) and not any(f["code"] == "reason_mismatch" for f in rec["findings"])


def _document(
    header: Header,
    reads: Reads,
    scan: str,
    players: tuple[str, str] | None,
    tool: str,
    stranded: frozenset[str] | None,
) -> SheetDoc:
    """:func:`sheet_document` for one reading of the last row: ``stranded``, the players with no Benched
    Pokémon when their Active is Knocked Out there (None: those the end says lost by "No Pokémon")."""
    names = players or header.players or ("A", "B")
    pid = dict(zip(SIDES, names, strict=True))
    other = {"A": "B", "B": "A"}
    turns, unclear_empty = _turn_rows(reads)
    end = _end(reads)
    final = turns[-1].row if turns else None
    cards = PlaceholderCards()
    rows: list[dict[str, Any]] = []
    carriers: list[Carrier] = []

    def ref(region: str) -> str:
        return f"{scan}/{region}" if scan else ""

    def add(region: str, **row: Any) -> int:
        row = {k: v for k, v in row.items() if v not in (None, "")}
        if ref(region):
            row["scan"] = ref(region)
        rows.append(row)
        return len(rows)

    # ---- plan the placeholders: which Benched Pokémon each turn row needs, and where each comes from
    counter = dict.fromkeys(SIDES, 1)
    active = {s: f"Pokémon {s}1" for s in SIDES}
    placed: dict[int | None, list[tuple[str, str]]] = {}  # turn row (None: setup) -> [(side, name)]
    needs: dict[tuple[int, str, str], str] = {}  # (row, side, slot or "promote") -> placeholder name
    for i, t in enumerate(turns):
        for s in SIDES:
            slots = t.kos[s]
            if stranded is None:
                loses_here = (
                    t.row == final
                    and end.reason == "no_pokemon"
                    and (end.winner == "draw" or (end.winner in SIDES and end.winner != s))
                )
            else:
                loses_here = t.row == final and s in stranded
            wanted = [v for v in slots if v != "active"]
            if "active" in slots and not loses_here:
                wanted.append("promote")
            # the latest turn of this player's up to this one: a Pokémon is benched in its owner's turn
            home = next((u.row for u in reversed(turns[: i + 1]) if u.who == s), None)
            for v in wanted:
                counter[s] += 1
                name = f"Pokémon {s}{counter[s]}"
                needs[(t.row, s, v)] = name
                placed.setdefault(home, []).append((s, name))
    # ---- setup
    head_conf = min(reads.get(f"mull.{s}", GroupRead()).confidence for s in SIDES)
    head_problems = tuple(
        p for s in SIDES for p in _problem(f"{s}'s mulligans", reads.get(f"mull.{s}", GroupRead()))
    )
    head_carried = False
    for s in SIDES:
        n = int(_one(reads.get(f"mull.{s}", GroupRead())) or 0)
        if n:
            row_n = add(
                "head",
                turn=0,
                player=pid[s],
                action="mulligan",
                amount=n,
                confidence=None if head_carried else round(head_conf, 2),
            )
            if not head_carried:
                carriers.append(Carrier("head", row_n, head_conf, head_problems))
                head_carried = True
    for s in SIDES:
        add("head", turn=0, player=pid[s], action="active", card=active[s])
    for s, name in placed.get(None, []):
        add("head", turn=0, player=pid[s], action="bench", card=name)
    if header.spare:
        # the main QR code unread, the spare one named the sheet: said, and flagged when the context the
        # main code holds (event, round, table) is therefore not known
        lost = (say(scan_notes.CONTEXT_UNREAD),) if header.context_unread else ()
        row_n = add("head", action="note", note=say(scan_notes.SPARE_CODE), confidence=0.5 if lost else None)
        if lost:
            carriers.append(Carrier("head", row_n, 0.5, lost))
    if header.printed:
        # neither code read: the match id and the ruleset were read from the printed header, or the id was
        # given by hand (--match): always a low-confidence finding with the header's crop, however sure
        # the reading, so a judge checks it
        read_names = header.players if not players else None
        if header.given:
            # the id given by hand; the rest of the header still read from print when it reads
            said = (
                scan_notes.GIVEN_NAMED
                if players
                else scan_notes.GIVEN_READ_NAMES
                if read_names is not None
                else scan_notes.GIVEN_LETTERS
            )
            checks: tuple[str, ...] = (say(scan_notes.GIVEN_CHECK, match=header.match),)
            if read_names is not None:
                checks += (say(scan_notes.PRINTED_NAMES_CHECK, a=read_names[0], b=read_names[1]),)
        elif read_names is not None:  # the printed names read too (issue 39 item 2)
            said = scan_notes.PRINTED_READ_NAMES
            a, b = read_names
            checks = (
                say(scan_notes.PRINTED_CHECK, match=header.match),
                say(scan_notes.PRINTED_NAMES_CHECK, a=a, b=b),
            )
        else:
            said = scan_notes.PRINTED_NAMED if players else scan_notes.PRINTED_LETTERS
            checks = (say(scan_notes.PRINTED_CHECK, match=header.match),)
        if header.sheet is not None and header.count is not None:
            # the sheet's number in its batch read from print too (issue 39 item 2)
            checks += (say(scan_notes.PRINTED_NUMBER_CHECK, n=header.sheet, count=header.count),)
        if header.context:
            # the context read from print too (issue 39 item 3): its fields as the record keeps them
            said_context = ", ".join(f"{k} {v}" for k, v in header.context.items())
            checks += (say(scan_notes.PRINTED_CONTEXT_CHECK, context=said_context),)
        fields = {"a": read_names[0], "b": read_names[1]} if read_names is not None else {}
        row_n = add(
            "head",
            action="note",
            note=say(said, match=header.match, ruleset=header.ruleset, **fields),
            confidence=PRINTED_CONFIDENCE,
        )
        carriers.append(Carrier("head", row_n, PRINTED_CONFIDENCE, checks))
    if not head_carried and head_problems:
        row_n = add(
            "head", action="note", note=say(scan_notes.UNCLEAR_HEADER), confidence=round(head_conf, 2)
        )
        carriers.append(Carrier("head", row_n, head_conf, head_problems))
    # ---- the turn rows
    unclear_by_row = {t.row: t for t in unclear_empty}
    for t in turns:
        for r in sorted(k for k in unclear_by_row if k < t.row):
            u = unclear_by_row.pop(r)
            row_n = add(
                f"r{r}",
                turn=r,
                action="note",
                note=say(scan_notes.UNCLEAR_ROW, row=r),
                confidence=round(u.confidence, 2),
            )
            carriers.append(Carrier(f"r{r}", row_n, u.confidence, tuple(u.problems)))
        region = f"r{t.row}"
        assert t.who is not None
        is_final = t.row == final and end.reason is not None and end.winner is not None
        deck_out = is_final and end.reason == "deck_out"
        row_n = add(
            region,
            turn=t.row,
            player=pid[t.who],
            action="turn",
            amount=0 if deck_out else None,
            confidence=round(t.confidence, 2),
        )
        carriers.append(Carrier(region, row_n, t.confidence, tuple(t.problems)))
        for s, name in placed.get(t.row, []):
            add(region, turn=t.row, player=pid[s], action="bench", card=name)
        for s in SIDES:
            kos = t.kos[s]
            taken = t.prizes[other[s]]
            base, extra = divmod(taken, len(kos)) if kos else (0, 0)
            for i, slot in enumerate(kos):
                name = active[s] if slot == "active" else needs[(t.row, s, slot)]
                cards.prizes[name] = max(1, base + (1 if i < extra else 0))
                add(
                    region,
                    turn=t.row,
                    player=pid[s],
                    action="ko",
                    target="active" if slot == "active" else name,
                )
        for s in SIDES:
            if t.prizes[s]:
                add(region, turn=t.row, player=pid[s], action="prize", amount=t.prizes[s])
        ends_now = is_final and end.reason in ENDS_IN_ROW
        # both Actives Knocked Out: the player who takes the next turn promotes first [JP3.4 §I-D step 5]
        for s in (other[t.who], t.who):
            promoted = needs.get((t.row, s, "promote"))
            if promoted is not None and not ends_now:
                add(region, turn=t.row, player=pid[s], action="promote", target=promoted)
                active[s] = promoted
        if t.time:
            add(region, turn=t.row, action="time")
        if t.penalty is not None:  # the box's meaning on this ruleset's sheet (layout.penalty_boxes)
            kind, count = penalty_boxes(header.ruleset)[PENALTIES.index(t.penalty[1])]
            add(region, turn=t.row, player=pid[t.penalty[0]], action="penalty", card=kind, amount=count)
    for r in sorted(unclear_by_row):
        u = unclear_by_row[r]
        row_n = add(
            f"r{r}",
            turn=r,
            action="note",
            note=say(scan_notes.UNCLEAR_ROW, row=r),
            confidence=round(u.confidence, 2),
        )
        carriers.append(Carrier(f"r{r}", row_n, u.confidence, tuple(u.problems)))
    # ---- the end
    end_problems = tuple(end.problems)
    if end.reason is not None and end.winner is not None:
        winner = end.winner
        if end.reason == "concession" and winner in SIDES:
            add("end", turn=final, player=pid[other[winner]], action="concede")
        if end.reason == "time" and final is not None:
            add("end", turn=final, action="end_turn")
        row_n = add(
            "end",
            turn=final,
            player=pid[winner] if winner in SIDES else None,
            action="result",
            card=end.reason,
            confidence=round(end.confidence, 2),
        )
        carriers.append(Carrier("end", row_n, end.confidence, end_problems))
    elif end_problems:
        row_n = add(
            "end",
            action="note",
            note=say(scan_notes.UNCLEAR_END),
            confidence=round(end.confidence, 2),
        )
        carriers.append(Carrier("end", row_n, end.confidence, end_problems))
    first = pid[turns[0].who] if turns and turns[0].who else names[0]
    doc: dict[str, Any] = {
        "format": FORMAT,
        "match": header.match,
        "players": list(names),
        "first": first,
        "ruleset": header.ruleset,
        "source": {"tool": tool},
        "rows": rows,
    }
    if header.context:
        doc["context"] = dict(header.context)
    return SheetDoc(doc, cards, carriers)


assert set(END_REASONS) >= ENDS_IN_ROW
