"""The route table: every HTTP route, its roles, its parameters and its answers, in one place.

Each :class:`Route` says what the OpenAPI document (:mod:`streams.http.openapi`) says about it, and
:func:`register` wires it into aiohttp so that the same description is enforced: the caller's role
(:mod:`streams.http.access`), the match id (validated here, once, for every route), the query parameters
(a bad value is a 400, never a default taken silently). A route that is not in a table is not served,
and ``tests/streams/http/test_openapi.py`` fails if the app has a route the document does not describe.

Match ids contain ``/`` (playoff games are ``m1/tb1``), so the routes under one prefix with a
``{match}`` (``/matches/{match}/record``, ``/review/{match}``...) share one aiohttp tail route and are told
apart here by their suffix, longest first. Errors are JSON everywhere: ``{"error": ..., "code": ...}``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from aiohttp import web

from replay.engine import InputError
from replay.i18n import DEFAULT, LANGUAGES, N_, choose, errors, fill, gettext, spoken
from replay.i18n.sentences import read, translate
from streams.store.base import is_match_id

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]

#: A match id, as the contract defines it (schemas/events.schema.json ``match_id``; an ECMA-262 pattern,
#: where "$" is the very end: checked here with ``is_match_id``, a full match, so "m1\n" is refused).
MATCH_PATTERN = "^[A-Za-z0-9._:/-]{1,128}$"

MATCH: web.RequestKey[str] = web.RequestKey("match", str)


#: The reason phrases of HTTP's errors (RFC 9110; Python's http.HTTPStatus, 4xx and 5xx), as aiohttp gives
#: them to an error it raises itself: quoted in an answer (``the request was refused: Bad Request``) and
#: said in the reader's language by :func:`said_again` (tests/streams/http/test_i18n_errors.py checks
#: every phrase of http.HTTPStatus is here).
HTTP_REASONS: tuple[str, ...] = (
    N_("Bad Request"),
    N_("Unauthorized"),
    N_("Payment Required"),
    N_("Forbidden"),
    N_("Not Found"),
    N_("Method Not Allowed"),
    N_("Not Acceptable"),
    N_("Proxy Authentication Required"),
    N_("Request Timeout"),
    N_("Conflict"),
    N_("Gone"),
    N_("Length Required"),
    N_("Precondition Failed"),
    N_("Request Entity Too Large"),
    N_("Request-URI Too Long"),
    N_("Unsupported Media Type"),
    N_("Requested Range Not Satisfiable"),
    N_("Expectation Failed"),
    N_("I'm a Teapot"),
    N_("Misdirected Request"),
    N_("Unprocessable Entity"),
    N_("Locked"),
    N_("Failed Dependency"),
    N_("Too Early"),
    N_("Upgrade Required"),
    N_("Precondition Required"),
    N_("Too Many Requests"),
    N_("Request Header Fields Too Large"),
    N_("Unavailable For Legal Reasons"),
    N_("Internal Server Error"),
    N_("Not Implemented"),
    N_("Bad Gateway"),
    N_("Service Unavailable"),
    N_("Gateway Timeout"),
    N_("HTTP Version Not Supported"),
    N_("Variant Also Negotiates"),
    N_("Insufficient Storage"),
    N_("Loop Detected"),
    N_("Not Extended"),
    N_("Network Authentication Required"),
    # RFC 9110's names where they differ (a newer Python's http.HTTPStatus words them so)
    N_("Content Too Large"),
    N_("Payload Too Large"),
    N_("URI Too Long"),
    N_("Range Not Satisfiable"),
    N_("Unprocessable Content"),
)
QUERY: web.RequestKey[dict[str, Any]] = web.RequestKey("query", dict)


class Problem(web.HTTPException):
    """An error answered as JSON ``{"error": message, "code": code}`` with ``status``, and ``"field"``:
    the request's field it is about, when the caller names one (``about_field``), for a program (the
    import page stops a batch whose players list cannot be read, as every file would be refused alike).

    Every error of the service is made by :meth:`said` (a sentence of the catalogues, its fields kept)
    or, where the sentence is another part's own words (a validator's, a parser's), :meth:`quoting`. The
    app's outermost middleware answers every problem in the reader's language (:func:`speak`: ``?lang=``,
    then ``Accept-Language``; the same choice as the pages'), JSON and HTML error pages alike; ``code``
    (and any other machine field) never changes with the language. ``tests/test_i18n_catalogue.py``
    fails on a problem made any other way, or from a sentence that is not a literal."""

    template: str | None = None
    fields: Mapping[str, object] = {}
    quoted: str | None = None

    def __init__(
        self,
        status: int,
        code: str,
        message: str,
        *,
        headers: Mapping[str, str] | None = None,
        about_field: str | None = None,
    ) -> None:
        self.status_code = status
        answer = {"error": message, "code": code}
        if about_field is not None:
            answer["field"] = about_field
        super().__init__(
            headers=headers, text=json.dumps(answer, ensure_ascii=False), content_type="application/json"
        )
        self.code = code
        self.message = message
        self.about_field = about_field

    @classmethod
    def said(
        cls,
        status: int,
        code: str,
        template: str,
        /,
        *,
        headers: Mapping[str, str] | None = None,
        about_field: str | None = None,
        **fields: object,
    ) -> Problem:
        """A problem whose message is ``template`` (a sentence of the catalogues) with ``fields`` filled,
        in English until :meth:`spoken` in another language."""
        problem = cls(status, code, template.format(**fields), headers=headers, about_field=about_field)
        problem.template, problem.fields = template, dict(fields)
        return problem

    @classmethod
    def quoting(
        cls,
        status: int,
        code: str,
        template: str,
        words: str | InputError,
        /,
        *,
        headers: Mapping[str, str] | None = None,
        about_field: str | None = None,
    ) -> Problem:
        """A problem whose message is another part's own words (a validator's, a parser's: English, as
        they are), ``words``; ``template`` (a sentence of the catalogues with ``{words}``) says in the
        reader's language what they are about. In English the message is ``words`` itself, as before;
        in another language the translated sentence with the words in it, said again where they are the
        contract's or the codec's (:func:`said_again`: an :class:`InputError`'s place and reason, a
        reason one of their templates wrote), else quoted as they are."""
        problem = cls(status, code, str(words), headers=headers, about_field=about_field)
        problem.template, problem.fields, problem.quoted = template, {"words": words}, str(words)
        return problem

    @classmethod
    def reading(
        cls,
        status: int,
        code: str,
        templates: Sequence[str],
        text: str,
        /,
        *,
        headers: Mapping[str, str] | None = None,
    ) -> Problem:
        """A problem whose message ``text`` another part wrote in English by one of ``templates`` (marked
        ``N_`` there): said by that template, its fields read back out of ``text``
        (replay.i18n.sentences); quoted as it is (:meth:`quoting`) when none of them wrote it."""
        found = read(tuple(templates), text)
        if found is None:  # words no template of ours wrote: as they are, never guessed
            return cls(status, code, text, headers=headers)
        template, fields = found
        return cls.said(status, code, template, headers=headers, **fields)

    @property
    def english(self) -> str:
        """The English message (what the JSON says with no language asked for)."""
        if self.template is None or self.quoted is not None:
            return self.quoted if self.quoted is not None else self.message
        return self.template.format(**self.fields)

    def spoken(self, lang: str) -> Problem:
        """This problem with its message in ``lang`` (itself when it has no template or ``lang`` is
        English); the English message is kept on it (:attr:`english`)."""
        if self.template is None or lang == DEFAULT:
            return self
        keep = {k: v for k, v in self.headers.items() if k not in ("Content-Type", "Content-Length")}
        fields = {  # a Phrase, an error, the quoted words: in lang too
            k: said_again(v, lang, quoted=k == "words" and self.quoted is not None)
            for k, v in self.fields.items()
        }
        said = Problem(
            self.status,
            self.code,
            fill(lang, gettext(lang, self.template), fields),
            headers=keep,
            about_field=self.about_field,
        )
        said.template, said.fields, said.quoted = self.template, self.fields, self.quoted
        return said


def said_again(value: object, lang: str, *, quoted: bool = False) -> object:
    """A problem's field in ``lang``: a :class:`~replay.i18n.Phrase` said again, an :class:`InputError`
    as the command line says it (replay.i18n.errors.line: its place, and the contract's or the codec's
    reason in the language), ``quoted`` words one of their templates wrote said by it (an HTTP reason
    phrase by :data:`HTTP_REASONS`); else as it is."""
    if isinstance(value, InputError):
        return errors.line(lang, value)
    if quoted and type(value) is str:
        return translate(lang, HTTP_REASONS, value) or errors.message(lang, value)
    return spoken(value, lang)


def speak(request: web.Request, problem: Problem) -> Problem:
    """``problem`` in the language of ``request`` (:func:`page_lang`): the one way an error is answered
    in a reader's language, on every route."""
    return problem.spoken(page_lang(request))


