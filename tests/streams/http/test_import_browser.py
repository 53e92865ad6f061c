"""The import page in real chromium (issue 36 item 1), at phone and desktop widths: a batch of 20 battle
logs and 5 photos of filled sheets chosen (phone) or dropped (desktop) at once, each its own line (a
review link, or one sentence), a bad file refused without losing the others, a photo from the phone's
camera input, a pasted log."""

from __future__ import annotations

import base64
import mimetypes
import shutil
from pathlib import Path

import pytest
from playwright.async_api import BrowserContext, Page

from tests.paths import ROOT
from tests.streams.http.served import Served
from tests.streams.http.test_pages import shot
from tests.streams.http.test_review import OVERFLOW, judge_page

LOGS = ROOT / "tests" / "data" / "ptcgl"
#: Logs that import as finished games (the truncated and foreign ones are refused: tested below).
GOOD = ["deck_out.txt", "concede_midturn.txt", "concede_setup.txt", "inactive.txt", "prizes_numbered.txt"]


def photos(folder: Path, n: int) -> list[Path]:
    """``n`` generated phone photos of distinct filled sheets (replay/generators/scan.py), as JPEG."""
    return [path for path, _ in named_photos(folder, n)]


def named_photos(folder: Path, n: int) -> list[tuple[Path, str]]:
    """:func:`photos` with each sheet's match id."""
    from replay.generators.scan import samples

    out: list[tuple[Path, str]] = []
    for sample in samples(4 * n, seed=36, hard_every=0):
        if sample.header.match in {match for _, match in out}:
            continue
        path = folder / f"sheet-{len(out) + 1}.jpg"
        path.write_bytes(sample.photo)  # the photo's JPEG bytes, as a phone saves it
        out.append((path, sample.header.match))
        if len(out) == n:
            return out
    raise AssertionError("too few distinct sheets")


async def finished(page: Page, total: int) -> str:
    await page.wait_for_selector(f'body[data-imported="{total}"]', state="attached", timeout=240_000)
    return str(await page.text_content("#summary"))


async def drop_files(page: Page, selector: str, paths: list[Path]) -> None:
    """Drop ``paths`` on ``selector`` at once, as a file manager's drag and drop does (a DataTransfer of
    File objects, the page's ``drop`` handler reads them)."""
    payload = [
        {
            "name": p.name,
            "type": mimetypes.guess_type(p.name)[0] or "text/plain",
            "data": base64.b64encode(p.read_bytes()).decode(),
        }
        for p in paths
    ]
    transfer = await page.evaluate_handle(
        """(files) => {
          const dt = new DataTransfer();
          for (const f of files) {
            const bytes = Uint8Array.from(atob(f.data), (c) => c.charCodeAt(0));
            dt.items.add(new File([bytes], f.name, { type: f.type }));
          }
          return dt;
        }""",
        payload,
    )
    await page.dispatch_event(selector, "dragover", {"dataTransfer": transfer})
    await page.dispatch_event(selector, "drop", {"dataTransfer": transfer})


