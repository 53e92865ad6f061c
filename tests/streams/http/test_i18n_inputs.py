"""The service's refusals of what a person sent, in the reader's language (issue 34 item 5; docs/web.md,
"Languages"): a deck list's and an importer's parse errors, the events-per-request limit and HTTP's own
reason phrases are said in Japanese or Korean by ``Accept-Language``, the values as sent, the English
answer byte for byte what it was, ``code`` unchanged."""

from __future__ import annotations

import http
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from aiohttp import web
from aiohttp.test_utils import TestServer

from replay.i18n.sentences import read
from streams.http.api import json_errors
from streams.http.routes import HTTP_REASONS
from streams.store import RedisStore
from tests.streams.http.served import Served, start_served
from tests.streams.ingest.support import game

LANGS = {"en": "en", "ja": "ja,en;q=0.5", "ko": "ko-KR,ko;q=0.9"}


async def refused(
    s: Served, method: str, path: str, data: bytes, lang: str, **headers: str
) -> tuple[int, dict[str, Any]]:
    async with s.http.request(
        method,
        s.url + path,
        data=data,
        headers={**s.auth("admin"), "Accept-Language": LANGS[lang], **headers},
    ) as r:
        body: dict[str, Any] = await r.json()
        return r.status, body


@pytest.fixture
async def few(redis_store: RedisStore, tmp_path: Path) -> AsyncIterator[Served]:
    s, server = await start_served(redis_store, tmp_path, max_events=3)
    try:
        yield s
    finally:
        await s.http.close()
        await server.close()


async def test_a_deck_lists_parse_error_is_in_the_readers_language(few: Served) -> None:
    body = "Pokémon: 4\n4 Pikachu ex SVI 57\nTrainer: 2\n2 Iono PAL 185\nfour Arven SVI 166\n".encode()
    said = {lang: await refused(few, "PUT", "/decks/Cup/ash", body, lang) for lang in LANGS}
    assert {status for status, _ in said.values()} == {400}
    assert {answer["code"] for _, answer in said.values()} == {"bad_deck"}
    assert said["en"][1]["error"] == (
        "body:5: not a card line (COUNT NAME SET NUMBER) nor a heading: 'four Arven SVI 166'"
    )
    assert said["ja"][1]["error"] == (
        "デッキリストを読めません: body:5: カードの行（枚数 名前 セット 番号）でも見出しでもない: "
        "'four Arven SVI 166'"
    )
    assert said["ko"][1]["error"] == (
        "덱 리스트를 읽을 수 없음: body:5: 카드 줄(매수 이름 세트 번호)도 제목도 아님: 'four Arven SVI 166'"
    )


async def test_an_importers_parse_error_on_the_import_page_is_in_the_readers_language(few: Served) -> None:
    log = "Setup\nash drew 7 cards for the opening hand.\n"
    said = {}
    for lang in LANGS:
        form = aiohttp.FormData()
        form.add_field("file", log.encode(), filename="cut.txt", content_type="text/plain")
        async with few.http.post(
            f"{few.url}/import", data=form, headers={**few.auth("admin"), "Accept-Language": LANGS[lang]}
        ) as r:
            said[lang] = (r.status, await r.json())
    assert {status for status, _ in said.values()} == {400}
    assert {answer["code"] for _, answer in said.values()} == {"unreadable"}
    # the page's words (its checkbox), not the command line's --partial, in every language
    assert said["en"][1]["error"] == (
        "cut.txt:2: truncated log: no end line ('<reason>. <winner> wins.'); tick 'a game in progress' to "
        "import it anyway"
    )
    assert said["ja"][1]["error"] == (
        "ファイルを取り込めません: cut.txt:2: 途切れたログ: 終わりの行（'<reason>. <winner> wins.'）がない。"
        "それでも取り込むには「対戦中のゲーム」にチェックを入れる"
    )
    assert said["ko"][1]["error"] == (
        "파일을 가져올 수 없음: cut.txt:2: 끊긴 로그: 끝 줄('<reason>. <winner> wins.')이 없음. 그래도 "
        "가져오려면 '진행 중인 게임'에 체크할 것"
    )


