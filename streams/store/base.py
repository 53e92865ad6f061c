"""The storage contract's values: what the service keeps of a match (the event archive, its read models)
and the league indexes, as the roles (:mod:`streams.store.roles`) take and give them.

The store deals in bytes (msgpack) and never runs the engine: the ingest core (:mod:`streams.ingest`)
applies events and hands the store the new board and record.

The append rule (the same in both backends, see ``streams/ingest.lua`` and docs/storage.md):

- a new ``seq`` is appended only if the caller built its state on the current head (``prev``), and only
  as ``head + 1`` unless the caller declares a gap (``allow_gap``): otherwise ``stale`` / ``gap``;
- a ``seq`` at or below the head with the same bytes is a ``duplicate`` (no-op);
- a ``seq`` at or below the head with different bytes is a ``conflict``: refused in ``append`` mode,
  archived after the head (with the record holding the engine's finding) in ``conflict`` mode.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
import unicodedata
from collections.abc import AsyncIterator, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Literal, Protocol

# fullmatch only: "$" would also match before a final newline ("m1\n" is not a match id)
_MATCH_ID = re.compile(r"[A-Za-z0-9._:/-]{1,128}")


def is_match_id(text: object) -> bool:
    """Whether ``text`` is a match id (1 to 128 characters from ``A-Z a-z 0-9 . _ : / -``, nothing else:
    no newline, no brace): the one shape of every match's key name."""
    return type(text) is str and _MATCH_ID.fullmatch(text) is not None


AppendStatus = Literal["applied", "duplicate", "conflict", "stale", "gap", "tampered"]
EntryKind = Literal["event", "conflict", "late"]


@dataclass(frozen=True)
class Expect:
    """What a writer believes the store holds for a match before its write (the signed checkpoint it
    built on, and what that checkpoint says): a write whose match differs is refused, ``tampered``,
    before anything is written, so that data changed outside the service raises an alarm instead of being
    overwritten (``streams.store.checkpoint``).

    ``record`` / ``board``: SHA-1 (hex) of the stored bytes (of b"" when none; "" : not compared);
    ``checkpoint``: the stored checkpoint's bytes (b"" when none; None: not compared); ``versions``: the
    version list's length (None: not compared).
    """

    record: str = ""
    board: str = ""
    checkpoint: bytes | None = None
    versions: int | None = None

    def args(self) -> tuple[str, bytes | str]:
        """The two script arguments: ``"<record> <board> <versions>"`` and the checkpoint (``-``: any)."""
        versions = "" if self.versions is None else str(self.versions)
        summary = f"{self.record or '-'} {self.board or '-'} {versions or '-'}"
        return summary, "-" if self.checkpoint is None else self.checkpoint


class Tampered(Exception):
    """A write was refused: what the store holds (``what``: record, board, checkpoint or versions) is not
    what the writer's checkpoint says. Nothing was written."""

    def __init__(self, match: str, what: str) -> None:
        super().__init__(f"match {match}: the stored {what} is not what its checkpoint says")
        self.match = match
        self.what = what


class CopyRefused(Exception):
    """An archived match's events were asked for, and its cold archive copy (``streams/store/parquet.py``)
    is not the one archived (``problem``: missing, unreadable, edited, cut or another match's rows): the
    store never serves such a copy (docs/reliability.md, "Archived matches")."""

    def __init__(self, match: str, problem: str) -> None:
        super().__init__(f"match {match}: {problem}")
        self.match = match
        self.problem = problem


class IndexChanged(Exception):
    """A strict index write found another entry than the one the writer wrote last (``stored``)."""

    def __init__(self, match: str, stored: IndexEntry | None) -> None:
        super().__init__(f"match {match}: its index entry changed since this process wrote it")
        self.match = match
        self.stored = stored


@dataclass(frozen=True)
class Append:
    """One event to archive, with the read models computed after applying it.

    ``conflict=True`` archives an event whose ``seq`` is at or below the head (a different event reusing
    a seq, or one filling a gap already reported): the engine has already turned it into a finding, which
    ``record`` carries; the board is left as it is.
    """

    match: str
    seq: int
    event: bytes
    prev: int
    board: bytes
    record: bytes
    allow_gap: bool = False
    conflict: bool = False
    writes: int | None = None
    chain: str = ""
    cause: str = ""
    expect: Expect | None = None
    checkpoint: bytes = b""


