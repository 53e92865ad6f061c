"""The game sheet's layout, version 1: every printed element's place, in millimetres, and the QR payload.

Everything is placed in a *frame* of 190 x 255 mm whose corners carry four ArUco markers (4x4 dictionary,
ids 0-3 clockwise from the top left). The frame is the same on A4 and on Letter (only its place on the
paper differs), so one geometry serves both papers, the printer and the reader. Pure data: no image
library is imported here.

Per turn row (30 rows): whose turn (A/B), the prizes each player took in that turn (1-6; no mark = 0), the
Pokémon of each player Knocked Out in it (Active, Bench 1-5), time called, a penalty (to A or B: warning,
the ruleset's two usual prize penalties, game loss: :func:`penalty_boxes`) and a free-text box for card
names and notes. In the header: the match, the players, the ruleset, each player's mulligans and their
starting Pokémon (free text); at the foot: how the game ended (prizes, no Pokémon, deck-out, concession,
time, penalty) and who won (A, B or a draw), and a free-text box for notes.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any, Final

LAYOUT_VERSION: Final = 1
#: The frame (mm) that the corner markers span; the same on every paper.
FRAME_W: Final = 190.0
FRAME_H: Final = 255.0
#: Paper sizes (mm), portrait.
PAPERS: Final[dict[str, tuple[float, float]]] = {"a4": (210.0, 297.0), "letter": (215.9, 279.4)}
#: The markers: ArUco DICT_4X4_50, ``MARKER`` mm squares (black border included) at the frame's corners.
MARKER: Final = 10.0
MARKER_IDS: Final = (0, 1, 2, 3)  # top left, top right, bottom right, bottom left
ROWS: Final = 30
ROW_TOP: Final = 58.0
ROW_PITCH: Final = 6.0
BOX: Final = 3.4  # a mark box's side
PITCH: Final = 4.4  # box to box, in a group
TIMING: Final = 2.4  # the timing squares at both ends of each row (the reader finds each row by them)
TIMING_X: Final = (1.2, FRAME_W - 1.2 - TIMING)
QR_BOX: Final = (142.0, 9.5, 38.0)  # x, y, side (the quiet zone included)
#: The spare QR code (issue 39): a second, smaller code left of the sheet's number, holding the match, the
#: players, the ruleset and the sheet's number again (:meth:`Header.spare_payload`), so that a main code
#: lost to glare, a crease or the photo's edge does not lose the sheet: it is read when the main one is not.
SPARE_QR_BOX: Final = (117.0, 0.4, 24.0)
QR_MIN_VERSION: Final = 3  # QR versions (17 + 4 v modules a side); the reader tries each size
QR_MAX_VERSION: Final = 14
QR_PREFIX: Final = "pcs"  # the payload's version key: {"pcs": <layout version>, ...}
#: A crop's name (``import scan`` keeps them, events and findings name them, the service serves them):
#: ``<16 hex digits of the photo file's SHA-256>-<page>/<region>``, region ``r1``-``r30``, ``head``,
#: ``end`` or ``page``; the second sheet of a photo holding two is ``<hash>-<page>s2``.
CROP_NAME: Final = re.compile(r"^[0-9a-f]{16}-[0-9]{1,3}(s[0-9])?/(r[0-9]{1,2}|head|end|page)$")

SIDES: Final = ("A", "B")
SLOTS: Final = ("active", "bench1", "bench2", "bench3", "bench4", "bench5")
#: A row's four penalty boxes, as the layout names them; what each gives depends on the sheet's ruleset
#: (:func:`penalty_boxes`): the middle two are its usual prize penalties.
PENALTIES: Final = ("warning", "double_prize", "quad_prize", "game_loss")
END_REASONS: Final = ("prizes", "no_pokemon", "deck_out", "concession", "time", "penalty")
WINNERS: Final = ("A", "B", "draw")


@dataclass(frozen=True, slots=True)
class Rect:
    """A rectangle in frame millimetres (x, y: top left)."""

    x: float
    y: float
    w: float
    h: float

    @property
    def cx(self) -> float:
        return self.x + self.w / 2

    @property
    def cy(self) -> float:
        return self.y + self.h / 2


@dataclass(frozen=True, slots=True)
class Group:
    """Mark boxes that answer one question: ``key`` (``r7.prizes.A``, ``end.reason``), the value of each
    box (``choices``), where each box is, and whether one box at most may be marked (``single``)."""

    key: str
    label: str
    choices: tuple[str, ...]
    boxes: tuple[Rect, ...]
    single: bool
    row: int | None = None  # the turn row (1-30), None in the header and the foot
    labels: tuple[str, ...] = ()  # what is printed by each box (the column headers, for rows)


@dataclass(frozen=True, slots=True)
class Layout:
    """The whole sheet: groups in reading order, free-text boxes, regions kept as crops."""

    version: int
    groups: tuple[Group, ...]
    free_text: dict[str, Rect]
    crops: dict[str, Rect]
    by_key: dict[str, Group] = field(default_factory=dict)

    def group(self, key: str) -> Group:
        return self.by_key[key]


def frame_origin(paper: str) -> tuple[float, float]:
    """Where the frame's top left corner is on ``paper`` (centred)."""
    w, h = PAPERS[paper]
    return (w - FRAME_W) / 2, (h - FRAME_H) / 2


