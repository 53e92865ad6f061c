"""A harder set of sheet photos, made apart from the reader (issue 39 item 5): "phone photos from a hall".

Nothing here imports the reader or its companion generator's drawing and camera
(:mod:`replay.generators.scan`): the marks, the cancellations, the paper and the camera are drawn
by this module's own code, so the reader cannot be tuned to its generator's habits. It uses the sheet's
geometry (:mod:`replay.sources.scan.layout`: where the boxes are), the printer (the real sheet) and
``random_game`` (a game played by the rules: the truth).

Levels (:data:`LEVELS`):

- ``ordinary``: a phone photo in good light: mild tilt, ink or firm pencil, the sheet filling most of
  the frame, a little blur; cancellations in each of the ways the sheet allows (a loop scribble, a
  zigzag, a cross-hatch, all past the box's edges as the sheet's printed rule says).
- ``medium``: faint pencil, motion blur up to 10 px, shadows, a curl and a folded corner, the sheet
  smaller in the frame; one photo in five holds two sheets side by side.
- ``hard``: all of it worse: blur to 16 px, the sheet to 40 % of a 1600 x 1200 frame, dark shadows,
  JPEG quality 35.

:func:`check` reads each photo with :func:`replay.sources.scan.photo.import_scan` (the public entry) and
counts what matters: marks read exactly, and **silent misreads** (a box read wrong in a region that has
no ``low_confidence`` finding; a sheet in the photo that was neither read nor refused).
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, field, replace
from functools import cache
from typing import Any, Final

import cv2
import numpy as np
import pypdfium2 as pdfium

from replay.generators.scan import Game, headers, random_game
from replay.sources.scan.layout import LAYOUT, Header, Rect, frame_origin
from replay.sources.scan.printer import sheets_pdf

#: Pens as (BGR colour at full pressure, pressure range) per level.
INKS: Final = {"black": (30, 30, 30), "blue": (160, 70, 20), "red": (50, 45, 190)}
PENCIL: Final = (90, 90, 90)
CANCELS: Final = ("loop", "zigzag", "hatch")
#: Every way of cancelling the sheet's instructions allow, for the cancellation set (:data:`TRIALS`): a loop
#: scribble, a zigzag (up and down across the box), a cross-hatch, and a hatching of horizontal lines only.
ALL_CANCELS: Final = (*CANCELS, "hatch_h")


@dataclass(frozen=True, slots=True)
class Level:
    name: str
    pencil: float  # share of sheets in pencil
    pencil_pressure: tuple[float, float]
    blur: tuple[float, float]  # motion blur, px of the photo
    fill: tuple[float, float]  # the sheet's height as a share of the photo's
    photo: tuple[int, int]  # the photo's size, landscape (w, h); a single sheet's photo is portrait
    tilt: float  # degrees
    persp: float
    shadow: tuple[float, float]
    curl: float  # mm
    fold: float  # chance of a folded corner
    two: float  # chance of two sheets in the photo
    quality: tuple[int, int]
    cancels: float  # share of marks first made in a wrong box and cancelled
    faint: float = 0.0  # share of marks made in faint pencil on a sheet filled in ink ("beside" dark marks)
    faint_pressure: tuple[float, float] = (0.12, 0.3)
    kinds: tuple[str, ...] = CANCELS  # the cancellations drawn


LEVELS: Final = {
    "ordinary": Level(
        "ordinary", 0.3, (0.6, 0.9), (0.0, 2.0), (0.8, 0.92), (3000, 2250), 8, 0.03, (0.0, 0.3), 0.4, 0.0,
        0.0, (70, 92), 0.04,
    ),
    "medium": Level(
        "medium", 0.5, (0.35, 0.7), (2.0, 10.0), (0.5, 0.8), (2400, 1800), 15, 0.06, (0.2, 0.5), 1.0, 0.3,
        0.2, (50, 85), 0.06,
    ),
    "hard": Level(
        "hard", 0.6, (0.25, 0.55), (6.0, 16.0), (0.4, 0.6), (1600, 1200), 25, 0.08, (0.4, 0.65), 1.5, 0.5,
        0.25, (35, 60), 0.08,
    ),
}  # fmt: skip

#: Sets for one question each, on the ordinary level's camera (not in :data:`LEVELS`: ``make test-long``'s
#: bar is on those): ``beside``, an ink sheet with some of its marks in faint pencil; ``cancel-ink`` and
#: ``cancel-pencil``, many marks made in a wrong box and cancelled, every way the sheet allows.
TRIALS: Final = {
    "beside": replace(LEVELS["ordinary"], name="beside", pencil=0.0, cancels=0.0, faint=0.2),
    "cancel-ink": replace(LEVELS["ordinary"], name="cancel-ink", pencil=0.0, cancels=0.3, kinds=ALL_CANCELS),
    "cancel-pencil": replace(
        LEVELS["ordinary"], name="cancel-pencil", pencil=1.0, cancels=0.3, kinds=ALL_CANCELS
    ),
}


@dataclass(slots=True)
class Truth:
    """One sheet in a photo: its header, the game's marks, the boxes marked and then cancelled."""

    header: Header
    game: Game
    cancelled: set[tuple[str, str]] = field(default_factory=set)
    pen: str = "black"
    cancel_kinds: list[str] = field(default_factory=list)
    kind_of: dict[tuple[str, str], str] = field(default_factory=dict)  # each cancelled box's way
    faint: set[tuple[str, str]] = field(default_factory=set)  # the marks made in faint pencil


