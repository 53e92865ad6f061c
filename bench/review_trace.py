"""Where a review page step's time goes, in chromium's own trace: layout, style, garbage collection.

    python bench/review_trace.py [--steps 300]

The steps of ``bench/review.py`` (the 1,288- and the 50,232-event game, ``--steps`` random seqs each, one
step after another in one task, every window read) under the Chrome DevTools Protocol's ``Tracing``,
each step between two ``performance.mark``s made by this bench (not by the page). For each game, a
step's mean and its slowest 5 %'s mean of: the wall time of the layouts (``Layout``) and the style
recalculations (``UpdateLayoutTree``) in it and their CPU time (the trace's thread time, less swayed by
a loaded machine than the wall clock), how many of each, the layout objects they found dirty and the
elements they styled, and the garbage collector's pauses. Tracing slows the page: read the shares and
the counts, not the times, against ``bench/review.py``'s (issue 40 item 4, sixth pass:
docs/performance.md).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any

import aiohttp

sys.path[:0] = [str(Path(__file__).resolve().parent)]

from review import ARGS, CHROMIUM, Server, long_game, pct  # noqa: E402

STEP = """seqs => seqs.map((seq, k) => { performance.mark("s" + k); const t0 = performance.now();
  window.__review.goTo(seq); void document.body.offsetHeight; const took = performance.now() - t0;
  performance.mark("e" + k); return took; })"""
CATEGORIES = ["devtools.timeline", "disabled-by-default-devtools.timeline", "blink.user_timing", "v8.gc"]
KINDS = ("Layout", "UpdateLayoutTree", "MinorGC", "MajorGC")


def per_step(events: list[dict[str, Any]], n: int) -> list[dict[str, float]]:
    """Each step's sums of the trace's events of KINDS on the page's main thread."""
    marks = {e["name"]: e["ts"] for e in events if e.get("cat") == "blink.user_timing"}
    main = {(e["pid"], e["tid"]) for e in events if e.get("cat") == "blink.user_timing"}
    spans = [(marks.get(f"s{k}"), marks.get(f"e{k}")) for k in range(n)]
    out: list[dict[str, float]] = [{} for _ in range(n)]
    for e in events:
        if e.get("ph") != "X" or e.get("name") not in KINDS or (e.get("pid"), e.get("tid")) not in main:
            continue
        k = next(
            (k for k, (a, b) in enumerate(spans) if a is not None and b is not None and a <= e["ts"] <= b),
            None,
        )
        if k is None:
            continue
        name, args, step = e["name"], e.get("args", {}), out[k]
        step[name] = step.get(name, 0) + e["dur"] / 1000
        step[name + " CPU"] = step.get(name + " CPU", 0) + e.get("tdur", 0) / 1000
        step[name + " count"] = step.get(name + " count", 0) + 1
        if name == "Layout":
            step["dirty objects"] = step.get("dirty objects", 0) + (
                (args.get("beginData") or {}).get("dirtyObjects") or 0
            )
        if name == "UpdateLayoutTree":
            step["elements styled"] = step.get("elements styled", 0) + (args.get("elementCount") or 0)
    return out


def report(match: str, times: list[float], steps: list[dict[str, float]]) -> None:
    n = len(times)
    slow = sorted(range(n), key=lambda k: times[k])[int(0.95 * n) :]
    print(
        f"{match}: step p50 {pct(times, 0.5):.1f} / p95 {pct(times, 0.95):.1f}"
        f" / max {max(times):.1f} ms (traced)"
    )
    print(f"  {'a step':30}{'mean':>10}{'slowest 5 %':>14}")
    print(f"  {'step (ms)':30}{statistics.mean(times):10.2f}{statistics.mean(times[k] for k in slow):14.2f}")
    for key in sorted({key for step in steps for key in step}):
        print(
            f"  {key:30}{sum(s.get(key, 0) for s in steps) / n:10.2f}"
            f"{sum(steps[k].get(key, 0) for k in slow) / len(slow):14.2f}"
        )


async def measure(server: Server, count: int) -> None:
    from playwright.async_api import async_playwright

    games = {"bench-mid": long_game("bench-mid", 1288), "bench-long": long_game("bench-long", 50_000)}
    headers = {"Authorization": f"Bearer {server.token}"}
    async with aiohttp.ClientSession() as http:
        for events in games.values():
            for at in range(0, len(events), 10_000):
                async with http.post(
                    f"{server.url}/events", json=events[at : at + 10_000], headers=headers
                ) as r:
                    if r.status != 200:
                        raise SystemExit(f"posting the game failed: {r.status}")
    async with async_playwright() as pw:
        browser = await pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            page = await browser.new_page(viewport={"width": 1440, "height": 900})
            page.set_default_timeout(300_000)
            await page.goto(f"{server.url}/login?next=/ui")
            await page.fill("#token", server.token)
            await page.click("#login button[type=submit]")
            await page.wait_for_url(f"{server.url}/ui")
            rng = random.Random(1)
            for match, events in games.items():
                await page.goto(f"{server.url}/review/{match}")
                await page.wait_for_selector('body[data-ready="1"]', state="attached")
                seqs = [rng.randint(1, len(events)) for _ in range(count)]
                await page.evaluate(STEP, seqs[:20])  # warm up
                cdp = await page.context.new_cdp_session(page)
                trace: list[dict[str, Any]] = []
                done = asyncio.Event()
                cdp.on("Tracing.dataCollected", lambda p, into=trace: into.extend(p["value"]))
                cdp.on("Tracing.tracingComplete", lambda _, end=done: end.set())
                config = {"includedCategories": CATEGORIES}
                await cdp.send("Tracing.start", {"traceConfig": config, "transferMode": "ReportEvents"})
                times = await page.evaluate(STEP, seqs)
                await cdp.send("Tracing.end")
                await done.wait()
                report(match, times, per_step(trace, len(times)))
        finally:
            await browser.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--steps", type=int, default=300)
    args = parser.parse_args()
    print(f"load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    with tempfile.TemporaryDirectory(prefix="prizecheck-bench-trace-") as tmp:
        server = Server(Path(tmp))
        try:
            asyncio.run(measure(server, args.steps))
        finally:
            server.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
