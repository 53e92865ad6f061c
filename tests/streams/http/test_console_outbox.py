"""No action is ever dropped silently (issue 33 item 1), in chromium against ``prizecheck serve`` on a
real Redis, at a laptop's 1,440 px and a phone's 390 px:

- switching live (``w``) while drafts wait sends the drafts first, in order, then the live action;
- a publish fenced by another writer is said at once, in one sentence naming what was not recorded and
  what to do; it leaves nothing in the outbox, and the next action is recorded (no stale fence);
- an action the service refuses for good (a penalty after the end: only a judge may add one) is said at
  once, leaves the outbox and is never retried; void and amend are not offered after the end;
- an action recorded while a publish is still under way goes right after it, and its caller has the
  answer to its own events: the turn's end pressed then still accepts the checkup and starts the next turn.

Each path asserts the stored record afterwards (the match's archive and record as a judge reads them).
And corrections made in the console read right and name who made them (issue 33 item 8).
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import json
import time
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any

import pytest
from playwright.async_api import Browser, Route

from tests.streams.http.console_harness import Console, ConsoleService, console_service, path_of, start_match

pytestmark = [pytest.mark.browser, pytest.mark.redis]


@pytest.fixture(scope="module")
def service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ConsoleService]:
    yield from console_service(tmp_path_factory.mktemp("console-outbox"))


async def stored(c: Console, what: str) -> Any:
    """The match's ``events`` (JSON Lines) or ``record`` as a judge reads them from the service."""
    r = await c.page.request.get(
        f"{c.service.url}/matches/{path_of(c.match)}/{what}",
        headers={"Authorization": f"Bearer {c.service.tokens['judge']}"},
    )
    assert r.status == 200, (what, await r.text())
    text = await r.text()
    return [json.loads(line) for line in text.splitlines()] if what == "events" else json.loads(text)


#: A phone's browser: touch, mobile, a dense screen.
PHONE: dict[str, Any] = {"has_touch": True, "is_mobile": True, "device_scale_factor": 2}


@contextlib.asynccontextmanager
async def opened(
    service: ConsoleService, browser: Browser, match: str, size: tuple[int, int], **options: Any
) -> AsyncIterator[Console]:
    """A console on ``match`` in a fresh browser context of ``size`` (``options``: touch, mobile...)."""
    context = await browser.new_context(viewport={"width": size[0], "height": size[1]}, **options)
    try:
        yield await Console.open(context, service, match, size=size)
    finally:
        await context.close()


async def live_setup(
    c: Console, ash: dict[str, Any] | None = None, misty: dict[str, Any] | None = None
) -> None:
    """ash vs misty started, then live, each player's Active (and Bench) set up."""
    await start_match(c, p1="ash", p2="misty")
    await c.page.keyboard.press("w")  # live
    await c.act("s", player="ash", **(ash or {"card": "Pikachu", "hp": 60}))
    await c.act("s", player="misty", **(misty or {"card": "Staryu", "hp": 70}))


async def outbox_size(c: Console) -> int:
    """How many events wait in the console's outbox (IndexedDB: this browser context's, one match)."""
    n: int = await c.page.evaluate(
        """() => new Promise((done) => {
             const open = indexedDB.open("prizecheck-console");
             open.onsuccess = () => {
               const count = open.result.transaction("outbox").objectStore("outbox").count();
               count.onsuccess = () => done(count.result);
             };
           })"""
    )
    return n


async def until(
    c: Console, probe: Callable[[], Any], what: str, want: object = True, timeout: float = 10.0
) -> None:
    """Poll ``probe`` (a value, or an awaitable of it) until it gives ``want``."""
    deadline = time.monotonic() + timeout
    while True:
        got = probe()
        if inspect.isawaitable(got):
            got = await got
        if got == want:
            return
        assert time.monotonic() < deadline, f"not so after {timeout} s: {what} ({got!r})"
        await c.page.wait_for_timeout(20)


async def counts(c: Console) -> tuple[str, str]:
    drafts: str = await c.page.inner_text("#drafts")
    waiting: str = await c.page.inner_text("#waiting")
    return drafts, waiting


