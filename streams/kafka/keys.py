"""The topic's key rule: every record of an event is keyed by its match (a match is owned by the worker of
one partition). A module of its own so that ``prizecheck check`` applies the workers' rule without
importing Faust."""

from __future__ import annotations


def key_refusal(key: bytes | None, match: str) -> str | None:
    """Why a record of an event of ``match`` must be quarantined for its key (None: the key is right)."""
    if key is None:
        return (
            f"record has no key: events must be keyed by their match ({match!r}), or events of one "
            "match could land in different partitions and be applied out of order"
        )
    if key != match.encode("utf-8"):
        return (
            f"record key {key!r} is not the event's match {match!r}: events must be keyed by "
            "match (a match is owned by the worker of one partition)"
        )
    return None
