"""Issue 34 item 5: what ``prizecheck check``, ``archive``, ``alarms`` and ``verify`` print of the store's own
sentences (a tamper alarm's detail, an archived copy's and the cold archive's problems, a checkpoint's
description, a receipt's problem) in the environment's language, on the real Redis; while what is kept
(the alarm in the store and the audit log) and ``--json`` stay in English, byte for byte."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from replay.i18n import Phrase, gettext
from streams.store import RedisStore, tamper
from streams.store.checkpoint import DESCRIBES, LOG_LINE_FORGED
from streams.store.parquet import COPY_PROBLEMS
from tests.paths import ROOT

pytestmark = [pytest.mark.redis]

LOCALES = {"ja": "ja_JP.UTF-8", "ko": "ko_KR.UTF-8"}


def prizecheck(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "replay.cli", *args], cwd=ROOT, env=env, capture_output=True, text=True,
        timeout=180,
    )  # fmt: skip


def environment(tmp_path: Path, redis_url: str, locale: str) -> dict[str, str]:
    env = {
        k: v for k, v in os.environ.items() if not k.startswith(("PRIZECHECK_", "KAFKA_", "REDIS_", "LC_"))
    }
    env.update(PYTHONPATH=str(ROOT), REDIS_URL=redis_url, PRIZECHECK_DATA_DIR=str(tmp_path / "data"))
    env.update(LC_ALL=locale, LANG=locale)
    return env


# ------------------------------------------------------------------------------------ every sentence


def _names(template: str) -> list[str]:
    from string import Formatter

    return [name for _, name, _, _ in Formatter().parse(template) if name is not None]


def _filled(template: str) -> str:
    """``template`` filled as the core fills it: a field's value a word or a number."""
    values: dict[str, object] = {}
    for name in _names(template):
        if name in ("checkpoint", "latest"):
            values[name] = Phrase(DESCRIBES, writes=3, seq=12, entries=12, versions=1)
        elif name == "what":
            values[name] = "board"
        else:
            values[name] = "x7"
    return template.format(**values)


@pytest.mark.parametrize("lang", ["ja", "ko"])
def test_every_sentence_of_an_alarm_reads_back_in_the_language(lang: str) -> None:
    """Each problem an alarm may say (the copy's too), alone and after another, is said in ``lang``: its
    translation, the fields as written (a checkpoint's description said again too)."""
    for template in tamper.SENTENCES:
        problem = _filled(template)
        kept = tamper.detail("g1", [problem, tamper.KEPT])
        said = tamper.said(lang, kept)
        assert said != kept, template
        translated = gettext(lang, template)
        assert translated != template, template
        assert gettext(lang, tamper.KEPT) in said
        # no English word of the template is left (its fields' values are: x7, g1)
        assert "the " not in said and " is " not in said, (template, said)
        assert "g1" in said, said
        if set(_names(template)) - {"checkpoint", "latest", "what"}:
            assert "x7" in said, said  # a field's value kept as written
        if "{checkpoint}" in template:
            assert gettext(lang, DESCRIBES).split("{")[0] in said, said
    # every problem of the copy is one of the alarm's sentences (rebuild keeps it in the alarm)
    assert set(COPY_PROBLEMS) <= set(tamper.SENTENCES)


def test_an_alarm_no_template_wrote_is_shown_as_written() -> None:
    for text in (
        "someone's own words",
        "match g1: something the core never wrote",
        f"match g1: {tamper.RECORD}; something the core never wrote",  # half known: all as written
    ):
        assert tamper.said("ja", text) == text and tamper.said("ko", text) == text
    known = tamper.detail("g1", [tamper.RECORD, tamper.KEPT])
    assert tamper.said("en", known) == known


def test_a_sentence_that_holds_the_separator_is_one_sentence() -> None:
    """A problem that holds "; " itself (a held event's, a stub's) is read whole, not cut."""
    text = tamper.detail("g1", [tamper.HELD.format(reason="bad seal"), tamper.KEPT])
    said = tamper.said("ja", text)
    assert (
        said.count(gettext("ja", tamper.KEPT)) == 1 and "bad seal" in said and "it is not applied" not in said
    )


# ------------------------------------------------------------------------- the commands on the store


async def _season(store: RedisStore) -> list[str]:
    """Simulated games of two leagues, Cup and Open; the finished ones."""
    from streams.ingest import IngestCore
    from tests.streams.test_archive import season

    await IngestCore(store).ingest_many(season(8, ("Cup", "Open")))
    return await store.matches(status="finished")


