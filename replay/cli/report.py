"""``prizecheck report``: a league audit report (docs/reports.md) as text, HTML, CSV or JSON.

The records come from event files (folded here), record files (``replay --json`` output, ``--records``)
or the service's store (``--from-store``: ``REDIS_URL``, else the embedded store in the data directory),
or the cold archive's Parquet files (``--parquet DIR``, read by DuckDB: :mod:`replay.report.parquet`).
They are streamed into :class:`replay.report.ReportBuilder` one at a time; the report itself is built by
:mod:`replay.report`, which knows nothing of where the records came from. A progress bar shows on a
terminal (stderr) and nowhere else.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Iterator
from datetime import date
from typing import TYPE_CHECKING, Any

from replay import collector
from replay.cli.common import UsageError, tr, why
from replay.engine import InputError
from replay.i18n import LANGUAGES
from replay.report import FORMATS

# What reads, folds and writes is imported when the report is made (run), not to parse the options
# (issue 40 item 2: ``report --help`` imported the engine, the builder, the TDF reader and the deck check).
if TYPE_CHECKING:
    from replay.cli.progress import Bar
    from replay.records import Record
    from replay.report import Filters, ReportBuilder
    from replay.report.names import CardName
    from streams.store import Reader, Store

STORE_BATCH = 1000  # records fetched per round trip from the store


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "files", nargs="*", metavar="FILE", help="event files (or record files with --records)"
    )
    source = parser.add_argument_group("where the records come from")
    source.add_argument(
        "--records", action="store_true", help="the files hold records (replay --json output)"
    )
    source.add_argument(
        "--from-store",
        action="store_true",
        help="the records the service stored (REDIS_URL, else the embedded store in the data directory)",
    )
    source.add_argument(
        "--redis-prefix", default=None, help="with --from-store: the store's key prefix (default pc)"
    )
    source.add_argument(
        "--parquet",
        metavar="DIR",
        help="the records of the cold archive (prizecheck archive --to DIR), read by DuckDB",
    )
    scope = parser.add_argument_group("which games")
    scope.add_argument("--league", help="only games of this league (context.league)")
    scope.add_argument("--season", help="only games of this season (context.season)")
    scope.add_argument("--event", help="only games of this event (context.event)")
    scope.add_argument("--round", help="only games of this round (context.round)")
    scope.add_argument("--from", dest="date_from", metavar="DATE", help="only games started on or after DATE")
    scope.add_argument("--to", dest="date_to", metavar="DATE", help="only games started on or before DATE")
    out = parser.add_argument_group("output")
    out.add_argument("--format", choices=FORMATS, default=None, help="text (default), html, csv or json")
    out.add_argument("--json", action="store_true", help="the same as --format json")
    out.add_argument("--out", metavar="PATH", help="write the report to PATH (default: stdout)")
    out.add_argument(
        "--lang",
        choices=LANGUAGES,
        default="en",
        help="the language of the text and HTML forms: their words and the card names (default en)",
    )
    out.add_argument(
        "--base-url",
        default="http://127.0.0.1:8080",
        help="where the review pages are served, for the links (default http://127.0.0.1:8080)",
    )
    parser.add_argument(
        "--tdf", metavar="FILE", help="reconcile with the tournament software's file (TOM .tdf)"
    )
    parser.add_argument(
        "--decks",
        action="append",
        default=[],
        metavar="FILE",
        help="deck lists for the deck check of event files (GET /decks/{event} saved as JSON; repeatable)",
    )


def _date(text: str | None, flag: str) -> date | None:
    if text is None:
        return None
    try:
        return date.fromisoformat(text)
    except ValueError:
        raise InputError(
            tr("expected a date as YYYY-MM-DD, got {text}", text=repr(text)), field=flag
        ) from None


def filters_of(args: argparse.Namespace) -> Filters:
    """The report's scope from the command line."""
    from replay.report import Filters

    filters = Filters(
        league=args.league,
        season=args.season,
        event=args.event,
        round=args.round,
        date_from=_date(args.date_from, "--from"),
        date_to=_date(args.date_to, "--to"),
    )
    if filters.date_from and filters.date_to and filters.date_from > filters.date_to:
        raise InputError(tr("--from is after --to"), field="--from")
    return filters


