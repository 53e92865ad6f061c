"""An error's line in the reader's language (issue 34 item 5): how the command line says what kept a
command from its work.

An :class:`~replay.engine.errors.InputError` names where the problem is (file, line, match, seq, field)
and what it is. :func:`line` words the where in the reader's language (the file, the match and the field
as they are: names, not words) and the message through :data:`MESSAGES`: the library's own messages that
every command shares (a file that cannot be read or written), read back from the English by their
templates as a finding's sentence is (:mod:`replay.i18n.sentences`). The command line's own messages are
worded in the reader's language where they are raised (``replay.cli.common.tr``), and a message no
template reads is shown as it is: never a guess. A field the contract refuses is said by the contract's
reason templates (:mod:`replay.i18n.reasons`), the field's name and the value as they are. ``str(exc)``
stays the English line (logs, the service's answers, tests of the bytes).
"""

from __future__ import annotations

from typing import Final

from replay import i18n
from replay.engine import InputError
from replay.i18n import N_, Spoken
from replay.i18n.sentences import translate

#: The messages replay/codec.py (and the readers every command shares) raise, as written there: a test
#: checks each is read (tests/cli/test_languages.py).
MESSAGES: Final[tuple[str, ...]] = (
    N_("no such file"),
    N_("is a directory"),
    N_("cannot read: {reason}"),
    N_("cannot write: {reason}"),
    N_("is empty: no records"),
    N_("is empty: no events"),
    N_("not a Prizecheck record"),
    N_("not UTF-8 JSON"),
    N_("not valid JSON: {reason} (column {column})"),
    N_("not UTF-8 text (is this a MessagePack file? name it .msgpack)"),
    N_("truncated MessagePack after event {index} (byte {pos})"),
    N_("not valid MessagePack at event {position}: {reason}"),
    N_("not valid MessagePack at event {position}"),
    N_("an event must be a map"),
    # replay.extras.needs_extra: an optional extra not installed
    N_(
        "needs the {which}, which this installation lacks ({reason}): pip install '.[{names}]' in a "
        "checkout, or 'dist/prizecheck-{version}-py3-none-any.whl[{names}]' from make dist"
    ),
)
#: What replay/signing.py says of a key file, a key directory or a public keys document it cannot read
#: (its ``KeyFileError``), as written there (that module sits beside this one: it words its messages in
#: English, read back here by these; tests/cli/test_key_languages.py checks each is read). A reason quoted
#: from the OS, the JSON parser or cryptography stays as written.
KEY_PROBLEMS: Final[tuple[str, ...]] = (
    N_("{where}: not a Prizecheck keys document (format {format})"),
    N_("{where}: field keys: expected a list"),
    N_("{where}: field keys[{n}].public_key: not a raw Ed25519 key in hex"),
    N_("{where}: field keys[{n}].kid: {found} is not this key's id {kid}"),
    N_("{path}: no such file"),
    N_("{path}: cannot read: {reason}"),
    N_("{path}: not JSON ({reason})"),
    N_("{where}: not an Ed25519 key file ({reason})"),
    N_("{where}: holds key {found}, not {kid} (the file is named by its key id)"),
    N_("{where}: names {kid}, whose private key is not here"),
    N_("{where}: not a key id: {text}"),
)
#: Their pieces: what a public document read from no file is called, why a PEM file is not a key.
KEY_PIECES: Final[tuple[str, ...]] = (N_("the keys document"), N_("not an Ed25519 key"))
#: What Python's JSON parser says is wrong (``json.JSONDecodeError.msg``), said again in the reader's
#: language beside the position the message keeps (line, column, byte).
JSON_REASONS: Final[tuple[str, ...]] = (
    N_("Expecting value"),
    N_("Expecting property name enclosed in double quotes"),
    N_("Expecting ':' delimiter"),
    N_("Expecting ',' delimiter"),
    N_("Unterminated string starting at"),
    N_("Invalid control character at"),
    N_("Invalid \\escape"),
    N_("Invalid \\uXXXX escape"),
    N_("Extra data"),
    N_("Illegal trailing comma before end of object"),
    N_("Illegal trailing comma before end of array"),
)
#: What msgpack says of bytes it cannot read.
MSGPACK_REASONS: Final[tuple[str, ...]] = (
    N_("Unpack failed: incomplete input"),
    N_("Unpack failed: error = {code}"),
)
#: Pieces of a message read the same way (a reason the codec words itself).
PIECES: Final[tuple[str, ...]] = (
    N_("no such directory"),
    N_("a part of the path is not a directory"),
    N_("is a directory"),
    N_("{extras} extras"),
    N_("{extras} extra"),
    *JSON_REASONS,
    *MSGPACK_REASONS,
)