@dataclass(slots=True)
class HallPhoto:
    photo: bytes
    sheets: list[Truth]
    level: str
    blur: float
    fill: float


DPI: Final = 150


@cache
def _printed(seed: int) -> tuple[tuple[Header, ...], tuple[Any, ...]]:
    hdrs = tuple(headers(6, seed, prefix="hall"))
    doc = pdfium.PdfDocument(sheets_pdf(list(hdrs), "a4"))
    pages = []
    for i in range(len(hdrs)):
        img = doc[i].render(scale=DPI / 72, grayscale=True).to_numpy()
        pages.append(np.ascontiguousarray(img[:, :, 0] if img.ndim == 3 else img))
    doc.close()
    return hdrs, tuple(pages)


class _Pen:
    """Strokes in frame millimetres onto a coverage map of the page (0..1)."""

    def __init__(self, shape: tuple[int, int]) -> None:
        self.k = DPI / 25.4
        self.ox, self.oy = frame_origin("a4")
        self.cover = np.zeros(shape, np.float32)

    def line(self, pts: list[tuple[float, float]], width: float, pressure: float) -> None:
        arr = np.array([((self.ox + x) * self.k, (self.oy + y) * self.k) for x, y in pts]) * 16
        cv2.polylines(
            self.cover,
            [np.round(arr).astype(np.int32).reshape(-1, 1, 2)],
            False,
            pressure,
            max(1, round(width * self.k)),
            cv2.LINE_AA,
            4,
        )


def _mark(pen: _Pen, b: Rect, rng: random.Random, width: float, pressure: float) -> None:
    kind = rng.choice(("tick", "tick", "cross", "cross", "slash", "fill", "dot"))
    x, y, w, h = b.x, b.y, b.w, b.h

    def j() -> float:
        return rng.uniform(-0.3, 0.3)

    if kind == "tick":
        end = (x + w + rng.uniform(-0.5, 1.2), y - rng.uniform(0, 1.0))
        pen.line([(x + 0.6 + j(), y + 1.8 + j()), (x + 1.4 + j(), y + h - 0.4), end], width, pressure)
    elif kind == "cross":
        pen.line([(x + 0.4 + j(), y + 0.4 + j()), (x + w - 0.4 + j(), y + h - 0.4 + j())], width, pressure)
        pen.line([(x + w - 0.4 + j(), y + 0.4 + j()), (x + 0.4 + j(), y + h - 0.4 + j())], width, pressure)
    elif kind == "slash":
        pen.line([(x + 0.5 + j(), y + h - 0.5 + j()), (x + w - 0.5 + j(), y + 0.5 + j())], width, pressure)
    elif kind == "fill":
        for i in range(7):
            yy = y + 0.4 + i * (h - 0.8) / 6
            pen.line([(x + 0.4, yy), (x + w - 0.4, yy + 0.2)], width * 1.2, pressure)
    else:  # a firm dot, a circle filled, in the middle
        pen.line([(x + w / 2 - 0.5, y + h / 2), (x + w / 2 + 0.5, y + h / 2 + 0.3)], width * 2.2, pressure)


