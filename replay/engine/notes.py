"""Annotations for dispute review (``note``); an importer's note carrying a ``finding`` becomes one.

The note's text is free text (it may name a card of a hand): the finding's public message only says that
the source reported it; the text is its ``detail``, for judges. A code that is not one the project's
importers use (``SOURCE_FINDINGS``) is the producer's own text as well: the finding is ``source_finding``,
the code in its detail.
"""

from __future__ import annotations

from collections.abc import Mapping

from replay.engine import findings as F
from replay.engine.findings import SEVERITY, SOURCE_FINDING, SOURCE_FINDINGS, say
from replay.engine.state import Event, State


def on_note(g: State, e: Event) -> None:
    f = e.get("finding")
    if not isinstance(f, Mapping) or not isinstance(f.get("code"), str):
        return
    sev = f.get("severity") if f.get("severity") in ("info", "warning", "violation") else "info"
    code = str(f["code"])
    text = str(e.get("text", ""))
    line = f.get("line")
    where = say(F.NOTE_LINE, line=line) if type(line) is int else ""
    if code in SOURCE_FINDINGS or code in SEVERITY:
        message = say(F.NOTE_FINDING, where=where)
        g.find(code, e["seq"], message, str(sev), text)
    else:
        message = say(F.NOTE_OWN_FINDING, where=where)
        g.find(SOURCE_FINDING, e["seq"], message, str(sev), f"{code}: {text}")