def check_options(args: argparse.Namespace) -> None:
    """Options that cannot go together, or would be ignored: refused before any work (UsageError)."""
    if args.records and args.from_store:
        raise UsageError(tr("--records and --from-store cannot be combined: the records come from one place"))
    if args.parquet is not None and (args.from_store or args.records or args.files):
        given = "--from-store" if args.from_store else "--records" if args.records else "FILE..."
        raise UsageError(
            tr("--parquet and {given} cannot be combined: the records come from one place", given=given)
        )
    if args.from_store and args.files:
        raise UsageError(tr("give FILE... or --from-store, not both"))
    if args.redis_prefix is not None and not args.from_store:
        raise UsageError(tr("--redis-prefix is for --from-store (the files are read directly)"))
    if args.json and args.format not in (None, "json"):
        raise UsageError(
            tr(
                "--json and --format {format} cannot be combined (--json is --format json)",
                format=args.format,
            )
        )
    if not args.from_store and not args.files and args.parquet is None:
        raise UsageError(
            tr("no files given (event files, record files with --records, --from-store, or --parquet DIR)")
        )


def run(args: argparse.Namespace) -> int:
    from replay.cli.common import iter_records, output, service_keys_dir, verifying_keys
    from replay.cli.progress import Bar
    from replay.report import ReportBuilder, read_tdf, write
    from replay.sources.deckcheck import DeckChecker
    from replay.sources.decks import read_lists

    check_options(args)
    fmt = "json" if args.json else (args.format or "text")
    filters = filters_of(args)
    tdf = read_tdf(args.tdf) if args.tdf else None
    # the store's and the archive's records are checked with the service's keys; files with those named
    service = args.from_store or args.parquet is not None
    keys = verifying_keys(ring=service_keys_dir() if service else None)
    builder = ReportBuilder(
        filters, base_url=args.base_url, signing_key=keys if keys.keys or keys.hmac else None
    )
    # Stored and archived records are decoded into typed values and folded into counters and summaries:
    # nothing there makes a reference cycle, so the cycle collector's passes over a season's summaries
    # find nothing (at a million records they were 5.5 s of 43). Paused for those sources, not for event
    # files, which the engine folds.
    stored = args.from_store or args.parquet is not None
    inputs = [*args.files, args.tdf, args.parquet, *args.decks]
    # an --out that cannot be written, or that is one of the inputs, is refused before any work
    with collector.paused(stored), output(args.out, inputs=inputs) as out:
        with Bar("prizecheck report: " + tr("starting"), unit="records") as progress:
            if args.from_store:
                import asyncio  # here, not at the top: 10-40 ms of every start-up (issue 40 item 2)

                asyncio.run(add_stored_records(builder, progress, prefix=args.redis_prefix or "pc"))
            elif args.parquet is not None:
                add_archived_records(builder, progress, args.parquet)
            else:
                # the deck check reads the events as they are folded: the match's console lists, and --decks
                checker = DeckChecker(read_lists(args.decks))
                if args.records:
                    records = iter_records(args.files)
                else:
                    records = event_records(args.files, progress, observe=checker.feed_chunk)
                for rec in records:
                    builder.add(rec)
                    checks = checker.pop(str(rec.match))
                    if checks:
                        builder.add_deck_checks(rec, (c.as_json() for c in checks))
                    progress.advance()
        if builder.games == 0:
            scope = ", ".join(f"{k} {v}" for k, v in filters.as_json().items() if v is not None)
            if args.from_store:
                where = tr("no records in the store")
            elif args.parquet:
                where = tr("no records in the archive")
            else:
                where = tr("no records in the files")
            raise InputError(
                where + (tr(" match {scope}", scope=scope) if scope else "") + tr(": nothing to report on")
            )
        # written as it is made, in every form: a season's report is never whole in memory
        write(
            builder.parts(tdf),
            fmt,
            out,
            csv_note=_csv_note(args),
            lang=args.lang,
            card_name=names_in(args.lang),
        )
    if args.out and args.out != "-":
        print(
            "prizecheck report: "
            + tr(
                "{games} game(s), {format} written to {path}", games=builder.games, format=fmt, path=args.out
            ),
            file=sys.stderr,
        )
    return 0


