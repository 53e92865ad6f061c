"""``prizecheck import ptcgl|sheet``: read files, call the pure parsers, write events (docs/importers.md).

Exit status (README, "The command line"): 0 ok; 1 with ``--strict`` when lines were left unread (or, for
sheets, rows below the confidence threshold); 2 bad input, raised as InputError naming file, line and field.
"""

from __future__ import annotations

import argparse
import gc
import os
import sys
from typing import IO, TYPE_CHECKING

from replay.cli.common import output, tr, within, write_events
from replay.engine import KNOWN_RULESETS, InputError

# The importers (and the engine under them) are imported when a file is read, not to parse the options
# (issue 40 item 2).
if TYPE_CHECKING:
    from replay.sources.cards import Catalogue
    from replay.sources.intake import Imported, Kind

MAX_BYTES = 64 * 1024 * 1024


def configure(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="source", metavar="SOURCE", required=True)
    p = sub.add_parser(
        "ptcgl",
        help="Pokémon TCG Live battle-log exports",
        description="Pokémon TCG Live battle-log exports (text copied from the client) to contract events.",
    )
    p.add_argument("logs", nargs="+", metavar="LOG", help="battle-log text file(s); - for stdin")
    p.add_argument(
        "--partial", action="store_true", help="import a log without an end line (game in progress)"
    )
    _common(p)
    s = sub.add_parser(
        "sheet",
        help="paper match sheets (CSV or JSON)",
        description="Match sheets from a "
        "judge's recording app or a scanning step (CSV or JSON) to contract events.",
    )
    s.add_argument("sheets", nargs="+", metavar="FILE", help="match sheet(s), .csv or .json; - for stdin")
    s.add_argument(
        "--min-confidence",
        type=within(0.0, 1.0),
        default=0.8,
        metavar="X",
        help="rows below this confidence become low_confidence findings (default 0.8)",
    )
    _common(s)
    from replay.cli import import_scan

    import_scan.configure(
        sub.add_parser(
            "scan",
            help="photos and scans of filled game sheets (JPEG, PNG, PDF)",
            description="Photos and scans of game sheets printed by `prizecheck sheet print` and filled in "
            "with a pen (JPEG, PNG, PDF of several pages) to contract events.",
        )
    )


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--match", metavar="ID", help="match id (default: from the file name); several files: ID.1, ID.2"
    )
    p.add_argument("--ruleset", default=None, choices=KNOWN_RULESETS, help="ruleset id (default play-2026)")
    p.add_argument("--cards", metavar="FILE", help="card catalogue (CSV name,hp[,rule] or JSON) for HP")
    p.add_argument("--out", "-o", metavar="FILE", help="write events here (default stdout)")
    p.add_argument("--format", choices=("jsonl", "msgpack"), default="jsonl", help="output encoding")
    p.add_argument("--strict", action="store_true", help="exit 1 when any line or row was not read cleanly")
    p.add_argument("--quiet", "-q", action="store_true", help="print only the summary on stderr")


def read_text(path: str, limit: int = MAX_BYTES) -> str:
    """A file (or stdin) as text: UTF-8 with or without BOM; InputError naming the line of bad bytes.
    At most ``limit`` bytes are read: a larger input is refused before the rest is read."""
    from replay.sources.intake import decode_text

    return decode_text(read_bytes(path, limit), path)


def _log_too_large(path: str, size: int) -> InputError:
    # the log reader's package is imported here only: it is half a sheet's start-up (issue 40 item 2)
    from replay.sources.ptcgl import too_large

    return too_large(path, size)


