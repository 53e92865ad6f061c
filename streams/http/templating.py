"""The pages' template environment and chrome: Jinja2 with autoescape, who is logged in, the page headers.

Every HTML page of the service is rendered here (:func:`render`), from ``streams/http/templates/``, by one
Jinja2 environment that escapes every value by default (decisions.md item 4): a player's or a card's name
is text wherever it lands, never markup, and a value is never read as a template (``/ui?q={{rows}}``
shows ``{{rows}}``). A page extends ``base.html``, the chrome every page shares: the favicon, the title
bar and who is looking (:class:`Viewer`: "logged in as", a log-out; a log-in link that comes back to the
same address, fragment included). New pages (the table console, scan crops) use the same environment.

Every page is in the reader's language (English, Japanese or Korean: :mod:`replay.i18n`): Jinja2's
``jinja2.ext.i18n`` gives the templates ``{% trans %}`` and ``_()``, with one environment a language (each
with its catalogue installed, so that a render never swaps the words of another).
:func:`streams.http.routes.page_lang` chooses the language (``?lang=``, the match's ``context.lang``,
``Accept-Language``, English: the same choice for a page's words and for its card names), and a page's
script gets its own messages as a JSON block (``#messages``, read by ``static/i18n.js``).

:func:`install` adds, to every response of the app, ``X-Content-Type-Options: nosniff``,
``X-Frame-Options: DENY`` and ``Referrer-Policy: same-origin``, and to HTML pages a
``Content-Security-Policy`` that allows only the service's own scripts, styles, images and connections
(no inline script, no other origin; Swagger UI's ``/docs`` also needs inline styles). It also answers a
page's errors to a browser as an HTML page (:func:`html_errors`): a logged-in user without the role sees
which role the page needs, not raw JSON.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, quote, urlencode, urlsplit, urlunsplit

import jinja2
from aiohttp import web
from babel.messages.extract import extract_javascript
from markupsafe import Markup

from replay import i18n
from replay.i18n.words import ROLES, SEVERITIES, STATUSES, said
from streams.http.access import PRINCIPAL
from streams.http.routes import ROUTES, Problem, Route, page_lang, speak
from streams.tokens import PUBLIC, Principal

TEMPLATES = Path(__file__).resolve().parent / "templates"
STATIC = Path(__file__).resolve().parent / "static"

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
def environment(lang: str = i18n.DEFAULT) -> jinja2.Environment:
    """The template environment of ``lang``: autoescaped, strict about undefined names (a typo is an
    error), with ``lang``'s catalogue installed for ``{% trans %}`` and ``_()`` (newstyle: a
    translation's ``%(name)s`` is filled and escaped by Jinja2)."""
    env = i18n.template_environment(jinja2.FileSystemLoader(TEMPLATES), lang)
    env.filters["words"] = lambda value: words(value, lang)
    env.filters["role"] = lambda value: role_words(value, lang)
    env.globals["languages"] = list(i18n.NAMES.items())
    return env


def words(value: Any, lang: str = i18n.DEFAULT) -> str:
    """A status or reason code as words in ``lang``: ``awaiting_playoff`` -> ``awaiting its playoff``."""
    code = str(value)
    if code in STATUSES or code in SEVERITIES:  # a finding's severity too (the match list's top finding)
        return said(lang, code, STATUSES, SEVERITIES)
    return code.replace("_", " ")


def role_words(role: str, lang: str = i18n.DEFAULT) -> str:
    """A token's role as the chrome names it in ``lang`` (the code where it has no words: ``admin``)."""
    return said(lang, role, ROLES)


# -------------------------------------------------------------------------------------- language
LANGUAGE: web.RequestKey[str] = web.RequestKey("language", str)


def event_language(context: Mapping[str, Any] | None) -> str | None:
    """The event's choice of language for a match's pages: its ``context.lang`` (docs/events.md), or
    None when the match_start gave none."""
    lang = (context or {}).get("lang")
    return str(lang) if lang in i18n.LANGUAGES else None