@dataclass(frozen=True)
class AppendRun:
    """Consecutive events of one match to archive at once, with the read models after the last one.

    ``events`` are ``(seq, canonical bytes)`` with consecutive seqs from ``prev + 1`` (or from past it,
    with ``allow_gap``: the engine was told about the missing seqs first). A conflict goes through
    :meth:`Store.append`. ``board`` and ``record`` are the read models after the last one; one live update
    (with the last seq, carrying ``board``) is published.

    Both kinds of append carry the write fence and what the store keeps beside the record:

    - ``writes``: the record's write count the caller built on (:meth:`Store.state`); another writer's
      record write since (a playoff game settling this one) makes the append ``stale``. None: unfenced.
    - ``chain``: the archive's chain head after the append (hex), kept as the trusted head that a rebuild
      from the archive must arrive at (a mismatch is a tampered archive).
    - ``cause``: empty while the game is in progress; for a finished record, ``"<match> <seq>"``, the event
      that made it: if it differs from the stored record it becomes a new version (:meth:`Store.versions`).
    - ``expect``: what the caller believes is stored (:class:`Expect`); otherwise ``tampered``.
    - ``checkpoint``: the signed checkpoint of the state after the write, kept beside it (b"": none).
    """

    match: str
    prev: int
    events: tuple[tuple[int, bytes], ...]
    board: bytes
    record: bytes
    writes: int | None = None
    chain: str = ""
    cause: str = ""
    allow_gap: bool = False
    expect: Expect | None = None
    checkpoint: bytes = b""


@dataclass(frozen=True)
class AppendResult:
    """What the store did: ``status``, the head after the call, whether bytes were written, and the
    record's write count after the call (the next fence); for ``tampered``, what differed (``what``)."""

    status: AppendStatus
    head: int
    archived: bool = False
    writes: int = 0
    what: str = ""


@dataclass(frozen=True)
class MatchState:
    """What the store keeps about a match beside its archive: the head (highest seq appended in order),
    the record's write count (the fence), the trusted chain head of the archive (hex; None before the
    first append) and the signed checkpoint of the last write (``streams.store.checkpoint``)."""

    head: int = 0
    writes: int = 0
    chain: str | None = None
    checkpoint: bytes | None = None


@dataclass(frozen=True)
class Stored:
    """A match's record, its write count and its signed checkpoint, read together (what a writer of the
    record builds its next checkpoint on)."""

    record: bytes | None = None
    writes: int = 0
    checkpoint: bytes | None = None


@dataclass(frozen=True)
class Snapshot:
    """Everything a match's slot holds, read in one atomic step (what a rebuild checks against the signed
    checkpoint: read apart, a concurrent writer could make them disagree)."""

    events: list[ArchivedEvent]
    held: dict[int, bytes]
    state: MatchState
    record: bytes | None
    board: bytes | None
    versions: list[RecordVersion]
    # an archived match (streams/store/parquet.py) whose Parquet copy is missing or not the one archived:
    # what is wrong, in a sentence (``events`` are then what could be read)
    copy_problem: str | None = None


@dataclass(frozen=True)
class RecordVersion:
    """One finished record as it was stored: version ``1, 2, ...`` (oldest first), the event that caused
    it (``cause_match``: this match, or a playoff game that settled it; ``cause_seq``), and the record."""

    version: int
    cause_match: str
    cause_seq: int
    record: bytes


def version_cause(match: str, seq: int) -> str:
    """The stored form of a version's cause."""
    return f"{match} {seq}"


def parse_cause(text: str) -> tuple[str, int]:
    """``(match, seq)`` from :func:`version_cause`'s form."""
    match, _, seq = text.rpartition(" ")
    return match, int(seq)


@dataclass(frozen=True)
class ArchivedEvent:
    """One archive entry, in the order the engine saw it.

    ``position`` is ``(seq, 0)`` for an event appended in order and ``(head, n)`` for the n-th conflicting
    or late event archived while the head was ``head``.
    """

    position: tuple[int, int]
    data: bytes
    kind: EntryKind = "event"
    at: float | None = field(default=None, compare=False)
    """When the entry arrived (seconds since the epoch, the store's clock), kept beside the event at append
    time, never in its bytes; None for an entry stored before arrival times were kept, or read back from
    a cold archive copy (an archived match is long over). What a broadcast delay reads."""