def marker_rects() -> tuple[Rect, ...]:
    """The four markers, in the order of :data:`MARKER_IDS`."""
    m, w, h = MARKER, FRAME_W, FRAME_H
    return (Rect(0, 0, m, m), Rect(w - m, 0, m, m), Rect(w - m, h - m, m, m), Rect(0, h - m, m, m))


def row_top(row: int) -> float:
    return ROW_TOP + (row - 1) * ROW_PITCH


def timing_rects(row: int) -> tuple[Rect, Rect]:
    y = row_top(row) + (ROW_PITCH - TIMING) / 2
    return Rect(TIMING_X[0], y, TIMING, TIMING), Rect(TIMING_X[1], y, TIMING, TIMING)


# The row's groups: (name, label, choices, printed labels, single, x of the first box)
_ROW_GROUPS: Final = (
    ("who", "whose turn", SIDES, SIDES, True, 11.0),
    ("prizes.A", "prizes A took", ("1", "2", "3", "4", "5", "6"), ("1", "2", "3", "4", "5", "6"), True, 22.0),
    ("ko.B", "B's Pokémon Knocked Out", SLOTS, ("Act", "1", "2", "3", "4", "5"), False, 50.6),
    ("prizes.B", "prizes B took", ("1", "2", "3", "4", "5", "6"), ("1", "2", "3", "4", "5", "6"), True, 79.2),
    ("ko.A", "A's Pokémon Knocked Out", SLOTS, ("Act", "1", "2", "3", "4", "5"), False, 107.8),
    ("time", "time called", ("called",), ("T",), True, 136.4),
    ("pen.side", "penalty to", SIDES, SIDES, True, 143.0),
    ("pen.kind", "penalty", PENALTIES, ("W", "2P", "4P", "GL"), True, 153.0),
)
ROW_NOTES_X: Final = (172.0, 185.6)


def _boxes(x0: float, y: float, n: int, pitch: float = PITCH) -> tuple[Rect, ...]:
    return tuple(Rect(x0 + i * pitch, y, BOX, BOX) for i in range(n))


