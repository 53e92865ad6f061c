"""The crops of scanned game sheets, for judges: ``GET /scans/<sheet>/<region>`` (JPEG).

``prizecheck import scan --crops DIR`` keeps every region an event or a finding names as
``DIR/<sheet>/<region>.jpg`` (the name in the events' ``scan`` field and in a ``low_confidence`` finding,
:data:`replay.sources.scan.layout.CROP_NAME`); the service serves them from the directory named by
``PRIZECHECK_CROPS``. They show the players' handwriting (card names, notes): judges only, and every
read is in the audit log as a read of hidden information. The review page shows the crop beside the
finding that names it.
"""

from __future__ import annotations

import os

from aiohttp import web

from replay.sources.scan.layout import CROP_NAME
from streams.http.routes import Answer, Problem, Route

CROPS_ENV = "PRIZECHECK_CROPS"
#: The crops' directory of one app (tests set it); else the environment's PRIZECHECK_CROPS.
CROPS: web.AppKey[str] = web.AppKey("scan_crops", str)


async def crop(request: web.Request) -> web.StreamResponse:
    name = f"{request.match_info['sheet']}/{request.match_info['region']}"
    if not CROP_NAME.match(name):
        raise Problem.said(
            404, "not_found", "not a crop's name: <16 hex digits>-<page>/<r1..r30|head|end|page>"
        )
    root = request.app.get(CROPS) or os.environ.get(CROPS_ENV)
    if not root:
        raise Problem.said(
            404, "no_crops", "this service keeps no crops ({env} names import scan's --crops)", env=CROPS_ENV
        )
    sheet, region = name.split("/")
    path = os.path.join(root, sheet, f"{region}.jpg")
    if not os.path.isfile(path):
        raise Problem.said(404, "not_found", "no crop {name}", name=name)
    return web.FileResponse(
        path, headers={"Content-Type": "image/jpeg", "Cache-Control": "private, no-store"}
    )


def scan_routes() -> tuple[Route, ...]:
    """The route of the crops (see :mod:`streams.http.routes`)."""
    return (
        Route(
            "GET",
            "/scans/{sheet}/{region}",
            crop,
            frozenset({"judge"}),
            "A crop of a scanned game sheet (judges only: it shows handwriting)",
            answers={200: Answer("the crop", "image/jpeg", {"type": "string", "format": "binary"})},
            hidden=True,
            tag="pages",
            pattern="/scans/{sheet:[^/]+}/{region:[^/]+}",
            description="The regions `prizecheck import scan` kept: a turn row (`r1`-`r30`), `head`, `end`, "
            "`page`; the name an event's `scan` field or a `low_confidence` finding gives.",
        ),
    )
