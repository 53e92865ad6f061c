"""Filled and photographed game sheets, for the tests and the bench (no real photo is needed to check the
reader, and every generated one comes with the truth it was made from).

1. :func:`random_game` plays a game at the sheet's level (turns, knockouts of the Active and of Benched
   Pokémon, prizes worth 1-3 each, time called, penalties, concessions, deck-outs), by the rules the
   engine implements (docs/rules.md §1, §3, §4, §6), and returns the marks a spotter makes for it and
   who won, how, with how many prizes: the truth a read sheet's record is checked against.
2. :func:`fill` marks a printed sheet (rasterized from ``sheet print``'s PDF) the way people do: ticks,
   crosses, full and partial fills, single slashes, in black, blue, red, green pen or pencil, with strokes
   that overrun the box, light or heavy pressure; some marks scribbled out and remade in the right box;
   handwriting (card names, notes) in the free-text boxes.
3. :func:`photograph` makes a phone photo of it on a table: the page on a wood-coloured background,
   rotated up to ±15°, in perspective, with a little paper curl, uneven light, a soft shadow across it,
   a colour cast, blur, sensor noise and JPEG compression (quality down to 40).

Deterministic for a seed (``random.Random``, numpy's ``default_rng``).
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, Final

import cv2
import numpy as np
import numpy.typing as npt
import pypdfium2 as pdfium
from cv2.typing import MatLike

from replay.engine import load_ruleset
from replay.sources.scan.layout import LAYOUT, PAPERS, ROWS, SIDES, Header, Rect, frame_origin
from replay.sources.scan.printer import sheets_pdf

Image = MatLike  # OpenCV's own array type (numpy arrays)
Marks = dict[str, frozenset[str]]

# pen colours (BGR) as a photo shows them
PENS: Final = {
    "black": (35, 32, 30),
    "blue": (150, 60, 25),
    "navy": (95, 40, 25),
    "red": (45, 40, 185),
    "green": (70, 120, 40),
    "pencil": (95, 95, 95),
}
MARK_KINDS: Final = ("tick", "tick", "tick", "cross", "cross", "fill", "partial", "slash")
CARDS: Final = (
    "Charizard ex",
    "Pidgeot ex",
    "Gardevoir ex",
    "Iron Hands ex",
    "Dragapult ex",
    "Roaring Moon ex",
    "Lugia VSTAR",
    "Archeops",
    "Miraidon ex",
    "Raging Bolt ex",
    "Ogerpon ex",
    "Dreepy",
    "Drakloak",
    "Rare Candy",
    "Boss's Orders",
    "Iono",
    "Arven",
    "Ultra Ball",
    "Counter Catcher",
    "Prime Catcher",
)
NAMES: Final = (
    "Mara",
    "Teodor",
    "Ashley-B",
    "Kai",
    "Yuki",
    "Zoë",
    "Łucja",
    "Ngozi",
    "Søren",
    "Ana Lucía",
    "Pham Minh",
    "O'Brien",
    "Renée",
    "Jürgen",
    "Ines",
    "Tomás",
)


@dataclass(slots=True)
class Game:
    """A game at the sheet's level: the marks, and what the rules make of them."""

    marks: Marks
    winner: str | None  # "A", "B", "draw", None (unfinished)
    reason: str | None
    taken: dict[str, int]
    knockouts: int
    turns: int


def _other(s: str) -> str:
    return "B" if s == "A" else "A"


