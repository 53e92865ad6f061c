"""The application keys the HTTP service's modules share: the ingest core, the store and the options.

They live here, below both :mod:`streams.http.api` (which builds the app) and :mod:`streams.http.pages`
(which the app registers), so that neither imports the other to reach them: no import circle.
"""

from __future__ import annotations

from typing import Any

from aiohttp import web

from streams.ingest import IngestCore
from streams.store import Store

CORE: web.AppKey[IngestCore] = web.AppKey("core", IngestCore)
STORE: web.AppKey[Store] = web.AppKey("store", Store)
OPTIONS: web.AppKey[dict[str, Any]] = web.AppKey("options", dict)
