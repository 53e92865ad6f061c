"""A tamper alarm's words (docs/reliability.md, "Tampering"; issue 34 item 5).

The ingest core writes a tamper alarm's ``detail`` in English, ``match M: P1; P2; ...``, each problem a
sentence of :data:`SENTENCES` filled with its fields (:func:`detail`), and keeps it as it is: in the store
(``prizecheck alarms``) and in the audit log, which other tools read; its bytes never depend on a reader.
Where a person reads one (``prizecheck check``, ``prizecheck archive``, ``prizecheck alarms``),
:func:`said` reads the problems back out of the English by these templates
(:func:`replay.i18n.sentences.each`) and says each in the reader's language. An alarm any part of which no
template wrote (an alarm raised before a sentence changed) is shown as it was written: never a guess.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Final

from replay import i18n
from replay.i18n import N_, Spoken
from streams.store.checkpoint import DECODE_PROBLEMS, DESCRIBES
from streams.store.parquet import COPY_PROBLEMS

#: A whole alarm: the match, then its problems joined by :data:`SEP`.
ALARM: Final = N_("match {match}: {problems}")
SEP: Final = "; "

# What a rebuild finds (streams.ingest.integrity: the stored state against its signed checkpoint and the log)
HEAD = N_("the head key says {head}, the archive's last event in order is {seq}")
NO_CHECKPOINT = N_(
    "the store holds no checkpoint, but the checkpoint log has {checkpoint}: the match's state was removed "
    "or replaced"
)
CHAIN = N_(
    "the archive replays to chain head {replayed}, but the head stored with its last append is {stored}: the "
    "archive was changed outside the service"
)
UNREADABLE = N_("its stored checkpoint is unreadable ({reason})")
FORGED = N_("its stored checkpoint is not signed by this service's key (forged)")
ROLLED_BACK = N_(
    "the store was rolled back: its checkpoint is {checkpoint}, the checkpoint log's newest is {latest}"
)
NOT_LOGGED = N_("its stored checkpoint of write {writes} is not the one in the checkpoint log")
ARCHIVE = N_(
    "the archive (seq {seq}, {entries} entries, chain head {chain}...) is not the one its checkpoint signs "
    "(seq {signed_seq}, {signed_entries} entries, chain head {signed_chain}...): it was changed outside the "
    "service"
)
WRITES = N_("its write count is {writes}, its checkpoint says {signed}")
RECORD = N_("the stored record is not the one its checkpoint signs (replaced or edited)")
BOARD = N_("the stored board is not the one its checkpoint signs (replaced or edited)")
VERSIONS = N_(
    "the version list ({count} versions) is not the one its checkpoint signs ({signed} versions): truncated "
    "or edited"
)
INDEX = N_("the league index entry is not one its checkpoint signs (replaced or edited)")
HELD = N_("a held event was not held by this service: {reason}; it is not applied")
# What a write finds (the store refused it: what is stored is not what the writer's checkpoint says)
OTHER_RECORD = N_("its stored record is not the one its checkpoint signs (replaced or edited)")
CHANGED = N_(
    "the stored {what} is not what its checkpoint (write {writes}) says: it was changed outside the service "
    "since this process wrote or checked it"
)
REFUSED = N_("the write was refused")
INDEX_CHANGED = N_(
    "its league index entry was changed outside the service (it is not the entry this process wrote, nor one "
    "the stored checkpoint signs)"
)
# A playoff game's stub or settlement, over another match's stored state
STUB_OVER = N_(
    "its stored {what} was written outside the service before its first record (the playoff stub announced "
    "by its parent); the stub was not written"
)
NOT_WITHDRAWN = N_("its stub was not withdrawn")
NOT_SETTLED = N_("it was not settled from {match}")
#: What every alarm the core keeps ends with (streams.ingest.integrity: ``_alarm``).
KEPT = N_("the stored data is kept as it is and not re-signed")

#: Every problem an alarm says, the archived copy's (:data:`streams.store.parquet.COPY_PROBLEMS`) too.
SENTENCES: Final[tuple[str, ...]] = (
    HEAD,
    NO_CHECKPOINT,
    CHAIN,
    UNREADABLE,
    FORGED,
    ROLLED_BACK,
    NOT_LOGGED,
    ARCHIVE,
    WRITES,
    RECORD,
    BOARD,
    VERSIONS,
    INDEX,
    HELD,
    OTHER_RECORD,
    CHANGED,
    REFUSED,
    INDEX_CHANGED,
    STUB_OVER,
    NOT_WITHDRAWN,
    NOT_SETTLED,
    KEPT,
    *COPY_PROBLEMS,
)
#: What the store's write scripts name as the stored value that is not the writer's (``{what}``).
STORED: Final[dict[str, str]] = {
    "record": N_("record"),
    "board": N_("board"),
    "checkpoint": N_("checkpoint"),
    "versions": N_("versions"),
}


def detail(match: str, problems: Sequence[str]) -> str:
    """An alarm's detail as kept: ``match M: P1; P2`` (each problem a sentence of :data:`SENTENCES`)."""
    return ALARM.format(match=match, problems=SEP.join(problems))


def said(lang: str, text: str) -> str:
    """An alarm's ``text`` (as kept, in English) in ``lang``; ``text`` itself in English, or when it is not
    an alarm every problem of which one of :data:`SENTENCES` wrote."""
    if lang == i18n.DEFAULT:
        return text
    from replay.i18n.sentences import each, read

    found = read((ALARM,), text)
    if found is None:
        return text
    _, fields = found
    stored: dict[str, Callable[[str], str]] = {
        "what": lambda what: i18n.gettext(lang, STORED[what]) if what in STORED else what
    }
    problems = each(lang, SENTENCES, fields["problems"], SEP, (DESCRIBES, *DECODE_PROBLEMS), stored)
    if problems is None:
        return text
    return i18n.fill(lang, i18n.gettext(lang, ALARM), {"match": fields["match"], "problems": problems})


class Alarm(Spoken):
    """A tamper alarm's detail as kept (the English string itself: ``--json`` and logs read it as it is),
    said again in a reader's language by :func:`said` (a :class:`~replay.i18n.Phrase`'s field, a breach)."""

    def spoken(self, lang: str) -> str:
        return said(lang, str(self))
