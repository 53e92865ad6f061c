"""``prizecheck simulate --matches N --seed S [--ruleset R] [--faults F] [--out FILE] [--format F]``."""

from __future__ import annotations

import argparse
import sys
from typing import BinaryIO

from replay.engine.errors import InputError
from replay.sources.simulate import FAULTS, RULESETS, simulate_corpus


def configure(parser: argparse.ArgumentParser) -> None:
    """Arguments of ``prizecheck simulate``."""
    parser.add_argument("--matches", type=int, default=10, help="number of games (playoff games come extra)")
    parser.add_argument("--seed", type=int, default=0, help="random seed (same seed, same events)")
    parser.add_argument("--ruleset", choices=RULESETS, default=None, help="ruleset (default: rotate)")
    parser.add_argument("--out", default="-", help="output file (default: stdout)")
    parser.add_argument("--format", choices=("jsonl", "msgpack"), default=None, help="default: jsonl")
    parser.add_argument(
        "--faults",
        default="",
        help=f"comma-separated source errors to inject in every game ({', '.join(FAULTS)})",
    )


def run(args: argparse.Namespace) -> int:
    """Write the simulated events as JSON Lines or MessagePack."""
    if args.matches < 0:
        raise InputError("must be >= 0", field="--matches")
    faults = [f for f in str(args.faults).split(",") if f]
    fmt = args.format or ("msgpack" if str(args.out).endswith(".msgpack") else "jsonl")
    if args.out == "-":
        _write(sys.stdout.buffer, args, faults, fmt)
        sys.stdout.buffer.flush()
    else:
        with open(args.out, "wb") as out:
            _write(out, args, faults, fmt)
    return 0


def _write(out: BinaryIO, args: argparse.Namespace, faults: list[str], fmt: str) -> None:
    import msgspec

    if fmt == "msgpack":
        enc_mp = msgspec.msgpack.Encoder()
        for stream in simulate_corpus(args.matches, args.seed, args.ruleset, faults=faults):
            out.write(b"".join(enc_mp.encode(e) for e in stream))
        return
    enc = msgspec.json.Encoder()
    for stream in simulate_corpus(args.matches, args.seed, args.ruleset, faults=faults):
        out.write(b"".join(enc.encode(e) + b"\n" for e in stream))