def _sweeping_tick(pen: _Pen, b: Rect, rng: random.Random, width: float, pressure: float) -> None:
    """Another hand (``--hand sweep``): every mark a natural, sweeping tick that starts 0.5 mm left of the
    box, has its vertex 0.6 mm under its bottom edge and its long arm 1.5-3.5 mm past its top right
    corner, often across the paper gap into the row above's next box (issue 39)."""
    x, y, w, h = b.x, b.y, b.w, b.h

    def j() -> float:
        return rng.uniform(-0.3, 0.3)

    end = (x + w + rng.uniform(1.5, 3.5), y - rng.uniform(1.5, 3.5))
    pen.line([(x - 0.5 + j(), y + 1.5 + j()), (x + 1.2 + j(), y + h + 0.6), end], width, pressure)


#: The hands that fill a sheet: hall's own (ticks, crosses, slashes, fills, dots) or every mark a sweeping
#: tick; the same seed gives the same game, photo and camera in either.
HANDS: Final = {"own": _mark, "sweep": _sweeping_tick}


def _cancel(pen: _Pen, b: Rect, kind: str, rng: random.Random, width: float, pressure: float) -> None:
    """A mark cancelled as the sheet says: scribbled out past the box's edges, in one of three ways."""
    x, y, w, h = b.x, b.y, b.w, b.h
    s = rng.uniform(0.5, 1.3)  # how far past the edges
    p = min(1.0, pressure * 1.1)
    if kind == "loop":
        pts = []
        for t in np.linspace(0, 6 * math.pi, 60):
            cx = x + w / 2 + (w / 2 + s) * 0.55 * math.cos(t) + (t / (6 * math.pi) - 0.5) * (w + s)
            cy = y + h / 2 + (h / 2 + s) * math.sin(t)
            pts.append((cx, cy))
        pen.line(pts, width, p)
    elif kind == "zigzag":
        n = rng.randint(5, 8)
        pts = [(x - s * 0.5 + (w + s) * i / n, (y - s) if i % 2 == 0 else (y + h + s)) for i in range(n + 1)]
        pen.line(pts, width, p)
    elif kind == "hatch_h":  # horizontal lines only, each past both side edges, top to bottom
        n = rng.randint(4, 7)
        for i in range(n + 1):
            yy = y - s + (h + 2 * s) * i / n
            pen.line(
                [(x - s, yy + rng.uniform(-0.2, 0.2)), (x + w + s, yy + rng.uniform(-0.2, 0.4))], width, p
            )
    else:  # hatch: lines one way, then across
        n = rng.randint(4, 6)
        for i in range(n + 1):
            yy = y - s + (h + 2 * s) * i / n
            pen.line([(x - s, yy), (x + w + s, yy + 0.3)], width, p)
        for i in range(n + 1):
            xx = x - s + (w + 2 * s) * i / n
            pen.line([(xx, y - s), (xx + 0.3, y + h + s)], width, p)


