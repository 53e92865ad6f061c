"""Annotations for dispute review (``note``); an importer's note carrying a ``finding`` becomes one."""

from __future__ import annotations

from collections.abc import Mapping

from replay.engine.state import Event, State


def on_note(g: State, e: Event) -> None:
    f = e.get("finding")
    if isinstance(f, Mapping) and isinstance(f.get("code"), str):
        sev = f.get("severity") if f.get("severity") in ("info", "warning", "violation") else "info"
        g.find(str(f["code"]), e["seq"], str(e.get("text", "")), str(sev))
