"""Every Redis key and channel name the service uses, built here and nowhere else (as arq's ``constants.py``).

The layout is docs/storage.md's ("Keys"); a change here is a change of the data layout, which a store
written by an earlier version must still read: ``tests/streams/store/test_keys.py`` pins each template
byte for byte, and checks that no other module of the service spells a key.

- a match's keys: ``<p>:{<m>}:<name>`` (:func:`match_key`), one hash tag per match (one cluster slot);
- the service's own: ``<p>:{idx}:alarms``, ``<p>:{idx}:decks:<event>``, ``<p>:{idx}:on_air``,
  ``<p>:{idx}:ended:<session>``, and the audit stream ``<p>:{audit}``;
- the league index: one bucket ``<p>:{idx:<b>.<salt>}`` per :data:`INDEX_BUCKETS` (:func:`shard`),
  holding ``<bucket>:m:<m>`` (an entry), ``<bucket>:<kind>:<name>`` (a membership set) and the bucket's
  own sets (:data:`BUCKET_KEYS`);
- the live channels: ``<p>:live`` and ``<p>:live:<m>`` (pub/sub: not keys, but named the same way).

Names that are not match ids (a player, a league, an event, a session) are percent-encoded
(:func:`key_part`), so no name can reach another key.
"""

from __future__ import annotations

import functools
import re
import zlib
from urllib.parse import quote

from redis.crc import key_slot

from streams.store.base import is_match_id

_PLAIN_PART = re.compile(r"[A-Za-z0-9._-]{1,128}")

#: A match's keys, in the order the record writers' scripts take them (``KEYS[1]`` .. ``KEYS[8]`` of
#: ingest.lua, append_run.lua, record.lua and the drop step).
MATCH_KEYS = ("events", "seq", "board", "record", "pending", "state", "versions", "causes")
EVENTS, SEQ, BOARD, RECORD, PENDING, STATE, VERSIONS, CAUSES = MATCH_KEYS
#: A match's keys outside the scripts' eight: its producer, the console's lease, the cold archive's marker.
OWNER, LEASE, ARCHIVED = "owner", "lease", "archived"

#: How many buckets the league indexes are split into (docs/storage.md, "League indexes"): each bucket is
#: its own hash tag (:func:`bucket_tags`), so on a Redis Cluster the index writes spread over the nodes as
#: the buckets' slots do. A store's indexes are written with one count: changing it means indexing every
#: match again (``IngestCore.rebuild``).
INDEX_BUCKETS = 16
_SLOTS = 16384

#: A bucket's own keys (beside entries and membership sets): all matches (sorted set by id), findings by
#: code (hash), matches by findings rank (sorted set), search texts (hash), the pick lists (sets), the
#: index format it holds.
MATCHES, FINDINGS, NFINDINGS, TEXT = "matches", "findings", "nfindings", "text"
NAMES_LEAGUE, NAMES_SEASON, FORMAT = "names:league", "names:season", "format"

# A match's key, parsed (what ``prizecheck check`` finds by a scan): the names a match's data lives in.
_MATCH_KEY = re.compile(
    r"^(?P<prefix>.*):\{(?P<match>[^{}]+)\}:(?P<name>events|seq|record|board|pending|state|versions|causes)$"
)


def key_part(name: str) -> str:
    """A name (a player, a league, a season...) as one part of a Redis key name, with nothing in it that
    could reach another key: percent-encoded (UTF-8) except ``A-Z a-z 0-9 . _ -``, so ``:``, ``{``,
    ``}``, ``*``, ``%``, spaces, a newline or a NUL never appear as themselves. Names of those safe
    characters alone (the usual ones) are their own key part; the encoding is one to one."""
    if _PLAIN_PART.fullmatch(name):
        return name
    return quote(name, safe="", errors="surrogatepass")


# a match's slot -----------------------------------------------------------------------------------------
def match_key(prefix: str, match: str, name: str) -> str:
    """``<prefix>:{<match>}:<name>``: every key of a match shares its hash tag (one cluster slot)."""
    if not is_match_id(match):
        raise ValueError(f"not a match id: {match[:140]!r}")
    return f"{prefix}:{{{match}}}:{name}"


def match_keys(prefix: str, match: str) -> list[str]:
    """The match's :data:`MATCH_KEYS`, in the scripts' order."""
    return [match_key(prefix, match, n) for n in MATCH_KEYS]


def match_scan(prefix: str, name: str = "*") -> str:
    """The SCAN pattern of every match's key ``name`` (``*``: any) under ``prefix``."""
    return f"{prefix}:{{*}}:{name}"


def parse_match_key(prefix: str, key: str) -> str | None:
    """The match whose data key ``key`` is (one of :data:`MATCH_KEYS` under ``prefix``), else None: the
    service's own keys (``<p>:{idx}:...``, ``<p>:{audit}``) never end in a match key's name, so a key that
    does is a match's, even of a match named ``idx``; a pattern's ``*`` spanning a ``}`` is not a match id."""
    m = _MATCH_KEY.match(key)
    if m and m.group("prefix") == prefix and is_match_id(m.group("match")):
        return m.group("match")
    return None