def respond(problem: Problem) -> web.Response:
    """``problem`` as a response (for a middleware that returns rather than raises)."""
    keep = {k: v for k, v in problem.headers.items() if k not in ("Content-Type", "Content-Length")}
    return web.Response(
        status=problem.status, text=problem.text, content_type="application/json", headers=keep
    )


def match_id(raw: str) -> str:
    """The one check of a match id from a URL: a clear 400 when it is not one."""
    if not is_match_id(raw):
        shown = raw if len(raw) <= 60 else raw[:57] + "..."
        raise Problem.said(
            400,
            "bad_match_id",
            "not a match id: {shown} (1 to 128 characters from A-Z a-z 0-9 . _ : / -)",
            shown=repr(shown),
        )
    return raw


@dataclass(frozen=True)
class Param:
    """A query parameter: its type, bounds or allowed values (enforced, and documented)."""

    name: str
    kind: Literal["integer", "string"] = "string"
    description: str = ""
    enum: tuple[str, ...] = ()
    minimum: int | None = None
    maximum: int | None = None
    default: Any = None
    max_length: int = 256
    blank: bool = False
    """An empty value means "not given" (the empty fields of an HTML form, as the match list's sends)."""

    def parse(self, raw: str) -> Any:
        if self.kind == "integer":
            try:
                value = int(raw)
            except ValueError:
                raise Problem.said(
                    400,
                    "bad_parameter",
                    "{name} must be an integer, got {got}",
                    name=self.name,
                    got=repr(raw[:40]),
                ) from None
            if (self.minimum is not None and value < self.minimum) or (
                self.maximum is not None and value > self.maximum
            ):
                low, high, name = self.minimum, self.maximum, self.name
                if low is not None and high is not None:
                    raise Problem.said(
                        400,
                        "bad_parameter",
                        "{name} must be from {low} to {high}, got {got}",
                        name=name,
                        low=low,
                        high=high,
                        got=value,
                    )
                if low is not None:
                    raise Problem.said(
                        400,
                        "bad_parameter",
                        "{name} must be from {low}, got {got}",
                        name=name,
                        low=low,
                        got=value,
                    )
                raise Problem.said(
                    400,
                    "bad_parameter",
                    "{name} must be to {high}, got {got}",
                    name=name,
                    high=high,
                    got=value,
                )
            return value
        if self.enum and raw not in self.enum:
            raise Problem.said(
                400,
                "bad_parameter",
                "{name} must be one of {allowed}, got {got}",
                name=self.name,
                allowed=", ".join(self.enum),
                got=repr(raw[:40]),
            )
        if not raw or len(raw) > self.max_length:
            raise Problem.said(
                400, "bad_parameter", "{name} must be 1 to {n} characters", name=self.name, n=self.max_length
            )
        return raw

    def schema(self) -> dict[str, Any]:
        out: dict[str, Any] = {"type": self.kind}
        if self.enum:
            out["enum"] = list(self.enum)
        if self.kind == "string" and not self.enum:
            out.update(minLength=1, maxLength=self.max_length)
        if self.minimum is not None:
            out["minimum"] = self.minimum
        if self.maximum is not None:
            out["maximum"] = self.maximum
        if self.default is not None:
            out["default"] = self.default
        return out


