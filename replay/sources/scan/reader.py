"""A photo or scan of a game sheet -> its header (the QR code), each mark group's read, and crops.

1. **Markers.** The four ArUco markers are found (on a reduced copy of a large photo, their corners then
   refined on the full image); three are enough. Their 16 corners give the homography from the photo to
   the sheet's frame: rotation (any angle, upside down too: the marker ids say which corner is which),
   perspective and scale in one. Every detection is kept and grouped into sheets by geometry (each
   marker's own corners say where its sheet's other three are): two sheets in one photo are two reads,
   never one homography made of the markers of both (:func:`read_sheets`).
2. **QR code.** Its square is cut out of the photo at 10 px/mm through the homography and decoded; its
   payload names the layout version, the match and the players (:mod:`replay.sources.scan.layout`).
3. **Rectified sheet** at 8 px/mm. Ink is measured as darkness against the paper *under the same light*:
   the darkest colour channel (so blue, red and green pens count like black) divided by a background
   estimate (a morphological closing wider than any box, which keeps the edges of shadows and lighting),
   so shadows, uneven light and colour casts cancel out.
4. **Rows.** Each turn row has a timing square at each end; each is found near its expected place and the
   row's boxes are shifted by the offsets found (interpolated along the row), which absorbs paper curl
   and the residual of the homography.
5. **Boxes.** A box's fill is the darkness inside it (0.6 mm in from its printed edge, so the edge itself
   never counts), weighted towards its centre so that a neighbour's stroke that overruns into its edge
   counts less than a mark. Two thresholds (:data:`EMPTY`, :data:`MARKED`) split empty / unclear /
   marked; then the photo's own ink and paper, measured on every printed box (:class:`_Ink`), make a
   box darker than this photo's paper unclear rather than empty (unless its darkness is all at its
   edges and under a tenth of the pen's marks: a neighbour's overrun), and a faint pencil mark marked
   (flagged). A box whose ink also runs all along past its edges (top and bottom, or both sides; or
   strokes crossing every third of them) was scribbled out (the sheet's printed rule for cancelling a
   mark: a loop, a zigzag, a cross-hatch, a hatching): read as not marked, flagged; a weaker spill is
   unclear. On a blurred photo a true mark's ink runs past the edges as the printed lines' does: there
   the spill is judged past what the printed box and the photo's own blur (:func:`_bleed`) put there.
6. **Groups.** One box marked: that value. Two marked in a one-choice group, an unclear box, a scribbled
   out box: an unclear group, its best guess and a confidence below 0.8, with the reason (so the row
   becomes a ``low_confidence`` finding; :mod:`replay.sources.scan.marks`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from functools import cache
from typing import Any, Final

import cv2
import numpy as np
import numpy.typing as npt
from cv2.typing import MatLike

from replay.sources.scan import budget
from replay.sources.scan.layout import (
    FRAME_H,
    FRAME_W,
    LAYOUT,
    MARKER,
    MARKER_IDS,
    QR_BOX,
    QR_MAX_VERSION,
    QR_MIN_VERSION,
    SPARE_QR_BOX,
    Group,
    Header,
    PayloadError,
    Rect,
    marker_rects,
    parse_payload,
)
from replay.sources.scan.marks import GroupRead
from replay.sources.scan.refusals import (
    MATCH_DIFFERS,
    MATCH_DIFFERS_PRINTED,
    NO_ID,
    NO_ID_FAR,
    NO_ID_SHAKEN,
    NO_QR,
    NO_QR_FAR,
    NO_QR_SHAKEN,
    NO_SHEET,
    OVERLAP,
    PART_HIDDEN,
    PART_OUT,
    UNDER,
    NotASheet,
)
from replay.sources.scan.refusals import (
    RETAKE as RETAKE,
)

#: Pixels per millimetre of the rectified sheet (what is measured), and of the crops kept for judges.
SCALE: Final = 8.0
CROP_SCALE: Final = 6.0
QR_SCALE: Final = 10.0
INSET: Final = 0.6  # mm from a box's printed edge to the region measured
#: A box's fill is the share of its interior darker than INK (weighted towards the centre), 0..1. The
#: thresholds are calibrated on the generated set (tests/scan, bench/scan.py): at most EMPTY is empty,
#: at least MARKED is marked, between is unclear.
INK: Final = 0.15
EMPTY: Final = 0.06
MARKED: Final = 0.09
SOLID: Final = 0.6  # a box this full whose ink spills past both its top and bottom edges: scribbled out
SPILL: Final = 0.22  # darkness of the strips above and below a box that count as spilled ink
#: ... on a sheet whose own ink is measured (:class:`_Ink`): the strips' darkness as a share of the box's
CANCELLED: Final = 0.55
MAYBE_CANCELLED: Final = 0.3  # from this share, perhaps cancelled: unclear (read as marked)
CROSSED: Final = 0.45  # strokes across every third of both edges, this dark against the box's: cancelled
#: ... or a stroke's end beside paper in every third of the strips just past the top and bottom edges (a
#: zigzag that only just passes them), this dark against the box's, on a photo that spreads a printed
#: line no further than :data:`SHARP` (on a more blurred one :data:`CROSSED`: a mark's own strokes blur
#: out past the edges there)
TIPS: Final = 0.3
#: A sharp photo: the darkness 0.2-0.55 mm past a printed box's top and bottom edges, as a share of the
#: printed line's own (the sheet's median, :func:`_bleed`), at most this
SHARP: Final = 0.4
DENSE: Final = 1.3  # a box this many times as dark as the sheet's typical mark (a scribble's density)
#: On a photo blurred past :data:`SHARP`, a box at least :data:`DENSE` whose top and bottom strips, less
#: the printed box's own darkness there, are this dark against the box per unit of the photo's bleed:
#: scribbled out; from :data:`MAYBE_BLURRED`, perhaps (unclear, read as marked)
BLURRED: Final = 0.35
MAYBE_BLURRED: Final = 0.12
#: ... or whose strips are as dark against it as cancelled a box before the printed box's share was taken
#: off, and whose own spill (:attr:`BoxRead.spill`, past the printed box's) is at least this
OWN_SPILL: Final = 0.12
DETECT_SIDE: Final = 1200  # markers are looked for on a copy at most this many pixels high or wide
MAX_PIXELS: Final = budget.MAX_PIXELS  # the one budget, read from the header before decoding (photo.py)

Image = MatLike  # OpenCV's own array type (numpy arrays)
Floats = MatLike


@dataclass(slots=True)
class BoxRead:
    """One box: its fill (0..1), whether it was scribbled out, and its state."""

    fill: float
    scribbled: bool
    state: str  # "empty" | "unclear" | "marked" | "scribbled" | "shadow" (marked only by a shadow's edge?)
    mass: float = 0.0  # the interior's mean darkness (centre-weighted), 0..1: no threshold in it
    faint: bool = False  # read from :attr:`mass` against this sheet's own ink and paper (faint pencil)
    spilled: bool = False  # inked past its top and bottom edges: perhaps scribbled out (unclear)
    clarity: float = 1.0  # of a faint mark
    spill: float = 0.0  # how inked the paper all along its top and bottom edges is, as a share of the box
    core: float = 0.0  # its middle's darkness, less the local paper's (:data:`CORE`): no threshold in it
    tick: bool = False  # its ink crosses its edges as a tick's does, once each at most (:func:`_sweep`)
    joined: bool = False  # a stroke runs into it across the gap from the row below (:func:`_joined`)


@dataclass(slots=True)
class PageRead:
    """A read sheet: its header, each group's read, each box's fill; the photo and its homography (to
    the rectified sheet at :data:`SCALE`), which the crops are cut from."""

    header: Header
    reads: dict[str, GroupRead]
    boxes: dict[str, list[BoxRead]]
    photo: Image
    homography: npt.NDArray[np.float64]
    markers: int
    rows_aligned: int
    meta: dict[str, Any] = field(default_factory=dict)

    def rectified(self, scale: float = CROP_SCALE) -> Image:
        """The whole sheet (its frame) rectified at ``scale`` px/mm (BGR); the crops' one (kept)."""
        kept = self.meta.get("page")
        if scale == CROP_SCALE and kept is not None:
            return np.asarray(kept, np.uint8)
        k = scale / SCALE
        to = np.diag([k, k, 1.0]) @ self.homography
        size = (round(FRAME_W * scale), round(FRAME_H * scale))
        img = cv2.warpPerspective(
            self.photo, to, size, flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE
        )
        if scale == CROP_SCALE:
            self.meta["page"] = img
        return img

    def region(self, region: str) -> Image:
        """A region of the sheet (``r7``, ``head``, ``end``, ``page``) at :data:`CROP_SCALE` (BGR)."""
        page = self.rectified()
        if region == "page":
            return page
        r = LAYOUT.crops[region]
        y0, x0 = max(0, round(r.y * CROP_SCALE)), max(0, round(r.x * CROP_SCALE))
        return page[y0 : round((r.y + r.h) * CROP_SCALE), x0 : round((r.x + r.w) * CROP_SCALE)]

    @property
    def sheet(self) -> Image:
        """The whole sheet rectified at :data:`SCALE` (BGR)."""
        return self.rectified(SCALE)

    def crop(self, region: str, quality: int = 85) -> bytes:
        """:meth:`region` as JPEG bytes (what ``import scan`` keeps for the judges)."""
        ok, buf = cv2.imencode(".jpg", self.region(region), [cv2.IMWRITE_JPEG_QUALITY, quality])
        assert ok
        return bytes(buf.tobytes())


@cache
def _detector(rate: float) -> Any:
    params = cv2.aruco.DetectorParameters()
    params.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_SUBPIX
    # Candidates smaller than this share of the image's side are not examined: the sheet's ~1,000 mark
    # boxes are squares too, and examining each costs ~1 ms.
    params.minMarkerPerimeterRate = rate
    return cv2.aruco.ArucoDetector(cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50), params)


Detection = tuple[int, npt.NDArray[np.float32]]  # a marker's id and its 4 corners (photo px)


def _find(small: Image, rate: float) -> list[Detection]:
    """Every detection of the sheet's marker ids (several of one id: several sheets in the photo)."""
    corners, ids, _ = _detector(rate).detectMarkers(small)
    found: list[Detection] = []
    if ids is not None:
        for c, i in zip(corners, ids.ravel(), strict=True):
            if int(i) in MARKER_IDS:
                found.append((int(i), c.reshape(4, 2).astype(np.float32)))
    return found


def _perimeter(c: npt.NDArray[np.float32]) -> float:
    return float(cv2.arcLength(c.reshape(-1, 1, 2), True))


def _same(a: Detection, b: Detection) -> bool:
    """Two detections of one marker (the two passes of :func:`_detect` both found it)?"""
    return a[0] == b[0] and float(np.abs(a[1].mean(axis=0) - b[1].mean(axis=0)).max()) < 3.0


def _detect(small: Image) -> list[Detection]:
    # A marker is 10 mm of a 297 mm page: when the sheet fills most of the photo its perimeter is over
    # 0.05 of the side and the boxes' (13.6 mm) are under it. A sheet farther away (or two sheets in one
    # photo): the markers found set the next try's bound, or none were found and every candidate is
    # examined.
    found = _find(small, 0.05)
    side = max(small.shape)
    rate = 0.6 * min(_perimeter(c) for _, c in found) / side if found else 0.015
    if rate < 0.05:
        more = _find(small, rate)
        found += [d for d in more if not any(_same(d, f) for f in found)]
    return found