async def test_check_and_alarms_say_the_alarm_the_copy_and_the_manifest_in_the_language(
    redis_store: RedisStore, redis_url: str, tmp_path: Path
) -> None:
    pytest.importorskip("pyarrow")
    from streams.archive import archive
    from streams.ingest import IngestCore
    from streams.store.parquet import Marker
    from tests import tamper as attack

    finished = await _season(redis_store)
    run = await archive(redis_store, str(tmp_path / "arch"), league="Cup")
    assert run.archived, run.skipped
    victim = run.archived[0]
    path = Marker.decode(await redis_store.archive_marker(victim) or b"").file
    os.remove(path)  # the archived events' file: every match in it has no copy now
    with pytest.raises(Exception, match="is missing"):
        await IngestCore(redis_store).rebuild(victim)  # the owner's rebuild raises the alarm
    # a record swapped under a match still in Redis: another alarm, of the core's own sentences
    live = sorted(m for m in finished if m not in run.archived)
    assert len(live) >= 2, finished
    await attack.swap(redis_store, live[0], live[1], "record")
    with pytest.raises(Exception, match="not the one its checkpoint signs"):
        await IngestCore(redis_store).rebuild(live[0])
    alarms = await redis_store.alarms()
    # kept in English, byte for byte as written before the sentences were templates
    # (the copy gone, the archive replays to nothing: the head and the archive disagree with the checkpoint)
    assert alarms[victim].startswith(
        f"match {victim}: its archived events' file {path} is missing; the head "
    )
    assert (
        ", the archive's last event in order is 0; the archive (seq 0, 0 entries, chain head "
        in alarms[victim]
    )
    assert alarms[victim].endswith(
        ": it was changed outside the service; the stored data is kept as it is and not re-signed"
    )
    assert alarms[live[0]].startswith(
        f"match {live[0]}: the stored record is not the one its checkpoint signs (replaced or edited)"
    )
    audited = {e.target: e.detail for e in await redis_store.audit_log() if e.action == "tamper_alarm"}
    assert audited[victim] == alarms[victim] and audited[live[0]] == alarms[live[0]]

    args = ("check", "--redis-only", "--redis-prefix", redis_store.prefix)
    english = prizecheck(*args, env=environment(tmp_path, redis_url, "C.UTF-8"))
    assert english.returncode == 1, english.stdout + english.stderr
    assert f"BREACH tamper_alarm {victim}: {alarms[victim]}\n" in english.stdout
    en_json = prizecheck(*args, "--json", env=environment(tmp_path, redis_url, "C.UTF-8")).stdout
    for lang, locale in LOCALES.items():
        env = environment(tmp_path, redis_url, locale)
        said = prizecheck(*args, env=env)
        assert said.returncode == 1, said.stdout + said.stderr
        lines = {ln.partition(":")[0]: ln.partition(": ")[2] for ln in said.stdout.splitlines()}
        missing = gettext(lang, COPY_PROBLEMS[1]).format(file=path)
        kept = gettext(lang, tamper.KEPT)
        copied = lines[f"BREACH tamper_alarm {victim}"]
        assert copied.startswith(gettext(lang, tamper.ALARM).format(match=victim, problems=missing + "; "))
        assert copied.endswith("; " + kept) and gettext(lang, tamper.HEAD).split("{")[0] in copied, copied
        assert copied.count("; ") == 3 and copied.isascii() is False, copied
        swapped = lines[f"BREACH tamper_alarm {live[0]}"]
        assert gettext(lang, tamper.RECORD) in swapped and kept in swapped, swapped
        copy = [v for k, v in lines.items() if k.startswith("BREACH archive_copy")]
        assert copy and all(missing in v for v in copy), said.stdout
        manifest = [v for k, v in lines.items() if k.startswith("BREACH archive_manifest")]
        assert manifest and all(v[:1].isascii() and "missing" not in v for v in manifest), said.stdout
        for head, text in lines.items():  # no breach of these is left in English
            if head.startswith("BREACH"):
                assert "the stored" not in text and "is missing" not in text, (head, text)
        # --json: English, the same bytes as in an English environment
        assert prizecheck(*args, "--json", env=env).stdout == en_json
        # prizecheck alarms: the same sentences; --json as kept
        listed = prizecheck("alarms", "--redis-prefix", redis_store.prefix, env=env)
        assert listed.returncode == 0, listed.stderr
        assert f"{victim}  {lines[f'BREACH tamper_alarm {victim}']}\n" in listed.stdout
        as_json = prizecheck("alarms", "--redis-prefix", redis_store.prefix, "--json", env=env)
        assert {"match": victim, "alarm": alarms[victim]} in map(json.loads, as_json.stdout.splitlines())
        # the audit log: the alarm as a person reads it; --json as kept
        audit = ("audit-log", "--action", "tamper_alarm", "--redis-prefix", redis_store.prefix)
        shown = prizecheck(*audit, env=env)
        assert shown.returncode == 0 and shown.stdout.count(kept) == 2, shown.stdout + shown.stderr
        assert lines[f"BREACH tamper_alarm {victim}"] in shown.stdout and "the stored" not in shown.stdout
        rows = [json.loads(r) for r in prizecheck(*audit, "--json", env=env).stdout.splitlines()]
        assert {r["target"]: r["detail"] for r in rows} == audited
    assert json.loads(en_json)["breaches"][0]["detail"].isascii()
    assert await redis_store.alarms() == alarms  # nothing shown changed what is kept