def random_game(rng: random.Random, ruleset: str = "play-2026") -> Game:
    """A plausible game by the rules, and the marks a spotter makes for it."""
    rules = load_ruleset(ruleset)
    extra_turns = rules.time_procedure(None).extra_turns
    marks: dict[str, set[str]] = {}

    def mark(key: str, value: str) -> None:
        marks.setdefault(key, set()).add(value)

    first = rng.choice(SIDES)
    for s in SIDES:
        if rng.random() < 0.15:
            mark(f"mull.{s}", str(rng.choice((1, 1, 1, 2, 2, 3, 4))))
    prizes_left = dict.fromkeys(SIDES, rules.prizes)
    taken = dict.fromkeys(SIDES, 0)
    needed = dict.fromkeys(SIDES, rules.prizes)
    bench = {s: rng.randint(0, 3) for s in SIDES}
    time_at = rng.randint(8, 20) if rng.random() < 0.12 else None
    if rules.time_procedure(None).turns != "count":
        # the generator plays Play! Pokémon's count of turns only; Japan's 終了コール (the second player
        # finishes the round, the prize lead, the extension) is not played on generated sheets, which then
        # call no time (the draw above is kept so every other game stays the same)
        time_at = None
    style = rng.random()  # how aggressive the decks are
    ko_rate = 0.3 + 0.3 * style
    winner: str | None = None
    reason: str | None = None
    knockouts = 0
    row = 0
    for row in range(1, ROWS + 1):
        p = first if row % 2 == 1 else _other(first)
        o = _other(p)
        mark(f"r{row}.who", p)
        if row >= 14 and rng.random() < 0.02:
            winner, reason = o, "deck_out"  # the turn starts with an empty deck [docs/rules.md §1.3]
            break
        # the turn player benches Pokémon (at most 5 on the Bench)
        bench[p] = min(5, bench[p] + rng.choice((0, 0, 1, 1, 2)))
        # knockouts: one batch [docs/rules.md §3]
        kos: dict[str, list[str]] = {s: [] for s in SIDES}
        value = {s: 0 for s in SIDES}  # prizes each side's knocked-out Pokémon are worth
        if row >= 2 and rng.random() < ko_rate:
            kos[o].append("active")
            value[o] += rng.choices((1, 2, 3), (0.55, 0.38, 0.07))[0]
            if bench[o] and rng.random() < 0.12:
                kos[o].append(f"bench{rng.randint(1, bench[o])}")
                value[o] += rng.choices((1, 2), (0.7, 0.3))[0]
            if rng.random() < 0.05:
                kos[p].append("active")  # recoil, or a Pokémon Checkup
                value[p] += rng.choices((1, 2), (0.6, 0.4))[0]
        elif row >= 3 and bench[o] and rng.random() < 0.05:
            kos[o].append(f"bench{rng.randint(1, bench[o])}")  # an attack on the Bench
            value[o] += 1
        for s in SIDES:
            for slot in kos[s]:
                mark(f"r{row}.ko.{s}", slot)
                knockouts += 1
                if slot != "active":
                    bench[s] -= 1
            got = min(value[s], prizes_left[_other(s)])  # never more than remain [docs/rules.md §3]
            if got:
                mark(f"r{row}.prizes.{_other(s)}", str(got))
                prizes_left[_other(s)] -= got
                taken[_other(s)] += got
        if any(kos.values()):
            # the judgment [docs/rules.md §4]: each side's conditions, the higher count wins
            cannot = {s: "active" in kos[s] and bench[s] == 0 for s in SIDES}
            met = {s: int(taken[s] >= needed[s]) + int(cannot[_other(s)]) for s in SIDES}
            if met["A"] or met["B"]:
                if met["A"] == met["B"]:
                    winner = "draw"
                    reason = (
                        "prizes" if taken["A"] >= needed["A"] or taken["B"] >= needed["B"] else "no_pokemon"
                    )
                else:
                    winner = "A" if met["A"] > met["B"] else "B"
                    reason = "prizes" if taken[winner] >= needed[winner] else "no_pokemon"
                break
            for s in SIDES:
                if "active" in kos[s]:
                    bench[s] -= 1  # promoted
        if time_at == row:
            mark(f"r{row}.time", "called")
        if rng.random() < 0.02:
            mark(f"r{row}.pen.side", rng.choice(SIDES))
            mark(f"r{row}.pen.kind", "warning")
        elif rng.random() < 0.006:
            offender = rng.choice(SIDES)
            mark(f"r{row}.pen.side", offender)
            mark(f"r{row}.pen.kind", "game_loss")
            winner, reason = _other(offender), "penalty"
            break
        elif rng.random() < 0.006:
            offender = rng.choice(SIDES)
            mark(f"r{row}.pen.side", offender)
            mark(f"r{row}.pen.kind", "double_prize")
            beneficiary = _other(offender)
            needed[beneficiary] = max(0, needed[beneficiary] - rules.double_prize)
            if taken[beneficiary] >= needed[beneficiary]:
                winner, reason = beneficiary, "penalty"
                break
        if row >= 6 and rng.random() < 0.025:
            # the player behind concedes (or either, when level)
            loser = min(SIDES, key=lambda s: (taken[s], rng.random()))
            winner, reason = _other(loser), "concession"
            break
        # time: "turn 0" (the turn time is called in) and then the extra turns [TTH §7.4.3]; in Swiss, a
        # game still going when they are over is a tie
        if time_at is not None and row == time_at + extra_turns:
            winner, reason = "draw", "time"
            break
    if winner is not None and reason is not None:
        mark("end.reason", reason)
        mark("end.winner", winner)
    return Game({k: frozenset(v) for k, v in marks.items()}, winner, reason, taken, knockouts, row)


# ---------------------------------------------------------------------------------- filling a sheet
@dataclass(slots=True)
class Filled:
    """A filled sheet's image (its B, G, R channels), and the boxes marked and then scribbled out."""

    channels: list[Image]
    scribbled: set[tuple[str, str]] = field(default_factory=set)
    pen: str = "black"


class _Canvas:
    """Frame millimetres -> pixels of a page (grey) rasterized at ``dpi`` on ``paper``."""

    def __init__(self, image: Image, dpi: float, paper: str) -> None:
        self.img = image
        self.k = dpi / 25.4
        self.ox, self.oy = frame_origin(paper)
        self.ink = np.zeros(image.shape[:2], np.float32)  # pen coverage, 0..1
        self.hand = np.zeros(image.shape[:2], np.uint8)  # handwriting (OpenCV writes text on 8 bits only)

    def px(self, x: float, y: float) -> tuple[float, float]:
        return (self.ox + x) * self.k, (self.oy + y) * self.k

    def stroke(self, pts: list[tuple[float, float]], width_mm: float, pressure: float) -> None:
        arr = np.array([self.px(x, y) for x, y in pts], np.float64)
        shift = 4  # sub-pixel coordinates
        poly = np.round(arr * (1 << shift)).astype(np.int32).reshape(-1, 1, 2)
        cv2.polylines(self.ink, [poly], False, pressure, max(1, round(width_mm * self.k)), cv2.LINE_AA, shift)

    def blob(self, pts: list[tuple[float, float]], pressure: float) -> None:
        arr = np.array([self.px(x, y) for x, y in pts], np.float64)
        poly = np.round(arr * 16).astype(np.int32).reshape(-1, 1, 2)
        cv2.fillPoly(self.ink, [poly], pressure, cv2.LINE_AA, 4)

    def write(self, text: str, r: Rect, rng: random.Random) -> None:
        """Handwriting-like text (OpenCV's Hershey script font) inside ``r``."""
        scale = r.h * self.k / 48
        x, y = self.px(r.x + 1.5 + rng.uniform(0, 2), r.y + r.h * 0.75 + rng.uniform(-0.3, 0.3))
        font = cv2.FONT_HERSHEY_SCRIPT_SIMPLEX
        (tw, _), _ = cv2.getTextSize(text, font, scale, 1)
        room = (r.w - 3) * self.k
        if tw > room:
            scale *= room / tw
        cv2.putText(
            self.hand, text, (round(x), round(y)), font, scale, 230, max(1, round(0.3 * self.k)), cv2.LINE_AA
        )

    def apply(self, colour: tuple[int, int, int]) -> Image:
        """The ink on the paper: each channel darkened towards the pen's colour (ink absorbs light)."""
        return cv2.merge(self.channels(colour))

    def channels(self, colour: tuple[int, int, int]) -> list[Image]:
        """:meth:`apply`, as the three channels (B, G, R)."""
        ink = cv2.max(cv2.convertScaleAbs(self.ink, alpha=255.0), self.hand)
        absorbed = [cv2.multiply(self.img, ink, scale=(1.0 - c / 255.0) / 255.0) for c in colour]
        return [cv2.subtract(self.img, a) for a in absorbed]