def _to_frame(d: Detection) -> npt.NDArray[np.float64]:
    """The affine map from the photo to frame millimetres that one marker's own corners give."""
    r = marker_rects()[MARKER_IDS.index(d[0])]
    dst = np.array([(r.x, r.y), (r.x + r.w, r.y), (r.x + r.w, r.y + r.h), (r.x, r.y + r.h)], np.float32)
    m, _ = cv2.estimateAffine2D(d[1], dst)
    return np.asarray(m if m is not None else np.zeros((2, 3)), np.float64)


def _sheets(found: list[Detection]) -> list[list[Detection]]:
    """The detections grouped into sheets, by geometry: each marker's own corners say where, in the photo,
    its sheet's other three markers must be (its affine map extrapolated over the frame, which perspective
    bends by some per cent of the distance: hence the tolerance); a group holds one marker of each id.
    Largest groups first, then left to right, top to bottom."""
    rects = marker_rects()
    centre = {i: np.array([rects[k].cx, rects[k].cy]) for k, i in enumerate(MARKER_IDS)}
    maps = [_to_frame(d) for d in found]
    mids = [d[1].mean(axis=0) for d in found]

    def error(a: int, b: int) -> float:
        """How far (mm, in the frame ``a``'s marker gives) ``b``'s marker is from where it must be, as a
        share of their distance on the sheet (+ 5 mm)."""
        ia, ib = found[a][0], found[b][0]
        if ia == ib:
            return float("inf")
        at = maps[a] @ np.array([*mids[b], 1.0])
        dist = float(np.linalg.norm(centre[ib] - centre[ia]))
        return float(np.linalg.norm(at - centre[ib])) / (0.25 * dist + 5.0)

    order = sorted(range(len(found)), key=lambda k: -_perimeter(found[k][1]))
    free = set(order)
    groups: list[list[int]] = []
    for seed in order:
        if seed not in free:
            continue
        free.discard(seed)
        group = [seed]
        for mid in MARKER_IDS:
            if mid == found[seed][0]:
                continue
            fits = [k for k in free if found[k][0] == mid and max(error(seed, k), error(k, seed)) <= 1.0]
            if fits:
                best = min(fits, key=lambda k: error(seed, k) + error(k, seed))
                group.append(best)
                free.discard(best)
        groups.append(group)
    groups.sort(key=lambda g: (-len(g), float(np.mean([mids[k][0] for k in g]))))
    return [[found[k] for k in g] for g in groups]


def _markers(gray: Image) -> list[list[Detection]]:
    """The corner markers of each sheet in the photo (full-image corners), largest groups first."""
    h, w = gray.shape
    f = min(1.0, DETECT_SIDE / max(h, w))
    small = cv2.resize(gray, (round(w * f), round(h * f)), interpolation=cv2.INTER_AREA) if f < 1 else gray
    found = [(i, c / f) for i, c in _detect(small)]
    if f < 1:
        # found on the reduced copy: each corner refined on the full image
        criteria = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 20, 0.03)
        found = [
            (i, cv2.cornerSubPix(gray, c.reshape(-1, 1, 2), (2, 2), (-1, -1), criteria).reshape(4, 2))
            for i, c in found
        ]
    return _sheets([(i, np.asarray(c, np.float32)) for i, c in found])


def _points(group: list[Detection]) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]]:
    """(photo points, frame points in mm) of one sheet's markers."""
    src, dst = [], []
    rects = marker_rects()
    for i, corners in sorted(group, key=lambda d: d[0]):
        r = rects[MARKER_IDS.index(i)]
        src.extend(corners.tolist())
        # ArUco corners run clockwise from the marker's own top left
        dst.extend([(r.x, r.y), (r.x + r.w, r.y), (r.x + r.w, r.y + r.h), (r.x, r.y + r.h)])
    return np.array(src, np.float32), np.array(dst, np.float32)


def _homography(src: npt.NDArray[np.float32], dst_mm: npt.NDArray[np.float32]) -> npt.NDArray[np.float64]:
    """Photo -> rectified sheet (px at :data:`SCALE`)."""
    h, _ = cv2.findHomography(src, dst_mm * SCALE, cv2.RANSAC, 1.0 * SCALE)
    if h is None:
        raise NotASheet("no game sheet here: its corner markers do not make a page")
    corners = np.array([[[0, 0]], [[FRAME_W, 0]], [[FRAME_W, FRAME_H]], [[0, FRAME_H]]], np.float64) * SCALE
    quad = cv2.perspectiveTransform(corners, np.linalg.inv(h)).reshape(4, 2)
    if (
        not cv2.isContourConvex(quad.astype(np.float32))
        or cv2.contourArea(quad.astype(np.float32)) < 200 * 200
    ):
        raise NotASheet("no game sheet here: its corner markers do not make a page")
    return np.asarray(h, np.float64)


def _qr(image: Image, h: npt.NDArray[np.float64], markers: Sequence[int] = ()) -> str:
    """The text of the sheet's QR code, cut out of the photo (grey) through the homography: the main code,
    else the spare one (:data:`SPARE_QR_BOX`: the same sheet's identity, elsewhere on it), each first as
    photographed, then with the blur its corner markers show undone. :class:`NotASheet` (naming both
    codes, and how to retake the photo) when neither reads: never a guess."""
    patches = [_qr_patch(image, h, place) for place in (QR_BOX, SPARE_QR_BOX)]
    det = cv2.QRCodeDetector()
    for patch, (_, _, side) in zip(patches, (QR_BOX, SPARE_QR_BOX), strict=True):
        text = _qr_text(det, patch, side, whole=True)
        if text:
            return text
    smear, kernels = 0.0, list[Floats]()
    if markers:
        # A shaken phone: the blur is measured on the corner markers (a pattern known exactly) and undone on
        # the codes' squares, so the codes are not the first thing a blurred photo loses.
        smear, kernels = _blur(image, h, markers)
        for patch, (_, _, side) in zip(patches, (QR_BOX, SPARE_QR_BOX), strict=True):
            for kernel in kernels:
                for nsr in _NSR:
                    text = _qr_text(det, _wiener(patch, kernel, nsr), side, whole=False)
                    if text:
                        return text
    raise _Unread(smear, kernels)


class _Unread(Exception):
    """Neither QR code reads: the blur the corner markers show (its length in mm, the likeliest blurs),
    for the printed header's reading (:func:`_printed`) and the refusal's sentence (:func:`_unread`)."""

    def __init__(self, smear: float, kernels: list[Floats]) -> None:
        super().__init__("no readable QR code")
        self.smear, self.kernels = smear, kernels


def _unread(h: npt.NDArray[np.float64], smear: float, *, printed: bool) -> NotASheet:
    """The refusal of a sheet neither of whose codes reads (nor, when ``printed``, its printed match id):
    it says what was measured, so the retake can fix it: the sheet too small in the photo (too far), or
    the photo shaken; else the codes themselves (glare, a fold, ink)."""
    density, need, smeared = (f"{v:.1f}" for v in (_density(h), DENSE_ENOUGH, smear))
    if _density(h) < DENSE_ENOUGH:
        return NotASheet.said(NO_ID_FAR if printed else NO_QR_FAR, density=density, need=need)
    if smear >= SHAKEN:
        return NotASheet.said(NO_ID_SHAKEN if printed else NO_QR_SHAKEN, smear=smeared)
    return NotASheet.said(NO_ID if printed else NO_QR)


def _printed(gray: Image, h: npt.NDArray[np.float64], unread: _Unread, given: str | None = None) -> Header:
    """The header read from the printed text when neither code reads (:mod:`.printed`): the match id and
    the ruleset, the printed players' names and the sheet's number when read for certain (else none: the
    command line's ``--players`` names them, else the sides' letters), flagged
    ``printed`` (a judge checks it); :class:`NotASheet` (how to retake the photo, or name the sheet with
    ``--match``) when the id is not read for certain, or Tesseract is not installed. ``given``: the id
    ``--match`` gives this sheet: the sheet is read with it when its own cannot be (``given``, flagged:
    a judge named it), the ruleset then the one printed when that is read (else ``""``: the command
    line's ``--ruleset`` says it)."""
    from replay.sources.scan import printed

    if not printed.available() and given is None:
        raise _unread(h, unread.smear, printed=False)
    k = printed.SCALE / SCALE
    band = printed.MATCH_BAND
    to = np.array([[k, 0, -band.x * printed.SCALE], [0, k, -band.y * printed.SCALE], [0, 0, 1]]) @ h
    size = (round(band.w * printed.SCALE), round(band.h * printed.SCALE))
    line = cv2.warpPerspective(gray, to, size, flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    undone = [_wiener(line, kernel, nsr) for kernel in unread.kernels[:3] for nsr in (0.005, 0.02)]
    got = printed.read_printed(gray, h, unread.kernels, _density(h), [line, *undone], given)
    # its own id read from print, else (issue 39) the one a judge gives by hand (import scan --match)
    # rather than the photo retaken; either way the rest of its header read from print: the names, the
    # number (only as the id's .n), the context
    own = got.match is not None and got.ruleset is not None
    match = got.match if own else given
    if match is not None:
        sheet, count = got.number or (None, None)
        return Header(
            match=match,
            players=got.players,
            ruleset=got.ruleset or "",
            sheet=sheet,
            count=count,
            context=dict(got.context or {}),
            printed=True,
            given=not own,
            printed_lang=got.lang,
        )
    raise _unread(h, unread.smear, printed=printed.available())


#: Photo pixels a millimetre of the sheet below which its codes' modules (0.5-0.7 mm) are under 1-1.4 px
#: and seldom read (a photo at 1.75 was read, at 1.4 not): a refusal then says the sheet is too far (its
#: wording only: every photo is tried first).
DENSE_ENOUGH: Final = 2.0
#: A blur measured on the corner markers this long (mm of the sheet) or longer: a refusal says "shaken".
SHAKEN: Final = 0.6


def _density(h: npt.NDArray[np.float64]) -> float:
    """Photo pixels per millimetre of the sheet's frame (the mean over its area)."""
    corners = np.array([[[0, 0]], [[FRAME_W, 0]], [[FRAME_W, FRAME_H]], [[0, FRAME_H]]], np.float64) * SCALE
    quad = cv2.perspectiveTransform(corners, np.linalg.inv(h)).reshape(4, 2).astype(np.float32)
    return float(np.sqrt(cv2.contourArea(quad) / (FRAME_W * FRAME_H)))


_QR_MARGIN: Final = 2.0  # mm of the photo kept around a code's square


def _qr_patch(image: Image, h: npt.NDArray[np.float64], place: tuple[float, float, float]) -> Image:
    """The square ``place`` (x, y, side in frame mm) and :data:`_QR_MARGIN` around it, at
    :data:`QR_SCALE` px/mm."""
    x0, y0, side = place
    margin = _QR_MARGIN
    k = QR_SCALE / SCALE
    to_qr = np.array([[k, 0, -(x0 - margin) * QR_SCALE], [0, k, -(y0 - margin) * QR_SCALE], [0, 0, 1]]) @ h
    n = round((side + 2 * margin) * QR_SCALE)
    return cv2.warpPerspective(image, to_qr, (n, n), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)


def _qr_text(det: Any, patch: Image, side: float, *, whole: bool) -> str:
    """The text of the code in ``patch`` ("" when none decodes). The symbol's place is known, and its size
    for each QR version the printer may use: its modules are sampled, each against its neighbourhood, and
    the clean symbol that gives is decoded (Reed-Solomon corrects the modules sampled wrong). This reads
    codes too blurred for OpenCV's own detector, in a fraction of its time; the detector (``whole``) is
    the last resort."""
    for version in range(QR_MIN_VERSION, QR_MAX_VERSION + 1):
        clean = _resample(patch, version, side, _QR_MARGIN)
        if clean is not None:
            text = _decode(det, clean, 17 + 4 * version)
            if text:
                return text
    return _decode(det, patch) if whole else ""


@cache
def _ideal_marker(marker_id: int) -> Floats:
    """Marker ``marker_id`` with 2 mm of paper around it, as printed (0 ink, 1 paper), at
    :data:`QR_SCALE` px/mm."""
    dictionary = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50)
    cells = cv2.aruco.generateImageMarker(dictionary, marker_id, 6).astype(np.float32) / 255.0
    side = round(MARKER * QR_SCALE)
    img = cv2.resize(cells, (side, side), interpolation=cv2.INTER_NEAREST)
    pad = round(2 * QR_SCALE)
    return np.asarray(cv2.copyMakeBorder(img, pad, pad, pad, pad, cv2.BORDER_CONSTANT, value=1.0), np.float32)