def _fill_sheet(page: Any, truth: Truth, level: Level, rng: random.Random, hand: str = "own") -> Any:
    """The filled sheet, BGR at :data:`DPI`, its marks drawn by ``hand`` (:data:`HANDS`)."""
    mark = HANDS[hand]
    pen = _Pen(page.shape[:2])
    light = _Pen(page.shape[:2])  # the faint pencil marks beside the ink (level.faint)
    pencil = rng.random() < level.pencil
    truth.pen = "pencil" if pencil else rng.choice(tuple(INKS))
    colour = PENCIL if pencil else INKS[truth.pen]
    base = rng.uniform(*level.pencil_pressure) if pencil else rng.uniform(0.8, 1.0)
    width = rng.uniform(0.25, 0.45) if pencil else rng.uniform(0.3, 0.5)
    for key, values in sorted(truth.game.marks.items()):
        g = LAYOUT.group(key)
        for v in sorted(values):
            pressure = base * rng.uniform(0.85, 1.1)
            if rng.random() < level.cancels and len(g.choices) > 1:
                wrong = [u for u in g.choices if u not in values]
                if wrong:
                    u = rng.choice(wrong)
                    wb = g.boxes[g.choices.index(u)]
                    kind = rng.choice(level.kinds)
                    mark(pen, wb, rng, width, pressure)
                    _cancel(pen, wb, kind, rng, width, pressure)
                    truth.cancelled.add((key, u))
                    truth.cancel_kinds.append(kind)
                    truth.kind_of[(key, u)] = kind
            if level.faint and rng.random() < level.faint:
                truth.faint.add((key, v))
                weak = rng.uniform(*level.faint_pressure)
                mark(light, g.boxes[g.choices.index(v)], rng, rng.uniform(0.25, 0.45), weak)
                continue
            mark(pen, g.boxes[g.choices.index(v)], rng, width, pressure)
    cover = np.clip(pen.cover, 0, 1)
    if pencil:  # graphite: grainy, uneven
        grain = np.random.default_rng(rng.getrandbits(32)).uniform(0.6, 1.0, cover.shape).astype(np.float32)
        cover = cover * grain
    paper = page.astype(np.float32)
    out: list[Any] = [paper * (1 - cover * (1 - c / 255.0)) for c in colour]
    if truth.faint:
        speck = np.random.default_rng(rng.getrandbits(32)).uniform(0.6, 1.0, cover.shape).astype(np.float32)
        soft = np.clip(light.cover, 0, 1) * speck
        out = [o * (1 - soft * (1 - c / 255.0)) for o, c in zip(out, PENCIL, strict=True)]
    return cv2.merge([np.clip(o, 0, 255).astype(np.uint8) for o in out])


def _fold(sheet: Any, rng: random.Random) -> Any:
    """A corner folded over: a triangle of the page shows its blank back, a shade darker."""
    h, w = sheet.shape[:2]
    leg = rng.uniform(12, 30) * DPI / 25.4
    corner = rng.choice(((0, 0), (w, 0), (w, h), (0, h)))
    cx, cy = corner
    sx, sy = (1 if cx == 0 else -1), (1 if cy == 0 else -1)
    tri = np.array([[cx, cy], [cx + sx * leg, cy], [cx, cy + sy * leg]], np.int32)
    out = sheet.copy()
    cv2.fillPoly(out, [tri], (215, 215, 215))
    cv2.line(out, tuple(int(v) for v in tri[1]), tuple(int(v) for v in tri[2]), (150, 150, 150), 2)
    return out


def _curl(sheet: Any, amount_mm: float, rng: random.Random) -> Any:
    h, w = sheet.shape[:2]
    a = amount_mm * DPI / 25.4
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    phase = rng.uniform(0, 2 * math.pi)
    dx = a * np.sin(yy / h * math.pi * rng.uniform(0.8, 1.6) + phase)
    dy = a * np.sin(xx / w * math.pi * rng.uniform(0.8, 1.6) + phase)
    return cv2.remap(sheet, xx + dx, yy + dy, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)