async def wait_text(c: Console, selector: str, start: str) -> None:
    await c.page.wait_for_function(
        "([s, t]) => document.querySelector(s).textContent.startsWith(t)", arg=[selector, start]
    )


async def press_action(c: Console, key: str, **fields: str) -> None:
    """An action's key, its fields, Enter: without waiting for the page to answer (it may refuse)."""
    await c.page.keyboard.press(key)
    form = c.page.locator("#action-form")
    await form.wait_for(state="visible")
    for name, value in fields.items():
        target = form.locator(f"[name={name}]")
        if await target.evaluate("n => n.tagName") == "SELECT":
            await target.select_option(value)
        else:
            await target.fill(value)
    await form.locator("button[type=submit]").press("Enter")


@pytest.mark.parametrize("width", [1440, 390])
async def test_no_action_is_dropped_silently(service: ConsoleService, browser: Browser, width: int) -> None:
    async with opened(service, browser, f"outbox/w{width}", (width, 900)) as c:
        page = c.page
        assert await page.is_checked("#hold")  # drafts are on by default
        await start_match(c, p1="ash", p2="misty")

        # 1. drafts wait; w switches live and sends them first, in order; the live action follows them
        await c.act("s", player="ash", card="Pikachu", hp=60)
        await c.act("s", player="misty", card="Staryu", hp=70)
        assert await counts(c) == ("2 in draft", "0 waiting")
        await page.keyboard.press("w")
        await wait_text(c, "#drafts", "0 ")
        await c.settled()
        assert not await page.is_checked("#hold")
        await c.accept("turn_started")  # Enter, live
        events = await stored(c, "events")
        assert [e["type"] for e in events] == ["match_started", "setup", "setup", "turn_started", "drew"]
        assert [e["seq"] for e in events] == [1, 2, 3, 4, 5]
        assert await c.error() == ""

        # 2. another writer (this browser's other tab: the same console id) takes the seq of a draft
        await page.keyboard.press("w")  # drafts again
        await c.act("q", text="the draft that loses its seq")
        console_id = await page.evaluate("() => localStorage.getItem('pc-console-id')")
        r = await page.request.post(
            f"{service.url}/console/{path_of(c.match)}/events",
            headers={"Authorization": f"Bearer {service.tokens['recorder']}"},
            data=json.dumps(
                {
                    "console": console_id,
                    "events": [{"match": c.match, "seq": 6, "type": "note", "text": "written elsewhere"}],
                }
            ),
        )
        assert r.status == 200, await r.text()
        await page.keyboard.press("l")  # publish: fenced, said at once, nothing left waiting
        await page.wait_for_selector("#error:not([hidden])")
        said = await c.error()
        assert said.startswith("Not recorded: ") and "reload" not in said.lower(), said
        assert "note" in said and "record it again" in said, said
        await wait_text(c, "#drafts", "0 ")
        await wait_text(c, "#waiting", "0 ")
        # the fence is not stale: the next action is recorded, after the other writer's event
        await page.keyboard.press("w")  # live
        await c.act("q", text="after the fence")
        assert await c.error() == ""
        events = await stored(c, "events")
        assert [e.get("text") for e in events[5:]] == ["written elsewhere", "after the fence"]

        # 3. the game ends; a penalty now is for a judge only: refused, said, gone, never retried
        await c.act("o", player="misty")
        record = await stored(c, "record")
        assert record["status"] == "finished" and record["result"]["winner"] == "ash"
        await page.wait_for_function("() => document.body.dataset.status === 'finished'")
        assert await page.locator("#log-list button").count() == 0  # no void, no amend after the end
        await press_action(c, "y", player="ash", penalty="warning")
        await page.wait_for_selector("#error:not([hidden])")
        said = await c.error()
        assert said.startswith("Not recorded: the penalty") and "judge" in said, said
        await wait_text(c, "#waiting", "0 ")
        await page.wait_for_timeout(3500)  # the retry timer's period: nothing is sent again
        assert await counts(c) == ("0 in draft", "0 waiting")
        assert await c.error() == said
        events = await stored(c, "events")
        assert [e["type"] for e in events][-1] == "conceded" and len(events) == 8
        record = await stored(c, "record")
        assert record["penalties"] == [] and record["chain"]["events"] == 8


