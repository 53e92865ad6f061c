"""``prizecheck verify RECORD [--events FILE...] [--allow-unsigned] [--checkpoints LOG [--versions FILE]]``:
check a record offline.

Checks the HMAC signature (key from PRIZECHECK_SIGNING_KEY) and, given the match's events, that the hash
chain head matches and that re-deriving the record gives the same bytes.

With a key configured, a record without a signature (the field absent or null) fails: removing the
signature must not be a way around the check. ``--allow-unsigned`` accepts such records (they are still
checked against their events). A record file without any record is bad input (exit 2), not success.

``--checkpoints LOG``: the service's checkpoint log (``prizecheck serve``'s ``checkpoints.log``, or the
values of the workers' checkpoint topic, one per line), whose signed checkpoints are checked with the
checkpoint key (PRIZECHECK_SIGNING_KEY, else the data directory's ``checkpoint.key``). The record must be
the one the newest checkpoint of its match signs (an older record the service signed once is named as
such); with ``--events``, the events must be those it signs (as many, the same chain head: a deleted last
event fails); with ``--versions FILE`` (the match's versions, oldest first, one record per line, as
``GET /matches/{m}/record?version=N`` gives them), the version list must be the one it signs (a truncated
or edited list fails). docs/reliability.md, "Tampering".
"""

from __future__ import annotations

import argparse
from typing import Any

from replay.cli.common import read_records, replayed_records, signing_key
from replay.engine.chain import canonical_bytes, verify_signature
from replay.engine.errors import InputError
from replay.engine.record import dumps


def configure(parser: argparse.ArgumentParser) -> None:
    """Add the ``verify`` arguments."""
    parser.add_argument(
        "record",
        metavar="RECORD",
        help="a record file: JSON lines (replay --json) or MessagePack (the service's)",
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
    records = read_records([args.record])  # InputError (exit 2) for a file without any record
    key = signing_key()
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
            "is only checked against a checkpoint log: give --checkpoints LOG", field="--versions"
        )
    log = _CheckpointLog(args.checkpoints, args.redis_prefix) if args.checkpoints else None
    versions = read_records([args.versions]) if args.versions else None
    ok = True
    for problem in log.errors if log else ():
        ok = False
        print(f"{args.checkpoints}: FAILED: {problem}")
    for rec in records:
        match = rec["match"]
        problems: list[str] = []
        if rec.get("signature"):
            if key is None:
                problems.append("signed, but PRIZECHECK_SIGNING_KEY is not set")
            elif not verify_signature(rec, key[0]):
                problems.append("signature does not verify")
        elif key is not None and not args.allow_unsigned:
            problems.append(
                "not signed, but PRIZECHECK_SIGNING_KEY is set (the signature is missing or null; "
                "--allow-unsigned accepts unsigned records)"
            )
        mine = derived.get(match)
        if args.events:
            if mine is None:
                problems.append("no events for this match")
            else:
                if mine["chain"] != rec["chain"]:
                    problems.append(f"chain head differs: events give {mine['chain']['head']}")
                unsigned = {k: v for k, v in rec.items() if k != "signature"}
                if dumps({**mine, "signature": None}) != dumps({**unsigned, "signature": None}):
                    problems.append("the events re-derive a different record")
        if log is not None:
            problems += log.problems(match, rec, mine, versions)
        if problems:
            ok = False
            print(f"{match}: FAILED: " + "; ".join(problems))
        else:
            checked = ["signature" if rec.get("signature") else "unsigned"]
            if args.events:
                checked += ["chain", "record"]
            if log is not None:
                checked += ["checkpoint"] + (["versions"] if versions is not None else [])
            print(f"{match}: ok ({', '.join(checked)})")
    return 0 if ok else 1


def _is_archive(path: str) -> bool:
    """A directory ``prizecheck archive --to`` wrote (its ``events/`` partitions)."""
    import os

    return os.path.isdir(os.path.join(path, "events"))


class _CheckpointLog:
    """The checkpoints of a log file, by match, verified with the checkpoint key."""

    def __init__(self, path: str, prefix: str) -> None:
        import os

        from streams.settings import Settings
        from streams.store.checkpoint import CheckpointError, configured_key, read_log

        if not os.path.isfile(path):
            raise InputError("no such checkpoint log", file=path)
        settings = Settings.from_env()
        try:
            key = configured_key(settings.signing_key, settings.key_id, settings.data_dir, create=False)
        except CheckpointError as exc:
            raise InputError(f"the checkpoint key: {exc}") from None
        if key is None:
            raise InputError(
                "no checkpoint key to verify it with: set PRIZECHECK_SIGNING_KEY, or PRIZECHECK_DATA_DIR to "
                "the service's data directory (its checkpoint.key)",
                file=path,
            )
        self.errors: list[str] = []
        self.by_match: dict[str, list[Any]] = {}
        for ck in read_log(path, key, errors=lambda n, why: self.errors.append(f"line {n}: {why}")):
            if ck.store == prefix:
                self.by_match.setdefault(ck.match, []).append(ck)

    def problems(
        self,
        match: str,
        rec: dict[str, Any],
        derived: dict[str, Any] | None,
        versions: list[dict[str, Any]] | None,
    ) -> list[str]:
        from streams.store.checkpoint import digest, version_chains

        logged = self.by_match.get(match)
        if not logged:
            return ["the checkpoint log has no checkpoint of this match"]
        latest = max(logged, key=lambda c: c.writes)
        out: list[str] = []
        mine = digest(canonical_bytes(rec))
        if mine != latest.record:
            older = [c.writes for c in logged if c.record == mine]
            if older:
                out.append(
                    f"an older record: the service signed it at write {max(older)}, but the newest "
                    f"checkpoint ({latest.describes()}) names another"
                )
            else:
                out.append(f"not the record the newest checkpoint ({latest.describes()}) names")
        if derived is not None:
            chain = derived["chain"]
            if chain.get("events") != latest.events or chain.get("head") != latest.chain:
                out.append(
                    f"the events ({chain.get('events')} in order) are not those the newest checkpoint signs "
                    f"({latest.events} events, chain head {latest.chain[:16]}...): events were deleted or "
                    "changed"
                )
        if versions is not None:
            mine_versions = [v for v in versions if v.get("match") == match]
            chains = version_chains((canonical_bytes(v), "") for v in mine_versions)
            vchain = chains[-1][0] if chains else ""
            if (len(mine_versions), vchain) != (latest.versions, latest.vchain):
                out.append(
                    f"the version list ({len(mine_versions)} versions) is not the one the newest checkpoint "
                    f"signs ({latest.versions} versions): truncated or edited"
                )
        return out
