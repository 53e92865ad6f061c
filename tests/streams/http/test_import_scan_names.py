"""POST /import names a photo's sheets by hand as ``import scan`` does (issue 39): ``players`` (``A,B``)
once for every sheet or once a sheet, ``match`` once a sheet (``-``: its own), read by the same reader
(replay.sources.scan.photo.import_scan through replay.sources.intake.import_file); every bad field one
sentence naming it, a count that is not the file's sheets refused, and nothing stored when refused. The
real service and Redis."""

from __future__ import annotations

from typing import Any

import aiohttp
import pytest

from replay.sources.scan import printed
from tests.paths import ROOT
from tests.scan.helpers import Header, marked, pdf_of, phone
from tests.streams.http.served import Served

LOGS = ROOT / "tests" / "data" / "ptcgl"
MARKS = {"r1.who": {"A"}, "r2.who": {"B"}, "end.reason": {"concession"}, "end.winner": {"A"}}


async def upload(
    served: Served, name: str, data: bytes, fields: list[tuple[str, str]], query: str = ""
) -> tuple[int, dict[str, Any]]:
    """``fields`` as a form sends them: a name may come once a sheet."""
    form = aiohttp.FormData()
    form.add_field("file", data, filename=name, content_type="application/octet-stream")
    for key, value in fields:
        form.add_field(key, value)
    async with served.http.post(f"{served.url}/import{query}", data=form, headers=served.auth("judge")) as r:
        return r.status, await r.json()


async def starts(served: Served, match: str) -> list[dict[str, Any]]:
    from streams.http.battle_log import decode

    return [e for e in decode(await served.store.events(match)) if e["type"] == "match_started"]


def photo(match: str, *, codes: bool = True) -> bytes:
    """A phone photo of a filled sheet printed without names; ``codes=False``: glare over both QR codes
    and a thumb over the printed id (it cannot name itself)."""
    sheet = marked(MARKS, header=Header(match=match))
    if not codes:
        from tests.scan.test_scan_match import thumbed

        sheet = thumbed(sheet)
    return phone(sheet, seed=11)


async def test_a_photo_s_players_and_its_own_match_id_given_on_the_form(served: Served) -> None:
    status, body = await upload(
        served, "t4.jpg", photo("names-1"), [("players", "Kai, Yuki"), ("match", "names-1")]
    )
    assert status == 200, body
    assert [m["match"] for m in body["matches"]] == ["names-1"]
    [start] = await starts(served, "names-1")
    assert start["players"] == ["Kai", "Yuki"]


async def test_a_photo_whose_own_id_is_another_is_refused_naming_both(served: Served) -> None:
    status, body = await upload(served, "t5.jpg", photo("names-2"), [("match", "other-9")])
    assert status == 400 and body["code"] == "unreadable", body
    said = body["error"]
    assert said.startswith(
        "t5.jpg: the sheet's QR code says match names-2, not other-9 as its match id box says: not imported"
    ), said
    assert "--match" not in said and "\n" not in said
    assert await served.store.events("names-2") == [] and await served.store.events("other-9") == []


async def test_a_photo_that_cannot_name_itself_is_named_by_the_form_and_flagged(
    served: Served, monkeypatch: pytest.MonkeyPatch
) -> None:
    # neither code nor (without Tesseract) the printed id is read: the judge's id names it, flagged
    monkeypatch.setattr(printed, "available", lambda: False)
    data = photo("names-3", codes=False)
    status, body = await upload(served, "t6.jpg", data, [])
    # the refusal says how the page names it: its box, not the command line's --match
    assert status == 400 and "or type its match id in the match id box beside the photo" in body["error"], (
        body
    )
    assert "--match" not in body["error"]
    status, body = await upload(served, "t6.jpg", data, [("match", "hall-6.1"), ("players", "Ana,Ines")])
    assert status == 200, body
    [game] = body["matches"]
    assert game["match"] == "hall-6.1" and game["low_confidence"] >= 1
    [start] = await starts(served, "hall-6.1")
    assert start["players"] == ["Ana", "Ines"]


