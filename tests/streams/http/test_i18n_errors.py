"""The service's errors in the reader's language (issue 34 item 5; docs/web.md, "Languages"): every JSON
error's sentence and every HTML error page in Japanese or Korean when the request asks for it (``?lang=``,
then ``Accept-Language``), the same in English as before, and the machine fields (``code``) never
changed; the one mechanism (routes.speak, in the app's outermost middleware) for every route. Card names
inside a finding's sentence follow the page's language too (issue 34 item 4).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from replay.engine import EventError
from replay.engine import findings as F
from replay.engine.findings import say
from replay.i18n import findings, korean
from replay.sources.cards import card_name
from streams.http.battle_log import card_in
from streams.http.routes import Problem
from tests.builder import Stream, card
from tests.streams.http.served import Served, scoped_game
from tools.i18n import unspoken

JA = r"[\u3040-\u30ff\u4e00-\u9fff]"
KO = r"[\uac00-\ud7a3]"


async def answer(
    served: Served, method: str, path: str, who: str | None = "judge", **headers: str
) -> tuple[int, dict[str, Any]]:
    async with served.http.request(method, served.url + path, headers={**served.auth(who), **headers}) as r:
        body: dict[str, Any] = await r.json()
        return r.status, body


@pytest.mark.parametrize(
    ("method", "path", "who", "status", "code", "english", "japanese", "korean"),
    [
        (
            "GET",
            "/matches/nope/record",
            "judge",
            404,
            "not_found",
            "match nope: no record stored",
            "試合nope: 保存された記録がない",
            "매치 nope: 저장된 기록이 없음",
        ),
        (  # a query parameter (routes.Param)
            "GET",
            "/matches?limit=abc",
            "judge",
            400,
            "bad_parameter",
            "limit must be an integer, got 'abc'",
            "limit は整数であること（'abc' でした）",
            "limit은(는) 정수여야 함('abc'을(를) 받음)",
        ),
        (  # the router's own 404 (the middleware)
            "GET",
            "/nowhere",
            None,
            404,
            "not_found",
            "no such resource: /nowhere",
            "そのようなリソースはありません: /nowhere",
            "그런 리소스가 없음: /nowhere",
        ),
        (  # a credential's refusal (streams.tokens REFUSALS, read back)
            "GET",
            "/matches/m1/record",
            "malformed",
            401,
            "bad_token",
            "malformed token",
            "トークンの形式が正しくない",
            "토큰 형식이 올바르지 않음",
        ),
        (  # the login's body
            "POST",
            "/login",
            None,
            400,
            "bad_body",
            "the body is not a form",
            "本文がフォームではない",
            "본문이 폼이 아님",
        ),
    ],
)
async def test_an_error_speaks_the_requests_language_and_keeps_its_code(
    served: Served,
    method: str,
    path: str,
    who: str | None,
    status: int,
    code: str,
    english: str,
    japanese: str,
    korean: str,
) -> None:
    extra = {"Content-Type": "application/x-www-form-urlencoded"} if method == "POST" else {}
    if method == "POST":  # a body that is no form: bytes that are not UTF-8
        async with served.http.post(
            served.url + path, data=b"\xff\xfe", headers={**extra, "Origin": served.url}
        ) as r:
            assert (r.status, (await r.json())["error"]) == (status, english)
        for query, header, said in (("?lang=ja", {}, japanese), ("", {"Accept-Language": "ko-KR"}, korean)):
            async with served.http.post(
                served.url + path + query, data=b"\xff\xfe", headers={**extra, **header, "Origin": served.url}
            ) as r:
                assert r.status == status
                assert await r.json() == {"error": said, "code": code}
        return
    sep = "&" if "?" in path else "?"
    # English as before: no language asked for, or English asked for, or a language of none of ours
    for headers in ({}, {"Accept-Language": "en-GB,en;q=0.9"}, {"Accept-Language": "fr-FR"}):
        assert await answer(served, method, path, who, **headers) == (
            status,
            {"error": english, "code": code},
        )
    assert await answer(served, method, f"{path}{sep}lang=ja", who) == (
        status,
        {"error": japanese, "code": code},
    )
    assert await answer(served, method, path, who, **{"Accept-Language": "ko-KR,ko;q=0.9"}) == (
        status,
        {"error": korean, "code": code},
    )
    # ?lang= comes before the browser's language
    got = await answer(served, method, f"{path}{sep}lang=ja", who, **{"Accept-Language": "ko"})
    assert got == (status, {"error": japanese, "code": code})


async def test_a_token_refusal_names_the_token_in_the_language(served: Served) -> None:
    token_id = served.tokens["expired"].split("_")[1]
    status, body = await answer(served, "GET", "/matches/m1/record", "expired")
    assert (status, body) == (401, {"error": f"token {token_id} is expired", "code": "token_expired"})
    status, body = await answer(served, "GET", "/matches/m1/record?lang=ja", "expired")
    assert body == {"error": f"トークン{token_id}は期限切れです", "code": "token_expired"}
    status, body = await answer(served, "GET", "/matches/m1/record?lang=ko", "revoked")
    revoked = served.tokens["revoked"].split("_")[1]
    # the particle after the id as the id is read (its last digits as a number), else the generic 은(는)
    said = korean.fill("토큰 {token}은(는) 폐기되었습니다", {"token": revoked})
    assert body == {"error": said, "code": "token_revoked"}
    assert said.startswith(f"토큰 {revoked}") and said.endswith(" 폐기되었습니다")


async def test_a_write_refused_for_its_scope_is_in_the_language(served: Served) -> None:
    """An ingest token of league L2 sending a match of L1 (streams/http/ownership.py's Refusal)."""
    events = scoped_game("x1", "L1")
    async with served.http.post(f"{served.url}/events", json=events, headers=served.auth("ingest_l2")) as r:
        english = await r.json()
    assert r.status == 403 and english["code"] == "out_of_scope"
    assert english["error"].endswith("outside this token's scope (leagues L2); nothing was written")
    async with served.http.post(
        f"{served.url}/events?lang=ja", json=events, headers=served.auth("ingest_l2")
    ) as r:
        japanese = await r.json()
    assert r.status == 403 and japanese["code"] == "out_of_scope"
    assert japanese["error"].startswith("試合x1: match_started が示す") and japanese["error"].endswith(
        "何も書き込まれていません"
    )
    # the scopes' own words too (replay.i18n.Phrase), the names as written
    assert "リーグ 'L1'とイベント 'L1-cup'" in japanese["error"] and "（リーグ L2）" in japanese["error"]
    assert not re.search(r"nothing was written|league|event", japanese["error"]), japanese["error"]
    assert (await served.store.record("x1")) is None  # nothing written, in any language


async def test_an_error_page_is_in_the_pages_language(served: Served) -> None:
    page_headers = {**served.auth("judge"), "Accept": "text/html"}
    async with served.http.get(f"{served.url}/review/nope?lang=ja", headers=page_headers) as r:
        assert r.status == 404
        page = await r.text()
    assert '<html lang="ja"' in page and "試合nope: 保存されたイベントがない" in page
    assert "no events archived" not in page  # nothing of the English sentence is left
    async with served.http.get(
        f"{served.url}/review/nope", headers={**page_headers, "Accept-Language": "ko"}
    ) as r:
        page = await r.text()
    assert '<html lang="ko"' in page and "매치 nope: 보관된 이벤트가 없음" in page
    async with served.http.get(f"{served.url}/review/nope", headers=page_headers) as r:
        page = await r.text()
    assert '<html lang="en"' in page and "match nope: no events archived" in page


def test_a_quoted_sentence_keeps_the_other_parts_words() -> None:
    """Another part's own words (a validator's): as they are in English; named in another language."""
    problem = Problem.quoting(400, "invalid_event", "the event is not valid: {words}", "seq: must be >= 1")
    assert problem.message == "seq: must be >= 1" and problem.spoken("en") is problem
    japanese = problem.spoken("ja")
    assert (japanese.message, japanese.code) == (
        "イベントが正しくありません: seq: must be >= 1",
        "invalid_event",
    )
    assert japanese.english == "seq: must be >= 1"


def test_the_catalogue_check_finds_an_error_said_outside_the_catalogues(tmp_path: Path) -> None:
    code = tmp_path / "streams" / "http" / "x.py"
    code.parent.mkdir(parents=True)
    code.write_text(
        "def f(y):\n"
        '    raise Problem(400, "bad", f"bad {y}")\n'
        "def g(y):\n"
        '    raise Problem.said(400, "bad", f"bad {y}")\n'
        "def h(y, t):\n"
        '    raise Refusal("bad", "m1", t)\n'
        "def fine(y):\n"
        '    raise Problem.said(400, "bad", "bad {y}", y=y)\n',
        encoding="utf-8",
    )
    found = list(unspoken(tmp_path))
    assert [line.split(": ", 1)[0] for line in found] == [
        "streams/http/x.py:2",
        "streams/http/x.py:4",
        "streams/http/x.py:6",
    ], found
    assert list(unspoken()) == []  # the service's own code: every error said through the catalogues


# --------------------------------------------------------------------- card names in a finding's sentence
def test_a_findings_sentence_names_its_card_in_the_language() -> None:
    text = say(F.KO_NOT_CLAIMED, card="Pikachu ex", pid="a1", seq=12)
    assert findings.message("en", "ko_not_claimed", text, card_in("en")) == text  # English as stored
    for lang in ("ja", "ko"):
        shown = findings.message(lang, "ko_not_claimed", text, card_in(lang))
        name = card_name("Pikachu ex", lang)
        assert name != "Pikachu ex" and name in shown and "Pikachu ex" not in shown, shown
    # a card the catalogue does not know: as written
    text = say(F.KO_NOT_CLAIMED, card="Homebrew Mon", pid="a1", seq=12)
    assert "Homebrew Mon" in findings.message("ja", "ko_not_claimed", text, card_in("ja"))
    # several cards (a detail's cards in view), each by its name
    detail = say(F.IN_VIEW, cards="Charizard ex, Homebrew Mon")
    shown = findings.detail("ko", detail, card_in("ko"))
    assert shown.startswith(card_name("Charizard ex", "ko") + ", Homebrew Mon") and re.search(KO, shown)


def unclaimed_knockout(match: str) -> list[dict[str, Any]]:
    """A game where Pikachu ex reaches 0 HP and the source, which reports knockouts, reports none."""
    s = Stream(match, context={"league": "L1", "season": "2026", "round": 1})
    s.setup("ash", ("a1", card("Pikachu ex", 30)), ("a2", card("Raichu", 120)))
    s.setup("misty", ("m1", card("Staryu", 30)), ("m2", card("Starmie", 90)))
    s.turn("ash")
    s.add("turn_ended", player="ash")
    s.turn("misty")
    s.attack("misty", "m1", ("a1", 30))
    s.add("turn_ended", player="misty")
    return s.events


async def test_the_review_pages_finding_names_the_card_in_the_pages_language(served: Served) -> None:
    assert (await served.post(unclaimed_knockout("p1"))).status == 200
    for lang, script in (("ja", JA), ("ko", KO)):
        async with served.http.get(
            f"{served.url}/review/p1/meta?lang={lang}", headers=served.auth("judge")
        ) as r:
            meta: dict[str, Any] = await r.json()
        found = [f for f in meta["record"]["findings"] if f["code"] == "ko_not_claimed"]
        assert found and "Pikachu ex" in found[0]["message"]  # the record: as the engine wrote it
        index = meta["record"]["findings"].index(found[0])
        text = meta["findings_text"][index]
        assert card_name("Pikachu ex", lang) in text and "Pikachu ex" not in text and re.search(script, text)
        marks = [m for line in meta["log"] for m in line["marks"] if m.get("code") == "ko_not_claimed"]
        assert marks and card_name("Pikachu ex", lang) in marks[0]["text"]


# ------------------------------------------------------------- another part's words, said in the language
async def _post(served: Served, body: bytes, query: str = "", **headers: str) -> dict[str, Any]:
    async with served.http.post(
        f"{served.url}/events{query}",
        data=body,
        headers={**served.auth("admin"), "Content-Type": "application/json", **headers},
    ) as r:
        assert r.status == 400
        answer: dict[str, Any] = await r.json()
        return answer


async def test_a_refused_events_reason_is_in_the_language_and_names_the_field(served: Served) -> None:
    """The contract's reason (by the schema keyword that refused it) in the request's language; the field,
    the value and the machine fields (match, seq, field) as they are."""
    events = Stream("i18nr").events
    bad = {**events[0], "first": 7}  # the type keyword: a string wanted
    body = json.dumps([bad]).encode()
    english = (await _post(served, body))["outcomes"][0]
    assert english["reason"] == "match i18nr seq 1: field first: must be a non-empty string (got 7)"
    korean = (await _post(served, body, **{"Accept-Language": "ko-KR,ko;q=0.9"}))["outcomes"][0]
    assert korean["reason"] == "대전 i18nr seq 1: 필드 first: 비어 있지 않은 문자열만 허용됨 (받은 값: 7)"
    assert {k: v for k, v in korean.items() if k != "reason"} == {
        k: v for k, v in english.items() if k != "reason"
    }
    assert korean["field"] == "first" and korean["status"] == "rejected"
    japanese = (await _post(served, body, "?lang=ja"))["outcomes"][0]
    assert japanese["reason"] == "対戦 i18nr seq 1: 項目 first: 空でない文字列でなければならない（値: 7）"
    missing = {k: v for k, v in events[0].items() if k != "players"}  # the required keyword
    said = (await _post(served, json.dumps([missing]).encode(), "?lang=ko"))["outcomes"][0]["reason"]
    assert said.endswith("필드 players: 필수 필드 'players'이(가) 없음"), said
    said = await _post(served, json.dumps([{**events[0], "source": {"kind": "nope"}}]).encode(), "?lang=ja")
    assert "のいずれかでなければならない（値: 'nope'）" in said["outcomes"][0]["reason"]  # enum


async def test_a_body_that_is_not_json_is_said_with_its_position(served: Served) -> None:
    body = b'{"match": "m1", "seq": 1}\n{"match": "m1", "seq": \n'
    english = (await _post(served, body, **{"Content-Type": "application/x-ndjson"}))["outcomes"][1]
    assert english["reason"] == "line 2: not JSON (Expecting value at column 24)"
    japanese = await _post(served, body, "?lang=ja", **{"Content-Type": "application/x-ndjson"})
    assert japanese["outcomes"][1]["reason"] == "2 行目: JSON ではない（24 桁目: 値がない）"
    korean = await _post(served, body, "?lang=ko", **{"Content-Type": "application/x-ndjson"})
    assert korean["outcomes"][1]["reason"] == "2번째 줄: JSON이 아님 (24열: 값이 없음)"
    not_utf8 = (await _post(served, b'{"a": "\xff"}', "?lang=ko"))["outcomes"][0]["reason"]
    assert not_utf8 == "본문이 UTF-8이 아님 (7바이트째: 잘못된 시작 바이트)"


def test_a_quoted_refusal_of_the_contract_is_said_in_the_language() -> None:
    """Problem.quoting of the contract's error (a ruling's event): its place and reason in the language."""
    from replay.contract.validate import validate_event

    try:
        validate_event({"match": "m1", "seq": 0, "type": "drew", "player": "ash"})
    except EventError as exc:
        problem = Problem.quoting(400, "invalid_event", "the event is not valid: {words}", exc)
    assert problem.message == "match m1 seq 0: field seq: must be an integer >= 1 and <= 100000 (got 0)"
    assert problem.spoken("en") is problem
    assert problem.spoken("ja").message == (
        "イベントが正しくありません: 対戦 m1 seq 0: 項目 seq: "
        "1 以上 100000 以下の整数でなければならない（値: 0）"
    )
    assert problem.spoken("ko").message.endswith("필드 seq: 1 이상 100000 이하의 정수만 허용됨 (받은 값: 0)")
