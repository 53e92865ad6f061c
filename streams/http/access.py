"""Access control of the HTTP service: who is asking, whether the route allows it, and the audit log.

Every route of the table (:mod:`streams.http.routes`) goes through :func:`guard`:

1. a credential in the URL (``?token=``...) is refused (400): URLs end up in proxies' and browsers'
   logs, so the service never takes one there;
2. the caller is identified: ``Authorization: Bearer <token>`` (any method), else, for ``GET``/``HEAD``
   only, the judge session cookie set by ``POST /login`` (so a cookie can never write: no cross-site
   request can post events), else the public;
3. the route's roles are checked (401 without a credential, 403 with one that does not allow it; an HTML
   page sends the browser to ``/login`` instead), then a scoped token's leagues and events;
4. the audit log (``Store.audit``) gets every refused request, every write, and every read of hidden
   information, with who (token id and name), what (method and path, never the query's values), when and
   from where (the client address).

With no token book (``Access(book=None)``: ``--insecure-no-auth``, and the tests' open apps) every caller
has every role; nothing else changes (writes and hidden reads are still audited).
"""

from __future__ import annotations

import hashlib
import json
import re
import time
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qsl, quote, urljoin, urlsplit

from aiohttp import web

from replay.engine import RecordError
from replay.i18n import LANGUAGES
from replay.records import from_msgpack
from streams.http.edge import BODY_TIMEOUT, read_body
from streams.http.routes import MATCH, Handler, Problem, Route
from streams.store import AuditEntry, Store, roles
from streams.tokens import EVERYONE, PUBLIC, REFUSALS, Principal, Refused, Scope, TokenBook, redact

COOKIE = "prizecheck_session"
#: Query parameters that would carry a credential: refused, never logged with their values.
URL_CREDENTIALS = frozenset(
    {"token", "access_token", "bearer", "auth", "authorization", "session", "api_key"}
)

PRINCIPAL: web.RequestKey[Principal] = web.RequestKey("principal", Principal)
HIDDEN_SERVED: web.RequestKey[bool] = web.RequestKey("hidden_served", bool)
AUDIT_DETAIL: web.RequestKey[str] = web.RequestKey("audit_detail", str)