#: The languages of the pages: their words and the card names they show (replay.i18n; issue 34 items 4-5)
PAGE_LANGS = LANGUAGES
#: ``?lang=``: declared by every page a person reads and by every route that answers in words or card
#: names (the console's view and errors, the review page's battle log, the overlay's names); each reads
#: the language by :func:`page_lang`
LANG = Param(
    "lang",
    enum=PAGE_LANGS,
    description="the page's language: its words, findings and card names (en, ja, ko; else the event's "
    "context.lang, then the browser's Accept-Language, then en)",
    blank=True,
)


def page_lang(request: web.Request, setting: str | None = None) -> str:
    """The one choice of the language a request is answered in, words and card names alike: ``?lang=``,
    then ``setting`` (the match's ``context.lang``, the event's choice), then the browser's
    ``Accept-Language``, then English (replay.i18n.choose)."""
    return choose(request.query.get("lang"), setting, request.headers.get("Accept-Language"))


@dataclass(frozen=True)
class Answer:
    """One documented response: the media type and its schema (a ``$ref`` or an inline schema)."""

    description: str
    media: str = "application/json"
    schema: Mapping[str, Any] | None = None
    also: tuple[str, ...] = ()  # other media types of the same answer (msgpack on request)


@dataclass(frozen=True)
class Route:
    """One operation of the HTTP API.

    ``path`` is the OpenAPI path (``/matches/{match}/record``). ``roles``: who may call it (``public``:
    anyone). ``hidden``: it shows hidden information, so every call is in the audit log as a judge read.
    ``page``: an HTML page, where a caller who is not allowed is sent to the login page instead of a 401.
    ``answers`` are the success responses by status; the errors every route may give are added by the
    document (400, 401, 403, 404, 405, 413, 429, 503).
    """

    method: str
    path: str
    handler: Handler
    roles: frozenset[str]
    summary: str
    query: tuple[Param, ...] = ()
    answers: Mapping[int, Answer] = field(default_factory=dict)
    hidden: bool = False
    page: bool = False
    body: Mapping[str, Mapping[str, Any]] | None = None  # media type -> schema, for POST
    tag: str = "api"
    description: str = ""
    audited: bool = False  # every call is an audit entry (writes)
    pattern: str | None = None  # the aiohttp path when it differs (``/static/{path:.+}``)
    stream: bool = False  # an event stream that never ends (the SSE route): ``x-stream`` in the document
    # a write that also takes the judge's session cookie, when the browser says it comes from the service's
    # own page (access.from_own_page): the import page's uploads
    cookie_writes: bool = False

    @property
    def has_match(self) -> bool:
        return "{match}" in self.path

    @property
    def path_params(self) -> list[str]:
        """The names of the path's parameters, in order."""
        return re.findall(r"{(\w+)}", self.path)

    @property
    def prefix(self) -> str:
        """For a match route: the part before ``{match}`` (``/matches/``)."""
        return self.path.split("{match}")[0]

    @property
    def suffix(self) -> str:
        """For a match route: the part after ``{match}`` (``/record``, or empty)."""
        return self.path.split("{match}")[1]


