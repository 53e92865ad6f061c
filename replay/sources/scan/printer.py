"""The game sheet as a vector PDF (fpdf2; the QR code from segno, the markers from OpenCV's ArUco
dictionary), and as PNG (the PDF rasterized by PDFium): one drawing for both, so they cannot differ.

Every position comes from :mod:`replay.sources.scan.layout`; this module only draws.

The sheet is printed in English, Japanese or Korean (``lang``; issue 34 item 5): its words go through the
catalogues (replay/i18n), and a Japanese or Korean sheet is drawn with Noto Sans CJK (Debian's
fonts-noto-cjk, ``make browser`` installs it), whose glyphs fpdf2 embeds as a subset: the PDF prints
the same on any printer, and the PNG (rasterized from it) has the same glyphs. What the reader reads back
(the markers, the QR code, the boxes) does not depend on the language.
"""

from __future__ import annotations

import io
import json
import os
import threading
from collections import OrderedDict
from collections.abc import Sequence
from functools import cache
from typing import Any, Final

from fpdf import FPDF

from replay import i18n
from replay.i18n import N_
from replay.sources.scan.layout import (
    FRAME_H,
    FRAME_W,
    LAYOUT,
    LAYOUT_VERSION,
    MARKER,
    MARKER_IDS,
    PAPERS,
    QR_BOX,
    QR_MIN_VERSION,
    ROWS,
    SPARE_QR_BOX,
    Group,
    Header,
    Rect,
    frame_origin,
    marker_rects,
    penalty_boxes,
    row_top,
    timing_rects,
)

# A Unicode font for players' names (Debian's fonts-dejavu-core); without it the PDF core font (Latin-1).
_FONT_PATHS: Final = (
    "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
    "/usr/share/fonts/TTF/DejaVuSans.ttf",
    "/Library/Fonts/DejaVuSans.ttf",
)
_BOLD_PATHS: Final = tuple(p.replace("DejaVuSans.ttf", "DejaVuSans-Bold.ttf") for p in _FONT_PATHS)
# The CJK font of a Japanese or Korean sheet: Noto Sans CJK (fonts-noto-cjk), a collection whose faces
# are ordered JP, KR, SC, TC, HK: each language is drawn with its own region's glyph forms.
_CJK_PATHS: Final = (
    "/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc",
    "/usr/share/fonts/noto-cjk/NotoSansCJK-Regular.ttc",
    "/usr/share/fonts/google-noto-cjk/NotoSansCJK-Regular.ttc",
)
_CJK_FACE: Final = {"ja": 0, "ko": 1}


class FontMissing(Exception):
    """No font with the glyphs of the sheet's language is installed (the message says which to install)."""


def cjk_font() -> str | None:
    """The path of Noto Sans CJK's collection, when installed."""
    return next((p for p in _CJK_PATHS if os.path.exists(p)), None)


INK: Final = (0, 0, 0)
GUIDE: Final = (150, 150, 150)
PALE: Final = (200, 200, 200)
CONTEXT_LABELS: Final = (
    ("league", N_("League")),
    ("season", N_("Season")),
    ("event", N_("Event")),
    ("round", N_("Round")),
    ("table", N_("Table")),
    ("game", N_("Game")),
    ("stage", N_("Stage")),
)
#: The layout's printed box labels that are words (replay/sources/scan/layout.py), in the sheet's language.
BOX_WORDS: Final = {
    "Act": N_("Act"),
    "Prizes": N_("Prizes"),
    "No Pokémon": N_("No Pokémon"),
    "Deck-out": N_("Deck-out"),
    "Concession": N_("Concession"),
    "Time": N_("Time"),
    "Penalty": N_("Penalty"),
    "Draw": N_("Draw"),
}


@cache
def _marker_bits(marker_id: int) -> tuple[tuple[bool, ...], ...]:
    """The 6 x 6 cells (border included) of ArUco DICT_4X4_50 marker ``marker_id``; True = black."""
    import cv2

    dictionary = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50)
    img = cv2.aruco.generateImageMarker(dictionary, marker_id, 6)
    return tuple(tuple(bool(v < 128) for v in row) for row in img)