@dataclass
class Access:
    """The service's access policy: its token book (None: no authentication) and the audit log.

    ``secure_cookies``: mark the session cookie ``Secure`` (set it when the service is reached over
    HTTPS, e.g. behind a TLS proxy; the cookie is always ``HttpOnly`` and ``SameSite=Strict``).
    ``refusal_burst``: refused requests audited one by one per client address and 10 s window; beyond it
    they are counted and the count goes into the next entry, so a flood cannot fill Redis.
    ``max_client_requests``: requests one anonymous client address may have in progress at once (live
    streams are bounded apart, by the live hub); beyond it, 429: one client cannot take every worker of the
    service. ``max_token_requests``: the same for each token, whatever address it comes from. A request with
    a credential counts against its token's budget alone, so 200 recorders behind one venue's NAT (one
    address) each have their own; the address's budget stays for the callers without one.
    """

    store: Store
    book: TokenBook | None = None
    secure_cookies: bool = False
    refusal_burst: int = 20
    max_client_requests: int = 128
    max_token_requests: int = 64
    _refusals: dict[str, tuple[float, int, int]] = field(default_factory=dict)
    _inflight: Counter[str] = field(default_factory=Counter)

    @property
    def open(self) -> bool:
        return self.book is None

    def begin(self, client: str, *, token: bool = False) -> None:
        """A request of ``client`` starts (429 when it has its budget in progress): ``client`` is
        :func:`budget_of` the request, a token's (``token``) or an address's."""
        limit = self.max_token_requests if token else self.max_client_requests
        if self._inflight[client] >= limit:
            wait = {"Retry-After": "1"}
            if token:
                raise Problem.said(
                    429,
                    "too_many_requests",
                    "this token has {limit} requests in progress already",
                    limit=limit,
                    headers=wait,
                )
            raise Problem.said(
                429,
                "too_many_requests",
                "this address has {limit} requests in progress already",
                limit=limit,
                headers=wait,
            )
        self._inflight[client] += 1

    def end(self, client: str) -> None:
        """A request of ``client`` is over."""
        self._inflight[client] -= 1
        if self._inflight[client] <= 0:
            del self._inflight[client]

    async def identify(self, request: web.Request, *, cookie_writes: bool = False) -> Principal:
        """The caller; :class:`Refused` for a bearer token that is not good (a bad cookie is ignored:
        the caller is then the public, and a page sends them to the login). The session cookie is read
        for reads, and for a ``cookie_writes`` route's writes sent from the service's own page."""
        if self.book is None:
            return EVERYONE
        header = request.headers.get("Authorization")
        if header is not None:
            scheme, _, value = header.partition(" ")
            if scheme.lower() != "bearer" or not value.strip():
                raise Refused("Authorization must be 'Bearer <token>'", "bad_token")
            return self.book.check(value.strip())
        if request.method in ("GET", "HEAD") or (cookie_writes and from_own_page(request)):
            cookie = request.cookies.get(COOKIE)
            if cookie:
                return await self.session(cookie) or PUBLIC
        return PUBLIC

    async def session(self, cookie: str) -> Principal | None:
        """The judge of a session cookie: None when it is forged, stale, of a token no longer valid, or
        ended by a logout (kept in the store, so every process of the service honours it)."""
        assert self.book is not None
        try:
            principal = self.book.check_session(cookie)
        except Refused:
            return None
        if await self.store.session_ended(session_digest(cookie)):
            return None
        return principal

    async def audit(
        self, request: web.Request, action: str, principal: Principal, *, target: str = "", detail: str = ""
    ) -> None:
        """Append one entry; a store failure here never turns an answered request into an error."""
        entry = AuditEntry(
            action=action,
            actor=principal.id
            if principal.id in ("public", "open")
            else f"{principal.id} ({principal.name})",
            target=redact(target or describe(request)),
            origin=request.remote or "",
            detail=redact(detail),
            at=time.time(),
        )
        try:
            await self.store.audit(entry)
        except Exception:  # the store is down: the request itself reports that when it needs the store
            request.app.logger.warning("audit log unavailable: %s %s", entry.action, entry.target)

    async def refused(self, request: web.Request, principal: Principal, status: int, reason: str) -> None:
        origin = request.remote or ""
        now = time.monotonic()
        start, logged, skipped = self._refusals.get(origin, (now, 0, 0))
        if now - start > 10.0:
            start, logged = now, 0
        if logged >= self.refusal_burst:
            self._refusals[origin] = (start, logged, skipped + 1)
            return
        if len(self._refusals) > 10_000:
            self._refusals.clear()
        self._refusals[origin] = (start, logged + 1, 0)
        more = f" (+{skipped} similar refusals from this address not logged one by one)" if skipped else ""
        await self.audit(request, "refused", principal, detail=f"{status} {reason}{more}")


def budget_of(request: web.Request, principal: Principal) -> tuple[str, bool]:
    """Whose budget of requests in progress a request counts against (:meth:`Access.begin`), and whether
    it is a token's: its token's when it came with a credential (a bearer token or a judge's session),
    else its client address's."""
    if principal.via in ("bearer", "session"):
        return f"token {principal.id}", True  # (never an address: those are IPs or paths)
    return request.remote or "", False


def describe(request: web.Request) -> str:
    """``METHOD path`` plus the names (never the values) of the query parameters."""
    names = sorted(set(request.query.keys()))
    return f"{request.method} {request.path}" + (f" ?{'&'.join(names)}" if names else "")


ACCESS: web.AppKey[Access] = web.AppKey("access", Access)


async def match_scope(store: roles.Reader, match: str) -> Scope:
    """A match's league, event and table, for scoped tokens: its stored record's context; a playoff
    game's are its parent's where its own context names none (streams/http/ownership.py: they may not
    differ)."""
    (scope,) = await match_scopes(store, [match])
    return scope


