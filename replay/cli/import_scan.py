"""``prizecheck import scan FILE...``: photos and scans of filled game sheets -> contract events.

Each file is a JPEG, a PNG or a PDF (every page a sheet). A page that is not a game sheet (no markers, no
QR code, another layout version), a file that is not an image: an error on stderr naming the file (and
the page), exit 2 at the end; every other sheet of the batch is still written. The crops the events and
findings refer to go to ``--crops DIR`` (judges only: they show the handwriting). ``--strict`` refuses a
batch with a low-confidence row (exit 1, nothing written), as ``import sheet`` does. A photo holding two
sheets gives two matches. ``--players`` names sheets printed without names: once for all, or once per
sheet in the batch's order, or from ``--players-file`` (a line a sheet, ``-`` for a sheet's printed names;
or a line a match id, ``ID,A,B`` or ``ID,-``, each sheet named by its own id, whatever the order);
a count that does not match the sheets: exit 2, nothing written. ``--match`` names, in the same order, a
sheet whose QR codes and printed match id cannot be read (flagged: a judge named it; ``-`` for a sheet's
own); a sheet whose own id is read and is another is left out (exit 2); the same count check.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import IO, TYPE_CHECKING, Any

from replay.cli.common import UsageError, error_line, language, output, tr, within
from replay.engine import KNOWN_RULESETS, InputError
from replay.extras import needs_extra
from replay.sources.scan.naming import MAX_LIST, ByMatch, given_match, pair, players_list

if TYPE_CHECKING:
    from replay.sources.scan.naming import Players
    from replay.sources.scan.photo import SheetScan

MAX_BYTES = 64 * 1024 * 1024


def configure(s: argparse.ArgumentParser) -> None:
    s.add_argument(
        "scans", nargs="+", metavar="FILE", help="photos or scans: .jpg, .png or .pdf (several pages)"
    )
    s.add_argument(
        "--players",
        metavar="A,B",
        action="append",
        help="the players, for sheets printed without their names: once for every sheet, or once per "
        "sheet in the batch's order (files, pages, then the sheets of one photo left to right)",
    )
    s.add_argument(
        "--players-file",
        metavar="FILE",
        help="the players of each sheet, one line a sheet: A,B in the batch's order (or - for the names "
        "printed on that sheet), or ID,A,B by the sheet's match id, in any order (or ID,- for its printed "
        "names; every sheet read then needs its line); one kind of line a file; # starts a comment",
    )
    s.add_argument(
        "--match",
        metavar="ID",
        action="append",
        help="the match id of a sheet whose QR codes and printed id cannot be read (a judge names it; "
        "flagged): once per sheet in the batch's order, as --players, - for a sheet's own; a sheet whose "
        "own id is read and is another is left out",
    )
    s.add_argument("--ruleset", default=None, choices=KNOWN_RULESETS, help="ruleset (default: the sheet's)")
    s.add_argument(
        "--min-confidence",
        type=within(0.0, 1.0),
        default=0.8,
        metavar="X",
        help="rows below this confidence become low_confidence findings (default 0.8)",
    )
    s.add_argument(
        "--crops",
        metavar="DIR",
        default="prizecheck-crops",
        help="where the crops go, DIR/<sheet>/<region>.jpg (default ./prizecheck-crops)",
    )
    s.add_argument("--out", "-o", metavar="FILE", help="write events here (default stdout)")
    s.add_argument("--format", choices=("jsonl", "msgpack"), default="jsonl", help="output encoding")
    s.add_argument("--strict", action="store_true", help="exit 1 (and write nothing) on a low-confidence row")
    s.add_argument("--quiet", "-q", action="store_true", help="print only the summary on stderr")


def _read(path: str) -> bytes:
    try:
        with open(path, "rb") as fh:
            data = fh.read(MAX_BYTES + 1)
    except FileNotFoundError:
        raise InputError(tr("no such file"), file=path) from None
    except OSError as exc:
        raise InputError(tr("cannot read: {reason}", reason=exc.strerror or exc), file=path) from None
    if not data:
        raise InputError(tr("is empty: nothing to import"), file=path)
    if len(data) > MAX_BYTES:
        raise InputError(tr("larger than {n} MiB", n=MAX_BYTES // (1024 * 1024)), file=path)
    return data


class _NothingWritten(Exception):
    """--strict refused the batch, or --players or --match did not match its sheets: the output is left
    as it was; the exit status and the sentence that says why are the arguments."""

    def __init__(self, status: int, said: str) -> None:
        super().__init__(status, said)
        self.status = status
        self.said = said


def run(args: argparse.Namespace) -> int:
    import importlib.util

    # the extra is there (imported at the first file that passes the header check, not before: a refusal
    # needs no decoder, and loading OpenCV is most of the time it takes)
    for module in ("cv2", "pypdfium2"):
        if importlib.util.find_spec(module) is None:
            raise InputError(needs_extra(f"No module named '{module}'", "scan"))
    # the output is opened first: one that cannot be written is refused before any photo is read
    try:
        with output(args.out, inputs=args.scans) as out:
            return _run(args, out)
    except _NothingWritten as stop:
        print(f"prizecheck import: {stop.said}", file=sys.stderr)
        return stop.status


def _run(args: argparse.Namespace, out: IO[bytes]) -> int:
    from replay.cli.common import write_events
    from replay.sources.scan.budget import refusal

    given: list[tuple[str, str] | None] = []
    for text in args.players or ():
        names = pair(text)
        if names is None:
            raise UsageError(tr("argument --players: two different names, e.g. --players Mara,Teodor"))
        given.append(names)
    by_match: ByMatch | None = None
    if args.players_file is not None:
        if given:
            raise UsageError(tr("--players and --players-file cannot be combined"))
        lines = _players_file(args.players_file)
        if isinstance(lines, ByMatch):
            by_match = lines
        else:
            given = lines
    # --match: one id per sheet, in the same order (issue 39: a sheet a judge names by hand), - for its own
    matches: list[str | None] | None = None
    if args.match is not None:
        matches = []
        for text in args.match:
            try:
                matches.append(given_match(text))
            except ValueError:
                raise UsageError(
                    tr(
                        "argument --match: a match id of 1-128 characters A-Z a-z 0-9 . _ : / -, or - for "
                        "the sheet's own"
                    )
                ) from None
    # once: every sheet; several times (or a file): one pair per sheet, in the batch's order (a slot each,
    # read or not, so that a page that cannot be read does not shift the names of the pages after it)
    per_sheet = len(given) > 1 or (args.players_file is not None and by_match is None)
    lang = language()
    slots = 0
    said = print if not args.quiet else (lambda *a, **k: None)
    sheets: list[SheetScan] = []
    failed = 0
    seen: dict[str, str] = {}
    for path in args.scans:
        try:
            data = _read(path)
            why = refusal(data)
            if why is not None:
                raise InputError(why, file=path)
            from replay.sources.scan.photo import import_scan

            players: Players = (
                by_match.names
                if by_match is not None
                else list(given[slots:])
                if per_sheet
                else (given[0] if given else None)
            )
            results = import_scan(
                data,
                path,
                players=players,
                ruleset=args.ruleset,
                min_confidence=args.min_confidence,
                match=matches[slots:] if matches is not None else None,
            )
        except InputError as exc:
            print(f"prizecheck import: {error_line(exc)}", file=sys.stderr)
            failed += 1
            slots += 1
            continue
        slots += len(results)
        from replay.sources.scan.refusals import Refused, spoken

        for res in results:
            if isinstance(res, InputError):
                # a photo's refusal in the reader's language, with how to retake it (issue 39 item 3);
                # any other error as the command line says it (replay.cli.words.error_line)
                words = spoken(res, lang) if isinstance(res, Refused) else error_line(res)
                print(f"prizecheck import: {words}", file=sys.stderr)
                failed += 1
                continue
            match = res.result.events[0]["match"]
            if match in seen:
                print(
                    f"prizecheck import: {res.where}: "
                    + tr(
                        "match {match} was already read from {where}; this sheet is left out (photograph "
                        "each sheet once)",
                        match=match,
                        where=seen[match],
                    ),
                    file=sys.stderr,
                )
                failed += 1
                continue
            if by_match is not None and match not in by_match.names:
                # a file of ID,A,B lines names every sheet: one it leaves out may be a typo's, not unnamed
                print(
                    f"prizecheck import: {res.where}: "
                    + tr(
                        "match {match} has no line in {file} (ID,A,B, or ID,- for the names printed on "
                        "the sheet): this sheet is left out",
                        match=match,
                        file=args.players_file,
                    ),
                    file=sys.stderr,
                )
                failed += 1
                continue
            seen[match] = res.where
            sheets.append(res)
    unused = 0
    for match, n in by_match.lines.items() if by_match is not None else ():
        if match not in seen:
            # a line no sheet read used: a typo in the id, or its sheet not read (said above)
            print(
                f"prizecheck import: {args.players_file}:{n}: "
                + tr("no sheet read has match id {match}: this line names no sheet", match=match),
                file=sys.stderr,
            )
            unused += 1
    if matches is not None and slots != len(matches):
        # ids given per sheet that do not match the sheets: any pairing would be a guess
        raise _NothingWritten(
            2,
            tr(
                "--match was given {given} times for {sheets} sheet(s) in the batch (once per sheet: files, "
                "pages, then the sheets of one photo left to right; - for a sheet's own id); no events "
                "written",
                given=len(matches),
                sheets=slots,
            ),
        )
    if per_sheet and slots != len(given):
        # names given per sheet that do not match the sheets: any pairing would be a guess
        if args.players_file is not None:
            raise _NothingWritten(
                2,
                f"{args.players_file}: "
                + tr(
                    "{lines} line(s) of names for {sheets} sheet(s) in the batch (one line a sheet: files, "
                    "pages, then the sheets of one photo left to right); no events written",
                    lines=len(given),
                    sheets=slots,
                ),
            )
        raise _NothingWritten(
            2,
            tr(
                "--players was given {given} times for {sheets} sheet(s) in the batch (give it once for all, "
                "or once per sheet: files, pages, then the sheets of one photo left to right); no events "
                "written",
                given=len(given),
                sheets=slots,
            ),
        )
    low_total = 0
    for res in sheets:
        low = [f for f in res.result.findings if f.code == "low_confidence"]
        low_total += len(low)
        for f in res.result.findings:
            where = f"{res.where}: " + tr("row {n}", n=f.line) if f.line is not None else res.where
            said(f"prizecheck import: {where}: {f.severity}: {f.code}: {f.message}", file=sys.stderr)
        rows = sum(1 for r in res.sheet["rows"] if r.get("action") == "turn")
        print(
            f"prizecheck import: {res.where}: "
            + tr(
                "match {match}: {rows} turn(s), {events} events, {findings} findings",
                match=res.result.events[0]["match"],
                rows=rows,
                events=len(res.result.events),
                findings=len(res.result.findings),
            )
            + (tr(", {n} low-confidence row(s)", n=len(low)) if low else ""),
            file=sys.stderr,
        )
    if args.strict and low_total:
        raise _NothingWritten(1, tr("--strict: low-confidence rows; no events written"))
    if sheets:
        _crops(args.crops, sheets)
        write_events([ev for res in sheets for ev in res.result.events], out, args.format)
    if failed and sheets:
        print(
            "prizecheck import: "
            + tr(
                "{failed} file(s) or page(s) not read as game sheets; {written} sheet(s) written",
                failed=failed,
                written=len(sheets),
            ),
            file=sys.stderr,
        )
    return 2 if failed or unused else 0


def _players_file(path: str) -> list[tuple[str, str] | None] | ByMatch:
    """``--players-file``: a list of players, a line a sheet (:func:`replay.sources.scan.naming.players_list`,
    as the upload page's ``players_by_id`` reads its own). InputError naming the file and the line."""
    try:
        with open(path, encoding="utf-8") as fh:
            text = fh.read(MAX_LIST)
    except FileNotFoundError:
        raise InputError(tr("no such file"), file=path, field="--players-file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(tr("cannot read: {reason}", reason=exc), file=path, field="--players-file") from None
    return players_list(text, file=path)


def _crops(root: str, sheets: list[Any]) -> None:
    """Each crop as ROOT/<sheet>/<region>.jpg (the name an event's ``scan`` gives)."""
    for res in sheets:
        for name, data in res.crops.items():
            path = os.path.join(root, *name.split("/")) + ".jpg"
            try:
                os.makedirs(os.path.dirname(path), exist_ok=True)
                with open(path, "wb") as fh:
                    fh.write(data)
            except OSError as exc:
                raise InputError(
                    tr("cannot write a crop: {reason}", reason=exc.strerror or exc), file=path
                ) from None
    print(
        "prizecheck import: " + tr("crops in {path}/ (judges only: they show the handwriting)", path=root),
        file=sys.stderr,
    )
