"""Who may do what: roles, bearer tokens stored as hashes, and judge sessions (docs/http-api.md, "Access").

Roles (:data:`ROLES`):

- ``ingest``: may write events (one token per producer, so the audit log names it);
- ``judge``: may read everything, hidden cards included (the archive, the review pages);
- ``organizer``: records, reports, the index and the service's counters; no hidden card;
- ``recorder``: the table console (``/console/{match}``, docs/console.md): records a paper game live,
  writing the events of the matches it creates (scoped to leagues or events like the others, and to
  tables of an event: ``--event E --table 12`` records only the games at table 12 of event E);
- ``stream``: a stream crew's Stream Deck: the actions of the stream slots (``POST /slots/{slot}/...``,
  docs/web.md), scoped to the slots of its events like the others;
- ``public``: needs no credential: the overlay, the live public board, public records and the index.

``admin`` is every role at once (the embedded server's local token). A token may be scoped to leagues
and/or events (a match's ``context.league`` / ``context.event``): it then acts only on matches inside them.
A scope may also name tables (``context.table``), within its events only (table numbers repeat from one
event to the next): it then acts only on the matches at those tables.

Tokens are ``pc_<id>_<secret>``: 12 hex digits naming the entry, then 32 random bytes (base64url). Only an
HMAC-SHA256 of the whole token, keyed by a random salt of its own, is stored. Why not argon2: argon2 makes
guessing a *human-chosen password* from its hash slow; these secrets are 256 random bits, so guessing is
out of reach whatever the hash, and a slow hash would only cost ~50 ms of CPU on every request (and hand
anyone a way to burn it with bad tokens). A keyed SHA-256 checks in microseconds, and the entry's id
finds the one hash to compare (in constant time).

The token book is a JSON file (``PRIZECHECK_TOKENS_FILE``, default ``<data dir>/tokens.json``, written by
``prizecheck token create|revoke``) and/or entries in ``PRIZECHECK_TOKENS`` (the same JSON, for
containers). The service re-reads the file when it changes: a revocation takes effect within a second.
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import hmac
import json
import logging
import os
import re
import secrets
import tempfile
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from replay.engine import InputError
from replay.i18n import N_, Joined, Phrase
from streams.roles import ADMIN, GRANTABLE, ROLES

log = logging.getLogger("prizecheck.tokens")


_TOKEN = re.compile(r"pc_([0-9a-f]{12})_([A-Za-z0-9_-]{43})")
# <token id>.<expiry>.<nonce>.<mac>: the nonce makes every login its own session (a logout ends that one)
_SESSION = re.compile(r"([0-9a-f]{12})\.([0-9]{1,12})\.([0-9a-f]{16})\.([A-Za-z0-9_-]{43})")
#: Anything in a URL or a log line that looks like a token or a session (redacted before it is logged).
SECRET_LIKE = re.compile(
    r"pc_[0-9a-f]{12}_[A-Za-z0-9_-]{10,}|[0-9a-f]{12}\.[0-9]{1,12}\.(?:[0-9a-f]{16}\.)?[A-Za-z0-9_-]{43}"
)


def redact(text: str) -> str:
    """``text`` with anything that looks like a token or a session value replaced by ``<redacted>``."""
    return SECRET_LIKE.sub("<redacted>", text)


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def namespace(match: str) -> str | None:
    """The namespace of a match id: its part before the first ``/`` (``L1`` for ``L1/r1-t4`` and for its
    playoff game ``L1/r1-t4/tb1``), or None for an id without one. A scoped token creates matches only in
    the namespaces of its leagues and events (streams/http/ownership.py)."""
    head, sep, _ = match.partition("/")
    return head if sep else None


#: A match's league, event and table (its ``context``), as far as a token's scope is concerned.
Scope = tuple[str | None, str | None, str | None]


@dataclass(frozen=True)
class Principal:
    """Who is asking: a token's entry (or the public). ``roles`` is already expanded (admin = all)."""

    id: str
    name: str
    roles: frozenset[str]
    leagues: tuple[str, ...] = ()
    events: tuple[str, ...] = ()
    tables: tuple[str, ...] = ()  # within ``events`` (a table scope always names its events)
    via: str = "none"  # "bearer", "session" or "none"

    @property
    def scoped(self) -> bool:
        """True when the token acts only on some leagues or events."""
        return bool(self.leagues or self.events)

    def may(self, allowed: Iterable[str]) -> bool:
        """Whether one of ``allowed`` is among this principal's roles (``public`` allows anyone)."""
        return any(r == "public" or r in self.roles for r in allowed)

    def covers(self, league: str | None, event: str | None, table: str | None = None) -> bool:
        """Whether a match with this league, event and table is inside the token's scope."""
        if self.leagues and league not in self.leagues:
            return False
        if self.tables and table not in self.tables:
            return False
        return not (self.events and event not in self.events)

    def may_create(self, match: str) -> bool:
        """Whether ``match``, not yet stored, is an id this token may create: any id for an unscoped
        token, else one in the namespace of one of its leagues or events (what its match_started must
        then name: streams/http/ownership.py checks that when the events come)."""
        return not self.scoped or namespace(match) in (*self.leagues, *self.events)

    def scope_text(self) -> str:
        """The scope in words (English; a :class:`~replay.i18n.Phrase` an error says again in the
        reader's language)."""
        parts: list[object] = []
        if self.leagues:
            parts.append(Phrase("leagues {names}", names=", ".join(self.leagues)))
        if self.events:
            parts.append(Phrase("events {names}", names=", ".join(self.events)))
        if self.tables:
            parts.append(Phrase("tables {names}", names=", ".join(self.tables)))
        return Joined("; ", parts) if parts else Phrase("everything")