@cache
def _motion(length: int, angle: int, sigma: float) -> Floats:
    """A straight motion blur of ``length`` px at ``angle`` degrees, after a Gaussian of ``sigma`` (the
    lens and the resampling), sum 1."""
    n = length + 2 * round(3 * sigma) + 3
    k = np.zeros((n, n), np.float32)
    c = (n - 1) / 2
    dx, dy = np.cos(np.radians(angle)) * length / 2, np.sin(np.radians(angle)) * length / 2
    p0, p1 = (round((c - dx) * 16), round((c - dy) * 16)), (round((c + dx) * 16), round((c + dy) * 16))
    cv2.line(k, p0, p1, 1.0, 1, cv2.LINE_AA, 4)
    soft = np.asarray(cv2.GaussianBlur(k, (0, 0), sigma), np.float32)
    return np.asarray(soft / soft.sum(), np.float32)


_LENGTHS: Final = (1, 3, 5, 7, 9, 12, 15, 19, 24, 30)
#: How many of the likeliest blurs are undone on the codes, best first (each one a try at the codes).
_TRIES: Final = 6
#: The noise-to-signal ratios a blur is undone with (the lower, the sharper and the noisier).
_NSR: Final = (0.002, 0.005, 0.01, 0.02)
#: Lengths tried beside the likeliest blur's, as its multiples.
_STRETCH: Final = (1.15, 0.85, 1.3, 1.5)


