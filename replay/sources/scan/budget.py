"""What a scan may cost before anything is decoded: the pixel count from an image's header, the scale of
each PDF page within a pixel budget.

A compressed image says its size in its header, and a decoder allocates what the header says: a 48 KB PNG
can declare 20,000 x 20,000 pixels (1.2 GB as BGR). So the size is read from the header bytes here, by
this module's own few lines per format (no decoder, no Pillow: Pillow's lazy ``open`` refuses such a file
with a ``DecompressionBombError`` that must not be mistaken for "size unknown, go ahead"), and a file over
the budget is refused before any decode. A PDF page is rendered at :data:`PDF_DPI`, lower when that would
pass :data:`PAGE_PIXELS`, and never below :data:`MIN_DPI` (a page that would need less is larger than any
game sheet, and refused unrendered); pages are rendered one at a time.
"""

from __future__ import annotations

import struct
from typing import Any, Final

#: The most pages read from one PDF.
MAX_PDF_PAGES: Final = 200
#: The most pixels of a JPEG photo or scan (a 12-50 MP phone photo fits). One over :data:`READ_PIXELS` is
#: decoded at a half, a quarter or an eighth of its size (libjpeg scales while decoding: the full size is
#: never held), which is still finer than the reader needs.
MAX_PIXELS: Final = 80_000_000
#: The most pixels of a PNG: a PNG is decoded whole before it can be reduced, so its size is its cost.
MAX_PNG_PIXELS: Final = 48_000_000
#: The most pixels the reader is given: its working copies cost about 9 bytes a pixel.
READ_PIXELS: Final = 24_000_000
#: A PDF page is rendered at this resolution...
PDF_DPI: Final = 200
#: ...or lower, so that a page has at most this many pixels (an A2 sheet at 150 dpi is 8.7 MP)...
PAGE_PIXELS: Final = 12_000_000
#: ...but never below this: the marks of a sheet rendered coarser are not read reliably.
MIN_DPI: Final = 100

_PNG_SIGNATURE: Final = b"\x89PNG\r\n\x1a\n"
# JPEG start-of-frame markers: C0-CF but C4 (DHT), C8 (JPG) and CC (DAC), which are not frames
_SOF: Final = frozenset(range(0xC0, 0xD0)) - {0xC4, 0xC8, 0xCC}


class TooLarge(ValueError):
    """A file whose header declares more than the budget (the message says how much)."""


def file_kind(data: bytes) -> str:
    """``pdf``, ``jpeg`` or ``png`` by the file's first bytes; ``""`` for anything else."""
    if data.startswith(b"%PDF-"):
        return "pdf"
    if data.startswith(b"\xff\xd8\xff"):
        return "jpeg"
    if data.startswith(_PNG_SIGNATURE):
        return "png"
    return ""


def refusal(data: bytes) -> str | None:
    """Why a scan file is refused before anything of it is decoded (its kind, its header's size), or None.
    Needs no decoder: ``prizecheck import scan`` asks before it loads OpenCV."""
    kind = file_kind(data)
    if not kind:
        return "not a JPEG, PNG or PDF file"
    if kind == "pdf":
        try:
            doc = open_pdf(data)
        except ValueError as exc:
            return str(exc)
        try:
            return pdf_refusal(page_plan(doc))
        finally:
            doc.close()
    size = header_size(data, kind)
    if size is None:
        return f"a damaged {kind.upper()} file (no image size in its header)"
    try:
        check_pixels(*size, kind)
    except TooLarge as exc:
        return str(exc)
    return None


def open_pdf(data: bytes) -> Any:
    """The PDF document (pypdfium2's); ValueError saying why when it is damaged or has too many pages."""
    import pypdfium2 as pdfium

    try:
        doc = pdfium.PdfDocument(data)
    except Exception as exc:  # pypdfium2 raises PdfiumError (and others) on a damaged file
        raise ValueError(f"a damaged PDF file ({exc})") from None
    if len(doc) > MAX_PDF_PAGES:
        n = len(doc)
        doc.close()
        raise ValueError(f"{n} pages; at most {MAX_PDF_PAGES} are read from one PDF")
    return doc