async def match_scopes(store: roles.Reader, matches: Sequence[str]) -> list[Scope]:
    """:func:`match_scope` of many matches, their records read in one round trip (and their parents')."""
    records = [_context(data) for data in await store.records(matches)] if matches else []
    parents = sorted({p for *_, p in records if p is not None} - set(matches))
    above = dict(zip(parents, [_context(d) for d in await store.records(parents)], strict=True))
    known = {**dict(zip(matches, records, strict=True)), **above}
    out: list[Scope] = []
    for league, event, table, parent in records:
        if parent is not None and parent in known:
            top_league, top_event, top_table, _ = known[parent]
            if (league, event) == (None, None):
                league, event = top_league, top_event
            table = top_table  # a playoff game is played at its parent's table
        out.append((league, event, table))
    return out


def _context(data: bytes | None) -> tuple[str | None, str | None, str | None, str | None]:
    """A stored record's league, event, table and parent (None where it has none, or is unreadable)."""
    if data is None:
        return None, None, None, None
    try:
        record = from_msgpack(data)
    except RecordError:  # an unreadable record is in no one's scope
        return None, None, None, None
    context = record.context or {}
    league, event, table = (_text(context.get(k)) for k in ("league", "event", "table"))
    return league, event, table, record.parent or None


def _text(value: Any) -> str | None:
    return None if value is None else str(value)


#: Records read at a time when a scoped count goes over matches one by one.
SCOPE_CHUNK = 500


async def scoped_matches(store: Store, principal: Principal) -> list[str]:
    """The indexed matches inside a scoped token's scope (what its counts count): those of its leagues
    (the league index), then each one's league and event checked (:func:`match_scopes`, which also finds
    playoff games whose own context names no league), a chunk of records at a time."""
    if principal.leagues:
        names: set[str] = set()
        for league in principal.leagues:
            names.update(await store.matches(league=league))
        every = await store.matches()
        names.update(m for m in every if _root(m) in names)  # playoff games indexed without a league
        candidates = sorted(names)
    else:
        candidates = await store.matches()
    out: list[str] = []
    for i in range(0, len(candidates), SCOPE_CHUNK):
        chunk = candidates[i : i + SCOPE_CHUNK]
        out += [
            m
            for m, scope in zip(chunk, await match_scopes(store, chunk), strict=True)
            if principal.covers(*scope)
        ]
    return out


def _root(match: str) -> str:
    head, sep, tail = match.rpartition("/tb")
    return head if sep and tail.isdigit() else match


def presented(exc: Refused) -> Principal:
    """Who a refused credential claimed to be, for the audit log (the token's id when it names one)."""
    return Principal(id=exc.token_id or "unknown", name="presented token", roles=frozenset())


def guard(route: Route, handler: Handler) -> Handler:
    """``handler`` behind the route's roles, the scope of the caller's token, and the audit log."""
    allowed = route.roles

    async def guarded(request: web.Request) -> web.StreamResponse:
        access = request.app[ACCESS]
        credentials = URL_CREDENTIALS.intersection(k.lower() for k in request.query)
        if credentials:
            await access.refused(request, PUBLIC, 400, "credential in the URL")
            raise Problem.said(
                400,
                "credential_in_url",
                "credentials are never accepted in a URL ({names}): "
                "send 'Authorization: Bearer <token>', or log in at /login",
                names=", ".join(sorted(credentials)),
            )
        try:
            principal = await access.identify(request, cookie_writes=route.cookie_writes)
        except Refused as exc:
            await access.refused(request, presented(exc), 401, exc.reason)
            raise Problem.reading(
                401,
                exc.code,
                REFUSALS,
                exc.reason,
                headers={"WWW-Authenticate": 'Bearer error="invalid_token"'},
            ) from None
        request[PRINCIPAL] = principal
        if not principal.may(allowed):
            anonymous = principal.via == "none"
            status = 401 if anonymous else 403
            roles = " or ".join(sorted(allowed))
            await access.refused(request, principal, status, f"needs role {roles}")
            if route.page and anonymous:  # the login in the language the page was asked in (?lang=)
                lang = request.query.get("lang")
                keep = f"&lang={lang}" if lang in LANGUAGES else ""
                raise web.HTTPSeeOther(f"/login?next={quote(request.path_qs, safe='/')}{keep}")
            if anonymous:
                raise Problem.said(
                    401,
                    "unauthorized",
                    "{method} {path} needs a token with the role {roles}",
                    method=route.method,
                    path=route.path,
                    roles=roles,
                    headers={"WWW-Authenticate": "Bearer"},
                )
            raise Problem.said(
                403, "forbidden", "token {id} does not have the role {roles}", id=principal.id, roles=roles
            )
        match = request.get(MATCH)
        # public is public to all; a match not stored yet has no scope of its own: the token may go on to
        # create it when the id is in its namespace (its events are then checked against its scope,
        # ownership.py)
        if (
            principal.scoped
            and match is not None
            and "public" not in allowed
            and not principal.covers(*await match_scope(access.store, match))
            and not (principal.may_create(match) and await access.store.record(match) is None)
        ):
            await access.refused(request, principal, 403, f"match {match} outside the token's scope")
            raise Problem.said(
                403,
                "out_of_scope",
                "match {match} is outside this token's scope ({scope})",
                match=match,
                scope=principal.scope_text(),
            )
        client, token = budget_of(request, principal)
        if not route.stream:  # live streams are bounded by the live hub
            access.begin(client, token=token)
        try:
            response = await handler(request)
        finally:
            if not route.stream:
                access.end(client)
        ok = response.status < 400
        if ok and (route.hidden or request.get(HIDDEN_SERVED)):
            await access.audit(request, "read_hidden", principal, detail=request.get(AUDIT_DETAIL, ""))
        elif route.audited:
            await access.audit(
                request, "write", principal, detail=f"{response.status} {request.get(AUDIT_DETAIL, '')}"
            )
        return response

    return guarded