@dataclass(frozen=True)
class ArchiveExtent:
    """How far a match's archive goes, read without its entries' bytes: its entries, its steps (the
    distinct seqs of their positions: the entries archived while the head was a seq are that seq's step)
    and the positions of its first and last entries (None for an empty archive)."""

    entries: int = 0
    steps: int = 0
    first: tuple[int, int] | None = None
    last: tuple[int, int] | None = None


def extent_of(entries: Sequence[ArchivedEvent]) -> ArchiveExtent:
    """The extent of entries in archive order (what a backend that holds them all answers)."""
    steps, seq = 0, None
    for e in entries:
        if e.position[0] != seq:
            steps, seq = steps + 1, e.position[0]
    if not entries:
        return ArchiveExtent()
    return ArchiveExtent(len(entries), steps, entries[0].position, entries[-1].position)


def joined_extent(before: ArchiveExtent, after: ArchiveExtent) -> ArchiveExtent:
    """The extent of two runs of one archive, ``before``'s entries first (an archived match's cold copy
    and what was appended since): a seq at the seam is one step."""
    if before.last is None:
        return after
    if after.first is None:
        return before
    seam = 1 if before.last[0] == after.first[0] else 0
    return ArchiveExtent(
        before.entries + after.entries, before.steps + after.steps - seam, before.first, after.last
    )


SEVERITY_ORDER: tuple[str, ...] = ("violation", "warning", "info")
"""Finding severities, most severe first (the order of :attr:`IndexEntry.top`)."""


@dataclass(frozen=True)
class TopFinding:
    """The most severe finding of a match, as the match list shows it: its public part only (the
    ``message`` of a finding is public by contract, docs/records.md "Message and detail")."""

    severity: str
    code: str
    seq: int | None
    message: str

    def as_json(self) -> dict[str, Any]:
        """The JSON form (``top_finding`` of ``GET /matches``)."""
        return {"severity": self.severity, "code": self.code, "seq": self.seq, "message": self.message}


def top_finding(findings: Iterable[Mapping[str, Any]]) -> TopFinding | None:
    """The most severe of ``findings`` (a record's, as JSON): violations before warnings before info
    notes, then the earliest (lowest seq, then first listed). None when there are none."""
    best: tuple[int, int, int] | None = None
    chosen: Mapping[str, Any] | None = None
    for i, f in enumerate(findings):
        severity = str(f.get("severity"))
        order = SEVERITY_ORDER.index(severity) if severity in SEVERITY_ORDER else len(SEVERITY_ORDER)
        seq = f.get("seq")
        key = (order, seq if isinstance(seq, int) else 1 << 62, i)
        if best is None or key < best:
            best, chosen = key, f
    if chosen is None:
        return None
    seq = chosen.get("seq")
    return TopFinding(
        str(chosen.get("severity")),
        str(chosen.get("code")),
        seq if isinstance(seq, int) else None,
        str(chosen.get("message") or ""),
    )


_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")


#: What an index entry shows (:meth:`IndexEntry.view`): status, league, season, players, findings by code
#: and by severity, and the rest (:meth:`IndexEntry.about`).
EntryView = tuple[
    str, str | None, str | None, tuple[str, ...], Mapping[str, int], Mapping[str, int], Mapping[str, Any]
]


