"""The Redis backend's :class:`~streams.store.roles.Access` (ownership, ended sessions, the console's lease,
the audit log) and :class:`~streams.store.roles.Venue` (deck lists, stream tables). Key layout:
docs/storage.md.
"""

from __future__ import annotations

from collections.abc import Sequence

from streams.store import keys
from streams.store.base import LEASE_ACTIONS, AuditEntry
from streams.store.redis.common import RedisBase


class RedisAccess(RedisBase):
    """Who may do what, and what was done (:class:`Access`, :class:`AuditLog`); the venue's data
    (:class:`Venue`)."""

    async def claim(self, matches: Sequence[str], owner: bytes) -> list[bytes]:
        if not matches:
            return []
        # SET NX, then GET: an owner key is never changed nor deleted, so what GET reads after SET NX is
        # the one owner, even with other clients' commands in between (no transaction needed: on a
        # cluster the pipeline is split by node)
        async with self._r.pipeline(transaction=False) as pipe:
            for match in matches:
                owned = self.key(match, keys.OWNER)
                pipe.set(owned, owner, nx=True)
                pipe.get(owned)
            replies = await pipe.execute()
        return [bytes(now) for now in replies[1::2]]

    async def owners(self, matches: Sequence[str]) -> list[bytes | None]:
        return await self._each(matches, "owner")

    async def lease(
        self, match: str, console: str, action: str, seconds: float, expected: str = ""
    ) -> str | None:
        if action not in LEASE_ACTIONS:
            raise ValueError(f"not a lease action: {action!r}")
        held = await self._lease(
            keys=[self.key(match, keys.LEASE)], args=[action, console, int(seconds * 1000), expected]
        )
        return None if held is None else bytes(held).decode()

    async def end_session(self, session: str, until: float) -> None:
        await self._r.set(keys.ended(self.prefix, session), b"1", exat=max(int(until) + 1, 1))

    async def session_ended(self, session: str) -> bool:
        return bool(await self._r.exists(keys.ended(self.prefix, session)))

    async def audit(self, entry: AuditEntry) -> str:
        entry_id = await self._r.xadd(keys.audit(self.prefix), entry.fields())
        return str(entry_id.decode() if isinstance(entry_id, bytes) else entry_id)

    async def audit_log(self, *, after: str | None = None, count: int = 1000) -> list[AuditEntry]:
        start = "-" if after is None else f"({after}"
        rows = await self._r.xrange(keys.audit(self.prefix), start, "+", count=count)
        return [
            AuditEntry.from_fields(
                entry_id.decode(), {k.decode(): v.decode("utf-8", "replace") for k, v in fields.items()}
            )
            for entry_id, fields in rows
        ]

    async def put_deck(self, event: str, key: str, data: bytes) -> None:
        await self._r.hset(keys.decks(self.prefix, event), key, data)

    async def decks(self, event: str) -> dict[str, bytes]:
        raw = await self._r.hgetall(keys.decks(self.prefix, event))
        return {k.decode(): v for k, v in sorted(raw.items())}

    async def on_air(self, key: str) -> bytes | None:
        raw: bytes | None = await self._r.hget(keys.on_air(self.prefix), key)
        return raw

    async def swap_on_air(self, key: str, old: bytes | None, new: bytes) -> bool:
        done = await self._swap_on_air(keys=[keys.on_air(self.prefix)], args=[key, old or b"", new])
        return bool(int(done))
