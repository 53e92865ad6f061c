"""The engine's own outputs as typed values: the record and everything it holds (docs/records.md).

Each is a msgspec Struct, built by the engine in one place and turned into the record's JSON by its one
``to_json()``; a stored record (a JSON or MessagePack map) is read back, once, with ``from_json``. A field
the record only carries sometimes (a result's ``detail``, what a settled playoff adds) is ``UNSET`` when
absent and left out of the JSON, so the same events give the same bytes as ever.
"""

from __future__ import annotations

from typing import Any, Final, TypeVar

import msgspec
from msgspec import UNSET, Struct, UnsetType

ENGINE_VERSION: Final = "0.1.0"
ENGINE: Final = f"prizecheck {ENGINE_VERSION}"
#: A concession's reason words that say the player ran out of time (a timeout, not a concession).
TIMEOUT_DETAILS: Final = ("inactive", "timeout")

_T = TypeVar("_T", bound="Output")


# gc=False: an output holds only data (scalars, other outputs, lists and maps of JSON values) and is never
# part of a reference cycle, so the garbage collector need not track it: decoding 20,000 stored records and
# keeping them takes about half the time (bench/report.py's in-memory figures).
class Output(Struct, frozen=True, gc=False):
    """A value the engine derives: immutable, one JSON shape."""

    def to_json(self) -> dict[str, Any]:
        """This value as the record's JSON (builtin types only; absent optional fields left out)."""
        out: dict[str, Any] = msgspec.to_builtins(self)
        return out

    @classmethod
    def from_json(cls: type[_T], doc: Any) -> _T:
        """Read a value back from its JSON (``msgspec.ValidationError`` when it is not one)."""
        return msgspec.convert(doc, cls)


class Finding(Output, frozen=True):
    """Where the source disagrees with the rules (docs/records.md, Findings).

    ``message`` is public: it never quotes an event's free text (a note, a reason), a card that may be
    hidden or a refused event's fields. Those specifics are in ``detail``, which only roles that see
    hidden information get (``replay.engine.public`` leaves it out).
    """

    code: str
    severity: str
    seq: int | None
    message: str
    detail: str | UnsetType = UNSET


class Knockout(Output, frozen=True):
    """One Pokémon Knocked Out, in the batch ``batch`` [JP3.4 §I-D].

    ``prizes`` is what it was worth (rule box and modifiers, docs/rules.md §3); ``prizes_taken`` what its
    knockout actually gave, which is less when fewer prizes remained (a batch's prizes go to its knockouts
    in batch order). ``UNSET`` only in records stored before the field existed.
    """

    seq: int
    pid: str
    owner: str
    card: str | dict[str, Any]  # the engine writes the card's name; the contract allows the card itself
    prizes: int
    window: str
    verified: bool
    batch: int | UnsetType = UNSET  # the engine always gives it; the contract does not require it
    prizes_taken: int | UnsetType = UNSET


class PrizeCount(Output, frozen=True):
    """One player's prizes: ``taken``, ``needed`` (less the opponent's prize penalties), ``remaining``
    (prize cards still in the pile)."""

    taken: int
    needed: int
    remaining: int


class Drawn(Output, frozen=True):
    """What a game settled by its playoff had been: the reason and seq of its draw."""

    reason: str
    decided_at: int | None


class Result(Output, frozen=True):
    """A game's result: who won, by which condition, at which event (docs/rules.md §1, §4)."""

    outcome: str  # win | draw | no_winner
    winner: str | None
    loser: str | None
    reason: str
    # the engine always gives these three; the defaults read a record the schema accepts without them
    conditions: dict[str, list[str]] | UnsetType = UNSET
    decided_at: int | None = None
    turn: int | None = None
    detail: str | UnsetType = UNSET
    playoff: str | UnsetType = UNSET  # the playoff game whose winner this game's result was taken from
    drawn: Drawn | UnsetType = UNSET

    def reason_kind(self) -> str:
        """The kind of this result's reason, comparable with a source's claimed one."""
        if self.reason == "concession" and self.detail in TIMEOUT_DETAILS:
            return "timeout"
        return self.reason