def take(level_name: str, seed: int, hand: str = "own") -> HallPhoto:
    """One photo of ``level_name`` (of :data:`LEVELS` or :data:`TRIALS`): one sheet, or two side by side,
    filled by ``hand`` (:data:`HANDS`)."""
    level = LEVELS.get(level_name) or TRIALS[level_name]
    rng = random.Random(f"{level_name}-{seed}")
    hdrs, pages = _printed(7)
    two = rng.random() < level.two
    picks = rng.sample(range(len(hdrs)), 2 if two else 1)
    sheets, truths = [], []
    for i in picks:
        truth = Truth(hdrs[i], random_game(rng, hdrs[i].ruleset))
        img = _fill_sheet(pages[i], truth, level, rng, hand)
        if level.curl:
            img = _curl(img, rng.uniform(0, level.curl), rng)
        if rng.random() < level.fold:
            img = _fold(img, rng)
        sheets.append(img)
        truths.append(truth)
    W, H = level.photo if two else level.photo[::-1]
    photo = np.empty((H, W, 3), np.float32)
    photo[:] = (rng.uniform(60, 120), rng.uniform(90, 150), rng.uniform(120, 190))  # a table
    fill = rng.uniform(*level.fill)
    for n, img in enumerate(sheets):
        sh, sw = img.shape[:2]
        k = fill * H / sh
        if two:
            k = min(k, 0.46 * W / sw)
        cx = W / 2 if not two else W * (0.26 + 0.48 * n)
        cy = H / 2 + rng.uniform(-0.03, 0.03) * H
        rot = math.radians(rng.uniform(-level.tilt, level.tilt))
        src = np.array([[0, 0], [sw, 0], [sw, sh], [0, sh]], np.float32)
        dst = []
        for x, y in src:
            dx, dy = (x - sw / 2) * k, (y - sh / 2) * k
            dst.append(
                (
                    cx + dx * math.cos(rot) - dy * math.sin(rot) + rng.uniform(-1, 1) * level.persp * sw * k,
                    cy + dx * math.sin(rot) + dy * math.cos(rot) + rng.uniform(-1, 1) * level.persp * sh * k,
                )
            )
        m = cv2.getPerspectiveTransform(src, np.array(dst, np.float32))
        warped = cv2.warpPerspective(img, m, (W, H), flags=cv2.INTER_AREA).astype(np.float32)
        mask = cv2.warpPerspective(np.ones((sh, sw), np.float32), m, (W, H))[..., None]
        photo = photo * (1 - mask) + warped * mask
    # light: a gradient, and a shadow with a soft edge
    yy, xx = np.mgrid[0:H, 0:W].astype(np.float32)
    ang = rng.uniform(0, 2 * math.pi)
    gain = 0.85 + 0.15 * ((xx / W - 0.5) * math.cos(ang) + (yy / H - 0.5) * math.sin(ang))
    depth = rng.uniform(*level.shadow)
    if depth > 0:
        edge = rng.uniform(0.2, 0.8)
        side = (xx / W * math.cos(ang + 1) + yy / H * math.sin(ang + 1)) - edge
        soft = rng.uniform(0.01, 0.08)
        gain *= 1 - depth * (1 / (1 + np.exp(np.clip(-side / soft, -50, 50))))
    photo *= gain[..., None] * rng.uniform(0.85, 1.0)
    blur = rng.uniform(*level.blur)
    if blur >= 1:
        n = round(blur) | 1
        kernel = np.zeros((n, n), np.float32)
        kernel[n // 2, :] = 1.0 / n
        r = cv2.getRotationMatrix2D((n / 2 - 0.5, n / 2 - 0.5), rng.uniform(0, 180), 1.0)
        turned = cv2.warpAffine(kernel, r, (n, n))
        turned = np.asarray(turned, np.float32) / np.float32(max(1e-6, float(turned.sum())))
        photo = np.asarray(cv2.filter2D(photo, -1, turned), np.float32)
    photo = np.asarray(cv2.GaussianBlur(photo, (0, 0), 0.7), np.float32)
    nrng = np.random.default_rng(rng.getrandbits(32))
    photo += nrng.normal(0, rng.uniform(2, 6), photo.shape).astype(np.float32)
    q = rng.randint(*level.quality)
    ok, buf = cv2.imencode(".jpg", np.clip(photo, 0, 255).astype(np.uint8), [cv2.IMWRITE_JPEG_QUALITY, q])
    assert ok
    return HallPhoto(bytes(buf.tobytes()), truths, level_name, blur, fill)


@dataclass(slots=True)
class Tally:
    photos: int = 0
    sheets: int = 0
    sheets_read: int = 0
    sheets_refused: int = 0  # not read, and the photo says why (an error naming it)
    marks: int = 0
    marks_exact: int = 0
    boxes: int = 0
    boxes_exact: int = 0
    cancelled: int = 0
    cancelled_flagged: int = 0
    silent: list[str] = field(default_factory=list)
    #: sheets whose two QR codes did not read, named from the printed match id (always flagged): right,
    #: and wrong (a misread, flagged: the judge's check catches it; never counted as read)
    printed: int = 0
    printed_wrong: int = 0
    #: ... of those, their printed names and number in the batch also read (issue 39 item 2), and how many
    #: of those readings are wrong (flagged with the sheet: not silent, but counted)
    printed_names: int = 0
    printed_names_wrong: int = 0
    printed_number: int = 0
    printed_number_wrong: int = 0
    printed_context: int = 0
    printed_context_wrong: int = 0
    flags: int = 0  # low_confidence findings (the judge's work)
    faint: int = 0  # marks made in faint pencil beside ink ones (TRIALS["beside"])
    faint_read: int = 0  # ... read as marked
    faint_flagged: int = 0  # ... in a region with a low_confidence finding
    # per way of cancelling: [drawn, recognised (the box read as scribbled out), flagged, read marked]
    ways: dict[str, list[int]] = field(default_factory=dict)

    def cancel_line(self) -> str:
        """Cancelled boxes per way: recognised as scribbled out / flagged / read as a mark, of those drawn."""
        return "; ".join(
            f"{way} {n[1]}/{n[0]} recognised, {n[2]} flagged, {n[3]} read marked"
            for way, n in sorted(self.ways.items())
        )

    def line(self) -> str:
        pct = 100 * self.marks_exact / max(1, self.marks)
        return (
            f"{self.photos} photos, {self.sheets} sheets: {self.sheets_read} read, {self.sheets_refused} "
            f"refused with a reason; marks exact {self.marks_exact}/{self.marks} ({pct:.2f} %), boxes exact "
            f"{self.boxes_exact}/{self.boxes}; cancelled boxes flagged {self.cancelled_flagged}/"
            f"{self.cancelled}; {self.flags} regions flagged; named from the printed id {self.printed} "
            f"(misread and flagged {self.printed_wrong}; names read {self.printed_names}, wrong "
            f"{self.printed_names_wrong}; number read {self.printed_number}, wrong "
            f"{self.printed_number_wrong}; context read {self.printed_context}, wrong "
            f"{self.printed_context_wrong}); silent misreads {len(self.silent)}"
        )


def check(shot: HallPhoto, tally: Tally, name: str) -> None:
    """Read ``shot`` and add to ``tally``."""
    from replay.engine.errors import InputError
    from replay.sources.scan.photo import SheetScan, import_scan

    tally.photos += 1
    try:
        results = import_scan(shot.photo, name)
    except InputError:
        results = []
        errors = 1
    else:
        errors = sum(isinstance(r, InputError) for r in results)
    read = {r.result.events[0]["match"]: r for r in results if isinstance(r, SheetScan)}
    truths = {t.header.match: t for t in shot.sheets}
    misnamed = []  # named from the printed id, wrongly: flagged (a judge checks every such sheet)
    for match, r in read.items():
        if match not in truths:
            assert r.read is not None
            if r.read.header.printed and _printed_flag(r):
                misnamed.append(match)
            else:
                tally.silent.append(f"{name}: a sheet read as match {match}, not in the photo")
    for match, truth in truths.items():
        tally.sheets += 1
        scan = read.get(match)
        if scan is None and misnamed:
            tally.printed_wrong += 1
            misnamed.pop()
            continue
        if scan is None:
            # refused: by an error of its own, or with the whole photo (nothing read from it: the photo
            # is refused, and every sheet in it with it); silent when a sheet beside it was read and
            # nothing names it
            if errors or not read:
                tally.sheets_refused += 1
                errors = max(0, errors - 1)
            else:
                tally.silent.append(f"{name}: sheet {match} neither read nor refused")
            continue
        tally.sheets_read += 1
        assert scan.read is not None
        if scan.read.header.printed:
            tally.printed += 1
            if not _printed_flag(scan):
                tally.silent.append(f"{name}: {match} named from the printed id without a finding")
            if scan.read.header.players is not None:
                tally.printed_names += 1
                tally.printed_names_wrong += scan.read.header.players != truth.header.players
            if scan.read.header.context:
                tally.printed_context += 1
                tally.printed_context_wrong += scan.read.header.context != truth.header.context
            if scan.read.header.sheet is not None:
                tally.printed_number += 1
                tally.printed_number_wrong += (scan.read.header.sheet, scan.read.header.count) != (
                    truth.header.sheet,
                    truth.header.count,
                )
        tally.flags += sum(f.code == "low_confidence" for f in scan.result.findings)
        flagged = {
            str(ev["finding"].get("sheet_region"))
            for ev in scan.result.events
            if ev.get("type") == "note"
            and isinstance(ev.get("finding"), dict)
            and ev["finding"].get("code") == "low_confidence"
        }
        for g in LAYOUT.groups:
            want = truth.game.marks.get(g.key, frozenset())
            got = scan.read.reads[g.key].chosen
            region = f"r{g.row}" if g.row is not None else ("head" if g.key.startswith("mull") else "end")
            for i, v in enumerate(g.choices):
                if (g.key, v) in truth.faint:
                    tally.faint += 1
                    tally.faint_read += v in got
                    tally.faint_flagged += region in flagged
                if (g.key, v) in truth.cancelled:
                    tally.cancelled += 1
                    tally.cancelled_flagged += region in flagged
                    way = tally.ways.setdefault(truth.kind_of[(g.key, v)] + f" ({truth.pen})", [0, 0, 0, 0])
                    way[0] += 1
                    way[1] += scan.read.boxes[g.key][i].state == "scribbled"
                    way[2] += region in flagged
                    way[3] += v in got
                    if v in got and region not in flagged:
                        tally.silent.append(f"{name}: {match} {g.key}={v}: cancelled, read marked")
                    continue
                t, r = v in want, v in got
                tally.boxes += 1
                tally.boxes_exact += t == r
                if t:
                    tally.marks += 1
                    tally.marks_exact += r
                if t != r and region not in flagged:
                    what = f"{'marked' if t else 'empty'}, read {'marked' if r else 'empty'}"
                    tally.silent.append(
                        f"{name}: {match} {g.key}={v}: {what} ({truth.pen}, blur {shot.blur:.1f})"
                    )


def _printed_flag(scan: Any) -> bool:
    """Does a sheet named from its printed id carry the low_confidence finding that says so?"""
    return any(
        f.code == "low_confidence" and "was read from the printed text" in f.message
        for f in scan.result.findings
    )


def run(level: str, n: int, start: int = 0, hand: str = "own") -> Tally:
    tally = Tally()
    for k in range(start, start + n):
        check(take(level, k, hand), tally, f"{level}-{k}.jpg")
    return tally


if __name__ == "__main__":  # python -m tests.scan.hall [N] [LEVEL...]: the figures, and a few photos
    import sys

    if "--help" in sys.argv or "-h" in sys.argv:
        print(
            "python -m tests.scan.hall [N] [LEVEL...] [--start K] [--hand own|sweep]: N photos (default 20) "
            "of each level (default all), from seed K (default 0), marked by hall's own hand or every mark "
            "a sweeping tick"
        )
        raise SystemExit(0)
    start = 0
    if "--start" in sys.argv:
        at = sys.argv.index("--start")
        start = int(sys.argv[at + 1])
        del sys.argv[at : at + 2]
    hand = "own"
    if "--hand" in sys.argv:
        at = sys.argv.index("--hand")
        hand = sys.argv[at + 1]
        del sys.argv[at : at + 2]
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 20
    for lv in sys.argv[2:] or list(LEVELS):
        t = run(lv, count, start, hand)
        print(f"{lv}: {t.line()}")
        if t.faint:
            print(f"    faint pencil beside ink: {t.faint_read}/{t.faint} read, {t.faint_flagged} flagged")
        if t.ways:
            print(f"    cancelled: {t.cancel_line()}")
        for s in t.silent[:15]:
            print("   ", s)
