"""POST /import (issue 36 item 1) on the real service and Redis: a file becomes matches through the same
importers as the command line and the same ingest path as POST /events, whole or not at all; every bad
file is one sentence, and nothing else is lost."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from replay.sources.common import match_id_from
from tests.paths import ROOT
from tests.streams.http.served import Served

LOGS = ROOT / "tests" / "data" / "ptcgl"
SHEETS = ROOT / "tests" / "data" / "sheets"


async def upload(
    served: Served,
    name: str | None,
    data: bytes | None = None,
    *,
    who: str | None = "judge",
    paste: str | None = None,
    query: str = "",
    **fields: str,
) -> tuple[int, dict[str, Any]]:
    form = aiohttp.FormData()
    if name is not None and data is not None:
        form.add_field("file", data, filename=name, content_type="application/octet-stream")
    if paste is not None:
        form.add_field("paste", paste)
    for key, value in fields.items():
        form.add_field(key, value)
    async with served.http.post(f"{served.url}/import{query}", data=form, headers=served.auth(who)) as r:
        return r.status, await r.json()


async def test_a_judge_imports_a_log_and_gets_its_review_page(served: Served) -> None:
    data = (LOGS / "deck_out.txt").read_bytes()
    status, body = await upload(served, "deck_out.txt", data, event="Cup", table="12", round="3")
    assert status == 200, body
    (game,) = body["matches"]
    assert game["match"] == "deck_out" and game["review"] == "/review/deck_out" and game["refused"] == []
    # the same events the command line writes for the same file
    cli = subprocess.run(
        [sys.executable, "-m", "replay.cli", "import", "ptcgl", str(LOGS / "deck_out.txt"), "-q"],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    expected = [json.loads(line) for line in cli.stdout.splitlines()]
    stored = await served.store.events("deck_out")
    assert len(stored) == len(expected) == game["events"]
    record = await served.store.record("deck_out")
    assert record is not None
    from replay.records import from_msgpack

    context = from_msgpack(record).context or {}
    assert (context.get("event"), context.get("table"), context.get("round")) == ("Cup", 12, 3)
    entries = await served.audit()
    assert any(e.action == "write" and "import deck_out.txt" in e.detail for e in entries), entries[-3:]
    # the review page opens for it
    async with served.http.get(f"{served.url}/review/deck_out/meta", headers=served.auth("judge")) as r:
        assert r.status == 200


async def test_a_pasted_log_gets_a_match_id_of_its_own(served: Served) -> None:
    status, body = await upload(served, None, paste=(LOGS / "concede_midturn.txt").read_text("utf-8"))
    assert status == 200, body
    (game,) = body["matches"]
    assert game["match"].startswith("import-") and await served.store.record(game["match"]) is not None


async def test_a_game_sheet_is_imported(served: Served) -> None:
    status, body = await upload(
        served, "league_game.csv", (SHEETS / "league_game.csv").read_bytes(), match="s1"
    )
    assert status == 200, body
    # a sheet names its own match (the recording app's id), as for prizecheck import sheet
    assert body["kind"] == "sheet" and body["matches"][0]["match"] == "league-2026-03-r2-t4-g1"


async def test_the_same_file_twice_stores_nothing_the_second_time(served: Served) -> None:
    data = (LOGS / "inactive.txt").read_bytes()
    assert (await upload(served, "inactive.txt", data))[0] == 200
    before = len(await served.store.events("inactive"))
    status, body = await upload(served, "inactive.txt", data)
    assert status == 409 and body["code"] == "match_exists"
    assert "match inactive is already stored" in body["error"] and "inactive.txt" in body["error"]
    assert len(await served.store.events("inactive")) == before


@pytest.mark.parametrize(
    ("name", "data", "status", "said"),
    [
        ("empty.txt", b"   \n", 400, "empty.txt is empty: nothing to import"),
        ("lang_ja.txt", (LOGS / "lang_ja_unsupported.txt").read_bytes(), 400, "lang_ja.txt"),
        ("big.txt", b"x" * (5 * 1024 * 1024), 400, "big.txt"),
        ("fifty.txt", b"x" * (50 * 1024 * 1024), 400, "fifty.txt"),  # under the upload's 64 MB, over a log's
        ("photo.jpg", b"\xff\xd8\xff\xe0" + bytes(2000), 400, "photo.jpg"),
        ("not-a-sheet.png", b"\x89PNG\r\n\x1a\n" + bytes(100), 400, "not-a-sheet.png"),
        ("binary.txt", b"\x00\x01\x02 not text", 400, "binary.txt"),
    ],
)
async def test_a_bad_file_is_one_sentence_and_nothing_is_stored(
    served: Served, name: str, data: bytes, status: int, said: str
) -> None:
    code, body = await upload(served, name, data)
    assert code == status, body
    assert said in body["error"] and "\n" not in body["error"] and "Traceback" not in body["error"]
    match = match_id_from(name)
    assert await served.store.record(match) is None and await served.store.events(match) == []


async def test_an_empty_paste_says_so(served: Served) -> None:
    status, body = await upload(served, None, paste="  ")
    assert status == 400 and body["error"] == "pasted log is empty: nothing to import"


async def test_nothing_sent_says_what_to_send(served: Served) -> None:
    status, body = await upload(served, None, match="x")
    assert status == 400 and body["code"] == "no_file"


async def test_a_file_over_the_limit_is_refused_before_it_is_read(served: Served) -> None:
    status, body = await upload(served, "huge.pdf", b"%PDF-" + bytes(65 * 1024 * 1024))
    assert status == 413 and body["code"] == "too_large"


@pytest.mark.parametrize("field", [{"table": "twelve"}, {"round": "0"}, {"match": "bad id!"}])
async def test_a_bad_field_is_named(served: Served, field: dict[str, str]) -> None:
    status, body = await upload(served, "deck_out.txt", (LOGS / "deck_out.txt").read_bytes(), **field)
    assert status == 400 and body["code"] == "bad_field" and next(iter(field)) in body["error"]
    assert await served.store.events("deck_out") == []


@pytest.mark.parametrize(("who", "status"), [(None, 401), ("ingest", 403), ("organizer", 403)])
async def test_only_judges_import(served: Served, who: str | None, status: int) -> None:
    code, _ = await upload(served, "deck_out.txt", (LOGS / "deck_out.txt").read_bytes(), who=who)
    assert code == status
    assert await served.store.events("deck_out") == []


async def test_a_judge_s_scope_is_the_import_s(served: Served) -> None:
    """A judge scoped to league L1 cannot import a game into another league (the ownership check of
    POST /events)."""
    status, body = await upload(
        served, "deck_out.txt", (LOGS / "deck_out.txt").read_bytes(), who="judge_l1", league="L2"
    )
    assert status == 403, body
    assert await served.store.events("deck_out") == []


def test_the_page_script_sends_one_file_a_request() -> None:
    js = (ROOT / "streams" / "http" / "static" / "import.js").read_text("utf-8")
    assert 'fetch("/import"' in js and "webkitGetAsEntry" in js
    page = (ROOT / "streams" / "http" / "templates" / "import.html").read_text("utf-8")
    assert 'accept="image/*" capture="environment"' in page and "webkitdirectory" in page


async def test_a_log_without_its_end_line_says_how_and_imports_as_a_game_in_progress(served: Served) -> None:
    data = (LOGS / "truncated.txt").read_bytes()
    status, body = await upload(served, "truncated.txt", data)
    assert status == 400 and "tick 'a game in progress'" in body["error"] and "--partial" not in body["error"]
    status, body = await upload(served, "truncated.txt", data, partial="1")
    assert status == 200, body
    assert body["matches"][0]["match"] == "truncated"


async def test_an_import_and_a_judge_s_action_answer_signed_receipts(tmp_path: Path) -> None:
    """Every accepted write answers a signed receipt (issue 32 item 8), the import page's and the review
    page's too: checked by prizecheck verify with the served public keys alone."""
    import os

    from tests.streams.http.test_serve import _admin, _start, _stop
    from tests.streams.http.test_signing import verify

    data_dir = tmp_path / "data"
    env = {k: v for k, v in os.environ.items() if k != "REDIS_URL" and not k.startswith("PRIZECHECK_")}
    env["PRIZECHECK_DATA_DIR"] = str(data_dir)
    proc, url = _start(data_dir, env)
    admin = _admin(proc)
    try:
        async with aiohttp.ClientSession() as http:
            keys = await (await http.get(f"{url}/.well-known/prizecheck-keys.json")).json()
            form = aiohttp.FormData()
            form.add_field("file", (LOGS / "deck_out.txt").read_bytes(), filename="deck_out.txt")
            imported = await (await http.post(f"{url}/import", data=form, headers=admin)).json()
            acted = await (
                await http.post(
                    f"{url}/review/deck_out/act",
                    json={"action": "note", "at": 3, "text": "seen"},
                    headers=admin,
                )
            ).json()
    finally:
        _stop(proc)
    [first] = imported["receipts"]
    [second] = acted["receipts"]
    assert (first["match"], second["match"]) == ("deck_out", "deck_out") and second["seq"] == first["seq"] + 1
    (tmp_path / "keys.json").write_text(json.dumps(keys))
    (tmp_path / "answers.jsonl").write_text(json.dumps(imported) + "\n" + json.dumps(acted) + "\n")
    done = verify(tmp_path, "--receipts", "answers.jsonl", "--keys", "keys.json")
    assert done.returncode == 0 and done.stdout.count(": ok (signature") == 2, (done.stdout, done.stderr)


