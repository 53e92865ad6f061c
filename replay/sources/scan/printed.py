"""A sheet named from its printed header, when neither QR code reads (issue 39: the QR code is not a
single point of failure).

The corner markers place the sheet; what names it is then read from what the printer printed:

- **The ruleset and the sheet's language**, by comparison only: the line ``Ruleset <id>`` is drawn by
  the printer itself (:func:`replay.sources.scan.printer.header_lines`) for every ruleset this version
  knows, in each language a sheet is printed in, blurred as the corner markers show the photo is, and
  compared with the photo's line; the likeliest wins, and only by a clear margin. Nothing is free-read.
- **The match id**, by Tesseract (Debian's ``tesseract-ocr``, its command line; ``make ocr``, which
  ``make unit`` runs, installs it), limited to the characters a match id may hold, on the rectified line
  as photographed and with each of the likeliest blurs the markers show undone. Each reading, and every
  id one easily confused character away from one (``l``/``1``/``I``, ``O``/``0``, ``.``/``:``...) or one
  character shorter, is then drawn by the printer at its place and size, blurred as the photo is, and
  compared with the photo where the two drawings differ (:func:`_sure`): the reading is kept only when
  it is Tesseract's, it fits the photo (:data:`LIKE`) and the photo shows more than half of its
  difference to every rival (:data:`SURE`). Anything less is no reading: the photo is refused, its
  sentence saying how to retake it, or to name the sheet with ``import scan --match``.
- **The players' printed names and the sheet's number in its batch** (issue 39 item 2), once the id is
  read, the same way: Tesseract proposes (:func:`_players`, :func:`_number`), the printer draws each
  proposal and its confusions, the photo must fit one of Tesseract's and beat every rival; else they are
  not read (the players are ``--players``'s, else ``A`` and ``B``; no number). On a Japanese or Korean
  sheet with Tesseract's model of that language (:data:`NAME_MODELS`). The context (event, round,
  table...: :func:`_context`) too, its labels in the sheet's language.

Why both, measured (docs/importers.md, "Scanned game sheets"): on a shaken medium photo of the harder
set, the printer's drawing told the true id from its neighbours (correlation 0.993 against 0.964 for
``halt-7.3``) but cannot propose an id, only check one; Tesseract proposes, with misreads (``hatt-7.3``,
``hett-7.3`` from some versions of the same line), which the check rules out. A sheet named this way
always carries a ``low_confidence`` finding with the header's crop (:mod:`replay.sources.scan.marks`):
a judge checks the id against the photo.
"""

from __future__ import annotations

import itertools
import re
import shutil
import subprocess
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache, partial
from typing import Final

import cv2
import numpy as np
import numpy.typing as npt
from cv2.typing import MatLike

from replay import i18n
from replay.engine import KNOWN_RULESETS
from replay.sources.common import MATCH_CHARS, valid_match_id
from replay.sources.scan.layout import Rect

#: Pixels per millimetre the header is compared at (the corner markers' blur is measured at this scale).
SCALE: Final = 10.0
#: Where the match id and the ruleset line are printed (frame mm; printer._match_line, _ruleset_line),
#: with room around them for the homography's residual.
MATCH_BAND: Final = Rect(10.0, 10.4, 106.0, 5.4)
RULESET_BAND: Final = Rect(0.0, 20.4, 62.0, 4.6)
#: Where each side's name is printed when the sheet was printed with them (printer.PLAYER_AT, 11 pt bold).
PLAYER_BANDS: Final = {"A": Rect(20.5, 25.0, 72.0, 5.4), "B": Rect(20.5, 32.0, 72.0, 5.4)}
#: Where the sheet's number in a batch is printed, right-aligned before the layout (printer._number_line:
#: ``sheet n of N  ·  layout 1``, 7 pt), right of the spare QR code.
NUMBER_BAND: Final = Rect(141.0, 2.4, 38.5, 4.0)
#: Where the context (event, round, table...) is printed, below the match id, left of the spare QR code
#: (printer._context_line: one line at 8 pt, or two at 6.5 pt).
CONTEXT_BAND: Final = Rect(0.0, 15.4, 116.0, 5.6)
#: The context's keys whose values are numbers (replay/cli/sheet.py: --round, --table, --game).
CONTEXT_NUMBERS: Final = frozenset({"round", "table", "game"})
#: The longest printed name read (the printer's own limit: replay/cli/sheet.py).
NAME_MAX: Final = 40
#: How far (mm) the printed line may be from its place in the rectified photo (the search's reach).
REACH: Final = 0.8
#: The likeness (normalized correlation, 0..1) a printed line must reach to be taken as read, and by
#: how much it must beat the likeliest other id or ruleset: measured on the harder set (docs/importers.md).
LIKE: Final = 0.8
SURE: Final = 0.5
#: Characters Tesseract and a blurred photo confuse: every id one of these swaps away is compared too.
CONFUSED: Final = {
    "l": "1I|i",
    "1": "lI7i",
    "I": "l1",
    "i": "l1j",
    "j": "i",
    "O": "0oDQ",
    "0": "OoD8",
    "o": "0Oc",
    "c": "oe",
    "e": "c",
    "D": "0O",
    "5": "S6",
    "S": "5s8",
    "s": "S",
    "8": "B30",
    "B": "8",
    "3": "8",
    "6": "5b",
    "b": "6h",
    "h": "b",
    "7": "1",
    "2": "Z",
    "Z": "2z",
    "z": "Z",
    ".": ":-",
    ":": ".",
    "-": "._",
    "_": "-",
    "/": "l1",
    "n": "h",
    "m": "n",
    "u": "v",
    "v": "uy",
    "9": "g",
    "g": "9q",
    "q": "g",
}

