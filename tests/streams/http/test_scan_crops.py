"""The crops of scanned game sheets over HTTP: judges only, audited, and named as the findings name them."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from aiohttp import web
from aiohttp.test_utils import make_mocked_request

from replay.sources.scan.layout import CROP_NAME
from streams.http.routes import Problem
from streams.http.scans import CROPS, crop
from tests.paths import ROOT
from tests.streams.http.served import SCAN_CROP, Served

NAME = SCAN_CROP  # the crop the served app keeps (tests/streams/http/served.py)


@pytest.fixture
def crops(served: Served) -> bytes:
    return (Path(served.app[CROPS]) / f"{NAME}.jpg").read_bytes()


async def test_a_judge_gets_a_crop_and_the_read_is_audited(served: Served, crops: bytes) -> None:
    async with served.http.get(f"{served.url}/scans/{NAME}", headers=served.auth("judge")) as r:
        assert r.status == 200 and r.headers["Content-Type"] == "image/jpeg"
        assert "no-store" in r.headers["Cache-Control"]
        assert await r.read() == crops
    entries = await served.audit()
    assert any(e.action == "read_hidden" and NAME in e.target for e in entries)


@pytest.mark.parametrize(("who", "status"), [(None, 401), ("ingest", 403), ("organizer", 403)])
async def test_nobody_else_gets_a_crop(served: Served, crops: bytes, who: str | None, status: int) -> None:
    async with served.http.get(f"{served.url}/scans/{NAME}", headers=served.auth(who)) as r:
        assert r.status == status


@pytest.mark.parametrize(
    "name", ["0123456789abcdef-1/r8", "0123456789abcdef-1/..", "notacrop/r7", "0123456789abcdef-1/x"]
)
async def test_names_that_are_not_kept_crops_are_404(served: Served, crops: bytes, name: str) -> None:
    async with served.http.get(f"{served.url}/scans/{name}", headers=served.auth("judge")) as r:
        assert r.status == 404
        assert (await r.json())["code"] == "not_found"


async def test_without_a_crop_directory_the_service_says_so(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PRIZECHECK_CROPS", raising=False)
    sheet, region = NAME.split("/")
    info = {"sheet": sheet, "region": region}
    request = make_mocked_request("GET", f"/scans/{NAME}", match_info=info, app=web.Application())
    with pytest.raises(Problem) as err:
        await crop(request)
    assert err.value.status_code == 404 and err.value.code == "no_crops"


def test_the_review_page_finds_the_crop_a_low_confidence_finding_names() -> None:
    """The review page's extra for low_confidence findings (static/scan.js, on review.js's hook) reads the
    crop's name from the finding's message: the same pattern must find it in what ``import scan`` writes,
    and the review page must load it."""
    js = (ROOT / "streams" / "http" / "static" / "scan.js").read_text("utf-8")
    assert "/static/scan.js" in (ROOT / "streams" / "http" / "templates" / "review.html").read_text("utf-8")
    pattern = re.search(r"const CROP = /(check the crop .+?\$)/;", js)
    assert pattern is not None
    message = (
        "sheet row 1: prizes A took: 2 boxes marked (2, 3), read as 2; confidence 0.40: check the crop "
        + NAME
    )
    found = re.search(pattern.group(1).replace("\\/", "/"), message)
    assert found is not None and found.group(1) == NAME and CROP_NAME.match(found.group(1))