def everything(prefix: str) -> str:
    """The SCAN pattern of every key under ``prefix`` (a test's clean-up)."""
    return f"{prefix}:*"


# the live channels --------------------------------------------------------------------------------------
def channel(prefix: str, match: str | None = None) -> str:
    """The live channel of one match, or the global one."""
    return f"{prefix}:live" if match is None else f"{prefix}:live:{match}"


# the service's own keys ---------------------------------------------------------------------------------
def service(prefix: str) -> str:
    """``<prefix>:{idx}``: the hash tag of the service's own keys (alarms, decks, stream tables, sessions)."""
    return f"{prefix}:{{idx}}"


def alarms(prefix: str) -> str:
    """The tamper alarms (hash: match -> what was found)."""
    return f"{service(prefix)}:alarms"


def decks(prefix: str, event: str) -> str:
    """The deck lists registered for ``event`` (hash: key -> list)."""
    return f"{service(prefix)}:decks:{key_part(event)}"


def on_air(prefix: str) -> str:
    """The stream tables' and slots' states (hash: key -> state)."""
    return f"{service(prefix)}:on_air"


def ended(prefix: str, session: str) -> str:
    """A judge session ended by a logout (string, expiring when its cookie would have)."""
    return f"{service(prefix)}:ended:{key_part(session)}"


def audit(prefix: str) -> str:
    """The audit log (stream)."""
    return f"{prefix}:{{audit}}"


# the league index ---------------------------------------------------------------------------------------
def index_bucket(match: str) -> int:
    """The index bucket of a match: CRC-32 of its id (UTF-8) modulo :data:`INDEX_BUCKETS`, the same in
    every process and every version."""
    return zlib.crc32(match.encode()) % INDEX_BUCKETS


@functools.cache
def bucket_tags(n: int) -> tuple[str, ...]:
    """The hash tags of ``n`` index buckets: bucket ``b``'s is ``idx:<b>.<salt>``, the first salt whose
    slot (CRC16, as Redis Cluster hashes a tag) lies in the ``b``-th ``n``-th of the 16,384 slots. A
    cluster whose masters hold equal runs of slots (what ``redis-cli --cluster create`` makes) then holds
    ``n / masters`` buckets each, give or take one; tags hashed at random put 7, 4 and 5 of 16 on three
    masters."""
    tags = []
    for b in range(n):
        low, high = b * _SLOTS // n, (b + 1) * _SLOTS // n
        salt = 0
        while not low <= key_slot(f"idx:{b}.{salt}".encode()) < high:
            salt += 1
        tags.append(f"idx:{b}.{salt}")
    return tuple(tags)


def buckets(prefix: str) -> list[str]:
    """Every index bucket's key stem, in bucket order."""
    return [f"{prefix}:{{{tag}}}" for tag in bucket_tags(INDEX_BUCKETS)]


def shard(prefix: str, match: str) -> str:
    """``<prefix>:{idx:<b>.<salt>}``: the index bucket of ``match`` (:func:`index_bucket`), whose hash tag
    (:func:`bucket_tags`) every index key of the match's entry and memberships shares (one slot per bucket,
    docs/storage.md)."""
    return f"{prefix}:{{{bucket_tags(INDEX_BUCKETS)[index_bucket(match)]}}}"


def entry(prefix: str, match: str) -> str:
    """The index entry of ``match`` (hash), in its bucket."""
    if not is_match_id(match):
        raise ValueError(f"not a match id: {match[:140]!r}")
    return f"{shard(prefix, match)}:m:{match}"


def entry_scan(prefix: str) -> str:
    """The SCAN pattern of every index entry under ``prefix`` (every bucket)."""
    return f"{prefix}:{{idx:*}}:m:*"


def entry_match(key: str) -> str:
    """The match an index entry's key (:func:`entry`) is of."""
    return key.split(":m:", 1)[1]


def in_bucket(bucket: str, name: str) -> str:
    """One of a bucket's own keys (:data:`MATCHES`, :data:`FINDINGS`...)."""
    return f"{bucket}:{name}"


def member_set(bucket: str, kind: str, name: str) -> str:
    """The membership set of one status, league, season or player in one bucket: the name encoded
    (:func:`key_part`), so that no name can reach another key."""
    return f"{bucket}:{kind}:{key_part(name)}"


def pick_list(bucket: str, kind: str) -> str:
    """The names of one kind (``league``, ``season``) that some entry of ``bucket`` has had (a set that only
    grows: :data:`NAMES_LEAGUE`, :data:`NAMES_SEASON`)."""
    return f"{bucket}:names:{kind}"


def scratch(bucket: str, token: str) -> tuple[str, str]:
    """Two scratch sets of one page query in ``bucket`` (page.lua deletes them before it answers)."""
    stem = f"{bucket}:scratch:{token}"
    return stem + ":a", stem + ":b"
