"""The table console's tests' service and page driver (docs/console.md).

- :class:`ConsoleService`: ``prizecheck serve`` as a process (with tokens: a recorder, a recorder scoped
  to league L2, one to table 12 of event Cup, a judge, an organizer), on a private ``redis-server`` with
  AOF (tests/faults/harness.py), killed with SIGKILL and restarted on the same port and files when a test
  says so.
- :class:`Console`: a console page in chromium, driven the way an operator drives it: keys, the fields of
  an action, the prompts the engine answers with (Enter, 1-9), publish (l), undo (z).
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
from playwright.async_api import BrowserContext, Page

from streams.tokens import new_token
from tests.faults.harness import RedisServer, Service, _spawn, base_env, run_check, wait_until
from tests.fixtures_kafka import free_port

SHOTS = os.environ.get("PRIZECHECK_SCREENSHOTS")


def shot(name: str) -> Path | None:
    """Where a screenshot for docs/console.md goes (only when ``PRIZECHECK_SCREENSHOTS`` is set)."""
    if not SHOTS:
        return None
    path = Path(SHOTS) / f"console-{name}.png"
    path.parent.mkdir(parents=True, exist_ok=True)
    return path


@dataclass
class ConsoleService:
    """A real ``prizecheck serve`` with tokens, on a real Redis; restartable on the same port."""

    workdir: Path
    redis: RedisServer
    env: dict[str, str]
    port: int
    tokens: dict[str, str] = field(default_factory=dict)
    serves: list[Service] = field(default_factory=list)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> Service:
        name = f"serve{len(self.serves) + 1}"
        serve = _spawn(name, ["serve", "--port", str(self.port)], self.env, self.workdir)
        mark = len(serve.lines())

        def listening() -> bool:
            if not serve.alive():
                pytest.fail(f"serve exited at start\n{serve.tail()}")
            return any("listening on" in line for line in serve.lines()[mark:])

        wait_until(f"{name} to listen on {self.port}", listening, 60, serve.tail)
        self.serves.append(serve)
        return serve

    def kill9(self) -> None:
        self.serves[-1].kill9()

    def check(self, *args: str) -> Any:
        return run_check(self.env, "--redis", self.redis.url, *args)

    def stop(self) -> None:
        for s in self.serves:
            s.stop()
        self.redis.stop()


def console_service(workdir: Path) -> Iterator[ConsoleService]:
    """A fixture's body: the service, stopped afterwards."""
    redis = RedisServer(workdir)
    redis.start()
    tokens: dict[str, str] = {}
    entries = []
    for name, roles, scope in (
        ("recorder", ["recorder"], {}),
        ("recorder_l2", ["recorder"], {"leagues": ["L2"]}),
        ("recorder_t12", ["recorder"], {"events": ["Cup"], "tables": ["12"]}),
        ("judge", ["judge"], {}),
        ("organizer", ["organizer"], {}),
        ("ingest", ["ingest"], {}),
    ):
        token, entry = new_token(name, roles, **scope)
        tokens[name] = token
        entries.append(entry.as_json())
    env = base_env(
        REDIS_URL=redis.url,
        PRIZECHECK_DATA_DIR=str(workdir / "data"),
        PRIZECHECK_TOKENS=json.dumps({"tokens": entries}),
        PRIZECHECK_TOKENS_FILE=str(workdir / "no-token-file.json"),
    )
    service = ConsoleService(workdir, redis, env, free_port(), tokens)
    try:
        service.start()
        yield service
    finally:
        service.stop()


def path_of(match: str) -> str:
    return quote(match, safe="/:")