def _jitter(rng: random.Random, s: float) -> float:
    return rng.uniform(-s, s)


def _draw_mark(c: _Canvas, b: Rect, kind: str, rng: random.Random, width: float, pressure: float) -> None:
    x, y, w, h = b.x, b.y, b.w, b.h
    over = rng.choice((0.0, 0.0, 0.4, 0.9, 1.6))  # how far strokes run past the box (mm)
    j = 0.25
    if kind == "tick":
        size = rng.uniform(0.85, 1.25)
        p0 = (x + w * 0.15 + _jitter(rng, j), y + h * 0.55 + _jitter(rng, j))
        p1 = (x + w * 0.42 + _jitter(rng, j), y + h * (0.55 + 0.35 * size) + _jitter(rng, j))
        p2 = (x + w * (0.42 + 0.6 * size) + over * 0.7, y + h * 0.05 - over + _jitter(rng, j))
        c.stroke([p0, p1, p2], width, pressure)
    elif kind == "cross":
        e = rng.uniform(0.05, 0.2)
        a0 = (x + w * e - over * 0.5 + _jitter(rng, j), y + h * e - over * 0.5 + _jitter(rng, j))
        a1 = (x + w * (1 - e) + over * 0.5 + _jitter(rng, j), y + h * (1 - e) + over * 0.5 + _jitter(rng, j))
        b0 = (x + w * (1 - e) + _jitter(rng, j), y + h * e + _jitter(rng, j))
        b1 = (x + w * e + _jitter(rng, j), y + h * (1 - e) + _jitter(rng, j))
        c.stroke([a0, a1], width, pressure)
        c.stroke([b0, b1], width, pressure)
    elif kind == "slash":
        c.stroke(
            [
                (x + w * 0.15 + _jitter(rng, j), y + h * 0.9 + over * 0.5),
                (x + w * 0.9 + over * 0.5, y + h * 0.1),
            ],
            width * 1.2,
            pressure,
        )
    elif kind == "fill":
        m = rng.uniform(-0.1, 0.25)
        corners = [(x + m, y + m), (x + w - m, y + m), (x + w - m, y + h - m), (x + m, y + h - m)]
        c.blob([(cx + _jitter(rng, j), cy + _jitter(rng, j)) for cx, cy in corners], pressure)
    else:  # partial: a scribble over part of the box
        cover = rng.uniform(0.45, 0.8)
        n = rng.randint(3, 5)
        pts = []
        for i in range(n + 1):
            yy = y + h * (1 - cover) + h * cover * i / n + _jitter(rng, 0.15)
            pts.append((x + w * 0.12 + _jitter(rng, 0.2), yy))
            pts.append((x + w * 0.88 + _jitter(rng, 0.2) + over * 0.3, yy + h * 0.08))
        c.stroke(pts, width * 1.1, pressure)


def _scribble_out(c: _Canvas, b: Rect, rng: random.Random, width: float, pressure: float) -> None:
    """The sheet's rule for cancelling a mark: scribbled out past the box's edges."""
    spill = rng.uniform(0.9, 1.5)
    pts = []
    n = rng.randint(7, 10)
    for i in range(n + 1):
        yy = b.y - spill + (b.h + 2 * spill) * i / n
        pts.append((b.x - spill * 0.6 + _jitter(rng, 0.2), yy))
        pts.append((b.x + b.w + spill * 0.6 + _jitter(rng, 0.2), yy + 0.3))
    c.stroke(pts, max(width, 0.55) * 1.3, min(1.0, pressure + 0.1))