#: Glyphs a font draws so alike that Tesseract's choice among them is a coin toss on a clear photo
#: (DejaVu Sans Bold's ``1`` read as ``l`` at one scale and as ``1`` at the next, 2026-12-07): between
#: these the printer's drawing decides, so a text one such swap from Tesseract's reading may be taken.
#: Any other difference (``7`` for ``1``, a letter more or less) must be Tesseract's own reading.
TWINS: Final = ("1lI|", "0Oo")


@dataclass(frozen=True, slots=True)
class PrintedRead:
    """What the printed header gave: the match id (None: not read for certain), the ruleset (None: not
    told apart), the sheet's language; and what decided the id, for a person tuning or checking the
    reader: the best drawing's likeness, how surely it beat its rivals (:func:`_ranked`), Tesseract's
    readings and the best few drawings with their likenesses."""

    match: str | None
    ruleset: str | None
    lang: str
    likeness: float
    sure: float
    readings: tuple[str, ...]
    ranked: tuple[tuple[float, str], ...] = ()
    #: the players' printed names, both read for certain (None: not both, or none printed)
    players: tuple[str, str] | None = None
    #: the sheet's printed number in its batch and the batch's size, read for certain (None: not)
    number: tuple[int, int] | None = None
    #: the printed context (event, round, table...), when read for certain (None: not)
    context: dict[str, str | int] | None = None


