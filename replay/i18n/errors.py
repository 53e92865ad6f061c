"""An error's line in the reader's language (issue 34 item 5): how the command line says what kept a
command from its work.

An :class:`~replay.engine.errors.InputError` names where the problem is (file, line, match, seq, field)
and what it is. :func:`line` words the where in the reader's language (the file, the match and the field
as they are: names, not words) and the message through :data:`MESSAGES`: the library's own messages that
every command shares (a file that cannot be read or written), read back from the English by their
templates as a finding's sentence is (:mod:`replay.i18n.sentences`). The command line's own messages are
worded in the reader's language where they are raised (``replay.cli.common.tr``), and a message no
template reads (an event's field refused by the contract, in the contract's words) is shown as it is:
never a guess. ``str(exc)`` stays the English line (logs, the service's answers, tests of the bytes).
"""

from __future__ import annotations

from typing import Final

from replay import i18n
from replay.engine import InputError
from replay.i18n import N_
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
    # replay.extras.needs_extra: an optional extra not installed
    N_(
        "needs the {which}, which this installation lacks ({reason}): pip install '.[{names}]' in a "
        "checkout, or 'dist/prizecheck-{version}-py3-none-any.whl[{names}]' from make dist"
    ),
)
#: Pieces of a message read the same way (a reason the codec words itself).
PIECES: Final[tuple[str, ...]] = (
    N_("no such directory"),
    N_("a part of the path is not a directory"),
    N_("is a directory"),
    N_("{extras} extras"),
    N_("{extras} extra"),
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
    """An error's message ``text`` in ``lang`` when one of :data:`MESSAGES` wrote it; else as it is."""
    if lang == i18n.DEFAULT:
        return text
    return translate(lang, MESSAGES, text, PIECES) or text