async def test_a_correction_reads_right_and_names_its_writer(
    service: ConsoleService, browser: Browser
) -> None:
    async with opened(service, browser, "outbox/amend", (1440, 900)) as c:
        page = c.page
        await live_setup(c)
        await c.accept("turn_started")
        await c.act("g", target="misty: Staryu", amount=30)
        wrong = (await c.state())["next_seq"] - 1
        page.once("dialog", lambda dialog: dialog.accept("60"))
        before = await c.waiting_or_drafts()
        await page.locator(f'#log-list li[data-seq="{wrong}"] button', has_text="amend amount").click()
        await c._moved(before)
        events = await stored(c, "events")
        amend = events[-1]
        assert amend["type"] == "correction" and amend["event"] == {"amount": 60}
        assert amend["author"] == "recorder recorder"  # the console's token: a recorder, never "a judge"
        record = await stored(c, "record")
        (corrected,) = [f for f in record["findings"] if f["code"] == "corrected"]
        assert corrected["message"].startswith(f"seq {wrong} amended by recorder recorder;")
        board = (await c.state())["board"]["players"]["misty"]["active"]
        assert board["damage"] == 60
        r = await page.request.get(
            f"{service.url}/review/{path_of(c.match)}/meta",
            headers={"Authorization": f"Bearer {service.tokens['judge']}"},
        )
        line = next(x for x in (await r.json())["log"] if x["type"] == "correction")
        assert line["text"] == (
            f"Correction by recorder recorder: seq {wrong} is amended (amount 30 → 60): "
            f"“Staryu ({events[wrong - 1]['pid']}) takes 60 damage”"
        ), line
        # the console's log says the same (issue 33 item 3: one describer)
        shown = await page.inner_text(f'#log-list li[data-seq="{amend["seq"]}"]')
        assert shown.startswith(f"{amend['seq']} {line['text']}"), shown


async def test_the_console_speaks_the_review_pages_sentences(
    service: ConsoleService, browser: Browser
) -> None:
    # issue 33 item 3: the console's log read "damage pid=p1-2 amount=160"; its findings had no rule
    async with opened(service, browser, "outbox/words", (390, 844)) as c:
        page = c.page
        await live_setup(c)
        await c.accept("turn_started")
        await c.act("p", player="ash", card="Iono", trainer="supporter")
        await c.act("p", player="ash", card="Arven", trainer="supporter")  # a second Supporter
        await c.act(
            "k", player="ash", mon="ash: Pikachu", attack="Thunder Shock", target="misty: Staryu", amount=30
        )
        await page.keyboard.press("w")  # a draft too
        await c.act("q", text="a draft note")
        r = await page.request.get(
            f"{service.url}/review/{path_of(c.match)}/meta",
            headers={"Authorization": f"Bearer {service.tokens['judge']}"},
        )
        review = {line["seq"]: line["text"] for line in (await r.json())["log"]}
        shown = await page.eval_on_selector_all(
            "#log-list li", "ls => ls.map(l => [Number(l.dataset.seq), l.firstChild.textContent])"
        )
        assert len(shown) == len(review) == 9
        for seq, text in shown:
            assert text == f"{seq} {review[seq]}", (seq, text, review[seq])
            assert "=" not in text and "pid" not in text
        attack = next(text for _, text in shown if "attacks" in text)
        assert attack.endswith("Pikachu (p1-2) attacks Staryu (p2-3) with Thunder Shock: 30 damage"), attack
        draft = await page.inner_text("#draft-list")
        assert draft.strip() == "10 Note by console"  # the public projection: no free text
        finding = page.locator("#findings li", has_text="second_supporter")
        link = finding.locator("a")
        assert await link.get_attribute("href") == "/rules#s6"
        assert "Tournament layer" in await link.inner_text()