def page_plan(doc: Any) -> list[float | str]:
    """Each page's render scale (:func:`page_scale`), or why it is not rendered, from the page sizes
    alone (nothing is rendered)."""
    plan: list[float | str] = []
    for i in range(len(doc)):
        try:
            plan.append(page_scale(*doc.get_page_size(i)))
        except TooLarge as exc:
            plan.append(f"page {i + 1} is {exc}")
        except Exception as exc:
            plan.append(f"page {i + 1} does not render ({exc})")
    return plan


def pdf_refusal(plan: list[float | str]) -> str | None:
    """One line for a PDF none of whose pages would be rendered (not one per page), else None."""
    if not plan or not all(isinstance(p, str) for p in plan):
        return None
    first = str(plan[0])
    return f"{len(plan)} pages, none a game sheet: {first}" if len(plan) > 1 else first


def header_size(data: bytes, kind: str) -> tuple[int, int] | None:
    """``(width, height)`` as the header of a PNG or JPEG file declares them; None when the header does
    not say (a damaged file: the decoder will say the rest)."""
    if kind == "png":
        # the signature, then the IHDR chunk first: length (13), "IHDR", width, height (big-endian)
        if len(data) < 24 or data[12:16] != b"IHDR":
            return None
        width, height = struct.unpack(">II", data[16:24])
        return width, height
    if kind == "jpeg":
        return _jpeg_size(data)
    return None


def _jpeg_size(data: bytes) -> tuple[int, int] | None:
    """The frame size of the first start-of-frame segment, walking the markers from SOI up to the scan."""
    i = 2
    while i + 4 <= len(data):
        if data[i] != 0xFF:
            return None
        marker = data[i + 1]
        if marker == 0xFF:  # fill bytes before a marker
            i += 1
            continue
        if marker in (0x01, *range(0xD0, 0xD8)):  # markers without a length
            i += 2
            continue
        if marker == 0xDA:  # start of scan: no frame header before it
            return None
        (length,) = struct.unpack(">H", data[i + 2 : i + 4])
        if marker in _SOF:
            if i + 9 > len(data):
                return None
            height, width = struct.unpack(">HH", data[i + 5 : i + 9])
            return width, height
        i += 2 + length
    return None


def check_pixels(width: int, height: int, kind: str = "jpeg") -> None:
    """:class:`TooLarge` when ``width x height`` is over :data:`MAX_PIXELS` (:data:`MAX_PNG_PIXELS` for a
    PNG)."""
    most = MAX_PNG_PIXELS if kind == "png" else MAX_PIXELS
    if width * height > most:
        raise TooLarge(
            f"image of {width} x {height} pixels ({width * height / 1e6:.0f} megapixels): larger than "
            f"{most // 1_000_000} megapixels{' for a PNG' if kind == 'png' else ''}, not decoded"
        )


def reduction(width: int, height: int) -> int:
    """By how much to reduce an image while decoding it (1, 2, 4 or 8 a side) so that the reader gets at
    most :data:`READ_PIXELS`."""
    factor = 1
    while factor < 8 and width * height > READ_PIXELS * factor * factor:
        factor *= 2
    return factor


def page_scale(width_pt: float, height_pt: float) -> float:
    """The render scale (pixels per PDF point) of a page of this size: :data:`PDF_DPI`, lowered to fit
    :data:`PAGE_PIXELS`. :class:`TooLarge` when that would be below :data:`MIN_DPI`."""
    area = max(width_pt, 1.0) * max(height_pt, 1.0)
    scale = min(PDF_DPI / 72, float((PAGE_PIXELS / area) ** 0.5))
    if scale < MIN_DPI / 72:
        largest = (PAGE_PIXELS / (MIN_DPI / 72) ** 2) ** 0.5 / 72
        raise TooLarge(
            f"{width_pt / 72:.0f} x {height_pt / 72:.0f} inches: larger than a game sheet can be "
            f"(a page is read up to about {largest:.0f} x {largest:.0f} inches, at {MIN_DPI} dpi or more), "
            "not rendered"
        )
    return scale