def fill(
    page: Image, dpi: float, paper: str, marks: Marks, rng: random.Random, *, scribbles: float = 0.02
) -> Filled:
    """``page`` (the blank sheet, grey, at ``dpi``) with ``marks`` made by hand; ``scribbles``: the share of
    marks first made in a wrong box, scribbled out, then made in the right one."""
    c = _Canvas(page, dpi, paper)
    pen = rng.choice(tuple(PENS))
    width = rng.uniform(0.3, 0.55) if pen != "pencil" else rng.uniform(0.35, 0.6)
    base_pressure = rng.uniform(0.75, 1.0) if pen != "pencil" else rng.uniform(0.55, 0.8)
    habit = rng.choice(MARK_KINDS)  # most people mark the same way throughout
    scribbled: set[tuple[str, str]] = set()
    for key, values in sorted(marks.items()):
        g = LAYOUT.group(key)
        for v in sorted(values):
            b = g.boxes[g.choices.index(v)]
            kind = habit if rng.random() < 0.8 else rng.choice(MARK_KINDS)
            pressure = min(1.0, base_pressure * rng.uniform(0.85, 1.1))
            if rng.random() < scribbles and len(g.choices) > 1:
                wrong = [u for u in g.choices if u not in values]
                if wrong:
                    u = rng.choice(wrong)
                    wb = g.boxes[g.choices.index(u)]
                    _draw_mark(c, wb, kind, rng, width, pressure)
                    _scribble_out(c, wb, rng, width, pressure)
                    scribbled.add((key, u))
            _draw_mark(c, b, kind, rng, width, pressure)
    # handwriting: the starting Pokémon, notes in some rows, and in the notes box
    for side in SIDES:
        c.write(", ".join(rng.sample(CARDS, 2)), LAYOUT.free_text[f"start.{side}"], rng)
    for row in range(1, ROWS + 1):
        if f"r{row}.who" in marks and rng.random() < 0.25:
            c.write(rng.choice(CARDS), LAYOUT.free_text[f"r{row}.notes"], rng)
    if rng.random() < 0.5:
        c.write("judge: time ok  " + rng.choice(("MK", "TV", "AB")), LAYOUT.free_text["notes"], rng)
    return Filled(c.channels(PENS[pen]), scribbled, pen)


# ---------------------------------------------------------------------------------- the photo
@dataclass(frozen=True, slots=True)
class PhotoSpec:
    """How a photo was taken (for the bench's report and a failing test's message)."""

    rotation: float
    perspective: float
    blur: float
    noise: float
    quality: int
    shadow: float
    light: float


def _smooth_field(
    shape: tuple[int, int], rng: np.random.Generator, cells: int = 4
) -> npt.NDArray[np.float32]:
    """A smooth random field in -1..1 (bicubic up-sampling of a few random values)."""
    small = rng.uniform(-1, 1, (cells, cells)).astype(np.float32)
    return np.asarray(cv2.resize(small, (shape[1], shape[0]), interpolation=cv2.INTER_CUBIC), np.float32)


CAMERA: Final = 3000  # the photo's longer side, pixels (a phone photo, cropped to the table around the sheet)
_NOISE_SIGMA: Final = 8.0
_NOISE: list[Image] = []


def _noise(h: int, w: int, rng: random.Random) -> Image:
    """Sensor noise of :data:`_NOISE_SIGMA` grey levels: a window, at a random offset, of one field."""
    if not _NOISE:
        normal = np.random.default_rng(23).normal(0.0, _NOISE_SIGMA, (CAMERA + 256, CAMERA + 256))
        _NOISE.append(normal.astype(np.int16))
    y, x = rng.randrange(256), rng.randrange(256)
    return _NOISE[0][y : y + h, x : x + w]