#: At phone width the files are chosen with the picker, at desktop width dropped on the page at once.
@pytest.mark.parametrize("size", [(390, 844), (1440, 900)], ids=["phone", "desktop"])
async def test_a_batch_of_logs_and_photos_each_gets_its_line(
    served: Served, browser_context: BrowserContext, tmp_path: Path, size: tuple[int, int]
) -> None:
    files: list[Path] = []
    for i in range(20):  # 20 saved logs, as PTCGL Tracker keeps them: one file a game
        path = tmp_path / f"game-{size[0]}-{i + 1:02d}.txt"
        shutil.copy(LOGS / GOOD[i % len(GOOD)], path)
        files.append(path)
    files += photos(tmp_path, 5)
    bad = tmp_path / f"cut-{size[0]}.txt"
    shutil.copy(LOGS / "truncated.txt", bad)  # no end line: refused, and nothing else lost
    files.append(bad)
    page = await judge_page(served, browser_context, "/import", size)
    if size[0] < 700:
        await page.set_input_files("#files", [str(p) for p in files])
    else:
        await drop_files(page, "#drop", files)
    assert await page.text_content("#summary") == f"{len(files)} file(s) ready: press import"
    await page.click("#import-button")
    said = await finished(page, len(files))
    assert said == f"{len(files)} of {len(files)} file(s) read: 25 imported, 1 refused", said
    rows = page.locator("#results li")
    assert await rows.count() == len(files)
    assert await page.locator("#results li.done a.review").count() == 25
    refused = page.locator("#results li.refused")
    assert await refused.count() == 1
    assert f"cut-{size[0]}.txt" in str(await refused.text_content())
    for path in files[:20]:  # each log is a stored match with its review page
        assert await served.store.record(path.stem) is not None
    assert await page.evaluate(OVERFLOW) == []
    # a link opens the match's review page
    await page.locator("#results li.done a.review").first.click()
    await page.wait_for_url(lambda url: "/review/" in url)


async def test_a_photo_from_the_phone_camera_and_a_pasted_log(
    served: Served, browser_context: BrowserContext, tmp_path: Path
) -> None:
    (photo,) = photos(tmp_path, 1)
    page = await judge_page(served, browser_context, "/import", (390, 844))
    box = await page.locator("label.pick").first.bounding_box()
    assert box is not None and box["height"] >= 44  # a thumb's target
    await page.set_input_files("#camera", str(photo))
    await page.fill("#paste", (LOGS / "deck_out.txt").read_text("utf-8"))
    await page.fill("#event", "Cup")
    await page.click("#import-button")
    said = await finished(page, 2)
    assert said.endswith("2 imported, 0 refused"), said
    links = [str(await a.get_attribute("href")) for a in await page.locator("#results a.review").all()]
    assert len(links) == 2 and all(link.startswith("/review/") for link in links)


async def test_an_empty_paste_says_there_is_nothing(served: Served, browser_context: BrowserContext) -> None:
    page = await judge_page(served, browser_context, "/import", (1440, 900))
    await page.click("#import-button")
    assert await page.text_content("#summary") == "Nothing to import: paste a battle log or choose files."


async def test_a_photo_that_cannot_be_read_says_how_to_retake_it_in_the_pages_language(
    served: Served, browser_context: BrowserContext, tmp_path: Path
) -> None:
    # a photo of the table, the sheet out of frame (issue 39 item 3): the Japanese page says, in Japanese,
    # how to take one that can be read
    import cv2
    import numpy as np

    table = tmp_path / "table.jpg"
    table.write_bytes(cv2.imencode(".jpg", np.full((1200, 900, 3), (70, 110, 150), np.uint8))[1].tobytes())
    page = await judge_page(served, browser_context, "/import?lang=ja", (390, 844))
    await page.set_input_files("#files", str(table))
    await page.click("#import-button")
    await finished(page, 1)
    said = str(await page.locator("#results li.refused").text_content())
    assert "table.jpg" in said and "ゲームシートが見つかりません" in said, said
    assert "四隅の四角を含めてシート全体を枠に入れ" in said and "しっかり構え" in said, said


def first_photo(folder: Path) -> tuple[Path, str]:
    """The first of :func:`photos` and its sheet's match id."""
    from replay.generators.scan import samples

    sample = next(samples(1, seed=36, hard_every=0))
    path = folder / "sheet-1.jpg"
    path.write_bytes(sample.photo)
    return path, sample.header.match