async def test_each_sheet_of_a_pdf_is_named_in_page_order_and_the_count_is_checked(served: Served) -> None:
    one, two = (marked(MARKS, header=Header(match=f"pdf-{n}")) for n in (1, 2))
    data = pdf_of(one, two)
    status, body = await upload(served, "stack.pdf", data, [("players", "A1,B1")] * 3)
    assert status == 400 and body["code"] == "unreadable", body
    assert "stack.pdf: 3 pairs of players given for 2 sheet(s) in the file" in body["error"]
    status, body = await upload(served, "stack.pdf", data, [("match", "pdf-1")])
    assert status == 400 and "1 match ids given for 2 sheet(s) in the file" in body["error"], body
    assert await served.store.events("pdf-1") == []
    status, body = await upload(
        served,
        "stack.pdf",
        data,
        [("players", "Kai,Yuki"), ("players", "-"), ("match", "-"), ("match", "pdf-2")],
    )
    assert status == 200, body
    assert [s["players"] for s in await starts(served, "pdf-1")] == [["Kai", "Yuki"]]
    assert [s["players"] for s in await starts(served, "pdf-2")] == [["A", "B"]]


@pytest.mark.parametrize(
    ("name", "fields", "said"),
    [
        ("t.jpg", [("players", "Kai")], "players: two different names, A,B"),
        ("t.jpg", [("players", "Kai,Kai")], "players: two different names, A,B"),
        ("t.jpg", [("match", "bad id!")], "match: a match id of 1-128 characters"),
        ("deck_out.txt", [("players", "Kai,Yuki")], "players: given for a photo or a PDF"),
        ("deck_out.txt", [("match", "a"), ("match", "b")], "match: given 2 times"),
    ],
)
async def test_a_bad_name_field_is_named_before_anything_is_read(
    served: Served, name: str, fields: list[tuple[str, str]], said: str
) -> None:
    data = (LOGS / "deck_out.txt").read_bytes() if name.endswith(".txt") else b"\xff\xd8\xff\xe0" + bytes(64)
    status, body = await upload(served, name, data, fields)
    assert status == 400 and body["code"] == "bad_field", body
    assert said in body["error"] and "\n" not in body["error"]
    assert await served.store.events("deck_out") == []


async def test_a_bad_field_is_said_in_the_page_s_language(served: Served) -> None:
    status, body = await upload(
        served, "t.jpg", b"\xff\xd8\xff\xe0" + bytes(64), [("players", "Kai")], "?lang=ja"
    )
    assert status == 400 and body["code"] == "bad_field", body
    assert "Kai" in body["error"] and "players: two different names" not in body["error"], body


#: The players list's field: a problem with the list itself names it (``"field"``).
LIST = "players_by_id"

# players_by_id (issue 39): the batch's list of ID,A,B lines, as import scan --players-file takes them,
# sent with each photo; each sheet named by its own id (or the match given it), whatever the order.
BY_ID = "# the judge's list, not the photos' order\nbyid-9,Mara,Teodor\n\nbyid-1, Kai, Yuki\nbyid-2,-\n"


async def test_players_by_id_names_each_photo_s_sheet_by_its_own_match_id(served: Served) -> None:
    status, body = await upload(served, "b1.jpg", photo("byid-1"), [("players_by_id", BY_ID)])
    assert status == 200, body
    assert [m["match"] for m in body["matches"]] == ["byid-1"]
    # the list's ids and their lines come back: the page names, at the batch's end, a line no sheet used
    assert body["players_by_id"] == {"byid-9": 2, "byid-1": 4, "byid-2": 5}
    [start] = await starts(served, "byid-1")
    assert start["players"] == ["Kai", "Yuki"]
    # ID,-: the names printed on the sheet; a PDF's sheets each by its own line
    printed_names = marked(MARKS, header=Header(match="byid-2", players=("Ana", "Ines")))
    data = pdf_of(marked(MARKS, header=Header(match="byid-9")), printed_names)
    status, body = await upload(served, "stack.pdf", data, [("players_by_id", BY_ID)])
    assert status == 200, body
    assert [s["players"] for s in await starts(served, "byid-9")] == [["Mara", "Teodor"]]
    assert [s["players"] for s in await starts(served, "byid-2")] == [["Ana", "Ines"]]


async def test_a_sheet_with_no_line_refuses_its_photo_naming_it_and_the_others_are_imported(
    served: Served,
) -> None:
    listed = "nol-1,Kai,Yuki\n"
    status, body = await upload(served, "n2.jpg", photo("nol-2"), [("players_by_id", listed)])
    assert status == 400 and body["code"] == "unreadable", body
    assert body["error"] == (
        "n2.jpg: match nol-2 has no line in the players by match id (ID,A,B, or ID,- for the names printed "
        "on the sheet): nothing of the file is imported; add its line, or check the sheet's match id"
    ), body
    assert await served.store.events("nol-2") == []
    status, body = await upload(served, "n1.jpg", photo("nol-1"), [("players_by_id", listed)])
    assert status == 200, body
    assert [s["players"] for s in await starts(served, "nol-1")] == [["Kai", "Yuki"]]


