"""The ingest core and the engine in process, this tree against another (the code before a change), one run.

    python bench/ingest_core.py --before DIR [--rounds 8] [--passes 3] [--events 20000] [--batch-size 600]
                                [--workload core,engine] [--redis-port 6391]
    python bench/ingest_core.py --write-corpus FILE      # the core corpus, for a profiler run by hand

Issue 41 asks that the pipeline and the engine keep their throughput, as a ratio against the old code
measured in the same run. ``bench/pipeline.py`` measures a Faust worker through Kafka, whose batches follow
the run's own speed (a slower round makes smaller batches, so more writes per event), and it runs one
tree only. This bench takes Kafka and the batching out: each round is a fresh process of one tree (its own
``.venv/bin/python``, its own modules first on the path, its compiled engine if ``make install`` built
one), alternately this tree and ``--before``'s, over the same bytes:

``core``: the worker's ``Pipeline.handle_batch`` (decode, the key check, ``IngestCore.ingest_many``) over
    the simulated corpus of ``bench/pipeline.py`` (round-robin over matches, msgpack as produced, 4
    partitions), cut into batches of exactly ``--batch-size`` records, on a private ``redis-server``
    (autopipelined as the worker connects, signed checkpoints kept in memory, ``tune_gc()`` as the worker
    runs). The first batch (every match seen for the first time) is a warm-up and left out. A round's
    process runs the corpus ``--passes`` times (each into a fresh prefix, through a fresh core) and keeps
    the pass with the least CPU: on a shared machine that is the pass the other work disturbed least. The
    figure is the worker's CPU per event (``time.process_time``) over the measured batches; Redis's own CPU
    per event (its ``INFO cpu`` over the whole round, every pass and warm-up) beside it. The first pass's
    stored records are hashed: both trees must store the same bytes.
``engine``: ``Game.apply_msgpack`` over the same canonical bytes, a record per game (``bench/engine.py``'s
    (b)), against msgpack decoding alone of those bytes (its (a)), CPU per event, in the same process.

Each figure is printed per round, then as the median over the rounds with the lowest-highest spread, and
the ratio this tree / before from the medians and per pair of neighbouring rounds (new round i against
old round i, run one after the other). The load average is printed at each round. Prints figures;
asserts only that both trees stored and replayed the same records.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import hashlib
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import zlib
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent

# ------------------------------------------------------------------------------------------ child: one tree


class _Message:
    __slots__ = ("offset", "partition", "topic")

    def __init__(self, topic: str, partition: int, offset: int) -> None:
        self.topic, self.partition, self.offset = topic, partition, offset


class _Event:
    """What ``Pipeline.handle_batch`` reads of a Faust event: key, value, message."""

    __slots__ = ("key", "message", "value")

    def __init__(self, key: bytes, value: bytes, message: _Message) -> None:
        self.key, self.value, self.message = key, value, message


def child_core(args: argparse.Namespace) -> dict[str, Any]:
    """One pass of the corpus through the tree's worker pipeline on Redis; figures as a dict."""
    import msgpack

    from streams.ingest import IngestCore
    from streams.kafka.agents import Pipeline
    from streams.kafka.app import tune_gc
    from streams.kafka.dlq import MemoryDeadLetters
    from streams.settings import Settings
    from streams.store import RedisStore
    from streams.store.connection import connect

    records = msgpack.unpackb(Path(args.records).read_bytes())
    offsets: dict[int, int] = {}
    events = []
    for key, value in records:
        partition = zlib.crc32(key) % 4
        offset = offsets.get(partition, 0)
        offsets[partition] = offset + 1
        events.append(_Event(key, value, _Message("prizecheck.events", partition, offset)))
    size = args.batch_size
    batches = [events[i : i + size] for i in range(0, len(events), size)]

    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)
    settings = Settings(redis_url=f"redis://127.0.0.1:{args.redis_port}/0")
    conn = loop.run_until_complete(connect(settings))
    tune_gc()  # as `prizecheck worker` does
    upto = len(batches) if args.batches is None else 1 + args.batches

    async def one_pass(prefix: str, digest_records: bool) -> dict[str, Any]:
        """The corpus once, into a fresh prefix, through a fresh core and pipeline."""
        store = RedisStore(conn.client, prefix=prefix)
        core = IngestCore(
            store, gap_timeout=5.0, signing_key=b"bench-ingest-core-key-0123456789", key_id="bench"
        )
        pipeline = Pipeline(core, MemoryDeadLetters(), worker_id="bench")
        # warm-up: every match seen for the first time
        await pipeline.handle_batch(batches[0])  # type: ignore[arg-type]
        gc_counts = [0, 0, 0]

        def seen(phase: str, info: dict[str, int]) -> None:
            if phase == "stop":
                gc_counts[info["generation"]] += 1

        gc.callbacks.append(seen)
        measured = 0
        cpu0, wall0 = time.process_time(), time.perf_counter()
        for batch in batches[1:upto]:
            await pipeline.handle_batch(batch)  # type: ignore[arg-type]  # what it reads of a Faust event
            measured += len(batch)
        cpu, wall = time.process_time() - cpu0, time.perf_counter() - wall0
        gc.callbacks.remove(seen)
        out = {
            "measured": measured,
            "batches": upto - 1,
            "cpu": cpu,
            "wall": wall,
            "counts": dict(pipeline.counts),
            "gc": gc_counts,
        }
        if digest_records:
            digest = hashlib.sha256()
            for match in sorted({e.key.decode() for e in events}):
                digest.update(match.encode() + b"\0" + (await store.record(match) or b"") + b"\0")
            out["records"] = digest.hexdigest()
        return out

    async def run() -> dict[str, Any]:
        passes = [
            await one_pass(f"{args.prefix}p{k}", k == 0 and args.batches is None) for k in range(args.passes)
        ]
        # the pass that met the least contention on this shared machine is the figure (its CPU is the code's)
        best = min(passes, key=lambda p: p["cpu"])
        return {**best, "records": passes[0].get("records", ""), "pass_cpu": [p["cpu"] for p in passes]}

    return loop.run_until_complete(run())