@dataclass(frozen=True)
class IndexEntry:
    """What the league indexes know about a match. Absolute values: indexing twice changes nothing.

    ``event``, ``round``, ``table``, ``date`` and ``top`` came with the searchable match list (issue 36
    item 6): an entry indexed by an earlier version has none of them (None) until its match's next write
    indexes it again, and reads as it did before."""

    match: str
    seq: int
    status: str
    league: str | None = None
    season: str | None = None
    players: tuple[str, ...] = ()
    findings: Mapping[str, int] = field(default_factory=dict)
    severities: Mapping[str, int] = field(default_factory=dict)
    """The findings by severity (``violation``, ``warning``, ``info``)."""
    event: str | None = None
    round: str | None = None
    table: str | None = None
    date: str | None = None
    """The day the game started (``YYYY-MM-DD``: the record's ``started_at``, as the source wrote it)."""
    top: TopFinding | None = None
    """The most severe finding, its public part (:func:`top_finding`)."""

    @property
    def rank(self) -> int:
        """How much the match needs a review, the order of the list's "games to review": violations
        first, then warnings, then info notes (each counted up to 65,535; exact in a Redis score). An
        entry that does not know its findings' severities ranks by their number, as info notes."""
        if not self.severities:
            return min(sum(self.findings.values()), RANK_CAP)
        v, w, i = (min(int(self.severities.get(s, 0)), RANK_CAP) for s in ("violation", "warning", "info"))
        return (v << 32) + (w << 16) + i

    @classmethod
    def from_record(cls, record: Mapping[str, Any], seq: int) -> IndexEntry:
        """The index entry of a record (docs/records.md) whose archive head is ``seq``."""
        context = record.get("context") or {}
        counts: dict[str, int] = {}
        severities: dict[str, int] = {}
        findings = record.get("findings") or ()
        for finding in findings:
            code = str(finding.get("code"))
            counts[code] = counts.get(code, 0) + 1
            severity = str(finding.get("severity"))
            severities[severity] = severities.get(severity, 0) + 1
        started = record.get("started_at")
        date = started[:10] if isinstance(started, str) and _DATE.match(started) else None
        return cls(
            match=str(record["match"]),
            seq=seq,
            status=str(record.get("status") or "in_progress"),
            league=_text(context.get("league")),
            season=_text(context.get("season")),
            players=tuple(str(p) for p in record.get("players") or ()),
            findings=counts,
            severities=severities,
            event=_text(context.get("event")),
            round=_text(context.get("round")),
            table=_text(context.get("table")),
            date=date,
            top=top_finding(findings),
        )

    def about(self) -> dict[str, Any]:
        """The fields an earlier version's entry did not have, those set only (stored as one JSON field,
        so that an entry without them reads, compares and digests as it did)."""
        out: dict[str, Any] = {
            k: v
            for k, v in (
                ("event", self.event),
                ("round", self.round),
                ("table", self.table),
                ("date", self.date),
            )
            if v is not None
        }
        if self.top is not None:
            out["top"] = [self.top.severity, self.top.code, self.top.seq, self.top.message]
        return out

    def view(self) -> EntryView:
        """What the entry shows (all but its seq): status, league, season, players, findings by code and
        by severity, and :meth:`about`. Made once per entry (the entry is frozen): a write compares and
        digests it several times, the next write's checkpoint again. Read it, never change it."""
        # kept in the instance's __dict__ by hand, not a field: functools.cached_property takes a lock
        # on every first read in Python 3.11, once per write here
        shown: EntryView | None = self.__dict__.get("_view")
        if shown is None:
            shown = (
                self.status,
                self.league,
                self.season,
                tuple(self.players),
                dict(self.findings),
                dict(self.severities),
                self.about(),
            )
            object.__setattr__(self, "_view", shown)  # frozen: set as the dataclass's __init__ does
        return shown

    def search_text(self) -> str:
        """What a search looks in, folded (:func:`fold_text`): the match id, the players, the event, the
        round and the table, one a line (so that a search never matches across two of them)."""
        parts = [self.match, *self.players, self.event, self.round, self.table]
        return "\n".join(fold_text(p).replace("\n", " ") for p in parts if p)

    def as_json(self) -> dict[str, Any]:
        """A JSON-safe summary (what ``GET /matches`` lists; ``seq`` is internal: the head when indexed)."""
        return {
            "match": self.match,
            "status": self.status,
            "league": self.league,
            "season": self.season,
            "players": list(self.players),
            "findings": dict(sorted(self.findings.items())),
            "event": self.event,
            "round": self.round,
            "table": self.table,
            "date": self.date,
            "top_finding": None if self.top is None else self.top.as_json(),
        }


def _text(value: Any) -> str | None:
    return None if value is None else str(value)


def about_json(entry: IndexEntry) -> str:
    """:meth:`IndexEntry.about` as stored (``""`` when empty: what an earlier version's entry holds)."""
    about = entry.about()
    return json.dumps(about, sort_keys=True, separators=(",", ":"), ensure_ascii=False) if about else ""


def with_about(entry: IndexEntry, about: Mapping[str, Any]) -> IndexEntry:
    """``entry`` with the fields of a stored :meth:`IndexEntry.about` (unknown keys ignored)."""
    top = about.get("top")
    found = None
    if isinstance(top, list) and len(top) == 4:
        found = TopFinding(str(top[0]), str(top[1]), top[2] if isinstance(top[2], int) else None, str(top[3]))
    return replace(
        entry,
        event=_text(about.get("event")),
        round=_text(about.get("round")),
        table=_text(about.get("table")),
        date=_text(about.get("date")),
        top=found,
    )