async def test_a_photo_s_players_and_match_id_are_typed_beside_it(
    served: Served, browser_context: BrowserContext, tmp_path: Path
) -> None:
    # issue 39: the judge names a photo's players and its match id on the page, as import scan's
    # --players and --match; the batch's match id still names the log, not the photo
    photo, match = first_photo(tmp_path)
    log = tmp_path / "game.txt"
    shutil.copy(LOGS / "deck_out.txt", log)
    page = await judge_page(served, browser_context, "/import", (390, 844))
    await page.set_input_files("#files", [str(photo), str(log)])
    lines = page.locator("#queue li")
    assert await lines.count() == 2
    assert await lines.nth(1).locator("input").count() == 0  # a log names its own players
    assert await page.is_visible("#queue-hint")
    await lines.nth(0).locator(".sheet-players input").fill("Kai, Yuki")
    await lines.nth(0).locator(".sheet-match input").fill(match)
    await page.fill("#match", "cup")
    assert await page.evaluate(OVERFLOW) == []
    await page.click("#import-button")
    said = await finished(page, 2)
    assert said.endswith("2 imported, 0 refused"), (said, await page.text_content("#results"))
    from streams.http.battle_log import decode

    [start] = [e for e in decode(await served.store.events(match)) if e["type"] == "match_started"]
    assert start["players"] == ["Kai", "Yuki"]
    assert await served.store.record("cup.2") is not None
    assert await page.is_hidden("#queue")


async def test_a_photo_named_by_another_match_id_is_refused_in_the_pages_words(
    served: Served, browser_context: BrowserContext, tmp_path: Path
) -> None:
    photo, match = first_photo(tmp_path)
    page = await judge_page(served, browser_context, "/import?lang=ja", (1440, 900))
    await page.set_input_files("#files", str(photo))
    await page.locator("#queue li .sheet-match input").fill("other-9")
    await page.click("#import-button")
    await finished(page, 1)
    said = str(await page.locator("#results li.refused").text_content())
    # the photo's own id and the one typed, in Japanese, naming the page's box (not --match)
    assert f"シートのQRコードは対戦 {match} を示しており、対戦ID欄の other-9 ではありません" in said, said
    assert "--match" not in said
    assert await served.store.events(match) == [] and await served.store.events("other-9") == []


async def players(served: Served, match: str) -> list[str]:
    from streams.http.battle_log import decode

    [start] = [e for e in decode(await served.store.events(match)) if e["type"] == "match_started"]
    return list(start["players"])


async def test_a_batch_s_photos_are_named_by_the_players_list_pasted_once(
    served: Served, browser_context: BrowserContext, tmp_path: Path
) -> None:
    # issue 39: the judge pastes the same ID,A,B list import scan --players-file takes, once for the batch;
    # each photo's sheet is named by its own match id, whatever the order; a sheet with no line is refused
    # (the others imported), a line with no sheet is named at the end
    (one, first), (two, second), (three, third) = named_photos(tmp_path, 3)
    logs = []
    for i in range(3):
        path = tmp_path / f"game-{i + 1}.txt"
        shutil.copy(LOGS / GOOD[i], path)
        logs.append(path)
    page = await judge_page(served, browser_context, "/import", (390, 844))
    await page.set_input_files("#files", [str(p) for p in [*logs, one, two, three]])
    listed = f"# table 4 first\n{second},-\n{first}, Kai, Yuki\nhall-9.9,Ana,Ines\n"
    await page.fill("#players-by-id", listed)
    assert await page.evaluate(OVERFLOW) == []
    await page.click("#import-button")
    said = await finished(page, 6)
    assert said == "6 of 6 file(s) read: 5 imported, 1 refused", (said, await page.text_content("#results"))
    assert await players(served, first) == ["Kai", "Yuki"]
    printed = await players(served, second)
    assert printed != ["Kai", "Yuki"] and len(printed) == 2  # ID,-: the names printed on its sheet
    refused = [str(await li.text_content()) for li in await page.locator("#results li.refused").all()]
    assert len(refused) == 2, refused
    assert f"sheet-3.jpg: match {third} has no line in the players by match id" in refused[0], refused
    assert refused[1] == (
        "players by match id line 4: no sheet imported has match id hall-9.9: this line names no sheet"
    ), refused
    assert await served.store.events(third) == []
    assert await page.evaluate(OVERFLOW) == []
    if (path := shot("import-390")) is not None:
        await page.screenshot(path=str(path), full_page=True)


