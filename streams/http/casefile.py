"""The judge's case file (docs/web.md, "Case file"): ``GET /review/<match>/case``, one self-contained HTML
file to attach to an appeal or send to a player: the review page with its style and script inline and the
game in the page (the record and its signature, the board at every event, the battle log, the findings,
the judges' notes and rulings, the record's versions, the rule sections cited). It opens in a browser with
no network and no service, like the report.

Judges only, and a read of hidden information (audited): it holds what the review page shows.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from aiohttp import web
from markupsafe import Markup

from replay.docs import RULES
from replay.records import from_msgpack
from streams.history import summary
from streams.http.access import PRINCIPAL
from streams.http.keys import CORE, STORE
from streams.http.routes import LANG, MATCH, Answer, Handler, Route
from streams.http.templating import environment, event_language, page_context

STATIC_DIR = Path(__file__).resolve().parent / "static"
#: What the review page shows of a request's match (streams.http.pages.meta_of, handed in: the pages
#: module registers this one).
MetaOf = Callable[[web.Request], Awaitable[dict[str, Any]]]


def _script_json(value: Any) -> Markup:
    """JSON inside a ``<script type="application/json">``: nothing in it can close the element."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=_hex)
    return Markup(text.replace("</", "<\\/").replace("<!--", "<\\!--"))


def _hex(obj: object) -> Any:
    if isinstance(obj, bytes | bytearray):
        return obj.hex()
    raise TypeError(f"not JSON serialisable: {type(obj).__name__}")


def _offline(meta: dict[str, Any]) -> dict[str, Any]:
    """The review page's data with its rule links pointing inside the file (the sections are appended)."""
    text = json.dumps(meta, ensure_ascii=False, default=_hex).replace('"/rules#', '"#')
    out: dict[str, Any] = json.loads(text)
    return out


def _inline_script(name: str) -> Markup:
    """A static script as the body of an inline ``<script>`` (no ``</script`` in it can end the block)."""
    return Markup((STATIC_DIR / name).read_text("utf-8").replace("</script", "<\\/script"))


async def case_file(
    request: web.Request, meta_of: MetaOf, render_rules: Callable[[str], str]
) -> web.StreamResponse:
    """GET /review/<match>/case: the case file, as a download."""
    match = request[MATCH]
    store = request.app[STORE]
    meta = _offline(await meta_of(request))
    key = request.app[CORE].signing_key
    meta["versions"] = [summary(v, key) for v in await store.versions(match)]
    raw = await store.record(match)
    record = from_msgpack(raw, match=match).to_json() if raw is not None else None
    principal = request[PRINCIPAL]
    try:
        rules_html = render_rules(RULES.read_text(encoding="utf-8"))
    except OSError:
        rules_html = "<p>(the rule reference is not installed with this copy of prizecheck)</p>"
    shared = page_context(request, "case.html", event_language((record or {}).get("context")))
    page = (
        environment(shared["lang"])
        .get_template("case.html")
        .render(
            **shared,
            match=match,
            made=dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC"),
            made_by=principal.name or principal.id,
            css=Markup((STATIC_DIR / "review.css").read_text("utf-8")),
            js=_inline_script("review.js"),
            i18n_js=_inline_script("i18n.js"),
            data=_script_json(meta),
            record_json=json.dumps(record, ensure_ascii=False, indent=2, sort_keys=True, default=_hex),
            signed=bool(record and record.get("signature")),
            key_id=(record or {}).get("key_id") or "",
            rules_html=Markup(rules_html),
            players=[],
            penalties=[],
        )
    )
    name = match.replace("/", "_").replace(":", "_")
    return web.Response(
        text=page,
        content_type="text/html",
        headers={
            "Content-Disposition": f'attachment; filename="case-{name}.html"',
            "Cache-Control": "private, no-store",
            # opened from the service by mistake: its inline style and script, nothing from anywhere
            "Content-Security-Policy": "default-src 'none'; script-src 'unsafe-inline'; "
            "style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'",
        },
    )


def case_routes(meta_of: MetaOf, render_rules: Callable[[str], str]) -> tuple[Route, ...]:
    """The case file's route (see :mod:`streams.http.routes`), on the review page's own data."""

    async def handler(request: web.Request) -> web.StreamResponse:
        return await case_file(request, meta_of, render_rules)

    made: Handler = handler
    return (
        Route(
            "GET",
            "/review/{match}/case",
            made,
            frozenset({"judge"}),
            "The judge's case file: the review page as one self-contained HTML file (no network)",
            query=(LANG,),
            answers={200: Answer("the case file", "text/html", {"type": "string"})},
            hidden=True,
            tag="pages",
        ),
    )