def child_engine(args: argparse.Namespace) -> dict[str, Any]:
    """Replay of the corpus's games from canonical msgpack against decoding alone; CPU per event."""
    import msgpack

    from replay import Game

    try:
        from replay.engine import dumps  # after issue 41: the engine's one public face
    except ImportError:
        from replay.engine.record import dumps
    import replay

    games: list[list[bytes]] = msgpack.unpackb(Path(args.records).read_bytes())
    n = sum(len(g) for g in games)
    unpackb = msgpack.unpackb
    records: list[bytes] = []

    def decode_only() -> None:
        for g in games:
            for m in g:
                unpackb(m)

    def replay_all() -> None:
        records.clear()
        for g in games:
            game = Game()
            apply = game.apply_msgpack
            for m in g:
                apply(m)
            records.append(dumps(game.record()))

    replay_all()  # warm-up: lazy imports, the rulesets, the decoders
    gc.collect()
    out: dict[str, Any] = {"events": n, "compiled": bool(replay.compiled())}
    for name, fn in (("decode", decode_only), ("replay", replay_all)):
        best = float("inf")
        for _ in range(args.repeat):
            c0 = time.process_time()
            fn()
            best = min(best, time.process_time() - c0)
        out[name] = best
    out["records"] = hashlib.sha256(b"\0".join(records)).hexdigest()
    return out


def child(args: argparse.Namespace) -> None:
    tree = str(Path(args.tree).resolve())
    # this file's own directory (bench/) is not the tree's: only the tree's modules are importable
    sys.path[:] = [tree] + [p for p in sys.path[1:] if p and Path(p).resolve() != ROOT]
    os.chdir(tree)
    if os.sched_getaffinity(0) and args.cpu is not None:
        os.sched_setaffinity(0, {args.cpu})
    out = child_core(args) if args.child == "core" else child_engine(args)
    print("RESULT " + json.dumps(out), flush=True)


# ------------------------------------------------------------------------------------------ orchestration


def build_core_corpus(min_events: int, seed: int) -> list[tuple[bytes, bytes]]:
    """``bench/pipeline.py``'s corpus and order, each event as ``prizecheck produce`` sends it."""
    sys.path[:0] = [str(ROOT), str(ROOT / "bench")]
    from pipeline import build_corpus, interleave

    from streams.kafka.produce import encode

    return [encode(e) for e in interleave(build_corpus(min_events, seed, "ic"))]


def build_engine_corpus(min_events: int, seed: int) -> list[list[bytes]]:
    """``bench/engine.py``'s bare corpus, canonical msgpack per event."""
    sys.path[:0] = [str(ROOT), str(ROOT / "bench")]
    from engine import as_produced, corpus

    return as_produced(corpus(min_events, seed, False))


def python_of(tree: Path) -> str:
    return str(tree / ".venv" / "bin" / "python")