class Console:
    """One console page, driven by keys and fields like an operator (see the module docstring)."""

    def __init__(self, page: Page, service: ConsoleService, match: str) -> None:
        self.page = page
        self.service = service
        self.match = match
        # what the operator did, as the issue 33 item 4 counts it: keys and taps (an action's key, a choice
        # in a list, Enter, a prompt), and fields typed (a name, an amount); a field left as the form
        # filled it counts nothing
        self.keys = 0
        self.typed = 0

    @classmethod
    async def open(
        cls,
        context: BrowserContext,
        service: ConsoleService,
        match: str,
        *,
        token: str = "recorder",
        size: tuple[int, int] = (1024, 900),
    ) -> Console:
        """Log in (the page needs the recorder's session), open the console and give it the token."""
        page = await context.new_page()
        await page.set_viewport_size({"width": size[0], "height": size[1]})
        await page.goto(f"{service.url}/console/{path_of(match)}")
        if page.url.split("?")[0].endswith("/login"):
            await page.wait_for_selector("#token")
            await page.fill("#token", service.tokens[token])
            await page.click("#login button[type=submit]")
            await page.wait_for_url(lambda url: "/console/" in url)
        await page.wait_for_selector('body[data-ready="true"]', state="attached")
        if await page.is_visible("#token-box"):
            await page.fill("#token-box #token", service.tokens[token])
            await page.press("#token-box #token", "Enter")
        await page.wait_for_selector("body[data-next]", state="attached")  # the service has answered
        return cls(page, service, match)

    # ------------------------------------------------------------------------------------ reading
    async def state(self) -> dict[str, Any]:
        """What the service says of the match (the console's own JSON endpoint, as the page reads it)."""
        token = self.service.tokens["recorder"]
        r = await self.page.request.get(
            f"{self.service.url}/console/{path_of(self.match)}/state",
            headers={"Authorization": f"Bearer {token}"},
        )
        assert r.status == 200, await r.text()
        data: dict[str, Any] = await r.json()
        return data

    async def settled(self, timeout: float = 15.0) -> None:
        """Until nothing waits in the outbox and no request is under way."""
        await self.page.wait_for_function(
            "() => document.getElementById('waiting').textContent.startsWith('0 ')"
            " && !document.body.dataset.busy",
            timeout=timeout * 1000,
        )

    async def prompt_ids(self) -> list[str]:
        ids: list[str] = await self.page.eval_on_selector_all(
            "#prompts button[data-prompt]", "bs => bs.map(b => b.dataset.prompt)"
        )
        return ids

    async def wait_prompt(self, prompt: str, timeout: float = 10.0) -> None:
        try:
            await self.page.wait_for_selector(
                f'#prompts button[data-prompt="{prompt}"]', timeout=timeout * 1000
            )
        except Exception:
            view = await self.state()
            raise AssertionError(
                f"no {prompt} prompt: {view['prompts']} findings {view['findings'][-3:]} "
                f"error {await self.error()} log {view['log'][-4:]} board {view['board']}"
            ) from None

    # ------------------------------------------------------------------------------------ acting
    async def accept(self, prompt: str) -> None:
        """Accept the first prompt with Enter, after checking it is ``prompt`` (what the rules say now)."""
        await self.wait_prompt(prompt)
        ids = await self.prompt_ids()
        assert ids and ids[0] == prompt, (prompt, ids, await self.page.inner_text("#prompts"))
        before = await self.waiting_or_drafts()
        await self.page.keyboard.press("Enter")
        self.keys += 1
        await self._moved(before)

    async def choose(self, n: int) -> None:
        """Pick choice ``n`` of the first prompt (a promotion) with its digit key."""
        await self.page.wait_for_selector(f'#prompts button[data-choice="{n}"]')
        before = await self.waiting_or_drafts()
        await self.page.keyboard.press(str(n))
        self.keys += 1
        await self._moved(before)

    async def act(self, key: str, **fields: Any) -> None:
        """Press an action's key, fill its fields, and add it (Enter)."""
        before = await self.waiting_or_drafts()
        await self.page.keyboard.press(key)
        self.keys += 2  # the action's key, and Enter
        form = self.page.locator("#action-form")
        await form.wait_for(state="visible")
        for name, value in fields.items():
            target = form.locator(f"[name={name}]")
            tag = await target.evaluate("n => n.tagName + ':' + n.type")
            was = await target.evaluate("n => n.type === 'checkbox' ? String(n.checked) : n.value")
            if tag.startswith("SELECT"):
                if name in ("mon", "target"):
                    label = await target.evaluate(
                        "(n, want) => [...n.options].find(o => o.text.startsWith(want))?.value ?? null", value
                    )
                    assert label is not None, (name, value, await target.inner_text())
                    await target.select_option(label)
                else:
                    await target.select_option(str(value))
            elif tag.endswith("checkbox"):
                await target.set_checked(bool(value))
            else:
                await target.fill(str(value))
                # leave the field as a person does before the next one: its change handler (the card's
                # HP from the catalogue) runs now, not in the middle of filling the next field ("6010")
                await target.blur()
            now = await target.evaluate("n => n.type === 'checkbox' ? String(n.checked) : n.value")
            if now != was:
                if tag.startswith("SELECT") or tag.endswith("checkbox"):
                    self.keys += 1
                else:
                    self.typed += 1
        await form.locator("button[type=submit]").press("Enter")
        await self._moved(before)

    async def key(self, key: str) -> None:
        """Press an action's key that records at once, with no form (``n``: the turn player's turn ends,
        and, when the checkup has nothing to place, the next turn starts and draws)."""
        before = await self.waiting_or_drafts()
        await self.page.keyboard.press(key)
        self.keys += 1
        await self._moved(before)

    async def publish(self) -> None:
        before = await self.waiting_or_drafts()
        await self.page.keyboard.press("l")
        self.keys += 1
        await self._moved(before)
        await self.page.wait_for_function(
            "() => document.getElementById('drafts').textContent.startsWith('0 ')", timeout=15_000
        )

    async def undo(self) -> None:
        before = await self.waiting_or_drafts()
        await self.page.keyboard.press("z")
        self.keys += 1
        await self._moved(before)

    async def waiting_or_drafts(self) -> str:
        """A mark of the page's last answer: the draft and outbox counts and the view's next seq."""
        mark: str = await self.page.evaluate(
            "() => document.getElementById('drafts').textContent + '|' + "
            "document.getElementById('waiting').textContent + '|' + "
            "(document.body.dataset.next || '')"
        )
        return mark

    async def _moved(self, before: str, timeout: float = 10.0) -> None:
        deadline = time.monotonic() + timeout
        while await self.waiting_or_drafts() == before:
            if time.monotonic() > deadline:
                raise AssertionError(f"the console did not answer ({before}): {await self.error()}")
            await self.page.wait_for_timeout(20)
        await self.settled()

    async def error(self) -> str:
        text: str = await self.page.inner_text("#error") if await self.page.is_visible("#error") else ""
        return text

    async def export(self, fmt: str = "jsonl") -> str:
        token = self.service.tokens["recorder"]
        r = await self.page.request.get(
            f"{self.service.url}/console/{path_of(self.match)}/export?format={fmt}",
            headers={"Authorization": f"Bearer {token}"},
        )
        assert r.status == 200, await r.text()
        return await r.text()


async def start_match(c: Console, **fields: str) -> None:
    """Fill the start form (``p1``, ``p2`` and any other of its fields) and start: published at once in
    live mode, else held as a draft and published (l)."""
    page = c.page
    await page.wait_for_selector("#start-box", state="visible")
    for name, value in fields.items():
        target = page.locator(f"#start-form [name={name}]")
        if await target.evaluate("n => n.type") == "checkbox":
            await target.set_checked(value == "on")
        elif await target.evaluate("n => n.tagName") == "SELECT":
            await target.select_option(value)
        else:
            await target.fill(value)
    held = await page.is_checked("#hold")
    before = await c.waiting_or_drafts()
    await page.click("#start-form button[type=submit]")
    await c._moved(before)
    if held:
        await c.publish()
    await page.wait_for_selector('body[data-status="in_progress"]', state="attached")