def _blur(image: Image, h: npt.NDArray[np.float64], markers: Sequence[int]) -> tuple[float, list[Floats]]:
    """How far the photo is smeared (mm of the sheet, the likeliest blur's length) and the likeliest
    blurs around the QR code, best first: each candidate blur applied to the ideal markers is compared
    with the markers as photographed (rectified at :data:`QR_SCALE`), by correlation (the mean over the
    sheet's markers found: one marker's JPEG blocks and noise mislead the fit), over a coarse grid of
    lengths and directions and then finely around the best (a long blur undone 10 degrees off its
    direction leaves the code as smeared as before). No blur when the photo is sharp (nothing to undo)."""
    k = QR_SCALE / SCALE
    pairs = []
    for marker in markers:
        r = marker_rects()[MARKER_IDS.index(marker)]
        to = np.array([[k, 0, -(r.x - 2) * QR_SCALE], [0, k, -(r.y - 2) * QR_SCALE], [0, 0, 1]]) @ h
        ideal = _ideal_marker(marker)
        n = ideal.shape[0]
        seen = cv2.warpPerspective(image, to, (n, n), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
        obs = seen.astype(np.float32).ravel()
        pairs.append((ideal, (obs - obs.mean()) / max(float(obs.std()), 1e-6)))
    scores: dict[tuple[int, int, float], float] = {}

    def score(length: int, angle: int, sigma: float) -> None:
        key = (length, angle % 180 if length > 1 else 0, sigma)
        if key not in scores:
            total = 0.0
            for ideal, obs in pairs:
                b = cv2.filter2D(ideal, -1, _motion(*key), borderType=cv2.BORDER_REPLICATE).ravel()
                b = (b - b.mean()) / max(float(b.std()), 1e-6)
                total += float(obs @ b) / obs.size
            scores[key] = total / len(pairs)

    for sigma in (1.0, 2.0, 3.0):
        for length in _LENGTHS:
            for angle in range(0, 180, 15) if length > 1 else (0,):
                score(length, angle, sigma)
    best = max(scores, key=lambda t: scores[t])
    if best[0] > 3:
        # finer around the best: lengths a step either side, directions every 5 degrees, the lens between
        for length in range(max(3, round(best[0] * 0.75)), round(best[0] * 1.25) + 2):
            for angle in range(best[1] - 15, best[1] + 16, 5):
                for sigma in (best[2] - 0.5, best[2], best[2] + 0.5):
                    if sigma > 0:
                        score(length, angle, sigma)
    ranked = sorted(scores, key=lambda t: -scores[t])
    length, angle, sigma = ranked[0]
    smear = length / QR_SCALE
    if ranked[0][0] <= 3:
        return smear, []
    # the markers' fit is biased by the JPEG and the lens (a longer blur is taken for a softer one, or
    # the other way): the best direction and lens are also tried a little longer and shorter (below);
    # the lens (sigma) matters little to the undoing, the direction much: the likeliest blurs of distinct
    # lengths and directions are tried, each with its best lens
    distinct: dict[tuple[int, int], tuple[int, int, float]] = {}
    for key in ranked:
        distinct.setdefault(key[:2], key)
        if len(distinct) == _TRIES:
            break
    stretched = ((round(length * f), angle, sigma) for f in _STRETCH)
    keys = list(dict.fromkeys([*distinct.values(), *stretched]))
    return smear, [_motion(*key) for key in keys]


def _wiener(patch: Image, kernel: Floats, nsr: float) -> Image:
    """``patch`` with the blur ``kernel`` undone (Wiener deconvolution, noise-to-signal ``nsr``), 8-bit."""
    hgt, wid = patch.shape[:2]
    padded = np.zeros((hgt, wid), np.float32)
    kh, kw = kernel.shape
    padded[:kh, :kw] = kernel
    padded = np.roll(padded, (-(kh // 2), -(kw // 2)), (0, 1))
    spectrum = np.fft.rfft2(patch.astype(np.float32))
    response = np.fft.rfft2(padded)
    out = np.fft.irfft2(spectrum * np.conj(response) / (np.abs(response) ** 2 + nsr), s=(hgt, wid))
    lo, hi = np.percentile(out, (1, 99))
    return np.asarray(np.clip((out - lo) * (255.0 / max(float(hi - lo), 1e-6)), 0, 255), np.uint8)


def _decode(det: Any, img: Image, modules: int | None = None) -> str:
    """Decode ``img``: a clean symbol of ``modules`` (drawn by :func:`_resample`), else search for one."""
    try:
        if modules is not None:
            # corners in pixel-centre coordinates: half a pixel before the first and after the last
            a, b = 4 * _CELL - 0.5, (4 + modules) * _CELL - 0.5
            pts = np.array([[[a, a], [b, a], [b, b], [a, b]]], np.float32)
            text, _ = det.decode(img, pts)
        else:
            text, _, _ = det.detectAndDecode(img)
    except cv2.error:
        return ""
    return str(text or "")


_CELL: Final = 6  # px per module of a resampled symbol


@cache
def _finder(module: float) -> Floats:
    """A QR finder pattern (7 x 7 modules and its white ring) at ``module`` px per module."""
    m = np.ones((9, 9), np.float32)
    m[1:8, 1:8] = 0.0
    m[2:7, 2:7] = 1.0
    m[3:6, 3:6] = 0.0
    size = max(9, round(9 * module))
    return np.asarray(
        cv2.GaussianBlur(cv2.resize(m, (size, size), interpolation=cv2.INTER_NEAREST), (0, 0), 0.8),
        np.float32,
    )


@cache
def _alignment(module: float) -> Floats:
    """A QR alignment pattern (5 x 5 modules and a light ring) at ``module`` px per module."""
    m = np.ones((7, 7), np.float32)
    m[1:6, 1:6] = 0.0
    m[2:5, 2:5] = 1.0
    m[3, 3] = 0.0
    size = max(7, round(7 * module))
    return np.asarray(
        cv2.GaussianBlur(cv2.resize(m, (size, size), interpolation=cv2.INTER_NEAREST), (0, 0), 0.8),
        np.float32,
    )


def _resample(patch: Image, version: int, side: float, margin: float) -> Image | None:
    n = 17 + 4 * version
    module = side / (n + 8) * QR_SCALE
    origin = margin * QR_SCALE + 4 * module  # the symbol's top left in the patch
    tpl = _finder(module)
    reach = round(1.5 * QR_SCALE)
    src = patch.astype(np.float32)
    found = []
    for cx, cy in ((3.5, 3.5), (n - 3.5, 3.5), (3.5, n - 3.5)):
        ex, ey = origin + cx * module, origin + cy * module
        half = tpl.shape[0] / 2
        wx0, wy0 = round(ex - half - reach), round(ey - half - reach)
        wx1, wy1 = wx0 + tpl.shape[1] + 2 * reach, wy0 + tpl.shape[0] + 2 * reach
        if wx0 < 0 or wy0 < 0 or wx1 > patch.shape[1] or wy1 > patch.shape[0]:
            return None
        res = cv2.matchTemplate(src[wy0:wy1, wx0:wx1], tpl, cv2.TM_CCOEFF_NORMED)
        _, score, _, (mx, my) = cv2.minMaxLoc(res)
        if score < 0.5:
            return None
        found.append((wx0 + mx + half, wy0 + my + half))
    modules = np.array([[3.5, 3.5], [n - 3.5, 3.5], [3.5, n - 3.5]], np.float32)
    affine = cv2.getAffineTransform(modules, np.array(found, np.float32))
    grid = (np.mgrid[0:n, 0:n][::-1].reshape(2, -1).T + 0.5).astype(np.float32)
    centres = cv2.transform(grid.reshape(-1, 1, 2), affine).reshape(n, n, 2)
    # the alignment pattern near the bottom right corner (versions 2 and up), where the three finders
    # put it: found, it makes the map a perspective one (the photo's perspective within the code)
    ax, ay = cv2.transform(np.array([[[n - 6.5, n - 6.5]]], np.float32), affine)[0, 0]
    atpl = _alignment(module)
    ah = atpl.shape[0] / 2
    wx0, wy0 = round(ax - ah - reach / 2), round(ay - ah - reach / 2)
    wx1, wy1 = wx0 + atpl.shape[1] + reach, wy0 + atpl.shape[0] + reach
    if wx0 >= 0 and wy0 >= 0 and wx1 <= patch.shape[1] and wy1 <= patch.shape[0]:
        res = cv2.matchTemplate(src[wy0:wy1, wx0:wx1], atpl, cv2.TM_CCOEFF_NORMED)
        _, score, _, (mx, my) = cv2.minMaxLoc(res)
        if score >= 0.5:
            quad = np.array([*modules, [n - 6.5, n - 6.5]], np.float32)
            seen = np.array([*found, (wx0 + mx + ah, wy0 + my + ah)], np.float32)
            centres = cv2.perspectiveTransform(
                grid.reshape(-1, 1, 2), cv2.getPerspectiveTransform(quad, seen)
            ).reshape(n, n, 2)
    # sharpened first (the blur of the photo spreads ink into light modules), then averaged over the
    # middle of each module
    sharp = cv2.addWeighted(src, 3.0, cv2.GaussianBlur(src, (0, 0), module * 0.4), -2.0, 0.0)
    smooth = cv2.GaussianBlur(sharp, (0, 0), module * 0.25)
    values = cv2.remap(smooth, centres[..., 0], centres[..., 1], cv2.INTER_LINEAR)
    # the threshold is midway between the lightest and the darkest module nearby: blur lightens a lone
    # dark module and darkens a lone light one alike
    k = cv2.getStructuringElement(cv2.MORPH_RECT, (3, 3))
    light = cv2.dilate(values, k, borderType=cv2.BORDER_REPLICATE)
    ink = cv2.erode(values, k, borderType=cv2.BORDER_REPLICATE)
    dark = values < (light + ink) / 2
    cell = _CELL
    clean = np.full(((n + 8) * cell, (n + 8) * cell), 255, np.uint8)
    clean[4 * cell : (4 + n) * cell, 4 * cell : (4 + n) * cell] = np.where(
        np.repeat(np.repeat(dark, cell, 0), cell, 1), 0, 255
    ).astype(np.uint8)
    return clean


def _background(mono: Image) -> Floats:
    """The paper's brightness under the local light: a closing (a max then a min filter, 6.5 mm: wider
    than a filled box) of the sheet at a quarter of its size (averaging first, so the noise does not lift
    it), brought back to full size."""
    h, w = mono.shape
    small = cv2.resize(mono, (w // 4, h // 4), interpolation=cv2.INTER_AREA)
    side = int(6.5 * SCALE / 4) | 1
    closed = cv2.morphologyEx(small, cv2.MORPH_CLOSE, cv2.getStructuringElement(cv2.MORPH_RECT, (side, side)))
    closed = cv2.GaussianBlur(closed, (0, 0), 1.0)
    bg = cv2.resize(closed, (w, h), interpolation=cv2.INTER_LINEAR)
    return np.maximum(np.asarray(bg, np.float32), 24.0)


@cache
def _weights(n: int) -> Floats:
    """Centre weighting of an ``n`` x ``n`` box interior (1 at the centre, 0.3 at the edge), sum 1."""
    t = np.linspace(-1, 1, n, dtype=np.float32)
    w1 = 0.3 + 0.7 * np.cos(t * np.pi / 2) ** 2
    w = np.outer(w1, w1).astype(np.float32)
    return np.asarray(w / w.sum(), np.float32)


REG: Final = 4.0  # px per mm of the registration (half the sheet's scale)
REACH: Final = 1.25  # mm: how far a group of boxes may be from where the homography puts it


_PAD: Final = 0.6  # mm of paper around a group's outlines in its template


@cache
def _outline(shape: tuple[tuple[float, float], ...], w: float, h: float) -> Floats:
    """The printed outlines of a group's boxes (offsets from its first box, in mm) at :data:`REG` px/mm,
    drawn at their exact (sub-pixel) places: the first box's top left corner is at (_PAD, _PAD) mm."""
    xs = [dx for dx, _ in shape]
    ys = [dy for _, dy in shape]
    W = int(np.ceil((max(xs) + w + 2 * _PAD) * REG))
    H = int(np.ceil((max(ys) + h + 2 * _PAD) * REG))
    img = np.zeros((H, W), np.float32)
    k = 16  # cv2 drawing with 4 fractional bits
    for dx, dy in shape:
        x0, y0 = (dx + _PAD) * REG, (dy + _PAD) * REG
        p0 = (round(x0 * k), round(y0 * k))
        p1 = (round((x0 + w * REG) * k), round((y0 + h * REG) * k))
        cv2.rectangle(img, p0, p1, 1.0, 1, cv2.LINE_AA, 4)
    return np.asarray(cv2.GaussianBlur(img, (0, 0), 0.7), np.float32)


def _register(small: Floats, g: Group) -> tuple[float, float, float]:
    """Where ``g``'s boxes really are: (dx, dy) in px of the sheet (:data:`SCALE`) from where the
    homography puts them, found by matching their printed outlines; and how well they matched (-1..1).

    Coordinates are of pixel centres: pixel ``i`` of the half-size copy ``small`` is the mean of the
    sheet's pixels 2i and 2i+1, centred at 2i + 0.5, that is at (2i + 0.5) / SCALE mm.
    """
    first = g.boxes[0]
    shape = tuple((b.x - first.x, b.y - first.y) for b in g.boxes)
    tpl = _outline(shape, first.w, first.h)
    ratio = SCALE / REG
    # where the template's origin falls in ``small`` when the boxes are where the homography says
    ox = first.x * REG - 0.5 / ratio * (ratio - 1) - _PAD * REG
    oy = first.y * REG - 0.5 / ratio * (ratio - 1) - _PAD * REG
    reach = int(np.ceil(REACH * REG))
    x0, y0 = int(np.floor(ox)) - reach, int(np.floor(oy)) - reach
    x1, y1 = x0 + tpl.shape[1] + 2 * reach + 1, y0 + tpl.shape[0] + 2 * reach + 1
    if x0 < 0 or y0 < 0 or x1 > small.shape[1] or y1 > small.shape[0]:
        return 0.0, 0.0, -1.0
    res = cv2.matchTemplate(small[y0:y1, x0:x1], tpl, cv2.TM_CCOEFF_NORMED)
    _, score, _, (mx, my) = cv2.minMaxLoc(res)

    def vertex(a: float, b: float, c: float) -> float:  # the peak of a parabola through three values
        d = a - 2 * b + c
        return 0.0 if d >= 0 else 0.5 * (a - c) / d

    fx = vertex(res[my, mx - 1], res[my, mx], res[my, mx + 1]) if 0 < mx < res.shape[1] - 1 else 0.0
    fy = vertex(res[my - 1, mx], res[my, mx], res[my + 1, mx]) if 0 < my < res.shape[0] - 1 else 0.0
    return (x0 + mx + fx - ox) * ratio, (y0 + my + fy - oy) * ratio, float(score)


def _shifts(dark: Floats) -> tuple[dict[str, tuple[float, float]], int]:
    """Each group's offset, from the outlines of the groups around it (40 mm along the rows, 8 mm across:
    its row and the rows next to it): a line fitted along the row to their offsets (paper curl and lens
    distortion move things smoothly, but not by the same amount across a row), once more without the
    ones that disagree with it by more than 1.5 px (a match pulled aside by a box inked solid)."""
    small = cv2.resize(dark, (dark.shape[1] // 2, dark.shape[0] // 2), interpolation=cv2.INTER_AREA)
    raw = {g.key: _register(small, g) for g in LAYOUT.groups}
    good = [g for g in LAYOUT.groups if raw[g.key][2] >= 0.45]
    centre = {
        g.key: ((g.boxes[0].x + g.boxes[-1].x + g.boxes[-1].w) / 2, g.boxes[0].y) for g in LAYOUT.groups
    }
    gx = np.array([centre[g.key][0] for g in good])
    gy = np.array([centre[g.key][1] for g in good])
    gd = np.array([raw[g.key][:2] for g in good]).reshape(-1, 2)
    out: dict[str, tuple[float, float]] = {}
    for g in LAYOUT.groups:
        cx, cy = centre[g.key]
        near = (np.abs(gx - cx) <= 40) & (np.abs(gy - cy) <= 8)
        if near.sum() < 4:
            own = raw[g.key]
            out[g.key] = own[:2] if own[2] > 0 else (0.0, 0.0)
            continue
        x, d = gx[near] - cx, gd[near]
        keep = np.ones(len(d), bool)
        value = d.mean(axis=0)
        for _ in range(2):
            # a straight line along the row (least squares, closed form), its value here
            xs, ds = x[keep], d[keep]
            mx, md = xs.mean(), ds.mean(axis=0)
            var = float(((xs - mx) ** 2).sum())
            slope = ((xs - mx)[:, None] * (ds - md)).sum(axis=0) / var if var > 1e-9 else np.zeros(2)
            value = md - slope * mx
            resid = np.abs(value + slope * x[:, None] - d).max(axis=1)
            if (resid <= 1.5).sum() < 3:
                break
            keep = resid <= 1.5
        out[g.key] = (float(value[0]), float(value[1]))
    return out, len(good)


@dataclass(slots=True)
class _Light:
    """The rectified sheet's darkest channel, the paper's brightness under the local light, the ink's
    darkness (1 - mono / paper)."""

    mono: Image
    paper: Floats
    dark: Floats


@dataclass(frozen=True, slots=True)
class _Ink:
    """This sheet's own ink and paper, measured on its ~1,000 printed boxes (most of them empty): the
    boxes' interior darkness (:attr:`BoxRead.mass`) has a median and a spread that are the paper's (noise,
    JPEG, blur) and a top that is the pen's. So a faint pencil on a blurred photo is told from the paper
    by the sheet's own figures, not by a constant calibrated on ink.

    ``faint``: above it a box is not surely empty (unclear); ``mark``: from it a box is marked whatever
    share of it passes :data:`INK`; ``level``: a typical mark's darkness (None: too few marks to say).
    The ``core_`` figures are the same for a box's middle (:func:`_mass`), judged against the paper alone
    (its median and spread), whatever the pen: a faint pencil beside a dark pen's marks is still a mark."""

    paper: float
    faint: float
    mark: float
    level: float | None
    core_paper: float = 0.0
    core_faint: float = 1.0
    core_mark: float = 1.0
    pale: float = 1.0  # the paper's own bound on a box's darkness (``faint`` before the pen's floor)
    core_quiet: float = 1.0  # a middle this clean: the box's darkness is at its edges (an overrun)
    # against the paper right around a box (:func:`_near_paper`): its bound on a box's darkness, on its
    # middle's, and the middle's darkness that is a mark (a shadow's edge across a box is not)
    around: tuple[float, float, float] = (1.0, 1.0, 1.0)
    grain: float = 1.0  # from this unevenness (:func:`_grain`) a box holds strokes: a JPEG block does not
    edges: tuple[float, float, float, float] = (
        0.0,
        0.0,
        0.0,
        0.0,
    )  # the sheet's median of :func:`_edges`: the
    # printed box's own (its borders as this photo blurs them, and the paper)
    bleed: float = 1.0  # how far this photo spreads a printed line (:func:`_bleed`); at most SHARP: sharp
    # the least darkness of a stroke across a box's edges (:func:`_sweep`): STROKE, or more on a photo
    # whose paper and printed lines are that uneven in the strips (FLOOR times the sheet's median)
    floor: float = 0.05


_NO_INK: Final = _Ink(0.0, 1.0, 1.0, None)


def _ink(
    masses: list[tuple[float, float, float, float, float]], centres: list[tuple[float, float]]
) -> tuple[_Ink, list[tuple[float, float]]]:
    """The sheet's :class:`_Ink`, and each box's local paper: how much darker than the sheet's median
    the boxes around it are (the median of those within 12 mm along the row and 7 mm across: the light
    under a shadow's edge, a fold's crease), which is taken off its darkness before it is judged; the
    same for the boxes' middles (:func:`_mass`), in :attr:`BoxRead.core` terms."""
    every = np.asarray(masses, np.float64).reshape(-1, 5)
    gm = float(np.median(every[:, 4]))
    grain = gm + max(8 * 1.4826 * float(np.median(np.abs(every[:, 4] - gm))), 0.02)
    both = every[:, :2]
    # against the paper right around each box (:func:`_near_paper`): its own median and spread
    pm, pc = float(np.median(every[:, 2])), float(np.median(every[:, 3]))
    ps = 1.4826 * float(np.median(np.abs(every[:, 2] - pm)))
    cs = 1.4826 * float(np.median(np.abs(every[:, 3] - pc)))
    around = (pm + max(8 * ps, 0.008), pc + max(8 * cs, 0.01), pc + max(25 * cs, 0.03))
    xy = np.asarray(centres, np.float64)
    near = (np.abs(xy[:, None, 0] - xy[None, :, 0]) <= 12.0) & (
        np.abs(xy[:, None, 1] - xy[None, :, 1]) <= 7.0
    )
    meds, sigmas, offsets = [], [], []
    for m in (both[:, 0], both[:, 1]):
        med = float(np.median(m))
        local = np.nanmedian(np.where(near, m[None, :], np.nan), axis=1)
        off = np.maximum(local - med, 0.0)
        meds.append(med)
        sigmas.append(1.4826 * float(np.median(np.abs(m - off - med))))
        offsets.append(off)
    med, sigma = meds[0], sigmas[0]
    e = both[:, 0] - offsets[0]
    # the middle of a box: not surely empty above the paper by 8 of its spreads (a faint pencil stroke
    # across it, beside any pen: a neighbour's overrun does not reach it); marked, though faint, above 25
    core = (meds[1], meds[1] + max(8 * sigmas[1], 0.01), meds[1] + max(25 * sigmas[1], 0.03))
    faint = med + max(10 * sigma, 0.015)
    quiet = (med + max(8 * sigma, 0.008), meds[1] + max(4 * sigmas[1], 0.005))
    marks = e[e > med + max(20 * sigma, 0.03)]
    both_off = [(float(o), float(c)) for o, c in zip(offsets[0], offsets[1], strict=True)]
    if len(marks) < 3:
        return _Ink(med, faint, 1.0, None, *core, *quiet, around=around, grain=grain), both_off
    level = float(np.median(marks))
    # a dark pen's overrun into a neighbour is darker than the paper: above the paper, a box whose middle
    # is clean (``core_quiet``) is empty up to a tenth of the pen's typical mark
    faint = max(faint, med + 0.1 * (level - med))
    # a mark is at least 40 % as dark as the sheet's typical one, and clear of the paper
    ink = _Ink(
        med,
        faint,
        max(faint + 0.015, med + 0.4 * (level - med)),
        level,
        *core,
        *quiet,
        around=around,
        grain=grain,
    )
    return ink, both_off


def _interior(light: _Light, b: Rect, shift: tuple[float, float]) -> tuple[int, int, int] | None:
    n = round((b.w - 2 * INSET) * SCALE)
    x0 = round((b.x + INSET) * SCALE + shift[0])
    y0 = round((b.y + INSET) * SCALE + shift[1])
    hgt, wid = light.dark.shape
    if x0 < 0 or y0 < 0 or x0 + n > wid or y0 + n > hgt:
        return None
    return x0, y0, n


CORE: Final = 0.5  # mm further in than :data:`INSET`: the box's middle, where a mark's strokes cross


def _mass(light: _Light, b: Rect, shift: tuple[float, float]) -> tuple[float, float]:
    """A box's interior darkness (centre-weighted) and its middle's (the mean over the interior less
    :data:`CORE` on each side: where every mark crosses and a neighbour's overrun never reaches)."""
    at = _interior(light, b, shift)
    if at is None:
        return 0.0, 0.0
    x0, y0, n = at
    inside = light.dark[y0 : y0 + n, x0 : x0 + n]
    c = round(CORE * SCALE)
    return float((inside * _weights(n)).sum()), float(inside[c : n - c, c : n - c].mean())


def _masses(light: _Light, b: Rect, shift: tuple[float, float]) -> tuple[float, float, float, float, float]:
    """:func:`_mass` and :func:`_near_paper`: against the sheet's paper estimate and against the paper
    right around the box; and :func:`_grain`."""
    return (*_mass(light, b, shift), *_near_paper(light, b, shift), _grain(light, b, shift))


def _grain(light: _Light, b: Rect, shift: tuple[float, float]) -> float:
    """How uneven a box's interior is (its darkest twentieth against its lighter two thirds): a stroke,
    however faint, is; a JPEG block's shifted mean or a soft shadow over the box is not."""
    at = _interior(light, b, shift)
    if at is None:
        return 0.0
    x0, y0, n = at
    lo, hi = np.percentile(light.dark[y0 : y0 + n, x0 : x0 + n], (33, 95))
    return float(hi - lo)


def _near_paper(light: _Light, b: Rect, shift: tuple[float, float]) -> tuple[float, float]:
    """A box's darkness (centre-weighted) and its middle's (the mean over the interior less :data:`CORE`
    on each side: where every mark crosses and a neighbour's overrun never reaches), each against the
    paper right above and below it: per column, the brightest part of the strips 0.35-1.0 mm out,
    interpolated down the box. The sheet's paper estimate (a closing 6.5 mm wide) takes the light side of
    a shadow's edge that crosses a box, and the shadow would read as a faint mark."""
    at = _interior(light, b, shift)
    hgt = light.mono.shape[0]
    top0, top1 = round((b.y - 1.0) * SCALE + shift[1]), round((b.y - 0.35) * SCALE + shift[1])
    bot0 = round((b.y + b.h + 0.35) * SCALE + shift[1])
    bot1 = round((b.y + b.h + 1.0) * SCALE + shift[1])
    if at is None or top0 < 0 or bot1 > hgt:
        return 0.0, 0.0
    x0, y0, n = at
    cols = slice(x0, x0 + n)
    above = np.percentile(light.mono[top0:top1, cols], 75, axis=0).astype(np.float32)
    below = np.percentile(light.mono[bot0:bot1, cols], 75, axis=0).astype(np.float32)
    above = cv2.blur(above.reshape(1, -1), (3, 1)).ravel()
    below = cv2.blur(below.reshape(1, -1), (3, 1)).ravel()
    mid_top, mid_bot = (top0 + top1 - 1) / 2, (bot0 + bot1 - 1) / 2
    t = ((np.arange(n, dtype=np.float32) + y0 - mid_top) / (mid_bot - mid_top))[:, None]
    paper = np.maximum(above[None, :] * (1 - t) + below[None, :] * t, 1.0)
    inside = np.maximum(1.0 - light.mono[y0 : y0 + n, cols].astype(np.float32) / paper, 0.0)
    c = round(CORE * SCALE)
    return float((inside * _weights(n)).sum()), float(inside[c : n - c, c : n - c].mean())


#: A box's corners in pixels, and the strips just past its edges: (x0, x1, y0, y1, the strips 0.35-1.0 mm
#: above and below it as row spans, the strips 0.3-0.7 mm left and right of it as column spans)
_Spans = tuple[int, int, int, int, tuple[tuple[int, int], ...], tuple[tuple[int, int], ...]]


def _strips(dark: Floats, b: Rect, shift: tuple[float, float]) -> _Spans | None:
    """Where a box and the strips just past its four edges are in the photo (:data:`_Spans`); None where a
    strip would leave it (the sheet's edge)."""
    hgt, wid = dark.shape

    def px(v: float, d: float) -> int:
        return round(v * SCALE + d)

    x0, x1 = px(b.x, shift[0]), px(b.x + b.w, shift[0])
    y0, y1 = px(b.y, shift[1]), px(b.y + b.h, shift[1])
    rows = (
        (px(b.y - 1.0, shift[1]), px(b.y - 0.35, shift[1])),
        (y1 + round(0.35 * SCALE), y1 + round(SCALE)),
    )
    cols = (
        (px(b.x - 0.7, shift[0]), px(b.x - 0.3, shift[0])),
        (x1 + round(0.3 * SCALE), x1 + round(0.7 * SCALE)),
    )
    if rows[0][0] < 0 or cols[0][0] < 0 or rows[1][1] > hgt or cols[1][1] > wid:
        return None
    return x0, x1, y0, y1, rows, cols


def _edges(dark: Floats, b: Rect, shift: tuple[float, float]) -> tuple[float, float, float, float] | None:
    """How inked the paper all along a box's edges is: the least inked third of the strips 0.35-1.0 mm
    above and below it, and of the strips 0.3-0.7 mm beside it (the gap to its neighbours); and how
    surely strokes cross each third of its top and bottom, or of its two sides (the least, over the
    thirds, of the darkest line across the strip: a zigzag's strokes, a hatching's lines); None at the
    sheet's edge."""
    at = _strips(dark, b, shift)
    if at is None:
        return None
    x0, x1, y0, y1, rows, cols = at
    tx, ty = (x1 - x0) / 3, (y1 - y0) / 3
    tops = [dark[a:z, round(x0 + k * tx) : round(x0 + (k + 1) * tx)] for a, z in rows for k in range(3)]
    sides = [dark[round(y0 + k * ty) : round(y0 + (k + 1) * ty), a:z] for a, z in cols for k in range(3)]
    across = min(float(t.mean()) for t in tops)
    beside = min(float(t.mean()) for t in sides)
    crossed = max(
        min(float(t.mean(axis=0).max()) for t in tops), min(float(t.mean(axis=1).max()) for t in sides)
    )
    # the tips of a zigzag that only just passes the edges: 0.2-0.55 mm out, each third of the top and the
    # bottom has a stroke's end beside paper (the darkest column against the lightest); a mark's ink that
    # overruns an edge all along it (a filled box) is even along it
    near = (
        (round((b.y - 0.55) * SCALE + shift[1]), round((b.y - 0.2) * SCALE + shift[1])),
        (y1 + round(0.2 * SCALE), y1 + round(0.55 * SCALE)),
    )
    ends = [
        dark[a:z, round(x0 + k * tx) : round(x0 + (k + 1) * tx)].mean(axis=0)
        for a, z in near
        for k in range(3)
    ]
    tips = min(float(e.max() - e.min()) for e in ends)
    return across, beside, crossed, tips


def _bleed(dark: Floats, b: Rect, shift: tuple[float, float]) -> tuple[float, float] | None:
    """How this photo spreads a box's printed top and bottom lines: (their darkness 0.2-0.55 mm out, where
    :func:`_edges` looks for a zigzag's tips; the lines' own darkness: the darkest row within 0.25 mm of
    each); None at the sheet's edge. The sheet's medians (its boxes are mostly empty) give
    :attr:`_Ink.bleed`: about a quarter on a sharp phone photo, a half and more on one shaken up and down
    (a shake along the rows leaves it low: nor does it carry a mark's strokes past the top and bottom)."""
    hgt = dark.shape[0]

    def px(v: float, d: float) -> int:
        return round(v * SCALE + d)

    x0, x1 = px(b.x, shift[0]), px(b.x + b.w, shift[0])
    y0, y1 = px(b.y, shift[1]), px(b.y + b.h, shift[1])
    r = round(0.25 * SCALE)
    if y0 - r < 0 or y1 + round(0.55 * SCALE) > hgt:
        return None
    # the rows' means from 0.55 mm out to the line's inner side: one slice an edge
    a, z = px(b.y - 0.55, shift[1]), px(b.y - 0.2, shift[1])
    top = dark[a : y0 + r + 1, x0:x1].mean(axis=1)
    n0, n1 = y1 + round(0.2 * SCALE), y1 + round(0.55 * SCALE)
    bottom = dark[y1 - r : n1, x0:x1].mean(axis=1)
    out = (float(top[: z - a].mean()) + float(bottom[n0 - (y1 - r) :].mean())) / 2
    line = (float(top[y0 - r - a :].max()) + float(bottom[: 2 * r + 1].max())) / 2
    return out, line


#: A stroke that runs across the whole paper gap under a box (0.35-2.25 mm under it, over the printed row
#: line) and up into the box, at least this dark against the box's own strokes, comes from the row below:
#: a tick there whose long arm sweeps up and right into this box. A mark's own strokes stop short of the
#: row line (a tick's vertex is at most ~1 mm under its box), so a box it enters is unclear, never marked.
JOINED: Final = 0.35
JOINED_MARK: Final = 0.135  # ... such a box this full is read as marked (flagged): a passing arm fills less
_GAP: Final = (0.35, 2.25)  # mm under a box: the paper gap to the next row's box (2.6 mm), less its edges
_SWAY: Final = 2  # px a stroke's path may move sideways from one pixel row of the gap to the next
#: A tick's stroke where it crosses the strip just past an edge: at most this wide (mm), blur included.
#: A scribble crosses an edge in several places (a zigzag's tips, a hatching's lines) or all along it
#: (a loop, a line drawn beside the edge).
NARROW: Final = 1.6
#: ... a crossing: the strip's darkness per column (per row beside the box) this share of the darkest
#: crossing's above the strip's own paper (its lower quartile: the printed border's blur is even along it)
RUN: Final = 0.5
#: ... read as marked when some of its ink is in the box's middle, not only on and past its edges (a
#: shadow's edge and the noise of a photo at its worst cross the strips too)
TICKED: Final = 0.02
STROKE: Final = 0.05  # a crossing at least this dark is a pen or pencil stroke, not the paper's grain
FLOOR: Final = 2.5  # ... and at least this many times the sheet's median box's darkest "crossing"


def _joined(dark: Floats, b: Rect, shift: tuple[float, float]) -> float | None:
    """How dark the darkest stroke is that runs unbroken across the paper gap under a box and up into it
    (the least darkness along the best path, each pixel row against that row's median across the window:
    the printed row line, the paper and the boxes' blurred borders are even along a row, a stroke is
    not); None at the sheet's edge. A mark's own strokes stop short of the row line (a tick's vertex is
    at most ~1 mm under its box); a neighbouring tick's arm, drawn up from the row below, crosses it."""
    hgt, wid = dark.shape
    a, z = round((b.y + b.h + _GAP[0]) * SCALE + shift[1]), round((b.y + b.h + _GAP[1]) * SCALE + shift[1])
    x0, x1 = round((b.x - 2.5) * SCALE + shift[0]), round((b.x + b.w + 2.5) * SCALE + shift[0])
    if a < 0 or x0 < 0 or z > hgt or x1 > wid:
        return None
    gap = dark[a:z, x0:x1].astype(np.float32)
    gap = gap - np.median(gap, axis=1, keepdims=True)
    # from the row below up to this box: each row's best path is the least of its own darkness and the
    # best path of the row under it within _SWAY pixels
    best = gap[-1]
    kernel = np.ones((1, 2 * _SWAY + 1), np.uint8)
    for row in gap[-2::-1]:
        best = np.minimum(row, cv2.dilate(best.reshape(1, -1), kernel).ravel())
    # ... entering the box: within its columns where the gap meets its bottom edge
    m = round(2.5 * SCALE)
    return float(best[m - 2 : best.size - m + 2].max())


def _crossings(profile: npt.NDArray[np.float32], level: float) -> tuple[int, int]:
    """The places a strip's profile is crossed by strokes at least ``level`` dark: how many, and the
    widest's width in pixels (two closer than 2 px are one, a blurred stroke's dip)."""
    on = np.flatnonzero(profile >= level)
    if on.size == 0:
        return 0, 0
    breaks = np.flatnonzero(np.diff(on) > 3)
    starts, ends = np.r_[on[0], on[breaks + 1]], np.r_[on[breaks], on[-1]]
    return int(starts.size), int((ends - starts).max()) + 1


def _percentile(values: Floats, q: float) -> float:
    """``np.percentile(values, q)`` over all of ``values`` (its default, linear method, in their own
    precision: the same value to the last bit), without its ~40 µs of overhead a call: five calls a box,
    ~1,000 boxes a sheet."""
    ranked = np.sort(values, axis=None)
    at = (ranked.size - 1) * (q / 100)
    lo = int(at)
    t = at - lo  # a Python float, as numpy's own weight: it meets the values in their precision
    a, b = ranked[lo], ranked[min(lo + 1, ranked.size - 1)]
    return float(a + (b - a) * t if t < 0.5 else b - (b - a) * (1 - t))


@dataclass(frozen=True, slots=True)
class _Strokes:
    """The strokes across a box's edges and the gap under it (:func:`_strokes`), measured once a box: the
    sheet's floor is their median (:func:`_read_one`), and each box is judged against it (:func:`_sweep`)."""

    bumps: tuple[npt.NDArray[np.floating[Any]], ...]  # top, bottom (per column), left, right (per row)
    quiet: tuple[float, ...]  # each strip's own paper: its lower quartile
    peak: float  # the darkest crossing, above its strip's paper
    joined: float  # the darkest stroke from the row below into the box (:func:`_joined`)


def _strokes(dark: Floats, b: Rect, shift: tuple[float, float]) -> _Strokes | None:
    """How strokes cross the strips just past a box's four edges, each against its own lower quartile
    (the printed border's blur is even along it), and the stroke from the row below (:func:`_joined`).
    None at the sheet's edge."""
    at = _strips(dark, b, shift)
    joined = _joined(dark, b, shift) if at is not None else None
    if at is None or joined is None:
        return None
    x0, x1, y0, y1, rows, cols = at
    # top, bottom (per column), left, right (per row): each against its own lower quartile
    profiles = [dark[a:z, x0:x1].mean(axis=0) for a, z in rows] + [
        dark[y0:y1, a:z].mean(axis=1) for a, z in cols
    ]
    quiet = tuple(_percentile(p, 25) for p in profiles)
    bumps = tuple(p - q for p, q in zip(profiles, quiet, strict=True))
    return _Strokes(bumps, quiet, max(float(p.max()) for p in bumps), joined)


def _sweep(strokes: _Strokes, ink: _Ink) -> tuple[bool, bool, bool]:
    """Is a box's ink a tick; do strokes cross its bottom edge and its top or right one (as a tick's do);
    does its own stroke leave it as a tick's arm does? A tick crosses the box's edges at one place each at
    most: its vertex under the bottom edge (a natural, sweeping tick's is below the box), its long arm out
    by the right or top edge, its start by the left; a scribble past the edges crosses one of them in
    several places or all along it. Nothing crosses below the sheet's own floor (:attr:`_Ink.floor`)."""
    peak, quiet, bumps = strokes.peak, strokes.quiet, strokes.bumps
    if peak < ink.floor:
        return False, False, False
    level = RUN * peak
    found = [_crossings(p, level) for p in bumps]
    narrow = round(NARROW * SCALE)
    # the strips' own paper no darker than the sheet's there (a scribble darkens a strip all along)
    clean = (
        max(quiet[0], quiet[1]) - ink.edges[0] <= level and max(quiet[2], quiet[3]) - ink.edges[1] <= level
    )
    tick = (
        clean
        and found[1][0] == 1
        and (found[0][0] == 1 or found[3][0] == 1)
        and all(n <= 1 and w <= narrow for n, w in found)
    )
    touched = found[1][0] >= 1 and (found[0][0] >= 1 or found[3][0] >= 1)
    # a tick's own arm leaves the box by its top, or by the top third of its right side (a stroke from
    # the row below ends in the box's lower half; the right neighbour's tick starts beside its middle)
    leaves = found[0][0] >= 1 or _crossings(bumps[3][: bumps[3].size // 3], level)[0] >= 1
    return tick, touched, leaves


def _swept(strokes: _Strokes | None, ink: _Ink, inside: Floats) -> tuple[bool, bool, bool]:
    """Is a box's ink shaped as a natural, sweeping tick (:func:`_sweep`); do strokes cross its edges
    as a tick's do; and does a stroke run into it from the row below, as dark as :data:`JOINED` of the
    box's own strokes (or of the darkest across its edges, whichever is darker)?"""
    if strokes is None:
        return False, False, False
    tick, touched, leaves = _sweep(strokes, ink)
    own = max(strokes.peak, _percentile(inside, 90) - ink.paper)
    joined = strokes.joined >= ink.floor and strokes.joined >= JOINED * own
    # a box a stroke from the row below enters, whose own stroke leaves it as a tick's arm does: its tick
    return tick or (joined and leaves), touched, joined


def _box(
    light: _Light,
    b: Rect,
    shift: tuple[float, float],
    ink: _Ink = _NO_INK,
    local: tuple[float, float] = (0.0, 0.0),
    strokes: _Strokes | None = None,
    around: tuple[float, float, float] | None = None,
) -> BoxRead:
    """One box read against the sheet's own ink (:class:`_Ink`); ``strokes``: its strokes across its
    edges, and ``around``: its :func:`_near_paper` and :func:`_grain`, when :func:`_read_one` measured
    them already (else measured here)."""
    dark = light.dark
    at = _interior(light, b, shift)
    hgt = dark.shape[0]
    if at is None:
        return BoxRead(0.0, False, "unclear")
    x0, y0, n = at
    weights = _weights(n)
    inside = dark[y0 : y0 + n, x0 : x0 + n]
    fill = float(((inside > INK) * weights).sum())
    mass = float((inside * weights).sum())
    c = round(CORE * SCALE)
    core = float(inside[c : n - c, c : n - c].mean()) - local[1]
    local_mass = local[0]
    # ... and against the paper right around it: a shadow's edge across the box is not ink there
    if around is None:
        near, grain = _near_paper(light, b, shift), _grain(light, b, shift)
    else:
        near, grain = (around[0], around[1]), around[2]
    # the strips of paper 0.35-1.0 mm above and below the box
    bx0, bx1 = round(b.x * SCALE + shift[0]), round((b.x + b.w) * SCALE + shift[0])
    top0, top1 = round((b.y - 1.0) * SCALE + shift[1]), round((b.y - 0.35) * SCALE + shift[1])
    bot0, bot1 = round((b.y + b.h + 0.35) * SCALE + shift[1]), round((b.y + b.h + 1.0) * SCALE + shift[1])
    strips = top0 >= 0 and bot1 <= hgt
    scribbled = shadowed = maybe = False
    spill = 0.0
    # Cancelled (the sheet's printed rule: "scribble it out past the box's edges"): a box inked solid, or
    # at least as dark as this sheet's typical mark (a zigzag, a cross-hatch, a loop, in pencil too), whose
    # ink also runs past both its top and its bottom edge, in the middle of them (where no tick, cross or
    # slash of a mark reaches).
    heavy = fill >= SOLID or (ink.level is not None and mass >= 0.7 * ink.level and mass >= ink.mark)
    if heavy and strips:
        m = round(0.3 * b.w * SCALE)
        above = float(dark[top0:top1, bx0 + m : bx1 - m].mean())
        below = float(dark[bot0:bot1, bx0 + m : bx1 - m].mean())
        edges = _edges(dark, b, shift)
        if ink.level is None or edges is None:
            scribbled = above > SPILL and below > SPILL
        else:
            # A scribble past the edges (a loop, a zigzag, a cross-hatch) darkens the paper all along the
            # box's top and bottom edges, or (a hatching of lines across) all along both its sides; a mark's
            # stroke that overruns them crosses one or two places (a tick's end, a cross's corners). So:
            # the least inked third of each strip, above what the printed box itself gives there (the
            # sheet's median: its borders as this photo blurs them, the paper), against the box.
            excess = max(edges[0] - ink.edges[0], edges[1] - ink.edges[1])
            spill = excess / max(mass - ink.paper, 1e-6)
            # ... or strokes cross every third of both edges (an up-and-down zigzag's, a hatching's lines),
            # as dark as the pen's strokes in the box: a mark's overrun crosses one or two of them
            stroke = _percentile(inside, 90)
            crossing = max(edges[2] - ink.edges[2], edges[3] - ink.edges[3]) / max(stroke - ink.paper, 1e-6)
            # ... a zigzag that only just passes the edges: its tips, on a sharp photo, need less (a mark's
            # strokes do not reach 0.2 mm past the edges there; blurred, they do)
            tips = (edges[3] - ink.edges[3]) / max(stroke - ink.paper, 1e-6)
            tipped = tips >= (TIPS if ink.bleed <= SHARP else CROSSED)
            # a scribble is also denser than the sheet's typical mark: it weighs with less spill
            dense = mass >= DENSE * ink.level
            inked = excess > ink.pale - ink.paper
            scribbled = inked and (
                spill >= CANCELLED or (dense and spill >= 0.8 * CANCELLED) or crossing >= CROSSED or tipped
            )
            maybe = inked and (
                spill >= MAYBE_CANCELLED
                or (dense and spill >= MAYBE_CANCELLED / 2)
                or crossing >= CROSSED / 2
            )
            # ... and as before the printed box's own share was taken off (its borders blurred into the
            # strips): never fewer boxes flagged than that (a blurred photo's heavy box, a spill unclear)
            before = (edges[0] - ink.paper) / max(mass - ink.paper, 1e-6)
            if ink.bleed > SHARP:
                # A blurred photo carries a true mark's ink past the box's top and bottom as it carries the
                # printed lines' (:attr:`_Ink.bleed`), and the strips the printed box darkens look
                # spilled: on it alone the box is unclear (read as marked, flagged), never cancelled. What
                # is left past the printed box's own, against the box and the photo's bleed, stays low for
                # a true mark (at most 0.28 on the harder set's medium level, 80 photos, 0.13 but for
                # the end box beside its printed labels) where a scribble's strokes go past the edges:
                # a box denser than the sheet's marks is cancelled from :data:`BLURRED`.
                past = (edges[0] - ink.edges[0]) / max(mass - ink.paper, 1e-6) / ink.bleed
                scribbled = scribbled or (dense and past >= BLURRED)
                maybe = maybe or (dense and past >= MAYBE_BLURRED)
                # ... and cancelled as before when the box's own spill past the printed box's is a
                # scribble's too (:data:`OWN_SPILL`: a true mark's stayed under 0.09 there, 80 photos)
                if edges[0] > ink.faint:
                    was = before >= CANCELLED or (dense and before >= 0.8 * CANCELLED)
                    scribbled = scribbled or (was and inked and spill >= OWN_SPILL)
                    maybe = maybe or before >= MAYBE_CANCELLED or (dense and before >= MAYBE_CANCELLED / 2)
            elif edges[0] > ink.faint:
                scribbled = scribbled or before >= CANCELLED or (dense and before >= 0.8 * CANCELLED)
                maybe = maybe or before >= MAYBE_CANCELLED or (dense and before >= MAYBE_CANCELLED / 2)
            spill = max(spill, crossing)
    if strips and strokes is None:
        strokes = _strokes(dark, b, shift)
    tick, touched, joined = _swept(strokes, ink, inside) if strips else (False, False, False)
    if tick and not joined:
        scribbled = maybe = False  # a tick's vertex under the box and arm above it: not a scribble
    if not scribbled and not maybe and fill >= MARKED and strips:
        # The paper's brightness comes from a closing 6.5 mm wide: at the sharp corner of a shadow that
        # crosses the box it is the light side's, and the shadow reads as ink. The paper right above and
        # below the box says whether that is so: measured against it, is the box still marked?
        # (a strip's 75th percentile: the paper, where a pen stroke crosses part of it)
        here = min(
            float(np.percentile(light.mono[top0:top1, bx0:bx1], 75)),
            float(np.percentile(light.mono[bot0:bot1, bx0:bx1], 75)),
        )
        paper = light.paper[y0 : y0 + n, x0 : x0 + n]
        if float(paper.mean()) > 1.12 * here:
            mono = light.mono[y0 : y0 + n, x0 : x0 + n].astype(np.float32)
            dimmed = 1.0 - mono / (paper * (here / float(paper.mean())))
            fill2 = float(((dimmed > INK) * weights).sum())
            if fill2 < MARKED:
                shadowed = True
                fill = fill2
    faint = False
    if scribbled:
        state = "scribbled"
    elif shadowed:
        state = "shadow"
    elif maybe:
        state = "unclear"  # inked past its top and bottom edges, but less than a scribble does
    elif fill >= MARKED:
        state = "marked"
    elif mass - local_mass >= ink.mark:
        state, faint = "marked", True  # a faint mark, as dark as this sheet's marks go
    elif fill <= EMPTY and core >= ink.core_mark and near[1] >= ink.around[2] and grain >= ink.grain:
        # its middle far darker than this photo's paper, though lighter than its pen's marks (a faint
        # pencil beside dark ink): read as marked, and flagged (clarity 0.7) for a judge to see
        state, faint = "marked", True
    elif fill <= EMPTY and (
        (
            core <= ink.core_faint
            and (mass - local_mass <= ink.pale or (mass - local_mass <= ink.faint and core <= ink.core_quiet))
        )
        or (grain < ink.grain and mass - local_mass <= ink.faint)
    ):
        # empty: as light as this photo's paper; or lighter than the pen's faintest mark with its darkness
        # all at its edges (a neighbour's stroke overrunning into it), its middle as clean as the paper
        state = "empty"
    else:
        state, faint = "unclear", fill <= EMPTY
    if joined and state in ("marked", "unclear") and not maybe:
        state, faint = "unclear", False  # perhaps only the arm of a tick in the row below
    elif tick and not joined and fill >= TICKED and state in ("empty", "unclear"):
        state, faint = "marked", False  # a sweeping tick, its ink mostly on and past the box's edges
    elif touched and state == "empty":
        # strokes cross its bottom edge and its top or right one: not surely empty (flagged as faint)
        state, faint = "unclear", fill <= EMPTY
    clarity = 0.8 if mass - local_mass >= 1.5 * ink.mark else 0.7
    out = BoxRead(fill, scribbled, state, mass, faint, maybe, clarity, round(spill, 3), round(core, 4))
    out.tick, out.joined = tick, joined
    return out


def _clarity(box: BoxRead) -> float:
    """How clear one box is, 0..1: 0.8 at the thresholds, 1 well away from them, below 0.8 between."""
    f = box.fill
    if box.state in ("scribbled", "shadow") or box.spilled or box.joined:
        return 0.5
    if box.faint:
        # read from the sheet's own ink (a faint mark): clear when well past that sheet's threshold
        return box.clarity if box.state == "marked" else 0.5
    if box.state == "empty":
        return 1.0 - 0.2 * (f / EMPTY)
    if box.state == "marked":
        # a sweeping tick's ink is mostly on and past its edges (:func:`_sweep`): clear from its shape
        return max(0.8 if box.tick else 0.0, min(1.0, 0.8 + 0.2 * (f - MARKED) / (2 * MARKED)))
    mid = (EMPTY + MARKED) / 2
    return 0.3 + 0.45 * abs(f - mid) / ((MARKED - EMPTY) / 2)


#: A box read empty that holds this much ink (its fill) ...
STANDS_OUT: Final = 0.035
#: ... and this many times the ink of every other box of its group is not surely empty: a pencil tick
#: blurred under the fill's threshold still stands out from its empty neighbours, where the paper's grain
#: and a neighbour's overrun spread over the whole group. Set on one case, the sweeping hand's one silent
#: misread on hall's medium level (seed 101, B's mulligans = 4 in pencil at 6 px of blur: fill 0.041, its
#: neighbours' 0.006 at most), and measured (2026-12-07): no empty box of hall's ordinary level (16 photos,
#: 15,774 boxes) or of its sweeping hand (8 photos, 7,924) stands out so, none of the medium level's 16
#: photos, 3 boxes of the sweeping hand's 8 medium ones. At 0.03 and 3x, 15 did there, after the game's
#: last row, whose unclear rows then carried the game on (marks.py).
STANDS_OUT_BY: Final = 6.0


def _stand_out(boxes: list[BoxRead]) -> list[BoxRead]:
    """``boxes`` (a group's), with each box read empty that stands out from all the others
    (:data:`STANDS_OUT`, :data:`STANDS_OUT_BY`) made unclear: faint, read as empty, flagged."""
    out = list(boxes)
    for i, b in enumerate(boxes):
        others = [o.fill for j, o in enumerate(boxes) if j != i]
        if b.state == "empty" and others and b.fill >= STANDS_OUT and b.fill >= STANDS_OUT_BY * max(others):
            out[i] = replace(b, state="unclear", faint=True)
    return out


def _group(g: Group, boxes: list[BoxRead]) -> GroupRead:
    marked = [g.choices[i] for i, b in enumerate(boxes) if b.state == "marked"]
    unclear = [i for i, b in enumerate(boxes) if b.state == "unclear"]
    scribbled = [i for i, b in enumerate(boxes) if b.state == "scribbled"]
    shadowed = [i for i, b in enumerate(boxes) if b.state == "shadow"]
    conf = min((_clarity(b) for b in boxes), default=1.0)
    labels = g.labels or g.choices
    problems: list[str] = []
    chosen = list(marked)
    for i in unclear:
        b = boxes[i]
        if b.joined:
            # a stroke from the row below runs into it: a tick there whose arm sweeps up into this box,
            # perhaps beside a mark of its own (the fuller, the likelier)
            read_as = "marked" if b.fill >= JOINED_MARK or b.tick else "empty"
            problems.append(f"box {labels[i]} holds a stroke from the row below, read as {read_as}")
            if read_as == "marked":
                chosen.append(g.choices[i])
            continue
        if b.spilled:
            problems.append(f"box {labels[i]} inked past its edges: scribbled out? read as marked")
            chosen.append(g.choices[i])
            continue
        guess = b.fill > (EMPTY + MARKED) / 2 and not b.faint
        how = "faint, " if b.faint else ""
        read_as = "marked" if guess else "empty"
        problems.append(f"box {labels[i]} {how}between empty and marked, read as {read_as}")
        if guess:
            chosen.append(g.choices[i])
    for i, b in enumerate(boxes):
        if b.state == "marked" and b.faint and _clarity(b) < 0.8:
            problems.append(f"box {labels[i]} faint, read as marked")
    for i in scribbled:
        problems.append(f"box {labels[i]} scribbled out, read as not marked")
    for i in shadowed:
        problems.append(f"box {labels[i]} at the edge of a shadow, read as not marked")
    if g.single and len(chosen) > 1:
        # two marks where one is allowed: the guess is a box not inked past its edges (the other was
        # perhaps scribbled out), then the fuller one
        best = max(
            (i for i, c in enumerate(g.choices) if c in chosen),
            key=lambda i: (not boxes[i].spilled, boxes[i].fill),
        )
        shown = ", ".join(labels[g.choices.index(c)] for c in chosen)
        problems.append(f"{len(chosen)} boxes marked ({shown}), read as {labels[best]}")
        chosen = [g.choices[best]]
        conf = min(conf, 0.4)
    return GroupRead(frozenset(chosen), round(conf, 3), "; ".join(problems))


def read_sheet_image(image: Image) -> PageRead:
    """Read one photo or scan (BGR or grey) of a game sheet: the first of :func:`read_sheets`.
    :class:`NotASheet` says why it is not one."""
    first = read_sheets(image)[0]
    if isinstance(first, NotASheet):
        raise first
    return first


def read_sheets(image: Image, given: Sequence[str | None] = ()) -> list[PageRead | NotASheet]:
    """Every game sheet in one photo or scan (BGR or grey), left to right: each a :class:`PageRead`, or a
    :class:`NotASheet` saying why that sheet cannot be read (a second sheet only partly in frame, one
    lying partly under another, its QR code unreadable...). Never an empty list: :class:`NotASheet`
    (with how to retake the photo) when no sheet is there at all. ``given``: the match id the k-th sheet
    is given by hand (``import scan --match``; None: its own), read with it when neither its codes nor its
    printed id can be read, refused when its own id is read and is another."""
    if image.ndim == 2:
        image = cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
    if image.shape[0] * image.shape[1] > MAX_PIXELS:
        raise NotASheet(f"image larger than {MAX_PIXELS // 1_000_000} megapixels")
    gray = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    groups = _markers(gray)
    whole = [g for g in groups if len(g) >= 3]
    if not whole:
        most = max((len(g) for g in groups), default=0)
        raise NotASheet.said(NO_SHEET, found=most)
    ids = {i for g in whole for i, _ in g}
    partial = [g for g in groups if len(g) < 3 and (len(g) >= 2 or g[0][0] in ids)]
    # each whole sheet's homography, or why it has none; then which of them another sheet covers
    placed: list[npt.NDArray[np.float64] | NotASheet] = []
    for g in whole:
        try:
            placed.append(_homography(*_points(g)))
        except NotASheet as exc:
            placed.append(exc)
    covered = _covered(whole, placed, partial)
    out: list[PageRead | NotASheet] = []
    for k, (g, at) in enumerate(zip(whole, placed, strict=True)):
        if isinstance(at, NotASheet):
            out.append(at)
        elif k in covered:
            out.append(NotASheet.said(covered[k]))
        else:
            try:
                out.append(_read_one(image, gray, g, at, given[k] if k < len(given) else None))
            except NotASheet as exc:
                out.append(exc)
    # what is left: a second sheet partly in the photo or partly hidden (its markers repeat ids already
    # found), or a stray square that looked like a marker (ignored, as the homography's RANSAC would)
    shape = (gray.shape[1], gray.shape[0])
    for g in partial:
        template = PART_OUT if _missing_outside(g, shape) else PART_HIDDEN
        out.append(NotASheet.said(template, found=len(g)))
    if len(whole) > 1:
        for k, r in enumerate(out):
            if isinstance(r, PageRead):
                r.meta["part"] = (k + 1, len(out))
    return out


#: The least and the most paper around the frame (mm, sides and top/bottom): A4's and Letter's margins.
PAPER_MIN: Final = (10.0, 12.2)
PAPER_MAX: Final = (12.95, 21.0)


def _quad(h: npt.NDArray[np.float64], ex: float = 0.0, ey: float = 0.0) -> npt.NDArray[np.float32]:
    """The frame (grown by ``ex``, ``ey`` mm: the paper around it) as a quadrilateral of the photo."""
    corners = np.array(
        [[[-ex, -ey]], [[FRAME_W + ex, -ey]], [[FRAME_W + ex, FRAME_H + ey]], [[-ex, FRAME_H + ey]]],
        np.float64,
    )
    return np.asarray(cv2.perspectiveTransform(corners * SCALE, np.linalg.inv(h)).reshape(4, 2), np.float32)


def _inside(quad: npt.NDArray[np.float32], point: npt.NDArray[np.float32]) -> bool:
    return cv2.pointPolygonTest(quad.reshape(-1, 1, 2), (float(point[0]), float(point[1])), False) >= 0


def _missing_centres(group: list[Detection], h: npt.NDArray[np.float64]) -> list[npt.NDArray[np.float32]]:
    """Where, in the photo, the markers of this sheet that were not found are (by its homography)."""
    have = {i for i, _ in group}
    rects = marker_rects()
    out = []
    for k, mid in enumerate(MARKER_IDS):
        if mid not in have:
            c = np.array([[[rects[k].cx * SCALE, rects[k].cy * SCALE]]], np.float64)
            out.append(np.asarray(cv2.perspectiveTransform(c, np.linalg.inv(h)).reshape(2), np.float32))
    return out


def _covered(
    whole: list[list[Detection]],
    placed: list[npt.NDArray[np.float64] | NotASheet],
    partial: list[list[Detection]],
) -> dict[int, str]:
    """The whole sheets another sheet lies over (their index -> the refusal's template). Two sheets
    overlap when the least paper one can have around its frame crosses the other's frame; the one on top
    is the one whose markers show on the other's paper, or over whose paper the other's markers were not
    found. When that cannot be told, both are refused: a box hidden under another sheet would be read as
    empty, and a sheet read wrong with exit 0 is the worst outcome. A sheet only partly found (a
    ``partial`` group) whose markers show on a whole sheet's paper lies over it."""
    hs = {k: h for k, h in enumerate(placed) if not isinstance(h, NotASheet)}
    frame = {k: _quad(h) for k, h in hs.items()}
    least = {k: _quad(h, *PAPER_MIN) for k, h in hs.items()}
    most = {k: _quad(h, *PAPER_MAX) for k, h in hs.items()}
    shown = {k: [c.mean(axis=0) for _, c in whole[k]] for k in hs}
    hidden = {k: _missing_centres(whole[k], h) for k, h in hs.items()}

    def on_top(a: int, b: int) -> bool:
        return any(_inside(most[b], m) for m in shown[a]) or any(_inside(most[a], m) for m in hidden[b])

    out: dict[int, str] = {}
    keys = sorted(hs)
    for n, a in enumerate(keys):
        for b in keys[n + 1 :]:
            crossed = (
                cv2.intersectConvexConvex(least[a], frame[b])[0] > 0.0
                or cv2.intersectConvexConvex(least[b], frame[a])[0] > 0.0
            )
            if not crossed:
                continue
            a_top, b_top = on_top(a, b), on_top(b, a)
            if a_top != b_top:
                out[b if a_top else a] = UNDER
            else:
                out.setdefault(a, OVERLAP)
                out.setdefault(b, OVERLAP)
    for g in partial:
        for k in keys:
            if any(_inside(most[k], c.mean(axis=0)) for _, c in g):
                out[k] = UNDER
    return out


def _missing_outside(group: list[Detection], shape: tuple[int, int]) -> bool:
    """Are all the markers of a sheet only partly found outside the photo (the sheet partly out of
    frame), by the map its largest marker's own corners give?"""
    d = max(group, key=lambda d: _perimeter(d[1]))
    m = _to_frame(d)
    full = np.vstack([m, [0.0, 0.0, 1.0]])
    try:
        back = np.linalg.inv(full)
    except np.linalg.LinAlgError:
        return True
    have = {i for i, _ in group}
    rects = marker_rects()
    w, h = shape
    for k, mid in enumerate(MARKER_IDS):
        if mid in have:
            continue
        x, y, _ = back @ np.array([rects[k].cx, rects[k].cy, 1.0])
        if 0 <= x < w and 0 <= y < h:
            return False
    return True


def _read_one(
    image: Image, gray: Image, group: list[Detection], h: npt.NDArray[np.float64], given: str | None = None
) -> PageRead:
    try:
        header = parse_payload(_qr(gray, h, [d[0] for d in group]))
    except PayloadError as exc:
        raise NotASheet(str(exc)) from None
    except _Unread as unread:
        header = _printed(gray, h, unread, given)
    if given is not None and not header.given and header.match != given:
        # the sheet's own id read, and not the one --match gives it: which sheet this is is not known
        said = MATCH_DIFFERS_PRINTED if header.printed else MATCH_DIFFERS
        raise NotASheet.said(said, match=header.match, given=given)
    # The darkest channel (a blue, red or green pen is as dark in it as a black one), each channel smoothed
    # a little first (the least of three noisy values is biased dark), then rectified: one channel
    # warped, not three.
    blue, green, red = (cv2.blur(c, (3, 3)) for c in cv2.split(image))
    lowest = cv2.min(cv2.min(blue, green), red)
    size = (round(FRAME_W * SCALE), round(FRAME_H * SCALE))
    mono = cv2.warpPerspective(lowest, h, size, flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    mono = cv2.GaussianBlur(mono, (0, 0), 0.8)
    paper = _background(mono)
    ratio = cv2.divide(mono.astype(np.float32), paper)
    dark = np.maximum(np.float32(1.0) - ratio, np.float32(0.0))
    light = _Light(mono, paper, dark)
    shifts, aligned = _shifts(dark)
    every = [(g, b) for g in LAYOUT.groups for b in g.boxes]
    # each box's darkness, and the paper right around it (measured once: the box's reading uses them too)
    measured = [_masses(light, b, shifts[g.key]) for g, b in every]
    ink, offsets = _ink(measured, [(b.cx, b.cy) for _, b in every])
    around = {id(b): (m[2], m[3], m[4]) for (_, b), m in zip(every, measured, strict=True)}
    edges = [e for e in (_edges(dark, b, shifts[g.key]) for g, b in every) if e is not None]
    if edges:
        mid = np.median(np.asarray(edges), axis=0)
        ink = replace(ink, edges=(float(mid[0]), float(mid[1]), float(mid[2]), float(mid[3])))
    lines = [v for v in (_bleed(dark, b, shifts[g.key]) for g, b in every) if v is not None]
    if lines:
        out, line = np.median(np.asarray(lines), axis=0)
        ink = replace(ink, bleed=float(out) / max(float(line), 1e-6))
    # the sheet's own unevenness in the strips past the boxes' edges (its boxes are mostly empty)
    strokes = {id(b): _strokes(dark, b, shifts[g.key]) for g, b in every}
    peaks = [m.peak for m in strokes.values() if m is not None]
    if peaks:
        ink = replace(ink, floor=max(STROKE, FLOOR * float(np.median(peaks))))
    local = {id(b): o for (_, b), o in zip(every, offsets, strict=True)}
    reads: dict[str, GroupRead] = {}
    boxes: dict[str, list[BoxRead]] = {}
    for g in LAYOUT.groups:
        per_box = _stand_out(
            [_box(light, b, shifts[g.key], ink, local[id(b)], strokes[id(b)], around[id(b)]) for b in g.boxes]
        )
        boxes[g.key] = per_box
        reads[g.key] = _group(g, per_box)
    return PageRead(header, reads, boxes, image, h, len(group), aligned, {"ink": ink})
