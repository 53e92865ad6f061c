"""``prizecheck produce FILE...``: send event files to Kafka, keyed by match, as msgpack.

Every file is read and validated first (``replay.codec.read_events``: ``.jsonl``, ``.msgpack`` or ``-``),
so a bad or empty file (exit status 2, naming file, line and field) sends nothing and Kafka is not
contacted; then
:func:`streams.kafka.produce.produce` sends them and waits for every acknowledgement.
"""

from __future__ import annotations

import argparse
import re
import time
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from replay.cli.common import tr
from replay.engine import InputError

if TYPE_CHECKING:
    from replay.cli.progress import Bar


def configure(parser: argparse.ArgumentParser) -> None:
    """Add the ``produce`` options."""
    parser.add_argument("files", nargs="+", metavar="FILE", help="event files: .jsonl, .msgpack, - (stdin)")
    parser.add_argument(
        "--topic", type=topic_name, help="topic (default PRIZECHECK_TOPIC or prizecheck.events)"
    )
    parser.add_argument("--quiet", action="store_true", help="print nothing on success")


def topic_name(text: str) -> str:
    """An argparse type: a Kafka topic name (1-249 of A-Z a-z 0-9 . _ -)."""
    if not re.fullmatch(r"[A-Za-z0-9._-]{1,249}", text):
        raise argparse.ArgumentTypeError(
            tr("not a Kafka topic name (1-249 of A-Z a-z 0-9 . _ -): {text}", text=repr(text))
        )
    return text


def _counted(events: list[dict[str, Any]], bar: Bar) -> Iterator[dict[str, Any]]:
    for event in events:
        yield event
        bar.advance()


def run(args: argparse.Namespace) -> int:
    """Read, validate, send, flush; print ``sent N events of M matches``. Exit 2 when a file is bad or
    empty (before Kafka is contacted), or Kafka cannot be reached or fails while sending."""
    from replay.cli.progress import Bar, track
    from replay.cli.services import check_kafka_url, kafka_failure
    from replay.codec import read_events
    from streams.kafka.produce import produce
    from streams.settings import Settings

    settings = Settings.from_env()
    where = check_kafka_url(settings.kafka_url)
    topic = args.topic or settings.topic
    events: list[dict[str, Any]] = []
    files = args.files
    for path in track(files, tr("reading"), len(files), unit="files") if len(files) > 1 else files:
        before = len(events)
        events.extend(event for _, event in read_events(path))  # InputError -> exit 2, nothing sent
        if len(events) == before:
            raise InputError(tr("is empty: no events"), file="<stdin>" if path == "-" else path)
    import asyncio  # here, not at the top: asyncio is 10-40 ms of every start-up (issue 40 item 2)

    started = time.monotonic()
    try:
        with Bar(tr("sending"), len(events), unit="events") as bar:
            asyncio.run(produce(settings, _counted(events, bar), topic=topic))
    except Exception as exc:
        if type(exc).__module__.split(".")[0] not in ("aiokafka", "kafka", "asyncio") and not isinstance(
            exc, OSError | TimeoutError
        ):
            raise
        raise kafka_failure(exc, where, sending=bar.done > 0) from None
    if not args.quiet:
        matches = len({e["match"] for e in events})
        took = time.monotonic() - started
        print(
            "prizecheck produce: "
            + tr(
                "sent {events} events of {matches} matches from {files} file(s) to {topic} in {took} s",
                events=len(events),
                matches=matches,
                files=len(args.files),
                topic=topic,
                took=f"{took:.2f}",
            )
        )
    return 0
