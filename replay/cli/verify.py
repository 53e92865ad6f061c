"""``prizecheck verify RECORD [--keys FILE] [--events FILE...] [--allow-unsigned] [--checkpoints LOG
[--versions FILE]]``, ``prizecheck verify --receipts FILE --keys FILE [--events FILE...]``: check records
and receipts offline.

Checks the signature and, given the match's events, that the hash chain head matches and that re-deriving
the record gives the same bytes. An Ed25519 signature is checked with the service's public keys alone:
``--keys FILE``, the document ``/.well-known/prizecheck-keys.json`` serves and ``prizecheck keys`` prints
(else the key directory PRIZECHECK_KEYS_DIR; with ``--checkpoints``, also the service's own, as its log
is); an HMAC signature (records signed before) with PRIZECHECK_SIGNING_KEY. A signature is checked
under the key its ``key_id`` names, so one made before a rotation stays valid.

With a key configured, a record without a signature (the field absent or null) fails: removing the
signature must not be a way around the check. ``--allow-unsigned`` accepts such records (they are still
checked against their events). A record file without any record is bad input (exit 2), not success.

``--receipts FILE``: the receipts the service gave a producer (``POST /events``' answers as they came, or
the receipts one per line): each must be signed by one of the keys, and with ``--events``, the match's
first ``events`` events must chain to its ``chain`` head.

``--checkpoints LOG``: the service's checkpoint log (``prizecheck serve``'s ``checkpoints.log``, or the
values of the workers' checkpoint topic, one per line), whose signed checkpoints are checked with the
public keys (``--keys``; HMAC-signed checkpoints of before with PRIZECHECK_SIGNING_KEY, else the data
directory's ``checkpoint.key``). The record must be
the one the newest checkpoint of its match signs (an older record the service signed once is named as
such); with ``--events``, the events must be those it signs (as many, the same chain head: a deleted last
event fails); with ``--versions FILE`` (the match's versions, oldest first, one record per line, as
``GET /matches/{m}/record?version=N`` gives them), the version list must be the one it signs (a truncated
or edited list fails). docs/reliability.md, "Tampering".
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from replay.cli.common import UsageError, tr, why
from replay.cli.words import said
from replay.engine import InputError
from replay.i18n import N_

# The chain, the signatures (cryptography) and the readers are imported where they are used, not to parse
# the options (issue 40 item 2).
if TYPE_CHECKING:
    from replay.signing import PublicKeys


#: What :func:`replay.signing.verify_receipt` says is wrong with a receipt (in English, as written there:
#: tests/streams/test_check_languages.py checks each is read), said again in the reader's language.
RECEIPT_PROBLEMS = (
    N_("not a receipt (a JSON object)"),
    N_("not a receipt: no field {field}"),
    N_("not an {alg} receipt"),
    N_("signed by key {key}, which the keys given do not list"),
    N_("the signature does not verify under key {key}"),
)


def configure(parser: argparse.ArgumentParser) -> None:
    """Add the ``verify`` arguments."""
    parser.add_argument(
        "record",
        metavar="RECORD",
        nargs="?",
        help="a record file: JSON lines (replay --json) or MessagePack (the service's)",
    )
    parser.add_argument(
        "--keys",
        metavar="FILE",
        help="the service's public keys (GET /.well-known/prizecheck-keys.json, or prizecheck keys)",
    )
    parser.add_argument(
        "--receipts",
        metavar="FILE",
        help="check the receipts of POST /events answers (a JSON answer or receipt per line) instead",
    )
    parser.add_argument(
        "--events",
        nargs="+",
        metavar="FILE",
        help="the match's event files, or the cold archive's (prizecheck archive --to DIR: the directory "
        "or a .parquet events file)",
    )
    parser.add_argument(
        "--allow-unsigned",
        action="store_true",
        help="accept records without a signature even when PRIZECHECK_SIGNING_KEY is set",
    )
    parser.add_argument(
        "--checkpoints",
        metavar="LOG",
        help="the service's checkpoint log: the record (and the events, the versions) must be the ones its "
        "newest signed checkpoint names",
    )
    parser.add_argument(
        "--versions",
        metavar="FILE",
        help="with --checkpoints: the match's versions, oldest first (one record per line)",
    )
    parser.add_argument(
        "--redis-prefix",
        default="pc",
        help="with --checkpoints: the store's key prefix the checkpoints are of (default pc)",
    )


def run(args: argparse.Namespace) -> int:
    """Print one line per record (``MATCH: ok (...)`` or ``MATCH: FAILED: ...``); exit 1 if any failed."""
    if (args.record is None) == (args.receipts is None):
        raise UsageError(tr("give RECORD or --receipts FILE (one of them)"))
    from replay.cli.common import read_records, replayed_records, verifying_keys
    from replay.engine import dumps

    keys = verifying_keys(args.keys)
    if args.receipts is not None:
        if args.checkpoints or args.versions or args.allow_unsigned:
            raise UsageError(
                tr("--receipts cannot be combined with --checkpoints, --versions, --allow-unsigned")
            )
        return _receipts(args.receipts, keys, args.events)
    records = read_records([args.record])  # InputError (exit 2) for a file without any record
    derived: dict[str, dict[str, Any]] = {}
    if args.events:
        archived = [p for p in args.events if p.endswith(".parquet") or _is_archive(p)]
        files = [p for p in args.events if p not in archived]
        derived = replayed_records(files) if files else {}
        if archived:
            from replay.report.parquet import archived_records_of_events

            derived.update(archived_records_of_events(archived, [str(r["match"]) for r in records]))
    if args.versions and not args.checkpoints:
        raise InputError(
            tr("is only checked against a checkpoint log: give --checkpoints LOG"), field="--versions"
        )
    log = _CheckpointLog(args.checkpoints, args.redis_prefix, keys) if args.checkpoints else None
    versions = read_records([args.versions]) if args.versions else None
    ok = True
    for problem in log.errors if log else ():
        ok = False
        print(tr("{what}: FAILED: {problems}", what=args.checkpoints, problems=problem))
    for rec in records:
        match = rec["match"]
        problems: list[str] = []
        sig = rec.get("signature")
        if sig:
            problems += _signature_problems(rec, sig, keys)
        elif (keys.keys or keys.hmac) and not args.allow_unsigned:
            problems.append(
                tr(
                    "not signed, but PRIZECHECK_SIGNING_KEY is set (the signature is missing or null; "
                    "--allow-unsigned accepts unsigned records)"
                )
                if keys.hmac and not keys.keys
                else tr(
                    "not signed, but keys are given (the signature is missing or null; --allow-unsigned "
                    "accepts unsigned records)"
                )
            )
        mine = derived.get(match)
        if args.events:
            if mine is None:
                problems.append(tr("no events for this match"))
            else:
                if mine["chain"] != rec["chain"]:
                    problems.append(tr("chain head differs: events give {head}", head=mine["chain"]["head"]))
                unsigned = {k: v for k, v in rec.items() if k != "signature"}
                if dumps({**mine, "signature": None}) != dumps({**unsigned, "signature": None}):
                    problems.append(tr("the events re-derive a different record"))
        if log is not None:
            problems += log.problems(match, rec, mine, versions)
        if problems:
            ok = False
            print(tr("{what}: FAILED: {problems}", what=match, problems="; ".join(problems)))
        else:
            checked = [N_("signature") if rec.get("signature") else N_("unsigned")]
            if args.events:
                checked += [N_("chain"), N_("record")]
            if log is not None:
                checked += [N_("checkpoint")] + ([N_("versions")] if versions is not None else [])
            print(tr("{what}: ok ({checked})", what=match, checked=", ".join(tr(c) for c in checked)))
    return 0 if ok else 1


def _signature_problems(rec: dict[str, Any], sig: Any, keys: PublicKeys) -> list[str]:
    """Why ``rec``'s signature does not verify under ``keys`` (nothing when it does)."""
    from replay.engine import HMAC_ALG, verify_signature
    from replay.signing import ALG

    alg = sig.get("alg") if isinstance(sig, dict) else None
    kid = sig.get("key_id") if isinstance(sig, dict) else None
    if alg == HMAC_ALG and not keys.hmac:
        return [tr("signed, but PRIZECHECK_SIGNING_KEY is not set")]
    if alg == ALG and not keys.keys:
        return [tr("signed with Ed25519, but no public keys are given (--keys FILE)")]
    if not isinstance(alg, str) or not isinstance(kid, str) or not keys.knows(alg, kid):
        return [tr("signed by key {key} ({alg}), which the keys given do not list", key=repr(kid), alg=alg)]
    return [] if verify_signature(rec, keys) else [tr("signature does not verify (key {key})", key=kid)]


