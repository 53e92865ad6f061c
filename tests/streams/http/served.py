"""A real service for the access tests: the app (``make_app`` with a token book) on a free localhost port,
a real Redis, a token for each role and for each way a token can be bad, and games posted."""

from __future__ import annotations

import struct
import time
import zlib
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from aiohttp import web
from aiohttp.test_utils import TestServer

from streams.http.access import Access
from streams.http.api import make_app
from streams.http.card_images import CARD_IMAGES
from streams.http.routes import ROUTES, Route
from streams.http.scans import CROPS as SCAN_CROPS
from streams.ingest import IngestCore
from streams.store import AuditEntry, RedisStore
from streams.tokens import TokenBook, new_token, revoke, write_book
from tests.streams.ingest.support import game

Event = dict[str, Any]
SCAN_CROP = "0123456789abcdef-1/r1"  # the crop each served app has (GET /scans/<name>)


@dataclass
class Served:
    """The app on a real port, its tokens by name, and an HTTP client."""

    url: str
    http: aiohttp.ClientSession
    app: web.Application
    store: RedisStore
    book: TokenBook
    tokens: dict[str, str] = field(default_factory=dict)
    token_file: Path | None = None

    def auth(self, who: str | None) -> dict[str, str]:
        return {} if who is None else {"Authorization": f"Bearer {self.tokens[who]}"}

    async def post(self, events: list[Event], who: str = "admin") -> aiohttp.ClientResponse:
        return await self.http.post(f"{self.url}/events", json=events, headers=self.auth(who))

    async def audit(self) -> list[AuditEntry]:
        return await self.store.audit_log()

    @property
    def routes(self) -> list[Route]:
        return list(self.app[ROUTES])


def tiny_png(width: int = 4, height: int = 6, rgb: tuple[int, int, int] = (250, 200, 40)) -> bytes:
    """A small PNG of one colour (a generated card image pack's file), made with the standard library."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    rows = b"".join(b"\x00" + bytes(rgb) * width for _ in range(height))
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(rows))
        + chunk(b"IEND", b"")
    )


def scoped_game(match: str, league: str) -> list[Event]:
    events = [dict(e, match=match) for e in game(match)]
    events[0] = {
        **events[0],
        "context": {**events[0].get("context", {}), "league": league, "event": f"{league}-cup"},
    }
    return events


async def start_served(
    redis_store: RedisStore,
    tmp_path: Path,
    *,
    heartbeat: float = 0.5,
    server_options: dict[str, Any] | None = None,
    access_options: dict[str, Any] | None = None,
    extra_tokens: Sequence[tuple[str, list[str], dict[str, Any]]] = (),
    **options: Any,
) -> tuple[Served, TestServer]:
    now = time.time()
    tokens: dict[str, str] = {}
    entries = []
    for name, roles, extra in (
        ("admin", ["admin"], {}),
        ("ingest", ["ingest"], {}),
        ("judge", ["judge"], {}),
        ("organizer", ["organizer"], {}),
        ("judge_l1", ["judge"], {"leagues": ["L1"]}),
        ("ingest_l2", ["ingest"], {"leagues": ["L2"]}),
        ("expired", ["admin"], {"expires": now - 5}),
        ("revoked", ["admin"], {}),
        *extra_tokens,  # (name, roles, new_token options)
    ):
        token, entry = new_token(name, roles, now=now - 60, **extra)
        tokens[name] = token
        entries.append(entry)
    revoked_id = tokens["revoked"].split("_")[1]
    entries = revoke(entries, revoked_id, now - 1)
    path = tmp_path / "tokens.json"
    write_book(path, entries)
    book = TokenBook.from_settings(str(path), None, b"k" * 32)
    tokens["unknown"] = new_token("nobody", ["admin"])[0]  # well formed, not in the book
    tokens["malformed"] = "not-a-token"
    core = IngestCore(redis_store, gap_timeout=0.2)
    access = Access(redis_store, book, **(access_options or {}))
    app = make_app(core, redis_store, access=access, heartbeat=heartbeat, **options)
    # one crop of a scanned sheet, for the routes every test crawls (streams/http/scans.py)
    crops = tmp_path / "crops"
    (crops / SCAN_CROP).parent.mkdir(parents=True, exist_ok=True)
    (crops / f"{SCAN_CROP}.jpg").write_bytes(b"\xff\xd8\xff\xe0 a crop")
    app[SCAN_CROPS] = str(crops)
    # a card image pack with one image (streams/http/card_images.py)
    pack = tmp_path / "cards"
    pack.mkdir(exist_ok=True)
    (pack / "pikachu.png").write_bytes(tiny_png())
    app[CARD_IMAGES] = str(pack)
    server = TestServer(app, host="127.0.0.1")
    await server.start_server(**(server_options or {}))
    http = aiohttp.ClientSession()
    served = Served(str(server.make_url("")).rstrip("/"), http, app, redis_store, book, tokens, path)
    return served, server


def served_with(*tokens: tuple[str, list[str], dict[str, Any]]) -> Any:
    """A ``served`` fixture whose service also has ``tokens`` (name, roles, :func:`new_token` options)."""

    @pytest.fixture
    async def served(redis_store: RedisStore, tmp_path: Path) -> AsyncIterator[Served]:
        s, server = await start_served(redis_store, tmp_path, extra_tokens=tokens)
        try:
            yield s
        finally:
            await s.http.close()
            await server.close()

    return served


served = served_with()