class _Sheet(FPDF):
    def __init__(self, paper: str, lang: str = i18n.DEFAULT, styles: tuple[str, ...] = ("", "B")) -> None:
        """A sheet on ``paper`` in ``lang``, its font registered in ``styles`` (regular ``""``, bold
        ``B``): every style registered is a font file parsed and, at the output, subset and embedded
        (most of the time a Japanese or Korean sheet takes), so :func:`header_lines`, which draws one
        line in one style, registers that one only."""
        w, h = PAPERS[paper]
        super().__init__(unit="mm", format=(w, h))
        self.set_auto_page_break(False)
        self.set_margins(0, 0, 0)
        self.set_creator(f"prizecheck sheet print (layout {LAYOUT_VERSION})")
        self.ox, self.oy = frame_origin(paper)
        self.lang = lang
        self.family = "Helvetica"
        if lang in _CJK_FACE:
            cjk = cjk_font()
            if cjk is None:  # never a sheet of tofu boxes: say what to install
                raise FontMissing(
                    f"a {i18n.NAMES[lang]} sheet needs Noto Sans CJK: install Debian's fonts-noto-cjk "
                    f"(make browser), or print it with --lang en"
                )
            # one face for both weights: the collection's regular (a bold word is drawn larger instead)
            for style in styles:
                self.add_font("Sheet", style, cjk, collection_font_number=_CJK_FACE[lang])
            self.family = "Sheet"
            return
        regular = next((p for p in _FONT_PATHS if os.path.exists(p)), None)
        bold = next((p for p in _BOLD_PATHS if os.path.exists(p)), None)
        if regular:
            for style in styles:
                self.add_font("Sheet", style, (bold or regular) if style == "B" else regular)
            self.family = "Sheet"

    def tr(self, message: str, **fields: object) -> str:
        """``message`` in the sheet's language, its ``{fields}`` filled."""
        return i18n.gettext(self.lang, message).format(**fields)

    def word(self, label: str) -> str:
        """A box's printed label in the sheet's language (a number or a side's letter as it is)."""
        return i18n.gettext(self.lang, BOX_WORDS[label]) if label in BOX_WORDS else label

    # frame coordinates (mm) -> page
    def box(
        self, r: Rect, *, fill: bool = False, width: float = 0.25, color: tuple[int, int, int] = INK
    ) -> None:
        self.set_line_width(width)
        self.set_draw_color(*color)
        self.set_fill_color(*color)
        self.rect(self.ox + r.x, self.oy + r.y, r.w, r.h, style="F" if fill else "D")

    def solid(self, x: float, y: float, w: float, h: float) -> None:
        self.set_fill_color(*INK)
        self.rect(self.ox + x, self.oy + y, w, h, style="F")

    def text_at(
        self,
        x: float,
        y: float,
        text: str,
        size: float,
        *,
        bold: bool = False,
        align: str = "L",
        w: float = 0,
    ) -> None:
        """``text`` with its top at frame (x, y); ``align`` C or R within width ``w``."""
        self.set_font(self.family, "B" if bold else "", size)
        self.set_text_color(*INK)
        if self.family == "Helvetica":
            text = text.encode("latin-1", "replace").decode("latin-1")
        height = size * 0.3528 * 1.15
        self.set_xy(self.ox + x, self.oy + y)
        self.cell(w if w else self.get_string_width(text) + 0.5, height, text, align=align)

    def line_at(
        self,
        x1: float,
        y1: float,
        x2: float,
        y2: float,
        *,
        width: float = 0.15,
        color: tuple[int, int, int] = GUIDE,
    ) -> None:
        self.set_line_width(width)
        self.set_draw_color(*color)
        self.line(self.ox + x1, self.oy + y1, self.ox + x2, self.oy + y2)


def _draw_markers(pdf: _Sheet) -> None:
    for marker_id, r in zip(MARKER_IDS, marker_rects(), strict=True):
        cell = MARKER / 6
        for j, row in enumerate(_marker_bits(marker_id)):
            for i, black in enumerate(row):
                if black:
                    # a hair wider than the cell: no white seam between cells in a rasterizer
                    pdf.solid(r.x + i * cell, r.y + j * cell, cell + 0.02, cell + 0.02)