async def test_what_the_table_did_is_recorded_even_when_it_is_wrong(
    service: ConsoleService, browser: Browser
) -> None:
    # issue 33 item 6: players take 1 prize card where the knockout gives 2; the operator records it
    async with opened(service, browser, "outbox/wrong", (1440, 900)) as c:
        page = c.page
        await live_setup(
            c,
            {"card": "Pikachu ex", "hp": 60, "rule": "ex", "bench": "Pichu, 30"},
            {"card": "Staryu", "hp": 50},
        )
        await c.accept("turn_started")
        await c.key("n")  # the turn ends; nothing to place: the checkup and misty's turn in the same step
        await c.act(
            "k", player="misty", mon="misty: Staryu", attack="Water Gun", target="ash: Pikachu ex", amount=60
        )
        await c.act("v", player="misty", count=1)  # the table's count
        view = await c.state()
        close = view["prompts"][0]
        assert close["id"] == "attack_ended" and close["choices"][0]["text"].endswith("(misty 1)"), close
        await c.choose(1)  # as the table took them
        await c.choose(1)  # ash promotes Pichu
        await c.key("n")  # the turn player's turn ends
        events = await stored(c, "events")
        assert [(e["type"], e.get("count")) for e in events if e["type"] == "prize_taken"] == [
            ("prize_taken", 1)
        ]
        record = await stored(c, "record")
        found = [f["message"] for f in record["findings"] if f["code"] == "prize_count_mismatch"]
        assert found == ["misty took 1 prize(s); the knockouts give 2"], record["findings"]
        # the console says so, with the rule it rests on
        finding = page.locator("#findings li", has_text="prize_count_mismatch")
        assert await finding.locator("a").get_attribute("href") == "/rules#s3"


async def test_the_token_is_asked_once_and_the_attack_aims_at_the_opponent(
    service: ConsoleService, browser: Browser
) -> None:
    # issue 33 item 4: the token was asked at login and again in the console; the attack form preselected
    # the attacker's own Active as the target
    context = await browser.new_context(viewport={"width": 1440, "height": 900})
    try:
        page = await context.new_page()
        await page.goto(f"{service.url}/console/{path_of('outbox/keys')}")
        await page.wait_for_selector("#token")
        await page.fill("#token", service.tokens["recorder"])
        await page.click("#login button[type=submit]")
        await page.wait_for_selector('body[data-ready="true"]', state="attached")
        await page.wait_for_selector("body[data-next]", state="attached")
        assert not await page.is_visible("#token-box")  # asked once, at login
        c = Console(page, service, "outbox/keys")
        await live_setup(
            c,
            {"card": "Pikachu", "hp": 60, "bench": "Pichu, 30"},
            {"card": "Staryu", "hp": 70, "bench": "Psyduck, 70"},
        )
        await c.accept("turn_started")
        await page.keyboard.press("k")
        form = page.locator("#action-form")
        await form.wait_for(state="visible")
        chosen = await form.locator("[name=mon]").evaluate(
            "s => [s.options[s.selectedIndex].text, s.options[0].text]"
        )
        assert chosen == ["ash: Pikachu (active)"] * 2, chosen
        target = await form.locator("[name=target]").evaluate("s => s.options[s.selectedIndex].text")
        assert target == "misty: Staryu (active)"
        # the card's attacks are picks (1-9), each with its printed damage; the first that prints damage is
        # filled in (Pikachu: Quick Attack 10, Electro Ball 50), and a pick fills both
        await page.wait_for_selector('#action-picks button[data-pick="2"]')
        offered = await page.eval_on_selector_all("#action-picks button", "bs => bs.map(b => b.textContent)")
        assert offered == ["[1] Quick Attack 10", "[2] Electro Ball 50"], offered
        assert await form.locator("[name=attack]").input_value() == "Quick Attack"
        assert await form.locator("[name=amount]").input_value() == "10"
        await page.keyboard.press("2")
        assert await form.locator("[name=amount]").input_value() == "50"
        await form.locator("[name=amount]").fill("60")  # typed over: the table says otherwise
        before = await c.waiting_or_drafts()
        await form.locator("button[type=submit]").press("Enter")
        await c._moved(before)
        events = await stored(c, "events")
        attack, damage = events[-2:]
        assert attack["type"] == "attack" and attack["player"] == "ash" and attack["name"] == "Electro Ball"
        assert damage == {**damage, "type": "damage", "amount": 60, "pid": events[2]["active"]["pid"]}
    finally:
        await context.close()