def run_child(
    tree: Path, workload: str, records: Path, args: argparse.Namespace, prefix: str
) -> dict[str, Any]:
    argv = [
        python_of(tree),
        str(Path(__file__).resolve()),
        "--child",
        workload,
        "--tree",
        str(tree),
        "--records",
        str(records),
        "--batch-size",
        str(args.batch_size),
        "--redis-port",
        str(args.redis_port),
        "--prefix",
        prefix,
        "--repeat",
        str(args.repeat),
    ]
    argv += ["--passes", str(args.passes)]
    if args.cpu is not None:
        argv += ["--cpu", str(args.cpu)]
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH",)}
    out = subprocess.run(argv, cwd=tree, env=env, capture_output=True, text=True)
    if out.returncode != 0:
        sys.stderr.write(out.stderr)
        raise SystemExit(f"{tree}: the {workload} round failed ({out.returncode})")
    line = next(ln for ln in out.stdout.splitlines() if ln.startswith("RESULT "))
    result: dict[str, Any] = json.loads(line[len("RESULT ") :])
    return result


class RedisServer:
    """A private ``redis-server`` (no persistence) so that its CPU is this bench's alone."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.dir = tempfile.mkdtemp(prefix="prizecheck-ic-")
        binary = shutil.which("redis-server")
        if binary is None:
            raise SystemExit("redis-server not found")
        self.proc = subprocess.Popen(
            [binary, "--port", str(port), "--save", "", "--appendonly", "no", "--dir", self.dir],
            stdout=subprocess.DEVNULL,
        )
        for _ in range(100):
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.1).close()
                return
            except OSError:
                time.sleep(0.05)
        raise SystemExit(f"redis-server did not start on port {port}")

    def cpu(self) -> float:
        with socket.create_connection(("127.0.0.1", self.port)) as s:
            s.sendall(b"INFO cpu\r\n")
            data = b""
            while b"used_cpu_user:" not in data or not data.endswith(b"\r\n"):
                data += s.recv(65536)
        info = dict(
            line.split(":", 1)
            for line in data.decode().splitlines()
            if ":" in line and not line.startswith("$")
        )
        return float(info["used_cpu_sys"]) + float(info["used_cpu_user"])

    def flush(self) -> None:
        with socket.create_connection(("127.0.0.1", self.port)) as s:
            s.sendall(b"FLUSHALL\r\n")
            s.recv(100)

    def close(self) -> None:
        self.proc.terminate()
        self.proc.wait(10)
        shutil.rmtree(self.dir, ignore_errors=True)


def spread(values: list[float], fmt: str = "{:.2f}") -> str:
    return f"{fmt.format(statistics.median(values))} ({fmt.format(min(values))}-{fmt.format(max(values))})"


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--before", type=Path, help="the tree of the code before (its own .venv, make install)")
    ap.add_argument("--rounds", type=int, default=8, help="rounds of each tree, alternating")
    ap.add_argument("--events", type=int, default=20_000, help="at least this many events (core)")
    ap.add_argument("--engine-events", type=int, default=100_000, help="at least this many events (engine)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--batch-size", type=int, default=600, help="records per batch (core), fixed")
    ap.add_argument("--workload", default="core,engine", help="core, engine or both (comma-separated)")
    ap.add_argument("--redis-port", type=int, default=6391, help="the private redis-server's port")
    ap.add_argument("--repeat", type=int, default=3, help="engine: best of this many passes per round")
    ap.add_argument(
        "--passes", type=int, default=3, help="core: passes of the corpus a round, the least CPU kept"
    )
    ap.add_argument("--batches", type=int, default=None, help="core: stop after this many measured batches")
    ap.add_argument("--cpu", type=int, default=None, help="pin each round to this CPU")
    ap.add_argument("--write-corpus", type=Path, help="write the core corpus to this file and stop")
    ap.add_argument("--json", action="store_true", help="end with every round's figures as one JSON line")
    # a round's own process (internal)
    ap.add_argument("--child", choices=("core", "engine"), help=argparse.SUPPRESS)
    ap.add_argument("--tree", help=argparse.SUPPRESS)
    ap.add_argument("--records", help=argparse.SUPPRESS)
    ap.add_argument("--prefix", default="ic", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        child(args)
        return 0
    if args.write_corpus is not None:  # for a profiler run of one round's process by hand
        import msgpack

        args.write_corpus.write_bytes(
            msgpack.packb([list(r) for r in build_core_corpus(args.events, args.seed)])
        )
        return 0
    if args.before is None:
        ap.error("--before DIR is required (a checkout of the code before, with its own make install)")
    trees = {"new": ROOT, "old": args.before.resolve()}
    for tree in trees.values():
        if not Path(python_of(tree)).exists():
            ap.error(f"{tree}: no .venv (run make install there)")
    workloads = [w.strip() for w in args.workload.split(",") if w.strip()]
    rev = {
        name: subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], cwd=tree, capture_output=True, text=True
        ).stdout.strip()
        for name, tree in trees.items()
    }
    print(f"new: {ROOT} ({rev['new']}); old: {trees['old']} ({rev['old']})")
    print(f"load average at start: {load()}; {os.cpu_count()} CPUs")
    work = Path(tempfile.mkdtemp(prefix="prizecheck-ic-"))
    everything: dict[str, Any] = {}
    try:
        for workload in workloads:
            everything[workload] = run_workload(workload, trees, work, args)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(f"load average at the end: {load()}")
    if args.json:
        print(json.dumps(everything))
    return 0


def run_workload(
    workload: str, trees: dict[str, Path], work: Path, args: argparse.Namespace
) -> dict[str, Any]:
    import msgpack

    path = work / f"{workload}.msgpack"
    if workload == "core":
        core_records = build_core_corpus(args.events, args.seed)
        path.write_bytes(msgpack.packb([list(r) for r in core_records]))
        n = len(core_records)
        print(
            f"== core: {n} events, {len({k for k, _ in core_records})} matches, batches of {args.batch_size}"
        )
    else:
        games = build_engine_corpus(args.engine_events, args.seed)
        path.write_bytes(msgpack.packb(games))
        n = sum(len(g) for g in games)
        print(f"== engine: {len(games)} games, {n} events, best of {args.repeat} passes a round")
    redis = RedisServer(args.redis_port) if workload == "core" else None
    rounds: dict[str, list[dict[str, Any]]] = {"new": [], "old": []}
    try:
        for i in range(args.rounds):
            order = ("new", "old") if i % 2 == 0 else ("old", "new")  # neither always first
            for name in order:
                la = os.getloadavg()[0]
                if redis is not None:
                    redis.flush()
                    r0 = redis.cpu()
                r = run_child(trees[name], workload, path, args, prefix=f"ic{i}{name}")
                r["load"] = la
                if redis is not None:
                    r["redis_cpu"] = redis.cpu() - r0
                    r["us"] = 1e6 * r["cpu"] / r["measured"]
                    r["redis_us"] = 1e6 * r["redis_cpu"] / (args.passes * n)
                    print(
                        f"  round {i + 1} {name}: worker {r['us']:.1f} us/event CPU "
                        f"({r['measured'] / r['cpu']:,.0f} events/CPU s), "
                        f"wall {r['measured'] / r['wall']:,.0f} events/s, "
                        f"Redis {r['redis_us']:.1f} us/event, "
                        f"gc {r['gc']}, load {la:.2f}",
                        flush=True,
                    )
                else:
                    r["us"] = 1e6 * r["replay"] / r["events"]
                    r["decode_us"] = 1e6 * r["decode"] / r["events"]
                    r["ratio"] = r["decode"] / r["replay"]
                    print(
                        f"  round {i + 1} {name}: replay {r['us']:.2f} us/event, decode-only "
                        f"{r['decode_us']:.2f} us/event, (b)/(a) {r['ratio']:.3f}"
                        f"{'' if r['compiled'] else ' (pure Python)'}, load {la:.2f}",
                        flush=True,
                    )
                rounds[name].append(r)
    finally:
        if redis is not None:
            redis.close()
    digests = {r["records"] for rs in rounds.values() for r in rs}
    same = len(digests) == 1
    print(
        f"  records: {'identical in every round of both trees' if same else 'DIFFER between rounds or trees'}"
    )
    if workload == "core":
        counts = {name: rs[0]["counts"] for name, rs in rounds.items()}
        print(f"  counts: new {counts['new']}, old {counts['old']}")
    new = [r["us"] for r in rounds["new"]]
    old = [r["us"] for r in rounds["old"]]
    pairs = [a / b for a, b in zip(new, old, strict=True)]
    what = "worker CPU per event" if workload == "core" else "replay CPU per event"
    print(f"  {what}: new {spread(new)} us, old {spread(old)} us (median, lowest-highest)")
    mid_new, mid_old = statistics.median(new), statistics.median(old)
    print(
        f"  new/old CPU per event: {mid_new / mid_old:.3f} of the medians; "
        f"per pair {spread(pairs, '{:.3f}')}; lowest {min(new) / min(old):.3f}; "
        f"throughput new/old {mid_old / mid_new:.3f}"
    )
    if workload == "core":
        rn = [r["redis_us"] for r in rounds["new"]]
        ro = [r["redis_us"] for r in rounds["old"]]
        print(f"  Redis CPU per event: new {spread(rn)} us, old {spread(ro)} us")
    else:
        rn = [r["ratio"] for r in rounds["new"]]
        ro = [r["ratio"] for r in rounds["old"]]
        three = "{:.3f}"
        print(f"  (b)/(a), replay against decoding alone: new {spread(rn, three)}, old {spread(ro, three)}")
    assert same, "the two trees stored or replayed different records"
    return rounds


if __name__ == "__main__":
    sys.exit(main())