def _draw_qr(pdf: _Sheet, text: str, place: tuple[float, float, float] = QR_BOX) -> None:
    """``text`` as a QR code filling the square ``place`` (x, y, side; its quiet zone inside)."""
    import segno

    # the payload as UTF-8 bytes (byte mode): what every decoder, OpenCV's included, reads back as text
    data = text.encode("utf-8")
    qr = segno.make(data, error="m", micro=False, boost_error=False)
    if isinstance(qr.version, int) and qr.version < QR_MIN_VERSION:
        qr = segno.make(data, error="m", micro=False, version=QR_MIN_VERSION, boost_error=False)
    matrix = qr.matrix
    x0, y0, side = place
    n = len(matrix)
    module = side / (n + 8)  # a quiet zone of 4 modules inside the box
    for j, row in enumerate(matrix):
        i = 0
        while i < n:
            if row[i]:
                start = i
                while i < n and row[i]:
                    i += 1
                pdf.solid(
                    x0 + (start + 4) * module, y0 + (j + 4) * module, (i - start) * module, module + 0.01
                )
            else:
                i += 1


def _draw_group(pdf: _Sheet, g: Group, *, labels_above: bool) -> None:
    for k, b in enumerate(g.boxes):
        pdf.box(b)
        if labels_above and g.labels:
            pdf.text_at(b.x - 3, b.y - 3.3, pdf.word(g.labels[k]), 6, align="C", w=b.w + 6)


def _header(pdf: _Sheet, header: Header) -> None:
    tr = pdf.tr
    pdf.text_at(12, 1.5, tr("Prizecheck game sheet"), 13, bold=True)
    _number_line(pdf, number_text(header.sheet, header.count, header.layout))
    pdf.text_at(0, 12.0, tr("Match"), 7)
    _match_line(pdf, header.match)
    _context_line(pdf, context_text(header.context))
    _ruleset_line(pdf, header.ruleset)
    for i, side in enumerate(("A", "B")):
        y = 26.0 + i * 7.0
        pdf.text_at(0, y, tr("Player {side}", side=side), 8, bold=True)
        if header.players is not None:
            _player_line(pdf, side, header.players[i])
        else:
            pdf.line_at(22, y + 4.6, 90, y + 4.6, color=INK, width=0.2)
        pdf.text_at(94, y + 0.5, tr("mulligans"), 6.5)
    for side in ("A", "B"):
        _draw_group(pdf, LAYOUT.group(f"mull.{side}"), labels_above=side == "A")
    for key, title in (
        ("start.A", tr("A's starting Active and Bench")),
        ("start.B", tr("B's starting Active and Bench")),
    ):
        r = LAYOUT.free_text[key]
        pdf.box(r, width=0.15, color=GUIDE)
        pdf.text_at(r.x + 0.6, r.y + 0.3, title, 5.5)
    _draw_qr(pdf, header.payload())
    _draw_qr(pdf, header.spare_payload(), SPARE_QR_BOX)


def context_text(context: dict[str, Any]) -> str:
    """A context as :func:`_context_line` takes it (JSON)."""
    return json.dumps(context, ensure_ascii=False, sort_keys=True)


def _context_line(pdf: _Sheet, fields: str) -> None:
    # the event, round, table... (context_text's JSON) below the match id, blanks to fill when none
    ctx = json.loads(fields)
    room = SPARE_QR_BOX[0] - 1.0
    parts = [f"{i18n.gettext(pdf.lang, label)} {ctx[key]}" for key, label in CONTEXT_LABELS if key in ctx]
    blank = pdf.tr("Event ________   Round ____   Table ____")
    line = "   ".join(parts) if parts else blank
    size = _fitting(pdf, line, 8, room)
    if size >= 6.5 or len(parts) < 2:
        pdf.text_at(0, 17.0, line, size)
    else:  # a long context on two lines, between the match id and the ruleset
        half = (len(parts) + 1) // 2
        for y, piece in ((15.9, parts[:half]), (18.5, parts[half:])):
            text = "   ".join(piece)
            pdf.text_at(0, y, text, min(6.5, _fitting(pdf, text, 6.5, room)))


