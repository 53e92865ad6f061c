"""``prizecheck sheet print``: machine-readable game sheets for paper games (docs/importers.md, "Scanned
game sheets").

A PDF (``--format png``: PNG pages) in A4 or Letter; the header from ``--players``, ``--match``,
``--ruleset`` and the context options; ``--count N`` prints a numbered batch for an event (match ids
``ID.1`` ... ``ID.N``, tables counted up from ``--table``). Needs the ``scan`` extra.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

from replay.cli.common import UsageError, at_least, output, tr, within
from replay.cli.parser import N_, filled
from replay.engine import KNOWN_RULESETS, InputError
from replay.extras import needs_extra
from replay.sources.common import valid_match_id

MAX_COUNT = 500
MAX_NAME = 40


def configure(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    p = sub.add_parser(
        "print",
        help="write game sheets to fill in with a pen (PDF, or PNG)",
        description="Write game sheets to fill in with a pen at the table and read back with "
        "`prizecheck import scan`: ArUco corner markers, a QR code with the match, the players, the "
        "ruleset and the layout version, mark boxes for every turn.",
    )
    p.add_argument(
        "--out", "-o", metavar="FILE", help="output file (default sheet.pdf / sheet.png; - for stdout)"
    )
    p.add_argument("--format", choices=("pdf", "png"), default="pdf", help="PDF (default) or PNG pages")
    p.add_argument("--paper", choices=("a4", "letter"), default="a4", help="paper size (default a4)")
    p.add_argument(
        "--lang",
        choices=("en", "ja", "ko"),
        default="en",
        help="the sheet's language (default en; ja and ko need Noto Sans CJK, fonts-noto-cjk, embedded)",
    )
    p.add_argument(
        "--dpi",
        type=within(100, 600, int),
        default=200,
        metavar="N",
        help="PNG resolution (default 200; 100-600)",
    )
    p.add_argument("--players", metavar="A,B", help="the two players' names (default: written in by hand)")
    p.add_argument(
        "--match", metavar="ID", help="match id (default sheet-DATE-RANDOM); with --count: ID.1, ID.2..."
    )
    p.add_argument(
        "--ruleset", choices=KNOWN_RULESETS, default="play-2026", help="ruleset (default play-2026)"
    )
    filled(
        p.add_argument(
            "--count",
            type=within(1, MAX_COUNT, int),
            default=None,
            metavar="N",
            help="a numbered batch of N sheets (1-%(most)d)",
        ),
        most=MAX_COUNT,
    )
    # each help a literal of the catalogues (shown in the command line's language)
    for key, kind, words in (
        ("league", str, N_("context: the league (printed, and in the QR code)")),
        ("season", str, N_("context: the season (printed, and in the QR code)")),
        ("event", str, N_("context: the event (printed, and in the QR code)")),
        ("series", str, N_("context: the series (printed, and in the QR code)")),
        ("round", int, N_("context: the round (printed, and in the QR code)")),
        ("table", int, N_("context: the table (printed, and in the QR code)")),
        ("game", int, N_("context: the game (printed, and in the QR code)")),
    ):
        p.add_argument(
            f"--{key}",
            type=at_least(1) if kind is int else str,
            default=None,
            metavar="N" if kind is int else "TEXT",
            help=words,
        )
    p.add_argument(
        "--stage", choices=("swiss", "single_elimination"), default=None, help="context: the stage"
    )


def _players(text: str | None) -> tuple[str, str] | None:
    if text is None:
        return None
    names = [n.strip() for n in text.split(",")]
    if len(names) != 2 or not all(names):
        raise UsageError(tr("argument --players: two names separated by a comma, e.g. --players Mara,Teodor"))
    if names[0] == names[1]:
        raise UsageError(tr("argument --players: the two players must differ"))
    for n in names:
        if len(n) > MAX_NAME:
            raise UsageError(
                tr(
                    "argument --players: a name is at most {n} characters: {name}...",
                    n=MAX_NAME,
                    name=repr(n[:20]),
                )
            )
    return names[0], names[1]


def run(args: argparse.Namespace) -> int:
    try:
        from replay.sources.scan.layout import Header
        from replay.sources.scan.printer import FontMissing, pdf_pages_png, sheets_pdf
    except ImportError as exc:
        raise InputError(needs_extra(exc, "scan")) from None
    players = _players(args.players)
    count = args.count
    import secrets  # here: hashlib and random are not for --help (issue 40 item 2)

    match = args.match or f"sheet-{time.strftime('%Y%m%d')}-{secrets.token_hex(3)}"
    longest = f"{match}.{count}" if count else match
    if not valid_match_id(longest):
        raise UsageError(tr("argument --match: a match id is 1-128 characters of A-Z a-z 0-9 . _ : / -"))
    context: dict[str, str | int] = {}
    for key in ("league", "season", "event", "series", "round", "table", "game", "stage"):
        value = getattr(args, key)
        if value is None:
            continue
        if isinstance(value, str) and not 0 < len(value) <= 64:
            raise UsageError(tr("argument --{key}: 1 to 64 characters", key=key))
        context[key] = value
    headers = []
    for n in range(1, (count or 1) + 1):
        ctx = dict(context)
        if count and "table" in ctx:
            ctx["table"] = int(ctx["table"]) + n - 1
        headers.append(
            Header(
                match=f"{match}.{n}" if count else match,
                players=players,
                ruleset=args.ruleset,
                sheet=n if count else None,
                count=count,
                context=ctx,
            )
        )
    try:
        pdf = sheets_pdf(headers, args.paper, args.lang)
    except FontMissing as exc:
        raise InputError(str(exc), field="--lang") from None
    out = args.out or f"sheet.{args.format}"
    if args.format == "pdf":
        _write(out, pdf)
        written = [out]
    else:
        pages = pdf_pages_png(pdf, args.dpi)
        if len(pages) > 1 and out == "-":
            raise InputError(tr("several PNG pages cannot go to stdout: give --out FILE.png"), field="--out")
        stem, ext = os.path.splitext(out)
        written = (
            [out] if len(pages) == 1 else [f"{stem}-{i}{ext or '.png'}" for i in range(1, len(pages) + 1)]
        )
        for path, page in zip(written, pages, strict=True):
            _write(path, page)
    if out != "-":
        shown = written[0] if len(written) == 1 else f"{written[0]} ... {written[-1]}"
        print(
            "prizecheck sheet print: "
            + tr(
                "{n} sheet(s), {paper}, match {match}: {files}",
                n=len(headers),
                paper=args.paper,
                match=headers[0].match + (" ... " + headers[-1].match if len(headers) > 1 else ""),
                files=shown,
            ),
            file=sys.stderr,
        )
    return 0


def _write(path: str, data: bytes) -> None:
    with output(path) as fh:
        fh.write(data)