def keep_language(url: str, asked: str | None) -> str:
    """``url`` (a link of this service) with ``lang=asked`` added when the reader chose the language by
    ``?lang=``: the next page is in the same language. A language from ``Accept-Language`` needs no
    carrying; one from an event's setting belongs to that event's pages only."""
    if asked not in i18n.LANGUAGES or not url.startswith("/"):
        return url
    parts = urlsplit(url)
    query = [(k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True) if k != "lang"]
    query.append(("lang", str(asked)))
    return urlunsplit(("", "", parts.path, urlencode(query), parts.fragment))


@cache
def script_messages(script: str) -> tuple[str, ...]:
    """The messages ``static/<script>`` shows through ``_()`` (extracted with Babel, once)."""
    with (STATIC / script).open("rb") as fh:
        # a call with values, _("{n} waiting", {n}), is read as (message, None): the message is the first
        found = {
            msg[0] if isinstance(msg, tuple) else msg
            for _line, _func, msg, _comments in extract_javascript(fh, {"_": None}, [], {})
        }
    return tuple(sorted(str(msg) for msg in found if isinstance(msg, str) and msg))


@cache
def messages_json(lang: str, scripts: tuple[str, ...]) -> Markup:
    """The JSON block of the page's scripts' messages in ``lang`` (``<script type="application/json"
    id="messages">``), with ``<`` escaped so that no message can close the block."""
    table = {m: i18n.gettext(lang, m) for s in scripts for m in script_messages(s)}
    text = json.dumps(table, ensure_ascii=False, sort_keys=True)
    return Markup(text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026"))


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
    def of(cls, request: web.Request, asked: str | None = None) -> Viewer:
        principal: Principal = request.get(PRINCIPAL, PUBLIC)
        roles = tuple(r for r in _SHOWN_ROLES if r in principal.roles)
        via = "open" if principal.id == "open" else principal.via
        return cls(principal.name, roles, via, keep_language(login_url(request.path_qs), asked))


def login_url(next_path: str) -> str:
    """``/login?next=...``: the login page, back to ``next_path`` after (the page's script adds the
    address's fragment, which never reaches the server)."""
    return "/login?next=" + quote(next_path, safe="/")


#: The scripts of each page whose words are shown to a person (their messages go into the page).
PAGE_SCRIPTS: dict[str, tuple[str, ...]] = {
    "console.html": ("chrome.js", "console.js"),
    "review.html": ("chrome.js", "scan.js", "deckcheck.js", "review.js", "review-act.js"),
    "case.html": ("review.js",),
    "import.html": ("chrome.js", "import.js"),
    "overlay.html": ("overlay.js",),
    "login.html": ("login.js",),
}


def page_context(request: web.Request, template: str, setting: str | None = None) -> dict[str, Any]:
    """What every page's template gets beside its own: who is looking, the language, the messages of its
    scripts, and ``link()`` (a link that keeps a ``?lang=`` choice)."""
    lang = page_lang(request, setting)
    asked = request.query.get("lang")
    return {
        "viewer": Viewer.of(request, asked),
        "lang": lang,
        "messages": messages_json(lang, PAGE_SCRIPTS.get(template, ("chrome.js",))),
        "link": lambda url: keep_language(str(url), asked),
        "asked_lang": asked if asked in i18n.LANGUAGES else "",
    }


def render(
    request: web.Request,
    template: str,
    *,
    status: int = 200,
    headers: Mapping[str, str] | None = None,
    setting: str | None = None,
    **context: Any,
) -> web.Response:
    """``template`` rendered with ``context`` and the chrome's (``viewer``), as an HTML response, in the
    page's language (``setting``: the match's ``context.lang``, when the page is a match's)."""
    shared = page_context(request, template, setting)
    body = environment(shared["lang"]).get_template(template).render(**shared, **context)
    return web.Response(
        text=body,
        status=status,
        content_type="text/html",
        headers={"Cache-Control": "no-store", **(headers or {})},
    )


async def login_page(request: web.Request) -> web.StreamResponse:
    """GET /login: the judges' login form (a token in, a session cookie out), in the reader's language."""
    return render(request, "login.html")


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
        problem = speak(request, problem)  # the page's language: the same choice as the page's words
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