def number_text(sheet: int | None, count: int | None, layout: int = LAYOUT_VERSION) -> str:
    """The top right line's fields as :func:`_number_line` takes them: ``sheet/count/layout``."""
    return f"{'' if sheet is None else sheet}/{count or ''}/{layout}"


def _number_line(pdf: _Sheet, fields: str) -> None:
    # the sheet's number in a batch (and the layout), right-aligned at the top right: number_text's fields
    sheet, count, layout = fields.split("/")
    tr = pdf.tr
    number = ""
    if sheet:
        if count:
            number = tr("sheet {n} of {count}", n=int(sheet), count=int(count)) + "  ·  "
        else:
            number = tr("sheet {n}", n=int(sheet)) + "  ·  "
    pdf.text_at(90, 3.0, number + tr("layout {version}", version=int(layout)), 7, align="R", w=88)


def _match_line(pdf: _Sheet, match: str) -> None:
    # the match id and the context line stop short of the spare QR code (smaller type when they are long)
    room = SPARE_QR_BOX[0] - 1.0
    pdf.text_at(12, 11.4, match, _fitting(pdf, match, 10, room - 12, bold=True), bold=True)


def _ruleset_line(pdf: _Sheet, ruleset: str) -> None:
    pdf.text_at(0, 21.2, pdf.tr("Ruleset {ruleset}", ruleset=ruleset), 8)


#: Where each side's printed name starts (frame mm: x, top).
PLAYER_AT: Final = {"A": (22.0, 25.6), "B": (22.0, 32.6)}


def _player_line(pdf: _Sheet, side: str, name: str) -> None:
    x, y = PLAYER_AT[side]
    pdf.text_at(x, y, name, 11, bold=True)


#: The header's lines a sheet is read by when neither QR code is (:func:`header_lines`), each with the
#: one style it is printed in.
LINES: Final = {
    "match": (_match_line, "B"),
    "ruleset": (_ruleset_line, ""),
    "player.A": (lambda pdf, name: _player_line(pdf, "A", name), "B"),
    "player.B": (lambda pdf, name: _player_line(pdf, "B", name), "B"),
    "number": (_number_line, ""),
    "context": (_context_line, ""),
}
#: How many drawn lines :func:`header_lines` keeps (at most ~60 kB each: ~30 MB).
DRAWN_KEPT: Final = 512
_drawn: OrderedDict[tuple[str, str, str, float, Rect], Any] = OrderedDict()
_drawn_lock = threading.Lock()


def header_lines(line: str, texts: Sequence[str], lang: str, scale: float, band: Rect) -> list[Any]:
    """The header's ``line`` (``match``, ``ruleset``, ``player.A`` or ``player.B``) as this printer prints
    it with each of ``texts``, on a sheet in ``lang``: the frame's ``band`` (mm) rasterized at ``scale``
    px/mm, one grey image (a uint8 array, ``round(band.h * scale)`` x ``round(band.w * scale)``,
    read-only) per text. The reader compares a photo's header with these when neither QR code reads
    (replay.sources.scan.printed): the same drawing as the sheet's, so the same font, size and place.
    :func:`header_drawings` draws several lines at once."""
    return header_drawings([(line, text, band) for text in texts], lang, scale)


def header_drawings(wanted: Sequence[tuple[str, str, Rect]], lang: str, scale: float) -> list[Any]:
    """:func:`header_lines` for several lines: each ``(line, text, band)`` wanted, drawn.

    Each is drawn once a process (the last :data:`DRAWN_KEPT` kept): a drawing is one PDF a style of the
    lines not drawn yet (a page each), in that one style, rasterized by PDFium; its font parsed, subset
    and embedded is most of its cost (issue 39: ~0.35 s for a Japanese or Korean font, measured in
    docs/performance.md), and a photo read from print draws the ruleset line in every language first.
    The same text gives the same pixels however many others share its PDF (tests/scan/test_sheet_print.py).
    """
    keys = [(line, text, lang, scale, band) for line, text, band in wanted]
    with _drawn_lock:
        have = {k: _drawn[k] for k in keys if k in _drawn}
        for k in have:
            _drawn.move_to_end(k)
    todo = list(dict.fromkeys(k for k in keys if k not in have))
    if todo:
        for style in dict.fromkeys(LINES[k[0]][1] for k in todo):
            mine = [k for k in todo if LINES[k[0]][1] == style]
            for k, grey in zip(mine, _draw_lines(mine, lang, scale, style), strict=True):
                grey.setflags(write=False)
                have[k] = grey
        with _drawn_lock:
            for k in keys:
                _drawn[k] = have[k]
                _drawn.move_to_end(k)
            while len(_drawn) > DRAWN_KEPT:
                _drawn.popitem(last=False)
    return [have[k] for k in keys]