async def test_a_pdf_bomb_or_an_image_bomb_is_one_sentence_and_nothing_is_kept(served: Served) -> None:
    """The audit's hostile scans (issue 32 item 4) through the page: each refused before any decoding, one
    sentence naming it, nothing stored; a good file after them is still imported (nothing else lost)."""
    from replay.generators.scan import hostile_scans

    for name, data in hostile_scans().items():
        status, body = await upload(served, name, data)
        assert status == 400 and body["code"] == "unreadable" and name in body["error"], (name, body)
        assert "\n" not in body["error"]
        assert await served.store.events(match_id_from(name)) == []
    status, body = await upload(served, "deck_out.txt", (LOGS / "deck_out.txt").read_bytes())
    assert status == 200, body


async def test_two_files_in_one_request_are_refused_not_one_dropped(served: Served) -> None:
    form = aiohttp.FormData()
    form.add_field("file", (LOGS / "deck_out.txt").read_bytes(), filename="a.txt")
    form.add_field("file", (LOGS / "inactive.txt").read_bytes(), filename="b.txt")
    async with served.http.post(f"{served.url}/import", data=form, headers=served.auth("judge")) as r:
        body = await r.json()
        assert r.status == 400 and body["code"] == "one_file", body
    assert await served.store.events("a") == [] and await served.store.events("b") == []


