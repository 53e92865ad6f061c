"""The import page's batch against the command line, on the same files, in one run (issue 36).

    python bench/import_page.py [--logs 40] [--lines 300] [--rounds 2]

A batch of generated battle logs (replay/generators/synthetic.py: never real players' logs) is imported
(a) by ``prizecheck import ptcgl FILE... -o events.jsonl``, the importers alone, no store: the baseline;
(b) through ``POST /import`` of a running ``prizecheck serve`` (embedded Redis), one file a request as the
page sends them: the importers, the ownership check, the ingest core and the store.
Prints files/s of each and the ratio, round by round, alternating, and the medians. These machines are
noisy: read the ratio of the same round.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
import uuid
from pathlib import Path

from replay.generators.synthetic import synthetic_log

PRIZECHECK = [sys.executable, "-m", "replay.cli"]


def write_logs(folder: Path, n: int, lines: int, tag: str) -> list[Path]:
    out = []
    for i in range(n):
        text, _, _, _ = synthetic_log(1000 + i, target_lines=lines)
        path = folder / f"{tag}-{i:03d}.txt"
        path.write_text(text, "utf-8")
        out.append(path)
    return out


def cli(files: list[Path], folder: Path) -> float:
    start = time.perf_counter()
    done = subprocess.run(
        [*PRIZECHECK, "import", "ptcgl", *map(str, files), "-o", str(folder / "events.jsonl"), "-q"],
        capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    if done.returncode not in (0, 1):
        raise SystemExit(f"prizecheck import failed: {done.stderr[-500:]}")
    return len(files) / (time.perf_counter() - start)


def multipart(path: Path) -> tuple[bytes, str]:
    boundary = uuid.uuid4().hex
    head = (
        f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="{path.name}"\r\n'
        "Content-Type: text/plain\r\n\r\n"
    ).encode()
    return head + path.read_bytes() + f"\r\n--{boundary}--\r\n".encode(), boundary


def page(files: list[Path], url: str, token: str) -> float:
    start = time.perf_counter()
    for path in files:  # one file a request, one after the other: what static/import.js does
        body, boundary = multipart(path)
        request = urllib.request.Request(
            f"{url}/import",
            data=body,
            headers={
                "Authorization": f"Bearer {token}",
                "Content-Type": f"multipart/form-data; boundary={boundary}",
            },
        )
        with urllib.request.urlopen(request, timeout=120) as answer:
            if answer.status != 200:
                raise SystemExit(f"POST /import {path.name}: {answer.status}")
    return len(files) / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--logs", type=int, default=40)
    parser.add_argument("--lines", type=int, default=300)
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="prizecheck-bench-import-") as tmp:
        folder = Path(tmp)
        env = {k: v for k, v in os.environ.items() if k != "REDIS_URL"}
        env["PRIZECHECK_DATA_DIR"] = str(folder / "data")
        env["LC_ALL"] = "C.UTF-8"  # the lines read below are in the environment's language
        made = subprocess.run(
            [*PRIZECHECK, "token", "create", "--role", "judge", "--name", "bench"],
            env=env, capture_output=True, text=True, timeout=60, check=True,
        )  # fmt: skip
        token = made.stdout.strip().split()[-1]
        serve = subprocess.Popen(
            [*PRIZECHECK, "serve", "--port", "0"], env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
            text=True,
        )  # fmt: skip
        try:
            assert serve.stdout is not None
            line = serve.stdout.readline()
            url = line.split("listening on ")[1].split()[0]
            ratios, cli_rates, page_rates = [], [], []
            for k in range(args.rounds):
                files = write_logs(folder, args.logs, args.lines, f"r{k}")  # new ids each round
                base = cli(files, folder)
                mine = page(files, url, token)
                cli_rates.append(base)
                page_rates.append(mine)
                ratios.append(mine / base)
                print(
                    f"round {k + 1}: {args.logs} logs of ~{args.lines} lines: CLI import {base:.1f} files/s, "
                    f"POST /import {mine:.1f} files/s, ratio {mine / base:.2f}"
                )
            base, mine = statistics.median(cli_rates), statistics.median(page_rates)
            print(
                f"median: CLI {base:.1f} files/s, page {mine:.1f} files/s, "
                f"ratio {statistics.median(ratios):.2f} (the page also stores every game; "
                f"load {os.getloadavg()[0]:.1f})"
            )
        finally:
            serve.terminate()
            serve.wait(timeout=60)


if __name__ == "__main__":
    main()
