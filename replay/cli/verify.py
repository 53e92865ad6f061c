"""``prizecheck verify RECORD [--events FILE...] [--allow-unsigned]``: check a record offline.

Checks the HMAC signature (key from PRIZECHECK_SIGNING_KEY) and, given the match's events, that the hash
chain head matches and that re-deriving the record gives the same bytes.

With a key configured, a record without a signature (the field absent or null) fails: removing the
signature must not be a way around the check. ``--allow-unsigned`` accepts such records (they are still
checked against their events). A record file without any record is bad input (exit 2), not success.
"""

from __future__ import annotations

import argparse
from typing import Any

from replay.cli.common import read_records, replayed_records, signing_key
from replay.engine.chain import verify_signature
from replay.engine.record import dumps


def configure(parser: argparse.ArgumentParser) -> None:
    """Add the ``verify`` arguments."""
    parser.add_argument("record", metavar="RECORD", help="a record JSON file (as printed by replay --json)")
    parser.add_argument("--events", nargs="+", metavar="FILE", help="the match's event files")
    parser.add_argument(
        "--allow-unsigned",
        action="store_true",
        help="accept records without a signature even when PRIZECHECK_SIGNING_KEY is set",
    )


def run(args: argparse.Namespace) -> int:
    """Print one line per record (``MATCH: ok (...)`` or ``MATCH: FAILED: ...``); exit 1 if any failed."""
    records = read_records([args.record])  # InputError (exit 2) for a file without any record
    key = signing_key()
    derived: dict[str, dict[str, Any]] = {}
    if args.events:
        derived = replayed_records(args.events)
    ok = True
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
        if args.events:
            mine = derived.get(match)
            if mine is None:
                problems.append("no events for this match")
            else:
                if mine["chain"] != rec["chain"]:
                    problems.append(f"chain head differs: events give {mine['chain']['head']}")
                unsigned = {k: v for k, v in rec.items() if k != "signature"}
                if dumps({**mine, "signature": None}) != dumps({**unsigned, "signature": None}):
                    problems.append("the events re-derive a different record")
        if problems:
            ok = False
            print(f"{match}: FAILED: " + "; ".join(problems))
        else:
            checked = ["signature" if rec.get("signature") else "unsigned"]
            if args.events:
                checked += ["chain", "record"]
            print(f"{match}: ok ({', '.join(checked)})")
    return 0 if ok else 1
