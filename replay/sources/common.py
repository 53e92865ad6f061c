"""What every importer returns, and how its findings travel with the events.

An importer's guesses (an owner, a pid, a low-confidence scan) are findings: they are returned to the
caller (the CLI prints them on stderr) and also written into the stream as ``note`` events with
``author: "importer"`` and a ``finding`` field, so a reviewer of the stream sees them too.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from typing import Any

Event = dict[str, Any]

MATCH_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._:/-")


@dataclass(frozen=True, slots=True)
class Finding:
    """An importer finding: ``code`` (e.g. ``importer_guess_pid``), ``severity`` (info|warning|violation),
    the input ``line`` (1-based) and a message."""

    code: str
    severity: str
    line: int | None
    message: str

    def as_dict(self) -> dict[str, Any]:
        return {"code": self.code, "severity": self.severity, "line": self.line, "message": self.message}

    def __str__(self) -> str:
        where = f"line {self.line}: " if self.line is not None else ""
        return f"{where}{self.severity}: {self.code}: {self.message}"


@dataclass(slots=True)
class ImportResult:
    """Events (contract v1, numbered from seq 1), the importer's findings, the input lines no template
    matched and the lines a vaguer template than the one they hold read (``(line, text)``: only partly
    read)."""

    events: list[Event]
    findings: list[Finding] = field(default_factory=list)
    unmatched: list[tuple[int, str]] = field(default_factory=list)
    meta: dict[str, Any] = field(default_factory=dict)
    partly: list[tuple[int, str]] = field(default_factory=list)


def match_id_from(name: str) -> str:
    """A valid match id (contract: 1-128 chars of ``[A-Za-z0-9._:/-]``) derived from a file name, one to one.

    A name made of those characters is its own id (``game-3.txt`` -> ``game-3``). Other scripts are
    kept as punycode, the way domain names carry them (a Japanese name -> ``xn--...``: any tool can
    decode it, and two names that differ only in Japanese characters never share an id). Characters
    that have to be replaced (a space, ``#``) add a short hash of the exact name: ``a b`` != ``a-b``.
    """
    base = unicodedata.normalize("NFC", name.replace("\\", "/").rsplit("/", 1)[-1])
    if "." in base.strip("."):
        base = base.rsplit(".", 1)[0]
    if base and len(base) <= 128 and all(c in MATCH_CHARS for c in base):
        return base
    lossy = False
    kept: list[str] = []
    for c in base:
        if c in MATCH_CHARS or ord(c) > 127:
            kept.append(c)
        else:
            lossy = True
            kept.append("-")
    text = re.sub("-{2,}", "-", "".join(kept)).strip("-")
    if any(ord(c) > 127 for c in text):
        text = "xn--" + text.encode("punycode").decode("ascii").strip("-")
    import hashlib  # here: only a name that needs its hash pays for OpenSSL's import (2-3 ms)

    digest = hashlib.sha256(base.encode("utf-8")).hexdigest()[:8]
    if not text:
        return f"log.{digest}"
    if lossy or len(text) > 128:
        return f"{text[:118]}.{digest}"
    return text


def valid_match_id(match: str) -> bool:
    return 0 < len(match) <= 128 and all(c in MATCH_CHARS for c in match)


def note(finding: Finding) -> Event:
    """The ``note`` event that carries an importer finding in the stream (seq assigned later)."""
    return {
        "type": "note",
        "text": finding.message,
        "author": "importer",
        "finding": {"code": finding.code, "severity": finding.severity, "line": finding.line},
    }


def number(match: str, events: list[Event]) -> list[Event]:
    """Give each event its envelope (match, seq from 1), envelope fields first for readable output."""
    return [{"match": match, "seq": i, **ev} for i, ev in enumerate(events, 1)]
