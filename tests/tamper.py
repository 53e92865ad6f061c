"""What an attacker with write access to Redis does to a match's archive (the check tests and the fault
suite use it): rewrite one archived event in place, keeping every entry id, or drop one."""

from __future__ import annotations

from typing import Any

import msgpack

from replay.engine.chain import canonical_bytes
from streams.store import RedisStore


def forged(event: dict[str, Any]) -> dict[str, Any]:
    """A still-valid event that says something else: one card more drawn or moved, else another time."""
    out = dict(event)
    if isinstance(out.get("count"), int):
        out["count"] = out["count"] + 1
    else:
        out["at"] = "2001-01-01T00:00:00Z"
    return out


async def rewrite_event(store: RedisStore, match: str, seq: int) -> tuple[bytes, bytes]:
    """Replace the archived event at ``<seq>-0`` by a forged one, every entry keeping its id (a stream entry
    cannot be edited: the stream is written again). Returns (old bytes, new bytes)."""
    key = store.key(match, "events")
    entries: list[tuple[bytes, dict[bytes, bytes]]] = await store.client.xrange(key, "-", "+")
    target = f"{seq}-0".encode()
    old = new = b""
    rows: list[tuple[bytes, dict[bytes, bytes]]] = []
    for entry_id, fields in entries:
        if entry_id == target:
            old = fields[b"e"]
            new = canonical_bytes(forged(msgpack.unpackb(old, raw=False)))
            fields = {**fields, b"e": new}
        rows.append((entry_id, fields))
    assert old, f"{match} has no archived event at seq {seq}"
    async with store.client.pipeline(transaction=True) as pipe:
        pipe.delete(key)
        for entry_id, fields in rows:
            pipe.xadd(key, fields, id=entry_id)
        await pipe.execute()
    return old, new


async def drop_event(store: RedisStore, match: str, seq: int) -> None:
    """Delete the archived event at ``<seq>-0`` (the head key is left as it was)."""
    deleted = await store.client.xdel(store.key(match, "events"), f"{seq}-0")
    assert deleted == 1, f"{match} has no archived event at seq {seq}"