async def test_archive_says_why_a_match_is_left_in_redis_in_the_language(
    redis_store: RedisStore, redis_url: str, tmp_path: Path
) -> None:
    pytest.importorskip("pyarrow")
    from streams.ingest import IngestCore
    from tests import tamper as attack

    finished = await _season(redis_store)
    a, b = sorted(finished)[:2]
    await attack.swap(redis_store, a, b, "board")
    with pytest.raises(Exception, match="not the one its checkpoint signs"):
        await IngestCore(redis_store).rebuild(a)
    alarm = (await redis_store.alarms())[a]
    args = ("archive", "--to", str(tmp_path / "arch"), "--redis-prefix", redis_store.prefix)
    english = prizecheck(*args, "--json", env=environment(tmp_path, redis_url, "C.UTF-8"))
    assert english.returncode == 0, english.stderr
    skipped = json.loads(english.stdout)["skipped"]
    assert skipped[a] == f"it has a tamper alarm: {alarm}"
    for lang, locale in LOCALES.items():
        env = environment(tmp_path, redis_url, locale)
        said = prizecheck(*args, env=env)
        assert said.returncode == 0, said.stderr
        why = next(ln for ln in said.stderr.splitlines() if f" {a}" in ln or f": {a}" in ln)
        assert gettext(lang, tamper.BOARD) in why and gettext(lang, tamper.KEPT) in why, why
        assert "tamper alarm" not in why and "the stored" not in why, why
        again = prizecheck(*args, "--json", env=env)
        assert json.loads(again.stdout)["skipped"][a] == skipped[a]  # --json: English, as kept


# ------------------------------------------------------------------------------------------- verify


async def test_verify_says_the_checkpoint_it_names_in_the_language(tmp_path: Path) -> None:
    """The newest checkpoint an older record is held against, and a log line that does not verify, named
    by their descriptions in the reader's language (it printed ``write 5 (seq 12, ...)`` in English)."""
    from tests.streams.test_verify_checkpoints import written

    _, _, log = await written(tmp_path)
    last = Path(log).read_text().splitlines()[-1]
    with open(log, "a") as fh:  # a line whose MAC does not verify: named by its checkpoint
        fh.write(last.replace('"mac":"', '"mac":"00') + "\n")
    args = ("older.json", "--checkpoints", log, "--redis-prefix", "")
    english = _verify(tmp_path, "C.UTF-8", *args)
    assert english.returncode == 1 and "(write " in english.stdout, english.stdout
    assert "does not verify" in english.stdout, english.stdout
    for lang, locale in LOCALES.items():
        said = _verify(tmp_path, locale, *args)
        assert said.returncode == 1, said.stdout + said.stderr
        described = gettext(lang, DESCRIBES).split("{")[0]
        assert described in said.stdout, said.stdout
        assert "(write " not in said.stdout and "entries" not in said.stdout, said.stdout
        forged = gettext(lang, LOG_LINE_FORGED).split("{")[0]
        assert forged in said.stdout and "does not verify" not in said.stdout, said.stdout


def _verify(tmp_path: Path, locale: str, *args: str) -> subprocess.CompletedProcess[str]:
    from tests.streams.test_verify_checkpoints import SECRET

    env = {k: v for k, v in os.environ.items() if not k.startswith(("PRIZECHECK_", "LC_"))}
    env.update(PYTHONPATH=str(ROOT), PRIZECHECK_DATA_DIR=str(tmp_path / "nowhere"), LC_ALL=locale)
    env.update(PRIZECHECK_SIGNING_KEY=SECRET, PRIZECHECK_KEY_ID="v1")
    return subprocess.run(
        [sys.executable, "-m", "replay.cli", "verify", *args],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120,
    )  # fmt: skip


def test_every_problem_of_a_receipt_is_said_in_the_language() -> None:
    """Each thing replay.signing.verify_receipt says is wrong is read by verify's templates (none is left
    in English on a Japanese or Korean terminal)."""
    from replay.cli.verify import RECEIPT_PROBLEMS
    from replay.i18n.sentences import translate
    from replay.signing import PublicKeys, SigningKey, receipt, verify_receipt

    signer, other = SigningKey.generate(), SigningKey.generate()
    keys = PublicKeys()
    keys.add(signer.public)
    good = receipt(signer, match="m1", seq=3, events=3, chain="ab" * 32, at="2026-12-06T00:00:00Z")
    assert verify_receipt(good, keys) is None
    problems = {
        verify_receipt(["not", "a", "map"], keys),
        verify_receipt({k: v for k, v in good.items() if k != "chain"}, keys),
        verify_receipt({**good, "alg": "hmac-sha256"}, keys),
        verify_receipt(receipt(other, match="m1", seq=3, events=3, chain="ab" * 32, at="x"), keys),
        verify_receipt({**good, "seq": 4}, keys),
    }
    assert None not in problems and len(problems) == len(RECEIPT_PROBLEMS), problems
    for lang in LOCALES:
        for problem in problems:
            said = translate(lang, RECEIPT_PROBLEMS, str(problem))
            assert said is not None and said != problem and "receipt" not in said, (problem, said)