def read_bytes(path: str, limit: int, *, log: bool = False) -> bytes:
    """A file (or stdin), at most ``limit`` bytes: a larger input is refused before the rest is read
    (``log``: a battle log, refused by its own size before it is read, with the log reader's sentence)."""
    try:
        if path == "-":
            data = sys.stdin.buffer.read(limit + 1)
        else:
            with open(path, "rb") as fh:
                if log and os.fstat(fh.fileno()).st_size > limit:
                    raise _log_too_large(path, os.fstat(fh.fileno()).st_size)
                data = fh.read(limit + 1)
    except OSError as exc:
        from replay.codec import unreadable  # here: the codec (msgspec, the schemas) costs a start-up

        raise unreadable(exc, path) from None
    if len(data) > limit:
        if log:
            raise _log_too_large(path, len(data))
        raise InputError(tr("larger than {n} MiB", n=limit // (1024 * 1024)), file=path)
    return data


def _matches(args: argparse.Namespace, paths: list[str]) -> list[str]:
    from replay.sources.common import match_id_from, valid_match_id

    if args.match is not None and not valid_match_id(args.match):
        raise InputError(tr("match id must be 1-128 characters of A-Z a-z 0-9 . _ : / -"), field="--match")
    if args.match is not None:
        return [args.match] if len(paths) == 1 else [f"{args.match}.{i}" for i in range(1, len(paths) + 1)]
    ids = [match_id_from(p if p != "-" else "stdin") for p in paths]
    # Two files with one name (in two folders, say): the later ones add a hash of their path, which no
    # other file's id can be (a counter such as ".2" could be another file's own name)
    out: list[str] = []
    for path, m in zip(paths, ids, strict=True):
        if m in out:
            import hashlib  # here: only two files of one name pay for OpenSSL's import (2-3 ms)

            digest = hashlib.sha256(os.path.abspath(path).encode("utf-8")).hexdigest()[:8]
            m = f"{m[:119]}.{digest}"
        out.append(m)
    return out


def _catalogue(args: argparse.Namespace) -> Catalogue | None:
    from replay.sources.cards import parse_catalogue

    if not args.cards:
        return None
    return parse_catalogue(read_text(args.cards), filename=args.cards)


class _NothingWritten(Exception):
    """--strict refused the input: leave the output as it was (no file, or the old one) and exit 1."""


def run(args: argparse.Namespace) -> int:
    if args.source == "scan":
        from replay.cli import import_scan

        return import_scan.run(args)
    # the output is opened first: one that cannot be written is refused before any file is read
    try:
        paths: list[str] = args.logs if args.source == "ptcgl" else args.sheets
        with output(args.out, inputs=[*paths, args.cards]) as out:
            return _import(args, out)
    except _NothingWritten:
        return 1


def _import(args: argparse.Namespace, out: IO[bytes]) -> int:
    from replay.cli.progress import track
    from replay.sources.intake import import_file, limit_of

    paths: list[str] = args.logs if args.source == "ptcgl" else args.sheets
    cards = _catalogue(args)
    ruleset = args.ruleset or "play-2026"
    results: list[tuple[str, Imported]] = []
    pairs = list(zip(paths, _matches(args, paths), strict=True))
    kind: Kind = "ptcgl" if args.source == "ptcgl" else "sheet"
    # (battle logs only: a sheet's import leaves a small garbage cycle that must not be frozen; a caller's
    # own frozen objects are left as they are)
    freeze = kind == "ptcgl" and gc.get_freeze_count() == 0
    try:
        for path, match in (
            track(pairs, tr("importing"), len(pairs), unit="files") if len(pairs) > 1 else pairs
        ):
            data = read_bytes(path, limit_of(kind), log=kind == "ptcgl")
            (res,) = import_file(
                path,
                data,
                match=match,
                kind=kind,
                ruleset=args.ruleset if kind == "sheet" else ruleset,
                cards=cards,
                min_confidence=getattr(args, "min_confidence", 0.8),
                partial=getattr(args, "partial", False),
            )
            results.append((path, res))
            if freeze:
                # the results are kept to the end (--strict writes nothing if any file fails), and the
                # collector's passes walked every event kept so far again and again: 14 % of a 200-log
                # batch's CPU. Frozen, what is alive now (the results) is no longer walked; the next file's
                # garbage is collected as before (a log's import leaves no garbage cycles to freeze with
                # them: tests/cli/test_import_gc.py)
                gc.freeze()
    finally:
        if freeze:
            gc.unfreeze()  # back to the collector: a caller in the same process (a test) keeps its own
    failed = False
    for path, res in results:
        if not args.quiet:
            for f in res.findings:
                where = f"{path}:{f.line}" if f.line is not None else path
                print(f"prizecheck import: {where}: {f.severity}: {f.code}: {f.message}", file=sys.stderr)
        low = sum(1 for f in res.findings if f.code == "low_confidence")
        unread = len(res.unmatched)
        print(
            f"prizecheck import: {path}: "
            + tr(
                "match {match}: {events} events, {findings} findings, {unread} unmatched line(s)",
                match=res.events[0]["match"],
                events=len(res.events),
                findings=len(res.findings),
                unread=unread,
            )
            + (
                f" ({', '.join(str(n) for n, _ in res.unmatched[:20])}{'...' if unread > 20 else ''})"
                if unread
                else ""
            )
            + (tr(", {n} low-confidence row(s)", n=low) if low else ""),
            file=sys.stderr,
        )
        if args.strict and (unread or low):
            failed = True
    if failed:
        print(
            "prizecheck import: " + tr("--strict: unread lines or low-confidence rows; no events written"),
            file=sys.stderr,
        )
        raise _NothingWritten
    write_events((ev for _, res in results for ev in res.events), out, args.format)
    return 0