def _csv_note(args: argparse.Namespace) -> str:
    """Where the HTML page says every event's standings are: this command with ``--format csv``."""
    out = f" --out {os.path.splitext(args.out)[0]}.csv" if args.out and args.out != "-" else ""
    return f"prizecheck report ... --format csv{out}"


# ------------------------------------------------------------------------------- reading the records


def event_records(
    paths: list[str], progress: Bar, observe: Callable[[list[Any], bool], None] | None = None
) -> Iterator[Record]:
    """The records of every game in the event files (playoff parents settled by their children), as the
    engine gives them: typed values. ``observe`` sees each chunk of events before it is folded."""
    from replay.files import replay_files

    progress.phase("prizecheck report: " + tr("reading event files"))
    for done in replay_files(paths, observe=observe):  # checked, then folded; each record once final
        yield done.record


async def add_stored_records(builder: ReportBuilder, progress: Bar, *, prefix: str = "pc") -> None:
    """Every record the service stored that the filters may accept, a batch at a time, into ``builder``.

    The league and season filters are answered by the store's indexes; the rest by the builder. An empty
    or missing store is an error (InputError), never a report of nothing.
    """
    try:
        from replay.cli.services import redis_store
        from streams.settings import Settings
        from streams.store.connection import embedded_store_exists
    except ImportError as exc:
        from replay.cli import needs_service

        raise InputError(needs_service("--from-store", exc)) from None
    settings = Settings.from_env()
    if not settings.redis_url and not embedded_store_exists(settings.data_dir):
        raise InputError(
            tr(
                "no store in {path}: nothing has been stored there (set PRIZECHECK_DATA_DIR to the "
                "service's data directory, or REDIS_URL)",
                path=settings.data_dir,
            )
        )
    progress.phase("prizecheck report: " + tr("connecting to the store"))
    async with redis_store(settings, prefix) as (store, where):
        await add_records_from(store, builder, progress, where=where)


def verify_archive(root: str) -> None:
    """Refuse an archive whose files are not the ones its signed manifest lists, or whose manifest is not
    the signed state (the checkpoint log of the data directory, when there is one): a deleted partition, an
    older signed version put back, another match's record, deleted rows are an InputError naming each,
    never a smaller or different report (docs/storage.md, "The cold archive")."""
    from replay.report.parquet import connect, records_glob
    from streams.settings import Settings
    from streams.store.checkpoint import LOG_FILE, CheckpointError, configured_key
    from streams.store.manifest import MANIFEST, verify_with_log

    connect().close()  # without DuckDB, that line first: the archive cannot be read at all
    if not os.path.isfile(os.path.join(root, MANIFEST)):
        records_glob(root)  # no archive there, or an empty one: said as before (else the manifest says)
    settings = Settings.from_env()
    try:
        key = configured_key(
            settings.signing_key, settings.key_id, settings.data_dir, create=False, keys_dir=settings.keys_dir
        )
    except CheckpointError as exc:
        raise InputError(tr("the signing keys: {reason}", reason=why(exc))) from None
    if key is None:
        raise InputError(
            tr(
                "{root}: cannot check the archive's signed manifest: no key (the service's key directory "
                "{keys}, or PRIZECHECK_SIGNING_KEY for an archive signed before)",
                root=root,
                keys=settings.keys_path,
            )
        )
    breaches = verify_with_log(root, key, os.path.join(settings.data_dir, LOG_FILE), tables=("records",))
    if breaches:
        from replay.cli.words import said

        shown = "; ".join(said(b.detail) for b in breaches[:5])
        more = tr(" (and {n} more)", n=len(breaches) - 5) if len(breaches) > 5 else ""
        raise InputError(
            tr(
                "{root}: the archive does not verify against its signed manifest: {breaches}{more}",
                root=root,
                breaches=shown,
                more=more,
            )
        )


