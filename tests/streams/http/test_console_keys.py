"""Fewer keys, no typing (issue 33 item 4): a whole game played at the table console with the keyboard
at 1,440 px and by touch at 390 px, in chromium against ``prizecheck serve`` on a real Redis, counting
the operator's keys and taps per turn.

Once the match is started (its players and deck lists typed in the start form), nothing is typed: the
setup's Pokémon, the Energy attached, the Trainer played and the attack (its name and its printed damage)
are the console's picks, from the match's deck lists and the card catalogue; the engine's prompts do the
first draw, the knockouts, the prizes and the promotions; ending a turn is one key, which also does the
checkup, the next turn's start and its draw when the checkup has nothing to place. A typical turn (draw,
attach, one Trainer, attack, knockout, prize, promotion) must take at most 12 keys or taps. The test
prints the count per turn, and checks the stored record: the attacks as the catalogue prints them, the
win by prizes.
"""

from __future__ import annotations

import contextlib
import itertools
import json
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest
from playwright.async_api import Browser

from tests.streams.http.console_harness import (
    Console,
    ConsoleService,
    console_service,
    path_of,
    shot,
    start_match,
)

pytestmark = [pytest.mark.browser, pytest.mark.redis]

ASH = "Pokémon: 4\n4 Pikachu ex SVI 57\nTrainer: 4\n4 Nest Ball SVI 181\nEnergy: 4\n4 Lightning Energy SVE 4"
MISTY = (
    "Pokémon: 3\n1 Lapras ex MEW 131\n1 Wellspring Mask Ogerpon ex TWM 64\n1 Chien-Pao ex PAL 61\n"
    "Trainer: 4\n4 Iono PAL 185\nEnergy: 4\n4 Water Energy SVE 3"
)
#: A typical turn's most keys or taps (issue 33 item 4).
TARGET = 12


@pytest.fixture(scope="module")
def service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ConsoleService]:
    yield from console_service(tmp_path_factory.mktemp("console-keys"))


class Operator:
    """The operator's hands: keys at a laptop, taps on a phone. Each press or tap counts one."""

    def __init__(self, c: Console, touch: bool) -> None:
        self.c = c
        self.page = c.page
        self.touch = touch
        self.count = 0

    async def _hit(self, key: str, selector: str) -> None:
        self.count += 1
        if self.touch:
            await self.page.locator(selector).first.tap()
        else:
            await self.page.keyboard.press(key)

    async def open(self, action: str, key: str) -> None:
        """An action's form: its key, or its button."""
        await self._hit(key, f'#action-keys button[data-action="{action}"]')
        await self.page.locator("#action-form").wait_for(state="visible")

    async def pick(self, n: int) -> None:
        """The form's pick ``n`` (a card, an attack): its digit, or a tap on it."""
        selector = f'#action-picks button[data-pick="{n}"]'
        await self.page.wait_for_selector(selector)
        await self._hit(str(n), selector)

    async def player(self, name: str) -> None:
        self.count += 1
        await self.page.locator("#action-form [name=player]").select_option(name)

    async def add(self) -> None:
        before = await self.c.waiting_or_drafts()
        await self._hit("Enter", "#action-form button[type=submit]")
        await self.c._moved(before)

    async def accept(self, prompt: str) -> None:
        await self.c.wait_prompt(prompt)
        assert (await self.c.prompt_ids())[0] == prompt, await self.page.inner_text("#prompts")
        before = await self.c.waiting_or_drafts()
        await self._hit("Enter", f'#prompts button[data-prompt="{prompt}"]')
        await self.c._moved(before)

    async def choose(self, n: int) -> None:
        selector = f'#prompts button[data-choice="{n}"]'
        await self.page.wait_for_selector(selector)
        before = await self.c.waiting_or_drafts()
        await self._hit(str(n), selector)
        await self.c._moved(before)

    async def end_turn(self) -> None:
        before = await self.c.waiting_or_drafts()
        await self._hit("n", '#action-keys button[data-action="endturn"]')
        await self.c._moved(before)


@contextlib.asynccontextmanager
async def opened(
    service: ConsoleService, browser: Browser, match: str, width: int, touch: bool
) -> AsyncIterator[Console]:
    size = (width, 900 if width > 700 else 844)
    options: dict[str, Any] = (
        {"has_touch": True, "is_mobile": True, "device_scale_factor": 2} if touch else {}
    )
    context = await browser.new_context(viewport={"width": size[0], "height": size[1]}, **options)
    try:
        yield await Console.open(context, service, match, size=size)
    finally:
        await context.close()