def _draw_lines(
    wanted: Sequence[tuple[str, str, str, float, Rect]], lang: str, scale: float, style: str
) -> list[Any]:
    """:func:`header_drawings` drawn: one PDF in ``style``, a page a line."""
    import numpy as np
    import pypdfium2 as pdfium

    pdf = _Sheet("a4", lang, styles=(style,))
    for line, text, *_ in wanted:
        pdf.add_page()
        LINES[line][0](pdf, text)
    doc = pdfium.PdfDocument(bytes(pdf.output()))
    pt = 72 / 25.4
    out: list[Any] = []
    try:
        for i, (*_, band) in enumerate(wanted):
            left, top = (pdf.ox + band.x) * pt, (pdf.oy + band.y) * pt
            shape = (round(band.h * scale), round(band.w * scale))
            page = doc[i]
            width, height = page.get_size()
            crop = (left, height - top - band.h * pt, width - left - band.w * pt, top)
            bitmap = page.render(scale=scale / pt, grayscale=True, crop=crop)
            img = bitmap.to_numpy()
            grey = np.full(shape, 255, np.uint8)
            got = (img[:, :, 0] if img.ndim == 3 else img)[: shape[0], : shape[1]]
            grey[: got.shape[0], : got.shape[1]] = got
            out.append(grey)
            bitmap.close()
            page.close()
    finally:
        doc.close()
    return out


def _fitting(pdf: _Sheet, text: str, size: float, width: float, *, bold: bool = False) -> float:
    """``size``, or the smaller type size (down to 5 pt) at which ``text`` fits in ``width`` mm."""
    pdf.set_font(pdf.family, "B" if bold else "", size)
    if pdf.family == "Helvetica":
        text = text.encode("latin-1", "replace").decode("latin-1")
    wide = pdf.get_string_width(text) + 0.5
    return size if wide <= width else max(5.0, size * width / wide)


def _columns(pdf: _Sheet, ruleset: str) -> None:
    tr = pdf.tr
    pdf.text_at(
        0,
        47.2,
        tr("Mark a box: tick, cross or fill it. Cancel a mark: scribble it out past the box's edges."),
        6.5,
    )
    titles = {
        "who": tr("Turn of"),
        "prizes.A": tr("Prizes A took"),
        "ko.B": tr("B's Pokémon KO'd"),
        "prizes.B": tr("Prizes B took"),
        "ko.A": tr("A's Pokémon KO'd"),
        "time": tr("Time"),
        "pen.side": tr("Penalty"),
        "pen.kind": "",
    }
    for name, title in titles.items():
        g = LAYOUT.group(f"r1.{name}")
        left, right = g.boxes[0].x, g.boxes[-1].x + g.boxes[-1].w
        if title:
            span = max(right - left, 8.0)
            pdf.text_at(left - (span - (right - left)) / 2, 50.6, title, 6.5, bold=True, align="C", w=span)
        labels = _penalty_labels(pdf, ruleset) if name == "pen.kind" else tuple(pdf.word(x) for x in g.labels)
        for k, b in enumerate(g.boxes):
            pdf.text_at(b.x - 2, 54.3, labels[k], 6, align="C", w=b.w + 4)
    pdf.text_at(4.2, 54.3, tr("Turn"), 6)
    notes = LAYOUT.free_text["r1.notes"]
    pdf.text_at(notes.x, 52.0, tr("Cards, notes"), 6.5, bold=True, align="C", w=notes.w)