def _receipts(path: str, keys: PublicKeys, events: list[str] | None) -> int:
    """Check every receipt of ``path``: one line each, ``MATCH seq N: ok (...)`` or ``...: FAILED: why``."""
    from replay.codec import read_events
    from replay.engine import chain_head
    from replay.signing import verify_receipt

    if not keys.keys:
        raise InputError(tr("no public keys to check receipts with: give --keys FILE"), file=path)
    found = _receipts_of(path)
    by_match: dict[str, dict[int, dict[str, Any]]] = {}
    for file in events or ():
        for _, ev in read_events(file):
            by_match.setdefault(str(ev.get("match")), {}).setdefault(int(ev["seq"]), ev)
    ok = True
    for where, doc in found:
        name = f"{doc.get('match')} seq {doc.get('seq')}" if isinstance(doc, dict) else where
        problem = _receipt_problem(verify_receipt(doc, keys))
        if problem is None and events:
            mine = [ev for _, ev in sorted(by_match.get(str(doc["match"]), {}).items())]
            n = doc["events"]
            head = chain_head(mine[:n]) if isinstance(n, int) and len(mine) >= n else None
            if head != doc["chain"]:
                problem = tr("the events given do not chain to its head at {n} events", n=n)
        if problem is None:
            checked = tr("signature {key}", key=doc["key_id"]) + (", " + tr("chain") if events else "")
            print(tr("{what}: ok ({checked})", what=name, checked=checked))
        else:
            ok = False
            print(tr("{what}: FAILED: {problems}", what=name, problems=f"{problem} ({where})"))
    return 0 if ok else 1