SORTS: tuple[str, ...] = ("match", "-match", "findings", "-findings")
"""How :meth:`Store.index_page` orders matches: by id, or by their findings, violations first (their
:attr:`IndexEntry.rank`; ties by id); a leading ``-`` reverses the order."""
RANK_CAP = 0xFFFF

SEARCH_SCAN_MAX = 250_000
"""A search looks through at most this many entries of one index bucket (16 buckets: 4 million matches);
a broader one is answered with no rows and ``too_broad`` (narrow it with a league, season or status)."""
SEARCH_MAX = 128
"""The longest search (characters, once folded)."""
#: What a search looks in, for the routes that take one (GET /matches, /ui).
SEARCH_HELP = (
    "search: a part of the match id, a player, the event, the round or the table (any case, "
    "full- and half-width alike: NFKC and case folded)"
)

LEASE_ACTIONS = frozenset({"take", "renew", "release", "replace", "peek"})
"""What :meth:`Store.lease` does."""


def fold_text(text: str) -> str:
    """What a search compares: NFKC (full-width Latin and digits as ASCII, half-width katakana as
    full-width), then case folded (ß as ss, any script's capitals), then NFKC again (casefold can undo it)."""
    return unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", text).casefold())


def search_needle(search: str) -> str:
    """A typed search, folded as :meth:`IndexEntry.search_text` is, white space collapsed; a
    ``ValueError`` naming the limit when it is longer than :data:`SEARCH_MAX`."""
    needle = " ".join(fold_text(search).split())
    if len(needle) > SEARCH_MAX:
        raise ValueError(f"a search is at most {SEARCH_MAX} characters, got {len(needle)}")
    return needle


def page_request(sort: str, cursor: str | None, search: str | None) -> tuple[tuple[int, str] | None, str]:
    """A page's request as both backends check it: the row a ``cursor`` resumes after (None: from the
    start) and the folded ``search`` needle (\"\": none); a ``ValueError`` naming the bad value (an unknown
    ``sort``, a cursor given for another sort, a search over :data:`SEARCH_MAX`)."""
    if sort not in SORTS:
        raise ValueError(f"sort must be one of {', '.join(SORTS)}, got {sort!r}")
    after = None if cursor is None else decode_cursor(cursor, sort)
    return after, search_needle(search) if search else ""


def encode_cursor(sort: str, score: float, match: str) -> str:
    """The cursor after the row (``score``, ``match``) of a page in ``sort`` order (opaque to callers)."""
    raw = json.dumps([sort, int(score), match], separators=(",", ":")).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def decode_cursor(cursor: str, sort: str) -> tuple[int, str]:
    """The row a cursor made by :func:`encode_cursor` names; a ``ValueError`` saying what is wrong."""
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))
        made_for, score, match = json.loads(raw)
    except (ValueError, binascii.Error, TypeError):
        raise ValueError("cursor is not one this service gave (take it from the last page's next)") from None
    if made_for != sort:
        raise ValueError(f"cursor was given for sort={made_for}, not sort={sort}")
    if not isinstance(score, int) or not isinstance(match, str) or not is_match_id(match):
        raise ValueError("cursor is not one this service gave (take it from the last page's next)")
    return score, match


@dataclass(frozen=True)
class IndexPage:
    """One page of the league index: the entries shown, and how many matched in all."""

    entries: list[IndexEntry]
    total: int
    too_broad: bool = False
    next: str | None = None
    """The cursor of the page after this one (None: this is the last)."""


def order_page(
    names: Iterable[str], findings: Mapping[str, int], sort: str, offset: int, limit: int
) -> list[str]:
    """The page ``[offset, offset + limit)`` of ``names`` in ``sort`` order (what both backends give);
    ``findings``: each match's :attr:`IndexEntry.rank`."""
    if sort not in SORTS:
        raise ValueError(f"sort must be one of {', '.join(SORTS)}, got {sort!r}")
    key = sort.lstrip("-")
    ordered = sorted(names) if key == "match" else sorted(names, key=lambda m: (findings.get(m, 0), m))
    if sort.startswith("-"):
        ordered.reverse()
    return ordered[max(0, offset) : max(0, offset) + max(0, limit)]