ROUTES: web.AppKey[list[Route]] = web.AppKey("routes", list)
GUARD: web.AppKey[Callable[[Route, Handler], Handler]] = web.AppKey("guard")


def _with_query(route: Route, handler: Handler) -> Handler:
    """Parse and check the query parameters the route declares; unknown ones are ignored (documented)."""
    params = {p.name: p for p in route.query}

    async def checked(request: web.Request) -> web.StreamResponse:
        values: dict[str, Any] = {}
        for name, param in params.items():
            raw = request.query.getall(name, [])
            if len(raw) > 1:
                raise Problem.said(400, "bad_parameter", "{name} given {n} times", name=name, n=len(raw))
            if raw and not (param.blank and raw[0] == ""):
                values[name] = param.parse(raw[0])
            elif param.default is not None:
                values[name] = param.default
        request[QUERY] = values
        return await handler(request)

    return checked


def register(app: web.Application, routes: Sequence[Route]) -> None:
    """Add ``routes`` to ``app`` (and to its table, which the OpenAPI document describes).

    Every handler is wrapped by the app's guard (roles, audit) and the query check. Match routes of one
    prefix and method share one aiohttp tail route: registering more of them later extends the dispatch.
    """
    table = app[ROUTES]
    guard = app[GUARD]
    for route in routes:
        table.append(route)
        wrapped = guard(route, _with_query(route, route.handler))
        if not route.has_match:
            app.router.add_route(route.method, route.pattern or route.path, wrapped)
            continue
        key = (route.method, route.prefix)
        tails: dict[tuple[str, str], list[tuple[str, Handler]]] = app[_TAILS]
        if key not in tails:
            tails[key] = []
            # [\s\S], not ".": a tail with a newline ("m1\n/record") must reach match_id, to be a 400
            app.router.add_route(
                route.method, route.prefix + "{tail:[\\s\\S]+}", _tail_dispatch(tails[key], route.prefix)
            )
        tails[key].append((route.suffix, wrapped))
        tails[key].sort(key=lambda item: -len(item[0]))


_TAILS: web.AppKey[dict[tuple[str, str], list[tuple[str, Handler]]]] = web.AppKey("tails", dict)


def _tail_dispatch(candidates: list[tuple[str, Handler]], prefix: str) -> Handler:
    async def dispatch(request: web.Request) -> web.StreamResponse:
        tail = request.match_info["tail"]
        for suffix, handler in candidates:
            if suffix and tail.endswith(suffix) and len(tail) > len(suffix):
                request[MATCH] = match_id(tail[: -len(suffix)])
                return await handler(request)
            if not suffix:
                request[MATCH] = match_id(tail)
                return await handler(request)
        views = ", ".join(s.lstrip("/") for s, _ in candidates if s)
        raise Problem.said(
            404, "not_found", "no such resource: {path} (views: {views})", path=prefix + tail, views=views
        )

    return dispatch


def init_table(app: web.Application, guard: Callable[[Route, Handler], Handler]) -> None:
    """Prepare ``app`` for :func:`register` with the guard every route goes through."""
    app[ROUTES] = []
    app[GUARD] = guard
    app[_TAILS] = {}