async def test_a_photo_that_cannot_name_itself_is_looked_up_by_the_match_given_it(
    served: Served, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(printed, "available", lambda: False)
    fields = [("match", "hall-7.2"), ("players_by_id", "hall-7.1,Ana,Ines\nhall-7.2,Kai,Yuki\n")]
    status, body = await upload(served, "t7.jpg", photo("byid-7", codes=False), fields)
    assert status == 200, body
    [start] = await starts(served, "hall-7.2")
    assert start["players"] == ["Kai", "Yuki"]


@pytest.mark.parametrize(
    ("name", "fields", "said", "about"),
    [
        (
            "t.jpg",
            [("players_by_id", "ok-1,Kai,Yuki\nhand 2,Mara,Teodor\n")],
            "line 2: field players_by_id: 'hand 2' is not a match id (1-128 characters A-Z a-z 0-9 . _ : / "
            "-): a line is ID,A,B or ID,-",
            LIST,
        ),
        (
            "t.jpg",
            [("players_by_id", "\n\n  hand 2,Mara,Teodor\n")],  # lines counted as the judge wrote them
            "line 3: field players_by_id: 'hand 2' is not a match id",
            LIST,
        ),
        (
            "t.jpg",
            [("players_by_id", "ok-1,Kai,Yuki\n# two\nok-1,Mara,Teodor\n")],
            "line 3: field players_by_id: match ok-1 is named on line 1 already",
            LIST,
        ),
        (
            "t.jpg",
            [("players_by_id", "ok-1,Kai,Kai\n")],
            "line 1: field players_by_id: match ok-1: two different names after the id, ID,A,B",
            LIST,
        ),
        (
            "t.jpg",
            [("players_by_id", "Kai,Yuki\nok-2,-\n")],
            "line 2: field players_by_id: names a sheet by its match id (ID,A,B) but line 1 by its place",
            LIST,
        ),
        (
            "t.jpg",
            [("players_by_id", "Kai,Yuki\nMara,Teodor\n")],
            "players_by_id: a line a sheet by its match id, ID,A,B (or ID,- for the names printed on it); "
            "names in the batch's order (A,B) are given beside each photo, in its players box",
            LIST,
        ),
        (
            "t.jpg",
            [("players_by_id", "ok-1,Kai,Yuki\n"), ("players", "Ana,Ines")],
            "players and players_by_id: the players list names every sheet by its match id, and the players "
            "beside t.jpg say 'Ana,Ines' too: give a sheet's names in one place",
            None,
        ),
        (
            "deck_out.txt",
            [("players_by_id", "deck_out,Kai,Yuki\n")],
            "players_by_id: given for a photo or a PDF of printed game sheets only",
            None,
        ),
    ],
)
async def test_a_bad_players_by_id_is_named_with_its_line_before_anything_is_read(
    served: Served, name: str, fields: list[tuple[str, str]], said: str, about: str | None
) -> None:
    data = (LOGS / "deck_out.txt").read_bytes() if name.endswith(".txt") else b"\xff\xd8\xff\xe0" + bytes(64)
    status, body = await upload(served, name, data, fields)
    assert status == 400 and body["code"] == "bad_field", body
    # the list itself unreadable: the answer names it as its field, so that the page stops sending the
    # batch's photos with it; a refusal of this one file (a box beside it, a log) names none
    assert body.get("field") == about, body
    assert body["error"].startswith(said) and "\n" not in body["error"], body
    assert await served.store.events("deck_out") == []


async def test_a_bad_players_by_id_line_is_said_in_the_page_s_language(served: Served) -> None:
    fields = [("players_by_id", "ok-1,Kai,Yuki\nhand 2,Mara,Teodor\n")]
    status, body = await upload(served, "t.jpg", b"\xff\xd8\xff\xe0" + bytes(64), fields, "?lang=ja")
    assert status == 400 and body["code"] == "bad_field" and body["field"] == LIST, body
    said = body["error"]
    assert "'hand 2'" in said and "players_by_id" in said and "2" in said, said
    assert "is not a match id" not in said, said


async def test_the_openapi_document_names_players_by_id(served: Served) -> None:
    async with served.http.get(f"{served.url}/openapi.json") as r:
        assert r.status == 200
        doc = await r.json()
    post = doc["paths"]["/import"]["post"]
    form = post["requestBody"]["content"]["multipart/form-data"]["schema"]["properties"]
    assert form["players_by_id"] == {"type": "string"}
    assert "`players_by_id`" in post["description"] and "ID,A,B" in post["description"]