PUBLIC = Principal(id="public", name="public", roles=frozenset({"public"}))
#: Everyone, when the service runs with ``--insecure-no-auth`` (and in the tests' open apps).
EVERYONE = Principal(id="open", name="no authentication", roles=frozenset(ROLES))


@dataclass(frozen=True)
class TokenEntry:
    """One stored token: never the token itself, only its salted HMAC."""

    id: str
    name: str
    roles: tuple[str, ...]
    salt: str
    digest: str
    created: float
    expires: float | None = None
    revoked: float | None = None
    leagues: tuple[str, ...] = ()
    events: tuple[str, ...] = ()
    tables: tuple[str, ...] = ()

    def as_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "name": self.name,
            "roles": list(self.roles),
            "leagues": list(self.leagues),
            "events": list(self.events),
            **({"tables": list(self.tables)} if self.tables else {}),
            "hash": f"hmac-sha256:{self.salt}:{self.digest}",
            "created": self.created,
            "expires": self.expires,
            "revoked": self.revoked,
        }

    @classmethod
    def from_json(cls, obj: Any, where: str) -> TokenEntry:
        if not isinstance(obj, dict):
            raise InputError("a token entry must be an object", file=where)
        try:
            alg, salt, digest = str(obj["hash"]).split(":")
            roles = tuple(str(r) for r in obj["roles"])
            entry = cls(
                id=str(obj["id"]),
                name=str(obj.get("name") or obj["id"]),
                roles=roles,
                salt=salt,
                digest=digest,
                created=float(obj.get("created") or 0),
                expires=None if obj.get("expires") is None else float(obj["expires"]),
                revoked=None if obj.get("revoked") is None else float(obj["revoked"]),
                leagues=tuple(str(x) for x in obj.get("leagues") or ()),
                events=tuple(str(x) for x in obj.get("events") or ()),
                tables=tuple(str(x) for x in obj.get("tables") or ()),
            )
        except (KeyError, TypeError, ValueError):
            raise InputError(f"token entry {obj.get('id')!r} is malformed", file=where) from None
        if alg != "hmac-sha256" or not re.fullmatch(r"[0-9a-f]{12}", entry.id):
            raise InputError(f"token entry {entry.id!r}: unknown hash or id", file=where)
        bad = set(entry.roles) - set(GRANTABLE)
        if bad:
            raise InputError(f"token entry {entry.id!r}: unknown roles {sorted(bad)}", file=where)
        if entry.tables and not entry.events:
            raise InputError(f"token entry {entry.id!r}: a table scope names its events too", file=where)
        return entry

    def expanded_roles(self) -> frozenset[str]:
        return frozenset(ROLES) if ADMIN in self.roles else frozenset(self.roles)

    def state(self, now: float) -> str:
        """``valid``, ``expired`` or ``revoked`` at ``now``."""
        if self.revoked is not None and self.revoked <= now:
            return "revoked"
        if self.expires is not None and self.expires <= now:
            return "expired"
        return "valid"


def _digest(salt: str, token: str) -> str:
    return hmac.new(bytes.fromhex(salt), token.encode(), hashlib.sha256).hexdigest()


