"""The pages' template environment and chrome: Jinja2 with autoescape, who is logged in, the page headers.

Every HTML page of the service is rendered here (:func:`render`), from ``streams/http/templates/``, by one
Jinja2 environment that escapes every value by default (decisions.md item 4): a player's or a card's name
is text wherever it lands, never markup, and a value is never read as a template (``/ui?q={{rows}}``
shows ``{{rows}}``). A page extends ``base.html``, the chrome every page shares: the favicon, the title
bar and who is looking (:class:`Viewer`: "logged in as", a log-out; a log-in link that comes back to the
same address, fragment included). New pages (the table console, scan crops) use the same environment.

:func:`install` adds, to every response of the app, ``X-Content-Type-Options: nosniff``,
``X-Frame-Options: DENY`` and ``Referrer-Policy: same-origin``, and to HTML pages a
``Content-Security-Policy`` that allows only the service's own scripts, styles, images and connections
(no inline script, no other origin; Swagger UI's ``/docs`` also needs inline styles). It also answers a
page's errors to a browser as an HTML page (:func:`html_errors`): a logged-in user without the role sees
which role the page needs, not raw JSON.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any
from urllib.parse import quote

import jinja2
from aiohttp import web

from streams.http.access import PRINCIPAL
from streams.http.routes import ROUTES, Problem, Route
from streams.tokens import PUBLIC, Principal

TEMPLATES = Path(__file__).resolve().parent / "templates"

#: The pages' policy: nothing but this service's own files; no inline script or style, no frames.
PAGE_POLICY = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
    "font-src 'self'; manifest-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
)
#: Swagger UI (vendored) sets inline styles and draws its icons as data: images.
DOCS_POLICY = PAGE_POLICY.replace("style-src 'self'", "style-src 'self' 'unsafe-inline'")
POLICIES: dict[str, str] = {"/docs": DOCS_POLICY}

#: Roles as the chrome and the refusal page name them (``public`` is everyone's: not worth saying).
_SHOWN_ROLES = ("judge", "organizer", "ingest", "recorder")


@cache
def environment() -> jinja2.Environment:
    """The one template environment: autoescaped, strict about undefined names (a typo is an error)."""
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(TEMPLATES),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["words"] = words
    return env


def words(value: Any) -> str:
    """A status or reason code as words: ``awaiting_playoff`` -> ``awaiting playoff``."""
    return STATUS_WORDS.get(str(value), str(value).replace("_", " "))


STATUS_WORDS: dict[str, str] = {
    "in_progress": "in progress",
    "finished": "finished",
    "awaiting_playoff": "awaiting its playoff",
}


@dataclass(frozen=True)
class Viewer:
    """Who is looking at a page, as the chrome says it."""

    name: str
    roles: tuple[str, ...]
    via: str  # "session" (the login cookie), "bearer" (a token header), "none", or "open"
    login_url: str

    @property
    def logged_in(self) -> bool:
        return self.via == "session"

    @classmethod
    def of(cls, request: web.Request) -> Viewer:
        principal: Principal = request.get(PRINCIPAL, PUBLIC)
        roles = tuple(r for r in _SHOWN_ROLES if r in principal.roles)
        via = "open" if principal.id == "open" else principal.via
        return cls(principal.name, roles, via, login_url(request.path_qs))


def login_url(next_path: str) -> str:
    """``/login?next=...``: the login page, back to ``next_path`` after (the page's script adds the
    address's fragment, which never reaches the server)."""
    return "/login?next=" + quote(next_path, safe="/")


def render(
    request: web.Request,
    template: str,
    *,
    status: int = 200,
    headers: Mapping[str, str] | None = None,
    **context: Any,
) -> web.Response:
    """``template`` rendered with ``context`` and the chrome's (``viewer``), as an HTML response."""
    body = environment().get_template(template).render(viewer=Viewer.of(request), **context)
    return web.Response(
        text=body,
        status=status,
        content_type="text/html",
        headers={"Cache-Control": "no-store", **(headers or {})},
    )


# -------------------------------------------------------------------------------------- errors
def _page_route(request: web.Request) -> Route | None:
    """The route of the table that serves ``request``, when it is an HTML page."""
    path = request.path
    best: tuple[int, Route] | None = None
    for route in request.app[ROUTES]:
        if route.method != request.method:
            continue
        if not route.has_match:
            if route.path == path:
                best = (1_000_000, route)
            continue
        tail = path[len(route.prefix) :] if path.startswith(route.prefix) else ""
        fits = tail.endswith(route.suffix) and (len(tail) > len(route.suffix) or not route.suffix)
        if tail and fits and (best is None or len(route.suffix) > best[0]):
            best = (len(route.suffix), route)
    if best is None:
        return None
    answer = best[1].answers.get(200)
    return best[1] if answer is not None and answer.media == "text/html" else None


def wants_html(request: web.Request) -> bool:
    """A browser navigating (``Accept: text/html``), not a script asking for JSON."""
    return request.method in ("GET", "HEAD") and "text/html" in request.headers.get("Accept", "")


@web.middleware
async def html_errors(
    request: web.Request, handler: Callable[[web.Request], Awaitable[web.StreamResponse]]
) -> web.StreamResponse:
    """A page's error, asked for by a browser, as an HTML page with the same status (JSON otherwise)."""
    try:
        return await handler(request)
    except Problem as problem:
        route = _page_route(request) if wants_html(request) else None
        if route is None or problem.status < 400 or problem.status >= 500:
            raise
        needed = tuple(r for r in _SHOWN_ROLES if r in route.roles) or tuple(sorted(route.roles))
        return render(
            request,
            "refused.html",
            status=problem.status,
            headers={k: v for k, v in problem.headers.items() if k in ("WWW-Authenticate", "Retry-After")},
            problem=problem,
            needed=needed,
            route=route,
        )


# -------------------------------------------------------------------------------------- headers
async def security_headers(request: web.Request, response: web.StreamResponse) -> None:
    """The headers every answer carries, and an HTML page's Content-Security-Policy."""
    response.headers.setdefault("X-Content-Type-Options", "nosniff")
    response.headers.setdefault("X-Frame-Options", "DENY")
    response.headers.setdefault("Referrer-Policy", "same-origin")
    if response.content_type == "text/html" or request.path in POLICIES:
        response.headers.setdefault("Content-Security-Policy", POLICIES.get(request.path, PAGE_POLICY))


_INSTALLED: web.AppKey[bool] = web.AppKey("templating_installed", bool)


def install(app: web.Application) -> None:
    """Add the page headers and the HTML error pages to ``app`` (before it starts; once)."""
    if app.get(_INSTALLED):
        return
    app[_INSTALLED] = True
    app.middlewares.append(html_errors)
    app.on_response_prepare.append(security_headers)