async def test_every_control_fits_a_finger_at_390_px_and_the_prompt_is_at_the_thumb(
    service: ConsoleService, browser: Browser
) -> None:
    # issue 33 item 5: 71 of 92 controls measured 13-22 px at 390 px wide
    async with opened(service, browser, "outbox/touch", (390, 844), **PHONE) as c:
        page = c.page
        await live_setup(c)
        await page.tap('#action-keys button[data-action="condition"]')  # a form open, with its fields
        await page.locator("#action-form").wait_for(state="visible")
        small = await page.evaluate(
            """() => [...document.querySelectorAll('button, a, input, select, textarea')]
                .filter(n => n.offsetParent !== null && n.type !== 'hidden')
                .map(n => [n.outerHTML.slice(0, 60), n.getBoundingClientRect()])
                .filter(([, r]) => r.height < 44 || r.width < 44)
                .map(([h, r]) => h + ' ' + Math.round(r.width) + 'x' + Math.round(r.height))"""
        )
        assert small == [], small
        assert await page.evaluate("() => document.documentElement.scrollWidth") <= 390
        # the prompt is on screen at the bottom whatever the page's scroll
        for y in (0, 10_000):
            await page.evaluate("y => window.scrollTo(0, y)", y)
            box = await page.locator('#prompts button[data-prompt="turn_started"]').bounding_box()
            assert box is not None and box["y"] > 844 / 2 and box["y"] + box["height"] <= 844, (y, box)


async def test_the_overlay_opens_in_a_window_of_its_own(service: ConsoleService, browser: Browser) -> None:
    # issue 33 item 9: an overlay opened as a tab behind the console is throttled by the browser
    async with opened(service, browser, "outbox/overlay", (1440, 900)) as c:
        page = c.page
        assert "own window" in await page.inner_text("#overlay-tip")
        async with page.expect_popup() as popup:
            await page.click("#overlay-link")
        overlay = await popup.value
        await overlay.wait_for_load_state()
        assert overlay.url.endswith("/overlay/outbox/overlay")
        # a popup window: no toolbar or menu bar, i.e. not a tab of the console's window
        assert await overlay.evaluate("() => window.toolbar.visible") is False


