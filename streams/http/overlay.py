"""The overlay page (overlay.html): one render for a match's own overlay and for those that follow a stream
table or slot (streams/http/tables.py), so that every browser source gets the same page."""

from __future__ import annotations

from aiohttp import web

from streams.http.card_images import pack
from streams.http.templating import render


def overlay_page(
    request: web.Request, *, match: str = "", follow: str = "", setting: str | None = None
) -> web.StreamResponse:
    """The overlay page, one template for every source: a match's own (``match``), or one that follows
    a stream table or slot (``follow``: the URL that names the match shown now). ``setting``: the
    event's language, when known (the page's language choice, streams/http/templating.py)."""
    return render(
        request,
        "overlay.html",
        match=match,
        follow=follow,
        images=pack(request.app) is not None,
        setting=setting,
    )
