"""What an attacker with write access to Redis does to a match's archive (the check tests and the fault
suite use it): rewrite one archived event in place, keeping every entry id, or drop one."""

from __future__ import annotations

from typing import Any

import msgpack

from replay.engine.chain import canonical_bytes
from streams.store import RedisStore, keys


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


# --------------------------------------------------------------------------------------------------------
# The other attacks of the audit (issue 18 item 3): each is what someone with write access to Redis can do,
# with nothing but Redis commands and the formats the docs publish (plain SHA-256 chain heads included).


def penalty_game_loss(match: str, seq: int, player: str = "ash") -> dict[str, Any]:
    """A forged ``penalty`` giving ``player`` a game loss (what the audit wrote into the held events)."""
    return {"match": match, "seq": seq, "type": "penalty", "player": player, "kind": "game_loss"}


async def forge_held(store: RedisStore, match: str, seq: int, event: dict[str, Any]) -> None:
    """Write an event into the match's held (pending) hash, as the service would if it had held it."""
    await store.client.hset(store.key(match, "pending"), str(seq), canonical_bytes(event))


async def snapshot(store: RedisStore, match: str) -> dict[str, bytes | None]:
    """A copy of every key of a match (DUMP), its league index entry included: an older state, signed by
    the service, to put back later."""
    out: dict[str, bytes | None] = {}
    for key in keys.match_keys(store.prefix, match):
        out[key] = await store.client.dump(key)
    entry = keys.entry(store.prefix, match)
    out[entry] = await store.client.dump(entry)
    return out


async def put_back(store: RedisStore, saved: dict[str, bytes | None]) -> None:
    """Restore a :func:`snapshot`: the match's whole state as it was (a rollback)."""
    async with store.client.pipeline(transaction=False) as pipe:
        for key, dumped in saved.items():
            pipe.delete(key)
            if dumped is not None:
                pipe.restore(key, 0, dumped)
        await pipe.execute()


async def delete_last_event(store: RedisStore, match: str) -> int:
    """Delete the last event archived in order, and make the rest agree: the head key one lower, the
    trusted chain head recomputed over what is left (plain SHA-256, as docs/storage.md describes it).
    Returns the deleted seq."""
    from replay.engine.chain import GENESIS, link

    key = store.key(match, "events")
    entries: list[tuple[bytes, dict[bytes, bytes]]] = await store.client.xrange(key, "-", "+")
    in_order = [(i, f) for i, f in entries if i.endswith(b"-0")]
    last_id, _ = in_order[-1]
    await store.client.xdel(key, last_id)
    head = GENESIS
    for _, fields in in_order[:-1]:
        head = link(head, fields[b"e"])
    seq = int(last_id.split(b"-")[0])
    previous = int(in_order[-2][0].split(b"-")[0]) if len(in_order) > 1 else 0
    await store.client.set(store.key(match, "seq"), previous)
    await store.client.hset(store.key(match, "state"), "chain", head.hex())
    return seq


async def inject_conflict(store: RedisStore, match: str, seq: int) -> bytes:
    """Append, after the head, a different valid event reusing ``seq`` as a conflict entry (the form the
    service gives a conflicting event). Returns its bytes."""
    archived = await store.event(match, seq)
    assert archived is not None, f"{match} has no archived event at seq {seq}"
    head = int(await store.client.get(store.key(match, "seq")))
    data = canonical_bytes(forged(msgpack.unpackb(archived, raw=False)))
    await store.client.xadd(store.key(match, "events"), {"e": data, "k": "conflict"}, id=f"{head}-1")
    return data


async def swap(store: RedisStore, match: str, other: str, name: str) -> None:
    """Replace a match's ``record`` or ``board`` by another match's."""
    value = await store.client.get(store.key(other, name))
    assert value is not None, f"{other} has no {name}"
    await store.client.set(store.key(match, name), value)


async def swap_index_entry(store: RedisStore, match: str, other: str) -> None:
    """Replace a match's league index entry by another match's (its fields, under this match's name)."""
    fields = await store.client.hgetall(f"{store.shard(other)}:m:{other}")
    assert fields, f"{other} is not indexed"
    await store.client.hset(f"{store.shard(match)}:m:{match}", mapping=fields)


async def truncate_versions(store: RedisStore, match: str, keep: int) -> None:
    """Keep only the first ``keep`` versions of a finished record (and their causes)."""
    await store.client.ltrim(store.key(match, "versions"), 0, keep - 1)
    await store.client.ltrim(store.key(match, "causes"), 0, keep - 1)


async def edit_version(store: RedisStore, match: str, n: int, record: bytes) -> None:
    """Replace version ``n`` (1 is the first) by other record bytes."""
    await store.client.lset(store.key(match, "versions"), n - 1, record)
