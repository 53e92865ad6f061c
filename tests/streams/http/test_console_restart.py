"""Nothing lost (issue 22 item 4): the console's outbox survives the service killed with SIGKILL, a reload
and a dropped network, in chromium against ``prizecheck serve`` on a real Redis (AOF, fsync always).

The operator keeps recording while the service is dead: the page says it is offline and how many events
wait. The page is closed and opened again (its IndexedDB outbox is all it has), the service restarts on
the same port and files, and the console sends what waited. The archive then holds every recorded event
exactly once, in the console's order, and ``prizecheck check`` finds nothing wrong.
"""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from playwright.async_api import BrowserContext

from tests.faults.harness import assert_holds
from tests.streams.http.console_harness import Console, ConsoleService, console_service, shot

pytestmark = [pytest.mark.browser, pytest.mark.redis]


@pytest.fixture(scope="module")
def service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ConsoleService]:
    yield from console_service(tmp_path_factory.mktemp("console-restart"))


async def start(c: Console, first: str = "ash", second: str = "misty") -> None:
    page = c.page
    await page.wait_for_selector("#start-box", state="visible")
    await page.fill("#start-form [name=p1]", first)
    await page.fill("#start-form [name=p2]", second)
    await page.click("#start-form button[type=submit]")
    await page.wait_for_function("() => document.getElementById('drafts').textContent.startsWith('1 ')")
    await c.publish()
    await page.keyboard.press("w")  # live: each action is sent as it is recorded


async def test_the_console_resumes_after_sigkill_and_a_reload(
    service: ConsoleService, browser_context: BrowserContext
) -> None:
    match = "restart/g1"
    c = await Console.open(browser_context, service, match)
    await start(c)
    await c.act("s", player="ash", card="Pikachu", hp=60)
    await c.act("s", player="misty", card="Staryu", hp=60, bench="Psyduck, 70")
    await c.accept("turn_started")
    await c.act("a", player="ash", mon="ash: Pikachu", card="Lightning Energy")
    before = (await c.state())["next_seq"] - 1

    service.kill9()  # mid-game: no shutdown code runs
    page = c.page
    for n, text in enumerate(("first note", "second note", "third note"), start=1):
        await page.keyboard.press("q")
        await page.fill("#action-form [name=text]", text)
        await page.press("#action-form [name=text]", "Enter")
        await page.wait_for_function(
            "n => document.getElementById('waiting').textContent === n + ' waiting'", arg=n
        )
    await page.wait_for_selector('#net[data-state="offline"]')
    assert (await page.inner_text("#waiting")) == "3 waiting"
    if (path := shot("offline")) is not None:
        await page.screenshot(path=str(path))
    await page.close()  # a reload while the service is down: the outbox is in IndexedDB only

    service.start()
    c = await Console.open(browser_context, service, match)  # the same browser: the same IndexedDB
    await c.settled()
    await c.page.wait_for_selector('#net[data-state="online"]')
    view = await c.state()
    assert view["next_seq"] - 1 == before + 3
    notes = [
        e for e in json.loads("[" + ",".join((await c.export()).splitlines()) + "]") if e["type"] == "note"
    ]
    assert [n["text"] for n in notes] == ["first note", "second note", "third note"]
    # the game goes on from the console as if nothing happened
    await c.key("n")  # the turn ends; nothing to place: the checkup, misty's turn and draw in the same step
    await c.act("o", player="misty")
    view = await c.state()
    assert view["status"] == "finished", (view["log"][-3:], view["prompts"], await c.error())
    assert view["board"]["result"]["winner"] == "ash"
    events = [json.loads(line) for line in (await c.export()).splitlines()]
    assert [e["seq"] for e in events] == list(range(1, len(events) + 1))  # none lost, none twice
    assert_holds(service.check())