def _build() -> Layout:
    groups: list[Group] = []
    # the header: mulligans of each player (how many times; none marked = no mulligan)
    for i, side in enumerate(SIDES):
        groups.append(
            Group(
                f"mull.{side}",
                f"{side}'s mulligans",
                ("1", "2", "3", "4"),
                _boxes(112.0, 28.0 + i * 7.0, 4, 5.4),
                True,
                labels=("1", "2", "3", "4"),
            )
        )
    for row in range(1, ROWS + 1):
        y = row_top(row) + (ROW_PITCH - BOX) / 2
        for name, label, choices, labels, single, x0 in _ROW_GROUPS:
            groups.append(
                Group(f"r{row}.{name}", label, choices, _boxes(x0, y, len(choices)), single, row, labels)
            )
    # the foot: how the game ended, and who won
    reason_x = (30.0, 46.0, 62.0, 78.0, 93.0, 106.0)
    groups.append(
        Group(
            "end.reason",
            "how the game ended",
            END_REASONS,
            tuple(Rect(x, 242.6, BOX, BOX) for x in reason_x),
            True,
            labels=("Prizes", "No Pokémon", "Deck-out", "Concession", "Time", "Penalty"),
        )
    )
    groups.append(
        Group(
            "end.winner",
            "who won",
            WINNERS,
            tuple(Rect(x, 242.6, BOX, BOX) for x in (140.0, 150.0, 160.0)),
            True,
            labels=("A", "B", "Draw"),
        )
    )
    free_text = {
        "name.A": Rect(22.0, 25.5, 80.0, 6.0),
        "name.B": Rect(22.0, 32.5, 80.0, 6.0),
        "start.A": Rect(0.0, 40.0, 68.0, 6.5),
        "start.B": Rect(71.0, 40.0, 68.0, 6.5),
        "notes": Rect(12.0, 247.5, 166.0, 7.0),
    }
    for row in range(1, ROWS + 1):
        free_text[f"r{row}.notes"] = Rect(
            ROW_NOTES_X[0], row_top(row) + 0.6, ROW_NOTES_X[1] - ROW_NOTES_X[0], 4.8
        )
    crops = {"head": Rect(0.0, 10.0, FRAME_W, 37.5), "end": Rect(0.0, 237.0, FRAME_W, 18.0)}
    for row in range(1, ROWS + 1):
        crops[f"r{row}"] = Rect(0.0, row_top(row) - 0.6, FRAME_W, ROW_PITCH + 1.2)
    layout = Layout(LAYOUT_VERSION, tuple(groups), free_text, crops)
    layout.by_key.update({g.key: g for g in groups})
    return layout


LAYOUT: Final = _build()


# ---------------------------------------------------------------------------------- the QR code
#: The ruleset a payload without one names.
DEFAULT_RULESET: Final = "play-2026"


@dataclass(frozen=True, slots=True)
class Header:
    """What the QR code holds: the match, the players (A, B; None when the sheet was printed without
    them), the ruleset, the sheet's number in a printed batch, the context, and the layout's version."""

    match: str
    players: tuple[str, str] | None = None
    ruleset: str = DEFAULT_RULESET
    sheet: int | None = None
    count: int | None = None
    context: dict[str, Any] = field(default_factory=dict)
    layout: int = LAYOUT_VERSION
    #: read from the spare code (:meth:`spare_payload`), the main one being unreadable
    spare: bool = False
    #: the context is printed in the main code only, which was not read (so it is not known here)
    context_unread: bool = False
    #: neither code read: the match id and the ruleset were read from the printed header (a judge checks
    #: them; replay.sources.scan.printed), in a sheet printed in ``printed_lang``; the players when both
    #: printed names were read for certain, the number (``sheet``, ``count``) and the context when they were
    printed: bool = False
    printed_lang: str | None = None
    #: ... nor the printed match id: ``match`` is the one ``import scan --match`` gave (a judge named the
    #: sheet; issue 39), ``ruleset`` the printed one when it was read, else ``""``
    given: bool = False

    def payload(self) -> str:
        """The QR code's text: compact JSON (UTF-8), short keys (docs/importers.md, "The QR code"). Kept
        short on purpose: the fewer its bytes, the larger the QR code's modules, the blurrier the photo
        it is read from can be."""
        doc: dict[str, Any] = {QR_PREFIX: self.layout, "m": self.match}
        if self.players is not None:
            doc["p"] = list(self.players)
        doc["r"] = self.ruleset
        if self.sheet is not None:
            doc["n"] = self.sheet
        if self.count is not None:
            doc["of"] = self.count
        context = {CONTEXT_KEYS[k]: v for k, v in self.context.items() if k in CONTEXT_KEYS}
        if context:
            doc["c"] = context
        return json.dumps(doc, ensure_ascii=False, separators=(",", ":"))

    def spare_payload(self) -> str:
        """The spare code's text: the main payload less the context (the fewer bytes, the larger its
        modules), the ruleset only when it is not the default one (which a payload without it means),
        ``"s": 1`` (this is the spare) and ``"cx": 1`` when the main code holds a context this one does not
        (so a sheet read from the spare says the event, round and table are not read, never leaves them
        out silently)."""
        doc: dict[str, Any] = {QR_PREFIX: self.layout, "m": self.match}
        if self.players is not None:
            doc["p"] = list(self.players)
        if self.ruleset != DEFAULT_RULESET:
            doc["r"] = self.ruleset
        if self.sheet is not None:
            doc["n"] = self.sheet
        if self.count is not None:
            doc["of"] = self.count
        doc["s"] = 1
        if any(k in CONTEXT_KEYS for k in self.context):
            doc["cx"] = 1
        return json.dumps(doc, ensure_ascii=False, separators=(",", ":"))