async def test_too_many_events_is_said_in_the_readers_language(few: Served) -> None:
    import json

    body = json.dumps(game("m1")[:4]).encode()
    said = {
        lang: await refused(few, "POST", "/events", body, lang, **{"Content-Type": "application/json"})
        for lang in LANGS
    }
    assert {status for status, _ in said.values()} == {413}
    assert {answer["code"] for _, answer in said.values()} == {"too_many_events"}
    assert said["en"][1]["error"] == "more than 3 events in one request; send them in several requests"
    assert said["ja"][1]["error"] == "1 回のリクエストのイベントが 3 個を超えている。何回かに分けて送ること"
    assert said["ko"][1]["error"] == "요청 하나에 이벤트가 3개를 넘음. 여러 요청으로 나눠 보낼 것"


async def test_an_http_reason_phrase_is_said_in_the_readers_language() -> None:
    """An error aiohttp raises itself (a 415 here) is answered with its reason phrase, said in the
    reader's language: the middleware every route has (streams.http.api.json_errors)."""

    async def handler(request: web.Request) -> web.Response:
        raise web.HTTPUnsupportedMediaType()

    app = web.Application(middlewares=[json_errors])
    app.router.add_get("/x", handler)
    server = TestServer(app, host="127.0.0.1")
    await server.start_server()
    said = {}
    try:
        async with aiohttp.ClientSession() as session:
            for lang, header in LANGS.items():
                async with session.get(server.make_url("/x"), headers={"Accept-Language": header}) as r:
                    said[lang] = (r.status, await r.json())
    finally:
        await server.close()
    assert said["en"] == (415, {"error": "Unsupported Media Type", "code": "unsupported_media_type"})
    assert said["ja"] == (
        415,
        {
            "error": "リクエストは拒否されました: 対応していないメディアタイプ",
            "code": "unsupported_media_type",
        },
    )
    assert said["ko"] == (
        415,
        {"error": "요청이 거부되었습니다: 지원하지 않는 미디어 유형", "code": "unsupported_media_type"},
    )


def test_every_reason_phrase_of_http_is_in_the_catalogues() -> None:
    from replay.i18n import gettext

    for status in http.HTTPStatus:
        if status.value >= 400:
            assert status.phrase in HTTP_REASONS, status
    for phrase in HTTP_REASONS:
        for lang in ("ja", "ko"):
            assert gettext(lang, phrase) != phrase, (lang, phrase)


def test_a_busy_stores_503_is_said_in_the_readers_language() -> None:
    """Every StoreContention the ingest core raises is read by its template (streams.ingest.CONTENTION),
    so the 503 ``store_contention`` is said in the reader's language, English as before."""
    import ast

    from streams.http.routes import Problem
    from streams.ingest import CONTENTION
    from tests.paths import ROOT
    from tests.test_i18n_inputs import FIELD, samples

    written: list[str] = []
    for path in sorted((ROOT / "streams" / "ingest").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "StoreContention":
                written.extend(samples(node.args[0]) or ["(not a literal)"])
    assert len(written) == len(CONTENTION)
    for text in written:
        assert read(CONTENTION, text.replace(FIELD, "m1")) is not None, text

    english = "match cup/r1: another writer kept moving it"
    problem = Problem.reading(503, "store_contention", CONTENTION, english, headers={"Retry-After": "1"})
    assert problem.message == english
    assert problem.spoken("ja").message == "対戦 cup/r1: 別の書き手が動かし続けている"
    assert problem.spoken("ko").message == "대전 cup/r1: 다른 작성자가 계속 바꾸고 있음"
    assert problem.spoken("ko").headers["Retry-After"] == "1"
