"""The dead-letter topic (``prizecheck.events.dlq``): where quarantined events keep their bytes.

A dead letter is the ORIGINAL Kafka record value (the exact bytes the producer sent, even when they are
not msgpack at all) and the original key, with the reason and the record's coordinates in Kafka headers
(all values UTF-8 text; schemas/asyncapi.yaml documents them):

====================  ===========================================================================
header                meaning
====================  ===========================================================================
``pc-reason``         why it was quarantined (names match, seq and field when they are known)
``pc-topic``          the topic the record was read from
``pc-partition``      its partition (decimal)
``pc-offset``         its offset in that partition (decimal)
``pc-worker``         the worker that quarantined it (``WORKER_ID``)
``pc-field``          the offending field, when known
``pc-match``          the event's match, when it could be decoded
``pc-seq``            the event's seq, when it could be decoded
``pc-at``             when it was quarantined (milliseconds since the epoch)
====================  ===========================================================================

Headers keep the value byte-identical to the input, so a fixed producer (or an operator) can re-send a
dead letter as it is. The Faust worker sends through :class:`FaustDeadLetters`; unit tests use
:class:`MemoryDeadLetters`.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

#: Header names, in the order they are written.
HEADERS: tuple[str, ...] = (
    "pc-reason",
    "pc-topic",
    "pc-partition",
    "pc-offset",
    "pc-worker",
    "pc-field",
    "pc-match",
    "pc-seq",
    "pc-at",
)


@dataclass(frozen=True)
class DeadLetter:
    """One quarantined Kafka record: its original key and value, where it was, and why."""

    value: bytes
    key: bytes | None
    topic: str
    partition: int
    offset: int
    reason: str
    worker: str = ""
    field: str | None = None
    match: str | None = None
    seq: int | None = None
    at_ms: int = 0

    def headers(self) -> list[tuple[str, bytes]]:
        """The Kafka headers carrying everything but the original key and value."""
        fields: dict[str, object | None] = {
            "pc-reason": self.reason,
            "pc-topic": self.topic,
            "pc-partition": self.partition,
            "pc-offset": self.offset,
            "pc-worker": self.worker,
            "pc-field": self.field,
            "pc-match": self.match,
            "pc-seq": self.seq,
            "pc-at": self.at_ms or int(time.time() * 1000),
        }
        return [(k, str(v).encode("utf-8")) for k, v in fields.items() if v is not None]

    @classmethod
    def from_record(
        cls,
        key: bytes | None,
        value: bytes,
        headers: Iterable[tuple[str, bytes]] | Mapping[str, bytes] | None,
    ) -> DeadLetter:
        """Read a dead letter back from a consumed DLQ record (tools, tests, re-drive scripts)."""
        items = headers.items() if isinstance(headers, Mapping) else (headers or ())
        h = {k: v.decode("utf-8", "replace") for k, v in items}
        seq = h.get("pc-seq")
        return cls(
            value=value,
            key=key,
            topic=h.get("pc-topic", ""),
            partition=int(h.get("pc-partition", "-1")),
            offset=int(h.get("pc-offset", "-1")),
            reason=h.get("pc-reason", ""),
            worker=h.get("pc-worker", ""),
            field=h.get("pc-field"),
            match=h.get("pc-match"),
            seq=int(seq) if seq is not None and seq.lstrip("-").isdigit() else None,
            at_ms=int(h.get("pc-at", "0")),
        )


class DeadLetterSink(Protocol):
    """Where the agent sends dead letters. ``send`` returns once the letter is durably accepted."""

    async def send(self, letter: DeadLetter) -> None: ...


class MemoryDeadLetters:
    """Keeps dead letters in a list (unit tests, embedded use)."""

    def __init__(self) -> None:
        self.letters: list[DeadLetter] = []

    async def send(self, letter: DeadLetter) -> None:
        self.letters.append(letter)


class FaustDeadLetters:
    """Sends dead letters to a Faust topic (raw bytes) and waits for the broker's acknowledgement.

    Waiting matters: the source record's offset is committed after the agent returns, so a dead letter
    must be in the DLQ topic before that, or a crash in between would lose the event.
    """

    def __init__(self, topic: Any) -> None:
        self.topic = topic
        self.sent = 0

    async def send(self, letter: DeadLetter) -> None:
        fut = await self.topic.send(key=letter.key, value=letter.value, headers=letter.headers())
        await fut
        self.sent += 1