#: The context's keys in the QR code (short: every byte makes the modules smaller).
CONTEXT_KEYS: Final = {
    "league": "l",
    "season": "s",
    "event": "e",
    "series": "sr",
    "round": "rd",
    "table": "t",
    "game": "g",
    "stage": "st",
}


class PayloadError(ValueError):
    """A QR code that is not a Prizecheck sheet's, or one of a layout this version cannot read."""

    def __init__(self, message: str, *, version: int | None = None) -> None:
        super().__init__(message)
        self.version = version


def parse_payload(text: str) -> Header:
    """The header a QR code's text gives; :class:`PayloadError` when it is not a sheet's (or not v1)."""
    try:
        doc = json.loads(text)
    except ValueError:
        raise PayloadError("the QR code is not a Prizecheck game sheet's") from None
    if not isinstance(doc, dict) or not isinstance(doc.get(QR_PREFIX), int):
        raise PayloadError("the QR code is not a Prizecheck game sheet's")
    version = doc[QR_PREFIX]
    if version != LAYOUT_VERSION:
        raise PayloadError(
            f"a game sheet of layout version {version}; this Prizecheck reads version {LAYOUT_VERSION}",
            version=version,
        )
    match = doc.get("m")
    players = doc.get("p")
    ruleset = doc.get("r", DEFAULT_RULESET)
    context = doc.get("c", {})
    ok = (
        isinstance(match, str)
        and isinstance(ruleset, str)
        and isinstance(context, dict)
        and (players is None or (isinstance(players, list) and len(players) == 2))
        and all(isinstance(doc.get(k, 0), int) for k in ("n", "of", "s", "cx"))
    )
    if not ok or (players is not None and not all(isinstance(p, str) and p for p in players)):
        raise PayloadError("the sheet's QR code is damaged or incomplete (match, players, ruleset)")
    assert isinstance(match, str) and isinstance(ruleset, str) and isinstance(context, dict)
    names = {v: k for k, v in CONTEXT_KEYS.items()}
    return Header(
        match=match,
        players=(str(players[0]), str(players[1])) if players else None,
        ruleset=ruleset,
        sheet=doc.get("n"),
        count=doc.get("of"),
        context={names[k]: v for k, v in context.items() if k in names},
        layout=version,
        spare=bool(doc.get("s")),
        context_unread=bool(doc.get("cx")),
    )


def penalty_boxes(ruleset: str) -> tuple[tuple[str, int | None], ...]:
    """What each of a row's four penalty boxes (:data:`PENALTIES`) gives on a sheet of ``ruleset``: the
    penalty's kind and, for a prize penalty, its count. A warning and a game loss at the ends; between
    them the ruleset's two usual prize penalties (``penalties.prize_penalty.usual``): Play! Pokémon's
    Double and Quadruple Prize Card where those are 2 and 4 (play-2026, kr-1.0), else a prize penalty of
    that count (jp-3.4: サイドペナルティ of 1 and 3, docs/rules.md §6.1). Another count is written in
    the row's notes box and typed by the judge (the sheet has boxes for the usual ones only)."""
    from replay.engine import load_ruleset

    try:
        usual = tuple(load_ruleset(ruleset).prize_penalty.usual)[:2]
    except KeyError:  # a ruleset this version does not bundle: the sheet's reader refuses it elsewhere
        usual = ()
    if usual == (2, 4) or len(usual) < 2:
        middle: tuple[tuple[str, int | None], ...] = (("double_prize", None), ("quad_prize", None))
    else:
        middle = tuple(("prize_penalty", n) for n in usual)
    return (("warning", None), *middle, ("game_loss", None))
