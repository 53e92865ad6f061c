"""A judge's names for scanned sheets (issue 39), said one way wherever they are given: the command line's
``import scan --players``, ``--players-file`` and ``--match``, and the upload page's ``players`` and
``match`` fields (``POST /import``). No image library here: both check what was typed before any photo is
read.

- a sheet's **players**: two different names, ``A,B`` (:func:`pair`); ``-`` where a list names each
  sheet: the names printed on that sheet (:data:`OWN`);
- a sheet's **match id** given by hand: a match id, or ``-`` for the one the sheet itself says
  (:func:`given_match`). The reader uses it only for a sheet that cannot name itself and refuses a sheet
  whose own id is another (:func:`replay.sources.scan.photo.import_scan`).
"""

from __future__ import annotations

from typing import Final

from replay.sources.common import valid_match_id

#: In a list given a sheet at a time: the sheet's own (its printed names, its own match id).
OWN: Final = "-"


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
