"""One file of a game, whatever it is, into events: a battle log, a game sheet's CSV or JSON, or a photo or
PDF of a printed sheet (docs/importers.md). The command line (``prizecheck import``) and the service's
import page (``POST /import``, docs/web.md) read files through these functions, so a file gives the same
events by either way in.

:func:`kind_of` tells the kind from the name and the first bytes; :func:`decode_text` reads text as the
importers expect it (UTF-8 with or without BOM, UTF-16 with its mark); :func:`import_file` calls the
importer and returns one :class:`Imported` per game the file holds (a PDF of several sheets holds several)
or raises InputError with one sentence naming the file.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from replay.engine import InputError
from replay.sources.cards import Catalogue
from replay.sources.common import Finding, ImportResult
from replay.sources.scan.naming import Players

Kind = Literal["ptcgl", "sheet", "scan"]

#: The largest sheet file (CSV or JSON) and the largest photo or PDF read.
MAX_SHEET_BYTES = 64 * 1024 * 1024
MAX_SCAN_BYTES = 64 * 1024 * 1024

_IMAGE_MAGIC = (b"\x89PNG\r\n\x1a\n", b"\xff\xd8\xff", b"%PDF-")


@dataclass
class Imported:
    """One game read from a file: its events and what the importer could not read or had to guess."""

    file: str
    match: str
    kind: Kind
    events: list[dict[str, Any]]
    findings: list[Finding]
    unmatched: list[tuple[int, str]] = field(default_factory=list)
    crops: dict[str, bytes] = field(default_factory=dict)  # a scanned sheet's regions, by crop name

    @property
    def low_confidence(self) -> int:
        """Marks or rows the reader was not sure of (each a ``low_confidence`` finding)."""
        return sum(1 for f in self.findings if f.code == "low_confidence")


def kind_of(name: str, data: bytes) -> Kind:
    """A photo or PDF (by its first bytes), a game sheet (``.csv``, ``.json``), else a battle log."""
    if data.startswith(_IMAGE_MAGIC):
        return "scan"
    lower = name.lower()
    if lower.endswith((".jpg", ".jpeg", ".png", ".pdf")):
        return "scan"  # a file named as an image that is not one: the scan reader says what it is
    if lower.endswith((".csv", ".json")):
        return "sheet"
    return "ptcgl"


def decode_text(data: bytes, name: str) -> str:
    """A text file's bytes as the importers read them: UTF-8 with or without BOM, or UTF-16 with its
    byte-order mark (Notepad's "Unicode"); InputError naming the line of bad bytes, or UTF-16 without a
    mark, or binary data."""
    if data[:2] in (b"\xff\xfe", b"\xfe\xff"):
        try:
            return data.decode("utf-16")
        except UnicodeDecodeError as exc:
            raise InputError(f"UTF-16 text with a broken character at byte {exc.start}", file=name) from None
    if b"\x00" in data:
        if _utf16_without_mark(data):
            raise InputError(
                "UTF-16 text without a byte-order mark: save it as UTF-8 (or UTF-16 with a BOM)", file=name
            )
        at = data.index(b"\x00")
        raise InputError("binary data (NUL byte), not text", file=name, line=data.count(b"\n", 0, at) + 1)
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise InputError(f"not UTF-8 text (byte 0x{data[exc.start]:02x})", file=name, line=line) from None


def _utf16_without_mark(data: bytes) -> bool:
    """Text in UTF-16 without a BOM: a NUL in every other byte of its start (ASCII letters' high bytes)."""
    head = data[:512]
    odd, even = head[1::2].count(0), head[0::2].count(0)
    return max(odd, even) >= 0.4 * (len(head) // 2) and min(odd, even) == 0


def limit_of(kind: Kind) -> int:
    """The largest file of this kind read, in bytes."""
    if kind == "ptcgl":
        from replay.sources.ptcgl import MAX_LOG_BYTES  # here: a sheet's import never needs the log reader

        return MAX_LOG_BYTES
    return {"sheet": MAX_SHEET_BYTES, "scan": MAX_SCAN_BYTES}[kind]


def import_file(
    name: str,
    data: bytes,
    *,
    match: str,
    kind: Kind | None = None,
    ruleset: str | None = None,
    cards: Catalogue | None = None,
    players: Players = None,
    given: list[str | None] | None = None,
    min_confidence: float = 0.8,
    partial: bool = False,
) -> list[Imported]:
    """The games of one file; InputError (one sentence naming ``name``) when it cannot be read at all.

    ``match`` names the game of a log or a sheet file; a scanned sheet carries its own id (its QR code).
    ``ruleset`` None: the sheet's own, else ``play-2026``. A photo's or a PDF's sheets are named by hand
    as ``import scan`` names them (issue 39; :mod:`replay.sources.scan.naming`): ``players`` one pair for
    every sheet, or a list, the k-th sheet's (None: its printed names), or a mapping by each sheet's
    match id (the page's ``players_by_id``: a sheet it does not name refuses the file); ``given`` the k-th
    sheet's match id (None: its own), used only for a sheet that cannot name itself, a sheet whose own id
    is another refused. A list whose length is not the file's sheets is refused: any pairing would be a guess.
    """
    kind = kind or kind_of(name, data)
    if len(data) > limit_of(kind):
        if kind == "ptcgl":
            from replay.sources.ptcgl import too_large

            raise too_large(name, len(data))
        raise InputError(f"larger than {limit_of(kind) // (1024 * 1024)} MiB", file=name)
    if kind == "scan":
        return _scans(
            name, data, ruleset=ruleset, players=players, given=given, min_confidence=min_confidence
        )
    text = decode_text(data, name)
    if not text.strip():
        raise InputError("is empty: nothing to import", file=name)
    if kind == "ptcgl":
        # here, as the sheet's reader below: each kind imports its own reader (issue 40 item 2: the battle
        # log's reader and its seven languages' tables were half of a sheet's start-up)
        from replay.sources.ptcgl import parse_ptcgl

        res: ImportResult = parse_ptcgl(
            text, match=match, ruleset=ruleset or "play-2026", cards=cards, filename=name, partial=partial
        )
    else:
        from replay.sources.sheet import parse_sheet  # here: a battle log's import never needs it

        res = parse_sheet(
            text, match=match, ruleset=ruleset, cards=cards, filename=name, min_confidence=min_confidence
        )
    return [Imported(name, str(res.events[0]["match"]), kind, res.events, res.findings, res.unmatched)]


def _scans(
    name: str,
    data: bytes,
    *,
    ruleset: str | None,
    players: Players,
    given: list[str | None] | None,
    min_confidence: float,
) -> list[Imported]:
    """Each sheet of a photo or PDF. A page that is not a sheet refuses the whole file: a batch stores a
    file whole or not at all."""
    try:
        from replay.sources.scan.photo import import_scan
    except ImportError as exc:
        from replay.extras import needs_extra

        raise InputError(needs_extra(exc, "scan"), file=name) from None
    out: list[Imported] = []
    read = import_scan(
        data, name, players=players, ruleset=ruleset, min_confidence=min_confidence, match=given
    )
    for res in read:
        if isinstance(res, InputError):
            raise res
        r = res.result
        out.append(
            Imported(res.where, str(r.events[0]["match"]), "scan", r.events, r.findings, [], res.crops)
        )
    if len({i.match for i in out}) != len(out):
        raise InputError("holds the same sheet twice (photograph each sheet once)", file=name)
    # names given a sheet at a time that do not match the file's sheets: any pairing would be a guess
    if isinstance(players, list) and len(players) != len(out):
        raise InputError(
            f"{len(players)} pairs of players given for {len(out)} sheet(s) in the file (once for every "
            "sheet, or once a sheet: pages, then the sheets of one photo left to right)",
            file=name,
        )
    if isinstance(players, Mapping):
        # a list by match id names every sheet: one it leaves out may be a typo's, not unnamed
        for game in out:
            if game.match not in players:
                raise InputError(
                    f"match {game.match} has no line in the players by match id (ID,A,B, or ID,- for the "
                    "names printed on the sheet): nothing of the file is imported; add its line, or check "
                    "the sheet's match id",
                    file=game.file,
                )
    if given is not None and len(given) != len(out):
        raise InputError(
            f"{len(given)} match ids given for {len(out)} sheet(s) in the file (once a sheet: pages, then "
            "the sheets of one photo left to right; - for a sheet's own)",
            file=name,
        )
    return out