@pytest.mark.parametrize(("width", "touch"), [(1440, False), (390, True)], ids=["keyboard-1440", "touch-390"])
async def test_a_whole_game_with_no_typing_and_at_most_12_keys_a_turn(
    service: ConsoleService, browser: Browser, width: int, touch: bool
) -> None:
    match = f"keys/w{width}"
    async with opened(service, browser, match, width, touch) as c:
        page = c.page
        if touch:
            # the start and the setup held as drafts (the default): the picks come from the draft's deck
            # lists (the preview's), then everything is published at once by going live
            await page.wait_for_selector("#start-box", state="visible")
            for name, value in {"p1": "ash", "p2": "misty", "deck1": ASH, "deck2": MISTY}.items():
                await page.locator(f"#start-form [name={name}]").fill(value)
            before = await c.waiting_or_drafts()
            await page.click("#start-form button[type=submit]")
            await c._moved(before)
            assert (await page.inner_text("#drafts")).startswith("1 ")
        else:
            await start_match(c, p1="ash", p2="misty", deck1=ASH, deck2=MISTY)
            await page.keyboard.press("w")  # live: each action published as it is recorded
        # what is typed into a field from here on (a pick fills a field without a keystroke)
        await page.evaluate(
            """() => { window.typed = 0; document.addEventListener('input', (e) => { if (e.target.matches(
                 'input:not([type=checkbox]), textarea')) window.typed += 1; }, true); }"""
        )
        op = Operator(c, touch)
        # the setup: each side's Active, then its Bench, picked from the deck lists (HP and rule box from
        # the catalogue)
        await op.open("setup", "s")
        await op.pick(1)
        await op.add()
        await op.open("setup", "s")
        await op.player("misty")
        for n in (1, 2, 3):
            await op.pick(n)
        await op.add()
        setup_keys = op.count
        if touch:
            assert (await page.inner_text("#drafts")).startswith("3 ")
            await page.keyboard.press("w")  # live: the drafts are published first
            await page.wait_for_function(
                "() => document.getElementById('drafts').textContent.startsWith('0 ')"
            )
            await c.settled()
        per_turn: dict[int, int] = {}

        async def turn(n: int, attack: int | None, knockout: bool, last: bool = False) -> None:
            start = op.count
            if n == 1:
                await op.accept("turn_started")  # the first turn's start and its draw
            # (every other turn started and drew with the end of the one before: the checkup had nothing
            # to place)
            await op.open("attach", "a")  # the player's Energy, on the Active
            await op.add()
            await op.open("trainer", "p")
            await op.pick(1)  # the deck list's Trainer
            await op.add()
            if attack is not None:
                await op.open("attack", "k")  # the Active, at the opponent's Active
                if attack > 1:
                    await op.pick(attack)  # another of the card's attacks: its printed damage with it
                if n == 3 and not touch and (path := shot("picks")) is not None:
                    await page.wait_for_function(
                        "() => document.querySelector('#action-form [name=amount]').value"
                    )
                    await page.screenshot(path=str(path))
                await op.add()
                await op.accept("attack_ended")  # the knockout, the prizes
                if knockout and not last:
                    await op.choose(1)  # the promotion
            if not last:
                await op.end_turn()
            per_turn[n] = op.count - start

        await turn(1, None, False)  # ash: no attack on the first player's first turn
        await turn(2, 1, False)  # misty: Lapras ex's Power Splash, 40
        await turn(3, 2, True)  # ash: Pikachu ex's Dynamic Bolt, 220: Lapras ex is knocked out
        await turn(4, 1, False)  # misty: Wellspring Mask Ogerpon ex's Sob, 20
        await turn(5, 2, True)
        await turn(6, 1, False)  # misty: Chien-Pao ex's Hail Blade, 60
        await turn(7, 2, True, last=True)  # the last prize cards: ash wins
        await page.wait_for_selector('#prompts li:has-text("Game over")')
        mode = "touch at 390 px" if touch else "keyboard at 1440 px"
        print(f"\nkeys or taps per turn, {mode} (setup: {setup_keys}): {per_turn}")
        assert await page.evaluate("() => window.typed") == 0  # nothing typed once the match started
        assert max(per_turn.values()) <= TARGET, per_turn
        assert per_turn[3] == per_turn[5] == 11, per_turn  # the typical turn: attach to the turn's end

        r = await page.request.get(
            f"{service.url}/matches/{path_of(match)}/events",
            headers={"Authorization": f"Bearer {service.tokens['judge']}"},
        )
        events = [json.loads(line) for line in (await r.text()).splitlines()]
        attacks = [(e["name"], n["amount"]) for e, n in itertools.pairwise(events) if e["type"] == "attack"]
        assert attacks == [
            ("Power Splash", 40),
            ("Dynamic Bolt", 220),
            ("Sob", 20),
            ("Dynamic Bolt", 220),
            ("Hail Blade", 60),
            ("Dynamic Bolt", 220),
        ], attacks
        attached = {
            (e["player"], e["card"]["name"], e["card"]["kind"]) for e in events if e["type"] == "attached"
        }
        assert attached == {("ash", "Lightning Energy", "energy"), ("misty", "Water Energy", "energy")}
        played = {
            (e["player"], e["card"]["name"], e["card"]["kind"])
            for e in events
            if e["type"] == "trainer_played"
        }
        assert played == {("ash", "Nest Ball", "item"), ("misty", "Iono", "supporter")}
        setups = {e["player"]: e for e in events if e["type"] == "setup"}
        assert setups["misty"]["active"]["card"] == {"name": "Lapras ex", "hp": 220, "rule": "ex"}
        assert [b["card"]["name"] for b in setups["misty"]["bench"]] == [
            "Wellspring Mask Ogerpon ex",
            "Chien-Pao ex",
        ]
        r = await page.request.get(
            f"{service.url}/matches/{path_of(match)}/record",
            headers={"Authorization": f"Bearer {service.tokens['judge']}"},
        )
        record = await r.json()
        assert record["result"] == {**record["result"], "winner": "ash", "reason": "prizes"}, record["result"]
        assert len(record["knockouts"]) == 3
        assert not [f for f in record["findings"] if f["severity"] == "violation"], record["findings"]
