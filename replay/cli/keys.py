"""``prizecheck keys [--rotate]``: the service's signing keys (replay/signing.py; docs/deployment.md, "Signing
keys").

Prints the public keys document, exactly what ``GET /.well-known/prizecheck-keys.json`` serves: every key's
id and raw public key, and which one is active. It holds no secret: give it to anyone who verifies
records, checkpoints or receipts (``prizecheck verify --keys FILE``).

The keys are in ``PRIZECHECK_KEYS_DIR`` (default ``<PRIZECHECK_DATA_DIR>/keys``); ``prizecheck serve``
creates the first one. ``--rotate`` makes a new key the active one (created first when there is none):
the old keys stay listed, so every signature made before still verifies under its key id. A running
service signs with the key it started with: restart it (and every worker sharing the directory).
"""

from __future__ import annotations

import argparse
import sys

from replay.cli.common import json_line, tr, why
from replay.engine import InputError


def configure(parser: argparse.ArgumentParser) -> None:
    """Add the ``keys`` options."""
    parser.add_argument(
        "--rotate",
        action="store_true",
        help="make a new signing key the active one first (the old ones stay valid for what they signed)",
    )


def run(args: argparse.Namespace) -> int:
    """Print the public keys document (one line of JSON); with ``--rotate``, after a new key."""
    from replay.signing import KeyFileError, KeyRing
    from streams.settings import Settings

    path = Settings.from_env().keys_path
    try:
        ring = KeyRing.open(path, create=False)
        if args.rotate:
            old = ring.signer.kid if ring is not None else None
            ring = ring if ring is not None else KeyRing.open(path, create=True)
            assert ring is not None  # create=True always gives one
            new = ring.rotate() if old is not None else ring.signer
            retired = tr(" (key {key} is retired: what it signed stays valid)", key=old) if old else ""
            print(
                "prizecheck keys: "
                + tr(
                    "key {key} is now the active one in {path}{retired}; restart serve and the workers to "
                    "sign with it",
                    key=new.kid,
                    path=path,
                    retired=retired,
                ),
                file=sys.stderr,
            )
    except (KeyFileError, OSError) as exc:
        raise InputError(tr("the signing keys: {reason}", reason=why(exc))) from None
    if ring is None:
        raise InputError(
            tr("no signing key in {path} yet (prizecheck serve creates one; or --rotate)", path=path)
        )
    print(json_line(ring.public.document()))
    return 0