def _receipt_problem(problem: str | None) -> str | None:
    """What is wrong with a receipt (:data:`RECEIPT_PROBLEMS`) in the command line's language."""
    from replay.cli.words import language

    lang = language()
    if problem is None or lang == "en":
        return problem
    from replay.i18n.sentences import shown

    return shown(lang, RECEIPT_PROBLEMS, problem)


def _receipts_of(path: str) -> list[tuple[str, Any]]:
    """``(where, receipt)`` from a file of JSON lines: POST /events answers (their ``receipts``) or
    receipts. InputError naming the file and line when a line is not JSON, or there is none."""
    import json

    out: list[tuple[str, Any]] = []
    try:
        with open(path, "rb") as fh:
            lines = fh.read().splitlines()
    except FileNotFoundError:
        raise InputError(tr("no such file"), file=path) from None
    except OSError as exc:
        raise InputError(tr("cannot read: {reason}", reason=exc.strerror or exc), file=path) from None
    for n, raw in enumerate(lines, start=1):
        if not raw.strip():
            continue
        try:
            doc = json.loads(raw)
        except ValueError as exc:
            raise InputError(tr("not JSON ({reason})", reason=exc), file=path, line=n) from None
        # an answer to a write (POST /events, the console's publish, the import page, a judge's action)
        # carries a list of receipts; a line without one is a receipt itself
        many = doc.get("receipts") if isinstance(doc, dict) else None
        out += [(f"{path}:{n}", r) for r in many] if isinstance(many, list) else [(f"{path}:{n}", doc)]
    if not out:
        raise InputError(tr("is empty: no receipts"), file=path)
    return out


