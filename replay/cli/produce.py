"""``prizecheck produce FILE...``: send event files to Kafka, keyed by match, as msgpack.

Every file is read and validated first (``replay.codec.read_events``: ``.jsonl``, ``.msgpack`` or ``-``),
so a bad file (exit status 2, naming file, line and field) sends nothing; then
:func:`streams.kafka.produce.produce` sends them and waits for every acknowledgement.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from collections.abc import Iterator
from typing import Any

from replay.cli.progress import Bar, track
from replay.codec import read_events
from streams.kafka.produce import produce
from streams.settings import Settings


def configure(parser: argparse.ArgumentParser) -> None:
    """Add the ``produce`` options."""
    parser.add_argument("files", nargs="+", metavar="FILE", help="event files: .jsonl, .msgpack, - (stdin)")
    parser.add_argument("--topic", help="topic (default PRIZECHECK_TOPIC or prizecheck.events)")
    parser.add_argument("--quiet", action="store_true", help="print nothing on success")


def _counted(events: list[dict[str, Any]], bar: Bar) -> Iterator[dict[str, Any]]:
    for event in events:
        yield event
        bar.advance()


def run(args: argparse.Namespace) -> int:
    """Read, validate, send, flush; print ``sent N events of M matches``. Exit 1 when Kafka fails."""
    settings = Settings.from_env()
    topic = args.topic or settings.topic
    events: list[dict[str, Any]] = []
    files = args.files
    for path in track(files, "reading", len(files), unit="files") if len(files) > 1 else files:
        events.extend(event for _, event in read_events(path))  # InputError -> exit 2, nothing sent
    started = time.monotonic()
    try:
        with Bar("sending", len(events), unit="events") as bar:
            asyncio.run(produce(settings, _counted(events, bar), topic=topic))
    except Exception as exc:
        print(f"prizecheck produce: Kafka at {settings.kafka_url} failed: {exc!r}", file=sys.stderr)
        return 1
    if not args.quiet:
        matches = len({e["match"] for e in events})
        took = time.monotonic() - started
        print(
            f"prizecheck produce: sent {len(events)} events of {matches} matches from {len(args.files)} "
            f"file(s) to {topic} in {took:.2f} s"
        )
    return 0