class Claim(Output, frozen=True):
    """The source's own claimed result (its ``game_ended``), with the fields it sent."""

    outcome: str | UnsetType = UNSET
    winner: str | UnsetType = UNSET
    reason: str | UnsetType = UNSET

    def agrees(self, result: Result | None) -> bool:
        """Do outcome and winner agree with the derived result?"""
        if result is None or self.outcome != result.outcome:
            return False
        return result.outcome != "win" or self.winner == result.winner

    def said(self) -> str:
        """The claim in words ("win for ash")."""
        said = str(self.outcome) if self.outcome is not UNSET else "None"
        return said + (f" for {self.winner}" if self.winner else "")


class Penalty(Output, frozen=True):
    """A penalty given during (or right after) the game [PG §3-4]."""

    seq: int
    player: str
    kind: str
    reason: str | UnsetType | None = UNSET  # None when the event gave none; absent in the public projection
    prizes: int | UnsetType = UNSET  # a prize_penalty's number of prizes [JP floor rules 2023-04-01 §11 ③]


class PlayoffLink(Output, frozen=True):
    """The playoff a drawn game awaits (or went to): its kind, prizes and child game (docs/rules.md §6)."""

    kind: str
    prizes: int
    child: str


class PlayoffOf(Output, frozen=True):
    """What a playoff game is: which kind, of which parent game."""

    kind: str
    parent: str | None


class Chain(Output, frozen=True):
    """The hash chain over the archived events: its head and how many events it covers."""

    alg: str
    head: str
    events: int


class Audit(Output, frozen=True):
    """How the knockouts were audited: ``hp`` (all derived from HP), ``claims`` (from the source's
    knockout claims) or ``mixed``."""

    basis: str
    unverified_knockouts: int = 0


class Signature(Output, frozen=True):
    """A signature over the record's canonical JSON without this field: ``Ed25519`` under the key
    ``key_id`` of the service's public keys, or ``HMAC-SHA256`` (records signed before)."""

    alg: str
    key_id: str
    value: str


class Record(Output, frozen=True):
    """The end-of-game record (docs/records.md; schemas/record.schema.json).

    Built by ``replay.engine.record`` (a game's) and ``replay.engine.playoff`` (a playoff announced but
    not started, and parents settled by their playoffs). The defaults only serve to read back records
    stored by earlier versions, which lack some fields.
    """

    match: str | None
    ruleset: str = ""
    ruleset_version: int | UnsetType = UNSET
    engine: str = ENGINE
    players: list[str] = []
    first: str | None = None
    context: dict[str, Any] | None = None
    source: dict[str, Any] | UnsetType | None = UNSET
    status: str = "in_progress"
    result: Result | None = None
    claimed: Claim | None = None
    agrees: bool | None = None
    prizes: dict[str, PrizeCount] = {}
    knockouts: list[Knockout] = []
    findings: list[Finding] = []
    penalties: list[Penalty] | UnsetType = UNSET
    turn: int | UnsetType | None = UNSET
    audit: Audit | UnsetType = UNSET
    parent: str | None = None
    children: list[str] = []
    playoff: PlayoffLink | None = None
    playoff_of: PlayoffOf | None = None
    chain: Chain | UnsetType = UNSET
    signature: Signature | None = None
    started_at: str | UnsetType | None = UNSET
    provisional: bool | UnsetType = UNSET
    stub: bool | UnsetType = UNSET  # a playoff announced by its parent that has not started yet
    # only in the public projection (replay.engine.public.public_record): fields were left out
    redacted: bool | UnsetType = UNSET


def agrees(claim: Claim | None, result: Result | None) -> bool | None:
    """Does the source's claim agree with the derived result? None when there is no claim."""
    return None if claim is None else claim.agrees(result)