@cache
def models() -> frozenset[str]:
    """The Tesseract models installed (``tesseract --list-langs``): none without Tesseract."""
    try:
        done = subprocess.run(["tesseract", "--list-langs"], capture_output=True, timeout=30, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return frozenset()
    if done.returncode != 0:
        return frozenset()
    # "List of available languages in ... (4):", then one model a line
    return frozenset(line.strip() for line in done.stdout.decode("utf-8", "replace").splitlines()[1:])


def available() -> bool:
    """Is Tesseract installed (the match id cannot be read without it)?"""
    return shutil.which("tesseract") is not None


def _band(gray: MatLike, h: npt.NDArray[np.float64], band: Rect, reach: float) -> MatLike:
    """``band`` grown by ``reach`` mm, rectified at :data:`SCALE` from the photo (grey), as ink 0..1."""
    return ink(_grey(gray, h, band, reach))


def _grey(gray: MatLike, h: npt.NDArray[np.float64], band: Rect, reach: float = 0.0) -> MatLike:
    """``band`` grown by ``reach`` mm, rectified at :data:`SCALE` from the photo (grey, 8-bit)."""
    k = SCALE / 8.0  # the homography maps to the reader's sheet at 8 px/mm
    x0, y0 = band.x - reach, band.y - reach
    to = np.array([[k, 0, -x0 * SCALE], [0, k, -y0 * SCALE], [0, 0, 1]]) @ h
    size = (round((band.w + 2 * reach) * SCALE), round((band.h + 2 * reach) * SCALE))
    return cv2.warpPerspective(gray, to, size, flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)


def ink(img: MatLike) -> MatLike:
    """Darkness 0..1 against the paper around it (a shadow or a gradient across the line cancels)."""
    f = img.astype(np.float32)
    paper = cv2.dilate(f, np.ones((31, 31), np.uint8))
    paper = cv2.GaussianBlur(paper, (0, 0), 6)
    return np.asarray(np.clip(1.0 - f / np.maximum(paper, 1.0), 0.0, 1.0), np.float32)


def flat(grey: MatLike) -> MatLike:
    """``grey`` (8-bit) with its paper evened out to white: the ink as dark against its paper as in
    :func:`ink`, what is left for Tesseract to read."""
    return np.asarray(np.round(255.0 * (1.0 - ink(grey))), np.uint8)


def _templates(line: str, texts: Sequence[str], lang: str, band: Rect) -> list[MatLike]:
    """Each of ``texts`` printed as the header's ``line`` in ``lang`` (ink 0..1 over ``band``)."""
    from replay.sources.scan.printer import header_lines

    return [1.0 - img.astype(np.float32) / 255.0 for img in header_lines(line, texts, lang, SCALE, band)]


@cache
def _rulesets(lang: str) -> tuple[MatLike, ...]:
    """The ruleset line of every ruleset this version knows, printed in ``lang`` (drawn once)."""
    return tuple(_templates("ruleset", KNOWN_RULESETS, lang, RULESET_BAND))


@cache
def _languages() -> tuple[str, ...]:
    from replay.sources.scan.printer import cjk_font

    return tuple(lang for lang in i18n.LANGUAGES if lang == i18n.DEFAULT or cjk_font() is not None)


def _ranked(
    photo: MatLike, texts: Sequence[str], inks: Sequence[MatLike], blur: Camera
) -> tuple[list[tuple[float, str]], float]:
    """``texts`` (printed as ``inks``) each scored by its likeness to ``photo`` as ``blur`` shows it, best
    first, and how surely the best beats every other one: the least, over the others, of the share of
    the difference between the two printed lines that the photo shows (1: the photo is the best's, 0:
    it cannot tell them apart, below 0: it is the other's). Every ink is compared over the same part of
    the line (where any of them has ink, and a margin): a shorter id is not compared over less paper."""
    seen = [blur.apply(ink) for ink in inks]
    cols = np.flatnonzero(np.max([s.max(axis=0) for s in seen], axis=0) > 0.05)
    rows = np.flatnonzero(np.max([s.max(axis=1) for s in seen], axis=0) > 0.05)
    if cols.size == 0 or rows.size == 0:
        return [(0.0, t) for t in texts], 0.0
    pad = round(1.0 * SCALE)
    x0, x1 = max(0, cols[0] - pad), min(seen[0].shape[1], cols[-1] + pad + 1)
    y0, y1 = max(0, rows[0] - pad), min(seen[0].shape[0], rows[-1] + pad + 1)
    reach = round(REACH * SCALE)
    window = photo[y0 : y1 + 2 * reach, x0 : x1 + 2 * reach]
    cut = [s[y0:y1, x0:x1] for s in seen]
    maps = [
        cv2.matchTemplate(window, c, cv2.TM_CCOEFF_NORMED) if float(c.std()) > 1e-6 else None for c in cut
    ]
    # every text at the place the likeliest one fits best: a rival that could slide elsewhere would be
    # compared with another part of the photo than the one it competes for
    lead = int(np.argmax([-2.0 if m is None else float(m.max()) for m in maps]))
    lead_map = maps[lead]
    if lead_map is None:
        return [(0.0, t) for t in texts], 0.0
    at = np.unravel_index(int(np.argmax(lead_map)), lead_map.shape)
    scores = sorted(((-1.0 if m is None else float(m[at]), i) for i, m in enumerate(maps)), reverse=True)
    best = scores[0][1]
    y, x = int(at[0]), int(at[1])
    placed = window[y : y + cut[0].shape[0], x : x + cut[0].shape[1]]
    sure = min((_sure(placed, cut[best], cut[i]) for _, i in scores[1:]), default=1.0)
    return [(score, texts[i]) for score, i in scores], sure


def _sure(photo: MatLike, mine: MatLike, other: MatLike) -> float:
    """The share of the difference between two printed lines (``mine``, ``other``: the same size as
    ``photo``, placed) that the photo shows, where they differ (a dot, a stroke: the rest of the line is
    the same in both and says nothing), each fitted there within a pixel or two (a line a hair larger in
    the photo than drawn is a few pixels off at its end)."""
    where = np.abs(mine - other) > 0.05
    ys, xs = np.nonzero(where)
    if ys.size == 0:
        return 0.0  # drawn alike: the photo cannot tell them apart
    pad, slide = round(0.8 * SCALE), 2
    y0, y1 = max(0, int(ys.min()) - pad), min(photo.shape[0], int(ys.max()) + pad + 1)
    x0, x1 = max(0, int(xs.min()) - pad), min(photo.shape[1], int(xs.max()) + pad + 1)
    part = cv2.copyMakeBorder(
        np.ascontiguousarray(photo[y0:y1, x0:x1]), slide, slide, slide, slide, cv2.BORDER_REPLICATE
    )
    a, b = mine[y0:y1, x0:x1], other[y0:y1, x0:x1]
    if float(a.std()) < 1e-6 or float(b.std()) < 1e-6:
        return 0.0
    res = cv2.matchTemplate(part, a, cv2.TM_CCOEFF_NORMED)
    dy, dx = np.unravel_index(int(np.argmax(res)), res.shape)
    fit = float(res[dy, dx])
    # the other line where this one fits: the same place for both, only their difference compared
    rival = float(
        cv2.matchTemplate(part[dy : dy + a.shape[0], dx : dx + a.shape[1]], b, cv2.TM_CCOEFF_NORMED)[0, 0]
    )
    apart = 1.0 - float(np.corrcoef(a.ravel(), b.ravel())[0, 1])
    return (fit - rival) / max(fit * apart, 1e-6)


@dataclass(frozen=True, slots=True)
class Camera:
    """How the photo shows the printed header: the blur the corner markers show (None: sharp), then
    the lens and the photo's own pixels (a Gaussian of ``sigma`` px at :data:`SCALE`)."""

    kernel: MatLike | None
    sigma: float

    def apply(self, ink: MatLike) -> MatLike:
        out = (
            ink if self.kernel is None else cv2.filter2D(ink, -1, self.kernel, borderType=cv2.BORDER_CONSTANT)
        )
        return cv2.GaussianBlur(out, (0, 0), self.sigma) if self.sigma > 0.3 else out


def _ocr(grey: MatLike, zoom: float = 2.0) -> list[str]:
    """Tesseract's reading of one printed line (grey, 8-bit, at :data:`SCALE`, enlarged ``zoom`` times):
    the match id it gives, only a match id's characters allowed (none when what it reads cannot be one)."""
    text = _tesseract(grey, zoom, "".join(sorted(MATCH_CHARS)))
    return [t for t in (text.replace(" ", ""),) if valid_match_id(t)]


#: Tesseract's models for the names on a sheet in each language (Debian's tesseract-ocr-jpn and -kor, which
#: ``make ocr`` installs): a Japanese or Korean sheet's names may be written in either script.
NAME_MODELS: Final = {"ja": "jpn+eng", "ko": "kor+eng"}
# a space Tesseract puts between two CJK characters (it spaces them as it does Latin words)
_CJK_SPACE: Final = re.compile(r"(?<=[^\x00-\u024f]) (?=[^\x00-\u024f])")


def _tesseract(grey: MatLike, zoom: float, allowed: str | None, model: str = "eng") -> str:
    """Tesseract's text of one printed line (``allowed``: the only characters it may read; None: any),
    read with ``model`` (a model not installed reads nothing)."""
    img = cv2.resize(grey, None, fx=zoom, fy=zoom, interpolation=cv2.INTER_CUBIC)
    img = cv2.copyMakeBorder(img, 20, 20, 20, 20, cv2.BORDER_REPLICATE)
    ok, png = cv2.imencode(".png", img)
    assert ok
    chars = ["-c", f"tessedit_char_whitelist={allowed}"] if allowed is not None else []
    try:
        done = subprocess.run(
            ["tesseract", "stdin", "stdout", "--psm", "7", "-l", model, *chars],
            input=png.tobytes(),
            capture_output=True,
            timeout=30,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return ""
    return done.stdout.decode("utf-8", "replace").strip()


def valid_name(name: str, lang: str = i18n.DEFAULT) -> bool:
    """Could ``name`` be a player's printed name as read here on a sheet in ``lang``: letters (Latin, with
    accents; on a Japanese or Korean sheet also kana, kanji, hangul and ``・``), with spaces, hyphens,
    apostrophes and dots between them, at most :data:`NAME_MAX` characters."""
    cjk = lang in NAME_MODELS
    return (
        0 < len(name) <= NAME_MAX
        and name[0].isalpha()
        and name[-1] not in " -'"
        and "  " not in name
        and all(c.isalpha() or c in " -'." or (cjk and c == "・") for c in name)
        # an English sheet is read with the English model only: anything else is a misreading
        and (cjk or all(ord(c) < 0x250 for c in name))
    )


def _ocr_name(grey: MatLike, zoom: float, lang: str = i18n.DEFAULT) -> list[str]:
    """Tesseract's reading of a printed name (grey, 8-bit, at :data:`SCALE`) on a sheet in ``lang``: none
    when it cannot be one."""
    text = " ".join(_tesseract(grey, zoom, None, NAME_MODELS.get(lang, "eng")).split())
    text = _CJK_SPACE.sub("", text)
    return [text] if valid_name(text, lang) else []


def _near(match: str, valid: Callable[[str], bool] = valid_match_id) -> set[str]:
    """Every id (``valid`` text) one confused character away from ``match``, or one character shorter."""
    out = set()
    for i, c in enumerate(match):
        for d in CONFUSED.get(c, ""):
            out.add(match[:i] + d + match[i + 1 :])
        if len(match) > 1:
            out.add(match[:i] + match[i + 1 :])
    return {m for m in out if valid(m)} - {match}


def _decided(
    photo: MatLike, reads: Sequence[str], rivals: Sequence[str], inks: Sequence[MatLike], blur: Camera
) -> tuple[str | None, list[tuple[float, str]], float]:
    """Tesseract's ``reads`` and their ``rivals`` (printed as ``inks``, in that order) against the photo's
    line: the reading kept (None: none for certain: :func:`read_printed`), the ranking, how sure."""
    rank, sure = _ranked(photo, [*reads, *rivals], inks, blur)
    top, first = rank[0]
    # Tesseract's reading, or its twin that the drawing tells apart from it (``scan-test-l`` read, the
    # photo surely ``scan-test-1``): two signals that agree on every character but one glyph of a pair
    taken = first in reads or any(first in _twins(r) for r in reads)
    return (first if taken and top >= LIKE and sure >= SURE else None), rank, sure


def _twins(text: str) -> set[str]:
    """Every text one :data:`TWINS` swap away from ``text`` (a rival already, by :data:`CONFUSED`)."""
    out: set[str] = set()
    for i, c in enumerate(text):
        for group in TWINS:
            if c in group:
                out.update(text[:i] + d + text[i + 1 :] for d in group if d != c)
    return out


def _players(gray: MatLike, h: npt.NDArray[np.float64], lang: str, blur: Camera) -> tuple[str, str] | None:
    """The two names printed in the header (a sheet printed with ``--players``), each read as the match
    id is: Tesseract proposes (the line as photographed and flattened), the printer draws each reading and
    its confusions, the photo must fit one of Tesseract's and beat every rival. None unless both are read
    and differ (a sheet whose names are handwritten, or not legible: named by --players, else A and B)."""
    from replay.sources.scan.printer import header_drawings

    found: dict[str, tuple[list[str], list[str]]] = {}
    for side, band in PLAYER_BANDS.items():
        line = _grey(gray, h, band)
        reads: list[str] = []
        for img, zoom in ((line, 2.0), (flat(line), 1.5)):
            for t in _ocr_name(img, zoom, lang):
                if t not in reads:
                    reads.append(t)
        if not reads:
            return None
        found[side] = (
            reads,
            sorted({n for r in reads for n in _near(r, partial(valid_name, lang=lang))} - set(reads)),
        )
    wanted = [(f"player.{side}", t, PLAYER_BANDS[side]) for side, (r, v) in found.items() for t in (*r, *v)]
    drawn = [1.0 - img.astype(np.float32) / 255.0 for img in header_drawings(wanted, lang, SCALE)]
    names: list[str] = []
    for side, (reads, rivals) in found.items():
        mine, drawn = drawn[: len(reads) + len(rivals)], drawn[len(reads) + len(rivals) :]
        name, _, _ = _decided(_band(gray, h, PLAYER_BANDS[side], REACH), reads, rivals, mine, blur)
        if name is None:
            return None
        names.append(name)
    return (names[0], names[1]) if names[0] != names[1] else None


def read_printed(
    gray: MatLike,
    h: npt.NDArray[np.float64],
    blurs: Sequence[MatLike],
    density: float,
    lines: Sequence[MatLike],
    given: str | None = None,
) -> PrintedRead:
    """The sheet's match id, ruleset and language read from its printed header (``gray``: the photo;
    ``h``: its homography to the reader's sheet; ``blurs``: the likeliest blurs the corner markers show
    (at :data:`SCALE`), empty when sharp; ``density``: the photo's pixels a millimetre; ``lines``: the
    match id's line as photographed and with each blur undone, grey). A field not read for certain is
    None; no id is read when the ruleset line is not (the header is not where the markers place it)."""
    # a photo pixel spans SCALE / density px of the rectified line: its own blur, beside the markers'.
    # The camera is fitted on the ruleset line (its text is one of a few): the blur that makes the
    # likeliest ruleset's drawing most like the photo is the one the match id is compared with.
    sigma = max(0.8, 0.5 * SCALE / max(density, 0.5))
    kernels: list[MatLike | None] = [*blurs[:2]] if blurs else [None]
    lenses = (0.8, 1.6) if blurs else (sigma * 0.6, sigma, sigma * 1.6)
    ruleset_photo = _band(gray, h, RULESET_BAND, REACH)
    best_lang, best_rank, best_sure = i18n.DEFAULT, [(0.0, ""), (0.0, "")], 0.0
    blur = Camera(kernels[0], lenses[0])
    for lang in _languages():
        for camera in (Camera(k, s) for k in kernels for s in lenses):
            rank, sure = _ranked(ruleset_photo, KNOWN_RULESETS, _rulesets(lang), camera)
            if rank[0][0] > best_rank[0][0]:
                best_lang, best_rank, best_sure, blur = lang, rank, sure, camera
    ruleset = best_rank[0][1] if best_rank[0][0] >= LIKE and best_sure >= SURE else None
    if ruleset is None:  # the header is not where the markers say, or not legible: no id read either
        return PrintedRead(None, None, best_lang, best_rank[0][0], best_sure, ())
    if not available():  # the ruleset told apart, by comparison only; the id needs Tesseract
        return PrintedRead(None, ruleset, best_lang, 0.0, 0.0, ())
    match_photo = _band(gray, h, MATCH_BAND, REACH)
    reads: list[str] = []
    # the line as photographed, and flattened: a shadow across it made Tesseract (5.3.0, Debian 12) read
    # "st-l1" for "scan-test-1" (tests/scan/test_scan_printed.py); its paper evened out and at 1.5x, not
    # 2x ("scan-test-l"), it reads right. One more proposal: the printer's drawing still decides.
    todo = [(lines[0], 2.0), (flat(lines[0]), 1.5), *((line, 2.0) for line in lines[1:])] if lines else []
    for line, zoom in todo:
        for t in _ocr(line, zoom):
            if t not in reads:
                reads.append(t)
    match: str | None = None
    rank, sure = [], 0.0
    if reads:
        rivals = sorted({n for r in reads for n in _near(r)} - set(reads))
        texts = [*reads, *rivals]
        match, rank, sure = _decided(
            match_photo, reads, rivals, _templates("match", texts, best_lang, MATCH_BAND), blur
        )
    # the players' printed names, the sheet's number and the context only for a sheet named from print
    # (issue 39 item 2), by its id read or the one import scan --match gives it
    named = match if match is not None else given
    likeness = rank[0][0] if rank else 0.0
    if named is None:
        return PrintedRead(None, ruleset, best_lang, likeness, sure, tuple(reads), tuple(rank[:4]))
    players = _players(gray, h, best_lang, blur)
    number = _number(gray, h, best_lang, blur, named)
    context = _context(gray, h, best_lang, blur)
    return PrintedRead(
        match, ruleset, best_lang, likeness, sure, tuple(reads), tuple(rank[:4]), players, number, context
    )


def valid_context_text(text: str, lang: str = i18n.DEFAULT) -> bool:
    """Could ``text`` be a printed context's value (an event's, a league's name...) on a sheet in ``lang``:
    Latin letters and digits, and on a Japanese or Korean sheet also kana, kanji and hangul."""
    return (
        0 < len(text) <= 64
        and text[0].isalnum()
        and text[-1] != " "
        and "  " not in text
        and all(c.isalnum() or c in " -'.&/:#" for c in text)
        # an English sheet is read with the English model only: anything else is a misreading
        and (lang in NAME_MODELS or all(ord(c) < 0x250 for c in text))
    )


def _context_texts(text: str, lang: str) -> list[str]:
    """Tesseract's line as read, and on a Japanese or Korean sheet also without the spaces it put between
    two CJK characters (a value's own space, ``목요일 리그``, stays in the first): proposals, the drawings
    decide."""
    text = " ".join(text.split())
    joined = _CJK_SPACE.sub("", text) if lang in NAME_MODELS else text
    return [text] if joined == text else [text, joined]


def _context(
    gray: MatLike, h: npt.NDArray[np.float64], lang: str, blur: Camera
) -> dict[str, str | int] | None:
    """The context printed below the match id (``Event League   Round 2   Table 4``; on a Japanese
    sheet ``イベント 木曜リーグ   ラウンド 2   卓 4``), read as the id is (issue 39 item 3): Tesseract
    proposes (with the sheet's language's model, :data:`NAME_MODELS`), its text split at the labels
    printed in that language; the printer draws each proposal, each value confused one character or (a
    number) one off, and the blank line; the photo must fit one of Tesseract's and beat every rival.
    None when not read for certain, or none printed, or the language's model is not installed."""
    from replay.sources.scan.printer import CONTEXT_LABELS, context_text, header_drawings

    model = NAME_MODELS.get(lang, "eng")
    if not set(model.split("+")) <= models():
        return None
    order = {i18n.gettext(lang, label): (i, key) for i, (key, label) in enumerate(CONTEXT_LABELS)}
    # a Latin label is a word of its own; a CJK one may meet its value with no space (卓4, イベント木曜)
    after = r"(?=\s|[0-9]|$)" if lang not in NAME_MODELS else ""
    find = re.compile(r"(?:^|(?<=\s))(" + "|".join(map(re.escape, order)) + ")" + after)
    line = _grey(gray, h, CONTEXT_BAND)
    reads: list[dict[str, str | int]] = []
    seen: dict[str, list[str | int]] = {}  # each field's values as read, whatever the rest of its line
    for img, zoom in ((line, 2.0), (flat(line), 1.5)):
        for text in _context_texts(_tesseract(img, zoom, None, model), lang):
            for ctx in _context_splits(text, order, find, lang):
                if ctx not in reads:
                    reads.append(ctx)
            for key, value in _context_fields(text, order, find, lang).items():
                if value not in seen.setdefault(key, []):
                    seen[key].append(value)
    # a phone photo's two reads each garble a different field ("Round2 Te", "Event Thiltedwpiseous"): each
    # field as one of the reads has it, every field any read found (a few at most)
    keys = sorted(seen, key=lambda k: next(i for i, kk in order.values() if kk == k))
    for values in itertools.islice(itertools.product(*(seen[k] for k in keys)), 16):
        ctx = dict(zip(keys, values, strict=True))
        if ctx not in reads:
            reads.append(ctx)
    if not reads:
        return None
    said = [context_text(c) for c in reads]
    near: set[str] = {context_text({})}
    for ctx in reads:
        for key, was in ctx.items():
            if isinstance(was, int):
                others: set[str | int] = {was - 1, was + 1}
                others |= {int(m) for m in _near(str(was), str.isdigit)}
            else:
                others = set(_near(was, partial(valid_context_text, lang=lang)))
            near |= {context_text({**ctx, key: o}) for o in others if o != 0}
    rivals = sorted(near - set(said))
    texts = [*said, *rivals]
    inks = [
        1.0 - img.astype(np.float32) / 255.0
        for img in header_drawings([("context", t, CONTEXT_BAND) for t in texts], lang, SCALE)
    ]
    got, _, _ = _decided(_band(gray, h, CONTEXT_BAND, REACH), said, rivals, inks, blur)
    return reads[said.index(got)] if got is not None else None


def _context_splits(
    text: str, order: dict[str, tuple[int, str]], find: re.Pattern[str], lang: str
) -> list[dict[str, str | int]]:
    """The contexts a line of Tesseract's may say: split at its labels; when it does not split, each
    word read in place of a label (``卓 4`` read ``G4``: a label's few letters are the most misread on a
    phone photo) taken as each label in turn. Proposals only: the printer's drawings decide."""
    ctx = _context_split(text, order, find, lang)
    if ctx is not None:
        return [ctx]
    out: list[dict[str, str | int]] = []
    words = text.split(" ")
    for i, word in enumerate(words):
        # a garbled label of a few letters and its number, met (G4) or apart (G 4)
        head = re.fullmatch(r"([^0-9]{1,3})([0-9]*)", word)
        number = head is not None and (head.group(2) or (i + 1 < len(words) and words[i + 1].isdigit()))
        if i == 0 or head is None or not number:
            continue
        for label in order:
            said = " ".join([*words[:i], label + " " + head.group(2), *words[i + 1 :]]).strip()
            ctx = _context_split(said, order, find, lang)
            if ctx is not None and ctx not in out:
                out.append(ctx)
    return out


def _context_fields(
    text: str, order: dict[str, tuple[int, str]], find: re.Pattern[str], lang: str
) -> dict[str, str | int]:
    """The fields a line of Tesseract's reads well, though others do not: a number label's leading digits
    (``Round2 Te``: the table's label garbled after it), a text label's value when it may be one."""
    kept = _labels(text, order, find)
    if not kept or kept[0].start() != 0:
        return {}
    fields: dict[str, str | int] = {}
    for m, end in zip(kept, [*kept[1:], None], strict=True):
        key = order[m.group(1)][1]
        value = text[m.end() : end.start() if end is not None else len(text)].strip()
        if key in CONTEXT_NUMBERS:
            number = re.match(r"[0-9]{1,4}(?![0-9])", value)
            if number is not None and int(number.group()) > 0:
                fields[key] = int(number.group())
        elif valid_context_text(value, lang):
            fields[key] = value
    return fields


def _labels(text: str, order: dict[str, tuple[int, str]], find: re.Pattern[str]) -> list[re.Match[str]]:
    """The labels of a line in the printer's order (a label's word later in a value, "Thursday League"
    after "Event", is the value's)."""
    kept: list[re.Match[str]] = []
    for m in find.finditer(text):
        if not kept or order[m.group(1)][0] > order[kept[-1].group(1)][0]:
            kept.append(m)
    return kept


def _context_split(
    text: str, order: dict[str, tuple[int, str]], find: re.Pattern[str], lang: str
) -> dict[str, str | int] | None:
    """A line of Tesseract's split at the context's labels (``order``: a label's rank in the printer's
    order and its key), or None when it is not a context line: each label (:func:`_labels`) starts a
    value that runs to the next one."""
    kept = _labels(text, order, find)
    if not kept or kept[0].start() != 0:
        return None
    ctx: dict[str, str | int] = {}
    for m, end in zip(kept, [*kept[1:], None], strict=True):
        key = order[m.group(1)][1]
        value = text[m.end() : end.start() if end is not None else len(text)].strip()
        if not valid_context_text(value, lang) or (key in CONTEXT_NUMBERS and not value.isdigit()):
            return None
        ctx[key] = int(value) if key in CONTEXT_NUMBERS else value
    return ctx


def _number(
    gray: MatLike, h: npt.NDArray[np.float64], lang: str, blur: Camera, match: str
) -> tuple[int, int] | None:
    """The sheet's number in its batch and the batch's size (``sheet n of N``, printed by ``sheet print
    --count``), read as the match id is: Tesseract proposes (the digits before the layout's), the
    printer draws each reading, its digits confused or one off, and the line without a number; the photo
    must fit one of Tesseract's and beat every rival. None when not read for certain, and when ``n`` is
    not the match id's ``.n`` (the printer makes them equal: a disagreement is a misread)."""
    from replay.sources.scan.layout import LAYOUT_VERSION
    from replay.sources.scan.printer import header_drawings, number_text

    line = _grey(gray, h, NUMBER_BAND)
    suffix = re.fullmatch(r".*\.([0-9]+)", match)
    reads: list[tuple[int, int]] = []
    for img, zoom in ((line, 3.0), (flat(line), 3.0)):
        # every two numbers in a row in what Tesseract reads (l, I and | taken for 1: "sheet lof2"), and
        # the id's .n with each number after it: proposals only, the drawings decide
        text = _tesseract(img, zoom, None).translate(str.maketrans("lI|O", "1110"))
        digits = [int(d) for d in re.findall(r"[0-9]+", text)]
        pairs = list(itertools.pairwise(digits))
        if suffix is not None:
            pairs += [(int(suffix.group(1)), d) for d in digits]
        for n, count in pairs:
            if 1 <= n <= count <= 999 and (n, count) not in reads:
                reads.append((n, count))
    if not reads:
        return None
    near: set[tuple[int | None, int | None]] = {(None, None)}
    for n, count in reads:
        near |= {(n - 1, count), (n + 1, count), (n, count - 1), (n, count + 1), (n, None)}
        near |= {(int(m), count) for m in _near(str(n), str.isdigit)}
        near |= {(n, int(m)) for m in _near(str(count), str.isdigit)}
    rivals = sorted(
        (r for r in near if r not in reads and (r[0] is None or r[0] >= 1) and (r[1] is None or r[1] >= 1)),
        key=str,
    )
    texts = [number_text(n, count, LAYOUT_VERSION) for n, count in (*reads, *rivals)]
    inks = [
        1.0 - img.astype(np.float32) / 255.0
        for img in header_drawings([("number", t, NUMBER_BAND) for t in texts], lang, SCALE)
    ]
    said = texts[: len(reads)]
    got, _, _ = _decided(_band(gray, h, NUMBER_BAND, REACH), said, texts[len(reads) :], inks, blur)
    if got is None:
        return None
    n, count = reads[said.index(got)]
    return (n, count) if suffix is None or int(suffix.group(1)) == n else None
