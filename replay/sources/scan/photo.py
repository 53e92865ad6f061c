"""A photo or scan file (JPEG, PNG, a PDF of one or more pages) of game sheets -> events, findings, crops.

Each page is read (:mod:`replay.sources.scan.reader`), its marks become a match sheet
(:mod:`replay.sources.scan.marks`) and the sheet importer makes the events
(:func:`replay.sources.sheet.parse_sheet`), with ``source.kind = "scanned"``. A page that is not a game
sheet is an :class:`~replay.engine.errors.InputError` naming the file (and the page), returned in place of
that page's result: the other pages of the file, and the other files of a batch, are not lost. A photo
holding several sheets gives each its own result, left to right (:func:`import_sheets`).

**Crops.** Every region a finding or an event refers to is kept as a JPEG crop of the rectified sheet:
``<sheet>/r7`` (turn row 7, its notes box included), ``<sheet>/head`` (names, mulligans, starting
Pokémon), ``<sheet>/end``, ``<sheet>/page`` (the whole sheet). ``<sheet>`` is ``<16 hex digits of the
file's SHA-256>-<page>`` (``-<page>s2`` for the second sheet of a photo holding two), so a crop's name
says which photo it came from and never collides. The events'
``scan`` field and a ``low_confidence`` finding's ``scan`` are these names. Crops show handwriting (card
names, notes): hidden information, for judges only.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field, replace
from typing import Any, Final

import cv2
import numpy as np

from replay.engine import KNOWN_RULESETS, InputError
from replay.i18n import scan_notes
from replay.i18n.notes import say
from replay.sources.common import Event, Finding, ImportResult, valid_match_id
from replay.sources.scan.budget import (
    file_kind,
    header_size,
    open_pdf,
    page_plan,
    pdf_refusal,
    reduction,
    refusal,
)
from replay.sources.scan.layout import LAYOUT_VERSION
from replay.sources.scan.marks import Carrier, sheet_document
from replay.sources.scan.naming import Players
from replay.sources.scan.reader import PageRead, read_sheets
from replay.sources.scan.refusals import NO_RULESET, NotASheet, Refused
from replay.sources.sheet import parse_sheet

MAX_FILE_BYTES: Final = 64 * 1024 * 1024
#: OpenCV's decode flags by how much :func:`.budget.reduction` reduces an image.
_REDUCED: Final = {
    1: cv2.IMREAD_COLOR,
    2: cv2.IMREAD_REDUCED_COLOR_2,
    4: cv2.IMREAD_REDUCED_COLOR_4,
    8: cv2.IMREAD_REDUCED_COLOR_8,
}


@dataclass(slots=True)
class SheetScan:
    """One sheet read from a file: its events and findings, the match sheet it gave, its crops."""

    filename: str
    page: int | None
    key: str
    result: ImportResult
    sheet: dict[str, Any]
    crops: dict[str, bytes] = field(default_factory=dict)
    read: PageRead | None = None
    part: tuple[int, int] | None = None  # (n, of): the n-th of several sheets in one photo

    @property
    def where(self) -> str:
        return _where(self.filename, self.page, self.part)


def _where(filename: str, page: int | None, part: tuple[int, int] | None = None) -> str:
    where = filename if page is None else f"{filename} page {page}"
    return where if part is None else f"{where} (sheet {part[0]} of {part[1]} in the photo, left to right)"


def pages(data: bytes, filename: str) -> Iterator[tuple[int | None, Any]]:
    """The file's pages as images (BGR arrays), one at a time: ``(None, image)`` for a photo, ``(n, image)``
    for each page of a PDF, rendered when it is asked for (only one page's pixels are held at once); a
    page that cannot be rendered, or is larger than a game sheet, is ``(n, InputError)``. InputError,
    before anything is decoded, for a file that is not an image or a PDF at all, or an image whose header
    declares more pixels than :data:`~replay.sources.scan.budget.MAX_PIXELS` (:mod:`.budget`)."""
    if len(data) > MAX_FILE_BYTES:
        raise InputError(f"larger than {MAX_FILE_BYTES // (1024 * 1024)} MiB", file=filename)
    kind = file_kind(data)
    why = refusal(data)
    if why is not None:
        raise InputError(why, file=filename)
    if kind in ("jpeg", "png"):
        size = header_size(data, kind)
        flag = _REDUCED[reduction(*size)] if size is not None else cv2.IMREAD_COLOR
        try:
            image = cv2.imdecode(np.frombuffer(data, np.uint8), flag)
        except cv2.error:  # OpenCV's own limits (CV_IO_MAX_IMAGE_PIXELS...): a refusal, not a traceback
            image = None
        if image is None:
            raise InputError(f"a damaged {kind.upper()} file (it does not decode)", file=filename)
        return iter([(None, image)])
    return _pdf_pages(data, filename)


def _pdf_pages(data: bytes, filename: str) -> Iterator[tuple[int | None, Any]]:
    """:func:`pages` of a PDF. Every page's size is read first, unrendered (:func:`.budget.page_plan`): a
    file whose pages are all larger than a game sheet is one InputError; then the pages are rendered one
    at a time, each within the pixel budget, and released before the next."""
    try:
        doc = open_pdf(data)
    except ValueError as exc:
        raise InputError(str(exc), file=filename) from None
    plan = page_plan(doc)
    why = pdf_refusal(plan)
    if why is not None:
        doc.close()
        raise InputError(why, file=filename)
    return _render(doc, plan, filename)


def _render(doc: Any, plan: list[float | str], filename: str) -> Iterator[tuple[int | None, Any]]:
    try:
        for i, scale in enumerate(plan):
            if isinstance(scale, str):
                yield i + 1, InputError(scale, file=filename)
                continue
            try:
                page = doc[i]
                try:
                    bitmap = page.render(scale=scale)
                    image = np.ascontiguousarray(bitmap.to_numpy()[:, :, :3])
                    bitmap.close()
                finally:
                    page.close()
            except Exception as exc:
                yield i + 1, InputError(f"page {i + 1} does not render ({exc})", file=filename)
                continue
            yield i + 1, image
            del image  # the caller has read it: one page's pixels at a time
    finally:
        doc.close()


def sheet_key(data: bytes, page: int | None, part: int = 1) -> str:
    """A sheet's name among the crops: the file's hash and the page; ``s2``... for the second and later
    sheets of one photo."""
    return f"{hashlib.sha256(data).hexdigest()[:16]}-{page or 1}" + (f"s{part}" if part > 1 else "")


def _region_name(region: str) -> str:
    if region == "head":
        return say(scan_notes.HEADER)
    if region == "end":
        return say(scan_notes.END)
    return say(scan_notes.ROW, row=region[1:])


def _explain(res: ImportResult, carriers: list[Carrier], key: str) -> None:
    """The sheet importer's ``low_confidence`` findings, made to say which marks were unclear and why, and
    which crop shows them (the finding's ``scan``; ``sheet_region``: ``r7``, ``head`` or ``end``)."""
    said: dict[int, tuple[Carrier, str]] = {}
    for c in carriers:
        why = "; ".join(c.problems) if c.problems else say(scan_notes.NEAR_THRESHOLDS)
        ref = f"{key}/{c.region}"
        said[c.row_n] = (
            c,
            say(
                scan_notes.LOW_CONFIDENCE,
                region=_region_name(c.region),
                problems=why,
                confidence=f"{c.confidence:.2f}",
                ref=ref,
            ),
        )
    for i, f in enumerate(res.findings):
        if f.code == "low_confidence" and f.line in said:
            c, message = said[f.line]
            res.findings[i] = Finding(
                f.code, f.severity, int(c.region[1:]) if c.region[0] == "r" else None, message
            )
    for ev in res.events:
        fnd = ev.get("finding") if ev.get("type") == "note" else None
        if isinstance(fnd, dict) and fnd.get("code") == "low_confidence" and fnd.get("row") in said:
            c, message = said[fnd["row"]]
            ev["text"] = message
            fnd["sheet_region"] = c.region
            fnd["scan"] = f"{key}/{c.region}"


def import_page(
    image: Any,
    *,
    filename: str,
    page: int | None,
    key: str,
    players: tuple[str, str] | None = None,
    ruleset: str | None = None,
    min_confidence: float = 0.8,
) -> SheetScan:
    """One page image (BGR) -> the :class:`SheetScan` of its first sheet; InputError when it is not a
    readable game sheet. :func:`import_sheets` reads every sheet of a photo holding several."""
    first = import_sheets(
        image,
        filename=filename,
        page=page,
        key=key,
        players=players,
        ruleset=ruleset,
        min_confidence=min_confidence,
    )[0]
    if isinstance(first, InputError):
        raise first
    return first


def import_sheets(
    image: Any,
    *,
    filename: str,
    page: int | None,
    key: str,
    players: Players = None,
    ruleset: str | None = None,
    min_confidence: float = 0.8,
    match: Matches = None,
) -> list[SheetScan | InputError]:
    """Every sheet in one page image (BGR): a :class:`SheetScan` each, or an InputError naming the file,
    the page and the sheet when one cannot be read (two sheets in one photo are two matches, never one
    read from the markers of both). ``key`` names the first sheet's crops; the n-th is ``key + "sN"``.
    ``players``: one pair of names for every sheet, or a list: the k-th result's names (None: the
    sheet's own), or a mapping by match id (a sheet not in it: its own). ``match``: the k-th result's
    match id given by hand (None: the sheet's own; issue 39:
    used when neither its codes nor its printed id can be read, a refusal when its own is another)."""
    where = _where(filename, page)
    try:
        reads = read_sheets(image, match or ())
    except NotASheet as exc:
        raise Refused(exc, file=where) from None
    out: list[SheetScan | InputError] = []
    n = 0
    for k, read in enumerate(reads):
        part = read.meta.get("part") if isinstance(read, PageRead) else None
        if isinstance(read, NotASheet):
            out.append(Refused(read, file=where if len(reads) == 1 else f"{where} (in the photo)"))
            continue
        n += 1
        names = _names(players, k, read.header.match)
        try:
            out.append(
                _import_read(
                    read,
                    filename=filename,
                    page=page,
                    key=key + (f"s{n}" if n > 1 else ""),
                    part=part,
                    players=names,
                    ruleset=ruleset,
                    min_confidence=min_confidence,
                )
            )
        except InputError as exc:
            out.append(exc)
    return out


#: ``import scan --match``: the match id of each sheet in order, None for a sheet's own (issue 39).
Matches = list[str | None] | None


def _names(players: Players, k: int, match: str) -> tuple[str, str] | None:
    if isinstance(players, list):
        return players[k] if k < len(players) else None
    if isinstance(players, Mapping):
        return players.get(match)
    return players


def _import_read(
    read: PageRead,
    *,
    filename: str,
    page: int | None,
    key: str,
    part: tuple[int, int] | None,
    players: tuple[str, str] | None,
    ruleset: str | None,
    min_confidence: float,
) -> SheetScan:
    where = _where(filename, page, part)
    header = read.header
    if header.given and not header.ruleset:
        # named by --match, its ruleset line not read either: the command line's --ruleset, or a refusal
        if ruleset is None:
            raise Refused(NotASheet.said(NO_RULESET, match=header.match), file=where)
        header = replace(header, ruleset=ruleset)
    if not valid_match_id(header.match):
        raise InputError(f"the QR code's match id {header.match!r} is not a match id", file=where)
    if ruleset is None and header.ruleset not in KNOWN_RULESETS:
        raise InputError(f"the QR code's ruleset {header.ruleset!r} is not known", file=where)
    if not any(r.chosen or r.problem for r in read.reads.values()):
        raise InputError(f"match {header.match}: an unused game sheet (no box is marked on it)", file=where)
    doc = sheet_document(header, read.reads, scan=key, players=players)
    text = json.dumps(doc.doc, ensure_ascii=False)
    res = parse_sheet(
        text,
        match=header.match,
        ruleset=ruleset,
        cards=doc.cards,
        filename=where,
        min_confidence=min_confidence,
    )
    _explain(res, doc.carriers, key)
    start = res.events[0]
    start["source"]["scan"] = {"file": filename, "page": page or 1, "sheet": key, "layout": LAYOUT_VERSION}
    if header.sheet is not None:
        start["source"]["scan"]["number"] = header.sheet
    crops = {f"{key}/{region}": read.crop(region) for region in sorted({c.region for c in doc.carriers})}
    crops[f"{key}/page"] = read.crop("page", quality=80)
    for row in doc.doc["rows"]:
        ref = row.get("scan")
        if isinstance(ref, str) and ref not in crops:
            crops[ref] = read.crop(ref.split("/", 1)[1])
    return SheetScan(filename, page, key, res, doc.doc, crops, read, part)


def import_scan(
    data: bytes,
    filename: str,
    *,
    players: Players = None,
    ruleset: str | None = None,
    min_confidence: float = 0.8,
    match: Matches = None,
) -> list[SheetScan | InputError]:
    """Every sheet in one file's bytes, in order (pages, then the sheets of a photo left to right): a
    :class:`SheetScan` per sheet read, an InputError (naming the file, the page, the sheet) per page or
    sheet that cannot be read. InputError for a file that is not an image at all. ``players``: one pair
    of names for every sheet, or a list: the k-th result's names (``--players`` given per sheet);
    ``match``: the k-th result's match id given by hand (``--match``; None: the sheet's own)."""
    out: list[SheetScan | InputError] = []
    for page, image in pages(data, filename):
        if isinstance(image, InputError):
            out.append(image)
            continue
        mine = players[len(out) :] if isinstance(players, list) else players
        try:
            out.extend(
                import_sheets(
                    image,
                    filename=filename,
                    page=page,
                    key=sheet_key(data, page),
                    players=mine,
                    ruleset=ruleset,
                    min_confidence=min_confidence,
                    match=match[len(out) :] if match is not None else None,
                )
            )
        except InputError as exc:
            out.append(exc)
    return out


def strip_scan(events: list[Event]) -> list[Event]:
    """Events without what only a scan adds (``scan``, ``confidence``, the sheet ``row`` numbers, the scan
    in the source, the low-confidence notes and unclear-mark notes): what the same game gives from any
    sheet. For comparisons."""
    out = []
    for ev in events:
        fnd = ev.get("finding")
        if ev.get("type") == "note" and isinstance(fnd, dict) and fnd.get("code") == "low_confidence":
            continue
        if ev.get("type") == "note" and str(ev.get("text", "")).startswith(
            (
                "unclear marks in ",
                "the sheet's main QR code could not be read",
                "neither of the sheet's QR codes",
            )
        ):
            continue
        e = {k: v for k, v in ev.items() if k not in ("scan", "confidence", "row")}
        if e.get("type") == "match_started":
            e["source"] = {k: v for k, v in e["source"].items() if k not in ("scan", "tool")}
        out.append(e)
    # the seq numbers close up over the notes removed
    return [{**e, "seq": i} for i, e in enumerate(out, 1)]