async def test_the_board_is_the_interface(service: ConsoleService, browser: Browser) -> None:
    # issue 33 item 4: a tap on a Pokémon acts with it or on it; the keys and taps of a turn are counted
    async with opened(service, browser, "outbox/board", (390, 844), **PHONE) as c:
        page = c.page
        misty = {"card": "Staryu", "hp": 10, "bench": "Psyduck, 70"}
        await live_setup(c, {"card": "Pikachu", "hp": 60, "bench": "Pichu, 30"}, misty)
        taps = 0

        async def tap(selector: str) -> None:
            nonlocal taps
            taps += 1
            await page.locator(selector).first.tap()

        before = await c.waiting_or_drafts()
        await tap('#prompts button[data-prompt="turn_started"]')  # the turn and its draw
        await c._moved(before)
        staryu = (await c.state())["board"]["players"]["misty"]["active"]["pid"]
        pikachu = (await c.state())["board"]["players"]["ash"]["active"]["pid"]
        await tap(f'#side-0 button[data-pid="{pikachu}"]')  # ash's Pikachu: what can it do?
        await tap('#mon-menu button[data-mon-action="attack"]')
        form = page.locator("#action-form")
        assert await form.locator("[name=mon]").input_value() == pikachu  # the tapped one attacks
        assert await form.locator("[name=target]").input_value() == staryu  # the opponent's Active
        # the attack's name and its printed damage are the catalogue's (typed over when the card says
        # otherwise): nothing typed
        await page.wait_for_function("() => document.querySelector('#action-form [name=amount]').value")
        assert await form.locator("[name=attack]").input_value() == "Quick Attack"
        assert await form.locator("[name=amount]").input_value() == "10"
        before = await c.waiting_or_drafts()
        await tap("#action-form button[type=submit]")
        await c._moved(before)
        before = await c.waiting_or_drafts()
        await tap('#prompts button[data-prompt="attack_ended"]')  # the knockout and the prize
        await c._moved(before)
        before = await c.waiting_or_drafts()
        await tap('#prompts button[data-choice="1"]')  # misty promotes Psyduck
        await c._moved(before)
        # a tap on the opponent's Pokémon acts on it: the damage form has it as the target
        psyduck = (await c.state())["board"]["players"]["misty"]["active"]["pid"]
        await page.locator(f'#side-1 button[data-pid="{psyduck}"]').tap()
        await page.locator('#mon-menu button[data-mon-action="damage"]').tap()
        assert await form.locator("[name=target]").input_value() == psyduck
        await page.keyboard.press("Escape")
        print(
            f"\nkeys and taps, ash's turn (draw, attack, knockout, prize, promotion; nothing typed): {taps}"
        )
        # an attachment offers the card the player attached last (their Energy), typed over if another
        await c.act("a", player="ash", mon="ash: Pikachu", card="Lightning Energy", kind="energy")
        await page.locator(f'#side-0 button[data-pid="{pikachu}"]').tap()
        await page.locator('#mon-menu button[data-mon-action="attach"]').tap()
        await page.wait_for_selector('#action-picks button[data-pick="1"]')  # the picks, then filled in
        assert await form.locator("[name=card]").input_value() == "Lightning Energy"
        assert await form.locator("[name=mon]").input_value() == pikachu
        await page.keyboard.press("Escape")
        events = await stored(c, "events")
        kinds = [
            "drew",
            "attack",
            "damage",
            "knocked_out",
            "prize_taken",
            "attack_ended",
            "promoted",
            "attached",
        ]
        assert [e["type"] for e in events[-8:]] == kinds, events[-8:]
        assert events[-6]["pid"] == staryu and events[-6]["amount"] == 10


async def test_a_jp_prize_penalty_is_recorded_with_the_count_the_operator_types(
    service: ConsoleService, browser: Browser
) -> None:
    # issue 34: under jp-3.4 the penalty form offers prize_penalty and a count (1 or 3 first); the event
    # carries the count, and the record lowers what the offender's opponent needs by it
    async with opened(service, browser, "outbox/jp", (1440, 900)) as c:
        await start_match(c, p1="ash", p2="misty", ruleset="jp-3.4")
        await c.page.keyboard.press("w")  # live
        await c.act("s", player="ash", card="Pikachu", hp=60)
        await c.act("s", player="misty", card="Staryu", hp=70)
        await c.act("y", player="misty", penalty="prize_penalty", prizes=3, text="drew extra cards")
        await wait_text(c, "#waiting", "0 ")
        events = await stored(c, "events")
        assert (events[-1]["type"], events[-1]["kind"], events[-1]["prizes"]) == (
            "penalty",
            "prize_penalty",
            3,
        )
        record = await stored(c, "record")
        assert record["prizes"]["ash"]["needed"] == 3


async def test_a_turn_ended_while_the_last_action_is_still_being_sent_starts_the_next_turn(
    service: ConsoleService, browser: Browser
) -> None:
    # The turn's end (n) accepts the checkup when the answer to the turn_ended says it has nothing to
    # place. An operator faster than the network presses n while the action before is still being sent:
    # the turn_ended then waits behind that publish, and n must still read the answer to its own event (it
    # read the board from before the turn's end, and the next turn never started; test_console_keys met
    # the same when the 3-second timer sent what waited a moment before n's own send did).
    async with opened(service, browser, "outbox/slow", (1440, 900)) as c:
        page = c.page
        await live_setup(c)
        await c.accept("turn_started")
        held: list[Route] = []
        release = asyncio.Event()

        async def slow(route: Route) -> None:
            if route.request.method == "POST" and not held:  # the first publish: a slow network
                held.append(route)
                await release.wait()
            await route.continue_()

        await page.route(lambda url: url.split("?")[0].endswith("/events"), slow)
        await press_action(c, "q", text="ash thinks")
        await until(c, lambda: bool(held), "the note's publish is sent")
        await page.keyboard.press("n")  # while the note is still on its way
        await until(c, lambda: outbox_size(c), "the turn_ended waits behind the note", 2)
        release.set()
        await until(c, lambda: outbox_size(c), "nothing waits in the browser", 0)
        await c.settled()  # the turn's end is over
        events = await stored(c, "events")
        assert [e["type"] for e in events[-6:]] == [
            "note",
            "turn_ended",
            "checkup_started",
            "checkup_ended",
            "turn_started",
            "drew",
        ], [e["type"] for e in events[-6:]]
        assert events[-2]["player"] == "misty"
        assert (await c.state())["board"]["turn_player"] == "misty"


