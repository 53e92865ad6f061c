"""Issue 34 item 5: what ``check``, ``archive``, ``verify``, ``report``, ``show``, ``demo`` and ``keys`` say
of a key they cannot use (a key file that is not a key, a key directory whose ``active`` file names no key, a
public keys document that is not one) and of a stored checkpoint they cannot read, in the environment's
language (LANG=ja_JP.UTF-8 / ko_KR.UTF-8); the English byte for byte as before. Each command is the real
one (a subprocess), on the real Redis where it reads a store."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from replay.i18n import fill, gettext
from replay.i18n.errors import KEY_PROBLEMS, message
from replay.signing import KeyFileError, KeyRing, PublicKeys
from streams.store import RedisStore
from streams.store.checkpoint import NOT_FORMAT, NOT_HEX, Checkpoint, CheckpointError, key_from_file
from tests.paths import ROOT

LOCALES = {"ja": "ja_JP.UTF-8", "ko": "ko_KR.UTF-8"}
SIGNING_KEYS = "the signing keys: {reason}"
CHECKPOINT_KEY = "the checkpoint key: {reason}"
NOT_KID = "{where}: not a key id: {text}"
NOT_DOCUMENT = "{where}: not a Prizecheck keys document (format {format})"


def prizecheck(*args: str, env: dict[str, str], cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "replay.cli", *args], cwd=cwd, env=env, capture_output=True, text=True,
        timeout=300,
    )  # fmt: skip


def environment(
    data: Path, locale: str, *, redis_url: str | None = None, keys: Path | None = None
) -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("PRIZECHECK_", "KAFKA_", "REDIS_", "LC_", "LANG"))
    }
    env.update(PYTHONPATH=str(ROOT), PRIZECHECK_DATA_DIR=str(data), LANG=locale)
    if redis_url is not None:
        env["REDIS_URL"] = redis_url
    if keys is not None:
        env["PRIZECHECK_KEYS_DIR"] = str(keys)
    return env


def said_as(lang: str, template: str, **fields: object) -> str:
    """``template`` in ``lang`` filled with ``fields`` (a field may be such a text itself)."""
    return fill(lang, gettext(lang, template), fields)


def bad_ring(tmp_path: Path) -> tuple[Path, str]:
    """A key directory whose ``active`` file names no key; the English problem, as it was written before
    the messages were catalogue sentences."""
    ring = tmp_path / "keys"
    KeyRing.open(str(ring), create=True)
    (ring / "active").write_text("not-a-key\n")
    return ring, f"{ring / 'active'}: not a key id: 'not-a-key'"


def bad_key_file(data: Path) -> str:
    """A data directory whose HMAC key file is not hex; the English problem, as written before."""
    data.mkdir(parents=True, exist_ok=True)
    (data / "checkpoint.key").write_text("zz-not-hex\n")
    return f"{data / 'checkpoint.key'}: not a hex key"


def assert_said(text: str, expected: str, english: str) -> None:
    """``text`` holds ``expected`` (the sentence in the language, the file named as it is), and no English
    sentence of the problem is left."""
    assert expected in text, (expected, text)
    assert english not in text and "the signing keys" not in text and "the checkpoint key" not in text, text
    for word in ("not a ", " key id", "hex key", "keys document"):
        assert word not in text, (word, text)


# --------------------------------------------------------------------------------- English, byte for byte


def _key_problems(tmp_path: Path) -> dict[str, str]:
    """Every problem replay.signing says of a key file, a key directory or a public keys document, made
    for real, by what it was written as before its messages were read back (the English other tools
    compare)."""
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey

    def raised(make: Callable[[], object]) -> str:
        with pytest.raises(KeyFileError) as caught:
            make()
        return str(caught.value)

    doc = "prizecheck-keys/1"
    pub = "00" * 32
    (tmp_path / "notjson.json").write_text("{")
    made: dict[str, str] = {
        "k.json: not a Prizecheck keys document (format prizecheck-keys/1)": raised(
            lambda: PublicKeys.from_document({}, where="k.json")
        ),
        "the keys document: field keys: expected a list": raised(
            lambda: PublicKeys.from_document({"format": doc, "keys": 3})
        ),
        "k: field keys[0].public_key: not a raw Ed25519 key in hex": raised(
            lambda: PublicKeys.from_document({"format": doc, "keys": [{"public_key": "ab"}]}, where="k")
        ),
        f"{tmp_path}/nothing.json: no such file": raised(
            lambda: PublicKeys.from_file(f"{tmp_path}/nothing.json")
        ),
        f"{tmp_path}: cannot read: Is a directory": raised(lambda: PublicKeys.from_file(str(tmp_path))),
        f"{tmp_path}/notjson.json: not JSON (Expecting property name enclosed in double quotes: line 1 "
        "column 2 (char 1))": raised(lambda: PublicKeys.from_file(f"{tmp_path}/notjson.json")),
    }
    relabelled = raised(
        lambda: PublicKeys.from_document(
            {"format": doc, "keys": [{"kid": "x", "public_key": pub}]}, where="k"
        )
    )
    assert relabelled.startswith("k: field keys[0].kid: 'x' is not this key's id "), relabelled
    made[relabelled] = relabelled
    for name, content in {
        "garbage": b"not a key",
        "x25519": X25519PrivateKey.generate().private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        ),
    }.items():
        ring = tmp_path / name
        ring.mkdir()
        (ring / "0123456789abcdef.pem").write_bytes(content)
        said = raised(lambda ring=ring: KeyRing.open(str(ring), create=False))
        assert said.startswith(f"{ring}/0123456789abcdef.pem: not an Ed25519 key file ("), said
        made[said] = said
    assert f"{tmp_path}/x25519/0123456789abcdef.pem: not an Ed25519 key file (not an Ed25519 key)" in made
    ring = tmp_path / "misnamed"
    made_ring = KeyRing.open(str(ring), create=True)
    assert made_ring is not None
    kid = made_ring.signer.kid
    (ring / f"{kid}.pem").rename(ring / "0123456789abcdef.pem")
    (ring / "active").write_text("0123456789abcdef\n")
    held = f"holds key {kid}, not 0123456789abcdef (the file is named by its key id)"
    made[f"{ring}/0123456789abcdef.pem: {held}"] = raised(lambda: KeyRing.open(str(ring), create=False))
    ring = tmp_path / "gone"
    KeyRing.open(str(ring), create=True)
    (ring / "active").write_text("00000000000000ff\n")
    made[f"{ring}/active: names 00000000000000ff, whose private key is not here"] = raised(
        lambda: KeyRing.open(str(ring), create=False)
    )
    (ring / "active").write_text("nope\n")
    made[f"{ring}/active: not a key id: 'nope'"] = raised(lambda: KeyRing.open(str(ring), create=False))
    return made


def test_every_key_problem_is_the_english_it_was_and_is_said_in_the_language(tmp_path: Path) -> None:
    """Each problem is the English it was (tools and tests compare it), one of replay.i18n.errors'
    KEY_PROBLEMS reads it back, and in Japanese and Korean no English sentence of it is left (a reason of
    cryptography's, the OS's or the JSON parser's stays as written, inside the sentence)."""
    made = _key_problems(tmp_path)
    for written, said in made.items():
        assert said == written
    assert len(made) == len(KEY_PROBLEMS) + 1  # each template once; not an Ed25519 key file twice
    for lang in LOCALES:
        for written in made:
            spoken = message(lang, written)
            assert spoken != written, (lang, written)
            for english in (
                "not a ",
                "field keys:",
                "key id",
                "no such",
                "cannot read",
                "expected",
                "holds key",
            ):
                assert english not in spoken, (lang, spoken)
            assert "the keys document" not in spoken and "private key" not in spoken, spoken
        x25519 = message(
            lang, f"{tmp_path}/x25519/0123456789abcdef.pem: not an Ed25519 key file (not an Ed25519 key)"
        )
        assert gettext(lang, "not an Ed25519 key") in x25519, x25519  # the piece too


def test_a_checkpoint_that_cannot_be_read_is_the_english_it_was() -> None:
    for data, said in (
        (b"x", "not JSON: Expecting value: line 1 column 1 (char 0)"),
        (b'{"v": 99}', "not a checkpoint of format 1"),
        (b'{"v": 1, "other": 2}', "unexpected fields: "),
    ):
        with pytest.raises(CheckpointError) as checkpoint:
            Checkpoint.decode(data)
        assert str(checkpoint.value).startswith(said), str(checkpoint.value)
        # in Japanese and Korean by its own template, the reason of Python or its JSON parser as written
        for lang in LOCALES:
            spoken = str(checkpoint.value.args[0].spoken(lang))
            assert spoken != str(checkpoint.value) and "not " not in spoken and "fields" not in spoken, spoken


def test_a_key_file_that_is_not_hex_is_said_the_same(tmp_path: Path) -> None:
    english = bad_key_file(tmp_path)
    with pytest.raises(CheckpointError) as caught:
        key_from_file(str(tmp_path / "checkpoint.key"), create=False)
    assert str(caught.value) == english
    said = caught.value.args[0].spoken("ja")
    assert said == gettext("ja", NOT_HEX).format(path=tmp_path / "checkpoint.key")


# ---------------------------------------------------------------------------------- the commands, offline


def test_keys_says_a_key_directory_it_cannot_use_in_the_language(tmp_path: Path) -> None:
    ring, problem = bad_ring(tmp_path)
    english = prizecheck("keys", env=environment(tmp_path / "data", "C.UTF-8", keys=ring))
    assert english.returncode == 2 and f"the signing keys: {problem}" in english.stderr, english.stderr
    for lang, locale in LOCALES.items():
        said = prizecheck("keys", env=environment(tmp_path / "data", locale, keys=ring))
        assert said.returncode == 2, said.stderr
        kid = said_as(lang, NOT_KID, where=ring / "active", text="'not-a-key'")
        assert_said(said.stderr, said_as(lang, SIGNING_KEYS, reason=kid), problem)


async def test_verify_says_a_keys_document_and_a_checkpoint_key_it_cannot_use_in_the_language(
    tmp_path: Path,
) -> None:
    from tests.streams.test_verify_checkpoints import written

    _, _, log = await written(tmp_path)  # a signed record (older.json) and its checkpoint log
    document = tmp_path / "public.json"
    document.write_text(json.dumps({"format": "other"}))
    data = tmp_path / "data"
    problem = bad_key_file(data)
    runs = {  # what verify is given: the message it says, its frame and problem
        "keys": (
            ("--keys", str(document), "older.json"),
            f"{document}: not a Prizecheck keys document (format prizecheck-keys/1)",
            lambda lang: said_as(lang, NOT_DOCUMENT, where=document, format="prizecheck-keys/1"),
        ),
        "checkpoint key": (
            ("--checkpoints", log, "older.json"),
            f"the checkpoint key: {problem}",
            lambda lang: said_as(
                lang, CHECKPOINT_KEY, reason=said_as(lang, NOT_HEX, path=data / "checkpoint.key")
            ),
        ),
    }
    for what, (args, english_line, expected) in runs.items():
        english = prizecheck("verify", *args, env=environment(data, "C.UTF-8"), cwd=tmp_path)
        assert english.returncode == 2 and english_line in english.stderr, (what, english.stderr)
        for lang, locale in LOCALES.items():
            said = prizecheck("verify", *args, env=environment(data, locale), cwd=tmp_path)
            assert said.returncode == 2, said.stderr
            assert_said(said.stderr, expected(lang), english_line)


# ------------------------------------------------------------------------------- the commands on the store


async def _games(store: RedisStore, n: int = 3) -> list[str]:
    from streams.ingest import IngestCore
    from tests.streams.test_archive import season

    await IngestCore(store).ingest_many(season(n, ("Cup",)))
    return await store.matches(status="finished")


@pytest.mark.redis
async def test_check_says_its_checkpoint_key_and_an_unreadable_checkpoint_in_the_language(
    redis_store: RedisStore, redis_url: str, tmp_path: Path
) -> None:
    from streams.store import keys

    finished = await _games(redis_store)
    victim = sorted(finished)[0]
    await redis_store.client.hset(redis_store.key(victim, keys.STATE), "ck", b'{"v": 99}')
    args = ("check", "--redis-only", "--redis-prefix", redis_store.prefix)
    data = tmp_path / "data"
    data.mkdir()
    # a stored checkpoint that is not one: the breach quotes why, in the language
    breach = f"BREACH checkpoint_invalid {victim}"
    unreadable = "the stored checkpoint is unreadable: not a checkpoint of format 1"
    english = prizecheck(*args, env=environment(data, "C.UTF-8", redis_url=redis_url))
    assert english.returncode == 1 and unreadable in english.stdout, english.stdout + english.stderr
    en_json = prizecheck(*args, "--json", env=environment(data, "C.UTF-8", redis_url=redis_url)).stdout
    for lang, locale in LOCALES.items():
        env = environment(data, locale, redis_url=redis_url)
        said = prizecheck(*args, env=env)
        assert said.returncode == 1, said.stdout + said.stderr
        line = next(ln for ln in said.stdout.splitlines() if ln.startswith(breach))
        format_ = said_as(lang, NOT_FORMAT, format=1)
        assert line.endswith(said_as(lang, "the stored checkpoint is unreadable: {reason}", reason=format_))
        assert "unreadable" not in line and "not a checkpoint" not in line, line
        assert prizecheck(*args, "--json", env=env).stdout == en_json  # --json: English, as kept
    # a key file that is not a key: the check cannot run, and says why
    problem = bad_key_file(data)
    english = prizecheck(*args, env=environment(data, "C.UTF-8", redis_url=redis_url))
    assert english.returncode == 2, english.stdout + english.stderr
    assert english.stderr == f"prizecheck check: the checkpoint key: {problem}\n"
    for lang, locale in LOCALES.items():
        said = prizecheck(*args, env=environment(data, locale, redis_url=redis_url))
        assert said.returncode == 2, said.stderr
        hex_ = said_as(lang, NOT_HEX, path=data / "checkpoint.key")
        assert said.stderr == f"prizecheck check: {said_as(lang, CHECKPOINT_KEY, reason=hex_)}\n"


@pytest.mark.redis
async def test_archive_show_and_demo_say_a_key_directory_they_cannot_use_in_the_language(
    redis_store: RedisStore, redis_url: str, tmp_path: Path
) -> None:
    finished = await _games(redis_store)
    ring, problem = bad_ring(tmp_path)
    data = tmp_path / "data"
    data.mkdir()
    prefix = ("--redis-prefix", redis_store.prefix)
    commands = {
        "archive": ("archive", "--to", str(tmp_path / "arch"), *prefix),
        "show": ("show", sorted(finished)[0], "--history", *prefix),
        "demo": ("demo", "--seed", "3"),
    }
    for name, args in commands.items():
        english = prizecheck(*args, env=environment(data, "C.UTF-8", redis_url=redis_url, keys=ring))
        assert english.returncode == 2, (name, english.stdout, english.stderr)
        assert f"the signing keys: {problem}\n" in english.stderr, (name, english.stderr)
        for lang, locale in LOCALES.items():
            said = prizecheck(*args, env=environment(data, locale, redis_url=redis_url, keys=ring))
            assert said.returncode == 2, (name, said.stderr)
            last = said.stderr.strip().splitlines()[-1]
            kid = said_as(lang, NOT_KID, where=ring / "active", text="'not-a-key'")
            assert_said(last, said_as(lang, SIGNING_KEYS, reason=kid), problem)
    assert not any((tmp_path / "arch").iterdir())  # nothing archived without the key


@pytest.mark.redis
async def test_report_says_a_checkpoint_key_it_cannot_use_in_the_language(
    redis_store: RedisStore, tmp_path: Path
) -> None:
    pytest.importorskip("pyarrow")
    pytest.importorskip("duckdb")
    from streams.archive import archive

    await _games(redis_store, 4)
    run = await archive(redis_store, str(tmp_path / "arch"), league="Cup")
    assert run.archived, run.skipped
    data = tmp_path / "data"
    problem = bad_key_file(data)
    args = ("report", "--parquet", str(tmp_path / "arch"))
    english = prizecheck(*args, env=environment(data, "C.UTF-8"))
    assert english.returncode == 2 and f"the signing keys: {problem}\n" in english.stderr, english.stderr
    for lang, locale in LOCALES.items():
        said = prizecheck(*args, env=environment(data, locale))
        assert said.returncode == 2, said.stderr
        hex_ = said_as(lang, NOT_HEX, path=data / "checkpoint.key")
        assert_said(said.stderr, said_as(lang, SIGNING_KEYS, reason=hex_), problem)


def test_an_alarm_of_an_unreadable_checkpoint_says_why_in_the_language() -> None:
    """A rebuild's alarm quotes why the stored checkpoint is unreadable (kept in English); where a person
    reads it, that reason is said in the language too."""
    from streams.store import tamper

    with pytest.raises(CheckpointError) as caught:
        Checkpoint.decode(b'{"v": 99}')
    kept = tamper.detail("g1", [tamper.UNREADABLE.format(reason=caught.value), tamper.KEPT])
    assert kept.startswith("match g1: its stored checkpoint is unreadable (not a checkpoint of format 1); ")
    for lang in LOCALES:
        said = tamper.said(lang, kept)
        assert said_as(lang, NOT_FORMAT, format=1) in said, said
        assert "not a checkpoint" not in said and "unreadable" not in said, said