# ------------------------------------------------------------------------------------------ login
#: The most a login body may hold (a token and a path: a few hundred bytes).
LOGIN_BODY = 16 * 1024
#: What ``next`` may hold: a path (and query) of this service, in the characters a URL keeps as they are.
_NEXT = re.compile(r"/(?![/\\])[A-Za-z0-9\-._~!$&'()*+,;=:@/%?#]{0,1023}")
_NEXT_BASE = "http://prizecheck.invalid/"


def session_digest(cookie: str) -> str:
    """What the store keeps of an ended session: a digest of its cookie, never the cookie."""
    return hashlib.sha256(cookie.encode("utf-8", "surrogatepass")).hexdigest()


def safe_next(raw: object) -> str:
    """Where to go after logging in: a path on this service only (no open redirect), ``/ui`` otherwise.

    Judged as a browser reads it: browsers drop tabs and newlines from a URL and read ``\\`` as ``/``,
    so ``/\\t/evil.example`` or ``/\\evil.example`` would leave the service (``//evil.example``). Only a
    path of URL characters that cannot change meaning is kept (no control character, space or backslash
    anywhere; not ``//``), and it must still resolve to this service.
    """
    text = raw if isinstance(raw, str) else ""
    if not _NEXT.fullmatch(text):
        return "/ui"
    parts = urlsplit(urljoin(_NEXT_BASE, text))
    if f"{parts.scheme}://{parts.netloc}/" != _NEXT_BASE:
        return "/ui"
    return text


def cross_origin(request: web.Request) -> str | None:
    """Why a login or logout request does not come from this service's own pages, or None.

    A browser says where a request comes from: ``Sec-Fetch-Site`` (must be ``same-origin``) and
    ``Origin`` (must name this host). A page of another site that posts a form to /login (login CSRF:
    the visitor's browser logged in with the attacker's token) or /logout is refused. A request with
    neither header is not a browser's (curl, a script): no other site can make it.
    """
    site = request.headers.get("Sec-Fetch-Site")
    if site is not None and site.strip().lower() not in ("same-origin", "none"):
        return f"Sec-Fetch-Site is {site[:40]!r}"
    origin = request.headers.get("Origin")
    if origin is None:
        return None
    parts = urlsplit(origin.strip())
    hosts = {h.strip().lower() for h in (request.host, request.headers.get("X-Forwarded-Host", "")) if h}
    if parts.scheme not in ("http", "https") or parts.netloc.lower() not in hosts:
        return f"Origin {origin[:80]!r} is not this service"
    return None


