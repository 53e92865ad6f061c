"""The in-process backend's :class:`~streams.store.roles.Access` (ownership, ended sessions, the console's
lease, the audit log) and :class:`~streams.store.roles.Venue` (deck lists, stream tables)."""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import replace

from streams.store.base import LEASE_ACTIONS, AuditEntry
from streams.store.memory.common import MemoryBase


class MemoryAccess(MemoryBase):
    """Who may do what, and what was done (:class:`Access`, :class:`AuditLog`); the venue's data
    (:class:`Venue`)."""

    async def claim(self, matches: Sequence[str], owner: bytes) -> list[bytes]:
        return [self._owners.setdefault(m, owner) for m in matches]

    async def owners(self, matches: Sequence[str]) -> list[bytes | None]:
        return [self._owners.get(m) for m in matches]

    async def lease(
        self, match: str, console: str, action: str, seconds: float, expected: str = ""
    ) -> str | None:
        if action not in LEASE_ACTIONS:
            raise ValueError(f"not a lease action: {action!r}")
        now = time.monotonic()
        held = self._leases.get(match)
        holder = held[0] if held is not None and held[1] > now else None
        if (action == "take" and holder in (None, console)) or (
            action == "replace" and holder in (None, expected)
        ):
            self._leases[match] = (console, now + seconds)
            return console
        if action == "renew" and holder == console:
            self._leases[match] = (console, now + seconds)
        elif action == "release" and holder == console:
            self._leases.pop(match, None)
            return None
        return holder

    async def end_session(self, session: str, until: float) -> None:
        self._ended[session] = until

    async def session_ended(self, session: str) -> bool:
        until = self._ended.get(session)
        return until is not None and until + 1 > time.time()

    async def audit(self, entry: AuditEntry) -> str:
        entry_id = f"{len(self._audit) + 1}-0"
        self._audit.append(replace(entry, id=entry_id))
        return entry_id

    async def audit_log(self, *, after: str | None = None, count: int = 1000) -> list[AuditEntry]:
        start = 0 if after is None else int(after.split("-")[0])
        return self._audit[start : start + count]

    async def put_deck(self, event: str, key: str, data: bytes) -> None:
        self._decks.setdefault(event, {})[key] = data

    async def decks(self, event: str) -> dict[str, bytes]:
        return dict(sorted(self._decks.get(event, {}).items()))

    async def on_air(self, key: str) -> bytes | None:
        return self._on_air.get(key)

    async def swap_on_air(self, key: str, old: bytes | None, new: bytes) -> bool:
        if self._on_air.get(key, b"") != (old or b""):
            return False
        self._on_air[key] = new
        return True
