"""docker-compose.yml, the Dockerfile and schemas/asyncapi.yaml agree with the code.

There is no Docker engine on the CI machines, so the compose file is checked, not run: services, ports,
and every environment variable name against ``streams.settings.ENV_VARS`` (a typo there would silently
fall back to a default), values against what ``Settings.from_env`` accepts.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

from streams.kafka.dlq import HEADERS
from streams.settings import ENV_VARS, Settings

yaml = pytest.importorskip("yaml")

ROOT = Path(__file__).resolve().parent.parent
PRIZECHECK_SERVICES = ("worker-1", "worker-2", "web")
# Variables read by something other than streams.settings, allowed in prizecheck services.
FAUST_VARS = {"BROKER_REBALANCE_TIMEOUT", "BROKER_SESSION_TIMEOUT", "BROKER_HEARTBEAT_INTERVAL"}


@pytest.fixture(scope="module")
def compose() -> dict[str, Any]:
    data: dict[str, Any] = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    return data


def env_of(service: dict[str, Any]) -> dict[str, str]:
    env = service.get("environment") or {}
    if isinstance(env, list):  # the KEY=VALUE list form
        env = dict(item.split("=", 1) for item in env)
    return {str(k): "" if v is None else str(v) for k, v in env.items()}


def resolved(value: str) -> str:
    """``${VAR:-default}`` as compose resolves it with VAR unset; a required ``${VAR:?why}`` (the Redis
    password) as if it were set, to ``secret``."""
    value = re.sub(r"\$\{[A-Z_]+:\?[^}]*\}", "secret", value)
    return re.sub(r"\$\{[A-Z_]+:-([^}]*)\}", r"\1", value)


def ports_of(service: dict[str, Any]) -> dict[int, int]:
    """container port -> host port."""
    out: dict[int, int] = {}
    for spec in service.get("ports") or []:
        host, container = str(spec).split(":")[-2:]
        out[int(container.split("/")[0])] = int(host)
    return out


def test_the_services_are_there(compose: dict[str, Any]) -> None:
    services = compose["services"]
    assert set(services) >= {"kafka", "redis", *PRIZECHECK_SERVICES}
    assert services["kafka"]["image"].startswith("apache/kafka:")
    assert services["redis"]["image"].startswith("redis:7")
    for name in ("worker-1", "worker-2"):
        assert services[name]["command"] == ["prizecheck", "worker", "--web-port", "6066"]
    web = services["web"]["command"]
    assert web[:2] == ["sh", "-c"] and web[2].endswith("&& exec prizecheck serve")  # after its first token
    for name in PRIZECHECK_SERVICES:
        assert services[name]["build"] == "."


def test_kafka_is_a_single_kraft_node_reachable_by_the_workers(compose: dict[str, Any]) -> None:
    kafka = compose["services"]["kafka"]
    env = env_of(kafka)
    assert set(env["KAFKA_PROCESS_ROLES"].split(",")) == {"broker", "controller"}
    assert "ZOOKEEPER" not in " ".join(env)
    listeners = dict(
        (name, int(addr.rsplit(":", 1)[1]))
        for name, addr in (item.split("://") for item in env["KAFKA_LISTENERS"].split(","))
    )
    advertised = dict(item.split("://") for item in env["KAFKA_ADVERTISED_LISTENERS"].split(","))
    for name in PRIZECHECK_SERVICES[:2]:
        url = urlsplit(env_of(compose["services"][name])["KAFKA_URL"])
        assert url.scheme == "kafka"
        assert f"{url.hostname}:{url.port}" == advertised[env["KAFKA_INTER_BROKER_LISTENER_NAME"]]
        assert url.hostname == "kafka"
    # the host listener is published on the same port it advertises
    external = advertised["EXTERNAL"]
    assert external.startswith("localhost:")
    assert ports_of(kafka)[listeners["EXTERNAL"]] == int(external.split(":")[1])
    # a stray produce must not create a one-partition topic
    assert env["KAFKA_AUTO_CREATE_TOPICS_ENABLE"] == "false"
    assert env["KAFKA_OFFSETS_TOPIC_REPLICATION_FACTOR"] == "1"


def test_redis_keeps_an_append_only_file_fsynced_every_second(compose: dict[str, Any]) -> None:
    redis = compose["services"]["redis"]
    command = " ".join(redis["command"])
    assert "--appendonly yes" in command
    assert "--appendfsync everysec" in command
    assert any(str(v).endswith(":/data") for v in redis["volumes"])
    for name in PRIZECHECK_SERVICES:
        url = urlsplit(resolved(env_of(compose["services"][name])["REDIS_URL"]))
        assert (url.scheme, url.hostname, url.port, url.password) == ("redis", "redis", 6379, "secret")


def test_every_variable_is_one_the_code_reads(compose: dict[str, Any]) -> None:
    for name in PRIZECHECK_SERVICES:
        env = env_of(compose["services"][name])
        unknown = set(env) - set(ENV_VARS) - FAUST_VARS
        assert not unknown, f"{name}: variables no code reads: {sorted(unknown)}"
        # and the values are ones the settings accept
        settings = Settings.from_env({k: resolved(v) for k, v in env.items()})
        assert settings.redis_url


def test_the_workers_agree_and_have_distinct_ids(compose: dict[str, Any]) -> None:
    workers = [env_of(compose["services"][n]) for n in ("worker-1", "worker-2")]
    settings = [Settings.from_env({k: resolved(v) for k, v in env.items()}) for env in workers]
    assert len({s.worker_id for s in settings}) == 2
    shared = {(s.kafka_url, s.redis_url, s.topic, s.dlq_topic, s.partitions) for s in settings}
    assert len(shared) == 1
    defaults = Settings()
    (_, _, topic, dlq, partitions) = shared.pop()
    # the compose file spells out the defaults; a change in one place must be made in the other
    assert (topic, dlq, partitions) == (defaults.topic, defaults.dlq_topic, defaults.partitions)
    kafka_env = env_of(compose["services"]["kafka"])
    assert int(kafka_env["KAFKA_NUM_PARTITIONS"]) == defaults.partitions
    gap = [(s.gap_limit, s.gap_timeout) for s in settings]
    assert gap == [(defaults.gap_limit, defaults.gap_timeout)] * 2


def test_the_web_app_listens_on_its_published_port(compose: dict[str, Any]) -> None:
    web = compose["services"]["web"]
    settings = Settings.from_env({k: resolved(v) for k, v in env_of(web).items()})
    assert settings.host == "0.0.0.0"
    assert settings.port == Settings().port
    assert settings.port in ports_of(web)


def test_the_dockerfile_installs_the_service_extra() -> None:
    text = (ROOT / "Dockerfile").read_text()
    assert re.search(r"^FROM python:3\.11-slim\b", text, re.M)
    assert "pip install --require-hashes --no-deps -r requirements-service.lock" in text
    assert 'pip install --no-deps --no-build-isolation ".[service]"' in text
    assert "COPY pyproject.toml README.md requirements-service.lock ./" in text
    for package in ("replay", "streams", "schemas"):
        assert f"COPY {package} " in text
    assert re.search(r"^USER (?!root)", text, re.M)
    # a file the package links to (replay/docs/rules.md -> docs/rules.md) is copied too, or the wheel
    # built in the image would lack it (/rules: 404)
    links = [p for pkg in ("replay", "streams", "schemas") for p in (ROOT / pkg).rglob("*") if p.is_symlink()]
    assert links
    for link in links:
        target = link.resolve().relative_to(ROOT).as_posix()
        assert f"COPY {target} ./{target}" in text, target


def test_asyncapi_describes_both_topics_and_the_dead_letter_headers() -> None:
    doc = yaml.safe_load((ROOT / "schemas" / "asyncapi.yaml").read_text())
    assert str(doc["asyncapi"]).startswith(("2.6", "3."))
    defaults = Settings()
    addresses = {ch["address"]: ch for ch in doc["channels"].values()}
    key_topic = f"{defaults.topic}.key"  # one partition: the workers' shared checkpoint key
    assert set(addresses) == {defaults.topic, defaults.dlq_topic, f"{defaults.topic}.checkpoints", key_topic}
    for address, ch in addresses.items():
        assert ch["bindings"]["kafka"]["partitions"] == (1 if address == key_topic else defaults.partitions)
    event = doc["components"]["messages"]["Event"]
    ref = event["payload"]["$ref"]
    assert (ROOT / "schemas" / ref).resolve() == (ROOT / "schemas" / "events.schema.json").resolve()
    dead = doc["components"]["messages"]["DeadLetter"]
    assert set(dead["headers"]["properties"]) == set(HEADERS)
    assert set(dead["headers"]["required"]) <= set(HEADERS)
    # every $ref inside the document points at something that exists
    for ref in re.findall(r"\$ref: '#/([^']+)'", (ROOT / "schemas" / "asyncapi.yaml").read_text()):
        node: Any = doc
        for part in ref.split("/"):
            node = node[part]


def test_the_web_app_has_a_token_file_on_a_volume(compose: dict[str, Any]) -> None:
    """On 0.0.0.0 serve refuses to start without tokens: the compose web app reads a token file kept in
    a volume (its first start makes an admin token there; more: `docker compose run --rm web prizecheck
    token create ...`)."""
    web = compose["services"]["web"]
    settings = Settings.from_env({k: resolved(v) for k, v in env_of(web).items()})
    folder = settings.tokens_path.rsplit("/", 1)[0]
    mounts = [v.split(":")[1] for v in web.get("volumes", [])]
    assert folder in mounts
    assert "install -d -o prizecheck -m 700 /home/prizecheck/tokens" in (ROOT / "Dockerfile").read_text()


@pytest.mark.redis
def test_the_web_app_starts_from_the_compose_file_first_line(compose: dict[str, Any], tmp_path: Path) -> None:
    """`docker compose up`: the web service's command, run as compose runs it (its environment, on
    0.0.0.0), makes an admin token on the first start (printed once, to its log) and serves with it; the
    second start makes none and serves with the same token file. Redis is a private embedded one here."""
    import os
    import signal
    import subprocess
    import sys
    import urllib.error
    import urllib.request

    web = compose["services"]["web"]
    env = {k: resolved(v) for k, v in env_of(web).items() if k != "REDIS_URL"}
    env.update(
        PATH=f"{Path(sys.executable).parent}:{os.environ['PATH']}",
        PRIZECHECK_TOKENS_FILE=str(tmp_path / "tokens" / "tokens.json"),
        PRIZECHECK_DATA_DIR=str(tmp_path / "data"),
        PRIZECHECK_PORT="0",
        HOME=str(tmp_path),
    )
    tokens = []
    for start in (1, 2):
        proc = subprocess.Popen(
            web["command"], env=env, cwd=tmp_path, text=True, start_new_session=True,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        )  # fmt: skip
        try:
            assert proc.stdout is not None and proc.stderr is not None
            line = proc.stdout.readline()
            if start == 1:
                tokens.append(line.strip())
                assert re.fullmatch(r"pc_[0-9a-f]{12}_\S+", tokens[0]), line
                line = proc.stdout.readline()
            assert "listening on http://0.0.0.0:" in line, (line, proc.stderr.readline())
            port = line.split("0.0.0.0:")[1].split()[0]
            ask = urllib.request.Request(
                f"http://127.0.0.1:{port}/stats", headers={"Authorization": f"Bearer {tokens[0]}"}
            )
            with urllib.request.urlopen(ask, timeout=30) as answer:
                assert answer.status == 200
            with pytest.raises(urllib.error.HTTPError) as refused:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/stats", timeout=30)
            assert refused.value.code == 401
        finally:
            os.killpg(proc.pid, signal.SIGTERM)
            assert proc.wait(timeout=60) == 0
    assert len(json_tokens(tmp_path / "tokens" / "tokens.json")) == 1  # the second start made none


def json_tokens(path: Path) -> list[Any]:
    import json

    tokens: list[Any] = json.loads(path.read_text())["tokens"]
    return tokens


def test_the_cluster_profile_runs_the_service_on_three_cluster_masters(compose: dict[str, Any]) -> None:
    from streams.settings import cluster_url

    services = compose["services"]
    nodes = sorted(n for n, s in services.items() if n.startswith("redis-node-"))
    assert len(nodes) == 3
    for name in nodes:
        node = services[name]
        assert node["profiles"] == ["cluster"] and node["image"].startswith("redis:7")
        command = " ".join(node["command"])
        assert "--cluster-enabled yes" in command and "--appendfsync everysec" in command
    init = " ".join(services["redis-cluster-init"]["command"])
    assert "--cluster create" in init and "--cluster-replicas 0" in init
    assert all(f"{n}:6379" in init for n in nodes)
    users = ("worker-cluster-1", "worker-cluster-2", "web-cluster")
    for name in users:
        service = services[name]
        assert service["profiles"] == ["cluster"]
        env = env_of(service)
        assert not set(env) - set(ENV_VARS) - FAUST_VARS
        settings = Settings.from_env({k: resolved(v) for k, v in env.items()})
        cluster = cluster_url(settings.redis_url)
        assert cluster is not None, name
        assert sorted(h for h, _ in cluster.nodes) == nodes and {p for _, p in cluster.nodes} == {6379}
    # the single-server services are untouched by the profile
    assert all("profiles" not in services[n] for n in ("redis", *PRIZECHECK_SERVICES))
    assert services["worker-cluster-1"]["command"] == ["prizecheck", "worker", "--web-port", "6066"]


def test_nothing_but_the_web_app_is_published_off_the_host(compose: dict[str, Any]) -> None:
    """Redis and Kafka have no authentication of their own on the host: their ports are bound to
    127.0.0.1 (issue 31 item 6); the web app, which checks tokens, is the one service on every interface."""
    for name, service in compose["services"].items():
        for spec in service.get("ports") or []:
            parts = str(spec).split(":")
            if name in ("web", "web-cluster"):
                continue
            assert len(parts) == 3 and parts[0] == "127.0.0.1", f"{name} publishes {spec} on every interface"


def test_redis_asks_for_a_password_that_every_client_sends(compose: dict[str, Any]) -> None:
    services = compose["services"]
    nodes = ["redis"] + [n for n in services if n.startswith("redis-node-")]
    for name in nodes:
        command = services[name]["command"]
        password = command[command.index("--requirepass") + 1]
        assert password == "${PRIZECHECK_REDIS_PASSWORD:?set PRIZECHECK_REDIS_PASSWORD}", name
        assert env_of(services[name])["REDISCLI_AUTH"] == password  # the healthcheck's redis-cli
    for name, service in services.items():
        url = env_of(service).get("REDIS_URL")
        if url is not None:
            assert "${PRIZECHECK_REDIS_PASSWORD:?" in url, name
            assert Settings.from_env({"REDIS_URL": resolved(url)}).redis_url


def test_the_web_apps_and_the_workers_have_healthchecks(compose: dict[str, Any]) -> None:
    services = compose["services"]
    for name, service in services.items():
        if service.get("build") != ".":
            continue
        test = " ".join(service["healthcheck"]["test"])
        if name.startswith("web"):
            assert "http://127.0.0.1:8080/healthz" in test, name
        else:
            assert "--web-port" in service["command"] and "http://127.0.0.1:6066/" in test, name


def test_the_web_data_directory_is_on_a_volume(compose: dict[str, Any]) -> None:
    """The checkpoint log and its key live in the data directory (docs/deployment.md): a volume each."""
    image = re.search(r"PRIZECHECK_DATA_DIR=(\S+)", (ROOT / "Dockerfile").read_text())
    assert image is not None
    for name in ("web", "web-cluster"):
        web = compose["services"][name]
        folder = env_of(web).get("PRIZECHECK_DATA_DIR", image[1])
        volumes = dict(str(v).split(":")[::-1][:2][::-1] for v in web["volumes"])
        assert folder in volumes.values(), name
        assert any(v.split(":")[0] in compose["volumes"] for v in web["volumes"] if v.endswith(folder))


def test_the_build_context_leaves_out_the_checkout_s_own_files() -> None:
    ignored = (ROOT / ".dockerignore").read_text().split()
    for heavy in (".venv", ".git", "prizecheck-data", "tests"):
        assert heavy in ignored, heavy


def test_the_locks_pin_every_package_with_hashes() -> None:
    """make install and the image install exact versions, each with its files' hashes (issue 31 item 1); the
    image's lock holds the service and the setuptools that builds the package, and agrees with the
    full lock on every version they share."""

    def pins(name: str) -> dict[str, str]:
        text = (ROOT / name).read_text()
        # name==version, for some with an environment marker (another platform's or Python's package)
        pinned = re.findall(r"^([a-z0-9][a-z0-9._-]*)==([^ ;]+)(?: ;[^\\\n]*)? \\$", text, flags=re.M)
        entries = re.findall(r"^[a-z0-9][^ #\n]*", text, flags=re.M)
        assert len(pinned) == len(entries), [e for e in entries if "==" not in e]  # every entry pinned
        found = {name: version for name, version in pinned if name != "numpy" or version.startswith("2.4")}
        blocks = re.split(r"\n(?=[a-z0-9])", text.split("\n", 2)[2])
        assert all("--hash=sha256:" in b for b in blocks if b.strip() and not b.startswith("#"))
        return found

    full, image = pins("requirements.lock"), pins("requirements-service.lock")
    assert {"redis", "aiohttp", "setuptools"} <= set(image) and "pytest" not in image
    assert {k: v for k, v in image.items() if k in full} == {k: full[k] for k in image if k in full}
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    wanted = [
        *project["dependencies"],
        *(d for extra in project["optional-dependencies"].values() for d in extra),
    ]
    for spec in wanted:
        name = re.split(r"[<>=!~ ;\[]", spec, maxsplit=1)[0]
        assert name.lower().replace("_", "-") in full, spec  # every dependency is locked
        assert "<" in spec or "==" in spec, spec  # with an upper bound: a new major never arrives unasked
