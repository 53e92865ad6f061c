"""A judge's names for scanned sheets (issue 39), said one way wherever they are given: the command line's
``import scan --players``, ``--players-file`` and ``--match``, and the upload page's ``players`` and
``match`` fields (``POST /import``). No image library here: both check what was typed before any photo is
read.

- a sheet's **players**: two different names, ``A,B`` (:func:`pair`); ``-`` where a list names each
  sheet: the names printed on that sheet (:data:`OWN`);
- a sheet's **match id** given by hand: a match id, or ``-`` for the one the sheet itself says
  (:func:`given_match`). The reader uses it only for a sheet that cannot name itself and refuses a sheet
  whose own id is another (:func:`replay.sources.scan.photo.import_scan`);
- a **list of players**, a line a sheet (:func:`players_list`): the command line's ``--players-file``
  and the upload page's ``players_by_id`` (the page takes only its ``ID,A,B`` lines: :class:`ByMatch`).

Its refusals are :class:`~replay.engine.InputError` in English, templates of
:mod:`replay.i18n.inputs`: each reader says them in its own language.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Final

from replay.engine import InputError
from replay.sources.common import valid_match_id

#: In a list given a sheet at a time: the sheet's own (its printed names, its own match id).
OWN: Final = "-"
#: A batch's or a file's sheets named by hand (``import scan --players``): one pair for every sheet, a list
#: (the k-th sheet's, None for its own), or, from a list of ``ID,A,B`` lines, a mapping by the sheet's
#: match id (as read, or as ``--match`` gives it; a sheet not in it keeps its own).
Players = tuple[str, str] | list[tuple[str, str] | None] | Mapping[str, tuple[str, str] | None] | None


def pair(text: str) -> tuple[str, str] | None:
    """``A,B``: two different names, else None."""
    names = [n.strip() for n in text.split(",")]
    if len(names) != 2 or not all(names) or names[0] == names[1]:
        return None
    return names[0], names[1]


def sheet_players(text: str) -> tuple[str, str] | None:
    """One sheet's players as a list gives them: ``A,B``, or ``-`` (None: the names printed on it).
    ValueError when it is neither."""
    if text.strip() == OWN:
        return None
    names = pair(text)
    if names is None:
        raise ValueError(text)
    return names


def given_match(text: str) -> str | None:
    """One sheet's match id as given by hand: a match id, or ``-`` (None: the sheet's own). ValueError
    when it is neither."""
    text = text.strip()
    if text == OWN:
        return None
    if not valid_match_id(text):
        raise ValueError(text)
    return text


#: The most of a list read (a line a sheet: far more than any stack of sheets).
MAX_LIST: Final = 1024 * 1024


@dataclass(frozen=True, slots=True)
class ByMatch:
    """A list of ``ID,A,B`` lines: each sheet's names by its match id (None: the names printed on it), and
    the line that gave each id. Every sheet read needs its line, and every line its sheet."""

    names: dict[str, tuple[str, str] | None] = field(default_factory=dict)
    lines: dict[str, int] = field(default_factory=dict)


def players_list(
    text: str, *, file: str | None = None, field: str | None = None
) -> list[tuple[str, str] | None] | ByMatch:
    """A list of players, a line a sheet: either a pair of names a line in the batch's order (``A,B``;
    ``-`` for a sheet's own printed names), or a sheet's match id and its pair a line in any order
    (``ID,A,B``; ``ID,-``); blank lines and ``#`` comments skipped. A list of both kinds is refused: which
    sheet an order line names among sheets named by id would be a guess. InputError naming ``file`` (or
    ``field``) and the line."""
    ordered: list[tuple[str, str] | None] = []
    first_ordered = 0
    by_match = ByMatch()
    for n, raw in enumerate(text.splitlines(), 1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        parts = [f.strip() for f in line.split(",")]
        keyed = len(parts) == 3 or (len(parts) == 2 and parts[1] == OWN)
        if keyed and ordered:
            # one kind of line a list: an order line among id lines would name a sheet by a guess
            raise InputError(
                f"names a sheet by its match id (ID,A,B) but line {first_ordered} by its place in the batch "
                "(A,B): one kind of line a file, A,B and - in the batch's order, or ID,A,B and ID,- by "
                "match id",
                file=file,
                line=n,
                field=field,
            )
        if not keyed and by_match.lines:
            raise InputError(
                f"names a sheet by its place in the batch (A,B) but line {min(by_match.lines.values())} by "
                "its match id (ID,A,B): one kind of line a file, A,B and - in the batch's order, or ID,A,B "
                "and ID,- by match id",
                file=file,
                line=n,
                field=field,
            )
        if keyed:
            match = parts[0]
            if not valid_match_id(match):
                raise InputError(
                    f"{match!r} is not a match id (1-128 characters A-Z a-z 0-9 . _ : / -): a line is "
                    "ID,A,B or ID,-",
                    file=file,
                    line=n,
                    field=field,
                )
            if match in by_match.lines:
                raise InputError(
                    f"match {match} is named on line {by_match.lines[match]} already",
                    file=file,
                    line=n,
                    field=field,
                )
            try:
                names = sheet_players(",".join(parts[1:]))
            except ValueError:
                raise InputError(
                    f"match {match}: two different names after the id, ID,A,B (or ID,- for the names "
                    f"printed on the sheet), got {line!r}",
                    file=file,
                    line=n,
                    field=field,
                ) from None
            by_match.names[match] = names
            by_match.lines[match] = n
            continue
        try:
            ordered.append(sheet_players(line))
        except ValueError:
            raise InputError(
                f"two different names, A,B (or - for the names printed on the sheet), got {line!r}",
                file=file,
                line=n,
                field=field,
            ) from None
        first_ordered = first_ordered or n
    if by_match.lines:
        return by_match
    if not ordered:
        raise InputError(
            "no names in it: one line a sheet, A,B or -, or ID,A,B or ID,-", file=file, field=field
        )
    return ordered
