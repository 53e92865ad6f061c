"""Card images from a local image pack the organiser provides: ``GET /cards/<card>`` (docs/web.md,
"Card images").

Nothing is fetched from the network at the venue: the service serves the files of one directory, named by
``PRIZECHECK_CARD_IMAGES``, one image a card, named by the card's name as :func:`card_slug` writes it
(``Charizard ex`` -> ``charizard-ex.png``; ``.png``, ``.jpg`` or ``.webp``). Card art is public, like the
names the board shows; the overlay shows the Active's image when the pack has one, and nothing when it
has none (no pack: no image asked for).
"""

from __future__ import annotations

import os
import re
import unicodedata

from aiohttp import web

from streams.http.routes import Answer, Problem, Route

CARD_IMAGES_ENV = "PRIZECHECK_CARD_IMAGES"
#: The image pack's directory of one app (tests set it); else the environment's PRIZECHECK_CARD_IMAGES.
CARD_IMAGES: web.AppKey[str] = web.AppKey("card_images", str)
#: The image types served, by file extension, in the order they are looked for.
TYPES = {".png": "image/png", ".jpg": "image/jpeg", ".webp": "image/webp"}
SLUG = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")


def card_slug(name: str) -> str:
    """A card's name as its image's file name (without the extension): letters without their accents, in
    lower case, every other run of characters one ``-`` (overlay.js spells it the same way)."""
    plain = "".join(c for c in unicodedata.normalize("NFKD", name) if not unicodedata.combining(c))
    return re.sub(r"[^a-z0-9]+", "-", plain.lower()).strip("-")[:100]


def pack(app: web.Application) -> str | None:
    """The image pack's directory, None when the organiser provides none."""
    return app.get(CARD_IMAGES) or os.environ.get(CARD_IMAGES_ENV) or None


async def card_image(request: web.Request) -> web.StreamResponse:
    """GET /cards/<card>: the pack's image of a card (404 when the pack has none, or there is no pack)."""
    slug = request.match_info["card"]
    if not SLUG.fullmatch(slug) or len(slug) > 100:
        raise Problem.said(
            404, "not_found", "not a card's image name: a-z, 0-9 and single '-' (Charizard ex: charizard-ex)"
        )
    root = pack(request.app)
    if root is None:
        raise Problem.said(
            404,
            "no_card_images",
            "this service has no card image pack ({env} names one)",
            env=CARD_IMAGES_ENV,
        )
    for ext, kind in TYPES.items():
        path = os.path.join(root, slug + ext)
        if os.path.isfile(path):
            return web.FileResponse(path, headers={"Content-Type": kind, "Cache-Control": "max-age=3600"})
    raise Problem.said(404, "not_found", "the card image pack has no image of {slug}", slug=slug)


def card_image_routes() -> tuple[Route, ...]:
    """The route of the card images (see :mod:`streams.http.routes`)."""
    return (
        Route(
            "GET",
            "/cards/{card}",
            card_image,
            frozenset({"public"}),
            "A card's image from the organiser's local image pack",
            answers={200: Answer("the image", "image/png", {"type": "string", "format": "binary"})},
            tag="pages",
            pattern="/cards/{card:[^/]+}",
            description=f"From the directory `{CARD_IMAGES_ENV}` names (`<card>.png`, `.jpg` or `.webp`), "
            "the card's name in lower case with every other run of characters one `-`.",
        ),
    )