def new_token(
    name: str,
    roles: Iterable[str],
    *,
    leagues: Iterable[str] = (),
    events: Iterable[str] = (),
    tables: Iterable[str] = (),
    expires: float | None = None,
    now: float | None = None,
) -> tuple[str, TokenEntry]:
    """A fresh token and its entry (the token is shown once and never stored). ``tables`` narrows the
    scope to those tables of ``events``, which it then needs (table numbers repeat across events)."""
    roles = tuple(dict.fromkeys(roles))
    bad = set(roles) - set(GRANTABLE)
    if not roles or bad:
        raise InputError(f"roles must be among {', '.join(GRANTABLE)}", field="role")
    events, tables = tuple(events), tuple(str(t) for t in tables)
    if tables and not events:
        raise InputError("a table scope needs the event its tables are at (--event)", field="table")
    token_id = secrets.token_hex(6)
    token = f"pc_{token_id}_{_b64(secrets.token_bytes(32))}"
    salt = secrets.token_hex(16)
    entry = TokenEntry(
        id=token_id,
        name=name,
        roles=roles,
        salt=salt,
        digest=_digest(salt, token),
        created=time.time() if now is None else now,
        expires=expires,
        leagues=tuple(leagues),
        events=events,
        tables=tables,
    )
    return token, entry


#: The sentences of a refused credential (its ``reason``): the service's pages and errors read them back
#: to answer in the reader's language (streams.http.routes.Problem.reading).
REFUSALS: tuple[str, ...] = (
    N_("malformed token"),
    N_("unknown token"),
    N_("token {id} is expired"),
    N_("token {id} is revoked"),
    N_("malformed session"),
    N_("unknown session"),
    N_("session expired: log in again"),
    N_("Authorization must be 'Bearer <token>'"),
)