def line(lang: str, exc: InputError) -> str:
    """``exc`` as one line in ``lang`` (``FILE:LINE: field F: MESSAGE`` with the parts that are known);
    ``str(exc)`` in English, or when its class words itself otherwise."""
    if lang == i18n.DEFAULT or type(exc).__str__ is not InputError.__str__:
        return str(exc)

    def tr(message: str) -> str:
        return i18n.gettext(lang, message)

    where: list[str] = []
    if exc.file is not None:
        where.append(exc.file if exc.line is None else f"{exc.file}:{exc.line}")
    elif exc.line is not None:
        where.append(tr("line {line}").format(line=exc.line))
    if exc.match is not None:
        seq = tr(" seq {seq}").format(seq=exc.seq) if exc.seq is not None else ""
        where.append(tr("match {match}").format(match=exc.match) + seq)
    elif exc.seq is not None:
        where.append(tr("seq {seq}").format(seq=exc.seq))
    if exc.field is not None:
        where.append(tr("field {field}").format(field=exc.field))
    return ": ".join([*where, message(lang, exc.message)])


def message(lang: str, text: str) -> str:
    """An error's message ``text`` in ``lang`` when one of :data:`MESSAGES` wrote it, the contract's
    reason a value is refused (:mod:`replay.i18n.reasons`), or an importer's or a deck list's refusal
    (:mod:`replay.i18n.inputs`); else as it is. A ``{reason}`` inside one (``not valid MessagePack at
    event 3: nested deeper than 64 levels``, a sheet's row the contract refuses) is said again the same
    way when the contract wrote it. A key file's problem (:data:`KEY_PROBLEMS`) too. A
    :class:`~replay.i18n.Spoken` message is said again by its own template."""
    if lang == i18n.DEFAULT:
        return text
    if isinstance(text, Spoken):  # worded where it was raised (a checkpoint's problem): said as such
        return str(text.spoken(lang))
    # the contract's and the importers' templates: read on an error only
    from replay.i18n.inputs import INPUTS, LANGUAGE_NAMES, PAGES
    from replay.i18n.reasons import said

    names = {"reason": lambda value: message(lang, value)}  # shorter each time: it ends
    pieces = (*PIECES, *PAGES, *LANGUAGE_NAMES)
    return (
        translate(lang, MESSAGES, text, pieces, names=names)
        or said(lang, text)
        or translate(lang, INPUTS, text, pieces, names=names)
        or translate(lang, KEY_PROBLEMS, text, KEY_PIECES)
        or text
    )


class Quoted(Spoken):
    """An error's message quoted inside a :class:`~replay.i18n.Phrase` (``is not a valid event:
    {reason}``), written in English where it was raised: said again in another language by :func:`line`
    (an :class:`~replay.engine.InputError`, its where and its message) or :func:`message` (a message
    alone), which read it back by their templates and leave a message none reads as it is."""

    error: BaseException | None

    def __new__(cls, error: BaseException | str) -> Quoted:
        made = super().__new__(cls, str(error))
        made.error = error if isinstance(error, BaseException) else None
        return made

    def spoken(self, lang: str) -> str:
        if isinstance(self.error, InputError):
            return line(lang, self.error)
        return message(lang, str(self))