#: From now on the page hears of each IndexedDB commit 3 s after it happened (a slow disk): the commit
#: itself is not held, only the page's ``oncomplete``.
SLOW_COMMITS = """() => {
  const own = Object.getOwnPropertyDescriptor(IDBTransaction.prototype, "oncomplete");
  Object.defineProperty(IDBTransaction.prototype, "oncomplete", {
    configurable: true,
    get() { return own.get.call(this); },
    set(fn) { own.set.call(this, fn && ((...a) => setTimeout(() => fn.apply(this, a), 3000))); },
  });
}"""


async def test_an_action_is_sent_without_waiting_for_its_outbox_write(
    service: ConsoleService, browser: Browser
) -> None:
    # issue 40 item 5: the console keeps each action in its outbox (IndexedDB), but its request leaves
    # without waiting for that write to commit (the wait was most of the keypress's time before the request
    # left). The write is still asked for first: the answer's drop comes after it, and nothing stays.
    async with opened(service, browser, "outbox/slow-disk", (1440, 900)) as c:
        page = c.page
        await live_setup(c)
        await c.settled()
        await page.evaluate(SLOW_COMMITS)
        # right after the console's 3-second timer (its look at the archive, nothing waiting): the timer,
        # which sends whatever waits, does not come again before the commit is heard of
        async with page.expect_request(lambda r: r.url.split("?")[0].endswith("/state"), timeout=5000):
            pass
        async with page.expect_request(
            lambda r: r.method == "POST" and r.url.split("?")[0].endswith("/events"), timeout=1500
        ):
            await press_action(c, "q", text="sent at once")
        await until(c, lambda: outbox_size(c), "the answered note left the outbox", 0)
        await c.settled()
        events = await stored(c, "events")
        assert [e.get("text") for e in events[-1:]] == ["sent at once"]
        assert await counts(c) == ("0 in draft", "0 waiting")
        assert await c.error() == ""


async def test_a_render_with_nothing_new_keeps_the_prompt_and_pokemon_buttons_under_the_finger(
    service: ConsoleService, browser: Browser
) -> None:
    # the page renders every few seconds (its 3 s refresh, the lease's 5 s renewal): a button built again
    # each time was a new node, so a tap begun on the old one was lost (and a test's measure of it found
    # nothing, on a loaded machine)
    async with opened(service, browser, "outbox/kept", (390, 844), **PHONE) as c:
        page = c.page
        await live_setup(c)
        # the turn's prompt and the first player's Pokémon
        nodes = """[document.querySelector('#prompts button[data-prompt="turn_started"]'),
                    ...document.querySelectorAll('#side-0 button.mon')]"""
        marked = f"() => {nodes}.map((n) => {{ n.dataset.kept = '1'; return n; }}).length"
        assert await page.evaluate(marked) >= 2
        before = await c.waiting_or_drafts()
        # two refreshes and a renewal later, nothing new: the same nodes
        await page.wait_for_timeout(6_500)
        assert await c.waiting_or_drafts() == before
        kept = await page.evaluate(f"() => {nodes}.map((n) => n.dataset.kept || '')")
        assert kept and all(k == "1" for k in kept), kept
        # and something new builds them again: the prompt pressed, the next turn's prompt is a new one
        await page.tap('#prompts button[data-prompt="turn_started"]')
        await c._moved(before)
        assert await page.evaluate(
            "() => [...document.querySelectorAll('#prompts button')].every((b) => !b.dataset.kept)"
        )
