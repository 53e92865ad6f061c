"""The playoff family: a game awaiting its playoff, its children's stubs, and parents settled from them.

A drawn game's record waits for its playoff child (docs/rules.md, "Playoffs"): the child's stub is written
when the parent starts awaiting it, withdrawn when a judge's decision makes it moot, and each finish in the
family settles the records above it (the engine's ``link_records``), each write fenced by the record's
write count and checked against its checkpoint, since another owner may be writing it too.
"""

from __future__ import annotations

import functools
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from replay import Game, link_records
from replay.engine import playoff_games, playoff_stub
from replay.records import unpack_record
from streams.ingest.index import LeagueIndex
from streams.ingest.state import MAX_ATTEMPTS, MAX_FAMILY, SHA1_NONE, MatchMemory, StoreContention, unsigned
from streams.store import Expect, IndexEntry, Stored, Tampered, tamper
from streams.store.base import is_match_id
from streams.store.checkpoint import Checkpoint, sha1


class Playoffs(LeagueIndex):
    """The playoff links of every write (:meth:`Playoffs._playoff_links`) and the settling of a family."""

    async def _final_record(self, match: str, game: Game) -> dict[str, Any]:
        """The record to store: the engine's, settled from its playoff games when it awaits one."""
        record = game.record()
        if record.get("status") == "awaiting_playoff":
            record = link_records((await self._family(match, record, {}))[0])[match]
        return record

    async def _family(
        self, top: str, record: dict[str, Any], known: Mapping[str, dict[str, Any]]
    ) -> tuple[dict[str, dict[str, Any]], dict[str, Stored]]:
        """``top`` and the playoff games of its family (its children and theirs, and where their playoff
        links point), unsigned, as ``known`` gives them or else as stored: what ``link_records`` settles;
        and each stored record as it was read, with its write count and checkpoint (what a write that
        settles it is fenced by and builds on)."""
        group: dict[str, dict[str, Any]] = {top: unsigned(record)}
        stored: dict[str, Stored] = {}
        todo = playoff_games(record)
        while todo and len(group) < MAX_FAMILY:
            child = todo.pop(0)
            if child in group:
                continue
            crec = known.get(child)
            if crec is None:
                stored[child] = await self.store.stored(child)
                crec = unpack_record(stored[child].record)
            if crec is not None:
                group[child] = unsigned(crec)
                todo.extend(playoff_games(crec))
        return group, stored

    async def _family_top(self, parent: str) -> tuple[str, dict[str, Any] | None, Stored]:
        """The top of a playoff game's family, from its parent up the stored records' parent links, and
        its record as it was read (with its write count and checkpoint)."""
        top = await self.store.stored(parent)
        name, record = parent, unpack_record(top.record)
        seen = {name}
        while record is not None and len(seen) < MAX_FAMILY:
            up = record.get("parent")
            if not isinstance(up, str) or up in seen:
                break
            read = await self.store.stored(up)
            above = unpack_record(read.record)
            if above is None:
                break
            name, record, top = up, above, read
            seen.add(up)
        return name, record, top

    async def _playoff_links(
        self, st: MatchMemory, match: str, record: dict[str, Any], *, provisional: bool
    ) -> None:
        if provisional:
            # An effect is still resolving: the record is the game with the effect resolved *so far*
            # (e.g. the first of two simultaneous knockouts: a win that the next damage event turns into
            # a draw). Settling a parent from it (once: ``child_done``) or announcing a stub from it would
            # be final, so the links wait for the effect to resolve (the next write after it).
            return
        # In this order: a drawn playoff child (it awaits its own playoff) settles its parent from the
        # chain of records that includes its own child's stub.
        await self._stub_child(st, record)
        await self._settle_family(st, match, record)
        await self._withdraw_stubs(match, record)

    async def _withdraw_stubs(self, match: str, record: dict[str, Any]) -> None:
        """A game that no longer awaits its playoff (a judge's game loss decided it): the stub of a playoff
        game it announced that never started is taken away with its index entry, as a write with its own
        signed checkpoint (no record). Else it was served as in progress forever, and ``check`` found a
        record no playoff announces (issue 32 item 11)."""
        children = record.get("children")
        if record.get("status") == "awaiting_playoff" or not isinstance(children, list):
            return
        root = record.get("parent") or match
        for child in [c for c in children if isinstance(c, str) and is_match_id(c)]:
            read = await self.store.stored(child)
            stub = unpack_record(read.record)
            of = stub.get("playoff_of") if stub is not None else None
            if (
                stub is None
                or stub.get("stub") is not True
                or not isinstance(of, Mapping)
                or of.get("parent") != root
            ):
                continue  # played (its own record), or not a stub of this family: left as it is
            view = await self._other_view(child, read, tamper.NOT_WITHDRAWN)
            if view is None:
                continue
            ck = self._next_checkpoint(view, child, None, "", None)
            drop = functools.partial(self.store.drop_record, child, writes=read.writes)
            if await self._write_other(child, read, view, ck, drop):
                await self.store.unindex(child)
            # else: its first event (or another owner) wrote it meanwhile (a game, not a stub), or the
            # store held something else (the alarm is raised)

    async def _stub_child(self, st: MatchMemory, record: dict[str, Any]) -> None:
        """A game awaiting its playoff: the child's record stub, unless the child has a record already."""
        po = record.get("playoff")
        if record.get("status") == "awaiting_playoff" and isinstance(po, Mapping):
            child = po.get("child")
            if isinstance(child, str):
                stub = playoff_stub(record, child)
                packed = self._pack(stub)
                entry = IndexEntry.from_record(stub, 0)
                # the child's first write: over nothing stored (anything there was not written by us)
                ck = self._next_checkpoint(MatchMemory(), child, packed, "", entry)
                try:
                    written = await self.store.put_record(
                        child,
                        packed,
                        if_absent=True,
                        expect=Expect(SHA1_NONE, SHA1_NONE, b"", 0),
                        checkpoint=ck.encode(),
                    )
                except Tampered as exc:
                    again = await self._stub_again(child, packed, entry) if exc.what == "checkpoint" else None
                    written = False
                    if again is None:
                        await self._alarm_other(
                            child,
                            tamper.detail(child, [tamper.STUB_OVER.format(what=exc.what)]),
                        )
                    elif again:
                        await self.store.index(entry, last=None, guess=True)
                if written:
                    self.checkpoints.note(ck)
                    self._outbox.append(ck)
                    # the child had no record: most likely nothing indexed either (the store checks)
                    await self.store.index(entry, last=None, guess=True)
                st.stubbed = child  # from now on the child has a record: writing a stub is a no-op

    async def _stub_again(self, child: str, packed: bytes, entry: IndexEntry) -> bool | None:
        """The stub of a playoff game that was withdrawn (its signed checkpoint says: no record) written
        again: a correction voided the game loss that made the playoff moot. None when the child's stored
        state is not a withdrawn stub's (the caller raises the alarm); else whether it was written."""
        read = await self.store.stored(child)
        view = MatchMemory(writes=read.writes, record_sha1=sha1(None))
        if read.record is not None or read.checkpoint is None or self._stored_problem(child, read, view):
            return None
        ck = self._next_checkpoint(view, child, packed, "", entry)
        put = functools.partial(self.store.put_record, child, packed, if_absent=True, writes=read.writes)
        return bool(await self._write_other(child, read, view, ck, put))

    async def _settle_family(self, st: MatchMemory, match: str, record: dict[str, Any]) -> None:
        """Every drawn game of this game's playoff family that its record settles (its parent, a drawn
        playoff between them, or the drawn playoffs under a root) is settled by the engine's
        link_records and stored again, fenced by the write count it was read at (its owner may be writing
        it too: then read again and settle again); this game's own record is the caller's to write."""
        parent = record.get("parent")
        if isinstance(parent, str):
            if st.child_done or record.get("status") not in ("finished", "awaiting_playoff"):
                return
        elif not record.get("children"):
            return
        for _ in range(MAX_ATTEMPTS):
            if isinstance(parent, str):
                top, top_record, top_stored = await self._family_top(parent)
                if top_record is None:
                    return  # the parent is not stored yet: it settles itself when it is
            else:
                top, top_record, top_stored = match, record, None
            group, stored = await self._family(top, top_record, {match: record})
            if top_stored is not None:
                stored[top] = top_stored
            if await self._store_settled(match, st.head, group, stored):
                break
        else:
            raise StoreContention(f"match {match}: its playoff family kept changing while it was settled")
        if isinstance(parent, str):
            st.child_done = record.get("status") == "finished"

    async def _store_settled(
        self, match: str, seq: int, group: dict[str, dict[str, Any]], stored: Mapping[str, Stored]
    ) -> bool:
        """Store the games of ``group`` that link_records settles; False if one was written meanwhile.

        Each is written over its record as read (fenced by its write count), with the next checkpoint of
        the one it holds, which must verify: a game whose stored record or checkpoint was not written by
        the service is not settled, and its alarm is raised."""
        for other, settled in link_records(group).items():
            if other == match or settled == group[other]:
                continue
            read = stored.get(other, Stored())
            view = await self._other_view(other, read, tamper.NOT_SETTLED.format(match=match))
            if view is None:
                continue
            old = view.indexed
            entry = IndexEntry.from_record(settled, old.seq if old else 0)
            packed = self._pack(settled)
            cause = self._cause(match, settled, seq)
            ck = self._next_checkpoint(view, other, packed, cause, entry)
            put = functools.partial(self.store.put_record, other, packed, writes=read.writes, cause=cause)
            written = await self._write_other(other, read, view, ck, put)
            if written is None:
                continue
            if not written:
                return False
            await self.store.index(entry, last=old, guess=True)  # just read: no second read
        return True

    async def _other_view(self, other: str, read: Stored, refused: str) -> MatchMemory | None:
        """What this process writes another match's record over (a playoff game it settles or whose stub
        it withdraws): ``read`` with its index entry, checked against its checkpoint; None when that fails
        (the alarm is raised, saying what was not done: ``refused``)."""
        old = await self.store.index_entry(other)
        view = MatchMemory(writes=read.writes, indexed=old, record_sha1=sha1(read.record))
        problem = self._stored_problem(other, read, view)
        if problem is not None:
            await self._alarm_other(other, tamper.detail(other, [problem, refused]))
            return None
        return view

    async def _write_other(
        self,
        other: str,
        read: Stored,
        view: MatchMemory,
        ck: Checkpoint,
        write: Callable[..., Awaitable[bool]],
    ) -> bool | None:
        """``write(expect=..., checkpoint=...)`` another match's record over ``view`` (fenced and compared
        by the store) with ``ck``, which then goes to the checkpoint log. Whether it was written (False:
        another writer came first); None when the store held something else (the alarm is raised)."""
        try:
            written = await write(
                expect=Expect(record=view.record_sha1, checkpoint=read.checkpoint or b""),
                checkpoint=ck.encode() if view.ck is not None else b"",
            )
        except Tampered as exc:
            await self._alarm_other(other, self._tamper_detail(view, other, exc.what))
            return None
        if written and view.ck is not None:
            self.checkpoints.note(ck)
            self._outbox.append(ck)
        return written
