"""The table console's writing lease (docs/console.md, "One writer"): one console writes a match at a time.

A lease belongs to an authenticated principal, never to a string the client sends: it records the token
that took it beside the console's id (:class:`Holder`), and only that token, or a judge, may act on it.

- **Authorised as a write.** Taking, renewing, handing over or taking over a lease is authorised exactly
  as writing the match is (:func:`streams.http.ownership.may_write`: table, event, namespace, owner),
  before anything changes. A match not stored yet is judged by what its id gives (its namespace); a
  token scoped to tables shows its table with the match_started, so it takes the lease of a new match
  with its first publish.
- **Held by a token and a console.** ``take`` and ``renew`` act for the asking console of the asking token
  only. ``release`` hands over the asker's own lease; the holder's token (from another console of it) or
  a judge may release another console's. ``take_over`` replaces the holder the asker saw: the same token's
  other console, or any holder for a judge, whose take-over the audit log names.
- **Never shown.** A view of the lease says whether it is held, whether the asking console holds it, and
  whether it may take it over: never another console's id or token.
- **Never renewed by a read.** ``GET /console/<m>/state`` only peeks; a console renews its lease with
  ``POST /console/<m>/lease`` (``renew``) or by publishing.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from streams.store import Access

#: Seconds a console's lease lasts without a renewal (a publish or a ``renew``).
LEASE_SECONDS = 20.0
#: What ``POST /console/<m>/lease`` accepts as its ``action``.
ACTIONS = ("take", "renew", "release", "take_over")


@dataclass(frozen=True)
class Holder:
    """Who holds a lease: the token (its id) and the console (the id the console page chose)."""

    token: str
    console: str

    def encode(self) -> str:
        """The value the store keeps (compared whole by :meth:`Store.lease`)."""
        return json.dumps([self.token, self.console], separators=(",", ":"))

    @classmethod
    def decode(cls, raw: str | None) -> Holder | None:
        """A stored holder; one written before leases named their token is nobody's (judges only)."""
        if raw is None:
            return None
        try:
            token, console = json.loads(raw)
            return cls(str(token), str(console))
        except (ValueError, TypeError):
            return cls("", raw)

    def shown(self) -> str:
        """For the audit log only (judges read it): the token and the console."""
        return f"token {self.token or '(none)'}, console {self.console}"


async def lease(
    store: Access, match: str, holder: Holder, action: str, expected: Holder | None = None
) -> Holder | None:
    """One step of ``match``'s lease for ``holder`` (``take``, ``renew``, ``release``, ``replace`` with the
    holder ``expected``, or ``peek``); the holder now."""
    raw = await store.lease(
        match, holder.encode(), action, LEASE_SECONDS, expected.encode() if expected is not None else ""
    )
    return Holder.decode(raw)


def view(held: Holder | None, me: Holder, judge: bool) -> dict[str, Any]:
    """What the asking console sees of the lease: held or not, its own or not, and whether it may take it
    over (another console of its token, or any for a judge). Never who holds it."""
    return {
        "held": held is not None,
        "mine": held == me,
        "take_over": held is not None and held != me and (judge or held.token == me.token),
    }