async def test_a_players_list_no_sheet_used_is_said_when_every_photo_is_refused(
    served: Served, browser_context: BrowserContext, tmp_path: Path
) -> None:
    # every photo refused (here: its sheet has no line): no answer gives the list's ids back, and the page
    # still says that the list the judge typed named no sheet, rather than nothing
    ((photo, match),) = named_photos(tmp_path, 1)
    page = await judge_page(served, browser_context, "/import", (390, 844))
    await page.set_input_files("#files", str(photo))
    await page.fill("#players-by-id", "hall-9.9,Ana,Ines\n")
    await page.click("#import-button")
    said = await finished(page, 1)
    assert said == "1 of 1 file(s) read: 0 imported, 1 refused", (said, await page.text_content("#results"))
    refused = [str(await li.text_content()) for li in await page.locator("#results li.refused").all()]
    assert len(refused) == 2, refused
    assert f"match {match} has no line in the players by match id" in refused[0], refused
    assert refused[1] == (
        "players by match id used by no sheet: no photo of the batch was imported (each said above)"
    ), refused
    assert await served.store.events(match) == []


async def test_the_players_list_loaded_from_a_text_file_on_the_korean_page(
    served: Served, browser_context: BrowserContext, tmp_path: Path
) -> None:
    # the same text file as --players-file, chosen with the page's picker; a bad line said in Korean
    ((photo, match),) = named_photos(tmp_path, 1)
    names = tmp_path / "names.txt"
    names.write_text(f"{match},Mara,Teodor\n", "utf-8")
    page = await judge_page(served, browser_context, "/import?lang=ko", (1440, 900))
    await page.set_input_files("#players-file", str(names))
    await page.wait_for_function("() => document.getElementById('players-by-id').value.includes('Mara')")
    await page.set_input_files("#files", str(photo))
    assert await page.locator("#queue li").count() == 1  # the list is not a file of the batch
    await page.click("#import-button")
    said = await finished(page, 1)
    assert await page.locator("#results li.done").count() == 1, said
    assert await players(served, match) == ["Mara", "Teodor"]
    await page.fill("#players-by-id", "Kai,Yuki\n")
    await page.set_input_files("#files", str(photo))
    await page.click("#import-button")
    await finished(page, 1)
    refused = str(await page.locator("#results li.refused").text_content())
    assert "players_by_id" in refused and "플레이어 칸" in refused, refused


async def test_a_players_list_that_cannot_be_read_stops_the_batch_s_photos_not_its_logs(
    served: Served, browser_context: BrowserContext, tmp_path: Path
) -> None:
    # a list the service cannot read would refuse every photo sent with it alike: the page sends the
    # first, says why beside it, and sends no other photo (a log of the batch still goes)
    (one, first), (two, _second) = named_photos(tmp_path, 2)
    log = tmp_path / "game-1.txt"
    shutil.copy(LOGS / GOOD[0], log)
    page = await judge_page(served, browser_context, "/import", (1440, 900))
    sent: list[str] = []
    page.on("request", lambda r: sent.append(r.url) if r.method == "POST" and "/import" in r.url else None)
    await page.set_input_files("#files", [str(one), str(two), str(log)])
    await page.fill("#players-by-id", f"{first},Kai,Yuki\nhand 2,Mara,Teodor\n")
    await page.click("#import-button")
    said = await finished(page, 3)
    assert said == "3 of 3 file(s) read: 1 imported, 2 refused", (said, await page.text_content("#results"))
    rows = [str(await li.text_content()) for li in await page.locator("#results li").all()]
    assert "line 2: field players_by_id: 'hand 2' is not a match id" in rows[0], rows
    assert "not sent: mend the players by match id (said above)" in rows[1], rows
    assert await page.locator("#results li.done").count() == 1, rows  # the log
    assert len(sent) == 2, sent  # the first photo and the log: the second photo never left the page
    assert await served.store.events(first) == []
    assert await page.evaluate("document.activeElement.id") == "players-by-id"