class Refused(Exception):
    """A credential that was presented and is not good: ``reason`` is safe to show to the client."""

    def __init__(self, reason: str, code: str, token_id: str | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.code = code
        self.token_id = token_id


@dataclass
class TokenBook:
    """The tokens the service accepts: entries from a file (re-read when it changes) and fixed ones.

    ``fixed`` are entries from ``PRIZECHECK_TOKENS`` and the embedded server's local admin token.
    ``session_key`` signs judge sessions (cookies); sessions end when their token is revoked or expires.
    """

    path: Path | None = None
    fixed: dict[str, TokenEntry] = field(default_factory=dict)
    session_key: bytes = field(default_factory=lambda: secrets.token_bytes(32))
    session_ttl: float = 8 * 3600.0
    _from_file: dict[str, TokenEntry] = field(default_factory=dict)
    _mtime: float | None = None
    _checked: float = 0.0

    @classmethod
    def from_settings(
        cls, tokens_file: str | None, tokens_env: str | None, session_key: bytes | None
    ) -> TokenBook:
        """The book of a service: the file (if it exists) plus the entries of ``PRIZECHECK_TOKENS``."""
        book = cls(path=Path(tokens_file) if tokens_file else None)
        if session_key:
            book.session_key = session_key
        if tokens_env:
            for entry in parse_book(tokens_env, "PRIZECHECK_TOKENS"):
                book.fixed[entry.id] = entry
        book.reload(force=True)
        return book

    def reload(self, *, force: bool = False) -> None:
        """Re-read the file if it changed (at most once a second unless ``force``)."""
        now = time.monotonic()
        if not force and now - self._checked < 1.0:
            return
        self._checked = now
        if self.path is None:
            return
        try:
            mtime = self.path.stat().st_mtime
        except FileNotFoundError:
            self._from_file, self._mtime = {}, None
            return
        if mtime == self._mtime and not force:
            return
        try:
            entries = read_book(self.path)
        except InputError as exc:
            if force:  # at start: a broken token file is the operator's to fix before serving
                raise
            # while serving (a half-written edit by hand): keep the tokens in force, and try again later
            log.warning("token file unreadable, keeping the tokens in force: %s", exc)
            return
        self._from_file = {e.id: e for e in entries}
        self._mtime = mtime

    def entries(self) -> list[TokenEntry]:
        self.reload()
        return [*self._from_file.values(), *self.fixed.values()]

    def __len__(self) -> int:
        return len(self.entries())

    def _entry(self, token_id: str) -> TokenEntry | None:
        self.reload()
        return self.fixed.get(token_id) or self._from_file.get(token_id)

    def check(self, token: str, now: float | None = None) -> Principal:
        """The principal of a bearer token; :class:`Refused` when it is malformed, unknown, expired or
        revoked."""
        now = time.time() if now is None else now
        m = _TOKEN.fullmatch(token)
        if m is None:
            raise Refused("malformed token", "bad_token")
        entry = self._entry(m.group(1))
        if entry is None or not hmac.compare_digest(_digest(entry.salt, token), entry.digest):
            raise Refused("unknown token", "bad_token", m.group(1) if entry else None)
        state = entry.state(now)
        if state != "valid":
            raise Refused(f"token {entry.id} is {state}", f"token_{state}", entry.id)
        return self._principal(entry, "bearer")

    def _principal(self, entry: TokenEntry, via: str) -> Principal:
        return Principal(
            id=entry.id,
            name=entry.name,
            roles=entry.expanded_roles(),
            leagues=entry.leagues,
            events=entry.events,
            tables=entry.tables,
            via=via,
        )

    # ------------------------------------------------------------------------------------ sessions
    def open_session(self, principal: Principal, now: float | None = None) -> tuple[str, float]:
        """A session value for a cookie, and its lifetime in seconds (bounded by the token's expiry)."""
        now = time.time() if now is None else now
        entry = self._entry(principal.id)
        if entry is None:
            raise Refused("unknown token", "bad_token")
        until = now + self.session_ttl
        if entry.expires is not None:
            until = min(until, entry.expires)
        stamp = int(until)
        nonce = secrets.token_hex(8)
        return f"{entry.id}.{stamp}.{nonce}.{self._mac(entry, stamp, nonce)}", max(0.0, stamp - now)

    def check_session(self, value: str, now: float | None = None) -> Principal:
        """The principal of a session cookie; :class:`Refused` when it is forged, stale, or its token
        is no longer valid."""
        now = time.time() if now is None else now
        m = _SESSION.fullmatch(value)
        if m is None:
            raise Refused("malformed session", "bad_session")
        entry = self._entry(m.group(1))
        stamp = int(m.group(2))
        if entry is None or not hmac.compare_digest(self._mac(entry, stamp, m.group(3)), m.group(4)):
            raise Refused("unknown session", "bad_session")
        if stamp <= now:
            raise Refused("session expired: log in again", "session_expired", entry.id)
        state = entry.state(now)
        if state != "valid":
            raise Refused(f"token {entry.id} is {state}", f"token_{state}", entry.id)
        return self._principal(entry, "session")

    def _mac(self, entry: TokenEntry, stamp: int, nonce: str) -> str:
        message = f"{entry.id}.{stamp}.{nonce}.{entry.digest}".encode()
        return _b64(hmac.new(self.session_key, message, hashlib.sha256).digest())


def parse_book(text: str, where: str) -> list[TokenEntry]:
    """Entries from the JSON of a token file: ``{"tokens": [...]}`` (or a bare list)."""
    try:
        doc = json.loads(text)
    except (json.JSONDecodeError, RecursionError):
        raise InputError("not a token file (JSON)", file=where) from None
    items = doc.get("tokens") if isinstance(doc, dict) else doc
    if not isinstance(items, list):
        raise InputError('a token file is {"tokens": [...]}', file=where)
    return [TokenEntry.from_json(obj, where) for obj in items]


def read_book(path: Path) -> list[TokenEntry]:
    """The entries of a token file (InputError names the file when it cannot be read)."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return []
    except IsADirectoryError:
        raise InputError("is a directory, not a token file", file=str(path)) from None
    except OSError as exc:
        raise InputError(
            f"cannot read the token file: {(exc.strerror or str(exc)).lower()}", file=str(path)
        ) from None
    except UnicodeDecodeError:
        raise InputError("cannot read the token file: not UTF-8", file=str(path)) from None
    return parse_book(text, str(path))


def write_book(path: Path, entries: Iterable[TokenEntry]) -> None:
    """Write a token file atomically, readable by its owner only (it holds hashes, not tokens)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    doc = {"version": 1, "tokens": [e.as_json() for e in entries]}
    fd, tmp = tempfile.mkstemp(prefix=".tokens-", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            json.dump(doc, out, indent=1, sort_keys=True)
            out.write("\n")
        os.chmod(tmp, 0o600)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def revoke(entries: Iterable[TokenEntry], token_id: str, now: float | None = None) -> list[TokenEntry]:
    """The entries with ``token_id`` revoked (InputError if there is no such token)."""
    now = time.time() if now is None else now
    out: list[TokenEntry] = []
    found = False
    for e in entries:
        if e.id == token_id:
            found = True
            e = e if e.revoked is not None else replace(e, revoked=now)
        out.append(e)
    if not found:
        raise InputError(f"no token {token_id!r}", field="id")
    return out


def summary(entry: TokenEntry, now: float | None = None) -> Mapping[str, Any]:
    """What ``prizecheck token list`` shows of an entry (never the hash)."""
    now = time.time() if now is None else now
    return {
        "id": entry.id,
        "name": entry.name,
        "roles": list(entry.roles),
        "scope": {"leagues": list(entry.leagues), "events": list(entry.events), "tables": list(entry.tables)},
        "created": entry.created,
        "expires": entry.expires,
        "revoked": entry.revoked,
        "state": entry.state(now),
    }