#: A penalty box's printed label (layout.penalty_boxes): a warning, a prize penalty of a count, a game loss.
PENALTY_WORDS: Final = {
    "warning": N_("W"),
    "double_prize": N_("2P"),
    "quad_prize": N_("4P"),
    "game_loss": N_("GL"),
}


def _penalty_labels(pdf: _Sheet, ruleset: str) -> tuple[str, ...]:
    """The four penalty boxes' labels on this sheet: its ruleset's penalties in the sheet's language."""
    return tuple(
        pdf.tr("{n}P", n=count) if count is not None else pdf.tr(PENALTY_WORDS[kind])
        for kind, count in penalty_boxes(ruleset)
    )


def _rows(pdf: _Sheet) -> None:
    for row in range(1, ROWS + 1):
        y = row_top(row)
        pdf.line_at(0, y, FRAME_W, y, color=PALE)
        pdf.text_at(4.2, y + 1.6, str(row), 7, align="C", w=6)
        for mark in timing_rects(row):
            pdf.solid(mark.x, mark.y, mark.w, mark.h)
        for name in ("who", "prizes.A", "ko.B", "prizes.B", "ko.A", "time", "pen.side", "pen.kind"):
            _draw_group(pdf, LAYOUT.group(f"r{row}.{name}"), labels_above=False)
        pdf.box(LAYOUT.free_text[f"r{row}.notes"], width=0.12, color=PALE)
    pdf.line_at(0, row_top(ROWS + 1), FRAME_W, row_top(ROWS + 1), color=PALE)


def _foot(pdf: _Sheet) -> None:
    pdf.text_at(12, 242.9, pdf.tr("Game end"), 7.5, bold=True)
    pdf.text_at(126, 242.9, pdf.tr("Winner"), 7.5, bold=True)
    for key in ("end.reason", "end.winner"):
        g = LAYOUT.group(key)
        for k, b in enumerate(g.boxes):
            pdf.box(b)
            pdf.text_at(b.x - 4, b.y - 3.4, pdf.word(g.labels[k]), 6, align="C", w=b.w + 8)
    r = LAYOUT.free_text["notes"]
    pdf.box(r, width=0.15, color=GUIDE)
    pdf.text_at(r.x + 0.6, r.y + 0.3, pdf.tr("Notes, judge calls, signatures"), 5.5)


def _page(pdf: _Sheet, header: Header) -> None:
    pdf.add_page()
    _draw_markers(pdf)
    _header(pdf, header)
    _columns(pdf, header.ruleset)
    _rows(pdf)
    _foot(pdf)


def sheets_pdf(headers: Sequence[Header], paper: str = "a4", lang: str = i18n.DEFAULT) -> bytes:
    """A PDF with one game sheet per header, on ``paper`` (``a4`` or ``letter``), its words in ``lang``
    (en, ja, ko; :class:`FontMissing` when a Japanese or Korean sheet's font is not installed)."""
    if paper not in PAPERS:
        raise ValueError(f"paper must be one of {', '.join(PAPERS)}")
    if lang not in i18n.LANGUAGES:
        raise ValueError(f"lang must be one of {', '.join(i18n.LANGUAGES)}")
    pdf = _Sheet(paper, lang)
    for header in headers:
        _page(pdf, header)
    return bytes(pdf.output())


def pdf_pages_png(pdf: bytes, dpi: int = 200) -> list[bytes]:
    """Each page of ``pdf`` as PNG bytes at ``dpi`` (PDFium renders; grey, as a printer prints it)."""
    import pypdfium2 as pdfium

    doc = pdfium.PdfDocument(pdf)
    out: list[bytes] = []
    try:
        for i in range(len(doc)):
            page = doc[i]
            image = page.render(scale=dpi / 72, grayscale=True).to_pil()
            buf = io.BytesIO()
            image.save(buf, format="PNG", dpi=(dpi, dpi), optimize=False)
            out.append(buf.getvalue())
            page.close()
    finally:
        doc.close()
    return out


assert abs(FRAME_W - 190.0) < 1e-9 and abs(FRAME_H - 255.0) < 1e-9