async def test_a_photo_with_no_readable_sheet_says_how_to_retake_it(served: Served) -> None:
    # a photo of the table, the sheet out of frame (issue 39): the page says how to take a good one
    import cv2
    import numpy as np

    table = cv2.imencode(".jpg", np.full((1200, 900, 3), (70, 110, 150), np.uint8))[1].tobytes()
    status, body = await upload(served, "table.jpg", table)
    assert status == 400 and body["code"] == "unreadable", body
    said = body["error"]
    assert said.startswith("table.jpg") and "retake the photo" in said and "all four corner squares" in said
    assert "steady" in said and "close enough" in said and "\n" not in said


async def test_the_retake_sentence_is_in_the_language_the_page_asks_for(served: Served) -> None:
    import cv2
    import numpy as np

    table = cv2.imencode(".jpg", np.full((1200, 900, 3), (70, 110, 150), np.uint8))[1].tobytes()
    status, body = await upload(served, "table.jpg", table, query="?lang=ko")
    assert status == 400 and body["code"] == "unreadable", body
    said = body["error"]
    # the service's own sentence in Korean around the reader's: its refusal, how to retake the photo
    assert said.startswith("파일을 가져올 수 없음: table.jpg: 게임 시트가 없습니다"), said
    assert "네 모서리의 사각형이 모두 들어가도록" in said and "흔들림 없이" in said and "\n" not in said