def _is_archive(path: str) -> bool:
    """A directory ``prizecheck archive --to`` wrote (its ``events/`` partitions)."""
    import os

    return os.path.isdir(os.path.join(path, "events"))


class _CheckpointLog:
    """The checkpoints of a log file, by match, verified with the checkpoint key."""

    def __init__(self, path: str, prefix: str, keys: PublicKeys) -> None:
        import os

        from replay.cli.common import key_ring
        from streams.settings import Settings
        from streams.store.checkpoint import CheckpointError, CheckpointKey, key_from_file, read_log

        if not os.path.isfile(path):
            raise InputError(tr("no such checkpoint log"), file=path)
        settings = Settings.from_env()
        # the public keys check what is signed with Ed25519; the HMAC key of the checkpoints of before
        # (PRIZECHECK_SIGNING_KEY, else the data directory's key file) what was signed before
        try:
            legacy = key_from_file(os.path.join(settings.data_dir, "checkpoint.key"), create=False)
        except CheckpointError as exc:
            raise InputError(tr("the checkpoint key: {reason}", reason=why(exc))) from None
        if legacy is not None and legacy.kid not in keys.hmac:
            keys.hmac[legacy.kid] = legacy.key
        # the log is the service's: its own key directory's public keys check it too (as its key file did)
        mine = key_ring(settings.keys_path)
        for kid, public in (mine.public.keys if mine is not None else {}).items():
            keys.keys.setdefault(kid, public)
        key = CheckpointKey.verifying(keys) if keys.keys or keys.hmac else None
        if key is None:
            raise InputError(
                tr(
                    "no checkpoint key to verify it with: give --keys FILE (the service's public keys), or "
                    "set PRIZECHECK_SIGNING_KEY for checkpoints signed before"
                ),
                file=path,
            )
        self.errors: list[str] = []
        self.by_match: dict[str, list[Any]] = {}
        for ck in read_log(
            path, key, errors=lambda n, why: self.errors.append(tr("line {n}: {why}", n=n, why=said(why)))
        ):
            if ck.store == prefix:
                self.by_match.setdefault(ck.match, []).append(ck)

    def problems(
        self,
        match: str,
        rec: dict[str, Any],
        derived: dict[str, Any] | None,
        versions: list[dict[str, Any]] | None,
    ) -> list[str]:
        from replay.engine import canonical_bytes
        from streams.store.checkpoint import digest, version_chains

        logged = self.by_match.get(match)
        if not logged:
            return [tr("the checkpoint log has no checkpoint of this match")]
        latest = max(logged, key=lambda c: c.writes)
        out: list[str] = []
        mine = digest(canonical_bytes(rec))
        if mine != latest.record:
            older = [c.writes for c in logged if c.record == mine]
            if older:
                out.append(
                    tr(
                        "an older record: the service signed it at write {write}, but the newest checkpoint "
                        "({checkpoint}) names another",
                        write=max(older),
                        checkpoint=said(latest.describes()),
                    )
                )
            else:
                out.append(
                    tr(
                        "not the record the newest checkpoint ({checkpoint}) names",
                        checkpoint=said(latest.describes()),
                    )
                )
        if derived is not None:
            chain = derived["chain"]
            if chain.get("events") != latest.events or chain.get("head") != latest.chain:
                out.append(
                    tr(
                        "the events ({events} in order) are not those the newest checkpoint signs ({signed} "
                        "events, chain head {head}...): events were deleted or changed",
                        events=chain.get("events"),
                        signed=latest.events,
                        head=latest.chain[:16],
                    )
                )
        if versions is not None:
            mine_versions = [v for v in versions if v.get("match") == match]
            chains = version_chains((canonical_bytes(v), "") for v in mine_versions)
            vchain = chains[-1][0] if chains else ""
            if (len(mine_versions), vchain) != (latest.versions, latest.vchain):
                out.append(
                    tr(
                        "the version list ({n} versions) is not the one the newest checkpoint signs "
                        "({signed} versions): truncated or edited",
                        n=len(mine_versions),
                        signed=latest.versions,
                    )
                )
        return out