@dataclass(frozen=True)
class LiveUpdate:
    """Published after every write that changes a match's record or board.

    ``board``: the public board the write stored (the bytes of ``store.board(match)`` just after it), or
    None when the write left the board as it was (a record written alone, an event archived as a
    conflict). A live hub shows a carried board as it comes, without reading it back: one store read less
    per update and per process (docs/performance.md, "Serve").

    On the wire: the JSON object ``{"match": m, "seq": n}``, then, when a board is carried, a newline and
    the board's msgpack bytes (compact JSON holds no raw newline, so the first one ends the header).
    """

    match: str
    seq: int
    board: bytes | None = None

    def encode(self) -> bytes:
        if _MATCH_ID.fullmatch(self.match):  # nothing to escape in a match id: skip the JSON encoder
            head = b'{"match":"%s","seq":%d}' % (self.match.encode(), self.seq)
        else:
            head = json.dumps({"match": self.match, "seq": self.seq}, separators=(",", ":")).encode()
        return head if self.board is None else b"%s\n%s" % (head, self.board)

    @classmethod
    def decode(cls, data: bytes | str) -> LiveUpdate:
        raw = data.encode() if isinstance(data, str) else data
        head, newline, board = raw.partition(b"\n")
        obj = json.loads(head)
        return cls(match=str(obj["match"]), seq=int(obj["seq"]), board=board if newline else None)


@dataclass(frozen=True)
class AuditEntry:
    """One line of the audit log: who did what, to what, when and from where.

    ``action`` is a short code (``write``, ``read_hidden``, ``refused``, ``token_create``,
    ``tamper_alarm``...); ``actor`` names the credential or process (a token id, ``public``, a worker id,
    ``system``); ``origin`` where the request came from (client address, worker id); ``at`` seconds since
    the epoch; ``detail`` free text. ``id`` is the store's position of the entry (empty before it is
    stored).
    """

    action: str
    actor: str
    target: str = ""
    origin: str = ""
    detail: str = ""
    at: float = 0.0
    id: str = ""

    def fields(self) -> dict[str, str]:
        """The stored fields (every value a string)."""
        return {
            "action": self.action,
            "actor": self.actor,
            "target": self.target,
            "origin": self.origin,
            "detail": self.detail,
            "at": repr(self.at),
        }

    @classmethod
    def from_fields(cls, entry_id: str, fields: Mapping[str, str]) -> AuditEntry:
        """An entry read back from the store."""
        return cls(
            action=fields.get("action", ""),
            actor=fields.get("actor", ""),
            target=fields.get("target", ""),
            origin=fields.get("origin", ""),
            detail=fields.get("detail", ""),
            at=float(fields.get("at") or 0.0),
            id=entry_id,
        )


class Subscription(Protocol):
    """Live updates for one match or for all (``async for update in sub``); close it when done."""

    def __aiter__(self) -> AsyncIterator[LiveUpdate]: ...

    async def aclose(self) -> None: ...


def _run_bounds(a: AppendRun) -> tuple[int, int]:
    """The first and last seq of a run; a run must be non-empty and consecutive (a caller's bug if not)."""
    if not a.events:
        raise ValueError("an empty run")
    first, last = a.events[0][0], a.events[-1][0]
    if last - first + 1 != len(a.events) or any(s != first + i for i, (s, _) in enumerate(a.events)):
        raise ValueError(f"the seqs of a run must be consecutive: {[s for s, _ in a.events]}")
    return first, last


def _parse_position(entry_id: bytes | str) -> tuple[int, int]:
    text = entry_id.decode() if isinstance(entry_id, bytes) else entry_id
    ms, _, sub = text.partition("-")
    return int(ms), int(sub or 0)


def _index_fields(entry: IndexEntry) -> list[str]:
    """An entry's stored fields as RedisStore.index writes them: seq, status, league, season, players,
    findings, about (:func:`about_json`)."""
    players = json.dumps(list(entry.players))
    findings = json.dumps(dict(entry.findings)) if entry.findings else "{}"
    return [
        str(entry.seq),
        entry.status,
        entry.league or "",
        entry.season or "",
        players,
        findings,
        about_json(entry),
    ]


def same_entry(a: IndexEntry | None, b: IndexEntry | None) -> bool:
    """Do two index entries show the same (seq included)?"""
    if a is None or b is None:
        return a is b
    return a.view() == b.view() and a.seq == b.seq
