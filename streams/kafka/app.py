"""The Faust application: one factory, so the worker, the tests and the benchmark build the same app.

Choices that matter (docs/deployment.md has the operator's view):

- Values and keys are raw bytes (``value_serializer="raw"``): the agent decodes msgpack itself, so a
  record that is not msgpack still reaches the agent and goes to the dead-letter topic with its bytes.
- ``processing_guarantee`` stays ``at_least_once``. Faust's ``exactly_once`` (transactions, idempotent
  producer) has open bugs and never covered Redis anyway; the archive append is idempotent instead. With
  at_least_once Faust creates a plain ``aiokafka.AIOKafkaProducer``, whose ``enable_idempotence``
  defaults to False (aiokafka >= 0.10), which brokers without idempotent producers (Tansu) need.
- No Faust tables: per-match state lives in the worker's memory (:class:`streams.ingest.IngestCore`) and
  the Redis archive is the recovery point, so there is no changelog write per event.
- Fetch wait 50 ms instead of Faust's hard-coded 1.5 s: Kafka answers a fetch as soon as data arrives,
  but Tansu holds it for much of the wait (raw aiokafka, measured: p50 400 ms at 1.5 s, 23 ms at 100 ms),
  which becomes the pipeline's latency (bench/pipeline.py at 500 events/s: p50 403 ms at 1.5 s, 44 ms
  at 100 ms, 30 ms at 50 ms). On Kafka the shorter wait only means more empty fetches when idle.
- Short group timeouts (rebalance 5 s, session 10 s): a group (re)join waits up to the rebalance timeout
  for members, and a dead worker's partitions move after the session timeout. Faust's own environment
  variables (``BROKER_REBALANCE_TIMEOUT``, ``BROKER_SESSION_TIMEOUT``, ``BROKER_HEARTBEAT_INTERVAL``)
  override them.
"""

from __future__ import annotations

import contextlib
import gc
import os
from collections.abc import Mapping
from typing import Any

import faust

from streams.settings import Settings

#: Faust app id = Kafka consumer group of the workers.
APP_ID = "prizecheck"


#: Allocations between young-generation collections in a worker (CPython's default: 700).
GC_THRESHOLD = (20_000, 50, 100)


def tune_gc() -> None:
    """Garbage-collector settings for a worker process; call once, after start-up.

    A worker keeps every game in progress in memory (thousands of dicts and lists per game), and decoding
    a batch allocates tens of thousands of objects. With CPython's default thresholds a full collection
    ran every few batches and walked all of that live state, again and again: measured on the ingest
    core (bench/pipeline.py's corpus, batches of ~1,900 records, in-memory store) it took ~20 % of the
    time (2.59 s -> 2.09 s with these thresholds). ``gc.freeze()`` also moves what start-up built
    (modules, Faust's app) out of the collector's sight. Cyclic garbage still gets collected, less often.
    """
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLD)


def kafka_url(url: str) -> str:
    """``KAFKA_URL`` as Faust wants it: ``kafka://host:port[;host:port...]`` (a bare ``host:port`` works)."""
    return url if "://" in url else f"kafka://{url}"


def bootstrap_servers(url: str) -> str:
    """``KAFKA_URL`` as aiokafka wants it: ``host:port[,host:port...]``."""
    rest = url.split("://", 1)[1] if "://" in url else url
    return ",".join(part.strip() for part in rest.replace(";", ",").split(",") if part.strip())


def create_app(
    settings: Settings,
    *,
    app_id: str = APP_ID,
    web_port: int | None = None,
    rebalance_timeout: float = 5.0,
    session_timeout: float = 10.0,
    heartbeat_interval: float = 1.0,
    fetch_max_wait: float = 0.05,
    **overrides: Any,
) -> faust.App:
    """A Faust app for ``settings`` (no agents yet: :func:`streams.kafka.agents.install` adds them).

    ``web_port`` None disables Faust's web server (two workers on one host would otherwise both want
    6066); give each worker its own port to get Faust's ``/stats`` and health pages. ``overrides`` go to
    ``faust.App`` as settings.
    """
    conf: dict[str, Any] = {
        "broker": kafka_url(settings.kafka_url),
        "value_serializer": "raw",
        "key_serializer": "raw",
        "topic_partitions": settings.partitions,
        "store": "memory://",
        # Faust's default datadir, "<app id>-data", would be the embedded Redis's directory.
        "datadir": os.path.join(settings.data_dir, "faust"),
        "processing_guarantee": "at_least_once",
        "producer_acks": -1,
        "consumer_auto_offset_reset": "earliest",
        "broker_rebalance_timeout": rebalance_timeout,
        "broker_session_timeout": session_timeout,
        "broker_heartbeat_interval": heartbeat_interval,
        "web_enabled": web_port is not None,
        "web_port": web_port or 6066,
        "worker_redirect_stdouts": False,
        "autodiscover": False,
    }
    conf.update(overrides)
    app = faust.App(app_id, **conf)
    _set_fetch_max_wait(app, int(fetch_max_wait * 1000))
    return app


def _set_fetch_max_wait(app: faust.App, wait_ms: int) -> None:
    """Make the app's Kafka consumer use ``fetch_max_wait_ms=wait_ms`` (Faust 0.15 hard-codes 1500)."""
    from faust.transport.drivers import aiokafka as driver

    class ConsumerThread(driver.AIOKafkaConsumerThread):
        def _create_worker_consumer(self, transport: Any) -> Any:
            consumer = super()._create_worker_consumer(transport)
            consumer._fetch_max_wait_ms = wait_ms  # read by AIOKafkaConsumer.start()
            return consumer

    class Consumer(driver.Consumer):
        def _new_consumer_thread(self) -> Any:
            return ConsumerThread(self, loop=self.loop, beacon=self.beacon)

    # An instance attribute: only this app's transport creates the patched consumer.
    app.transport.Consumer = Consumer  # type: ignore[misc]


async def ensure_topics(settings: Settings, *, extra: Mapping[str, int] | None = None) -> dict[str, int]:
    """Create the events topic and its DLQ with ``settings.partitions`` partitions when they are missing.

    Existing topics are left as they are (a partition count is never changed behind the operator's back:
    more partitions would move matches between partitions). Returns ``{topic: partitions}`` as found.
    """
    from aiokafka.admin import AIOKafkaAdminClient, NewTopic
    from aiokafka.errors import TopicAlreadyExistsError

    wanted = {settings.topic: settings.partitions, settings.dlq_topic: settings.partitions, **(extra or {})}
    admin = AIOKafkaAdminClient(bootstrap_servers=bootstrap_servers(settings.kafka_url))
    await admin.start()
    try:
        existing = set(await admin.list_topics())
        new = [NewTopic(name, n, 1) for name, n in wanted.items() if name not in existing]
        if new:
            with contextlib.suppress(TopicAlreadyExistsError):
                await admin.create_topics(new)
        described = await admin.describe_topics(list(wanted))
        return {d["topic"]: len(d["partitions"]) for d in described}
    finally:
        await admin.close()