def _light(
    shape: tuple[int, int], rng: random.Random, nrng: np.random.Generator, hard: bool
) -> tuple[npt.NDArray[np.float32], float]:
    """Uneven light over the sheet (a gradient and a smooth field) and a soft shadow cast from one side (a
    hand, a phone, the spotter's head): a gain per pixel, made coarse (1/8) and up-sampled."""
    small = (max(2, shape[0] // 8), max(2, shape[1] // 8))
    gain = 1.0 + (0.28 if hard else rng.uniform(0.08, 0.28)) * _smooth_field(small, nrng, 3)
    ramp = np.linspace(0, 1, small[0], dtype=np.float32)[:, None]
    gain *= 1.0 - (0.25 if hard else rng.uniform(0.0, 0.25)) * ramp * rng.choice((1.0, -0.6))
    shadow = 0.0
    if hard or rng.random() < 0.7:
        shadow = 0.55 if hard else rng.uniform(0.2, 0.55)
        hh, ww = small
        depth = rng.uniform(0.2, 0.5)
        a, b, c = rng.uniform(0, 0.4), rng.uniform(0.2, 0.5), rng.uniform(0.6, 1.0)
        bend = rng.uniform(0.6, 1.2)
        poly = {
            "left": [(0, a * hh), (depth * ww, b * hh), (depth * bend * ww, c * hh), (0, hh)],
            "right": [(ww, a * hh), ((1 - depth) * ww, b * hh), ((1 - depth * bend) * ww, c * hh), (ww, hh)],
            "top": [(a * ww, 0), (b * ww, depth * hh), (c * ww, depth * bend * hh), (ww, 0)],
            "bottom": [(a * ww, hh), (b * ww, (1 - depth) * hh), (c * ww, (1 - depth * bend) * hh), (ww, hh)],
        }[rng.choice(("left", "right", "top", "bottom"))]
        mask = np.zeros(small, np.float32)
        cv2.fillPoly(mask, [np.array(poly, np.int32)], 1.0)
        gain *= 1.0 - shadow * cv2.GaussianBlur(mask, (0, 0), rng.uniform(1.0, 6.0))
    full = cv2.resize(gain, (shape[1], shape[0]), interpolation=cv2.INTER_LINEAR)
    return np.asarray(full, np.float32), shadow


def photograph(
    sheet: Image | list[Image], rng: random.Random, *, hard: bool = False
) -> tuple[bytes, PhotoSpec]:
    """A phone photo of ``sheet`` (BGR, or its three channels) lying on a table, as JPEG bytes. ``hard``:
    every distortion at its worst (15° rotation, strong perspective, a dark shadow, blur, noise, JPEG
    quality 40).

    The light, the blur and the noise are applied on the sheet (one channel at a time: cheap), then the
    sheet is put in perspective on the table (one remap): the order a camera sees it in, near enough.
    """
    nrng = np.random.default_rng(rng.getrandbits(32))
    planes = list(cv2.split(sheet)) if isinstance(sheet, np.ndarray) else list(sheet)
    h, w = planes[0].shape[:2]
    margin = rng.uniform(0.06, 0.14)
    zoom = min(1.0, CAMERA / (max(h, w) * (1 + 2 * margin)))
    if zoom < 0.9:
        # the camera's pixels are fewer than the print's: the sheet is reduced first (as a lens would)
        sw, sh = round(w * zoom * 1.1), round(h * zoom * 1.1)
        planes = [cv2.resize(p, (sw, sh), interpolation=cv2.INTER_AREA) for p in planes]
    sh_, sw_ = planes[0].shape[:2]
    gain, shadow = _light((sh_, sw_), rng, nrng, hard)
    # the camera's exposure: the sheet's paper comes out at about 200 of 255 (a shadow stays darker)
    gain *= rng.uniform(0.75, 0.85) / max(0.2, float(np.percentile(gain, 60)))
    cast = (rng.uniform(0.85, 1.0), rng.uniform(0.93, 1.0), rng.uniform(0.95, 1.05))
    blur = 1.6 if hard else rng.uniform(0.3, 1.6)
    noise = 7.0 if hard else rng.uniform(2.0, 7.0)
    lit = []
    for plane, k in zip(planes, cast, strict=True):
        p = cv2.GaussianBlur(cv2.multiply(plane, gain, scale=k, dtype=cv2.CV_8U), (0, 0), blur)
        lit.append(cv2.addWeighted(p, 1.0, _noise(sh_, sw_, rng), noise / _NOISE_SIGMA, 0.0, dtype=cv2.CV_8U))
    W, H = round(w * (1 + 2 * margin) * zoom), round(h * (1 + 2 * margin) * zoom)
    # where the page's corners land: rotated, in perspective (each corner moved up to ±persp of the size)
    rot = math.radians(rng.choice((-15.0, 15.0)) if hard else rng.uniform(-15, 15))
    persp = 0.07 if hard else rng.uniform(0.0, 0.07)
    cx, cy = W / 2, H / 2
    fit = zoom / (abs(math.cos(rot)) + abs(math.sin(rot)) * max(w / h, h / w)) ** 0.55
    src = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32)
    dst = []
    for x, y in src:
        dx, dy = (x - w / 2) * fit, (y - h / 2) * fit
        rx = cx + dx * math.cos(rot) - dy * math.sin(rot) + rng.uniform(-persp, persp) * w * zoom
        ry = cy + dx * math.sin(rot) + dy * math.cos(rot) + rng.uniform(-persp, persp) * h * zoom
        dst.append((rx, ry))
    m = cv2.getPerspectiveTransform(src, np.array(dst, np.float32))
    # the inverse map, with a little paper curl (up to ~0.6 mm), computed coarse and up-sampled
    step = 16
    gy, gx = np.mgrid[0:H:step, 0:W:step].astype(np.float32)
    pts = np.stack([gx.ravel(), gy.ravel()], 1).reshape(-1, 1, 2)
    back = cv2.perspectiveTransform(pts, np.linalg.inv(m)).reshape((*gx.shape, 2))
    curl = w / 210 * 0.6  # sheet pixels in 0.6 mm
    cshape = (gx.shape[0], gx.shape[1])
    back[..., 0] += curl * _smooth_field(cshape, nrng, 3)
    back[..., 1] += curl * _smooth_field(cshape, nrng, 3)
    back[..., 0] *= sw_ / w
    back[..., 1] *= sh_ / h
    # (fixed-point maps: a faster remap; the stubs do not know that the second map may be None)
    maps = cv2.resize(back, (W, H), interpolation=cv2.INTER_LINEAR)
    fixed, frac = cv2.convertMaps(maps, None, cv2.CV_16SC2)  # type: ignore[call-overload]
    photo = np.empty((H, W, 3), np.uint8)
    photo[:] = (rng.randint(40, 110), rng.randint(70, 140), rng.randint(100, 180))  # the table
    cv2.remap(cv2.merge(lit), fixed, frac, cv2.INTER_LINEAR, dst=photo, borderMode=cv2.BORDER_TRANSPARENT)
    quality = 40 if hard else rng.choice((40, 50, 60, 70, 80, 90))
    ok, buf = cv2.imencode(".jpg", photo, [cv2.IMWRITE_JPEG_QUALITY, quality])
    assert ok
    return bytes(buf.tobytes()), PhotoSpec(
        math.degrees(rot), persp, blur, noise, quality, shadow, float(gain.min())
    )


#: How several sheets lie on the table in one photo (:func:`photograph_together`).
ARRANGEMENTS: Final = ("apart", "touching", "turned", "stacked", "overlap")


@dataclass(frozen=True, slots=True)
class Placed:
    """Where one sheet of :func:`photograph_together` landed: its page's four corners in the photo (px,
    clockwise from its own top left), and whether another sheet lies over part of its frame."""

    corners: tuple[tuple[float, float], ...]
    covered: bool


def photograph_together(
    sheets: list[Image | list[Image]], rng: random.Random, *, arrangement: str = "apart", paper: str = "a4"
) -> tuple[bytes, list[Placed]]:
    """One phone photo of several filled sheets (each BGR, or its three channels, of a ``paper`` page)
    lying on one table, as JPEG bytes, and where each landed. Each sheet has its own tilt (±12°), its own
    perspective and its own distance (±8 %); the light, the blur, the noise and the JPEG are the photo's.

    ``arrangement`` (:data:`ARRANGEMENTS`): ``apart`` side by side with a gap; ``touching`` side by side,
    the papers' margins overlapping (never a frame: both are whole); ``turned`` side by side, the second
    upside down (a spotter's sheet facing the other way); ``stacked`` one above the other; ``overlap`` the
    second lying over the first's top right corner (its corner marker and some of its boxes hidden).
    Later sheets lie over earlier ones."""
    if arrangement not in ARRANGEMENTS:
        raise ValueError(f"arrangement: one of {', '.join(ARRANGEMENTS)}")
    nrng = np.random.default_rng(rng.getrandbits(32))
    pw, ph = PAPERS[paper]
    fx, _ = frame_origin(paper)
    pxmm = rng.uniform(5.6, 7.0)  # the photo's pixels per mm of paper
    fy = frame_origin(paper)[1]
    page_mm = np.array([[0, 0], [pw, 0], [pw, ph], [0, ph]], np.float32)
    frame_mm = np.array([[[fx, fy]], [[pw - fx, fy]], [[pw - fx, ph - fy]], [[fx, ph - fy]]], np.float32)

    def lay(x: float, y: float, deg: float, k: float, jitter: list[float]) -> npt.NDArray[np.float32]:
        """The page's corners on the table (mm): centred at (x, y), turned ``deg``, scaled ``k``."""
        rot = math.radians(deg)
        pts = []
        for (cx, cy), (jx, jy) in zip(
            page_mm.tolist(), zip(jitter[::2], jitter[1::2], strict=True), strict=True
        ):
            dx, dy = (cx - pw / 2) * k, (cy - ph / 2) * k
            pts.append(
                (
                    x + dx * math.cos(rot) - dy * math.sin(rot) + jx * pw,
                    y + dx * math.sin(rot) + dy * math.cos(rot) + jy * ph,
                )
            )
        return np.array(pts, np.float32)

    def frame_of(quad: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
        to = cv2.getPerspectiveTransform(page_mm, quad)
        return np.asarray(cv2.perspectiveTransform(frame_mm, to).reshape(4, 2), np.float32)

    def clashes(quad: npt.NDArray[np.float32], before: list[npt.NDArray[np.float32]]) -> bool:
        """Does this page cover another's frame, or another page this one's frame?"""
        return any(
            cv2.intersectConvexConvex(frame_of(q), quad)[0] > 0.0
            or cv2.intersectConvexConvex(frame_of(quad), q)[0] > 0.0
            for q in before
        )

    top_corner = rng.random() < 0.5  # overlap: over the first's top right corner, else its bottom right
    quads: list[npt.NDArray[np.float32]] = []
    for n in range(len(sheets)):
        k = rng.uniform(0.92, 1.08)  # nearer or farther
        jitter = [rng.uniform(-0.02, 0.02) for _ in range(8)]  # perspective
        tilt = rng.uniform(-12, 12)
        if arrangement == "overlap" and n:
            # ~10-25 mm into the first's frame, a third of a page higher or lower
            into = rng.uniform(10, 25)
            up = rng.uniform(0.3, 0.45) * (-1 if top_corner else 1)
            quads.append(lay(n * (pw - fx - into) + pw / 2, up * ph + ph / 2, rng.uniform(-6, 6), k, jitter))
            continue
        if arrangement == "stacked":
            x, y, step = pw / 2 + rng.uniform(-10, 10), ph / 2 + n * (ph + rng.uniform(5, 30)), (0.0, 2.0)
        else:
            if arrangement == "touching":
                gap = -rng.uniform(0.0, 0.8 * fx)  # the papers overlap, within the margins
                tilt, jitter = rng.uniform(-1.0, 1.0), [j / 4 for j in jitter]  # edge to edge, parallel
            else:
                gap = rng.uniform(8, 40)
            x, y, step = pw / 2 + n * (pw + gap), ph / 2 + rng.uniform(-10, 10), (1.0, 0.0)
        turn = 180.0 if arrangement == "turned" and n % 2 else 0.0
        quad = lay(x, y, tilt + turn, k, jitter)
        # no frame covered unless asked: moved away, 1 mm at a time, until it is clear
        while clashes(quad, quads):
            x, y = x + step[0], y + step[1]
            quad = lay(x, y, tilt + turn, k, jitter)
        quads.append(quad)
    allpts = np.concatenate(quads)
    margin = rng.uniform(12, 30)
    lo = allpts.min(axis=0) - margin
    W, H = (np.ceil((allpts.max(axis=0) + margin - lo) * pxmm)).astype(int)
    photo = np.empty((H, W, 3), np.uint8)
    photo[:] = (rng.randint(40, 110), rng.randint(70, 140), rng.randint(100, 180))  # the table
    placed: list[npt.NDArray[np.float32]] = []
    for sheet, quad in zip(sheets, quads, strict=True):
        img = cv2.merge(sheet) if isinstance(sheet, list) else sheet
        h, w = img.shape[:2]
        # reduced first to about the photo's scale (a lens averages, a warp alone would alias)
        f = min(1.0, 1.15 * pxmm * pw / w)
        if f < 1.0:
            img = cv2.resize(img, (round(w * f), round(h * f)), interpolation=cv2.INTER_AREA)
            h, w = img.shape[:2]
        dst = (quad - lo) * pxmm
        src = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32)
        m = cv2.getPerspectiveTransform(src, dst.astype(np.float32))
        cv2.warpPerspective(
            img, m, (int(W), int(H)), dst=photo, flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_TRANSPARENT
        )
        placed.append(dst.astype(np.float32))
    # the light over the whole photo (a smooth field, a ramp), the camera's blur, noise and JPEG
    small = (max(2, int(H) // 8), max(2, int(W) // 8))
    gain = 0.8 + 0.12 * _smooth_field(small, nrng, 3)
    ramp = np.linspace(0, 1, small[1], dtype=np.float32)[None, :]
    gain *= 1.0 - rng.uniform(0.0, 0.2) * ramp
    full = cv2.resize(gain, (int(W), int(H)), interpolation=cv2.INTER_LINEAR)
    lit = [
        cv2.GaussianBlur(cv2.multiply(p, full, dtype=cv2.CV_8U), (0, 0), rng.uniform(0.4, 1.2))
        for p in cv2.split(photo)
    ]
    noise = rng.uniform(2.0, 5.0)
    lit = [
        cv2.addWeighted(
            p, 1.0, np.asarray(nrng.normal(0, noise, p.shape), np.int16), 1.0, 0.0, dtype=cv2.CV_8U
        )
        for p in lit
    ]
    ok, buf = cv2.imencode(".jpg", cv2.merge(lit), [cv2.IMWRITE_JPEG_QUALITY, rng.choice((60, 70, 80, 90))])
    assert ok
    # which frames another sheet's page covers (the later sheets lie on top)
    out = []
    for n, dst in enumerate(placed):
        covered = any(cv2.intersectConvexConvex(frame_of(quads[n]), q)[0] > 0.0 for q in quads[n + 1 :])
        out.append(Placed(tuple((float(x), float(y)) for x, y in dst), covered))
    return bytes(buf.tobytes()), out


# ---------------------------------------------------------------------------------- a generated set
@dataclass(slots=True)
class Sample:
    """One generated sheet: its header, the game it records, the photo, and how it was made."""

    header: Header
    game: Game
    photo: bytes
    dpi: int
    paper: str
    spec: PhotoSpec
    scribbled: set[tuple[str, str]]
    pen: str


def headers(n: int, seed: int, prefix: str = "gen") -> list[Header]:
    """``n`` sheet headers, as ``sheet print --count`` numbers a batch (players drawn from a list)."""
    rng = random.Random(seed)
    out = []
    for i in range(1, n + 1):
        a, b = rng.sample(NAMES, 2)
        out.append(
            Header(
                match=f"{prefix}-{seed}.{i}",
                players=(a, b),
                ruleset=rng.choice(("play-2026", "play-2026", "jp-3.4", "kr-1.0")),
                sheet=i,
                count=n,
                context={"event": "League", "round": rng.randint(1, 6), "table": i},
            )
        )
    return out


def samples(
    n: int, seed: int, *, printed: int = 8, hard_every: int = 5, scribbles: float = 0.02
) -> Iterator[Sample]:
    """``n`` generated sheets: ``printed`` distinct sheets printed per paper (A4 and Letter), each filled
    and photographed several times; every ``hard_every``-th photo has every distortion at its worst."""
    rng = random.Random(seed)
    hdrs = headers(printed * 2, seed)
    docs = {
        paper: pdfium.PdfDocument(sheets_pdf(hdrs[i * printed : (i + 1) * printed], paper))
        for i, paper in enumerate(PAPERS)
    }
    rasters: dict[tuple[str, int, int], Image] = {}
    for k in range(n):
        paper = tuple(PAPERS)[k % 2]
        index = rng.randrange(printed)
        header = hdrs[(k % 2) * printed + index]
        dpi = rng.choice((150, 175, 200, 225, 250, 300))
        key = (paper, index, dpi)
        if key not in rasters:
            gray = docs[paper][index].render(scale=dpi / 72, grayscale=True).to_numpy()
            rasters[key] = np.ascontiguousarray(gray[:, :, 0] if gray.ndim == 3 else gray)
        game = random_game(rng, header.ruleset)
        filled = fill(rasters[key], dpi, paper, game.marks, rng, scribbles=scribbles)
        photo, spec = photograph(
            filled.channels, rng, hard=hard_every > 0 and k % hard_every == hard_every - 1
        )
        yield Sample(header, game, photo, dpi, paper, spec, filled.scribbled, filled.pen)


assert all(len(PAPERS[p]) == 2 for p in PAPERS)


# ---------------------------------------------------------------------------------- checking a read
@dataclass(slots=True)
class Score:
    """How one read sheet compares with the truth it was made from."""

    marks: int = 0  # boxes marked (not scribbled out)
    marks_exact: int = 0
    boxes: int = 0  # every box, marked or empty (scribbled-out ones apart)
    boxes_exact: int = 0
    misread: list[str] = field(default_factory=list)  # boxes read wrong ("r7.prizes.A=2: marked, read empty")
    silent: list[str] = field(default_factory=list)  # ... whose row has no low_confidence finding
    scribbled: int = 0
    scribbled_flagged: int = 0
    flagged_regions: int = 0
    record_equal: bool = False
    truth_record: dict[str, Any] = field(default_factory=dict)
    record: dict[str, Any] = field(default_factory=dict)


def truth_events(sample: Sample) -> list[dict[str, Any]]:
    """The events of the game the sample was filled from (its marks, every one clear)."""
    from replay.sources.scan.marks import clear_reads, sheet_document
    from replay.sources.sheet import parse_sheet

    doc = sheet_document(sample.header, clear_reads(sample.game.marks))
    import json

    return parse_sheet(json.dumps(doc.doc), match=sample.header.match, cards=doc.cards).events


def score(sample: Sample, scan: Any) -> Score:
    """Compare a :class:`~replay.sources.scan.photo.SheetScan` of ``sample`` with its truth: each box,
    whether every misread box is in a region with a ``low_confidence`` finding, and the records."""
    from replay.engine import Game
    from replay.sources.scan.photo import strip_scan

    out = Score()
    assert scan.read is not None
    flagged = {
        f"{ev['finding'].get('sheet_region')}"
        for ev in scan.result.events
        if ev.get("type") == "note"
        and isinstance(ev.get("finding"), dict)
        and ev["finding"].get("code") == "low_confidence"
    }
    out.flagged_regions = len(flagged)
    for g in LAYOUT.groups:
        truth = sample.game.marks.get(g.key, frozenset())
        read = scan.read.reads[g.key]
        region = f"r{g.row}" if g.row is not None else ("head" if g.key.startswith("mull") else "end")
        for v in g.choices:
            if (g.key, v) in sample.scribbled:
                out.scribbled += 1
                out.scribbled_flagged += region in flagged
                continue
            t, r = v in truth, v in read.chosen
            out.boxes += 1
            out.boxes_exact += t == r
            if t:
                out.marks += 1
                out.marks_exact += r
            if t != r:
                what = f"{g.key}={v}: {'marked' if t else 'empty'}, read {'marked' if r else 'empty'}"
                out.misread.append(what)
                if region not in flagged:
                    out.silent.append(what)
    expected = truth_events(sample)

    def record(events: list[dict[str, Any]]) -> dict[str, Any]:
        game = Game()
        for ev in events:
            game.apply(ev)
        return game.record()

    out.truth_record = record(strip_scan(expected))
    out.record = record(strip_scan(scan.result.events))
    out.record_equal = out.record == out.truth_record
    return out


# ------------------------------------------------------------------------------------------ hostile files


def png_bomb(width: int, height: int, level: int = 9) -> bytes:
    """A valid 1-bit grey PNG of ``width x height`` black pixels, compressed to almost nothing
    (20,000 x 20,000 is 48 KB): decoded as BGR it takes ``3 x width x height`` bytes."""
    import struct
    import zlib

    row = b"\x00" * (1 + (width + 7) // 8)  # filter byte 0, then the row's bits
    per_block = max(1, (1 << 20) // len(row))
    packer = zlib.compressobj(level)
    parts: list[bytes] = []
    left = height
    while left > 0:
        k = min(per_block, left)
        parts.append(packer.compress(row * k))
        left -= k
    parts.append(packer.flush())

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    ihdr = struct.pack(">IIBBBBB", width, height, 1, 0, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", b"".join(parts)) + chunk(b"IEND", b"")


def jpeg_claiming(width: int, height: int) -> bytes:
    """A JPEG whose frame header declares ``width x height`` (a real one's header, with the size changed):
    what a decoder would allocate before finding the data too short."""
    small = cv2.imencode(".jpg", np.full((8, 8, 3), 200, np.uint8))[1].tobytes()
    at = small.index(b"\xff\xc0")  # baseline SOF0: length (2), precision (1), height (2), width (2)
    return small[: at + 5] + height.to_bytes(2, "big") + width.to_bytes(2, "big") + small[at + 9 :]


def pdf_of_pages(sizes: list[tuple[float, float]]) -> bytes:
    """A PDF of empty pages of these sizes (PDF points; 14,400 is the largest a page may be)."""
    import io

    doc = pdfium.PdfDocument.new()
    try:
        for width, height in sizes:
            doc.new_page(width, height).close()
        out = io.BytesIO()
        doc.save(out)
    finally:
        doc.close()
    return out.getvalue()


def largest_scans() -> dict[str, bytes]:
    """The largest images accepted (blank paper): an 80 MP JPEG, a 48 MP PNG. Read, not refused (they
    are no sheet), and still within the memory budget (bench/scan.py)."""
    paper = np.full((10_000, 8_000, 3), 235, np.uint8)
    jpeg = cv2.imencode(".jpg", paper, [cv2.IMWRITE_JPEG_QUALITY, 80])[1].tobytes()
    png = cv2.imencode(".png", paper[:8_000, :6_000])[1].tobytes()
    return {"largest-80mp.jpg": jpeg, "largest-48mp.png": png}


def hostile_scans() -> dict[str, bytes]:
    """The files issue 32 item 4 names, by file name: each must be refused (exit 2, one line naming it)
    in bounded memory and time, before anything is decoded (tests/scan/test_scan_bounds.py, bench/scan.py)."""
    return {
        "bomb-50000.png": png_bomb(50_000, 50_000, level=1),
        "bomb-20000.png": png_bomb(20_000, 20_000),
        "bomb-65000.jpg": jpeg_claiming(65_000, 65_000),
        "huge-pages.pdf": pdf_of_pages([(14_400.0, 14_400.0)] * 12),
    }