def from_own_page(request: web.Request) -> bool:
    """Whether a browser says this request comes from one of the service's own pages: ``Sec-Fetch-Site:
    same-origin`` and an ``Origin`` naming this host, both present. Only then does a route that takes
    the judge's session for a write (``Route.cookie_writes``: the import page) read the cookie; a request
    of another site, or one without these headers, is the public's (the session cookie is also
    ``SameSite=Strict``)."""
    site = request.headers.get("Sec-Fetch-Site", "").strip().lower()
    return (
        site == "same-origin" and request.headers.get("Origin") is not None and cross_origin(request) is None
    )


async def _same_origin_only(request: web.Request, what: str) -> None:
    why = cross_origin(request)
    if why is not None:
        await request.app[ACCESS].refused(request, PUBLIC, 403, f"{what} from another site ({why})")
        raise Problem.said(
            403,
            "cross_origin",
            "{what} is accepted only from this service's own pages ({why})",
            what=what,
            why=why,
        )


async def _login_form(request: web.Request) -> Mapping[str, Any]:
    """The login's fields: a form (urlencoded) or a JSON object, read within the body timeout."""
    if request.content_length is not None and request.content_length > LOGIN_BODY:
        raise Problem.said(413, "body_too_large", "a login body is at most {n} bytes", n=LOGIN_BODY)
    body = await read_body(request, request.app.get(BODY_TIMEOUT, 30.0), LOGIN_BODY)
    if request.content_type == "application/json":
        try:
            form = json.loads(body)
        except ValueError:
            raise Problem.said(400, "bad_body", "the body is not JSON") from None
        if not isinstance(form, dict):
            raise Problem.said(400, "bad_body", "the body must be a JSON object")
        return form
    if request.content_type not in ("application/x-www-form-urlencoded", "application/octet-stream", ""):
        raise Problem.said(
            415, "unsupported_media_type", "send the token as a form (x-www-form-urlencoded) or as JSON"
        )
    try:
        pairs = parse_qsl(body.decode("utf-8"), keep_blank_values=True, max_num_fields=16)
    except (UnicodeDecodeError, ValueError):
        raise Problem.said(400, "bad_body", "the body is not a form") from None
    return dict(pairs)


async def login(request: web.Request) -> web.Response:
    """POST /login (form or JSON ``token``, ``next``): a good token sets the session cookie. Refused
    from another site's pages (login CSRF)."""
    access = request.app[ACCESS]
    await _same_origin_only(request, "POST /login")
    form = await _login_form(request)
    token = form.get("token")
    if not isinstance(token, str) or not token.strip():
        raise Problem.said(400, "bad_body", "no token given")
    if access.book is None:
        return web.json_response(
            {"ok": True, "next": safe_next(form.get("next")), "roles": sorted(EVERYONE.roles)}
        )
    try:
        principal = access.book.check(token.strip())
    except Refused as exc:
        await access.refused(request, presented(exc), 401, f"login: {exc.reason}")
        raise Problem.reading(401, exc.code, REFUSALS, exc.reason) from None
    value, ttl = access.book.open_session(principal)
    response = web.json_response(
        {"ok": True, "next": safe_next(form.get("next")), "roles": sorted(principal.roles)}
    )
    response.set_cookie(
        COOKIE,
        value,
        max_age=int(ttl),
        path="/",
        httponly=True,
        samesite="Strict",
        # Secure over HTTPS, also behind a TLS-terminating proxy (a forged header only adds the flag)
        secure=access.secure_cookies or request.secure or request.headers.get("X-Forwarded-Proto") == "https",
    )
    response.headers["Cache-Control"] = "no-store"
    await access.audit(request, "login", principal, detail=f"session of {int(ttl)} s")
    return response


async def logout(request: web.Request) -> web.Response:
    """POST /logout: the session ends on the server (its cookie is refused from now on, by every process
    of the service, until it would have expired) and the cookie is cleared. Refused from another site."""
    access = request.app[ACCESS]
    await _same_origin_only(request, "POST /logout")
    cookie = request.cookies.get(COOKIE)
    if cookie and access.book is not None:
        principal = await access.session(cookie)
        if principal is not None:
            until = float(cookie.split(".")[1])
            await access.store.end_session(session_digest(cookie), until)
            await access.audit(request, "logout", principal, detail="session ended")
    response = web.json_response({"ok": True})
    response.del_cookie(COOKIE, path="/")
    response.headers["Cache-Control"] = "no-store"
    return response