def add_archived_records(builder: ReportBuilder, progress: Bar, root: str) -> None:
    """Every record of the cold archive under ``root`` that the league and season filters select (as
    partitions, read by DuckDB: replay/report/parquet.py), a batch at a time, into ``builder``."""
    from replay.records import from_msgpack
    from replay.report.parquet import archived_records

    verify_archive(root)
    progress.phase("prizecheck report: " + tr("archived records"))
    f = builder.filters
    add = builder.add
    for batch in archived_records(root, f.league, f.season):
        for data in batch:
            add(from_msgpack(data))  # decoded once where it enters, as from the store
        progress.advance(len(batch))


async def add_records_from(store: Store, builder: ReportBuilder, progress: Bar, *, where: str) -> None:
    """Every record in ``store`` that the builder's league and season
    filters select by the store's indexes, :data:`STORE_BATCH` per round trip, into ``builder``: each
    decoded once, from its MessagePack straight into its typed value (:func:`replay.records.from_msgpack`);
    one that is not a record is an InputError naming its match and field."""
    from replay.records import from_msgpack
    from replay.sources.decks import decode as decode_deck

    f = builder.filters
    matches = await store.matches(league=f.league, season=f.season)
    if not matches and not (await store.matches() if (f.league or f.season) else []):
        raise InputError(tr("the store at {where} is empty: no records", where=where))
    progress.phase("prizecheck report: " + tr("records"), len(matches))
    lists: dict[str, dict[str, Any]] = {}  # event -> its registered deck lists (asked once per event)
    to_check: list[Record] = []  # the games of events with lists: their deck check follows
    for start in range(0, len(matches), STORE_BATCH):
        batch = matches[start : start + STORE_BATCH]
        for match, data in zip(batch, await store.records(batch), strict=True):
            if data is not None:  # indexed, and deleted since: not a record any more
                rec = from_msgpack(data, match=match)
                if builder.add(rec):
                    event = str((rec.context or {}).get("event") or "")
                    if event and event not in lists:
                        lists[event] = {k: decode_deck(v) for k, v in (await store.decks(event)).items()}
                    if event and lists[event]:
                        to_check.append(rec)
            progress.advance()
    await add_stored_deck_checks(store, builder, to_check, lists)


async def add_stored_deck_checks(
    store: Reader, builder: ReportBuilder, records: list[Record], lists: dict[str, dict[str, Any]]
) -> None:
    """The deck check of ``records`` (games of events with registered lists), from their archived events
    (docs/decks.md): only those games' events are read, so a season without lists costs one look-up per
    event."""
    import msgpack

    from replay.sources.deckcheck import DeckChecker

    checker = DeckChecker(lists)
    for rec in records:
        match = str(rec.match)
        for entry in await store.events(match):
            if entry.kind == "event":
                checker.feed(msgpack.unpackb(entry.data))
        checks = checker.pop(match)
        if checks:
            builder.add_deck_checks(rec, (c.as_json() for c in checks))


def names_in(lang: str) -> CardName | None:
    """How the report shows card names in ``lang``: the card catalogue's name (None for English: the
    names as the events wrote them, as before issue 34)."""
    if lang == "en":
        return None
    from replay.sources.cards import card_name

    return lambda card: card_name(card, lang)
